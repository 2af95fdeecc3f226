"""A player's view: exactly what one seat may know (R-INFO). The one place where hidden
information is filtered: bots, the terminal, the web server and AI environments all read a
deal only through :func:`player_view`, so a leak is fixed here once.

Public: every card played to a trick, who picked up which cards, what went into the waste
pile (not its order), hand sizes, takes (who took whose hand, not the cards), who got away,
the stripped cards. Private to a seat: its own hand, a card it drew blind (R-P-DRAW) and
the cards of a hand it took or that was taken from it. Never shown: other hands, the waste
order, the seed or the random generator.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from .cards import Card, cards_of
from .events import Action, Event, EventKind, Outcome
from .messages import N_, Text, at
from .rules import Rules

if TYPE_CHECKING:
    from .deal import Deal

__all__ = ["PlayerView", "player_view", "EventLog"]


class EventLog(Sequence[Event]):
    """An immutable, read-only window on the first ``length`` events of an append-only list.

    A view's history is one of these: making a view costs nothing per past event, and the
    window never changes even as the deal goes on. Compares equal to a tuple of the same
    events.
    """

    __slots__ = ("_events", "_length")

    def __init__(self, events: list[Event], length: int) -> None:
        self._events = events
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...
    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            return tuple(self._events[start:stop:step])
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("event index out of range")
        return self._events[index]

    def __iter__(self) -> Iterator[Event]:
        events = self._events
        for i in range(self._length):
            yield events[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventLog):
            other = tuple(other)
        return isinstance(other, tuple) and tuple(self) == other

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"EventLog({list(self)!r})"


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What ``seat`` may know about a deal, at one moment (immutable).

    Attributes:
        seat: the viewer's seat, or ``None`` for a spectator.
        rules: the rules in force.
        players: number of seats.
        dealer: the dealer's seat.
        hand: the viewer's cards (suit order, low to high); ``None`` for a spectator.
        hand_mask: the same as a bit set (0 for a spectator).
        hand_sizes: cards per seat.
        got_away: per seat, whether it has got away.
        out_order: groups of seats in the order they got away.
        leader: seat that led or is to lead the current trick.
        to_act: seat whose decision it is (``None`` when over).
        decision: ``"play"``, ``"take"`` (poll) or ``None``.
        legal_actions: the viewer's legal actions now (``()`` for a spectator).
        trick: ``(seat, card)`` on the table, in playing order.
        first_trick_done: whether the first trick is over.
        waste_size: cards in the waste pile.
        waste_seen: cards the viewer saw go into the waste and has not seen come out
            (after someone else's blind draw this still holds the drawn card until it is led).
        must_lead: the card the viewer drew and must lead (R-P-DRAW), else ``None``.
        tricks_played: tricks resolved so far.
        pickups: per seat, how many times it picked up.
        takes: ``(taker, taken)`` pairs so far.
        captured_tens: per seat, tens captured (V-DEHLA), public.
        stripped: cards removed before the deal (R-UNEVEN strip), public.
        history: every event so far, with hidden cards removed (``hidden`` counts them).
        outcome: the outcome once the deal is over (public), else ``None``.
    """

    seat: int | None
    rules: Rules
    players: int
    dealer: int
    hand: tuple[Card, ...] | None
    hand_mask: int
    hand_sizes: tuple[int, ...]
    got_away: tuple[bool, ...]
    out_order: tuple[tuple[int, ...], ...]
    leader: int
    to_act: int | None
    decision: str | None
    legal_actions: tuple[Action, ...]
    trick: tuple[tuple[int, Card], ...]
    first_trick_done: bool
    waste_size: int
    waste_seen: tuple[Card, ...]
    must_lead: Card | None
    tricks_played: int
    pickups: tuple[int, ...]
    takes: tuple[tuple[int, int], ...]
    captured_tens: tuple[tuple[Card, ...], ...]
    stripped: tuple[Card, ...]
    history: EventLog
    outcome: Outcome | None

    @property
    def finished(self) -> bool:
        """Whether the deal is over."""
        return self.outcome is not None

    @property
    def led_suit(self) -> int | None:
        """Suit of the current trick's lead (0–3), or ``None`` before the lead."""
        return self.trick[0][1] // 13 if self.trick else None

    def to_dict(self, history: bool = True) -> dict[str, Any]:
        """JSON-ready dict (cards by name); what servers send to this seat.

        ``history=False`` leaves out ``history`` (a server that already sent the events
        sends only the new ones)."""
        data = {
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "dealer": self.dealer,
            "hand": None if self.hand is None else [str(c) for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "got_away": list(self.got_away),
            "out_order": [list(g) for g in self.out_order],
            "leader": self.leader,
            "to_act": self.to_act,
            "decision": self.decision,
            "legal_actions": [str(a) for a in self.legal_actions],
            "trick": [{"seat": s, "card": str(c)} for s, c in self.trick],
            "first_trick_done": self.first_trick_done,
            "waste_size": self.waste_size,
            "waste_seen": [str(c) for c in self.waste_seen],
            "must_lead": None if self.must_lead is None else str(self.must_lead),
            "tricks_played": self.tricks_played,
            "pickups": list(self.pickups),
            "takes": [list(t) for t in self.takes],
            "captured_tens": [[str(c) for c in t] for t in self.captured_tens],
            "stripped": [str(c) for c in self.stripped],
            "outcome": None if self.outcome is None else self.outcome.to_dict(),
        }
        if history:
            data["history"] = [e.to_dict() for e in self.history]
        return data


def _catch_up(deal: Deal, seat: int | None) -> list[Any]:
    """The seat's redacted history and waste knowledge, brought up to date incrementally.

    Kept on the deal (``deal._views``: seat → ``[events read, redacted events, waste seen]``)
    so that making a view reads only the events since the last one. ``waste seen`` holds the
    cards the seat saw go into the waste pile and has not seen come out: a blind draw is seen
    leaving only by the drawer (and by whoever later takes that hand); everyone sees a drawn
    card once it is played.
    """
    cache = deal._views.get(seat)
    if cache is None:
        cache = deal._views[seat] = [0, [], deal.start.waste if deal.start is not None else 0]
    events = deal._events
    done, history, seen = cache
    if done == len(events):
        return cache
    for e in events[done:]:
        kind = e.kind
        if kind == EventKind.WASTE:
            for c in e.cards:
                seen |= 1 << c
        elif kind == EventKind.PLAY or kind == EventKind.IRREGULARITY:
            seen &= ~(1 << e.cards[0])
        elif kind == EventKind.DRAW:
            if e.seat == seat:
                seen &= ~(1 << e.cards[0])
            else:
                e = e._replace(cards=(), hidden=len(e.cards))
        elif kind == EventKind.TAKE:
            if seat is not None and seat in (e.seat, e.other):
                for c in e.cards:
                    seen &= ~(1 << c)
            else:
                e = e._replace(cards=(), hidden=len(e.cards))
        history.append(e)
    cache[0] = len(events)
    cache[2] = seen
    return cache


@functools.cache
def _got_away(players: int, out: int) -> tuple[bool, ...]:
    """Per seat, whether bit ``seat`` of ``out`` is set (at most 2⁸ patterns per table size)."""
    return tuple(bool(out >> s & 1) for s in range(players))


def player_view(deal: Deal, seat: int | None) -> PlayerView:
    """What ``seat`` may know about ``deal`` now; ``seat=None`` is a spectator (no hand).

    Raises:
        ValueError: ``seat`` is not a seat of this deal.
    """
    n = deal.players
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
        raise ValueError(at("seat", Text(N_("no seat {seat!r} among {n} players"), seat=seat, n=n)))
    done, events, waste_seen = _catch_up(deal, seat)
    hand_mask = 0 if seat is None else deal._hands[seat]
    forced = deal._forced
    return PlayerView(
        seat=seat,
        rules=deal.rules,
        players=n,
        dealer=deal.dealer,
        hand=None if seat is None else cards_of(hand_mask),
        hand_mask=hand_mask,
        hand_sizes=deal.hand_sizes,
        got_away=_got_away(n, deal._out),
        out_order=deal.out_order,
        leader=deal.leader,
        to_act=deal.to_act,
        decision=deal.decision,
        legal_actions=() if seat is None else tuple(deal.legal_actions(seat)),
        trick=deal.trick,
        first_trick_done=deal.first_trick_done,
        waste_size=deal.waste_size,
        waste_seen=cards_of(waste_seen),
        must_lead=forced
        if forced is not None and seat is not None and hand_mask >> forced & 1 and seat == deal.leader
        else None,
        tricks_played=deal.tricks_played,
        pickups=tuple(deal._pickups),
        takes=tuple(deal._takes),
        captured_tens=tuple(cards_of(t) if t else () for t in deal._tens),
        stripped=deal.stripped,
        history=EventLog(events, done),
        outcome=deal.outcome,
    )
