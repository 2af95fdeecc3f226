"""The lobby and the rematch: the public rooms waiting with a free seat (this process's, or the
cluster's), quick play, and the rematch room of a finished match with its players moved there.

One visitor cannot fill the lobby (docs/web.md "Lobby"): a client address may have made at most
``public_rooms_per_address`` public rooms waiting there at once (with many processes, counted in
the whole cluster: the broker's slots of group :data:`PUBLIC`); a public room leaves the lobby
``lobby_expiry`` seconds after its last seat was taken (it can still be joined by its code); and
quick play seats a player only in a room still waiting there, as one more host of it (they may
start it), and starts the room when theirs was its last free seat.

Owns: listing, the count of public rooms per address, quick play and rematch. Imports
:mod:`.errors`, :mod:`.checks`, :mod:`.commands`, :mod:`.state` and :mod:`.handles`; never
:mod:`.service`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from typing import Any, Final

from pydantic import BaseModel

from ...text.i18n import N_
from .. import protocol
from ..broker import BrokerDown
from .checks import check_name, hash_token, new_token
from .commands import AskRematch, Join, Rematch
from .errors import RoomError
from .handles import Connection, Job, RoomHandle
from .state import Room, listing

log = logging.getLogger("getaway.web")

#: Seconds a rematch room stays out of the lobby at most while its returning players are seated
#: again (each by the process their socket is on): then it is listed even if one never came.
REMATCH_WAIT: Final = 10.0
#: The broker's slot group counting each client address's public rooms waiting in the lobby.
PUBLIC: Final = "public"


class _Listed(BaseModel):
    """A room's entry in the cluster's lobby as its owner writes it (:meth:`Matchmaking.list`)."""

    entry: dict[str, Any]  # listing(room): its "code" checked below
    created: float
    updated: float | None = None  # None: written by a process of before the lobby's expiry


def _listed(text: str) -> _Listed | None:
    """The lobby entry ``text`` read from the broker, or ``None`` (one line logged) when it is not
    the shape the processes write: the broker checks that an entry is authentic (a MAC made
    with the cluster's secret), not that it is well formed."""
    try:
        listed = _Listed.model_validate_json(text)
        if not isinstance(listed.entry.get("code"), str):
            raise ValueError("entry.code: not a room code")
    except ValueError as exc:  # pydantic's ValidationError too
        log.warning("lobby: dropped a malformed lobby entry: %s", str(exc).splitlines()[0])
        return None
    return listed


class Matchmaking:
    """Public rooms, quick play and rematches."""

    def __init__(self, service: Any) -> None:
        #: the :class:`~getaway.web.rooms.service.RoomService` façade (its settings, rooms and
        #: the other components), not imported here: the arrows point to it, not from it
        self.service = service
        #: the public rooms waiting counted here, by client address (their members: one process
        #: alone, or the broker unreachable when the room was made)
        self.waiting: dict[str, set[str]] = {}

    def expired(self, room: Room) -> bool:
        """Whether ``room`` has waited ``lobby_expiry`` seconds since its last seat was taken (or
        since it was made): a room in its lobby changes only by joins."""
        return self.service.clock() - room.updated >= self.service.lobby_expiry

    def entry(self, handle: RoomHandle) -> dict[str, Any] | None:
        """The room's lobby entry now (:func:`listing`), or ``None``: not listed (private,
        started, full, a rematch room whose players are not back yet, or :meth:`expired`)."""
        if handle.unlisted:
            return None
        found = listing(handle.room)
        return None if found is None or self.expired(handle.room) else found

    def public_rooms(self, limit: int = 50) -> list[dict[str, Any]]:
        """The public rooms waiting in their lobby with a free seat (:meth:`entry`), oldest
        first, at most ``limit``. Every unfinished room is in memory (:meth:`RoomService.start` rebuilds
        them), so this reads no database."""
        handles = sorted(self.service.rooms.values(), key=lambda h: (h.room.created, h.room.code))
        found = [entry for entry in map(self.entry, handles) if entry is not None]
        return found[:limit]

    async def lobby(self, limit: int = 50) -> list[dict[str, Any]]:
        """:meth:`public_rooms`, of the whole cluster when many processes share the rooms (each
        owner keeps its rooms' entries in the broker: :meth:`list`); this process's own while
        the broker cannot be reached."""
        if not self.service.shared:
            return self.public_rooms(limit)
        try:
            texts = await self.service.broker.lobby()
        except BrokerDown:
            return self.public_rooms(limit)
        entries = [listed for listed in map(_listed, texts) if listed is not None]
        # an owner that died (or restarted) before taking its expired rooms out: not shown
        oldest = self.service.clock() - self.service.lobby_expiry
        entries = [e for e in entries if (e.updated or e.created) > oldest]
        entries.sort(key=lambda e: (e.created, e.entry["code"]))
        return [e.entry for e in entries][:limit]

    def list(self, handle: RoomHandle) -> None:
        """The owner puts the room in the cluster's lobby, or takes it out, when that changed."""
        entry = self.entry(handle)
        room = handle.room
        text = None if entry is None else json.dumps({"entry": entry, "created": room.created, "updated": room.updated})
        if text != handle.listed:
            handle.listed = text
            self.service.background(self.put_listing(handle.room.code, text))

    async def put_listing(self, code: str, text: str | None) -> None:
        """Put room ``code``'s lobby entry ``text`` in the broker (``None``: take it out)."""
        with contextlib.suppress(BrokerDown):
            await self.service.broker.list_room(code, text)

    def listed(self, handle: RoomHandle) -> None:
        """After each command of a room (and once it is made): the owner puts it in the cluster's
        lobby or takes it out (:meth:`list`); while it waits there, its leaving the lobby is
        planned for when it :meth:`expired` (a job of its worker, which comes back here); once it
        is no longer there, its creator's count of public rooms frees (:meth:`free_public`)."""
        if handle.lease is not None:
            self.list(handle)
        if self.entry(handle) is None:
            self.forgotten(handle)  # out of the lobby: nothing more to plan or count
            return
        if handle.expiry is not None:
            handle.expiry.cancel()
        left = handle.room.updated + self.service.lobby_expiry - self.service.clock()
        wake = Job(label="lobby_expiry", call=lambda: self.listed(handle))
        handle.expiry = asyncio.get_running_loop().call_later(max(0.0, left), handle.queue.put_nowait, wake)

    def forgotten(self, handle: RoomHandle) -> None:
        """Room ``handle`` left the lobby, or is dropped from this process: its planned expiry
        stops, its creator's count frees."""
        if handle.expiry is not None:
            handle.expiry.cancel()
            handle.expiry = None
        if handle.public is not None:
            self.free_public(handle.public)
            handle.public = None

    async def take_public(self, address: str) -> tuple[str, str]:
        """Count one more public room waiting in the lobby made by client ``address`` (with many
        processes, in the whole cluster: the broker's slot group :data:`PUBLIC`, held and renewed
        by this process until the room leaves the lobby); ``(address, member)`` to free it with.

        Raises:
            RoomError: ``too_many_public_rooms`` (409: ``public_rooms_per_address`` of them
                wait already; nothing counted).
        """
        cap = self.service.public_rooms_per_address
        member = secrets.token_hex(8)
        taken: bool | None = None
        if self.service.shared:
            try:
                taken = await self.service.broker.take_slot(PUBLIC, address, member, cap)
            except BrokerDown:  # counted here only meanwhile
                taken = None
            if taken:
                self.service.cluster.slots.add((PUBLIC, address, member))
        if taken is None:
            mine = self.waiting.setdefault(address, set())
            taken = len(mine) < cap
            if taken:
                mine.add(member)
        if not taken:
            template = N_("too many of your public rooms are waiting for players (at most {n}): start one, or wait")
            raise RoomError("too_many_public_rooms", template, 409, n=cap)
        return address, member

    def free_public(self, public: tuple[str, str]) -> None:
        """A public room counted by :meth:`take_public` (its ``(address, member)``) left the lobby."""
        address, member = public
        mine = self.waiting.get(address)
        if mine is not None:
            mine.discard(member)
            if not mine:
                del self.waiting[address]
        slot = (PUBLIC, address, member)
        if slot in self.service.cluster.slots:
            self.service.cluster.slots.discard(slot)
            self.service.background(self.service.cluster.free_shared_slot(*slot))

    def quick_seat(self, handle: RoomHandle, join: Join) -> Join:
        """The join a quick play's ``join`` becomes at the room's owner (run by its worker): the
        player sits in the first free seat as one more host of the room (their seat's token can
        start it, not close it: :meth:`Room.may_close <.state.Room.may_close>`), if it still
        waits in the lobby (:meth:`entry`); the worker starts the room when that seat was its
        last free one. So no room anyone made can keep a quick player waiting for a host who
        never starts it.

        Raises:
            RoomError: ``not_waiting`` (409: private, started, full, closed or expired).
        """
        if self.entry(handle) is None:
            raise RoomError("not_waiting", N_("this room is no longer waiting for players in the lobby"), 409)
        return Join(None, join.name, join.token_hash, True, True)

    async def quick_play(self, name: Any, address: str = "?") -> dict[str, Any]:
        """Seat ``name`` in a public room waiting in the lobby with a free seat (the fullest
        first, then the oldest) as one more host of it, the room started at once if that was
        its last free seat (:meth:`quick_seat`); or, when none will take it, create a public
        room (default options, empty seats played by bots at the start) with ``name`` as host,
        counted against client ``address``'s public rooms.

        Returns:
            ``{"code", "url", "seat", "token", "host_token", "created"}`` (joining a room, the
            seat's token is also its ``host_token``).

        Raises:
            RoomError: ``name_too_long``, ``bad_message`` (a bad name), ``too_many_public_rooms``
                (409: none would take it, and ``address`` has its public rooms waiting already).
        """
        name = check_name(name)
        waiting = sorted(await self.lobby(), key=lambda r: r["free"])  # stable: the oldest first among equals
        for entry in waiting:
            try:
                joined = await self.service.join(entry["code"], name, quick=True, address=address)
            except RoomError:  # filled, started, closed or expired meanwhile, or the name is taken there
                continue
            found = {"code": entry["code"], "url": entry["url"], "created": False}
            return {**found, **joined, "host_token": joined["token"]}  # a host seat's token is a host token
        created = await self.service.create({"public": True}, name, address)
        return {**created, "created": True}

    async def rematch(self, handle: RoomHandle, conn: Connection) -> None:
        """A new room for a finished match, asked on socket ``conn`` (a seated human, or the
        host): the same configuration, every connected human in the same seat (the host stays
        host, else the one who asked), bot seats left to bots (and the seats of humans gone).
        Each human's socket gets a ``rematch`` message with its own new seat token only (the
        host's also with a host token); nothing else is sent.

        The room is made by the finished room's owner (a mirror's ask is forwarded to it like
        any command) and logged there as its ``rematch`` command, so it is made once in the
        whole cluster; every process that applies that entry (the owner, each mirror catching
        up, a new owner rebuilding the room) moves its own sockets (:meth:`come_along`).

        Raises:
            RoomError: ``not_finished`` (409: the match is not over), ``spectator`` (neither a
                seat nor the host), ``rematch_made`` (409: already made; the asker is moved to
                that room if their socket was not, since tokens are never kept), ``server_error``.
        """
        if handle.room.status != "finished":
            raise RoomError("not_finished", N_("the match is not over"), 409)
        if conn.seat is None and not conn.host:
            raise RoomError("spectator", N_("spectators cannot play"))
        try:
            await self.service.submit(handle, Job(AskRematch(conn.seat, conn.host)))
        except RoomError as exc:
            if exc.code == "rematch_made" and handle.room.rematch is not None:
                await self.come_along(handle, [conn])
            raise

    async def make_rematch(self, handle: RoomHandle, asker: AskRematch) -> Rematch:
        """The owner makes the rematch room of finished ``handle`` asked by ``asker`` (the seat
        and host flag of the asking socket, on any process) and returns the :class:`Rematch`
        command to log (run by the room's worker, before the command is logged).

        Who is there is the owner's: the seats connected on any process (and the asker's). The
        host stays host: a seated host's seat is host there (its new seat token is its host
        token); a seat-less host keeps this room's host token (its socket holds it); with the
        host gone, the asker's seat. The new room is left out of the lobby until those seats are
        taken again (or :data:`REMATCH_WAIT` has passed).

        Raises:
            RoomError: ``not_finished``, ``rematch_made``, ``server_error``.
        """
        room = handle.room
        room.check_rematch()
        seat = asker.seat
        present = handle.connected() | ({seat} if isinstance(seat, int) else set())
        back = {i for i in present if 0 <= i < len(room.seats) and room.seats[i].kind == "human"}
        hosts = sorted(i for i in back if room.seats[i].host)
        if hosts:
            host: int | None = hosts[0]
        elif (seat is None and asker.host) or self.seatless_host(handle):
            host = None
        else:
            host = seat if seat in back else None
        host_hash = room.host_hash if host is None else hash_token(new_token())  # a seat's token hosts it
        new = await self.service.new_room(dict(room.config), host_hash)
        new.unlisted, new.awaited = True, back  # a stranger's quick play must not take a returning seat

        listed = Job(label="listed", call=lambda: self.seated_again(new, force=True))
        asyncio.get_running_loop().call_later(REMATCH_WAIT, new.queue.put_nowait, listed)
        return Rematch(new.room.code, host)

    def seated_again(self, handle: RoomHandle, *, force: bool = False) -> None:
        """A rematch room is listed once its returning seats are taken (or ``force``)."""
        if not handle.unlisted:
            return
        if force or all(handle.room.seats[i].kind != "empty" for i in handle.awaited):
            handle.unlisted = False
            self.listed(handle)  # in the (cluster's) lobby now

    def seatless_host(self, handle: RoomHandle) -> bool:
        """Whether the room's host has a socket without a seat here or on another process."""
        if any(c.host and c.seat is None and not c.closed for c in handle.conns):
            return True
        return any(p in handle.remote for p in handle.hosting)

    async def come_along(self, handle: RoomHandle, conns: list[Connection]) -> None:
        """Sit the humans of sockets ``conns`` (this process's) of finished room ``handle`` in
        its rematch room (:attr:`Room.rematch`), each in their seat (joined with a token made
        here: only its hash leaves this process), and send each its own ``rematch`` message; a
        seat-less host's socket gets the host token it said hello with (the rematch room keeps
        it). A seat moved already from this process, or taken there (from another process), or
        a room closed or started meanwhile: nothing is sent to that socket."""
        room = handle.room
        made = room.rematch
        assert made is not None
        code, host = made["code"], made["host"]
        url = f"/r/{code}"
        seated: dict[int, Connection] = {}
        for c in conns:
            if not c.closed and c.seat is not None and room.seats[c.seat].kind == "human":
                seated.setdefault(c.seat, c)
        for seat, c in sorted(seated.items()):
            if seat in handle.moved:
                continue
            handle.moved.add(seat)
            handle.moving.add(seat)  # its sockets here are told by this move, not by answer_rematch
            try:
                joined = await self.service.join(code, room.seats[seat].name, seat, host=seat == host)
            except RoomError:
                continue
            finally:
                handle.moving.discard(seat)
            own = joined["token"] if seat == host else None  # a host seat's token is a host token
            seat_token = joined["token"]
            c.send(made_frame(code=code, url=url, seat=joined["seat"], token=seat_token, host_token=own))
            # the seat's other sockets here (another tab) get the same message
            self.service.sockets.answer_rematch(handle, [x for x in list(handle.conns) if x.seat == seat])
        if host is not None:
            return
        for c in conns:
            if c.seat is None and c.host and c.host_token is not None and not c.closed:
                token, c.host_token = c.host_token, None  # told once
                c.send(made_frame(code=code, url=url, seat=None, token=None, host_token=token))


def made_frame(**fields: Any) -> protocol.Rematch:
    """The ``rematch`` frame of one socket: the rematch room's ``code``, ``url``, and this
    socket's ``seat``, ``token`` and ``host_token``."""
    return protocol.Rematch.model_construct(type="rematch", **fields)
