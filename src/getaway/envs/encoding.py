"""The one observation encoding of the AI environments, computed from a :class:`~getaway.core.view.PlayerView` only.

Every adapter (PettingZoo, OpenSpiel, Gymnasium) encodes a player's view with
:func:`encode`; nothing else reaches an agent, so a leak can only come from the view
itself (which is the engine's single filter, R-INFO). Seats are **relative**: row 0 is the
viewer, row ``i`` the ``i``-th seat to their left, so one policy serves every seat.

The observation is a fixed-shape ``float32`` vector of :func:`observation_size` entries;
:func:`layout` names its slices (docs/envs.md lists them):

======================  ==============  ===================================================
slice                   shape           meaning
======================  ==============  ===================================================
``hand``                53              the viewer's cards (52 + Joker)
``waste_seen``          53              cards the viewer saw go into the waste pile
``known``               (n-1) × 53      cards known to be in each other hand
``trick``               n × 53          the card each seat played to the trick on the table
``voids``               n × 4           suits each seat is proven void in (♠ ♥ ♦ ♣)
``hand_sizes``          n               cards per seat / 53
``got_away``            n               1 if the seat has got away
``to_act``              n               one-hot: whose decision it is
``leader``              n               one-hot: who led / is to lead the trick
``decision``            2               one-hot: ``play``, ``take`` (the take poll)
``flags``               3               first trick done; viewer must lead a drawn card;
                                        someone else holds a card drawn blind
``waste_size``          1               cards in the waste pile / 53
======================  ==============  ===================================================

*Known cards* and *voids* are derived from the view's public history by a small
:class:`Tracker` kept here (not the bots' tracker, so the environments do not depend on a
bot's choices): a card is known in a hand from the moment it is seen picked up there
(or, for the viewer, taken there: a take shows the cards to taker and taken only), or,
before the first lead, the A♠ in the hand of the player due to lead, until that seat plays
it; a take moves what was known of the taken hand to the taker. A seat is proven void in the
led suit by a tochoo, a ruff, a classic ``void`` event, or any off-suit card on punjab's
first trick; the proof lasts until that seat picks up cards of that suit, takes a hand, or
draws blind a card that is (or, unseen, may be) of that suit (R-P-DRAW).

>>> from getaway import Deal, Rules
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=7)
>>> obs = encode(player_view(deal, 1))
>>> obs.shape == (observation_size(4),), obs.dtype
(True, dtype('float32'))
"""

from __future__ import annotations

from typing import Final

import numpy as np

from ..core.cards import ACE_OF_SPADES, JOKER_INDEX, SUIT_MASKS
from ..core.events import NUM_ACTIONS, EventKind
from ..core.view import PlayerView

__all__ = ["Tracker", "encode", "layout", "observation_size", "action_mask", "NUM_CARDS"]

#: Card slots per card plane: 52 cards and the Joker.
NUM_CARDS: Final = 53

_JOKER_BIT: Final = 1 << JOKER_INDEX
_ACE_BIT: Final = 1 << ACE_OF_SPADES
_PLAY: Final = EventKind.PLAY
_VOID: Final = EventKind.VOID
_PICKUP: Final = EventKind.PICKUP
_WASTE: Final = EventKind.WASTE
_DRAW: Final = EventKind.DRAW
_TAKE: Final = EventKind.TAKE
_IRREGULARITY: Final = EventKind.IRREGULARITY


def _suits_of(mask: int) -> int:
    """Bit set of the suits (bit s = suit s) with a card in ``mask``."""
    return (bool(mask & SUIT_MASKS[0]) | bool(mask & SUIT_MASKS[1]) << 1 | bool(mask & SUIT_MASKS[2]) << 2) | bool(
        mask & SUIT_MASKS[3]
    ) << 3


class Tracker:
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

    def copy(self) -> Tracker:
        """An independent copy."""
        other = Tracker.__new__(Tracker)
        for name in Tracker.__slots__:
            setattr(other, name, getattr(self, name))
        other.known = list(self.known)
        other.public = list(self.public)
        other.voids = list(self.voids)
        return other

    def public_copy(self) -> Tracker:
        """A copy that forgets what only this viewer saw (the cards of takes it was part of):
        what any seat knows. The OpenSpiel resampler gives it to the other seats of a sampled world."""
        other = self.copy()
        other.known = list(self.public)
        return other

    def update(self, view: PlayerView) -> Tracker:
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


def layout(players: int) -> dict[str, tuple[int, tuple[int, ...]]]:
    """The observation's slices for ``players`` seats: name → (start offset, shape)."""
    n = players
    parts = [
        ("hand", (NUM_CARDS,)),
        ("waste_seen", (NUM_CARDS,)),
        ("known", (n - 1, NUM_CARDS)),
        ("trick", (n, NUM_CARDS)),
        ("voids", (n, 4)),
        ("hand_sizes", (n,)),
        ("got_away", (n,)),
        ("to_act", (n,)),
        ("leader", (n,)),
        ("decision", (2,)),
        ("flags", (3,)),
        ("waste_size", (1,)),
    ]
    out: dict[str, tuple[int, tuple[int, ...]]] = {}
    offset = 0
    for name, shape in parts:
        out[name] = (offset, shape)
        offset += int(np.prod(shape))
    return out


def observation_size(players: int) -> int:
    """Length of the observation vector for ``players`` seats."""
    return (2 + (players - 1) + players) * NUM_CARDS + 4 * players + 4 * players + 2 + 3 + 1


_FLOAT32: Final = np.dtype(np.float32)
_UINT8: Final = np.dtype(np.uint8)


def encode(view: PlayerView, tracker: Tracker | None = None) -> np.ndarray:
    """The observation vector of ``view`` (a seat's view, not a spectator's).

    Args:
        view: the seat's view.
        tracker: that seat's :class:`Tracker`, fed up to any earlier view of the same deal
            (updated here); ``None`` derives everything from ``view.history`` afresh.
            Both give the same vector.

    Returns:
        A new ``float32`` array of :func:`observation_size` entries (:func:`layout`).

    Raises:
        ValueError: a spectator's view (no seat).
    """
    me = view.seat
    if me is None:
        raise ValueError("view: a spectator has no observation (encode a seat's view)")
    n = view.players
    if tracker is None:
        tracker = Tracker(n, first_trick_done=view.first_trick_done and not view.history)
    tracker.update(view)
    # The card planes (hand, waste seen, known per other seat, trick per seat) as one integer,
    # plane p at bits 56·p, unpacked to bits in one go.
    hand = view.hand_mask
    planes = hand | _mask(view.waste_seen) << 56
    known = tracker.known
    for i in range(1, n):
        planes |= (known[(me + i) % n] & ~hand) << (56 * (i + 1))
    leader = view.leader
    if not view.first_trick_done and not view.trick and leader != me:
        planes |= _ACE_BIT << (56 * ((leader - me) % n + 1))  # the A♠ holder leads (and is polled) first
    trick_base = n + 1
    for s, c in view.trick:
        planes |= 1 << (c + 56 * (trick_base + (s - me) % n))
    rows = 2 * n + 1
    out = np.empty(rows * NUM_CARDS + 8 * n + 6, dtype=_FLOAT32)
    bits = np.unpackbits(np.frombuffer(planes.to_bytes(7 * rows, "little"), dtype=_UINT8), bitorder="little")
    out[: rows * NUM_CARDS].reshape(rows, NUM_CARDS)[...] = bits.reshape(rows, 56)[:, :NUM_CARDS]
    # The small entries, as a list: voids, hand sizes, got away, to act, leader, decision, flags, waste size.
    small = [0.0] * (8 * n + 6)
    voids = tracker.voids
    sizes = view.hand_sizes
    got_away = view.got_away
    for i in range(n):
        s = (me + i) % n
        v = voids[s]
        if v:
            for suit in range(4):
                if v >> suit & 1:
                    small[4 * i + suit] = 1.0
        small[4 * n + i] = sizes[s] / NUM_CARDS
        if got_away[s]:
            small[5 * n + i] = 1.0
    if view.to_act is not None:
        small[6 * n + (view.to_act - me) % n] = 1.0
    if leader >= 0:
        small[7 * n + (leader - me) % n] = 1.0
    base = 8 * n
    decision = view.decision
    if decision == "play":
        small[base] = 1.0
    elif decision == "take":
        small[base + 1] = 1.0
    small[base + 2] = float(view.first_trick_done)
    small[base + 3] = float(view.must_lead is not None)
    small[base + 4] = float(tracker.pending >= 0 and tracker.pending != me)
    small[base + 5] = view.waste_size / NUM_CARDS
    out[rows * NUM_CARDS :] = small
    return out


def _mask(cards: tuple[int, ...]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def action_mask(view: PlayerView) -> np.ndarray:
    """``int8`` vector of :data:`~getaway.core.events.NUM_ACTIONS`: 1 for each legal action of the view's seat."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if view.legal_actions:
        mask[list(view.legal_actions)] = 1
    return mask
