"""Quick chat at the table (issue 23, item 8): a seated player's preset phrase reaches every
socket of the room, spectators too, with the sender's seat; a spectator's is refused; each seat
is rate-limited; a phrase that is not a preset key is refused as ``bad_message``. Nothing of it
is logged (the room's version does not move). The page reads the phrases from ``/api/strings``."""

from __future__ import annotations

from getaway.text import i18n
from getaway.text.chat import EMOTES, PHRASES, TEXTS, chat_texts
from getaway.web import protocol
from getaway.web.edge import CHATS_PER_WINDOW
from web_helpers import Player, check_frame, create_room, make_client


def _chat(p: Player) -> dict:
    return p.until(lambda m: m["type"] in ("chat", "error"))


def test_a_seated_player_s_chat_reaches_the_others_and_spectators_with_the_seat():
    with make_client() as client:
        room = create_room(client)
        code = room["code"]
        ben = client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).json()
        with (
            client.websocket_connect(f"/ws/{code}") as ws_a,
            client.websocket_connect(f"/ws/{code}") as ws_b,
            client.websocket_connect(f"/ws/{code}") as ws_s,
        ):
            asha, benp, spec = Player(ws_a, "asha"), Player(ws_b, "ben"), Player(ws_s, "spec")
            asha.hello(token=room["token"])
            benp.hello(token=ben["token"])
            spec.hello(spectate=True)
            version = asha.version
            benp.send(type="chat", phrase="well_played")
            for p in (asha, benp, spec):
                said = _chat(p)
                assert said == {"type": "chat", "seat": ben["seat"], "phrase": "well_played"}, (p.label, said)
            asha.send(type="chat", phrase="heart")
            assert _chat(spec) == {"type": "chat", "seat": room["seat"], "phrase": "heart"}
            # not a command: nothing logged, the room's version is the same
            assert client.get(f"/api/rooms/{code}").json()["version"] == version


def test_a_spectator_s_chat_is_refused_and_nothing_is_sent():
    with make_client() as client:
        room = create_room(client)
        code = room["code"]
        with client.websocket_connect(f"/ws/{code}") as ws_a, client.websocket_connect(f"/ws/{code}") as ws_s:
            asha, spec = Player(ws_a, "asha"), Player(ws_s, "spec")
            asha.hello(token=room["token"])
            spec.hello(spectate=True)
            spec.send(type="chat", phrase="hello")
            refused = _chat(spec)
            assert refused["type"] == "error" and refused["code"] == "spectator", refused
            assert refused["message"] == "spectators cannot chat"
            asha.send(type="ping")
            asha.until(lambda m: m["type"] == "pong")
            assert not any(m["type"] == "chat" for m in asha.seen + spec.seen)


def test_a_spectator_s_refusal_is_translated():
    with make_client() as client:
        room = create_room(client)
        with client.websocket_connect(f"/ws/{room['code']}") as ws_s:
            spec = Player(ws_s)
            spec.send(type="hello", spectate=True, lang="fr")
            spec.until(lambda m: m["type"] == "welcome")
            spec.send(type="chat", phrase="hello")
            refused = _chat(spec)
            assert refused["code"] == "spectator"
            assert refused["message"] != "spectators cannot chat" and refused["message"]


def test_chat_is_rate_limited_per_seat():
    with make_client(rate=1000, burst=1000) as client:  # the socket's own flood control out of the way
        room = create_room(client)
        code = room["code"]
        with client.websocket_connect(f"/ws/{code}") as ws_a, client.websocket_connect(f"/ws/{code}") as ws_a2:
            asha, again = Player(ws_a, "asha"), Player(ws_a2, "asha again")
            asha.hello(token=room["token"])
            again.hello(token=room["token"])  # a second socket of the same seat counts with the first
            for _ in range(CHATS_PER_WINDOW):
                asha.send(type="chat", phrase="oops")
                assert _chat(asha)["type"] == "chat"
            again.send(type="chat", phrase="oops")
            refused = again.until(lambda m: m["type"] == "error")
            assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
            asha.send(type="chat", phrase="oops")
            assert _chat(asha)["code"] == "rate_limited"
            asha.send(type="ping")
            asha.until(lambda m: m["type"] == "pong")
            assert sum(m["type"] == "chat" for m in again.seen) == CHATS_PER_WINDOW


def test_an_unknown_phrase_or_free_text_is_refused_as_bad_message():
    with make_client() as client:
        room = create_room(client)
        with client.websocket_connect(f"/ws/{room['code']}") as ws_a:
            asha = Player(ws_a)
            asha.hello(token=room["token"])
            for bad in ({"phrase": "you are bad"}, {"phrase": 3}, {}, {"phrase": "hello", "text": "hi"}):
                asha.send(type="chat", **bad)
                refused = _chat(asha)
                assert refused["type"] == "error" and refused["code"] == "bad_message", (bad, refused)
            assert not any(m["type"] == "chat" for m in asha.seen)


def test_the_chat_frame_fits_the_protocol_and_the_page_gets_the_phrases():
    check_frame('{"type":"chat","seat":2,"phrase":"well_played"}')
    assert "chat" in protocol.CLIENT_TAGS and "chat" in protocol.SERVER_TAGS
    assert set(PHRASES) == set(TEXTS) | set(EMOTES) and len(PHRASES) == len(set(PHRASES))
    with make_client() as client:
        for lang in i18n.LANGUAGES:
            strings = client.get(f"/api/strings/{lang}").json()
            assert list(strings["chat"]) == list(PHRASES), lang
            with i18n.language(lang):
                assert strings["chat"] == chat_texts()
            if lang != "en":  # every phrase translated (the emotes are glyphs)
                for key, text in TEXTS.items():
                    assert strings["chat"][key] != text, (lang, key)
