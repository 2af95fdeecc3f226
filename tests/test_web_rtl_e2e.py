"""Right to left done properly for Urdu (issue 25, item 2), in a real browser.

In ``ur`` the document's direction is ``rtl`` (the server's ``?lang=ur`` page, and the page's
own switch when the language is picked); at 1280×800 and 390×844, on the home page, the table
mid-deal, the result panel and the review, no text overflows its box: each text node's boxes
(``Range.getClientRects``) lie inside the element that holds it wherever that element clips
(``overflow`` other than visible) and inside the viewport, no clipping element's content is
wider than it (``scrollWidth`` against ``clientWidth``), and within a seat box, the header, the
status line, the outcome and the panels no two texts (a badge and a name, say) overlap. The
table keeps the rules' sense of play (RULES.md: play passes to the left; docs/web.md "Right to
left"): the seat highlighted as next to act is the socket's ``view.to_act`` (the engine's), and
the seat after the player's own is drawn on the player's left, as in English. Screenshots of
each page go to test-artifacts/ (``rtl-<page>-<size>.png``). Same browser as
tests/test_web_e2e.py; a server whose bots move 0.3 s after their turn began.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

import test_web_e2e as e2e
from test_web_e2e import ARTIFACTS, MISSING, REQUIRE, state
from test_web_play_e2e import open_api_room

browser = e2e.browser

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# The page's language is Urdu (as if picked in its select), and the socket's last view is kept
# (window.__view) to compare with the seat the page highlights.
_URDU = """
localStorage.setItem("getaway.lang", "ur");
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (ev) => {
      try { const m = JSON.parse(ev.data); if (m && m.view) window.__view = m.view; } catch (e) { /* not JSON */ }
    });
  }
};
"""

# The texts that do not fit: a list of problems (empty when all is well). A text is a text node
# with letters or digits in a shown element (not .sr-only, not inside a closed <select>, not
# the skip link waiting off screen for the keyboard's focus, nor the phone's last narration line
# under the table, cut with an ellipsis by design: the whole narration is one tap away).
_OVERFLOWS = "\n".join(
    line
    for line in (Path(__file__).resolve().parent / "web_overflows.js").read_text(encoding="utf-8").splitlines()
    if not line.startswith("//")
)

# The seat the page highlights (a seat box, or the player's own line) and the socket's to_act.
_TO_ACT = """() => {
  const v = window.__view;
  const box = document.querySelector(".seat-box.to-act");
  const me = document.querySelector(".me.to-act");
  return { to_act: v && !v.outcome ? v.to_act : null, version: Number(document.body.dataset.version),
    shown: box ? Number(box.dataset.seat) : (me ? "me" : null) };
}"""


rtl_server = e2e.server_fixture("rtl", "--bot-delay", "0.3")


@pytest.fixture
def new_page(browser, rtl_server):
    yield from e2e.pages(browser, rtl_server, _URDU)


def _size(viewport: dict) -> str:
    return f"{viewport['width']}x{viewport['height']}"


def _check(page, where: str, viewport: dict) -> None:
    """The page is right to left, nothing overflows; a screenshot for the eye."""
    page.evaluate("() => document.fonts.ready")
    page.wait_for_timeout(300)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"rtl-{where}-{_size(viewport)}.png"))
    assert page.evaluate("() => [document.documentElement.lang, document.documentElement.dir]") == ["ur", "rtl"]
    problems = page.evaluate(_OVERFLOWS)
    assert not problems, (where, _size(viewport), problems)


def _next_seat_is_highlighted(page) -> None:
    """The seat the page highlights is the socket's (the engine's) next to act, whenever the two
    are of the same version (the page draws each view as it comes)."""
    deadline = time.time() + 10
    seen = None
    while time.time() < deadline:
        seen = page.evaluate(_TO_ACT)
        if seen["to_act"] is not None:
            expected = "me" if seen["to_act"] == 0 else seen["to_act"]
            if seen["shown"] == expected:
                return
        page.wait_for_timeout(20)
    raise AssertionError(f"the highlighted seat is not the next to act: {seen}")


@pytest.mark.timeout(420)
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_urdu_reads_right_to_left_and_nothing_overflows(new_page, rtl_server, viewport):
    page = new_page(viewport)
    # the home page, drawn right to left by the server (a link's ?lang=) and by the page
    page.goto("/?lang=ur")
    page.wait_for_function("() => document.body.dataset.status !== 'loading'")
    _check(page, "home", viewport)
    # the table mid-deal (seat 0 against three bots)
    code = open_api_room(page, rtl_server, players=4, bot_level="easy")
    rng = random.Random(25)
    played = 0
    deadline = time.time() + 120
    while played < 6 and time.time() < deadline and state(page)["status"] == "playing":
        if e2e.act(page, rng):
            played += 1
        else:
            page.wait_for_timeout(50)
    _next_seat_is_highlighted(page)
    _check(page, "table", viewport)
    # the table keeps the rules' direction: the seat after the player's is on the player's left
    boxes = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('.seat-box')].map((e) => {"
        " const r = e.getBoundingClientRect(); return [e.dataset.seat, [r.left, r.top, r.right]]; }))"
    )
    assert boxes["1"][0] < boxes["3"][0], boxes
    # the result panel: the deal to its end
    deadline = time.time() + 240
    while time.time() < deadline and state(page)["status"] == "playing":
        if e2e.act(page, rng) is None:
            page.wait_for_timeout(50)
    page.get_by_test_id("outcome").wait_for()
    _check(page, "result", viewport)
    # the review of the deal
    page.goto(f"/replay?room={code}&deal=0&move=5&seat=1")
    page.evaluate("() => { window.__reviewIterations = 8; }")
    page.get_by_test_id("review-button").click()
    page.get_by_test_id("review-chart").wait_for(timeout=120_000)
    _check(page, "review", viewport)


@pytest.mark.timeout(120)
def test_switching_to_urdu_and_back_turns_the_page(new_page):
    page = new_page(DESKTOP)
    page.goto("/")
    page.wait_for_function("() => document.documentElement.dir === 'rtl'")
    page.locator("#lang").select_option("en")
    page.wait_for_function("() => document.documentElement.lang === 'en' && document.documentElement.dir === 'ltr'")
    page.locator("#lang").select_option("ur")
    page.wait_for_function("() => document.documentElement.lang === 'ur' && document.documentElement.dir === 'rtl'")
