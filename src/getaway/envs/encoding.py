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
``voids``               n × 4           suits each seat certainly holds none of (♠ ♥ ♦ ♣)
``hand_sizes``          n               cards per seat / 53
``got_away``            n               1 if the seat has got away
``to_act``              n               one-hot: whose decision it is
``leader``              n               one-hot: who led / is to lead the trick
``decision``            2               one-hot: ``play``, ``take`` (the take poll)
``flags``               3               first trick done; viewer must lead a drawn card;
                                        someone else holds a card drawn blind
``waste_size``          1               cards in the waste pile / 53
======================  ==============  ===================================================

*Known cards* and *voids* are the view's :class:`~getaway.core.knowledge.Knowledge` (the
core's one reading of the history, the same the bots read): ``known`` holds the cards known
to be in each other hand (picked up, seen in a take, the A♠ of the player due to lead
before the first trick), ``voids`` row ``i`` suit ``s`` is 1 when that seat certainly holds
no card of the suit (:meth:`~getaway.core.knowledge.Knowledge.is_void`: a proven void of its
unknown cards and no known card of the suit, or no such card left anywhere it could be).
The adapters keep each seat's knowledge from one step to the next (``player_view(deal,
seat, knowledge)``), so an observation costs O(new events).

>>> from getaway import Deal, Rules, player_view
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=7)
>>> obs = encode(player_view(deal, 1))
>>> obs.shape == (observation_size(4),), obs.dtype
(True, dtype('float32'))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from ..core.deal import Deal
from ..core.events import NUM_ACTIONS
from ..core.knowledge import Knowledge
from ..core.view import PlayerView, seat_facts

__all__ = ["encode", "encode_seat", "layout", "observation_size", "action_mask", "NUM_CARDS"]

#: Card slots per card plane: 52 cards and the Joker.
NUM_CARDS: Final = 53


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
_unpackbits = np.unpackbits
_frombuffer = np.frombuffer


def encode(view: PlayerView) -> np.ndarray:
    """The observation vector of ``view`` (a seat's view, not a spectator's).

    Returns:
        A new ``float32`` array of :func:`observation_size` entries (:func:`layout`).

    Raises:
        ValueError: a spectator's view (no seat).
    """
    me = view.seat
    if me is None:
        raise ValueError("view: a spectator has no observation (encode a seat's view)")
    out_mask = 0
    for s, gone in enumerate(view.got_away):
        if gone:
            out_mask |= 1 << s
    return _encode(
        view.players, me, view.hand_mask, view.knowledge, view.trick, view.hand_sizes, out_mask, view.to_act,
        view.leader, view.decision, view.first_trick_done, view.must_lead is not None, view.waste_size,
    )


def encode_seat(deal: Deal, seat: int, knowledge: Knowledge) -> np.ndarray:
    """``encode(player_view(deal, seat, knowledge))``, the same vector, without building the view:
    the view's facts that the encoding reads, taken where the view takes them
    (:func:`~getaway.core.view.seat_facts`); ``knowledge`` (``seat``'s, kept by the caller) is
    brought up to date. For the environments' every-step observation (docs/envs.md "Speed").

    Raises:
        ValueError: as :func:`~getaway.core.view.player_view` (a bad seat, another seat's knowledge).
    """
    hand, trick, sizes, out_mask, to_act, leader, decision, first_done, must_lead, waste_size = seat_facts(
        deal, seat, knowledge
    )
    return _encode(
        deal.players, seat, hand, knowledge, trick, sizes, out_mask, to_act, leader, decision, first_done,
        must_lead is not None, waste_size,
    )


def _encode(
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
) -> np.ndarray:
    """The one definition of the observation (:func:`layout`), from the facts of a seat's view."""
    # The card planes (hand, waste seen, known per other seat, trick per seat) as one integer,
    # plane p at bits 53·p, unpacked to bits in one go.
    planes = hand | k.waste << NUM_CARDS
    known = k.known
    for i in range(1, n):
        planes |= known[(me + i) % n] << (NUM_CARDS * (i + 1))
    trick_base = n + 1
    for s, c in trick:
        planes |= 1 << (c + NUM_CARDS * (trick_base + (s - me) % n))
    cells = (2 * n + 1) * NUM_CARDS
    out = np.empty(cells + 8 * n + 6, dtype=_FLOAT32)
    card_bytes = _frombuffer(planes.to_bytes((cells + 7) >> 3, "little"), _UINT8)
    out[:cells] = _unpackbits(card_bytes, count=cells, bitorder="little")
    # The small entries, as a list: voids, hand sizes, got away, to act, leader, decision, flags, waste size.
    small = [0.0] * (8 * n + 6)
    void_suits = k.void_suits()
    for i in range(n):
        s = (me + i) % n
        v = void_suits[s]
        if v:
            small[4 * i : 4 * i + 4] = _SUIT_FLAGS[v]
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
    small[base + 2] = float(first_trick_done)
    small[base + 3] = float(must_lead)
    small[base + 4] = float(any(h[0] != me for h in k.hidden))
    small[base + 5] = waste_size / NUM_CARDS
    out[cells:] = small
    return out


#: The four void flags of each bit set of suits.
_SUIT_FLAGS: Final = [[float(v >> suit & 1) for suit in range(4)] for v in range(16)]


def action_mask(view: PlayerView) -> np.ndarray:
    """``int8`` vector of :data:`~getaway.core.events.NUM_ACTIONS`: 1 for each legal action of the view's seat."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if view.legal_actions:
        mask[list(view.legal_actions)] = 1
    return mask
