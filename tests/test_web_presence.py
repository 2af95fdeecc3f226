"""A mirror's presence (web/rooms/mirror.py ``Mirror.tell_presence``; issue 26 item 3): a
change of its seats is told to the owner at once; unchanged seats only every
``PRESENCE_BEATS`` heartbeats (a sealed request and answer through Redis per room was the
largest cost of a mirrored room), well within the owner's ``PRESENCE_STALE_BEATS``."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from getaway.web.rooms.handles import PRESENCE_BEATS, PRESENCE_STALE_BEATS
from getaway.web.rooms.mirror import Mirror


class _Broker:
    process = "p-mirror"

    def __init__(self) -> None:
        self.told: list[dict] = []

    async def forward(self, code: str, body: dict, timeout: float) -> dict:
        self.told.append(body)
        return {}


def _mirror() -> tuple[Mirror, SimpleNamespace, _Broker]:
    broker = _Broker()
    service = SimpleNamespace(
        broker=broker,
        background=lambda coro: asyncio.get_running_loop().create_task(coro),
        timers=SimpleNamespace(local_pace=lambda handle: 1.0),
    )
    seats = {1}
    handle = SimpleNamespace(
        room=SimpleNamespace(code="R1"), conns=set(), told=None, told_beats=0, local_seats=lambda: set(seats)
    )
    handle.seats = seats
    return Mirror(service), handle, broker


def test_unchanged_presence_is_told_every_few_beats_and_a_change_at_once():
    async def scenario() -> list[int]:
        mirror, handle, broker = _mirror()
        counts = []
        for beat in range(4 * PRESENCE_BEATS):
            if beat == 5:
                handle.seats.add(2)  # a socket came (sockets.py tells it at once too)
            mirror.tell_presence(handle, beat=True)
            await asyncio.sleep(0)
            counts.append(len(broker.told))
        mirror.tell_presence(handle)  # not a beat: always told
        await asyncio.sleep(0)
        assert len(broker.told) == counts[-1] + 1
        told = {"kind": "presence", "process": "p-mirror", "seats": [1, 2], "host": False, "pace": 1.0}
        assert broker.told[-1] == told
        return counts

    counts = asyncio.run(scenario())
    sent_at = [i for i, n in enumerate(counts) if n > (counts[i - 1] if i else 0)]
    assert sent_at[0] == 0 and 5 in sent_at  # the first and the change, at once
    gaps = [b - a for a, b in zip(sent_at, sent_at[1:], strict=False)]
    assert max(gaps) <= PRESENCE_BEATS < PRESENCE_STALE_BEATS
    assert len(sent_at) < len(counts)  # fewer than one a beat
