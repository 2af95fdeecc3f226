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
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed

from .jobs import DealResult, Job, check_counts, play_chunk, play_job

__all__ = ["Job", "DealResult", "play_job", "run_jobs", "default_workers", "BACKENDS"]


def default_workers() -> int:
    """All cores of this machine."""
    return os.cpu_count() or 1


BACKENDS = ("local", "ray")


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
            ``getaway[ray]`` extra; see :mod:`getaway.sim.ray_backend`).
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
        from .ray_backend import run_jobs_ray

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
        futures = {pool.submit(play_chunk, c): i for i, c in enumerate(chunks)}
        for future in as_completed(futures):
            i = futures[future]
            out[i] = future.result()
            if progress is not None:
                progress(len(chunks[i]))
    return [r for part in out if part is not None for r in part]
