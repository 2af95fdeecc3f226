"""The clocks of a room, in one place: the planner run after every command (:meth:`Timers.schedule`:
a bot's move, the bots' takes, a human's turn timer, the next deal of a room without a host),
the absence timer of a seat whose player left, the idle sweep, a lead held in a take window,
the take window a bot's lead waits for while a connected human may take (``take_window``), and
the room's pace: the linger of a finished trick before the next lead and the bots' delay, both
scaled by the slowest speed among the room's sockets (:meth:`Timers.pace`, docs/web.md "Pace").

Owns: those timers (their tasks live on the :class:`~.handles.RoomHandle`). Imports
:mod:`.errors`, :mod:`.commands`, :mod:`.frames` and :mod:`.handles`; never :mod:`.service`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Final

from ...core.events import PASS, TAKE
from .. import protocol
from .commands import Absent, Close, NextDeal
from .errors import RoomError
from .frames import encode
from .handles import Job, RoomHandle

log = logging.getLogger("getaway.web")

#: The moment of a take window (after a trick, as a share of the bot delay) at which bots
#: announce their takes, whatever they hold: no timing tells their thinking (docs/web.md "Takes").
TAKE_MOMENT: Final = 0.5

#: The factor each speed a page may tell (``hello``'s or ``speed``'s ``speed``) puts on the
#: linger and the bots' delay: the page's own (static/motion.js ``SPEEDS``; a test checks both agree).
PACES: Final = {"relaxed": 1.6, "normal": 1.0, "fast": 0.6}

#: Seconds a finished trick stays on the table at the normal speed before the page sweeps it
#: away (static/table.js ``LINGER``, the same 1.3 s: a test checks both agree).
LINGER: Final = 1.3

#: Seconds of that sweep (the cards flying to the pile, 0.48 s in static/motion.js) the next lead
#: waits for too: the page's own timer sweeps the trick, so a page that heard of it a moment late
#: (a slow network, a busy phone) still shows it ``LINGER`` before the lead covers it.
SWEEP: Final = 0.4

#: Seconds from a trick's end to the next lead at the normal speed while a person watches.
LEAD_HOLD: Final = LINGER + SWEEP


class Timers:
    """Turn, take, absence, idle and auto-next timers of every room."""

    def __init__(self, service: Any) -> None:
        #: the :class:`~getaway.web.rooms.service.RoomService` façade (its settings, rooms and
        #: the other components), not imported here: the arrows point to it, not from it
        self.service = service
        self.sweeper: asyncio.Task[None] | None = None  # the idle sweep

    async def hold_lead(self, handle: RoomHandle, action: Any, seat: int | None = None) -> None:
        """Hold a human's move made in a take window (a lead; a take is never held) until the
        window has lasted the bot delay, as a bot's lead would: whoever leads, the bots have
        the same time to take (docs/web.md "Takes"). A human's lead is not held for the
        room's ``take_window`` (that is the time a bot's lead waits for people): their own lead
        ends it. A lead of ``seat`` while another socket than that seat's watches the room is
        also held until the finished trick has lingered (:meth:`linger_left`: the others see
        it as long as before a bot's lead). A take made meanwhile moves the room on, and the held
        move is then refused as stale."""
        window = handle.window
        if action == "take":
            return
        wait = 0.0
        if window is not None and window[0] == handle.room.version:
            wait = window[1] + self.delay(handle) - self.service.timer()
        others = any(c.seat != seat for c in handle.conns if not c.closed) or bool(handle.connected() - {seat})
        if seat is not None and others:
            wait = max(wait, self.linger_left(handle))
        if wait > 0:
            await self.service.sleep(wait)

    def pace(self, handle: RoomHandle) -> float:
        """The room's pace factor: the slowest speed among the open sockets of the room
        (:data:`PACES`: 1.6 relaxed, 1 normal, 0.6 fast; spectators' too), 1 with none: on this
        process (:meth:`local_pace`) and, for the owner of a shared room, on the others (the
        pace each tells with its presence)."""
        return max([self.local_pace(handle), *(pace for _, _, pace in handle.remote.values())])

    def local_pace(self, handle: RoomHandle) -> float:
        """The slowest speed among the open sockets of the room on this process (:meth:`pace`)."""
        return max((PACES.get(c.speed, 1.0) for c in handle.conns if not c.closed), default=1.0)

    def delay(self, handle: RoomHandle) -> float:
        """Seconds from the start of a bot's turn to its move in this room: the server's
        ``bot_delay`` times the room's :meth:`pace` (0 when bots are not paced)."""
        return self.service.bot_delay * self.pace(handle) if self.service.bot_delay > 0 else 0.0

    def watched(self, handle: RoomHandle) -> bool:
        """Whether a person watches the room: a socket of it here, or a seat connected on
        another process (a room played by bots with nobody connected loses no time)."""
        return any(not c.closed for c in handle.conns) or bool(handle.connected())

    @staticmethod
    def between_tricks(handle: RoomHandle) -> tuple[int, int] | None:
        """``(deal index, tricks played)`` while a finished trick lies on the table and the next
        lead is still to come (a card to lead, none played yet, one trick at least resolved in
        this deal), else ``None``."""
        room = handle.room
        if room.status != "playing" or room.match is None:
            return None
        deal = room.match.deal
        if deal.is_over or deal.decision != "play" or deal.trick or not deal.tricks_played:
            return None
        return (room.deal_index or 0, deal.tricks_played)

    def note_settled(self, handle: RoomHandle) -> tuple[int, int] | None:
        """Note when the trick on the table was resolved (the first call that sees it: the
        planner after the command, or a lead sent before it ran); returns :meth:`between_tricks`."""
        key = self.between_tricks(handle)
        if key is not None and (handle.settled is None or handle.settled[0] != key):
            handle.settled = (key, self.service.timer())  # the linger runs from here (linger_left)
        return key

    def linger_left(self, handle: RoomHandle) -> float:
        """Seconds the finished trick on the table has still to stay before the next lead:
        :data:`LEAD_HOLD` (its linger and sweep) times the room's :meth:`pace` from when it was resolved (noted by
        :meth:`schedule`), while a person watches (:meth:`watched`) and bots are paced; 0 when
        no trick lies there, nobody watches or the deal is being finished."""
        key = self.note_settled(handle)
        settled = handle.settled
        if key is None or settled is None or settled[0] != key or self.service.bot_delay <= 0:
            return 0.0
        if self.service.bots.fast(handle) or not self.watched(handle):
            return 0.0
        return max(0.0, settled[1] + LEAD_HOLD * self.pace(handle) - self.service.timer())

    def take_left(self, handle: RoomHandle, version: int | None = None) -> float | None:
        """Seconds left of the take window a bot's lead waits for (a connected human may take),
        at ``version`` (the room's by default), or ``None`` when there is none (public: who may
        take and who leads are)."""
        version = handle.room.version if version is None else version
        window = handle.window
        if handle.window_ends is None or window is None or window[0] != version or handle.room.version != version:
            return None
        return round(max(0.0, handle.window_ends - self.service.timer()), 3)

    def people_may_take(self, handle: RoomHandle) -> bool:
        """Whether the take window now waits for people: a bot leads (or plays the leader's
        seat), a connected human played by no bot may take, bots are paced (``bot_delay`` above
        0) and the deal is not being finished (no window otherwise: bot-only rooms, rooms
        without takes and a human's own lead lose no time)."""
        room = handle.room
        seat = room.to_act()
        if seat is None or not room.seats[seat].bot_controlled or self.delay(handle) <= 0:
            return False
        if self.service.bots.fast(handle) or room.take_time <= 0:
            return False
        connected = handle.connected()
        return any(
            room.seats[s].kind == "human" and not room.seats[s].bot_playing and s in connected for s in room.takers()
        )

    def window_for_people(self, handle: RoomHandle) -> None:
        """A human who may take has just connected while a take window is open that waits for
        nobody (a room started before its player's socket said hello: "Play alone against bots"
        starts the room, then opens the table): from now on the window waits for people as it
        would have from its start, a whole ``take_window`` (a bot's lead planned meanwhile reads
        it after its delay: :meth:`take_left`)."""
        window = handle.window
        if window is None or window[0] != handle.room.version or handle.window_ends is not None:
            return
        if self.people_may_take(handle):
            handle.window_ends = self.service.timer() + max(self.delay(handle), handle.room.take_time)

    def turn_left(self, handle: RoomHandle) -> float | None:
        """Seconds left of the turn timer of the human to act (public: whose turn it is is), or ``None``."""
        if handle.turn_deadline is None or handle.turn_key != (handle.room.version, handle.room.to_act()):
            return None
        return round(max(0.0, handle.turn_deadline - self.service.timer()), 3)

    def schedule(self, handle: RoomHandle) -> None:
        """Start a bot's move if a bot is to act (cancelling one planned for an older version),
        or the next deal of a room without a host to press "next" (a bot-only room, or an
        absent host). Called by the worker after every command. A room played by bots alone
        runs only while it holds a slot (:meth:`Bots.take_slot`); otherwise it waits, paused (with
        many processes, while the cluster is asked for one too). A mirror plans nothing (its
        owner does)."""
        if handle.mirror:
            return
        room = handle.room
        if self.service.bots.alone(room):
            if not handle.slot and not self.service.bots.take_slot(handle):
                if not handle.paused and not handle.asking:
                    log.info("room %s: played by bots alone and no slot free: paused", room.code)
                handle.paused = handle.paused or not handle.asking
                if handle.bot_task is not None:
                    handle.bot_task.cancel()
                handle.bot_task, handle.bot_key = None, None
                return
        elif handle.slot:
            self.service.bots.free_slot(handle)
        handle.paused = False
        self.note_settled(handle)
        self.plan_takes(handle)  # first: the takes are due before the move (a room searches one at a time)
        seat = room.to_act()
        key = (room.version, seat) if seat is not None and room.seats[seat].bot_controlled else None
        if handle.bot_key != key:
            if handle.bot_task is not None and not handle.bot_task.done():
                handle.bot_task.cancel()
            handle.bot_task = None
            handle.bot_key = key
            if key is not None:
                handle.bot_task = asyncio.create_task(self.service.bots.move(handle, *key, self.service.timer()))
        self.plan_turn_timer(handle)
        idle_next = handle.next_task is None or handle.next_task.done()
        if room.status == "between_deals" and idle_next and self.no_host(handle):
            handle.next_task = asyncio.create_task(self.auto_next(handle, room.version))

    def plan_takes(self, handle: RoomHandle) -> None:
        """In a take window (interject protocol, R-P-TAKE): note when it opened (a human's lead
        waits the bot delay from then, :meth:`hold_lead`) and, when people may take
        (:meth:`people_may_take`), when a bot's lead may end it (the room's ``take_window``
        after it opened, at least the bot delay), and plan the takes of the bots not to act,
        announced at :data:`TAKE_MOMENT` of the bot delay, whatever they decided (the bot to act
        decides with its move). Each take is the decision of the room's bot (its level's:
        :func:`~.handles.room_bot`), as its moves are: a bot that does not search decides now; a
        searching one searches as for a move (:meth:`~.bots.Bots.decide_take`)."""
        room = handle.room
        version = room.version
        if not room.take_window():
            handle.window, handle.window_ends = None, None
            return
        if handle.window is None or handle.window[0] != version:
            handle.window = (version, self.service.timer())
            handle.window_ends = None
            if self.people_may_take(handle):  # decided once, when it opens
                handle.window_ends = handle.window[1] + max(self.delay(handle), handle.room.take_time)
        if handle.takes_key == version:
            return
        for task in handle.take_tasks:
            task.cancel()
        handle.takes_key, handle.take_tasks = version, []
        began = handle.window[1]
        for seat in room.takers():
            if not room.seats[seat].bot_controlled:
                continue
            if self.service.bots.searches(handle):
                task = self.service.bots.decide_take(handle, version, seat, began)
                handle.take_tasks.append(asyncio.create_task(task))
                continue
            view = room.view(seat)
            assert view is not None
            if handle.bot.act(view, [TAKE, PASS], handle.bot_rng) is TAKE:
                handle.take_tasks.append(asyncio.create_task(self.service.bots.take(handle, version, seat, began)))

    def plan_turn_timer(self, handle: RoomHandle) -> None:
        """Start the turn timer of a connected human to act (the room's ``turn_time``): when it
        runs out, a bot plays for them and they are away (``absent``) until they act again."""
        if handle.mirror:
            return  # the owner's timer; the mirror shows its deadline (news)
        room = handle.room
        seat = room.to_act()
        key = None
        human = seat is not None and room.seats[seat].kind == "human" and not room.seats[seat].bot_playing
        if human and seat in handle.connected() and not room.deal_over:
            assert seat is not None
            key = (room.version, seat)
        running = handle.turn_task is not None and not handle.turn_task.done()
        if handle.turn_key == key and (key is None or running):
            return  # (a timer that ran out while its player was disconnected starts again on their return)
        if handle.turn_task is not None:
            handle.turn_task.cancel()
        handle.turn_task, handle.turn_key, handle.turn_deadline = None, key, None
        if key is None:
            return
        handle.turn_deadline = self.service.timer() + room.turn_time

        async def timeout(version: int, seat: int) -> None:
            await self.service.sleep(room.turn_time)
            live = handle.room
            if live.version == version and not live.seats[seat].bot_playing and seat in handle.connected():
                with contextlib.suppress(RoomError):
                    await self.service.submit(handle, Job(Absent(seat)))

        handle.turn_task = asyncio.create_task(timeout(*key))

    @staticmethod
    def no_host(handle: RoomHandle) -> bool:
        """Whether nobody can press "next": no human seat, or the host has no socket and their
        seat is played by a bot."""
        room = handle.room
        if not any(s.kind == "human" for s in room.seats):
            return True
        hosts = [i for i, s in enumerate(room.seats) if s.host]
        host_present = any(c.host and not c.closed for c in handle.conns)
        return not host_present and all(room.seats[i].bot_playing for i in hosts)

    async def auto_next(self, handle: RoomHandle, version: int) -> None:
        """Start the next deal of a room without a host, three bot delays after ``version``."""
        await self.service.sleep(max(self.delay(handle) * 3, 0.0))
        if handle.room.version == version and handle.room.status == "between_deals":
            with contextlib.suppress(RoomError):
                await self.service.submit(handle, Job(NextDeal()))

    def start_absence(self, handle: RoomHandle, seat: int, *, announce: bool) -> bool:
        """The seat's player left: after the grace period a bot plays for them. Announces
        ``absent`` with the deadline to the others; returns whether it was announced."""
        room = handle.room
        if handle.mirror:
            return False  # the owner's timer
        if room.status not in ("lobby", "playing", "between_deals") or room.seats[seat].bot_playing:
            return False
        if room.seats[seat].kind != "human" or seat in handle.timers:
            return False
        if room.status == "lobby":
            return False  # nothing to play yet; the start announces absent players
        deadline = self.service.clock() + self.service.grace
        handle.deadlines[seat] = deadline

        async def takeover() -> None:
            await asyncio.sleep(self.service.grace)
            handle.timers.pop(seat, None)
            handle.deadlines.pop(seat, None)
            if seat not in handle.connected():
                with contextlib.suppress(RoomError):
                    await self.service.submit(handle, Job(Absent(seat)))

        handle.timers[seat] = asyncio.create_task(takeover())
        if announce:
            self.service.sockets.broadcast(handle)
            self.service.mirror.publish(handle, absent=(seat, round(deadline, 3)))
            frame = encode(protocol.Absent.model_construct(type="absent", seat=seat, deadline=round(deadline, 3)))
            for conn in list(handle.conns):
                conn.send_text(frame)
        return announce

    async def sweep(self) -> None:
        """Close rooms idle for longer than ``idle`` seconds (checked a few times per period)."""
        period = min(max(self.service.idle / 4, 0.05), 60.0)
        while True:
            await asyncio.sleep(period)
            now = self.service.clock()
            for handle in list(self.service.rooms.values()):
                if handle.mirror:
                    continue  # its owner closes it
                if now - handle.room.updated >= self.service.idle and handle.room.status != "closed":
                    handle.queue.put_nowait(Job(Close("idle")))
