"""Bad input changes nothing: every refused action leaves ``deal.snapshot()`` as it was.

One test per :class:`IllegalActionError` reason reachable under RULES.md §1–§4, then
malformed actions (:class:`InvalidActionError`) and impossible positions (:class:`PositionError`).
"""

from __future__ import annotations

import pytest

from conftest import make_deal, play_all
from getaway import (
    JOKER,
    PASS,
    PICKUP,
    TAKE,
    Card,
    Deal,
    IllegalActionError,
    InvalidActionError,
    InvalidCardError,
    Position,
    PositionError,
    Rules,
)

_HANDS = ["2h 9s", "5h 3c Js", "7h 4d", "8h Ks"]


def _refused(deal: Deal, action: object, seat: int | None, reason: str) -> IllegalActionError:
    """Apply ``action`` by ``seat``, expect IllegalActionError(reason), and check nothing changed."""
    before = deal.snapshot()
    legal = deal.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        deal.apply(action, seat)
    assert info.value.reason == reason, str(info.value)
    assert info.value.reason in IllegalActionError.REASONS
    assert str(info.value).startswith(f"{reason}:")
    assert deal.snapshot() == before
    assert deal.legal_actions() == legal
    return info.value


def test_deal_over() -> None:
    deal = make_deal(["5h", "Kh 2c", ""], waste="9c")
    play_all(deal, "5h Kh")
    assert deal.is_over
    for action, seat in ((Card.parse("2c"), 1), (Card.parse("2c"), None), (TAKE, 1), (PASS, None), (PICKUP, 1)):
        _refused(deal, action, seat, "deal_over")


@pytest.mark.parametrize("seat", [4, -1, 99, True, "1", 1.0])
def test_bad_seat(seat: object) -> None:
    deal = make_deal(_HANDS, waste="2d")
    exc = _refused(deal, Card.parse("2h"), seat, "bad_seat")
    assert exc.seat is None


def test_got_away() -> None:
    deal = make_deal(["2h 9s", "", "7h 4d", "8h Ks"], waste="2d", takes="any", take_protocol="interject")
    exc = _refused(deal, Card.parse("2h"), 1, "got_away")
    assert exc.seat == 1
    _refused(deal, TAKE, 1, "got_away")
    deal.play("2h")
    _refused(deal, Card.parse("7h"), 1, "got_away")


def test_not_your_turn_before_the_lead_and_mid_trick() -> None:
    deal = make_deal(_HANDS, waste="2d")
    _refused(deal, Card.parse("5h"), 1, "not_your_turn")  # seat 0 leads
    deal.play("2h")
    exc = _refused(deal, Card.parse("7h"), 2, "not_your_turn")  # seat 1 follows first
    assert exc.seat == 2 and exc.action == Card.parse("7h")
    _refused(deal, Card.parse("9s"), 0, "not_your_turn")  # the leader has played already


def test_not_your_turn_in_the_take_poll() -> None:
    deal = make_deal(_HANDS, waste="2d", takes="any")
    assert deal.decision == "take" and deal.to_act == 0
    _refused(deal, PASS, 2, "not_your_turn")
    _refused(deal, TAKE, 3, "not_your_turn")
    _refused(deal, Card.parse("2h"), 0, "not_your_turn")  # no card before the poll is over
    _refused(deal, PICKUP, 0, "not_your_turn")


def test_card_not_in_hand() -> None:
    deal = make_deal(_HANDS, waste="2d")
    _refused(deal, Card.parse("Ac"), None, "card_not_in_hand")
    _refused(deal, Card.parse("5h"), 0, "card_not_in_hand")  # another player's card
    _refused(deal, Card.parse("2d"), 0, "card_not_in_hand")  # a card of the waste pile
    deal.play("2h")
    _refused(deal, Card.parse("2h"), 1, "card_not_in_hand")  # a card on the table


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_must_follow_suit(profile: str) -> None:
    deal = make_deal(_HANDS, waste="2d", profile=profile)
    deal.play("2h")
    _refused(deal, Card.parse("3c"), 1, "must_follow_suit")
    _refused(deal, Card.parse("Js"), None, "must_follow_suit")


def test_must_follow_suit_with_a_spade_on_punjabs_first_trick() -> None:
    deal = make_deal(["As 2h", "3s 4h", "5h 6d"], leader=0, first_trick_done=False)
    deal.play("As")
    _refused(deal, Card.parse("4h"), 1, "must_follow_suit")


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_must_lead_ace_of_spades(profile: str) -> None:
    deal = make_deal(["As 2h", "3s 4h", "5h 6d"], profile=profile, leader=0, first_trick_done=False)
    _refused(deal, Card.parse("2h"), 0, "must_lead_ace_of_spades")


def test_must_lead_drawn_card() -> None:
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c", takes="any")
    for _ in range(3):
        deal.pass_()
    play_all(deal, "2h Ah 5h")  # seat 1 draws the 9♣ blind
    deal.take()  # seat 1 takes seat 2's hand: it now holds other cards than the drawn one
    deal.pass_()
    assert deal.to_act == 1
    _refused(deal, Card.parse("6c"), 1, "must_lead_drawn_card")


def test_no_take_now() -> None:
    deal = make_deal(_HANDS, waste="2d", takes="any")
    for _ in range(4):
        deal.pass_()
    assert deal.decision == "play"
    _refused(deal, TAKE, 0, "no_take_now")  # poll protocol: the poll is over
    deal = make_deal(_HANDS, waste="2d", takes="any", take_protocol="interject")
    deal.play("2h")
    _refused(deal, TAKE, 2, "no_take_now")  # interject: the lead card is on the table


def test_take_not_allowed() -> None:
    deal = make_deal(_HANDS, waste="2d")  # takes off
    _refused(deal, TAKE, 0, "take_not_allowed")
    deal = make_deal(_HANDS, waste="2d", takes="leader", take_protocol="interject")
    _refused(deal, TAKE, 2, "take_not_allowed")
    deal = make_deal(_HANDS, waste="2d", takes="leader")  # poll
    _refused(deal, TAKE, 1, "take_not_allowed")


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_no_pass_now(profile: str) -> None:
    deal = make_deal(_HANDS, waste="2d", profile=profile)
    _refused(deal, PASS, None, "no_pass_now")
    deal.play("2h")
    _refused(deal, PASS, None, "no_pass_now")


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_no_pickup_now(profile: str) -> None:
    deal = make_deal(["2h 9s", "3c 4c", "7h 4d", "8h Ks"], waste="2d", profile=profile)
    _refused(deal, PICKUP, None, "no_pickup_now")  # nothing on the table
    if profile == "punjab":
        deal.play("2h")
        _refused(deal, PICKUP, 1, "no_pickup_now")  # void, but punjab's void player plays a tochoo


def test_refusal_under_penalize_changes_nothing_either() -> None:
    deal = make_deal(_HANDS, waste="2d", enforcement="penalize")
    _refused(deal, Card.parse("5h"), 1, "not_your_turn")
    _refused(deal, Card.parse("Ac"), 0, "card_not_in_hand")
    deal.play("2h")
    _refused(deal, Card.parse("Ac"), 2, "card_not_in_hand")


# ---------------------------------------------------------------------------------- malformed actions


@pytest.mark.parametrize("garbage", ["zz", "", "take me", "11h", 56, -1, None, 3.5, True, ["2h"]])
def test_invalid_action(garbage: object) -> None:
    deal = make_deal(_HANDS, waste="2d")
    before = deal.snapshot()
    with pytest.raises(InvalidActionError):
        deal.apply(garbage)  # type: ignore[arg-type]
    assert deal.snapshot() == before
    deal.play("2h")  # the deal goes on


def test_invalid_card_name_in_play() -> None:
    deal = make_deal(_HANDS, waste="2d")
    before = deal.snapshot()
    with pytest.raises(InvalidCardError):
        deal.play("zz")
    assert deal.snapshot() == before


def test_actions_by_name_and_id_are_accepted() -> None:
    deal = make_deal(_HANDS, waste="2d")
    deal.apply("2h")  # a name
    deal.apply(int(Card.parse("5h")))  # an action id
    assert deal.trick == ((0, Card.parse("2h")), (1, Card.parse("5h")))


# ---------------------------------------------------------------------------------- impossible positions


def test_position_duplicate_card() -> None:
    with pytest.raises(PositionError, match="2♥"):
        Position.from_cards([["2h"], ["2h", "3h"]])
    with pytest.raises(PositionError):
        Position.from_cards([["2h", "2h"], ["3h"]])
    with pytest.raises(PositionError):
        Position.from_cards([["2h"], ["3h"]], waste=["2h"])
    with pytest.raises(PositionError):
        make_deal(["2h 3h", "TH 4h", "10♥"], waste="2d")


def test_position_bad_card_name() -> None:
    with pytest.raises(PositionError, match="zz"):
        Position.from_cards([["2h"], ["zz"]])


def test_position_wrong_number_of_hands() -> None:
    position = Position.from_cards([["2h"], ["3h"], ["4h"]], waste=["2d"], first_trick_done=True)
    with pytest.raises(PositionError, match="hands"):
        Deal(Rules.profile("punjab", players=4), position=position)


def test_position_leader_without_cards() -> None:
    with pytest.raises(PositionError, match="leader"):
        make_deal(["", "3h", "4h"], waste="2d", leader=0)
    with pytest.raises(PositionError, match="leader"):
        make_deal(["2h", "3h", "4h"], waste="2d", leader=3)


def test_position_leader_without_ace_of_spades_before_the_first_trick() -> None:
    with pytest.raises(PositionError, match="A♠"):
        make_deal(["2h", "As 3h", "4h"], leader=0, first_trick_done=False)


def test_position_fewer_than_two_players_with_cards() -> None:
    with pytest.raises(PositionError):
        make_deal(["2h 3h", "", ""], waste="2d")
    with pytest.raises(PositionError):
        make_deal(["2h", ""], profile="classic")


def test_position_joker_without_the_variant() -> None:
    with pytest.raises(PositionError, match="Joker"):
        make_deal(["2h " + str(JOKER), "3h", "4h"], waste="2d")


def test_position_punjab_after_the_first_trick_needs_a_waste_pile() -> None:
    with pytest.raises(PositionError, match="waste"):
        make_deal(["2h", "3h", "4h"], first_trick_done=True)
    make_deal(["2h", "3h"], profile="classic", first_trick_done=True)  # classic: no such need


_DRAW_HANDS = [["3d"], ["9c"], ["6c"]]


@pytest.mark.parametrize(
    ("blind_draw", "message"),
    [
        ("9c", "expected a seat and a card"),
        ((1,), "expected a seat and a card"),
        ((1, "9c", 2), "expected a seat and a card"),
        (("1", "9c"), "expected a seat number"),
        ((True, "9c"), "expected a seat number"),
        ((1, "zz"), "zz"),
    ],
)
def test_position_blind_draw_malformed(blind_draw: object, message: str) -> None:
    with pytest.raises(PositionError, match=message) as info:
        Position.from_cards(_DRAW_HANDS, waste=["2h"], leader=1, first_trick_done=True, blind_draw=blind_draw)
    assert str(info.value).startswith("blind_draw: ")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("9c", "expected an object"),
        ([1, "9c"], "expected an object"),
        ({"seat": 1}, "expected an object"),
        ({"seat": 1, "card": "9c", "more": 1}, "expected an object"),
        ({"seat": "one", "card": "9c"}, "expected a seat number"),
        ({"seat": 1, "card": "11c"}, "11c"),
    ],
)
def test_position_blind_draw_malformed_in_a_dict(value: object, message: str) -> None:
    data = {"hands": _DRAW_HANDS, "waste": ["2h"], "leader": 1, "first_trick_done": True, "blind_draw": value}
    before = repr(data)
    with pytest.raises(PositionError, match=message) as info:
        Position.from_dict(data)
    assert str(info.value).startswith("blind_draw: ")
    assert repr(data) == before  # the input is left as it was


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"first_trick_done": False, "hands": [["3d"], ["9c", "As"], ["6c"]], "forced_lead": None},
            r"blind_draw: only after the first trick under punjab \(R-P-DRAW\)",
        ),
        ({"profile": "classic", "forced_lead": None}, r"blind_draw: only after the first trick under punjab"),
        ({"blind_draw": (3, "9c")}, "seat 3 does not exist with 3 players"),
        ({"blind_draw": (-1, "9c")}, "seat -1 does not exist with 3 players"),
        ({"blind_draw": (0, "9c")}, "seat 0 does not hold 9♣"),
        ({"blind_draw": (1, "2h")}, "seat 1 does not hold 2♥"),  # a waste card, not a hand's
        (
            {"hands": [["3d"], ["9c", "Jk"], ["6c"]], "blind_draw": (1, "Jk"), "forced_lead": None, "joker": True},
            "the Joker is never drawn",
        ),
        (
            {"hands": [["3d"], ["9c", "8c"], ["6c"]], "forced_lead": "8c"},
            r"the card to lead \(8♣\) is not the card drawn blind \(9♣\)",
        ),
    ],
)
def test_position_blind_draw_impossible(change: dict, message: str) -> None:
    setting = {"hands": _DRAW_HANDS, "blind_draw": (1, "9c"), "forced_lead": "9c", "first_trick_done": True}
    setting.update(change)
    profile = setting.pop("profile", "punjab")
    joker = setting.pop("joker", False)
    position = Position.from_cards(setting.pop("hands"), waste=["2h"], leader=1, **setting)
    rules = Rules.profile(profile, players=3, takes="off", joker=joker) if joker else Rules.profile(profile, players=3)
    with pytest.raises(PositionError, match=message) as info:
        Deal(rules, position=position)
    assert str(info.value).startswith("blind_draw: ")


def test_position_blind_draw_not_a_pair_when_built_directly() -> None:
    position = Position((1 << 3, 1 << 20, 1 << 30), 1, 1, True, None, (1, "9c"))  # type: ignore[arg-type]
    with pytest.raises(PositionError, match="expected a seat and a card"):
        Deal(Rules.profile("punjab", players=3), position=position)
