"""The web server against leaks and hostile input (issue 6): a leak audit over every message
type, a race of two moves on the same version, and every kind of bad input changing nothing."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from getaway.core.cards import Card
from getaway.core.deal import replay
from getaway.core.events import EventKind
from getaway.core.record import parse_record
from web_helpers import Player, check_authority, create_room, drain_to, make_client, play_deal
from web_helpers import seeded as seeded  # the fixture

pytestmark = pytest.mark.timeout(30)

CARD = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]|Jk")

#: Every key a server message may hold (a new field must be added here on purpose).
ALLOWED_KEYS = {
    # messages
    "type", "seat", "host", "room", "view", "version", "log", "events", "history_length", "code", "message",
    "deadline", "illegal", "text", "turn_ends_in", "take_ends_in", "phrase",
    # room
    "status", "config", "seats", "deal_index", "deals", "standings",
    "profile", "players", "options", "bot_level", "public", "turn_time", "name", "kind", "connected",
    "bot_playing",
    "points", "losses", "tens", "place", "chips",
    # view (PlayerView.to_dict) and events
    "rules", "dealer", "hand", "hand_sizes", "got_away", "out_order", "leader", "to_act", "decision",
    "legal_actions", "trick", "card", "first_trick_done", "waste_size", "waste_seen", "must_lead",
    "tricks_played", "pickups", "takes", "captured_tens", "stripped", "history", "outcome",
    "cards", "other", "reason", "hidden", "termination", "loser", "places", "tricks", "cards_picked_up",
    # rules options
    "uneven", "loaded_seat", "take_protocol", "enforcement", "ante", "trump", "nopickup", "kicker", "dehla",
    "joker", "beggar", "progressive",
}  # fmt: skip


#: The keys of a ``rematch`` message (to one socket: its own new seat token, the host's new host token).
REMATCH_KEYS = {"type", "code", "url", "seat", "token", "host_token"}
#: The keys of the lobby's list of public rooms.
LISTING_KEYS = {"rooms", "code", "url", "profile", "players", "deals", "options", "bot_level", "free", "seats",
                "seat", "name", "kind"} | ALLOWED_KEYS  # fmt: skip


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def _cards(obj: Any) -> set[Card]:
    """Every card named anywhere in a message (in lists, events, narration lines)."""
    if isinstance(obj, dict):
        return {c for k, v in obj.items() for c in _cards(k) | _cards(v)}
    if isinstance(obj, list):
        return {c for v in obj for c in _cards(v)}
    if isinstance(obj, str):
        return {Card.parse(m) for m in CARD.findall(obj)}
    return set()


def _without_waste_seen(obj: Any) -> Any:
    """``obj`` without its ``waste_seen`` lists (checked on their own: see :meth:`Auditor.check`)."""
    if isinstance(obj, dict):
        return {k: _without_waste_seen(v) for k, v in obj.items() if k != "waste_seen"}
    if isinstance(obj, list):
        return [_without_waste_seen(v) for v in obj]
    return obj


def _waste_seen(obj: Any) -> set[Card]:
    """The cards of every ``waste_seen`` list in a message."""
    if isinstance(obj, dict):
        own = {Card.parse(c) for c in obj.get("waste_seen") or ()}
        return own | {c for k, v in obj.items() if k != "waste_seen" for c in _waste_seen(v)}
    if isinstance(obj, list):
        return {c for v in obj for c in _waste_seen(v)}
    return set()


def _known(events, seat: int | None, forget_draws: bool = True) -> set[Card]:
    """Cards ``seat`` has seen, from the unredacted events: everything played, picked up or
    sent to the waste; its own draws and the hands of takes it was part of. A blind draw by
    someone else hides the drawn card again (the seat no longer knows where it is), unless
    ``forget_draws`` is false (what the seat saw go to the waste, wherever it is now)."""
    known: set[Card] = set()
    public = {EventKind.PLAY, EventKind.TOCHOO, EventKind.RUFF, EventKind.PICKUP, EventKind.WASTE,
              EventKind.CAPTURE, EventKind.IRREGULARITY}  # fmt: skip
    for e in events:
        if e.kind in public:
            known.update(e.cards)
        elif e.kind == EventKind.DRAW:
            if e.seat == seat:
                known.update(e.cards)
            elif forget_draws:
                known.difference_update(e.cards)
        elif e.kind == EventKind.TAKE and seat in (e.seat, e.other):
            known.update(e.cards)
    return known


class Auditor:
    """Rebuilds the true deal at each message's version from the room's log, and checks that
    the message names no card hidden from its reader, no seed, no unexpected field."""

    def __init__(self, client, code: str) -> None:
        service = client.app.state.service
        self.room = service.rooms[code].room if code in service.rooms else None
        stored = service.store.load_room(code)
        self.seed = stored.seed
        self.secret = stored.secret.hex()
        check_authority(stored.log, stored.config["players"])  # each move by its seat's controller
        self.acts: list[tuple[int, int, str]] = [
            (e.version, e.payload["seat"], e.payload["action"]) for e in stored.log if e.kind == "act"
        ]
        self.record = client.get(f"/api/rooms/{code}/deals/0/record").json()
        self.checked = 0

    def deal_at(self, version: int):
        deal, actions, _names, _result = parse_record(self.record)
        k = sum(1 for v, _s, _a in self.acts if v <= version)
        replay(deal, actions[:k])
        return deal

    def check(self, msg: dict[str, Any], seat: int | None, version: int) -> None:
        text = json.dumps(msg, ensure_ascii=False)
        assert str(self.seed) not in text, f"the match seed leaked in {msg['type']}"
        assert self.secret not in text, f"the deal secret leaked in {msg['type']}"
        unknown = _keys(msg) - ALLOWED_KEYS - (REMATCH_KEYS if msg.get("type") == "rematch" else set())
        assert not unknown, f"unexpected fields {unknown} in {msg['type']}"
        deal = self.deal_at(version)
        assert str(deal.seed) not in text or deal.is_over, f"the deal seed leaked in {msg['type']}"
        known = _known(deal.events, seat)
        own = set(deal.hand(seat)) if seat is not None else set()
        hidden = {c for s in range(deal.players) if s != seat for c in deal.hand(s)} - known - own
        leaked = _cards(_without_waste_seen(msg)) & hidden
        assert not leaked, f"{msg['type']} to seat {seat} at version {version} names hidden cards {leaked}"
        # waste_seen: the cards the reader saw go to the waste, drawn blind since by another seat
        # or not (it does not say which was drawn: that card is hidden everywhere else)
        saw = _known(deal.events, seat, forget_draws=False) | own
        unseen = _waste_seen(msg) - saw
        assert not unseen, f"{msg['type']} to seat {seat} at version {version}: waste_seen names unseen {unseen}"
        self.checked += 1

    def check_all(self, messages: list[dict[str, Any]], seat: int | None) -> None:
        version = 0
        for msg in messages:
            version = msg.get("version") if isinstance(msg.get("version"), int) else version
            self.check(msg, seat, version)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("seed", [2, 3])
def test_leak_audit_over_every_message_type(seed, seeded):
    rng = random.Random(seed)
    with make_client(grace=0.2) as client:
        for _ in range(seed):  # room seeds 1, 2 …
            create_room(client)
        # punjab with takes polled (take, pass): takes reveal a hand to the taker only
        room = create_room(client, options={"takes": "any"})
        code = room["code"]
        ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
        received: dict[str, tuple[int | None, list[dict[str, Any]]]] = {}
        http: list[tuple[int | None, dict[str, Any]]] = []
        with (
            client.websocket_connect(f"/ws/{code}") as ws_a,
            client.websocket_connect(f"/ws/{code}") as ws_s,
        ):
            asha, spec = Player(ws_a, "asha"), Player(ws_s, "spectator")
            asha.hello(token=room["token"])
            spec.hello(spectate=True)
            with client.websocket_connect(f"/ws/{code}") as ws_b:
                benp = Player(ws_b, "ben")
                benp.hello(token=ben["token"])
                asha.send(type="start")
                drain_to(benp, 3)
                # errors: out of turn, stale version, unknown type, bad json
                other = benp if asha.my_turn() else asha
                other.send(type="act", action="pass", version=other.version)
                other.until(lambda m: m["type"] == "error")
                asha.send(type="act", action="A♠", version=0)
                asha.until(lambda m: m["type"] == "error")
                asha.ws.send_text("{nope")
                asha.until(lambda m: m["type"] == "error")
                # a sync in another language
                spec.send(type="lang", lang="fr")
                spec.until(lambda m: m["type"] == "sync")
                play_deal([asha, benp], rng, stop=lambda ps: ps[0].view["tricks_played"] >= 2)
                # unfinished deal: no record, no history line
                over = asha.view["outcome"] is not None  # a take may end a deal early
                r = client.get(f"/api/rooms/{code}/deals/0/record")
                assert r.status_code == (200 if over else 409)
                h = client.get(f"/api/rooms/{code}/history").json()
                assert len(h["deals"]) == over
                if not over:
                    http.extend([(None, r.json()), (None, h)])
                http.append((None, client.get(f"/api/rooms/{code}").json()))
                received["ben1"] = (1, benp.seen)
            # Ben leaves: absent (deadline), a bot plays for him; he comes back: welcome, reclaim
            assert not over, "pick a seed whose deal lasts longer"
            asha.until(lambda m: m["type"] == "absent")
            with client.websocket_connect(f"/ws/{code}") as ws_b2:
                benp2 = Player(ws_b2, "ben2")
                benp2.hello(token=ben["token"], since=0)
                play_deal([asha, benp2], rng)
                received["ben2"] = (1, benp2.seen)
            asha.ws.send_text(json.dumps({"type": "ping"}))
            asha.until(lambda m: m["type"] == "pong")
            spec.until(lambda m: m["type"] == "update" and m["view"]["outcome"] is not None)
            received["asha"] = (0, asha.seen)
            received["spec"] = (None, spec.seen)
        auditor = Auditor(client, code)
        types = set()
        for seat, messages in received.values():
            auditor.check_all(messages, seat)
            types.update(m["type"] for m in messages)
        for _seat, body in http:
            assert str(auditor.seed) not in json.dumps(body) and auditor.secret not in json.dumps(body)
            assert not _cards(body)
        assert {"welcome", "update", "sync", "absent", "error", "pong"} <= types
        assert auditor.checked > 30
        # the auditor does catch a leak: a message naming a card of another hand at the start
        start = min(v for v, _s, _a in auditor.acts) - 1
        foreign = auditor.deal_at(start).hand(1)[0]
        with pytest.raises(AssertionError, match="hidden cards"):
            auditor.check({"type": "update", "log": [f"Ben holds {foreign}"]}, 0, start)


@pytest.mark.timeout(30)
def test_two_moves_on_the_same_version_exactly_one_is_applied():
    with make_client() as client:
        room = create_room(client, players=3, options={"takes": "any"})
        code = room["code"]
        tokens = [room["token"]] + [
            client.post(f"/api/rooms/{code}/join", json={"name": n}).json()["token"] for n in ("Ben", "Cal")
        ]
        r = client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {room['host_token']}"})
        assert r.status_code == 200
        to_act = client.app.state.service.rooms[code].room.to_act()
        with client.websocket_connect(f"/ws/{code}") as ws1, client.websocket_connect(f"/ws/{code}") as ws2:
            tab1, tab2 = Player(ws1), Player(ws2)  # two tabs of the same seat
            w1 = tab1.hello(token=tokens[to_act])
            tab2.hello(token=tokens[to_act])
            version = w1["version"]
            legal = w1["view"]["legal_actions"]
            assert len(legal) == 2  # take or pass
            tab1.send(type="act", action=legal[0], version=version)
            tab2.send(type="act", action=legal[1], version=version)
            for tab in (tab1, tab2):  # both tabs see the one move that was applied
                tab.until(lambda m: m["type"] == "update" and m["version"] > version)
            for tab in (tab1, tab2):  # a refusal is queued before the answer to a later ping
                tab.send(type="ping")
                tab.until(lambda m: m["type"] == "pong")
        log = client.app.state.service.store.load_room(code).log
        acts = [e for e in log if e.kind == "act" and e.version == version + 1]
        assert len(acts) == 1 and acts[0].payload["action"] in legal
        assert not any(e.kind == "act" and e.version == version + 2 and e.payload["seat"] == to_act for e in log)
        stale = [m for p in (tab1, tab2) for m in p.seen if m["type"] == "error"]
        assert [m["code"] for m in stale] == ["stale_version"]


def _state(client, code: str) -> tuple[int, int]:
    """(room version, log length): what must not change after bad input."""
    version = client.get(f"/api/rooms/{code}").json()["version"]
    return version, len(client.app.state.service.store.load_room(code).log)


@pytest.mark.timeout(30)
def test_bad_input_changes_nothing():
    with make_client(rate=50, burst=50) as client:
        room = create_room(client, players=3)
        code = room["code"]
        ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
        cal = client.post(f"/api/rooms/{code}/join", json={"name": "Cal"}).json()
        tokens = [room["token"], ben["token"], cal["token"]]
        # over-long names, bad rooms, bad bodies (HTTP)
        r = client.post(f"/api/rooms/{code}/join", json={"name": "x" * 25})
        assert r.status_code == 400 and r.json()["error"]["code"] == "name_too_long"
        r = client.post("/api/rooms", json={"name": "y" * 25})
        assert r.status_code == 400 and r.json()["error"]["code"] == "name_too_long"
        for body in (
            b"{bad",
            b"[1, 2]",
            json.dumps({"players": 99}).encode(),
            json.dumps({"options": {"x": 1}}).encode(),
        ):
            r = client.post("/api/rooms", content=body, headers={"content-type": "application/json"})
            assert r.status_code == 400 and r.json()["error"]["code"] in ("bad_json", "bad_message"), body
        client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {room['host_token']}"})
        service = client.app.state.service
        to_act = service.rooms[code].room.to_act()
        waiting = (to_act + 1) % 3
        before = _state(client, code)
        with client.websocket_connect(f"/ws/{code}") as ws1, client.websocket_connect(f"/ws/{code}") as ws2:
            mover, idle = Player(ws1), Player(ws2)
            mover.send(type="act", action="A♠", version=0)  # before hello
            assert mover.recv()["code"] == "not_hello"
            mover.hello(token=tokens[to_act])
            idle.hello(token=tokens[waiting])
            version = mover.version
            cases = [
                (mover, "{not json", "bad_json"),
                (mover, "[1, 2, 3]", "bad_message"),
                (mover, json.dumps({"type": 5}), "bad_message"),
                (mover, json.dumps({"type": "explode"}), "unknown_type"),
                (mover, json.dumps({"type": "hello", "spectate": True}), "bad_message"),
                (mover, json.dumps({"type": "act", "action": "A♠", "version": version - 1}), "stale_version"),
                (mover, json.dumps({"type": "act", "action": "A♠", "version": "x"}), "bad_message"),
                (mover, json.dumps({"type": "act", "action": "Z9", "version": version}), "bad_message"),
                (mover, json.dumps({"type": "act", "action": ["A♠"], "version": version}), "bad_message"),
                (mover, json.dumps({"type": "act", "action": "2♥", "version": version}), None),
                (mover, json.dumps({"type": "lang", "lang": "klingon"}), "bad_message"),
                (mover, json.dumps({"type": "start"}), "not_host" if to_act else "already_started"),
                (mover, json.dumps({"type": "next"}), "not_host" if to_act else "bad_message"),
                (mover, "x" * 5000, "bad_message"),
                (
                    idle,
                    json.dumps({"type": "act", "action": "pass", "version": version}),
                    ("not_your_turn", "no_pass_now"),
                ),
            ]
            for player, text, code_ in cases:
                player.ws.send_text(text)
                msg = player.until(lambda m: m["type"] == "error")
                if code_ is not None:
                    assert msg["code"] in (code_ if isinstance(code_, tuple) else (code_,)), (text[:60], msg)
                assert msg["message"] and msg["version"] == version
                assert not msg["message"].startswith(msg["code"]), msg  # the code is a field, not the text
            mover.ws.send_bytes(b"\x00\x01")
            assert mover.until(lambda m: m["type"] == "error")["code"] == "bad_message"
            assert _state(client, code) == before
            # a double submission: the second is stale
            legal = mover.view["legal_actions"]
            mover.send(type="act", action=legal[0], version=version)
            mover.send(type="act", action=legal[0], version=version)
            assert mover.until(lambda m: m["type"] == "error")["code"] == "stale_version"
            after = _state(client, code)
            assert after[0] >= version + 1
            acts = [e for e in service.store.load_room(code).log if e.kind == "act"]
            assert [e.payload["seat"] for e in acts if e.version == version + 1] == [to_act]
            assert not [e for e in acts if e.version == version + 2 and e.payload["seat"] == to_act]
            # a flood: excess messages are dropped with rate_limited, the socket stays usable
            for _ in range(80):
                idle.ws.send_text('{"type": "ping"}')
            answers = [idle.until(lambda m: m["type"] in ("pong", "error")) for _ in range(80)]
            assert any(a.get("code") == "rate_limited" for a in answers)
            assert any(a["type"] == "pong" for a in answers)
        # the server is still up and the room still answers
        assert client.get(f"/api/rooms/{code}").status_code == 200


def test_http_refusals_keep_the_error_shape_and_room_creation_is_limited():
    with make_client() as client:
        for method, path, status, code in [
            ("GET", "/api/nothing", 404, "not_found"),
            ("GET", "/api/rooms/ABCDEF/deals/abc/record", 400, "bad_message"),  # not a number
            ("GET", "/api/rooms/ABCDEF/deals/2147483648/record", 400, "bad_message"),  # was a 500 on PostgreSQL
            ("GET", "/api/rooms/ABCDEF/deals/-1/record", 400, "bad_message"),
            ("DELETE", "/api/rooms", 405, "bad_message"),
        ]:
            r = client.request(method, path)
            assert r.status_code == status and r.json()["error"]["code"] == code, (path, r.text)
            assert set(r.json()) == {"error"} and r.json()["error"]["message"]
        # 30 rooms or seats a minute per address, bursts of 60: then 429 and nothing is created
        made = [client.post("/api/rooms", json={}).status_code for _ in range(60)]
        assert made == [201] * 60
        refused = client.post("/api/rooms", json={"name": "Asha"})
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(refused.headers["Retry-After"]) <= 120, refused.headers  # the 2-minute window
        service = client.app.state.service
        assert len(service.rooms) == 60


@pytest.mark.timeout(60)
def test_the_public_list_and_rematch_messages_pass_the_leak_audit(seeded):
    """Private rooms never appear in the list; the list and the lobby's reads carry no token,
    hash, seed or secret; each socket's ``rematch`` carries its own new token only."""
    rng = random.Random(4)
    with make_client() as client:
        private = create_room(client, name="Zed")
        room = create_room(client, public=True, players=3)
        code = room["code"]
        ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
        listing = client.get("/api/rooms?public=1").json()
        assert [r["code"] for r in listing["rooms"]] == [code]
        assert not _keys(listing) - LISTING_KEYS
        service = client.app.state.service
        secrets = {room["token"], room["host_token"], ben["token"], private["token"], private["host_token"]}
        for c in (code, private["code"]):
            r = service.rooms[c].room
            secrets |= {str(r.seed), r.secret.hex(), r.host_hash} | {s.token_hash for s in r.seats if s.token_hash}
        text = json.dumps(listing)
        assert not [x for x in secrets if x in text] and private["code"] not in text and "Zed" not in text
        with client.websocket_connect(f"/ws/{code}") as ws_a, client.websocket_connect(f"/ws/{code}") as ws_b:
            asha, benp = Player(ws_a, "asha"), Player(ws_b, "ben")
            with client.websocket_connect(f"/ws/{code}") as ws_s:
                spec = Player(ws_s, "spectator")
                asha.hello(token=room["token"])
                benp.hello(token=ben["token"])
                spec.hello(spectate=True)
                asha.send(type="start")
                drain_to(asha, 3)
                drain_to(benp, 3)
                play_deal([asha, benp], rng)
                drain_to(spec, asha.version)
                # the deal's own messages are test_leak_audit_over_every_message_type's: from here on
                seen = {p.label: len(p.seen) for p in (asha, benp, spec)}
                asha.send(type="rematch")
                mine = asha.until(lambda m: m["type"] == "rematch")
                his = benp.until(lambda m: m["type"] == "rematch")
                for p in (asha, benp, spec):  # everything sent after the rematch has been read
                    p.send(type="ping")
                    p.until(lambda m: m["type"] == "pong")
        auditor = Auditor(client, code)
        for p, seat in ((asha, 0), (benp, 1), (spec, None)):
            after = p.seen[seen[p.label] :]
            assert {m["type"] for m in after} >= ({"pong"} if seat is None else {"rematch", "pong"})
            for msg in after:
                auditor.check(msg, seat, asha.version)
        assert mine["token"] and his["token"] and mine["host_token"] and his["host_token"] is None
        for p, own in ((asha, {mine["token"], mine["host_token"]}), (benp, {his["token"]}), (spec, set())):
            text = json.dumps(p.seen)
            others = ({mine["token"], mine["host_token"], his["token"]} - own) | secrets
            assert not [x for x in others if x in text], f"{p.label} received another's secret"
        assert not any(m["type"] == "rematch" for m in spec.seen)
        new = service.rooms[mine["code"]].room
        assert new.seat_of(mine["token"]) == 0 and new.seat_of(his["token"]) == 1
        assert new.is_host_token(mine["host_token"]) and not new.is_host_token(his["token"])
