"""The web server's edge against a hostile client (issue 13, items 0, 4, 6, 7, 8, 9, 10; docs/web.md,
"Seats and security"): malformed input of every route and socket message type (Hypothesis: lone
surrogates, wrong types, huge numbers, deep nesting) gets a 4xx or an ``error`` naming the field,
keeps the socket open and changes nothing; bodies, frames, sockets and silent sockets are bounded;
proxy headers are trusted only from named proxies; the browser protections; unique names and
marked bots. Some run against a real ``getaway serve`` (uvicorn) on a loopback port."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import time
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from getaway.core.rules import Rules
from getaway.web import protocol
from getaway.web.protocol import SERVER, printable
from web_helpers import Player, create_room, make_client, play_deal, running_server

pytestmark = pytest.mark.timeout(120)

FUZZ = settings(
    max_examples=int(os.environ.get("GETAWAY_FUZZ", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)

# ----------------------------------------------------------------------------- hostile values

SURROGATE = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=2)
TEXT = st.one_of(
    st.text(max_size=12), SURROGATE, st.tuples(st.text(max_size=4), SURROGATE).map("".join), st.just("x" * 300)
)
NUMBER = st.one_of(
    st.integers(-5, 60),
    st.integers(min_value=2**53, max_value=10**300),
    st.integers(max_value=-(2**63)),
    st.floats(allow_nan=False, allow_infinity=False),
)
SCALAR = st.one_of(st.none(), st.booleans(), NUMBER, TEXT)
VALUE = st.recursive(
    SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)), max_leaves=8
)
DEEP = st.integers(50, 2000).map(lambda n: "[" * n + "]" * n)
CLIENT_KEYS = ["action", "version", "token", "spectate", "lang", "since"]
OPTION_NAMES = sorted(set(Rules.schema()["options"]) - {"profile", "players", "deals"})


def _dict_with(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.one_of(st.sampled_from(keys), TEXT), VALUE, max_size=5)


CREATE_BODY = st.one_of(
    VALUE,
    _dict_with(["profile", "players", "deals", "options", "bot_level", "name"]),
    st.fixed_dictionaries({"options": st.dictionaries(st.sampled_from(OPTION_NAMES), VALUE, min_size=1, max_size=3)}),
)
JOIN_BODY = st.one_of(VALUE, _dict_with(["name", "seat"]))


def _raw(body: Any) -> str:
    return json.dumps(body)  # lone surrogates go out as \\udxxx escapes, as an attacker's would


def _segment(text: str) -> str:
    """``text`` as one URL path segment, percent-encoded (a lone surrogate as its invalid UTF-8 bytes)."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        # as the server reads them: a surrogate pair sent as two escapes is one character
        return {printable(json.loads(json.dumps(str(k)))) for k in obj} | {k for v in obj.values() for k in _keys(v)}
    return set()


def _names_a_field(message: str, sent: Any) -> bool:
    """Whether a refusal's message names one of the fields sent (or the whole body/message)."""
    keys = _keys(sent) | {"body", "message", "type", "JSON", "name", "options", "seat", *CLIENT_KEYS, *OPTION_NAMES}
    keys |= {"profile", "players", "deals", "bot_level"}
    return any(k and k in message for k in keys)


def _assert_refusal(r: httpx.Response, sent: Any) -> None:
    assert r.status_code < 500, (r.status_code, r.text, sent)
    if r.status_code >= 400:
        body = r.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
        assert body["error"]["code"] and body["error"]["message"], body
        if body["error"]["code"] == "bad_message" and isinstance(sent, dict) and sent:
            assert _names_a_field(body["error"]["message"], sent), (body, sent)


def _db_state(client) -> tuple[int, int]:
    """(rooms, log entries) in the database: what a refusal must not change."""
    from sqlalchemy import func, select

    from getaway.web.store import room_log, rooms

    with client.app.state.service.store.engine.connect() as conn:
        return (
            conn.execute(select(func.count()).select_from(rooms)).scalar_one(),
            conn.execute(select(func.count()).select_from(room_log)).scalar_one(),
        )


def _lenient_client(**settings_: Any):
    return make_client(rooms_per_minute=1e6, rate=1e6, burst=1e6, **settings_)


# ----------------------------------------------------------------------------- item 7: the reported inputs


def test_the_reported_inputs_get_a_4xx_naming_the_field_and_the_socket_stays_open():
    with _lenient_client() as client:
        r = client.post("/api/rooms", json={"bot_level": []})
        assert r.status_code == 400 and "bot_level" in r.json()["error"]["message"], r.text
        room = create_room(client)
        code = room["code"]
        before = _db_state(client)
        r = client.post(f"/api/rooms/{code}/join", content='{"name": "Ben", "seat": "\\ud800"}',
                        headers={"content-type": "application/json"})  # fmt: skip
        assert r.status_code == 400 and "seat" in r.json()["error"]["message"], r.text
        # (in the lobby: no bot moves the room on meanwhile; the message is refused before it is read)
        with client.websocket_connect(f"/ws/{code}") as ws:
            asha = Player(ws)
            version = asha.hello(token=room["token"])["version"]
            state = _db_state(client)
            ws.send_text('{"type": "act", "action": "\\ud800", "version": ' + str(version) + "}")
            error = asha.until(lambda m: m["type"] == "error")
            assert error["code"] in ("bad_json", "bad_message") and error["version"] == version
            asha.send(type="ping")
            assert asha.until(lambda m: m["type"] in ("pong", "error"))["type"] == "pong"  # still open
            assert _db_state(client) == state
        assert before[0] == state[0]


# ----------------------------------------------------------------------------- item 7: fuzzing every route


def test_fuzz_every_http_route():
    with _lenient_client() as client:
        room = create_room(client, players=3)
        code = room["code"]

        @FUZZ
        @given(body=CREATE_BODY)
        def create(body):
            before = _db_state(client)
            r = client.post("/api/rooms", content=_raw(body), headers={"content-type": "application/json"})
            _assert_refusal(r, body)
            if r.status_code >= 400:
                assert _db_state(client) == before

        @FUZZ
        @given(body=JOIN_BODY, where=st.one_of(st.just(code), TEXT))
        def join(body, where):
            before = _db_state(client)
            path = f"/api/rooms/{_segment(where)}/join"
            r = client.post(path, content=_raw(body), headers={"content-type": "application/json"})
            _assert_refusal(r, body)
            if r.status_code >= 400:
                assert _db_state(client) == before
            elif r.status_code == 200:  # a valid join: free the seat again for the next example
                client.app.state.service.rooms.pop(code, None)

        @FUZZ
        @given(auth=st.one_of(st.none(), st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60)))
        def start(auth):
            before = _db_state(client)
            headers = {} if auth is None else {"Authorization": auth}
            r = client.post(f"/api/rooms/{code}/start", headers=headers)
            assert r.status_code in (403, 404), r.text  # only the host token starts it
            assert _db_state(client) == before

        @FUZZ
        @given(options=st.one_of(VALUE.map(_raw), DEEP, TEXT), profile=st.one_of(st.just("punjab"), TEXT))
        def rules(options, profile):
            r = client.get(f"/api/rules/en?options={_segment(options)}&profile={_segment(profile)}")
            assert r.status_code in (200, 400, 404, 422) or r.status_code < 500, r.text
            _assert_refusal(r, None)

        @FUZZ
        @given(index=st.one_of(NUMBER.map(str), TEXT), lang=TEXT)
        def reads(index, lang):
            index, lang = _segment(index), _segment(lang)
            for path in (f"/api/rooms/{code}/deals/{index}/record", f"/api/strings/{lang}", f"/api/rooms/{lang}"):
                _assert_refusal(client.get(path), None)

        @FUZZ
        @given(text=DEEP)
        def deep(text):
            before = _db_state(client)
            r = client.post("/api/rooms", content=text, headers={"content-type": "application/json"})
            assert r.status_code == 400 and r.json()["error"]["code"] in ("bad_json", "bad_message"), r.text
            assert _db_state(client) == before

        for test in (create, join, start, rules, reads, deep):
            test()


SOCKET_MESSAGE = st.one_of(
    st.sampled_from(["hello", "act", "start", "next", "lang", "ping"]).flatmap(
        lambda kind: _dict_with(CLIENT_KEYS).map(lambda d: {**d, "type": kind})
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["act"]), "action": TEXT, "version": NUMBER}),
    VALUE,
)


def test_fuzz_every_socket_message_type():
    """A spectator's socket (it can change nothing even with a valid message) gets, for each
    message, one answer: an ``error`` naming the field for a malformed one, and stays open."""
    with _lenient_client() as client:
        room = create_room(client, players=3)
        code = room["code"]
        # a lobby: nothing moves the room on by itself, so any change would be the messages'
        with client.websocket_connect(f"/ws/{code}") as ws:
            spec = Player(ws)
            spec.hello(spectate=True)

            @FUZZ
            @given(msg=st.one_of(SOCKET_MESSAGE.map(_raw), DEEP, TEXT))
            def one(msg):
                before = _db_state(client)
                ws.send_text(msg)
                ws.send_text('{"type": "ping", "x": 0}')  # a bad ping: an error that marks the end
                answers = []
                while True:
                    answer = spec.recv()
                    if answer.get("type") == "error" and answer.get("message") == "unknown field: x":
                        break
                    answers.append(answer)
                assert answers, msg
                first = answers[0]
                assert first["type"] in ("error", "pong", "sync", "update"), first
                if first["type"] == "error":
                    assert first["code"] and first["message"], first
                    try:  # what was sent, when it is a JSON object ("{" alone is not)
                        sent = json.loads(msg)
                    except (ValueError, RecursionError):
                        sent = None
                    if first["code"] == "bad_message" and isinstance(sent, dict) and len(sent) > 1:
                        assert _names_a_field(first["message"], sent), (first, msg)
                assert _db_state(client) == before

            one()

            # hello: a fresh socket each time; a bad one is refused, the socket stays open
            @FUZZ
            @given(hello=_dict_with(CLIENT_KEYS).map(lambda d: {**d, "type": "hello"}))
            def hello(hello):
                before = _db_state(client)
                with client.websocket_connect(f"/ws/{code}") as ws2:
                    p = Player(ws2)
                    ws2.send_text(_raw(hello))
                    answer = p.until(lambda m: m["type"] in ("welcome", "error"))
                    if answer["type"] == "error":
                        assert answer["code"] in ("bad_message", "bad_json", "bad_token"), answer
                        p.send(type="hello", spectate=True)  # still open, and the hello still possible
                        assert p.until(lambda m: m["type"] in ("welcome", "error"))["type"] == "welcome"
                assert _db_state(client) == before

            hello()


# ----------------------------------------------------------------------------- item 9: option ranges


def test_out_of_range_options_are_refused_naming_the_option():
    with make_client() as client:
        before = _db_state(client)
        for options, named in [
            ({"ante": int("9" * 4299)}, "options.ante"),
            ({"ante": 1001}, "options.ante"),
            ({"ante": -1}, "options.ante"),
            ({"loaded_seat": 99, "uneven": "loaded"}, "options.loaded_seat"),
            ({"nopickup": True, "kicker": True}, "nopickup"),  # the core's exclusive pair
        ]:
            r = client.post("/api/rooms", json={"options": options})
            assert r.status_code == 400 and named in r.json()["error"]["message"], (options, r.text[:200])
            assert "9999" not in r.text  # the huge value is not echoed
        r = client.post("/api/rooms", json={"players": 2})  # punjab: 3 to 8 (the core's per-profile range)
        assert r.status_code == 400 and "players" in r.json()["error"]["message"]
        r = client.get("/api/rules/en", params={"options": json.dumps({"ante": 10**50})})
        assert r.status_code == 400 and "options.ante" in r.json()["error"]["message"]
        assert _db_state(client) == before


# ----------------------------------------------------------------------------- item 10: names


def test_names_are_unique_in_a_room_and_bots_are_marked():
    with make_client(grace=0.05) as client:
        room = create_room(client, players=4)
        code = room["code"]
        for taken in ("asha", " ASHA ", "A sha", "Ａｓｈａ"):
            r = client.post(f"/api/rooms/{code}/join", json={"name": taken})
            assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken", (taken, r.text)
        r = client.post(f"/api/rooms/{code}/join", json={"name": "\N{ROBOT FACE} Bot 3"})
        assert r.status_code == 400 and "name" in r.json()["error"]["message"]
        passing_for_bots = (  # issue 29 item 6: after NFKC, marks stripped, confusables, separators folded
            "Bo\u0301t 3",  # a combining accent
            "B\u00f3t 3",  # a precomposed one
            "Bot_3",
            "Bot-3",
            "Bot.3",
            "B\u043et 3",  # Cyrillic o
            "\u0412\u043e\u0442 3",  # Cyrillic Ve, o, te
            "\u0392ot 3",  # Greek Beta
            "Bot\u00b73",  # a middle dot
            "B0t 3",
            "Bot \u0969",  # Devanagari 3
        )
        for bot_name in ("Bot 3", "bot3", " BOT  7 ", "\uff22\uff2f\uff34 \uff13", *passing_for_bots):
            r = client.post(f"/api/rooms/{code}/join", json={"name": bot_name})
            assert r.status_code == 400 and r.json()["error"]["code"] == "name_reserved", (bot_name, r.text)
        assert client.post(f"/api/rooms/{code}/join", json={"name": "Bot"}).status_code == 200  # seat 1: no number
        client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {room['host_token']}"})
        state = client.get(f"/api/rooms/{code}").json()
        assert [(s["name"], s["kind"]) for s in state["seats"]] == [
            ("Asha", "human"), ("Bot", "human"), ("", "bot"), ("", "bot")
        ]  # fmt: skip
        shown = client.app.state.service.rooms[code].room.shown_names()
        assert shown == ["Asha", "Bot", "\N{ROBOT FACE} Bot 3", "\N{ROBOT FACE} Bot 4"]
        history = client.get(f"/api/rooms/{code}/history").json()  # and the names of records and standings
        assert history["names"] == shown
        with client.websocket_connect(f"/ws/{code}") as ws:
            asha = Player(ws)
            asha.hello(token=room["token"])
            play_deal([asha], __import__("random").Random(3), stop=lambda ps: ps[0].view["tricks_played"] >= 2)
            lines = [line for m in asha.seen for line in m.get("log", [])]
        bots = [line for line in lines if "\N{ROBOT FACE} Bot" in line]
        assert bots, lines[:10]  # the bots' moves name them with the mark
        # a bot's name never appears without the mark: no human can be called that
        assert not any(re.search("(?<!\N{ROBOT FACE} )Bot [0-9]", line) for line in lines)


# ----------------------------------------------------------------------------- item 4: sockets


def test_a_socket_without_hello_is_closed_and_sockets_per_address_are_capped():
    with make_client(hello_timeout=0.3, sockets_per_address=2) as client:
        code = create_room(client)["code"]
        with client.websocket_connect(f"/ws/{code}") as ws:
            started = time.monotonic()
            error = json.loads(ws.receive_text())
            assert error["code"] == "not_hello" and time.monotonic() - started < 5
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 1008
        with client.websocket_connect(f"/ws/{code}") as a, client.websocket_connect(f"/ws/{code}") as b:
            Player(a).hello(spectate=True)
            Player(b).hello(spectate=True)
            with client.websocket_connect(f"/ws/{code}") as c:
                assert json.loads(c.receive_text())["code"] == "too_many_sockets"
                with pytest.raises(WebSocketDisconnect) as closed:
                    c.receive_text()
                assert closed.value.code == 1008
        with client.websocket_connect(f"/ws/{code}") as again:  # the count goes down as sockets close
            assert Player(again).hello(spectate=True)["type"] == "welcome"


# ----------------------------------------------------------------------------- item 8: browser protections


def test_every_answer_has_the_browser_protections():
    with make_client() as client:
        code = create_room(client)["code"]
        for path in ("/", f"/r/{code}", "/static/app.js", f"/api/rooms/{code}", "/api/nothing"):
            r = client.get(path)
            csp = r.headers["content-security-policy"]
            assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
            assert r.headers["x-content-type-options"] == "nosniff"
            assert r.headers["x-frame-options"] == "DENY"
            assert r.headers["referrer-policy"] == "no-referrer"
        page = client.get("/").text
        assert "<script>" not in page and '<script type="module" src=' in page  # no inline script
        assert " style=" not in page and " on" not in page.split("<body", 1)[1].split(">", 1)[0]


def test_foreign_origins_and_non_json_bodies_are_refused():
    with make_client() as client:
        room = create_room(client)
        code = room["code"]
        before = _db_state(client)
        evil = {"Origin": "https://evil.example"}
        for path, body in (("/api/rooms", {}), (f"/api/rooms/{code}/join", {"name": "Eve"})):
            r = client.post(path, json=body, headers=evil)
            assert r.status_code == 403 and r.json()["error"]["code"] == "bad_origin", r.text
            # the cross-site form a page can send without a preflight: text/plain
            r = client.post(path, content=json.dumps(body), headers={"Content-Type": "text/plain"})
            assert r.status_code == 415 and r.json()["error"]["code"] == "bad_content_type", r.text
        r = client.post(f"/api/rooms/{code}/start", headers={**evil, "Authorization": f"Bearer {room['host_token']}"})
        assert r.status_code == 403
        assert _db_state(client) == before
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"/ws/{code}", headers=evil) as ws:
            ws.receive_text()
        assert refused.value.code == 1008
        # the server's own origin, and no Origin at all (scripts, the command line), are allowed
        assert client.post("/api/rooms", json={}, headers={"Origin": "http://testserver"}).status_code == 201
        assert client.post("/api/rooms", json={}).status_code == 201
        with client.websocket_connect(f"/ws/{code}", headers={"Origin": "http://testserver"}) as ws:
            assert Player(ws).hello(spectate=True)["type"] == "welcome"


def test_a_named_origin_is_allowed():
    with make_client(allowed_origins=["https://play.example"]) as client:
        r = client.post("/api/rooms", json={}, headers={"Origin": "https://play.example"})
        assert r.status_code == 201


# ----------------------------------------------------------------------------- item 0: the documents


def test_openapi_and_socket_schema_come_from_the_models_and_match_what_is_sent():
    with make_client() as client:
        openapi = client.get("/api/openapi.json").json()
        assert {"/api/rooms", "/api/rooms/{code}/join", "/api/rooms/{code}/start"} <= set(openapi["paths"])
        assert all("422" not in op["responses"] for ops in openapi["paths"].values() for op in ops.values())
        assert "ErrorAnswer" in json.dumps(openapi["paths"]["/api/rooms"]["post"]["responses"]["400"])
        schemas = openapi["components"]["schemas"]
        assert {"CreateRoom", "JoinRoom", "Created", "RoomState", "ErrorAnswer", "RoomOptions"} <= set(schemas)
        ante = schemas["RoomOptions"]["properties"]["ante"]
        assert ante.get("anyOf", [ante])[0].items() >= {"minimum": 0, "maximum": 1000}.items()
        sockets = client.get("/api/socket-schema.json").json()
        client_types = set(sockets["client"]["discriminator"]["mapping"])
        server_types = set(sockets["server"]["discriminator"]["mapping"])
        # the served schema's messages are the unions' (one list of messages: the models)
        assert client_types == set(protocol.CLIENT_TAGS) and {"hello", "act", "ping"} <= client_types
        assert server_types == set(protocol.SERVER_TAGS) and {"welcome", "update", "error"} <= server_types
        assert {"/api/quickplay", "/api/rooms"} <= set(openapi["paths"]) and "get" in openapi["paths"]["/api/rooms"]
        # what the server sends fits its models
        room = create_room(client)
        with client.websocket_connect(f"/ws/{room['code']}") as ws:
            asha = Player(ws)
            asha.hello(token=room["token"])
            asha.send(type="start")
            asha.until(lambda m: m["type"] == "update" and m["room"]["status"] == "playing")
            play_deal([asha], __import__("random").Random(1), stop=lambda ps: ps[0].view["tricks_played"] >= 1)
            asha.send(type="lang", lang="fr")
            asha.until(lambda m: m["type"] == "sync")
            asha.send(type="act", action="A♠", version=0)
            asha.until(lambda m: m["type"] == "error")
            asha.send(type="ping")
            asha.until(lambda m: m["type"] == "pong")
        raw = [dict(m) for m in asha.seen]
        for m in raw:
            if m["type"] == "update":
                m["view"] = m["view"] and {k: v for k, v in m["view"].items() if k != "history"}
            SERVER.validate_python(m)
        assert {m["type"] for m in raw} >= {"welcome", "update", "sync", "error", "pong"}


# ----------------------------------------------------------------------------- item 6: proxy headers


def test_forwarded_for_is_trusted_only_from_named_proxies():
    spoofed = [{"X-Forwarded-For": f"203.0.113.{i}"} for i in range(12)]
    with make_client(rooms_per_minute=2) as client:  # bursts of 4, whatever the header says
        made = [client.post("/api/rooms", json={}, headers=h).status_code for h in spoofed]
        assert made.count(201) == 4 and made[4:] == [429] * 8
    with make_client(rooms_per_minute=2, forwarded_allow_ips="testclient") as client:  # the proxy is named
        made = [client.post("/api/rooms", json={}, headers=h).status_code for h in spoofed]
        assert made == [201] * 12  # one bucket per client address the proxy names


# ----------------------------------------------------------------------------- a real server (uvicorn)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``getaway serve`` on a loopback port with its default edge settings (rooms per minute: 5)."""
    tmp = tmp_path_factory.mktemp("edge")
    with running_server(tmp, "--rooms-per-minute", "5") as base:
        port = int(base.rsplit(":", 1)[1])
        code = httpx.post(f"{base}/api/rooms", json={}).json()["code"]  # before the limit is used up
        yield base, port, code


def test_a_server_trusts_no_forwarded_for_by_default(server):
    base, _port, _code = server
    made = [
        httpx.post(f"{base}/api/rooms", json={}, headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code
        for i in range(20)
    ]
    assert made.count(201) == 9 and made[-1] == 429, made  # 5 a minute, bursts of 10 (one made by the fixture)


def test_an_oversized_frame_closes_the_socket_with_1009(server):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    _base, port, code = server
    with connect(f"ws://127.0.0.1:{port}/ws/{code}", max_size=None) as ws:
        ws.send("x" * (1 << 20))  # 1 MiB: refused where it arrives, not buffered up to 16 MiB
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    with connect(f"ws://127.0.0.1:{port}/ws/{code}") as ws:  # a small one is read (and answered)
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10))["code"] == "not_hello"


def test_a_body_is_refused_with_413_before_it_ends(server):
    """A chunked body that never ends: the server answers 413 once it passes the limit, while the
    client is still sending (before, it read the whole body first)."""
    _base, port, _code = server
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        head = (
            f"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        )
        s.sendall(head.encode())
        chunk = b"x" * 8192
        answer = b""
        s.settimeout(0.2)
        for _ in range(400):  # up to 3 MB, and the server must answer long before
            with contextlib.suppress(OSError):  # the server closed the connection after answering
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            try:
                answer += s.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            head_end = answer.find(b"\r\n\r\n")
            length = re.search(rb"content-length: (\d+)", answer, re.IGNORECASE)
            if head_end >= 0 and length and len(answer) >= head_end + 4 + int(length.group(1)):
                break
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert b'"code":"bad_message"' in answer.replace(b" ", b"")


def test_serve_documents_its_bounds_with_their_defaults():
    from click.testing import CliRunner

    from getaway.text.cli import cli

    text = " ".join(CliRunner().invoke(cli, ["serve", "--help"], terminal_width=200).output.split())
    for flag, default in [
        ("--forwarded-allow-ips", None),
        ("--allowed-origin", None),
        ("--rooms-per-minute", "30.0"),
        ("--message-rate", "20.0"),
        ("--message-burst", "40"),
        ("--sockets-per-address", "20"),
        ("--hello-timeout", "5.0"),
        ("--rate-limit-storage", "memory://"),
    ]:
        assert flag in text, flag
        if default is not None:
            after = text.split(flag, 1)[1][:400]
            assert re.search(rf"\[default: {re.escape(default)}[;\]]", after), (flag, after)


def test_an_unknown_body_field_named_like_a_socket_message_is_named():
    """A body field called ``lang`` (or ``act`` …, the socket messages' tags) is named as it is,
    not as "body" (the socket union's tag is dropped from socket messages' paths only)."""
    with make_client() as client:
        for field in ("lang", "act", "hint"):
            r = client.post("/api/rooms", json={"name": "A", field: "xx"})
            assert r.status_code == 400 and r.json()["error"]["message"] == f"unknown field: {field}", r.text


def test_a_host_the_server_does_not_answer_to_is_refused():
    """DNS rebinding (the fresh user's trial): a page on evil.example rebound to the server's
    address sends ``Origin`` and ``Host`` evil.example, which agree; the host list refuses it."""
    from getaway.text.cli.serve import default_hosts

    with make_client(allowed_hosts=default_hosts("127.0.0.1")) as client:
        evil = {"Origin": "http://evil.example", "Host": "evil.example"}
        r = client.post("/api/rooms", json={}, headers=evil)
        assert r.status_code == 400 and "host" in r.text.lower()
        with pytest.raises(Exception), client.websocket_connect("/ws/ABCDEF", headers=evil):  # noqa: B017 - refused
            pass
        r = client.post("/api/rooms", json={}, headers={"Host": "localhost:8000", "Origin": "http://localhost:8000"})
        assert r.status_code == 201, r.text


def test_a_sockets_messages_are_counted_where_the_socket_is_never_in_the_shared_storage():
    """A socket lives on one process: its messages are counted there (issue 26: a round trip to
    the shared Redis per message was 3.5 % of a serve process's CPU), the others in the shared
    storage (here one that cannot be reached: counted in the process meanwhile, and noticed)."""
    from getaway.web.edge import Limits

    limits = Limits(rooms_per_minute=30, rate=2, burst=3, storage="redis://127.0.0.1:1/0", log_outage=False)
    assert [limits.message("sock-1") for _ in range(4)] == [True, True, True, False]
    assert limits.message("sock-2") and not limits.unreachable  # the storage was never asked
    assert limits.room("10.0.0.1") and limits.unreachable  # a room is counted there: it fails over
