"""Playing many seeded deals among bots, on one core or all of them.

The one runner behind ``getaway simulate`` and ``getaway tournament``: a job is (rules,
bot per seat, seed, dealer); each job is independent and seeded, so results do not depend
on how many workers run them or in which order. Satellite of the core.

>>> from getaway import Rules
>>> jobs = [Job(Rules.profile("punjab", takes="off"), ("random",) * 4, seed, seed % 4) for seed in range(3)]
>>> [r.loser is not None for r in run_jobs(jobs, workers=1)]
[True, True, True]
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from .bots import make_bot
from .deal import Deal
from .events import EventKind
from .record import record_of
from .rules import Rules

__all__ = ["Job", "DealResult", "play_job", "run_jobs", "default_workers", "BACKENDS"]


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
        termination: how it ended (:class:`~getaway.events.Termination`).
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
    rng = random.Random(job.seed * 7919 + 17)
    times: list[list[float]] = [[] for _ in range(n)]
    clock = time.perf_counter
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None
        view = deal.view(seat)
        legal = view.legal_actions
        if len(legal) == 1:
            action = legal[0]  # no choice: not a decision, not timed
        else:
            start = clock()
            action = bots[seat].act(view, legal, rng)
            times[seat].append(clock() - start)
        deal.apply(action, seat)
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


def _play_chunk(jobs: Sequence[Job]) -> list[DealResult]:
    return [play_job(job) for job in jobs]


def default_workers() -> int:
    """All cores of this machine."""
    return os.cpu_count() or 1


BACKENDS = ("local", "ray")


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


def run_jobs(
    jobs: Sequence[Job],
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    chunk: int | None = None,
    *,
    backend: str = "local",
    address: str | None = None,
) -> list[DealResult]:
    """Play every job; results come back in the order of ``jobs`` whatever ``workers`` or
    the backend is (each job is seeded on its own).

    Args:
        jobs: the deals to play.
        workers: processes (1 = in this process); with Ray, tasks at once.
        progress: called with the number of deals just finished, as they finish.
        chunk: deals per task sent to a worker (default: about 4 tasks per worker).
        backend: ``"local"`` (processes on this machine) or ``"ray"`` (Ray tasks; needs the
            ``getaway[ray]`` extra; see :mod:`getaway.envs.ray_backend`).
        address: with Ray, the address of an existing cluster (default: start a local one).

    Raises:
        ValueError: ``workers`` or ``chunk`` not a whole number ≥ 1, an unknown backend, or
            a job is invalid.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend: {backend!r} is not one of {', '.join(BACKENDS)}")
    if workers is None:
        raise ValueError("workers: a whole number of at least 1, not None")
    check_counts(workers, chunk)
    if backend == "ray":
        from .envs.ray_backend import run_jobs_ray

        return run_jobs_ray(jobs, workers, progress, chunk, address=address)
    if workers == 1 or len(jobs) <= 1:
        results = []
        for job in jobs:
            results.append(play_job(job))
            if progress is not None:
                progress(1)
        return results
    size = chunk or max(1, min(50, len(jobs) // (workers * 4) or 1))
    chunks = [list(jobs[i : i + size]) for i in range(0, len(jobs), size)]
    out: list[list[DealResult] | None] = [None] * len(chunks)
    with ProcessPoolExecutor(workers) as pool:
        futures = {pool.submit(_play_chunk, c): i for i, c in enumerate(chunks)}
        for future in as_completed(futures):
            i = futures[future]
            out[i] = future.result()
            if progress is not None:
                progress(len(chunks[i]))
    return [r for part in out if part is not None for r in part]
