"""The review's plain-words reasons for a flagged move (issue 16): each one on a constructed
position where its fact holds (it must appear) and one where it does not (it must not).

Every card not in a hand is put in the waste pile, which every seat saw (R-INFO), so the seat's
Knowledge knows exactly which cards are still out: the facts below are the seat's, not guessed.
"""

from __future__ import annotations

import pytest

from getaway import Deal, Rules, player_view
from getaway.bots import review
from getaway.bots.review import flag_reason
from getaway.core.cards import Card, parse_cards
from getaway.core.events import PASS, TAKE
from getaway.core.position import Position
from getaway.core.view import PlayerView


def _view(profile: str, hands: list[str], moves: str = "", leader: int = 0, **options: object) -> PlayerView:
    """The view of the seat to act after ``moves`` (cards, by whoever is to act), from a position
    after the first trick with ``hands`` (space-separated cards per seat) and every other card in the
    waste pile."""
    cards = [parse_cards(h.split()) for h in hands]
    held = {c for hand in cards for c in hand}
    waste = [Card(c) for c in range(52) if c not in held]
    position = Position.from_cards(cards, waste=waste, leader=leader, first_trick_done=True)
    options.setdefault("takes", "off")
    deal = Deal(Rules.profile(profile, players=len(hands), **options), position=position)
    for move in moves.split():
        deal.apply(Card.parse(move), deal.to_act)
    return player_view(deal, deal.to_act)


def _why(view: PlayerView, played: str, best: str) -> str:
    """The template of the reason for ``best`` over ``played`` ("" when none)."""
    actions = {str(a): a for a in view.legal_actions}
    assert played in actions and best in actions, (played, best, list(actions))
    reason = flag_reason(view, actions[played], actions[best])
    return getattr(reason, "template", reason)


P3 = ["5♥ 4♣ 9♦", "6♣ 2♦", "7♣ 3♦"]  # punjab: nobody else has a heart

CASES = [
    # (name, profile, hands, moves, played, best, the template that must appear, or one that must not)
    ("a lead into a proven void", "punjab", P3, "", "5♥", "4♣", "CUT_VOID", True),
    ("no void: not that reason", "punjab", ["5♥ 4♣ 9♦", "6♣ 2♥", "7♣ 3♥"], "", "5♥", "4♣", "CUT_VOID", False),
    ("the highest card still in play, led", "punjab", ["5♥ 4♣ 9♦", "6♣ 2♥", "7♣ 3♥"], "", "5♥", "4♣", "LEAD_TOP", True),
    ("a higher card still out", "punjab", ["5♥ 4♣ 9♦", "6♣ 6♥", "7♣ 3♥"], "", "5♥", "4♣", "LEAD_TOP", False),
    (
        "a lead that empties a suit",
        "punjab",
        ["5♥ 8♥ 4♣ 9♦ 3♦", "K♣ K♥ K♦", "Q♣ Q♥ Q♦"],
        "",
        "5♥",
        "4♣",
        "EMPTY_SUIT",
        True,
    ),
    ("two of that suit", "punjab", ["5♥ 8♥ 4♣ 6♣", "K♣ K♥ K♦", "Q♣ Q♥ Q♦"], "", "5♥", "4♣", "EMPTY_SUIT", False),
    (
        "following over the winner, a player to come",
        "punjab",
        ["8♥ 2♥", "9♥ 5♥ K♣", "3♥ 4♥ 6♥"],
        "8♥",
        "9♥",
        "5♥",
        "GOES_OVER",
        True,
    ),
    ("following under the winner", "punjab", ["8♥ 2♥", "9♥ 5♥ K♣", "3♥ 4♥ 6♥"], "8♥", "5♥", "9♥", "GOES_OVER", False),
    (
        "over while the next surely follows",
        "punjab",
        ["8♥ 2♥", "9♥ 5♥ K♣", "3♥ 4♥ 6♥"],
        "8♥",
        "5♥",
        "9♥",
        "OVER_SAFE",
        True,
    ),
    (
        "over while the next has no heart",
        "punjab",
        ["8♥ 2♦", "9♥ 5♥ K♣", "3♣ 4♣ 6♣"],
        "8♥",
        "5♥",
        "9♥",
        "OVER_SAFE",
        False,
    ),
    ("both under, the higher shed", "punjab", ["Q♥ 2♥", "9♥ 5♥ K♣", "3♥ 4♥ 6♥"], "Q♥", "5♥", "9♥", "SHED_UNDER", True),
    ("both under, the lower shed", "punjab", ["Q♥ 2♥", "9♥ 5♥ K♣", "3♥ 4♥ 6♥"], "Q♥", "9♥", "5♥", "SHED_UNDER", False),
    ("the last to play", "punjab", ["8♥ 2♣", "6♥ 3♣", "9♥ 5♥ K♣"], "8♥ 6♥", "5♥", "9♥", "LAST_SAFE", True),
    ("not the last to play", "punjab", ["8♥ 2♣", "9♥ 5♥ K♣", "6♥ 3♣"], "8♥", "5♥", "9♥", "LAST_SAFE", False),
    (
        "both over, fewer can overtake the better",
        "punjab",
        ["4♥ 2♣", "9♥ Q♥ 3♣", "10♥ J♥ K♥ A♥"],
        "4♥",
        "9♥",
        "Q♥",
        "BOTH_OVER",
        True,
    ),
    (
        "both over, the lower preferred",
        "punjab",
        ["4♥ 2♣", "9♥ Q♥ 3♣", "10♥ J♥ K♥ A♥"],
        "4♥",
        "Q♥",
        "9♥",
        "BOTH_OVER",
        False,
    ),
    (
        "a tochoo with the highest card in play",
        "punjab",
        ["8♥ 2♣", "A♣ 5♣ 3♦ 7♦", "K♣ 8♦ 3♥"],
        "8♥",
        "7♦",
        "A♣",
        "DUMP_TOP",
        True,
    ),
    (
        "a tochoo with a card that can be beaten",
        "punjab",
        ["8♥ A♣", "K♣ 5♣ 3♦ 7♦", "Q♣ 8♦ 3♥"],
        "8♥",
        "7♦",
        "K♣",
        "DUMP_TOP",
        False,
    ),
    (
        "a tochoo, the higher of a suit",
        "punjab",
        ["8♥ 2♣", "A♣ 5♣ 3♦ 7♦", "K♣ 8♦ 3♥"],
        "8♥",
        "3♦",
        "7♦",
        "DUMP_HIGHER",
        True,
    ),
    (
        "a tochoo, the lower of a suit",
        "punjab",
        ["8♥ 2♣", "A♣ 5♣ 3♦ 7♦", "K♣ 8♦ 3♥"],
        "8♥",
        "7♦",
        "3♦",
        "DUMP_HIGHER",
        False,
    ),
    ("a tochoo that empties a suit", "punjab", ["8♥ 2♣", "9♣ 3♦ 7♦", "K♣ 8♦ 3♥"], "8♥", "3♦", "9♣", "EMPTY_SUIT", True),
    (
        "a lead of a suit with a single card out",
        "punjab",
        ["3♥ 4♥ 2♣ 3♣", "K♥ 5♣ 6♣ 7♣", "8♣ 9♣ 10♣ J♣"],
        "",
        "3♥",
        "2♣",
        "CUT_LIKELY",
        True,
    ),
    (
        "a lead of the suit with many out",
        "punjab",
        ["3♥ 4♥ 2♣ 3♣", "K♥ 5♣ 6♣ 7♣", "8♣ 9♣ 10♣ J♣"],
        "",
        "2♣",
        "3♥",
        "CUT_LIKELY",
        False,
    ),
    (
        "classic: both under the winner, the higher shed",
        "classic",
        ["K♥ 2♣", "Q♥ 6♥ 3♣", "7♥ 8♥ 4♣"],
        "K♥",
        "6♥",
        "Q♥",
        "SHED_LOSER",
        True,
    ),
    (
        "classic: both under the winner, the lower shed",
        "classic",
        ["K♥ 2♣", "Q♥ 6♥ 3♣", "7♥ 8♥ 4♣"],
        "K♥",
        "Q♥",
        "6♥",
        "SHED_LOSER",
        False,
    ),
    (
        "classic: a lead into a proven void",
        "classic",
        ["5♥ 4♣ 9♣", "6♣ 2♦", "7♣ 3♦"],
        "",
        "4♣",
        "5♥",
        "FEED_VOID",
        True,
    ),
    ("classic: they hold the suit", "classic", ["5♥ 4♣ 9♣", "6♣ 2♥", "7♣ 3♥"], "", "4♣", "5♥", "FEED_VOID", False),
    (
        "classic: a lead of the only card of a suit",
        "classic",
        ["5♥ 4♣ 9♣ 2♣", "6♣ 2♥ K♣", "7♣ 3♥ K♥"],
        "",
        "5♥",
        "4♣",
        "LEAD_LAST",
        True,
    ),
    (
        "classic: two of that suit",
        "classic",
        ["5♥ 8♥ 4♣ 9♣", "6♣ 2♥ K♣", "7♣ 3♥ K♥"],
        "",
        "5♥",
        "4♣",
        "LEAD_LAST",
        False,
    ),
    (
        "classic: a lead nobody can beat",
        "classic",
        ["A♥ 7♥ 3♣ 4♣", "6♣ 2♥ K♣", "7♣ 3♥ K♥"],
        "",
        "3♣",
        "A♥",
        "SURE_WIN",
        True,
    ),
    (
        "classic: a lead that can be beaten",
        "classic",
        ["A♥ 7♥ 3♣ 4♣", "6♣ 2♥ K♣", "7♣ 3♥ K♥"],
        "",
        "3♣",
        "7♥",
        "SURE_WIN",
        False,
    ),
    (
        "classic: a high lead that can be beaten",
        "classic",
        ["K♣ 4♣ 3♥ 8♥", "6♣ 2♥ A♣", "7♣ 5♥ K♥"],
        "",
        "K♣",
        "3♥",
        "SPENDS_HIGH",
        True,
    ),
    ("classic: a low lead", "classic", ["K♣ 4♣ 3♥ 8♥", "6♣ 2♥ A♣", "7♣ 5♥ K♥"], "", "3♥", "K♣", "SPENDS_HIGH", False),
    (
        "classic: a sure winner led",
        "classic",
        ["A♣ 4♣ 3♥ 8♥", "6♣ 2♥ K♣", "7♣ 5♥ K♥"],
        "",
        "A♣",
        "3♥",
        "KEEP_WINNER",
        True,
    ),
    (
        "classic: the suit is nobody else's",
        "classic",
        ["A♣ 4♣ 3♥ 8♥", "2♥ 9♦", "5♥ K♥"],
        "",
        "A♣",
        "3♥",
        "KEEP_WINNER",
        False,
    ),
    (
        "classic: a follow that wins for sure",
        "classic",
        ["5♥ 2♣", "Q♥ 6♥ 3♣", "7♥ 8♥ 4♣"],
        "5♥",
        "6♥",
        "Q♥",
        "SURE_WIN",
        True,
    ),
    (
        "classic: a sure winner followed",
        "classic",
        ["5♥ 2♣", "Q♥ 6♥ 3♣", "7♥ 8♥ 4♣"],
        "5♥",
        "Q♥",
        "6♥",
        "KEEP_WINNER",
        True,
    ),
    (
        "classic: a follow that can be beaten",
        "classic",
        ["5♥ 2♣", "Q♥ 6♥ 3♣", "7♥ K♥ 4♣"],
        "5♥",
        "6♥",
        "Q♥",
        "SURE_WIN",
        False,
    ),
    (
        "classic: a suit with a single card out",
        "classic",
        ["3♥ 4♥ 2♣ 3♣", "K♥ 5♣ 6♣ 7♣", "8♣ 9♣ 10♣ J♣"],
        "",
        "2♣",
        "3♥",
        "VOID_LIKELY",
        True,
    ),
    (
        "classic: the suit with many out",
        "classic",
        ["3♥ 4♥ 2♣ 3♣", "K♥ 5♣ 6♣ 7♣", "8♣ 9♣ 10♣ J♣"],
        "",
        "3♥",
        "2♣",
        "VOID_LIKELY",
        False,
    ),
]


@pytest.mark.parametrize(
    ("profile", "hands", "moves", "played", "best", "name", "appears"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_each_reason_where_its_fact_holds_and_not_where_it_does_not(profile, hands, moves, played, best, name, appears):
    template = getattr(review, name)
    found = _why(_view(profile, hands, moves), played, best)
    assert (found == template) is appears, found


def test_every_reason_template_is_tested_both_ways():
    """One place for the reasons' texts: each template of the module has a case where it appears and one
    where it does not (TAKE_ADDS below)."""
    names = {c[6] for c in CASES if c[7]} & {c[6] for c in CASES if not c[7]} | {"TAKE_ADDS"}
    templates = {k for k in review.REASONS}
    assert templates == names


def test_the_take_reason():
    view = _view("punjab", ["5♥ 4♣ 9♦", "6♣ 2♦", "7♣ 3♦"], takes="any")
    assert view.decision == "take" and {TAKE, PASS} <= set(view.legal_actions)
    reason = flag_reason(view, TAKE, PASS)
    assert reason.template == review.TAKE_ADDS and str(reason) == (
        "Taking your left neighbour's hand adds its 2 card(s) to yours, and they get away."
    )
    assert flag_reason(view, PASS, TAKE) == ""


def test_no_reason_is_read_from_a_hidden_card():
    """The same view with different hidden hands elsewhere gives the same reason: it depends on the view only."""
    a = _view("classic", ["5♥ 4♣ 9♣ 2♣", "6♣ 2♥ K♣", "7♣ 3♥ K♥"])
    b = _view("classic", ["5♥ 4♣ 9♣ 2♣", "6♣ 3♥ K♥", "7♣ 2♥ K♣"])
    assert a.hand == b.hand
    for played in a.legal_actions:
        for best in a.legal_actions:
            assert flag_reason(a, played, best) == flag_reason(b, played, best)


def test_the_review_names_the_fact_for_its_flagged_decisions():
    """review_deal gives a flagged decision flag_reason's fact when there is one (the heuristic's
    reason otherwise), and only a flagged one."""
    import random

    from getaway.bots import HeuristicBot, play_deal
    from getaway.bots.review import decisions_of, review_deal
    from getaway.core.record import record_of

    named = 0
    for seed in (1, 2):
        deal = play_deal(Deal(Rules.profile("classic", players=4), 0, seed), [HeuristicBot()] * 4, random.Random(seed))
        record = record_of(deal)
        result = review_deal(record, 1, iterations=12)
        for d, (_i, before, seat, _a) in zip(result.decisions, decisions_of(record, 1), strict=True):
            view = player_view(before, seat)
            actions = {str(a): a for a in view.legal_actions}
            fact = flag_reason(view, actions[d.played], actions[d.best])
            if d.mark and fact:
                assert d.reason == fact
                named += 1
            elif d.reason:
                assert getattr(d.reason, "template", "") not in review.REASONS.values()
    assert named > 0
