"""Searching bots in worker processes (issue 14, item 1): :class:`BotPool`.

The server's event loop sends the search of a bot (``bot.act(view, legal, rng)``) to a
``concurrent.futures.ProcessPoolExecutor`` (the ``spawn`` start method), so a search never
holds the server process's GIL. What crosses is cheap: the seat's
:class:`~getaway.core.view.PlayerView` (about 1.4 kB pickled, 30 µs), the legal actions, the
bot's settings, its time limit and a 64-bit seed drawn from the room's generator; an action
comes back. Each worker builds a bot once per settings (the searching levels when it starts)
and keeps it.

In front of the pool, a queue per room and a rotation of rooms (:meth:`BotPool.act`):

- **fair**: at most one search per room in flight, the rooms with a waiting search take turns
  (first come, first served), the rooms with a person first; the rooms played by bots alone
  use at most ``alone_workers`` workers at a time, so a busy room never fills the pool;
- **back-pressure**: a search with a due time (the bot's move is sent then) that cannot start
  while it still has :data:`MIN_SHARE` of its time (every worker busy), or is not back
  :data:`DUE_MARGIN` before the move is due (a worker too slow or dead), is dropped for the
  bot's *fallback move*: the heuristic's choice, made on the event loop in microseconds, on
  time. Each fallback is logged (one line: room, seat, reason) and counted (:attr:`BotPool.stats`);
- **a dead worker** (killed, out of memory) breaks the executor: its searches play the
  fallback, and a new executor replaces it.

The hint of a player (:meth:`BotPool.hint`, :func:`getaway.web.hints.hint_for`) searches in the
same workers, behind the bots: it never waits for a worker (every worker busy, or the room's
last hint still running, or the hints' own share ``hint_workers`` of the workers in use: the
fallback's hint at once), so a worker that frees goes to the waiting bot searches first, and a
room's hint does not hold its bots' searches back (it is not one of the room's queue). A hint
not back within ``hint_timeout`` seconds, or whose search fails, is the fallback's too: the
heuristic's move and reason. Each is logged (room, seat, why) and counted like the bots' fallbacks.

Which bots go to the pool: :meth:`BotPool.takes` (a searching bot, one with a ``time_limit``,
whose class can be rebuilt from its settings: :func:`spec_of`). The others keep the threads of
:class:`~getaway.web.rooms.RoomService`.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import multiprocessing
import os
import random
import signal
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Final

from ..bots import LEVELS, Bot, HeuristicBot, make_bot
from ..bots.hints import best_hint, bot_hint
from ..bots.settings import values_of
from ..core.events import Action
from ..core.view import PlayerView

__all__ = [
    "BotPool",
    "BotSpec",
    "SearchError",
    "spec_of",
    "default_workers",
    "hint_search",
    "MIN_SHARE",
    "DUE_MARGIN",
    "HINT_TIMEOUT",
]

log = logging.getLogger("getaway.web")

#: A waiting search that could no longer get this share of the time it had when it was asked
#: for (its due time minus the time it was asked) plays the fallback move instead.
MIN_SHARE: Final = 0.25
#: Seconds before its move is due at which a search not back yet is given up for the fallback.
DUE_MARGIN: Final = 0.02
#: Seconds a hint's search may take in a worker before the player is given the fallback's hint.
HINT_TIMEOUT: Final = 5.0
#: Seconds before a pool that broke again without finishing a search is rebuilt (doubling up
#: to :data:`MAX_BACKOFF`): workers that cannot start must not be restarted in a loop.
BACKOFF: Final = 0.5
MAX_BACKOFF: Final = 30.0


def default_workers() -> int:
    """The default number of bot worker processes: one per core this process may run on but
    one (the event loop's), at least 1."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores - 1)


@dataclass(frozen=True)
class BotSpec:
    """How a worker process builds a bot: ``path`` (``"package.module:Class"``) and the
    constructor's keyword arguments (``settings``, sorted pairs; the time limit is not one of
    them: it comes with each search)."""

    path: str
    settings: tuple[tuple[str, Any], ...]

    def build(self) -> Bot:
        """A new bot of this spec.

        Raises:
            ImportError, AttributeError: the class cannot be found.
        """
        module, _, name = self.path.partition(":")
        factory: Any = importlib.import_module(module)
        for part in name.split("."):
            factory = getattr(factory, part)
        bot: Bot = factory(**dict(self.settings))
        return bot


def spec_of(bot: Bot) -> BotSpec | None:
    """The spec that rebuilds ``bot`` in another process: its class's path and the settings it
    was made with, as its class declares them (``SETTINGS``, :func:`getaway.bots.settings.values_of`;
    the time limit, set per search, left out). ``None`` when it cannot be rebuilt: its class is
    not importable by name (defined in ``__main__`` or a function), declares no settings, or one
    of their values is not hashable.

    >>> spec_of(make_bot("hard")).path
    'getaway.bots.expert:ExpertBot'
    >>> dict(spec_of(make_bot("hard")).settings)["iterations"], dict(spec_of(make_bot("hard")).settings)["rollout"]
    (1, 'light')
    """
    cls = type(bot)
    if cls.__module__ == "__main__" or "<locals>" in cls.__qualname__:
        return None
    values = values_of(bot)
    if values is None:
        return None
    spec = BotSpec(f"{cls.__module__}:{cls.__qualname__}", tuple(sorted(values.items())))
    try:
        hash(spec)
    except TypeError:
        return None
    return spec


def _searching_levels() -> list[BotSpec]:
    """The specs of the levels whose bots search (built by every worker when it starts)."""
    specs = [spec_of(make_bot(level)) for level, (kind, _settings) in LEVELS.items() if kind == "expert"]
    return [s for s in specs if s is not None]


# ---------------------------------------------------------------------------------- worker side

#: How worker processes start: a fresh interpreter (no copy of the server's threads and sockets).
_CONTEXT: Final = multiprocessing.get_context("spawn")

#: A worker process's bots, built once per spec.
_BOTS: dict[BotSpec, Bot] = {}


def _start_worker(specs: Sequence[BotSpec], ready: Any = None) -> None:
    """A worker's start: Ctrl+C is the server's to handle (the worker would print a traceback),
    the worker ends when the server does, even killed (:func:`_orphan_watch`), and the bots of
    ``specs`` are built now, before the first search; then ``ready`` (a semaphore of the pool's
    start) is released."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_orphan_watch, args=(os.getppid(),), daemon=True, name="orphan-watch").start()
    for spec in specs:
        with contextlib.suppress(Exception):
            _BOTS[spec] = spec.build()
    if ready is not None:
        ready.release()


def _orphan_watch(server: int, period: float = 1.0) -> None:
    """In a worker: end this process once its server ``server`` (a pid) is gone. A server
    killed with SIGKILL cannot stop its pool, and a worker waiting for work would live on (and
    with it multiprocessing's resource tracker, which waits for every holder of its pipe)."""
    while os.getppid() == server:
        time.sleep(period)
    os._exit(0)


def _worker_pid() -> int:
    return os.getpid()


class SearchError(RuntimeError):
    """A bot's search failed in its worker: the error's type, message and traceback as text
    (an exception of the engine may not cross processes itself: it would break the pool)."""


def _search(spec: BotSpec, time_limit: float | None, view: PlayerView, legal: Sequence[Action], seed: int) -> Action:
    """In a worker: ``spec``'s bot's choice for ``view`` within ``time_limit`` seconds.

    Raises:
        SearchError: the bot failed (or could not be built).
    """
    try:
        bot = _BOTS.get(spec)
        if bot is None:
            bot = _BOTS[spec] = spec.build()
        if hasattr(bot, "time_limit"):
            bot.time_limit = time_limit
        return bot.act(view, legal, random.Random(seed))
    except Exception as exc:
        raise SearchError("".join(traceback.format_exception(exc))) from None


def hint_search(view: PlayerView, seed: int) -> tuple[Action, str, str]:
    """In a worker (or any process): the hint for ``view``'s own decision, as the terminal's
    ``hint`` gives it: :func:`getaway.bots.hints.best_hint` with ``random.Random(seed)``;
    ``(action, reason, level)``, the reason an English :class:`~getaway.core.messages.Reason`
    (it pickles with its template and arguments: it is translated on the event loop)."""
    return best_hint(view, random.Random(seed))


def _hint(hinter: Callable[[PlayerView, int], tuple[Action, str, str]], view: PlayerView, seed: int) -> Any:
    """In a worker: ``hinter(view, seed)``.

    Raises:
        SearchError: it failed.
    """
    try:
        return hinter(view, seed)
    except Exception as exc:
        raise SearchError("".join(traceback.format_exception(exc))) from None


# ---------------------------------------------------------------------------------- the server side


@dataclass(eq=False)
class _Request:
    room: str
    seat: int
    spec: BotSpec
    view: PlayerView
    legal: Sequence[Action]
    seed: int
    limit: float | None  # the bot's time limit (seconds), as asked
    due: float | None  # when the move is due (the pool's timer), None: no deadline
    asked: float  # when it was asked for
    alone: bool
    future: asyncio.Future[Action] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    started: bool = False


@dataclass(eq=False)
class _HintRequest:
    room: str
    seat: int
    view: PlayerView
    seed: int
    due: float  # when the player is given the fallback's hint if the search is not back (the pool's timer)
    future: asyncio.Future[tuple[Action, str, str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


#: The counters of :attr:`BotPool.stats` that :meth:`BotPool.report` always shows (0 when none).
_WHY: Final = ("busy", "late", "crash", "error", "stop")  # why a fallback was played (or hinted)
_COUNTED: Final = (
    "searches",
    "fallbacks",
    *(f"fallback:{why}" for why in _WHY),
    "hints",
    "hint_fallbacks",
    *(f"hint_fallback:{why}" for why in _WHY),
    "rebuilds",
)


class BotPool:
    """Bot searches in ``workers`` worker processes, fair across rooms, with back-pressure
    (the module docstring).

    Args:
        workers: worker processes (≥ 1).
        timer: the monotonic clock (seconds) the due times of :meth:`act` are on.
        alone_workers: workers the rooms played by bots alone may use at once.
        fallback: the bot whose move is played when a search cannot be had in time
            (default: the heuristic, deterministic).
        warm: the specs every worker builds when it starts (default: the searching levels).
        hint_workers: workers the hints may use at once (default: all but one, at least 1).
        hint_timeout: seconds a hint's search may take (default :data:`HINT_TIMEOUT`).
        hinter: what a worker runs for a hint, ``(view, seed) -> (action, reason, level)``,
            a function importable by name (default :func:`hint_search`).

    Call :meth:`start` inside the running event loop, :meth:`stop` at shutdown.

    Raises:
        ValueError: ``workers``, ``alone_workers`` or ``hint_workers`` below 1, ``hint_timeout`` not positive.
    """

    def __init__(
        self,
        workers: int,
        *,
        timer: Callable[[], float] = time.monotonic,
        alone_workers: int = 1,
        fallback: Bot | None = None,
        warm: Sequence[BotSpec] | None = None,
        hint_workers: int | None = None,
        hint_timeout: float = HINT_TIMEOUT,
        hinter: Callable[[PlayerView, int], tuple[Action, str, str]] = hint_search,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers: at least 1, not {workers}")
        if alone_workers < 1:
            raise ValueError(f"alone_workers: at least 1, not {alone_workers}")
        hint_workers = max(1, workers - 1) if hint_workers is None else hint_workers
        if hint_workers < 1:
            raise ValueError(f"hint_workers: at least 1, not {hint_workers}")
        if not hint_timeout > 0:
            raise ValueError(f"hint_timeout: must be positive, not {hint_timeout}")
        self.hint_workers = hint_workers
        self.hint_timeout = hint_timeout
        self.hinter = hinter
        self.workers = workers
        self.alone_workers = alone_workers
        self.timer = timer
        self.fallback: Bot = fallback if fallback is not None else HeuristicBot()
        self._warm = list(warm) if warm is not None else _searching_levels()
        #: counts: ``searches`` (sent to a worker), ``fallbacks``, ``fallback:busy`` / ``:late`` /
        #: ``:crash`` / ``:error`` / ``:stop`` (why), the same of the hints (``hints``, ``hint_fallbacks``,
        #: ``hint_fallback:busy`` …), ``rebuilds`` (executors replaced after a dead worker).
        self.stats: Counter[str] = Counter()
        self._executor: ProcessPoolExecutor | None = None
        self._queues: dict[str, deque[_Request]] = {}  # per room, the searches waiting
        self._turns: dict[bool, deque[str]] = {False: deque(), True: deque()}  # rooms waiting, by ``alone``
        self._busy: dict[str, _Request] = {}  # rooms with a search in flight → that search
        self._hinting: dict[str, _HintRequest] = {}  # rooms with a hint in flight → that hint
        self._closed = False
        self._backoff = 0.0  # seconds before the next rebuild (0: at once)
        self._rebuilding: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ life cycle

    def _new_executor(self, ready: Any = None) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.workers,
            mp_context=_CONTEXT,
            initializer=_start_worker,
            initargs=(self._warm, ready),
        )

    async def start(self, timeout: float = 60.0) -> None:
        """Start the worker processes and wait until each has built its bots (at most
        ``timeout`` seconds: a worker that cannot start breaks the pool, whose searches then
        play their fallback moves)."""
        ready = _CONTEXT.Semaphore(0)
        self._executor = executor = self._new_executor(ready)
        # one job per worker at once: the executor starts a process for each (it starts them on demand)
        jobs = [executor.submit(_worker_pid) for _ in range(self.workers)]

        def started() -> None:
            deadline, count = time.monotonic() + timeout, 0
            while count < self.workers and time.monotonic() < deadline:
                if ready.acquire(timeout=0.05):
                    count += 1
                elif any(job.done() and job.exception() is not None for job in jobs):
                    return  # the pool broke

        await asyncio.to_thread(started)

    async def stop(self) -> None:
        """Drop the waiting searches (they play their fallback), stop the workers (a search
        still running is given a second, then its process is terminated)."""
        self._closed = True
        if self._rebuilding is not None:
            self._rebuilding.cancel()
        for queue in self._queues.values():
            while queue:
                self._fall_back(queue.popleft(), "the server is stopping", "stop")
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list(_processes(executor))
        executor.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + 1  # idle workers end at once; a search is not waited for long
        while any(p.is_alive() for p in processes) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        for process in processes:
            if process.is_alive():
                process.terminate()

    @property
    def in_flight(self) -> int:
        """Searches running in the workers now (one per room at most)."""
        return len(self._busy)

    def report(self) -> dict[str, int]:
        """What an operator reads of the pool now (``GET /stats``): ``workers``, ``busy`` (searches
        running: one per room at most), ``waiting`` (searches queued for a worker) and
        ``rooms_waiting`` (rooms they are of), ``hinting`` (hints running), then the counts since
        it started: ``searches``, ``fallbacks`` and why (``fallback_busy``, ``_late``, ``_crash``,
        ``_error``, ``_stop``), the hints' (``hints`` searched in a worker, ``hint_fallbacks`` and
        why: ``hint_fallback_busy`` …), ``rebuilds``. Counts only: no room, seat or card."""
        counts = {key.replace(":", "_"): self.stats[key] for key in _COUNTED}
        waiting = sum(len(queue) for queue in self._queues.values())
        now = {
            "workers": self.workers,
            "busy": len(self._busy),
            "waiting": waiting,
            "rooms_waiting": len(self._queues),
            "hinting": len(self._hinting),
        }
        return now | counts

    def pids(self) -> list[int]:
        """The process ids of the live workers (for operators and tests)."""
        return [p.pid for p in _processes(self._executor) if p.pid is not None and p.is_alive()]

    # ------------------------------------------------------------------ searches

    @staticmethod
    def takes(bot: Bot) -> bool:
        """Whether ``bot``'s searches go to the pool: it searches (has a ``time_limit``) and
        can be rebuilt in a worker (:func:`spec_of`)."""
        return hasattr(bot, "time_limit") and spec_of(bot) is not None

    async def act(
        self,
        room: str,
        bot: Bot,
        view: PlayerView,
        legal: Sequence[Action],
        rng: random.Random,
        *,
        due: float | None = None,
        alone: bool = False,
    ) -> Action:
        """``bot``'s choice for ``view`` (its seat's turn in ``room``), searched by a worker,
        or its fallback move (:attr:`fallback`) if the search cannot be had before ``due``.

        Args:
            room: the room's code (searches of one room run one at a time, in order).
            bot: a bot the pool :meth:`takes`; its ``time_limit`` (seconds) is the search's.
            view, legal: the seat's view and legal actions (non-empty).
            rng: the room's generator: one 64-bit seed is drawn from it, here and now, so the
                moves of a seeded room do not depend on the workers' timing (a search ends on
                its time limit, though, when it has one).
            due: when the move is sent (:attr:`timer`); ``None``: no deadline, the search waits
                for a worker however long.
            alone: the room is played by bots alone (it waits behind the rooms with a person).

        Raises:
            ValueError: the pool does not take ``bot``.
            asyncio.CancelledError: cancelled (a waiting search is dropped; a running one ends
                in its worker, the room's next search waits for it).
        """
        spec = spec_of(bot)
        if spec is None:
            raise ValueError(f"bot {getattr(bot, 'name', bot)!r}: cannot be rebuilt in a worker process")
        assert view.seat is not None
        now = self.timer()
        request = _Request(
            room, view.seat, spec, view, legal, rng.getrandbits(64), getattr(bot, "time_limit", None), due, now, alone
        )
        if self._closed or (self._executor is None and self._rebuilding is None):
            self._fall_back(request, "the bot pool is not running", "stop")
            return request.future.result()
        self._queues.setdefault(room, deque()).append(request)
        if room not in self._busy and room not in self._turns[alone]:
            self._turns[alone].append(room)
        self._dispatch()
        try:
            await self._wait(request)
        except asyncio.CancelledError:
            self._withdraw(request)
            request.future.cancel()  # nobody waits for its action any more
            raise
        return request.future.result()

    async def _wait(self, request: _Request) -> None:
        """Until the request has its action: the search's, or the fallback when its time runs out."""
        future = request.future
        while not future.done():
            if request.due is None:
                await asyncio.wait({future})
                continue
            if request.started:
                wait = request.due - DUE_MARGIN - self.timer()
                if wait <= 0:
                    self._fall_back(request, "its search was not back in time", "late")
                    return
            else:
                wait = request.due - MIN_SHARE * (request.due - request.asked) - self.timer()
                if wait <= 0:
                    self._withdraw(request)
                    self._fall_back(request, "every bot worker was busy", "busy")
                    return
            await asyncio.wait({future}, timeout=wait)

    def _withdraw(self, request: _Request) -> None:
        """Take a waiting request out of its room's queue (a running one stays: its worker is busy)."""
        queue = self._queues.get(request.room)
        if queue is not None and request in queue:
            queue.remove(request)
            if not queue:
                del self._queues[request.room]
                with contextlib.suppress(ValueError):
                    self._turns[request.alone].remove(request.room)

    def _next(self) -> _Request | None:
        """The next search to start: the first room in turn (with a person first; the rooms of
        bots alone while they hold fewer than ``alone_workers`` workers)."""
        alone_running = sum(1 for running in self._busy.values() if running.alone)
        for alone in (False, True):
            turns = self._turns[alone]
            if not turns or (alone and alone_running >= self.alone_workers):
                continue
            room = turns.popleft()
            queue = self._queues[room]
            request = queue.popleft()
            if not queue:
                del self._queues[room]
            return request
        return None

    def _dispatch(self) -> None:
        """Start searches while a worker is free."""
        while self._executor is not None and len(self._busy) + len(self._hinting) < self.workers:
            request = self._next()
            if request is None:
                return
            limit = request.limit
            if request.due is not None:
                planned = request.due - request.asked
                left = request.due - self.timer()
                if planned <= 0 or left < MIN_SHARE * planned:
                    self._fall_back(request, "every bot worker was busy", "busy")
                    self._requeue(request.room, request.alone)
                    continue
                if limit is not None:  # started late: the same share of what is left
                    limit = min(limit, limit * left / planned)
            self._start(request, limit)

    def _start(self, request: _Request, limit: float | None) -> None:
        executor = self._executor
        assert executor is not None
        try:
            job = executor.submit(_search, request.spec, limit, request.view, request.legal, request.seed)
        except BrokenProcessPool:
            self._rebuild(executor)
            self._fall_back(request, "a bot worker process died", "crash")
            self._requeue(request.room, request.alone)
            return
        request.started = True
        self._busy[request.room] = request
        self.stats["searches"] += 1
        asyncio.wrap_future(job).add_done_callback(lambda done: self._finished(request, executor, job))

    def _finished(self, request: _Request, executor: ProcessPoolExecutor, job: Future[Action]) -> None:
        """A worker's answer (on the event loop): the request's action, the fallback if the
        search failed, a new executor if the worker died; then the next searches start."""
        if self._busy.get(request.room) is request:  # (not a search of an executor already replaced)
            del self._busy[request.room]
        self._answer(request, executor, job, f"search of seat {request.seat}", self._fall_back)
        self._requeue(request.room, request.alone)
        self._dispatch()

    def _requeue(self, room: str, alone: bool) -> None:
        """The room's turn again if it has searches waiting (at the end of the rotation)."""
        if room in self._queues and room not in self._busy and room not in self._turns[alone]:
            self._turns[alone].append(room)

    def _rebuild(self, broken: ProcessPoolExecutor) -> None:
        """Replace the executor of a dead worker (once, whichever of its searches sees it first):
        at once, or after a back-off when the last new one broke before finishing a search
        (meanwhile no search starts: they wait, or play their fallback when due)."""
        if self._executor is not broken or self._closed:
            return
        broken.shutdown(wait=False, cancel_futures=True)
        self._executor = None
        self._busy.clear()  # the searches of the dead executor are all failing with it
        self._hinting.clear()
        wait = self._backoff
        self._backoff = min(MAX_BACKOFF, max(BACKOFF, 2 * self._backoff))
        log.error("a bot worker process died: its searches play their fallback moves; new workers in %.1f s", wait)
        self._rebuilding = asyncio.get_running_loop().call_later(wait, self._restart)

    def _restart(self) -> None:
        self._rebuilding = None
        if self._closed:
            return
        self.stats["rebuilds"] += 1
        self._executor = self._new_executor()
        self._dispatch()

    def _fall_back(self, request: _Request, reason: str, key: str) -> None:
        """The bot's fallback move for the request, logged and counted (if it has no action yet)."""
        if request.future.done():
            return
        action = self.fallback.act(request.view, request.legal, random.Random(request.seed))
        self.stats["fallbacks"] += 1
        self.stats[f"fallback:{key}"] += 1
        log.warning("room %s: bot of seat %d plays its fallback move: %s", request.room, request.seat, reason)
        request.future.set_result(action)

    # ------------------------------------------------------------------ hints

    async def hint(self, room: str, view: PlayerView, seed: int) -> tuple[Action, str, str]:
        """The hint for ``view``'s own decision (its seat's turn in ``room``), searched by a
        worker (:attr:`hinter`: :func:`hint_search`, the move and reason the terminal's ``hint``
        gives for the same view and seed), or at once the fallback's (:attr:`fallback`: its
        ``hint``, else its move with no reason) when it cannot start now (every worker busy, the
        room's last hint still searching, or :attr:`hint_workers` hints running), is not back
        within :attr:`hint_timeout` seconds, or fails. A hint never waits for a worker, so the
        waiting bot searches have every worker that frees first.

        Args:
            room: the room's code (one hint per room in flight).
            view: the seat's view, its turn, with legal actions.
            seed: the hint's seed (:func:`getaway.web.hints.hint_for`: from the view).

        Returns:
            ``(action, reason, level)``: the reason an English
            :class:`~getaway.core.messages.Reason` or ``""``; the level the hint is of
            (``"expert"`` …, the fallback's ``name``).

        Raises:
            asyncio.CancelledError: cancelled (a running search ends in its worker).
        """
        assert view.seat is not None
        request = _HintRequest(room, view.seat, view, seed, self.timer() + self.hint_timeout)
        executor = self._executor
        if self._closed or (executor is None and self._rebuilding is None):
            self._hint_fall_back(request, "the bot pool is not running", "stop")
        elif executor is None:
            self._hint_fall_back(request, "a bot worker process died", "crash")
        elif room in self._hinting:
            self._hint_fall_back(request, "the room's last hint is still being searched", "busy")
        elif len(self._hinting) >= self.hint_workers or len(self._busy) + len(self._hinting) >= self.workers:
            self._hint_fall_back(request, "every bot worker was busy", "busy")
        else:
            self._start_hint(request, executor)
        future = request.future
        try:
            while not future.done():
                wait = request.due - self.timer()
                if wait <= 0:
                    self._hint_fall_back(request, "its search was not back in time", "late")
                    break
                await asyncio.wait({future}, timeout=wait)
        except asyncio.CancelledError:
            future.cancel()  # nobody waits for it any more (its worker stays busy until it ends)
            raise
        return future.result()

    def _start_hint(self, request: _HintRequest, executor: ProcessPoolExecutor) -> None:
        try:
            job = executor.submit(_hint, self.hinter, request.view, request.seed)
        except BrokenProcessPool:
            self._rebuild(executor)
            self._hint_fall_back(request, "a bot worker process died", "crash")
            return
        self._hinting[request.room] = request
        self.stats["hints"] += 1
        asyncio.wrap_future(job).add_done_callback(lambda done: self._hint_finished(request, executor, job))

    def _hint_finished(self, request: _HintRequest, executor: ProcessPoolExecutor, job: Future[Any]) -> None:
        """A worker's hint (on the event loop): the request's answer, or the fallback's if it
        failed; then the waiting bot searches start on the freed worker."""
        if self._hinting.get(request.room) is request:
            del self._hinting[request.room]
        self._answer(request, executor, job, f"hint search of seat {request.seat}", self._hint_fall_back)
        self._dispatch()

    def _answer(
        self, request: Any, executor: ProcessPoolExecutor, job: Future[Any], what: str, fall_back: Callable[..., None]
    ) -> None:
        """Answer ``request`` (a search's or a hint's) with its worker's ``job``: its result, or
        ``fall_back(request, reason, key)`` when the job has none (:meth:`_failure`; ``what`` names
        the search in the log line)."""
        failed = self._failure(executor, job, request.room, what)
        if failed is not None:
            fall_back(request, *failed)
        elif not request.future.done():
            request.future.set_result(job.result())

    def _failure(self, executor: ProcessPoolExecutor, job: Future[Any], room: str, what: str) -> tuple[str, str] | None:
        """Why a worker's ``job`` has no answer, as ``(reason, counter key)`` for the fallback,
        or ``None`` (it has one: the pool works). A dead worker's executor is rebuilt; a failed
        search is logged with its error's type only (its message or traceback could name a card
        of the hand)."""
        if job.cancelled() or self._closed:
            return "the server is stopping", "stop"
        error = job.exception()
        if isinstance(error, BrokenProcessPool):
            self._rebuild(executor)
            return "a bot worker process died", "crash"
        if error is not None:
            text = str(error).strip()
            kind = text.splitlines()[-1].partition(":")[0] if text else type(error).__name__
            log.error("room %s: %s failed (%s)", room, what, kind)
            return "its search failed", "error"
        self._backoff = 0.0
        return None

    def _hint_fall_back(self, request: _HintRequest, reason: str, key: str) -> None:
        """The fallback's hint for the request (if it has no answer yet), logged and counted."""
        if request.future.done():
            return
        legal = list(request.view.legal_actions)
        action, why = bot_hint(self.fallback, request.view, legal, random.Random(request.seed))
        self.stats["hint_fallbacks"] += 1
        self.stats[f"hint_fallback:{key}"] += 1
        log.warning("room %s: hint of seat %d is the fallback's: %s", request.room, request.seat, reason)
        request.future.set_result((action, why or "", self.fallback.name))


def _processes(executor: ProcessPoolExecutor | None) -> list[multiprocessing.process.BaseProcess]:
    """The executor's worker processes (the standard library keeps them in ``_processes``)."""
    if executor is None:
        return []
    return list((getattr(executor, "_processes", None) or {}).values())
