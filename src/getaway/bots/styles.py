"""The panel of opponent styles: small bots that each play one idea, none of them the expert's
rollout policy (the heuristic).

They exist to test other bots against play they were not built around (issue 17). Each is a
:class:`StyleBot` with a name ``style:…`` in :data:`STYLES` (and so in
:data:`getaway.bots.BOTS`, usable wherever bots are named: ``make_bot("style:lead-strong")``,
``getaway tournament --bots style:hoarder,...``). The first six are the six tips of the seeds'
strategy section (seed 000/002 "Tips and strategies"), played literally (each tip's code is in
:mod:`getaway.bots.tips`, shared with the heuristic's tip switches):

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
from typing import ClassVar

from ..core.cards import Card
from ..core.events import PASS, PICKUP, TAKE, Action
from ..core.knowledge import Knowledge
from ..core.view import PlayerView
from . import tips
from .settings import Setting
from .tips import pick, rank, suit_length, suit_of, winning_card

__all__ = [
    "StyleBot",
    "TipStyle",
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
    #: a style has no settings (:mod:`getaway.bots.settings`)
    SETTINGS: ClassVar[tuple[Setting, ...]] = ()

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


class TipStyle(StyleBot):
    """A style playing one tip of :mod:`getaway.bots.tips` literally: the tip's choice where it
    has one (:attr:`tip`), the plain play of :class:`StyleBot` elsewhere, among the cards the tip
    keeps (:meth:`~getaway.bots.tips.Tip.keep`)."""

    tip: tips.Tip = tips.Tip()

    def __init_subclass__(cls, tip: str = "", **kwargs: object) -> None:
        """``class LeadStrong(TipStyle, tip="lead-strong")``: the style of tip ``tip`` (a key
        of :data:`getaway.bots.tips.TIPS`), named ``style:<tip>``."""
        super().__init_subclass__(**kwargs)
        if tip:
            cls.tip = tips.TIPS[tip]
            cls.name = f"style:{tip}"

    def lead(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The tip's lead, else the plain one."""
        cards = self.tip.keep(view, cards)
        chosen = self.tip.lead(view, t, cards, rng)
        return super().lead(view, t, cards, rng) if chosen is None else chosen

    def follow(self, view: PlayerView, t: Knowledge, cards: list[Card], rng: random.Random) -> Action:
        """The tip's card in the led suit, else the plain one."""
        cards = self.tip.keep(view, cards)
        chosen = self.tip.follow(view, t, cards, rng)
        return super().follow(view, t, cards, rng) if chosen is None else chosen

    def discard(
        self, view: PlayerView, t: Knowledge, cards: list[Card], legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The tip's discard (or pick-up), else the plain one."""
        cards = self.tip.keep(view, cards)
        chosen = self.tip.discard(view, t, cards, legal, rng)
        return super().discard(view, t, cards, legal, rng) if chosen is None else chosen


class LeadStrong(TipStyle, tip="lead-strong"):
    """Seed tip 1, "lead your strongest suit first" (:class:`~getaway.bots.tips.LeadStrong`)."""


class VoidShort(TipStyle, tip="void-short"):
    """Seed tip 2, "get rid of a weak suit as early as possible" (:class:`~getaway.bots.tips.VoidShort`)."""


class KeepHigh(TipStyle, tip="keep-high"):
    """Seed tip 3, "keep at least one high card back" (:class:`~getaway.bots.tips.KeepHigh`)."""


class CountVoids(TipStyle, tip="count-voids"):
    """Seed tip 4, "lead a suit an opponent must lack" (:class:`~getaway.bots.tips.CountVoids`)."""


class PickupShort(TipStyle, tip="pickup-short"):
    """Seed tip 5, "picking up a short trick is not always bad" (:class:`~getaway.bots.tips.PickupShort`)."""


class LateHigh(TipStyle, tip="late-high"):
    """Seed tip 6, "late in the deal lead high in short suits" (:class:`~getaway.bots.tips.LateHigh`)."""


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
#: The settings of OpenSpiel's ISMCTS (``style:ismcts``, :class:`getaway.envs.ismcts.ISMCTSStyle`):
#: declared here, so that they are known without OpenSpiel installed.
ISMCTS_SETTINGS: tuple[Setting, ...] = (
    Setting("simulations", int, 200, low=1),
    Setting("uct_c", float, 2.0),  # strictly positive
    Setting("rollouts", int, 1, low=1),
)

STYLES: dict[str, type[StyleBot]] = {
    cls.name: cls
    for cls in (LeadStrong, VoidShort, KeepHigh, CountVoids, PickupShort, LateHigh, Reckless, Hoarder, Lowest)
}
