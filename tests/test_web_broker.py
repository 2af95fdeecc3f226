"""Owners and mirrors of a room shared by many processes (issue 14), in one process: two room
services on one SQLite file and one :class:`~getaway.web.broker.MemoryHub` (the protocol of
web/broker.py without Redis; tests/test_web_cluster.py runs it with real processes and Redis)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time

import pytest

from getaway.web.broker import Lease, MemoryBroker, MemoryHub
from getaway.web.protocol import Stats
from getaway.web.rooms import RoomError, RoomHandle, RoomService
from getaway.web.rooms.handles import job_of as _Job
from getaway.web.store import Store
from web_helpers import SlowBroker, check_authority, check_bot_room_caps, check_public_room_caps

CONFIG = {"profile": "punjab", "players": 4, "deals": 1, "options": {"takes": "off"}, "bot_level": "easy"}


async def _services(tmp_path, n: int = 2, lease_ms: int = 1000, **settings) -> tuple[MemoryHub, list[RoomService]]:
    hub = MemoryHub()
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    settings.setdefault("bot_delay", 0)
    services = [RoomService(Store(url), broker=MemoryBroker(hub, lease_ms=lease_ms), **settings) for _ in range(n)]
    for service in services:
        await service.start()
    return hub, services


async def _stop(services: list[RoomService]) -> None:
    for service in services:
        await service.stop()
        service.store.close()


def _messages(conn) -> list[dict]:
    out = []
    while not conn.outbox.empty():
        text = conn.outbox.get_nowait()
        if text is not None:
            out.append(json.loads(text))
    return out


async def _until(pred, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if pred():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not in time")


async def _seated(a: RoomService, b: RoomService, config: dict = CONFIG):
    """A room made on A by Asha (the owner's), joined on B by Ben (a mirror), a socket each.
    Returns the code, Asha's answer and each one's (handle, socket)."""
    made = await a.create(config, "Asha")
    code = made["code"]
    joined = await b.join(code, "Ben")
    owner, mirror = a.rooms[code], await b.handle(code)
    asha = await a.attach(owner, {"token": made["token"], "lang": "en"})
    ben = await b.attach(mirror, {"token": joined["token"], "lang": "en"})
    return code, made, (owner, asha), (mirror, ben)


async def _play(players: list[tuple[RoomService, RoomHandle, object]], rng: random.Random) -> None:
    """The humans (each a socket on its own service) play random legal moves until the deal is
    over, each from its own process's room once that has caught up with the newest one (the
    owner's, wherever it is now)."""
    for _ in range(2000):
        room = max((h.room for _, h, _ in players), key=lambda r: r.version)
        if room.status != "playing":
            return
        seat = room.to_act()
        mover = next((p for p in players if p[2].seat == seat), None)
        if mover is None:
            await asyncio.sleep(0.005)  # a bot's move
            continue
        service, handle, conn = mover
        await _until(lambda h=handle, v=room.version: h.room.version >= v)  # its process has caught up
        view = handle.room.view(seat)
        if view.to_act != seat:
            continue  # the room moved on meanwhile
        action = rng.choice(view.legal_actions)
        await service.message(handle, conn, {"type": "act", "action": str(action), "version": handle.room.version})
    raise AssertionError("the deal did not end")


def test_a_room_owned_by_one_service_is_played_from_another(tmp_path):
    async def scenario() -> None:
        hub, (a, b) = await _services(tmp_path)
        news: list[dict] = []
        publish = a.broker.publish
        a.broker.publish = lambda code, message: (news.append(message), publish(code, message))[1]  # type: ignore[method-assign]
        try:
            made = await a.create(CONFIG, "Asha")
            code = made["code"]
            joined = await b.join(code, "Ben")  # forwarded to the owner
            assert joined["seat"] == 1
            owner, mirror = a.rooms[code], await b.handle(code)
            assert owner.lease is not None and not owner.mirror
            assert mirror.mirror and mirror.lease is None
            asha = await a.attach(owner, {"token": made["token"], "lang": "en"})
            ben = await b.attach(mirror, {"token": joined["token"], "lang": "fr"})
            await _until(lambda: 1 in owner.connected())  # the mirror told the owner of Ben's socket
            await a.start_match(code, made["host_token"])
            # A refusal of the owner reaches Ben (on B) translated, as it reaches a socket on A
            # (once the bots' first moves are made: a person is to play, and B has caught up).
            await _until(lambda: owner.room.to_act() in (0, 1) and mirror.room.version == owner.room.version)
            asha_fr = await a.attach(owner, {"token": made["token"], "lang": "fr"})
            for service, handle, conn in ((a, owner, asha_fr), (b, mirror, ben)):
                _messages(conn)
                await service.message(handle, conn, {"type": "act", "action": "zz", "version": handle.room.version})
            here, there = ([m for m in _messages(c) if m["type"] == "error"] for c in (asha_fr, ben))
            assert here and there and here[0]["code"] == there[0]["code"] != "server_error"
            assert here[0]["message"] == there[0]["message"]
            await _play([(a, owner, asha), (b, mirror, ben)], random.Random(4))
            await _until(lambda: mirror.room.version == owner.room.version)
            assert mirror.room.status == owner.room.status == "finished"
            last = [m for m in _messages(ben) if m["type"] == "update"][-1]
            assert last["view"]["outcome"] is not None and last["view"]["seat"] == 1
            await _until(lambda: a.store.load_room(code).status == "finished")
            check_authority(a.store.load_room(code).log, 4)
            assert news and all(set(n) <= {"v", "lease", "connected", "turn_ends_in", "absent", "log"} for n in news)
            carried = [e for n in news for e in n.get("log", ())]
            assert carried and all(kind != "join" and "token_hash" not in payload for _, kind, payload, _ in carried)
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_a_mirror_applies_the_entries_the_news_carries_and_reads_the_log_after_a_gap(tmp_path):
    """The owner's news carries the entries written since the last one (Mirror.publish): the
    mirror applies them without reading the log (the read was a tenth of a serve process's CPU
    at 200 rooms: docs/web.md "Where a serve process's CPU goes"); a join (a token hash) and
    missed news are read from the log, and the mirror ends as the owner."""

    async def scenario() -> None:
        hub, (a, b) = await _services(tmp_path)
        reads: list[int] = []
        log_after = b.store.log_after
        b.store.log_after = lambda code, version: (reads.append(version), log_after(code, version))[1]  # type: ignore[method-assign]
        on_news = b.broker.on_news
        dropped = []

        def lossy(code, message):  # one news of a move lost on the way: the next has a gap
            owner = a.rooms.get(code)  # (not when Ben is to play next: his page would wait for news)
            if not dropped and message.get("log") and message["v"] > 12 and owner.room.to_act() not in (1, None):
                dropped.append(message["v"])
                return
            on_news(code, message)

        b.broker.on_news = lossy
        try:
            code, made, (owner, asha), (mirror, ben) = await _seated(a, b)
            await _until(lambda: 1 in owner.connected())
            await a.start_match(code, made["host_token"])
            await _play([(a, owner, asha), (b, mirror, ben)], random.Random(7))
            await _until(lambda: mirror.room.version == owner.room.version)
            assert dropped and mirror.room.status == owner.room.status == "finished"
            assert mirror.room.view(1).to_dict() == owner.room.view(1).to_dict()
            assert 0 < len(reads) < owner.room.version / 4, (len(reads), owner.room.version)
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_an_owner_that_stops_renewing_loses_the_room_and_writes_nothing_more(tmp_path):
    async def scenario() -> None:
        hub, (a, b) = await _services(tmp_path)
        try:
            made = await a.create(CONFIG, "Asha")
            code = made["code"]
            joined = await b.join(code, "Ben")
            owner, mirror = a.rooms[code], await b.handle(code)
            ben = await b.attach(mirror, {"token": joined["token"], "lang": "en"})
            await a.start_match(code, made["host_token"])
            old = owner.lease
            a.cluster.heart.cancel()  # A stalls: its lease is not renewed (a pause, not a crash: A runs on)
            await _until(lambda: mirror.lease is not None, timeout=5)  # B's heartbeat took the room
            assert mirror.lease.token > old.token and not mirror.mirror
            written: list = []  # what A appends to the log from now on
            append = a.store.append_many
            a.store.append_many = lambda entries: (written.extend(entries), append(entries))[1]
            # A's next command finds its lease gone (fencing): it demotes itself and forwards the command.
            asha = await a.attach(owner, {"token": made["token"], "lang": "en"})
            seat_to_act = owner.room.to_act()
            action = str(owner.room.view(seat_to_act).legal_actions[0])
            bot = owner.room.seats[seat_to_act].bot_controlled
            move = _Job("act", {"seat": seat_to_act, "action": action, "bot": bot}, version=owner.room.version)
            with contextlib.suppress(RoomError):  # B answers (applied, or stale): A wrote nothing
                await a.submit(owner, move)
            assert owner.mirror and owner.lease is None and written == []
            a.cluster.heart = asyncio.create_task(a.cluster.beat())  # the pause is over
            await _play([(a, owner, asha), (b, mirror, ben)], random.Random(9))
            assert written == []
            await _until(lambda: a.store.load_room(code).status == "finished")  # the last move committed
            check_authority(a.store.load_room(code).log, 4)  # versions 1, 2, 3 … once each, whoever wrote them
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_alone_a_memory_broker_is_not_shared():
    assert not MemoryBroker().shared and MemoryBroker(MemoryHub()).shared


@pytest.mark.parametrize("lease_ms", [200])
def test_memory_leases_expire_and_fence(lease_ms):
    async def scenario() -> None:
        hub = MemoryHub()
        one, two = MemoryBroker(hub, lease_ms=lease_ms), MemoryBroker(hub, lease_ms=lease_ms)
        first = await one.acquire("R")
        assert first is not None and await two.acquire("R") is None
        assert await two.holder("R") == one.process
        await asyncio.sleep(lease_ms / 1000 + 0.05)
        assert not await one.holds(first) and not await one.renew(first)
        second = await two.acquire("R")
        assert second is not None and second.token == first.token + 1

    asyncio.run(scenario())


def test_memory_leases_are_renewed_and_their_holders_told_in_one_call():
    async def scenario() -> None:
        hub = MemoryHub()
        one, two = MemoryBroker(hub, lease_ms=200), MemoryBroker(hub, lease_ms=200)
        a, b, c = await one.acquire("A"), await one.acquire("B"), await two.acquire("C")
        assert a is not None and b is not None and c is not None
        await one.release(b)
        await asyncio.sleep(0.15)
        # A is extended by its holder; B was given up; C is two's (a lease of one's with its token is not it).
        assert await one.renew_all([a, b, Lease("C", one.process, c.token)]) == [True, False, False]
        assert await one.renew_all([]) == []
        await asyncio.sleep(0.15)  # 0.3 s after the taking: only A, renewed at 0.15 s, is left
        assert await two.holders(["A", "B", "C", "D"]) == [one.process, None, None, None]
        await one.renew_slots([("bots", "1.2.3.4", "A"), ("bots", "1.2.3.4", "B")])  # taken whatever the cap
        assert not await two.take_slot("bots", "1.2.3.4", "E", 2)
        assert await two.take_slot("bots", "1.2.3.4", "E", 3)

    asyncio.run(scenario())


def _slow_service(tmp_path, latency: float, lease_ms: int) -> tuple[MemoryHub, SlowBroker, RoomService]:
    hub = MemoryHub()
    slow = SlowBroker(MemoryBroker(hub, lease_ms=lease_ms), latency)
    service = RoomService(Store(f"sqlite:///{tmp_path / 'slow.db'}"), bot_delay=0, broker=slow)  # type: ignore[arg-type]
    return hub, slow, service


def test_the_heartbeat_renews_every_lease_of_its_rooms_in_one_round_trip(tmp_path):
    """40 rooms owned by one process whose broker takes 20 ms a call, leases of 300 ms (a beat
    every 75 ms): renewed one call each (800 ms a beat) they would expire and be taken again
    over and over; renewed in one call, each keeps its first lease."""

    async def scenario() -> None:
        hub, slow, service = _slow_service(tmp_path, latency=0.02, lease_ms=300)
        await service.start()
        try:
            codes = [(await service.create(CONFIG, "Asha"))["code"] for _ in range(40)]
            leases = {code: service.rooms[code].lease for code in codes}
            renewals = slow.calls["renew_all"]
            await asyncio.sleep(1.0)
            assert all(service.rooms[code].lease == leases[code] for code in codes)  # none lost, none taken again
            assert all(hub.live(code) == leases[code].value for code in codes)
            assert 7 <= slow.calls["renew_all"] - renewals <= 14  # one call a beat for all 40 rooms
            assert slow.calls["renew"] == 0 and service.heartbeat["lost"] == 0
            told = Stats.model_validate(service.report())  # what GET /stats says of it
            assert told.heartbeat is not None and told.heartbeat.renewals >= 5 and told.heartbeat.lost == 0
            assert told.rooms.owned == told.rooms.open == 40 and told.bots is None
        finally:
            await service.stop()
            service.store.close()

    asyncio.run(scenario())


def test_a_heartbeat_that_wakes_late_renews_first_and_says_so(tmp_path, caplog):
    async def scenario() -> None:
        hub, slow, service = _slow_service(tmp_path, latency=0.0, lease_ms=600)
        await service.start()
        try:
            code = (await service.create(CONFIG, "Asha"))["code"]
            lease = service.rooms[code].lease
            await asyncio.sleep(0.3)
            slow.order.clear()
            time.sleep(0.45)  # the event loop is blocked for more than two beats (200 ms each)
            await asyncio.sleep(0.01)
            assert slow.order[0] == "renew_all"  # the beat that woke late renewed first
            assert service.heartbeat["late"] == 1 and service.heartbeat["worst_late_ms"] >= 200
            assert hub.live(code) == lease.value
        finally:
            await service.stop()
            service.store.close()

    asyncio.run(scenario())
    assert sum("heartbeat" in r.getMessage() and "late" in r.getMessage() for r in caplog.records) == 1


def test_the_lobby_lists_the_public_rooms_of_every_service(tmp_path):
    async def scenario() -> None:
        hub, (a, b) = await _services(tmp_path)
        try:
            made = await a.create({**CONFIG, "public": True}, "Asha")
            await a.create(CONFIG, "Bea")  # private: never listed
            await _until(lambda: len(hub.lobby) == 1)
            listed = await b.lobby()
            assert [r["code"] for r in listed] == [made["code"]] and listed[0]["free"] == 3
            assert b.public_rooms() == []  # B has none of its own
            played = await b.quick_play("Ben")  # B seats Ben in A's room (the command goes to A)
            assert played["code"] == made["code"] and not played["created"] and played["seat"] == 1
            assert a.rooms[made["code"]].room.is_host_token(played["token"])  # one more host, decided by A
            await _until(lambda: json.loads(hub.lobby[made["code"]])["entry"]["free"] == 2)
            await a.start_match(made["code"], made["host_token"])
            await _until(lambda: not hub.lobby)  # started: out of the lobby
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_public_rooms_per_address_are_counted_in_the_whole_cluster(tmp_path):
    # issue 29 item 2: the cap, its places freed (a start, the expiry), over two processes
    async def scenario() -> None:
        hub, (a, b) = await _services(tmp_path, public_rooms_per_address=2, lobby_expiry=1.0)
        try:
            await check_public_room_caps(a, b)
            assert len(hub.slots[("public", "203.0.113.7")]) == 2  # the broker's slots: the two waiting
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_a_service_that_hands_over_its_rooms_lets_another_take_them(tmp_path):
    async def scenario() -> None:
        hub, (a, b) = await _services(tmp_path)
        try:
            code, made, (owner, asha), (mirror, ben) = await _seated(a, b)
            await a.start_match(code, made["host_token"])
            await a.hand_over()  # A drains: B takes the room at its next heartbeat
            assert owner.mirror and owner.lease is None and hub.live(code) is None
            await _until(lambda: mirror.lease is not None)
            await _play([(a, owner, asha), (b, mirror, ben)], random.Random(6))  # Asha's socket on A still plays
            assert owner.lease is None  # A took no lease back
            await _until(lambda: a.store.load_room(code).status == "finished")
            check_authority(a.store.load_room(code).log, 4)
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_the_caps_on_rooms_of_bots_alone_are_the_cluster_s(tmp_path):
    async def scenario() -> None:
        _, (a, b) = await _services(tmp_path, bot_delay=5.0, bot_rooms_per_address=1, max_bot_rooms=2)
        try:
            await check_bot_room_caps(a, b)
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


async def _finished(tmp_path, seed: int):
    """Two services sharing a room: Asha (host) on A, the owner, Ben on B, a mirror; the deal
    played to its end. Returns the services, the code and each one's (handle, socket)."""
    hub, (a, b) = await _services(tmp_path)
    code, made, (owner, asha), (mirror, ben) = await _seated(a, b, {**CONFIG, "public": True})
    await _until(lambda: 1 in owner.connected())
    await a.start_match(code, made["host_token"])
    await _play([(a, owner, asha), (b, mirror, ben)], random.Random(seed))
    await _until(lambda: mirror.room.version == owner.room.version and mirror.room.status == "finished")
    for conn in (asha, ben):
        _messages(conn)
    return hub, (a, b), code, (owner, asha), (mirror, ben)


async def _ask(service: RoomService, handle: RoomHandle, conn) -> str | None:
    """Ask a rematch on ``conn``: the refusal's code, or ``None``."""
    try:
        await service.rematch(handle, conn)
    except RoomError as exc:
        return exc.code
    return None


async def _rematch_of(conn) -> list[dict]:
    """The ``rematch`` messages the socket gets (waiting for the first, then a moment more)."""
    got: list[dict] = []

    def heard() -> bool:
        got.extend(m for m in _messages(conn) if m["type"] == "rematch")
        return bool(got)

    await _until(heard)
    await asyncio.sleep(0.2)  # a second one would be a bug
    heard()
    return got


@pytest.mark.parametrize("at_once", [True, False])
def test_a_rematch_asked_on_a_mirror_is_made_once_by_the_owner_and_moves_everyone(tmp_path, at_once):
    """The rematch is the finished room's command: a mirror's ask goes to the owner, the room is
    made once, and each process moves its own sockets, each to its own seat with its own token."""

    async def scenario() -> None:
        hub, (a, b), code, (owner, asha), (mirror, ben) = await _finished(tmp_path, 5)
        try:
            asked: list[str] = []
            on_request = a.cluster.on_request
            a.broker.on_request = lambda c, body: (asked.append(body["kind"]), on_request(c, body))[1]
            if at_once:
                refusals = await asyncio.gather(_ask(b, mirror, ben), _ask(a, owner, asha))
                assert sorted(refusals, key=str) == [None, "rematch_made"], refusals
            else:
                assert await _ask(b, mirror, ben) is None  # Ben, on B, asks first: made by A
                assert await _ask(a, owner, asha) == "rematch_made"
                assert await _ask(b, mirror, ben) == "rematch_made"
            assert "rematch" in asked  # B's ask was forwarded to the owner
            to_asha, to_ben = await _rematch_of(asha), await _rematch_of(ben)
            assert len(to_asha) == len(to_ben) == 1, (to_asha, to_ben)
            new = to_asha[0]["code"]
            assert to_ben[0]["code"] == new != code
            assert (to_asha[0]["seat"], to_ben[0]["seat"]) == (0, 1)
            assert to_asha[0]["host_token"] and to_ben[0]["host_token"] is None  # the host stays host
            log = a.store.load_room(code).log
            assert [e.payload for e in log if e.kind == "rematch"] == [{"code": new, "host": 0}]
            rooms = a.store.unfinished()
            assert [r.code for r in rooms] == [new]  # one room made, no other
            room = (await a.handle(new)).room
            assert room.seat_of(to_asha[0]["token"]) == 0 and room.seat_of(to_ben[0]["token"]) == 1
            assert room.is_host_token(to_asha[0]["host_token"]) and not room.is_host_token(to_ben[0]["token"])
            assert [(s.name, s.kind, s.host) for s in room.seats] == [
                ("Asha", "human", True), ("Ben", "human", False), ("", "empty", False), ("", "empty", False)
            ]  # fmt: skip
            await _until(lambda: new in hub.lobby)  # public: listed once its players are seated again
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


class _Blocked:
    """A bot whose search never ends while the test runs (its room holds its slot, at one version)."""

    name = "blocked"

    def act(self, view, legal, rng):
        import threading

        threading.Event().wait(3)
        return legal[0]


def test_a_room_whose_humans_are_away_waits_for_a_slot_held_on_another_process(tmp_path):
    async def scenario() -> None:
        _, (a, b) = await _services(tmp_path, grace=0.05, max_bot_rooms=1)
        try:
            busy = await a.create({**CONFIG, "deals": 50, "players": 8})
            a.rooms[busy["code"]].bot = _Blocked()  # holds the cluster's only slot, does not move on
            await a.start_match(busy["code"], busy["host_token"], "10.0.0.9")
            answer = await b.create(CONFIG, "Asha")
            await b.start_match(answer["code"], answer["host_token"], "10.0.0.1")
            handle = b.rooms[answer["code"]]
            await _until(lambda: handle.room.seats[0].bot_playing and handle.paused)  # Asha never came
            version = handle.room.version
            await asyncio.sleep(0.4)
            assert handle.room.version == version and handle.room.status == "playing"  # paused: no bot moves
            await a.close_room(busy["code"], busy["host_token"])  # B's heartbeat asks again: it has the slot
            await _until(lambda: handle.room.status == "finished", timeout=10)
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_a_rematch_made_survives_its_owner_the_next_owner_refuses_another(tmp_path):
    """The rematch is in the finished room's log: a new owner, rebuilt from it, refuses a second."""

    async def scenario() -> None:
        hub, (a, b), code, (owner, asha), (mirror, ben) = await _finished(tmp_path, 6)
        try:
            assert await _ask(a, owner, asha) is None
            await _until(lambda: mirror.room.rematch is not None)
            await a.hand_over()  # A goes: B takes the finished room, rebuilt from the log
            await _until(lambda: mirror.lease is not None)
            assert mirror.room.rematch == owner.room.rematch
            assert await _ask(b, mirror, ben) == "rematch_made"
            assert len([e for e in b.store.load_room(code).log if e.kind == "rematch"]) == 1
            fresh = RoomService(Store(a.store.url), bot_delay=0, broker=MemoryBroker(hub))
            await fresh.start()
            try:  # a third process opening the finished room from the log knows it too
                assert (await fresh.load(code)).rematch == owner.room.rematch
            finally:
                await _stop([fresh])
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_a_seatless_host_on_a_mirror_stays_host_of_the_rematch(tmp_path):
    """A hosted room's host (no seat) watches from B; the owner A knows it (presence), so the
    asker does not become host, and B gives the host's socket the host token it holds."""

    async def scenario() -> None:
        hub, (a, b) = await _services(tmp_path)
        try:
            made = await a.create(CONFIG)  # no name: the host has no seat
            code = made["code"]
            ana, bo = await a.join(code, "Ana"), await a.join(code, "Bo")
            owner, mirror = a.rooms[code], await b.handle(code)
            host = await b.attach(mirror, {"token": made["host_token"], "lang": "en"})
            socks = [await a.attach(owner, {"token": joined["token"], "lang": "en"}) for joined in (ana, bo)]
            await _until(lambda: b.broker.process in owner.hosting)  # B told A of the host's socket
            await a.start_match(code, made["host_token"])
            await _play([(a, owner, socks[0]), (a, owner, socks[1])], random.Random(7))
            await _until(lambda: mirror.room.status == "finished")
            assert await _ask(a, owner, socks[1]) is None  # Bo asks, on A
            to_host, to_bo = await _rematch_of(host), await _rematch_of(socks[1])
            assert to_host[0]["seat"] is None and to_host[0]["host_token"] == made["host_token"]
            assert to_bo[0]["host_token"] is None and to_host[0]["code"] == to_bo[0]["code"]
            new = (await a.handle(to_bo[0]["code"])).room
            assert new.is_host_token(made["host_token"]) and not new.is_host_token(to_bo[0]["token"])
            assert [s.host for s in new.seats] == [False] * 4
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


@pytest.mark.parametrize("logged", [True, False])
def test_a_command_whose_owner_died_before_answering_is_applied_once(tmp_path, logged):
    """Issue 28 item 2: Ben's join, forwarded from B to A, whose owner A dies before it answers
    (``OwnerGone``), having logged the join (or before it read it). B does not refuse it and does
    not apply it twice: it finds the join in the log (or, not there, waits for A's lease to run
    out, takes the room and applies it then): Ben gets his seat, the log holds one join of his."""
    from getaway.web.broker import OwnerGone

    async def scenario() -> None:
        hub, (a, b) = await _services(tmp_path, lease_ms=300)
        try:
            code = (await a.create(CONFIG, "Asha"))["code"]
            assert a.rooms[code].lease is not None
            real = b.broker.forward

            async def dies(room: str, body: dict, timeout: float = 5.0) -> dict:
                if body.get("kind") != "join":
                    return await real(room, body, timeout)
                if logged:
                    await real(room, body, timeout)  # A applies and logs it …
                a.cluster.heart.cancel()  # … and dies before its answer is heard: no renewal
                hub.brokers.pop(a.broker.process, None)
                b.broker.forward = real
                raise OwnerGone(room)

            b.broker.forward = dies
            began = time.monotonic()
            joined = await b.join(code, "Ben")
            assert joined["seat"] == 1 and joined["token"]
            assert time.monotonic() - began < 1.5  # (not logged: the lease, 0.3 s, ran out and B took the room)
            assert (b.rooms[code].lease is None) == logged and b.rooms[code].room.seats[1].name == "Ben"
            log = b.store.load_room(code).log
            assert [e.payload["name"] for e in log if e.kind == "join"] == ["Asha", "Ben"]
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_a_record_read_on_a_mirror_a_moment_behind_is_the_stored_one(tmp_path):
    """A deal's record asked on a process whose mirror has not heard of the deal's end yet is
    the record the owner stored, not ``not_over`` (seen through nginx right after the last update:
    the download reached the other process)."""
    from getaway.web.rooms.state import Room

    async def scenario() -> None:
        hub, (a, b), code, (owner, _), (mirror, _) = await _finished(tmp_path, 5)
        try:
            stored = b.store.load_room(code)
            stored.log = stored.log[:-1]  # the mirror as it was before the last move's news
            mirror.room = Room.restore(stored)
            assert mirror.room.status == "playing"
            assert await b.reads.read_record(code, 0) == owner.room.record(0)
            with pytest.raises(RoomError) as info:
                await b.reads.read_record(code, 3)
            assert info.value.code == "not_found"
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_the_owner_paces_the_room_at_the_slowest_socket_of_every_process(tmp_path):
    """A socket's speed on a mirror reaches the owner with the presence (at once when it
    changes): the owner times the bots and the leads at the slowest speed of the room's sockets
    wherever they are (web/rooms/timers.py ``Timers.pace``)."""

    async def scenario() -> None:
        hub, (a, b) = await _services(tmp_path)
        try:
            _code, _made, (owner, _asha), (mirror, ben) = await _seated(a, b)
            await _until(lambda: 1 in owner.connected())
            assert a.timers.pace(owner) == 1.0
            await b.message(mirror, ben, {"type": "speed", "speed": "relaxed"})
            await _until(lambda: a.timers.pace(owner) == 1.6)
            assert b.timers.pace(mirror) == 1.6 and a.timers.local_pace(owner) == 1.0
            await b.message(mirror, ben, {"type": "speed", "speed": "fast"})
            await _until(lambda: a.timers.pace(owner) == 1.0)  # Asha's normal is the slowest now
        finally:
            await _stop([a, b])

    asyncio.run(scenario())


def test_a_new_owner_hears_the_mirrors_seats_at_once_not_at_their_next_presence(tmp_path):
    """A mirror tells its unchanged seats only every PRESENCE_BEATS beats, but at once when the
    room's news comes from a new owner (a new lease token in it): the new owner knows the seats
    of the other process's sockets well before the next presence is due."""
    from getaway.web.rooms.handles import PRESENCE_BEATS

    async def scenario() -> None:
        hub, (a, b, c) = await _services(tmp_path, n=3, lease_ms=4000)  # a beat: 1 s
        try:
            made = await a.create(CONFIG, "Asha")  # A owns the room; its sockets: Asha's on B, Ben's on C
            code = made["code"]
            joined = await c.join(code, "Ben")
            on_b, on_c = await b.handle(code), await c.handle(code)
            await b.attach(on_b, {"token": made["token"], "lang": "en"})
            await c.attach(on_c, {"token": joined["token"], "lang": "en"})
            owner = a.rooms[code]
            await _until(lambda: owner.connected() == {0, 1})
            await a.start_match(code, made["host_token"])
            await a.hand_over()  # A drains: B or C (each has a socket) takes the room at its next beat
            loop = asyncio.get_running_loop()
            began = loop.time()
            await _until(lambda: on_b.lease is not None or on_c.lease is not None, timeout=10)
            new = on_b if on_b.lease is not None else on_c
            await _until(lambda: new.connected() == {0, 1}, timeout=10)  # the other process's seat too
            assert loop.time() - began < PRESENCE_BEATS * 1.0 / 2, loop.time() - began
            other = on_c if new is on_b else on_b
            assert other.mirror and other.owner_token == new.lease.token
        finally:
            await _stop([a, b, c])

    asyncio.run(scenario())
