"""Time per decision of ``style:ismcts`` (OpenSpiel's Python ISMCTS through our adapter).

The decisions are fixed: ``--deals`` deals (the profile's rules; ``-o name=value`` changes one)
played by the heuristic at every seat, and every ``--every``-th decision with more than one
legal action is handed to a fresh ``ISMCTSStyle(simulations=--simulations)`` with the same seed.
It prints median and p99 per decision (wall clock and CPU time) and a digest of the actions chosen: two versions of the
adapter that search the same way (same tree, same random numbers) print the same digest.

    nice -n 5 .venv/bin/python bench/ismcts_times.py --profile punjab -n 4 --deals 2 --every 4

Run it with another checkout's interpreter (``/work/main/.venv/bin/python bench/ismcts_times.py``)
to time that version on the same decisions.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import random
import statistics
import time

from getaway import Deal, Knowledge, Rules, player_view
from getaway.bots import make_bot
from getaway.envs.ismcts import ISMCTSStyle


def decisions(rules: Rules, deals: int, every: int) -> list:
    """Every ``every``-th view with a choice, from ``deals`` heuristic deals (seeded)."""
    n = rules.players
    views = []
    count = 0
    for seed in range(deals):
        deal = Deal(rules, seed % n, 700 + seed)
        bot = make_bot("heuristic")
        rng = random.Random(seed)
        knowledge = [Knowledge.of(deal, s) for s in range(n)]
        while not deal.is_over:
            seat = deal.to_act
            view = player_view(deal, seat, knowledge[seat])
            if len(view.legal_actions) > 1:
                if count % every == 0:
                    views.append(view)
                count += 1
            deal.apply(bot.act(view, view.legal_actions, rng), seat)
    return views


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="punjab", choices=["punjab", "classic"])
    parser.add_argument("-n", "--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--every", type=int, default=4, help="time every k-th decision")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--limit", type=int, default=0, help="at most this many decisions (0: all)")
    parser.add_argument("--profile-out", default="", help="cProfile the run, print the top functions")
    parser.add_argument("-o", "--option", action="append", default=[], help="a rules option, e.g. takes=off")
    args = parser.parse_args()
    options = dict(o.split("=", 1) for o in args.option)
    rules = Rules.profile(args.profile, players=args.players, **options)
    views = decisions(rules, args.deals, args.every)
    if args.limit:
        views = views[: args.limit]
    profiler = cProfile.Profile() if args.profile_out else None
    times = []
    cpu = []  # this process's CPU time: steadier than the wall clock on a shared machine
    chosen = []
    for i, view in enumerate(views):
        bot = ISMCTSStyle(simulations=args.simulations)
        start, start_cpu = time.perf_counter(), time.process_time()
        if profiler:
            profiler.enable()
        action = bot.act(view, view.legal_actions, random.Random(i))
        if profiler:
            profiler.disable()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        chosen.append(int(action))
    digest = hashlib.sha256(bytes(chosen)).hexdigest()[:12]
    print(f"{args.profile} {args.players}p style:ismcts simulations={args.simulations}: {len(times)} decisions")
    for label, values in (("wall", sorted(times)), ("cpu", sorted(cpu))):
        p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
        print(f"  {label}: median {statistics.median(values):.3f} s, p99 {p99:.3f} s, max {values[-1]:.3f} s")
    print(f"  actions {digest}")
    if profiler:
        profiler.dump_stats(args.profile_out)
        pstats.Stats(args.profile_out).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
