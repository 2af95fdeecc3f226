"""The table's play flow in a real browser (issue 15, items 1, 2, 5): a punjab deal played to its
end by clicking cards alone (no take prompt), an armed take made at the next chance, the turn
timer's countdown and the bot that plays a timed-out turn, and "Finish the deal".

Same server and browser as tests/test_web_e2e.py (Debian's chromium; skipped without it unless
``GETAWAY_REQUIRE_BROWSER=1``); the server side is in tests/test_web_play.py.
"""

from __future__ import annotations

import random
import time

import httpx
import pytest

import test_web_e2e as e2e
from test_web_e2e import MISSING, REQUIRE, create_room, running_server, state, wait_status

server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")


def open_api_room(page, base: str, **config) -> str:
    """Create a room over the API (options the lobby form has no control for), sit the page's
    person at seat 0 as host, start it, and open it in the page; returns the room code."""
    made = httpx.post(f"{base}/api/rooms", json={"name": "Asha", **config}, timeout=10).json()
    code = made["code"]
    page.goto(base + "/")
    page.evaluate(
        "([code, token, host]) => { localStorage.setItem(`getaway.token.${code}`, token);"
        " localStorage.setItem(`getaway.host.${code}`, host); }",
        [code, made["token"], made["host_token"]],
    )
    r = httpx.post(f"{base}/api/rooms/{code}/start", headers={"Authorization": f"Bearer {made['host_token']}"})
    assert r.status_code == 200, r.text
    page.goto(f"{base}/r/{code}")
    wait_status(page, "playing", "between_deals", "finished")
    return code


def hand_size(page) -> int:
    return page.locator('[data-testid="hand-card"]').count()


@pytest.mark.timeout(180)
def test_a_punjab_deal_plays_to_its_end_without_any_take_prompt(new_page):
    page = new_page()
    create_room(page, "Ida", players=3, alone=True)
    rng = random.Random(5)
    deadline = time.time() + 120
    statuses = set()
    while state(page)["status"] == "playing":
        assert time.time() < deadline, "the deal did not end"
        s = state(page)
        assert "take" not in s["buttons"] and "pass" not in s["buttons"], "a take prompt was shown"
        statuses.add(page.get_by_test_id("status").inner_text())
        if s["legal"]:
            e2e.click_card(page, rng.choice(s["legal"]))
            page.wait_for_function(
                "v => Number(document.body.dataset.version) > v || document.body.dataset.status !== 'playing'",
                arg=s["version"],
            )
        else:
            page.wait_for_timeout(30)
    assert not [text for text in statuses if "or pass" in text]
    assert page.get_by_test_id("loser").is_visible()
    # the match is over: Rematch is in the result panel (by the loser's name), on screen at 1280×800 without scrolling
    page.set_viewport_size({"width": 1280, "height": 800})
    page.evaluate("() => window.scrollTo(0, 0)")
    rematch = page.get_by_test_id("outcome").get_by_test_id("rematch")
    box = rematch.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, box
    old = page.url
    rematch.click()
    page.wait_for_url(lambda url: url != old and "/r/" in url)
    wait_status(page, "playing", "lobby")


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory):
    """A server whose bots move 0.6 s after their turn began (the take window of a trick)."""
    with running_server(tmp_path_factory.mktemp("slow"), "--bot-delay", "0.6") as base:
        yield base


@pytest.mark.timeout(240)
def test_an_armed_take_happens_at_the_next_chance(new_page, slow_server):
    """Armed during a trick, the take is sent at the next chance. Bots take hands too (takes are
    on): one that takes ours, or ends the deal, before our take came leaves nothing to check,
    so up to five deals are tried."""
    page = new_page()
    rng = random.Random(2)
    deadline = time.time() + 200
    for _attempt in range(5):
        open_api_room(page, slow_server, players=3, bot_level="medium")
        armed_with = None
        while armed_with is None and time.time() < deadline and state(page)["status"] == "playing":
            s = state(page)
            arm = page.get_by_test_id("arm-take")
            if arm.count() and arm.is_enabled():
                armed_with = hand_size(page)
                arm.dispatch_event("click")  # the controls' row is redrawn as the table changes: no wait for "stable"
                page.wait_for_function(
                    """() => document.querySelector('[data-testid="arm-take"]')?.getAttribute('aria-pressed') === 'true'
                      || document.querySelector('[data-testid="armed-take"]') !== null"""
                )
            elif s["legal"]:
                e2e.click_card(page, rng.choice(s["legal"]))
                page.wait_for_timeout(50)
            else:
                page.wait_for_timeout(30)
        if armed_with is None:
            continue  # the deal ended (or our hand was taken) before a trick to arm a take in
        # play our card of this trick if it is still to come; the take follows on its own
        while time.time() < deadline:
            s = state(page)
            if s["status"] != "playing" or page.locator('[data-testid="hand-card"]').count() > armed_with:
                break
            if s["legal"] and page.get_by_test_id("arm-take").count():
                e2e.click_card(page, rng.choice(s["legal"]))
                armed_with -= 1
            page.wait_for_timeout(30)
        if hand_size(page) <= armed_with and state(page)["status"] != "playing":
            continue  # a bot's take ended the deal first
        assert hand_size(page) > armed_with  # the neighbour's hand joined ours at the first chance
        arm = page.get_by_test_id("arm-take")
        assert not arm.count() or arm.get_attribute("aria-pressed") == "false"  # used: no longer armed
        return
    pytest.fail("in five deals, bots' takes always came before ours")


@pytest.mark.timeout(120)
def test_the_turn_timer_counts_down_then_a_bot_plays_and_you_are_away_until_back(new_page, slow_server):
    page = new_page()
    # takes off, as the other browser tests: a bot's take could end the deal (or take our hand)
    # before our turn comes, leaving no turn to time out
    open_api_room(page, slow_server, players=3, turn_time=3, bot_level="easy", options={"takes": "off"})
    page.wait_for_function("() => document.querySelector('.status.mine, #status.mine')")
    countdown = page.get_by_test_id("turn-countdown")
    countdown.wait_for(state="visible", timeout=5_000)  # 3 s: within the last 10 s at once
    assert "s left" in countdown.inner_text()
    back = page.get_by_test_id("back")
    back.wait_for(state="visible", timeout=10_000)  # the turn ran out: a bot plays, we are away
    assert "away" in page.get_by_test_id("status").inner_text()
    back.click()
    back.wait_for(state="detached", timeout=10_000)


@pytest.fixture(scope="module")
def very_slow_server(tmp_path_factory):
    """Bots that take 3 s a move: a deal would take minutes without "Finish the deal"."""
    with running_server(tmp_path_factory.mktemp("very-slow"), "--bot-delay", "3") as base:
        yield base


@pytest.mark.timeout(120)
def test_finish_the_deal_when_no_human_is_left_to_act(new_page, very_slow_server):
    page = new_page()
    open_api_room(page, very_slow_server, players=3, turn_time=1, bot_level="easy")
    # away (the turn ran out), or our hand taken by a bot (we got away): only bots left to act
    finish = page.get_by_test_id("finish")
    finish.wait_for(state="visible", timeout=30_000)
    started = time.time()
    finish.click()
    wait_status(page, "between_deals", "finished")
    assert time.time() - started < 20  # dozens of moves at 3 s each would take minutes
    assert page.get_by_test_id("loser").is_visible()
