"""A process that stops (issue 14, item 2's SIGTERM part): ``/healthz`` and
``RoomService.drain`` in one process (the real SIGTERM through nginx: tests/test_web_front.py)."""

from __future__ import annotations

import json
import random
import signal
import time

import httpx
import pytest
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import ConnectionClosed

from getaway.web.rooms import RESTART_CLOSE, Room
from getaway.web.store import Store
from web_helpers import Player, SyncSocket, create_room, make_client, server_process


def started_room(client) -> dict:
    """Asha and three bots, started (bots without delay)."""
    room = create_room(client)
    r = client.post(f"/api/rooms/{room['code']}/start", headers={"Authorization": f"Bearer {room['token']}"})
    assert r.status_code == 200, r.text
    return room


def test_healthz_is_ok_then_503_while_draining(tmp_path):
    with make_client(tmp_path) as client:
        r = client.get("/healthz")
        assert (r.status_code, r.json()) == (200, {"status": "ok"})
        assert r.headers["cache-control"] == "no-store"
        client.portal.call(client.app.state.service.drain)
        r = client.get("/healthz")
        assert (r.status_code, r.json()) == (503, {"status": "draining"})


def test_healthz_says_unavailable_and_nothing_else_when_the_database_fails(tmp_path, monkeypatch):
    with make_client(tmp_path) as client:

        def broken() -> None:
            raise OSError("connection to /var/run/secret-socket refused (password=hunter2)")

        monkeypatch.setattr(client.app.state.service.store, "ping", broken)
        r = client.get("/healthz")
        assert (r.status_code, r.text) == (503, '{"status":"unavailable"}')


def test_healthz_says_starting_before_the_rooms_are_rebuilt(tmp_path):
    with make_client(tmp_path) as client:
        client.app.state.service.started = False  # as during RoomService.start()
        r = client.get("/healthz")
        assert (r.status_code, r.json()) == (503, {"status": "starting"})


def test_drain_commits_the_room_then_closes_its_sockets_for_a_reconnect(tmp_path):
    with make_client(tmp_path) as client:
        service = client.app.state.service
        room = started_room(client)
        code = room["code"]
        order: list[str] = []

        async def release() -> None:  # what a cluster does here: its rooms are stopped, its sockets still open
            order.append(f"callback: rooms {len(service.rooms)}, sockets open {bool(conns) and not conns[0].closed}")

        service.on_drain.append(release)
        with client.websocket_connect(f"/ws/{code}") as ws:
            asha = Player(ws, "asha")
            asha.hello(token=room["token"])
            rng = random.Random(3)
            for _ in range(3):
                if not asha.my_turn():
                    asha.until(lambda m: m["type"] == "update" and asha.my_turn())
                assert asha.play_one(rng)["type"] == "update"
            conns = list(service.rooms[code].conns)
            live = service.rooms[code].room
            client.portal.call(service.drain)
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    asha.recv()
            assert closed.value.code == RESTART_CLOSE
        assert order == ["callback: rooms 0, sockets open True"]
        # every command the room applied is in the log: rebuilt from it, the same room
        stored = Room.restore(service.store.load_room(code))
        assert stored.version == live.version >= asha.version
        assert stored.view(0).hand == live.view(0).hand

        # and nothing new is taken: rooms, seats, commands, sockets (503 `draining`, nothing done)
        for method, path, body in (
            ("POST", "/api/rooms", {"profile": "punjab"}),
            ("POST", "/api/quickplay", {"name": "Ben"}),
            ("POST", f"/api/rooms/{code}/join", {"name": "Ben"}),
        ):
            r = client.request(method, path, json=body)
            assert (r.status_code, r.json()["error"]["code"]) == (503, "draining"), (path, r.text)
            assert r.headers["retry-after"] == "1"
        r = client.post(f"/api/rooms/{code}/close", headers={"Authorization": f"Bearer {room['host_token']}"})
        assert (r.status_code, r.json()["error"]["code"]) == (503, "draining")
        with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect(f"/ws/{code}"):
            pass
        assert refused.value.status_code == 503
        assert Room.restore(service.store.load_room(code)).version == live.version
        # reads still answer, from the database
        assert client.get(f"/api/rooms/{code}").json()["version"] == live.version
        client.portal.call(service.drain)  # a second drain: nothing more to do
        assert order == ["callback: rooms 0, sockets open True"]


def test_a_failing_drain_callback_does_not_stop_the_others(tmp_path, caplog):
    with make_client(tmp_path) as client:
        service = client.app.state.service
        ran: list[str] = []

        async def broken() -> None:
            raise RuntimeError("lease server gone")

        async def fine() -> None:
            ran.append("fine")

        service.on_drain.extend([broken, fine])
        client.portal.call(service.drain)
        assert ran == ["fine"]
        assert "lease server gone" in caplog.text


def test_a_drained_serve_process_exits_0_with_its_rooms_committed(tmp_path):
    """One SIGTERM (``docker stop``, ``systemctl stop``): the room's socket is closed with 1012, the
    process exits 0 (a supervisor reads anything else as a crash) and the log holds every move
    the socket was told of (the next process rebuilds the room from it)."""
    with server_process(tmp_path) as server:
        made = httpx.post(f"{server.base}/api/rooms", json={"profile": "punjab", "players": 4, "name": "Asha",
                                                            "options": {"takes": "off"}})  # fmt: skip
        room = made.json()
        auth = {"Authorization": f"Bearer {room['token']}"}
        assert httpx.post(f"{server.base}/api/rooms/{room['code']}/start", headers=auth).status_code == 200
        sock = SyncSocket(f"{server.ws}/ws/{room['code']}", room["token"])
        try:
            rng = random.Random(26)
            for _ in range(3):
                if not sock.mine():
                    sock.until(lambda m: m["type"] in ("update", "sync") and sock.mine())
                version = sock.last["version"]
                action = rng.choice(sock.last["view"]["legal_actions"])
                sock.ws.send(json.dumps({"type": "act", "action": action, "version": version}))
                sock.until(lambda m, v=version: m["type"] == "update" and m["version"] > v)
            server.proc.send_signal(signal.SIGTERM)
            with pytest.raises(ConnectionClosed) as closed:
                sock.until(lambda m: False, timeout=15)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == RESTART_CLOSE
            seen = sock.last["version"]
        finally:
            sock.close()
        assert server.proc.wait(20) == 0
    assert "Traceback" not in server.log(), server.log()
    store = Store(f"sqlite:///{tmp_path / 'server.db'}")
    try:
        assert Room.restore(store.load_room(room["code"])).version >= seen
    finally:
        store.close()


def test_sigterm_drains_and_a_second_one_stops_at_once(tmp_path):
    """``getaway serve`` (getaway.web.lifecycle): the first SIGTERM drains and the process goes on
    answering 503 for ``--drain-seconds``; a second SIGTERM ends it at once."""
    with server_process(tmp_path, "--drain-seconds", "60") as server:
        assert httpx.get(f"{server.base}/healthz").status_code == 200
        server.proc.send_signal(signal.SIGTERM)
        deadline = time.time() + 10
        while httpx.get(f"{server.base}/healthz").json() != {"status": "draining"}:
            assert time.time() < deadline, "no drain"
            time.sleep(0.05)
        refused = httpx.post(f"{server.base}/api/rooms", json={"profile": "punjab"})
        assert (refused.status_code, refused.json()["error"]["code"]) == (503, "draining")
        began = time.time()
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(15)
        assert time.time() - began < 15  # not the 60 s of the drain
    assert "Traceback" not in server.log()
