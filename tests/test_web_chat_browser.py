"""Quick chat between two browsers (issue 23, item 8): Asha says a phrase from the palette, Ben
(on a phone, 390×844) sees it as a bubble by her seat for a few seconds, not over his hand; he
mutes her, and her next phrase shows no bubble there (the mute survives a reload); a spectator
sees the bubbles and has no chat button.

Same server and browser as tests/test_web_e2e.py (skipped without chromium unless
``GETAWAY_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import pytest

import test_web_e2e as e2e
from test_web_e2e import MISSING, PHONE, REQUIRE, create_room, wait_status

# the browser tests' fixtures: the server, the browser, a page in a fresh context
server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

_OVERLAP = """([a, b]) => {
  const r = document.querySelector(a).getBoundingClientRect(), s = document.querySelector(b).getBoundingClientRect();
  return r.left < s.right && r.right > s.left && r.top < s.bottom && r.bottom > s.top;
}"""


def _say(page, phrase: str) -> None:
    page.get_by_test_id("chat-button").click()
    page.get_by_test_id(f"chat-{phrase}").click()


@pytest.mark.timeout(120)
def test_a_phrase_said_in_one_browser_shows_as_a_bubble_in_the_other_which_can_mute_it(new_page):
    asha = new_page()
    code = create_room(asha, "Asha", players=4, alone=False, takes="off")
    ben = new_page(PHONE, is_mobile=True, has_touch=True)
    ben.goto(f"/r/{code}")
    wait_status(ben, "joining")
    ben.get_by_test_id("name-input").fill("Ben")
    ben.get_by_test_id("join").click()
    wait_status(ben, "lobby")
    asha.wait_for_function("() => document.querySelector('[data-testid=\"seat-item-1\"]')?.textContent.includes('Ben')")
    asha.get_by_test_id("start").click()
    wait_status(asha, "playing")
    wait_status(ben, "playing")
    watcher = new_page()
    watcher.goto(f"/r/{code}")
    wait_status(watcher, "joining")
    watcher.get_by_test_id("watch").click()
    wait_status(watcher, "playing")
    assert watcher.get_by_test_id("chat-button").count() == 0 or not watcher.get_by_test_id("chat-button").is_visible()

    _say(asha, "well_played")
    bubble = ben.get_by_test_id("chat-bubble-0")
    bubble.wait_for()
    assert bubble.inner_text() == "Well played!"
    assert ben.evaluate('() => !!document.querySelector(\'[data-testid="seat-0"] [data-testid="chat-bubble-0"]\')')
    assert not ben.evaluate(_OVERLAP, ['[data-testid="chat-bubble-0"]', '[data-testid="hand"]'])  # never over his hand
    assert ben.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    watcher.get_by_test_id("chat-bubble-0").wait_for()  # the spectator sees it too
    asha.get_by_test_id("chat-bubble-0").wait_for()  # and Asha her own, by her name line
    assert not asha.evaluate(_OVERLAP, ['[data-testid="chat-bubble-0"]', '[data-testid="hand"]'])
    bubble.wait_for(state="detached", timeout=6000)  # gone after about 4 s

    # Ben mutes Asha: her next phrase shows no bubble on his page (the spectator still sees it)
    ben.get_by_test_id("chat-button").click()
    mute = ben.get_by_test_id("chat-mute-0")
    assert mute.get_attribute("aria-pressed") == "false" and "Asha" in mute.get_attribute("aria-label")
    mute.click()
    assert ben.get_by_test_id("chat-mute-0").get_attribute("aria-pressed") == "true"
    ben.get_by_test_id("chat-button").click()  # the palette closes
    asha.wait_for_timeout(300)
    _say(asha, "heart")
    watcher.get_by_test_id("chat-bubble-0").wait_for()
    assert watcher.get_by_test_id("chat-bubble-0").inner_text() == "♥"
    ben.wait_for_timeout(500)
    assert ben.get_by_test_id("chat-bubble-0").count() == 0
    # kept in his browser: after a reload she is still muted; Ben's own phrase reaches Asha
    ben.reload()
    wait_status(ben, "playing")
    ben.get_by_test_id("chat-button").click()
    assert ben.get_by_test_id("chat-mute-0").get_attribute("aria-pressed") == "true"
    ben.get_by_test_id("chat-thanks").click()
    asha.get_by_test_id("chat-bubble-1").wait_for()
    assert asha.get_by_test_id("chat-bubble-1").inner_text() == "Thanks!"
