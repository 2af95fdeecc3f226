"""The bots of the rooms: a bot's move and takes (searched in threads or in the bot pool's worker
processes), finishing a deal at once, and the slots of rooms played by bots alone (this
process's, or the cluster's through the broker).

Owns: the bots' threads and the slots' logic. Imports :mod:`.errors`, :mod:`.commands`,
:mod:`.state`, :mod:`.handles` and :mod:`.timers` (the take moment); never :mod:`.service`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...core.events import PASS, TAKE, Action
from ...core.view import PlayerView
from ...text.i18n import N_
from ..broker import BrokerDown
from .commands import Act
from .errors import RoomError
from .handles import SEARCH_SHARE, Job, RoomHandle
from .state import Room
from .timers import TAKE_MOMENT

log = logging.getLogger("getaway.web")


class Bots:
    """Bot moves, takes and the slots of rooms played by bots alone.

    Bots search at most one search at a time per room; in threads, the rooms played by bots
    alone share one thread (in worker processes, one worker)."""

    def __init__(self, service: Any) -> None:
        #: the :class:`~getaway.web.rooms.service.RoomService` façade (its settings, rooms and
        #: the other components), not imported here: the arrows point to it, not from it
        self.service = service
        # Rooms with a person playing: enough threads that no search waits for another (a search's
        # time limit is wall-clock time, so searches that share the cores just sample fewer worlds).
        self.threads = ThreadPoolExecutor(64, thread_name_prefix="getaway-bot")
        self.alone_thread = ThreadPoolExecutor(1, thread_name_prefix="getaway-bot-alone")  # rooms of bots alone

    def finish(self, handle: RoomHandle) -> None:
        """``finish``: bots play the rest of the deal without their delay, once no human is left
        to act in it (:meth:`Room.humans_to_act`).

        Raises:
            RoomError: ``not_now`` (a human still has to act).
        """
        room = handle.room
        if room.status != "playing" or room.humans_to_act():
            raise RoomError("not_now", N_("a player still has to act in this deal"))
        handle.fast = room.deal_index
        if handle.bot_task is not None:
            handle.bot_task.cancel()
        handle.bot_task, handle.bot_key, handle.takes_key = None, None, None
        self.service.timers.schedule(handle)

    def fast(self, handle: RoomHandle) -> bool:
        """Whether bots play the current deal without their delay (it is being finished)."""
        return handle.fast is not None and handle.fast == handle.room.deal_index

    async def take(self, handle: RoomHandle, version: int, seat: int, began: float) -> None:
        """A bot's take announced at :data:`TAKE_MOMENT` of the window opened at ``began``."""
        delay = self.service.timers.delay(handle)
        if delay > 0 and not self.fast(handle):
            wait = began + TAKE_MOMENT * delay - self.service.timer()
            if wait > 0:
                await self.service.sleep(wait)
        if handle.room.version != version or not handle.room.seats[seat].bot_controlled:
            return
        with contextlib.suppress(RoomError):
            await self.service.submit(handle, Job(Act(seat, "take", True), version=version))

    @staticmethod
    def searches(handle: RoomHandle) -> bool:
        """Whether the room's bot searches (the ``expert`` kind: it has a ``time_limit``), so that
        its decisions are made off the event loop (:meth:`search`)."""
        return hasattr(handle.bot, "time_limit")

    async def decide_take(self, handle: RoomHandle, version: int, seat: int, began: float) -> None:
        """A searching bot's take in the window opened at ``began`` (``seat`` is not to act): its
        decision searched as a move is (:meth:`search`: the bot pool, or a thread), due at
        :data:`TAKE_MOMENT` of the bot delay with that share of the search time, the pool's
        fallback (the rules of thumb's decision) if it cannot have it by then; a take is then
        announced at that moment (:meth:`take`)."""
        try:
            room = handle.room
            if room.version != version or not room.seats[seat].bot_controlled:
                return
            view = room.view(seat)
            assert view is not None
            delay = self.service.timers.delay(handle)
            timed = delay > 0 and not self.fast(handle)
            due = began + TAKE_MOMENT * delay if timed else None
            action = await self.search(handle, view, [TAKE, PASS], due, part=TAKE_MOMENT * SEARCH_SHARE)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: take of the bot of seat %d failed", handle.room.code, seat)
            return
        if action is TAKE:
            await self.take(handle, version, seat, began)

    @staticmethod
    def alone(room: Room) -> bool:
        """Whether a started, unfinished room is played by bots alone (every seat a bot's or
        an absent human's): such rooms need a slot to run."""
        return room.status in ("playing", "between_deals") and all(s.bot_controlled for s in room.seats)

    def take_slot(self, handle: RoomHandle) -> bool:
        """Take a slot for a room played by bots alone if both limits allow; whether it has one.
        With many processes the limits are the cluster's: the slot is asked of the broker by the
        room's worker (:meth:`ask_slot`, which schedules the room again once it has one) and
        this answers ``False`` meanwhile."""
        if handle.slot:
            return True
        if self.service.shared:
            if not handle.asking:
                handle.asking = True
                handle.queue.put_nowait(Job(label="slot", call=lambda: self.ask_slot(handle)))
            return False
        return self.take_local_slot(handle)

    def take_local_slot(self, handle: RoomHandle) -> bool:
        """:meth:`take_slot` counting this process's rooms only (one process alone)."""
        holders = [h for h in self.service.rooms.values() if h.slot]
        mine = sum(1 for h in holders if h.address == handle.address)
        if len(holders) >= self.service.max_bot_rooms or mine >= self.service.bot_rooms_per_address:
            return False
        handle.slot = True
        return True

    def slots_of(self, handle: RoomHandle) -> list[tuple[str, str, str, int]]:
        """The cluster's slots a room played by bots alone holds: ``(group, key, member, cap)``,
        one among its starter address's and one among all (the member names this process, so
        that a new owner's slot is not the old one's)."""
        member = f"{handle.room.code}@{self.service.broker.process}"
        return [
            ("bot-rooms-of", handle.address, member, self.service.bot_rooms_per_address),
            ("bot-rooms", "all", member, self.service.max_bot_rooms),
        ]

    async def take_shared_slot(self, handle: RoomHandle) -> bool:
        """Take the cluster's slots of a room played by bots alone (:meth:`slots_of`) if both
        limits allow, in the whole cluster; whether it has them. The broker unreachable: this
        process's rooms are counted (as the rate limits are meanwhile)."""
        if handle.slot:
            return True
        taken: list[tuple[str, str, str]] = []
        try:
            for group, key, member, cap in self.slots_of(handle):
                if not await self.service.broker.take_slot(group, key, member, cap):
                    for slot in taken:
                        await self.service.broker.free_slot(*slot)
                    return False
                taken.append((group, key, member))
        except BrokerDown:
            return self.take_local_slot(handle)
        self.service.cluster.slots.update(taken)
        handle.slot = True
        return True

    async def ask_slot(self, handle: RoomHandle) -> None:
        """Ask the cluster for the slots of a room played by bots alone (run by its worker): once
        it has them, its bots play; if not, it waits, paused (the heartbeat asks again)."""
        handle.asking = False
        if handle.slot or handle.mirror or not self.alone(handle.room):
            return
        if await self.take_shared_slot(handle):
            self.service.timers.schedule(handle)
            return
        if not handle.paused:
            log.info("room %s: played by bots alone and no slot free: paused", handle.room.code)
        handle.paused = True

    def wake_paused(self) -> None:
        """Let each paused room owned here ask for a slot again (another process's may be free)."""
        for handle in self.service.rooms.values():
            if handle.paused and not handle.asking and handle.lease is not None:
                handle.queue.put_nowait(Job(label="wake", call=lambda h=handle: self.service.timers.schedule(h)))

    def free_slot(self, handle: RoomHandle) -> None:
        """Give the room's slot back (the cluster's too) and let a paused room try again."""
        if not handle.slot:
            return
        handle.slot = False
        if self.service.shared:
            for group, key, member, _cap in self.slots_of(handle):
                if (group, key, member) in self.service.cluster.slots:
                    self.service.cluster.slots.discard((group, key, member))
                    self.service.background(self.service.cluster.free_shared_slot(group, key, member))
        for other in self.service.rooms.values():
            if other.paused and other is not handle:
                other.queue.put_nowait(Job(label="wake", call=lambda h=other: self.service.timers.schedule(h)))

    async def start_bot_only(self, handle: RoomHandle, address: str | None) -> None:
        """Before the start of room ``handle`` by ``address``: a room without a human seat will
        be played by bots alone; it must get a slot now (with many processes, the cluster's).

        Raises:
            RoomError: ``too_many_bot_rooms`` (429).
        """
        handle.address = address or handle.address
        if any(s.kind == "human" for s in handle.room.seats):
            return
        if not (await self.take_shared_slot(handle) if self.service.shared else self.take_slot(handle)):
            raise RoomError(
                "too_many_bot_rooms",
                N_("too many rooms played by bots alone are running (at most {n} per address, {total} in all)"),
                429,
                n=self.service.bot_rooms_per_address,
                total=self.service.max_bot_rooms,
            )

    async def search(
        self,
        handle: RoomHandle,
        view: PlayerView,
        legal: Sequence[Action],
        due: float | None = None,
        part: float = SEARCH_SHARE,
    ) -> Action:
        """The bot's choice, searched in a thread or a bot worker process (:attr:`RoomService.botpool`, for
        the searching bots; its fallback move if no worker can have it by ``due``, the move's
        send time): one search at a time per room (a move cancelled mid-search lets its search
        finish before the next one starts); the rooms played by bots alone share one thread (one
        worker), and the time limit of their searches is the search share of the delay divided
        among them, so the thread keeps up with their delays. ``part``: the share of the bot delay
        the search may take (:data:`SEARCH_SHARE` for a move; less for a take, due sooner)."""
        while handle.search is not None and not handle.search.done():
            await asyncio.wait({handle.search})
        alone = self.alone(handle.room)
        pool = self.alone_thread if alone else self.threads
        if self.service.bot_delay > 0 and getattr(handle.bot, "time_limit", None) is not None:
            # The rooms of bots alone take turns on one thread: their searches share the delay.
            share = max(1, sum(1 for h in self.service.rooms.values() if h.slot)) if alone else 1
            # never longer than at the normal pace (a relaxed room's bots are slower, not stronger)
            delay = min(self.service.bot_delay, self.service.timers.delay(handle))
            handle.bot.time_limit = part * delay / share  # type: ignore[attr-defined]
        if self.service.botpool is not None and self.service.botpool.takes(handle.bot):
            search = self.service.botpool.act(
                handle.room.code, handle.bot, view, legal, handle.bot_rng, due=due, alone=alone
            )
            handle.search = asyncio.ensure_future(search)
            return await handle.search  # cancelled: a waiting search is dropped, a running one ends in its worker
        loop = asyncio.get_running_loop()
        handle.search = loop.run_in_executor(pool, handle.bot.act, view, legal, handle.bot_rng)
        return await asyncio.shield(handle.search)

    async def move(self, handle: RoomHandle, version: int, seat: int, began: float) -> None:
        """The bot's move for ``(version, seat)``, sent the room's bot delay after ``began``
        (the turn's start, :attr:`RoomService.timer`; ``bot_delay`` times the room's pace:
        :meth:`Timers.delay`), however long it took to choose (a search has a time limit below
        the delay; a move ready late is sent at once and logged); a lead in a take window people
        may use waits until it ends (:meth:`Timers.take_left`), and a lead after a finished
        trick until it has lingered while a person watches (:meth:`Timers.linger_left`)."""
        try:
            room = handle.room
            if room.version != version:
                return  # the room moved on; the worker has planned the next move
            view = room.view(seat)
            assert view is not None
            legal = view.legal_actions
            if not legal:
                return
            if len(legal) == 1:
                action = legal[0]
            elif handle.bot.name == "random":
                action = handle.bot.act(view, legal, handle.bot_rng)
            else:  # searching bots take milliseconds to seconds: off the event loop
                delay = self.service.timers.delay(handle)
                due = began + delay if delay > 0 and not self.fast(handle) else None
                action = await self.search(handle, view, legal, due)
            delay = self.service.timers.delay(handle)  # the room's pace now (a page may have changed it)
            if delay > 0 and not self.fast(handle):
                wait = began + delay - self.service.timer()
                if wait > 0:
                    await self.service.sleep(wait)
                else:
                    log.warning(
                        "room %s: bot of seat %d decided %.0f ms after its move was due", room.code, seat, -wait * 1000
                    )
                window = self.service.timers.take_left(handle, version)
                if window:  # a lead waits for the people who may take (docs/web.md "Takes")
                    await self.service.sleep(window)
                linger = self.service.timers.linger_left(handle)
                if linger and handle.room.version == version:  # the finished trick stays a moment (docs/web.md "Pace")
                    await self.service.sleep(linger)
            if handle.room.version != version:
                return
            job = Job(Act(seat, str(action), True), version=version)
            while True:
                try:
                    await self.service.submit(handle, job)
                except RoomError as exc:
                    if exc.code == "server_error" and handle.lease is not None and handle.room.version == version:
                        await self.service.sleep(0.5)  # the broker is unreachable: the move is made once it is back
                        continue
                    if exc.code != "stale_version":
                        log.warning("room %s: bot move of seat %d refused: %s", room.code, seat, exc)
                break
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: bot of seat %d failed", handle.room.code, seat)
