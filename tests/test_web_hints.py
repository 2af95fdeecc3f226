"""The hint over the socket (issue 15, item 6; web/hints.py): the expert's move and reason in
the socket's language, only on the player's own decision, to that socket only; the host can
switch hints off for a room."""

from __future__ import annotations

import random

from getaway.bots.hints import best_hint
from getaway.core.cards import Card
from getaway.web.hints import hint_text
from getaway.web.protocol import SERVER
from web_helpers import OPERATOR, Player, create_room, make_client


def _my_turn(client, room, lang="en") -> tuple[Player, object]:
    ws = client.websocket_connect(f"/ws/{room['code']}")
    sock = ws.__enter__()
    me = Player(sock, "me")
    me.send(type="hello", lang=lang, token=room["token"])
    me.until(lambda m: m["type"] == "welcome")
    client.post(f"/api/rooms/{room['code']}/start", headers={"Authorization": f"Bearer {room['host_token']}"})
    me.until(lambda m: m["type"] in ("update", "sync") and me.my_turn())
    return me, ws


def test_hint_on_your_own_decision_in_your_language():
    with make_client() as client:
        room = create_room(client)
        me, ws = _my_turn(client, room, lang="fr")
        try:
            me.send(type="hint")
            hint = me.until(lambda m: m["type"] in ("hint", "error"))
            assert hint["type"] == "hint", hint
            SERVER.validate_python(hint)  # the answer fits the protocol's model (docs: socket schema)
            assert hint["action"] in me.view["legal_actions"] and hint["version"] == me.version
            card = Card.parse(hint["action"])
            assert hint["text"].count(str(card)) == 1, hint  # the move named, once ("jouer A♠ (as de pique) : …")
            assert not hint["text"].startswith(("play", "Play", "lead", "Lead")), hint  # in French
            # a hint changes nothing: the next move is still ours, at the same version
            me.send(type="act", action=hint["action"], version=me.version)
            assert me.until(lambda m: m["type"] in ("update", "error"))["type"] == "update"
        finally:
            ws.__exit__(None, None, None)


def test_no_hint_out_of_turn_nor_for_spectators_nor_when_switched_off():
    with make_client() as client:
        room = create_room(client, hints=False)
        assert client.get(f"/api/rooms/{room['code']}").json()["config"]["hints"] is False
        me, ws = _my_turn(client, room)
        try:
            me.send(type="hint")
            err = me.until(lambda m: m["type"] in ("hint", "error"))
            assert err["type"] == "error" and err["code"] == "hints_off", err
        finally:
            ws.__exit__(None, None, None)
        room = create_room(client, players=3)
        with client.websocket_connect(f"/ws/{room['code']}") as sock:
            watcher = Player(sock, "watcher")
            watcher.hello(spectate=True)
            watcher.send(type="hint")
            err = watcher.until(lambda m: m["type"] in ("hint", "error"))
            assert err["type"] == "error" and err["code"] == "spectator", err
        r = client.post("/api/rooms", json={"hints": "no"})
        assert r.status_code == 400 and "hints" in r.json()["error"]["message"]


def test_no_hint_when_it_is_not_your_decision():
    with make_client() as client:
        room = create_room(client)
        with client.websocket_connect(f"/ws/{room['code']}") as sock:
            me = Player(sock, "me")
            me.hello(token=room["token"])
            me.send(type="hint")  # before the start: nothing to decide
            err = me.until(lambda m: m["type"] in ("hint", "error"))
            assert err["type"] == "error" and err["code"] == "not_your_turn", err


def test_with_bot_workers_the_hint_is_searched_in_one_and_is_the_same_hint_to_that_socket_only(tmp_path):
    with make_client(tmp_path, peer=OPERATOR, bot_workers=1) as client:  # on the machine: it reads /stats
        room = create_room(client)
        me, ws = _my_turn(client, room, lang="it")
        try:
            with client.websocket_connect(f"/ws/{room['code']}") as sock:
                watcher = Player(sock, "watcher")
                watcher.hello(spectate=True)
                me.send(type="hint")
                hint = me.until(lambda m: m["type"] in ("hint", "error"))
                assert hint["type"] == "hint", hint
                SERVER.validate_python(hint)
                # the same move and text as the thread's search gives for this view and seed
                handle = client.app.state.service.rooms[room["code"]]
                view = handle.room.view(me.view["seat"])
                action, reason, _level = best_hint(view, random.Random(len(view.history) * 7919 + view.seat))
                assert {k: hint[k] for k in ("action", "text")} == hint_text(action, reason, "it")
                stats = client.get("/stats").json()["bots"]
                assert stats["hints"] == 1 and stats["hint_fallbacks"] == 0  # searched in the worker
                for _ in range(12):  # a flood of asks for the same decision: one search, the same answer
                    me.send(type="hint")
                again = [me.until(lambda m: m["type"] in ("hint", "error")) for _ in range(12)]
                assert all(m == hint for m in again), again
                assert client.get("/stats").json()["bots"]["hints"] == 1
                watcher.send(type="ping")
                watcher.until(lambda m: m["type"] == "pong")
                assert not [m for m in watcher.seen if m["type"] == "hint"]  # the asking socket only
        finally:
            ws.__exit__(None, None, None)
