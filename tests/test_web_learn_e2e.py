"""The learning pages in a real browser (issue 16): the replay viewer (a dropped record file and a
room's finished deal, the seat filter, the keyboard, the slider, the share link, a bad file), the
review (its chart and a mistake's link into the replay), and one whole lesson per profile in two
languages (finished lessons remembered by the browser).

Same server and browser as tests/test_web_e2e.py (skipped without Chromium unless
``GETAWAY_REQUIRE_BROWSER=1``). ``GETAWAY_SCREENSHOTS=1`` writes docs/learn.md's screenshots.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import httpx
import pytest

import test_web_e2e as e2e
from getaway import Deal, Rules
from getaway.bots import HeuristicBot, play_deal
from getaway.core.record import record_of
from test_web_e2e import MISSING, REQUIRE

server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

DOCS_IMG = Path(__file__).resolve().parent.parent / "docs" / "img"


def _shot(page, name: str) -> None:
    if os.environ.get("GETAWAY_SCREENSHOTS") == "1":
        DOCS_IMG.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS_IMG / name), full_page=True)


def _record_file(tmp_path: Path, seed: int = 1) -> tuple[Path, dict]:
    deal = Deal(Rules.profile("punjab", players=4), 0, seed)
    play_deal(deal, [HeuristicBot()] * 4, random.Random(seed))
    record = record_of(deal)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path, record


def _move(page) -> int:
    return int(page.get_by_test_id("replay-slider").input_value())


def _wait_move(page, k: int) -> None:
    page.wait_for_function("(k) => document.querySelector('[data-testid=replay-slider]')?.value === String(k)", arg=k)
    page.wait_for_function(
        "(k) => (document.querySelector('[data-testid=replay-move]')?.textContent || '').includes(String(k))", arg=k
    )


def test_the_replay_viewer_steps_through_a_dropped_record(new_page, tmp_path):
    path, record = _record_file(tmp_path)
    n = len(record["actions"])
    page = new_page()
    page.goto("/replay")
    page.get_by_test_id("replay-file").set_input_files(str(path))
    _wait_move(page, n)  # opens at the end
    assert page.get_by_test_id("outcome").is_visible()
    page.keyboard.press("Home")
    _wait_move(page, 0)
    assert page.locator('[data-testid="replay-hands"] .mini-card').count() == 52  # every hand, all the cards
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    _wait_move(page, 2)
    page.get_by_test_id("replay-forward").click()
    _wait_move(page, 3)
    page.get_by_test_id("replay-back").click()
    _wait_move(page, 2)
    assert page.locator('[data-testid="trick-card"]').count() == 2
    page.get_by_test_id("replay-last").click()
    _wait_move(page, n)
    page.get_by_test_id("replay-first").click()
    _wait_move(page, 0)
    page.get_by_test_id("replay-slider").fill("20")
    _wait_move(page, 20)
    page.keyboard.press("ArrowLeft")
    _wait_move(page, 19)
    # one seat's view: its own hand only, the others' hidden
    page.get_by_test_id("replay-seat").select_option("2")
    page.wait_for_function("() => document.querySelector('[data-testid=replay-hands]')?.hidden")
    hand = page.locator('[data-testid="hand-card"]').evaluate_all("els => els.map(e => e.dataset.card)")
    assert hand and len(hand) < 13
    # a replay has no socket to chat on: no quick-chat button (it threw "this.say is not a function")
    assert not page.get_by_test_id("chat-button").is_visible()
    _shot(page, "learn-replay.png")


def test_a_bad_file_gets_a_clear_error(new_page, tmp_path):
    page = new_page()
    page.goto("/replay")
    junk = tmp_path / "junk.json"
    junk.write_text("{not json", encoding="utf-8")
    page.get_by_test_id("replay-file").set_input_files(str(junk))
    error = page.get_by_test_id("error")
    error.wait_for(state="visible")
    assert "not JSON" in error.text_content()
    wrong = tmp_path / "wrong.json"
    bad = {"format": "getaway/1", "players": ["a", "b", "c", "d"], "actions": [{"seat": 1, "play": "2♥"}]}
    wrong.write_text(json.dumps(bad))
    page.get_by_test_id("replay-file").set_input_files(str(wrong))
    page.wait_for_function(
        "() => (document.querySelector('[data-testid=error]')?.textContent || '').includes('actions[')"
    )


def _finished_bot_room(server: str) -> str:
    created = httpx.post(f"{server}/api/rooms", json={"profile": "classic", "players": 4}, timeout=10).json()
    code = created["code"]
    r = httpx.post(f"{server}/api/rooms/{code}/start", headers={"Authorization": f"Bearer {created['host_token']}"})
    assert r.status_code == 200, r.text
    deadline = time.time() + 60
    while time.time() < deadline:
        if httpx.get(f"{server}/api/rooms/{code}/deals/0/record", timeout=10).status_code == 200:
            return code
        time.sleep(0.3)
    raise AssertionError("the bots did not finish the deal")


@pytest.mark.timeout(180)
def test_a_rooms_deal_replays_shares_a_move_and_is_reviewed(new_page, server):
    code = _finished_bot_room(server)
    page = new_page()
    page.goto(f"/replay?room={code}&deal=0&move=5&seat=1")
    _wait_move(page, 5)
    link = page.get_by_test_id("replay-link").get_attribute("href")
    assert f"room={code}" in link and "move=5" in link and "seat=1" in link
    page.keyboard.press("ArrowRight")
    _wait_move(page, 6)
    shared = page.get_by_test_id("replay-link").get_attribute("href")
    other = new_page()
    other.goto(shared)
    _wait_move(other, 6)
    assert other.get_by_test_id("replay-seat").input_value() == "1"
    # the review of seat 2 (a quicker budget for the test), each decision a link to its move
    page.evaluate("() => { window.__reviewIterations = 8; }")
    page.get_by_test_id("review-button").click()
    page.get_by_test_id("review-chart").wait_for(timeout=120_000)
    rows = page.get_by_test_id("review-row")
    assert rows.count() > 3
    target = page.locator('[data-testid^="review-goto-"]').nth(2)
    index = int(target.get_attribute("data-testid").rsplit("-", 1)[1])
    target.click()
    _wait_move(page, index)
    _shot(page, "learn-review.png")


def _verdict(page, verdict: str) -> None:
    page.wait_for_function(
        "(v) => document.querySelector('[data-testid=lesson-feedback]')?.dataset.verdict === v", arg=verdict
    )


def _lessons_done(page) -> list[str]:
    return page.evaluate("() => JSON.parse(localStorage.getItem('getaway.lessons.done') || '[]')")


def test_a_punjab_lesson_in_english_failed_then_finished(new_page):
    page = new_page()
    page.goto("/learn")
    page.get_by_test_id("lesson-punjab-who-picks-up").click()
    page.get_by_test_id("lesson-goal").wait_for()
    assert "do not pick up" in page.get_by_test_id("lesson-goal").text_content()
    page.locator('[data-testid="hand-card"][data-card="K♦"]').click()
    feedback = page.get_by_test_id("lesson-feedback")
    _verdict(page, "failure")
    assert "you picked up" in feedback.text_content()
    page.get_by_test_id("lesson-again").click()
    page.locator('[data-testid="hand-card"][data-card="4♦"][data-legal="true"]').click()
    _verdict(page, "success")
    _shot(page, "learn-lesson.png")
    assert _lessons_done(page) == ["punjab-who-picks-up"]
    page.goto("/learn")
    assert page.get_by_test_id("lesson-punjab-who-picks-up").get_attribute("data-done") == "true"
    assert page.get_by_test_id("lesson-punjab-tochoo").get_attribute("data-done") == "false"


def test_a_classic_lesson_in_french(new_page):
    page = new_page()
    page.goto("/")
    page.evaluate("() => localStorage.setItem('getaway.lang', 'fr')")
    page.goto("/learn?lesson=classic-void-pickup")
    page.get_by_test_id("lesson-goal").wait_for()
    goal = page.get_by_test_id("lesson-goal").text_content()
    assert "Lead a club" not in goal and goal.strip()
    page.locator('[data-testid="hand-card"][data-card="4♥"]').click()
    _verdict(page, "failure")
    page.get_by_test_id("lesson-again").click()
    page.locator('[data-testid="hand-card"][data-card="9♣"][data-legal="true"]').click()
    _verdict(page, "success")
    text = page.get_by_test_id("lesson-feedback").text_content()
    assert text and "could not follow" not in text  # in French
    page.get_by_test_id("lesson-next").click()
    page.get_by_test_id("lesson-title").wait_for()
    assert _lessons_done(page) == ["classic-void-pickup"]
