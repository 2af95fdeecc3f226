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
from .messages import N_, Text, TextError, at, error_text
from .rules import Rules

__all__ = ["Position", "PositionError"]


class PositionError(TextError):
    """A position that cannot occur: a duplicate card, a card that is not in the pack, a bad leader …

    A ``ValueError`` whose message is a translatable :class:`~getaway.messages.Text`.
    """


def _hand_of(seat: int) -> Text:
    """Where a card is: ``hand of seat 2`` (translatable)."""
    return Text(N_("hand of seat {seat}"), seat=seat)


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
        seen: dict[int, Any] = {}

        def to_mask(cards: Sequence[Any], where: Any) -> int:
            if isinstance(cards, str) or not isinstance(cards, Sequence):
                raise PositionError(at(where, Text(N_("expected a list of card names, got {value!r}"), value=cards)))
            mask = 0
            for text in cards:
                try:
                    card = Card.parse(text) if not isinstance(text, int) or isinstance(text, bool) else Card(text)
                except InvalidCardError as exc:
                    raise PositionError(at(where, exc.text)) from None
                if card in seen:
                    message = N_("{card} is also in {other} (a card can be in one place only)")
                    raise PositionError(at(where, Text(message, card=str(card), other=seen[card])))
                seen[card] = where
                mask |= 1 << card
            return mask

        if isinstance(hands, str) or not isinstance(hands, Sequence):
            raise PositionError(
                at("hands", Text(N_("expected one list of cards per seat, got {value!r}"), value=hands))
            )
        masks = tuple(to_mask(h, _hand_of(i)) for i, h in enumerate(hands))
        if isinstance(leader, bool) or not isinstance(leader, int):
            raise PositionError(at("leader", Text(N_("expected a seat number, got {value!r}"), value=leader)))
        if not isinstance(first_trick_done, bool):
            message = N_("expected true or false, got {value!r}")
            raise PositionError(at("first_trick_done", Text(message, value=first_trick_done)))
        forced = None
        if forced_lead is not None:
            try:
                forced = Card(forced_lead) if isinstance(forced_lead, int) else Card.parse(forced_lead)
            except InvalidCardError as exc:
                raise PositionError(at("forced_lead", error_text(exc))) from None
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
            raise PositionError(at("start", Text(N_("expected an object, got {kind}"), kind=type(data).__name__)))
        unknown = set(data) - {"hands", "waste", "leader", "first_trick_done", "forced_lead"}
        if unknown:
            message = N_("unknown field(s) {names}")
            raise PositionError(at("start", Text(message, names=", ".join(sorted(map(str, unknown))))))
        if "hands" not in data:
            raise PositionError(at("start", Text(N_("{name!r} is missing"), name="hands")))
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
            message = N_("{k} hands for {n} players")
            raise PositionError(at("hands", Text(message, k=len(self.hands), n=rules.players)))
        seen = self.waste
        for seat, hand in enumerate(self.hands):
            if hand & seen:
                dup = ", ".join(str(c) for c in cards_of(hand & seen))
                message = N_("{cards} also elsewhere (a card can be in one place only)")
                raise PositionError(at(_hand_of(seat), Text(message, cards=dup)))
            seen |= hand
        if seen >> (JOKER_INDEX + 1):
            raise PositionError(at("cards", Text(N_("more than the pack"))))
        if seen >> JOKER_INDEX & 1 and not rules.joker:
            message = N_("the Joker is only in the pack with the joker variant (V-JOKER)")
            raise PositionError(at("cards", Text(message)))
        active = [s for s, h in enumerate(self.hands) if h]
        if len(active) < 2:
            message = N_("{k} player(s) with cards; a deal needs at least 2")
            raise PositionError(at("hands", Text(message, k=len(active))))
        if not 0 <= self.leader < rules.players:
            message = N_("seat {seat} does not exist with {n} players")
            raise PositionError(at("leader", Text(message, seat=self.leader, n=rules.players)))
        if not self.hands[self.leader]:
            raise PositionError(at("leader", Text(N_("seat {seat} has no cards and cannot lead"), seat=self.leader)))
        if not self.first_trick_done and not self.hands[self.leader] >> ACE_OF_SPADES & 1:
            message = N_("seat {seat} must hold the A♠ to lead the first trick (R-ACE)")
            raise PositionError(at("leader", Text(message, seat=self.leader)))
        if rules.profile == "punjab" and self.first_trick_done and not self.waste:
            message = N_("empty after the first trick (punjab puts the first trick in the waste)")
            raise PositionError(at("waste", Text(message)))
        if self.forced_lead is not None:
            if rules.profile != "punjab" or not self.first_trick_done:
                message = N_("only after the first trick under punjab (R-P-DRAW)")
                raise PositionError(at("forced_lead", Text(message)))
            if not self.hands[self.leader] >> self.forced_lead & 1:
                message = N_("the leader (seat {seat}) does not hold {card}")
                raise PositionError(at("forced_lead", Text(message, seat=self.leader, card=str(self.forced_lead))))
