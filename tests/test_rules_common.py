"""RULES.md §1, common to both profiles: one test per rule id, each from an explicit position."""

from __future__ import annotations

import json

import pytest

from conftest import card_set, kinds, make_deal, play_all
from getaway import (
    ACE_OF_SPADES,
    Card,
    Deal,
    EventKind,
    IllegalActionError,
    InvalidCardError,
    Rules,
    Termination,
    cards_of,
    deal_hands,
    mask_of,
    player_view,
)
from getaway.core.cards import FULL_PACK


class _NoShuffle:
    """A stand-in for the random generator that leaves the pack in card order (2♠ 3♠ … A♣)."""

    def shuffle(self, pack: list[int]) -> None:
        pass


# ---------------------------------------------------------------------------------- R-DECK


@pytest.mark.parametrize("profile, players", [("punjab", 4), ("classic", 2), ("punjab", 7)])
def test_R_DECK_one_french_pack_of_52_distinct_cards_no_joker(profile: str, players: int) -> None:
    deal = Deal(Rules.profile(profile, players=players), dealer=0, seed=3)
    masks = [deal.hand_mask(s) for s in range(players)]
    assert sum(m.bit_count() for m in masks) == 52
    union = 0
    for m in masks:
        assert not union & m  # no card in two hands
        union |= m
    assert union == FULL_PACK  # every card of the pack, and no Joker
    assert not any(c.is_joker for s in range(players) for c in deal.hand(s))


def test_R_DECK_suits_and_ranks_from_2_low_to_ace_high() -> None:
    ranks = [Card.parse(f"{r}h").rank for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]
    assert ranks == list(range(2, 15))
    assert [Card.parse(f"A{s}").suit for s in "SHDC"] == [0, 1, 2, 3]
    assert [str(Card.parse(f"A{s}")) for s in "SHDC"] == ["A♠", "A♥", "A♦", "A♣"]
    # every card once: a "highest card of the led suit" is always unique
    assert len({Card(i) for i in range(52)}) == 52
    assert len({str(Card(i)) for i in range(52)}) == 52


@pytest.mark.parametrize("text", ["10h", "TH", "th", "10♥", " 10H ", "Th"])
def test_R_DECK_ten_of_hearts_parses_from_every_notation_and_prints_as_10_heart(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == "10♥"
    assert card.rank == 10 and card.suit == 1
    assert Card.parse(str(card)) is card  # str() round-trips


def test_R_DECK_other_notations() -> None:
    assert str(Card.parse("qs")) == "Q♠"
    assert str(Card.parse("AS")) == "A♠"
    assert Card.parse("AS") is ACE_OF_SPADES
    assert str(Card.parse("2c")) == "2♣"
    assert str(Card.parse("kd")) == "K♦"
    assert Card.parse("jh").rank == 11
    assert repr(Card.parse("10h")) == "Card('10♥')"
    assert Card.parse("10h").code == "TH"


@pytest.mark.parametrize("text", ["zz", "11h", "1h", "", "h10", "10x", "AS AS", "0s", "Ks!"])
def test_R_DECK_bad_card_names_raise_InvalidCardError(text: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)  # the message quotes the text
    assert isinstance(info.value, ValueError)


def test_R_DECK_bad_card_index_raises_InvalidCardError() -> None:
    with pytest.raises(InvalidCardError):
        Card(53)
    with pytest.raises(InvalidCardError):
        Card("5")
    with pytest.raises(InvalidCardError):
        Card(-1)  # not the Joker (index 52) by wrapping round


# ---------------------------------------------------------------------------------- R-SEATS


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_R_SEATS_play_goes_clockwise_from_the_leader(profile: str) -> None:
    deal = make_deal(["2h 2c", "3h 3c", "4h 4c", "5h 5c"], profile=profile, waste="2d", leader=2)
    order = []
    for card in ("4h", "5h", "2h", "3h"):
        order.append(deal.to_act)
        deal.play(card)
    assert order == [2, 3, 0, 1]  # "left" = next clockwise, wrapping round the circle


# ---------------------------------------------------------------------------------- R-DEAL


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_R_DEAL_one_card_at_a_time_clockwise_from_the_dealers_left(dealer: int) -> None:
    rules = Rules.profile("punjab", players=3)
    hands, stripped = deal_hands(rules, dealer, _NoShuffle())
    assert stripped == 0
    # the unshuffled pack is 2♠ 3♠ 4♠ …: the first card to the dealer's left, the next to their left …
    for i in range(3):
        seat = (dealer + 1 + i) % 3
        assert hands[seat] == mask_of(range(i, 52, 3))
    assert Card.parse("2s") in cards_of(hands[(dealer + 1) % 3])
    assert Card.parse("3s") in cards_of(hands[(dealer + 2) % 3])
    assert Card.parse("4s") in cards_of(hands[dealer])
    # the 52nd card goes to the player after the dealer, who gets the one extra card
    assert [hands[(dealer + 1 + i) % 3].bit_count() for i in range(3)] == [18, 17, 17]


@pytest.mark.parametrize("seed", range(5))
def test_R_DEAL_whole_pack_is_dealt_sizes_differ_by_at_most_one(seed: int) -> None:
    for players in range(3, 9):
        deal = Deal(Rules.profile("punjab", players=players), dealer=seed % players, seed=seed)
        sizes = deal.hand_sizes
        assert sum(sizes) == 52
        assert max(sizes) - min(sizes) <= 1
        assert deal.stripped == ()


# ---------------------------------------------------------------------------------- R-ACE


@pytest.mark.parametrize("profile, players", [("punjab", 4), ("punjab", 6), ("classic", 2), ("classic", 5)])
def test_R_ACE_holder_of_ace_of_spades_leads_it_in_every_deal(profile: str, players: int) -> None:
    for seed in range(6):
        deal = Deal(Rules.profile(profile, players=players, takes="off"), dealer=seed % players, seed=seed)
        holder = next(s for s in range(players) if ACE_OF_SPADES in deal.hand(s))
        assert deal.to_act == holder == deal.leader
        assert list(deal.legal_actions()) == [ACE_OF_SPADES]  # the A♠ itself, nothing else


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_R_ACE_leading_another_card_first_is_refused(profile: str) -> None:
    deal = make_deal(["As 2h", "3s 4h", "5s 6h"], profile=profile, leader=0, first_trick_done=False)
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.play("2h")
    assert info.value.reason == "must_lead_ace_of_spades"
    assert deal.snapshot() == before
    deal.play("As")
    assert deal.trick[0] == (0, ACE_OF_SPADES)


# ---------------------------------------------------------------------------------- R-FOLLOW


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_R_FOLLOW_holder_of_led_suit_must_play_one_any_one(profile: str) -> None:
    deal = make_deal(["5h 2c", "2h Kh 3c", "9h 4c"], profile=profile, waste="2d")
    deal.play("5h")
    # any heart: the 2♥ need not beat the 5♥, and the club is not allowed
    assert [str(c) for c in deal.legal_actions()] == ["2♥", "K♥"]
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.play("3c")
    assert info.value.reason == "must_follow_suit"
    assert deal.snapshot() == before
    deal.play("2h")  # lower than the lead: legal
    assert deal.to_act == 2


# ---------------------------------------------------------------------------------- R-ACTIVE


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_R_ACTIVE_rotation_skips_players_who_got_away(profile: str) -> None:
    # seat 1 has no cards: it got away before this position
    deal = make_deal(["5h 2c", "", "9h 4c", "3h 5c"], profile=profile, waste="2d")
    assert deal.has_got_away(1) and deal.active == (0, 2, 3)
    deal.play("5h")
    assert deal.to_act == 2
    deal.play("9h")
    assert deal.to_act == 3
    deal.play("3h")
    assert deal.leader == 2 and deal.to_act == 2
    with pytest.raises(IllegalActionError) as info:
        deal.play("4c", seat=1)
    assert info.value.reason == "got_away"


def test_R_ACTIVE_a_player_who_gets_away_mid_deal_leaves_the_rotation() -> None:
    deal = make_deal(["5h 2c", "3h", "9h 4c", "2h 5c"], waste="2d")
    play_all(deal, "5h 3h 9h 2h")  # seat 1 played its last card: gets away (R-P-OUT)
    assert deal.has_got_away(1)
    deal.play("4c")  # seat 2 leads
    assert deal.to_act == 3
    deal.play("5c")
    assert deal.to_act == 0  # seat 1 is skipped when the trick comes round
    assert all(seat != 1 for seat, _ in deal.trick)


# ---------------------------------------------------------------------------------- R-END


def test_R_END_one_holder_left_loses_out_order_ranks_and_shared_places() -> None:
    deal = make_deal(["5h 2c", "2h", "3h", "4h Kc"], waste="2d")
    play_all(deal, "5h 2h 3h 4h")
    # seats 1 and 2 got away at the same moment: one group, one shared place
    assert deal.out_order == ((1, 2),)
    assert not deal.is_over
    play_all(deal, "2c Kc")  # seat 0's last card goes; seat 3 wins with its last card and must lead
    outcome = deal.outcome
    assert deal.is_over and deal.decision is None and deal.to_act is None
    assert outcome.termination == Termination.LAST_HOLDER
    assert outcome.loser == 3
    assert outcome.out_order == ((1, 2), (0,))
    assert outcome.places == (3, 1, 1, 4)  # competition ranking: 1, 1, 3, last
    assert outcome.winners == (1, 2)
    assert not deal.legal_actions()


def test_R_END_classic_ends_when_at_most_one_player_holds_cards() -> None:
    deal = make_deal(["5h", "Kh 2c", "9h"], profile="classic", waste="2d")
    events = play_all(deal, "5h Kh 9h")
    assert kinds(events)[-1] == EventKind.OVER
    assert deal.outcome.loser == 1
    assert deal.outcome.out_order == ((0,), (2,))
    assert deal.outcome.places == (1, 3, 2)


# ---------------------------------------------------------------------------------- R-INFO


def test_R_INFO_player_view_shows_own_hand_only() -> None:
    deal = make_deal(["5h 2c 7d", "Kh 3c Qs", "9h 4c Js", "3h 8c 10s"], waste="2d 3d")
    deal.play("5h")
    view = player_view(deal, 0)
    assert view.hand == tuple(deal.hand(0))
    assert view.hand_sizes == (2, 3, 3, 3)  # sizes are public
    assert view.trick == ((0, Card.parse("5h")),)  # cards played are public
    text = json.dumps(view.to_dict(), ensure_ascii=False)
    for seat in (1, 2, 3):
        for card in deal.hand(seat):
            assert str(card) not in text, f"{card} of seat {seat} leaks into seat 0's view"
    assert player_view(deal, 0) == view


def test_R_INFO_played_cards_and_pickups_are_public() -> None:
    deal = make_deal(["8h 2s", "Qh 3s", "3c 4s", "5h 6s"], waste="2d")
    play_all(deal, "8h Qh 3c")
    for seat in (None, 0, 2, 3):
        history = player_view(deal, seat).history
        pickup = next(e for e in history if e.kind == EventKind.PICKUP)
        assert pickup.seat == 1 and set(pickup.cards) == card_set("8h Qh 3c")
        assert [e.cards for e in history if e.kind == EventKind.TOCHOO] == [(Card.parse("3c"),)]


def test_R_INFO_waste_contents_are_known_to_all_but_a_blind_draw_only_to_the_drawer() -> None:
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c")
    play_all(deal, "2h Ah 5h")  # seat 1 wins with its last card: draws the 9♣ blind
    draw = Card.parse("9c")
    assert deal.hand(1) == (draw,)
    mine = player_view(deal, 1)
    assert mine.must_lead == draw
    assert [e.cards for e in mine.history if e.kind == EventKind.DRAW] == [(draw,)]
    for seat in (None, 0, 2):
        view = player_view(deal, seat)
        (event,) = [e for e in view.history if e.kind == EventKind.DRAW]
        assert event.seat == 1 and event.cards == () and event.hidden == 1
        assert view.must_lead is None
        assert draw in view.waste_seen  # they saw it go into the waste, not come out
        public = view.to_dict()
        del public["waste_seen"]
        assert str(draw) not in json.dumps(public, ensure_ascii=False)
    deal.play("9c")  # led at once: public from now on
    assert player_view(deal, 0).trick == ((1, draw),)
    assert draw not in player_view(deal, 0).waste_seen


def _won_with_last_card(seed: int) -> Deal:
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c 8c 7c", seed=seed)
    play_all(deal, "2h Ah 5h")  # seat 1 draws one of 9♣ 8♣ 7♣ blind
    return deal


def test_R_INFO_what_others_see_does_not_depend_on_the_blind_draw() -> None:
    deals = [_won_with_last_card(seed) for seed in range(8)]
    assert len({d.forced_lead for d in deals}) > 1  # the seeds draw different cards
    for seat in (None, 0, 2):
        views = [player_view(d, seat).to_dict() for d in deals]
        assert all(v == views[0] for v in views)
    assert len({str(player_view(d, 1).must_lead) for d in deals}) > 1  # the drawer knows


def test_R_INFO_a_card_drawn_from_the_trick_itself_stays_hidden() -> None:
    # penalize: the first trick is picked up as a penalty, so the waste pile is still empty when
    # seat 0 wins the next trick with its last card; the draw is then made from that trick.
    def run(seed: int) -> Deal:
        deal = make_deal(["As Ah", "3h 4s", "2h 5s"], first_trick_done=False, enforcement="penalize", seed=seed)
        play_all(deal, "As 3h")  # seat 1 holds the 4♠: a revoke, seat 1 picks up and leads
        play_all(deal, "3h 2h Ah")
        return deal

    deals = [run(seed) for seed in range(8)]
    assert len({d.forced_lead for d in deals}) > 1
    for seat in (None, 1, 2):
        views = [player_view(d, seat).to_dict() for d in deals]
        assert all(v == views[0] for v in views)


def test_R_INFO_the_taker_of_a_drawers_hand_learns_the_drawn_card() -> None:
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c", takes="any", take_protocol="interject")
    play_all(deal, "2h Ah 5h")
    deal.take(0)
    drawn = Card.parse("9c")
    assert drawn in player_view(deal, 0).hand and drawn not in player_view(deal, 0).waste_seen
    assert drawn in player_view(deal, 2).waste_seen  # seat 2 has not seen it come out of the waste
    assert player_view(deal, 0).must_lead is None


def test_R_INFO_taken_cards_are_seen_by_taker_and_taken_only() -> None:
    deal = make_deal(["5h 2c", "Kh 3c", "9h 4c", "3h 8c"], waste="2d", takes="any", take_protocol="interject", leader=0)
    deal.take(2)  # seat 2 takes seat 3's hand
    for seat in (2, 3):
        (event,) = [e for e in player_view(deal, seat).history if e.kind == EventKind.TAKE]
        assert set(event.cards) == card_set("3h 8c")
    for seat in (None, 0, 1):
        (event,) = [e for e in player_view(deal, seat).history if e.kind == EventKind.TAKE]
        assert (event.seat, event.other) == (2, 3)  # who took whose hand is public
        assert event.cards == () and event.hidden == 2
        assert player_view(deal, seat).takes == ((2, 3),)


def test_R_INFO_spectator_has_no_hand_and_no_actions() -> None:
    deal = make_deal(["5h 2c", "Kh 3c", "9h 4c"], waste="2d")
    view = player_view(deal, None)
    assert view.seat is None and view.hand is None and view.hand_mask == 0
    assert view.legal_actions == ()
    assert view.hand_sizes == (2, 2, 2)
    text = json.dumps(view.to_dict(), ensure_ascii=False)
    for seat in range(3):
        for card in deal.hand(seat):
            assert str(card) not in text
    with pytest.raises(ValueError):
        player_view(deal, 3)
