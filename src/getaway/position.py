"""Positions: an explicit situation between two tricks, instead of a shuffled deal.

A position says who holds which cards, what is in the waste pile, who leads
and whether the first trick has been played. Tests build every rule situation
from one; game records may start from one (``"start"`` in docs/records.md).

>>> p = Position.from_cards([["A♠", "5h"], ["K♥"], ["2h", "3c"]], waste=["2s"], leader=0, first_trick_done=True)
>>> p.hand_sizes
(2, 1, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cards import ACE_OF_SPADES, JOKER_INDEX, Card, InvalidCardError, cards_of, count
from .rules import Rules

__all__ = ["Position", "PositionError"]


class PositionError(ValueError):
    """A position that cannot occur: a duplicate card, a card that is not in the pack, a bad leader …"""


@dataclass(frozen=True, slots=True)
class Position:
    """A situation between tricks (immutable).

    Attributes:
        hands: per seat, the bit set of its cards (see :mod:`getaway.cards`).
            A seat with no cards has got away before the position.
        waste: bit set of the waste pile's cards.
        leader: the seat to lead the next trick.
        first_trick_done: whether the first trick (A♠ lead) has been played.
        forced_lead: a card the leader drew blind from the waste and must lead (R-P-DRAW),
            or ``None``.
    """

    hands: tuple[int, ...]
    waste: int = 0
    leader: int = 0
    first_trick_done: bool = False
    forced_lead: Card | None = None

    @classmethod
    def from_cards(
        cls,
        hands: Sequence[Sequence[Any]],
        waste: Sequence[Any] = (),
        leader: int = 0,
        first_trick_done: bool = False,
        forced_lead: Any = None,
    ) -> Position:
        """A position from card names or cards (any accepted notation), checked for duplicates.

        Raises:
            PositionError: a name is not a card, or a card appears twice.
        """
        seen: dict[int, str] = {}

        def to_mask(cards: Sequence[Any], where: str) -> int:
            if isinstance(cards, str) or not isinstance(cards, Sequence):
                raise PositionError(f"{where}: expected a list of card names, got {cards!r}")
            mask = 0
            for text in cards:
                try:
                    card = Card.parse(text) if not isinstance(text, int) or isinstance(text, bool) else Card(text)
                except InvalidCardError as exc:
                    raise PositionError(f"{where}: {exc}") from None
                if card in seen:
                    raise PositionError(f"{where}: {card} is also in {seen[card]} (a card can be in one place only)")
                seen[card] = where
                mask |= 1 << card
            return mask

        if isinstance(hands, str) or not isinstance(hands, Sequence):
            raise PositionError(f"hands: expected one list of cards per seat, got {hands!r}")
        masks = tuple(to_mask(h, f"hand of seat {i}") for i, h in enumerate(hands))
        if isinstance(leader, bool) or not isinstance(leader, int):
            raise PositionError(f"leader: expected a seat number, got {leader!r}")
        if not isinstance(first_trick_done, bool):
            raise PositionError(f"first_trick_done: expected true or false, got {first_trick_done!r}")
        forced = None
        if forced_lead is not None:
            try:
                forced = Card(forced_lead) if isinstance(forced_lead, int) else Card.parse(forced_lead)
            except InvalidCardError as exc:
                raise PositionError(f"forced_lead: {exc}") from None
        return cls(masks, to_mask(waste, "waste"), leader, first_trick_done, forced)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards per seat."""
        return tuple(count(h) for h in self.hands)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, as the ``start`` of a game record (cards by name)."""
        data: dict[str, Any] = {
            "hands": [[str(c) for c in cards_of(h)] for h in self.hands],
            "waste": [str(c) for c in cards_of(self.waste)],
            "leader": self.leader,
            "first_trick_done": self.first_trick_done,
        }
        if self.forced_lead is not None:
            data["forced_lead"] = str(self.forced_lead)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Position:
        """Inverse of :meth:`to_dict`.

        Raises:
            PositionError: missing or malformed fields.
        """
        if not isinstance(data, dict):
            raise PositionError(f"start: expected an object, got {type(data).__name__}")
        unknown = set(data) - {"hands", "waste", "leader", "first_trick_done", "forced_lead"}
        if unknown:
            raise PositionError(f"start: unknown field(s) {', '.join(sorted(map(str, unknown)))}")
        if "hands" not in data:
            raise PositionError("start: 'hands' is missing")
        return cls.from_cards(
            data["hands"],
            data.get("waste", ()),
            data.get("leader", 0),
            data.get("first_trick_done", False),
            data.get("forced_lead"),
        )

    def validate(self, rules: Rules) -> None:
        """Check that this position can occur under ``rules``.

        Raises:
            PositionError: wrong number of seats; overlapping sets; a Joker without
                V-JOKER; fewer than two players with cards; a leader without cards,
                or without the A♠ before the first trick (R-ACE); punjab with the first
                trick done but an empty waste pile (R-P-DRAW needs one).
        """
        if len(self.hands) != rules.players:
            raise PositionError(f"hands: {len(self.hands)} hands for {rules.players} players")
        seen = self.waste
        for seat, hand in enumerate(self.hands):
            if hand & seen:
                dup = ", ".join(str(c) for c in cards_of(hand & seen))
                raise PositionError(f"hand of seat {seat}: {dup} also elsewhere (a card can be in one place only)")
            seen |= hand
        if seen >> (JOKER_INDEX + 1):
            raise PositionError("cards: more than the pack")
        if seen >> JOKER_INDEX & 1 and not rules.joker:
            raise PositionError("cards: the Joker is only in the pack with the joker variant (V-JOKER)")
        active = [s for s, h in enumerate(self.hands) if h]
        if len(active) < 2:
            raise PositionError(f"hands: {len(active)} player(s) with cards; a deal needs at least 2")
        if not 0 <= self.leader < rules.players:
            raise PositionError(f"leader: seat {self.leader} does not exist with {rules.players} players")
        if not self.hands[self.leader]:
            raise PositionError(f"leader: seat {self.leader} has no cards and cannot lead")
        if not self.first_trick_done and not self.hands[self.leader] >> ACE_OF_SPADES & 1:
            raise PositionError(f"leader: seat {self.leader} must hold the A♠ to lead the first trick (R-ACE)")
        if rules.profile == "punjab" and self.first_trick_done and not self.waste:
            raise PositionError("waste: empty after the first trick (punjab puts the first trick in the waste)")
        if self.forced_lead is not None:
            if rules.profile != "punjab" or not self.first_trick_done:
                raise PositionError("forced_lead: only after the first trick under punjab (R-P-DRAW)")
            if not self.hands[self.leader] >> self.forced_lead & 1:
                raise PositionError(f"forced_lead: the leader (seat {self.leader}) does not hold {self.forced_lead}")
