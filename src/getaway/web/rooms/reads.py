"""The HTTP reads of rooms (public state, history, records, rules): from memory for an open room,
else from the stored snapshot and records, kept in small caches (a room not in memory changes
only once it is opened again, which drops them).

Owns: the read caches and the reader threads. Imports :mod:`.errors`, :mod:`.checks` and
:mod:`.state`; never :mod:`.service`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from ...core.rules import Rules
from ...text.i18n import N_
from ..store import RoomSummary
from .checks import check_config
from .errors import RoomError
from .state import Room

log = logging.getLogger("getaway.web")

#: Rooms rebuilt from their log for reads (rooms made before stored snapshots) kept in memory.
REPLAYED_ROOMS: Final = 16

#: Snapshots and records of rooms not in memory kept for reads (each).
READ_CACHE: Final = 512


def remember(cache: OrderedDict[Any, Any], key: Any, value: Any, size: int) -> None:
    """Keep ``value`` under ``key`` in ``cache``, the least recently kept dropped beyond ``size``."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


class Reads:
    """The read routes' answers and their caches."""

    def __init__(self, service: Any) -> None:
        #: the :class:`~getaway.web.rooms.service.RoomService` façade (its settings, rooms and
        #: the other components), not imported here: the arrows point to it, not from it
        self.service = service
        self.reader = ThreadPoolExecutor(2, thread_name_prefix="getaway-read")  # reads, off the writer's thread
        self.replayed: OrderedDict[str, Room] = OrderedDict()  # reads of rooms without a fresh snapshot
        # Reads of rooms not in memory, kept: such a room changes only once it is opened again
        # (then reads come from memory, and forgetting it drops these).
        self.snapshots: OrderedDict[str, tuple[RoomSummary, dict[str, Any]]] = OrderedDict()
        self.records: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()

    async def in_reader(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a reader thread (off the event loop and the writer's thread)."""
        return await asyncio.get_running_loop().run_in_executor(self.reader, lambda: fn(*args))

    async def summary(self, code: str) -> tuple[RoomSummary, dict[str, Any]]:
        """A room that is not in memory: its stored row and its ``{"public", "history"}`` from
        the stored snapshot (one row read), or, if the snapshot is missing or older than the
        room, from a replay of its log (kept: :data:`REPLAYED_ROOMS`).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        if len(code) > 16 or not (code.isascii() and code.isalnum()):  # no query for what no code can be
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code[:16])
        known = self.snapshots.get(code)
        if known is not None:
            self.snapshots.move_to_end(code)
            return known
        summary = await self.in_reader(self.service.store.read_room, code)
        if summary is None:
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code)
        snap = summary.snapshot
        if snap is None or snap["public"]["version"] != summary.version:
            snap = (await self.replay(code, summary.version)).snapshot()
        if code not in self.service.rooms:  # not opened meanwhile
            remember(self.snapshots, code, (summary, snap), READ_CACHE)
        return summary, snap

    async def replay(self, code: str, version: int) -> Room:
        """Room ``code`` rebuilt from its log at ``version`` (kept: :data:`REPLAYED_ROOMS`).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        room = self.replayed.get(code)
        if room is None or room.version != version:
            stored = await self.in_reader(self.service.store.load_room, code)
            if stored is None:
                raise RoomError("room_not_found", N_("no room {code}"), 404, code=code)
            room = await self.in_reader(Room.restore, stored)
            self.replayed[code] = room
            while len(self.replayed) > REPLAYED_ROOMS:
                self.replayed.popitem(last=False)
        self.replayed.move_to_end(code)
        return room

    async def read_public(self, code: str) -> dict[str, Any]:
        """``GET /api/rooms/{code}``: the public room state (from memory, else the snapshot).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        code = str(code).upper()
        handle = self.service.rooms.get(code)
        if handle is not None:
            return handle.room.public(handle.connected())
        return (await self.summary(code))[1]["public"]

    async def read_history(self, code: str) -> dict[str, Any]:
        """``GET /api/rooms/{code}/history`` (from memory, else the snapshot).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        code = str(code).upper()
        handle = self.service.rooms.get(code)
        if handle is not None:
            return handle.room.history()
        return (await self.summary(code))[1]["history"]

    async def read_record(self, code: str, index: int) -> dict[str, Any]:
        """``GET /api/rooms/{code}/deals/{index}/record``: the record stored when the deal ended
        (one row read; a live room's from memory, but a mirror's that has not heard of the deal's
        end yet: the row its owner stored).

        Raises:
            RoomError: ``room_not_found``, ``not_found`` (no such deal, 404), ``not_over`` (409).
        """
        code = str(code).upper()
        handle = self.service.rooms.get(code)
        if handle is not None:
            try:
                return handle.room.record(index)
            except RoomError as exc:  # a mirror a moment behind its owner: the stored record
                if not (handle.mirror and exc.code == "not_over"):
                    raise
        summary, snap = await self.summary(code)
        record = self.records.get((code, index))
        if record is None:
            record = await self.in_reader(self.service.store.read_record, code, index)
        if record is not None:
            if code not in self.service.rooms:
                remember(self.records, (code, index), record, READ_CACHE)
            return record
        finished = {d["index"] for d in snap["history"]["deals"]}
        started = snap["public"]["deal_index"]
        if started is None or not 0 <= index <= started:
            raise RoomError("not_found", N_("no deal {index} in this room"), 404, index=index)
        if index not in finished:
            raise RoomError("not_over", N_("deal {index} is not over"), 409, index=index)
        return (await self.replay(code, summary.version)).record(index)  # a room from before stored records

    async def read_rules(self, code: str) -> Rules:
        """The rules of room ``code`` (``GET /api/rules/{lang}?code=``).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        code = str(code).upper()
        handle = self.service.rooms.get(code)
        if handle is not None:
            return handle.room.rules
        if len(code) > 16 or not (code.isascii() and code.isalnum()):  # no query for what no code can be
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code[:16])
        summary = await self.in_reader(self.service.store.read_room, code)
        if summary is None:
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code)
        return check_config(summary.config)[1]

    def drop(self, code: str) -> None:
        """Forget what reads kept of room ``code`` (it is opened, or changed)."""
        self.snapshots.pop(code, None)
        self.replayed.pop(code, None)
        for key in [k for k in self.records if k[0] == code]:
            del self.records[key]

    def report(self) -> dict[str, Any]:
        """What an operator reads of this process now (``GET /stats``: the fields of
        :class:`~getaway.web.protocol.Stats`): ``draining``, counts of ``rooms``, the ``bots``
        workers (:meth:`BotPool.report`; ``None``: threads) and the lease ``heartbeat`` (``None``:
        alone). Counts only: no room code, address, seat or card."""
        handles = list(self.service.rooms.values())
        rooms = {
            "open": len(handles),
            "owned": sum(1 for h in handles if not h.mirror),
            "mirrored": sum(1 for h in handles if h.mirror),
            "bots_alone": sum(1 for h in handles if h.slot),
            "paused": sum(1 for h in handles if h.paused),
        }
        bots = self.service.botpool.report() if self.service.botpool is not None else None
        heartbeat = dict(self.service.heartbeat) if self.service.shared else None
        return {"draining": self.service.draining, "rooms": rooms, "bots": bots, "heartbeat": heartbeat}
