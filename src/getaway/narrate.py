"""Plain-English sentences for events (the demo and replay narration).

Satellite of the core: turns :class:`~getaway.events.Event` s, as one viewer sees them,
into short sentences such as ``"C has no ♥: 3♣, tochoo! B picks up 3 cards and leads."``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .events import Event, EventKind

__all__ = ["describe"]


def _cards(cards: Sequence[object]) -> str:
    return " ".join(str(c) for c in cards)


def describe(event: Event, names: Sequence[str]) -> str | None:
    """One sentence for ``event`` (``None`` for events not worth a line, such as a poll pass).

    Args:
        event: the event (hidden cards already removed for the viewer, if any).
        names: seat names.
    """
    who = names[event.seat] if event.seat is not None and 0 <= event.seat < len(names) else "?"
    kind = event.kind
    if kind == EventKind.PLAY:
        return f"{who} plays {_cards(event.cards)}"
    if kind == EventKind.TOCHOO:
        return f"{who} cannot follow suit: {_cards(event.cards)} is a tochoo!"
    if kind == EventKind.RUFF:
        return f"{who} ruffs with {_cards(event.cards)}"
    if kind == EventKind.VOID:
        return f"{who} cannot follow suit"
    if kind == EventKind.PICKUP:
        return f"{who} picks up {len(event.cards)} card(s): {_cards(event.cards)}"
    if kind == EventKind.WASTE:
        return f"{_cards(event.cards)} go to the waste pile"
    if kind == EventKind.CAPTURE:
        return f"{who} captures {_cards(event.cards)}"
    if kind == EventKind.DRAW:
        drawn = _cards(event.cards) if event.cards else "a card"
        return f"{who} must lead but has no card: draws {drawn} blind from the waste pile"
    if kind == EventKind.TAKE:
        other = names[event.other] if event.other is not None else "?"
        count = len(event.cards) or event.hidden
        return f"{who} takes {other}'s hand ({count} card(s)); {other} gets away"
    if kind == EventKind.OUT:
        return f"{who} gets away (place {event.other})"
    if kind == EventKind.IRREGULARITY:
        return f"{who}: irregularity ({event.reason}) with {_cards(event.cards)}, picks up the trick"
    if kind == EventKind.LEAD:
        return f"{who} leads next"
    if kind == EventKind.OVER:
        if event.seat is None:
            return f"The deal is over: no loser ({event.reason})"
        return f"The deal is over: {who} loses ({event.reason})"
    return None
