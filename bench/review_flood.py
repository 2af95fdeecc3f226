"""A player's move → echo latency on a bare ``getaway serve`` with and without one address
flooding reviews (issue 29, item 4; docs/web.md, "Heavy reads").

Starts ``getaway serve`` (a temporary SQLite file, bots at ``--bot-delay``, every other setting
at its default, or the ``--serve`` options) and, from this process, on loopback:

1. a player from 127.0.0.2 in a room of four (three ``easy`` bots, takes off) plays a random
   legal card as soon as it is its turn (bench/slow_clients.py's player); for ``--moves`` moves
   the time from its ``act`` to the ``update`` with the new version is noted (**quiet**);
2. then an attacker from 127.0.0.1 runs ``--loops`` parallel loops (default 8, as in the issue's
   trial), from a process of its own, each posting ``POST /api/review`` of a whole classic deal
   (the review's full budget) again once the last one is answered, after a refusal (429, 503)
   once its ``Retry-After`` has passed; the player plays ``--moves`` more moves (**flooded**);
3. then the same attacker ignores ``Retry-After``: each loop posts again ``--pause`` seconds
   after any answer (default 0.01: a request storm, hundreds a second); the player plays
   ``--moves`` more moves (**storm**).

Reported for each attack: the attacker's answers by status (200 reviews made, 429 refused for
the address's budget or its running review, 503 the review queue full) and the seconds of the
reviews that were made.

Printed: p50, p99 and max of each phase's echo (ms) and the attacker's counts; ``--json`` as JSON.

    .venv/bin/python bench/review_flood.py                       # this code
    .venv/bin/python bench/review_flood.py --src /work/main/src  # another checkout's server
    .venv/bin/python bench/review_flood.py --serve "--heavy-reads-per-minute 1e9" --json  # no budget

The load generator shares the machine's cores with the server: latencies include its own delays.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shlex
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from serverproc import serve_cli
from slow_clients import ATTACKER, echoes_under_attack, play, summary

from getaway import Deal, Rules
from getaway.bots import HeuristicBot, play_deal
from getaway.core.record import record_of


def deal_record(seed: int = 29) -> dict[str, Any]:
    """The record of a whole classic deal of four heuristic bots (what the attacker has reviewed)."""
    deal = Deal(Rules.profile("classic", players=4), 0, seed)
    play_deal(deal, [HeuristicBot()] * 4, random.Random(seed))
    return record_of(deal)


async def flood(base: str, loops: int, pause: float | None, stop: Any) -> dict[str, Any]:
    """``loops`` loops from :data:`ATTACKER` posting reviews until ``stop`` (a multiprocessing
    event) is set, each ``pause`` seconds after an answer (``None``: after a refusal, its
    ``Retry-After``): the answers by status and the made reviews' seconds."""
    body = {"record": deal_record(), "seat": 1}
    statuses: Counter[str] = Counter()
    made: list[float] = []
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=600) as http:

        async def loop() -> None:
            while not stop.is_set():
                asked = time.perf_counter()
                try:
                    answer = await http.post("/api/review", json=body)
                except httpx.HTTPError as exc:
                    statuses[type(exc).__name__] += 1
                    await asyncio.sleep(0.1)
                    continue
                statuses[str(answer.status_code)] += 1
                if answer.status_code == 200:
                    made.append(time.perf_counter() - asked)
                elif pause is None:
                    await asyncio.sleep(float(answer.headers.get("retry-after", 1)))
                if pause is not None:
                    await asyncio.sleep(pause)

        async def watch() -> None:
            while not stop.is_set():
                await asyncio.sleep(0.1)

        tasks = [asyncio.create_task(loop()) for _ in range(loops)]
        await watch()
        await asyncio.sleep(0.5)  # the answers on their way
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"loops": loops, "answers": dict(sorted(statuses.items())), "review_s": summary(made)}


def flood_process(base: str, loops: int, pause: float | None, stop: Any, out: Any) -> None:
    """The attacker's process: :func:`flood` until ``stop`` is set, its report put on ``out``."""
    out.put(asyncio.run(flood(base, loops, pause, stop)))


def attacked(args: argparse.Namespace, base: str, rng: random.Random, pause: float | None) -> dict[str, Any]:
    """The player's ``--moves`` moves while :func:`flood` runs in a process of its own: their
    echo times (ms) and the attacker's report."""
    echoes, report = echoes_under_attack(
        base, args.moves, rng, flood_process, (base, args.loops, pause), args.settle, timeout=900
    )
    report["review_s"] = {k: v if k == "n" else round(v / 1000, 2) for k, v in report["review_s"].items()}
    return {"echo_ms": summary(echoes), "attacker": report}


def run(args: argparse.Namespace, base: str) -> dict[str, Any]:
    rng = random.Random(29)
    quiet = asyncio.run(play(base, args.moves, rng))
    flooded = attacked(args, base, rng, None)
    storm = attacked(args, base, rng, args.pause)
    return {"quiet_echo_ms": summary(quiet), "flooded": flooded, "storm": storm}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loops", type=int, default=8, help="the attacker's parallel review loops")
    parser.add_argument("--moves", type=int, default=200, help="the player's moves in each phase")
    parser.add_argument("--bot-delay", type=float, default=0.05)
    parser.add_argument("--pause", type=float, default=0.01, help="the storm: seconds from an answer to the next")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds of flood before the player goes on")
    parser.add_argument("--serve", default="", help="more options of getaway serve (one string)")
    parser.add_argument("--src", default=None, help="run the server from this source folder (PYTHONPATH)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="getaway-flood-"))
    options = ("--bot-delay", str(args.bot_delay), "--grace", "3600", *shlex.split(args.serve))
    with serve_cli(tmp / "flood.db", *options, src=args.src, grace=30) as (port, _):
        report = run(args, f"http://127.0.0.1:{port}")
    report["command"] = " ".join(["bench/review_flood.py", *sys.argv[1:]])
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"quiet_echo_ms: {report['quiet_echo_ms']}")
        for phase in ("flooded", "storm"):
            print(f"{phase}: echo_ms {report[phase]['echo_ms']}, attacker {report[phase]['attacker']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
