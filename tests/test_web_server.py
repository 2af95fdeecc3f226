"""The web server (issue 6, docs/web.md): rooms over HTTP, a deal over WebSockets, reconnects,
spectators, and the engine's record of a finished deal."""

from __future__ import annotations

import random
import re

import pytest

from getaway.core.record import deal_from_record
from web_helpers import Player, create_room, drain_to, make_client, play_deal

pytestmark = pytest.mark.timeout(30)


def test_create_and_join_over_http():
    with make_client() as client:
        room = create_room(client)
        assert room["seat"] == 0 and room["token"] and room["host_token"] and room["url"] == f"/r/{room['code']}"
        joined = client.post(f"/api/rooms/{room['code']}/join", json={"name": "Ben"}).json()
        assert joined["seat"] == 1 and joined["token"] != room["token"]
        state = client.get(f"/api/rooms/{room['code']}").json()
        assert state["status"] == "lobby" and state["version"] == 2
        assert [(s["name"], s["kind"], s["host"]) for s in state["seats"][:3]] == [
            ("Asha", "human", True),
            ("Ben", "human", False),
            ("", "empty", False),
        ]
        assert client.get("/api/rooms/NOSUCH").json()["error"]["code"] == "room_not_found"
        taken = client.post(f"/api/rooms/{room['code']}/join", json={"name": "Cy", "seat": 1})
        assert taken.status_code == 409 and taken.json()["error"]["code"] == "seat_taken"
        assert taken.json()["error"]["message"] == "seat 2 is taken"  # Ben's: the page's "seat 2"


def test_start_needs_the_host():
    with make_client() as client:
        room = create_room(client)
        ben = client.post(f"/api/rooms/{room['code']}/join", json={"name": "Ben"}).json()
        r = client.post(f"/api/rooms/{room['code']}/start", headers={"Authorization": f"Bearer {ben['token']}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_host"
        r = client.post(f"/api/rooms/{room['code']}/start", headers={"Authorization": f"Bearer {room['host_token']}"})
        assert r.status_code == 200 and r.json()["status"] == "playing"
        assert [s["kind"] for s in r.json()["seats"]] == ["human", "human", "bot", "bot"]
        r = client.post(f"/api/rooms/{room['code']}/join", json={"name": "Cal"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "already_started"


def test_a_full_deal_two_humans_two_bots():
    with make_client() as client:
        room = create_room(client)
        code = room["code"]
        ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
        with client.websocket_connect(f"/ws/{code}") as ws_a, client.websocket_connect(f"/ws/{code}") as ws_b:
            asha, benp = Player(ws_a, "asha"), Player(ws_b, "ben")
            welcome = asha.hello(token=room["token"])
            assert welcome["type"] == "welcome" and welcome["seat"] == 0 and welcome["view"] is None
            assert benp.hello(token=ben["token"])["seat"] == 1
            asha.send(type="start")
            for p in (asha, benp):
                p.until(lambda m: m["type"] == "update" and m["room"]["status"] != "lobby")
            play_deal([asha, benp], random.Random(1))
            final = asha.view
            assert final["outcome"] is not None
            assert asha.last["room"]["status"] == "finished"
            assert any("The deal is over" in line for m in asha.seen for line in m.get("log", []))
            # the history rebuilt from the updates' events is the whole view's (a fresh hello)
            with client.websocket_connect(f"/ws/{code}") as ws_c:
                again = Player(ws_c, "asha again").hello(token=room["token"])
                assert again["view"]["history"] == asha.view["history"] and len(asha.view["history"]) > 50
        record = client.get(f"/api/rooms/{code}/deals/0/record")
        assert record.status_code == 200
        deal = deal_from_record(record.json())
        assert deal.is_over and deal.outcome.to_dict() == final["outcome"]
        history = client.get(f"/api/rooms/{code}/history").json()
        assert len(history["deals"]) == 1 and history["standings"]


def test_bot_only_room_plays_by_itself():
    with make_client() as client:
        room = create_room(client, name=None, deals=2)
        code = room["code"]
        with client.websocket_connect(f"/ws/{code}") as ws:
            host = Player(ws)
            assert host.hello(token=room["host_token"])["seat"] is None
            host.send(type="start")
            host.until(lambda m: m["type"] == "update" and m["room"]["status"] == "finished")
        history = client.get(f"/api/rooms/{code}/history").json()
        assert [d["index"] for d in history["deals"]] == [0, 1]
        for i in range(2):
            assert deal_from_record(client.get(f"/api/rooms/{code}/deals/{i}/record").json()).is_over


def test_spectator_sees_the_public_view_only():
    with make_client() as client:
        room = create_room(client)
        code = room["code"]
        with client.websocket_connect(f"/ws/{code}") as ws_a, client.websocket_connect(f"/ws/{code}") as ws_s:
            asha, spec = Player(ws_a), Player(ws_s)
            asha.hello(token=room["token"])
            assert spec.hello(spectate=True)["seat"] is None
            asha.send(type="start")
            update = spec.until(lambda m: m["type"] == "update" and m["view"] is not None)
            assert update["view"]["hand"] is None and update["view"]["legal_actions"] == []
            spec.send(type="act", action="A♠", version=update["version"])
            assert spec.until(lambda m: m["type"] == "error")["code"] == "spectator"
            spec.send(type="start")
            assert spec.until(lambda m: m["type"] == "error")["code"] == "not_host"


def test_an_action_that_is_no_card_is_refused_and_quoted_with_its_newline_escaped():
    with make_client() as client:
        room = create_room(client)
        with client.websocket_connect(f"/ws/{room['code']}") as ws_a:
            asha = Player(ws_a)
            asha.hello(token=room["token"])
            asha.send(type="start")
            asha.until(lambda m: m["type"] == "update" and m["room"]["status"] != "lobby")
            while not asha.my_turn():  # on her turn nobody else moves: the version stays hers
                asha.until(lambda m: m["type"] == "update")
            asha.send(type="act", action="A\u2660\nQ\u2665", version=asha.version)
            error = asha.until(lambda m: m["type"] == "error")
            assert error["code"] == "bad_message", error
            assert error["message"] == "not an action: 'A\u2660\\nQ\u2665'" and "\n" not in error["message"]


def test_reconnect_with_the_token_in_the_middle_of_a_trick():
    with make_client() as client:
        room = create_room(client)
        code = room["code"]
        ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
        with client.websocket_connect(f"/ws/{code}") as ws_a:
            asha = Player(ws_a)
            asha.hello(token=room["token"])
            with client.websocket_connect(f"/ws/{code}") as ws_b:
                benp = Player(ws_b)
                benp.hello(token=ben["token"])
                asha.send(type="start")
                drain_to(benp, 3)

                def mid_trick(players):  # a card on the table, after the first trick
                    v = players[0].view
                    return v["first_trick_done"] and v["trick"] and players[1].my_turn()

                play_deal([asha, benp], random.Random(3), stop=mid_trick)
                before = benp.view
                assert before["outcome"] is None
            # Ben's socket is gone: the others hear he is absent, with a deadline
            absent = asha.until(lambda m: m["type"] == "absent")
            assert absent["seat"] == 1 and absent["deadline"] > 0
            with client.websocket_connect(f"/ws/{code}") as ws_b2:
                benp2 = Player(ws_b2)
                welcome = benp2.hello(token=ben["token"], since=before and benp.version)
                assert welcome["type"] == "welcome" and welcome["seat"] == 1
                assert welcome["view"]["hand"] == before["hand"] and welcome["view"]["trick"] == before["trick"]
                assert welcome["log"], "the narration of the deal so far"
                play_deal([asha, benp2], random.Random(4))
                assert benp2.view["outcome"] is not None


def test_absent_player_is_replaced_by_a_bot_and_reclaims():
    with make_client(grace=0.2) as client:
        room = create_room(client)
        code = room["code"]
        ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
        with client.websocket_connect(f"/ws/{code}") as ws_a:
            asha = Player(ws_a)
            asha.hello(token=room["token"])
            asha.send(type="start")  # Ben never connects: a bot plays for him after the grace
            msg = asha.until(lambda m: m["type"] == "update" and m["room"]["seats"][1]["bot_playing"])
            assert msg["room"]["seats"][1]["kind"] == "human"
            with client.websocket_connect(f"/ws/{code}") as ws_b:
                benp = Player(ws_b)
                assert benp.hello(token=ben["token"])["seat"] == 1
                back = benp.until(lambda m: m["type"] == "update" and not m["room"]["seats"][1]["bot_playing"])
                assert back["room"]["seats"][1]["connected"]


def test_bad_token_and_unknown_room():
    with make_client() as client:
        room = create_room(client)
        with client.websocket_connect(f"/ws/{room['code']}") as ws:
            p = Player(ws)
            assert p.hello(token="not-a-token")["code"] == "bad_token"
            assert p.hello(spectate=True)["type"] == "welcome"
        with client.websocket_connect("/ws/NOPE42") as ws:
            assert Player(ws).recv()["code"] == "room_not_found"


def test_strings_and_rules():
    with make_client() as client:
        fr = client.get("/api/strings/fr").json()
        assert fr["cards"]["Q♥"] == "dame de cœur" and fr["suit_plurals"]["♥"]
        assert all(isinstance(v, str) for v in fr["strings"].values())
        assert client.get("/api/strings/xx").status_code == 404
        rules = client.get("/api/rules/es?profile=classic").json()
        assert rules["profile"] == "classic" and len(rules["sections"]) >= 5


def test_each_unplayable_card_comes_with_the_engines_reason_for_that_seat_only():
    """The page shows why a card may not be played from the server's ``illegal`` list: the
    engine's reason code and its text (Deal.why_illegal), seats counted from 1, in the socket's
    language; a spectator gets none."""
    seen: dict[str, str] = {}

    def check(players: list[Player]) -> bool:
        msg = players[0].last
        view = msg["view"]
        if view["outcome"] is None:
            unplayable = {c for c in view["hand"] if c not in view["legal_actions"]}
            assert {w["card"] for w in msg["illegal"]} == unplayable, msg["version"]
        for why in msg["illegal"]:
            seen.setdefault(why["reason"], why["text"])
        return False

    with make_client() as client:
        room = create_room(client)
        code = room["code"]
        with client.websocket_connect(f"/ws/{code}") as ws, client.websocket_connect(f"/ws/{code}") as ws_s:
            asha, spec = Player(ws, "asha"), Player(ws_s, "spectator")
            asha.hello(token=room["token"])
            spec.hello(spectate=True)
            asha.send(type="start")
            asha.until(lambda m: m["type"] == "update" and m["room"]["status"] != "lobby")
            english = {w["card"]: w["text"] for w in asha.last["illegal"]}
            assert english, "some card of a fresh hand is not playable"
            asha.send(type="lang", lang="fr")
            msg = asha.until(lambda m: m["type"] == "sync")
            while not msg["illegal"]:  # she leads after the first trick: any card goes
                msg = asha.play_one(random.Random(0))
            french = {w["card"]: w["text"] for w in msg["illegal"]}
            assert set(french.values()).isdisjoint(english.values()), (french, english)
            asha.send(type="lang", lang="en")
            asha.until(lambda m: m["type"] == "sync")
            play_deal([asha], random.Random(3), stop=check)
            spec.until(lambda m: m["type"] == "update" and m["view"]["outcome"] is not None)
    assert {"not_your_turn", "must_follow_suit"} <= set(seen), seen
    assert re.fullmatch(r"Wait for your turn: seat [2-4] is to play", seen["not_your_turn"]), seen
    assert re.fullmatch(r"You hold a [♠♥♦♣]: you must follow suit", seen["must_follow_suit"]), seen
    assert all(m.get("illegal", []) == [] for m in spec.seen)


def test_a_refused_card_reads_as_the_pages_reason_for_it():
    """Playing a card the page marks unplayable is refused with the very text the page shows
    for it, seats counted from 1 (the refusal used to say "seat 0" for the page's seat 1)."""
    with make_client() as client:
        room = create_room(client)
        with client.websocket_connect(f"/ws/{room['code']}") as ws:
            asha = Player(ws, "asha")
            asha.hello(token=room["token"])
            asha.send(type="start")
            msg = asha.until(lambda m: m["type"] == "update" and m["room"]["status"] != "lobby")
            rng = random.Random(1)
            while not (asha.my_turn() and msg.get("illegal")):
                msg = asha.play_one(rng) if asha.my_turn() else asha.until(lambda m: m["type"] == "update")
                assert asha.view["outcome"] is None, "the deal ended before a card was unplayable"
            why = msg["illegal"][0]
            asha.send(type="act", action=why["card"], version=asha.version)
            error = asha.until(lambda m: m["type"] == "error")
    assert error["code"] == why["reason"] and error["message"] == why["text"], (error, why)
    assert "seat 0" not in error["message"]


def test_the_lobby_reads_the_cores_option_schema():
    """GET /api/rules/schema is Rules.schema() (the lobby builds its controls from it), and the
    page's texts include each of its labels, so that they are translated."""
    from getaway import Rules
    from getaway.web.strings import UI_STRINGS

    with make_client() as client:
        r = client.get("/api/rules/schema")
        assert r.status_code == 200 and r.json() == Rules.schema()
        assert client.get("/api/rules/en").status_code == 200  # the rules text is still there
    for spec in Rules.schema()["options"].values():
        assert {spec["label"], *spec.get("choice_labels", [])} <= set(UI_STRINGS), spec["label"]


def test_the_pages_answer_head_as_get_without_a_body():
    # uptime checks and link previews send HEAD: the same status and headers as GET, no body
    with make_client() as client:
        code = create_room(client)["code"]
        for path in ("/", "/learn", "/replay", f"/r/{code}"):
            got, head = client.get(path), client.head(path)
            assert got.status_code == head.status_code == 200, path
            assert head.headers["content-type"] == got.headers["content-type"] and head.content == b""
        assert client.head("/api/nothing").status_code == 404
