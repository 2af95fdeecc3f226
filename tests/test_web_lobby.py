"""The lobby (issue 15 item 8): public rooms listed, quick play, rematch (docs/web.md, "Lobby")."""

from __future__ import annotations

import random
import time

import pytest

from getaway.web.protocol import SERVER, PublicRooms, QuickPlayed
from web_helpers import Player, create_room, drain_to, make_client, play_deal

pytestmark = pytest.mark.timeout(60)


def _listed(client) -> dict[str, dict]:
    r = client.get("/api/rooms", params={"public": 1})
    assert r.status_code == 200, r.text
    PublicRooms.model_validate(r.json())  # what the route documents
    return {room["code"]: room for room in r.json()["rooms"]}


def test_public_rooms_are_listed_with_who_is_there_and_private_ones_never():
    with make_client() as client:
        public = create_room(client, public=True, players=3, options={"takes": "off", "trump": "spades"})
        private = create_room(client, name="Bea")
        listed = _listed(client)
        assert private["code"] not in listed
        room = listed[public["code"]]
        assert room["profile"] == "punjab" and room["players"] == 3 and room["free"] == 2
        assert room["options"] == {"takes": "off", "trump": "spades"}
        assert [(s["name"], s["kind"]) for s in room["seats"]] == [("Asha", "human"), ("", "empty"), ("", "empty")]
        assert client.get(f"/api/rooms/{public['code']}").json()["config"]["public"] is True
        # full or started rooms are not listed
        client.post(f"/api/rooms/{public['code']}/join", json={"name": "Ben"})
        assert _listed(client)[public["code"]]["free"] == 1
        client.post(f"/api/rooms/{public['code']}/start", headers={"Authorization": f"Bearer {public['token']}"})
        assert public["code"] not in _listed(client)
        # the list is asked for on purpose, and refused with the error shape otherwise
        r = client.get("/api/rooms")
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_message"
        assert client.post("/api/rooms", json={"public": "yes"}).status_code == 400


def test_the_list_is_rate_limited_like_other_reads():
    with make_client(reads_per_second=1) as client:
        codes = [client.get("/api/rooms?public=1").status_code for _ in range(6)]
        assert codes[0] == 200 and 429 in codes


def test_quick_play_joins_a_public_room_with_a_free_seat_else_makes_one():
    with make_client() as client:
        create_room(client, name="Bea")  # private: never chosen
        first = client.post("/api/quickplay", json={"name": "Asha"}).json()
        assert first["created"] is True and first["seat"] == 0 and first["host_token"]
        QuickPlayed.model_validate(first)
        assert _listed(client)[first["code"]]["seats"][0]["name"] == "Asha"
        second = client.post("/api/quickplay", json={"name": "Ben"}).json()
        assert second == {**second, "code": first["code"], "seat": 1, "created": False}
        assert second["host_token"] == second["token"]  # one more host: their seat's token hosts it
        # … who may start the room, not close it on the others
        shut = client.post(f"/api/rooms/{first['code']}/close", headers={"Authorization": f"Bearer {second['token']}"})
        assert shut.status_code == 403 and shut.json()["error"]["code"] == "not_host"
        assert shut.json()["error"]["message"] == "a player seated by quick play can start this room, not close it"
        assert client.get(f"/api/rooms/{first['code']}").json()["status"] == "lobby"
        # the same name is taken there: another room is made rather than a refusal
        third = client.post("/api/quickplay", json={"name": "asha"}).json()
        assert third["created"] is True and third["code"] != first["code"]
        # the fullest room first
        fourth = client.post("/api/quickplay", json={"name": "Chen"}).json()
        assert fourth["code"] == first["code"]
        seats = client.get(f"/api/rooms/{first['code']}").json()["seats"]
        assert [s["name"] for s in seats] == ["Asha", "Ben", "Chen", ""]
        assert client.post("/api/quickplay", json={"name": ""}).status_code == 400
        # the last free seat taken by quick play: the room starts at once
        fifth = client.post("/api/quickplay", json={"name": "Dev"}).json()
        assert fifth["code"] == first["code"] and fifth["seat"] == 3
        assert client.get(f"/api/rooms/{first['code']}").json()["status"] == "playing"


def _public(client, headers: dict, **body) -> dict:
    """POST /api/rooms of a public room from the address ``headers`` name: the room, or the refusal."""
    r = client.post("/api/rooms", json={"public": True, "options": {"takes": "off"}, **body}, headers=headers)
    assert r.status_code in (201, 409), r.text
    return r.json()


def test_one_address_cannot_fill_the_lobby_and_quick_play_seats_people_only_in_rooms_that_start():
    # issue 29 item 2: 60 public rooms in one burst from one address, then quick plays from others
    attacker = {"X-Forwarded-For": "203.0.113.7"}
    with make_client(forwarded_allow_ips="testclient", rooms_per_minute=60) as client:
        made = [_public(client, attacker, name="Mallory") for _ in range(60)]
        assert len([r for r in made if "code" in r]) == 3  # public_rooms_per_address
        refused = [r["error"] for r in made if "error" in r]
        assert len(refused) == 57 and {e["code"] for e in refused} == {"too_many_public_rooms"}
        assert refused[0]["message"] == (
            "too many of your public rooms are waiting for players (at most 3): start one, or wait"
        )
        r = client.post("/api/rooms", json={"public": True}, headers={**attacker, "Accept-Language": "fr"})
        assert r.status_code == 409 and "3" in r.json()["error"]["message"]
        assert r.json()["error"]["message"] != refused[0]["message"]  # in the visitor's language
        assert client.post("/api/rooms", json={}, headers=attacker).status_code == 201  # a private room: not counted
        assert len(_listed(client)) == 3
        players = []
        for i in range(5):
            played = client.post(
                "/api/quickplay", json={"name": f"Guest {i}"}, headers={"X-Forwarded-For": f"198.51.100.{i}"}
            )
            assert played.status_code == 200, played.text
            players.append(played.json())
        # each is in a room that started (its last seat taken by quick play) or holds its host power
        for p in players:
            state = client.get(f"/api/rooms/{p['code']}").json()
            if state["status"] == "lobby":
                assert state["seats"][p["seat"]]["host"]
                started = client.post(
                    f"/api/rooms/{p['code']}/start", headers={"Authorization": f"Bearer {p['token']}"}
                )
                assert started.status_code == 200, started.text
            assert client.get(f"/api/rooms/{p['code']}").json()["status"] == "playing"


def test_a_public_room_nobody_starts_leaves_the_lobby_and_frees_its_creator_s_count():
    creator = {"X-Forwarded-For": "203.0.113.7"}
    with make_client(forwarded_allow_ips="testclient", public_rooms_per_address=1, lobby_expiry=1) as client:
        room = _public(client, creator)
        assert "code" in room and room["code"] in _listed(client)
        again = client.post("/api/rooms", json={"public": True}, headers=creator)
        assert again.status_code == 409 and again.json()["error"]["code"] == "too_many_public_rooms"
        for _ in range(40):  # a second without a new seat taken
            if room["code"] not in _listed(client):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("still in the lobby")
        assert client.post("/api/rooms", json={"public": True}, headers=creator).status_code == 201
        other = client.post("/api/quickplay", json={"name": "Ben"}, headers={"X-Forwarded-For": "198.51.100.1"})
        assert other.json()["code"] != room["code"]  # quick play never seats anyone in an expired room
        joined = client.post(f"/api/rooms/{room['code']}/join", json={"name": "Chen"})  # its link still works
        assert joined.status_code == 200


def _two_humans(client, **config):
    room = create_room(client, players=3, **config)
    code = room["code"]
    ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
    return room, ben, code


def test_rematch_makes_a_room_with_the_same_players_and_options_and_brings_everyone():
    rng = random.Random(5)
    with make_client() as client:
        room, ben, code = _two_humans(client, public=True, options={"takes": "off", "trump": "spades"})
        with client.websocket_connect(f"/ws/{code}") as ws_a, client.websocket_connect(f"/ws/{code}") as ws_b:
            asha, benp = Player(ws_a, "asha"), Player(ws_b, "ben")
            asha.hello(token=room["token"])
            benp.hello(token=ben["token"])
            benp.send(type="rematch")  # before the end: refused
            assert benp.until(lambda m: m["type"] == "error")["code"] == "not_finished"
            asha.send(type="start")
            drain_to(asha, 3)
            drain_to(benp, 3)
            play_deal([asha, benp], rng)
            assert asha.last["room"]["status"] == "finished"
            benp.send(type="rematch")
            to_ben = benp.until(lambda m: m["type"] == "rematch")
            to_asha = asha.until(lambda m: m["type"] == "rematch")
            asha.send(type="rematch")  # once only
            assert asha.until(lambda m: m["type"] == "error")["code"] == "rematch_made"
        for msg in (to_ben, to_asha):
            SERVER.validate_python(msg)
        new = to_ben["code"]
        assert new != code and to_asha["code"] == new and to_asha["url"] == f"/r/{new}"
        assert (to_asha["seat"], to_ben["seat"]) == (0, 1)
        assert to_asha["host_token"] and to_ben["host_token"] is None  # the host stays host
        assert to_asha["token"] != to_ben["token"]
        state = client.get(f"/api/rooms/{new}").json()
        old = client.get(f"/api/rooms/{code}").json()
        assert state["status"] == "lobby" and state["config"] == old["config"]
        assert [(s["name"], s["kind"], s["host"]) for s in state["seats"]] == [
            ("Asha", "human", True), ("Ben", "human", False), ("", "empty", False)
        ]  # fmt: skip
        with client.websocket_connect(f"/ws/{new}") as ws:
            welcome = Player(ws).hello(token=to_ben["token"])
            assert welcome["type"] == "welcome" and welcome["seat"] == 1 and not welcome["host"]
        r = client.post(f"/api/rooms/{new}/start", headers={"Authorization": f"Bearer {to_asha['token']}"})
        assert r.status_code == 200 and [s["kind"] for s in r.json()["seats"]] == ["human", "human", "bot"]


def test_rematch_leaves_the_seat_of_a_human_who_left_and_refuses_spectators():
    rng = random.Random(6)
    with make_client(grace=0.05) as client:
        room, ben, code = _two_humans(client)
        with client.websocket_connect(f"/ws/{code}") as ws_a, client.websocket_connect(f"/ws/{code}") as ws_s:
            asha, spec = Player(ws_a, "asha"), Player(ws_s, "spectator")
            asha.hello(token=room["token"])
            spec.hello(spectate=True)
            asha.send(type="start")  # Ben never connects: a bot plays for him after the grace
            drain_to(asha, 3)
            play_deal([asha], rng)
            assert asha.last["room"]["status"] == "finished"
            spec.send(type="rematch")
            assert spec.until(lambda m: m["type"] in ("error", "rematch"))["code"] == "spectator"
            asha.send(type="rematch")
            new = asha.until(lambda m: m["type"] == "rematch")["code"]
        seats = client.get(f"/api/rooms/{new}").json()["seats"]
        assert [s["kind"] for s in seats] == ["human", "empty", "empty"]
        assert not any(m["type"] == "rematch" for m in spec.seen)


def test_a_public_rematch_room_is_listed_only_once_its_players_are_seated():
    rng = random.Random(7)
    with make_client() as client:
        room, ben, code = _two_humans(client, public=True)
        service = client.app.state.service
        join = service.join
        listed_while_seating: list[list[str]] = []

        async def watching_join(*args, **kwargs):
            listed_while_seating.append([r["code"] for r in service.public_rooms()])
            return await join(*args, **kwargs)

        service.join = watching_join
        with client.websocket_connect(f"/ws/{code}") as ws_a, client.websocket_connect(f"/ws/{code}") as ws_b:
            asha, benp = Player(ws_a, "asha"), Player(ws_b, "ben")
            asha.hello(token=room["token"])
            benp.hello(token=ben["token"])
            asha.send(type="start")
            drain_to(asha, 3)
            drain_to(benp, 3)
            play_deal([asha, benp], rng)
            asha.send(type="rematch")
            new = asha.until(lambda m: m["type"] == "rematch")["code"]
            benp.until(lambda m: m["type"] == "rematch")
        assert len(listed_while_seating) == 2 and not any(new in codes for codes in listed_while_seating)
        assert _listed(client)[new]["free"] == 1  # then listed: public, one seat free


def test_rematch_of_a_hosted_room_gives_the_new_host_token_to_the_host_alone():
    rng = random.Random(8)
    with make_client() as client:
        room = create_room(client, name=None, players=3)  # a hosted room: the host has no seat
        code = room["code"]
        tokens = [client.post(f"/api/rooms/{code}/join", json={"name": n}).json()["token"] for n in ("Ana", "Bo")]
        with (
            client.websocket_connect(f"/ws/{code}") as ws_h,
            client.websocket_connect(f"/ws/{code}") as ws_a,
            client.websocket_connect(f"/ws/{code}") as ws_b,
        ):
            host, ana, bo = Player(ws_h, "host"), Player(ws_a, "ana"), Player(ws_b, "bo")
            host.hello(token=room["host_token"])
            ana.hello(token=tokens[0])
            bo.hello(token=tokens[1])
            host.send(type="start")
            for p in (host, ana, bo):
                drain_to(p, 3)
            play_deal([ana, bo], rng)
            bo.send(type="rematch")
            got = {p.label: p.until(lambda m: m["type"] == "rematch") for p in (host, ana, bo)}
        assert got["host"]["seat"] is None and got["host"]["token"] is None and got["host"]["host_token"]
        assert got["ana"]["host_token"] is None and got["bo"]["host_token"] is None
        new = client.app.state.service.rooms[got["host"]["code"]].room
        assert new.is_host_token(got["host"]["host_token"]) and not new.is_host_token(got["bo"]["token"])
        assert [(s.name, s.host) for s in new.seats] == [("Ana", False), ("Bo", False), ("", False)]


def test_a_player_back_after_the_rematch_asks_and_gets_the_same_room():
    rng = random.Random(9)
    with make_client() as client:
        room, ben, code = _two_humans(client)
        with client.websocket_connect(f"/ws/{code}") as ws_a:
            asha = Player(ws_a, "asha")
            asha.hello(token=room["token"])
            with client.websocket_connect(f"/ws/{code}") as ws_b:
                benp = Player(ws_b, "ben")
                benp.hello(token=ben["token"])
                asha.send(type="start")
                drain_to(asha, 3)
                drain_to(benp, 3)
                play_deal([asha, benp], rng)
            asha.send(type="rematch")  # Ben's page is away (reloading): his seat is left free
            new = asha.until(lambda m: m["type"] == "rematch")["code"]
            with client.websocket_connect(f"/ws/{code}") as ws_b:
                benp = Player(ws_b, "ben")
                benp.hello(token=ben["token"])
                benp.send(type="rematch")  # refused, and he is seated in that room, not a second one
                refused = benp.until(lambda m: m["type"] == "error")  # after the room is given
                to_ben = next(m for m in benp.seen if m["type"] == "rematch")
        assert refused["code"] == "rematch_made"
        assert to_ben["code"] == new and to_ben["seat"] == 1 and to_ben["host_token"] is None
        seats = client.get(f"/api/rooms/{new}").json()["seats"]
        assert [(s["name"], s["kind"]) for s in seats] == [("Asha", "human"), ("Ben", "human"), ("", "empty")]
        rooms = [r.code for r in client.app.state.service.store.unfinished()]
        assert rooms == [new]
