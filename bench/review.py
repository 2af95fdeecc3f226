"""The review of a deal (getaway.bots.review): its cost per 4-player deal, and whether it is right.

Plays ``--deals`` seeded 4-player deals of ``medium`` bots (the heuristic in every seat), profiles
alternating punjab / classic, and reviews one seat of each (seat ``i % 4`` of deal ``i``) at
``--iterations`` rollouts per decision. It reports

* **cost**: process time per reviewed deal (median, p99, max; the targets are median ≤ 30 s
  and p99 ≤ 60 s at the default budget);
* **mistakes and blunders per deal**;
* **correctness**: for each flagged decision (a mistake or a blunder), the *real* deal (true
  hands: this check, unlike the review, sees every hand) is played on from just before it,
  once with the move played and once with the recommended move, by the same seeded medium
  bots, and the reviewed seat's loss is noted each time. The paired difference (loss with
  the played move − loss with the recommended move) over all flagged decisions should be
  positive, with a 95 % confidence interval that excludes zero.

    python bench/review.py --deals 200 --iterations 160 --workers 2     # the correctness run
    python bench/review.py --deals 20 --workers 1                      # the cost at the default budget
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from getaway import Deal, Rules
from getaway.bots import HeuristicBot, play_deal
from getaway.bots.review import REVIEW_ITERATIONS, decisions_of, review_deal
from getaway.core.events import Action
from getaway.core.record import record_of


@dataclass(frozen=True)
class DealResult:
    seconds: float
    decisions: int
    mistakes: int
    blunders: int
    pairs: tuple[tuple[int, int], ...]  # (loss with the move played, loss with the recommended move) per flag


def _parse(deal: Deal, text: str) -> Action:
    return next(a for a in deal.legal_actions() if str(a) == text)


def play_on(deal: Deal, seat: int, action: Action, seed: int) -> int:
    """1 if ``seat`` loses ``deal`` (true hands) after playing ``action`` now, the medium bots
    (seeded with ``seed``) playing every later decision; else 0."""
    deal = deal.clone()
    deal.apply(action, seat)
    play_deal(deal, [HeuristicBot()] * deal.players, random.Random(seed))
    outcome = deal.outcome
    assert outcome is not None
    return int(outcome.loser == seat)


def one_deal(i: int, iterations: int) -> DealResult:
    """Play deal ``i``, review seat ``i % 4``, and check every flagged decision."""
    profile = "punjab" if i % 2 == 0 else "classic"
    deal = Deal(Rules.profile(profile, players=4), i % 4, 1000 + i)
    play_deal(deal, [HeuristicBot()] * 4, random.Random(1000 + i))
    record = record_of(deal)
    seat = i % 4
    start = time.process_time()
    review = review_deal(record, seat, iterations=iterations)
    seconds = time.process_time() - start
    before = decisions_of(record, seat)
    pairs = []
    for k, (d, (_index, real, _seat, _action)) in enumerate(zip(review.decisions, before, strict=True)):
        if not d.mark:
            continue
        seed = 7919 * i + k
        lost_played = play_on(real, seat, _parse(real, d.played), seed)
        lost_best = play_on(real, seat, _parse(real, d.best), seed)
        pairs.append((lost_played, lost_best))
    return DealResult(seconds, len(review.decisions), review.mistakes, review.blunders, tuple(pairs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=REVIEW_ITERATIONS)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    if args.deals < 1 or args.iterations < 1 or args.workers < 1:
        parser.error("--deals, --iterations and --workers must be at least 1")
    results: list[DealResult] = []

    def note(i: int, r: DealResult) -> None:  # one line per deal on stderr, so that a long run shows its progress
        results.append(r)
        print(
            f"deal {i}: {r.seconds:.1f} s, {r.mistakes} mistakes, {r.blunders} blunders, pairs {list(r.pairs)}",
            file=sys.stderr,
            flush=True,
        )

    if args.workers == 1:
        for i in range(args.deals):
            note(i, one_deal(i, args.iterations))
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            for i, r in enumerate(pool.map(one_deal, range(args.deals), [args.iterations] * args.deals)):
                note(i, r)
    times = sorted(r.seconds for r in results)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print(
        f"{args.deals} deals (4 players, punjab/classic alternating, medium bots), one seat each, "
        f"iterations={args.iterations}"
    )
    print(
        f"cost per reviewed deal (process time): median {statistics.median(times):.1f} s, p99 {p99:.1f} s, "
        f"max {times[-1]:.1f} s (targets at the default budget: median <= 30 s, p99 <= 60 s)"
    )
    decisions = sum(r.decisions for r in results)
    mistakes = sum(r.mistakes for r in results)
    blunders = sum(r.blunders for r in results)
    print(
        f"decisions reviewed: {decisions} ({decisions / args.deals:.1f} per deal); mistakes {mistakes} "
        f"({mistakes / args.deals:.2f} per deal), blunders {blunders} ({blunders / args.deals:.2f} per deal)"
    )
    pairs = [p for r in results for p in r.pairs]
    if not pairs:
        print("no flagged decision: nothing to check")
        return 0
    diffs = [a - b for a, b in pairs]
    mean = statistics.fmean(diffs)
    sd = statistics.stdev(diffs) if len(diffs) > 1 else 0.0
    half = 1.96 * sd / math.sqrt(len(diffs))
    played = sum(a for a, _ in pairs) / len(pairs)
    best = sum(b for _, b in pairs) / len(pairs)
    print(
        f"flagged decisions replayed with the true hands: {len(pairs)}; the seat lost {played:.1%} after the move "
        f"played, {best:.1%} after the recommended move"
    )
    verdict = "excludes zero" if mean - half > 0 else "does NOT exclude zero"
    print(
        f"difference (played - recommended): {100 * mean:+.1f} points, 95% CI "
        f"[{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}] ({verdict})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
