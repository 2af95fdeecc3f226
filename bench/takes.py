"""The bots' takes by level (R-P-TAKE): how often each level takes, and whether its takes pay.

Plays ``--deals`` duplicate deals (deal ``i``: punjab, 4 players, takes on, dealer ``i % 4``,
seed ``--seed + i``: the same deals for every level) with the bots of ``--level`` in every seat,
and notes every take poll (a decision at which a seat may take) and every take. For each take,
the deal is played on from just before it twice, with the same seeded bots of the level: once
with the take, once with a pass instead, and the taker's loss is noted each time (paired, as
bench/review.py does). The report gives, per level:

* the share of deals with a take before trick 1, and with a take at all (95 % Wilson intervals);
* takes per take poll (before trick 1 and at all);
* the taker's loss rate after the take and after a pass instead, on the same deals and seeds,
  and their paired difference with its 95 % interval (positive: the takes cost the taker).

Resumable: each finished deal is one JSON line of ``--out`` (default ``out/takes-LEVEL.jsonl``),
flushed at once; a run started again skips the deals already there. ``--report`` only reports.

    nice -n 19 python bench/takes.py --level easy --deals 2000
    nice -n 19 python bench/takes.py --level expert --deals 40      # slow: seconds per deal
    python bench/takes.py --level easy --deals 2000 --report
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from getaway import Deal, Rules
from getaway.bots import make_bot, play_deal
from getaway.core.events import PASS, TAKE, Action
from getaway.core.knowledge import Knowledge
from getaway.core.stats import wilson
from getaway.core.view import player_view

PLAYERS = 4


def new_deal(i: int, seed: int) -> Deal:
    """Deal ``i`` of a run: punjab (its take poll), 4 players, takes on (the profile's ``any``)."""
    return Deal(Rules.profile("punjab", players=PLAYERS), i % PLAYERS, seed + i)


def play_on(deal: Deal, seat: int, action: Action, seed: int, level: str) -> int:
    """1 if ``seat`` loses ``deal`` after ``action`` now, bots of ``level`` (seeded with ``seed``)
    playing every later decision; else 0."""
    deal = deal.clone()
    deal.apply(action, seat)
    play_deal(deal, [make_bot(level) for _ in range(deal.players)], random.Random(seed))
    assert deal.outcome is not None
    return int(deal.outcome.loser == seat)


def one_deal(i: int, level: str, seed: int) -> dict[str, Any]:
    """Play deal ``i`` with bots of ``level``: a JSON-ready dict of its polls and takes."""
    start = time.process_time()
    deal = new_deal(i, seed)
    bots = [make_bot(level) for _ in range(deal.players)]
    rng = random.Random(seed + i)
    knowledge = [Knowledge.of(deal, s) for s in range(deal.players)]
    polls = polls_first = 0
    takes: list[dict[str, Any]] = []
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None
        view = player_view(deal, seat, knowledge[seat])
        legal = view.legal_actions
        before = None
        if TAKE in legal:
            polls += 1
            polls_first += deal.tricks_played == 0
            before = deal.clone()
        action = bots[seat].act(view, legal, rng)
        if action is TAKE and before is not None:
            takes.append({"seat": seat, "trick": deal.tricks_played, "before": before})
        deal.apply(action, seat)
    for k, take in enumerate(takes):
        replay = seed * 7919 + 1_000_003 * i + k
        before = take.pop("before")
        take["lost_take"] = play_on(before, take["seat"], TAKE, replay, level)
        take["lost_pass"] = play_on(before, take["seat"], PASS, replay, level)
    assert deal.outcome is not None
    return {
        "deal": i,
        "level": level,
        "seed": seed,
        "polls": polls,
        "polls_first": polls_first,
        "takes": takes,
        "loser": deal.outcome.loser,
        "seconds": round(time.process_time() - start, 3),
    }


def _read(path: Path, level: str, seed: int) -> dict[int, dict[str, Any]]:
    """The finished deals of ``path`` (a last line cut short by a stop is left out)."""
    done: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return done
    for n, line in enumerate(path.read_text().splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if row.get("level") != level or row.get("seed") != seed:
            raise SystemExit(
                f"{path}:{n}: a deal of level {row.get('level')} seed {row.get('seed')}, not {level} {seed}"
            )
        done[row["deal"]] = row
    return done


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _interval(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{_pct(k / n if n else 0.0)} [{100 * low:.1f}, {100 * high:.1f}]"


def report(rows: list[dict[str, Any]], level: str) -> str:
    """The table row of a level (Markdown) and a few lines about it."""
    n = len(rows)
    first = sum(1 for r in rows if any(t["trick"] == 0 for t in r["takes"]))
    some = sum(1 for r in rows if r["takes"])
    polls = sum(r["polls"] for r in rows)
    polls_first = sum(r["polls_first"] for r in rows)
    takes = [t for r in rows for t in r["takes"]]
    takes_first = sum(1 for t in takes if t["trick"] == 0)
    diffs = [t["lost_take"] - t["lost_pass"] for t in takes]
    if diffs:
        mean = statistics.fmean(diffs)
        half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("inf")
        paired = (
            f"{_pct(statistics.fmean(t['lost_take'] for t in takes))} vs "
            f"{_pct(statistics.fmean(t['lost_pass'] for t in takes))}, "
            f"{100 * mean:+.1f} [{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}] pts"
        )
    else:
        paired = "no take"
    cpu = sum(r["seconds"] for r in rows)
    return (
        f"| {level} | {n} | {_interval(first, n)} | {_interval(some, n)} | "
        f"{takes_first}/{polls_first} | {len(takes)}/{polls} | {len(takes)} | {paired} | {cpu:.0f} s |"
    )


HEADER = (
    "| level | deals | deals with a take before trick 1 | deals with a take | takes / polls before trick 1 "
    "| takes / polls | takes | taker's loss: take vs pass instead, paired difference | CPU |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="medium")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=24_000)
    parser.add_argument("--out", type=Path, default=None, help="the results, one deal a line (out/takes-LEVEL.jsonl)")
    parser.add_argument("--report", action="store_true", help="only report on the deals already in --out")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    make_bot(args.level)  # an unknown level fails here
    out_path: Path = args.out or Path(f"out/takes-{args.level}.jsonl")
    done = _read(out_path, args.level, args.seed)
    if not args.report:
        print(
            f"python bench/takes.py --level {args.level} --deals {args.deals} --seed {args.seed} --out {out_path}"
            f" ({len(done)} deals done)",
            file=sys.stderr,
            flush=True,
        )
        out_path.parent.mkdir(parents=True, exist_ok=True)
        with out_path.open("a") as out:
            for i in range(args.deals):
                if i in done:
                    continue
                row = one_deal(i, args.level, args.seed)
                done[i] = row
                out.write(json.dumps(row) + "\n")
                out.flush()
                os.fsync(out.fileno())
                if row["takes"] or i % 100 == 0:
                    print(f"deal {i}: {row['seconds']} s, takes {row['takes']}", file=sys.stderr, flush=True)
    rows = [done[i] for i in sorted(done) if i < args.deals]
    if not rows:
        parser.error(f"{out_path} has no finished deal")
    print(HEADER)
    print(report(rows, args.level))
    return 0


if __name__ == "__main__":
    sys.exit(main())
