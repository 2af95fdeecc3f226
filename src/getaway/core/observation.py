"""A seat's observation as the bytes of its ``float32`` entries: the one definition of what
the AI environments' encoding holds (:mod:`getaway.envs.encoding` documents the layout and
hands it out as a numpy array). Standard library only, so that it is compiled with the engine
(setup.py): an observation at every step must cost little beside the engine's own step.

Every entry comes from a seat's view facts (:class:`~getaway.core.view.PlayerView`, R-INFO)
and the seat's :class:`~getaway.core.knowledge.Knowledge`: :func:`entries` is the definition;
:func:`seat_observation` takes the same facts from the deal where
:func:`~getaway.core.view.player_view` takes them, without building the view, and
:class:`ObservationBuffer` keeps a seat's last observation so that only what changed is
rewritten (tests/test_envs_encoding.py checks both give exactly the view's encoding).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .deal import Deal
from .knowledge import Knowledge, followed_knowledge
from .view import must_lead_card

__all__ = ["NUM_CARDS", "observation_size", "entries", "ObservationBuffer", "seat_entries", "seat_observation"]

#: Card slots per card plane: 52 cards and the Joker.
NUM_CARDS: Final = 53


def observation_size(players: int) -> int:
    """Length of the observation vector for ``players`` seats."""
    return (2 * players + 1) * NUM_CARDS + 8 * players + 6


def entries(
    n: int,
    me: int,
    hand: int,
    k: Knowledge,
    trick: Sequence[tuple[int, int]],
    sizes: Sequence[int],
    out_mask: int,
    to_act: int | None,
    leader: int,
    decision: str | None,
    first_trick_done: bool,
    must_lead: bool,
    waste_size: int,
) -> tuple[list[int], list[float]]:
    """The observation of seat ``me`` (of ``n``) from its view's facts and knowledge ``k``: the
    card planes, one bit set per row (hand, waste seen, known per other seat, trick per seat,
    seats relative to ``me``), and the other entries (voids, hand sizes / 53, got away, to
    act, leader, decision, three flags, waste size / 53), as laid out by
    :func:`getaway.envs.encoding.layout`."""
    known = k.known
    rows = [hand, k.waste]
    for i in range(1, n):
        rows.append(known[(me + i) % n])
    tricks = [0] * n
    for s, c in trick:
        tricks[(s - me) % n] |= 1 << c
    rows.extend(tricks)
    small = [0.0] * (8 * n + 6)
    void_suits = k.void_suits()
    for i in range(n):
        s = (me + i) % n
        v = void_suits[s]
        if v:
            for suit in range(4):
                if v >> suit & 1:
                    small[4 * i + suit] = 1.0
        small[4 * n + i] = sizes[s] / NUM_CARDS
        if out_mask >> s & 1:
            small[5 * n + i] = 1.0
    if to_act is not None:
        small[6 * n + (to_act - me) % n] = 1.0
    if leader >= 0:
        small[7 * n + (leader - me) % n] = 1.0
    base = 8 * n
    if decision == "play":
        small[base] = 1.0
    elif decision == "take":
        small[base + 1] = 1.0
    small[base + 2] = 1.0 if first_trick_done else 0.0
    small[base + 3] = 1.0 if must_lead else 0.0
    someone_else_drew = False
    for h in k.hidden:
        if h[0] != me:
            someone_else_drew = True
    small[base + 4] = 1.0 if someone_else_drew else 0.0
    small[base + 5] = waste_size / NUM_CARDS
    return rows, small


class ObservationBuffer:
    """One seat's observation kept from one step to the next, as the bytes of its ``float32``
    entries (native byte order, numpy's ``float32``): :meth:`write` rewrites only the entries
    that changed since the last observation, :meth:`update` does the same and returns a copy.

    Args:
        players: the number of seats (:func:`observation_size` entries).
    """

    __slots__ = ("_rows", "_small", "_data", "_floats")

    def __init__(self, players: int) -> None:
        self._rows = [0] * (2 * players + 1)
        self._small = [0.0] * (8 * players + 6)
        self._data = bytearray(4 * observation_size(players))
        self._floats = memoryview(self._data).cast("f")  # an entry per item

    def write(self, rows: list[int], small: list[float]) -> None:
        """Set the card entries to the bits of ``rows`` and the others to ``small`` (as
        :func:`entries` returns them), in place."""
        floats = self._floats
        old = self._rows
        for r in range(len(rows)):
            row = rows[r]
            diff = row ^ old[r]
            base = NUM_CARDS * r
            c = 0
            while diff:  # the changed entries, low to high
                if diff & 1:
                    floats[base + c] = 1.0 if row >> c & 1 else 0.0
                diff >>= 1
                c += 1
        self._rows = rows
        prev = self._small
        base = NUM_CARDS * len(rows)
        for j in range(len(small)):
            v = small[j]
            if v != prev[j]:
                floats[base + j] = v
        self._small = small

    def update(self, rows: list[int], small: list[float]) -> bytearray:
        """:meth:`write`, then a new ``bytearray`` of the whole vector."""
        self.write(rows, small)
        return bytearray(self._data)


def seat_entries(deal: Deal, seat: int, knowledge: Knowledge) -> tuple[list[int], list[float]]:
    """:func:`entries` of ``seat``'s observation of ``deal`` now, the facts taken from the deal
    where :func:`~getaway.core.view.player_view` takes them; ``knowledge`` (``seat``'s, kept by
    the caller) is brought up to date first.

    Raises:
        ValueError: as :func:`~getaway.core.view.player_view` (a bad seat, another seat's knowledge).
    """
    followed_knowledge(deal, seat, knowledge)
    n = deal.players
    hand = deal.hand_mask(seat)
    leader = deal.leader
    return entries(
        n, seat, hand, knowledge, deal.trick, deal.hand_sizes, deal.out_mask, deal.to_act, leader, deal.decision,
        deal.first_trick_done, must_lead_card(deal, seat, hand, leader) is not None, deal.waste_size,
    )


def seat_observation(deal: Deal, seat: int, knowledge: Knowledge, buffer: ObservationBuffer | None = None) -> bytearray:
    """The bytes of ``encode(player_view(deal, seat, knowledge))`` without building the view
    (:func:`seat_entries`); ``knowledge`` (``seat``'s, kept by the caller) is brought up to date,
    and so is ``buffer`` (``seat``'s last observation, kept by the caller; ``None``: a new one).

    Raises:
        ValueError: as :func:`~getaway.core.view.player_view` (a bad seat, another seat's knowledge).
    """
    rows, small = seat_entries(deal, seat, knowledge)
    if buffer is None:
        buffer = ObservationBuffer(deal.players)
    return buffer.update(rows, small)
