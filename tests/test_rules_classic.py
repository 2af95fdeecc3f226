"""RULES.md §3, profile ``classic``: one test per rule id, each from an explicit position
(seats 0, 1, 2, 3 = A, B, C, D), plus the engine's R-LOOP interpretation."""

from __future__ import annotations

import random

import pytest

from conftest import card_set, kinds, make_deal, play_all, play_out
from getaway import ACE_OF_SPADES, Deal, EventKind, IllegalActionError, Rules, RulesError, Termination
from getaway.core.cards import Card
from getaway.core.match import Match, choose_dealer


def _hand(deal: Deal, seat: int) -> set[Card]:
    return set(deal.hand(seat))


# ---------------------------------------------------------------------------------- R-C-PLAYERS


@pytest.mark.parametrize("players", [1, 9, 0])
def test_R_C_PLAYERS_fewer_than_2_or_more_than_8_is_refused(players: int) -> None:
    with pytest.raises(RulesError) as info:
        Rules.profile("classic", players=players)
    assert info.value.option == "players"


@pytest.mark.parametrize("players", range(2, 9))
def test_R_C_PLAYERS_2_to_8_players_can_play(players: int) -> None:
    deal = Deal(Rules.profile("classic", players=players), dealer=0, seed=players)
    assert deal.players == players and deal.decision == "play"
    assert sum(deal.hand_sizes) == 52


def test_R_C_PLAYERS_4_is_the_default_and_2_players_get_26_cards_each() -> None:
    assert Rules.profile("classic").players == 4
    assert Deal(Rules.profile("classic", players=2), dealer=1, seed=0).hand_sizes == (26, 26)


# ---------------------------------------------------------------------------------- R-C-DEALER


class _ScriptedCuts:
    """A stand-in generator whose shuffles put the given cards on top of the pack, in order."""

    def __init__(self, *cuts: str) -> None:
        self._cuts = [[Card.parse(c) for c in cut.split()] for cut in cuts]

    def shuffle(self, pack: list[int]) -> None:
        top = self._cuts.pop(0)
        rest = [c for c in pack if c not in top]
        pack[:] = [int(c) for c in top] + rest


def test_R_C_DEALER_lowest_cut_deals_2_low_ace_high() -> None:
    rules = Rules.profile("classic", players=4)
    assert rules.dealer == "cut"
    dealer, rounds = choose_dealer(rules, _ScriptedCuts("As 5h 2d 9c"))
    assert dealer == 2  # the 2 is low, the ace high
    assert rounds == [[(0, Card.parse("As")), (1, Card.parse("5h")), (2, Card.parse("2d")), (3, Card.parse("9c"))]]


def test_R_C_DEALER_ties_by_rank_cut_again_among_the_tied_players() -> None:
    rules = Rules.profile("classic", players=4)
    dealer, rounds = choose_dealer(rules, _ScriptedCuts("5s 3h 3c 9d", "Ks 4d"))
    assert [[seat for seat, _ in cut] for cut in rounds] == [[0, 1, 2, 3], [1, 2]]
    assert dealer == 2


def test_R_C_DEALER_the_deal_then_rotates_clockwise() -> None:
    rng = random.Random(1)
    match = Match(Rules.profile("classic", players=3, deals=4), 3, seed=11)
    assert match.cuts and match.deal.dealer == match.first_dealer
    while True:
        play_out(match.deal, rng)
        if match.finished:
            break
        match.next_deal()
    assert [d.dealer for d in match.deals] == [(match.first_dealer + i) % 3 for i in range(4)]


# ---------------------------------------------------------------------------------- R-C-FIRST


def test_R_C_FIRST_led_with_the_ace_of_spades_otherwise_an_ordinary_trick() -> None:
    deal = make_deal(["As 2h", "3h 4h", "5s 6d"], profile="classic", leader=0, first_trick_done=False)
    assert list(deal.legal_actions()) == [ACE_OF_SPADES]
    events = deal.play("As")
    # unlike punjab's first trick, a void player picks up at once
    assert [(e.kind, e.seat) for e in events[1:]] == [(EventKind.VOID, 1), (EventKind.PICKUP, 1), (EventKind.LEAD, 1)]
    assert _hand(deal, 1) == card_set("3h 4h As")
    assert deal.first_trick_done and deal.to_act == 1
    assert set(deal.legal_actions()) == card_set("3h 4h As")  # any card: the first trick is over


# ---------------------------------------------------------------------------------- R-C-TRICK


def test_R_C_TRICK_void_player_plays_no_card_picks_up_and_leads() -> None:
    deal = make_deal(["5h 2c", "9h 3c", "4c 5c", "Kh 6c"], profile="classic")
    deal.play("5h")
    events = deal.play("9h")
    # C cannot follow: plays no card, picks up what was played, leads; D does not play
    assert [(e.kind, e.seat) for e in events] == [
        (EventKind.PLAY, 1),
        (EventKind.VOID, 2),
        (EventKind.PICKUP, 2),
        (EventKind.LEAD, 2),
    ]
    assert set(events[2].cards) == card_set("5h 9h")
    assert _hand(deal, 2) == card_set("4c 5c 5h 9h")
    assert _hand(deal, 3) == card_set("Kh 6c")
    assert deal.trick == () and deal.waste == ()  # the trick is abandoned
    assert deal.to_act == 2 and set(deal.legal_actions()) == card_set("4c 5c 5h 9h")


def test_R_C_TRICK_void_player_never_gets_a_turn_to_play_a_card() -> None:
    deal = make_deal(["5h 2c", "3c 4c", "Kh 6c"], profile="classic")
    events = deal.play("5h")  # B is void: picks up the 5♥ at once
    assert [(e.kind, e.seat) for e in events[1:]] == [(EventKind.VOID, 1), (EventKind.PICKUP, 1), (EventKind.LEAD, 1)]
    assert _hand(deal, 1) == card_set("3c 4c 5h")
    assert deal.snapshot()["pickups"] == [0, 1, 0]


# ---------------------------------------------------------------------------------- R-C-WON


def test_R_C_WON_everyone_followed_highest_wins_trick_goes_to_waste() -> None:
    deal = make_deal(["5h 2c", "9h 3c", "2h 4c", "Kh 6c"], profile="classic")
    events = play_all(deal, "5h 9h 2h Kh")
    assert [(e.kind, e.seat) for e in events[-2:]] == [(EventKind.WASTE, 3), (EventKind.LEAD, 3)]
    assert set(deal.waste) == card_set("5h 9h 2h Kh")
    assert EventKind.PICKUP not in kinds(events)
    assert deal.to_act == 3 and deal.hand_sizes == (1, 1, 1, 1)


# ---------------------------------------------------------------------------------- R-C-OUT


def test_R_C_OUT_last_card_gets_away_at_once_even_mid_trick() -> None:
    deal = make_deal(["5h", "9h 3c", "2h 4c", "Kh 6c"], profile="classic")
    events = deal.play("5h")  # the leader's last card
    assert (EventKind.OUT, 0) in [(e.kind, e.seat) for e in events]
    assert deal.has_got_away(0) and deal.out_order == ((0,),)
    assert deal.to_act == 1  # the trick goes on
    play_all(deal, "9h 2h Kh")
    assert deal.to_act == 3
    deal.play("6c")
    assert deal.to_act == 1  # seat 0 left the rotation: skipped after seat 3


def test_R_C_OUT_lead_passes_to_next_active_left_of_a_winner_who_got_away() -> None:
    deal = make_deal(["Ah", "9h", "2h 4c", "3h 6c"], profile="classic")
    play_all(deal, "Ah 9h")  # A and B both play their last card: each gets away at once
    assert deal.out_order == ((0,), (1,))
    events = play_all(deal, "2h 3h")
    assert [(e.kind, e.seat) for e in events[-2:]] == [(EventKind.WASTE, 0), (EventKind.LEAD, 2)]
    assert deal.leader == 2 and deal.to_act == 2  # A won; B (next left) has got away too: C leads


def test_R_C_OUT_a_void_player_picking_up_the_last_card_of_the_other_loses() -> None:
    deal = make_deal(["5h", "2c"], profile="classic")
    deal.play("5h")  # A got away at once; B is void and picks up: B alone holds cards
    assert deal.outcome.loser == 1 and deal.outcome.out_order == ((0,),)
    assert deal.outcome.termination == Termination.LAST_HOLDER


# ---------------------------------------------------------------------------------- R-C-TIE


def test_R_C_TIE_last_holders_all_get_away_on_one_trick_no_loser() -> None:
    deal = make_deal(["5h", "Kh"], profile="classic")
    deal.play("5h")
    assert deal.has_got_away(0) and not deal.is_over  # the end is checked when the trick ends
    events = deal.play("Kh")
    assert events[-1] == (EventKind.OVER, None, (), None, Termination.NO_LOSER, 0)
    outcome = deal.outcome
    assert outcome.loser is None and outcome.termination == "no_loser"
    assert outcome.out_order == ((0,), (1,))


def test_R_C_TIE_three_players_last_two_get_away_together() -> None:
    deal = make_deal(["5h", "", "Kh"], profile="classic")
    play_all(deal, "5h Kh")
    assert deal.outcome.loser is None
    assert deal.outcome.termination == Termination.NO_LOSER
    assert deal.outcome.out_order == ((1,), (0,), (2,))


# ---------------------------------------------------------------------------------- R-C-SCORE


def test_R_C_SCORE_a_single_deal_is_won_by_the_first_player_out_and_records_the_order() -> None:
    deal = make_deal(["5h 2c", "9h", "2h 4c 5c", "Kh"], profile="classic")
    play_all(deal, "5h 9h 2h Kh")  # B and D get away; D won but is out: A (next left) leads
    assert deal.out_order == ((1,), (3,)) and deal.to_act == 0
    play_all(deal, "2c 4c")
    outcome = deal.outcome
    assert outcome.winners == (1,)
    assert outcome.out_order == ((1,), (3,), (0,))
    assert outcome.loser == 2 and outcome.places == (3, 1, 4, 2)


def test_R_C_SCORE_one_penalty_point_per_lost_deal_fewest_points_wins() -> None:
    rules = Rules.profile("classic", players=3, deals=11)
    assert Rules.profile("classic").deals == 7  # the number of deals is an option
    rng = random.Random(5)
    match = Match(rules, ["Ann", "Bob", "Cy"], seed=3)
    while True:
        play_out(match.deal, rng)
        if match.finished:
            break
        match.next_deal()
    assert len(match.deals) == 11
    losses = [0, 0, 0]
    for i, deal in enumerate(match.deals):
        loser = deal.outcome.loser
        expected = [0, 0, 0]
        if loser is not None:  # a drawn deal (R-C-TIE) scores nothing
            expected[loser] = 1
            losses[loser] += 1
        assert match.deal_points(i) == tuple(expected)
    table = {s.seat: s for s in match.standings()}
    for seat in range(3):
        assert table[seat].points == table[seat].losses == losses[seat]
        assert table[seat].place == 1 + sum(1 for other in losses if other < losses[seat])


# ---------------------------------------------------------------------------------- R-LOOP (interpretation)


def test_R_LOOP_two_players_who_can_never_complete_a_trick_end_by_repetition() -> None:
    deal = make_deal(["2s 2h", "2d 2c"], profile="classic")
    rng = random.Random(0)
    play_out(deal, rng)
    outcome = deal.outcome
    assert outcome.termination == Termination.REPETITION == "repetition"
    assert deal.hand_sizes == (2, 2) and outcome.loser is None  # equal cards: classic has no loser
    assert outcome.out_order == ((0, 1),)


def test_R_LOOP_the_player_with_most_cards_loses() -> None:
    deal = make_deal(["2s 2h", "2d 2c 3c"], profile="classic")
    deal.play("2s")  # B is void in spades: picks up; B now holds 4 cards
    assert deal.to_act == 1
    for _ in range(40):
        if deal.is_over:
            break
        deal.apply(deal.legal_actions()[0])
    outcome = deal.outcome
    assert outcome.termination == Termination.REPETITION
    sizes = deal.hand_sizes
    assert sizes[0] != sizes[1]
    assert outcome.loser == max((0, 1), key=lambda s: sizes[s])


def test_R_LOOP_a_third_visit_ends_the_deal_not_a_second() -> None:
    deal = make_deal(["2s 2h", "2d 2c"], profile="classic")
    starts = []
    while not deal.is_over:
        if not deal.trick:
            starts.append((deal.hand_sizes, deal.leader, tuple(deal.hand(0))))
        deal.apply(deal.legal_actions()[0])
    # the deal ends when a position begins a trick for the third time
    assert max(starts.count(s) for s in starts) == 2
    with pytest.raises(IllegalActionError) as info:
        deal.play("2s", seat=0)
    assert info.value.reason == "deal_over"


# ---------------------------------------------------------------------------------- R-P-PENALTY under classic


def test_R_P_PENALTY_penalize_also_works_under_classic_revoke_and_out_of_turn() -> None:
    deal = make_deal(["2h 9s", "5h 3c", "7h 4d", "8h Ks"], profile="classic", enforcement="penalize")
    deal.play("2h")
    events = deal.play("3c")  # seat 1 holds the 5♥
    assert events[0].reason == "revoke"
    assert _hand(deal, 1) == card_set("5h 2h 3c") and deal.to_act == 1
    deal.play("5h")
    events = deal.play("Ks", seat=3)  # seat 2 is on turn
    assert events[0].reason == "out_of_turn"
    assert _hand(deal, 3) == card_set("8h Ks 5h") and deal.to_act == 3
