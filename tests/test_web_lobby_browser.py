"""The lobby in a real browser (issue 15 item 8): a public room listed and joined from the list,
quick play seating a second player in the first's room, rematch moving both players to a new
room. Two browser contexts (two people); Playwright and Debian's Chromium, as tests/test_web_e2e.py."""

from __future__ import annotations

import random
import time

import httpx
import pytest

import test_web_e2e as e2e
from getaway.bots import LEVEL_HELP, LEVELS
from getaway.text import i18n
from test_web_e2e import MISSING, REQUIRE, act, create_room, state, wait_status

# the browser tests' fixtures: the server (one for this module), the browser, a page in a fresh context
server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")


def _code(page) -> str:
    page.wait_for_url("**/r/*")
    return page.url.rsplit("/", 1)[1]


def _listed(server: str) -> list[str]:
    return [r["code"] for r in httpx.get(f"{server}/api/rooms?public=1", timeout=10).json()["rooms"]]


@pytest.mark.timeout(120)
def test_the_lobby_describes_the_chosen_bot_level_in_one_line(new_page):
    page = new_page()
    page.goto("/")
    wait_status(page, "lobby")
    select, help_line = page.get_by_test_id("bot-level"), page.get_by_test_id("bot-level-help")
    assert select.input_value() == "medium" and help_line.inner_text() == LEVEL_HELP["medium"]
    assert [o.get_attribute("value") for o in select.locator("option").all()] == list(LEVELS)
    for level in LEVELS:
        select.select_option(level)
        assert help_line.inner_text() == LEVEL_HELP[level]
    # in the page's language (the line comes translated with the served strings)
    page.evaluate("() => localStorage.setItem('getaway.lang', 'fr')")
    page.reload()
    wait_status(page, "lobby")
    page.get_by_test_id("bot-level").select_option("hard")
    with i18n.language("fr"):
        want = i18n._(LEVEL_HELP["hard"])
    assert want != LEVEL_HELP["hard"] and page.get_by_test_id("bot-level-help").inner_text() == want


@pytest.mark.timeout(120)
def test_a_public_room_is_listed_and_joined_from_the_list(new_page, server):
    private = httpx.post(f"{server}/api/rooms", json={"name": "Zed"}, timeout=10).json()["code"]
    asha = new_page()
    asha.goto("/")
    wait_status(asha, "lobby")
    asha.get_by_test_id("name-input").fill("Asha")
    asha.get_by_test_id("players").select_option("3")
    asha.get_by_test_id("public").check()
    asha.get_by_test_id("create-room").click()
    code = _code(asha)
    wait_status(asha, "lobby")

    ben = new_page()
    ben.goto("/")
    wait_status(ben, "lobby")
    item = ben.get_by_test_id(f"public-room-{code}")
    item.wait_for()
    text = item.inner_text()
    assert "Asha" in text and "3" in text  # who is there, how many players
    assert ben.get_by_test_id(f"public-room-{private}").count() == 0  # a private room is never listed
    assert "Zed" not in ben.get_by_test_id("public-list").inner_text()
    ben.get_by_test_id("name-input").fill("Ben")
    ben.get_by_test_id(f"join-public-{code}").click()
    assert _code(ben) == code
    wait_status(ben, "lobby")
    asha.wait_for_function("() => document.querySelector('[data-testid=\"seat-item-1\"]')?.textContent.includes('Ben')")
    # the list shows what is left (one free seat), and nothing once the match starts
    room = httpx.get(f"{server}/api/rooms?public=1", timeout=10).json()["rooms"]
    assert [(r["code"], r["free"]) for r in room] == [(code, 1)]
    asha.get_by_test_id("start").click()
    wait_status(asha, "playing")
    wait_status(ben, "playing")
    assert code not in _listed(server)


@pytest.mark.timeout(120)
def test_quick_play_seats_a_second_player_in_the_first_ones_public_room(new_page, server):
    assert _listed(server) == []  # no public room is waiting: the first quick play opens one
    asha = new_page()
    asha.goto("/")
    wait_status(asha, "lobby")
    asha.get_by_test_id("name-input").fill("Asha")
    asha.get_by_test_id("quick-play").click()
    code = _code(asha)
    wait_status(asha, "lobby")
    asha.get_by_test_id("start").wait_for()  # the one who opened it is its host

    ben = new_page()
    ben.goto("/")
    wait_status(ben, "lobby")
    ben.get_by_test_id(f"public-room-{code}").wait_for()  # listed for others meanwhile
    ben.get_by_test_id("name-input").fill("Ben")
    ben.get_by_test_id("quick-play").click()
    assert _code(ben) == code
    wait_status(ben, "lobby")
    asha.wait_for_function("() => document.querySelector('[data-testid=\"seat-item-1\"]')?.textContent.includes('Ben')")
    seats = httpx.get(f"{server}/api/rooms/{code}", timeout=10).json()["seats"]
    assert [(s["name"], s["kind"]) for s in seats[:2]] == [("Asha", "human"), ("Ben", "human")]
    ben.get_by_test_id("start").wait_for()  # seated by quick play: one more host, who may start it
    asha.get_by_test_id("start").click()  # started: no longer waiting for players
    wait_status(ben, "playing")


@pytest.mark.timeout(240)
def test_rematch_moves_both_players_to_a_new_room(new_page, server):
    rng = random.Random(3)
    asha = new_page()
    code = create_room(asha, "Asha", players=3, alone=False, takes="off")
    ben = new_page()
    ben.goto(f"/r/{code}")
    wait_status(ben, "joining")
    ben.get_by_test_id("name-input").fill("Ben")
    ben.get_by_test_id("join").click()
    wait_status(ben, "lobby")
    asha.wait_for_function("() => document.querySelector('[data-testid=\"seat-item-1\"]')?.textContent.includes('Ben')")
    asha.get_by_test_id("start").click()
    pages = (asha, ben)
    deadline = time.time() + 180
    while not all(state(p)["status"] == "finished" for p in pages):
        assert time.time() < deadline, (state(asha), state(ben))
        if not any([act(p, rng) for p in pages]):
            asha.wait_for_timeout(50)
    # Both ask at once (anyone seated may ask; the host stays host): one room, no error shown.
    for page in (ben, asha):
        page.evaluate("document.querySelector('[data-testid=\"rematch\"]')?.click()")
    for page in pages:
        page.wait_for_url(lambda url: f"/r/{code}" not in url)
        wait_status(page, "lobby")
    asha.wait_for_timeout(300)  # the second ask's answer has come by now
    for page in pages:
        assert page.get_by_test_id("error").is_hidden(), page.get_by_test_id("error").inner_text()
    new = _code(asha)
    assert _code(ben) == new != code
    old = httpx.get(f"{server}/api/rooms/{code}", timeout=10).json()
    room = httpx.get(f"{server}/api/rooms/{new}", timeout=10).json()
    assert room["config"] == old["config"]
    assert [(s["name"], s["kind"], s["host"]) for s in room["seats"]] == [
        ("Asha", "human", True), ("Ben", "human", False), ("", "empty", False)
    ]  # fmt: skip
    assert "Asha" in asha.get_by_test_id("seat-item-0").inner_text()
    assert ben.get_by_test_id("start").count() == 0
    asha.get_by_test_id("start").click()  # the bot seat stays a bot's
    wait_status(asha, "playing")
    wait_status(ben, "playing")
    seats = httpx.get(f"{server}/api/rooms/{new}", timeout=10).json()["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "bot"]
    assert "Ben" in ben.get_by_test_id("me").inner_text()


@pytest.mark.timeout(120)
def test_the_lobby_sends_a_long_name_and_no_deals_as_typed_and_shows_the_refusal(new_page, server):
    """Bad input is refused, not changed (issue 24 item 8): the page neither cuts a long name nor
    turns deals ≤ 0 into 1; the server's refusal, naming the limit, is shown and no room is made."""
    page = new_page()
    page.goto("/")
    wait_status(page, "lobby")
    long = "Abcdefghij" * 3  # 30 characters
    page.get_by_test_id("name-input").press_sequentially(long)
    assert page.get_by_test_id("name-input").input_value() == long
    page.get_by_test_id("create-room").click()
    want = httpx.post(f"{server}/api/rooms", json={"name": long}, timeout=10).json()["error"]["message"]
    assert "24" in want
    page.wait_for_function("t => document.querySelector('[data-testid=error]').textContent === t", arg=want)
    assert page.url.rstrip("/") == server.rstrip("/")  # still the lobby: no room
    page.get_by_test_id("name-input").fill("Asha")
    for deals in ("-3", "0"):
        page.get_by_test_id("deals").fill(deals)
        page.get_by_test_id("create-room").click()
        body = {"name": "Asha", "deals": int(deals)}
        want = httpx.post(f"{server}/api/rooms", json=body, timeout=10).json()["error"]["message"]
        page.wait_for_function("t => document.querySelector('[data-testid=error]').textContent === t", arg=want)
        assert page.url.rstrip("/") == server.rstrip("/")
