"""Positions: an explicit situation between two tricks, instead of a shuffled deal.

A position says who holds which cards, what is in the waste pile, who leads
and whether the first trick has been played; under punjab also a card drawn
blind from the waste pile and not led yet (R-P-DRAW). Tests build every rule
situation from one; game records may start from one (``"start"`` in docs/records.md).

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

    A ``ValueError`` whose message is a translatable :class:`~getaway.core.messages.Text`.
    """


def _hand_of(seat: int) -> Text:
    """Where a card is: ``hand of seat 2`` (translatable)."""
    return Text(N_("hand of seat {seat}"), seat=seat)


@dataclass(frozen=True, slots=True)
class Position:
    """A situation between tricks (immutable).

    Attributes:
        hands: per seat, the bit set of its cards (see :mod:`getaway.core.cards`).
            A seat with no cards has got away before the position.
        waste: bit set of the waste pile's cards.
        leader: the seat to lead the next trick.
        first_trick_done: whether the first trick (A♠ lead) has been played.
        forced_lead: a card the leader drew blind from the waste and must lead (R-P-DRAW),
            or ``None``.
        blind_draw: ``(seat, card)``: ``card`` was drawn blind from the waste pile
            (R-P-DRAW), ``seat`` holds it and it has not been led yet; ``None``: no such
            card (the default). The seat is the drawer, who must lead it (then it leads and
            ``forced_lead`` is that card), or a player who took the drawer's hand (R-P-TAKE;
            the obligation lapsed: ``forced_lead`` is not that card; it may be another card
            the leader drew later). A
            :class:`~getaway.core.deal.Deal` built from the position starts with that history
            (a ``waste`` event with the card and no seat, then the holder's ``draw``), so each
            seat's view shows what it would know: the holder the card, the others a hidden
            draw and the card still among the cards they saw go into the waste pile.
            A ``forced_lead`` without ``blind_draw`` keeps its old meaning (no history).
    """

    hands: tuple[int, ...]
    waste: int = 0
    leader: int = 0
    first_trick_done: bool = False
    forced_lead: Card | None = None
    blind_draw: tuple[int, Card] | None = None

    @classmethod
    def from_cards(
        cls,
        hands: Sequence[Sequence[Any]],
        waste: Sequence[Any] = (),
        leader: int = 0,
        first_trick_done: bool = False,
        forced_lead: Any = None,
        blind_draw: Any = None,
    ) -> Position:
        """A position from card names or cards (any accepted notation), checked for duplicates.

        ``blind_draw`` is a ``(seat, card)`` pair (R-P-DRAW, see :class:`Position`), or ``None``.

        Raises:
            PositionError: a name is not a card, or a card appears twice; ``blind_draw`` is
                not a seat number and a card.

        >>> p = Position.from_cards([["9d", "K♥"], ["2h"]], waste=["2s"], leader=0, first_trick_done=True,
        ...                         forced_lead="9d", blind_draw=(0, "9d"))
        >>> p.blind_draw == (0, Card.parse("9♦"))
        True
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
        drawn = None
        if blind_draw is not None:
            if isinstance(blind_draw, (str, dict)) or not isinstance(blind_draw, Sequence) or len(blind_draw) != 2:
                message = N_("expected a seat and a card, got {value!r}")
                raise PositionError(at("blind_draw", Text(message, value=blind_draw)))
            seat, name = blind_draw
            if isinstance(seat, bool) or not isinstance(seat, int):
                raise PositionError(at("blind_draw", Text(N_("expected a seat number, got {value!r}"), value=seat)))
            try:
                card = Card(name) if isinstance(name, int) and not isinstance(name, bool) else Card.parse(name)
            except InvalidCardError as exc:
                raise PositionError(at("blind_draw", error_text(exc))) from None
            drawn = (seat, card)
        return cls(masks, to_mask(waste, "waste"), leader, first_trick_done, forced, drawn)

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
        if self.blind_draw is not None:  # absent when unset: older records stay byte for byte
            seat, card = self.blind_draw
            data["blind_draw"] = {"seat": seat, "card": str(card)}
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Position:
        """Inverse of :meth:`to_dict`. ``"blind_draw"``, optional, is an object
        ``{"seat": 2, "card": "7♥"}`` (R-P-DRAW); without it the position has none.

        Raises:
            PositionError: missing or malformed fields.
        """
        if not isinstance(data, dict):
            raise PositionError(at("start", Text(N_("expected an object, got {kind}"), kind=type(data).__name__)))
        unknown = set(data) - {"hands", "waste", "leader", "first_trick_done", "forced_lead", "blind_draw"}
        if unknown:
            message = N_("unknown field(s) {names}")
            raise PositionError(at("start", Text(message, names=", ".join(sorted(map(str, unknown))))))
        if "hands" not in data:
            raise PositionError(at("start", Text(N_("{name!r} is missing"), name="hands")))
        drawn = data.get("blind_draw")
        if drawn is not None:
            if not isinstance(drawn, dict) or set(drawn) != {"seat", "card"}:
                message = N_('expected an object with a "seat" and a "card", got {value!r}')
                raise PositionError(at("blind_draw", Text(message, value=drawn)))
            drawn = (drawn["seat"], drawn["card"])
        return cls.from_cards(
            data["hands"],
            data.get("waste", ()),
            data.get("leader", 0),
            data.get("first_trick_done", False),
            data.get("forced_lead"),
            drawn,
        )

    def validate(self, rules: Rules) -> None:
        """Check that this position can occur under ``rules``.

        Raises:
            PositionError: wrong number of seats; overlapping sets; a Joker without
                V-JOKER; fewer than two players with cards; a leader without cards,
                or without the A♠ before the first trick (R-ACE); punjab with the first
                trick done but an empty waste pile (R-P-DRAW needs one); a ``forced_lead``
                or ``blind_draw`` outside punjab or before the first trick (R-P-DRAW); a
                ``forced_lead`` the leader does not hold; a ``blind_draw`` that is not a
                seat and a card, whose seat does not exist or does not hold the card, whose
                card is the Joker (never drawn), or whose seat leads with a ``forced_lead``
                that is another card.
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
        if self.blind_draw is not None:
            self._validate_blind_draw(rules, self.blind_draw)

    def _validate_blind_draw(self, rules: Rules, blind_draw: Any) -> None:
        """The checks of :meth:`validate` for ``blind_draw`` (R-P-DRAW)."""
        if not (
            isinstance(blind_draw, tuple)
            and len(blind_draw) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in blind_draw)
            and 0 <= blind_draw[1] <= JOKER_INDEX
        ):
            message = N_("expected a seat and a card, got {value!r}")
            raise PositionError(at("blind_draw", Text(message, value=blind_draw)))
        seat, card = blind_draw[0], Card(blind_draw[1])
        if rules.profile != "punjab" or not self.first_trick_done:
            message = N_("only after the first trick under punjab (R-P-DRAW)")
            raise PositionError(at("blind_draw", Text(message)))
        if not 0 <= seat < rules.players:
            message = N_("seat {seat} does not exist with {n} players")
            raise PositionError(at("blind_draw", Text(message, seat=seat, n=rules.players)))
        if card == JOKER_INDEX:
            message = N_("the Joker is never drawn from the waste pile (R-P-DRAW)")
            raise PositionError(at("blind_draw", Text(message)))
        if not self.hands[seat] >> card & 1:
            message = N_("seat {seat} does not hold {card}")
            raise PositionError(at("blind_draw", Text(message, seat=seat, card=str(card))))
        if seat == self.leader and self.forced_lead is not None and self.forced_lead != card:
            # A leader with a forced lead drew it with an empty hand: it holds no other blind card.
            message = N_("the card to lead ({lead}) is not the card drawn blind ({card})")
            raise PositionError(at("blind_draw", Text(message, lead=str(self.forced_lead), card=str(card))))
