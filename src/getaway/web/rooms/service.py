"""The rooms of one process: :class:`RoomService`, the façade the app, the socket edge and the
tests call. It holds the settings, the open rooms (:class:`~.handles.RoomHandle` by code) and
one component per concern; it reads as a table of contents:

- :class:`~.worker.Worker`: each room's one writer (its queue, ``_run``, group commit);
- :class:`~.timers.Timers`: turn, take, absence, idle and auto-next timers;
- :class:`~.bots.Bots`: bot moves and takes, the slots of rooms played by bots alone;
- :class:`~.sockets.Sockets`: hello, detach, client messages, broadcasts;
- :class:`~.reads.Reads`: the HTTP reads and their caches;
- :class:`~.lobby.Matchmaking`: public rooms, quick play, rematch;
- :class:`~.cluster.Cluster` and :class:`~.mirror.Mirror`: many processes (leases, forwarding,
  heartbeat; news, presence, catch-up).

Every room has one ``asyncio.Queue`` and one worker task: HTTP joins and starts, socket
messages, bots, absence and idle timers all go through it, so one coroutine changes a room,
persists the command (committed) and only then broadcasts. What a socket receives is built only
from ``player_view(deal, seat)`` and public room facts (:meth:`~.state.Room.public`).

With a shared :class:`~getaway.web.broker.Broker` (``serve --redis-url``), many processes serve
one set of rooms: a room's worker runs in the process holding its lease (its *owner*); another
process with sockets in the room keeps a *mirror* of it; docs/web.md "More than one process".

Imports every sibling module but :mod:`.frames` (nothing imports this one but the package's
``__init__``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from pydantic import TypeAdapter

from ...core.rules import Rules
from ...text.i18n import N_
from .. import protocol
from ..botpool import BotPool
from ..broker import Broker, Lease, MemoryBroker
from ..settings import ServeSettings
from ..store import Store
from . import checks
from .bots import Bots
from .checks import check_name, hash_token, live_config, new_code, new_token
from .cluster import Cluster
from .commands import Close, Join, Start
from .errors import RoomError, draining_error
from .handles import RESTART_CLOSE, Connection, Job, RoomHandle, room_bot
from .lobby import Matchmaking
from .mirror import Mirror
from .reads import Reads
from .sockets import Sockets
from .state import Room, playing_humans
from .timers import Timers
from .worker import Worker

#: The serve settings' defaults, written once in :class:`~getaway.web.settings.ServeSettings`.
_DEFAULT: Final = {name: field.default for name, field in ServeSettings.model_fields.items()}

__all__ = ["RoomService"]

log = logging.getLogger("getaway.web")
_CLIENT: Final = TypeAdapter(protocol.ClientMessage)


class RoomService:
    """Every room of this process, one writer (queue + worker task) per room.

    Args:
        store: the database.
        bot_delay: seconds from the start of a bot's turn to its move, whatever it holds (0 in
            tests and benchmarks); a searching bot's time limit is set below it.
        grace: seconds a human may stay disconnected before a bot plays for them.
        idle: seconds without any command after which a room is closed.
        clock: the wall clock (Unix seconds; injectable for tests).
        bot_rooms_per_address: rooms played by bots alone (every seat a bot's, or every human
            away) that one client address may have running at once.
        max_bot_rooms: rooms played by bots alone running at once on this server (with a shared
            ``broker``, both limits count the whole cluster's rooms: its slots). A bot-only
            room's start beyond either limit is refused (``too_many_bot_rooms``); a room that
            becomes played by bots alone (its humans away) beyond them waits until a slot frees.
        public_rooms_per_address: public rooms waiting in the lobby that one client address may
            have made at once (with a shared ``broker``, in the whole cluster: its slots); one
            more is refused (``too_many_public_rooms``, 409).
        lobby_expiry: seconds a public room stays in the lobby without a new seat taken (it can
            still be joined by its code; its creator's count frees).
        timer, sleep: the monotonic clock and the sleep of bot moves (injectable for tests).
        bot_workers: worker processes the searching bots search in (:class:`~getaway.web.botpool.BotPool`:
            fair across rooms, the fallback move when no search can be had in time); 0: threads
            of this process, as the other bots.
        broker: the processes' :class:`~getaway.web.broker.Broker` (``None``: this process alone,
            every room its own).

    Bots search at most one search at a time per room; in threads, the rooms played by bots
    alone share one thread (in worker processes, one worker). Call :meth:`start` inside the
    running event loop, :meth:`drain` when the process is asked to stop (SIGTERM), :meth:`stop`
    at shutdown.
    """

    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = _DEFAULT["bot_delay"],
        grace: float = _DEFAULT["grace"],
        idle: float = _DEFAULT["idle"],
        clock: Callable[[], float] = time.time,
        bot_rooms_per_address: int = _DEFAULT["bot_rooms_per_address"],
        max_bot_rooms: int = _DEFAULT["max_bot_rooms"],
        public_rooms_per_address: int = _DEFAULT["public_rooms_per_address"],
        lobby_expiry: float = _DEFAULT["lobby_expiry"],
        timer: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        bot_workers: int = 0,
        broker: Broker | None = None,
    ) -> None:
        self.store = store
        self.broker: Broker = broker if broker is not None else MemoryBroker()
        self.shared = self.broker.shared  # many processes share the rooms
        #: What the heartbeat did (:meth:`Cluster.beat`): ``renewals`` (calls renewing this
        #: process's leases), ``lost`` (leases found gone), ``late`` (beats more than a period
        #: late) and ``worst_late_ms``.
        self.heartbeat: dict[str, int] = {"renewals": 0, "lost": 0, "late": 0, "worst_late_ms": 0}
        self.tasks: set[asyncio.Task[Any]] = set()  # background calls to the broker
        self.handing_over = False  # draining (:meth:`Cluster.hand_over`): this process takes no lease any more
        self.bot_delay = bot_delay
        self.grace = grace
        self.idle = idle
        self.clock = clock
        self.bot_rooms_per_address = bot_rooms_per_address
        self.max_bot_rooms = max_bot_rooms
        self.public_rooms_per_address = public_rooms_per_address
        self.lobby_expiry = lobby_expiry
        self.timer = timer
        self.sleep = sleep
        self.rooms: dict[str, RoomHandle] = {}
        self.botpool = BotPool(bot_workers, timer=timer) if bot_workers > 0 else None
        # the components, each owning one concern (the module docstrings say which)
        self.worker = Worker(self)
        self.timers = Timers(self)
        self.bots = Bots(self)
        self.sockets = Sockets(self)
        self.reads = Reads(self)
        self.matchmaking = Matchmaking(self)
        self.cluster = Cluster(self)
        self.mirror = Mirror(self)
        self.started = False  # start() has rebuilt the unfinished rooms
        self.draining = False  # drain() has begun: no new rooms, commands or sockets
        #: Awaited in order by :meth:`drain` once every room's worker has stopped and its log
        #: entries are committed, before the sockets are closed (e.g. a cluster releasing its leases).
        self.on_drain: list[Callable[[], Awaitable[None]]] = []

    async def start(self) -> None:
        """Start the bot workers, rebuild every unfinished room from its log and start the idle
        sweeper. Shared: only the unfinished rooms nobody owns (their lease free), taken here; the
        others are opened (as mirrors) when asked."""
        if self.botpool is not None:
            await self.botpool.start()
        if self.shared:
            await self.cluster.start()
            self.started = True
            return
        stored = await self.worker.in_db(self.store.unfinished)
        for s in stored:
            try:
                room = Room.restore(s)
            except Exception:  # a corrupt room must not stop the server
                log.exception("room %s: cannot rebuild from its log", s.code)
                continue
            handle = self.open(room)
            if room.status != "lobby" and not any(seat.kind == "human" for seat in room.seats):
                # A started bot-only room: nobody can be watching it now; it is not resumed.
                handle.queue.put_nowait(Job(Close("restart")))
                continue
            self.resume(handle)
        self.timers.sweeper = asyncio.create_task(self.timers.sweep())
        self.started = True

    async def drain(self, timeout: float = 10.0) -> None:
        """Hand this process's rooms over before it stops (SIGTERM; docs/web.md, "Behind a front").

        From the first call on, new rooms, commands and sockets are refused (``draining``, 503:
        nothing was done, the client may retry on another process). Bots and timers stop; each
        room's worker finishes the commands already queued (their log entries committed) and
        stops (shared: its lease released, so another process takes the room over at its next
        command or heartbeat); then the :attr:`on_drain` callbacks run, in order (one that fails is logged, the
        next still runs); then every socket is closed with :data:`RESTART_CLOSE` (its page
        reconnects at once, to another process through the front, which rebuilds the room from
        the log). Rooms are forgotten here: reads come from the database. A second call returns
        at once.

        Args:
            timeout: seconds to wait for the rooms' queued commands (then their workers are
                cancelled: an entry not yet committed was never acknowledged).
        """
        if self.draining:
            return
        self.draining = True
        self.handing_over = True  # shared: the heartbeat takes no lease any more
        if self.timers.sweeper is not None:
            self.timers.sweeper.cancel()
        handles = list(self.rooms.values())
        for handle in handles:
            for task in handle.planned():
                task.cancel()
        await self.worker.drain(handles, timeout)
        if self.tasks:  # shared: the leases given up by Worker.forget (the others take the rooms over)
            await asyncio.wait(set(self.tasks), timeout=timeout)
        for callback in self.on_drain:
            try:
                await callback()
            except Exception:
                log.exception("drain: %r failed", callback)
        for handle in handles:
            for conn in list(handle.conns):
                conn.close(RESTART_CLOSE)
        log.info("drained %d rooms", len(handles))

    def refuse_if_draining(self) -> None:
        """Refuse anything new while draining.

        Raises:
            RoomError: ``draining`` (503).
        """
        if self.draining:
            raise draining_error()

    async def stop(self) -> None:
        """Cancel every worker and timer, close every socket (shared: give the leases up)."""
        if self.shared:
            await self.cluster.stop()
        # a batch already in the thread is still written
        tasks = [task for task in (self.timers.sweeper, self.worker.writer) if task is not None]
        for handle in self.rooms.values():
            for conn in list(handle.conns):
                conn.close()
            tasks.extend(t for t in (handle.worker, handle.bot_task, handle.next_task) if t is not None)
            tasks.extend(handle.timers.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self.rooms.clear()
        for pool in (self.bots.threads, self.bots.alone_thread, self.reads.reader):
            pool.shutdown(wait=False, cancel_futures=True)
        if self.botpool is not None:
            await self.botpool.stop()
        self.worker.db.shutdown(wait=True)

    def open(self, room: Room, lease: Lease | None = None) -> RoomHandle:
        """A handle for ``room`` with its worker. Shared, the worker's first job claims the room
        (:meth:`Cluster.claim`: its owner with ``lease`` or a lease taken now, else a mirror)."""
        self.reads.drop(room.code)
        handle = RoomHandle(room, room_bot(room.level, self.bot_delay))
        if self.shared:
            handle.mirror = True  # until claimed: nothing runs here, commands wait for the claim
            handle.queue.put_nowait(Job(label="claim", call=lambda: self.cluster.claim(handle, lease)))
        handle.worker = asyncio.create_task(self.worker.work(handle), name=f"room-{room.code}")
        self.rooms[room.code] = handle
        return handle

    def resume(self, handle: RoomHandle) -> None:
        """Go on with a room rebuilt from its log (at the start, or opened after the process
        that had it drained): its humans' absence timers (none has a socket here yet) and its bots."""
        for seat in playing_humans(handle.room):
            self.timers.start_absence(handle, seat, announce=False)
        self.timers.schedule(handle)

    async def create(self, config: Any, name: Any = None, address: str = "?") -> dict[str, Any]:
        """Create a room from client ``address``; with ``name``, its creator sits at seat 0 as host.

        Returns:
            ``{"code", "url", "host_token", "seat", "token"}`` (``seat``/``token`` ``None`` without a name).

        Raises:
            RoomError: ``bad_message`` (bad config), ``name_too_long``, ``too_many_public_rooms``
                (409: a public room beyond :attr:`public_rooms_per_address`; nothing made).
        """
        self.refuse_if_draining()
        config = live_config(config)
        if name is not None:
            name = check_name(name)
        host_token = new_token()
        public = await self.matchmaking.take_public(address) if config.get("public") else None
        try:
            handle = await self.new_room(config, hash_token(host_token))
        except BaseException:
            if public is not None:
                self.matchmaking.free_public(public)
            raise
        handle.public = public
        self.matchmaking.listed(handle)
        code = handle.room.code
        answer: dict[str, Any] = {"code": code, "url": f"/r/{code}", "host_token": host_token}
        answer.update(seat=None, token=None)
        if name is not None:
            joined = await self.join(code, name, 0, host=True)
            answer.update(joined)
        self.timers.schedule(handle)
        return answer

    async def new_room(self, config: dict[str, Any], host_hash: str) -> RoomHandle:
        """Store and open a new room of (checked) ``config`` whose host token hashes to
        ``host_hash``, with a fresh code, seed and deal secret.

        Raises:
            RoomError: ``draining`` (503), ``server_error`` (no free code).
        """
        seed = checks.new_seed()
        secret = checks.new_secret()
        now = self.clock()
        for _ in range(20):
            code = new_code()
            if code not in self.rooms and await self.worker.in_db(
                self.store.create_room, code, config, seed=seed, host_hash=host_hash, now=now, secret=secret
            ):
                break
        else:  # pragma: no cover - 32**6 codes
            raise RoomError("server_error", N_("no free room code"), 503)
        self.refuse_if_draining()  # began while the room was stored: it opens on another process
        return self.open(Room(code, config, seed, host_hash, now, secret))

    async def handle(self, code: str) -> RoomHandle:
        """The live room ``code``, loading it from the database if needed.

        Raises:
            RoomError: ``room_not_found`` (404), ``room_closed`` (410), ``draining`` (503).
        """
        self.refuse_if_draining()
        code = str(code).upper()
        handle = self.rooms.get(code)
        if handle is not None:
            return handle
        room = await self.load(code)
        if room.status == "closed":
            raise RoomError("room_closed", N_("this room is closed"), 410)
        self.refuse_if_draining()  # began while the room was read
        handle = self.rooms.get(code)  # loaded meanwhile by another request
        if handle is None:  # not open here: a room another process drained (or a rematch's)
            handle = self.open(room)
            self.resume(handle)
        return handle

    async def load(self, code: str) -> Room:
        """Room ``code`` as stored (live if open here, else rebuilt from the database; read-only use).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        code = str(code).upper()
        handle = self.rooms.get(code)
        if handle is not None:
            return handle.room
        if len(code) > 16 or not (code.isascii() and code.isalnum()):  # no query for what no code can be
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code[:16])
        stored = await self.worker.in_db(self.store.load_room, code)
        if stored is None:
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code)
        return Room.restore(stored)

    async def submit(self, handle: RoomHandle, job: Job) -> Any:
        """Queue ``job`` on the room's worker and wait for its result.

        Raises:
            RoomError: the command was refused (nothing changed); ``draining`` (503).
        """
        self.refuse_if_draining()
        if handle.worker is None or handle.worker.done():
            raise RoomError("room_closed", N_("this room is closed"), 410)
        job.future = asyncio.get_running_loop().create_future()
        handle.queue.put_nowait(job)
        return await job.future

    async def join(
        self, code: str, name: Any, seat: Any = None, *, host: bool = False, quick: bool = False, address: str = "?"
    ) -> dict[str, Any]:
        """Sit a player in room ``code`` (``seat`` ``None``: the first empty one); ``quick``: a
        quick play's join from client ``address`` (:class:`~.commands.Join`'s ``quick``: a host
        there, the room started, as by ``address``, if the seat was its last free one).

        Returns:
            ``{"seat", "token"}``.

        Raises:
            RoomError: ``room_not_found``, ``already_started``, ``room_full``, ``seat_taken``,
                ``name_too_long``, ``bad_message``; ``not_waiting`` (409, ``quick``: the room has
                left the lobby).
        """
        handle = await self.handle(code)
        token = new_token()
        logged = await self.submit(handle, Job(Join(seat, name, hash_token(token), host, quick), address=address))
        return {"seat": logged["seat"], "token": token}

    async def start_match(self, code: str, token: str, address: str = "?") -> dict[str, Any]:
        """The host starts the match (HTTP) from client ``address``. Returns the public room state.

        Raises:
            RoomError: ``room_not_found``, ``not_host`` (403), ``already_started``,
                ``too_many_bot_rooms`` (429: a bot-only room beyond the limits).
        """
        handle = await self.handle(code)
        if not handle.room.is_host_token(token):
            raise RoomError("not_host", N_("only the host can do this"), 403)
        await self.submit(handle, Job(Start(), address=address))
        return handle.room.public(handle.connected())

    async def close_room(self, code: str, token: str) -> dict[str, Any]:
        """The host closes the room (HTTP): sockets get ``closed``, bots stop, and the room
        never resumes (its history and records stay readable). Returns the public room state.

        Raises:
            RoomError: ``room_not_found``, ``room_closed`` (410), ``not_host`` (403; also a
                host seated by quick play: :meth:`Room.may_close <.state.Room.may_close>`).
        """
        handle = await self.handle(code)
        if not handle.room.may_close(token):
            if handle.room.is_host_token(token):  # seated by quick play: may start, not close
                raise RoomError("not_host", N_("a player seated by quick play can start this room, not close it"), 403)
            raise RoomError("not_host", N_("only the host can do this"), 403)
        await self.submit(handle, Job(Close("host")))
        return handle.room.public()

    def background(self, coro: Awaitable[Any]) -> None:
        """Run ``coro`` as a task kept until it ends (the event loop keeps only weak references)."""
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # ------------------------------------------------------------------ the components' public calls

    def public_rooms(self, limit: int = 50) -> list[dict[str, Any]]:
        """:meth:`Matchmaking.public_rooms`."""
        return self.matchmaking.public_rooms(limit)

    async def lobby(self, limit: int = 50) -> list[dict[str, Any]]:
        """:meth:`Matchmaking.lobby`."""
        return await self.matchmaking.lobby(limit)

    async def quick_play(self, name: Any, address: str = "?") -> dict[str, Any]:
        """:meth:`Matchmaking.quick_play`."""
        return await self.matchmaking.quick_play(name, address)

    async def rematch(self, handle: RoomHandle, conn: Connection) -> None:
        """:meth:`Matchmaking.rematch`."""
        await self.matchmaking.rematch(handle, conn)

    async def read_public(self, code: str) -> dict[str, Any]:
        """:meth:`Reads.read_public`."""
        return await self.reads.read_public(code)

    async def read_history(self, code: str) -> dict[str, Any]:
        """:meth:`Reads.read_history`."""
        return await self.reads.read_history(code)

    async def read_record(self, code: str, index: int) -> dict[str, Any]:
        """:meth:`Reads.read_record`."""
        return await self.reads.read_record(code, index)

    async def read_rules(self, code: str) -> Rules:
        """:meth:`Reads.read_rules`."""
        return await self.reads.read_rules(code)

    async def attach(self, handle: RoomHandle, hello: dict[str, Any], address: str = "?") -> Connection:
        """:meth:`Sockets.attach`."""
        return await self.sockets.attach(handle, hello, address)

    async def detach(self, handle: RoomHandle, conn: Connection) -> None:
        """:meth:`Sockets.detach`."""
        await self.sockets.detach(handle, conn)

    async def message(self, handle: RoomHandle, conn: Connection, msg: protocol.ClientMessage | dict[str, Any]) -> None:
        """:meth:`Sockets.message` (the app passes the parsed model; a dict, as a test or a tool
        holds one, is validated into its model first).

        Raises:
            pydantic.ValidationError: a dict that is no client message.
        """
        await self.sockets.message(handle, conn, _CLIENT.validate_python(msg) if isinstance(msg, dict) else msg)

    async def hand_over(self) -> None:
        """:meth:`Cluster.hand_over`."""
        await self.cluster.hand_over()

    async def take_socket(self, address: str, socket: str, cap: int) -> bool:
        """:meth:`Cluster.take_socket`."""
        return await self.cluster.take_socket(address, socket, cap)

    async def free_socket(self, address: str, socket: str) -> None:
        """:meth:`Cluster.free_socket`."""
        await self.cluster.free_socket(address, socket)

    def report(self) -> dict[str, Any]:
        """:meth:`Reads.report`."""
        return self.reads.report()
