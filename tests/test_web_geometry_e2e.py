"""The table's geometry in a real browser (issue 24, item 6), measured with bounding boxes at
1280×800 and 390×844: the trick's cards (their faces, players' names and marks) never cover a
seat's box (name, count, badges, state) for 3 to 8 players, in rooms of bots (and at 800×600, a
low oval); a hand of 40 cards keeps every card's rank corner uncovered by the next card; a
24-character name (the longest allowed) is cut with an ellipsis, never overflowing, with
the whole name in its ``title`` and its text.

Same browser as tests/test_web_e2e.py. The 40-card hand is drawn by the page's own table code
(``static/table.js`` ``TableView``, imported in the page) from a position built here: no such
hand arises reliably in play, and the server has no way to make one (nor should it).
"""

from __future__ import annotations

import random
import time

import httpx
import pytest

import test_web_e2e as e2e
from test_web_e2e import MISSING, REQUIRE, state, wait_status
from test_web_play_e2e import open_api_room

browser = e2e.browser

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

SIZES = {"1280x800": {"width": 1280, "height": 800}, "390x844": {"width": 390, "height": 844}}
LONG = "Wolfgang Amadeus Mozartt"  # 24 characters, the longest name allowed


# The trick on the table now, if it is at rest (two cards or more, none sliding in, not swept):
# each card's face, player's name and mark against every seat box; null otherwise.
_TRICK_VS_SEATS = """() => {
  const trick = document.querySelector('[data-testid="trick"]');
  if (!trick || trick.classList.contains("swept")) return null;
  const cards = [...trick.querySelectorAll('[data-testid="trick-card"]')];
  if (cards.length < 2 || trick.getAnimations({ subtree: true }).length) return null;
  const inter = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const seats = [...document.querySelectorAll(".seat-box")].map((b) => [b.dataset.seat, b.getBoundingClientRect()]);
  const covers = [];
  for (const c of cards) {
    for (const part of c.querySelectorAll(".face, .who, .mark")) {
      const r = part.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      for (const [seat, box] of seats) {
        if (inter(r, box)) covers.push({ card: c.dataset.card, part: part.className, seat,
          at: [r.left, r.top, r.right, r.bottom].map(Math.round),
          box: [box.left, box.top, box.right, box.bottom].map(Math.round) });
      }
    }
  }
  const rows = document.querySelector(".felt").classList.contains("rows");
  return { n: cards.length, seats: seats.length, rows, covers };
}"""


server = e2e.server_fixture("geometry", "--bot-delay", "0.2")


@pytest.fixture
def new_page(browser, server):
    yield from e2e.pages(browser, server)


# The trick test's sizes: the two, and a low oval (a small laptop window: the felt at its
# least height, 280 px), where on main the trick covered the top seat's box.
TRICK_SIZES = {**SIZES, "800x600": {"width": 800, "height": 600}}


@pytest.mark.timeout(240)
@pytest.mark.parametrize("size", list(TRICK_SIZES))
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8])
def test_trick_cards_never_cover_a_seats_box(new_page, server, size, players):
    page = new_page(TRICK_SIZES[size])
    # no pick-ups (V-NOPICKUP), no takes: every trick goes all the way round, a whole trick lingers
    # (a deal of many players is short: up to three deals, the next one started by us, the host)
    open_api_room(page, server, players=players, deals=3, bot_level="easy", options={"takes": "off", "nopickup": True})
    rng = random.Random(players)
    seen: list[dict] = []  # the tricks at rest looked at
    deadline = time.time() + 120
    # until a trick of all players but one (or all) has been seen at rest, and a few more tricks
    while time.time() < deadline and (not any(g["n"] >= players - 1 for g in seen) or len(seen) < 6):
        s = state(page)
        if s["status"] == "between_deals" and page.get_by_test_id("next-deal").count():
            page.get_by_test_id("next-deal").click()
            wait_status(page, "playing")
            continue
        if s["status"] != "playing":
            break
        geo = page.evaluate(_TRICK_VS_SEATS)
        if geo is not None:
            seen.append(geo)
            assert not geo["covers"], geo
        if s["legal"]:
            page.wait_for_timeout(150)  # the cards played before ours come to rest, then we look again
            geo = page.evaluate(_TRICK_VS_SEATS)
            if geo is not None:
                seen.append(geo)
                assert not geo["covers"], geo
            e2e.card(page, rng.choice(s["legal"])).dispatch_event("click")
        page.wait_for_timeout(60)
    most = max((g["n"] for g in seen), default=0)
    assert most >= players - 1, (most, len(seen))  # a trick of all (or all players but one) at rest
    assert all(g["seats"] == players - 1 for g in seen), seen[:1]


# A 40-card hand drawn by the page's TableView (its own code), on a page of the site.
_BIG_HAND = """async (n) => {
  const { TableView } = await import("/static/table.js");
  const ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
  const deck = [];
  for (const s of ["♠", "♥", "♣", "♦"]) for (const r of ranks) deck.push(r + s);
  const hand = deck.slice(0, n);
  const seats = [0, 1, 2].map((seat) => ({ seat, kind: seat ? "bot" : "human", name: seat ? null : "Ada",
    connected: true }));
  const room = { code: "GEOM", seats, status: "playing", deal_index: 0, deals: 1, config: {}, standings: [] };
  const view = { players: 3, hand, legal_actions: hand.filter((c) => c.endsWith("♠")), got_away: [false, false, false],
    hand_sizes: [n, 6, 6], history: [], trick: [], to_act: 0, decision: "play", dealer: 1, outcome: null, waste_size: 0,
    must_lead: null, rules: {}, out_order: [], tricks_played: 0 };
  const root = document.createElement("main");  // beside the page's own main, which app.js may redraw meanwhile
  const own = document.querySelector("main");
  own.hidden = true;
  own.after(root);
  const table = new TableView(root, { act() {}, next() {}, hint() {}, notice() {} });
  table.update({ room, view, seat: 0, version: 1, settled: true, pending: false, illegal: [], log: [], logReset: true,
    absent: {}, history: null });
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  // the cards slide to their places by a transform (table.js slideHandCard): measured at rest
  await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
  const cards = [...root.querySelectorAll('[data-testid="hand-card"]')];
  return cards.map((el) => {
    const r = el.getBoundingClientRect();
    const idx = el.querySelector(".index").getBoundingClientRect();
    return { card: el.dataset.card, z: Number(el.style.zIndex), x: r.left, y: r.top, w: r.width, h: r.height,
      ix: idx.left, iy: idx.top, iw: idx.width, ih: idx.height };
  });
}"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("size", list(SIZES))
def test_a_40_card_hand_keeps_every_rank_readable(new_page, server, size):
    page = new_page(SIZES[size])
    page.goto(server + "/")
    wait_status(page, "lobby")
    cards = page.evaluate(_BIG_HAND, 40)
    assert len(cards) == 40
    width = SIZES[size]["width"]
    for c in cards:
        assert c["x"] >= 0 and c["x"] + c["w"] <= width + 0.5, c  # on screen
        # the rank corner (the index) is covered by no card drawn above it
        corner = (c["ix"], c["iy"], c["ix"] + c["iw"], c["iy"] + c["ih"])
        for o in cards:
            if o["z"] <= c["z"]:
                continue
            if (
                o["x"] < corner[2] - 0.5
                and corner[0] < o["x"] + o["w"] - 0.5
                and o["y"] < corner[3] - 0.5
                and corner[1] < o["y"] + o["h"] - 0.5
            ):
                raise AssertionError(f"{c['card']}'s rank is covered by {o['card']}: {c} {o}")
    # a tap target: the strip of each card left uncovered is at least ~40 px wide (or the whole card)
    for c in cards:
        right = [o for o in cards if o["z"] > c["z"] and abs(o["y"] - c["y"]) < 1 and o["x"] > c["x"]]
        strip = min([o["x"] for o in right], default=c["x"] + c["w"]) - c["x"]
        assert strip >= 39, (c["card"], strip)


# Each long name's element against the box it lies in: overflowing it? cut (an ellipsis)?
_NAMES = """() => {
  const q = (sel) => document.querySelector(sel);
  const box = (e) => e.getBoundingClientRect();
  const out = [];
  const check = (el, within, what) => {
    const a = box(el), b = box(within);
    out.push({ what, text: el.textContent, title: el.title, over: a.left < b.left - 0.5 || a.right > b.right + 0.5,
      cut: el.scrollWidth > el.clientWidth });
  };
  const standings = q('[data-testid="standings"]');
  check(q('[data-testid="seat-1"] .name'), q('[data-testid="seat-1"]'), "seat");
  check(q('[data-testid="seat-1"]'), q("main"), "seat box");
  check(q('[data-testid="standing-0"] .pname'), standings, "standings");
  check(q('[data-testid="standing-1"] .pname'), standings, "standings 2");
  check(q('[data-testid="standings"] table'), standings, "table");
  check(q('[data-testid="me"] .pname'), q('[data-testid="me"]'), "me");
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll("body *")].filter((e) => box(e).right > width + 0.5)
    .slice(0, 5).map((e) => `${e.tagName}.${e.className} ${Math.round(box(e).right)}`);
  return { out, page: document.documentElement.scrollWidth, width, wide };
}"""


@pytest.mark.timeout(180)
@pytest.mark.parametrize("size", list(SIZES))
def test_a_24_character_name_is_shortened_never_overflowing(new_page, server, size):
    made = httpx.post(f"{server}/api/rooms", json={"name": LONG, "players": 4, "bot_level": "easy"}, timeout=10).json()
    code = made["code"]
    other = httpx.post(f"{server}/api/rooms/{code}/join", json={"name": LONG[::-1]}, timeout=10)
    assert other.status_code == 200, other.text
    page = new_page(SIZES[size])
    page.goto(server + "/")
    page.evaluate(
        "([code, token, host]) => { localStorage.setItem(`getaway.token.${code}`, token);"
        " localStorage.setItem(`getaway.host.${code}`, host); }",
        [code, made["token"], made["host_token"]],
    )
    r = httpx.post(f"{server}/api/rooms/{code}/start", headers={"Authorization": f"Bearer {made['host_token']}"})
    assert r.status_code == 200, r.text
    page.goto(f"{server}/r/{code}")
    wait_status(page, "playing")
    page.wait_for_selector('[data-testid="standing-0"]', state="attached")
    geo = page.evaluate(_NAMES)
    assert geo["page"] <= geo["width"], geo  # nothing makes the page scroll sideways
    for item in geo["out"]:
        assert not item["over"], item
    names = {item["what"]: item for item in geo["out"]}
    for what in ("seat", "standings", "standings 2", "me"):
        assert names[what]["text"] in (LONG, LONG[::-1]), names[what]  # the whole name in the text
        assert names[what]["title"] == names[what]["text"], names[what]  # and on hover
    assert names["seat"]["cut"] or size == "1280x800", names["seat"]  # on a phone the seat's name is cut
