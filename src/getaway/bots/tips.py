"""The six tips of the seeds' strategy section (seed 000/002 "Tips and strategies"), each one
small object in one place: the styles of :mod:`getaway.bots.styles` play a tip literally on top
of their plain play, and :class:`~getaway.bots.heuristic.HeuristicBot` plays the same code on top
of its own rules of thumb when the tip is switched on (``HeuristicBot(tips="lead-strong")``,
``make_bot("heuristic:tips=lead-strong")``): that switch is what ``getaway lab`` measures.

=================  ==================================================================
``lead-strong``    lead the highest card of your strongest suit (most rank points)
``void-short``     lead and discard from your shortest suit, to make a void early
``keep-high``      never play your highest card (nor an ace) while another card will do
``count-voids``    lead a suit an opponent is proven void in, else the suit with the
                   fewest cards still out (:class:`~getaway.core.knowledge.Knowledge`)
``pickup-short``   pick a short trick (at most 2 cards) up willingly: go over it
                   (punjab) or pick up rather than ruff (classic, V-TRUMP)
``late-high``      late in the deal (5 cards or fewer) lead high in your shortest suit
=================  ==================================================================

A tip answers at three decisions, each ``None`` when it has nothing to say there (the player's
own play decides): :meth:`Tip.lead`, :meth:`Tip.follow` (holding the led suit),
:meth:`Tip.discard` (without it); and :meth:`Tip.keep` narrows the cards considered at all
three. Ties are broken by the ``rng`` passed, or by the first card when it is ``None``.

>>> from getaway import Deal, Rules, player_view
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=5)
>>> view = player_view(deal, deal.to_act)
>>> cards = [a for a in view.legal_actions if isinstance(a, int)]
>>> TIPS["lead-strong"].lead(view, view.knowledge, cards, None) in cards
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ..core.cards import JOKER_INDEX, SUIT_MASKS, Card
from ..core.deal import trick_winner
from ..core.events import PICKUP, Action
from ..core.knowledge import Knowledge
from ..core.messages import N_, Text
from ..core.view import PlayerView

__all__ = [
    "Tip",
    "LeadStrong",
    "VoidShort",
    "KeepHigh",
    "CountVoids",
    "PickupShort",
    "LateHigh",
    "TIPS",
    "parse_tips",
    "rank",
    "suit_of",
    "suit_length",
    "pick",
    "winning_card",
]


def rank(card: int) -> int:
    """The rank of a card, 2–14 (ace high); the Joker is 15."""
    return 15 if card == JOKER_INDEX else card % 13 + 2


def suit_of(card: int) -> int:
    """The suit index 0–3 of a card; 4 for the Joker."""
    return card // 13


def suit_length(hand: int, suit: int) -> int:
    """How many cards of ``suit`` the bit set ``hand`` holds (0 for the Joker's 'suit')."""
    return (hand & SUIT_MASKS[suit]).bit_count() if suit < 4 else 0


def pick(cards: Sequence[Card], key: Callable[[Card], Any], rng: random.Random | None) -> Card:
    """The card of ``cards`` with the greatest ``key(card)``; ties broken by ``rng`` (by the
    first tied card when ``rng`` is ``None``)."""
    best = max(key(c) for c in cards)
    tied = [c for c in cards if key(c) == best]
    return tied[0] if len(tied) == 1 or rng is None else tied[rng.randrange(len(tied))]


def winning_card(view: PlayerView) -> Card:
    """The card winning the current (non-empty) trick (:func:`~getaway.core.deal.trick_winner`)."""
    return trick_winner(view.trick, view.rules, view.first_trick_done)[1]


def _suit_points(hand: int, suit: int) -> int:
    return sum(rank(c) for c in range(13 * suit, 13 * suit + 13) if hand >> c & 1)


class Tip:
    """One tip: what it says at each decision (``None``: nothing, the player's own play decides).

    Attributes:
        name: its short name (``"lead-strong"``), the key of :data:`TIPS`.
    """

    name = "tip"

    def keep(self, view: PlayerView, cards: list[Card]) -> list[Card]:
        """The cards of ``cards`` (the legal ones, non-empty) the tip lets you play: all of them."""
        return cards

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random | None) -> Action | None:
        """The card to lead, or ``None``."""
        return None

    def follow(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random | None) -> Action | None:
        """The card to play holding the led suit (``cards``: the legal ones), or ``None``."""
        return None

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random | None
    ) -> Action | None:
        """What to do without the led suit (``legal`` may hold ``pickup``/``pass``), or ``None``."""
        return None


class LeadStrong(Tip):
    """Tip 1, "lead your strongest suit first": lead the highest card of the suit whose ranks add
    up to the most (length and height together; the Joker counts as a suit of its own)."""

    name = "lead-strong"

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random | None) -> Action | None:
        """The highest card of the strongest suit."""
        hand = view.hand_mask
        return pick(cards, lambda c: (_suit_points(hand, suit_of(c)) if c != JOKER_INDEX else 0, rank(c)), rng)


class VoidShort(Tip):
    """Tip 2, "get rid of a weak suit as early as possible": lead the highest card of the shortest
    suit, and on a tochoo (R-P-TOCHOO) discard from the shortest suit too."""

    name = "void-short"

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random | None) -> Action | None:
        """The highest card of the shortest suit held."""
        hand = view.hand_mask
        return pick(cards, lambda c: (-suit_length(hand, suit_of(c)), rank(c)), rng)

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random | None
    ) -> Action | None:
        """On a tochoo, the highest card of the shortest suit; otherwise nothing."""
        if not view.rules.tochoo_interrupts:
            return None
        hand = view.hand_mask
        return pick(cards, lambda c: (-suit_length(hand, suit_of(c)), rank(c)), rng)


class KeepHigh(Tip):
    """Tip 3, "do not play your aces too early; keep at least one high card back": the highest
    card held (and every ace) is played only when nothing else is legal."""

    name = "keep-high"

    def keep(self, view: PlayerView, cards: list[Card]) -> list[Card]:
        """``cards`` without the highest card held and the aces (all of them if nothing is left)."""
        top = max(rank(c) for c in view.hand)
        rest = [c for c in cards if rank(c) != top and rank(c) != 14]
        return rest or cards


class CountVoids(Tip):
    """Tip 4, "count suit lengths; lead a suit an opponent must lack": lead the lowest card of a
    suit some active opponent is proven void in (:meth:`~getaway.core.knowledge.Knowledge.is_void`);
    failing that, of the suit with the fewest cards still out
    (:meth:`~getaway.core.knowledge.Knowledge.outstanding`)."""

    name = "count-voids"

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random | None) -> Action | None:
        """The lowest card of a suit an opponent lacks, else of the suit with fewest cards out."""
        others = [s for s in range(view.players) if s != view.seat and not view.got_away[s]]

        def key(c: Card) -> tuple[int, int, int]:
            suit = suit_of(c)
            if suit >= 4:
                return (0, -99, -rank(c))
            voids = sum(1 for s in others if t.is_void(s, suit))
            return (voids, -t.outstanding(suit).bit_count(), -rank(c))

        return pick(cards, key, rng)


class PickupShort(Tip):
    """Tip 5, "picking up a short trick (2–3 cards) is not always bad": while the trick holds at
    most :attr:`SHORT` cards, go over the winning card with the highest card (punjab, after the
    first trick: it picks the trick up on a tochoo) or, void, pick up rather than ruff (V-TRUMP)."""

    name = "pickup-short"
    #: The longest trick it picks up willingly.
    SHORT = 2

    def follow(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random | None) -> Action | None:
        """The highest card while the trick is short (punjab), else nothing."""
        if view.rules.profile == "punjab" and view.first_trick_done and len(view.trick) <= self.SHORT:
            return pick(cards, rank, rng)
        return None

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random | None
    ) -> Action | None:
        """Pick a short trick up when that is legal, else nothing."""
        if PICKUP in legal and len(view.trick) <= self.SHORT:
            return PICKUP
        return None


class LateHigh(Tip):
    """Tip 6, "as the deal shrinks, lead your highest cards in your shortest suits": with
    :attr:`LATE` cards or fewer in hand, lead the highest card of the shortest suit."""

    name = "late-high"
    #: Hand size from which the deal counts as late.
    LATE = 5

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random | None) -> Action | None:
        """Late: the highest card of the shortest suit; early: nothing."""
        if len(view.hand) > self.LATE:
            return None
        hand = view.hand_mask
        return pick(cards, lambda c: (-suit_length(hand, suit_of(c)), rank(c)), rng)


#: The six tips by name, in the seeds' order.
TIPS: dict[str, Tip] = {
    tip.name: tip for tip in (LeadStrong(), VoidShort(), KeepHigh(), CountVoids(), PickupShort(), LateHigh())
}


def parse_tips(tips: str | Sequence[str]) -> tuple[Tip, ...]:
    """The tips named by ``tips``: a sequence of names, or one string of names joined by ``/``
    (``"lead-strong/keep-high"``, as a bot setting on a command line: ``heuristic:tips=…``).

    Raises:
        ValueError: a name that is no tip (the message lists the six).
    """
    names = [n.strip() for n in tips.split("/")] if isinstance(tips, str) else [str(n) for n in tips]
    out = []
    for name in filter(None, names):
        if name not in TIPS:
            raise ValueError(Text(N_("tips: unknown tip {name!r} (tips: {known})"), name=name, known=", ".join(TIPS)))
        out.append(TIPS[name])
    return tuple(out)
