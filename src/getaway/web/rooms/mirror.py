"""What the processes of a cluster tell each other of a room: the owner's news (version,
connected seats, the turn timer, an absence, a quick chat) and a mirror's presence (the seats it
has sockets for) and quick chats (told to the owner), and a mirror catching up: with the entries
the news carries, else with the log.

Owns: news, presence, the quick chat between processes and catch-up. Imports :mod:`.errors`,
:mod:`.commands`, :mod:`.frames`, :mod:`.state` and :mod:`.handles`; never :mod:`.service`.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from ...text.chat import PHRASES
from ...text.i18n import N_
from .. import protocol
from ..broker import NEWS_LOG, BrokerDown, NoOwner
from ..store import LogEntry
from .commands import Reclaim, logged
from .errors import RoomError
from .frames import encode
from .handles import PRESENCE_BEATS, Job, RoomHandle
from .state import Room

log = logging.getLogger("getaway.web")


class Mirror:
    """News and presence between the owner of a room and its mirrors."""

    def __init__(self, service: Any) -> None:
        #: the :class:`~getaway.web.rooms.service.RoomService` façade (its settings, rooms and
        #: the other components), not imported here: the arrows point to it, not from it
        self.service = service

    def presence(
        self, handle: RoomHandle, process: str, seats: frozenset[int], host: bool = False, pace: float = 1.0
    ) -> None:
        """Process ``process`` has sockets for ``seats`` of the owned room, and one of the host
        without a seat if ``host``, the slowest of them at ``pace`` (:meth:`Timers.pace`; run
        by the worker)."""
        if handle.mirror:
            return
        before = handle.connected()
        if seats or host:
            handle.remote[process] = (seats, self.service.timer(), pace)
        else:
            handle.remote.pop(process, None)
        if host:
            handle.hosting.add(process)
        else:
            handle.hosting.discard(process)
        self.seats_changed(handle, before)

    def seats_changed(self, handle: RoomHandle, before: set[int]) -> None:
        """The owner's connected seats changed from ``before`` (sockets on other processes):
        a seat back cancels its absence (and reclaims it from the bot), a seat gone starts it."""
        now = handle.connected()
        if now == before:
            return
        room = handle.room
        for seat in now - before:
            timer = handle.timers.pop(seat, None)
            if timer is not None:
                timer.cancel()
            handle.deadlines.pop(seat, None)
            if room.seats[seat].bot_playing and room.status != "closed":
                handle.queue.put_nowait(Job(Reclaim(seat)))
        announced = False
        for seat in before - now:
            announced = self.service.timers.start_absence(handle, seat, announce=True) or announced
        self.service.timers.plan_turn_timer(handle)
        if not announced:
            self.service.sockets.broadcast(handle)

    def tell_presence(self, handle: RoomHandle, *, beat: bool = False) -> None:
        """Tell the owner of a mirrored room which seats have sockets here and their slowest pace
        (in the background; the heartbeat tells it again, so a lost message is mended). ``beat``:
        the heartbeat's, sent only if that changed since last told or every
        :data:`~.handles.PRESENCE_BEATS` beats (the owner forgets them after
        :data:`~.handles.PRESENCE_STALE_BEATS`)."""
        host = any(c.host and c.seat is None and not c.closed for c in handle.conns)
        seats = sorted(handle.local_seats())
        pace = self.service.timers.local_pace(handle)
        told = (tuple(seats), host, pace)
        handle.told_beats += 1
        if beat and told == handle.told and handle.told_beats < PRESENCE_BEATS:
            return
        handle.told, handle.told_beats = told, 0
        body = {"kind": "presence", "process": self.service.broker.process, "seats": seats, "host": host, "pace": pace}

        async def tell() -> None:
            with contextlib.suppress(NoOwner, BrokerDown, TimeoutError):
                await self.service.broker.forward(handle.room.code, body, 1.0)

        self.service.background(tell())

    def tell_chat(self, handle: RoomHandle, seat: int, phrase: str) -> None:
        """Give a quick chat of a socket here to the owner of the mirrored room, which says it to
        every process's sockets (:meth:`Sockets.say`; in the background: a chat lost with its
        owner is not said again)."""
        body = {"kind": "chat", "seats": [seat], "payload": {"phrase": phrase}}

        async def tell() -> None:
            with contextlib.suppress(NoOwner, BrokerDown, TimeoutError):
                await self.service.broker.forward(handle.room.code, body, 1.0)

        self.service.background(tell())

    def publish(
        self, handle: RoomHandle, absent: tuple[int, float] | None = None, chat: tuple[int, str] | None = None
    ) -> None:
        """The owner's news for the room's mirrors: its version and public facts only (seats
        connected, seconds left of the turn timer and of a take window, an absence's deadline, a seat's quick chat).
        No card but the ones played: the entries written since the last news (``log``, at most
        :data:`NEWS_LOG`, none with a token hash), which a mirror applies instead of reading
        the log; it builds each socket's view itself."""
        if handle.lease is None:
            handle.unsent.clear()
            return
        if chat is not None:  # nothing else changed: the chat alone
            self.service.broker.publish(handle.room.code, {"v": handle.room.version, "chat": list(chat)})
            return
        news: dict[str, Any] = {
            "v": handle.room.version,
            "lease": handle.lease.token,  # a new owner's is larger: its mirrors tell it their seats at once
            "connected": sorted(handle.connected()),
            "turn_ends_in": self.service.timers.turn_left(handle),
        }
        window = self.service.timers.take_left(handle)
        if window is not None:  # a take window people may use (absent: none)
            news["take_ends_in"] = window
        if absent is not None:
            news["absent"] = list(absent)
        unsent, handle.unsent = handle.unsent, []
        if unsent and len(unsent) <= NEWS_LOG and None not in unsent and unsent[-1][0] == handle.room.version:
            news["log"] = unsent  # the mirrors apply these instead of reading the log (catch_up)
        self.service.broker.publish(handle.room.code, news)
        self.service.matchmaking.list(handle)

    def on_news(self, code: str, news: dict[str, Any]) -> None:
        """The broker heard the owner's ``news`` of room ``code``: a mirror here queues it (:meth:`heard`)."""
        handle = self.service.rooms.get(code)
        if handle is not None and handle.mirror and news.get("chat") is not None:
            seat, phrase = news["chat"]
            if 0 <= int(seat) < len(handle.room.seats) and phrase in PHRASES:
                frame = protocol.ChatFrame.model_construct(type="chat", seat=int(seat), phrase=phrase)
                text = encode(frame)
                for conn in list(handle.conns):
                    conn.send_text(text)
            return
        if handle is not None and handle.mirror:
            handle.queue.put_nowait(Job(label="news", call=lambda: self.heard(handle, news)))

    async def heard(self, handle: RoomHandle, news: dict[str, Any]) -> None:
        """The owner's news of a mirrored room (run by the worker): catch up with the log, then
        send the sockets here their updates (and an absence notice) if anything changed."""
        if not handle.mirror:
            return
        token = news.get("lease")
        if token is not None and token != handle.owner_token:  # a new owner (or the first news heard)
            handle.owner_token = token
            if handle.conns:
                self.tell_presence(handle)
        changed = await self.catch_up(handle, news.get("v"), news.get("log"))
        room = handle.room
        reported = frozenset(int(s) for s in news.get("connected", ()))
        if reported != handle.reported:
            handle.reported, changed = reported, True
        left = news.get("turn_ends_in")
        if news.get("v") == room.version:
            key = (room.version, room.to_act()) if left is not None else None
            if key != handle.turn_key or left is not None:
                handle.turn_key = key
                handle.turn_deadline = None if left is None else self.service.timer() + float(left)
                changed = True
        if news.get("v") == room.version:  # the owner's take window, shown to the sockets here
            window = news.get("take_ends_in")
            ends = None if window is None else self.service.timer() + float(window)
            changed = changed or (handle.window_ends is None) != (ends is None)
            if not room.take_window():  # as the owner's (Timers.plan_takes): no window, no hold
                handle.window = None
            elif handle.window is None or handle.window[0] != room.version:
                handle.window = (room.version, self.service.timer())
            handle.window_ends = ends
        if changed and room.status != "closed":
            self.service.sockets.broadcast(handle)
        absent = news.get("absent")
        if absent is not None and not 0 <= int(absent[0]) < len(room.seats):
            log.warning("room %s: dropped news of an absence of seat %s it does not have", room.code, absent[0])
        elif absent is not None:
            frame = protocol.Absent.model_construct(type="absent", seat=int(absent[0]), deadline=float(absent[1]))
            text = encode(frame)
            for conn in list(handle.conns):
                conn.send_text(text)

    async def catch_up(
        self, handle: RoomHandle, version: int | None = None, carried: list[list[Any]] | None = None
    ) -> bool:
        """Apply to a mirrored (or newly owned) room the commands the log holds beyond its
        version; whether there were any. A close closes the sockets here (``closed``).

        From news of ``version`` (the owner's): nothing is read when the room is there already,
        and the entries the news ``carried`` (``[version, kind, payload, time]``, the owner's
        last ones) are applied without reading the log when they reach from the room's version
        to ``version``; else (news missed, a join) the log is read."""
        room = handle.room
        if version is not None and version <= room.version:
            return False
        entries = _carried(room.version, version, carried)
        if entries is None:
            entries = await self.service.reads.in_reader(self.service.store.log_after, room.code, room.version)
        if not entries:
            return False
        room.replaying = True
        try:
            for entry in entries:
                if entry.version != room.version + 1:
                    raise RoomError("corrupt_log", N_("room log: version {v} out of order"), 500, v=entry.version)
                room.apply(logged(entry.kind, entry.payload), entry.time)
        except RoomError:  # a gap (read mid-commit) or a refusal: rebuild from the whole log
            stored = await self.service.worker.in_db(self.service.store.load_room, room.code)
            room = handle.room = Room.restore(stored)
        finally:
            room.replaying = False
        if any(entry.kind == "rematch" for entry in entries):
            self.service.sockets.rematch_made(handle)
        if room.status == "closed" and handle.mirror:
            reason = next((e.payload.get("reason") for e in reversed(entries) if e.kind == "close"), "closed")
            closed = encode(protocol.Closed.model_construct(type="closed", reason=reason))
            for conn in list(handle.conns):
                conn.send_text(closed)
                conn.close()
        return True


def _carried(after: int, version: int | None, carried: list[list[Any]] | None) -> list[LogEntry] | None:
    """The entries of ``carried`` (news of ``version``) beyond version ``after``, if they go on from
    ``after`` to ``version`` without a gap; ``None`` when the log must be read instead."""
    if version is None or not carried:
        return None
    entries = [LogEntry(*entry) for entry in carried if entry[0] > after]
    if not entries or entries[0].version != after + 1 or entries[-1].version != version:
        return None
    return entries
