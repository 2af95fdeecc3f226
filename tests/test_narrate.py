"""The running narration: one sentence per thing that happened, related events joined."""

from __future__ import annotations

from getaway import Card, Event
from getaway.text.narrate import Narrator, describe


def cards(*names: str) -> tuple[Card, ...]:
    return tuple(Card.parse(n) for n in names)


def test_worked_example_is_one_sentence_for_the_tochoo_and_the_pickup():
    lines = Narrator(list("ABCD")).feed(
        [
            Event("play", 0, cards("8h")),
            Event("play", 1, cards("qh")),
            Event("play", 2, cards("3c")),
            Event("tochoo", 2, cards("3c")),
            Event("pickup", 1, cards("8h", "qh", "3c")),
            Event("out", 2, (), 1),
            Event("lead", 1),
        ]
    )
    assert lines == [
        "A leads 8♥",
        "B plays Q♥",
        "C has no hearts: 3♣, tochoo! B picks up 3 cards and leads.",
        "C gets away (place 1)!",
    ]


def test_classic_void_player_picks_up():
    lines = Narrator(list("ABC")).feed(
        [Event("play", 0, cards("8h")), Event("void", 1), Event("pickup", 1, cards("8h")), Event("lead", 1)]
    )
    assert lines == ["A leads 8♥", "B has no hearts: B picks up 1 card and leads."]


def test_punjab_first_trick_is_discarded_and_a_won_trick_names_its_winner():
    n = Narrator(list("ABC"), special_first=True)
    first = n.feed(
        [
            Event("play", 0, cards("as")),
            Event("play", 1, cards("2h")),
            Event("play", 2, cards("3s")),
            Event("waste", 0, cards("as", "2h", "3s")),
            Event("lead", 0),
        ]
    )
    assert first[-1] == "The first trick goes to the waste pile; A leads again."
    second = n.feed(
        [
            Event("play", 0, cards("5d")),
            Event("play", 1, cards("kd")),
            Event("play", 2, cards("2d")),
            Event("waste", 1, cards("5d", "kd", "2d")),
            Event("lead", 1),
        ]
    )
    assert second[-1] == "3 cards go to the waste pile (B wins the trick)."


def test_hidden_draw_and_take():
    lines = Narrator(list("ABCD")).feed(
        [Event("draw", 1, (), None, None, 1), Event("take", 2, (), 3, None, 5), Event("out", 3, (), 2)]
    )
    assert lines == [
        "B must lead but has no card: draws a card blind from the waste pile",
        "C takes D's hand (5 cards): D gets away.",
    ]
    assert describe(Event("over", None, (), None, "no_loser"), list("AB")).startswith("The deal is over: no loser")


def test_a_positions_blind_draw_names_no_trick_winner():
    # A Deal from a Position with a blind draw (R-P-DRAW) starts with a waste event without a
    # seat: nobody won a trick there; the draw says the rest.
    lines = Narrator(list("ABC")).feed([Event("waste", None, cards("9c")), Event("draw", 1, (), hidden=1)])
    assert lines == ["B must lead but has no card: draws a card blind from the waste pile"]
