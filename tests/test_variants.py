"""RULES.md §5, the variants: one test per rule, each from an explicit position (seats 0, 1,
2, 3 = A, B, C, D), including how each variant meets each profile's pick-up rule; then, for
every variant and profile, records of random deals that replay exactly, the rules' dict round
trip, and every pair of variants."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from conftest import card_set, kinds, make_deal, play_all
from getaway import (
    JOKER,
    PASS,
    PICKUP,
    TAKE,
    Card,
    Deal,
    EventKind,
    IllegalActionError,
    Rules,
    RulesError,
    Termination,
    parse_cards,
    player_view,
    replay,
)
from getaway.bots import RandomBot, play_deal
from getaway.core.deal import trick_winner
from getaway.core.match import Match
from getaway.core.record import deal_from_record, dumps, record_of

PROFILES = ("punjab", "classic")

#: Each variant's option, as given to ``Rules.profile``.
VARIANTS = {
    "trump": {"trump": "spades"},
    "nopickup": {"nopickup": True},
    "kicker": {"kicker": True},
    "dehla": {"dehla": True},
    "joker": {"joker": True},
    "beggar": {"beggar": True},
    "progressive": {"progressive": True},
}

#: The two pairs that contradict each other (RULES.md §5, docs/rules.md §7).
REFUSED = {("nopickup", "kicker"), ("beggar", "progressive")}


def _hand(deal: Deal, seat: int) -> set[Card]:
    return set(deal.hand(seat))


def _of_kind(events, kind: str) -> list:
    return [e for e in events if e.kind == kind]


def _cards(event) -> set[Card]:
    return set(event.cards)


# ================================================================================== V-TRUMP
# -- punjab: a ruff goes on, a later tochoo is picked up by the player winning the trick --


def test_V_TRUMP_ruff_does_not_interrupt_punjab_trick() -> None:
    # docs/rules.md example: A 9♦, B J♦, C (no diamonds) ruffs 4♠, D 2♦; C wins and leads
    deal = make_deal(["9d 2c", "Jd 3c", "4s 5h", "2d 6h"], waste="As", trump="spades")
    play_all(deal, "9d Jd")
    events = deal.play("4s")
    assert [(e.kind, e.seat) for e in events] == [(EventKind.PLAY, 2), (EventKind.RUFF, 2)]
    assert EventKind.TOCHOO not in kinds(events) and EventKind.PICKUP not in kinds(events)
    assert deal.to_act == 3 and len(deal.trick) == 3  # the trick goes on
    events = deal.play("2d")
    waste = _of_kind(events, EventKind.WASTE)
    assert len(waste) == 1 and waste[0].seat == 2 and _cards(waste[0]) == card_set("9d Jd 4s 2d")
    assert deal.leader == 2 and deal.to_act == 2
    assert deal.hand_sizes == (1, 1, 1, 1)  # nobody picked up


def test_V_TRUMP_punjab_completed_trick_is_won_by_the_highest_spade_not_the_last() -> None:
    deal = make_deal(["9d 2c", "8s 3c", "4s 5h", "2d 6h"], waste="As", trump="spades")
    events = play_all(deal, "9d 8s 4s 2d")  # B ruffs 8♠, C under-ruffs 4♠
    assert [e.seat for e in _of_kind(events, EventKind.RUFF)] == [1, 2]
    assert _of_kind(events, EventKind.WASTE)[0].seat == 1
    assert deal.leader == 1


def test_V_TRUMP_punjab_no_spade_played_highest_led_card_wins() -> None:
    deal = make_deal(["9d 2c", "Jd 3c", "3d 5s", "2d 6h"], waste="As", trump="spades")
    events = play_all(deal, "9d Jd 3d 2d")
    assert _of_kind(events, EventKind.RUFF) == []
    assert _of_kind(events, EventKind.WASTE)[0].seat == 1 and deal.leader == 1


def test_V_TRUMP_punjab_tochoo_after_a_ruff_is_picked_up_by_the_ruffer() -> None:
    # docs/rules.md: had D been void too and played 7♣, C (winning with 4♠) picks up all four
    deal = make_deal(["9d 2c", "Jd 3c", "4s 5h", "7c 6h"], waste="As", trump="spades")
    play_all(deal, "9d Jd 4s")
    events = deal.play("7c")
    assert [(e.kind, e.seat) for e in events[:3]] == [
        (EventKind.PLAY, 3),
        (EventKind.TOCHOO, 3),
        (EventKind.PICKUP, 2),
    ]
    assert _cards(events[2]) == card_set("9d Jd 4s 7c")
    assert _hand(deal, 2) == card_set("5h 9d Jd 4s 7c")
    assert deal.leader == 2 and deal.to_act == 2
    assert deal.waste == tuple(card_set("As"))


def test_V_TRUMP_punjab_tochoo_after_two_ruffs_goes_to_the_highest_spade() -> None:
    deal = make_deal(["9d 2c", "8s 3c", "4s 5h", "7c 6h"], waste="As", trump="spades")
    play_all(deal, "9d 8s 4s")
    events = deal.play("7c")
    pickup = _of_kind(events, EventKind.PICKUP)[0]
    assert pickup.seat == 1 and _cards(pickup) == card_set("9d 8s 4s 7c")
    assert deal.leader == 1


def test_V_TRUMP_punjab_void_player_who_plays_a_non_spade_is_a_normal_tochoo() -> None:
    deal = make_deal(["9d 2c", "Jd 3c", "4s 5h", "2d 6h"], waste="As", trump="spades")
    play_all(deal, "9d Jd")
    assert set(deal.legal_actions()) == card_set("4s 5h")  # ruff or any other card
    events = deal.play("5h")
    assert EventKind.RUFF not in kinds(events)
    pickup = _of_kind(events, EventKind.PICKUP)[0]
    assert pickup.seat == 1 and _cards(pickup) == card_set("9d Jd 5h")  # highest led card picks up
    assert _hand(deal, 3) == card_set("2d 6h")  # D did not play


def test_V_TRUMP_punjab_winning_ruff_with_the_last_card_draws_from_the_waste() -> None:
    deal = make_deal(["9d 2c", "Jd 3c", "4s", "2d 6h"], waste="As 2s", trump="spades")
    events = play_all(deal, "9d Jd 4s 2d")
    assert _of_kind(events, EventKind.WASTE)[0].seat == 2
    draw = _of_kind(events, EventKind.DRAW)[0]  # R-P-DRAW: the ruffer leads, so cannot get away
    assert draw.seat == 2 and not deal.has_got_away(2)
    assert deal.legal_actions() == [draw.cards[0]]


def test_V_TRUMP_punjab_first_trick_is_unaffected() -> None:
    deal = make_deal(["As 9d", "3s 4h", "5h 6d", "7s 8c"], first_trick_done=False, trump="spades")
    deal.play("As")
    assert list(deal.legal_actions()) == [Card.parse("3s")]  # a spade if they have one
    deal.play("3s")
    assert set(deal.legal_actions()) == card_set("5h 6d")  # otherwise any card
    play_all(deal, "6d 7s")
    assert _of_kind(deal.events, EventKind.RUFF) == []
    assert _of_kind(deal.events, EventKind.TOCHOO) == []
    assert _of_kind(deal.events, EventKind.PICKUP) == []
    assert set(deal.waste) == card_set("As 3s 6d 7s")
    assert deal.first_trick_done and deal.leader == 0 and deal.to_act == 0


@pytest.mark.parametrize("profile", PROFILES)
def test_V_TRUMP_spades_led_there_is_no_ruff(profile: str) -> None:
    deal = make_deal(["5s 2c", "9s 3c", "4h 6h", "2s 7h"], profile=profile, waste="As", trump="spades")
    events = play_all(deal, "5s 9s")  # B follows with a spade: not a ruff
    if profile == "punjab":
        events += deal.play("4h")  # C is void: a tochoo
        assert EventKind.TOCHOO in kinds(events)
        expected = card_set("5s 9s 4h")
        picker = 1
    else:
        expected = card_set("5s 9s")  # C is void (and has no spade): picks up at once
        picker = 2
    assert _of_kind(deal.events, EventKind.RUFF) == []
    pickup = _of_kind(events, EventKind.PICKUP)[0]
    assert pickup.seat == picker and _cards(pickup) == expected


# -- classic: a void player holding a spade chooses between ruffing and picking up --


def test_V_TRUMP_classic_void_player_with_spades_chooses_ruff_or_pickup() -> None:
    deal = make_deal(["9d 2c", "Jd 3c", "4s 8s 5h", "2d 6h"], profile="classic", waste="As", trump="spades")
    play_all(deal, "9d Jd")
    assert deal.to_act == 2
    assert deal.legal_actions() == [Card.parse("4s"), Card.parse("8s"), PICKUP]
    with pytest.raises(IllegalActionError) as info:
        deal.play("5h")  # no off-suit card: under classic a void player plays no card but a ruff
    assert info.value.reason == "cannot_play_when_void"
    assert len(deal.trick) == 2  # refused: nothing changed
    events = deal.pickup()
    assert [(e.kind, e.seat) for e in events] == [(EventKind.VOID, 2), (EventKind.PICKUP, 2), (EventKind.LEAD, 2)]
    assert _cards(events[1]) == card_set("9d Jd")
    assert _hand(deal, 2) == card_set("4s 8s 5h 9d Jd")
    assert _hand(deal, 3) == card_set("2d 6h") and deal.to_act == 2


def test_V_TRUMP_classic_ruff_does_not_interrupt_and_wins_the_trick() -> None:
    deal = make_deal(["9d 2c", "Jd 3c", "4s 8s 5h", "2d 6h"], profile="classic", waste="As", trump="spades")
    play_all(deal, "9d Jd")
    events = deal.play("4s")
    assert [(e.kind, e.seat) for e in events] == [(EventKind.PLAY, 2), (EventKind.RUFF, 2)]
    assert deal.to_act == 3
    events = deal.play("2d")
    waste = _of_kind(events, EventKind.WASTE)[0]
    assert waste.seat == 2 and _cards(waste) == card_set("9d Jd 4s 2d")
    assert deal.leader == 2 and _of_kind(deal.events, EventKind.PICKUP) == []


def test_V_TRUMP_classic_void_player_without_spades_picks_up_automatically() -> None:
    deal = make_deal(["9d 2c", "Jd 3c", "5h 6h", "2d 6c"], profile="classic", waste="As", trump="spades")
    deal.play("9d")
    events = deal.play("Jd")
    assert [(e.kind, e.seat) for e in events] == [
        (EventKind.PLAY, 1),
        (EventKind.VOID, 2),
        (EventKind.PICKUP, 2),
        (EventKind.LEAD, 2),
    ]
    assert _hand(deal, 2) == card_set("5h 6h 9d Jd")


def test_V_TRUMP_classic_a_later_void_player_picks_up_the_ruff_too() -> None:
    deal = make_deal(["9d 2c", "4s 3c", "5h 6h", "2d 6c"], profile="classic", waste="As", trump="spades")
    deal.play("9d")
    assert deal.legal_actions() == [Card.parse("4s"), PICKUP]
    events = deal.play("4s")
    assert EventKind.RUFF in kinds(events)
    pickup = _of_kind(events, EventKind.PICKUP)[0]  # C is void without spades
    assert pickup.seat == 2 and _cards(pickup) == card_set("9d 4s")
    assert deal.leader == 2


def test_V_TRUMP_classic_ruff_with_last_card_gets_away_and_next_player_leads() -> None:
    deal = make_deal(["9d 2c", "Jd 3c", "4s", "2d 6c"], profile="classic", waste="As", trump="spades")
    play_all(deal, "9d Jd 4s")
    assert deal.has_got_away(2)  # R-C-OUT at once
    events = deal.play("2d")
    assert _of_kind(events, EventKind.WASTE)[0].seat == 2  # the ruff won
    assert deal.leader == 3 and deal.to_act == 3  # C got away: the next active player leads


def test_V_TRUMP_classic_pickup_is_refused_to_a_player_who_can_follow() -> None:
    deal = make_deal(["9d 2c", "Jd 3s", "4s 5h", "2d 6h"], profile="classic", waste="As", trump="spades")
    deal.play("9d")
    assert PICKUP not in deal.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        deal.pickup()
    assert info.value.reason == "no_pickup_now"
    with pytest.raises(IllegalActionError):
        deal.play("3s")  # holding a diamond: must follow, cannot ruff


@pytest.mark.parametrize("profile", PROFILES)
def test_V_TRUMP_with_nopickup_void_player_with_spades_chooses_spade_or_pass(profile: str) -> None:
    def position() -> Deal:
        return make_deal(
            ["9d 2c", "Jd 3c", "4s 5h", "2d 6h"], profile=profile, waste="As", trump="spades", nopickup=True
        )

    deal = position()
    play_all(deal, "9d Jd")
    assert deal.legal_actions() == [Card.parse("4s"), PASS]
    events = deal.pass_()
    assert [(e.kind, e.seat) for e in events] == [(EventKind.VOID, 2)]
    assert deal.to_act == 3
    events = deal.play("2d")
    waste = _of_kind(events, EventKind.WASTE)[0]
    assert waste.seat == 1 and _cards(waste) == card_set("9d Jd 2d") and deal.leader == 1
    assert _hand(deal, 2) == card_set("4s 5h")

    deal = position()
    events = play_all(deal, "9d Jd 4s 2d")
    assert EventKind.RUFF in kinds(events)
    assert _of_kind(events, EventKind.WASTE)[0].seat == 2 and deal.leader == 2
    assert _of_kind(deal.events, EventKind.PICKUP) == []


# ================================================================================== V-NOPICKUP


@pytest.mark.parametrize("profile", PROFILES)
def test_V_NOPICKUP_void_player_passes_and_the_followers_settle_the_trick(profile: str) -> None:
    # docs/rules.md example: A 6♣, B 9♣, C passes, D 2♣; B's 9♣ wins, B leads
    deal = make_deal(["6c 2h", "9c 3h", "4d 5d", "2c 7h"], profile=profile, waste="As", nopickup=True)
    deal.play("6c")
    events = deal.play("9c")
    assert [(e.kind, e.seat) for e in events] == [(EventKind.PLAY, 1), (EventKind.VOID, 2)]
    assert deal.to_act == 3  # C passed automatically, the trick goes on
    events = deal.play("2c")
    waste = _of_kind(events, EventKind.WASTE)[0]
    assert waste.seat == 1 and _cards(waste) == card_set("6c 9c 2c")
    assert deal.leader == 1 and deal.to_act == 1
    assert deal.hand_sizes == (1, 1, 2, 1)
    assert _of_kind(deal.events, EventKind.PICKUP) == []


@pytest.mark.parametrize("profile", PROFILES)
def test_V_NOPICKUP_pass_is_refused_to_a_player_who_can_follow(profile: str) -> None:
    deal = make_deal(["6c 2h", "9c 3h", "4d 5d", "2c 7h"], profile=profile, waste="As", nopickup=True)
    deal.play("6c")
    assert PASS not in deal.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        deal.pass_()
    assert info.value.reason == "no_pass_now"


@pytest.mark.parametrize("profile", PROFILES)
def test_V_NOPICKUP_no_card_ever_moves_into_a_hand(profile: str) -> None:
    # takes off: a take (R-P-TAKE) is not a pick-up; the only way in is R-P-DRAW under punjab
    rules = Rules.profile(profile, nopickup=True, takes="off")
    draws = 0
    for seed in range(12):
        deal = Deal(rules, dealer=seed % 4, seed=seed)
        rng = random.Random(seed)
        while not deal.is_over:
            before = deal.hand_sizes
            events = deal.apply(rng.choice(deal.legal_actions()))
            drew = {e.seat for e in events if e.kind == EventKind.DRAW}
            draws += len(drew)
            for seat, (old, new) in enumerate(zip(before, deal.hand_sizes, strict=True)):
                assert new <= old + (seat in drew), (seed, seat, events)
        assert _of_kind(deal.events, EventKind.PICKUP) == []
        assert deal.outcome.pickups == (0, 0, 0, 0)
    if profile == "classic":
        assert draws == 0


@pytest.mark.parametrize("profile", PROFILES)
def test_V_NOPICKUP_everyone_void_the_lead_wins_alone(profile: str) -> None:
    deal = make_deal(["6c", "3h 4h", "4d 5d", "7h 8h"], profile=profile, waste="As 2s", nopickup=True)
    events = deal.play("6c")  # the leader's last card; nobody else has a club
    assert [e.seat for e in _of_kind(events, EventKind.VOID)] == [1, 2, 3]
    waste = _of_kind(events, EventKind.WASTE)[0]
    assert waste.seat == 0 and _cards(waste) == card_set("6c")
    if profile == "punjab":
        # R-P-DRAW still applies: the winner of the trick drew blind and must lead the drawn card
        draw = _of_kind(events, EventKind.DRAW)[0]
        assert draw.seat == 0 and draw.cards[0] in card_set("As 2s")
        assert not deal.has_got_away(0) and deal.to_act == 0
        assert deal.legal_actions() == [draw.cards[0]]
        assert Card.parse("6c") in deal.waste and draw.cards[0] not in deal.waste
    else:
        # R-C-OUT: the leader got away with the lead; the next active player leads
        assert deal.has_got_away(0) and deal.leader == 1
        assert _of_kind(events, EventKind.DRAW) == []


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_V_NOPICKUP_a_player_without_spades_passes_on_the_first_trick(profile: str) -> None:
    # Our reading: no-pickup replaces the profile's off-suit action everywhere, so on punjab's
    # first trick (R-P-FIRST: "otherwise any card") a player without spades passes too.
    deal = make_deal(["As 9d", "3s 4h", "5h 6d", "7s 8c"], profile=profile, first_trick_done=False, nopickup=True)
    events = deal.play("As")
    deal.play("3s")
    assert deal.to_act == 3  # C cannot follow and passes at once
    deal.play("7s")
    assert [e.seat for e in _of_kind(deal.events, EventKind.VOID)] == [2]
    assert set(deal.waste) == card_set("As 3s 7s")
    assert _hand(deal, 2) == card_set("5h 6d")
    assert events[0].kind == EventKind.PLAY
    assert deal.first_trick_done and deal.leader == 0
    assert _of_kind(deal.events, EventKind.PICKUP) == []


# ================================================================================== V-KICKER


@pytest.mark.parametrize(("kicker", "picker"), [(True, 2), (False, 0)])
def test_V_KICKER_kick_makes_the_tochoo_player_pick_up(kicker: bool, picker: int) -> None:
    # docs/rules.md example: A♥ K♥ in the waste; A leads Q♥ (a kick), B 5♥, C plays 3♣.
    deal = make_deal(["Qh 2c", "5h 3d", "3c 4d", "6h 7d"], waste="Ah Kh As", kicker=kicker)
    play_all(deal, "Qh 5h")
    events = deal.play("3c")
    assert EventKind.TOCHOO in kinds(events)
    pickup = _of_kind(events, EventKind.PICKUP)[0]
    assert pickup.seat == picker and _cards(pickup) == card_set("Qh 5h 3c")
    assert deal.leader == picker and deal.to_act == picker


def test_V_KICKER_kicked_tochoo_player_picks_up_and_does_not_get_away() -> None:
    # the tochoo was C's last card, but C picks the trick up and leads (R-P-OUT: the picker never gets away)
    deal = make_deal(["Qh 2c", "5h 3d", "3c", "6h 7d"], waste="Ah Kh As", kicker=True)
    events = play_all(deal, "Qh 5h 3c")
    assert _of_kind(events, EventKind.PICKUP)[0].seat == 2
    assert _of_kind(events, EventKind.OUT) == [] and not deal.has_got_away(2)
    assert _hand(deal, 2) == card_set("Qh 5h 3c") and deal.to_act == 2


def test_V_KICKER_leader_who_kicks_with_the_last_card_gets_away_on_a_tochoo() -> None:
    deal = make_deal(["Qh", "5h 3d", "3c 4d", "6h 7d"], waste="Ah Kh As", kicker=True)
    events = play_all(deal, "Qh 5h 3c")
    assert _of_kind(events, EventKind.PICKUP)[0].seat == 2
    assert (EventKind.OUT, 0) in [(e.kind, e.seat) for e in events] and deal.has_got_away(0)
    assert deal.out_order == ((0,),)


def test_V_KICKER_higher_cards_not_in_the_deal_count_as_gone() -> None:
    # A♥ and K♥ are neither in a hand nor in the waste: not in this deal (e.g. stripped)
    deal = make_deal(["Qh 2c", "5h 3d", "3c 4d", "6h 7d"], waste="As", kicker=True)
    events = play_all(deal, "Qh 5h 3c")
    assert _of_kind(events, EventKind.PICKUP)[0].seat == 2


def test_V_KICKER_ace_lead_is_always_a_kick() -> None:
    deal = make_deal(["Ah 2c", "5h 3d", "3c 4d", "6h 7d"], waste="As", kicker=True)
    events = play_all(deal, "Ah 5h 3c")
    assert _of_kind(events, EventKind.PICKUP)[0].seat == 2


@pytest.mark.parametrize("holder", [0, 3])
def test_V_KICKER_a_higher_card_still_in_a_hand_means_no_kick(holder: int) -> None:
    # K♥ is held by the leader itself or by D (who does not get to play): not a kick
    hands = ["Qh 2c", "5h 3d", "3c 4d", "6h 7d"]
    hands[holder] += " Kh"
    deal = make_deal(hands, waste="Ah As", kicker=True)
    events = play_all(deal, "Qh 5h 3c")
    pickup = _of_kind(events, EventKind.PICKUP)[0]
    assert pickup.seat == 0 and _cards(pickup) == card_set("Qh 5h 3c")  # the leader, as usual


def test_V_KICKER_kick_is_judged_from_the_waste_as_it_is_at_the_lead() -> None:
    # Trick 1 sends K♥ and A♥ to the waste; after it A's Q♥ is a kick.
    deal = make_deal(["Ah Qh 2c", "4h 5h 3d", "3h 3c 4d", "Kh 7d 8d"], waste="As", leader=3, kicker=True)
    events = play_all(deal, "Kh Ah 4h 3h")
    assert _of_kind(events, EventKind.WASTE)[0].seat == 0 and deal.to_act == 0
    events = play_all(deal, "Qh 5h 3c")
    pickup = _of_kind(events, EventKind.PICKUP)[0]
    assert pickup.seat == 2 and _cards(pickup) == card_set("Qh 5h 3c")


def test_V_KICKER_kick_without_tochoo_is_an_ordinary_trick() -> None:
    deal = make_deal(["Qh 2c", "5h 3d", "3h 4d", "6h 7d"], waste="Ah Kh As", kicker=True)
    events = play_all(deal, "Qh 5h 3h 6h")
    waste = _of_kind(events, EventKind.WASTE)[0]
    assert waste.seat == 0 and _cards(waste) == card_set("Qh 5h 3h 6h") and deal.leader == 0


def test_V_KICKER_changes_nothing_under_classic() -> None:
    def run(kicker: bool) -> Deal:
        deal = make_deal(["Qh 2c", "5h 3d", "3c 4d", "6h 7d"], profile="classic", waste="Ah Kh As", kicker=kicker)
        play_all(deal, "Qh 5h")  # C is void: picks up at once, with or without a kick
        return deal

    with_kick, without = run(True), run(False)
    assert with_kick.events == without.events
    pickup = _of_kind(with_kick.events, EventKind.PICKUP)[0]
    assert pickup.seat == 2 and _cards(pickup) == card_set("Qh 5h")
    assert [with_kick.hand(s) for s in range(4)] == [without.hand(s) for s in range(4)]


@pytest.mark.parametrize("profile", PROFILES)
def test_V_KICKER_cannot_be_combined_with_nopickup(profile: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.profile(profile, nopickup=True, kicker=True)
    assert str(info.value).startswith("nopickup+kicker")
    assert info.value.option == "nopickup+kicker"
    with pytest.raises(RulesError, match="^nopickup\\+kicker"):
        Rules.from_dict({"profile": profile, "nopickup": True, "kicker": True})
    with pytest.raises(RulesError, match="^nopickup\\+kicker"):
        Rules.profile(profile, kicker=True).replace(nopickup=True)


# ================================================================================== V-DEHLA


@pytest.mark.parametrize("profile", PROFILES)
def test_V_DEHLA_winner_of_a_completed_trick_captures_its_tens(profile: str) -> None:
    # docs/rules.md example: A 10♥, B K♥, C 4♥, D 7♥; B wins and captures the 10♥
    deal = make_deal(["10h", "Kh 2c", "4h", "7h"], profile=profile, waste="As", dehla=True)
    events = play_all(deal, "10h Kh 4h 7h")
    capture = _of_kind(events, EventKind.CAPTURE)
    assert len(capture) == 1 and capture[0].seat == 1 and capture[0].cards == (Card.parse("10h"),)
    assert deal.is_over and deal.outcome.loser == 1
    assert deal.outcome.captured_tens == ((), (Card.parse("10h"),), (), ())
    assert deal.snapshot()["captured_tens"] == [[], ["10♥"], [], []]
    assert player_view(deal, 3).captured_tens == deal.outcome.captured_tens  # public


@pytest.mark.parametrize("profile", PROFILES)
def test_V_DEHLA_a_ten_picked_up_is_not_captured(profile: str) -> None:
    deal = make_deal(["10h 2d", "Kh 2c", "4c 5c", "7h 3d"], profile=profile, waste="As", dehla=True)
    play_all(deal, "10h Kh")
    if profile == "punjab":
        deal.play("4c")  # tochoo: B (K♥) picks up
        picker = 1
    else:
        picker = 2  # C is void: picks up at once
    pickup = _of_kind(deal.events, EventKind.PICKUP)[0]
    assert pickup.seat == picker and Card.parse("10h") in pickup.cards
    assert _of_kind(deal.events, EventKind.CAPTURE) == []
    assert deal.snapshot()["captured_tens"] == [[], [], [], []]
    assert Card.parse("10h") in deal.hand(picker)


def test_V_DEHLA_punjab_first_trick_captures_nothing() -> None:
    deal = make_deal(["As 9d", "10s 4h", "10h 6d", "2s 8c"], first_trick_done=False, dehla=True)
    play_all(deal, "As 10s 10h 2s")
    assert set(deal.waste) == card_set("As 10s 10h 2s")
    assert _of_kind(deal.events, EventKind.CAPTURE) == []
    assert deal.snapshot()["captured_tens"] == [[], [], [], []]


def test_V_DEHLA_classic_first_trick_is_ordinary_and_captures() -> None:
    deal = make_deal(["As 9d", "10s 4h", "2s 6d", "3s 8c"], profile="classic", first_trick_done=False, dehla=True)
    events = play_all(deal, "As 10s 2s 3s")
    capture = _of_kind(events, EventKind.CAPTURE)[0]
    assert capture.seat == 0 and capture.cards == (Card.parse("10s"),)


def test_V_DEHLA_with_nopickup_the_followers_winner_captures() -> None:
    deal = make_deal(["10c 2h", "9c 3h", "4d 5d", "2c 7h"], waste="As", dehla=True, nopickup=True)
    events = play_all(deal, "10c 9c 2c")
    capture = _of_kind(events, EventKind.CAPTURE)[0]
    assert capture.seat == 0 and capture.cards == (Card.parse("10c"),)


@pytest.mark.parametrize("profile", PROFILES)
def test_V_DEHLA_with_trump_the_ruffer_captures(profile: str) -> None:
    deal = make_deal(["10d 2c", "Jd 3c", "4s 5h", "2d 6h"], profile=profile, waste="As", dehla=True, trump="spades")
    events = play_all(deal, "10d Jd 4s 2d")
    capture = _of_kind(events, EventKind.CAPTURE)[0]
    assert capture.seat == 2 and capture.cards == (Card.parse("10d"),)


def test_V_DEHLA_punjab_winner_who_must_draw_still_captures() -> None:
    deal = make_deal(["10h", "Kh", "4h 5c", "7h 6c"], waste="As 2s", dehla=True)
    events = play_all(deal, "10h Kh 4h 7h")
    assert _of_kind(events, EventKind.CAPTURE)[0].seat == 1
    draw = _of_kind(events, EventKind.DRAW)[0]
    assert draw.seat == 1 and draw.cards[0] in card_set("As 2s")  # from the waste before this trick
    assert Card.parse("10h") in deal.waste


def test_V_DEHLA_a_ten_is_captured_once_even_if_drawn_back() -> None:
    # penalize: C's revoke on the first trick makes C pick it up, so the waste is still empty
    # when D wins the next trick with its last card; the trick joins the waste and D draws from
    # it (docs/rules.md, R-P-DRAW), possibly the 10♥ D has just captured: it counts once.
    drew_it_back = False
    for seed in range(10):
        deal = make_deal(
            ["As 5h", "2s 10h", "3s 4h", "Ah"], first_trick_done=False, dehla=True, enforcement="penalize", seed=seed
        )
        play_all(deal, "As 2s")
        deal.play("4h")  # a revoke: C holds the 3♠
        assert deal.to_act == 2 and deal.waste == ()
        events = play_all(deal, "4h Ah 5h 10h")
        assert _of_kind(events, EventKind.CAPTURE)[0].seat == 3
        assert _of_kind(events, EventKind.DRAW)[0].seat == 3
        drew_it_back |= Card.parse("10h") in deal.hand(3)
        while not deal.is_over:
            deal.apply(deal.legal_actions()[0])
        captured = [c for tens in deal.outcome.captured_tens for c in tens]
        assert captured == [Card.parse("10h")], seed
    assert drew_it_back


def test_V_DEHLA_off_records_no_captures() -> None:
    deal = make_deal(["10h", "Kh 2c", "4h", "7h"], waste="As")
    play_all(deal, "10h Kh 4h 7h")
    assert _of_kind(deal.events, EventKind.CAPTURE) == []
    assert deal.outcome.captured_tens == ()


@pytest.mark.parametrize("profile", PROFILES)
def test_V_DEHLA_standings_break_equal_points_by_more_tens(profile: str) -> None:
    broke_a_tie = False
    for seed in range(15):
        rules = Rules.profile(profile, deals=1, dehla=True, takes="off")
        match = Match(rules, 4, seed)
        play_deal(match.deal, [RandomBot()] * 4, random.Random(seed))
        table = match.standings()
        tens = [len(t) for t in match.deal.outcome.captured_tens]
        for row in table:
            assert row.tens == tens[row.seat]
            better = sum(1 for o in table if (o.points, -o.tens) < (row.points, -row.tens))
            assert row.place == 1 + better
            broke_a_tie |= any(o.points == row.points and o.tens < row.tens and o.place > row.place for o in table)
        assert [r.place for r in table] == sorted(r.place for r in table)
    assert broke_a_tie


# ================================================================================== V-JOKER


def test_V_JOKER_prints_as_Jk_and_parses_from_its_names() -> None:
    assert str(JOKER) == "Jk" and repr(JOKER) == "Card('Jk')"
    for name in ("Jk", "jk", "joker", "JOKER", "🃏"):
        assert Card.parse(name) is JOKER
    assert JOKER.suit is None and JOKER.is_joker


@pytest.mark.parametrize("profile", PROFILES)
def test_V_JOKER_is_dealt_like_any_card_in_a_53_card_pack(profile: str) -> None:
    deal = Deal(Rules.profile(profile, joker=True), dealer=0, seed=4)
    assert sum(deal.hand_sizes) == 53
    assert sum(JOKER in deal.hand(s) for s in range(4)) == 1


@pytest.mark.parametrize("options", [{"profile": "punjab"}, {"profile": "classic"}, {"nopickup": True}])
def test_V_JOKER_led_goes_to_the_waste_and_the_same_player_leads_again(options: dict) -> None:
    deal = make_deal(["Jk 9d 2c", "Jd 3c", "4s 5h", "2d 6h"], waste="As", joker=True, **options)
    events = deal.play("Jk")
    assert [(e.kind, e.seat, e.cards) for e in events] == [
        (EventKind.PLAY, 0, (JOKER,)),
        (EventKind.WASTE, 0, (JOKER,)),
    ]
    assert JOKER in deal.waste and JOKER not in deal.hand(0)
    assert deal.trick == () and deal.to_act == 0 and deal.leader == 0
    assert set(deal.legal_actions()) == card_set("9d 2c")
    assert deal.tricks_played == 0  # not a trick


def test_V_JOKER_led_does_not_start_a_new_take_poll() -> None:
    deal = make_deal(["Jk 9d 2c", "Jd 3c", "4s 5h", "2d 6h"], waste="As", joker=True, takes="any")
    for _ in range(4):
        assert deal.decision == "take"
        deal.pass_()
    deal.play("Jk")
    assert deal.decision == "play" and deal.to_act == 0


def test_V_JOKER_led_keeps_the_interject_take_window_open() -> None:
    deal = make_deal(
        ["Jk 9d 2c", "Jd 3c", "4s 5h", "2d 6h"], waste="As", joker=True, takes="any", take_protocol="interject"
    )
    deal.play("Jk")
    assert deal.trick == () and TAKE in deal.legal_actions(2)  # no lead card on the table yet
    events = deal.take(3)  # D takes A's hand, Joker-leader and all
    assert (EventKind.TAKE, 3) in [(e.kind, e.seat) for e in events]
    assert deal.leader == 3 and deal.to_act == 3 and deal.has_got_away(0)


def test_V_JOKER_never_follows_suit() -> None:
    deal = make_deal(["9d 2c", "Jd Jk", "4s 5h", "2d 6h"], waste="As", joker=True)
    deal.play("9d")
    assert JOKER not in deal.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        deal.play("Jk")
    assert info.value.reason == "must_follow_suit"


def test_V_JOKER_punjab_void_player_may_play_it_as_a_tochoo() -> None:
    # docs/rules.md example: A 8♥, B Q♥, C (no hearts) plays the Joker; B picks up all three
    deal = make_deal(["8h 2c", "Qh 3c", "Jk 4d", "6h 7d"], waste="As", joker=True)
    play_all(deal, "8h Qh")
    assert JOKER in deal.legal_actions()
    events = deal.play("Jk")
    assert [(e.kind, e.seat) for e in events[:3]] == [
        (EventKind.PLAY, 2),
        (EventKind.TOCHOO, 2),
        (EventKind.PICKUP, 1),
    ]
    assert _cards(events[2]) == {Card.parse("8h"), Card.parse("Qh"), JOKER}
    assert _hand(deal, 1) == {Card.parse("3c"), Card.parse("8h"), Card.parse("Qh"), JOKER}
    assert deal.leader == 1 and JOKER not in deal.waste


def test_V_JOKER_punjab_tochoo_after_a_ruff_goes_to_the_ruffer() -> None:
    deal = make_deal(["8h 2c", "4s 3c", "Jk 4d", "6h 7d"], waste="As", joker=True, trump="spades")
    events = play_all(deal, "8h 4s Jk")
    pickup = _of_kind(events, EventKind.PICKUP)[0]
    assert pickup.seat == 1 and _cards(pickup) == {Card.parse("8h"), Card.parse("4s"), JOKER}


def test_V_JOKER_punjab_tochoo_with_the_last_card_gets_away() -> None:
    deal = make_deal(["8h 2c", "Qh 3c", "Jk", "6h 7d"], waste="As", joker=True)
    events = play_all(deal, "8h Qh Jk")
    assert (EventKind.OUT, 2) in [(e.kind, e.seat) for e in events]
    assert deal.has_got_away(2) and JOKER in deal.hand(1)


def test_V_JOKER_punjab_first_trick_only_a_player_without_spades_may_play_it() -> None:
    deal = make_deal(["As 9d", "3s 4h", "Jk 6d", "7s 8c"], first_trick_done=False, joker=True)
    deal.play("As")
    assert deal.legal_actions() == [Card.parse("3s")]
    deal.play("3s")
    assert set(deal.legal_actions()) == {JOKER, Card.parse("6d")}
    events = deal.play("Jk")
    assert EventKind.TOCHOO not in kinds(events) and deal.to_act == 3
    deal.play("7s")
    assert set(deal.waste) == {Card.parse("As"), Card.parse("3s"), JOKER, Card.parse("7s")}
    assert deal.leader == 0


def test_V_JOKER_punjab_nopickup_first_trick_the_joker_can_only_be_led() -> None:
    # RULES.md V-JOKER: under no-pickup it can only be led; a player without spades passes
    deal = make_deal(["As 9d", "3s 4h", "Jk 6d", "7s 8c"], first_trick_done=False, joker=True, nopickup=True)
    play_all(deal, "As 3s")
    assert deal.to_act == 3 and JOKER in deal.hand(2)
    play_all(deal, "7s")
    assert JOKER not in deal.waste and deal.leader == 0


def test_V_JOKER_punjab_first_trick_a_player_with_spades_may_not_play_it() -> None:
    deal = make_deal(["As 9d", "3s Jk", "5h 6d", "7s 8c"], first_trick_done=False, joker=True)
    deal.play("As")
    assert JOKER not in deal.legal_actions()
    with pytest.raises(IllegalActionError):
        deal.play("Jk")


@pytest.mark.parametrize(
    "options",
    [
        {"profile": "classic"},
        {"profile": "punjab", "nopickup": True},
        {"profile": "classic", "nopickup": True},
    ],
)
def test_V_JOKER_where_void_players_play_no_card_it_can_only_be_led(options: dict) -> None:
    deal = make_deal(["8h 2c", "Qh 3c", "Jk 4d", "6h 7d"], waste="As", joker=True, **options)
    deal.play("8h")
    events = deal.play("Qh")  # C is void: the Joker is not offered, C picks up or passes at once
    assert _of_kind(events, EventKind.VOID)[0].seat == 2
    assert JOKER in deal.hand(2)
    assert all(JOKER not in e.cards for e in deal.events)


@pytest.mark.parametrize("nopickup", [False, True])
def test_V_JOKER_with_trump_a_void_player_may_ruff_but_not_play_the_joker(nopickup: bool) -> None:
    deal = make_deal(
        ["8h 2c", "Qh 3c", "Jk 4s", "6h 7d"],
        profile="classic",
        waste="As",
        joker=True,
        trump="spades",
        nopickup=nopickup,
    )
    play_all(deal, "8h Qh")
    assert deal.legal_actions() == [Card.parse("4s"), PASS if nopickup else PICKUP]
    with pytest.raises(IllegalActionError):
        deal.play("Jk")


def test_V_JOKER_classic_led_as_last_card_gets_away_and_next_active_on_the_left_leads() -> None:
    deal = make_deal(["Jk", "", "4s 5h", "2d 6h"], profile="classic", waste="As", joker=True)
    events = deal.play("Jk")
    assert (EventKind.OUT, 0) in [(e.kind, e.seat) for e in events]
    assert deal.has_got_away(0) and JOKER in deal.waste
    assert deal.leader == 2 and deal.to_act == 2  # seat 1 got away earlier: skipped


def test_V_JOKER_classic_led_as_last_card_the_event_log_names_the_new_leader() -> None:
    # every other change of leader is announced by a 'lead' event (what players see in their history)
    deal = make_deal(["Jk", "", "4s 5h", "2d 6h"], profile="classic", waste="As", joker=True)
    events = deal.play("Jk")
    assert (EventKind.LEAD, 2) in [(e.kind, e.seat) for e in events]


def test_V_JOKER_classic_led_as_last_card_can_end_the_deal() -> None:
    deal = make_deal(["Jk", "4s 5h"], profile="classic", waste="As", joker=True)
    events = deal.play("Jk")
    assert deal.is_over and deal.outcome.loser == 1
    assert deal.outcome.termination == Termination.LAST_HOLDER
    assert events[-1].kind == EventKind.OVER


def test_V_JOKER_punjab_led_as_last_card_draws_from_the_waste_then_the_joker_joins_it() -> None:
    for seed in range(8):
        deal = make_deal(["Jk", "Jd 3c", "4s 5h", "2d 6h"], waste="As 2s", joker=True, seed=seed)
        events = deal.play("Jk")
        draw = _of_kind(events, EventKind.DRAW)
        assert len(draw) == 1 and draw[0].seat == 0
        drawn = draw[0].cards[0]
        assert drawn in card_set("As 2s")  # from the waste, the Joker not included
        assert not deal.has_got_away(0)  # a leader cannot get away by leading
        assert deal.hand(0) == (drawn,) and deal.forced_lead == drawn
        assert deal.legal_actions() == [drawn] and deal.to_act == 0
        assert JOKER in deal.waste and drawn not in deal.waste
        assert player_view(deal, 0).must_lead == drawn
        assert player_view(deal, 1).must_lead is None and player_view(deal, 1).hand_sizes[0] == 1
        deal.play(drawn)
        assert deal.forced_lead is None


def test_V_JOKER_punjab_is_never_drawn_from_the_waste() -> None:
    for seed in range(12):
        deal = make_deal(["5h", "Kh", "4h 5c", "7h 6c"], waste="Jk As", joker=True, seed=seed)
        events = play_all(deal, "5h Kh 4h 7h")  # B wins with the last card and must draw
        draw = _of_kind(events, EventKind.DRAW)[0]
        assert draw.seat == 1 and draw.cards == (Card.parse("As"),)
        assert JOKER in deal.waste


def test_V_JOKER_shows_in_views_and_records() -> None:
    deal = make_deal(["Jk 9d 2c", "Jd 3c", "4s 5h", "2d 6h"], waste="As", joker=True)
    view = player_view(deal, 0)
    assert JOKER in view.hand and "Jk" in view.to_dict()["hand"]
    assert JOKER in view.legal_actions and "Jk" in view.to_dict()["legal_actions"]
    deal.play("Jk")
    other = player_view(deal, 2).to_dict()
    assert {"kind": "play", "seat": 0, "cards": ["Jk"]} in other["history"]
    assert "Jk" in other["waste_seen"]
    play_all(deal, "9d Jd 4s")  # C's 4♠ is a tochoo: B picks up
    record = json.loads(dumps(record_of(deal)))
    assert record["actions"][0] == {"seat": 0, "play": "Jk"}
    assert "Jk" in record["start"]["hands"][0]
    assert record["rules"]["joker"] is True
    assert deal_from_record(record).snapshot() == deal.snapshot()


def test_V_JOKER_record_of_a_later_deal_keeps_who_got_the_joker() -> None:
    rules = Rules.profile("punjab", joker=True)
    deal = Deal(rules, dealer=1, seed=9, joker_to=2)
    assert JOKER in deal.hand(2) and deal.hand_sizes[2] == 14
    play_deal(deal, [RandomBot()] * 4, random.Random(9))
    record = json.loads(dumps(record_of(deal)))
    assert record["joker_to"] == 2
    replayed = deal_from_record(record)
    assert replayed.joker_to == 2 and replayed.snapshot() == deal.snapshot()


# ================================================================================== V-BEGGAR, V-PROGRESSIVE


def _play_match(match: Match, seed: int) -> Match:
    rng = random.Random(seed)
    while True:
        play_deal(match.deal, [RandomBot()] * match.rules.players, rng)
        if match.finished:
            return match
        match.next_deal()


@pytest.mark.parametrize("profile", PROFILES)
def test_V_BEGGAR_cannot_be_combined_with_progressive(profile: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.profile(profile, beggar=True, progressive=True)
    assert str(info.value).startswith("beggar+progressive")
    assert info.value.option == "beggar+progressive"
    with pytest.raises(RulesError, match="^beggar\\+progressive"):
        Rules.profile(profile, progressive=True).replace(beggar=True)


@pytest.mark.parametrize("profile", PROFILES)
def test_V_BEGGAR_with_each_profile(profile: str) -> None:
    saw_draw = False
    for seed in range(8):
        rules = Rules.profile(profile, deals=4, beggar=True, ante=1, takes="off")
        match = _play_match(Match(rules, 4, seed), seed)
        losses = [0] * 4
        points = [0] * 4
        extra = [0] * 4
        for i, deal in enumerate(match.deals):
            loser = deal.outcome.loser
            if i + 1 < len(match.deals):
                nxt = match.deals[i + 1]
                # the loser deals next; after a drawn deal (classic) the deal passes left
                assert nxt.dealer == (loser if loser is not None else (deal.dealer + 1) % 4)
            if loser is None:
                saw_draw = True
                assert match.deal_points(i) == (0, 0, 0, 0)
                continue
            losses[loser] += 1
            points[loser] += losses[loser]  # the k-th loss costs k
            extra[loser] += 1
            assert match.deal_points(i)[loser] == losses[loser] and sum(match.deal_points(i)) == losses[loser]
        for row in match.standings():
            assert row.points == points[row.seat] and row.losses == losses[row.seat]
        total = 4 * 4 + sum(extra)
        winners = [r for r in match.standings() if r.place == 1]
        share = total // len(winners)
        for row in match.standings():
            assert row.chips == (share if row.place == 1 else 0) - 4 - extra[row.seat]
    assert saw_draw == (profile == "classic")  # R-C-TIE happens; R-P-NODRAW


@pytest.mark.parametrize("profile", PROFILES)
def test_V_PROGRESSIVE_with_each_profile(profile: str) -> None:
    for seed in range(8):
        rules = Rules.profile(profile, deals=3, progressive=True, takes="off")
        match = _play_match(Match(rules, 4, seed), seed)
        totals = [0] * 4
        for i, deal in enumerate(match.deals):
            pts = match.deal_points(i)
            outcome = deal.outcome
            expected = [0] * 4
            if outcome.loser is not None:  # a drawn deal (classic) scores nothing
                expected[outcome.loser] = 3
                for seat in outcome.out_order[-1]:  # second-to-last place, shared
                    expected[seat] = 1
            assert list(pts) == expected
            totals = [t + p for t, p in zip(totals, pts, strict=True)]
        assert sorted(r.points for r in match.standings()) == sorted(totals)
        # dealing is unchanged: to the left
        assert [d.dealer for d in match.deals] == [(match.first_dealer + i) % 4 for i in range(3)]


# ================================================================================== every variant, every profile


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_variant_rules_dict_round_trip_keeps_it(variant: str, profile: str) -> None:
    rules = Rules.profile(profile, **VARIANTS[variant])
    assert variant in rules.variants
    data = json.loads(json.dumps(rules.to_dict()))
    ((option, value),) = VARIANTS[variant].items()
    assert data[option] == value
    back = Rules.from_dict(data)
    assert back == rules and back.variants == rules.variants
    assert getattr(back, option) == value
    assert variant not in Rules.profile(profile).variants


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_variant_random_deal_record_replays_to_the_identical_snapshot(variant: str, profile: str) -> None:
    rules = Rules.profile(profile, **VARIANTS[variant])
    ((option, value),) = VARIANTS[variant].items()
    for seed in range(2):
        deal = Deal(rules, dealer=seed % 4, seed=seed)
        play_deal(deal, [RandomBot(0.02)] * 4, random.Random(seed))
        assert deal.is_over
        record = json.loads(dumps(record_of(deal)))
        assert record["rules"][option] == value
        replayed = deal_from_record(record)
        assert replayed.snapshot() == deal.snapshot()
        assert dumps(record_of(replayed)) == dumps(record_of(deal))
        # a record of an unfinished deal replays too
        half = len(deal.actions) // 2
        partial = replay(Deal(rules, dealer=seed % 4, seed=seed), deal.actions[:half])
        assert deal_from_record(json.loads(dumps(record_of(partial)))).snapshot() == partial.snapshot()


# Events that show a variant at work in random play (kicker and the match-level ones leave none).
_MARKS = {"trump": EventKind.RUFF, "nopickup": EventKind.VOID, "dehla": EventKind.CAPTURE}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("variant", list(_MARKS))
def test_variant_shows_up_in_random_deals(variant: str, profile: str) -> None:
    rules = Rules.profile(profile, takes="off", **VARIANTS[variant])
    seen = 0
    for seed in range(4):
        deal = play_deal(Deal(rules, dealer=0, seed=seed), [RandomBot()] * 4, random.Random(seed))
        seen += len(_of_kind(deal.events, _MARKS[variant]))
        if variant == "nopickup":
            assert _of_kind(deal.events, EventKind.PICKUP) == []
    assert seen


@pytest.mark.parametrize("profile", PROFILES)
def test_joker_shows_up_in_random_deals(profile: str) -> None:
    rules = Rules.profile(profile, joker=True, takes="off")
    played = 0
    for seed in range(6):
        deal = play_deal(Deal(rules, dealer=0, seed=seed), [RandomBot()] * 4, random.Random(seed))
        played += sum(1 for _, action in deal.actions if action == JOKER)
        assert JOKER in deal.waste or any(JOKER in deal.hand(s) for s in range(4))
    assert played


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("a", "b"), list(itertools.combinations(VARIANTS, 2)))
def test_every_valid_pair_of_variants_constructs_and_plays(a: str, b: str, profile: str) -> None:
    options = {**VARIANTS[a], **VARIANTS[b]}
    if (a, b) in REFUSED:
        with pytest.raises(RulesError) as info:
            Rules.profile(profile, **options)
        assert str(info.value).startswith(f"{a}+{b}")
        return
    rules = Rules.profile(profile, **options)
    assert {a, b} <= set(rules.variants)
    assert Rules.from_dict(rules.to_dict()) == rules
    deal = play_deal(Deal(rules, dealer=1, seed=3), [RandomBot()] * 4, random.Random(3))
    assert deal.is_over
    assert deal_from_record(json.loads(dumps(record_of(deal)))).snapshot() == deal.snapshot()


def test_exactly_two_pairs_are_refused() -> None:
    refused = set()
    for a, b in itertools.combinations(VARIANTS, 2):
        try:
            Rules.profile("punjab", **VARIANTS[a], **VARIANTS[b])
        except RulesError:
            refused.add((a, b))
    assert refused == REFUSED


# ---------------------------------------------------------------------------------- the one trick winner


def _plays(text: str) -> list[tuple[int, Card]]:
    return [(seat, card) for seat, card in enumerate(parse_cards(text))]


def test_trick_winner_highest_card_of_the_led_suit_others_and_the_joker_never_win() -> None:
    rules = Rules.profile("punjab", joker=True)
    assert trick_winner(_plays("9h 2c Kh 3h"), rules, True) == (2, Card.parse("Kh"))
    assert trick_winner(_plays("9h joker As"), rules, True) == (0, Card.parse("9h"))
    with pytest.raises(ValueError, match="empty"):
        trick_winner([], rules, True)


@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_V_TRUMP_trick_winner_the_highest_spade_beats_the_led_suit(profile: str) -> None:
    rules = Rules.profile(profile, trump="spades")
    assert trick_winner(_plays("9h 2s Ah 5s"), rules, True) == (3, Card.parse("5s"))
    assert trick_winner(_plays("9h 2s Ah 5s"), Rules.profile(profile), True) == (2, Card.parse("Ah"))


def test_V_TRUMP_trick_winner_spades_do_not_trump_on_punjabs_first_trick() -> None:
    rules = Rules.profile("punjab", trump="spades")
    assert trick_winner(_plays("9h 2s Ah"), rules, False) == (2, Card.parse("Ah"))
    assert trick_winner(_plays("9h 2s Ah"), Rules.profile("classic", trump="spades"), False) == (1, Card.parse("2s"))


@pytest.mark.parametrize("options", [{}, {"trump": "spades"}, {"joker": True}, {"trump": "spades", "joker": True}])
@pytest.mark.parametrize("profile", ["punjab", "classic"])
def test_trick_winner_is_who_the_engine_makes_pick_up_or_lead(profile: str, options: dict) -> None:
    """Every tochoo is picked up by trick_winner's seat (R-P-TRICK), every completed trick's
    winner leads (R-C-TRICK, V-TRUMP) unless they got away: the bots ask the same function."""
    checked = 0
    for seed in range(30):
        deal = Deal(Rules.profile(profile, players=4, takes="off", **options), dealer=seed % 4, seed=seed)
        rng = random.Random(seed)
        while not deal.is_over:
            action = rng.choice(deal.legal_actions())
            before, done = deal.trick, deal.first_trick_done
            events = deal.apply(action)
            if not before or type(action) is not Card:
                continue
            tochoo = any(e.kind == EventKind.TOCHOO for e in events)
            if tochoo:  # punjab: the trick stops; the one winning it picks it up
                seat = trick_winner(before, deal.rules, done)[0]
                assert [e.seat for e in events if e.kind == EventKind.PICKUP][:1] == [seat], (seed, before, events)
                checked += 1
            elif any(e.kind == EventKind.WASTE for e in events):  # the trick completed: its winner leads
                seat = trick_winner((*before, (events[0].seat, action)), deal.rules, done)[0]
                leads = [e.seat for e in events if e.kind == EventKind.LEAD]
                if deal.hand_sizes[seat] and leads:  # the winner leads, unless they got away
                    assert leads[0] == seat, (seed, before, events)
                    checked += 1
    assert checked > 100
