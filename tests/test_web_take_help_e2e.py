"""The take's explanation in the page (R-P-TAKE; docs/web.md "Takes"): a take that would leave a
single active player ends the deal with the taker as the loser, and the page says so beside the
take control every time it is offered; otherwise the general explanation is shown until the
player's first take. The page's own TableView draws made-up views, on a page of the site.

Same server and browser as tests/test_web_e2e.py (skipped without Chromium unless
``GETAWAY_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import pytest

import test_web_e2e as e2e
from test_web_e2e import MISSING, REQUIRE, wait_status

server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

# A view of seat 0 at four players, takes between tricks (interject), no trick on the table, seat 1
# next on the left; ``out`` lists the seats that have got away, ``explained`` whether this person
# has taken before. Returns what the take's explanation says (null: hidden) and the take control.
_DRAW = """async ([out, explained]) => {
  const key = "getaway-take-explained";
  if (explained) localStorage.setItem(key, "1"); else localStorage.removeItem(key);
  const { TableView } = await import("/static/table.js");
  const seats = [0, 1, 2, 3].map((seat) => ({ seat, kind: seat ? "bot" : "human", name: seat ? null : "Ada",
    connected: true }));
  const room = { code: "TAKE", seats, status: "playing", deal_index: 0, deals: 1, config: {}, standings: [] };
  const got_away = [0, 1, 2, 3].map((s) => out.includes(s));
  const view = { players: 4, hand: ["2♠", "9♥"], legal_actions: ["take", "2♠", "9♥"], got_away,
    hand_sizes: [2, 3, 3, 3], history: [], trick: [], to_act: 0, decision: "play", dealer: 1, outcome: null,
    waste_size: 0, must_lead: null,
    rules: { take_protocol: "interject", takes: "any" }, out_order: [], tricks_played: 3 };
  const root = document.createElement("main");
  const own = document.querySelector("main");
  own.hidden = true;
  own.after(root);
  const table = new TableView(root, { act() {}, next() {}, hint() {}, notice() {}, armTake() {} });
  table.update({ room, view, seat: 0, version: 1, settled: true, pending: false, illegal: [], log: [], logReset: true,
    absent: {}, history: null });
  const note = root.querySelector('[data-testid="take-explain"]');
  const button = root.querySelector('[data-testid="take-hand"]');
  const said = note.hidden ? null : note.textContent;
  root.remove();
  own.hidden = false;
  return { said, button: button && button.textContent, describedBy: button && button.getAttribute("aria-describedby") };
}"""


@pytest.mark.timeout(120)
def test_the_take_of_the_last_other_hand_warns_that_the_taker_loses(new_page, server):
    page = new_page()
    page.goto(server + "/")
    wait_status(page, "lobby")
    # seats 2 and 3 got away: seat 1's is the last other hand, said even to a player who has taken before
    for explained in (False, True):
        got = page.evaluate(_DRAW, [[2, 3], explained])
        assert got["button"] and got["describedBy"] == "take-explain", got
        assert got["said"] is not None and "loser" in got["said"] and "Bot" in got["said"], got
    # three players still hold cards: the general explanation, only until the first take
    got = page.evaluate(_DRAW, [[3], False])
    assert got["said"] is not None and "they get away" in got["said"] and "loser" not in got["said"], got
    assert page.evaluate(_DRAW, [[3], True])["said"] is None
