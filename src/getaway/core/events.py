"""Actions, events, errors and outcomes of a deal: the small value types around the state machine.

An **action** is what a player decides: play a card (the :class:`~getaway.core.cards.Card`
itself is the action) or a :class:`Call` (``take``, ``pass``, ``pickup``). Every
action is an ``int`` 0–55, so AI environments get a fixed discrete action space
for free (:data:`NUM_ACTIONS`).

An **event** is what happened: the state machine returns the events that each
action caused, including the ones it applied by itself (a classic void player's
pick-up, a blind draw, a player getting away).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple, TypeAlias

from .cards import JOKER_INDEX, Card, InvalidCardError
from .messages import N_, Text, TextError, at

__all__ = [
    "Call",
    "Action",
    "TAKE",
    "PASS",
    "PICKUP",
    "NUM_ACTIONS",
    "parse_action",
    "action_from_id",
    "Event",
    "EventKind",
    "IllegalActionError",
    "InvalidActionError",
    "Outcome",
    "Termination",
]


class Call(int):
    """A non-card action: ``take`` (R-P-TAKE), ``pass`` (poll, or a no-pickup void player's
    choice) or ``pickup`` (a classic void player who could ruff but picks up instead).

    Values 53, 54, 55 follow the 53 card actions; ``str()`` is the word.
    """

    __slots__ = ()

    def __str__(self) -> str:
        return _CALL_NAMES[self - 53]

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Call.{_CALL_NAMES[self - 53].upper()}"

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        """Pickling gives the constant back (the engine tests ``action is TAKE``; a view and its
        legal actions go to a bot worker process, web/botpool.py)."""
        return (action_from_id, (int(self),))


_CALL_NAMES: Final = ("take", "pass", "pickup")
TAKE: Final = int.__new__(Call, 53)
PASS: Final = int.__new__(Call, 54)
PICKUP: Final = int.__new__(Call, 55)
_CALLS: Final = {"take": TAKE, "pass": PASS, "pickup": PICKUP}

#: Size of the action space: 52 cards, the Joker, take, pass, pickup.
NUM_ACTIONS: Final = 56

Action: TypeAlias = Card | Call


def action_from_id(index: int) -> Action:
    """The action with integer id ``index`` (0–55).

    Raises:
        InvalidActionError: no such action id.
    """
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < NUM_ACTIONS:
        raise InvalidActionError(
            Text(N_("not an action id: {index!r} (expected 0–{last})"), index=index, last=NUM_ACTIONS - 1)
        )
    if index <= JOKER_INDEX:
        return Card(index)
    return (TAKE, PASS, PICKUP)[index - 53]


def parse_action(text: Any) -> Action:
    """An action from a card name (``10h``, ``Q♠``), a word (``take``, ``pass``, ``pickup``)
    or an action id / action object.

    Raises:
        InvalidActionError: neither a card nor a known word (a ``ValueError``).
    """
    if isinstance(text, (Card, Call)):
        return text
    if isinstance(text, int) and not isinstance(text, bool):
        return action_from_id(text)
    if isinstance(text, str):
        call = _CALLS.get(text.strip().lower())
        if call is not None:
            return call
        try:
            return Card.parse(text)
        except InvalidCardError:
            pass
    message = N_("not an action: {text!r} (expected a card name, 'take', 'pass' or 'pickup')")
    raise InvalidActionError(Text(message, text=text))


class EventKind:
    """Names of event kinds (plain strings, stable: they appear in records and messages)."""

    PLAY: Final = "play"  #: seat played cards[0]
    TOCHOO: Final = "tochoo"  #: seat's play was a tochoo: off-suit, interrupting the trick (R-P-TRICK)
    RUFF: Final = "ruff"  #: seat's play was a spade on another suit (V-TRUMP)
    VOID: Final = "void"  #: seat could not follow and plays no card (R-C-TRICK, V-NOPICKUP)
    PICKUP: Final = "pickup"  #: seat picked up cards (the trick) into their hand
    #: cards went to the waste pile; seat is the trick's winner (or the Joker's leader), ``None``
    #: for the card of a position's blind draw (R-P-DRAW, :attr:`~getaway.core.position.Position.blind_draw`)
    WASTE: Final = "waste"
    CAPTURE: Final = "capture"  #: seat captured the tens in cards (V-DEHLA)
    DRAW: Final = "draw"  #: seat drew cards[0] blind from the waste (R-P-DRAW); hidden from others
    TAKE: Final = "take"  #: seat took the hand of ``other`` (R-P-TAKE); cards hidden from others
    PASS: Final = "pass"  #: seat passed in the take poll
    OUT: Final = "out"  #: seat got away; ``other`` is their place (shared places possible)
    IRREGULARITY: Final = "irregularity"  #: seat committed ``reason`` (R-P-PENALTY, penalize mode)
    LEAD: Final = "lead"  #: seat is to lead the next trick
    OVER: Final = "over"  #: the deal is over; seat is the loser or None, reason the termination


class Event(NamedTuple):
    """One thing that happened in a deal.

    Attributes:
        kind: an :class:`EventKind` name.
        seat: the seat it concerns (player, picker, winner, loser …) or ``None``.
        cards: the cards it concerns, or ``()`` where they are hidden from the viewer.
        other: a second seat (``take``: the seat whose hand was taken) or a place (``out``).
        reason: irregularity name (``irregularity``), termination (``over``).
        hidden: number of cards hidden from this viewer (``draw``, ``take`` in a player's view).
    """

    kind: str
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    other: int | None = None
    reason: str | None = None
    hidden: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with only the fields that carry information; cards by name."""
        d: dict[str, Any] = {"kind": self.kind}
        if self.seat is not None:
            d["seat"] = self.seat
        if self.cards:
            d["cards"] = [str(c) for c in self.cards]
        if self.other is not None:
            d["other"] = self.other
        if self.reason is not None:
            d["reason"] = self.reason
        if self.hidden:
            d["hidden"] = self.hidden
        return d


class IllegalActionError(TextError):
    """An action that is not legal now; the state is unchanged (a ``ValueError``).

    The message is ``"<reason>: <message>"``; ``message`` is usually a
    :class:`~getaway.core.messages.Text` (translatable).

    Attributes:
        reason: machine-readable cause, one of :attr:`REASONS`.
        seat: the seat that tried it (or ``None``).
        action: the action tried (or ``None``).
    """

    REASONS: Final = (
        "deal_over",  # the deal has ended
        "bad_seat",  # no such seat
        "got_away",  # that player has got away and no longer plays
        "not_your_turn",  # another player is to act (or a poll answer is awaited)
        "card_not_in_hand",  # the card is not in the player's hand
        "must_follow_suit",  # R-FOLLOW (or a spade on punjab's first trick)
        "must_lead_ace_of_spades",  # R-ACE
        "must_lead_drawn_card",  # R-P-DRAW
        "no_take_now",  # takes only before a trick, or the poll is asking someone else
        "take_not_allowed",  # the rules do not let this player take (takes off / leader only)
        "no_pass_now",  # nothing to pass on
        "no_pickup_now",  # pickup is only the choice of a void player who could ruff
        "cannot_play_when_void",  # classic / no-pickup: a void player plays no card (except a ruff)
        "draw_pending",  # explicit chance: a blind draw (R-P-DRAW) waits for its card first
        "not_a_draw_candidate",  # a blind draw's card that is not among the waste pile's cards
        "no_draw_due",  # apply(action, draw=card): the action calls for no blind draw
    )

    def __init__(self, reason: str, message: str, *, seat: int | None = None, action: Action | None = None) -> None:
        super().__init__(at(reason, message))
        self.reason = reason
        self.seat = seat
        self.action = action


class InvalidActionError(TextError):
    """Text or data that names no action at all (malformed input, not an illegal move; a ``ValueError``)."""


class Termination:
    """How a deal ended (:attr:`Outcome.termination`)."""

    LAST_HOLDER: Final = "last_holder"  #: one player still holds cards: the loser (R-END)
    NO_LOSER: Final = "no_loser"  #: the last holders all got away together (R-C-TIE)
    TAKE: Final = "take"  #: a take left only the taker with cards: the taker loses (R-P-TAKE)
    REPETITION: Final = "repetition"  #: a position began a trick for the third time (R-LOOP)


@dataclass(frozen=True)
class Outcome:
    """The result of a finished deal (R-END).

    Attributes:
        termination: a :class:`Termination` name.
        loser: the losing seat, or ``None`` (classic drawn deal, R-C-TIE).
        out_order: groups of seats in the order they got away; a group got away
            at the same moment and shares a place.
        places: per seat, its place (1 = first out; shared places 1, 2, 2, 4; the
            loser is last).
        tricks: number of tricks resolved (completed or picked up).
        pickups: per seat, how many times it picked up cards.
        cards_picked_up: per seat, how many cards it picked up in all.
        takes: ``(taker, taken)`` pairs in order.
        captured_tens: per seat, the tens it captured (V-DEHLA; empty otherwise).
    """

    termination: str
    loser: int | None
    out_order: tuple[tuple[int, ...], ...]
    places: tuple[int, ...]
    tricks: int
    pickups: tuple[int, ...]
    cards_picked_up: tuple[int, ...]
    takes: tuple[tuple[int, int], ...] = ()
    captured_tens: tuple[tuple[Card, ...], ...] = field(default=())

    @property
    def winners(self) -> tuple[int, ...]:
        """The seat(s) that got away first (the winner of the deal, R-C-SCORE)."""
        return self.out_order[0] if self.out_order else ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the ``result`` of a game record)."""
        return {
            "termination": self.termination,
            "loser": self.loser,
            "out_order": [list(g) for g in self.out_order],
            "places": list(self.places),
            "tricks": self.tricks,
            "pickups": list(self.pickups),
            "cards_picked_up": list(self.cards_picked_up),
            "takes": [list(t) for t in self.takes],
            "captured_tens": [[str(c) for c in tens] for tens in self.captured_tens],
        }
