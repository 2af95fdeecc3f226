"""The runtime side of a room: :class:`RoomHandle` (its queue, worker, sockets, timers and
bot), a socket's :class:`Connection` (its outbox), a queue's :class:`Job`, and the bot a room
plays with (:func:`room_bot`).

Owns: those runtime records (no behaviour beyond their own fields). Imports :mod:`.errors`,
:mod:`.commands`, :mod:`.frames` and :mod:`.state` only.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel

from ...bots import LEVELS, Bot, make_bot
from ...text.narrate import Narrator
from ..broker import Lease
from . import frames
from .commands import Command, requested
from .errors import RoomError
from .frames import encode
from .state import Room

#: Share of the bot delay a searching bot may spend searching (``time_limit``): the rest is the
#: margin for its last sampled world to finish, so that the move is ready by its send time.
SEARCH_SHARE: Final = 0.6

#: Heartbeats (a third of a lease each: about a minute) after which a mirrored room without a
#: socket here is forgotten (more than a socket may wait for its hello: ``serve --hello-timeout``).
QUIET_BEATS: Final = 90

#: A mirror tells the owner its unchanged seats every this many heartbeats (4 s with the default
#: lease; a change at once: a socket's arrival or departure, its speed, and a new owner, whose
#: news carries a new lease token): a presence is a sealed request and answer through Redis per
#: room, about one per action at 200 rooms when told every beat (docs/web.md "Where a serve
#: process's CPU goes"). What it mends: a presence lost on the way.
PRESENCE_BEATS: Final = 8

#: Heartbeats without a presence after which the owner forgets a process's seats (its sockets
#: are taken for gone): :data:`PRESENCE_BEATS` and 3 beats of slack for a late one.
PRESENCE_STALE_BEATS: Final = PRESENCE_BEATS + 3


def room_bot(level: str, bot_delay: float) -> Bot:
    """The bot of a room's level; a searching one (``expert`` kind) gets ``time_limit`` =
    :data:`SEARCH_SHARE` × ``bot_delay``, so it has decided before its move is due (a move is
    sent ``bot_delay`` after the turn began, whatever the bot holds: docs/web.md)."""
    kind, _settings = LEVELS[level]
    if kind == "expert" and bot_delay > 0:
        return make_bot(level, time_limit=SEARCH_SHARE * bot_delay)
    return make_bot(level)


#: The WebSocket close code of a draining process's sockets (1012 "service restart", RFC 6455
#: and IANA's registry; uvicorn closes with it too when it shuts down): the page reconnects at once,
#: showing no error (static/net.js), and the front sends it to another process.
RESTART_CLOSE: Final = 1012


class Connection:
    """One socket of a room: the seat its ``hello`` proved (``None``: spectator), whether it
    may act as host, its language, and what it has been told (to send only new events)."""

    OUTBOX: Final = 512

    def __init__(self, seat: int | None, host: bool, lang: str, address: str = "?") -> None:
        self.seat = seat
        self.host = host
        self.lang = lang
        self.address = address  # the client's address (who started a room played by bots alone)
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(self.OUTBOX)
        self.deal_index: int | None = None
        self.seen = 0  # events of the current deal's redacted history already sent
        self.narrator: Narrator | None = None
        self.closed = False
        self.close_code = 1000  # the WebSocket close code its writer closes with (1012: reconnect elsewhere)
        #: a seat-less host's own host token, kept in memory only for this socket's rematch message
        #: (the rematch room keeps that host token: :meth:`~.lobby.Matchmaking.come_along`)
        self.host_token: str | None = None
        #: the ``rematch`` message this socket was sent (every socket that asked gets one:
        #: :meth:`~.sockets.Sockets.answer_rematch`)
        self.rematch: Any = None
        #: the page's speed (``hello``'s or ``speed``'s: relaxed, normal, fast): the room's pace is
        #: its slowest socket's (:meth:`~.timers.Timers.pace`)
        self.speed = "normal"

    def send(self, frame: BaseModel) -> None:
        """Queue ``frame`` (a model of :data:`getaway.web.protocol.ServerMessage`) for the socket's
        writer (a slow socket that falls far behind is closed)."""
        if not self.closed:
            if getattr(frame, "type", None) == "rematch":
                self.rematch = frame
            self.send_text(encode(frame))

    def send_text(self, text: str) -> None:
        """Queue a frame already encoded (:func:`~.frames.encode`: one text for many sockets)."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.close()

    def close(self, code: int = 1000) -> None:
        """Ask the socket's writer to close the socket, with WebSocket close ``code`` (1000:
        normal; :data:`RESTART_CLOSE`: the page reconnects at once)."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        while True:
            try:
                self.outbox.put_nowait(None)
                return
            except asyncio.QueueFull:
                self.outbox.get_nowait()

    def error(self, exc: RoomError, version: int) -> None:
        """Send an ``error`` message (translated) for a refused command."""
        self.send(frames.error(exc, self.lang, version))


@dataclass
class Job:
    """An item of a room's queue: a room ``command`` to apply (and log), or a callable run by
    the worker (``call``, named ``label`` in the logs); ``future`` gets the result (a command's
    logged payload) or the :class:`RoomError`."""

    command: Command | None = None
    call: Callable[[], Any] | None = None
    label: str = ""
    future: asyncio.Future[Any] | None = None
    version: int | None = None  # for acts: the version the sender saw
    address: str | None = None  # for starts: the client's address

    @property
    def kind(self) -> str:
        """The command's kind, or the call's label."""
        return self.label if self.command is None else self.command.kind

    @property
    def payload(self) -> dict[str, Any]:
        """The command's payload (``{}`` for a call)."""
        return {} if self.command is None else self.command.payload()


def job_of(kind: str, payload: dict[str, Any] | None = None, **fields: Any) -> Job:
    """The job of the command a mirror forwards as ``kind`` and ``payload``
    (:func:`~getaway.web.rooms.commands.requested`); ``fields``: the job's ``version``, ``address``.

    Raises:
        RoomError: ``unknown_type`` (no such command).
    """
    return Job(requested(kind, payload or {}), **fields)


class RoomHandle:
    """The runtime side of one room: its queue, worker, sockets and timers."""

    def __init__(self, room: Room, bot: Bot | None = None) -> None:
        self.room = room
        self.queue: asyncio.Queue[Job] = asyncio.Queue()
        self.conns: set[Connection] = set()
        self.worker: asyncio.Task[None] | None = None
        self.timers: dict[int, asyncio.Task[None]] = {}
        self.deadlines: dict[int, float] = {}
        self.bot_task: asyncio.Task[None] | None = None
        self.bot_key: tuple[int, int] | None = None  # (version, seat) the planned bot move is for
        self.next_task: asyncio.Task[None] | None = None
        self.bot_rng = random.Random(room.seed ^ 0x5EED_B075)
        self.bot: Bot = bot if bot is not None else make_bot(room.level)
        self.search: asyncio.Future[Any] | None = None  # the bot search running in a thread
        # the last hint asked ((version, seat, language), its answer or the search for it)
        self.hint: tuple[tuple[int, int, str], asyncio.Future[dict[str, Any]]] | None = None
        self.address = f"restored:{room.code}"  # who started the room (set by the start)
        self.slot = False  # holds one of the slots of rooms played by bots alone
        self.paused = False  # played by bots alone and no slot free: bots wait
        self.asking = False  # shared: the cluster is asked for a slot (:meth:`~.bots.Bots.ask_slot`)
        self.unlisted = False  # a rematch room while its players are seated: not in the public list yet
        self.awaited: set[int] = set()  # a rematch room's returning seats (listed once all are taken)
        self.came: set[str] = set()  # a finished room: the rematch room this process moved its sockets to
        self.moved: set[int] = set()  # … and the seats it moved (one socket each)
        self.moving: set[int] = set()  # … of which the seats whose move (a join there) is under way
        self.takes_key: int | None = None  # the version whose take window bots have decided on
        self.take_tasks: list[asyncio.Task[None]] = []  # the bots' takes planned for it
        self.window: tuple[int, float] | None = None  # (version, timer) a take window opened at
        self.window_ends: float | None = None  # when a bot's lead may end it (a human may take), or None
        self.turn_task: asyncio.Task[None] | None = None  # a human's turn timer
        self.turn_key: tuple[int, int] | None = None  # (version, seat) it runs for
        self.turn_deadline: float | None = None  # its end (:attr:`~.service.RoomService.timer`)
        self.fast: int | None = None  # the deal index being finished at once (no human left to act)
        # the trick on the table ((deal index, tricks played)) and when it was resolved (timer): its linger
        self.settled: tuple[tuple[int, int], float] | None = None
        # A room shared by many processes (web/broker.py): the lease while this process owns it;
        # ``mirror`` while another does (commands are forwarded, the room follows the log).
        self.lease: Lease | None = None
        self.mirror = False
        # owner: seats on other processes, when told, and the slowest pace of their sockets there
        self.remote: dict[str, tuple[frozenset[int], float, float]] = {}
        self.hosting: set[str] = set()  # owner: the processes of ``remote`` with a seat-less host's socket
        self.reported: frozenset[int] = frozenset()  # mirror: the seats the owner says are connected
        self.taken: Lease | None = None  # mirror: a lease the heartbeat took, for the worker to promote with
        self.orphan: asyncio.Task[None] | None = None  # mirror: waiting for a dead owner's lease to run out
        self.listed: str | None = None  # owner: its entry in the cluster's lobby, as last put there
        #: a public room made here: ``(address, member)`` of its creator's count of public rooms
        #: waiting (:meth:`~.lobby.Matchmaking.take_public`), until it leaves the lobby
        self.public: tuple[str, str] | None = None
        self.expiry: asyncio.TimerHandle | None = None  # its leaving the lobby, planned (Matchmaking.listed)
        self.quiet = 0  # mirror: heartbeats since it last had a socket here (forgotten after QUIET_BEATS)
        self.told: tuple[tuple[int, ...], bool, float] | None = None  # mirror: the presence last told
        self.told_beats = 0  # mirror: heartbeats since then
        self.owner_token: int | None = None  # mirror: the lease token of the owner whose news it heard last
        # owner of a shared room: the log entries written since its last news, which carries them
        # ([version, kind, payload, time]; a join's, with a token hash, is never carried: None)
        self.unsent: list[list[Any] | None] = []
        self.written: list[Any] | None = None  # owner of a shared room: its last entry, as news carries it

    def planned(self) -> list[asyncio.Task[None]]:
        """The tasks planned for the room (its bot move, next deal, turn timer, bots' takes and
        absence timers): what stops when the room stops running here."""
        tasks = (self.bot_task, self.next_task, self.turn_task, *self.take_tasks, *self.timers.values())
        return [task for task in tasks if task is not None]

    def local_seats(self) -> set[int]:
        """Seats with an open socket on this process."""
        return {c.seat for c in self.conns if c.seat is not None and not c.closed}

    def connected(self) -> set[int]:
        """Seats with at least one open socket (on any process of a cluster)."""
        seats = self.local_seats() | self.reported
        for remote, _when, _pace in self.remote.values():
            seats |= remote
        return seats
