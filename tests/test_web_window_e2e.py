"""A take window a person can use and a pace a person can follow (issue 24, items 1 and 4), in a
real browser, measured from the DOM with ``performance.now()`` (a 20 ms poller in the page):
the take window's length and its countdown on the take control, a bot's lead that waits for it,
the human's own lead that ends it, an armed take's badge and its cancel, a finished trick's
linger at each speed (with takes off too, where no window holds the next lead: the server holds
it, at the room's pace, as it paces its bots), and the last trick looked at again.

Same browser as tests/test_web_e2e.py (Debian's chromium; skipped without it unless
``GETAWAY_REQUIRE_BROWSER=1``), a server whose bots move 0.6 s after their turn began. With
``GETAWAY_SHOTS=dir`` the screenshots of a take window, an armed take and the last trick are
saved there (1280×800 and 390×844). The server side is in tests/test_web_window.py.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

import test_web_e2e as e2e
from test_web_e2e import MISSING, REQUIRE, state
from test_web_play_e2e import open_api_room

browser = e2e.browser

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

SHOTS = os.environ.get("GETAWAY_SHOTS")
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# The page's recorder: transitions of the take countdown, of a settled trick (shown → swept or
# replaced), the leads and every card played, each with performance.now() in ms.
_RECORDER = """
window.__rec = { windows: [], tricks: [], leads: [], played: [] };
(() => {
  let win = null, tr = null, led = false;
  const seen = new Set();
  const look = () => {
    const now = performance.now();
    const cd = document.querySelector('[data-testid="take-countdown"]');
    if (cd && !win) {
      const mine = !!document.querySelector('[data-testid="hand-card"][data-legal="true"]');
      win = { start: now, end: null, left: [], mine };
      window.__rec.windows.push(win);
    }
    if (cd && win) { const l = Number(cd.dataset.left); if (win.left[win.left.length - 1] !== l) win.left.push(l); }
    if (!cd && win) { win.end = now; win = null; }
    const trick = document.querySelector('[data-testid="trick"]');
    const settled = trick && trick.classList.contains("settled") && trick.dataset.skey;
    if (settled && (!tr || tr.key !== trick.dataset.skey)) {
      tr = { key: trick.dataset.skey, start: now, end: null, how: null,
        cards: [...trick.querySelectorAll('[data-testid="trick-card"]')].map((e) => [e.dataset.seat, e.dataset.card]) };
      window.__rec.tricks.push(tr);
    }
    if (tr && tr.end === null && (!settled || trick.dataset.skey !== tr.key || trick.classList.contains("swept"))) {
      tr.end = now;
      tr.how = settled && trick.dataset.skey === tr.key ? "swept" : "replaced";
    }
    const lead = trick && !trick.classList.contains("settled") && trick.querySelector('[data-testid="trick-card"]');
    if (lead && !led) window.__rec.leads.push({ at: now, seat: lead.dataset.seat });
    led = !!lead;
    if (trick && !trick.classList.contains("settled")) {
      for (const c of trick.querySelectorAll('[data-testid="trick-card"]')) {
        if (seen.has(c.dataset.key)) continue;
        seen.add(c.dataset.key);
        window.__rec.played.push({ at: now, seat: c.dataset.seat, key: c.dataset.key });
      }
    }
  };
  // At each change of the page (a MutationObserver's callback runs right after the render that
  // made it, however busy the machine), and every 20 ms besides (the countdown's seconds).
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true });
  setInterval(look, 20);
})();
"""


# a server whose bots move 0.6 s after their turn began (the default take window: 2.5 s)
slow_server = e2e.server_fixture("window", "--bot-delay", "0.6")


@pytest.fixture
def new_page(browser, slow_server):
    """:func:`test_web_e2e.pages` with the recorder; ``speed``: the player's speed, kept as the page keeps it."""
    make = e2e.pages(browser, slow_server, _RECORDER)
    opened = next(make)

    def new(viewport=DESKTOP, speed: str | None = None):
        return opened(viewport, *([f"localStorage.setItem('getaway.speed', '{speed}')"] if speed else []))

    yield new
    next(make, None)


def _shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / name))


def _click(page, name: str) -> None:
    """Play a hand card (its click handler: these tests measure time, not aim; a big hand's
    overlap is tests/test_web_e2e.py's)."""
    e2e.card(page, name).dispatch_event("click")


def _lingering(page) -> bool:
    """A finished trick still on the table (not swept yet): a person would look at it."""
    return bool(page.evaluate("() => !!document.querySelector('.trick.settled:not(.swept)')"))


def _play_deal(page, rng: random.Random, until, seconds: float = 90) -> None:
    """Play our legal cards (never a take), as a person who looks at a finished trick until it
    has gone, until ``until(page)`` or the deal ends."""
    deadline = time.time() + seconds
    while time.time() < deadline and state(page)["status"] == "playing" and not until(page):
        s = state(page)
        if s["legal"] and not _lingering(page):
            _click(page, rng.choice(s["legal"]))
            page.wait_for_timeout(80)
        else:
            page.wait_for_timeout(40)


def _rec(page) -> dict:
    return page.evaluate("() => window.__rec")


@pytest.mark.timeout(240)
def test_the_take_window_counts_down_and_a_bots_lead_waits_for_it(new_page, slow_server):
    page = new_page()
    rng = random.Random(5)
    theirs = []
    for _attempt in range(4):  # a bot's take may end our deal early: play another room
        open_api_room(page, slow_server, players=3, bot_level="easy")
        shot_taken = False

        def enough(page) -> bool:
            nonlocal shot_taken
            if not shot_taken and page.locator('[data-testid="take-countdown"]').count():
                shot_taken = True
                _shot(page, "take-window-1280.png")
            return len([w for w in _rec(page)["windows"] if w["end"] and not w["mine"]]) >= 3

        _play_deal(page, rng, enough)
        rec = _rec(page)
        theirs = [w for w in rec["windows"] if w["end"] and not w["mine"]]
        if len(theirs) >= 2:
            break
    assert len(theirs) >= 2, rec["windows"]
    for w in theirs:
        length = (w["end"] - w["start"]) / 1000
        assert 2.1 <= length <= 3.2, w  # the default window, 2.5 s, as the page shows it
        assert w["left"][0] >= 2.0 and min(w["left"]) <= 0.6, w  # the countdown ran down
        assert w["left"] == sorted(w["left"], reverse=True), w
        lead = next((x for x in rec["leads"] if x["at"] >= w["start"]), None)
        if lead is not None and lead["seat"] != "0":
            assert (lead["at"] - w["start"]) / 1000 >= 2.1, (w, lead)  # a bot's lead waited for it


@pytest.mark.timeout(240)
def test_our_own_lead_ends_the_window(new_page, slow_server):
    """When we are due to lead, no countdown holds us, and our lead is on the table within the
    bots' moment (0.6 s) and the network's time."""
    page = new_page()
    rng = random.Random(11)
    waits: list[float] = []
    for _attempt in range(6):
        open_api_room(page, slow_server, players=3, bot_level="easy", options={"takes": "leader"})
        deadline = time.time() + 90
        while time.time() < deadline and state(page)["status"] == "playing" and len(waits) < 2:
            s = state(page)
            leading = page.evaluate(
                "() => { const t = document.querySelector('[data-testid=\"trick\"]');"
                " return !t.querySelector('[data-testid=\"trick-card\"]') || t.classList.contains('settled'); }"
            )
            if s["legal"] and leading and not _lingering(page):
                assert not page.locator('[data-testid="take-countdown"]').count()  # nothing to wait for
                start = page.evaluate("() => performance.now()")
                _click(page, rng.choice(s["legal"]))
                page.wait_for_function(
                    "() => { const t = document.querySelector('[data-testid=\"trick\"]');"
                    " return !t.classList.contains('settled') && t.querySelector('[data-testid=\"trick-card\"]'); }",
                    timeout=10_000,
                )
                waits.append((page.evaluate("() => performance.now()") - start) / 1000)
            elif s["legal"] and not _lingering(page):
                _click(page, rng.choice(s["legal"]))
                page.wait_for_timeout(80)
            else:
                page.wait_for_timeout(40)
        if len(waits) >= 2:
            break
    assert waits and all(w < 1.6 for w in waits), waits  # not the 2.5 s window


def _arm_when_a_trick_begins(page, rng: random.Random, seconds: float = 60) -> bool:
    """Play on until a trick has just begun (one card down) and a take may be armed; arm it."""
    deadline = time.time() + seconds
    while time.time() < deadline and state(page)["status"] == "playing":
        arm = page.get_by_test_id("arm-take")
        if arm.count() and arm.is_enabled() and page.locator('[data-testid="trick-card"]').count() == 1:
            arm.click()
            return True
        s = state(page)
        if s["legal"] and not _lingering(page):
            _click(page, rng.choice(s["legal"]))
        page.wait_for_timeout(30)
    return False


@pytest.mark.timeout(240)
def test_an_armed_take_is_a_badge_with_a_cancel_and_the_narration_says_when_it_fired(new_page, slow_server):
    page = new_page()
    rng = random.Random(3)
    cancelled = fired = False
    for _attempt in range(4):
        open_api_room(page, slow_server, players=3, bot_level="easy")
        if not cancelled and _arm_when_a_trick_begins(page, rng):
            badge = page.get_by_test_id("armed-take")
            assert badge.is_visible()  # a standing badge, with its cancel
            page.get_by_test_id("cancel-take").click()
            assert not page.get_by_test_id("armed-take").count()
            assert page.get_by_test_id("arm-take").get_attribute("aria-pressed") == "false"
            cancelled = True
        if cancelled and _arm_when_a_trick_begins(page, rng):
            _shot(page, "armed-take-1280.png")
            page.set_viewport_size(PHONE)
            _shot(page, "armed-take-390.png")
            page.set_viewport_size(DESKTOP)
            before = e2e.state(page)["hand"]
            # play our card of this trick if it is still to come; the take fires at the next chance
            deadline = time.time() + 30
            while time.time() < deadline and state(page)["status"] == "playing":
                if page.get_by_test_id("armed-take").count() == 0:
                    break
                s = state(page)
                if s["legal"]:
                    _click(page, rng.choice(s["legal"]))
                page.wait_for_timeout(30)
            page.wait_for_timeout(800)
            if len(state(page)["hand"]) > len(before) - 1:  # a hand joined ours: the take fired
                log = page.locator(".log-lines").inner_text()
                assert "Your armed take fired: you took" in log, log
                fired = True
                break
    assert cancelled, "no trick to arm a take in"
    assert fired, "in four deals, our armed take never fired (bots' takes came first)"


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("speed", "low", "high"), [("relaxed", 2.0, 2.9), (None, 1.25, 1.9), ("fast", 0.7, 1.2)])
def test_a_finished_trick_lingers_at_each_speed(new_page, slow_server, speed, low, high):
    page = new_page(speed=speed)
    rng = random.Random(7)
    swept: list[float] = []
    for _attempt in range(4):
        open_api_room(page, slow_server, players=3, bot_level="easy")
        _play_deal(page, rng, lambda p: len([t for t in _rec(p)["tricks"] if t["how"] == "swept"]) >= 3)
        swept = [(t["end"] - t["start"]) / 1000 for t in _rec(page)["tricks"] if t["how"] == "swept"]
        if len(swept) >= 3:
            break
    assert len(swept) >= 2, _rec(page)["tricks"]
    assert all(low <= s <= high for s in swept), (swept, _rec(page)["tricks"])


def _bot_gaps(rec: dict) -> list[float]:
    """Seconds between two bots' cards, one after the other in the same trick (the second bot's
    delay as the page shows it: both reach the page the same way, unlike our own card)."""
    gaps = []
    for a, b in zip(rec["played"], rec["played"][1:], strict=False):
        same_trick = a["key"].split(":")[:2] == b["key"].split(":")[:2]
        if same_trick and a["seat"] != "0" and b["seat"] != "0":
            gaps.append((b["at"] - a["at"]) / 1000)
    return gaps


def _bot_ended(rec: dict) -> list[dict]:
    """The finished tricks a bot's card ended: the next lead's timing is then the room's alone
    (our own last card adds the browser's input lag, which this machine's load makes large)."""
    return [t for t in rec["tricks"] if t["end"] and t["cards"] and t["cards"][-1][0] != "0"]


def _enough_tricks(page) -> bool:
    rec = _rec(page)
    return len(_bot_ended(rec)) >= 5 and len(_bot_gaps(rec)) >= 7


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("speed", "low", "high", "gap"),
    [("relaxed", 1.9, 3.4, (0.75, 1.3)), (None, 1.2, 2.4, (0.4, 0.8)), ("fast", 0.75, 1.6, (0.15, 0.5))],
)
def test_with_takes_off_the_linger_and_the_bots_delay_follow_the_speed(new_page, slow_server, speed, low, high, gap):
    """No take window holds the next lead (takes off): a finished trick (one a bot's card ended)
    still stays the linger (1.3 s) times the speed before it goes (swept, or replaced by the next
    lead: both counted),
    and the bots' delay (0.6 s on this server: ×1.6 relaxed, ×0.6 fast) follows the speed the
    page told the server (medians: this machine's load makes single gaps noisy)."""
    page = new_page(speed=speed)
    rng = random.Random(13)
    gone: list[float] = []
    gaps: list[float] = []
    rec: dict = {}
    budget = time.time() + 420
    for _attempt in range(4):
        if time.time() > budget:
            break
        open_api_room(page, slow_server, players=3, bot_level="easy", options={"takes": "off"})
        _play_deal(page, rng, _enough_tricks, seconds=min(150, max(10, budget - time.time())))
        rec = _rec(page)  # (each room's page starts a new record: gather them)
        gone += [(t["end"] - t["start"]) / 1000 for t in _bot_ended(rec)]
        gaps = sorted(gaps + _bot_gaps(rec))
        if len(gone) >= 5 and len(gaps) >= 7:
            break
    assert len(gone) >= 3, rec["tricks"]
    # Medians, and a floor 0.35 s below: on this 2-core machine under load (9 and more) the page
    # renders an update up to ~0.35 s late now and then, which shortens that one linger as seen.
    # The server's hold itself is exact: tests/test_web_pace.py.
    lingers = sorted(gone)
    assert low <= lingers[len(lingers) // 2] <= high and lingers[0] >= low - 0.35, (gone, rec["tricks"])
    assert len(gaps) >= 5, rec["played"]
    median = gaps[len(gaps) // 2]
    assert gap[0] <= median <= gap[1], gaps


@pytest.mark.timeout(240)
def test_the_last_trick_can_be_looked_at_again(new_page, slow_server):
    page = new_page()
    rng = random.Random(9)
    seen = None
    for _attempt in range(4):
        open_api_room(page, slow_server, players=3, bot_level="easy")

        def next_trick_begun(page) -> bool:
            rec = _rec(page)
            done = [t for t in rec["tricks"] if t["end"] is not None]
            return bool(done) and any(x["at"] > done[-1]["end"] for x in rec["leads"]) and not _lingering(page)

        _play_deal(page, rng, next_trick_begun)
        rec = _rec(page)
        done = [t for t in rec["tricks"] if t["end"] is not None]
        if state(page)["status"] == "playing" and done and page.get_by_test_id("last-trick").count():
            seen = done[-1]
            break
    assert seen is not None, "no trick finished while the deal went on"
    view = page.get_by_test_id("last-trick-view")
    assert view.is_hidden()
    page.get_by_test_id("last-trick").click()
    view.wait_for(state="visible")
    shown = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=\"last-trick-view\"] li')]"
        ".map((li) => [li.dataset.seat, li.textContent])"
    )
    seen = _rec(page)["tricks"][-1]  # the trick settled last (one may have settled meanwhile)
    cards = [(seat, card) for seat, card in seen["cards"] if card]
    assert len(shown) == len(cards), (shown, cards)
    for (seat, card), (shown_seat, text) in zip(cards, shown, strict=True):
        assert shown_seat == seat and card in text, (shown, cards)
    assert page.get_by_test_id("last-trick").get_attribute("aria-expanded") == "true"
    _shot(page, "last-trick-1280.png")
    page.set_viewport_size(PHONE)
    _shot(page, "last-trick-390.png")
