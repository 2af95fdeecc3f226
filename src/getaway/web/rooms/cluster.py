"""Many processes serving one set of rooms (web/broker.py; docs/web.md "More than one process").

A shared room has one owner (the process holding its lease: worker, bots, timers, log
appends) and any number of mirrors (processes with sockets in it). A mirror forwards its
sockets' commands to the owner (:meth:`Cluster.forward`), tells it which seats it has sockets
for, and, told that the room moved on, reads the new commands from the log and sends each of
its sockets its own view (:mod:`.mirror`). The heartbeat renews the owner's leases and lets a
mirror take a lease nobody holds (a dead owner's, once expired).

Owns: claim, promotion and demotion, fencing, forwarding, the heartbeat, the cluster's slots
held here. Imports :mod:`.errors`, :mod:`.commands`, :mod:`.state` and :mod:`.handles`; never
:mod:`.service`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from typing import Any

from ...core.events import InvalidActionError, parse_action
from ...text.chat import PHRASES
from ..broker import BEATS_PER_LEASE, FORWARD_TIMEOUT, LEASE_MS, BrokerDown, Lease, NoOwner, OwnerGone
from .commands import Absent, Act, Close, Join, Reclaim
from .errors import RelayedError, RoomError, unsaved
from .handles import PRESENCE_STALE_BEATS, QUIET_BEATS, Job, RoomHandle, job_of
from .state import Room, playing_humans

log = logging.getLogger("getaway.web")


class Cluster:
    """The leases, forwarding and heartbeat of a process among many."""

    def __init__(self, service: Any) -> None:
        #: the :class:`~getaway.web.rooms.service.RoomService` façade (its settings, rooms and
        #: the other components), not imported here: the arrows point to it, not from it
        self.service = service
        self.heart: asyncio.Task[None] | None = None  # leases renewed, mirrors' presence told
        self.slots: set[tuple[str, str, str]] = set()  # the cluster's slots held here (renewed)

    async def free_shared_slot(self, group: str, key: str, member: str) -> None:
        """Free one of the cluster's slots held here (in the background; the broker unreachable:
        it expires once not renewed)."""
        with contextlib.suppress(BrokerDown):  # not freed: it expires (SLOT_MS) once not renewed
            await self.service.broker.free_slot(group, key, member)

    async def hand_over(self) -> None:
        """Give every room owned here to the other processes (a drain before shutdown): each
        lease is released and the room followed as a mirror, so that its sockets here are still
        served until they close; from now on this process takes no lease (the others take the
        rooms at their next heartbeat, or at the next command). Nothing to do for a process alone."""
        if not self.service.shared:
            return
        self.service.handing_over = True
        jobs = []
        for handle in list(self.service.rooms.values()):
            if handle.lease is not None and handle.worker is not None and not handle.worker.done():
                jobs.append(self.service.submit(handle, Job(label="hand_over", call=lambda h=handle: self.give_up(h))))
        for outcome in await asyncio.gather(*jobs, return_exceptions=True):
            if isinstance(outcome, BaseException) and not isinstance(outcome, RoomError):
                log.warning("hand over: %s", outcome)

    async def give_up(self, handle: RoomHandle) -> None:
        """Release the room's lease and follow it as a mirror (run by its worker)."""
        lease = handle.lease
        if lease is None:
            return
        with contextlib.suppress(BrokerDown):
            await self.service.broker.release(lease)
        log.info("room %s: handed over (lease token %d released)", handle.room.code, lease.token)
        await self.demote(handle, quiet=True)

    async def take_socket(self, address: str, socket: str, cap: int) -> bool:
        """With many processes, count socket ``socket`` of client ``address`` among the address's
        open sockets in the whole cluster (at most ``cap``); whether it may stay. One process
        alone (or the broker unreachable): ``True`` (the app counts this process's sockets)."""
        if not self.service.shared:
            return True
        try:
            taken = await self.service.broker.take_slot("sockets", address, socket, cap)
        except BrokerDown:
            return True
        if taken:
            self.slots.add(("sockets", address, socket))
        return taken

    async def free_socket(self, address: str, socket: str) -> None:
        """Socket ``socket`` of ``address`` closed: it no longer counts (:meth:`take_socket`)."""
        if ("sockets", address, socket) not in self.slots:
            return
        self.slots.discard(("sockets", address, socket))
        await self.free_shared_slot("sockets", address, socket)

    async def start(self) -> None:
        """:meth:`RoomService.start` of a process among many: the broker started, each unfinished
        room nobody owns taken (its lease) and rebuilt, the heartbeat and the idle sweep started."""
        await self.service.broker.start(self.on_request, self.service.mirror.on_news)
        for stored in await self.service.worker.in_db(self.service.store.unfinished):
            try:
                lease = await self.service.broker.acquire(stored.code)
            except BrokerDown:
                break  # logged by the broker; rooms are opened when asked
            if lease is None:
                continue  # owned by a live process
            try:
                room = Room.restore(stored)
            except Exception:
                log.exception("room %s: cannot rebuild from its log", stored.code)
                await self.service.broker.release(lease)
                continue
            handle = self.service.open(room, lease)
            if room.status != "lobby" and not any(seat.kind == "human" for seat in room.seats):
                # A started bot-only room: nobody can be watching it now; it is not resumed.
                handle.queue.put_nowait(Job(Close("restart")))
        self.heart = asyncio.create_task(self.beat(), name="room-heartbeat")
        self.service.timers.sweeper = asyncio.create_task(self.service.timers.sweep())

    async def claim(self, handle: RoomHandle, lease: Lease | None) -> None:
        """The first job of a shared room's worker: own it (``lease``, or one taken now if nobody
        holds it), else follow it as a mirror."""
        if lease is None and not self.service.handing_over:
            with contextlib.suppress(BrokerDown):  # no broker now: a mirror; the heartbeat tries again
                lease = await self.service.broker.acquire(handle.room.code)
        if lease is not None:
            await self.promote(handle, lease)
            return
        with contextlib.suppress(BrokerDown):
            await self.service.broker.follow(handle.room.code)
        await self.service.mirror.catch_up(handle)

    async def promote(self, handle: RoomHandle, lease: Lease) -> None:
        """Become the room's owner with ``lease`` (run by its worker): catch up with the log
        (the previous owner's last commands), then run its bots and timers as after a restart."""
        if handle.lease is not None:  # already the owner (a lease taken twice): keep the first
            with contextlib.suppress(BrokerDown):
                await self.service.broker.release(lease)
            return
        await self.service.mirror.catch_up(handle)
        handle.lease, handle.mirror, handle.reported = lease, False, frozenset()
        with contextlib.suppress(BrokerDown):
            await self.service.broker.unfollow(handle.room.code)
        room = handle.room
        if room.status == "closed":
            return
        log.info("room %s: owned by this process (lease token %d, version %d)", room.code, lease.token, room.version)
        connected = handle.connected()
        for seat in playing_humans(room):
            if seat not in connected:
                self.service.timers.start_absence(handle, seat, announce=False)
        self.service.timers.schedule(handle)
        self.service.sockets.broadcast(handle)

    async def promote_taken(self, handle: RoomHandle) -> None:
        """Promote with the lease the heartbeat took (unless a forwarded command already did)."""
        lease, handle.taken = handle.taken, None
        if lease is not None:
            await self.promote(handle, lease)

    async def demote(self, handle: RoomHandle, *, quiet: bool = False) -> None:
        """Stop owning the room (its lease is lost, or given up: run by its worker): its bots and
        timers stop, it follows the new owner as a mirror and catches up with the log."""
        if not quiet:
            log.warning("room %s: lease lost (token %d): following its new owner", handle.room.code, handle.lease.token)
        for task in handle.planned():
            task.cancel()
        handle.bot_task, handle.bot_key, handle.next_task = None, None, None
        handle.take_tasks, handle.takes_key = [], None
        handle.turn_task, handle.turn_key, handle.turn_deadline, handle.window = None, None, None, None
        handle.timers, handle.deadlines, handle.remote = {}, {}, {}
        self.service.bots.free_slot(handle)
        handle.lease, handle.mirror = None, True
        with contextlib.suppress(BrokerDown):
            await self.service.broker.follow(handle.room.code)
        await self.service.mirror.catch_up(handle)

    async def lost(self, handle: RoomHandle, lease: Lease) -> None:
        """The heartbeat found ``lease`` gone (run by the worker): demote, and take the lease
        again at once if nobody else has (Redis restarted empty: the room goes on here)."""
        if handle.lease != lease:
            return
        await self.demote(handle)
        if self.service.handing_over:
            return
        with contextlib.suppress(BrokerDown):
            again = await self.service.broker.acquire(handle.room.code)
            if again is not None:
                await self.promote(handle, again)

    async def fenced(self, handle: RoomHandle) -> bool:
        """The fencing check before a command of an owned room is applied and logged: whether
        this process still holds the room's lease (if not, it is demoted).

        Why it suffices (docs/web.md "More than one process"): the log's key (room, version)
        lets one append per version; a new owner rebuilds the room from the log when it takes
        the lease, so a late append of the old owner either collides with the new owner's
        (refused: one of them writes version v, the other reloads from the log) or lands
        before the new owner's next one, which then fails and reloads: the log stays one
        history, each command in it once. This check makes the old owner stop at its next
        command instead of writing on until it collides.

        Raises:
            RoomError: ``server_error`` (503) when the broker cannot be reached.
        """
        assert handle.lease is not None
        try:
            held = await self.service.broker.holds(handle.lease)
        except BrokerDown:
            raise unsaved() from None
        if not held:
            await self.demote(handle)
        return held

    async def forward(self, handle: RoomHandle, job: Job) -> Any:
        """Run command ``job`` of a mirrored room at its owner and return its logged payload once
        this mirror has caught up with it; when nobody owns the room (its owner died and its
        lease expired), take the lease and run it here.

        Forwarded once, never twice: if the owner heard the command and died before it answered
        (:class:`~getaway.web.broker.OwnerGone`), it may have been logged; before the command is
        sent again (to the next owner, or run here) the log written since it was first sent is
        read, and a command found there is this one's outcome (:func:`in_log`), not run again.

        Raises:
            RoomError: the owner's refusal (:class:`RelayedError`), or ``server_error`` (503) when
                the broker cannot be reached or the owner (still listening) did not answer in time.
        """
        code = handle.room.code
        body = {"kind": job.kind, "payload": job.payload, "version": job.version, "address": job.address}
        deadline = self.service.timer() + FORWARD_TIMEOUT
        since = handle.room.version  # the log after it may hold this command, once an owner heard it
        heard = False  # an owner heard it and died before it answered
        while True:
            if heard:
                found = await self.logged_since(handle, job, since)
                if found is not None:
                    return found
            if handle.taken is not None:  # the heartbeat took the lease meanwhile (its promotion waits for us)
                lease, handle.taken = handle.taken, None
                await self.promote(handle, lease)
                return await self.run_here(handle, job, since, heard)
            try:
                answer = await self.service.broker.forward(code, body, max(0.1, deadline - self.service.timer()))
            except OwnerGone:
                log.warning("room %s: its owner died with a forwarded %s: sent again once it is taken", code, job.kind)
                heard, answer = True, {"retry": True}
                lease_s = getattr(self.service.broker, "lease_ms", LEASE_MS) / 1000  # it runs out first
                deadline = max(deadline, self.service.timer() + lease_s + FORWARD_TIMEOUT)
            except NoOwner:
                try:
                    lease = None if self.service.handing_over else await self.service.broker.acquire(code)
                except BrokerDown:
                    raise unsaved() from None
                if lease is not None:
                    await self.promote(handle, lease)
                    return await self.run_here(handle, job, since, heard)
                answer = {"retry": True}  # a dead owner's lease that has not expired yet
            except BrokerDown:
                raise unsaved() from None
            except TimeoutError:
                log.warning("room %s: the owner did not answer a forwarded %s", code, job.kind)
                raise unsaved() from None
            if not answer.get("retry"):
                break
            if self.service.timer() >= deadline:
                log.warning("room %s: nobody took the room in time for a forwarded %s", code, job.kind)
                raise unsaved()
            await self.service.sleep(0.05)
        if "error" in answer:
            raise RelayedError(answer["error"])
        if await self.service.mirror.catch_up(handle, answer.get("version"), answer.get("log")):
            self.service.sockets.broadcast(handle)
        return answer.get("logged")

    async def run_here(self, handle: RoomHandle, job: Job, since: int, heard: bool) -> Any:
        """Run ``job`` on the room just owned here (promoted: caught up with the log), unless
        the dead owner that ``heard`` it logged it after version ``since`` already."""
        if heard:
            found = in_log(job, await self.log_after(handle, since))
            if found is not None:
                return found
        return await self.service.worker.run(handle, job)

    async def log_after(self, handle: RoomHandle, since: int) -> list[Any]:
        """Room ``handle``'s log entries after version ``since`` (read from the store)."""
        return await self.service.reads.in_reader(self.service.store.log_after, handle.room.code, since)

    async def logged_since(self, handle: RoomHandle, job: Job, since: int) -> dict[str, Any] | None:
        """The outcome of ``job`` if the log holds it after version ``since`` (this mirror then
        catches up with the log and tells its sockets), else ``None``."""
        found = in_log(job, await self.log_after(handle, since))
        if found is not None and await self.service.mirror.catch_up(handle):
            self.service.sockets.broadcast(handle)
        return found

    async def on_request(self, code: str, body: dict[str, Any]) -> dict[str, Any]:
        """Answer a request of another process for room ``code``: its sockets' seats
        (``presence``), a quick ``chat`` of a socket there, or a command, run as if it came from
        a socket here."""
        handle = self.service.rooms.get(code)
        if handle is None or handle.lease is None:
            return {"retry": True}  # not the owner (any more): the asker looks again
        kind = body["kind"]
        if kind == "presence":
            seats, host = frozenset(int(s) for s in body["seats"]), bool(body.get("host"))
            pace = float(body.get("pace") or 1.0)
            if any(s >= len(handle.room.seats) for s in seats):
                log.warning("room %s: dropped a presence naming seats it does not have: %s", code, sorted(seats))
                return {"ok": True}
            presence = Job(
                label="presence",
                call=lambda: self.service.mirror.presence(handle, body["process"], seats, host, pace),
            )
            handle.queue.put_nowait(presence)
            return {"ok": True}
        if kind == "chat":  # a quick chat of a socket there (Mirror.tell_chat): said here and to the mirrors
            seats, phrase = body.get("seats") or [], (body.get("payload") or {}).get("phrase")
            if len(seats) == 1 and 0 <= int(seats[0]) < len(handle.room.seats) and phrase in PHRASES:
                self.service.sockets.say(handle, int(seats[0]), phrase)
            else:
                log.warning("room %s: dropped a chat naming a seat or phrase it does not have", code)
            return {"ok": True}
        try:
            job = job_of(kind, body.get("payload"), version=body.get("version"), address=body.get("address"))
            match job.command:
                case Act(action=action, bot=bot) if not bot:
                    await self.service.timers.hold_lead(handle, action)
            logged = await self.service.submit(handle, job)
        except RoomError as exc:
            return {"error": RelayedError.relay(exc)}
        # Only what the asker uses (a join's seat): the logged payload stays here (a token's hash).
        seat = logged.get("seat") if isinstance(logged, dict) else None
        answer = {"logged": {"seat": seat}, "version": handle.room.version}
        if handle.written is not None and handle.written[0] == handle.room.version:
            answer["log"] = [handle.written]  # the asker applies it instead of reading the log (Mirror.catch_up)
        return answer

    async def let_go(self, handle: RoomHandle) -> None:
        """A forgotten room (closed): give its lease up, or stop following it."""
        with contextlib.suppress(BrokerDown):
            if handle.lease is not None:
                if handle.listed is not None:
                    await self.service.broker.list_room(handle.room.code, None)
                await self.service.broker.release(handle.lease)
            else:
                await self.service.broker.unfollow(handle.room.code)

    async def beat(self) -> None:
        """:data:`~getaway.web.broker.BEATS_PER_LEASE` times a lease: first renew every lease owned
        here, all in one call (a lost one demotes its room), then renew the slots held here (every
        fifth beat), forget the seats of processes that stopped telling (dead), and for each room
        mirrored here with sockets, tell the owner its seats and take the lease if nobody holds it
        (one call asks who holds them; one more whether those holders still listen: a dead one's
        lease is taken as it runs out).

        Beats are due a period apart from the previous renewal, whatever the rest of a beat
        took; a beat that wakes late (a busy event loop) renews first thing, and one more than a
        period late is counted in ``heartbeat["late"]`` and logged (at most a line a minute)."""
        loop = asyncio.get_running_loop()
        period = getattr(self.service.broker, "lease_ms", LEASE_MS) / 1000 / BEATS_PER_LEASE
        beats, due, told = 0, loop.time() + period, -math.inf
        while True:
            await asyncio.sleep(max(0.0, due - loop.time()))
            now = loop.time()
            late = now - due
            due = now + period
            beats += 1
            if late > period:
                self.service.heartbeat["late"] += 1
                self.service.heartbeat["worst_late_ms"] = max(
                    self.service.heartbeat["worst_late_ms"], round(late * 1000)
                )
                if now - told >= 60:
                    told = now
                    log.warning("heartbeat %.0f ms late (a busy event loop): leases were at risk", late * 1000)
            try:
                await self.renew_leases(period)
                if beats % 5 == 0:  # the slots held here, renewed well within SLOT_MS
                    await self.service.broker.renew_slots(sorted(self.slots))
                self.service.bots.wake_paused()
                await self.beat_mirrors()
            except BrokerDown:
                continue  # logged once by the broker
            except Exception:
                log.exception("heartbeat failed")

    async def renew_leases(self, period: float) -> None:
        """Renew every lease owned here in one call; a room whose lease is gone is demoted (by
        its worker), and an owned room forgets the seats of processes silent for
        :data:`~.handles.PRESENCE_STALE_BEATS` periods."""
        owned = [(handle, handle.lease) for handle in self.service.rooms.values() if handle.lease is not None]
        if not owned:
            return
        held = await self.service.broker.renew_all([lease for _, lease in owned])
        self.service.heartbeat["renewals"] += 1
        for (handle, lease), renewed in zip(owned, held, strict=True):
            if not renewed:
                self.service.heartbeat["lost"] += 1
                handle.queue.put_nowait(Job(label="lost", call=lambda h=handle, old=lease: self.lost(h, old)))
                continue
            limit = PRESENCE_STALE_BEATS * period
            stale = [p for p, (_, when, _) in handle.remote.items() if self.service.timer() - when > limit]
            if stale:

                def drop(handle: RoomHandle = handle, stale: list[str] = stale) -> None:
                    before = handle.connected()
                    for process in stale:
                        handle.remote.pop(process, None)
                    self.service.mirror.seats_changed(handle, before)

                handle.queue.put_nowait(Job(label="stale", call=drop))

    async def beat_mirrors(self) -> None:
        """The heartbeat of the rooms mirrored here: one without sockets for long is forgotten;
        one with sockets tells its owner their seats and is taken if nobody holds its lease."""
        wanted: list[RoomHandle] = []
        for handle in list(self.service.rooms.values()):
            if handle.lease is not None or not handle.mirror:
                continue
            if not any(not c.closed for c in handle.conns):
                handle.quiet += 1
                if handle.quiet >= QUIET_BEATS and handle.queue.empty() and handle.worker is not None:
                    handle.worker.cancel()  # nobody here needs it: its news and catching up stop
                    if self.service.rooms.get(handle.room.code) is handle:
                        del self.service.rooms[handle.room.code]
                    await self.service.broker.unfollow(handle.room.code)
                continue
            handle.quiet = 0
            self.service.mirror.tell_presence(handle, beat=True)
            if not self.service.handing_over and handle.taken is None:
                wanted.append(handle)
        if not wanted:
            return
        holders = await self.service.broker.holders([h.room.code for h in wanted])
        owned = sorted({h for h in holders if h is not None and h != self.service.broker.process})
        alive = dict(zip(owned, await self.service.broker.listening(owned), strict=True))
        for handle, holder in zip(wanted, holders, strict=True):
            if holder is not None and not alive.get(holder, True):
                self.take_when_free(handle)  # its owner died: taken the moment its lease runs out
                continue
            if holder is not None or handle.taken is not None or not handle.mirror or self.service.handing_over:
                continue
            await self.take(handle)

    async def take(self, handle: RoomHandle) -> bool:
        """Take the lease of mirrored room ``handle`` if nobody holds it (its promotion is queued
        for its worker); whether it was taken."""
        if handle.taken is not None or not handle.mirror or self.service.handing_over:
            return False
        handle.taken = await self.service.broker.acquire(handle.room.code)
        if handle.taken is None:
            return False
        handle.queue.put_nowait(Job(label="promote", call=lambda h=handle: self.promote_taken(h)))
        return True

    def take_when_free(self, handle: RoomHandle) -> None:
        """The owner of mirrored room ``handle`` stopped listening (it died): take its lease the
        moment it runs out (read from Redis), not at a later heartbeat; once per room at a time."""
        if handle.orphan is not None and not handle.orphan.done():
            return

        async def wait_and_take() -> None:
            code = handle.room.code
            with contextlib.suppress(BrokerDown):
                for _ in range(20):
                    left = await self.service.broker.lease_left(code)
                    if left is None:  # free: take it (another process may be first: it owns the room then)
                        await self.take(handle)
                        return
                    holder = await self.service.broker.holder(code)
                    if holder is None:
                        continue  # it ran out meanwhile
                    if holder == self.service.broker.process or (await self.service.broker.listening([holder]))[0]:
                        return  # a live owner (a new one, or it came back)
                    await self.service.sleep(left + 0.01)

        handle.orphan = asyncio.create_task(wait_and_take(), name=f"take-{handle.room.code}")

    async def stop(self) -> None:
        """At shutdown (:meth:`RoomService.stop`): the heartbeat stops, every lease owned here is
        given up, and the broker stops."""
        if self.heart is not None:
            self.heart.cancel()
        for handle in list(self.service.rooms.values()):
            if handle.lease is not None:
                with contextlib.suppress(BrokerDown):
                    await self.service.broker.release(handle.lease)
        await self.service.broker.stop()


def in_log(job: Job, entries: list[Any]) -> dict[str, Any] | None:
    """Whether the log ``entries`` (:class:`~getaway.web.store.LogEntry`, read after the version
    a mirror had when it first forwarded ``job``) hold ``job``'s command: its outcome as a
    forwarded command's answer (``{"seat": …}``), else ``None``. A command is known by what makes
    it one of a kind: a move by its seat, action and version (``job.version`` + 1: a seat moves
    once a version), a join by its seat token's hash (made for this join), an absence or a
    reclaim by its seat, a rematch ask by the rematch logged, anything else by its kind.

    >>> from types import SimpleNamespace as E
    >>> move = Job(Act(seat=1, action="Q♠"), version=7)
    >>> in_log(move, [E(version=8, kind="act", payload={"seat": 1, "action": "Q♠", "bot": False})])
    {'seat': 1}
    >>> in_log(move, [E(version=9, kind="act", payload={"seat": 1, "action": "Q♠", "bot": False})]) is None
    True
    """
    command = job.command
    for entry in entries:
        if command is None or entry.kind != command.kind:
            continue
        payload = entry.payload
        match command:
            case Act(seat=seat, action=action, bot=bot):
                same = entry.version == (job.version or 0) + 1 and payload.get("seat") == seat
                same = same and payload.get("action") == _action_name(action) and bool(payload.get("bot")) == bool(bot)
            case Join(token_hash=token_hash):
                same = token_hash is not None and payload.get("token_hash") == token_hash
            case Absent(seat=seat) | Reclaim(seat=seat):
                same = payload.get("seat") == seat
            case _:  # a start, a next deal, a close, a rematch asked (its Rematch logged): one a room
                same = True
        if same:
            return {"seat": payload.get("seat")}
    return None


def _action_name(action: Any) -> Any:
    """An action as the log names it (``str`` of the parsed action), or as sent if it does not parse."""
    try:
        return str(parse_action(action))
    except (InvalidActionError, TypeError):
        return action
