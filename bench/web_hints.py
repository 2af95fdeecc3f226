"""Hints and the event loop (issue 14, item 1): the lag of a server process's event loop while
players' hints are searched in a thread of that process (``--bot-workers 0``) or in a bot worker
process (:meth:`getaway.web.botpool.BotPool.hint`).

Rerun with::

    .venv/bin/python bench/web_hints.py                 # 20 hints, one after the other, each way
    .venv/bin/python bench/web_hints.py --hints 40 --together 2

No server, no sockets: one asyncio loop with a 10 ms ticker (how late it wakes is the lag every
room of the process would see), and ``--hints`` hints (``--together`` at a time, of different
rooms) for mid-deal views, through ``hint_for`` as the rooms call it. Reported for each way: the
ticker's lag (p50, p99, max, ms), the hints' latency (p50, max, ms) and the pool's counts. The
machine is shared: compare the two rows of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from getaway import Deal, Rules, player_view
from getaway.web.botpool import BotPool
from getaway.web.hints import hint_for


def views(count: int) -> list:
    """``count`` mid-deal views of the seat to act, each with at least two legal actions."""
    found = []
    seed = 0
    while len(found) < count:
        seed += 1
        deal = Deal(Rules.profile("punjab", players=4, takes="off"), 0, seed)
        rng = random.Random(seed)
        while not deal.is_over:
            legal = deal.legal_actions()
            if len(legal) > 1 and deal.tricks_played > 1:
                found.append(player_view(deal, deal.to_act))
                break
            deal.apply(legal[rng.randrange(len(legal))])
    return found


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def run(pool: BotPool | None, hints: list, together: int) -> tuple[list[float], list[float]]:
    lags: list[float] = []
    stop = False

    async def ticker() -> None:
        while not stop:
            planned = time.perf_counter() + 0.01
            await asyncio.sleep(0.01)
            lags.append(max(0.0, time.perf_counter() - planned) * 1000)

    latencies: list[float] = []

    async def one(i: int) -> None:
        view = hints[i]
        start = time.perf_counter()
        await hint_for(view, view.seat, "en", pool, f"R{i % together}")
        latencies.append((time.perf_counter() - start) * 1000)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.2)
    for first in range(0, len(hints), together):
        await asyncio.gather(*(one(i) for i in range(first, min(len(hints), first + together))))
    stop = True
    await tick
    return lags, latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hints", type=int, default=20)
    parser.add_argument("--together", type=int, default=1, help="hints at a time (of different rooms)")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    hints = views(args.hints)

    async def both() -> None:
        print(f"{args.hints} hints, {args.together} at a time")
        print("| hints in | loop lag p50 / p99 / max (ms) | hint p50 / max (ms) | pool counts |")
        print("|---|---|---|---|")
        for name in ("thread", "worker"):
            pool = None
            if name == "worker":
                pool = BotPool(args.workers, hint_workers=args.workers)
                await pool.start()
            try:
                lags, latencies = await run(pool, hints, args.together)
            finally:
                report = pool.report() if pool is not None else None
                if pool is not None:
                    await pool.stop()
            counts = f"hints {report['hints']}, fallbacks {report['hint_fallbacks']}" if report else "-"
            print(
                f"| {name} | {statistics.median(lags):.1f} / {pct(lags, 0.99):.1f} / {max(lags):.1f} "
                f"| {statistics.median(latencies):.0f} / {max(latencies):.0f} | {counts} |"
            )

    asyncio.run(both())


if __name__ == "__main__":
    main()
