"""A refused card in a real browser (issue 24, item 5): the reason, said to the player, shows
next to the hand without moving it, and is gone at the player's next legal move.

Same server and browser as tests/test_web_e2e.py (Debian's chromium; skipped without it unless
``GETAWAY_REQUIRE_BROWSER=1``). ``GETAWAY_SHOTS=dir`` also writes screenshots of the refusal there.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

import test_web_e2e as e2e
from test_web_e2e import MISSING, PHONE, REQUIRE, act, card, click_card, create_room, state

server, browser, new_page = e2e.server, e2e.browser, e2e.new_page

if MISSING and not REQUIRE:
    pytestmark = pytest.mark.skip(reason=f"browser tests skipped: {MISSING} (GETAWAY_REQUIRE_BROWSER=1 fails instead)")

_BOX = """(id) => { const r = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
  return { x: r.x, y: r.y, w: r.width, h: r.height }; }"""


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    "viewport",
    [{"width": 1280, "height": 800}, PHONE],
    ids=["desktop", "phone"],
)
def test_a_refusal_shows_next_to_the_hand_without_moving_it_until_the_next_legal_move(new_page, viewport):
    options = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2} if viewport is PHONE else {}
    page = new_page(viewport=viewport, **options)
    create_room(page, "Fay", players=4, alone=True, takes="off")
    rng = random.Random(5)
    for _ in range(13):
        page.wait_for_function('() => document.querySelector(\'[data-testid="hand-card"][data-legal="true"]\')')
        s = state(page)
        unplayable = [c for c in s["hand"] if c not in s["legal"]]
        if unplayable and s["legal"]:
            break
        act(page, rng)
    else:
        raise AssertionError("never held a card that could not be played")
    tip = card(page, unplayable[0]).get_attribute("title")
    before = page.evaluate(_BOX, "hand")
    page.mouse.move(1, 1)
    card(page, unplayable[0]).click(position={"x": 8, "y": 12}, force=True)
    refusal = page.get_by_test_id("refusal")
    refusal.wait_for(state="visible")
    said = refusal.inner_text()
    assert said == tip and said[0].isupper() and "seat 1" not in said and "(R-" not in said, said
    assert said.startswith(("You hold a", "Wait for your turn", "The first trick must be led with your")), said
    page.wait_for_timeout(300)  # any layout change would be done by now
    after = page.evaluate(_BOX, "hand")
    assert after == before, (before, after)  # the hand did not move
    box = page.evaluate(_BOX, "refusal")
    assert box["y"] + box["h"] <= before["y"] + 4 and box["y"] + box["h"] >= before["y"] - 120, (box, before)
    assert box["x"] >= 0 and box["x"] + box["w"] <= viewport["width"], box
    assert state(page)["error"] is None  # not the page's notice at the top
    shots = os.environ.get("GETAWAY_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / f"refusal-{viewport['width']}x{viewport['height']}.png"))
    s = state(page)
    click_card(page, s["legal"][0])
    page.wait_for_function("() => document.querySelector('[data-testid=\"refusal\"]').hidden", timeout=1_000)
