"""The sockets of the rooms: a ``hello`` attaching a socket, a closed one detached, a client
message handled, and the frames each socket gets (``welcome``/``sync``, ``update`` built from
its own seat's view, ``hint``).

Owns: the per-connection frames and broadcasts. Imports :mod:`.errors`, :mod:`.checks`,
:mod:`.commands`, :mod:`.frames`, :mod:`.state` and :mod:`.handles`; never :mod:`.service`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Literal, get_args

from ...core.events import IllegalActionError
from ...core.messages import addressed, seat_numbers
from ...core.view import PlayerView
from ...text import i18n
from ...text.i18n import N_
from ...text.narrate import Narrator
from .. import protocol
from .checks import check_lang
from .commands import Act, Finish, NextDeal, Reclaim, Start
from .errors import RoomError
from .frames import PONG, encode
from .handles import Connection, Job, RoomHandle
from .state import Room

log = logging.getLogger("getaway.web")


class Sockets:
    """Attach, detach, messages and broadcasts of every room's sockets."""

    def __init__(self, service: Any) -> None:
        #: the :class:`~getaway.web.rooms.service.RoomService` façade (its settings, rooms and
        #: the other components), not imported here: the arrows point to it, not from it
        self.service = service

    async def attach(self, handle: RoomHandle, hello: dict[str, Any], address: str = "?") -> Connection:
        """Register a socket (of client ``address``) after its ``hello``; sends it ``welcome``.

        Raises:
            RoomError: ``bad_token`` (a token that is neither a seat's nor the host's),
                ``bad_message`` (bad language or neither token nor spectate).
        """
        if handle.mirror:  # a seat joined on another process a moment ago must be known here
            await self.service.submit(handle, Job(label="catch_up", call=lambda: self.service.mirror.catch_up(handle)))
        return await self.service.submit(handle, Job(label="hello", call=lambda: self.hello(handle, hello, address)))

    def hello(self, handle: RoomHandle, hello: dict[str, Any], address: str = "?") -> Connection:
        """The ``hello`` of a socket (run by the worker): its seat and host right proved by its
        token, its absence timer stopped, ``welcome`` sent, its seat reclaimed from a bot.

        Raises:
            RoomError: ``bad_token`` (403), ``bad_message``.
        """
        room = handle.room
        lang = check_lang(hello.get("lang", "en"))
        token = hello.get("token")
        seat: int | None = None
        host = False
        if token is not None:
            if not isinstance(token, str) or len(token) > 200:
                raise RoomError("bad_token", N_("unknown token"), 403)
            seat = room.seat_of(token)
            host = room.is_host_token(token)
            if seat is None and not host:
                raise RoomError("bad_token", N_("unknown token"), 403)
        elif hello.get("spectate") is not True:
            raise RoomError("bad_message", N_("hello needs a token or spectate: true"))
        speed = hello.get("speed") or "normal"
        if speed not in get_args(protocol.Speed):
            raise RoomError("bad_message", N_("unknown speed {speed!r}"), speed=str(speed)[:20])
        conn = Connection(seat, host, lang, address)
        conn.speed = speed
        if host and seat is None:
            conn.host_token = token
        handle.conns.add(conn)
        if handle.mirror:  # the owner hears of the seat (presence), reclaims it, and tells everyone
            conn.send(self.full(handle, conn, "welcome"))
            self.service.mirror.tell_presence(handle)
            return conn
        if seat is not None:
            timer = handle.timers.pop(seat, None)
            if timer is not None:
                timer.cancel()
            handle.deadlines.pop(seat, None)
            self.service.timers.plan_turn_timer(handle)
            self.service.timers.window_for_people(handle)  # in the welcome, and for everyone below
        conn.send(self.full(handle, conn, "welcome"))
        if seat is not None and room.seats[seat].bot_playing and room.status != "closed":
            handle.queue.put_nowait(Job(Reclaim(seat)))
        else:
            self.broadcast(handle, skip=conn)  # "connected" changed
        return conn

    async def detach(self, handle: RoomHandle, conn: Connection) -> None:
        """Forget a closed socket; the seat's last socket gone starts its absence timer."""
        conn.close()

        def gone() -> None:
            handle.conns.discard(conn)
            if handle.mirror:
                self.service.mirror.tell_presence(handle)
                return
            seat = conn.seat
            if seat is not None and seat not in handle.connected():
                if self.service.timers.start_absence(handle, seat, announce=True):
                    return
                self.broadcast(handle)

        handle.queue.put_nowait(Job(label="gone", call=gone))

    async def message(self, handle: RoomHandle, conn: Connection, msg: protocol.ClientMessage) -> None:
        """Handle one parsed client message of an attached socket (``act``, ``back``, ``finish``,
        ``start``, ``next``, ``lang``, ``speed``, ``ping``, ``hint``, ``chat``; the app answers ``hello`` and
        ``rematch`` itself, and counts a ``chat`` against its seat's limit); errors go back to
        that socket only."""
        room = handle.room
        match msg:
            case protocol.Ping():
                conn.send_text(PONG)
                return
            case protocol.SetSpeed(speed=speed):
                conn.speed = speed  # read when a bot's move or a lead is timed (Timers.pace)
                if handle.mirror:  # the owner times the room: it hears of the pace at once
                    self.service.mirror.tell_presence(handle)
                return
            case protocol.SetLang(lang=lang):
                handle.queue.put_nowait(Job(label="lang", call=lambda: self.relang(handle, conn, lang)))
                return
            case protocol.AskHint():
                await self.hint(handle, conn)
                return
            case protocol.Chat(phrase=phrase):
                self.chat(handle, conn, phrase)
                return
            case protocol.Act() | protocol.Back() | protocol.Finish() if conn.seat is None:
                conn.error(RoomError("spectator", N_("spectators cannot play")), room.version)
                return
            case protocol.Finish():
                job = Job(Finish())
            case protocol.Back() | protocol.Act() if msg.type == "back" or room.seats[conn.seat].bot_playing:
                if room.seats[conn.seat].bot_playing:  # away (timed out): acting again brings them back
                    with contextlib.suppress(RoomError):
                        await self.service.submit(handle, Job(Reclaim(conn.seat)))
                return
            case protocol.Act(action=action, version=version):
                job = Job(Act(conn.seat, action, False), version=version)
                await self.service.timers.hold_lead(handle, action, conn.seat)
            case protocol.Start() | protocol.Next() if not conn.host:
                conn.error(RoomError("not_host", N_("only the host can do this"), 403), room.version)
                return
            case protocol.Start():
                job = Job(Start(), address=conn.address)
            case protocol.Next():
                job = Job(NextDeal(), address=conn.address)
            case _:
                conn.error(RoomError("unknown_type", N_("unknown message type")), room.version)
                return
        try:
            await self.service.submit(handle, job)
        except RoomError as exc:
            conn.error(exc, room.version)

    async def hint(self, handle: RoomHandle, conn: Connection) -> None:
        """Answer a ``hint`` (web/hints.py: searched in a bot worker process when there is a
        :attr:`RoomService.botpool`, else in a thread) to this socket only; nothing is broadcast, and
        nothing of it is logged but a fallback's room and seat."""
        from ..hints import hint_for, hints_allowed

        room = handle.room
        version = room.version
        view = room.view(conn.seat)
        if not hints_allowed(room.config):
            error = RoomError("hints_off", N_("the host switched hints off for this room"))
        elif conn.seat is None:
            error = RoomError("spectator", N_("spectators cannot play"))
        elif view is None or view.outcome is not None or view.to_act != conn.seat or not view.legal_actions:
            error = RoomError("not_your_turn", N_("a hint is for your own decision: it is not your turn"))
        else:
            # One search per decision: asked again (or by a flood of asks), the same answer comes
            # from the room's last hint, or from the search still running for it.
            key = (version, conn.seat, conn.lang)
            if handle.hint is None or handle.hint[0] != key:
                handle.hint = (
                    key,
                    asyncio.ensure_future(hint_for(view, conn.seat, conn.lang, self.service.botpool, room.code)),
                )
            hint = await asyncio.shield(handle.hint[1])
            conn.send(protocol.Hint.model_construct(**hint, version=version))
            return
        conn.error(error, version)

    def chat(self, handle: RoomHandle, conn: Connection, phrase: str) -> None:
        """A quick chat of ``conn``'s seat (a key of :data:`getaway.text.chat.PHRASES`): refused
        for a spectator (``spectator``, nothing sent); else said to the room (:meth:`say`), by its
        owner when the room is another process's (:meth:`Mirror.tell_chat`). Not a command: not
        logged, no version, nothing of any card."""
        if conn.seat is None:
            conn.error(RoomError("spectator", N_("spectators cannot chat")), handle.room.version)
        elif handle.mirror:
            self.service.mirror.tell_chat(handle, conn.seat, phrase)
        else:
            self.say(handle, conn.seat, phrase)

    def say(self, handle: RoomHandle, seat: int, phrase: str) -> None:
        """Send every socket of the room here a ``chat`` of ``seat`` (and tell the other
        processes' sockets: :meth:`Mirror.publish`)."""
        text = encode(protocol.ChatFrame.model_construct(type="chat", seat=seat, phrase=phrase))
        for conn in list(handle.conns):
            conn.send_text(text)
        self.service.mirror.publish(handle, chat=(seat, phrase))

    def relang(self, handle: RoomHandle, conn: Connection, lang: Any) -> None:
        """Switch ``conn`` to language ``lang`` and send it a ``sync`` (a bad language: an ``error``)."""
        try:
            conn.lang = check_lang(lang)
        except RoomError as exc:
            conn.error(exc, handle.room.version)
            return
        conn.narrator = None
        conn.send(self.full(handle, conn, "sync"))

    def full(self, handle: RoomHandle, conn: Connection, kind: Literal["welcome", "sync"]) -> protocol.Welcome:
        """``welcome`` / ``sync``: the whole state as ``conn`` may see it, narration of this deal."""
        room = handle.room
        view = room.view(conn.seat)
        conn.deal_index = room.deal_index
        conn.narrator = None
        lines: list[str] = []
        if view is not None:
            lines = self.narrate(room, conn, view, 0)
        return protocol.Welcome.model_construct(
            type=kind,
            seat=conn.seat,
            host=conn.host,
            room=room.public(handle.connected()),
            view=None if view is None else view.to_dict(),
            illegal=self.illegal(room, conn, room.illegal(conn.seat)),
            version=room.version,
            log=lines,
            turn_ends_in=self.service.timers.turn_left(handle),
            take_ends_in=self.service.timers.take_left(handle),
        )

    @staticmethod
    def illegal(room: Room, conn: Connection, reasons: dict[str, IllegalActionError]) -> list[dict[str, Any]]:
        """``illegal`` of a message: for each card of the hand that may not be played now,
        ``{"card", "reason": the engine's code, "text": its message in the connection's
        language}``, spoken to the player (:func:`getaway.core.messages.addressed`: "You hold a ♠:
        you must follow suit"), seats counted from 1 as the page shows them."""
        if not reasons:
            return []
        labels = seat_numbers(room.rules.players)
        with i18n.language(conn.lang):
            return [
                {
                    "card": card,
                    "reason": why.reason,
                    "text": i18n.localize(addressed(why.params["message"], conn.seat), labels),
                }
                for card, why in reasons.items()
            ]

    def narrate(self, room: Room, conn: Connection, view: PlayerView, start: int) -> list[str]:
        """The sentences of ``view``'s events from ``start`` on, in ``conn``'s language (its narrator
        follows the deal)."""
        new = view.history[start:]
        conn.seen = len(view.history)
        with i18n.language(conn.lang):
            if conn.narrator is None:
                conn.narrator = Narrator(room.shown_names(), room.rules.special_first_trick)
            return conn.narrator.feed(new)

    def rematch_made(self, handle: RoomHandle) -> None:
        """This process applied the finished room's ``rematch`` (as its owner, a mirror catching
        up, or a new owner rebuilding it): its sockets come along
        (:meth:`~.lobby.Matchmaking.come_along`, in the background), then each seated socket here
        that it did not tell gets its answer too (:meth:`answer_rematch`)."""
        made = handle.room.rematch
        if made is None or made["code"] in handle.came:
            return
        handle.came.add(made["code"])
        conns = list(handle.conns)

        async def along() -> None:
            await self.service.matchmaking.come_along(handle, conns)
            self.answer_rematch(handle, conns)

        self.service.background(along())

    @staticmethod
    def answer_rematch(handle: RoomHandle, conns: list[Connection]) -> None:
        """Every seated human's socket of ``conns`` gets a ``rematch`` message, also when its
        seat came along with another socket (issue 29 item 5: a seat with sockets in two tabs, on
        one process or two): the same message as that socket's (same seat token: the same
        player) if it is here, else one without a token (the seat there is held by its socket on
        another process, whose token never leaves that process; a page of the same browser finds
        it in its storage). A socket told already, a spectator, a bot's seat or a seat being moved
        here (:attr:`~.handles.RoomHandle.moving`: that move tells its sockets): nothing."""
        made = handle.room.rematch
        if made is None:
            return
        code = made["code"]
        told = {c.seat: c.rematch for c in conns if c.rematch is not None and c.rematch.code == code}
        for c in conns:
            if c.closed or c.seat is None or (c.rematch is not None and c.rematch.code == code):
                continue
            if c.seat in handle.moving:
                continue
            if handle.room.seats[c.seat].kind != "human":
                continue
            frame = told.get(c.seat)
            if frame is None:
                fields = {"code": code, "url": f"/r/{code}", "seat": c.seat, "token": None, "host_token": None}
                frame = protocol.Rematch.model_construct(type="rematch", **fields)
            c.send(frame)

    def broadcast(self, handle: RoomHandle, skip: Connection | None = None) -> None:
        """Send every socket of the room an ``update`` built from its own seat's view (the owner
        of a shared room also tells the other processes: :meth:`Mirror.publish`)."""
        room = handle.room
        self.service.mirror.publish(handle)
        if not any(not c.closed and c is not skip for c in handle.conns):
            return  # nobody to tell (a bot-only room): skip building views
        public = room.public(handle.connected())
        views: dict[int | None, tuple[PlayerView | None, dict[str, Any] | None]] = {}
        reasons: dict[int | None, dict[str, IllegalActionError]] = {}
        turn_ends_in = self.service.timers.turn_left(handle)
        take_ends_in = self.service.timers.take_left(handle)
        for conn in list(handle.conns):
            if conn is skip or conn.closed:
                continue
            if conn.seat not in views:
                view = room.view(conn.seat)
                views[conn.seat] = (view, None if view is None else view.to_dict(history=False))
                reasons[conn.seat] = room.illegal(conn.seat)
            view, view_dict = views[conn.seat]
            events: list[dict[str, Any]] = []
            lines: list[str] = []
            if view is not None:
                if conn.deal_index != room.deal_index:  # a new deal: its history starts afresh
                    conn.deal_index = room.deal_index
                    conn.narrator = None
                    conn.seen = 0
                start = conn.seen
                events = [e.to_dict() for e in view.history[start:]]
                lines = self.narrate(room, conn, view, start)
            frame = protocol.Update.model_construct(
                type="update",
                version=room.version,
                room=public,
                view=view_dict,
                events=events,
                history_length=0 if view is None else len(view.history),
                illegal=self.illegal(room, conn, reasons[conn.seat]),
                log=lines,
                turn_ends_in=turn_ends_in,
                take_ends_in=take_ends_in,
            )
            conn.send_text(encode(frame))
