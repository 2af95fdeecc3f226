"""The panel of opponent styles: small bots that each play one idea, none of them the expert's
rollout policy (the heuristic).

They exist to test other bots against play they were not built around (issue 17). Each is a
:class:`StyleBot` with a name ``style:…`` in :data:`STYLES` (and so in
:data:`getaway.bots.BOTS`, usable wherever bots are named: ``make_bot("style:lead-strong")``,
``getaway tournament --bots style:hoarder,...``). The first six are the six tips of the seeds'
strategy section (seed 000/002 "Tips and strategies"), played literally:

=====================  ==================================================================
``style:lead-strong``  lead the highest card of your strongest suit (most rank points)
``style:void-short``   lead and discard from your shortest suit, to make a void early
``style:keep-high``    never play your highest card (nor an ace) while another card will do
``style:count-voids``  lead a suit an opponent is proven void in, else the suit with the
                       fewest cards still out (:class:`~getaway.core.knowledge.Knowledge`)
``style:pickup-short`` pick a short trick (at most 2 cards) up willingly: go over it
                       (punjab) or pick up rather than ruff (classic, V-TRUMP)
``style:late-high``    late in the deal (5 cards or fewer) lead high in your shortest suit
``style:reckless``     take the neighbour's hand whenever allowed (R-P-TAKE), play high
``style:hoarder``      keep high cards: lead, follow and discard the lowest card
``style:lowest``       always the lowest legal card (by rank, then suit)
=====================  ==================================================================

Everything a style does not decide itself is the plain play of :class:`StyleBot` (documented
there). Ties are broken with the ``rng`` the harness passes, so a style is deterministic given
a seed. OpenSpiel's ISMCTS (``style:ismcts``) lives in :mod:`getaway.envs.ismcts` (it needs
OpenSpiel) and is registered here by module path.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..core.cards import JOKER_INDEX, SUIT_MASKS, Card
from ..core.deal import trick_winner
from ..core.events import PASS, PICKUP, TAKE, Action
from ..core.knowledge import Knowledge
from ..core.view import PlayerView

__all__ = [
    "StyleBot",
    "LeadStrong",
    "VoidShort",
    "KeepHigh",
    "CountVoids",
    "PickupShort",
    "LateHigh",
    "Reckless",
    "Hoarder",
    "Lowest",
    "STYLES",
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


class StyleBot:
    """A bot playing one idea; subclasses override :meth:`lead`, :meth:`follow`,
    :meth:`discard` or :meth:`wants_take`.

    The plain play (what a style does not change):

    - never takes a neighbour's hand (R-P-TAKE): it passes the poll;
    - leads the lowest card of its longest suit;
    - following suit: in punjab the highest card under the card winning the trick, else its
      lowest; in classic its lowest;
    - without the led suit: a tochoo (punjab, R-P-TOCHOO) sheds its highest card; otherwise
      (classic) it ruffs with its lowest card if it can (V-TRUMP), else picks up or passes.

    Ties (equal scores) are broken by ``rng``: deterministic given the harness's seed.
    """

    name = "style"

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """One of ``legal`` (non-empty) for ``view.seat``, as the style plays."""
        if len(legal) == 1:
            return legal[0]
        t = view.knowledge
        if view.decision == "take" or (TAKE in legal and not view.trick):
            if TAKE in legal and self.wants_take(view, t):
                return TAKE
            if view.decision == "take":
                return PASS
        cards = [a for a in legal if a not in (TAKE, PASS, PICKUP)]
        if not cards:
            return PASS if PASS in legal else PICKUP
        if not view.trick:
            return self.lead(view, t, cards, rng)
        led = view.led_suit
        assert led is not None
        if suit_length(view.hand_mask, led):
            return self.follow(view, t, cards, rng)
        return self.discard(view, t, cards, legal, rng)

    # -- what a style may change --

    def wants_take(self, view: PlayerView, t: Knowledge) -> bool:
        """Whether to take the left neighbour's hand (R-P-TAKE) when offered: never."""
        return False

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The card to lead: the lowest of the longest suit."""
        hand = view.hand_mask
        return pick(cards, lambda c: (suit_length(hand, suit_of(c)), -rank(c)), rng)

    def follow(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The card to play in the led suit (``cards``: the legal ones)."""
        if view.rules.profile == "punjab" and not view.rules.nopickup and view.first_trick_done:
            win = winning_card(view)
            under = [c for c in cards if c < win]
            if under:
                return pick(under, rank, rng)
        return pick(cards, lambda c: -rank(c), rng)

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """What to do without the led suit: shed the highest card on a tochoo, else ruff low."""
        if view.rules.tochoo_interrupts:
            return pick(cards, rank, rng)
        return pick(cards, lambda c: -rank(c), rng)


def pick(cards: Sequence[Card], key, rng: random.Random) -> Card:  # type: ignore[no-untyped-def]
    """The card of ``cards`` with the greatest ``key(card)``; ties broken by ``rng``."""
    best = max(key(c) for c in cards)
    tied = [c for c in cards if key(c) == best]
    return tied[0] if len(tied) == 1 else tied[rng.randrange(len(tied))]


def winning_card(view: PlayerView) -> Card:
    """The card winning the current (non-empty) trick (:func:`~getaway.core.deal.trick_winner`)."""
    return trick_winner(view.trick, view.rules, view.first_trick_done)[1]


def _suit_points(hand: int, suit: int) -> int:
    return sum(rank(c) for c in range(13 * suit, 13 * suit + 13) if hand >> c & 1)


class LeadStrong(StyleBot):
    """Seed tip 1, "lead your strongest suit first": lead the highest card of the suit whose
    ranks add up to the most (length and height together)."""

    name = "style:lead-strong"

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The highest card of the strongest suit (the Joker counts as a suit of its own)."""
        hand = view.hand_mask
        return pick(cards, lambda c: (_suit_points(hand, suit_of(c)) if c != JOKER_INDEX else 0, rank(c)), rng)


class VoidShort(StyleBot):
    """Seed tip 2, "get rid of a weak suit as early as possible": lead the highest card of
    the shortest suit, and discard from the shortest suit too."""

    name = "style:void-short"

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The highest card of the shortest suit held."""
        hand = view.hand_mask
        return pick(cards, lambda c: (-suit_length(hand, suit_of(c)), rank(c)), rng)

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """On a tochoo, a card of the shortest suit (the highest of it); otherwise the plain play."""
        if not view.rules.tochoo_interrupts:
            return super().discard(view, t, cards, legal, rng)
        hand = view.hand_mask
        return pick(cards, lambda c: (-suit_length(hand, suit_of(c)), rank(c)), rng)


class KeepHigh(StyleBot):
    """Seed tip 3, "do not play your aces too early; keep at least one high card back": its
    highest card (and every ace) is played only when nothing else is legal; otherwise the plain play."""

    name = "style:keep-high"

    def _spare(self, view: PlayerView, cards: list[Card]) -> list[Card]:
        top = max(rank(c) for c in view.hand)
        rest = [c for c in cards if rank(c) != top and rank(c) != 14]
        return rest or cards

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The plain lead among the cards that are neither the highest held nor an ace."""
        return super().lead(view, t, self._spare(view, cards), rng)

    def follow(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The plain follow among the cards kept in play (see :meth:`lead`)."""
        return super().follow(view, t, self._spare(view, cards), rng)

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The plain discard among the cards kept in play (see :meth:`lead`)."""
        return super().discard(view, t, self._spare(view, cards), legal, rng)


class CountVoids(StyleBot):
    """Seed tip 4, "count suit lengths; lead a suit an opponent must lack": lead the lowest card
    of a suit some active opponent is proven void in
    (:meth:`~getaway.core.knowledge.Knowledge.is_void`); failing that, of the suit with the
    fewest cards still out (:meth:`~getaway.core.knowledge.Knowledge.outstanding`)."""

    name = "style:count-voids"

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The lowest card of a suit an opponent lacks, else of the suit with fewest cards out."""
        others = [s for s in range(view.players) if s != view.seat and not view.got_away[s]]

        def key(c: Card) -> tuple[int, int, int]:
            suit = suit_of(c)
            if suit >= 4:
                return (0, -99, -rank(c))
            voids = sum(1 for s in others if t.is_void(s, suit))
            return (voids, -t.outstanding(suit).bit_count(), -rank(c))

        return pick(cards, key, rng)


class PickupShort(StyleBot):
    """Seed tip 5, "picking up a short trick (2–3 cards) is not always bad": while the trick
    holds at most :attr:`SHORT` cards it goes over the winning card (punjab: it will pick the
    trick up on a tochoo) or, void in classic, picks up rather than ruffing (V-TRUMP)."""

    name = "style:pickup-short"
    #: The longest trick it picks up willingly.
    SHORT = 2

    def follow(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """Over the winning card with the highest card while the trick is short (punjab)."""
        if view.rules.profile == "punjab" and view.first_trick_done and len(view.trick) <= self.SHORT:
            return pick(cards, rank, rng)
        return super().follow(view, t, cards, rng)

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """Pick a short trick up (when that is legal) rather than ruff; else the plain play."""
        if PICKUP in legal and len(view.trick) <= self.SHORT:
            return PICKUP
        return super().discard(view, t, cards, legal, rng)


class LateHigh(StyleBot):
    """Seed tip 6, "as the deal shrinks, lead your highest cards in your shortest suits": with
    :attr:`LATE` cards or fewer in hand it leads the highest card of its shortest suit; before
    that the plain lead."""

    name = "style:late-high"
    #: Hand size from which the deal counts as late.
    LATE = 5

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """Late: the highest card of the shortest suit; early: the plain lead."""
        if len(view.hand) > self.LATE:
            return super().lead(view, t, cards, rng)
        hand = view.hand_mask
        return pick(cards, lambda c: (-suit_length(hand, suit_of(c)), rank(c)), rng)


class Reckless(StyleBot):
    """A reckless taker: takes the neighbour's hand whenever the rules allow (R-P-TAKE) and
    plays its highest legal card everywhere (it does not mind picking up)."""

    name = "style:reckless"

    def wants_take(self, view: PlayerView, t: Knowledge) -> bool:
        """Always."""
        return True

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The highest card."""
        return pick(cards, rank, rng)

    def follow(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The highest card of the suit."""
        return pick(cards, rank, rng)

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The highest card (a ruff with the highest spade, in classic with trumps)."""
        return pick(cards, rank, rng)


class Hoarder(StyleBot):
    """A hoarder of high cards: it leads the lowest card of its longest suit, follows with its
    lowest and discards its lowest (keeping every high card as long as it can)."""

    name = "style:hoarder"

    def follow(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The lowest card of the suit."""
        return pick(cards, lambda c: -rank(c), rng)

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The lowest card (on a tochoo too)."""
        return pick(cards, lambda c: -rank(c), rng)


class Lowest(StyleBot):
    """Always its lowest legal card (by rank, then by suit index), passing every take poll;
    without a card to play, it picks up or passes. Uses no chance at all."""

    name = "style:lowest"

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """The lowest legal card, else pass (a take poll) or pick up."""
        cards = [a for a in legal if a not in (TAKE, PASS, PICKUP)]
        if cards:
            return min(cards, key=lambda c: (rank(c), c))
        return PASS if PASS in legal else legal[0]


#: The styles by name (the ISMCTS style is registered in :data:`getaway.bots.BOTS`).
STYLES: dict[str, type[StyleBot]] = {
    cls.name: cls
    for cls in (LeadStrong, VoidShort, KeepHigh, CountVoids, PickupShort, LateHigh, Reckless, Hoarder, Lowest)
}
