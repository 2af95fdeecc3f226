"""RULES.md §2, profile ``punjab``: one test per rule id, the seeds' worked example, the FAQ
points and the edge cases, each from an explicit position (seats 0, 1, 2, 3 = A, B, C, D)."""

from __future__ import annotations

import random

import pytest

from conftest import card_set, kinds, make_deal, play_all, play_out
from getaway import (
    ACE_OF_SPADES,
    PASS,
    PICKUP,
    TAKE,
    Card,
    Deal,
    EventKind,
    IllegalActionError,
    Position,
    Rules,
    RulesError,
    Termination,
    player_view,
)
from getaway.core.match import Match


def _hand(deal: Deal, seat: int) -> set[Card]:
    return set(deal.hand(seat))


def _events_of(deal: Deal, kind: str) -> list:
    return [e for e in deal.events if e.kind == kind]


# ---------------------------------------------------------------------------------- R-P-PLAYERS


@pytest.mark.parametrize("players", [2, 9, 1, 0])
def test_R_P_PLAYERS_fewer_than_3_or_more_than_8_is_refused(players: int) -> None:
    with pytest.raises(RulesError) as info:
        Rules.profile("punjab", players=players)
    assert info.value.option == "players"
    assert str(info.value).startswith("players:")


@pytest.mark.parametrize("players", range(3, 9))
def test_R_P_PLAYERS_3_to_8_players_can_play(players: int) -> None:
    deal = Deal(Rules.profile("punjab", players=players, takes="off"), dealer=0, seed=players)
    assert deal.players == players and deal.decision == "play"


# ---------------------------------------------------------------------------------- R-P-DEALER


def test_R_P_DEALER_first_dealer_drawn_by_lot_then_the_deal_passes_left() -> None:
    rules = Rules.profile("punjab", players=5, deals=6, takes="off")
    firsts = set()
    for seed in range(12):
        match = Match(rules, 5, seed=seed)
        assert match.cuts == []  # by lot, not by cutting
        firsts.add(match.first_dealer)
    assert len(firsts) > 1  # the lot varies with the seed
    rng = random.Random(0)
    match = Match(rules, 5, seed=1)
    while True:
        play_out(match.deal, rng)
        if match.finished:
            break
        match.next_deal()
    assert [d.dealer for d in match.deals] == [(match.first_dealer + i) % 5 for i in range(6)]


def test_R_P_DEALER_dealing_starts_left_of_the_dealer() -> None:
    assert Rules.profile("punjab").dealer == "lot"
    # the dealer's left neighbour is dealt first, so gets the extra card of an uneven pack
    for dealer in range(3):
        deal = Deal(Rules.profile("punjab", players=3), dealer=dealer, seed=1)
        assert deal.dealer == dealer
        assert deal.hand_sizes[(dealer + 1) % 3] == 18


# ---------------------------------------------------------------------------------- R-P-FIRST


def test_R_P_FIRST_offsuit_card_causes_no_pickup() -> None:
    # FAQ: an off-suit card on the first trick causes no pickup.
    deal = make_deal(["As 2h", "3s 4h", "5h 6d", "7s 8c"], leader=0, first_trick_done=False)
    deal.play("As")
    assert [str(c) for c in deal.legal_actions()] == ["3♠"]  # a spade if they have one
    deal.play("3s")
    assert [str(c) for c in deal.legal_actions()] == ["5♥", "6♦"]  # no spade: any card
    events = deal.play("6d")
    assert EventKind.TOCHOO not in kinds(events) and EventKind.PICKUP not in kinds(events)
    assert deal.to_act == 3  # the trick goes on: the off-suit card did not interrupt it
    events = deal.play("7s")
    assert EventKind.PICKUP not in kinds(events)
    assert set(deal.waste) == card_set("As 3s 6d 7s")  # the whole trick, face down
    assert deal.first_trick_done
    assert deal.leader == 0 and deal.to_act == 0  # the A♠ holder leads the second trick
    assert _hand(deal, 2) == card_set("5h")
    assert deal.outcome is None and all(p == 0 for p in deal.snapshot()["pickups"])


def test_R_P_FIRST_every_player_plays_one_card_then_ace_holder_leads_any_card() -> None:
    deal = make_deal(["2c As 9h", "3s 4h 4d", "5h 6d 7d", "8c 9c Tc"], leader=0, first_trick_done=False)
    play_all(deal, "As 3s 5h 8c")  # two players without spades: still no pickup
    assert deal.tricks_played == 1 and deal.waste_size == 4
    assert deal.hand_sizes == (2, 2, 2, 2)
    assert [str(c) for c in deal.legal_actions()] == ["9♥", "2♣"]
    deal.play("2c")
    assert deal.to_act == 1


# ---------------------------------------------------------------------------------- worked example, FAQ


def test_worked_example_tochoo_B_picks_up_three_cards_and_leads() -> None:
    # A leads 8♥, B plays Q♥, C has no heart and plays 3♣ (tochoo); D does not play.
    deal = make_deal(["8h 2s", "Qh 3s", "3c 4s", "Kh 6s"], waste="2d")
    play_all(deal, "8h Qh")
    events = deal.play("3c")
    assert kinds(events) == [EventKind.PLAY, EventKind.TOCHOO, EventKind.PICKUP, EventKind.LEAD]
    pickup = events[2]
    assert pickup.seat == 1 and set(pickup.cards) == card_set("8h Qh 3c")
    assert _hand(deal, 1) == card_set("3s 8h Qh 3c")  # B picks up the three cards
    assert _hand(deal, 2) == card_set("4s")  # C does not pick up
    assert _hand(deal, 3) == card_set("Kh 6s")  # D did not play (the K♥ would have been higher)
    assert not any(e.seat == 3 for e in deal.events)
    assert deal.leader == 1 and deal.to_act == 1  # B leads the next trick
    assert deal.trick == ()
    assert deal.waste == (Card.parse("2d"),)  # nothing went to the waste


def test_FAQ_after_a_tochoo_the_highest_led_card_picks_up_not_the_tochoo_player() -> None:
    deal = make_deal(["Kh 2s", "2h 3s", "3c 4s", "4h 6s"], waste="2d")
    events = play_all(deal, "Kh 2h 3c")
    (pickup,) = [e for e in events if e.kind == EventKind.PICKUP]
    assert pickup.seat == 0  # the leader's K♥ is the highest heart
    assert _hand(deal, 0) == card_set("2s Kh 2h 3c")
    assert _hand(deal, 2) == card_set("4s")  # the tochoo player picks up nothing
    assert deal.to_act == 0


def test_FAQ_a_winning_last_card_does_not_free_its_player() -> None:
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c")
    events = play_all(deal, "2h Ah 5h")  # B wins with the A♥, its last card
    assert not deal.has_got_away(1)
    assert EventKind.OUT not in kinds(events)
    assert deal.leader == 1 and deal.to_act == 1
    assert _hand(deal, 1) == card_set("9c")  # drawn from the waste: B must lead again


# ---------------------------------------------------------------------------------- R-P-TRICK


def test_R_P_TRICK_tochoo_stops_the_trick_highest_led_card_picks_up_all_and_leads() -> None:
    deal = make_deal(["5h 2c", "Kh 3c", "9c 4c", "Ah 4d"], waste="2d")
    play_all(deal, "5h Kh")
    assert [str(c) for c in deal.legal_actions()] == ["4♣", "9♣"]  # void: any card is a tochoo
    events = deal.play("9c")
    assert events[1] == (EventKind.TOCHOO, 2, (Card.parse("9c"),), None, None, 0)
    # the trick stops at once: D (holding the A♥) does not play; B's K♥ is the highest so far
    assert _hand(deal, 3) == card_set("Ah 4d")
    assert _hand(deal, 1) == card_set("3c 5h Kh 9c")  # tochoo included
    assert deal.leader == 1 and deal.to_act == 1
    assert deal.tricks_played == 1
    assert deal.snapshot()["pickups"] == [0, 1, 0, 0]


# ---------------------------------------------------------------------------------- R-P-WON


def test_R_P_WON_trick_everyone_followed_goes_to_waste_highest_card_leads() -> None:
    deal = make_deal(["5h 2c", "Kh 3c", "9h 4c", "2h 4d"], waste="2d")
    events = play_all(deal, "5h Kh 9h 2h")
    waste = [e for e in events if e.kind == EventKind.WASTE]
    assert len(waste) == 1 and waste[0].seat == 1
    assert set(deal.waste) == card_set("2d 5h Kh 9h 2h")  # for good
    assert EventKind.PICKUP not in kinds(events)
    assert deal.leader == 1 and deal.to_act == 1
    assert deal.hand_sizes == (1, 1, 1, 1)


# ---------------------------------------------------------------------------------- R-P-OUT


def test_R_P_OUT_empty_hands_get_away_when_the_trick_is_resolved_except_the_next_leader() -> None:
    deal = make_deal(["2h", "3h", "Kh 4c", "4h 5c"], waste="2d")
    deal.play("2h")
    assert not deal.has_got_away(0)  # not at once: only when the trick is resolved
    events = play_all(deal, "3h Kh 4h")
    outs = [e for e in events if e.kind == EventKind.OUT]
    assert {e.seat for e in outs} == {0, 1} and {e.other for e in outs} == {1}  # same moment, same place
    assert deal.out_order == ((0, 1),)
    assert deal.active == (2, 3)
    assert deal.to_act == 2


def test_R_P_OUT_a_leader_whose_last_card_is_picked_up_by_another_gets_away() -> None:
    deal = make_deal(["5h", "Kh 2c", "3c 4c"], waste="2d")
    play_all(deal, "5h Kh 3c")
    assert deal.out_order == ((0,),)
    assert deal.to_act == 1 and _hand(deal, 1) == card_set("2c 5h Kh 3c")


def test_R_P_OUT_the_picker_never_gets_away() -> None:
    deal = make_deal(["Kh", "3c", "2h 4c", "Ah 4d"], waste="2d")
    deal.play("Kh")  # the leader's last card
    deal.play("3c")  # B's tochoo, also B's last card
    assert deal.has_got_away(1)  # the tochoo player gets away
    assert not deal.has_got_away(0)  # the picker, whose hand was empty, is back in play
    assert _hand(deal, 0) == card_set("Kh 3c") and deal.to_act == 0


# ---------------------------------------------------------------------------------- R-P-DRAW


@pytest.mark.parametrize("seed", range(4))
def test_R_P_DRAW_leader_with_empty_hand_draws_blind_from_the_waste_before_this_trick(seed: int) -> None:
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c", seed=seed)
    events = play_all(deal, "2h Ah 5h")
    assert kinds(events)[-3:] == [EventKind.DRAW, EventKind.WASTE, EventKind.LEAD]
    draw = events[-3]
    # the waste before this trick held only the 9♣: the draw cannot be a card of this trick
    assert draw.seat == 1 and draw.cards == (Card.parse("9c"),)
    assert set(deal.waste) == card_set("2h Ah 5h")  # the trick joins the waste after the draw
    assert deal.forced_lead == Card.parse("9c")
    assert list(deal.legal_actions()) == [Card.parse("9c")]  # must lead the drawn card
    with pytest.raises(IllegalActionError) as info:
        deal.play("3d", seat=0)
    assert info.value.reason == "not_your_turn"
    deal.play("9c")
    assert deal.forced_lead is None


def test_R_P_DRAW_winner_of_a_trick_on_which_everyone_else_got_away_loses() -> None:
    # whether or not a card is drawn here (RULES.md draws; the engine has read it both ways),
    # nobody is left to play against: the winner loses.
    deal = make_deal(["2h", "Ah", "5h"], waste="9c")
    events = play_all(deal, "2h Ah 5h")
    assert deal.outcome.loser == 1
    assert deal.outcome.out_order == ((0, 2),)
    assert deal.outcome.termination == Termination.LAST_HOLDER
    assert kinds(events)[-1] == EventKind.OVER


# ---------------------------------------------------------------------------------- edge cases


def test_edge_last_card_played_earlier_in_trick_picker_is_back_in_play() -> None:
    deal = make_deal(["2h 5d", "Kh", "3c 4c", "Ah 4d"], waste="2d")
    play_all(deal, "2h Kh")  # B played its last card, the highest heart so far
    assert deal.hand(1) == () and not deal.has_got_away(1)
    deal.play("3c")  # tochoo
    assert _hand(deal, 1) == card_set("2h Kh 3c")
    assert not deal.has_got_away(1)
    assert deal.to_act == 1 and deal.out_order == ()


def test_edge_a_tochoo_that_is_its_players_last_card_gets_them_away() -> None:
    deal = make_deal(["2h 5d", "Kh 6d", "3c", "Ah 4d"], waste="2d")
    events = play_all(deal, "2h Kh 3c")
    assert [(e.seat, e.other) for e in events if e.kind == EventKind.OUT] == [(2, 1)]
    assert deal.out_order == ((2,),)
    assert _hand(deal, 1) == card_set("6d 2h Kh 3c")


def test_edge_everyones_last_card_in_one_completed_trick_K_player_loses() -> None:
    # three players left holding 5♥, K♥, 2♥ (seat 3 got away earlier); the 5♥ is led
    deal = make_deal(["5h", "Kh", "2h", ""], waste="9c")
    events = play_all(deal, "5h Kh 2h")
    outcome = deal.outcome
    assert outcome.loser == 1  # the K♥ player must lead, so cannot get away
    assert outcome.termination == Termination.LAST_HOLDER
    assert outcome.out_order == ((3,), (0, 2))
    assert outcome.places == (2, 4, 2, 1)
    assert kinds(events)[-1] == EventKind.OVER
    assert sum(1 for p in outcome.places if p == 4) == 1  # exactly one loser
    # docs/rules.md, "Everyone's last card in one trick": the K♥ player still draws (R-P-DRAW)
    assert [(e.seat, e.cards) for e in events if e.kind == EventKind.DRAW] == [(1, (Card.parse("9c"),))]
    assert _hand(deal, 1) == card_set("9c")


def test_edge_two_left_a_other_follows_higher_leader_gets_away_other_loses() -> None:
    deal = make_deal(["5h", "Kh 2c", ""], waste="9c")
    play_all(deal, "5h Kh")
    assert deal.outcome.loser == 1
    assert deal.outcome.out_order == ((2,), (0,))
    assert deal.outcome.termination == Termination.LAST_HOLDER


def test_edge_two_left_b_other_follows_lower_leader_draws_from_previous_waste_and_leads() -> None:
    deal = make_deal(["Kh", "5h 2c", ""], waste="9c")
    events = play_all(deal, "Kh 5h")
    draws = [e for e in events if e.kind == EventKind.DRAW]
    assert [(e.seat, e.cards) for e in draws] == [(0, (Card.parse("9c"),))]  # from the waste before the trick
    assert not deal.is_over and not deal.has_got_away(0)
    assert deal.to_act == 0 and list(deal.legal_actions()) == [Card.parse("9c")]
    assert set(deal.waste) == card_set("Kh 5h")


def test_edge_two_left_c_other_follows_lower_with_last_card_gets_away_leader_loses() -> None:
    deal = make_deal(["Kh", "5h", ""], waste="9c")
    events = play_all(deal, "Kh 5h")
    assert deal.outcome.loser == 0  # the leader must lead again, so loses
    assert [(e.seat, e.cards) for e in events if e.kind == EventKind.DRAW] == [(0, (Card.parse("9c"),))]  # R-P-DRAW
    assert deal.outcome.out_order == ((2,), (1,))
    assert deal.outcome.termination == Termination.LAST_HOLDER


def test_edge_two_left_d_tochoo_leader_picks_up_both_and_leads() -> None:
    deal = make_deal(["5h", "3c 4c", ""], waste="9c")
    play_all(deal, "5h 3c")
    assert _hand(deal, 0) == card_set("5h 3c")
    assert _hand(deal, 1) == card_set("4c")
    assert deal.to_act == 0 and not deal.is_over


def test_edge_two_left_d_tochoo_was_the_others_last_card_other_gets_away_leader_loses() -> None:
    deal = make_deal(["5h", "3c", ""], waste="9c")
    play_all(deal, "5h 3c")
    assert deal.outcome.loser == 0
    assert deal.outcome.out_order == ((2,), (1,))
    assert _hand(deal, 0) == card_set("5h 3c")


@pytest.mark.parametrize(
    "players, sizes",
    [
        (3, [18, 17, 17]),
        (4, [13, 13, 13, 13]),
        (5, [11, 11, 10, 10, 10]),
        (6, [9, 9, 9, 9, 8, 8]),
        (7, [8, 8, 8, 7, 7, 7, 7]),
        (8, [7, 7, 7, 7, 6, 6, 6, 6]),
    ],
)
def test_edge_hand_sizes_extras_go_to_the_first_players_after_the_dealer(players: int, sizes: list[int]) -> None:
    for dealer in (0, players - 1, players // 2):
        deal = Deal(Rules.profile("punjab", players=players), dealer=dealer, seed=dealer)
        from_left = [deal.hand_sizes[(dealer + 1 + i) % players] for i in range(players)]
        assert from_left == sizes


# ---------------------------------------------------------------------------------- R-P-TAKE


def _take_deal(hands: list[str], *, leader: int = 0, first_trick_done: bool = True, **options: object) -> Deal:
    options.setdefault("takes", "any")
    waste = "2d" if first_trick_done else ()
    return make_deal(hands, leader=leader, first_trick_done=first_trick_done, waste=waste, **options)


def test_R_P_TAKE_poll_asks_each_active_player_once_clockwise_from_the_leader() -> None:
    deal = _take_deal(["2h 3h", "4h 5h", "", "6h 7h", "8h 9h"], leader=1)
    asked = []
    while deal.decision == "take":
        asked.append(deal.to_act)
        assert list(deal.legal_actions()) == [TAKE, PASS]
        assert not deal.legal_actions((deal.to_act + 1) % 5)
        events = deal.pass_()
        assert kinds(events) == [EventKind.PASS]
    assert asked == [1, 3, 4, 0]  # seat 2 got away: not asked
    assert deal.decision == "play" and deal.to_act == 1


def test_R_P_TAKE_poll_happens_before_the_first_trick_too() -> None:
    deal = _take_deal(["As 2h", "3s 4h", "5h 6d"], first_trick_done=False)
    assert deal.decision == "take" and deal.to_act == 0
    deal.pass_()
    deal.pass_()
    deal.pass_()
    assert deal.decision == "play" and list(deal.legal_actions()) == [ACE_OF_SPADES]


def test_R_P_TAKE_a_card_during_the_poll_is_refused_with_who_must_answer() -> None:
    """The seat asked must answer take or pass first; the message says so whether the card
    comes from that seat or another (and a pickup is refused the same way)."""
    deal = _take_deal(["As 2h", "3s 4h", "5h 6d"], first_trick_done=False)
    before = deal.snapshot()
    with pytest.raises(IllegalActionError, match="seat 0 must first answer the take poll") as own:
        deal.apply("As", 0)
    with pytest.raises(IllegalActionError, match="the take poll is asking seat 0 first") as other:
        deal.apply("3s", 1)
    with pytest.raises(IllegalActionError, match="seat 0 must first answer the take poll"):
        deal.apply(PICKUP, 0)
    assert own.value.reason == other.value.reason == "not_your_turn"
    assert deal.snapshot() == before


def test_R_P_TAKE_poll_skips_a_player_whose_hand_was_taken() -> None:
    deal = _take_deal(["2h 3h", "4h 5h", "6h 7h", "8h 9h"])
    deal.pass_()  # seat 0
    events = deal.take()  # seat 1 takes seat 2's hand
    assert kinds(events)[:2] == [EventKind.TAKE, EventKind.OUT]
    assert (events[0].seat, events[0].other) == (1, 2)
    assert _hand(deal, 1) == card_set("4h 5h 6h 7h") and deal.hand(2) == ()
    assert deal.has_got_away(2)
    assert deal.to_act == 3  # seat 2 is skipped
    deal.pass_()
    assert deal.decision == "play" and deal.to_act == 0
    assert deal.snapshot()["takes"] == [[1, 2]]


def test_R_P_TAKE_taker_of_the_leaders_hand_becomes_leader_with_the_ace_of_spades() -> None:
    deal = _take_deal(["2h 3h", "As 5h", "6h 7h", "8h 9h"], leader=1, first_trick_done=False)
    for _ in range(3):
        deal.pass_()  # seats 1, 2, 3
    assert deal.to_act == 0
    events = deal.take()  # seat 0 takes seat 1's hand, A♠ included
    assert (EventKind.LEAD, 0) in [(e.kind, e.seat) for e in events]
    assert deal.leader == 0 and deal.to_act == 0 and deal.decision == "play"
    assert list(deal.legal_actions()) == [ACE_OF_SPADES]


def test_R_P_TAKE_a_take_leaving_one_active_player_ends_the_deal_taker_loses() -> None:
    deal = _take_deal(["2h 3h", "4h 5h", ""])
    events = deal.take()
    assert kinds(events)[-1] == EventKind.OVER
    outcome = deal.outcome
    assert outcome.termination == Termination.TAKE == "take"
    assert outcome.loser == 0
    assert outcome.takes == ((0, 1),)
    assert outcome.out_order == ((2,), (1,))  # the taken player got away and cannot lose


def test_R_P_TAKE_takes_the_next_player_left_who_still_holds_cards() -> None:
    deal = _take_deal(["2h 3h", "", "", "8h 9h", "4c"])
    deal.take()  # seats 1 and 2 got away: seat 0 takes seat 3's hand
    assert deal.outcome is None
    assert _hand(deal, 0) == card_set("2h 3h 8h 9h")
    assert deal.has_got_away(3) and deal.snapshot()["takes"] == [[0, 3]]


def test_R_P_TAKE_leader_option_only_the_player_due_to_lead_is_asked() -> None:
    deal = _take_deal(["2h 3h", "4h 5h", "6h 7h"], leader=1, takes="leader")
    assert deal.decision == "take" and deal.to_act == 1
    deal.pass_()
    assert deal.decision == "play" and deal.to_act == 1


def test_R_P_TAKE_leader_option_with_interject_refuses_other_takers() -> None:
    deal = _take_deal(["2h 3h", "4h 5h", "6h 7h"], leader=1, takes="leader", take_protocol="interject")
    assert TAKE in deal.legal_actions(1)
    assert TAKE not in deal.legal_actions(0)
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.take(0)
    assert info.value.reason == "take_not_allowed"
    assert deal.snapshot() == before
    deal.take(1)
    assert _hand(deal, 1) == card_set("4h 5h 6h 7h")


def test_R_P_TAKE_off_option_no_poll_and_takes_refused() -> None:
    deal = _take_deal(["2h 3h", "4h 5h", "6h 7h"], takes="off")
    assert deal.decision == "play"
    assert TAKE not in deal.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        deal.take(0)
    assert info.value.reason == "take_not_allowed"


def test_R_P_TAKE_interject_any_active_seat_may_take_before_the_lead_card() -> None:
    deal = _take_deal(["2h 3h", "4h 5h", "", "6h 7h", "8h 9h"], take_protocol="interject")
    assert deal.decision == "play" and deal.to_act == 0
    for seat in (0, 1, 3, 4):
        assert TAKE in deal.legal_actions(seat)
    assert not deal.legal_actions(2)  # got away
    deal.take(3)  # seat 3 takes seat 4's hand; the leader is still to lead
    assert deal.to_act == 0 and deal.has_got_away(4)
    deal.take(1)  # takes are applied in the order they arrive: seat 1 now takes seat 3 (seat 2 is out)
    assert _hand(deal, 1) == card_set("4h 5h 6h 7h 8h 9h")
    assert deal.snapshot()["takes"] == [[3, 4], [1, 3]]
    deal.play("2h")
    assert all(TAKE not in deal.legal_actions(s) for s in range(5))  # after the lead card: too late
    with pytest.raises(IllegalActionError) as info:
        deal.take(1)
    assert info.value.reason == "no_take_now"


def test_R_P_TAKE_interject_taking_the_leaders_hand_makes_the_taker_leader() -> None:
    deal = _take_deal(["2h 3h", "4h 5h", "6h 7h"], leader=1, take_protocol="interject")
    events = deal.take(0)
    assert (EventKind.LEAD, 0) in [(e.kind, e.seat) for e in events]
    assert deal.leader == 0 and deal.to_act == 0
    assert TAKE in deal.legal_actions(0)


def test_R_P_TAKE_forced_lead_lapses_when_the_drawers_hand_is_taken() -> None:
    # interpretation: the obligation to lead the drawn card was the drawer's.
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c", takes="any", take_protocol="interject")
    play_all(deal, "2h Ah 5h")
    assert deal.forced_lead == Card.parse("9c") and deal.to_act == 1
    deal.take(0)
    assert deal.leader == 0 and deal.forced_lead is None
    assert set(deal.legal_actions(0)) >= card_set("3d 9c")
    deal.play("3d")
    assert deal.trick[0] == (0, Card.parse("3d"))


def test_R_P_TAKE_poll_after_a_draw_starts_with_the_drawer_who_keeps_the_forced_lead() -> None:
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c", takes="any")
    for _ in range(3):
        deal.pass_()  # the poll before this trick
    play_all(deal, "2h Ah 5h")  # seat 1 wins with its last card and draws the 9♣
    assert deal.decision == "take" and deal.to_act == 1
    deal.take()  # the drawer takes seat 2's hand
    assert deal.forced_lead == Card.parse("9c")  # still the drawer's obligation
    assert deal.to_act == 0  # seat 2 got away and is not asked
    deal.pass_()
    assert deal.decision == "play" and deal.to_act == 1
    assert list(deal.legal_actions()) == [Card.parse("9c")]


# ---------------------------------------------------------------------------------- R-P-DRAW from a position


def _drawn_then_taken() -> Deal:
    """Seat 1 wins with its last card and draws the 9♣ blind; seat 0 then takes seat 1's hand."""
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c", takes="any", take_protocol="interject")
    play_all(deal, "2h Ah 5h")
    deal.take(0)
    return deal


def _drawn() -> Deal:
    """Seat 1 wins with its last card and draws the 9♣ blind: it must lead it."""
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c")
    play_all(deal, "2h Ah 5h")
    return deal


def _from_position(hands: list[list[str]], leader: int, forced: str | None, blind_draw: tuple[int, str], **options):  # noqa: ANN003, ANN202
    options.setdefault("takes", "off")
    rules = Rules.profile("punjab", players=len(hands), **options)
    position = Position.from_cards(
        hands, waste=["2h", "Ah", "5h"], leader=leader, first_trick_done=True, forced_lead=forced, blind_draw=blind_draw
    )
    return Deal(rules, dealer=0, position=position)


def _seen_by(deal: Deal, seat: int) -> tuple:
    view = player_view(deal, seat)
    return view.hand, view.waste_seen, view.waste_size, view.must_lead, view.legal_actions, view.to_act, view.leader


def test_R_P_DRAW_a_position_with_a_blind_draw_starts_with_the_waste_and_the_draw() -> None:
    deal = _from_position([["3d"], ["9c"], ["6c"]], leader=1, forced="9c", blind_draw=(1, "9c"))
    nine = Card.parse("9c")
    assert [(e.kind, e.seat, e.cards) for e in deal.events] == [
        (EventKind.WASTE, None, (nine,)),
        (EventKind.DRAW, 1, (nine,)),
    ]
    assert set(deal.waste) == card_set("2h Ah 5h")  # the drawn card is in the hand, not the waste
    assert deal.forced_lead == nine and deal.to_act == 1
    assert list(deal.legal_actions()) == [nine]
    assert deal.actions == ()  # no action: records replay from the position as before
    deal.play("9c")
    assert deal.forced_lead is None


def test_R_P_DRAW_the_drawer_sees_the_card_the_others_a_hidden_draw() -> None:
    real = _drawn()
    deal = _from_position([["3d"], ["9c"], ["6c"]], leader=1, forced="9c", blind_draw=(1, "9c"))
    nine = Card.parse("9c")
    drawer, other = player_view(deal, 1), player_view(deal, 2)
    assert drawer.history[-1].cards == (nine,) and drawer.must_lead == nine
    assert nine not in drawer.waste_seen
    assert other.history[-1].cards == () and other.history[-1].hidden == 1 and other.must_lead is None
    assert nine in other.waste_seen  # still where seat 2 believes it is
    for seat in range(3):  # every seat knows what it knows in the real deal
        assert _seen_by(deal, seat) == _seen_by(real, seat)
    assert player_view(deal, None).history[-1].cards == ()  # a spectator does not see it either


def test_R_P_DRAW_a_blind_card_held_by_the_taker_of_the_drawers_hand() -> None:
    real = _drawn_then_taken()
    deal = _from_position(
        [["3d", "9c"], [], ["6c"]], leader=0, forced=None, blind_draw=(0, "9c"), takes="any", take_protocol="interject"
    )
    assert deal.forced_lead is None and deal.has_got_away(1)
    for seat in (0, 2):
        assert _seen_by(deal, seat) == _seen_by(real, seat)
    assert Card.parse("9c") in player_view(deal, 2).waste_seen


def test_R_P_DRAW_a_blind_card_held_by_a_taker_while_the_leader_must_lead_another() -> None:
    position = Position.from_cards(
        [["3d", "9c"], ["8d"], ["6c"]],
        waste=["2h", "Ah", "5h"],
        leader=1,
        first_trick_done=True,
        forced_lead="8d",
        blind_draw=(0, "9c"),
    )
    deal = Deal(Rules.profile("punjab", players=3, takes="off"), position=position)
    assert player_view(deal, 1).must_lead == Card.parse("8d") and Card.parse("9c") in player_view(deal, 1).waste_seen
    assert list(deal.legal_actions()) == [Card.parse("8d")]


def test_R_P_DRAW_a_blind_draw_round_trips_and_old_positions_load_as_before() -> None:
    position = Position.from_cards(
        [["3d"], ["9c"], ["6c"]], waste=["2h"], leader=1, first_trick_done=True, forced_lead="9c", blind_draw=(1, "9c")
    )
    data = position.to_dict()
    assert data["blind_draw"] == {"seat": 1, "card": "9♣"}
    assert Position.from_dict(data) == position
    old = {
        "hands": [["3d"], ["9c"], ["6c"]],
        "waste": ["2h"],
        "leader": 1,
        "first_trick_done": True,
        "forced_lead": "9c",
    }
    loaded = Position.from_dict(old)
    assert loaded.blind_draw is None and loaded == Position.from_cards(
        [["3d"], ["9c"], ["6c"]], waste=["2h"], leader=1, first_trick_done=True, forced_lead="9c"
    )
    assert loaded.to_dict() == {**old, "hands": [["3♦"], ["9♣"], ["6♣"]], "waste": ["2♥"], "forced_lead": "9♣"}
    assert "blind_draw" not in loaded.to_dict()
    assert Deal(Rules.profile("punjab", players=3, takes="off"), position=loaded).events == ()


# ---------------------------------------------------------------------------------- R-P-NODRAW


@pytest.mark.parametrize(
    "takes, take_rate, how",
    [("off", 0.0, Termination.LAST_HOLDER), ("any", 0.02, Termination.LAST_HOLDER), ("any", 0.5, Termination.TAKE)],
)
def test_R_P_NODRAW_every_deal_has_exactly_one_loser(takes: str, take_rate: float, how: str) -> None:
    rng = random.Random(2024)
    endings = []
    for players in range(3, 9):
        for seed in range(6):
            deal = Deal(Rules.profile("punjab", players=players, takes=takes), dealer=seed % players, seed=seed)
            while not deal.is_over:
                if deal.decision == "take":
                    deal.apply(TAKE if rng.random() < take_rate else PASS)
                else:
                    deal.apply(rng.choice(deal.legal_actions()))
            outcome = deal.outcome
            endings.append(outcome.termination)
            assert outcome.loser is not None
            assert outcome.termination != Termination.NO_LOSER
            assert outcome.places.count(players) == 1 and outcome.places[outcome.loser] == players
            assert sorted(s for group in outcome.out_order for s in group) == sorted(
                s for s in range(players) if s != outcome.loser
            )
    assert endings.count(how) > len(endings) // 2  # the runs reach the endings they are meant to test


def test_R_P_NODRAW_even_when_every_last_card_falls_in_one_trick() -> None:
    deal = make_deal(["5h", "Kh", "2h", "3h"], waste="9c")
    play_all(deal, "5h Kh 2h 3h")
    assert deal.outcome.loser == 1
    assert deal.outcome.out_order == ((0, 2, 3),)


# ---------------------------------------------------------------------------------- R-P-SCORE


def test_R_P_SCORE_each_deal_records_one_loss_fewer_losses_rank_better_shared_places() -> None:
    rules = Rules.profile("punjab", players=4, deals=3, takes="off")
    seen_shared = False
    for seed in range(5):
        rng = random.Random(seed)
        match = Match(rules, ["A", "B", "C", "D"], seed=seed)
        while True:
            play_out(match.deal, rng)
            if match.finished:
                break
            match.next_deal()
        losses = [0] * 4
        for i, deal in enumerate(match.deals):
            points = match.deal_points(i)
            assert sorted(points) == [0, 0, 0, 1] and points[deal.outcome.loser] == 1  # tricks score nothing
            losses[deal.outcome.loser] += 1
        standings = match.standings()
        assert [s.place for s in standings] == sorted(s.place for s in standings)
        for s in standings:
            assert s.losses == s.points == losses[s.seat]
            assert s.place == 1 + sum(1 for other in losses if other < losses[s.seat])  # 1, 2, 2, 4
        seen_shared |= len({s.place for s in standings}) < 4
    assert seen_shared


# ---------------------------------------------------------------------------------- R-P-PENALTY

_PEN = ["2h 9s", "5h 3c Js", "7h 4d", "8h Ks"]


def test_R_P_PENALTY_penalize_revoke_offender_picks_up_and_leads() -> None:
    deal = make_deal(_PEN, waste="2d", enforcement="penalize")
    deal.play("2h")
    events = deal.play("3c")  # seat 1 holds the 5♥
    assert events[0] == (EventKind.IRREGULARITY, 1, (Card.parse("3c"),), None, "revoke", 0)
    assert [(e.kind, e.seat) for e in events[1:]] == [(EventKind.PICKUP, 1), (EventKind.LEAD, 1)]
    assert set(events[1].cards) == card_set("2h 3c")  # the trick with the card they played
    assert _hand(deal, 1) == card_set("5h Js 2h 3c")
    assert deal.leader == 1 and deal.to_act == 1 and deal.trick == ()
    assert _hand(deal, 2) == card_set("7h 4d") and _hand(deal, 3) == card_set("8h Ks")


def test_R_P_PENALTY_penalize_out_of_turn_offender_picks_up_and_leads() -> None:
    deal = make_deal(_PEN, waste="2d", enforcement="penalize")
    deal.play("2h")
    events = deal.play("7h", seat=2)  # seat 1 is on turn
    assert events[0] == (EventKind.IRREGULARITY, 2, (Card.parse("7h"),), None, "out_of_turn", 0)
    assert events[1].kind == EventKind.PICKUP and set(events[1].cards) == card_set("2h 7h")
    assert _hand(deal, 2) == card_set("4d 2h 7h")
    assert deal.leader == 2 and deal.to_act == 2
    assert _hand(deal, 1) == card_set("5h 3c Js")


def test_R_P_PENALTY_penalize_after_tochoo_offender_takes_over_the_trick_and_leads() -> None:
    deal = make_deal(["8h 2s", "Qh 3s", "3c 4s", "Kh 6s"], waste="2d", enforcement="penalize")
    play_all(deal, "8h Qh 3c")  # the worked example: B picked up
    events = deal.play("Kh", seat=3)  # D was still due in that trick
    assert events[0] == (EventKind.IRREGULARITY, 3, (Card.parse("Kh"),), None, "after_tochoo", 0)
    assert events[1].kind == EventKind.PICKUP and set(events[1].cards) == card_set("8h Qh 3c Kh")
    assert _hand(deal, 1) == card_set("3s")  # B gives the trick back
    assert _hand(deal, 3) == card_set("6s 8h Qh 3c Kh")
    assert deal.leader == 3 and deal.to_act == 3
    assert deal.snapshot()["pickups"] == [0, 0, 0, 1]
    assert deal.tricks_played == 1


def test_R_P_PENALTY_penalize_after_tochoo_a_picker_left_without_cards_gets_away() -> None:
    deal = make_deal(["2h 5d", "Kh", "3c 4c", "Ah 4d"], waste="2d", enforcement="penalize")
    play_all(deal, "2h Kh 3c")  # B played its last card and picked the trick up
    assert not deal.has_got_away(1)
    deal.play("Ah", seat=3)  # D takes the trick over: B's hand is empty again
    assert deal.hand(1) == () and deal.has_got_away(1)
    assert deal.out_order == ((1,),) and deal.to_act == 3


def test_R_P_PENALTY_penalize_after_tochoo_only_by_a_player_still_due_before_the_next_lead() -> None:
    deal = make_deal(["8h 2s", "Qh 3s", "3c 4s", "Kh 6s"], waste="2d", enforcement="penalize")
    play_all(deal, "8h Qh 3c")
    before = deal.snapshot()
    for seat, card in ((2, "4s"), (0, "2s")):  # the tochoo player and the leader had played
        with pytest.raises(IllegalActionError) as info:
            deal.play(card, seat=seat)
        assert info.value.reason == "not_your_turn"
        assert deal.snapshot() == before
    deal.play("3s")  # B leads: the chance for an after-tochoo penalty has passed
    events = deal.play("6s", seat=3)  # now it is an ordinary play out of turn
    assert events[0].reason == "out_of_turn"


def test_R_P_PENALTY_penalize_revoke_on_the_first_trick_ends_the_special_trick() -> None:
    deal = make_deal(["As 2h", "3s 4h", "5h 6d", "7s 8c"], leader=0, first_trick_done=False, enforcement="penalize")
    deal.play("As")
    events = deal.play("4h")  # seat 1 holds a spade
    assert events[0].reason == "revoke"
    assert _hand(deal, 1) == card_set("3s As 4h")
    assert deal.first_trick_done and deal.to_act == 1
    # the next trick is an ordinary one: a void player's card is a tochoo and causes a pickup
    deal.play("3s")
    events = deal.play("5h")
    assert EventKind.TOCHOO in kinds(events)
    assert [e.seat for e in events if e.kind == EventKind.PICKUP] == [1]


@pytest.mark.parametrize(
    "setup, seat, card, reason",
    [
        ("2h", 1, "3c", "must_follow_suit"),  # revoke
        ("2h", 2, "7h", "not_your_turn"),  # out of turn
        ("", 1, "5h", "not_your_turn"),  # before the lead
    ],
)
def test_R_P_PENALTY_strict_refuses_irregularities_state_unchanged(
    setup: str, seat: int, card: str, reason: str
) -> None:
    deal = make_deal(_PEN, waste="2d")
    assert deal.rules.enforcement == "strict"
    play_all(deal, setup)
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.play(card, seat=seat)
    assert info.value.reason == reason
    assert deal.snapshot() == before


def test_R_P_PENALTY_strict_refuses_a_play_after_the_tochoo() -> None:
    deal = make_deal(["8h 2s", "Qh 3s", "3c 4s", "Kh 6s"], waste="2d")
    play_all(deal, "8h Qh 3c")
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.play("Kh", seat=3)
    assert info.value.reason == "not_your_turn"
    assert deal.snapshot() == before


def test_R_P_PENALTY_strict_refuses_a_revoke_on_the_first_trick() -> None:
    deal = make_deal(["As 2h", "3s 4h", "5h 6d", "7s 8c"], leader=0, first_trick_done=False)
    deal.play("As")
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.play("4h")
    assert info.value.reason == "must_follow_suit"
    assert deal.snapshot() == before


def test_R_P_PENALTY_penalize_still_refuses_what_cannot_be_carried_out() -> None:
    deal = make_deal(_PEN, waste="2d", enforcement="penalize")
    before = deal.snapshot()
    cases = [
        (0, "Ac", "card_not_in_hand"),  # not in the hand
        (1, "5h", "not_your_turn"),  # a play before the lead by a non-leader
    ]
    for seat, card, reason in cases:
        with pytest.raises(IllegalActionError) as info:
            deal.play(card, seat=seat)
        assert info.value.reason == reason
        assert deal.snapshot() == before
    deal.play("2h")
    with pytest.raises(IllegalActionError) as info:
        deal.play("Ac", seat=1)
    assert info.value.reason == "card_not_in_hand"


def test_R_P_PENALTY_penalize_refuses_plays_during_the_take_poll() -> None:
    deal = make_deal(_PEN, waste="2d", enforcement="penalize", takes="any")
    assert deal.decision == "take"
    before = deal.snapshot()
    for seat, card in ((0, "2h"), (2, "7h")):
        with pytest.raises(IllegalActionError) as info:
            deal.play(card, seat=seat)
        assert info.value.reason == "not_your_turn"
        assert deal.snapshot() == before


def test_R_P_PENALTY_penalize_refuses_a_play_after_the_tochoo_once_the_take_poll_runs() -> None:
    # plays during the take poll are refused even when penalizing, an after-tochoo play included
    deal = make_deal(["8h 2s", "Qh 3s", "3c 4s", "Kh 6s"], waste="2d", enforcement="penalize", takes="any")
    for _ in range(4):
        deal.pass_()
    play_all(deal, "8h Qh 3c")
    assert deal.decision == "take" and deal.to_act == 1
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.play("Kh", seat=3)
    assert info.value.reason == "not_your_turn"
    assert deal.snapshot() == before


def test_R_P_PENALTY_penalize_after_tochoo_still_counts_after_the_poll_before_the_lead() -> None:
    deal = make_deal(["8h 2s", "Qh 3s", "3c 4s", "Kh 6s"], waste="2d", enforcement="penalize", takes="any")
    for _ in range(4):
        deal.pass_()
    play_all(deal, "8h Qh 3c")
    for _ in range(4):
        deal.pass_()  # nobody takes; B is to lead
    events = deal.play("Kh", seat=3)
    assert events[0].reason == "after_tochoo"
    assert _hand(deal, 3) == card_set("6s 8h Qh 3c Kh") and deal.to_act == 3


def test_R_P_PENALTY_penalize_after_tochoo_lapses_with_a_take() -> None:
    deal = make_deal(
        ["8h 2s", "Qh 3s", "3c 4s", "Kh 6s"], waste="2d", enforcement="penalize", takes="any", take_protocol="interject"
    )
    play_all(deal, "8h Qh 3c")
    deal.take(0)  # A takes B's hand (with the trick B picked up) and leads
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.play("Kh", seat=3)
    assert info.value.reason == "not_your_turn"
    assert deal.snapshot() == before


def test_R_P_PENALTY_penalize_refuses_a_wrong_lead() -> None:
    deal = make_deal(["As 2h", "3s 4h", "5h 6d"], leader=0, first_trick_done=False, enforcement="penalize")
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.play("2h")
    assert info.value.reason == "must_lead_ace_of_spades"
    assert deal.snapshot() == before
    # a drawer who took a hand holds other cards but must still lead the drawn one
    deal = make_deal(["2h 3d", "Ah", "5h 6c"], waste="9c", enforcement="penalize", takes="any")
    for _ in range(3):
        deal.pass_()
    play_all(deal, "2h Ah 5h")
    deal.take()  # seat 1, the drawer, takes seat 2's hand
    deal.pass_()
    assert deal.to_act == 1 and deal.forced_lead == Card.parse("9c")
    before = deal.snapshot()
    with pytest.raises(IllegalActionError) as info:
        deal.play("6c")
    assert info.value.reason == "must_lead_drawn_card"
    assert deal.snapshot() == before


def test_R_P_DRAW_a_blind_draw_given_as_a_plain_number_is_a_card_in_the_history() -> None:
    nine = Card.parse("9c")
    hands = tuple(1 << int(Card.parse(c)) for c in ("3d", "9c", "6c"))
    position = Position(hands, 1 << int(Card.parse("2h")), 1, True, nine, (1, int(nine)))
    deal = Deal(Rules.profile("punjab", players=3, takes="off"), position=position)
    assert [str(e.cards[0]) for e in deal.events] == ["9♣", "9♣"]


# ---------------------------------------------------------------------------------- R-LOOP under punjab


def _punjab_loop() -> Deal:
    """A punjab position that goes round for ever: three tochoos in a row hand the cards on,
    seat 1 → seat 2 → seat 0 → seat 1 leading, and the hands come back as they were.

    Seats 0, 1, 2 hold 3♦ 10♥ 4♥ / 7♦ 10♦ / 9♣ 4♣; seat 1 leads 10♦ and seat 2's tochoo 4♣
    gives seat 1 the start of the loop: 3♦ 10♥ 4♥ / 7♦ 10♦ 4♣ / 9♣, seat 1 to lead."""
    deal = make_deal(["3d 10h 4h", "7d 10d", "9c 4c"], waste="8d", leader=1)
    play_all(deal, "10d 4c")
    return deal


_ROUND = "4c 9c 4h  4h 10h 7d  7d 10d 4c"  # seat 1 leads, seat 2 picks up; seat 2 → 0; seat 0 → 1


def test_R_LOOP_punjab_a_position_that_comes_round_a_third_time_ends_the_deal() -> None:
    deal = _punjab_loop()
    start = [deal.hand(s) for s in range(3)]
    play_all(deal, _ROUND)
    assert [deal.hand(s) for s in range(3)] == start and deal.leader == 1 and not deal.is_over  # second time
    play_all(deal, _ROUND)  # the third time: the deal stops before seat 1 leads
    assert deal.is_over and deal.outcome.termination == Termination.REPETITION


def test_R_LOOP_punjab_tie_the_first_largest_hand_clockwise_from_the_leader_loses() -> None:
    """Seats 0 and 1 both hold 3 cards when the loop stops, seat 1 to lead: seat 1 (the leader
    included, first clockwise) loses, not seat 0 (the last tied clockwise, the lowest seat)."""
    deal = _punjab_loop()
    play_all(deal, _ROUND + " " + _ROUND)
    outcome = deal.outcome
    assert deal.hand_sizes == (3, 3, 1) and deal.leader == 1
    assert outcome.loser == 1  # R-P-NODRAW: exactly one loser, though two hands are largest
    assert len(outcome.out_order) == 1 and set(outcome.out_order[0]) == {0, 2}  # together, sharing a place
