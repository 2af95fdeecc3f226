"""Time per decision of one bot kind, split by decision kind (card play vs take poll).

The tournament times every decision with more than one legal action; this separates the
card-play decisions, which are the expensive ones for the expert.

    python bench/bot_times.py --profile punjab -n 4 --deals 8 --bot expert
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from getaway import Deal, Knowledge, Rules, player_view
from getaway.bots import make_bot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="punjab", choices=["punjab", "classic"])
    parser.add_argument("-n", "--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--bot", default="expert", help="bot timed (one seat; heuristic elsewhere)")
    args = parser.parse_args()
    rules = Rules.profile(args.profile, players=args.players)
    n = args.players
    times: dict[str, list[float]] = {"play": [], "take": []}
    for seed in range(args.deals):
        deal = Deal(rules, seed % n, 500 + seed)
        timed = seed % n
        bots = [make_bot(args.bot) if s == timed else make_bot("heuristic") for s in range(n)]
        rng = random.Random(seed)
        knowledge = [Knowledge.of(deal, s) for s in range(n)]
        while not deal.is_over:
            seat = deal.to_act
            view = player_view(deal, seat, knowledge[seat])
            start = time.perf_counter()
            action = bots[seat].act(view, view.legal_actions, rng)
            if seat == timed and len(view.legal_actions) > 1:
                times[view.decision].append(time.perf_counter() - start)
            deal.apply(action, seat)
    every = sorted(times["play"] + times["take"])
    for kind, values in (*times.items(), ("all", every)):
        if not values:
            continue
        values = sorted(values)
        p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
        median = statistics.median(values)
        print(
            f"{args.profile} {n}p {args.bot} {kind}: {len(values)} decisions, median {median:.3f} s, "
            f"p99 {p99:.3f} s, max {values[-1]:.3f} s"
        )


if __name__ == "__main__":
    main()
