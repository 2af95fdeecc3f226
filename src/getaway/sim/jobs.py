"""A job (one seeded deal among named bots) and what playing it produces: the unit of work of
every backend (:mod:`.simulation` on local processes, :mod:`.ray_backend` on Ray)."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots import make_bot
from ..core.deal import Deal
from ..core.events import EventKind
from ..core.knowledge import Knowledge
from ..core.record import record_of
from ..core.rules import Rules
from ..core.view import player_view

__all__ = ["Job", "DealResult", "play_job", "play_decisions", "job_rng", "play_chunk", "check_counts"]


@dataclass(frozen=True)
class Job:
    """One deal to play.

    Attributes:
        rules: the rules.
        bots: one bot name (kind or level, see :func:`getaway.bots.make_bot`) per seat.
        seed: the deal's seed (shuffle, blind draws); the bots' generator is derived from it.
        dealer: the dealer's seat.
        keep_record: also return the deal's game record (a dict).
    """

    rules: Rules
    bots: tuple[str, ...]
    seed: int
    dealer: int = 0
    keep_record: bool = False


@dataclass(frozen=True)
class DealResult:
    """What one played deal produced.

    Attributes:
        job: the job.
        loser: losing seat or ``None``.
        termination: how it ended (:class:`~getaway.core.events.Termination`).
        places: place per seat (1 = first out).
        out_order: groups of seats in the order they got away.
        tricks: tricks resolved.
        plays: cards played.
        pickups: pick-ups per seat.
        takes: number of takes.
        decisions: per seat, decisions that had more than one legal action.
        think_times: per seat, seconds spent in each of those decisions.
        record: the game record if ``job.keep_record``, else ``None``.
    """

    job: Job
    loser: int | None
    termination: str
    places: tuple[int, ...]
    out_order: tuple[tuple[int, ...], ...]
    tricks: int
    plays: int
    pickups: tuple[int, ...]
    takes: int
    decisions: tuple[int, ...]
    think_times: tuple[tuple[float, ...], ...] = field(repr=False)
    record: dict[str, Any] | None = field(default=None, repr=False)

    def to_dict(self, timings: bool = False) -> dict[str, Any]:
        """The result as JSON-ready values, the one row of every results file (``simulate
        --out``'s lines and columns, a tournament's resume file): the job (seed, dealer, bots)
        and what the deal produced, lists for tuples; ``timings`` adds ``decisions`` and
        ``think_times``. The rules and the record are not in it."""
        row: dict[str, Any] = {
            "seed": self.job.seed,
            "dealer": self.job.dealer,
            "bots": list(self.job.bots),
            "loser": self.loser,
            "termination": str(self.termination),
            "places": list(self.places),
            "out_order": [list(g) for g in self.out_order],
            "tricks": self.tricks,
            "plays": self.plays,
            "pickups": list(self.pickups),
            "takes": self.takes,
        }
        if timings:
            row["decisions"] = list(self.decisions)
            row["think_times"] = [list(t) for t in self.think_times]
        return row


def play_job(job: Job) -> DealResult:
    """Play one job to the end in this process.

    Raises:
        ValueError: unknown bot name or wrong number of bots.
    """
    n = job.rules.players
    if len(job.bots) != n:
        raise ValueError(f"bots: {len(job.bots)} bots for {n} seats")
    bots = [make_bot(name) for name in job.bots]
    deal = Deal(job.rules, job.dealer, job.seed)
    times = play_decisions(deal, bots, job_rng(job))
    outcome = deal.outcome
    assert outcome is not None
    return DealResult(
        job=job,
        loser=outcome.loser,
        termination=outcome.termination,
        places=outcome.places,
        out_order=outcome.out_order,
        tricks=outcome.tricks,
        plays=sum(1 for e in deal.events if e.kind == EventKind.PLAY),
        pickups=outcome.pickups,
        takes=len(outcome.takes),
        decisions=tuple(len(t) for t in times),
        think_times=tuple(tuple(t) for t in times),
        record=record_of(deal) if job.keep_record else None,
    )


def job_rng(job: Job) -> random.Random:
    """The generator the bots of ``job`` draw from: derived from its seed alone."""
    return random.Random(job.seed * 7919 + 17)


def play_decisions(deal: Deal, bots: Sequence[Any], rng: random.Random) -> list[list[float]]:
    """Play ``deal`` to the end in place as a job does: ``bots[seat].act(view, legal, rng)`` for
    every decision with more than one legal action (a single one is played without asking),
    each seat's :class:`~getaway.core.knowledge.Knowledge` followed incrementally.

    Returns:
        each seat's think times in seconds, one per decision, in order.
    """
    n = deal.players
    times: list[list[float]] = [[] for _ in range(n)]
    clock = time.perf_counter
    knowledge = [Knowledge.of(deal, s) for s in range(n)]  # each seat's, followed incrementally
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None
        legal = deal.legal_actions(seat)
        if len(legal) == 1:
            action = legal[0]  # no choice: not a decision, not timed
        else:
            view = player_view(deal, seat, knowledge[seat])
            legal = view.legal_actions
            start = clock()
            action = bots[seat].act(view, legal, rng)
            times[seat].append(clock() - start)
        deal.apply(action, seat)
    return times


def play_chunk(jobs: Sequence[Job]) -> list[DealResult]:
    """Play ``jobs`` one after the other in this process (what one worker does with a chunk)."""
    return [play_job(job) for job in jobs]


def check_counts(workers: int | None, chunk: int | None) -> None:
    """Check ``workers`` and ``chunk`` of :func:`run_jobs` (each ``None`` or a whole number ≥ 1).

    Raises:
        ValueError: a value that is not a whole number ≥ 1 (a bool or a float included), naming it.
    """
    for name, value in (("workers", workers), ("chunk", chunk)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}: a whole number of at least 1, not {value!r}")
