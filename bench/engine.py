"""Engine speed: random legal deals through the public API (issue: rules engine, "Speed").

Rerun with::

    python3 dev.py bench                 # all configurations, ~1 s each
    python3 dev.py bench --seconds 5     # longer runs, steadier numbers

Each configuration plays seeded random deals (``Deal`` + ``legal_actions`` + ``apply``)
for about ``--seconds`` on one core and prints deals/s and actions/s. If OpenSpiel is
installed (``pip install open_spiel``) the same run plays OpenSpiel's ``hearts`` with
random actions driven from Python and prints our 4-player punjab rate (takes off) as a
ratio to it: both measured in the same process, minutes apart at most, so the ratio is
meaningful on a noisy machine even when the absolute numbers are not.
Target (issue 2): ≥ 5,000 four-player punjab deals/s with takes off; ratio ≥ 1.3.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from typing import Any

from getaway import PASS, TAKE, Deal, Rules
from getaway.core._engine import COMPILED

CONFIGS: list[tuple[str, int, str]] = [
    (profile, players, takes) for profile in ("punjab", "classic") for players in (4, 6) for takes in ("off", "poll")
]


def rules_for(profile: str, players: int, takes: str) -> Rules:
    """Rules of one benchmark configuration (takes 'off', or 'poll' with takes='any')."""
    if takes == "off":
        return Rules.profile(profile, players=players, takes="off")
    return Rules.profile(profile, players=players, takes="any", take_protocol="poll")


def run_engine(rules: Rules, seconds: float, seed: int = 0) -> dict[str, float]:
    """Play random legal deals for about ``seconds``; returns deals/s and actions/s.

    The policy never takes a hand (a take ends most deals at once), so polled runs
    measure the cost of asking every player before every trick.
    """
    rng = random.Random(seed)
    rand = rng.random
    deals = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    n = rules.players
    while True:
        deal = Deal(rules, deals % n, seed + deals)
        legal_actions, apply = deal.legal_actions, deal.apply
        while not deal.is_over:
            legal = legal_actions()
            if legal[0] is TAKE:
                action = PASS  # the take poll: never take
            else:
                action = legal[int(rand() * len(legal))]
            apply(action)
            actions += 1
        deals += 1
        if deals % 50 == 0 and time.perf_counter() > deadline:
            break
    elapsed = time.perf_counter() - start
    return {"deals": deals, "deals_per_s": deals / elapsed, "actions_per_s": actions / elapsed}


def run_hearts(seconds: float, seed: int = 0) -> dict[str, float] | None:
    """OpenSpiel ``hearts`` with random actions (chance outcomes sampled too); ``None`` if
    OpenSpiel is not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    rng = random.Random(seed)
    rand = rng.random
    games = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = outcomes[int(rand() * len(outcomes))][0]
            else:
                legal = state.legal_actions()
                action = legal[int(rand() * len(legal))]
            state.apply_action(action)
            actions += 1
        games += 1
        if games % 50 == 0 and time.perf_counter() > deadline:
            break
    elapsed = time.perf_counter() - start
    return {"deals": games, "deals_per_s": games / elapsed, "actions_per_s": actions / elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per configuration (default 1)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    engine = "deal.py compiled with mypyc" if COMPILED else "deal.py in pure Python (not compiled: docs/engine.md)"
    print(f"getaway engine benchmark: Python {platform.python_version()}, {platform.machine()}, one core")
    print(f"engine: {engine}")
    print(f"{'profile':8} {'players':>7} {'takes':>5} {'deals/s':>10} {'actions/s':>11}")
    results: list[dict[str, Any]] = []
    for profile, players, takes in CONFIGS:
        r = run_engine(rules_for(profile, players, takes), args.seconds)
        results.append({"profile": profile, "players": players, "takes": takes, **r})
        print(f"{profile:8} {players:>7} {takes:>5} {r['deals_per_s']:>10,.0f} {r['actions_per_s']:>11,.0f}")
    ours = next(r for r in results if r["profile"] == "punjab" and r["players"] == 4 and r["takes"] == "off")
    print(f"\ntarget: punjab 4 players, takes off: {ours['deals_per_s']:,.0f} deals/s (target ≥ 5,000)")
    hearts = run_hearts(args.seconds)
    summary: dict[str, Any] = {"compiled": COMPILED, "results": results}
    if hearts is None:
        print("OpenSpiel not installed: no hearts comparison (pip install open_spiel)")
    else:
        ratio = ours["deals_per_s"] / hearts["deals_per_s"]
        summary["hearts"] = hearts
        summary["ratio_to_hearts"] = ratio
        print(f"OpenSpiel hearts, random, from Python: {hearts['deals_per_s']:,.0f} games/s")
        print(f"ratio punjab-4 deals/s to hearts games/s: {ratio:.2f} (target ≥ 1.3)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(summary, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
