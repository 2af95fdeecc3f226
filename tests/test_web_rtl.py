"""Right to left for Urdu on the server's side (issue 25, item 2; docs/web.md "Right to left"):
the page comes as ``<html lang="ur" dir="rtl">`` for ``?lang=ur`` and for a server that speaks
Urdu (``getaway serve --lang ur``), the app shell's hash of ``/`` is that of the page as served,
and a narrated sentence isolates the names, cards and numbers put in it (FSI … PDI) in Urdu
only. The browser's side: tests/test_web_rtl_e2e.py."""

from __future__ import annotations

import base64
import hashlib

from getaway.core.cards import Card
from getaway.core.events import Event
from getaway.text import i18n
from getaway.text.narrate import Narrator, describe
from getaway.web.routes import pages
from web_helpers import make_client

FSI, LRI, PDI = "\u2068", "\u2066", "\u2069"


def _root(html: str) -> str:
    return html[html.index("<html") : html.index(">", html.index("<html")) + 1]


def test_the_page_is_right_to_left_for_urdu_and_left_to_right_otherwise():
    with make_client() as client:
        assert _root(client.get("/?lang=ur").text) == '<html lang="ur" dir="rtl">'
        assert _root(client.get("/r/ABCDEF?lang=ur").text) == '<html lang="ur" dir="rtl">'
        assert _root(client.get("/?lang=hi").text) == '<html lang="hi" dir="ltr">'
        plain = client.get("/")
        # no catalog: the English page, the file's own bytes
        assert client.get("/?lang=xx").content == plain.content == (pages.STATIC_DIR / "index.html").read_bytes()
        assert _root(plain.text) == '<html lang="en">' and plain.headers["cache-control"] == "no-cache"
        assert 'dir="rtl"' in client.get("/no-such-page", params={"lang": "ur"}).text


def test_a_server_speaking_urdu_serves_its_shell_right_to_left_and_hashes_it_so():
    with make_client(default_lang="ur") as client:
        page = client.get("/")
        worker = client.get("/sw.js").text
    assert _root(page.text) == '<html lang="ur" dir="rtl">'
    digest = base64.b64encode(hashlib.sha256(page.content).digest()).decode()
    assert pages.shell_files("ur")[0]["/"] == digest and f'"/": "{digest}"' in worker
    assert pages.shell_files("en")[0]["/"] != digest


def test_narration_isolates_what_it_puts_in_an_urdu_sentence():
    events = [Event("play", 0, (Card.parse("10h"),)), Event("play", 1, (Card.parse("qh"),))]
    with i18n.language("ur"):
        lines = Narrator(["Asha", "B"]).feed(events)
        one = describe(events[0], ["Asha", "B"])
        assert i18n.isolate(7) == f"{FSI}7{PDI}"
    # names: first strong; cards: left to right (the page puts an Urdu name for screen readers
    # inside a card, which a first-strong isolate would follow: "10♣" drawn as "♣10")
    assert f"{FSI}Asha{PDI}" in lines[0] and f"{LRI}10♥{PDI}" in lines[0] and f"{LRI}Q♥{PDI}" in lines[1]
    assert f"{FSI}Asha{PDI}" in one and f"{LRI}10♥{PDI}" in one
    # other languages: unchanged
    assert Narrator(["Asha", "B"]).feed(events) == ["Asha leads 10♥", "B plays Q♥"]
    assert FSI not in describe(events[0], ["Asha", "B"])
