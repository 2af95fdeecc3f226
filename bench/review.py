"""The review of a deal (getaway.bots.review): its cost per 4-player deal, and whether it is right.

Plays ``--deals`` seeded 4-player deals of ``medium`` bots (the level: the heuristic with a random
move four times in ten, in every seat), profiles alternating punjab / classic, and reviews one
seat of each (seat ``i % 4`` of deal ``i``) at ``--iterations`` rollouts per decision. It reports

* **cost**: process time per reviewed deal (median, p99, max; the targets are median ≤ 30 s
  and p99 ≤ 60 s at the default budget);
* **mistakes and blunders per deal**;
* **correctness**: for each flagged decision (a mistake or a blunder), the *real* deal (true
  hands: this check, unlike the review, sees every hand) is played on from just before it,
  once with the move played and once with the recommended move, by the same seeded medium
  bots (``--replays`` times each, with the same seeds for both moves), and the reviewed seat's
  loss is noted each time. The paired difference (loss with the played move − loss with the
  recommended move, averaged over a flag's replays) over all flagged decisions should be
  positive, with a 95 % confidence interval that excludes zero;
* **reasons**: the share of flagged decisions the review names a reason for (as the run's
  review gave them, and by the current :func:`~getaway.bots.review.flag_reason`);
* with ``--also LEVEL``, the same check with bots of that level continuing (``heuristic``: the
  model the review's search plays its rollouts with; the issue's check continues with medium
  bots, the reviewed seat included, which play a random move four times in ten).

Resumable: each finished deal is appended to ``--out`` (one JSON line, flushed at once, the
flagged decisions with it); ``--resume`` skips the deals already there, so a stopped run
continues where it was, and the report covers every deal in the file.

    nice -n 19 python bench/review.py --workers 2 --out out/review-640.jsonl            # the full run
    nice -n 19 python bench/review.py --workers 2 --out out/review-640.jsonl --resume   # continue it
    python bench/review.py --out out/review-640.jsonl --report                          # the figures so far
    python bench/review.py --out out/review-640.jsonl --report --also heuristic         # + the check with the
                                                                                        #   heuristic continuing
    python bench/review.py --deals 20 --workers 1 --out out/review-cost.jsonl          # the cost only
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
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from getaway import Deal, Rules
from getaway.bots import make_bot, play_deal
from getaway.bots.review import REASONS, REVIEW_ITERATIONS, decisions_of, flag_reason, review_deal
from getaway.core.events import Action
from getaway.core.record import record_of
from getaway.core.view import player_view

#: The players of every seat, in the deals reviewed and in the replays.
LEVEL = "medium"


def _parse(deal: Deal, text: str) -> Action:
    return next(a for a in deal.legal_actions() if str(a) == text)


def _medium(players: int, level: str = LEVEL) -> list[Any]:
    return [make_bot(level) for _ in range(players)]


def play_on(deal: Deal, seat: int, action: Action, seed: int, level: str = LEVEL) -> int:
    """1 if ``seat`` loses ``deal`` (true hands) after playing ``action`` now, the bots of
    ``level`` (medium by default; seeded with ``seed``) playing every later decision; else 0."""
    deal = deal.clone()
    deal.apply(action, seat)
    play_deal(deal, _medium(deal.players, level), random.Random(seed))
    outcome = deal.outcome
    assert outcome is not None
    return int(outcome.loser == seat)


def recorded_deal(i: int) -> Deal:
    """Deal ``i`` of the run, played to its end by the seeded medium bots (4 players, punjab for
    even ``i``, classic for odd)."""
    profile = "punjab" if i % 2 == 0 else "classic"
    deal = Deal(Rules.profile(profile, players=4), i % 4, 1000 + i)
    return play_deal(deal, _medium(4), random.Random(1000 + i))


def one_deal(i: int, iterations: int, replays: int) -> dict[str, Any]:
    """Play deal ``i``, review seat ``i % 4``, and replay every flagged decision: a JSON-ready
    dict (``deal``, ``seconds``, ``decisions``, ``mistakes``, ``blunders``, ``flags``)."""
    record = record_of(recorded_deal(i))
    seat = i % 4
    start = time.process_time()
    review = review_deal(record, seat, iterations=iterations)
    seconds = time.process_time() - start
    before = decisions_of(record, seat)
    flags = []
    for k, (d, (_index, real, _seat, _action)) in enumerate(zip(review.decisions, before, strict=True)):
        if not d.mark:
            continue
        played, best = _parse(real, d.played), _parse(real, d.best)
        seeds = [7919 * i + k + 1_000_003 * r for r in range(replays)]
        flags.append(
            {
                "k": k,
                "index": d.index,
                "trick": d.trick,
                "played": d.played,
                "best": d.best,
                "cost": round(d.cost, 2),
                "mark": d.mark,
                "reason": d.reason,
                "lost_played": [play_on(real, seat, played, s) for s in seeds],
                "lost_best": [play_on(real, seat, best, s) for s in seeds],
            }
        )
    return {
        "deal": i,
        "iterations": iterations,
        "replays": replays,
        "seconds": round(seconds, 2),
        "decisions": len(review.decisions),
        "mistakes": review.mistakes,
        "blunders": review.blunders,
        "flags": flags,
    }


def flag_reasons(row: dict[str, Any]) -> list[str]:
    """:func:`~getaway.bots.review.flag_reason` for each flagged decision of a result line, from the
    seat's view rebuilt from the deal (so a run's file is judged by the reasons of the code now)."""
    i = row["deal"]
    before = decisions_of(record_of(recorded_deal(i)), i % 4)
    out = []
    for f in row["flags"]:
        _index, deal, seat, _action = before[f["k"]]
        view = player_view(deal, seat)
        out.append(flag_reason(view, _parse(deal, f["played"]), _parse(deal, f["best"])))
    return out


def replay_with(row: dict[str, Any], level: str, replays: int) -> list[float]:
    """For each flagged decision of a result line, the loss after the move played minus the loss
    after the recommended move, averaged over ``replays`` replays with ``level`` bots continuing
    (the same seeds as the run's)."""
    i = row["deal"]
    before = decisions_of(record_of(recorded_deal(i)), i % 4)
    out = []
    for f in row["flags"]:
        _index, deal, seat, _action = before[f["k"]]
        played, best = _parse(deal, f["played"]), _parse(deal, f["best"])
        seeds = [7919 * i + f["k"] + 1_000_003 * r for r in range(replays)]
        out.append(
            statistics.fmean(play_on(deal, seat, played, x, level) - play_on(deal, seat, best, x, level) for x in seeds)
        )
    return out


def _read(path: Path, iterations: int, replays: int, *, repair: bool = False) -> dict[int, dict[str, Any]]:
    """The finished deals in ``path``, by deal number. A last line cut short by a stop is left
    out (its deal runs again); with ``repair`` it is also cut from the file, so that the next
    line appended starts on a line of its own.

    Raises:
        SystemExit: a line before the last is not JSON, or a deal was run with other settings.
    """
    done: dict[int, dict[str, Any]] = {}
    text = path.read_text()
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if n < len(lines):
                raise SystemExit(f"{path}:{n}: not a JSON line") from None
            if repair:  # the stop's cut line: the file again without it
                path.write_text(text[: len(text) - len(line)].rstrip("\n") + ("\n" if n > 1 else ""))
            continue
        if row.get("iterations") != iterations or row.get("replays") != replays:
            raise SystemExit(
                f"{path}:{n}: deal {row.get('deal')} was run with --iterations {row.get('iterations')} "
                f"--replays {row.get('replays')}, not {iterations} / {replays}"
            )
        done[row["deal"]] = row
    return done


#: The kinds of flagged decisions the report breaks the check down by.
_KINDS = ("card, punjab", "card, classic", "take recommended (played: pass)", "pass recommended (played: take)")


def _kind(row: dict[str, Any], flag: dict[str, Any]) -> str:
    if flag["best"] == "take":
        return _KINDS[2]
    if flag["best"] == "pass":
        return _KINDS[3]
    return _KINDS[0] if row["deal"] % 2 == 0 else _KINDS[1]  # recorded_deal: punjab for even deals


def report(rows: list[dict[str, Any]], iterations: int, also: str | None = None) -> None:
    """Print the cost, the marks per deal, the check against the real deals and the reasons' share;
    with ``also`` (a bot level), the check again with those bots continuing instead."""
    n = len(rows)
    times = sorted(r["seconds"] for r in rows)
    p99 = times[min(n - 1, int(0.99 * n))]
    print(f"{n} deals (4 players, punjab/classic alternating, {LEVEL} bots), one seat each, iterations={iterations}")
    print(
        f"cost per reviewed deal (process time): median {statistics.median(times):.1f} s, p99 {p99:.1f} s, "
        f"max {times[-1]:.1f} s (targets at the default budget: median <= 30 s, p99 <= 60 s)"
    )
    decisions = sum(r["decisions"] for r in rows)
    mistakes = sum(r["mistakes"] for r in rows)
    blunders = sum(r["blunders"] for r in rows)
    print(
        f"decisions reviewed: {decisions} ({decisions / n:.1f} per deal); mistakes {mistakes} "
        f"({mistakes / n:.2f} per deal), blunders {blunders} ({blunders / n:.2f} per deal)"
    )
    flags = [f for r in rows for f in r["flags"]]
    if not flags:
        print("no flagged decision: nothing to check")
        return
    diffs = [statistics.fmean(f["lost_played"]) - statistics.fmean(f["lost_best"]) for f in flags]
    mean = statistics.fmean(diffs)
    sd = statistics.stdev(diffs) if len(diffs) > 1 else 0.0
    half = 1.96 * sd / math.sqrt(len(diffs))
    played = statistics.fmean(statistics.fmean(f["lost_played"]) for f in flags)
    best = statistics.fmean(statistics.fmean(f["lost_best"]) for f in flags)
    print(
        f"flagged decisions replayed with the true hands: {len(flags)} ({rows[0]['replays']} replay(s) of each move); "
        f"the seat lost {played:.1%} after the move played, {best:.1%} after the recommended move"
    )
    verdict = "excludes zero" if mean - half > 0 else "does NOT exclude zero"
    print(
        f"difference (played - recommended): {100 * mean:+.1f} points, 95% CI "
        f"[{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}] ({verdict})"
    )
    if rows[0]["replays"] > 1 and len(flags) > 1:  # the protocol: one replay of each move
        once = [f["lost_played"][0] - f["lost_best"][0] for f in flags]
        m1, h1 = statistics.fmean(once), 1.96 * statistics.stdev(once) / math.sqrt(len(once))
        print(
            f"  with the first replay only: {100 * m1:+.1f} points, 95% CI [{100 * (m1 - h1):+.1f}, "
            f"{100 * (m1 + h1):+.1f}]"
        )
    kinds = [_kind(r, f) for r in rows for f in r["flags"]]
    groups = [
        ("mistakes", [f["mark"] == "mistake" for f in flags]),
        ("blunders", [f["mark"] == "blunder" for f in flags]),
    ]
    groups += [(kind, [k == kind for k in kinds]) for kind in _KINDS]
    for label, chosen in groups:
        some = [d for d, keep in zip(diffs, chosen, strict=True) if keep]
        if len(some) > 1:
            h = 1.96 * statistics.stdev(some) / math.sqrt(len(some))
            m = statistics.fmean(some)
            print(f"  {label}: {len(some)}, {100 * m:+.1f} points [{100 * (m - h):+.1f}, {100 * (m + h):+.1f}]")
    if also:
        kinds_also = [(kind, [k == kind for k in kinds]) for kind in _KINDS]
        other = [d for r in rows for d in replay_with(r, also, r["replays"])]
        for label, chosen in [("all", [True] * len(other)), *kinds_also]:
            some = [d for d, keep in zip(other, chosen, strict=True) if keep]
            if len(some) > 1:
                h = 1.96 * statistics.stdev(some) / math.sqrt(len(some))
                m = statistics.fmean(some)
                print(
                    f"  the same check with {also} bots continuing, {label}: {len(some)}, {100 * m:+.1f} points "
                    f"[{100 * (m - h):+.1f}, {100 * (m + h):+.1f}]"
                )
    named = sum(bool(f["reason"]) for f in flags)
    print(f"flagged decisions with a reason (as reviewed): {named} of {len(flags)} ({named / len(flags):.0%})")
    facts: Counter[str] = Counter()  # the facts flag_reason names now, by template name
    now = 0
    for r in rows:
        for f, why in zip(r["flags"], flag_reasons(r), strict=True):
            facts[next((k for k, v in REASONS.items() if v == getattr(why, "template", "")), "")] += bool(why)
            now += bool(why or f["reason"])
    print(
        f"flagged decisions with a reason by this code's flag_reason (or the review's own): {now} of {len(flags)} "
        f"({now / len(flags):.0%}); " + ", ".join(f"{k} {n}" for k, n in facts.most_common() if k)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=REVIEW_ITERATIONS)
    parser.add_argument("--replays", type=int, default=1, help="replays of each move of a flagged decision")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("out/review.jsonl"), help="the results, one deal a line")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out (skip its deals)")
    parser.add_argument("--report", action="store_true", help="only report on the deals already in --out")
    parser.add_argument("--also", default=None, help="a bot level: the check again with those bots continuing")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.iterations < 1 or args.workers < 1 or args.replays < 1:
        parser.error("--deals, --iterations, --replays and --workers must be at least 1")
    if args.report:
        if not args.out.exists():
            parser.error(f"{args.out} does not exist")
        rows = _read(args.out, args.iterations, args.replays)
        if not rows:
            parser.error(f"{args.out} has no finished deal")
        report([rows[i] for i in sorted(rows)], args.iterations, args.also)
        return 0
    if args.out.exists() and not args.resume:
        parser.error(f"{args.out} exists: --resume continues it (or remove it)")
    done = _read(args.out, args.iterations, args.replays, repair=True) if args.out.exists() else {}
    todo = [i for i in range(args.deals) if i not in done]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    print(f"{len(done)} deals already in {args.out}, {len(todo)} to go", file=sys.stderr, flush=True)
    with args.out.open("a") as out:

        def note(row: dict[str, Any]) -> None:  # one line per deal, written at once: a stop loses no finished deal
            done[row["deal"]] = row
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())
            pairs = [(f["lost_played"], f["lost_best"]) for f in row["flags"]]
            print(
                f"deal {row['deal']} ({len(done)}/{args.deals}): {row['seconds']:.1f} s, {row['mistakes']} mistakes, "
                f"{row['blunders']} blunders, pairs {pairs}",
                file=sys.stderr,
                flush=True,
            )

        if args.workers == 1:
            for i in todo:
                note(one_deal(i, args.iterations, args.replays))
        else:
            with ProcessPoolExecutor(args.workers) as pool:
                futures = [pool.submit(one_deal, i, args.iterations, args.replays) for i in todo]
                for future in as_completed(futures):
                    note(future.result())
    report([done[i] for i in sorted(done) if i < args.deals], args.iterations, args.also)
    return 0


if __name__ == "__main__":
    sys.exit(main())
