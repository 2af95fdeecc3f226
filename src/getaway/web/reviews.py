"""Reviews off the event loop (issue 29, item 4; docs/web.md "Heavy reads"): :class:`ReviewPool`.

A review (:func:`getaway.bots.review.review_deal`) searches every decision of a seat: seconds of
pure Python. In a thread of the server process it would hold the GIL the event loop needs (one
address running reviews in a loop took a human's move-to-echo from 2 to 60 ms), so it runs in
worker processes of its own (the ``spawn`` start method, as the bot pool's), started when the
first review is asked for and at a lower CPU priority (``nice`` + :data:`REVIEW_NICENESS`): the
event loop and the bots' searches come first on a busy machine.

At most ``workers`` reviews run at once and ``queue`` more wait for a worker (first come, first
served); one more is refused at once (503 ``reviews_busy``, ``Retry-After``: the typical review's
seconds times the reviews ahead of it), so a flood neither piles up waiting requests nor makes
everybody's review slower. One client address has at most :data:`REVIEWS_PER_ADDRESS` running or
waiting (the page asks for one at a time; more: 429 ``rate_limited``), so one address cannot take
the whole queue. The cap is each process's own: with many processes each has its workers and
queue (the per-address budget of :mod:`getaway.web.edge` is the cluster's when it counts on Redis).

Imports: the bots' review, the record reader, the bot pool's worker start and the service's errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final

from ..bots.review import Review, review_deal
from ..core.record import RecordError
from ..text.i18n import N_
from .botpool import _CONTEXT, _processes, _start_worker  # the bot workers' start, shared
from .rooms.errors import RoomError

__all__ = ["ReviewPool", "REVIEWS_PER_ADDRESS", "REVIEW_NICENESS", "TYPICAL_REVIEW", "review_job"]

log = logging.getLogger("getaway.web")

#: Reviews one client address may have running or waiting at once (the page asks for one at a time).
REVIEWS_PER_ADDRESS: Final = 1
#: How much lower a review worker's CPU priority is than the server's (``os.nice`` increment).
REVIEW_NICENESS: Final = 10
#: Seconds a review is assumed to take before one has been timed (the ``Retry-After`` estimate).
TYPICAL_REVIEW: Final = 3.0


def _start_review_worker() -> None:
    """A review worker's start: the bot workers' (Ctrl+C ignored, ends with its server), then a
    lower priority (:data:`REVIEW_NICENESS`; where the system refuses, the same priority)."""
    _start_worker(())
    with contextlib.suppress(OSError):
        os.nice(REVIEW_NICENESS)


def review_job(record: Any, seat: int, iterations: int) -> Review | RecordError:
    """In a worker: :func:`~getaway.bots.review.review_deal` of ``seat`` in ``record`` at
    ``iterations`` rollouts per decision; a :class:`RecordError` is returned, not raised (it is
    answered as a bad record, not as a failed review).

    Raises:
        RuntimeError: the review failed otherwise (its type, message and traceback as text: an
            exception of the engine may not cross processes).
    """
    try:
        return review_deal(record, seat, iterations=iterations)
    except RecordError as exc:
        return exc
    except Exception as exc:
        raise RuntimeError("".join(traceback.format_exception(exc))) from None


class ReviewPool:
    """Reviews in ``workers`` worker processes, ``queue`` more waiting (the module docstring).

    Args:
        workers: worker processes (0: a thread of the server process instead, one review at a
            time: for embedding and tests; the event loop then shares the GIL with it).
        queue: reviews that may wait for a worker (≥ 0).
        per_address: reviews one client address may have running or waiting (≥ 1).
        job: what a worker runs, ``(record, seat, iterations) -> Review | RecordError``, a
            function importable by name (default :func:`review_job`).

    Call :meth:`stop` at shutdown (the workers start with the first review).

    Raises:
        ValueError: ``workers`` or ``queue`` below 0, ``per_address`` below 1.
    """

    def __init__(
        self, workers: int, queue: int, *, per_address: int = REVIEWS_PER_ADDRESS, job: Any = review_job
    ) -> None:
        if workers < 0 or queue < 0:
            raise ValueError(f"workers and queue: at least 0, not {workers} and {queue}")
        if per_address < 1:
            raise ValueError(f"per_address: at least 1, not {per_address}")
        self.workers, self.queue, self.per_address, self.job = workers, queue, per_address, job
        self.running = 0  # reviews in a worker now
        self.waiting = 0  # reviews waiting for a worker
        self.typical = TYPICAL_REVIEW  # seconds: a moving average of the reviews timed
        #: counts: ``reviews`` (done), ``busy`` (refused: the queue full), ``per_address``
        #: (refused: the address's review still running), ``failed``.
        self.stats: Counter[str] = Counter()
        self._by_address: Counter[str] = Counter()
        self._slots: asyncio.Semaphore | None = None  # made in the running loop (it belongs to one)
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False

    def _wait_for(self, reviews: int) -> int:
        """Whole seconds until ``reviews`` reviews ahead are done (the typical review's time
        spread over the workers), at least 1: a ``Retry-After``."""
        return max(1, math.ceil(self.typical * reviews / max(1, self.workers)))

    async def review(self, address: str, record: Any, seat: int, iterations: int) -> Review:
        """The review of ``seat`` in ``record`` (already read: :func:`getaway.web.learn.review_of`)
        at ``iterations`` rollouts per decision, asked from client ``address``; computed in a
        worker once one is free.

        Raises:
            RoomError: ``rate_limited`` (429, ``Retry-After``) while ``address`` has
                :attr:`per_address` reviews running or waiting; ``reviews_busy`` (503,
                ``Retry-After``) when :attr:`queue` reviews already wait (or the server is
                stopping); ``review_failed`` (503, ``Retry-After``) when its worker died or the
                review failed (logged with its error's type).
            RecordError: the record cannot be reviewed (an illegal action found by the review).
        """
        if self._closed:
            raise self._busy()
        if self._by_address[address] >= self.per_address:
            self.stats["per_address"] += 1
            error = RoomError("rate_limited", N_("a review you asked for is still being made: wait for it"), 429)
            error.retry_after = self._wait_for(1)
            raise error
        if self._slots is None:
            self._slots = asyncio.Semaphore(max(1, self.workers))
        if self._slots.locked() and self.waiting >= self.queue:
            self.stats["busy"] += 1
            raise self._busy()
        self._by_address[address] += 1
        try:
            self.waiting += 1
            try:
                await self._slots.acquire()
            finally:
                self.waiting -= 1
            try:
                self.running += 1
                return await self._run(record, seat, iterations)
            finally:
                self.running -= 1
                self._slots.release()
        finally:
            self._by_address[address] -= 1
            if not self._by_address[address]:
                del self._by_address[address]

    def _busy(self) -> RoomError:
        seconds = self._wait_for(self.waiting + self.running)
        error = RoomError(
            "reviews_busy", N_("the server is busy with other reviews: try again in {seconds} s"), 503, seconds=seconds
        )
        error.retry_after = seconds
        return error

    async def _run(self, record: Any, seat: int, iterations: int) -> Review:
        """One review in a worker (or the thread): its result, timed into :attr:`typical`."""
        if self._closed:
            raise self._busy()
        started = time.monotonic()
        if self.workers == 0:
            done = await asyncio.to_thread(self.job, record, seat, iterations)
        else:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=_CONTEXT, initializer=_start_review_worker
                )
            executor = self._executor
            try:
                done = await asyncio.wrap_future(executor.submit(self.job, record, seat, iterations))
            except BrokenProcessPool:
                if self._closed:  # stopped by stop(): not a death to log
                    raise self._busy() from None
                if self._executor is executor:  # a new one for the next review
                    self._executor = None
                    executor.shutdown(wait=False, cancel_futures=True)
                log.error("a review worker process died: a new one starts with the next review")
                raise self._failed() from None
            except RuntimeError as exc:
                text = str(exc).strip()
                log.error("a review failed (%s)", text.splitlines()[-1].partition(":")[0] if text else "RuntimeError")
                raise self._failed() from None
        if isinstance(done, RecordError):
            raise done
        self.typical = 0.8 * self.typical + 0.2 * (time.monotonic() - started)
        self.stats["reviews"] += 1
        return done

    def _failed(self) -> RoomError:
        self.stats["failed"] += 1
        error = RoomError("review_failed", N_("the review could not be made: try again in a moment"), 503)
        error.retry_after = self._wait_for(1)
        return error

    def report(self) -> dict[str, int]:
        """Counts for an operator: ``workers``, ``queue``, ``running``, ``waiting`` now; since the
        start ``reviews``, ``busy``, ``per_address``, ``failed``. No address, record or seat."""
        now = {"workers": self.workers, "queue": self.queue, "running": self.running, "waiting": self.waiting}
        return now | {key: self.stats[key] for key in ("reviews", "busy", "per_address", "failed")}

    def pids(self) -> list[int]:
        """The process ids of the live review workers (for operators and tests)."""
        return [p.pid for p in _processes(self._executor) if p.pid is not None and p.is_alive()]

    async def stop(self) -> None:
        """Refuse new reviews and stop the workers (a review still running is given a second,
        then its process is terminated; its request gets 503)."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = _processes(executor)
        executor.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + 1
        while any(p.is_alive() for p in processes) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        for process in processes:
            if process.is_alive():
                process.terminate()
