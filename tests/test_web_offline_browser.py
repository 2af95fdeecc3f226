"""Offline play against bots in a real browser (issue 25 item 6, docs/web.md "Offline"): the page
is loaded once online (the worker keeps Pyodide and the game's zip in the Cache API), then the
network goes away (``context.set_offline``) and "Play alone against bots" deals and plays a whole
deal in the page, by the server's rules and bots running in Pyodide; the record downloads and
replays in Python.

Slow (the Pyodide start: tens of seconds on a loaded machine), so it has a long timeout, as the
other browser tests; CI runs it (GETAWAY_REQUIRE_BROWSER=1). Playwright and Debian's Chromium,
as tests/test_web_e2e.py."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

import test_web_e2e as e2e
from getaway.core.record import deal_from_record
from getaway.text import i18n
from test_web_e2e import MISSING, REQUIRE, PlaywrightError, wait_status
from test_web_table import serious_violations

# the browser tests' fixtures: the server (one for this module), the browser, a page in a fresh context
server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

_MOVES_JS = """() => ({
  status: document.body.dataset.status,
  cards: [...document.querySelectorAll('[data-testid="offline-card"]:not([disabled])')].map((e) => e.dataset.card),
  actions: [...document.querySelectorAll('[data-testid="offline-action"]:not([disabled])')]
    .map((e) => e.dataset.action),
})"""


def _play_to_the_end(page, rng: random.Random, deadline: float) -> int:
    """Click a legal card (or take/pass/pick up) whenever the page offers one, until the deal is
    over; returns the number of the human's moves."""
    moves = 0
    while time.monotonic() < deadline:
        shown = page.evaluate(_MOVES_JS)
        if shown["status"] == "offline-over":
            return moves
        assert shown["status"] == "offline-playing", shown
        choices = [("card", c) for c in shown["cards"]] + [("action", a) for a in shown["actions"]]
        if choices:
            kind, value = rng.choice(choices)
            attr = "data-card" if kind == "card" else "data-action"
            try:  # the page disables the hand as the click is handled: no second move on a stale hand
                page.locator(f'[data-testid="offline-{kind}"][{attr}="{value}"]:not([disabled])').click(timeout=2000)
            except PlaywrightError:
                continue  # a bot's move redrew the hand between the look and the click
            moves += 1
        time.sleep(0.05)
    raise AssertionError("the offline deal did not end in time")


@pytest.mark.timeout(420)
def test_a_deal_against_bots_plays_to_the_end_with_the_network_gone(new_page):
    page = new_page(accept_downloads=True)
    page.goto("/")
    wait_status(page, "lobby")
    page.get_by_test_id("name-input").fill("Asha")
    page.get_by_test_id("bot-level").select_option("easy")
    # the first visit keeps the files of offline play (Pyodide, the game's zip) in the Cache API
    page.wait_for_function(
        "() => ['ready', 'unavailable'].includes(document.documentElement.dataset.offline)", timeout=180_000
    )
    assert page.evaluate("() => document.documentElement.dataset.offline") == "ready"
    kept = page.evaluate("async () => (await caches.keys()).filter((k) => k.startsWith('getaway-offline-'))")
    assert len(kept) == 1

    page.context.set_offline(True)
    reached: list[str] = []
    page.on("requestfinished", lambda r: reached.append(r.url) if not r.url.startswith(("blob:", "data:")) else None)
    began = time.monotonic()
    page.get_by_test_id("play-alone").click()
    page.wait_for_function(
        "() => ['offline-playing', 'offline-over', 'offline-unavailable'].includes(document.body.dataset.status)",
        timeout=240_000,
    )
    started = time.monotonic() - began
    assert page.evaluate("() => document.body.dataset.status") != "offline-unavailable", page.get_by_test_id(
        "offline-status"
    ).inner_text()
    print(f"offline start (Pyodide + the game's zip, from the cache): {started:.1f} s")
    hand = page.get_by_test_id("offline-card")
    assert hand.count() == 13 and page.get_by_test_id("offline-seat-3").inner_text().startswith("Bot 4")
    assert serious_violations(page) == []  # the offline table mid-deal
    moves = _play_to_the_end(page, random.Random(25), time.monotonic() + 240)
    assert moves >= 1
    assert serious_violations(page) == []  # the result

    loser = page.get_by_test_id("offline-loser").inner_text()
    assert loser.startswith("Loser:"), loser
    link = page.get_by_test_id("offline-record")
    page.wait_for_function("() => document.querySelector('[data-testid=\"offline-record\"]').dataset.ready === 'true'")
    with page.expect_download() as download:
        link.click()
    record = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert record["players"][0] == "Asha" and record["rules"]["profile"] == "punjab" and record["rules"]["players"] == 4
    deal = deal_from_record(record)  # the same rules replay it (and reach its result)
    assert deal.is_over and deal.outcome is not None and deal.outcome.to_dict() == record["result"]
    names = ["You", "Bot 2", "Bot 3", "Bot 4"]
    if deal.outcome.loser is None:
        assert loser == "Loser: none (drawn deal)"
    else:
        assert names[deal.outcome.loser] in loser
    assert any(a["seat"] == 0 for a in record["actions"]) and any(a["seat"] != 0 for a in record["actions"])
    # the next deal: the worker and its Python stay, so it starts at once
    page.get_by_test_id("offline-again").click()
    page.wait_for_function("() => ['offline-playing', 'offline-over'].includes(document.body.dataset.status)")
    assert page.get_by_test_id("offline-card").count() == 13
    assert not [u for u in reached if "/api/" in u], reached  # nothing reached the server


@pytest.mark.timeout(240)
def test_a_stale_or_corrupted_cached_copy_is_fetched_again(new_page):
    """A copy of a listed file in another cache (a service worker's, an older version's) whose
    bytes are not files.json's is never used: the worker fetches the file again."""
    page = new_page()
    page.goto("/")
    wait_status(page, "lobby")
    page.evaluate("""async () => {
      const stale = await caches.open("getaway-offline-0000000000000000");
      await stale.put("/static/offline/pyodide/pyodide.mjs", new Response("export const loadPyodide = null;"));
    }""")
    page.wait_for_function("() => ['ready', 'unavailable'].includes(document.documentElement.dataset.offline)")
    assert page.evaluate("() => document.documentElement.dataset.offline") == "ready"
    kept = page.evaluate("""async () => {
      const manifest = await (await fetch("/offline/files.json")).json();
      const cache = await caches.open("getaway-offline-" + manifest.version);
      const entry = manifest.files.find((f) => f.url.endsWith("/pyodide.mjs"));
      const copy = await cache.match(entry.url);
      return { names: await caches.keys(), bytes: (await copy.arrayBuffer()).byteLength, want: entry.bytes };
    }""")
    assert kept["bytes"] == kept["want"] and kept["names"] == [
        n for n in kept["names"] if n != "getaway-offline-0000000000000000"
    ]


@pytest.mark.timeout(120)
def test_the_texts_of_the_last_language_are_kept_for_a_start_without_the_server(new_page):
    """i18n.js keeps the last ``/api/strings/<lang>`` answer (localStorage): a page started while
    the server cannot answer shows the offline button in that language, not in English."""
    page = new_page()
    page.goto("/")
    wait_status(page, "lobby")
    page.evaluate("() => localStorage.setItem('getaway.lang', 'fr')")
    page.reload()
    wait_status(page, "lobby")
    with i18n.language("fr"):
        want = i18n._("Play alone against bots")
    assert want != "Play alone against bots" and page.get_by_test_id("play-alone").inner_text() == want
    page.route("**/api/strings/**", lambda route: route.abort())
    page.reload()
    wait_status(page, "lobby")
    assert page.get_by_test_id("play-alone").inner_text() == want
