"""End-to-end tests of the web app in a real browser (issue 6): Playwright driving Debian's
Chromium against a real ``getaway serve`` process on a loopback port.

- two friends (two browser contexts) and two bots play a whole deal by clicking; one friend
  reloads the page mid-deal and continues with the same seat;
- a phone in portrait (390×844) sees its whole hand and plays by tapping;
- a card is played with the keyboard alone; cards have text names and the narration goes to a
  live region.

Screenshots of the table are saved under ``test-artifacts/`` (git-ignored).

Skipped when ``/usr/bin/chromium`` or the ``playwright`` package is missing, unless
``GETAWAY_REQUIRE_BROWSER=1`` (CI, ``.ci/run``): then a missing browser fails. Playwright's own
browser download cannot be reached from these machines; ``python3 dev.py test`` installs
Debian's ``chromium`` with apt when it can.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import httpx
import pytest

from getaway.core.record import deal_from_record
from web_helpers import running_server

CHROMIUM = os.environ.get("GETAWAY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REQUIRE = os.environ.get("GETAWAY_REQUIRE_BROWSER") == "1"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None
    Page = object
    PlaywrightError = Exception
    MISSING = "the Python package playwright is not installed (pip install -e '.[test]')"
else:
    MISSING = None if os.path.exists(CHROMIUM) else f"{CHROMIUM} is missing (apt-get install -y chromium)"

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(
        reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 makes this fail)"
    )

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}

# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real server (uvicorn, loopback, temp SQLite file, bots without thinking time); its base URL."""
    with running_server(tmp_path_factory.mktemp("e2e")) as base:
        yield base


def server_fixture(name: str, *options: str):
    """A module-scoped fixture for a test file: a real server (:func:`running_server`, folder
    ``name``) started with ``options`` (e.g. ``"--bot-delay", "0.5"``); its base URL. Assign it to
    the fixture's name: ``slow_server = server_fixture("window", "--bot-delay", "0.6")``."""

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory):
        with running_server(tmp_path_factory.mktemp(name), *options) as base:
            yield base

    return fixture


@pytest.fixture(scope="module")
def browser():
    if MISSING:
        pytest.fail(f"GETAWAY_REQUIRE_BROWSER=1 but {MISSING}")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def pages(browser, base: str, *init_scripts: str):
    """A generator for a ``new_page`` fixture: yields ``make(viewport=DESKTOP, *more_scripts,
    **options)``, which opens a page in a fresh browser context (own localStorage: one person)
    on ``base``, with ``init_scripts`` and ``more_scripts`` run before the page's own; after the
    test, closes the contexts and fails it on any uncaught error in a page or a breach of its
    Content-Security-Policy."""
    contexts = []
    errors: list[str] = []

    def make(viewport=DESKTOP, *more_scripts: str, **options) -> Page:
        ctx = browser.new_context(viewport=viewport, base_url=base, **options)
        ctx.set_default_timeout(20_000)
        contexts.append(ctx)
        for script in (*more_scripts, *init_scripts):
            ctx.add_init_script(script)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(f"{exc}"))
        # the page must pass its Content-Security-Policy (docs/web.md): a blocked script, style or
        # connection is reported on the console
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"errors in the page: {errors}"


@pytest.fixture
def new_page(browser, server):
    """:func:`pages` on this file's server."""
    yield from pages(browser, server)


# --------------------------------------------------------------------------- page helpers

_STATE_JS = """() => {
  const q = (sel) => [...document.querySelectorAll(sel)];
  const enabled = (id) => { const e = document.querySelector(`[data-testid="${id}"]`); return e && !e.disabled; };
  return {
    status: document.body.dataset.status,
    version: Number(document.body.dataset.version || -1),
    buttons: ["take", "pass", "pickup"].filter(enabled),
    hand: q('[data-testid="hand-card"]').map((e) => e.dataset.card),
    legal: q('[data-testid="hand-card"][data-legal="true"][aria-disabled="false"]').map((e) => e.dataset.card),
    error: (document.querySelector('[data-testid="error"]:not([hidden])') || {}).textContent || null,
  };
}"""


def state(page: Page) -> dict:
    """What the page shows: body status/version, enabled action buttons, hand, playable cards."""
    return page.evaluate(_STATE_JS)


def wait_status(page: Page, *statuses: str) -> None:
    page.wait_for_function("s => s.includes(document.body.dataset.status)", arg=list(statuses))


def card(page: Page, name: str):
    return page.locator(f'[data-testid="hand-card"][data-card="{name}"]')


def click_card(page: Page, name: str, *, tap: bool = False) -> None:
    """Click (or tap) a hand card on its visible strip, its top-left corner, as a person
    would: cards overlap, so the middle of a card may be under its neighbour."""
    loc = card(page, name)
    # A hovered card is raised above its neighbours (style.css .card:hover): move the pointer
    # off the hand first, as the previous click left it over another card.
    page.mouse.move(1, 1)
    if tap:
        loc.tap(position={"x": 8, "y": 12})
    else:
        loc.click(position={"x": 8, "y": 12})


def act(page: Page, rng: random.Random, *, tap: bool = False) -> str | None:
    """If this page may act: make a random legal move by clicking, wait until the server has
    applied something after it; returns the move (``None``: nothing to do)."""
    s = state(page)
    if s["status"] != "playing":
        return None
    if s["legal"]:
        move = rng.choice(s["legal"])
        click_card(page, move, tap=tap)
    elif s["buttons"]:
        weights = {"take": 1, "pass": 4, "pickup": 1}
        move = rng.choices(s["buttons"], [weights[b] for b in s["buttons"]])[0]
        loc = page.get_by_test_id(move)
        loc.tap() if tap else loc.click()
    else:
        return None
    # the move is applied (a newer version) or refused (an error notice: nothing changed)
    page.wait_for_function(
        """v => Number(document.body.dataset.version) > v
                || !document.querySelector('[data-testid="error"]').hidden""",
        arg=s["version"],
    )
    return move


def shot(page: Page, name: str, **options) -> Path:
    """Save a screenshot under test-artifacts/ and check it is a real, non-trivial PNG."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), **options)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, (path, len(data))
    return path


def create_room(
    page: Page,
    name: str,
    *,
    players: int,
    alone: bool,
    takes: str = "",
    profile: str = "punjab",
    variants: tuple = (),
    deals: int = 1,
) -> str:
    """Fill the lobby form (``variants``: boxes to tick, e.g. ``("nopickup",)``) and create a room;
    returns the room code."""
    page.goto("/")
    wait_status(page, "lobby")
    page.get_by_test_id("name-input").fill(name)
    page.get_by_test_id("profile").select_option(profile)
    page.get_by_test_id("players").select_option(str(players))
    page.get_by_test_id("deals").fill(str(deals))
    page.get_by_test_id("bot-level").select_option("easy")
    if takes or variants:
        page.locator("details.variants > summary").click()
    if takes:
        page.get_by_test_id("opt-takes").select_option(takes)
    for variant in variants:
        page.get_by_test_id(f"opt-{variant}").check()
    page.get_by_test_id("play-alone" if alone else "create-room").click()
    page.wait_for_url("**/r/*")
    wait_status(page, "playing" if alone else "lobby")
    return page.url.rsplit("/", 1)[1]


def replay_record(server: str, code: str) -> None:
    """The finished deal's record downloads and replays to the same outcome."""
    r = httpx.get(f"{server}/api/rooms/{code}/deals/0/record", timeout=10)
    assert r.status_code == 200, r.text
    deal = deal_from_record(r.json())
    assert deal.is_over


# --------------------------------------------------------------------------- tests


@pytest.mark.timeout(240)
def test_two_friends_and_two_bots_play_a_whole_deal(new_page, server):
    rng = random.Random(6)
    asha = new_page()
    # takes off: a bot taking Ben's hand before his first move would leave nothing to reload
    code = create_room(asha, "Asha", players=4, alone=False, takes="off")
    link = asha.get_by_test_id("share-link").input_value()
    assert link.endswith(f"/r/{code}")

    ben = new_page()
    answer = ben.goto(link)
    assert answer is not None and "script-src 'self'" in answer.headers["content-security-policy"]
    wait_status(ben, "joining")
    ben.get_by_test_id("name-input").fill("Ben")
    ben.get_by_test_id("join").click()
    wait_status(ben, "lobby")
    asha.wait_for_function("() => document.querySelector('[data-testid=\"seat-item-1\"]')?.textContent.includes('Ben')")
    asha.get_by_test_id("start").click()
    wait_status(asha, "playing")
    wait_status(ben, "playing")
    # the other two seats are bots
    room = httpx.get(f"{server}/api/rooms/{code}").json()
    assert [s["kind"] for s in room["seats"]] == ["human", "human", "bot", "bot"]
    assert "Ben" in ben.get_by_test_id("me").inner_text()
    # bots are marked by their seat kind wherever a name is shown (a human name cannot hold the mark)
    # the bots' mark, drawn as an icon (static/shell.js): no emoji font needed
    assert asha.get_by_test_id("seat-2").get_by_role("img", name="bot").count() == 1
    assert asha.get_by_test_id("seat-1").get_by_test_id("bot-mark").count() == 0

    pages = {"Asha": asha, "Ben": ben}
    moves = {"Asha": 0, "Ben": 0}
    reloaded = False
    shot_taken = False
    deadline = time.time() + 200
    while time.time() < deadline:
        if all(state(p)["status"] == "finished" for p in pages.values()):
            break
        acted = False
        for who, page in pages.items():
            s = state(page)
            if (
                who == "Ben"
                and not reloaded
                and moves["Ben"] >= 1
                and (s["legal"] or s["buttons"])
                and s["status"] == "playing"
            ):
                # Ben reloads when it is his turn (nobody else can move meanwhile): same seat, same hand.
                ben.reload()
                wait_status(ben, "playing")
                ben.wait_for_function(
                    "n => document.querySelectorAll('[data-testid=\"hand-card\"]').length === n", arg=len(s["hand"])
                )
                again = state(ben)
                assert again["version"] == s["version"]
                assert sorted(again["hand"]) == sorted(s["hand"])
                assert sorted(again["legal"]) == sorted(s["legal"]) and again["buttons"] == s["buttons"]
                assert "Ben" in ben.get_by_test_id("me").inner_text()
                assert not ben.get_by_test_id("join-form").count()
                # the cards already on the table are shown in place, not flown in again
                assert ben.evaluate("() => document.getAnimations().length") == 0
                reloaded = True
            if act(page, rng):
                moves[who] += 1
                acted = True
            if not shot_taken and moves["Asha"] >= 4 and state(asha)["status"] == "playing":
                shot(asha, "table-desktop.png")
                shot_taken = True
        if not acted:
            asha.wait_for_timeout(50)
    else:
        raise AssertionError(f"the deal did not finish: {state(asha)}, {state(ben)}")

    assert reloaded and moves["Asha"] > 0 and moves["Ben"] > 0, moves
    for page in pages.values():
        page.get_by_test_id("loser").wait_for()
        page.get_by_test_id("match-over").wait_for()
        assert page.get_by_test_id("hand-card").count() <= 52
        assert page.get_by_test_id("log").locator("li").count() > 10
    record = asha.get_by_test_id("record-0")
    record.wait_for()
    assert record.get_attribute("href") == f"/api/rooms/{code}/deals/0/record"
    replay_record(server, code)
    shot(asha, "table-desktop-end.png", full_page=True)


@pytest.mark.timeout(180)
def test_phone_portrait_shows_the_whole_hand(new_page, server):
    phone = new_page(PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    # 3 players: the biggest hands (17 or 18 cards); takes off, so that no bot can take our hand
    # away (which would empty it: nothing left to measure)
    create_room(phone, "Chandra", players=3, alone=True, takes="off")
    phone.get_by_test_id("hand-card").first.wait_for()
    rng = random.Random(3)

    def check_hand_on_screen() -> int:
        # cards slide to their places (CSS transitions): measure once two looks agree
        boxes, previous = None, None  # two looks that agree, the first one included
        for _ in range(50):
            boxes = phone.evaluate(
                """() => [...document.querySelectorAll('[data-testid="hand-card"]')].map((e) => {
                     const r = e.getBoundingClientRect();
                     const hit = document.elementFromPoint(r.left + 6, r.top + 10);
                     return {card: e.dataset.card, left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                             hit: !!hit && e.contains(hit),
                             over: hit && (hit.closest("[data-card]") || hit).outerHTML.slice(0, 90)};
                   })"""
            )
            if boxes == previous:
                break
            previous = boxes
            phone.wait_for_timeout(150)
        assert boxes
        width, height = PHONE["width"], PHONE["height"]
        # the page itself must not scroll sideways
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= width
        for b in boxes:
            inside = b["left"] >= 0 and b["top"] >= 0 and b["right"] <= width and b["bottom"] <= height
            assert inside, f"card {b['card']} is not wholly on screen: {b}"
            assert b["hit"], f"card {b['card']}: its corner (rank and suit) is covered: {b}"
        return len(boxes)

    assert check_hand_on_screen() >= 17
    shot(phone, "table-phone.png")
    # play a few moves by tapping; the hand stays on screen as it changes
    played = 0
    deadline = time.time() + 120
    while played < 6 and time.time() < deadline and state(phone)["status"] == "playing":
        if act(phone, rng, tap=True):
            played += 1
            check_hand_on_screen()
        else:
            phone.wait_for_timeout(50)
    assert played >= 3
    shot(phone, "table-phone-later.png")


@pytest.mark.timeout(150)
def test_keyboard_only_play(new_page):
    page = new_page()
    create_room(page, "Dev", players=4, alone=True, takes="off")
    # wait for our turn to play a card (bots play at once; no take/pass with takes off)
    page.wait_for_function('() => document.querySelector(\'[data-testid="hand-card"][data-legal="true"]\')')
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    # Tab from the top of the page into the hand: one tab stop for the whole hand
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement?.dataset.testid") == "hand-card":
            break
    else:
        raise AssertionError("Tab never reached the hand")
    focused = lambda: page.evaluate("() => document.activeElement?.dataset.card")  # noqa: E731
    tabbable = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=\"hand-card\"]')].filter(e => e.tabIndex === 0).length"
    )
    assert tabbable == 1
    hand = state(page)["hand"]
    page.keyboard.press("Home")
    assert focused() == hand[0]
    page.keyboard.press("ArrowRight")
    assert focused() == hand[1]
    page.keyboard.press("End")
    assert focused() == hand[-1]
    page.keyboard.press("Home")
    if page.evaluate("() => document.activeElement.dataset.legal") != "true":
        page.keyboard.press("PageDown")  # the next playable card
    chosen = focused()
    before = state(page)
    assert chosen in before["legal"], (chosen, before)
    page.keyboard.press("Enter")
    page.wait_for_function("v => Number(document.body.dataset.version) > v", arg=before["version"])
    page.wait_for_function('c => !document.querySelector(`[data-testid="hand-card"][data-card="${c}"]`)', arg=chosen)
    assert chosen not in state(page)["hand"]
    # the focus stays in the hand (one more move is a key press away)
    assert page.evaluate("() => document.activeElement?.dataset.testid") == "hand-card"


@pytest.mark.timeout(150)
def test_cards_have_names_and_the_narration_is_live(new_page, server):
    page = new_page()
    create_room(page, "Eve", players=4, alone=True, takes="off")
    names = httpx.get(f"{server}/api/strings/en").json()["cards"]
    page.wait_for_function('() => document.querySelector(\'[data-testid="hand-card"][data-legal="true"]\')')
    cards = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="hand-card"]')].map((e) => ({
             card: e.dataset.card, label: e.getAttribute('aria-label'), tag: e.tagName,
             disabled: e.getAttribute('aria-disabled'), legal: e.dataset.legal}))"""
    )
    assert len(cards) == 13
    for c in cards:
        assert c["tag"] == "BUTTON"
        assert c["label"] and c["label"].startswith(names[c["card"]]), c  # "queen of spades", not "Q♠"
        assert (c["disabled"] == "false") == (c["legal"] == "true"), c
    hand = page.get_by_test_id("hand")
    assert hand.get_attribute("role") == "group" and hand.get_attribute("aria-label")
    # "your turn" is announced in an assertive live region
    announce = page.locator('[aria-live="assertive"]')
    assert "turn" in announce.inner_text().lower()
    # the narration is a polite live region, and it grows with the moves
    log = page.get_by_test_id("log")
    assert log.get_attribute("role") == "log" and log.get_attribute("aria-live") in ("polite", "assertive")
    lines = log.locator("li").count()
    move = act(page, random.Random(1))
    assert move
    page.wait_for_function("n => document.querySelectorAll('[data-testid=\"log\"] li').length > n", arg=lines)
    text = log.inner_text()
    # the card played appears in the narration (by its symbol: "Eve plays 7♠"; screen readers
    # read the symbol, e.g. "7 black spade suit")
    assert names[move] in text or f" {move}" in text, (move, text[-500:])
    # every button on the page has a name
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('button')].filter(
             (b) => !(b.getAttribute('aria-label') || b.textContent).trim()).map((b) => b.outerHTML)"""
    )
    assert not unnamed


@pytest.mark.timeout(150)
def test_an_unplayable_card_says_the_engines_reason(new_page):
    """Clicking a card that may not be played shows the reason the server sent with the legal
    actions (the engine's own, Deal.why_illegal), and the card's tooltip says the same."""
    page = new_page()
    create_room(page, "Fay", players=4, alone=True, takes="off")
    rng = random.Random(2)
    for _ in range(13):
        page.wait_for_function('() => document.querySelector(\'[data-testid="hand-card"][data-legal="true"]\')')
        s = state(page)
        unplayable = [c for c in s["hand"] if c not in s["legal"]]
        if unplayable:
            break
        act(page, rng)
    else:
        raise AssertionError("never held a card that could not be played")
    tip = card(page, unplayable[0]).get_attribute("title")
    assert tip and ("must" in tip or "is to play" in tip), tip
    page.mouse.move(1, 1)
    card(page, unplayable[0]).click(position={"x": 8, "y": 12}, force=True)  # aria-disabled, yet clickable
    notice = page.get_by_test_id("refusal")  # next to the hand (issue 24), no longer the page's notice
    notice.wait_for(state="visible")
    assert notice.inner_text() == tip
    assert state(page)["version"] == s["version"]  # nothing was sent


@pytest.mark.timeout(120)
def test_the_lobby_controls_are_built_from_the_option_schema(new_page, server):
    schema = httpx.get(f"{server}/api/rules/schema", timeout=10).json()
    page = new_page()
    page.goto("/")
    wait_status(page, "lobby")
    page.get_by_test_id("name-input").fill("Gus")
    page.locator("details.variants > summary").click()
    for key, spec in schema["options"].items():
        if spec["group"] == "setup":
            continue
        control = page.get_by_test_id(f"opt-{key}")
        if spec["group"] == "variant":
            assert control.get_attribute("type") == "checkbox", key
        elif spec["type"] == "choice":
            values = control.locator("option").evaluate_all("os => os.map((o) => o.value)")
            assert values == ["", *[c for c in spec["choices"] if c is not None]], key
        elif not spec["nullable"]:
            assert (control.get_attribute("min"), control.get_attribute("max")) == (str(spec["min"]), str(spec["max"]))
    for pair in schema["exclusive"]:
        a, b = pair["options"]
        page.get_by_test_id(f"opt-{a}").check()
        assert page.get_by_test_id(f"opt-{b}").is_disabled()
        page.get_by_test_id(f"opt-{a}").uncheck()
        assert not page.get_by_test_id(f"opt-{b}").is_disabled()
    for profile in ("classic", "punjab"):
        page.get_by_test_id("profile").select_option(profile)
        seats = page.get_by_test_id("players").locator("option").evaluate_all("os => os.map((o) => Number(o.value))")
        want = schema["profiles"][profile]["players"]
        assert (seats[0], seats[-1]) == (want["min"], want["max"])
    page.get_by_test_id("players").select_option("5")
    assert page.get_by_test_id("opt-loaded_seat").is_disabled()  # requires uneven=loaded
    page.get_by_test_id("opt-uneven").select_option("loaded")
    page.get_by_test_id("opt-loaded_seat").select_option("2")
    page.get_by_test_id("opt-trump").check()
    page.get_by_test_id("create-room").click()
    page.wait_for_url("**/r/*")
    code = page.url.rsplit("/", 1)[1]
    config = httpx.get(f"{server}/api/rooms/{code}", timeout=10).json()["config"]
    assert config["players"] == 5
    # new rooms take by interject (docs/web.md "Takes"): stored with the options the lobby sent
    assert config["options"] == {"trump": "spades", "uneven": "loaded", "loaded_seat": 2, "take_protocol": "interject"}


@pytest.mark.timeout(120)
def test_the_host_closes_the_room_from_the_page(new_page, server):
    page = new_page()
    code = create_room(page, "Fay", players=3, alone=True, takes="off")
    button = page.get_by_test_id("close-room")
    page.once("dialog", lambda dialog: dialog.accept())  # "Close this room for everyone?"
    button.click()
    wait_status(page, "closed")
    assert "closed" in page.get_by_role("alert").inner_text().lower()
    state = httpx.get(f"{server}/api/rooms/{code}").json()
    assert state["status"] == "closed"
    page.reload()
    wait_status(page, "closed")  # never resumes
