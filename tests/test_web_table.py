"""The table in a real browser (issue 15): motion and cues (and none under reduced motion), card
faces, the phone layout measured (390×844: 26 cards, 8 players), the trick never overlapping,
axe-core's accessibility check, a whole deal played with the keyboard alone, the page's language.

Same server and browser as tests/test_web_e2e.py (Debian's chromium; skipped without it unless
``GETAWAY_REQUIRE_BROWSER=1``). ``GETAWAY_SCREENSHOTS=1`` also writes the screenshots of
docs/web.md into docs/img/.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

import test_web_e2e as e2e
from test_web_e2e import (
    DESKTOP,
    MISSING,
    PHONE,
    REQUIRE,
    PlaywrightError,
    act,
    create_room,
    running_server,
    state,
    wait_status,
)

# the browser tests' fixtures: the server, the browser, a page in a fresh context
server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

PHONE_OPTIONS = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
DOCS_IMG = Path(__file__).resolve().parent.parent / "docs" / "img"

# Records, in the page, every animation it runs (Web Animations and CSS ones, not CSS
# transitions): what it animates ("trick": a card sliding onto the table, "flying": a copy
# flying away, "back": a card back moving, "status"/"me": the turn cue) and the most at once.
_RECORD_ANIMATIONS = """() => {
  const seen = { max: 0, kinds: {}, stale: null };
  window.__motion = seen;
  const kind = (t) => !t ? "?" : t.id === "status" ? "status" : t.dataset && t.dataset.testid === "me" ? "me"
    : t.classList.contains("flying") ? (t.classList.contains("back") ? "back" : "flying")
    : t.closest && t.closest(".trick") ? "trick" : t.className || t.tagName;
  const look = () => {
    const list = document.getAnimations().filter((a) => !(a instanceof CSSTransition));
    seen.max = Math.max(seen.max, list.length);
    for (const a of list) {
      const target = a.effect && a.effect.target;
      const k = kind(target);
      seen.kinds[k] = (seen.kinds[k] || 0) + 1;
      // the state is not held back: a card sliding onto the table has already left the hand
      // (a settled trick that we picked up is in our hand too, rightly)
      const card = k === "trick" && !target.closest(".trick.settled") && target.parentElement.dataset.card;
      if (card && document.querySelector(`[data-testid="hand-card"][data-card="${card}"]`)) seen.stale = card;
    }
    requestAnimationFrame(look);
  };
  look();
}"""


def motion(page) -> dict:
    return page.evaluate("() => window.__motion")


def play_moves(page, rng: random.Random, count: int, *, tap: bool = False, seconds: float = 60) -> int:
    """Make up to ``count`` moves (random legal ones, as a person would click); returns how many."""
    done = 0
    deadline = time.time() + seconds
    while done < count and time.time() < deadline and state(page)["status"] == "playing":
        if act(page, rng, tap=tap):
            done += 1
        else:
            page.wait_for_timeout(30)
    return done


# --------------------------------------------------------------------------- motion and cues


@pytest.mark.timeout(120)
def test_cards_move_and_your_turn_is_cued(new_page):
    page = new_page()
    # takes off: with takes, bots taking hands can end a 4-player deal after a move or two of ours
    create_room(page, "Fay", players=4, alone=True, takes="off")
    page.evaluate(_RECORD_ANIMATIONS)
    moves = play_moves(page, random.Random(15), 8)
    seen = motion(page)
    assert moves >= 3, seen
    assert seen["stale"] is None, seen
    assert seen["kinds"].get("trick", 0) > 0, seen  # cards slid onto the table
    assert seen["kinds"].get("flying", 0) > 0, seen  # finished tricks flew to the pile or the picker
    assert seen["kinds"].get("status", 0) > 0 and seen["kinds"].get("me", 0) > 0, seen  # the turn pulse
    # the flying copies are gone once they land, and they never take a click
    page.wait_for_function("() => !document.querySelector('.fly-layer .flying')")
    assert page.evaluate("() => getComputedStyle(document.querySelector('.fly-layer')).pointerEvents") == "none"


@pytest.mark.timeout(150)
def test_a_taken_hand_moves_to_the_taker(new_page):
    """Between tricks (interject protocol, the default) the "take" control appears; clicking it
    moves the left hand to ours, as card backs flying. Bots' takes can end a deal before we lead:
    up to five deals are tried."""
    page = new_page()
    rng = random.Random(16)
    take = page.get_by_test_id("take-hand")
    deadline = time.time() + 120
    for attempt in range(5):
        create_room(page, f"Fay{attempt}", players=4, alone=True)
        page.evaluate(_RECORD_ANIMATIONS)
        while time.time() < deadline and state(page)["status"] == "playing":
            if take.count() and take.is_enabled():
                before = len(state(page)["hand"])
                version = state(page)["version"]
                try:
                    take.click(timeout=2000)
                except PlaywrightError:
                    continue  # the chance passed (a bot led) before the click
                page.wait_for_function("v => Number(document.body.dataset.version) > v", arg=version)
                if len(state(page)["hand"]) <= before:
                    continue  # a bot's lead came first: the take was refused, nothing changed
                page.wait_for_function("() => (window.__motion.kinds.back || 0) > 0")
                assert motion(page)["stale"] is None
                page.wait_for_function("() => !document.querySelector('.fly-layer .flying')")
                return
            if not act(page, rng):
                page.wait_for_timeout(30)
    pytest.fail("no take was offered to us in five deals")


@pytest.mark.timeout(120)
def test_reduced_motion_moves_nothing(new_page):
    page = new_page(reduced_motion="reduce")
    create_room(page, "Gus", players=4, alone=True, takes="off")
    page.evaluate(_RECORD_ANIMATIONS)
    assert play_moves(page, random.Random(2), 5) >= 3
    page.wait_for_timeout(600)  # a trick's sweep would have started by now
    seen = motion(page)
    assert seen["max"] == 0, seen
    assert page.evaluate("() => document.getAnimations().length") == 0  # no CSS transition either
    # the settled trick stays on the table (dimmed) instead of flying away
    assert page.get_by_test_id("trick-card").count() > 0


@pytest.mark.timeout(60)
def test_the_turn_sound_can_be_muted_and_the_choice_is_kept(new_page):
    page = new_page()
    create_room(page, "Hal", players=3, alone=True, takes="off")
    sound = page.get_by_test_id("sound")
    assert sound.get_attribute("aria-pressed") == "true" and sound.get_attribute("aria-label")
    sound.click()
    assert sound.get_attribute("aria-pressed") == "false"
    page.reload()
    wait_status(page, "playing")
    assert page.get_by_test_id("sound").get_attribute("aria-pressed") == "false"
    page.get_by_test_id("sound").click()
    assert page.get_by_test_id("sound").get_attribute("aria-pressed") == "true"


# --------------------------------------------------------------------------- card faces


@pytest.mark.timeout(60)
def test_cards_have_faces_and_backs(new_page):
    page = new_page(PHONE, **PHONE_OPTIONS)
    create_room(page, "Ida", players=4, alone=True, takes="off")
    page.get_by_test_id("hand-card").first.wait_for()
    # the deck file (about 1 MB) has loaded: every card's drawing has a size
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="hand-card"] svg.art use')]
                 .every((u) => u.getBoundingClientRect().width > 0)"""
    )
    faces = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="hand-card"]')].map((e) => {
             const use = e.querySelector('svg.art use');
             const index = e.querySelector('.index');
             const r = index.getBoundingClientRect();
             return {card: e.dataset.card, href: use && use.getAttribute('href'),
                     drawn: use && use.getBoundingClientRect().width > 0,
                     rank: index.querySelector('.rank').textContent, suit: index.querySelector('.suit').textContent,
                     size: parseFloat(getComputedStyle(index.querySelector('.rank')).fontSize), h: r.height};
           })"""
    )
    assert len(faces) == 13
    ids = {"♠": "spade", "♥": "heart", "♦": "diamond", "♣": "club"}
    ranks = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
    for f in faces:
        rank, suit = f["card"][:-1], f["card"][-1]
        assert f["href"] == f"/static/cards/svg-cards.svg#{ids[suit]}_{ranks.get(rank, rank)}", f
        assert f["drawn"], f
        assert (f["rank"], f["suit"]) == (rank, suit), f
        assert f["size"] >= 16, f  # the index is readable at phone size (CSS px)
    # the deck file is served, with its licence beside it
    for path in ("/static/cards/svg-cards.svg", "/static/cards/LICENSE", "/static/cards/README.md"):
        assert page.request.get(path).ok, path
    # opponents' hands and the waste pile are shown as card backs
    backs = page.locator('.seat-box .face.back use[href$="#back"]').count()
    assert backs == 3
    deadline = time.time() + 60  # once a trick has gone to the waste pile
    while not page.locator('[data-testid="waste-back"] use[href$="#back"]').count() and time.time() < deadline:
        play_moves(page, random.Random(9), 1, tap=True)
    assert page.locator('[data-testid="waste-back"] use[href$="#back"]').count() == 1


# --------------------------------------------------------------------------- phone layout

_HAND_GEOMETRY = """() => {
  const rect = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  };
  return {
    cards: [...document.querySelectorAll('[data-testid="hand-card"]')].map((e) => {
      const r = e.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + 6, r.top + 10);
      return {card: e.dataset.card, legal: e.classList.contains('my-turn') && e.classList.contains('legal'),
              ...rect(e), hit: !!hit && e.contains(hit)};
    }),
    me: rect(document.querySelector('[data-testid="me"]')),
    actions: rect(document.querySelector('[data-testid="actions"]')),
    code: (() => { const e = document.querySelector('[data-testid="room-code"]');
                   const shown = e.querySelector('[aria-hidden="true"]');
                   return {...rect(e), text: shown.innerText, clipped: e.scrollWidth > e.clientWidth}; })(),
    last: (() => { const e = document.querySelector('[data-testid="last-action"]');
                   return {...rect(e), text: e.querySelector('.line').innerText, shown: e.offsetParent !== null}; })(),
    scrollX: document.documentElement.scrollWidth,
    brand: (() => { const e = document.querySelector('.top .brand');
                    return {...rect(e), clipped: e.scrollWidth > e.clientWidth}; })(),
    controls: [...document.querySelectorAll('.top button, .top select')]
      .map((e) => ({id: e.dataset.testid, ...rect(e)})),
  };
}"""


def settled(page, js: str, arg=None) -> dict:
    """``js`` evaluated until two looks agree (cards slide to their places)."""
    previous = None
    for _ in range(60):
        now = page.evaluate(js, arg) if arg is not None else page.evaluate(js)
        if now == previous:
            return now
        previous = now
        page.wait_for_timeout(120)
    return now


def check_phone_table(page, code: str) -> dict:
    g = settled(page, _HAND_GEOMETRY)
    w, h = PHONE["width"], PHONE["height"]
    assert g["scrollX"] <= w  # nothing scrolls sideways
    for c in g["cards"]:
        # every card wholly on the screen (the page scrolled to its top), its corner visible
        assert c["left"] >= 0 and c["right"] <= w and c["top"] >= 0 and c["bottom"] <= h, c
        assert c["hit"], f"the corner of {c['card']} is covered: {c}"
        # a lifted (playable) card never covers the name line nor the buttons
        assert c["top"] >= g["me"]["bottom"] and c["top"] >= g["actions"]["bottom"] - 0.5, (c, g["me"], g["actions"])
    assert g["code"]["text"] == code and not g["code"]["clipped"], g["code"]
    assert g["code"]["left"] >= 0 and g["code"]["right"] <= w
    # the header: the title whole, every control on the screen and on one line (no "Close / the / room")
    assert not g["brand"]["clipped"], g["brand"]
    for c in g["controls"]:
        assert c["left"] >= 0 and c["right"] <= w and c["bottom"] - c["top"] <= 48, c
    assert g["last"]["shown"] and g["last"]["top"] >= 0 and g["last"]["bottom"] <= h, g["last"]
    return g


@pytest.mark.timeout(180)
def test_phone_with_26_cards_fits_and_shows_the_last_action(new_page):
    page = new_page(PHONE, **PHONE_OPTIONS)
    code = create_room(page, "Jo", players=2, alone=True, profile="classic")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"hand-card\"]').length >= 26")
    page.wait_for_function('() => document.querySelector(\'[data-testid="hand-card"][data-legal="true"]\')')
    g = check_phone_table(page, code)
    assert len(g["cards"]) >= 26
    assert any(c["legal"] for c in g["cards"])
    shot(page, "table-phone-26.png")
    rng = random.Random(7)
    for _ in range(4):
        if not play_moves(page, rng, 1, tap=True):
            break
        page.wait_for_function(
            '() => document.querySelector(\'[data-testid="hand-card"][data-legal="true"]\')'
            ' || document.body.dataset.status !== "playing"'
        )
        if state(page)["status"] != "playing":
            break
        g = check_phone_table(page, code)
    # the last action is the narration's last line; one tap opens the narration over the table
    log_last = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=\"log\"] li:not(.heading)')].at(-1).innerText"
    )
    assert g["last"]["text"].replace("\n", "") == log_last.replace("\n", "")
    page.get_by_test_id("last-action").tap()
    log_box = page.get_by_test_id("log").bounding_box()
    assert log_box and log_box["y"] >= 0 and log_box["y"] + 40 <= PHONE["height"]
    assert page.get_by_test_id("last-action").get_attribute("aria-expanded") == "true"
    page.get_by_test_id("close-narration").tap()
    assert page.get_by_test_id("last-action").get_attribute("aria-expanded") == "false"


# Watches the trick at every frame once its cards have stopped sliding: the most cards seen at
# once, and any two of them that overlap.
_WATCH_TRICK = """() => {
  const seen = { most: 0, settled: 0, overlaps: [] };
  window.__trick = seen;
  const look = () => {
    const faces = [...document.querySelectorAll('[data-testid="trick-card"] .face')];
    seen.most = Math.max(seen.most, faces.length);
    if (faces.every((f) => !f.getAnimations().length)) {
      const boxes = faces.map((e) => [e.getBoundingClientRect(), e.parentElement.dataset.card || "void"]);
      seen.settled = Math.max(seen.settled, boxes.length);
      boxes.forEach(([a, ca], i) => boxes.slice(i + 1).forEach(([b, cb]) => {
        const apart = a.right <= b.left + 0.5 || b.right <= a.left + 0.5
          || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
        if (!apart && seen.overlaps.length < 5) seen.overlaps.push([ca, cb, boxes.length]);
      }));
    }
    requestAnimationFrame(look);
  };
  look();
}"""


@pytest.mark.timeout(240)
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_eight_players_trick_cards_never_overlap(new_page, size):
    page = new_page(PHONE, **PHONE_OPTIONS) if size == "phone" else new_page(DESKTOP)
    # no pickup (V-NOPICKUP): every trick goes all the way round, 8 cards or marks on the table
    code = create_room(page, "Kit", players=8, alone=True, takes="off", variants=("nopickup",), deals=4)
    page.evaluate(_WATCH_TRICK)
    rng = random.Random(8)
    deadline = time.time() + 150
    most = lambda: page.evaluate("() => window.__trick.settled")  # noqa: E731
    while time.time() < deadline and state(page)["status"] in ("playing", "between_deals") and most() < 8:
        if state(page)["status"] == "between_deals":
            page.get_by_test_id("next-deal").click()
            wait_status(page, "playing")
        # the cards on the table have stopped sliding (so that they are measured) before we move
        page.wait_for_function("""() => [...document.querySelectorAll('[data-testid="trick-card"] .face')]
                                    .every((f) => !f.getAnimations().length)""")
        if not act(page, rng, tap=size == "phone"):
            page.wait_for_timeout(30)
        if size == "phone" and state(page)["status"] == "playing":
            check_phone_table(page, code)
    seen = page.evaluate("() => window.__trick")
    assert seen["settled"] >= 7 and not seen["overlaps"], seen  # a trick of 7 or 8 cards, none overlapping
    if size == "phone":
        shot(page, "table-phone-8.png")
    else:
        shot(page, "table-desktop-8.png")


# --------------------------------------------------------------------------- accessibility


def serious_violations(page) -> list:
    from axe_playwright_python.sync_playwright import Axe

    # the page at rest: a card caught mid-flight (fading) is not what contrast is about
    page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")
    result = Axe().run(page)
    return [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in result.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.timeout(240)
def test_axe_finds_no_serious_violation(new_page):
    page = new_page()
    page.goto("/")
    wait_status(page, "lobby")
    assert serious_violations(page) == []
    page.get_by_test_id("rules-button").click()
    page.locator('[data-testid="rules-panel"] h3').first.wait_for()
    assert serious_violations(page) == []
    page.keyboard.press("Escape")  # closes the rules
    create_room(page, "Lee", players=4, alone=True, takes="off")
    page.wait_for_function('() => document.querySelector(\'[data-testid="hand-card"][data-legal="true"]\')')
    play_moves(page, random.Random(4), 3)
    page.wait_for_timeout(800)
    assert serious_violations(page) == []  # the table mid-deal
    rng = random.Random(5)
    deadline = time.time() + 150
    while time.time() < deadline and state(page)["status"] != "finished":
        if not act(page, rng):
            page.wait_for_timeout(30)
    page.get_by_test_id("match-over").wait_for()
    assert serious_violations(page) == []  # the result
    # "The match is over." is said once on the page
    assert page.locator("body").inner_text().count("The match is over.") == 1
    phone = new_page(PHONE, **PHONE_OPTIONS)
    create_room(phone, "Max", players=6, alone=True, takes="off")
    play_moves(phone, random.Random(6), 2, tap=True)
    phone.wait_for_timeout(800)
    assert serious_violations(phone) == []


# --------------------------------------------------------------------------- keyboard only


@pytest.mark.timeout(240)
def test_a_whole_deal_with_the_keyboard_alone(new_page):
    page = new_page()
    # takes off: a bot taking Ned's hand (interject) could end his deal after a move or two
    create_room(page, "Ned", players=3, alone=True, takes="off")
    focused = lambda: page.evaluate("() => document.activeElement?.dataset.testid || ''")  # noqa: E731
    deadline = time.time() + 180
    moves = 0
    while time.time() < deadline and state(page)["status"] == "playing":
        s = state(page)
        if not s["legal"] and not s["buttons"]:
            page.wait_for_timeout(30)
            continue
        if s["legal"]:
            want = "hand-card"
        else:
            want = "pass" if "pass" in s["buttons"] else s["buttons"][0]
        for _ in range(80):  # Tab (and Shift+Tab) only, as a keyboard user moves
            if focused() == want:
                break
            page.keyboard.press("Tab")
        assert focused() == want, (want, focused(), s)
        if want == "hand-card" and page.evaluate("() => document.activeElement.dataset.legal") != "true":
            page.keyboard.press("Home")
            if page.evaluate("() => document.activeElement.dataset.legal") != "true":
                page.keyboard.press("PageDown")
        page.keyboard.press("Enter")
        page.wait_for_function(
            """v => Number(document.body.dataset.version) > v
                    || !document.querySelector('[data-testid="error"]').hidden""",
            arg=s["version"],
        )
        moves += 1
    assert state(page)["status"] == "finished", state(page)
    assert moves >= 5
    page.get_by_test_id("loser").wait_for()


# --------------------------------------------------------------------------- the page's language


#: A page script that delays the page's GET /api/rules/schema by a second (a slow server).
SLOW_SCHEMA = """(() => {
  const fetch0 = window.fetch;
  window.fetch = (url, options) => String(url).includes("/api/rules/schema")
    ? new Promise((ok) => setTimeout(ok, 1000)).then(() => fetch0(url, options)) : fetch0(url, options);
})()"""


@pytest.mark.timeout(120)
def test_page_language_picked_then_server_then_browser(new_page, browser, tmp_path):
    # no pick and no serve --lang: the browser's language
    page = new_page(locale="it-IT")
    page.goto("/")
    wait_status(page, "lobby")
    assert page.evaluate("() => document.documentElement.lang") == "it"
    # the pick wins over the browser's, and is kept
    page.get_by_test_id("lang").select_option("es")
    page.wait_for_function("() => document.documentElement.lang === 'es'")
    page.reload()
    wait_status(page, "lobby")
    assert page.evaluate("() => document.documentElement.lang") == "es"
    # serve --lang fr: French for a browser in Italian, unless the user picks another
    with running_server(tmp_path, "--lang", "fr") as base:
        ctx = browser.new_context(base_url=base, locale="it-IT")
        # the rules' schema answers late, as under CPU load (the lobby's form is drawn once it has come)
        ctx.add_init_script(SLOW_SCHEMA)
        try:
            other = ctx.new_page()
            other.goto("/")
            wait_status(other, "lobby")
            assert other.evaluate("() => document.documentElement.lang") == "fr"
            # The status is "lobby" as soon as the lobby is routed; its form is drawn once the rules'
            # schema has come (GET /api/rules/schema): under load, later. Wait for the form.
            other.get_by_test_id("create-room").wait_for()
            assert "Nouvelle partie" in other.locator("main").inner_text()
            other.get_by_test_id("lang").select_option("pt")
            other.wait_for_function("() => document.documentElement.lang === 'pt'")
            other.reload()
            wait_status(other, "lobby")
            assert other.evaluate("() => document.documentElement.lang") == "pt"
        finally:
            ctx.close()


# --------------------------------------------------------------------------- screenshots


def shot(page, name: str) -> None:
    """A screenshot for docs/web.md, written only with GETAWAY_SCREENSHOTS=1 (the docs' images
    change only when asked); the flying cards have landed first."""
    if os.environ.get("GETAWAY_SCREENSHOTS") != "1":
        return
    page.wait_for_timeout(1200)  # a settled trick's sweep starts about half a second after it settles
    page.wait_for_function("() => !document.querySelector('.fly-layer .flying')")
    DOCS_IMG.mkdir(parents=True, exist_ok=True)
    path = DOCS_IMG / name
    page.screenshot(path=str(path), scale="css")  # CSS pixels: small files
    from PIL import Image  # (matplotlib's dependency) 256 colours: a third of the size

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


@pytest.mark.timeout(240)
@pytest.mark.skipif(os.environ.get("GETAWAY_SCREENSHOTS") != "1", reason="GETAWAY_SCREENSHOTS=1 writes docs/img/")
def test_screenshots_for_the_docs(new_page):
    pages = (("desktop", new_page({"width": 1280, "height": 800})), ("phone", new_page(PHONE, **PHONE_OPTIONS)))
    for size, page in pages:
        create_room(page, "Asha", players=4, alone=True, takes="off")
        rng = random.Random(11)
        play_moves(page, rng, 5, tap=size == "phone")
        page.wait_for_function('() => document.querySelector(\'[data-testid="hand-card"][data-legal="true"]\')')
        shot(page, f"table-{size}.png")
        deadline = time.time() + 150
        while time.time() < deadline and state(page)["status"] != "finished":
            if not act(page, rng, tap=size == "phone"):
                page.wait_for_timeout(30)
        page.get_by_test_id("match-over").wait_for()
        shot(page, f"result-{size}.png")


# --------------------------------------------------------------------------- the hint


@pytest.mark.timeout(120)
def test_hint_button_shows_the_experts_move(new_page):
    page = new_page()
    create_room(page, "Ola", players=4, alone=True, takes="off")
    page.wait_for_function('() => document.querySelector(\'[data-testid="hand-card"][data-legal="true"]\')')
    page.get_by_test_id("hint").click()
    text = page.get_by_test_id("hint-text")
    text.wait_for()
    hinted = page.locator('[data-testid="hand-card"].hinted')
    assert hinted.count() == 1 and hinted.get_attribute("data-legal") == "true"
    card = hinted.get_attribute("data-card")
    assert text.inner_text().count(card) == 1, text.inner_text()  # the hinted card, named once
    # the hint is for that decision only: it goes once we have played
    hinted.click(position={"x": 8, "y": 12})
    page.wait_for_function('c => !document.querySelector(`[data-testid="hand-card"][data-card="${c}"]`)', arg=card)
    assert page.locator('[data-testid="hand-card"].hinted').count() == 0
    # a host who switched hints off: no hint button
    other = new_page()
    other.goto("/")
    wait_status(other, "lobby")
    other.get_by_test_id("hints").uncheck()
    other.get_by_test_id("name-input").fill("Pia")
    other.get_by_test_id("play-alone").click()
    wait_status(other, "playing")
    other.wait_for_function(
        """() => document.querySelector('[data-testid="hand-card"][data-legal="true"]')
                 || document.querySelector('[data-testid="pass"]')"""
    )  # our decision
    assert other.get_by_test_id("hint").count() == 0
