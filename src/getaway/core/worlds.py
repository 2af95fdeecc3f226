"""Worlds: hidden hands dealt consistently with a :class:`~getaway.core.knowledge.Knowledge`,
and a playable :class:`~getaway.core.deal.Deal` rebuilt from a view plus such a world.

The one sampler of the hidden information (the expert's determinizations, OpenSpiel's
resampling for ISMCTS): :func:`sample` deals the cards whose place is unknown
(:attr:`Knowledge.pool <getaway.core.knowledge.Knowledge.pool>`) into the unknown slots of
the hands, respecting hand sizes, known cards and proven voids, and picks each card someone
else drew blind among its candidates (R-P-DRAW). Every world consistent with the knowledge
(:func:`consistent`) has a nonzero probability. :func:`deal_of` turns a view and a world into
a deal in the very state the view shows (from a :class:`~getaway.core.position.Position` at
the start of the current trick, the poll and the trick replayed).

>>> import random
>>> from getaway import Deal, Rules, player_view
>>> deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=3)
>>> view = player_view(deal, 1)
>>> world = sample(view.knowledge, random.Random(0))
>>> [h.bit_count() for h in world.hands] == list(deal.hand_sizes)
True
>>> deal_of(view, world, seed=1).hand_mask(1) == deal.hand_mask(1)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from .cards import JOKER_INDEX, SUIT_MASKS, Card, cards_of
from .deal import Deal
from .events import PASS, Action
from .knowledge import Knowledge
from .position import Position
from .view import PlayerView

__all__ = ["World", "SamplingError", "Inconsistent", "sample", "consistent", "deal_of"]

_JOKER_BIT = 1 << JOKER_INDEX
#: Card groups of the constraints: the four suits, then the Joker (no suit, never void).
_GROUPS = (*SUIT_MASKS, _JOKER_BIT)
_ALL_GROUPS = 0b11111


class Inconsistent(RuntimeError):
    """A world in which a modelled player would not have played as they did (:func:`deal_of`'s ``check``)."""


class SamplingError(RuntimeError):
    """No world fits the knowledge (a bug: the real deal always fits)."""


@dataclass(frozen=True, slots=True)
class World:
    """Every hand of one possible deal state.

    Attributes:
        hands: per seat, the bit set of its cards now.
        waste: bit set of the waste pile (without the cards drawn blind).
        drawn: ``(holder, card)`` for each card drawn blind that the knowledge did not see,
            in the order of :attr:`Knowledge.hidden <getaway.core.knowledge.Knowledge.hidden>`.
    """

    hands: tuple[int, ...]
    waste: int
    drawn: tuple[tuple[int, int], ...] = ()


def _group(card: int) -> int:
    return 4 if card == JOKER_INDEX else card // 13


def _slots(k: Knowledge) -> tuple[list[int], list[int]]:
    """Per seat: how many pool cards it receives, and the groups it may receive (bit g)."""
    n = k.players
    caps = list(k.unknown)
    for h in k.hidden:
        caps[h[0]] -= 1
    allowed = [_ALL_GROUPS & ~k.voids[s] for s in range(n)]
    return caps, allowed


def sample(knowledge: Knowledge, rng: random.Random) -> World:
    """A world consistent with ``knowledge``, drawn with ``rng`` (the only randomness used).

    Each card someone drew blind is one of its candidates still in the waste (uniformly);
    the pool's cards go to the hands' unknown slots one at a time, most constrained first,
    to a seat chosen in proportion to its free slots among those the voids allow and that
    leave the rest dealable (Hall's condition), so every consistent world can come out.

    Raises:
        SamplingError: no consistent world exists (the knowledge is wrong).
    """
    k = knowledge
    n = k.players
    hands = list(k.known)
    waste = k.waste
    drawn = []
    for holder, candidates, _forced in k.hidden:
        options = cards_of(candidates & waste)
        if not options:
            raise SamplingError("no card for a blind draw")
        card = options[rng.randrange(len(options))]
        hands[holder] |= 1 << card
        waste &= ~(1 << card)
        drawn.append((holder, int(card)))
    caps, allowed = _slots(k)
    pool = list(cards_of(k.pool))
    if any(c < 0 for c in caps) or sum(caps) != len(pool):
        raise SamplingError(f"pool of {len(pool)} cards for {caps} unknown slots")
    rng.shuffle(pool)
    seats = [s for s in range(n) if caps[s] > 0]
    if not any(allowed[s] != _ALL_GROUPS for s in seats):
        i = 0
        for s in seats:
            for c in pool[i : i + caps[s]]:
                hands[s] |= 1 << c
            i += caps[s]
        return World(tuple(hands), waste, tuple(drawn))
    counts = [0] * 5
    for c in pool:
        counts[_group(c)] += 1
    if not _feasible(counts, caps, allowed, seats):
        raise SamplingError("the voids leave no room for the unknown cards")
    # Most constrained groups first, so that the weighted choice rarely needs a retry.
    takers = [sum(1 for s in seats if allowed[s] >> g & 1) for g in range(5)]  # seats that may hold group g
    pool.sort(key=lambda c: takers[_group(c)])
    for c in pool:
        g = _group(c)
        counts[g] -= 1
        choices = [s for s in seats if caps[s] > 0 and allowed[s] >> g & 1]
        while True:
            if not choices:
                raise SamplingError(f"no hand can hold {Card(c)}")
            s = rng.choices(choices, [caps[t] for t in choices])[0]
            caps[s] -= 1
            if _feasible(counts, caps, allowed, seats):
                break
            caps[s] += 1
            choices.remove(s)
        hands[s] |= 1 << c
    return World(tuple(hands), waste, tuple(drawn))


def _feasible(counts: list[int], caps: list[int], allowed: list[int], seats: list[int]) -> bool:
    """Hall's condition for dealing ``counts[g]`` cards of each group into seats of capacity
    ``caps`` accepting the groups in ``allowed``: every set of groups needs as many places as cards.

    The sets of groups are visited in counting order, each one's cards found from the set
    without its lowest group (sampling calls this once per card placed)."""
    present = [g for g in range(5) if counts[g]]
    # each seat with room: the present groups it accepts (bit i for present[i]), its room
    rooms = []
    for s in seats:
        if caps[s]:
            accepts = 0
            for i, g in enumerate(present):
                if allowed[s] >> g & 1:
                    accepts |= 1 << i
            rooms.append((accepts, caps[s]))
    need = [0] * (1 << len(present))
    for subset in range(1, len(need)):
        low = subset & -subset
        cards = need[subset] = need[subset ^ low] + counts[present[low.bit_length() - 1]]
        room = 0
        for accepts, cap in rooms:
            if accepts & subset:
                room += cap
        if cards > room:
            return False
    return True


def consistent(knowledge: Knowledge, world: World) -> bool:
    """Whether ``world`` agrees with everything ``knowledge`` holds: the sizes, the known
    cards, the voids of the unknown cards, the blind draws' candidates, each card in one place."""
    k = knowledge
    n = k.players
    if len(world.hands) != n or len(world.drawn) != len(k.hidden):
        return False
    placed = world.waste | k.trick
    total = world.waste.bit_count() + k.trick.bit_count()
    drawn_by = [0] * n
    for (holder, card), h in zip(world.drawn, k.hidden, strict=True):
        if holder != h[0] or not h[1] >> card & 1 or not world.hands[holder] >> card & 1:
            return False
        drawn_by[holder] |= 1 << card
    for s in range(n):
        hand = world.hands[s]
        if hand.bit_count() != k.sizes[s] or k.known[s] & ~hand:
            return False
        rest = hand & ~k.known[s] & ~drawn_by[s]
        for suit in range(4):
            if k.voids[s] >> suit & 1 and rest & SUIT_MASKS[suit]:
                return False
        if rest & ~k.pool:
            return False
        placed |= hand
        total += hand.bit_count()
    return total == placed.bit_count() and world.waste | (k.waste & ~world.waste) == k.waste


def deal_of(
    view: PlayerView,
    world: World,
    seed: int = 0,
    *,
    check: Callable[[Deal, int, Action], bool] | None = None,
    rng: random.Random | None = None,
    explicit_chance: bool = False,
) -> Deal:
    """A :class:`Deal` in the state ``view`` shows, with the hands of ``world``.

    The deal starts from a position at the beginning of the current trick (the trick's cards
    back in their players' hands, a card drawn blind and not led yet as the position's
    ``blind_draw``), answers the take poll with passes up to the seat now asked (takes
    already made are in the hands) and replays the trick, a void player's pass included.

    Args:
        view: a seat's view.
        world: hands consistent with ``view.knowledge`` (:func:`sample`).
        seed: the new deal's seed (its later blind draws), unless ``rng`` is given.
        check: called as ``check(deal, seat, card)`` before each card another player put on
            the table in this trick is replayed; ``False`` stops the rebuild (an opponent
            model that would not have played that card in this world).
        rng: the new deal's random generator.
        explicit_chance: the new deal stops at each later blind draw (``Deal(explicit_chance=True)``,
            R-P-DRAW), for a caller that supplies the draws (OpenSpiel's chance nodes).

    Returns:
        The deal, or raises.

    Raises:
        Inconsistent: ``check`` refused a card.
        RuntimeError: the world cannot be rebuilt into the view's state (a bug; a position or
            an action the engine refuses raises its ``ValueError``).
    """
    hands = list(world.hands)
    for s, c in view.trick:
        hands[s] |= 1 << c
    k = view.knowledge
    blind = None
    forced = view.must_lead
    if forced is not None:
        blind = (view.seat, int(forced))
    for (holder, card), h in zip(world.drawn, k.hidden, strict=True):
        if blind is None:
            blind = (holder, card)
        if h[2] and holder == view.leader and forced is None:
            forced = Card(card)
            blind = (holder, card)
    lead = forced if forced is not None and not view.trick else None
    position = Position(tuple(hands), world.waste, view.leader, view.first_trick_done, lead, blind)
    deal = Deal(view.rules, view.dealer, seed, position=position, rng=rng, explicit_chance=explicit_chance)
    target_take = view.decision == "take"
    guard = 0
    while deal.decision == "take" and not (target_take and deal.to_act == view.to_act):
        deal.apply(PASS)
        guard += 1
        if guard > 64:
            raise RuntimeError("deal_of: the take poll does not reach the seat asked")
    for s, c in view.trick:
        while deal.to_act != s:
            if PASS not in deal.legal_actions():
                raise RuntimeError(f"deal_of: seat {s} cannot play {c} here")
            deal.apply(PASS)
        if check is not None and s != view.seat and not check(deal, s, c):
            raise Inconsistent(f"deal_of: seat {s} would not have played {c} in this world")
        deal.apply(c, s)
    while deal.to_act != view.to_act and PASS in deal.legal_actions():
        deal.apply(PASS)
    if deal.to_act != view.to_act or deal.decision != view.decision:
        raise RuntimeError("deal_of: the rebuilt deal is not in the view's state")
    return deal
