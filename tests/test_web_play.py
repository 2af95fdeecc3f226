"""The table's play flow on the server (issue 15, items 1, 2, 5): takes by the ``interject``
protocol with a fixed window after each trick (R-P-TAKE), the turn timer, and finishing a deal
at once when no human is left to act. The browser side is in tests/test_web_e2e.py."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from getaway.core.events import PASS, TAKE
from getaway.web.rooms import TAKE_MOMENT, Room, RoomError, RoomService, check_config, live_config
from getaway.web.rooms.handles import job_of as _Job
from getaway.web.store import Store

pytestmark = pytest.mark.timeout(60)

PUNJAB = {"profile": "punjab", "players": 3, "deals": 1, "bot_level": "easy"}


class FakeClock:
    """A monotonic clock that moves only when something sleeps on it."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds
        await asyncio.sleep(0)


class FirstBot:
    """Plays its first legal action that is not a take (never takes on its own turn)."""

    name = "first"

    def act(self, view, legal, rng):
        return next((a for a in legal if a is not TAKE), legal[0])


class SmallHandTaker(FirstBot):
    """Plays as :class:`FirstBot` on its turn; asked to take in a take window (``[TAKE, PASS]``),
    takes once its own hand is small (a decision that depends on what it holds)."""

    name = "taker"

    def act(self, view, legal, rng):
        if list(legal) == [TAKE, PASS]:
            return TAKE if len(view.hand) <= 4 else PASS
        return super().act(view, legal, rng)


def test_new_punjab_rooms_take_by_interject_and_old_configs_keep_theirs():
    assert live_config(PUNJAB)["options"]["take_protocol"] == "interject"
    assert live_config(dict(PUNJAB, options={"take_protocol": "poll"}))["options"]["take_protocol"] == "poll"
    assert "take_protocol" not in live_config(dict(PUNJAB, profile="classic"))["options"]  # no takes at all
    # a room stored before (no take_protocol in its options) is rebuilt as it was played: poll
    config, rules = check_config(PUNJAB)
    assert rules.take_protocol == "poll" and Room("X", config, 1, "h", 0.0).rules.take_protocol == "poll"


def test_turn_time_is_a_checked_room_option():
    assert "turn_time" not in check_config(PUNJAB)[0]  # the default is not stored
    assert check_config(dict(PUNJAB, turn_time=5))[0]["turn_time"] == 5
    for bad in (0, 601, True, 2.5, "5"):
        with pytest.raises(RoomError, match="turn_time"):
            check_config(dict(PUNJAB, turn_time=bad))


def test_bots_take_at_a_fixed_moment_and_every_lead_waits_the_bot_delay():
    """In a bot-only interject room, every bot take is sent at TAKE_MOMENT of the window that
    opened after a trick, and every lead no earlier than the full delay, whatever the bots hold."""

    async def main():
        clock = FakeClock()
        service = RoomService(Store("sqlite://"), bot_delay=0.7, timer=clock.now, sleep=clock.sleep)
        await service.start()
        try:
            answer = await service.create(dict(PUNJAB))
            handle = service.rooms[answer["code"]]
            handle.bot = SmallHandTaker()
            sent: list[tuple[str, float]] = []
            original = service.submit

            async def submit(h, job):
                window = h.window
                if job.kind == "act" and job.payload.get("bot") and window and window[0] == h.room.version:
                    sent.append((job.payload["action"], round(service.timer() - window[1], 9)))  # in a take window
                return await original(h, job)

            service.submit = submit  # type: ignore[method-assign]
            await service.start_match(answer["code"], answer["host_token"])
            deadline = time.monotonic() + 30
            while handle.room.status != "finished":
                assert time.monotonic() < deadline, "the room did not finish"
                await asyncio.sleep(0.001)
            return sent, handle.room
        finally:
            await service.stop()

    sent, room = asyncio.run(main())
    takes = {t for action, t in sent if action == "take"}
    leads = {t for action, t in sent if action != "take"}
    assert takes == {round(TAKE_MOMENT * 0.7, 9)}, takes  # at least one take, all at the same moment
    assert leads and min(leads) >= 0.7, leads
    assert room.match.deal.outcome is not None and room.match.deal.takes  # the takes were applied


class SearchingTaker(SmallHandTaker):
    """:class:`SmallHandTaker` with a ``time_limit``: a searching bot (its decisions off the loop)."""

    time_limit = None


@pytest.mark.parametrize("bot", [SmallHandTaker, SearchingTaker])
def test_the_bots_takes_are_the_rooms_own_bots_decisions(bot):
    """Every take of a room's bots is asked of the room's bot (its level's), searching or not:
    no other bot decides them (R-P-TAKE)."""

    async def main():
        clock = FakeClock()
        service = RoomService(Store("sqlite://"), bot_delay=0.7, timer=clock.now, sleep=clock.sleep)
        await service.start()
        try:
            answer = await service.create(dict(PUNJAB, bot_level="medium"))
            handle = service.rooms[answer["code"]]
            assert handle.bot.name == "heuristic" and handle.bot.noise == 0.25  # the level's bot
            asked: list[int] = []
            handle.bot = bot()
            act = handle.bot.act

            def spy(view, legal, rng):
                if list(legal) == [TAKE, PASS]:
                    asked.append(view.seat)
                return act(view, legal, rng)

            handle.bot.act = spy  # type: ignore[method-assign]
            await service.start_match(answer["code"], answer["host_token"])
            deadline = time.monotonic() + 30
            while handle.room.status != "finished":
                assert time.monotonic() < deadline, "the room did not finish"
                await asyncio.sleep(0.001)
            return asked, handle.room
        finally:
            await service.stop()

    asked, room = asyncio.run(main())
    assert asked, "the room's bot was never asked to take"
    assert room.match.deal.takes  # its takes were applied


async def _human_room(service: RoomService, **config: Any) -> tuple[Any, Any, dict[str, Any]]:
    answer = await service.create(dict(PUNJAB, **config), "Asha")
    handle = service.rooms[answer["code"]]
    conn = await service.attach(handle, {"type": "hello", "token": answer["token"]})
    return handle, conn, answer


def _messages(conn) -> list[dict[str, Any]]:
    out = []
    while not conn.outbox.empty():
        text = conn.outbox.get_nowait()
        if text is not None:
            out.append(json.loads(text))
    return out


def test_a_human_who_does_not_act_in_the_turn_time_is_played_by_a_bot_and_away_until_back():
    async def main():
        clock = FakeClock()
        service = RoomService(Store("sqlite://"), bot_delay=0.0, timer=clock.now, sleep=clock.sleep)
        await service.start()
        try:
            handle, conn, answer = await _human_room(service, turn_time=5)
            await service.start_match(answer["code"], answer["host_token"])
            deadline = time.monotonic() + 20
            seen: list[dict[str, Any]] = []
            while not handle.room.seats[0].bot_playing:
                assert time.monotonic() < deadline, "the turn timer never ran out"
                seen += _messages(conn)  # read as they come (a full outbox would close the socket)
                await asyncio.sleep(0.001)
            waited = clock.slept  # the timer's wait is the only sleep (no bot delay)
            timed = [m.get("turn_ends_in") for m in seen + _messages(conn) if m["type"] in ("welcome", "update")]
            await service.message(handle, conn, {"type": "back"})
            return waited, timed, handle.room.seats[0].bot_playing
        finally:
            await service.stop()

    waited, timed, away_after_back = asyncio.run(main())
    assert waited and set(waited) == {5}  # the turn time, not less
    assert 5.0 in timed  # the countdown's start was sent with the turn
    assert not away_after_back


def test_finish_plays_the_rest_at_once_only_when_no_human_is_left_to_act():
    async def main():
        service = RoomService(Store("sqlite://"), bot_delay=30.0)  # a deal at this delay would take minutes
        await service.start()
        try:
            handle, conn, answer = await _human_room(service)
            await service.start_match(answer["code"], answer["host_token"])
            await service.message(handle, conn, {"type": "finish"})
            await asyncio.sleep(0.05)
            refused = [m["code"] for m in _messages(conn) if m["type"] == "error"]
            await service.submit(handle, _Job("absent", {"seat": 0}))  # the human is away: bots play it
            await service.message(handle, conn, {"type": "finish"})
            deadline = time.monotonic() + 30
            while handle.room.status == "playing":
                assert time.monotonic() < deadline, "finish did not finish the deal"
                await asyncio.sleep(0.01)
            return refused, handle.room.status
        finally:
            await service.stop()

    refused, status = asyncio.run(main())
    assert refused == ["not_now"]
    assert status == "finished"


def test_a_human_lead_waits_the_take_window_as_a_bots_would():
    """A human due to lead who plays at once is held until the window has lasted the bot delay."""

    async def main():
        clock = FakeClock()
        service = RoomService(Store("sqlite://"), bot_delay=0.7, timer=clock.now, sleep=clock.sleep)
        await service.start()
        try:
            handle, conn, answer = await _human_room(service, turn_time=600)
            handle.bot = FirstBot()  # bots never take
            await service.start_match(answer["code"], answer["host_token"])
            deadline = time.monotonic() + 20
            held = []
            while handle.room.status == "playing" and len(held) < 3:
                assert time.monotonic() < deadline, "no lead of ours came"
                room = handle.room
                if room.to_act() == 0 and room.take_window() and handle.window and handle.window[0] == room.version:
                    opened = handle.window[1]
                    card = next(a for a in room.view(0).legal_actions if a is not TAKE)
                    await service.message(handle, conn, {"type": "act", "action": str(card), "version": room.version})
                    held.append(round(clock.now() - opened, 9))
                elif room.to_act() == 0:
                    card = room.view(0).legal_actions[0]
                    await service.message(handle, conn, {"type": "act", "action": str(card), "version": room.version})
                else:
                    await asyncio.sleep(0.001)
            return held
        finally:
            await service.stop()

    held: list[float] = []
    for _ in range(8):  # deals where we never win a trick give no lead of ours: play another room
        held += asyncio.run(main())
        if held:
            break
    assert held and all(t >= 0.7 for t in held), held
