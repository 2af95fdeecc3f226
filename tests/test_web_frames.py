"""Every frame the server sends fits the protocol's models (issue 23, item 2): the frames of
real sockets (the test client's), recorded where the server writes them, during a whole match
and its rematch, a take, and a reconnect with an absence, a ``back`` and a ``finish``, are each
checked strictly against ``ServerMessage`` (web/protocol/socket.py: a known ``type``, no undeclared
field, nothing missing: :func:`web_helpers.check_frame`). A cluster forward (a command sent to a
process that does not own the room) is checked the same way in tests/test_web_cluster.py.

Also: the tag lists come from the unions, the socket schema describes every message of both
directions, and docs/web.md's message tables are the ones made from that schema
(:mod:`getaway.web.socketdoc`)."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocket

from getaway.web import protocol, socketdoc
from getaway.web.routes.pages import STATIC_DIR
from web_helpers import Player, check_frame, create_room, make_client, play_deal
from web_helpers import seeded as seeded  # the fixture

DOCS = Path(__file__).resolve().parent.parent / "docs"

#: The server messages each scenario below must have sent (their union: every server message).
EXPECTED: dict[str, set[str]] = {
    "match": {"welcome", "sync", "update", "error", "pong", "hint", "rematch", "closed", "chat"},
    "take": {"welcome", "update"},
    "reconnect": {"welcome", "update", "absent", "error"},
}


@pytest.fixture
def frames(monkeypatch) -> list[Any]:
    """Every frame the server's sockets send (their ``websocket.send`` messages: text, or bytes
    if any), recorded as the server writes them, whether or not a test reads them."""
    sent: list[Any] = []
    original = WebSocket.send

    async def send(self: WebSocket, message: Any) -> None:
        if message["type"] == "websocket.send":
            sent.append(message["text"] if message.get("text") is not None else message.get("bytes"))
        await original(self, message)

    monkeypatch.setattr(WebSocket, "send", send)
    return sent


def _checked(sent: list[Any]) -> list[dict[str, Any]]:
    """Each recorded frame checked (:func:`check_frame`): text, a known type, its model's fields exactly."""
    assert sent, "no frame was recorded"
    for frame in sent:
        assert isinstance(frame, str), f"a binary frame: {frame!r:.80}"
    return [check_frame(frame) for frame in sent]


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_scenarios_cover_every_server_message():
    assert set().union(*EXPECTED.values()) == set(protocol.SERVER_TAGS)


def test_every_frame_of_a_match_its_rematch_and_a_close_fits_the_protocol(frames, seeded):
    with make_client() as client:
        room = create_room(client)
        code = room["code"]
        with client.websocket_connect("/ws/NOSUCH") as ws:  # an unknown room: one error, then closed
            assert Player(ws).recv()["code"] == "room_not_found"
        with (
            client.websocket_connect(f"/ws/{code}") as ws,
            client.websocket_connect(f"/ws/{code}") as watching,
            client.websocket_connect(f"/ws/{code}") as hosting,
        ):
            asha, watcher, host = Player(ws, "asha"), Player(watching, "watcher"), Player(hosting, "host")
            asha.send(type="start")  # before a hello
            assert asha.recv()["code"] == "not_hello"
            asha.ws.send_text("{not json")
            assert asha.recv()["code"] == "bad_json"
            assert asha.hello(token=room["token"])["type"] == "welcome"
            assert watcher.hello(spectate=True)["type"] == "welcome"
            assert host.hello(token=room["host_token"])["host"] is True  # a seat-less socket with host rights
            asha.send(type="chat", phrase="good_luck")  # quick chat: to every socket, the watcher's too
            assert watcher.until(lambda m: m["type"] == "chat")["seat"] == room["seat"]
            watcher.send(type="chat", phrase="hello")  # a spectator's: refused
            assert watcher.until(lambda m: m["type"] == "error")["code"] == "spectator"
            asha.send(type="hint")  # nothing to hint before the start
            assert asha.until(lambda m: m["type"] == "error")["code"]
            asha.send(type="start")
            asha.until(lambda m: m["type"] == "update" and m["room"]["status"] == "playing")
            asha.until(lambda m: asha.my_turn())
            asha.send(type="hint")
            assert asha.until(lambda m: m["type"] in ("hint", "error"))["type"] == "hint"
            asha.send(type="lang", lang="fr")
            asha.until(lambda m: m["type"] == "sync")
            asha.send(type="act", action="A♠", version=0)  # a stale version
            asha.until(lambda m: m["type"] == "error")
            asha.send(type="ping")
            asha.until(lambda m: m["type"] == "pong")
            play_deal([asha], random.Random(1))
            assert asha.view["outcome"] is not None
            if asha.last["room"]["status"] != "finished":
                asha.until(lambda m: m["type"] == "update" and m["room"]["status"] == "finished")
            asha.send(type="rematch")
            made = asha.until(lambda m: m["type"] == "rematch")
            asha.send(type="rematch")  # asked again: refused
            assert asha.until(lambda m: m["type"] == "error")["code"] == "rematch_made"
            for p in (asha, watcher, host):  # every socket has read all it was sent (a ping answers last)
                p.send(type="ping")
                p.until(lambda m: m["type"] == "pong")
        with client.websocket_connect(f"/ws/{made['code']}") as ws:  # the rematch room, closed by its host
            again = Player(ws, "asha")
            assert again.hello(token=made["token"])["seat"] == room["seat"]
            closed = client.post(f"/api/rooms/{made['code']}/close", headers=_auth(made["host_token"]))
            assert closed.status_code == 200, closed.text
            assert again.until(lambda m: m["type"] == "closed")["reason"] == "host"
    seen = {m["type"] for m in _checked(frames)}
    assert seen >= EXPECTED["match"], seen


def test_every_frame_of_a_deal_with_takes_fits_the_protocol(frames, seeded):
    with make_client() as client:
        room = create_room(client, options={"takes": "any"})
        with client.websocket_connect(f"/ws/{room['code']}") as ws:
            asha = Player(ws, "asha")
            asha.hello(token=room["token"])
            asha.send(type="start")
            asha.until(lambda m: m["type"] == "update" and m["room"]["status"] == "playing")
            took = False
            for _ in range(3000):
                if asha.view["outcome"] is not None:
                    break
                if not asha.my_turn():
                    asha.until(lambda m: m["type"] == "update")
                    continue
                legal = asha.view["legal_actions"]
                action = "take" if "take" in legal else random.Random(len(asha.history)).choice(legal)
                asha.send(type="act", action=action, version=asha.version)
                answer = asha.until(lambda m: m["type"] in ("update", "error"))
                if answer["type"] == "error":
                    assert answer["code"] in ("stale_version", "rate_limited"), answer
                    time.sleep(0.1 if answer["code"] == "rate_limited" else 0)
                    continue
                took = took or action == "take"
            assert took and asha.view["outcome"] is not None
            assert any(e["kind"] == "take" for e in asha.history)
            asha.send(type="ping")
            asha.until(lambda m: m["type"] == "pong")
    seen = {m["type"] for m in _checked(frames)}
    assert seen >= EXPECTED["take"], seen


def test_every_frame_of_a_reconnect_an_absence_back_and_finish_fits_the_protocol(frames, seeded):
    with make_client(grace=60) as client:
        room = create_room(client, turn_time=1)
        code = room["code"]
        ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
        with client.websocket_connect(f"/ws/{code}") as ws, client.websocket_connect(f"/ws/{code}") as watching:
            asha, watcher = Player(ws, "asha"), Player(watching, "watcher")
            asha.hello(token=room["token"])
            watcher.hello(spectate=True)
            with client.websocket_connect(f"/ws/{code}") as ben_ws:
                Player(ben_ws, "ben").hello(token=ben["token"])
                asha.send(type="start")
                asha.until(lambda m: m["type"] == "update" and m["room"]["status"] == "playing")
            # Ben's socket closed mid-deal: every socket is told he is absent (a bot takes over at the deadline)
            absent = watcher.until(lambda m: m["type"] == "absent")
            assert absent["seat"] == ben["seat"]
            with client.websocket_connect(f"/ws/{code}") as ben_ws:  # Ben reconnects: a full welcome
                back = Player(ben_ws, "ben")
                assert back.hello(token=ben["token"])["seat"] == ben["seat"]
                back.send(type="finish")  # humans are still in the deal
                assert back.until(lambda m: m["type"] == "error")["code"] == "not_now"
                # nobody plays: each human's turn times out (turn_time 1 s) and a bot plays it, away
                away = watcher.until(
                    lambda m: m["type"] == "update" and any(s["bot_playing"] for s in m["room"]["seats"])
                )
                seat = next(s["seat"] for s in away["room"]["seats"] if s["bot_playing"])
                mover = asha if seat == room["seat"] else back
                mover.send(type="back")
                seated = lambda m: not m["room"]["seats"][seat]["bot_playing"] or m["view"]["outcome"] is not None  # noqa: E731
                watcher.until(lambda m: m["type"] == "update" and seated(m))  # back (or the deal over)
                # both away again in turn (or the deal over): finish lets the bots play the rest at once
                deadline, finishing = time.monotonic() + 30, False
                while watcher.view["outcome"] is None:
                    assert time.monotonic() < deadline, "the deal did not end"
                    seats = watcher.last["room"]["seats"]
                    if not finishing and all(s["bot_playing"] for s in seats if s["kind"] == "human"):
                        mover.send(type="finish")  # once (each socket's messages are rate-limited)
                        finishing = True
                    watcher.until(lambda m: m["type"] == "update")
                for p in (asha, watcher, back):
                    p.send(type="ping")
                    p.until(lambda m: m["type"] == "pong")
    seen = {m["type"] for m in _checked(frames)}
    assert seen >= EXPECTED["reconnect"], seen


# ----------------------------------------------------------------------------- the checker itself


def test_the_check_refuses_an_undeclared_field_or_type_and_a_missing_field():
    pong = '{"type":"pong"}'
    assert check_frame(pong) == {"type": "pong"}
    for bad in (
        '{"type":"pong","x":1}',  # an undeclared field
        '{"type":"wave"}',  # a type without a model
        '{"type":"absent","seat":"1","deadline":5}',  # a string for a number
        '{"type":"closed"}',  # a field missing
        '{"type":"hint","action":"7♠","text":"…","version":1,"seat":0}',
    ):
        with pytest.raises(AssertionError):
            check_frame(bad)
    with make_client() as client:
        room = client.get(f"/api/rooms/{create_room(client)['code']}").json()
    frame = {"type": "closed", "reason": "host"}
    assert check_frame(json.dumps(frame))
    update = {"type": "update", "version": 1, "room": room, "view": None, "events": [], "history_length": 0}
    update |= {"illegal": [], "log": [], "turn_ends_in": None, "take_ends_in": None}
    check_frame(json.dumps(update))
    room["seats"][0]["extra"] = 1  # a field undeclared in a nested model (RoomState's seats, shared with HTTP)
    with pytest.raises(AssertionError, match="extra"):
        check_frame(json.dumps(update))


# ----------------------------------------------------------------------------- tags, schema, docs


def test_the_tag_lists_are_the_unions():
    schema = protocol.socket_schema()
    assert set(protocol.CLIENT_TAGS) == set(schema["client"]["discriminator"]["mapping"])
    assert set(protocol.SERVER_TAGS) == set(schema["server"]["discriminator"]["mapping"])
    assert {"back", "finish"} <= set(protocol.CLIENT_TAGS)
    assert len(set(protocol.CLIENT_TAGS)) == len(protocol.CLIENT_TAGS)
    # a bad field of any client message is named without its tag (the tag list is the union's)
    for tag in protocol.CLIENT_TAGS:
        refused = protocol.refusal(protocol.client_error(f'{{"type": "{tag}", "zz": 1}}'))
        named = refused.args_["fields"]
        fields = ("zz", "action", "lang", "phrase", "speed")
        assert refused.code == "bad_message" and named in fields, (tag, refused.args_)


def test_the_socket_schema_describes_every_message_of_both_directions():
    with make_client() as client:
        served = client.get("/api/socket-schema.json").json()
    assert served == protocol.socket_schema()
    for side, tags in (("client", protocol.CLIENT_TAGS), ("server", protocol.SERVER_TAGS)):
        schema = served[side]
        assert schema["title"] == f"{side.capitalize()}Message" and schema["description"]
        mapping = schema["discriminator"]["mapping"]
        assert set(mapping) == set(tags)
        for tag, ref in mapping.items():
            model = schema["$defs"][ref.rsplit("/", 1)[1]]
            assert model.get("title") and model.get("description"), (side, tag)
            assert model.get("additionalProperties") is False, (side, tag)  # strict both ways
            assert tag in str(model["properties"]["type"]), (side, tag)


def test_docs_web_md_message_tables_are_made_from_the_socket_schema():
    """docs/web.md's tables of socket messages are :func:`socketdoc.tables` (regenerate them
    with ``python -m getaway.web.socketdoc docs/web.md``): every message and field it names is
    a model's, and every model's message and field is in it."""
    text = (DOCS / "web.md").read_text(encoding="utf-8")
    block = socketdoc.block_of(text)
    assert block is not None, f"docs/web.md: no {socketdoc.BEGIN} … {socketdoc.END} block"
    assert block == socketdoc.tables(), (
        "docs/web.md's socket tables are stale: python -m getaway.web.socketdoc docs/web.md"
    )
    # the prose's messages, {"type": "rematch", "code", "url", …}, name fields their models have
    schema = protocol.socket_schema()
    fields: dict[str, set[str]] = {}
    for side in ("client", "server"):
        for tag, ref in schema[side]["discriminator"]["mapping"].items():
            fields.setdefault(tag, set()).update(schema[side]["$defs"][ref.rsplit("/", 1)[1]]["properties"])
    mentions = re.findall(r'\{"type": "(\w+)"([^{}]*)\}', " ".join(text.split()))
    assert len(mentions) >= 3, mentions
    for tag, rest in mentions:
        assert tag in fields, f"docs/web.md names a message {tag!r} that has no model"
        named = set(re.findall(r'"(\w+)"', re.sub(r':\s*"[^"]*"', ":", rest)))
        assert named <= fields[tag], (tag, named - fields[tag])
    # the room log's commands the architecture names are the ones the server logs
    listed = re.search(r"append-only log of accepted commands \(([^)]*)\)", text.replace("\n", " "))
    assert listed is not None
    assert "leave" not in re.findall(r"`(\w+)`", listed.group(1))


def test_the_page_sends_and_reads_the_messages_of_the_unions():
    """The page (web/static/*.js) sends every client message and only those, and reads the
    server's (a ``pong`` needs no reading): a renamed or a new message is noticed here too."""
    static = STATIC_DIR
    scripts = {path.name: path.read_text(encoding="utf-8") for path in static.glob("*.js")}
    sent = {tag for text in scripts.values() for tag in re.findall(r'(?:send|stringify)\(\{ type: "(\w+)"', text)}
    assert sent == set(protocol.CLIENT_TAGS), sent ^ set(protocol.CLIENT_TAGS)
    handler = re.search(r"\nfunction onMessage\(msg\) \{\n(.*?)\n\}\n", scripts["app.js"], re.S)
    assert handler is not None, "app.js: no onMessage(msg)"
    read = set(re.findall(r'case "(\w+)":', handler.group(1)))
    assert read <= set(protocol.SERVER_TAGS) and set(protocol.SERVER_TAGS) - read <= {"pong"}, read
