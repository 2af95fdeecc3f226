"""OpenSpiel's Python ISMCTS against our best bot, through the OpenSpiel adapter.

Run::

    .venv/bin/python examples/ismcts_vs_expert.py                     # 4 deals, 4 players, punjab
    .venv/bin/python examples/ismcts_vs_expert.py --deals 40 --simulations 100 --profile classic

One seat (rotating over the deals) is played by ``open_spiel.python.algorithms.ismcts``
with random-rollout evaluation (:class:`getaway.envs.openspiel.RandomRollouts`, OpenSpiel's
``mcts.RandomRolloutEvaluator`` played on the engine's deal) and our resampler
(:func:`getaway.envs.openspiel.resample`, which deals the hidden cards again consistently with
what the searcher knows); every other seat by the ``expert`` level of
:func:`getaway.bots.make_bot` (whatever bot that level names in this version; ``random`` if
none). The chance nodes (the deal, blind draws) are sampled. Prints each side's loss rate:
with n players an even game loses 1/n of the deals.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

from getaway import player_view
from getaway.bots import make_bot
from getaway.envs.openspiel import RandomRollouts, resample  # importing registers python_getaway


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--profile", default="punjab", choices=("punjab", "classic"))
    parser.add_argument("--takes", default="off", choices=("off", "any", "leader"), help="R-P-TAKE (default: off)")
    parser.add_argument("--simulations", type=int, default=20, help="ISMCTS simulations per decision")
    parser.add_argument("--bot", default="expert", help="the opponents' bot (kind or level)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deals < 1 or args.simulations < 1:
        parser.error("--deals and --simulations: at least 1")
    params = {"profile": args.profile, "players": args.players, "takes": args.takes}
    try:
        game = pyspiel.load_game("python_getaway", params)
        bot = make_bot(args.bot)
    except (ValueError, pyspiel.SpielError) as exc:  # bad rules for this table (RulesError), unknown bot
        parser.error(str(exc))
    rng = random.Random(args.seed)
    rs = np.random.RandomState(args.seed)
    searcher = ismcts.ISMCTSBot(
        game, RandomRollouts(1, rs), uct_c=2.0, max_simulations=args.simulations, random_state=rs
    )
    searcher.set_resampler(lambda state, player: resample(state, player, rng))
    n = args.players
    ismcts_losses = bot_losses = bot_seats = draws = 0
    start = time.perf_counter()
    for d in range(args.deals):
        seat = d % n
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            elif state.current_player() == seat:
                state.apply_action(searcher.step(state))
            else:
                player = state.current_player()
                view = player_view(state.deal, player)
                legal = view.legal_actions
                action = legal[0] if len(legal) == 1 else bot.act(view, legal, rng)
                state.apply_action(int(action))
        loser = state.deal.outcome.loser
        draws += loser is None
        ismcts_losses += loser == seat
        bot_losses += loser is not None and loser != seat
        bot_seats += n - 1
        print(f"deal {d + 1}: ISMCTS at seat {seat}, loser {loser}", flush=True)
    elapsed = time.perf_counter() - start
    print(f"\n{args.deals} deals, {args.profile}, {n} players, {args.simulations} simulations, {elapsed:.0f} s")
    print(f"ISMCTS loss rate: {ismcts_losses / args.deals:.2f} (even: {1 / n:.2f})")
    print(f"{bot.name} loss rate per seat: {bot_losses / bot_seats:.2f}" + (f"; drawn deals: {draws}" if draws else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
