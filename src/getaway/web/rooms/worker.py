"""A room's one writer: the worker that takes its queue's jobs in order, applies each command to
the room, persists it (group commit: the log entries of every room that arrive while a batch is
being written go in the next batch, one transaction) and only then has the room told.

Owns: the worker loop (:meth:`Worker.run`), the database thread and the pending log entries.
Imports :mod:`.errors`, :mod:`.commands`, :mod:`.frames`, :mod:`.state` and :mod:`.handles`;
reaches the other components through the façade (never imports :mod:`.service`).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...text.i18n import N_
from .. import protocol
from ..store import NewEntry
from .commands import Act, AskRematch, Close, Command, Finish, Join, Rematch, Start
from .errors import RoomError
from .frames import encode
from .handles import Job, RoomHandle
from .state import Room, playing_humans

log = logging.getLogger("getaway.web")


class Worker:
    """The worker of every room of the service, and the database it writes to."""

    def __init__(self, service: Any) -> None:
        #: the :class:`~getaway.web.rooms.service.RoomService` façade (its settings, rooms and
        #: the other components), not imported here: the arrows point to it, not from it
        self.service = service
        self.db = ThreadPoolExecutor(
            1 if service.store.url.startswith("sqlite") else 4, thread_name_prefix="getaway-db"
        )
        self.pending: list[tuple[NewEntry, asyncio.Future[None]]] = []  # log entries to commit
        self.writer: asyncio.Task[None] | None = None  # the task committing them

    async def in_db(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in the database thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.db, lambda: fn(*args, **kwargs))

    async def write(self, entry: NewEntry) -> None:
        """Append ``entry`` to the log and return once it is committed (group commit: the
        entries of every room that arrive while a batch is being written go in the next batch,
        one transaction; bench/web_load.py).

        Raises:
            Exception: the database refused this entry.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending.append((entry, future))
        if self.writer is None or self.writer.done():
            self.writer = asyncio.create_task(self.write_pending())
        await future

    async def write_pending(self) -> None:
        """Commit the pending entries, a batch at a time, each batch one transaction."""
        while self.pending:
            batch, self.pending = self.pending, []
            try:
                results = await self.in_db(self.service.store.append_many, [entry for entry, _ in batch])
            except Exception as exc:  # the thread itself failed: every entry of the batch failed
                results = [exc] * len(batch)
            for (_, future), error in zip(batch, results, strict=True):
                if future.done():  # its worker was cancelled (shutdown)
                    continue
                if error is None:
                    future.set_result(None)
                else:
                    future.set_exception(error)

    async def work(self, handle: RoomHandle) -> None:
        """The worker of room ``handle``: its jobs one at a time, until it is closed."""
        while True:
            job = await handle.queue.get()
            try:
                result = await self.run(handle, job)
            except RoomError as exc:
                if job.future is not None and not job.future.done():
                    job.future.set_exception(exc)
            except Exception as exc:  # never let one bad job kill the room
                log.exception("room %s: %s failed", handle.room.code, job.kind)
                if job.future is not None and not job.future.done():
                    job.future.set_exception(RoomError("server_error", N_("internal error"), 500))
                del exc
            else:
                if job.future is not None and not job.future.done():
                    job.future.set_result(result)
            if handle.room.status == "closed" and handle.queue.empty():
                self.forget(handle)
                return

    async def run(self, handle: RoomHandle, job: Job) -> Any:
        """Run ``job`` (by the room's worker): a call, or a command forwarded to the owner (a
        mirror), or applied to the room, logged (committed) and told; returns the command's
        logged payload.

        Raises:
            RoomError: the command was refused (nothing changed), ``server_error`` (503: not saved).
        """
        room = handle.room
        if job.call is not None:
            result = job.call()
            return await result if inspect.isawaitable(result) else result
        if handle.mirror:  # another process owns the room
            return await self.service.cluster.forward(handle, job)
        command = job.command
        match command:
            case Finish():
                return self.service.bots.finish(handle)
            case Act() if room.status == "closed":
                raise RoomError("room_closed", N_("this room is closed"), 410)
            case Act():
                room.check_version(job.version)
        if handle.lease is not None and not await self.service.cluster.fenced(handle):
            return await self.service.cluster.forward(handle, job)  # the lease was lost: to the new owner
        fills = False  # a quick play's join taking the last free seat: the room starts then
        match command:
            case Start() if room.status == "lobby":
                await self.service.bots.start_bot_only(handle, job.address)
            case AskRematch():
                command = await self.service.matchmaking.make_rematch(handle, command)
            case Join(quick=True):
                command = self.service.matchmaking.quick_seat(handle, command)
                fills = sum(1 for seat in room.seats if seat.kind == "empty") == 1
        assert command is not None
        before = room.version
        now = self.service.clock()
        try:
            done = room.apply(command, now)
        except RoomError:
            if isinstance(command, Start):
                self.service.bots.free_slot(handle)
            raise
        logged = done.payload()
        seat_hash = (done.seat, done.token_hash) if isinstance(done, Join) else None
        record = None
        if isinstance(done, Act) and room.deal_over:  # this move ended the deal: its record, stored once
            index = room.deal_index
            assert index is not None
            record = (index, room.record(index))
        snapshot = room.snapshot() if room.status in ("between_deals", "finished", "closed") else None
        entry = NewEntry(room.code, room.version, done.kind, logged, now, room.status, seat_hash, record, snapshot)
        try:
            await self.write(entry)
        except Exception:
            # Not persisted: go back to what the database holds (the log is the truth).
            log.exception("room %s: cannot write version %d", room.code, before + 1)
            stored = await self.in_db(self.service.store.load_room, room.code)
            handle.room = Room.restore(stored)
            made = self.service.rooms.get(done.code) if isinstance(done, Rematch) else None
            if made is not None:  # a rematch room never announced: nobody will come
                made.queue.put_nowait(Job(Close("idle")))
            raise RoomError("server_error", N_("the server could not save this; try again"), 503) from None
        if handle.lease is not None:  # the next news carries it (Mirror.publish); never a join's token hash
            handle.written = None if isinstance(done, Join) else [entry.version, done.kind, logged, now]
            handle.unsent.append(handle.written)
        self.after_command(handle, done)
        if fills:  # quick play seats people only in rooms that start (docs/web.md "Lobby")
            try:
                await self.run(handle, Job(Start(), address=job.address))
            except RoomError as exc:
                log.warning("room %s: full after a quick play but not started: %s", room.code, exc.code)
        return logged

    def after_command(self, handle: RoomHandle, done: Command) -> None:
        """What follows command ``done`` once logged: sockets closed (a close), absences started
        (a start), a rematch room listed or its players moved, a public room's place in the lobby
        checked; then the room's timers planned and every socket told."""
        room = handle.room
        match done:
            case Close(reason=reason):
                self.service.mirror.publish(handle)
                closed = encode(protocol.Closed.model_construct(type="closed", reason=reason))
                for conn in list(handle.conns):
                    conn.send_text(closed)
                    conn.close()
                self.service.bots.free_slot(handle)
                return
            case Start():
                connected = handle.connected()
                for seat in playing_humans(room):
                    if seat not in connected:
                        self.service.timers.start_absence(handle, seat, announce=True)
            case Join() if handle.unlisted:
                self.service.matchmaking.seated_again(handle)
            case Rematch():
                self.service.sockets.rematch_made(handle)
        self.service.matchmaking.listed(handle)  # in the lobby still? (its creator's count, its expiry)
        self.service.timers.schedule(handle)  # first: the turn timer's deadline is in the broadcast
        self.service.sockets.broadcast(handle)

    async def drain(self, handles: list[RoomHandle], timeout: float) -> None:
        """Let the workers of ``handles`` finish the commands already queued (at most ``timeout``
        seconds; then they are cancelled), forget the rooms, and wait for the entries still being
        written (:meth:`RoomService.drain`)."""
        done: list[asyncio.Future[Any]] = []
        for handle in handles:  # last in each queue: nothing can be queued once draining (submit)
            if handle.worker is not None and not handle.worker.done():
                future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
                handle.queue.put_nowait(Job(label="drain", call=lambda: None, future=future))
                done.append(future)
        if done:
            await asyncio.wait(done, timeout=timeout)
        for handle in handles:
            if handle.worker is not None:
                handle.worker.cancel()
                with contextlib.suppress(BaseException):
                    await handle.worker
            self.forget(handle)
        if self.writer is not None:  # entries still being written (a cancelled worker's)
            with contextlib.suppress(BaseException):
                await self.writer

    def forget(self, handle: RoomHandle) -> None:
        """Drop room ``handle`` from this process (closed, drained): its timers stop, its slot is
        freed, its reads come from the database again (shared: its lease is given up)."""
        for task in handle.planned():
            task.cancel()
        self.service.bots.free_slot(handle)
        self.service.matchmaking.forgotten(handle)
        if self.service.rooms.get(handle.room.code) is handle:
            del self.service.rooms[handle.room.code]
        self.service.reads.drop(handle.room.code)
        if self.service.shared:
            self.service.background(self.service.cluster.let_go(handle))
