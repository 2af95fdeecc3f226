"""Why an action is illegal: ``Deal.why_illegal`` is the engine's one answer (reason code +
translatable text), the very refusal ``apply`` raises; the terminal and the web page show it."""

from __future__ import annotations

import random

import pytest

from conftest import make_deal
from getaway import PASS, PICKUP, TAKE, Deal, IllegalActionError, Rules

_CONFIGS = [
    ("punjab", {}),
    ("punjab", {"takes": "any"}),
    ("punjab", {"take_protocol": "interject"}),
    ("punjab", {"trump": "spades", "joker": True}),
    ("punjab", {"nopickup": True, "trump": "spades"}),
    ("classic", {}),
    ("classic", {"trump": "spades"}),
    ("classic", {"nopickup": True, "trump": "spades"}),
]


@pytest.mark.parametrize("profile, options", _CONFIGS)
def test_why_illegal_is_the_refusal_that_apply_raises_and_changes_nothing(profile: str, options: dict) -> None:
    reasons: set[str] = set()
    for seed in range(6):
        deal = Deal(Rules.profile(profile, players=4, **options), dealer=seed % 4, seed=seed)
        rng = random.Random(seed)
        while not deal.is_over:
            for seat in {deal.to_act, (deal.to_act + 1) % 4}:
                legal = deal.legal_actions(seat)
                before = deal.snapshot()
                for action in (*deal.hand(seat), TAKE, PASS, PICKUP):
                    why = deal.why_illegal(action, seat)
                    assert (why is None) == (action in legal), (seed, seat, action)
                    if why is None:
                        continue
                    assert why.reason in IllegalActionError.REASONS and why.seat == seat
                    with pytest.raises(IllegalActionError) as refused:
                        deal.clone().apply(action, seat)
                    assert (refused.value.reason, str(refused.value)) == (why.reason, str(why))
                    reasons.add(why.reason)
                assert deal.snapshot() == before
            deal.apply(rng.choice(deal.legal_actions()))
        assert deal.why_illegal(PASS).reason == "deal_over"
    assert {"not_your_turn", "must_follow_suit", "must_lead_ace_of_spades"} <= reasons


def test_why_illegal_under_penalize_names_the_rule_that_the_penalty_punishes() -> None:
    deal = make_deal(["2h 3c", "4h 5h", "6c 7c", "8c 9c"], waste="As Ks Qs Js", enforcement="penalize")
    deal.play("2h")
    why = deal.why_illegal("5h")
    assert why is None
    deal = make_deal(["2h 3c", "4h 5c", "6c 7c", "8c 9c"], waste="As Ks Qs Js", enforcement="penalize")
    deal.play("2h")
    why = deal.why_illegal("5c")
    assert why is not None and why.reason == "must_follow_suit"
    assert str(why) == "must_follow_suit: seat 1 holds ♥ and must follow suit, not play 5♣"
    events = deal.play("5c")  # penalize: the engine carries out the revoke penalty instead of refusing
    assert "irregularity" in [e.kind for e in events]


def test_why_illegal_of_a_seats_own_cards_reads_only_its_hand_and_the_public_trick() -> None:
    """Two deals that differ only in the cards hidden from seat 1 give seat 1 the same reasons
    (and texts) for every card of its hand: showing them to seat 1 reveals nothing."""
    own = "Kh 2c 3c Qd"
    a = make_deal(["9h 4s 5s 6s", own, "Jh Ah 7s 8s", "Th 2d 3d 4d"], waste="As Ks Qs Js")
    b = make_deal(["9h 2d 3d 4d", own, "4s 5s 6s 7s", "Jh Th Ah 8s"], waste="As Ks Qs Js")
    for deal in (a, b):
        deal.play("9h")
    for card in a.hand(1):
        wa, wb = a.why_illegal(card, 1), b.why_illegal(card, 1)
        assert wa is not None and wb is not None or wa is wb is None, card
        assert wa is None or (wa.reason, str(wa)) == (wb.reason, str(wb)), card
    assert a.why_illegal("2c", 1).reason == "must_follow_suit"
    a.play("Kh")
    assert a.why_illegal("Qd", 1).reason == "not_your_turn"
