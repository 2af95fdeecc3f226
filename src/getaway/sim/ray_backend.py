"""The simulation runner on Ray: the jobs of :func:`getaway.sim.simulation.run_jobs` spread over a
Ray cluster (or a local Ray), same results (docs/envs.md).

Every job is seeded and independent, so a job's result does not depend on where it runs:
``run_jobs_ray(jobs)`` equals ``run_jobs(jobs, workers=1)`` field for field, except the
measured ``think_times``.

>>> from getaway import Rules
>>> from getaway.sim.simulation import Job
>>> jobs = [Job(Rules.profile("punjab", takes="off"), ("random",) * 4, seed) for seed in range(2)]
>>> results = run_jobs_ray(jobs, num_cpus=1)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .jobs import DealResult, Job, check_counts, play_job

__all__ = ["run_jobs_ray"]


def _play_chunk(jobs: list[Job]) -> list[DealResult]:
    return [play_job(job) for job in jobs]


def run_jobs_ray(
    jobs: Sequence[Job],
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    chunk: int | None = None,
    *,
    address: str | None = None,
    **init_options: Any,
) -> list[DealResult]:
    """Play every job on Ray; results come back in the order of ``jobs``.

    Args:
        jobs: the deals to play.
        workers: tasks in flight at once (default: the cluster's CPUs).
        progress: called with the number of deals just finished, as they finish.
        chunk: deals per Ray task (default: about 4 tasks per CPU, at most 50 deals).
        address: a running cluster (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``);
            ``None`` starts a local Ray unless one is already initialised in this process.
        init_options: more ``ray.init`` arguments for a local start (``num_cpus=2`` …); they
            override this function's defaults (``include_dashboard=False``, ``log_to_driver=False``).

    Raises:
        ImportError: Ray is not installed (``pip install 'getaway[ray]'``).
        ValueError: ``workers`` or ``chunk`` not a whole number ≥ 1, or a job is invalid.
    """
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise ImportError("the Ray backend needs Ray: pip install 'getaway[ray]'") from exc
    check_counts(workers, chunk)
    if not jobs:
        return []
    if not ray.is_initialized():
        ray.init(address=address, **{"include_dashboard": False, "log_to_driver": False, **init_options})
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    slots = workers or cpus
    size = chunk or max(1, min(50, len(jobs) // (slots * 4) or 1))
    chunks = [list(jobs[i : i + size]) for i in range(0, len(jobs), size)]
    remote = ray.remote(_play_chunk)
    out: list[list[DealResult] | None] = [None] * len(chunks)
    pending: dict[Any, int] = {}
    next_chunk = 0
    while next_chunk < len(chunks) or pending:
        while next_chunk < len(chunks) and len(pending) < slots:
            pending[remote.remote(chunks[next_chunk])] = next_chunk
            next_chunk += 1
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            i = pending.pop(ref)
            out[i] = ray.get(ref)
            if progress is not None:
                progress(len(chunks[i]))
    return [r for part in out if part is not None for r in part]
