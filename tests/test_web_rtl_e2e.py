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

import pytest

import test_web_e2e as e2e
from test_web_e2e import ARTIFACTS, MISSING, REQUIRE, state
from test_web_play_e2e import open_api_room
from web_helpers import running_server

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
# the skip link waiting off screen for the keyboard's focus).
_OVERFLOWS = """() => {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  // checkVisibility: not inside a closed <details> (content-visibility), not display: none
  const shown = (el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: false }) && el.getClientRects().length > 0;
  const clips = (el) => { const cs = getComputedStyle(el); return cs.overflowX !== "visible" || cs.overflowY !== "visible"; };
  const label = (el) => (el.dataset.testid || el.className || el.tagName).toString().slice(0, 40) + ": " + el.textContent.trim().slice(0, 30);
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!/[\\p{L}\\p{N}]/u.test(n.data)) continue;
    const el = n.parentElement;
    if (!el || el.closest(".sr-only, select, [hidden], .fly-layer, svg, .skip:not(:focus)") || !shown(el)) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    // a line scrolled out of its scrolling box (the narration) is not seen: not measured
    const seen = rects.filter((r) => {
      for (let a = el; a && a !== document.body; a = a.parentElement) {
        if (!clips(a)) continue;
        const b = a.getBoundingClientRect(), mid = (r.top + r.bottom) / 2;
        if (a.scrollHeight > a.clientHeight + 1 && (mid < b.top || mid > b.bottom)) return false;
      }
      return true;
    });
    if (seen.length) texts.push({ el, rects: seen, n });
  }
  for (const { el, rects } of texts) {
    for (const r of rects) {
      if (r.left < -1 || r.right > vw + 1) problems.push(`off screen: ${label(el)} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
      // every clipping ancestor (up to the page) holds the text's box; vertically its middle
      // (Nastaliq's glyph boxes are taller than its lines)
      for (let a = el; a && a !== document.body; a = a.parentElement) {
        if (!clips(a) || a.matches(".log, .rules, .side, .outcome, .actions, .replay, html")) continue;
        const b = a.getBoundingClientRect();
        const mid = (r.top + r.bottom) / 2;
        if (r.left < b.left - 1 || r.right > b.right + 1 || mid < b.top || mid > b.bottom)
          problems.push(`clipped: ${label(el)} in ${label(a)} text [${Math.round(r.left)}, ${Math.round(r.right)}] box [${Math.round(b.left)}, ${Math.round(b.right)}]`);
      }
    }
  }
  // a clipping element's content wider than it (a text cut short), but the scrolling boxes
  for (const el of document.querySelectorAll("body *")) {
    if (!shown(el) || !clips(el) || el.closest(".sr-only, .fly-layer, svg") || el.matches(".sr-only, .log, .rules, .side, .actions, .hand, .felt, .face, .art, .fly-layer, .take-hand, .outcome")) continue;
    if (!/[\\p{L}\\p{N}]/u.test(el.textContent)) continue;
    if (el.scrollWidth > el.clientWidth + 1) problems.push(`wider than its box: ${label(el)} ${el.scrollWidth} > ${el.clientWidth}`);
  }
  // no two texts overlap inside a seat box, the header, the status line, the outcome, a panel
  const groups = new Map();
  for (const t of texts) {
    const g = t.el.closest(".seat-box, .top, .status, .outcome, .panel, .card-panel, .me, .last-action");
    if (!g) continue;
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(t);
  }
  for (const list of groups.values()) {
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
      const A = list[i], B = list[j];
      if (A.el === B.el || A.el.contains(B.el) || B.el.contains(A.el)) continue;
      for (const a of A.rects) for (const b of B.rects) {
        const ay = [a.top + a.height / 4, a.bottom - a.height / 4], by = [b.top + b.height / 4, b.bottom - b.height / 4];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), hgt = Math.min(ay[1], by[1]) - Math.max(ay[0], by[0]);
        if (w > 1 && hgt > 1) problems.push(`overlap: ${label(A.el)} / ${label(B.el)}`);
      }
    }
  }
  return [...new Set(problems)];
}"""

# The seat the page highlights (a seat box, or the player's own line) and the socket's to_act.
_TO_ACT = """() => {
  const v = window.__view;
  const box = document.querySelector(".seat-box.to-act");
  const me = document.querySelector(".me.to-act");
  return { to_act: v && !v.outcome ? v.to_act : null, version: Number(document.body.dataset.version),
    shown: box ? Number(box.dataset.seat) : (me ? "me" : null) };
}"""


@pytest.fixture(scope="module")
def rtl_server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("rtl"), "--bot-delay", "0.3") as base:
        yield base


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
