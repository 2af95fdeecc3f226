"""Rooms that no player can cheat and no visitor can knock over (issue 13, items 1, 2, 3, 5, 11):
secret deal seeds, bot moves at a fixed delay, bounded bot work, host close, reads without
replays, and the authority edges (versions ahead, a human on a bot's seat)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
import time
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import update

from getaway import Rules
from getaway.core.match import Match, MatchError, secret_deal_seed
from getaway.text.cli import cli
from getaway.web.rooms import Connection, Room, RoomError, RoomService, hash_token, room_bot
from getaway.web.rooms.commands import logged
from getaway.web.rooms.handles import job_of as _Job
from getaway.web.store import Store, rooms
from web_helpers import Player, check_authority, create_room, drain_to, make_client, play_deal

pytestmark = pytest.mark.timeout(60)

# Poll rooms (made before interject was the default) still play; the interject window has its own tests.
CONFIG = {
    "profile": "punjab",
    "players": 3,
    "deals": 1,
    "options": {"takes": "any", "take_protocol": "poll"},
    "bot_level": "easy",
}


def _host(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# --------------------------------------------------------------------------- 1. secret seeds


def test_a_match_secret_gives_128_bit_deal_seeds_that_replay():
    rules = Rules.profile("punjab", deals=40)
    secret = bytes(range(32))
    match = Match(rules, 4, 5, secret=secret)
    seeds = [secret_deal_seed(secret, i) for i in range(40)]
    assert match.deal.seed == seeds[0]
    assert all(s < 2**128 for s in seeds) and max(s.bit_length() for s in seeds) == 128
    assert len(set(seeds)) == 40
    # a seeded match is what it was (32-bit seeds from the match seed), for simulation and records
    assert Match(rules, 4, 5).deal.seed == 3185950873  # as before this issue
    resumed = Match.from_dict(match.to_dict())
    assert resumed.deal.seed == match.deal.seed and resumed.secret == secret
    for bad in (b"short", "not bytes"):
        with pytest.raises(MatchError, match="secret"):
            Match(rules, 4, 5, secret=bad)  # type: ignore[arg-type]


def test_a_room_deals_from_its_secret_and_restores_it(tmp_path):
    with make_client(tmp_path) as client:
        room = create_room(client, deals=2, players=3)
        code = room["code"]
        client.post(f"/api/rooms/{code}/start", headers=_host(room["host_token"]))
        service = client.app.state.service
        live = service.rooms[code].room
        for _ in range(500):  # the bots play at once up to Asha's turn (and that is committed)
            stored = service.store.load_room(code)
            if live.to_act() == 0 and len(stored.log) == live.version:
                break
            time.sleep(0.01)
        assert stored.secret is not None and len(stored.secret) == 32  # 256 bits from secrets
        assert live.match.deal.seed == secret_deal_seed(stored.secret, 0)
        # the stored room replays to the very same deal (a restart resumes it exactly)
        again = Room.restore(stored)
        assert again.version == live.version and again.match.deal.snapshot() == live.match.deal.snapshot()


def test_no_message_before_a_deal_ends_carries_its_seed_or_the_secret():
    with make_client(grace=0.2) as client:
        room = create_room(client, deals=2, players=3)
        code = room["code"]
        with client.websocket_connect(f"/ws/{code}") as ws, client.websocket_connect(f"/ws/{code}") as ws_s:
            asha, spec = Player(ws, "asha"), Player(ws_s, "spectator")
            asha.hello(token=room["token"])
            spec.hello(spectate=True)
            asha.send(type="start")
            drain_to(asha, 2)
            play_deal([asha], random.Random(1))
            asha.send(type="next")
            asha.until(lambda m: m["type"] == "update" and m["room"]["deal_index"] == 1)
            play_deal([asha], random.Random(2), stop=lambda ps: ps[0].view["tricks_played"] >= 2)
            spec.send(type="ping")
            spec.until(lambda m: m["type"] == "pong")
        service = client.app.state.service
        stored = service.store.load_room(code)
        deals = service.rooms[code].room.match.deals
        texts = [(json.dumps(m, ensure_ascii=False), m) for m in asha.seen + spec.seen]
        assert stored.secret.hex() not in " ".join(t for t, _ in texts)
        assert str(stored.seed) not in " ".join(t for t, _ in texts)
        second = str(deals[1].seed)
        assert not any(second in t for t, _ in texts), "the seed of the deal in play was sent"
        first = str(deals[0].seed)
        # the first deal's seed appears only once it is over (in its record, over HTTP), never in a message
        assert not any(first in t for t, _ in texts)
        assert client.get(f"/api/rooms/{code}/deals/0/record").json()["seed"] == deals[0].seed
        assert client.get(f"/api/rooms/{code}/deals/1/record").json()["error"]["code"] == "not_over"


def test_the_terminal_game_shows_no_seed_unless_asked(monkeypatch):
    made: list[Match] = []
    original = Match.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Match, "__init__", spy)
    res = CliRunner().invoke(cli, ["play", "--bots", "easy", "--lang", "en"], input="quit\nno\n")
    assert res.exit_code == 0, res.output
    assert "seed" not in res.output.splitlines()[0] and made[-1].secret is not None
    assert len(made[-1].secret) == 32 and made[-1].deal.seed == secret_deal_seed(made[-1].secret, 0)
    res = CliRunner().invoke(cli, ["play", "--seed", "7", "--bots", "easy", "--lang", "en"], input="quit\nno\n")
    assert "seed 7" in res.output and made[-1].secret is None


# --------------------------------------------------------------------------- 2. fixed bot delay


class FakeClock:
    """A monotonic clock that only moves when told (sleeps and the fake bot's thinking)."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.lock = threading.Lock()

    def now(self) -> float:
        with self.lock:
            return self.t

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.t += seconds

    async def sleep(self, seconds: float) -> None:
        self.advance(seconds)
        await asyncio.sleep(0)


class ThinkingBot:
    """A bot whose thinking time depends on what it holds (as the real searching bots' does):
    ``per_card`` seconds per legal action, on the fake clock."""

    name = "thinking"

    def __init__(self, clock: FakeClock, per_card: float) -> None:
        self.clock = clock
        self.per_card = per_card
        self.decisions: list[str] = []

    def act(self, view, legal, rng):
        self.decisions.append(view.decision)
        self.clock.advance(self.per_card * len(legal))
        return legal[-1]


async def _bot_room(service: RoomService, bot, config=CONFIG) -> tuple[str, list[tuple[float, float]]]:
    """Play a bot-only room to its end with ``bot`` in every seat; returns its code and, per bot
    move, (turn began, time the move was submitted) on the service's timer."""
    answer = await service.create(dict(config))
    code = answer["code"]
    handle = service.rooms[code]
    handle.bot = bot
    times: list[tuple[float, float]] = []
    began: dict[int, float] = {}
    original_move, original_submit = service.bots.move, service.submit

    async def bot_move(h, version, seat, start):
        began[version] = start
        await original_move(h, version, seat, start)

    async def submit(h, job):
        if job.kind == "act" and job.payload.get("bot"):
            times.append((began[job.version], service.timer()))
        return await original_submit(h, job)

    service.bots.move, service.submit = bot_move, submit  # type: ignore[method-assign]
    await service.start_match(code, answer["host_token"])
    deadline = time.monotonic() + 30
    while handle.room.status != "finished":
        assert time.monotonic() < deadline, "the room did not finish"
        await asyncio.sleep(0.001)
    return code, times


def _service(clock: FakeClock, **kwargs: Any) -> RoomService:
    return RoomService(Store("sqlite://"), timer=clock.now, sleep=clock.sleep, **kwargs)


def test_every_bot_move_is_sent_at_the_bot_delay_whatever_it_holds():
    async def main():
        clock = FakeClock()
        service = _service(clock, bot_delay=0.7)
        await service.start()
        bot = ThinkingBot(clock, per_card=0.01)  # 2 legal actions: 20 ms, 52: 520 ms (1: no search at all)
        try:
            _code, times = await _bot_room(service, bot)
        finally:
            await service.stop()
        return bot, times

    bot, times = asyncio.run(main())
    assert len(times) > 30
    delays = {round(sent - began, 9) for began, sent in times}
    assert delays == {0.7}, delays
    assert "take" in bot.decisions and "play" in bot.decisions  # take decisions too


def test_a_bot_move_ready_late_is_sent_at_once_and_logged(caplog):
    async def main():
        clock = FakeClock()
        service = _service(clock, bot_delay=0.1)
        await service.start()
        try:
            return await _bot_room(service, ThinkingBot(clock, per_card=0.2))
        finally:
            await service.stop()

    with caplog.at_level(logging.WARNING, logger="getaway.web"):
        _code, times = asyncio.run(main())
    late = [sent - began for began, sent in times if sent - began > 0.1 + 1e-9]
    assert late and all(d >= 0.4 - 1e-6 for d in late)  # at least two legal actions: 0.4 s of thinking
    assert any("after its move was due" in r.getMessage() for r in caplog.records)


def test_a_searching_bot_s_time_limit_is_below_the_bot_delay():
    for level in ("hard", "expert"):
        bot = room_bot(level, 0.7)
        assert bot.time_limit is not None and bot.time_limit < 0.7
        assert room_bot(level, 0).time_limit is None  # no delay (tests, benchmarks): the iteration budget alone
    assert not hasattr(room_bot("medium", 0.7), "time_limit")


# --------------------------------------------------------------------------- 3. bounded bot work


class SlowBot:
    """Counts how many of its searches run at the same time (real threads, real time)."""

    name = "slow"

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()

    def act(self, view, legal, rng):
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.05)
        with self.lock:
            self.running -= 1
        return legal[0]


def test_at_most_one_search_at_a_time_per_room_even_when_a_move_is_cancelled():
    async def main():
        service = RoomService(Store("sqlite://"), bot_delay=0)
        await service.start()
        try:
            answer = await service.create(dict(CONFIG))
            handle = service.rooms[answer["code"]]
            await service.start_match(answer["code"], answer["host_token"])
            await asyncio.sleep(0.05)
            bot = SlowBot()
            handle.bot = bot
            room = Room.restore(service.store.load_room(answer["code"]))
            view = room.view(room.to_act() or 0)
            legal = ["take", "pass"] if view is None else list(view.legal_actions) or ["pass", "pass"]
            first = asyncio.create_task(service.bots.search(handle, view, legal))
            await asyncio.sleep(0.01)
            first.cancel()  # the move is dropped (the room moved on); its search still runs
            searches = [asyncio.create_task(service.bots.search(handle, view, legal)) for _ in range(3)]
            await asyncio.gather(*searches)
            return bot
        finally:
            await service.stop()

    bot = asyncio.run(main())
    assert bot.most == 1


def test_bot_only_rooms_are_limited_per_address_and_in_all():
    async def main():
        service = RoomService(Store("sqlite://"), bot_delay=5.0, bot_rooms_per_address=1, max_bot_rooms=2)
        await service.start()
        try:
            made = [await service.create(dict(CONFIG)) for _ in range(4)]
            codes = [m["code"] for m in made]
            await service.start_match(codes[0], made[0]["host_token"], "10.0.0.1")
            with pytest.raises(RoomError) as refused:
                await service.start_match(codes[1], made[1]["host_token"], "10.0.0.1")
            assert refused.value.code == "too_many_bot_rooms" and refused.value.status == 429
            assert service.rooms[codes[1]].room.status == "lobby"  # nothing changed
            await service.start_match(codes[1], made[1]["host_token"], "10.0.0.2")
            with pytest.raises(RoomError, match="too_many_bot_rooms"):
                await service.start_match(codes[2], made[2]["host_token"], "10.0.0.3")  # 2 in all
            # closing one frees its slot
            await service.close_room(codes[0], made[0]["host_token"])
            await service.start_match(codes[2], made[2]["host_token"], "10.0.0.3")
            return [service.rooms[c].room.status for c in codes[1:]]
        finally:
            await service.stop()

    assert asyncio.run(main()) == ["playing", "playing", "lobby"]


class BlockedBot:
    """A bot whose search waits until ``release`` is set."""

    name = "blocked"

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def act(self, view, legal, rng):
        self.release.wait(30)
        return legal[0]


def test_a_room_whose_humans_are_away_waits_for_a_slot():
    async def main():
        service = RoomService(Store("sqlite://"), bot_delay=0, grace=0.05, max_bot_rooms=1)
        await service.start()
        try:
            busy = await service.create(dict(CONFIG, deals=50, players=8, bot_level="easy"))
            release = threading.Event()
            service.rooms[busy["code"]].bot = BlockedBot(release)  # holds the only slot, does not move on
            await service.start_match(busy["code"], busy["host_token"], "10.0.0.9")
            answer = await service.create(dict(CONFIG), "Asha")
            await service.start_match(answer["code"], answer["host_token"], "10.0.0.1")
            handle = service.rooms[answer["code"]]
            await asyncio.sleep(0.5)  # Asha never connects: after the grace a bot plays for her
            assert handle.room.seats[0].bot_playing and handle.paused and handle.room.status == "playing"
            version = handle.room.version
            await asyncio.sleep(0.1)
            assert handle.room.version == version  # paused: no bot moves
            await service.close_room(busy["code"], busy["host_token"])
            release.set()
            for _ in range(500):
                await asyncio.sleep(0.01)
                if handle.room.status == "finished":
                    break
            return handle.room.status
        finally:
            await service.stop()

    assert asyncio.run(main()) == "finished"


def test_the_host_closes_a_room_and_it_never_resumes(tmp_path):
    with make_client(tmp_path, bot_delay=0.05) as client:
        room = create_room(client, deals=5)
        code = room["code"]
        with client.websocket_connect(f"/ws/{code}") as ws:
            asha = Player(ws)
            asha.hello(token=room["token"])
            asha.send(type="start")
            drain_to(asha, 2)
            ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"})
            assert ben.status_code == 409
            r = client.post(f"/api/rooms/{code}/close", headers=_host("not-the-host"))
            assert r.status_code == 403 and r.json()["error"]["code"] == "not_host"
            r = client.post(f"/api/rooms/{code}/close", headers=_host(room["token"]))  # the host's seat token
            assert r.status_code == 200 and r.json()["status"] == "closed"
            closed = asha.until(lambda m: m["type"] == "closed")
            assert closed["reason"] == "host"
        r = client.post(f"/api/rooms/{code}/close", headers=_host(room["host_token"]))
        assert r.status_code == 410 and r.json()["error"]["code"] == "room_closed"
        with client.websocket_connect(f"/ws/{code}") as ws:
            assert Player(ws).recv()["code"] == "room_closed"
        version = client.get(f"/api/rooms/{code}").json()["version"]
    with make_client_on(tmp_path) as client:  # a restart
        assert code not in client.app.state.service.rooms
        state = client.get(f"/api/rooms/{code}").json()
        assert state["status"] == "closed" and state["version"] == version


def make_client_on(tmp_path, **settings):
    """A client on the SAME database file as a previous :func:`make_client` (a restart)."""
    from fastapi.testclient import TestClient

    from getaway.web.app import create_app
    from web_helpers import TEST_DATABASE

    settings.setdefault("bot_delay", 0)
    return TestClient(create_app(TEST_DATABASE or f"sqlite:///{tmp_path / 'web.db'}", **settings))


def test_started_bot_only_rooms_are_not_resumed_after_a_restart(tmp_path):
    with make_client(tmp_path, bot_delay=30.0) as client:
        alone = create_room(client, name=None, deals=50, players=8)
        hosted = create_room(client, name=None)  # a hosted room still in its lobby
        people = create_room(client)
        for r in (alone, people):
            assert client.post(f"/api/rooms/{r['code']}/start", headers=_host(r["host_token"])).status_code == 200
    with make_client_on(tmp_path, bot_delay=30.0) as client:
        service = client.app.state.service
        for _ in range(200):
            if alone["code"] not in service.rooms:
                break
            time.sleep(0.01)
        assert alone["code"] not in service.rooms
        assert client.get(f"/api/rooms/{alone['code']}").json()["status"] == "closed"
        log = service.store.load_room(alone["code"]).log
        assert (log[-1].kind, log[-1].payload) == ("close", {"reason": "restart"})
        assert hosted["code"] in service.rooms and people["code"] in service.rooms
        assert service.rooms[people["code"]].room.status == "playing"


# --------------------------------------------------------------------------- 5. reads


def test_reads_of_a_room_not_in_memory_do_not_replay_its_log(tmp_path, monkeypatch):
    with make_client(tmp_path) as client:
        room = create_room(client, name=None, deals=2, players=3)
        code = room["code"]
        with client.websocket_connect(f"/ws/{code}") as ws:
            host = Player(ws)
            host.hello(token=room["host_token"])
            host.send(type="start")
            host.until(lambda m: m["type"] == "update" and m["room"]["status"] == "finished")
        live = [client.get(path).json() for path in _reads(code)]
        client.post(f"/api/rooms/{code}/close", headers=_host(room["host_token"]))
        for _ in range(200):
            if code not in client.app.state.service.rooms:
                break
            time.sleep(0.01)
        assert code not in client.app.state.service.rooms

        def no_replay(*_args):
            raise AssertionError("a read replayed the log")

        monkeypatch.setattr(Room, "restore", no_replay)
        served = [client.get(path).json() for path in _reads(code)]
        assert served[0]["status"] == "closed" and served[0]["version"] == live[0]["version"] + 1
        assert served[1]["deals"] == live[1]["deals"] and served[1]["standings"] == live[1]["standings"]
        assert served[2:] == live[2:]  # the records, byte for byte
        assert client.get(f"/api/rooms/{code}/deals/2/record").json()["error"]["code"] == "not_found"
        assert client.get(f"/api/rules/en?code={code}").json()["profile"] == "punjab"


def _reads(code: str) -> list[str]:
    return [f"/api/rooms/{code}", f"/api/rooms/{code}/history"] + [
        f"/api/rooms/{code}/deals/{i}/record" for i in range(2)
    ]


def test_a_room_without_a_snapshot_is_replayed_once_for_many_reads(tmp_path, monkeypatch):
    with make_client(tmp_path) as client:
        room = create_room(client, name=None, players=3)
        code = room["code"]
        client.post(f"/api/rooms/{code}/start", headers=_host(room["host_token"]))
        for _ in range(500):
            if client.get(f"/api/rooms/{code}").json()["status"] == "finished":
                break
            time.sleep(0.01)
        client.post(f"/api/rooms/{code}/close", headers=_host(room["host_token"]))
        service = client.app.state.service
        for _ in range(200):
            if code not in service.rooms:
                break
            time.sleep(0.01)
        with service.store.engine.begin() as conn:  # a room stored before snapshots existed
            conn.execute(update(rooms).where(rooms.c.code == code).values(snapshot=None))
        calls = []
        original = Room.restore.__func__

        def counted(cls, stored):
            calls.append(stored.code)
            return original(cls, stored)

        monkeypatch.setattr(Room, "restore", classmethod(counted))
        answers = [client.get(path) for path in _reads(code)[:3] * 3]
        assert all(a.status_code == 200 for a in answers)
        assert calls == [code]


def test_room_reads_are_rate_limited_per_address():
    with make_client(reads_per_second=1) as client:
        room = create_room(client)
        codes = [client.get(f"/api/rooms/{room['code']}").status_code for _ in range(6)]
        assert codes[:3] == [200, 200, 200] and codes[-1] == 429
        r = client.get(f"/api/rooms/{room['code']}/history")
        assert r.json()["error"]["code"] == "rate_limited" and r.json()["error"]["message"]
        # when to come back (RFC 9110 Retry-After): within the 3-second window of reads
        assert 1 <= int(r.headers["Retry-After"]) <= 3, r.headers
        assert client.get("/api/strings/en").status_code == 200  # the page's texts are not room reads


# --------------------------------------------------------------------------- 11. authority edges


def _started_room() -> Room:
    room = Room("ROOM01", dict(CONFIG, options={"takes": "off"}), 12345, hash_token("host"), 0.0, bytes(32))
    room.apply(logged("join", {"seat": None, "name": "Asha", "token_hash": hash_token("t"), "host": True}), 1.0)
    room.apply(logged("start", {}), 1.0)
    return room


def test_an_act_on_a_version_ahead_of_the_room_is_refused():
    room = _started_room()
    for ahead in (room.version + 1, room.version + 10**6):
        with pytest.raises(RoomError) as refused:
            room.check_version(ahead)
        assert refused.value.code == "stale_version"
    with make_client() as client:
        made = create_room(client, players=3, options={"takes": "off"})
        code = made["code"]
        tokens = [made["token"]] + [
            client.post(f"/api/rooms/{code}/join", json={"name": n}).json()["token"] for n in ("Ben", "Cal")
        ]
        client.post(f"/api/rooms/{code}/start", headers=_host(made["host_token"]))
        service = client.app.state.service
        to_act = service.rooms[code].room.to_act()
        log_before = len(service.store.load_room(code).log)
        with client.websocket_connect(f"/ws/{code}") as ws:
            p = Player(ws)
            w = p.hello(token=tokens[to_act])
            legal = w["view"]["legal_actions"]
            for version in (w["version"] + 1, w["version"] + 2**40):
                p.send(type="act", action=legal[0], version=version)
                error = p.until(lambda m: m["type"] == "error")
                assert error["code"] == "stale_version" and error["version"] == w["version"]
        assert len(service.store.load_room(code).log) == log_before


def test_a_human_cannot_act_on_a_seat_a_bot_has_taken_over():
    room = _started_room()
    room.apply(logged("absent", {"seat": 0}), 2.0)
    while room.status == "playing" and room.to_act() != 0:
        seat = room.to_act()
        room.apply(logged("act", {"seat": seat, "action": str(room.view(seat).legal_actions[0]), "bot": True}), 3.0)
    assert room.to_act() == 0
    version = room.version
    legal = str(room.view(0).legal_actions[0])
    with pytest.raises(RoomError) as refused:
        room.apply(logged("act", {"seat": 0, "action": legal, "bot": False}), 4.0)
    assert refused.value.code == "not_your_turn" and room.version == version

    # over the service, a socket of that seat that has not reclaimed it (no hello's reclaim)
    async def main():
        service = RoomService(Store("sqlite://"), bot_delay=60.0)
        await service.start()
        try:
            answer = await service.create(dict(CONFIG, options={"takes": "off"}), "Asha")
            handle = service.rooms[answer["code"]]
            await service.start_match(answer["code"], answer["host_token"])
            await service.submit(handle, _Job("absent", {"seat": 0}))
            conn = Connection(0, True, "en")
            while handle.room.to_act() not in (0, None):
                await asyncio.sleep(0.01)
                seat = handle.room.to_act()
                if seat not in (0, None):
                    action = str(handle.room.view(seat).legal_actions[0])
                    job = _Job("act", {"seat": seat, "action": action, "bot": True}, version=handle.room.version)
                    await service.submit(handle, job)
            before = handle.room.version
            held = len(handle.room.match.deal.hand(0))
            action = str(handle.room.view(0).legal_actions[0])
            await service.message(handle, conn, {"type": "act", "action": action, "version": before})
            await asyncio.sleep(0.05)
            sent = [json.loads(conn.outbox.get_nowait()) for _ in range(conn.outbox.qsize())]
            played = held - len(handle.room.match.deal.hand(0))
            return before, handle.room.version, sent, handle.room.seats[0].bot_playing, played
        finally:
            await service.stop()

    # the act is not played: it takes the seat back (the player acts again), one "reclaim" logged
    before, after, sent, away, played = asyncio.run(main())
    assert after == before + 1 and not away and played == 0 and not [m for m in sent if m["type"] == "error"]


def test_the_log_keeps_seat_authority_through_absence_and_reclaim():
    with make_client(grace=0.2) as client:
        room = create_room(client)
        code = room["code"]
        ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
        with client.websocket_connect(f"/ws/{code}") as ws_a:
            asha = Player(ws_a)
            asha.hello(token=room["token"])
            asha.send(type="start")
            asha.until(lambda m: m["type"] == "update" and m["room"]["seats"][1]["bot_playing"])
            with client.websocket_connect(f"/ws/{code}") as ws_b:
                benp = Player(ws_b)
                benp.hello(token=ben["token"])
                play_deal([asha, benp], random.Random(7))
        log = client.app.state.service.store.load_room(code).log
        kinds = [e.kind for e in log]
        assert "absent" in kinds and "reclaim" in kinds
        check_authority(log, players=4)
        # the audit does catch a human move on a seat a bot plays
        absent = next(i for i, e in enumerate(log) if e.kind == "absent")
        move = {"seat": 1, "action": "2♠", "bot": False}
        forged = [*log[: absent + 1], type(log[0])(log[absent].version + 1, "act", move, 0.0)]
        with pytest.raises(AssertionError, match="bot plays"):
            check_authority(forged, players=4)


def test_a_database_of_the_previous_schema_gains_the_new_columns_and_its_rooms_replay(tmp_path):
    from sqlalchemy import create_engine, text

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    with engine.begin() as conn:  # the tables as the previous version made them
        conn.execute(
            text(
                "CREATE TABLE rooms (code VARCHAR(16) PRIMARY KEY, created FLOAT NOT NULL, "
                "updated FLOAT NOT NULL, config TEXT NOT NULL, seed BIGINT NOT NULL, host_hash VARCHAR(64) NOT NULL, "
                "status VARCHAR(16) NOT NULL, version INTEGER NOT NULL)"
            )
        )
        conn.execute(text("CREATE TABLE seats (room VARCHAR(16), seat INTEGER, token_hash VARCHAR(64) NOT NULL)"))
        conn.execute(
            text(
                "CREATE TABLE room_log (room VARCHAR(16), version INTEGER, kind VARCHAR(16) NOT NULL, "
                "payload TEXT NOT NULL, time FLOAT NOT NULL, PRIMARY KEY (room, version))"
            )
        )
        conn.execute(
            text("INSERT INTO rooms VALUES ('OLD001', 1, 1, :config, 77, 'h', 'playing', 1)"),
            {"config": json.dumps(CONFIG)},
        )
        conn.execute(text("INSERT INTO room_log VALUES ('OLD001', 1, 'start', '{}', 1)"))
    engine.dispose()
    store = Store(url)
    stored = store.load_room("OLD001")
    assert stored.secret is None
    room = Room.restore(stored)  # an old room keeps its old deals: 32-bit seeds from its match seed
    assert room.match.deal.seed == Match(room.rules, room.names(), 77).deal.seed < 2**32
    assert store.read_room("OLD001").snapshot is None and store.read_record("OLD001", 0) is None
    store.close()


def test_reads_from_stored_snapshots_leak_nothing_of_the_deal_in_play(tmp_path):
    from test_web_security import _cards

    with make_client(tmp_path) as client:
        room = create_room(client, deals=2, players=3)
        code = room["code"]
        with client.websocket_connect(f"/ws/{code}") as ws:
            asha = Player(ws)
            asha.hello(token=room["token"])
            asha.send(type="start")
            drain_to(asha, 2)
            play_deal([asha], random.Random(3))
            asha.send(type="next")
            asha.until(lambda m: m["type"] == "update" and m["room"]["deal_index"] == 1)
            play_deal([asha], random.Random(4), stop=lambda ps: ps[0].view["tricks_played"] >= 1)
        service = client.app.state.service
        live = service.rooms[code].room
        in_play = live.match.deals[1]
        assert not in_play.is_over
        secret, seed = service.store.load_room(code).secret.hex(), live.seed
        client.post(f"/api/rooms/{code}/close", headers=_host(room["host_token"]))
        for _ in range(200):
            if code not in service.rooms:
                break
            time.sleep(0.01)
        assert code not in service.rooms
        bodies = [client.get(path) for path in _reads(code)]
        assert [b.status_code for b in bodies] == [200, 200, 200, 409]
        for body in bodies[:2] + bodies[3:]:  # state, history, the deal in play's refusal
            text = body.text
            assert not _cards(body.json()), text[:200]
            assert secret not in text and str(seed) not in text and str(in_play.seed) not in text
        record = bodies[2].json()  # the finished deal: its hands and seed, as designed
        assert record["seed"] == live.match.deals[0].seed and str(in_play.seed) not in bodies[2].text
        stored = service.store.read_room(code).snapshot  # what the database keeps for reads
        assert not _cards(stored) and str(in_play.seed) not in json.dumps(stored)
