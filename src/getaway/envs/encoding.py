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

from typing import Final

import numpy as np

from ..core.deal import Deal
from ..core.events import NUM_ACTIONS
from ..core.knowledge import Knowledge
from ..core.observation import NUM_CARDS, ObservationBuffer, entries, observation_size, seat_observation
from ..core.view import PlayerView

__all__ = ["encode", "encode_seat", "ObservationBuffer", "layout", "observation_size", "action_mask", "NUM_CARDS"]



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


_FLOAT32: Final = np.dtype(np.float32)
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
    n = view.players
    rows, small = entries(
        n, me, view.hand_mask, view.knowledge, view.trick, view.hand_sizes, out_mask, view.to_act, view.leader,
        view.decision, view.first_trick_done, view.must_lead is not None, view.waste_size,
    )
    return _frombuffer(ObservationBuffer(n).update(rows, small), _FLOAT32)


def encode_seat(deal: Deal, seat: int, knowledge: Knowledge, buffer: ObservationBuffer | None = None) -> np.ndarray:
    """``encode(player_view(deal, seat, knowledge))``, the same vector, without building the view
    (:func:`~getaway.core.observation.seat_observation`, compiled with the engine): ``knowledge``
    (``seat``'s, kept by the caller) is brought up to date, and so is ``buffer`` (``seat``'s last
    observation, kept by the caller: only what changed is rewritten). For the environments'
    every-step observation (docs/envs.md "Speed").

    Returns:
        A new, writable ``float32`` array of :func:`observation_size` entries.

    Raises:
        ValueError: as :func:`~getaway.core.view.player_view` (a bad seat, another seat's knowledge).
    """
    return _frombuffer(seat_observation(deal, seat, knowledge, buffer), _FLOAT32)


def action_mask(view: PlayerView) -> np.ndarray:
    """``int8`` vector of :data:`~getaway.core.events.NUM_ACTIONS`: 1 for each legal action of the view's seat."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if view.legal_actions:
        mask[list(view.legal_actions)] = 1
    return mask
