"""Persistence (issue 6): the store's tables and log, and a real server killed mid-deal that
resumes every unfinished room from its log when started again on the same database."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time

import httpx
import pytest
from sqlalchemy.exc import IntegrityError
from websockets.sync.client import connect

from getaway.core.record import deal_from_record
from getaway.web.rooms import Room, hash_token
from getaway.web.rooms.commands import logged
from getaway.web.store import NewEntry, Store, database_url
from web_helpers import free_port, fresh_database

# --------------------------------------------------------------------------- the store


def test_store_append_and_reload(tmp_path):
    url = fresh_database(tmp_path)
    store = Store(url)
    assert store.create_room("AAAAAA", {"profile": "punjab"}, seed=2**62 + 5, host_hash="h", now=1.0)
    assert not store.create_room("AAAAAA", {}, seed=1, host_hash="h", now=1.0)  # code taken
    store.append("AAAAAA", 1, "join", {"seat": 0, "name": "Asha"}, now=2.0, status="lobby", seat_hash=(0, "x"))
    store.append("AAAAAA", 2, "start", {}, now=3.0, status="playing")
    with pytest.raises(IntegrityError):  # one writer per room: a version is written once
        store.append("AAAAAA", 2, "act", {}, now=4.0, status="playing")
    store.close()
    again = Store(url)
    room = again.load_room("AAAAAA")
    assert room.seed == 2**62 + 5 and room.status == "playing" and room.seat_hashes == {0: "x"}
    assert [(e.version, e.kind) for e in room.log] == [(1, "join"), (2, "start")]
    assert [r.code for r in again.unfinished()] == ["AAAAAA"]
    assert again.load_room("ZZZZZZ") is None
    again.append("AAAAAA", 3, "close", {"reason": "idle"}, now=5.0, status="closed")
    assert again.unfinished() == []


def test_group_commit_writes_a_batch_and_isolates_a_bad_entry(tmp_path):
    store = Store(fresh_database(tmp_path))
    for code in ("AAAAAA", "BBBBBB"):
        assert store.create_room(code, {"profile": "punjab"}, seed=7, host_hash="h", now=1.0)
    batch = [
        NewEntry("AAAAAA", 1, "join", {"seat": 0, "name": "Asha"}, 2.0, "lobby", (0, "t0")),
        NewEntry("BBBBBB", 1, "join", {"seat": 0, "name": "Ben"}, 2.0, "lobby", (0, "t1")),
        NewEntry("AAAAAA", 2, "start", {}, 3.0, "playing"),
    ]
    assert store.append_many(batch) == [None, None, None]
    a = store.load_room("AAAAAA")
    assert [(e.version, e.kind) for e in a.log] == [(1, "join"), (2, "start")]
    assert a.status == "playing" and a.seat_hashes == {0: "t0"}
    # a version written twice fails alone; the rest of the batch is written
    again = [NewEntry("AAAAAA", 2, "act", {}, 4.0, "playing"), NewEntry("BBBBBB", 2, "start", {}, 4.0, "playing")]
    results = store.append_many(again)
    assert results[1] is None and isinstance(results[0], IntegrityError)
    assert [e.kind for e in store.load_room("AAAAAA").log] == ["join", "start"]
    assert [e.kind for e in store.load_room("BBBBBB").log] == ["join", "start"]
    store.close()


def test_database_url():
    assert database_url("x.db") == "sqlite:///x.db"
    assert database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"


def test_a_room_replays_from_its_log():
    store = Store("sqlite://")
    config = {"profile": "punjab", "players": 3, "deals": 1, "options": {"takes": "off"}, "bot_level": "easy"}
    room = Room("ROOM01", config, 12345, hash_token("host"), 0.0)
    store.create_room("ROOM01", room.config, seed=12345, host_hash=room.host_hash, now=0.0)
    rng = random.Random(0)
    commands = [("join", {"seat": None, "name": "Asha", "token_hash": hash_token("t"), "host": True}), ("start", {})]
    for kind, payload in commands:
        store.append(
            "ROOM01",
            room.version + 1,
            kind,
            room.apply(logged(kind, payload), 1.0).payload(),
            now=1.0,
            status=room.status,
        )
    while room.status == "playing":
        deal = room.match.deal
        seat = deal.to_act
        payload = {"seat": seat, "action": str(rng.choice(deal.legal_actions())), "bot": seat != 0}
        store.append(
            "ROOM01",
            room.version + 1,
            "act",
            room.apply(logged("act", payload), 2.0).payload(),
            now=2.0,
            status=room.status,
        )
    again = Room.restore(store.load_room("ROOM01"))
    assert again.version == room.version and again.status == "finished"
    assert again.match.deal.snapshot() == room.match.deal.snapshot()
    assert again.seat_of("t") == 0 and again.record(0) == room.record(0)


# --------------------------------------------------------------------------- a real server


def _serve(db: str, port: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUTF8="1")
    cmd = [sys.executable, "-m", "getaway", "serve", "--port", str(port), "--database", db, "--bot-delay", "0"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/strings/en", timeout=1)
            return proc
        except httpx.HTTPError:
            if proc.poll() is not None:
                raise AssertionError(proc.stdout.read().decode()) from None
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the server did not start")


class Sock:
    """A websockets client speaking the protocol; remembers the last state it was sent."""

    def __init__(self, stack: contextlib.ExitStack, url: str, token: str) -> None:
        self.ws = stack.enter_context(connect(url, open_timeout=5))
        self.ws.send(json.dumps({"type": "hello", "token": token, "lang": "en"}))
        self.last = self.until(lambda m: m["type"] in ("welcome", "error"))
        assert self.last["type"] == "welcome", self.last

    def until(self, pred):
        while True:
            msg = json.loads(self.ws.recv(timeout=10))
            if msg["type"] in ("welcome", "update", "sync"):
                self.last = msg
            if pred(msg):
                return msg

    def mine(self) -> bool:
        v = self.last["view"]
        return v is not None and v["outcome"] is None and v["to_act"] == v["seat"]


def _play(socks: list[Sock], rng: random.Random, moves: int | None = None) -> int:
    """Humans play random moves (bots play by themselves) until ``moves`` human moves were
    made or the deal is over; returns the human moves made."""
    made = 0
    while moves is None or made < moves:
        newest = max(s.last["version"] for s in socks)
        for s in socks:
            if s.last["version"] < newest:
                s.until(lambda m, v=newest: m["type"] == "update" and m["version"] >= v)
        if socks[0].last["view"]["outcome"] is not None:
            return made
        mover = next((s for s in socks if s.mine()), None)
        if mover is None:
            socks[0].until(lambda m: m["type"] == "update")
            continue
        action = rng.choice(mover.last["view"]["legal_actions"])
        mover.ws.send(json.dumps({"type": "act", "action": action, "version": mover.last["version"]}))
        answer = mover.until(lambda m: m["type"] in ("update", "error"))
        assert answer["type"] == "update" or answer["code"] == "stale_version", answer
        made += 1
    return made


@pytest.mark.timeout(90)
def test_restart_mid_deal_resumes_the_room(tmp_path):
    db = fresh_database(tmp_path)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _serve(db, port)
    try:
        body = {"profile": "punjab", "players": 4, "deals": 1, "options": {"takes": "off"}, "bot_level": "easy"}
        room = httpx.post(f"{base}/api/rooms", json={**body, "name": "Asha"}).json()
        code = room["code"]
        ben = httpx.post(f"{base}/api/rooms/{code}/join", json={"name": "Ben"}).json()
        first = contextlib.ExitStack()
        socks = [Sock(first, f"ws://127.0.0.1:{port}/ws/{code}", t) for t in (room["token"], ben["token"])]
        socks[0].ws.send(json.dumps({"type": "start"}))
        socks[0].until(lambda m: m["type"] == "update" and m["room"]["status"] == "playing")
        rng = random.Random(5)
        _play(socks, rng, moves=4)
        before = httpx.get(f"{base}/api/rooms/{code}").json()
        assert before["status"] == "playing"
        for s in socks:  # bots play on without delay: let the sockets catch up with `before`
            if s.last["version"] < before["version"]:
                s.until(lambda m: m["type"] == "update" and m["version"] >= before["version"])
        seen = {s.last["version"] for s in socks}
        hands = [s.last["view"]["hand"] for s in socks]
        proc.send_signal(signal.SIGKILL)  # no clean shutdown: only what was committed survives
        proc.wait(10)
        first.close()

        proc = _serve(db, port)
        after = httpx.get(f"{base}/api/rooms/{code}").json()
        assert after["status"] == "playing" and after["version"] >= before["version"]
        second = contextlib.ExitStack()
        socks = [Sock(second, f"ws://127.0.0.1:{port}/ws/{code}", t) for t in (room["token"], ben["token"])]
        if seen == {after["version"]}:  # the sockets had seen the last committed move: same hands
            assert [s.last["view"]["hand"] for s in socks] == hands
        _play(socks, rng)
        assert socks[0].last["view"]["outcome"] is not None
        record = httpx.get(f"{base}/api/rooms/{code}/deals/0/record")
        assert record.status_code == 200
        deal = deal_from_record(record.json())
        assert deal.is_over and deal.outcome.to_dict() == socks[0].last["view"]["outcome"]
        second.close()
    finally:
        proc.kill()
        proc.wait(10)
