"""The web page in every language (docs/cli.md, "Languages"; docs/web.md): each text of
``getaway.web.strings.UI_STRINGS`` has a translation in each catalog, ``GET /api/strings/{lang}``
returns it, a room's errors follow the socket's language, and ``serve --help`` is translated."""

from __future__ import annotations

import json
import re

import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner

from getaway.text import i18n
from getaway.text.cli import cli
from getaway.web.strings import UI_STRINGS
from web_helpers import create_room, make_client

pytestmark = pytest.mark.timeout(60)

TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != "en"]

# A few page texts, as each catalog translates them (game terms as in the command line).
EXPECTED = {
    "fr": {
        "Start the match": "Lancer la partie",
        "Your hand": "Votre main",
        "Pick up": "Ramasser",
        "Room {code}": "Salle {code}",
        "To the waste pile; {who} leads.": "À la défausse ; {who} entame.",
        "{who} picks up the trick (cards: {n}).": "{who} ramasse le pli (cartes : {n}).",
    },
    "it": {
        "Start the match": "Avvia la partita",
        "Your hand": "La tua mano",
        "Pick up": "Raccogli",
        "Room {code}": "Stanza {code}",
        "To the waste pile; {who} leads.": "Negli scarti; apre {who}.",
        "{who} picks up the trick (cards: {n}).": "{who} raccoglie la presa (carte: {n}).",
    },
    "pt": {
        "Start the match": "Começar a partida",
        "Your hand": "A tua mão",
        "Pick up": "Recolher",
        "Room {code}": "Sala {code}",
        "To the waste pile; {who} leads.": "Para o descarte; sai {who}.",
        "{who} picks up the trick (cards: {n}).": "{who} recolhe a vaza (cartas: {n}).",
    },
    "es": {
        "Start the match": "Empezar la partida",
        "Your hand": "Tu mano",
        "Pick up": "Recoger",
        "Room {code}": "Sala {code}",
        "To the waste pile; {who} leads.": "Al descarte; sale {who}.",
        "{who} picks up the trick (cards: {n}).": "{who} recoge la baza (cartas: {n}).",
    },
    "hi": {
        "Start the match": "मैच शुरू करें",
        "Your hand": "आपके पत्ते",
        "Pick up": "उठाएँ",
        "Room {code}": "कमरा {code}",
        "To the waste pile; {who} leads.": "ढेर में; {who} चाल चलता है।",
        "{who} picks up the trick (cards: {n}).": "{who} हाथ उठाता है (पत्ते: {n})।",
    },
    "pa": {
        "Start the match": "ਮੈਚ ਸ਼ੁਰੂ ਕਰੋ",
        "Your hand": "ਤੁਹਾਡੇ ਪੱਤੇ",
        "Pick up": "ਚੁੱਕੋ",
        "Room {code}": "ਕਮਰਾ {code}",
        "To the waste pile; {who} leads.": "ਢੇਰੀ ਵਿੱਚ; {who} ਚਾਲ ਚੱਲਦਾ ਹੈ।",
        "{who} picks up the trick (cards: {n}).": "{who} ਹੱਥ ਚੁੱਕਦਾ ਹੈ (ਪੱਤੇ: {n})।",
    },
    "ur": {
        "Start the match": "میچ شروع کریں",
        "Your hand": "آپ کے پتے",
        "Pick up": "اٹھائیں",
        "Room {code}": "کمرہ {code}",
        "To the waste pile; {who} leads.": "ڈھیر میں؛ پہل {who} کی۔",
        "{who} picks up the trick (cards: {n}).": "{who} ہاتھ اٹھاتے ہیں (پتے: {n})۔",
    },
    "bn": {
        "Start the match": "ম্যাচ শুরু করুন",
        "Your hand": "আপনার তাস",
        "Pick up": "তুলুন",
        "Room {code}": "রুম {code}",
        "To the waste pile; {who} leads.": "বাতিল গাদায়; প্রথম চাল {who}-এর।",
        "{who} picks up the trick (cards: {n}).": "{who} পিঠ তুলে নেন (তাস: {n})।",
    },
}

# Texts that may stay as in English in some language (brand, game term, same word).
SAME = {"Getaway", "tochoo", "Points", "Place", "irregular", "expert", "bot", "host", "Bot {n}"}


def _catalog(lang: str) -> dict[str, str]:
    with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "getaway.po", "rb") as fh:
        catalog = read_po(fh, locale=lang)
    return {m.id: m.string for m in catalog if m.id and not m.context and "fuzzy" not in m.flags}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_page_text_has_a_translation(lang):
    catalog = _catalog(lang)
    for msgid in UI_STRINGS:
        assert catalog.get(msgid, "").strip(), f"{lang}: no translation of {msgid!r}"
    with make_client() as client:
        strings = client.get(f"/api/strings/{lang}").json()["strings"]
    assert set(strings) == set(UI_STRINGS)
    for msgid, text in strings.items():
        assert text.strip() and text == catalog[msgid], (lang, msgid)
        assert set(re.findall(r"\{\w+\}", text)) == set(re.findall(r"\{\w+\}", msgid)), (lang, msgid)
        if msgid not in SAME:
            assert text != msgid, f"{lang}: {msgid!r} left in English"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_page_strings_are_in_the_language(lang):
    with make_client() as client:
        data = client.get(f"/api/strings/{lang}").json()
        english = client.get("/api/strings/en").json()["strings"]
    assert data["lang"] == lang
    for msgid, want in EXPECTED[lang].items():
        assert data["strings"][msgid] == want
    assert all(english[m] == m for m in UI_STRINGS)


@pytest.mark.parametrize(
    ("lang", "want"),
    [
        ("fr", "les spectateurs ne peuvent pas jouer"),
        ("it", "gli spettatori non possono giocare"),
        ("pt", "os espectadores não podem jogar"),
        ("es", "los espectadores no pueden jugar"),
        ("hi", "दर्शक खेल नहीं सकते"),
        ("pa", "ਦਰਸ਼ਕ ਖੇਡ ਨਹੀਂ ਸਕਦੇ"),
    ],
)
def test_room_errors_follow_the_socket_language(lang, want):
    with make_client() as client:
        code = client.post("/api/rooms", json={"profile": "punjab", "players": 4, "name": "Asha"}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_text(json.dumps({"type": "hello", "lang": lang, "spectate": True}))
            while (msg := json.loads(ws.receive_text()))["type"] != "welcome":
                assert msg["type"] != "error", msg
            ws.send_text(json.dumps({"type": "act", "action": "pass", "version": msg["version"]}))
            while (msg := json.loads(ws.receive_text()))["type"] != "error":
                pass
    assert msg["code"] == "spectator" and msg["message"] == want


def test_serve_help_is_translated():
    out = CliRunner().invoke(cli, ["serve", "--lang", "fr", "--help"]).output
    assert "Lancer l'application web" in out and "Port d'écoute." in out
    out = CliRunner().invoke(cli, ["serve", "--lang", "es", "--help"]).output
    assert "Iniciar la aplicación web" in out and "Puerto en el que escuchar." in out


def test_serve_refuses_a_busy_port_or_a_bad_database_in_one_line(tmp_path) -> None:
    """Before it says where it listens: a port in use, a database or a Redis it cannot open is a usage
    error (exit 2, one line, in the language asked), not a traceback after "Getaway is on …"."""
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--host", "127.0.0.1", "--port", str(port), "--lang", "fr"])
    assert result.exit_code == 2 and "Getaway is on" not in result.output and "Traceback" not in result.output
    assert "impossible d'écouter sur" in result.output
    result = CliRunner().invoke(cli, ["serve", "--port", "0", "--database", str(tmp_path / "missing" / "x.db")])
    assert result.exit_code == 2 and "--database" in result.output and "cannot open" in result.output
    assert len(result.output.strip().splitlines()) <= 3, result.output
    unreachable = ["--redis-url", "redis://:hunter2secret@127.0.0.1:1/0"]  # a cluster's Redis that does not answer
    result = CliRunner().invoke(
        cli,
        ["serve", "--port", "0", "--database", str(tmp_path / "x.db"), *unreachable],
        env={"GETAWAY_CLUSTER_SECRET": "s" * 24},
    )
    assert result.exit_code == 2 and "--redis-url" in result.output and "cannot open" in result.output
    assert "Getaway is on" not in result.output and "hunter2secret" not in result.output, result.output
    assert len(result.output.strip().splitlines()) <= 3, result.output


# Errors that come before a socket's hello, or from the HTTP API, follow the language the page
# sends: ``?lang=`` on the socket's address, ``Accept-Language`` on every request.
@pytest.mark.parametrize("lang", TRANSLATED)
def test_http_errors_follow_accept_language(lang):
    with make_client() as client:
        english = client.post("/api/rooms/NOSUCH/join", json={"name": "Ben"}).json()["error"]
        headers = {"Accept-Language": f"{lang}-XX,en;q=0.5"}
        r = client.post("/api/rooms/NOSUCH/join", json={"name": "Ben"}, headers=headers)
        error = r.json()["error"]
        assert r.status_code == 404 and error["code"] == english["code"] == "room_not_found"
        assert english["message"] == "no room NOSUCH"
        assert error["message"] == _translated(lang, "no room {code}").format(code="NOSUCH") != english["message"]
        # a bad body too
        r = client.post(
            "/api/rooms", content=b"{nope", headers={"Accept-Language": lang, "Content-Type": "application/json"}
        )
        assert r.json()["error"]["code"] == "bad_json"
        assert r.json()["error"]["message"] == _translated(lang, "the request is not valid JSON")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_socket_errors_before_hello_follow_the_address_language(lang):
    with make_client() as client:
        code = create_room(client)["code"]
        with client.websocket_connect(f"/ws/{code}?lang={lang}") as ws:
            ws.send_text(json.dumps({"type": "act", "action": "2c", "version": 0}))
            error = json.loads(ws.receive_text())
            assert error["code"] == "not_hello"
            assert error["message"] == _translated(lang, "say hello first") != "say hello first"
            # a bad token in a hello in another language: the hello's language wins
            other = "es" if lang != "es" else "fr"
            ws.send_text(json.dumps({"type": "hello", "token": "nope", "lang": other}))
            error = json.loads(ws.receive_text())
            assert error["code"] == "bad_token"
            assert error["message"] == _translated(other, "unknown token") != "unknown token"


def _translated(lang: str, english: str) -> str:
    with i18n.language(lang):
        return i18n._(english)


def test_rules_panel_has_the_variants_in_force():
    with make_client() as client:
        r = client.get("/api/rules/fr", params={"profile": "classic", "options": json.dumps({"dehla": True})})
        assert r.status_code == 200 and r.json()["profile"] == "classic"
        assert r.json()["sections"][-1]["title"] == "Dans cette partie : les dix sont capturés (dehla=true)"
        code = create_room(client, options={"joker": True, "takes": "off"})["code"]
        sections = client.get(f"/api/rules/es?code={code}").json()["sections"]
        titles = [s["title"] for s in sections]
        assert titles[-2:] == ["En esta partida: el Comodín (joker=true)", "En esta partida: sin tomas (takes=off)"]
        assert "Tomar la mano de la izquierda (punjab)" not in titles  # no takes in this room
        assert not any("trump" in s["title"] for s in sections)
        plain = client.get("/api/rules/en", params={"profile": "punjab"}).json()["sections"]
        assert not any(s["title"].startswith("In this game") for s in plain)
        assert client.get("/api/rules/en", params={"options": "{bad"}).json()["error"]["code"] == "bad_json"
        bad = client.get("/api/rules/en", params={"options": json.dumps({"trump": "hearts"})})
        assert bad.status_code == 400 and "trump" in bad.json()["error"]["message"]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_bad_choice_lists_the_choices_in_the_readers_language(lang: str) -> None:
    """pydantic names a literal's choices in English ("'pt' or 'es'"): the refusal lists them with
    commas only, so no English word is left in a translated message."""
    from getaway.web.protocol import client_error, refusal

    text = refusal(client_error(json.dumps({"type": "hello", "token": "a", "lang": "xx"}))).text(lang)
    assert ", ".join(f"'{code}'" for code in i18n.LANGUAGES) in text and " or " not in text


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        ("hi-IN,hi;q=0.9,en-US;q=0.8,en;q=0.7", "hi"),  # Chromium's header for a Hindi browser
        ("en;q=0.1, pa-Guru-IN;q=0.9", "pa"),  # the most preferred wins, not the first written
        ("fr;q=0.2, es", "es"),
        ("es;q=0, it", "it"),
        ("de-DE, fr;q=0.5, hi;q=0.5", "fr"),  # equal q: the header's order
        ("hi;q=0, es;q=0.3", "es"),  # q=0: not acceptable
        ("hi;q=high, bogus;;=, pt", "pt"),  # a malformed part is skipped, the rest is read
        ("xx, ;q=1, ,", "en"),
    ],
)
def test_accept_language_is_read_by_preference(header: str, lang: str) -> None:
    """Issue 25, item 4: the server's refusals take the browser's most preferred language that has
    a catalog (RFC 9110 q-values), whatever order the header lists them in."""
    with make_client() as client:
        r = client.post("/api/rooms/NOSUCH/join", json={"name": "Ben"}, headers={"Accept-Language": header})
    assert r.status_code == 404
    assert r.json()["error"]["message"] == _translated(lang, "no room {code}").format(code="NOSUCH")
