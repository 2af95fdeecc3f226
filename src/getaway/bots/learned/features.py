"""The one encoding of a position for the value network, from one seat's side.

A position is a whole :class:`~getaway.core.deal.Deal` (the expert's sampled worlds know every
hand), seen from ``me``: seats are **relative**, row 0 is ``me``, row ``i`` the ``i``-th seat
to its left, so one network serves every seat. :func:`leaf_key` takes the position's bit sets
(cheap enough for the search's inner loop: no numpy per position) and :func:`features` turns a
batch of keys into vectors at once.

=====================  ===========  ================================================
slice                  shape        meaning
=====================  ===========  ================================================
hands                  n × 53       each seat's cards (52 + Joker)
trick                  n × 53       the card each seat has on the table in this trick
waste                  53           the cards in the waste pile (out of play)
hand sizes             n            cards per seat / 13
leader                 n            one-hot: who led or is to lead the trick
to act                 n            one-hot: whose decision it is
got away               n            1 if the seat has got away
flags                  3            the take poll is the decision; a lead forced by a
                                    blind draw; the first trick is done
=====================  ===========  ================================================

>>> from getaway import Deal, Rules
>>> deal = Deal(Rules.profile("punjab"), dealer=0, seed=3)
>>> x = features([leaf_key(deal, 1)], 4)
>>> x.shape == (1, feature_size(4)), float(x[0, :53].sum())
(True, 13.0)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.deal import Deal
from ...core.observation import NUM_CARDS

__all__ = ["card_bits", "feature_size", "features", "leaf_key"]


def feature_size(players: int) -> int:
    """Length of one position's vector for ``players`` seats (2 to 8): ``(2n + 1) × 53 + 4n + 3``."""
    return (2 * players + 1) * NUM_CARDS + 4 * players + 3


def leaf_key(deal: Deal, me: int) -> tuple[int, ...]:
    """The position of ``deal`` (not over) seen from seat ``me``, as ``2n + 5`` integers.

    Returns:
        ``(hand_0, …, hand_{n-1}, trick_0, …, trick_{n-1}, waste, leader, to_act, out, flags)``,
        seats relative to ``me`` (``hand_i`` is the bit set of the ``i``-th seat to its left);
        ``leader`` and ``to_act`` are relative seats (``to_act`` is ``leader`` if no one is to
        act); ``out`` is the relative bit set of the seats that got away; ``flags`` bit 0: the
        take poll is the decision (R-P-TAKE), bit 1: a lead forced by a blind draw, bit 2: the
        first trick is done.

    Raises:
        ValueError: ``me`` is not a seat of the deal.
    """
    n = deal.players
    if not 0 <= me < n:
        raise ValueError(f"me: seat {me} does not exist with {n} players")
    hands = deal._hands
    trick = [0] * n
    for seat, card in deal.trick:
        trick[(seat - me) % n] = 1 << card
    out = deal._out
    out_rel = 0
    for r in range(n):
        if out >> ((me + r) % n) & 1:
            out_rel |= 1 << r
    to_act = deal.to_act
    leader = (deal.leader - me) % n
    flags = (deal.decision == "take") | (deal.forced_lead is not None) << 1 | deal.first_trick_done << 2
    return (
        *(hands[(me + r) % n] for r in range(n)),
        *trick,
        deal._waste,
        leader,
        leader if to_act is None else (to_act - me) % n,
        out_rel,
        flags,
    )


def card_bits(sets: np.ndarray) -> np.ndarray:
    """The cards of bit sets, unpacked: a ``(B, K)`` integer array of bit sets (bit ``c`` = the
    card of index ``c``) → a ``(B, K, 53)`` ``uint8`` array of 0 and 1 (the one unpacking of the
    positions here and of the vector environment's card planes, :mod:`getaway.envs.vector`)."""
    b, k = sets.shape
    packed = np.ascontiguousarray(sets).astype("<u8", copy=False).view(np.uint8).reshape(b, k, 8)
    return np.unpackbits(packed, axis=2, bitorder="little")[:, :, :NUM_CARDS]


def features(keys: Sequence[tuple[int, ...]] | np.ndarray, players: int) -> np.ndarray:
    """The vectors of a batch of :func:`leaf_key` keys, all for ``players`` seats.

    Args:
        keys: ``B`` keys of ``2 × players + 5`` integers each (or a ``(B, 2n + 5)`` integer array).
        players: the seat count ``n`` the keys were taken at.

    Returns:
        A ``(B, feature_size(n))`` ``float32`` array (the layout in the module docstring).

    Raises:
        ValueError: a key of the wrong length, or a value out of its range (a bit set beyond the
            53 cards or the seats, a seat index or flags that no position has).
    """
    n = players
    width = 2 * n + 5
    arr = np.asarray(keys, dtype=np.uint64)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"keys: expected rows of {width} integers for {n} seats, got shape {arr.shape}")
    b = arr.shape[0]
    small = arr[:, 2 * n + 1 :]
    if b and (
        int(arr[:, : 2 * n + 1].max()) >> NUM_CARDS
        or int(small[:, :2].max()) >= n
        or int(small[:, 2].max()) >> n
        or int(small[:, 3].max()) >> 3
    ):
        raise ValueError(f"keys: a value out of range for {n} seats (not a leaf_key of {n} players)")
    bits = card_bits(arr[:, : 2 * n + 1])
    out = np.zeros((b, feature_size(n)), dtype=np.float32)
    k = (2 * n + 1) * NUM_CARDS
    out[:, :k] = bits.reshape(b, k)
    out[:, k : k + n] = bits[:, :n].sum(axis=2) / 13.0
    k += n
    rows = np.arange(b)
    small = small.astype(np.int64)
    out[rows, k + small[:, 0]] = 1.0
    k += n
    out[rows, k + small[:, 1]] = 1.0
    k += n
    out[:, k : k + n] = (small[:, 2:3] >> np.arange(n)) & 1
    k += n
    out[:, k : k + 3] = (small[:, 3:4] >> np.arange(3)) & 1
    return out
