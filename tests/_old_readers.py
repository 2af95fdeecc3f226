from __future__ import annotations
"""The three old readers of the public history (main before issue 12), kept only for the
comparison test (tests/test_knowledge_readers.py); deleted with it."""
# ruff: noqa
"""(old bots.tracking) Card tracking: what one player can deduce from their :class:`~getaway.core.view.PlayerView`.

A :class:`Tracker` reads the public history of a view (plus the viewer's own hand) and
keeps, for every other seat:

- the cards **known** to be in that hand: picked up publicly, or seen by the viewer in a
  take (as taker or taken), until that seat plays them; the A♠ holder before the first lead;
- the **proven voids**: a tochoo, a ruff, any off-suit card on punjab's first trick, or a
  ``void`` event proves that the hand held no card of the led suit; the proof holds for the
  hand's *unknown* cards until new unknown cards reach it (a hidden take, a blind draw);
- exact hand sizes, the cards seen played, the waste pile's contents, and a card drawn
  blind by someone else (one of the waste's cards, in a known hand).

:meth:`Tracker.sample` deals the unknown cards into a world consistent with all of it:
hand sizes, known cards and voids, every card in exactly one place.

>>> from getaway import Deal, Rules
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=3)
>>> tracker = Tracker(deal.view(1))
>>> world = tracker.sample(random.Random(0))
>>> [h.bit_count() for h in world.hands] == list(deal.hand_sizes)
True
"""


import random
from dataclasses import dataclass

from getaway.core.cards import ACE_OF_SPADES, FULL_PACK, JOKER_INDEX, SUIT_MASKS, cards_of
from getaway.core.events import EventKind
from getaway.core.view import PlayerView

__all__ = ["Tracker", "World", "SamplingError"]

_JOKER_BIT = 1 << JOKER_INDEX
#: Card groups for the sampler's constraints: the four suits, then the Joker (no suit, never void).
_GROUPS = (*SUIT_MASKS, _JOKER_BIT)


class SamplingError(RuntimeError):
    """No world fits the tracked facts (a tracking bug: the real deal always fits)."""


@dataclass(frozen=True, slots=True)
class World:
    """One sampled deal state consistent with a view.

    Attributes:
        hands: per seat, the bit set of its cards (the viewer's own hand as it is).
        waste: bit set of the waste pile (without a card someone drew blind).
        hidden: the card drawn blind by someone else in this world, or ``None``.
    """

    hands: tuple[int, ...]
    waste: int
    hidden: int | None = None


class Tracker:
    """Everything ``view.seat`` can deduce about the other hands (see the module docstring).

    Attributes:
        seat: the viewer.
        known: per seat, bit set of cards known to be in that hand (the viewer's whole hand
            for the viewer).
        voids: per seat, bit set of suits (bit ``s`` = suit ``s``) that its unknown cards
            cannot contain.
        sizes: exact hand sizes.
        unknown: per seat, how many of its cards are unknown to the viewer.
        played: every card seen played to a trick.
        waste: the waste pile as the viewer knows it (a card drawn blind by someone else
            still counted in, as in ``view.waste_seen``).
        hidden_holder: the seat holding a card drawn blind that the viewer has not seen, or ``None``.
        hidden_candidates: bit set of the cards that hidden card can be.
        hidden_forced: the holder drew it and must still lead it (R-P-DRAW).
        public_known: ``known`` as the public history alone gives it (the viewer's own entry:
            what the others know of the viewer's hand).
        public_voids: ``voids`` likewise (the viewer's own entry included).
        pool: bit set of the cards whose place is unknown (dealt into the unknown slots).

    Raises:
        ValueError: a spectator's view (``seat`` is ``None``).
    """

    def __init__(self, view: PlayerView) -> None:
        if view.seat is None:
            raise ValueError("seat: a tracker needs a player's view, not a spectator's")
        n = view.players
        me = view.seat
        self.seat = me
        self.players = n
        self.rules = view.rules
        known = [0] * n
        voids = [0] * n
        played = 0
        waste = 0
        trick_led: int | None = None  # led suit of the current trick, None between tricks
        hidden_holder: int | None = None
        hidden_candidates = 0
        hidden_forced = False
        for e in view.history:
            kind = e.kind
            if kind == EventKind.PLAY:
                seat, card = e.seat, e.cards[0]
                played |= 1 << card
                known[seat] &= ~(1 << card)
                waste &= ~(1 << card)  # a card drawn blind comes back into sight when led
                if trick_led is None:
                    if card != JOKER_INDEX:
                        trick_led = card // 13
                elif card == JOKER_INDEX or card // 13 != trick_led:
                    voids[seat] |= 1 << trick_led  # tochoo, ruff, or an off-suit card on the first trick
            elif kind == EventKind.VOID:
                if trick_led is not None:
                    voids[e.seat] |= 1 << trick_led
            elif kind == EventKind.PICKUP:
                known[e.seat] |= _mask(e.cards)
                trick_led = None
            elif kind == EventKind.WASTE:
                waste |= _mask(e.cards)
                if not (len(e.cards) == 1 and e.cards[0] == JOKER_INDEX and trick_led is None):
                    trick_led = None
            elif kind == EventKind.DRAW:
                if e.cards:  # the viewer drew it: it is in the viewer's hand
                    waste &= ~(1 << e.cards[0])
                else:
                    hidden_holder = e.seat
                    hidden_forced = True
                    hidden_candidates = waste & ~_JOKER_BIT
                    voids[e.seat] = 0
            elif kind == EventKind.TAKE:
                taker, taken = e.seat, e.other
                if e.cards:
                    if taken == me:
                        known[taker] |= _mask(e.cards)
                    # the viewer took it: the cards are in the viewer's hand
                else:
                    known[taker] |= known[taken]
                    voids[taker] &= voids[taken]
                    if hidden_holder == taken:
                        hidden_holder = taker
                        hidden_forced = False
                known[taken] = 0
                voids[taken] = 0
            elif kind == EventKind.OUT:
                known[e.seat] = 0
            elif kind == EventKind.IRREGULARITY:
                # R-P-PENALTY moves cards between hands in ways a few events do not spell out:
                # forget what was known, keep only what is certain (the sizes).
                played |= _mask(e.cards)
                known = [0] * n
                voids = [0] * n
        hand = view.hand_mask
        # What everyone else can deduce about the viewer's hand (for opponent models).
        self.public_known = [k for k in known]
        self.public_voids = list(voids)
        known[me] = hand
        voids[me] = 0
        # The waste as the view shows it is exact (R-INFO); a blind draw the viewer did not see
        # leaves its card counted in it.
        waste = _mask(view.waste_seen)
        if len(view.waste_seen) == view.waste_size or hidden_holder is None:
            hidden_holder = None
            hidden_candidates = 0
            hidden_forced = False
        else:
            hidden_candidates &= waste
        if not view.first_trick_done and not view.trick and not hand >> ACE_OF_SPADES & 1:
            known[view.leader] |= 1 << ACE_OF_SPADES  # R-ACE: the player due to lead holds it
        for s in range(n):
            if s != me and view.hand_sizes[s] == 0:
                known[s] = 0
        trick = _mask(c for _, c in view.trick)
        universe = FULL_PACK & ~_mask(view.stripped)
        if view.rules.joker:
            universe |= _JOKER_BIT
        placed = waste | trick
        for s in range(n):
            placed |= known[s]
        self.known = known
        self.voids = voids
        self.sizes = tuple(view.hand_sizes)
        self.unknown = [max(0, view.hand_sizes[s] - known[s].bit_count()) for s in range(n)]
        self.unknown[me] = 0
        self.played = played
        self.waste = waste
        self.trick = trick
        self.hidden_holder = hidden_holder
        self.hidden_candidates = hidden_candidates
        self.hidden_forced = hidden_forced
        self.pool = universe & ~placed
        self.view = view

    # ------------------------------------------------------------------ queries

    def is_void(self, seat: int, suit: int) -> bool:
        """Whether ``seat`` certainly holds no card of ``suit`` (0–3)."""
        if seat == self.seat:
            return not self.known[seat] & SUIT_MASKS[suit]
        if self.known[seat] & SUIT_MASKS[suit]:
            return False
        if self.unknown[seat] == 0 and self.hidden_holder != seat:
            return True
        if self.hidden_holder == seat and self.hidden_candidates & SUIT_MASKS[suit]:
            return False
        return bool(self.voids[seat] >> suit & 1) or not self.pool & SUIT_MASKS[suit]

    def outstanding(self, suit: int) -> int:
        """Bit set of the cards of ``suit`` held by the other players (known or possibly)."""
        cache = self.__dict__.get("_outstanding")
        if cache is None:
            cache = self._outstanding = self._others()
        return cache & SUIT_MASKS[suit]

    def _others(self) -> int:
        mask = self.pool
        for s in range(self.players):
            if s != self.seat:
                mask |= self.known[s]
        if self.hidden_holder is not None:
            mask |= self.hidden_candidates
        return mask

    def has_probability(self, seat: int, suit: int) -> float:
        """Rough chance that ``seat`` holds at least one card of ``suit`` (0 or 1 when certain)."""
        cache = self.__dict__.setdefault("_has", {})
        key = seat * 4 + suit
        p = cache.get(key)
        if p is None:
            p = cache[key] = self._has_probability(seat, suit)
        return p

    def _has_probability(self, seat: int, suit: int) -> float:
        if seat == self.seat:
            return 1.0 if self.known[seat] & SUIT_MASKS[suit] else 0.0
        if self.known[seat] & SUIT_MASKS[suit]:
            return 1.0
        if self.is_void(seat, suit):
            return 0.0
        k = self.unknown[seat]
        if self.hidden_holder == seat:
            k += 1
        total = self.pool.bit_count() or 1
        in_suit = (self.pool & SUIT_MASKS[suit]).bit_count()
        # chance that none of k unknown cards is of the suit, drawing without replacement
        p_none = 1.0
        for i in range(k):
            if total - i <= 0:
                break
            p_none *= max(0.0, (total - in_suit - i) / (total - i))
        return 1.0 - p_none

    # ------------------------------------------------------------------ sampling

    def slots(self) -> tuple[list[int], list[int]]:
        """Per seat: unknown cards to deal from the pool, and the allowed card groups
        (bit ``g`` of the five groups: four suits, the Joker)."""
        caps = list(self.unknown)
        allowed = []
        for s in range(self.players):
            allowed.append(0b11111 & ~self.voids[s])
        if self.hidden_holder is not None:
            caps[self.hidden_holder] -= 1
        return caps, allowed

    def sample(self, rng: random.Random) -> World:
        """A world consistent with every tracked fact, drawn from ``rng``.

        Raises:
            SamplingError: no consistent world exists (a tracking bug).
        """
        n = self.players
        hands = list(self.known)
        waste = self.waste
        card = None
        if self.hidden_holder is not None:
            h = self.hidden_holder
            candidates = self.hidden_candidates
            allowed_hidden = candidates
            for suit in range(4):
                if self.voids[h] >> suit & 1:
                    allowed_hidden &= ~SUIT_MASKS[suit]
            options = cards_of(allowed_hidden or candidates)
            if not options:
                raise SamplingError("no card for the blind draw")
            card = options[rng.randrange(len(options))]
            hands[h] |= 1 << card
            waste &= ~(1 << card)
        caps, allowed = self.slots()
        pool = list(cards_of(self.pool))
        if sum(c for c in caps if c > 0) != len(pool) or any(c < 0 for c in caps):
            raise SamplingError(f"pool of {len(pool)} cards for {caps} unknown slots")
        rng.shuffle(pool)
        constrained = any(caps[s] and allowed[s] != 0b11111 for s in range(n))
        if not constrained:
            i = 0
            for s in range(n):
                k = caps[s]
                if k:
                    hands[s] |= _mask(pool[i : i + k])
                    i += k
            return World(tuple(hands), waste, card)
        counts = [0] * 5
        for c in pool:
            counts[_group(c)] += 1
        seats = [s for s in range(n) if caps[s] > 0]
        if not _feasible(counts, caps, allowed, seats):
            raise SamplingError("the voids leave no room for the unknown cards")
        # Most constrained groups first, so that the weighted choice rarely needs a retry.
        pool.sort(key=lambda c: sum(1 for s in seats if allowed[s] >> _group(c) & 1))
        for c in pool:
            g = _group(c)
            counts[g] -= 1
            choices = [s for s in seats if caps[s] > 0 and allowed[s] >> g & 1]
            while True:
                if not choices:
                    raise SamplingError(f"no hand can hold {cards_of(1 << c)[0]}")
                weights = [caps[s] for s in choices]
                s = rng.choices(choices, weights)[0]
                caps[s] -= 1
                if _feasible(counts, caps, allowed, seats):
                    break
                caps[s] += 1
                choices.remove(s)
            hands[s] |= 1 << c
        return World(tuple(hands), waste, card)


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _group(card: int) -> int:
    return 4 if card == JOKER_INDEX else card // 13


def _feasible(counts: list[int], caps: list[int], allowed: list[int], seats: list[int]) -> bool:
    """Hall's condition for dealing ``counts[g]`` cards of each group into seats of
    capacity ``caps`` that accept the groups in ``allowed``: every set of groups needs
    at least as many places as it has cards."""
    present = [g for g in range(5) if counts[g]]
    k = len(present)
    for subset in range(1, 1 << k):
        need = 0
        groups = 0
        for i in range(k):
            if subset >> i & 1:
                need += counts[present[i]]
                groups |= 1 << present[i]
        room = 0
        for s in seats:
            if allowed[s] & groups:
                room += caps[s]
        if need > room:
            return False
    return True


# ---- old envs.encoding.Tracker
from getaway.core.events import EventKind as _EK
from typing import Final
import numpy as np
_PLAY=_EK.PLAY;_VOID=_EK.VOID;_PICKUP=_EK.PICKUP;_WASTE=_EK.WASTE;_DRAW=_EK.DRAW;_TAKE=_EK.TAKE;_IRREGULARITY=_EK.IRREGULARITY;_OUT=_EK.OUT
def _suits_of(mask: int) -> int:
    """Bit set of the suits (bit s = suit s) with a card in ``mask``."""
    return (bool(mask & SUIT_MASKS[0]) | bool(mask & SUIT_MASKS[1]) << 1 | bool(mask & SUIT_MASKS[2]) << 2) | bool(
        mask & SUIT_MASKS[3]
    ) << 3


class EncTracker:
    """What one seat can deduce from its view's public history: known cards per hand,
    proven voids, the waste pile, a card someone else drew blind.

    Fed incrementally: :meth:`update` reads only the events it has not seen yet, so
    calling it after every action costs O(new events). All seats are absolute here;
    :func:`encode` rotates them.

    Args:
        players: number of seats.
        first_trick_done: the deal starts after the first trick (a :class:`Position`).
    """

    __slots__ = (
        "players",
        "known",
        "public",
        "voids",
        "waste",
        "seen",
        "first_done",
        "open",
        "led",
        "pending",
        "pending_cards",
        "pending_forced",
    )

    def __init__(self, players: int, first_trick_done: bool = False) -> None:
        self.players = players
        self.known = [0] * players  # per seat, cards known to be in its hand
        self.public = [0] * players  # the same without what only this viewer saw in takes
        self.voids = [0] * players  # per seat, bit set of proven void suits
        self.waste = 0  # cards seen going into the waste (a hidden draw stays here until played)
        self.seen = 0  # history events already read
        self.first_done = first_trick_done
        self.open = False  # a trick is on the table
        self.led: int | None = None  # its led suit (None: the Joker, or nothing led)
        self.pending = -1  # seat holding a card drawn blind by someone else (R-P-DRAW), else -1
        self.pending_cards = 0  # the cards it may be (the waste as it was)
        self.pending_forced = False  # the holder drew it and must lead it (not a taker)

    def copy(self) -> EncTracker:
        """An independent copy."""
        other = EncTracker.__new__(EncTracker)
        for name in EncTracker.__slots__:
            setattr(other, name, getattr(self, name))
        other.known = list(self.known)
        other.public = list(self.public)
        other.voids = list(self.voids)
        return other

    def public_copy(self) -> EncTracker:
        """A copy that forgets what only this viewer saw (the cards of takes it was part of):
        what any seat knows. The OpenSpiel resampler gives it to the other seats of a sampled world."""
        other = self.copy()
        other.known = list(self.public)
        return other

    def update(self, view: PlayerView) -> EncTracker:
        """Read the events of ``view.history`` not read yet; returns ``self``."""
        history = view.history
        n = len(history)
        if self.seen >= n:
            return self
        known, public, voids = self.known, self.public, self.voids
        for event in history[self.seen : n]:
            kind, seat, cards = event[0], event[1], event[2]
            if kind == _PLAY:
                card = cards[0]
                bit = 1 << card
                known[seat] &= ~bit
                public[seat] &= ~bit
                if seat == self.pending and self.pending_cards & bit:
                    self.pending = -1  # the blind card is led: public now
                    self.waste &= ~bit
                if not self.open:
                    self.open = True
                    self.led = None if card == JOKER_INDEX else card // 13
                elif self.led is not None and (card == JOKER_INDEX or card // 13 != self.led):
                    # off-suit: a tochoo, a ruff, or any non-spade on punjab's first trick
                    voids[seat] |= 1 << self.led
            elif kind == _VOID:
                if self.led is not None:
                    voids[seat] |= 1 << self.led
            elif kind == _PICKUP:
                mask = 0
                for c in cards:
                    mask |= 1 << c
                for s in range(self.players):
                    known[s] &= ~mask  # a card is in one place: the penalty moves a picked-up trick
                    public[s] &= ~mask
                known[seat] |= mask
                public[seat] |= mask
                voids[seat] &= ~_suits_of(mask)
                self._close()
            elif kind == _WASTE:
                for c in cards:
                    self.waste |= 1 << c
                self._close()
            elif kind == _DRAW:
                if cards:  # the viewer's own draw
                    self.waste &= ~(1 << cards[0])
                    voids[seat] &= ~_suits_of(1 << cards[0])  # it now holds that suit
                else:  # the waste as it was before this trick (R-P-DRAW), the Joker never drawn
                    self.pending = seat
                    self.pending_cards = self.waste & ~_JOKER_BIT
                    self.pending_forced = True
                    voids[seat] &= ~_suits_of(self.pending_cards)  # no longer proven in any suit it may hold
            elif kind == _TAKE:
                target = event[3]
                mask = known[target]
                for c in cards:  # visible to taker and taken only
                    mask |= 1 << c
                known[seat] |= mask
                known[target] = 0
                public[seat] |= public[target]
                public[target] = 0
                voids[seat] = 0  # unknown cards reached the taker's hand
                voids[target] = 0
                if self.pending == target:
                    self.pending = seat
                    self.pending_forced = False
            elif kind == _IRREGULARITY and cards:
                known[seat] &= ~(1 << cards[0])
                public[seat] &= ~(1 << cards[0])
        self.seen = n
        return self

    def _close(self) -> None:
        self.open = False
        self.led = None
        self.first_done = True




# ---- old bots.model.PublicFacts
from getaway.core.cards import FULL_PACK
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

