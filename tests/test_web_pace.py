"""A pace people can follow (issue 24, item 4), on the server: while a person watches a room, a
finished trick stays on the table ``LEAD_HOLD`` (1.7 s: the page's 1.3 s linger and the start of
its sweep) before the next lead, whatever the room's
options (takes off too: no take window holds it); the page tells its speed (``hello``'s
``speed``, the ``speed`` message) and the room's linger and bots' delay follow the slowest of its
sockets' (relaxed ×1.6, fast ×0.6); a room nobody watches loses no time. The browser side is in
tests/test_web_window_e2e.py (the linger measured from the DOM at each speed)."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import pytest

from getaway.web.protocol import SetSpeed, client_error, parse_client, refusal
from getaway.web.rooms import RoomError, RoomService
from getaway.web.rooms.timers import LEAD_HOLD, LINGER, PACES, SWEEP
from getaway.web.store import Store
from test_web_play import FakeClock, FirstBot

pytestmark = pytest.mark.timeout(60)

STATIC = Path(__file__).resolve().parents[1] / "src" / "getaway" / "web" / "static"
DELAY = 0.7
HOLD = round(LEAD_HOLD, 9)  # 1.7 s (as the fake clock's differences are rounded)
PUNJAB = {"profile": "punjab", "players": 3, "deals": 1, "bot_level": "easy", "options": {"takes": "off"}}


def _between_tricks(room) -> tuple[int, int] | None:
    """A finished trick on the table, the next lead to come (read from the deal, not the timers)."""
    if room.status != "playing":
        return None
    deal = room.match.deal
    if deal.is_over or deal.decision != "play" or deal.trick or not deal.tricks_played:
        return None
    return (room.deal_index, deal.tricks_played)


async def _play(
    config: dict[str, Any] | None = None,
    *,
    speed: str | None = None,
    human: bool = True,
    spectator: str | None = None,
    change: str | None = None,
) -> dict[str, list[float]]:
    """One deal (the human, seat 0, plays its first legal card at once) on a fake clock: the
    bots' leads after a finished trick (seconds after the trick was resolved), the bots' other
    moves (seconds after the previous move) and the human's leads after a finished trick
    (seconds held). ``speed``: the human's page's (hello), ``spectator``: a spectator's socket
    with that speed, ``change``: the human's page tells this speed after its hello."""
    clock = FakeClock()
    service = RoomService(Store("sqlite://"), bot_delay=DELAY, grace=0.01, timer=clock.now, sleep=clock.sleep)
    await service.start()
    try:
        answer = await service.create(dict(PUNJAB, **(config or {})), "Asha" if human else None)
        handle = service.rooms[answer["code"]]
        handle.bot = FirstBot()
        service.timers.plan_turn_timer = lambda handle: None  # type: ignore[method-assign]
        conn = None
        if human:
            hello = {"type": "hello", "token": answer["token"], **({"speed": speed} if speed else {})}
            conn = await service.attach(handle, hello)
            if change:
                await service.message(handle, conn, {"type": "speed", "speed": change})
        if spectator:
            await service.attach(handle, {"type": "hello", "spectate": True, "speed": spectator})
        got: dict[str, list[float]] = {"bot_leads": [], "bot_moves": [], "human_leads": []}
        ended: dict[tuple[int, int], float] = {}
        last = [clock.now()]
        original, apply = service.submit, handle.room.apply

        async def submit(h, job):
            trick = _between_tricks(h.room)
            if job.kind == "act" and job.payload.get("bot"):
                if trick is not None:
                    got["bot_leads"].append(round(clock.now() - ended[trick], 9))
                elif h.room.match.deal.trick:
                    got["bot_moves"].append(round(clock.now() - last[0], 9))
            return await original(h, job)

        def applied(command, now):  # the worker applies a command: a trick may end here
            result = apply(command, now)
            last[0] = clock.now()
            trick = _between_tricks(handle.room)
            if trick is not None:
                ended.setdefault(trick, clock.now())
            return result

        handle.room.apply = applied  # type: ignore[method-assign]
        service.submit = submit  # type: ignore[method-assign]
        await service.start_match(answer["code"], answer["host_token"])
        deadline = time.monotonic() + 30
        while handle.room.status == "playing":
            assert time.monotonic() < deadline, "the deal did not end"
            room = handle.room
            if conn is not None and room.to_act() == 0 and not room.seats[0].bot_playing:
                card = room.view(0).legal_actions[0]
                before = clock.now()
                trick = _between_tricks(room)
                await service.message(handle, conn, {"type": "act", "action": str(card), "version": room.version})
                if trick is not None:
                    got["human_leads"].append(round(clock.now() - before, 9))
            else:
                await asyncio.sleep(0.001)
        return got
    finally:
        await service.stop()


def test_a_finished_trick_lingers_before_a_bots_lead_with_takes_off():
    for _ in range(6):  # who wins the tricks is dealt (an unseeded shuffle): a deal with few bot leads, another
        got = asyncio.run(_play())
        if len(got["bot_leads"]) >= 3:
            break
    assert len(got["bot_leads"]) >= 3, got
    assert set(got["bot_leads"]) == {HOLD}, got["bot_leads"]  # not the bot delay (0.7 s): 1.7 s
    assert set(got["bot_moves"]) == {DELAY}, got["bot_moves"]  # the other moves keep the bot delay


@pytest.mark.parametrize("speed", ["relaxed", "fast"])
def test_the_pages_speed_scales_the_linger_and_the_bots_delay(speed):
    got = asyncio.run(_play(speed=speed))
    factor = PACES[speed]
    assert got["bot_leads"] and set(got["bot_leads"]) == {round(LEAD_HOLD * factor, 9)}, got["bot_leads"]
    assert got["bot_moves"] and set(got["bot_moves"]) == {round(DELAY * factor, 9)}, got["bot_moves"]


def test_a_speed_message_changes_the_pace_and_the_slowest_socket_sets_it():
    told = asyncio.run(_play(speed="normal", change="fast"))  # the page's select changed after its hello
    assert set(told["bot_moves"]) == {round(DELAY * PACES["fast"], 9)}, told["bot_moves"]
    both = asyncio.run(_play(speed="fast", spectator="relaxed"))  # the slowest person watching
    assert set(both["bot_leads"]) == {round(LEAD_HOLD * PACES["relaxed"], 9)}, both["bot_leads"]
    assert set(both["bot_moves"]) == {round(DELAY * PACES["relaxed"], 9)}, both["bot_moves"]


def test_a_room_nobody_watches_loses_no_time():
    got = asyncio.run(_play(human=False))
    assert got["bot_leads"] and set(got["bot_leads"]) == {DELAY}, got["bot_leads"]  # no linger
    assert set(got["bot_moves"]) == {DELAY}


def test_a_humans_lead_is_held_for_the_linger_only_while_someone_else_watches():
    # our own pace: never held (the fake clock is shared: a bot's sleep meanwhile may add to one;
    # a deal where we never win a trick gives no lead of ours: play another)
    alone: list[float] = []
    for _ in range(6):
        alone += asyncio.run(_play())["human_leads"]
        if 0.0 in alone:
            break
    assert alone and 0.0 in alone and max(alone) < HOLD, alone
    # our lead comes at once after the bots' last card of the trick: held until the trick lingered
    # (a bot's sleep on the shared fake clock may add to one, so deals are played until one of
    # our leads shows the hold alone)
    leads: list[float] = []
    for _ in range(6):
        watched = asyncio.run(_play(spectator="normal"))
        leads += watched["human_leads"]
        if HOLD in watched["human_leads"]:
            break
    assert leads and 0.0 not in leads, leads
    assert HOLD in leads, leads


def test_a_speed_is_one_of_three_and_the_page_says_the_same_factors():
    assert parse_client('{"type": "speed", "speed": "relaxed"}') == SetSpeed(type="speed", speed="relaxed")
    bads = (
        '{"type": "speed", "speed": "warp"}',
        '{"type": "speed"}',
        '{"type": "hello", "spectate": true, "speed": 2}',
    )
    for bad in bads:
        assert refusal(client_error(bad)).code == "bad_message"
    motion = (STATIC / "motion.js").read_text()
    speeds = dict(re.findall(r"(\w+): ([\d.]+)", re.search(r"SPEEDS = \{([^}]*)\}", motion).group(1)))
    assert {k: float(v) for k, v in speeds.items()} == PACES  # one pace, page and server
    linger = re.search(r"export const LINGER = (\d+);", (STATIC / "table.js").read_text()).group(1)
    assert int(linger) / 1000 == LINGER
    flight = re.search(r"export function flyAway\(.*duration = (\d+)", motion).group(1)
    assert int(flight) / 1000 >= SWEEP  # the lead waits for part of the sweep, not longer


def test_a_bad_speed_in_a_hello_is_refused_and_attaches_nothing():
    async def main():
        service = RoomService(Store("sqlite://"), bot_delay=0)
        await service.start()
        try:
            answer = await service.create(dict(PUNJAB), "Asha")
            handle = service.rooms[answer["code"]]
            with pytest.raises(RoomError) as info:
                await service.attach(handle, {"type": "hello", "token": answer["token"], "speed": "warp"})
            assert info.value.code == "bad_message" and not handle.conns
        finally:
            await service.stop()

    asyncio.run(main())


def test_a_mirror_holds_no_move_when_the_room_has_no_take_window():
    """A mirror (a process with sockets in a room another owns) notes a take window only when the
    room has one, as the owner does (``Timers.plan_takes``): with takes off, the news of each
    version opened a "window" there, and every move of its sockets was held the bot delay
    (bench/web_cluster.py: echo p90 710 ms across 2 processes, 9 ms on one)."""

    async def run() -> tuple[Any, list[float]]:
        clock = FakeClock()
        service = RoomService(Store("sqlite://"), bot_delay=DELAY, grace=0.01, timer=clock.now, sleep=clock.sleep)
        await service.start()
        try:
            answer = await service.create(dict(PUNJAB), "Asha")
            handle = service.rooms[answer["code"]]
            await service.start_match(answer["code"], answer["host_token"])
            handle.mirror = True  # as if another process owned it: the news says the version
            room = handle.room
            await service.mirror.heard(handle, {"v": room.version, "connected": [0], "turn_ends_in": None})
            assert not room.take_window()
            before = len(clock.slept)  # the bots' own turns may have slept already (who leads is dealt)
            await service.timers.hold_lead(handle, "2♣", 0)  # any card: a hold does not judge it
            return handle.window, clock.slept[before:]
        finally:
            await service.stop()

    window, slept = asyncio.run(run())
    assert window is None and not [s for s in slept if s >= DELAY / 2], (window, slept)
