"""A fast model of :class:`~getaway.bots.heuristic.HeuristicBot` for the expert's rollouts.

The expert plays out sampled worlds with the heuristic in every seat (its own included):
against heuristic opponents the rollouts then follow exactly the play they will meet, up
to what the sampled hands get wrong. Building a :class:`~getaway.core.view.PlayerView` and a
:class:`~getaway.bots.tracking.Tracker` from the whole history at every decision of a
rollout costs ten times the play itself, so :class:`PublicFacts` keeps what the public
history proves (cards known in each hand, proven voids) incrementally, from the events of
the rollout's deal, and hands the heuristic a light view and a tracker built from them.

What the model leaves out (it only shifts the opponents' play in rare spots, never the
legality of a move): the cards a taker or a taken player saw in a take (R-P-TAKE), and a
blind draw's card while it is hidden (it is counted in the drawer's unknown cards).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.cards import FULL_PACK, JOKER_INDEX, cards_of
from ..core.deal import Deal
from ..core.events import Action, Event, EventKind
from .heuristic import HeuristicBot
from .tracking import Tracker

__all__ = ["PublicFacts", "heuristic_action", "heuristic_rollout"]

_JOKER_BIT = 1 << JOKER_INDEX
_PLAY = EventKind.PLAY
_VOID = EventKind.VOID
_PICKUP = EventKind.PICKUP
_WASTE = EventKind.WASTE
_DRAW = EventKind.DRAW
_TAKE = EventKind.TAKE
_OUT = EventKind.OUT
_IRREGULARITY = EventKind.IRREGULARITY


class _View:
    """The attributes of a :class:`~getaway.core.view.PlayerView` the heuristic reads."""

    __slots__ = (
        "seat",
        "players",
        "rules",
        "got_away",
        "trick",
        "hand_mask",
        "hand",
        "first_trick_done",
        "decision",
        "led_suit",
        "history",
        "legal_actions",
    )


class PublicFacts:
    """Public deductions about every hand, updated from a deal's events.

    Args:
        tracker: the searching player's tracker at the decision (its public deductions
            start the model: ``public_known``, ``public_voids``, the trick's led suit).
        deal: the rebuilt deal the rollouts start from (its events are read from
            ``start``).
        start: index of the first event of ``deal`` not yet covered by ``tracker``.
    """

    __slots__ = ("known", "voids", "led", "read", "universe")

    def __init__(self, tracker: Tracker | None = None, deal: Deal | None = None, start: int = 0) -> None:
        if tracker is None:  # an empty shell for copy()
            return
        assert deal is not None
        self.known = list(tracker.public_known)
        self.voids = list(tracker.public_voids)
        trick = tracker.view.trick
        self.led = trick[0][1] // 13 if trick and trick[0][1] != JOKER_INDEX else None
        self.read = start
        universe = FULL_PACK
        for c in tracker.view.stripped:
            universe &= ~(1 << c)
        if tracker.rules.joker:
            universe |= _JOKER_BIT
        self.universe = universe

    @classmethod
    def from_events(cls, players: int, events: Sequence[Event]) -> PublicFacts:
        """The public facts after ``events`` (a view's history), read from the deal's start."""
        facts = cls()
        facts.known = [0] * players
        facts.voids = [0] * players
        facts.led = None
        facts.read = 0
        facts.universe = 0
        facts._read(events)
        return facts

    def copy(self) -> PublicFacts:
        other = PublicFacts()
        other.known = list(self.known)
        other.voids = list(self.voids)
        other.led = self.led
        other.read = self.read
        other.universe = self.universe
        return other

    def update(self, deal: Deal) -> None:
        """Read the events of ``deal`` since the last update (as :class:`Tracker` does)."""
        events = deal._events
        if self.read >= len(events):
            return
        self._read(events[self.read :])
        self.read = len(events)

    def _read(self, events: Sequence[Event]) -> None:
        known = self.known
        voids = self.voids
        led = self.led
        for e in events:
            kind = e.kind
            if kind == _PLAY:
                seat, card = e.seat, e.cards[0]
                known[seat] &= ~(1 << card)
                if led is None:
                    if card != JOKER_INDEX:
                        led = card // 13
                elif card == JOKER_INDEX or card // 13 != led:
                    voids[seat] |= 1 << led
            elif kind == _VOID:
                if led is not None:
                    voids[e.seat] |= 1 << led
            elif kind == _PICKUP:
                for c in e.cards:
                    known[e.seat] |= 1 << c
                led = None
            elif kind == _WASTE:
                if not (len(e.cards) == 1 and e.cards[0] == JOKER_INDEX and led is None):
                    led = None
            elif kind == _DRAW:
                voids[e.seat] = 0
            elif kind == _TAKE:
                taker, taken = e.seat, e.other
                known[taker] |= known[taken]
                voids[taker] &= voids[taken]
                known[taken] = 0
                voids[taken] = 0
            elif kind == _OUT:
                known[e.seat] = 0
            elif kind == _IRREGULARITY:
                for s in range(len(known)):
                    known[s] = 0
                    voids[s] = 0
        self.led = led

    def view_and_tracker(self, deal: Deal, seat: int, legal: list[Action]) -> tuple[_View, Tracker]:
        """What ``seat`` would see and deduce now (from the public facts and its own hand)."""
        hands = deal._hands
        n = deal.players
        hand = hands[seat]
        view = _View()
        view.seat = seat
        view.players = n
        view.rules = deal.rules
        out = deal._out
        view.got_away = tuple(bool(out >> s & 1) for s in range(n))
        trick = deal.trick
        view.trick = trick
        view.hand_mask = hand
        view.hand = cards_of(hand)
        view.first_trick_done = deal._first_done
        view.decision = deal.decision
        view.led_suit = trick[0][1] // 13 if trick else None
        view.history = deal._events
        view.legal_actions = legal
        t = Tracker.__new__(Tracker)
        t.seat = seat
        t.players = n
        t.rules = deal.rules
        known = [self.known[s] & hands[s] for s in range(n)]
        known[seat] = hand
        voids = list(self.voids)
        voids[seat] = 0
        sizes = tuple(h.bit_count() for h in hands)
        in_hands = 0
        seen = 0
        for s in range(n):
            in_hands |= hands[s]
            seen |= known[s]
        t.known = known
        t.voids = voids
        t.sizes = sizes
        unknown = [sizes[s] - known[s].bit_count() for s in range(n)]
        unknown[seat] = 0
        t.unknown = unknown
        t.hidden_holder = None
        t.hidden_candidates = 0
        t.hidden_forced = False
        t.pool = in_hands & ~seen
        t.view = view
        return view, t


def heuristic_action(bot: HeuristicBot, deal: Deal, facts: PublicFacts) -> Action:
    """The heuristic's action for the seat to act in ``deal`` (``facts`` brought up to date)."""
    legal = deal.legal_actions()
    if len(legal) == 1:
        return legal[0]
    facts.update(deal)
    seat = deal.to_act
    assert seat is not None
    view, tracker = facts.view_and_tracker(deal, seat, legal)
    return bot.choose(view, legal, tracker)[0]  # type: ignore[arg-type]


def heuristic_rollout(bot: HeuristicBot, deal: Deal, facts: PublicFacts, limit: int = 2000) -> bool:
    """Play ``deal`` out with the heuristic in every seat; whether it ended within ``limit``."""
    while not deal.is_over:
        if not limit:
            return False
        limit -= 1
        deal.apply(heuristic_action(bot, deal, facts))
    return True
