"""Sentences for events, in the language in use (the narration of play, demo and replay).

Satellite of the core: turns :class:`~getaway.core.events.Event` s, as one viewer sees them,
into short sentences such as ``"C has no hearts: 3♣, tochoo! B picks up 3 cards and leads."``.
:func:`describe` says one event; :class:`Narrator` follows a stream of events and joins
the ones that belong together (a tochoo and its pick-up; a pick-up and the next lead).

>>> from getaway.core.events import Event
>>> from getaway.core.cards import Card
>>> n = Narrator(["A", "B", "C", "D"])
>>> n.feed([Event("play", 0, (Card.parse("8h"),)), Event("play", 1, (Card.parse("qh"),)),
...         Event("tochoo", 2, (Card.parse("3c"),)),
...         Event("pickup", 1, tuple(Card.parse(c) for c in ("8h", "qh", "3c"))), Event("lead", 1)])
['A leads 8♥', 'B plays Q♥', 'C has no hearts: 3♣, tochoo! B picks up 3 cards and leads.']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..core.events import Event, EventKind
from .i18n import _, isolate, ngettext, suit_plural

__all__ = ["describe", "Narrator", "irregularity_name", "termination_name"]


def _cards(cards: Sequence[object]) -> str:
    return isolate(" ".join(str(c) for c in cards), ltr=True)


def irregularity_name(reason: str | None) -> str:
    """A translated name for an irregularity (R-P-PENALTY)."""
    names = {
        "revoke": _("a revoke"),
        "out_of_turn": _("a play out of turn"),
        "after_tochoo": _("a play after a tochoo"),
    }
    return names.get(reason or "", reason or "?")


def termination_name(reason: str | None) -> str:
    """A translated name for how a deal ended."""
    names = {
        "last_holder": _("last player holding cards"),
        "no_loser": _("everyone got away together"),
        "take": _("the taker was left alone"),
        "repetition": _("the same position came round three times"),
    }
    return names.get(reason or "", reason or "?")


def _place(place: int | None) -> str:
    return _("place {place}").format(place=isolate(place if place is not None else "?"))


def describe(event: Event, names: Sequence[str]) -> str | None:
    """One sentence for ``event`` (``None`` for events not worth a line, such as a poll pass).

    Args:
        event: the event (hidden cards already removed for the viewer, if any).
        names: seat names.
    """
    who = isolate(names[event.seat] if event.seat is not None and 0 <= event.seat < len(names) else "?")
    kind = event.kind
    cards = _cards(event.cards)
    if kind == EventKind.PLAY:
        return _("{who} plays {cards}").format(who=who, cards=cards)
    if kind == EventKind.TOCHOO:
        return _("{who} cannot follow suit: {cards} is a tochoo!").format(who=who, cards=cards)
    if kind == EventKind.RUFF:
        return _("{who} ruffs with {cards}").format(who=who, cards=cards)
    if kind == EventKind.VOID:
        return _("{who} cannot follow suit").format(who=who)
    if kind == EventKind.PICKUP:
        n = len(event.cards)
        return ngettext("{who} picks up {n} card: {cards}", "{who} picks up {n} cards: {cards}", n).format(
            who=who, n=isolate(n), cards=cards
        )
    if kind == EventKind.WASTE:
        return _("{cards} go to the waste pile").format(cards=cards)
    if kind == EventKind.CAPTURE:
        return _("{who} captures {cards}").format(who=who, cards=cards)
    if kind == EventKind.DRAW:
        if event.cards:
            return _("{who} must lead but has no card: draws {cards} blind from the waste pile").format(
                who=who, cards=cards
            )
        return _("{who} must lead but has no card: draws a card blind from the waste pile").format(who=who)
    if kind == EventKind.TAKE:
        other = isolate(names[event.other] if event.other is not None and 0 <= event.other < len(names) else "?")
        n = len(event.cards) or event.hidden
        return ngettext(
            "{who} takes {other}'s hand ({n} card); {other} gets away",
            "{who} takes {other}'s hand ({n} cards); {other} gets away",
            n,
        ).format(who=who, other=other, n=isolate(n))
    if kind == EventKind.OUT:
        return _("{who} gets away ({place})").format(who=who, place=_place(event.other))
    if kind == EventKind.IRREGULARITY:
        return _("{who}: irregularity ({what}) with {cards}, picks up the trick").format(
            who=who, what=irregularity_name(event.reason), cards=cards
        )
    if kind == EventKind.LEAD:
        return _("{who} leads next").format(who=who)
    if kind == EventKind.OVER:
        if event.seat is None:
            return _("The deal is over: no loser ({why})").format(why=termination_name(event.reason))
        return _("The deal is over: {who} loses ({why})").format(who=who, why=termination_name(event.reason))
    return None


class Narrator:
    """Turns a stream of events into a running narration, joining related events.

    Args:
        names: seat names.
        special_first: the first trick is punjab's special one (R-P-FIRST).
    """

    def __init__(self, names: Sequence[str], special_first: bool = False) -> None:
        self.names = list(names)
        self._special = special_first  # punjab's first trick: discarded whole, nobody wins it
        self._led: int | None = None  # suit of the current trick's lead
        self._trick_open = False
        self._last: Event | None = None

    def name(self, seat: int | None) -> str:
        """A seat's name (isolated in a right-to-left language: :func:`~getaway.text.i18n.isolate`)."""
        if seat is None or not 0 <= seat < len(self.names):
            return isolate("?")
        return isolate(self.names[seat])

    def feed(self, events: Iterable[Event]) -> list[str]:
        """Sentences for ``events`` (in order); keeps track of the trick between calls."""
        out: list[str] = []
        pending = self._reorder(list(events))
        i = 0
        while i < len(pending):
            event = pending[i]
            nxt = pending[i + 1] if i + 1 < len(pending) else None
            line, used = self._say(event, nxt, pending[i + 2] if i + 2 < len(pending) else None)
            if line:
                out.append(line)
            i += used
        return out

    @staticmethod
    def _reorder(events: list[Event]) -> list[Event]:
        """Tell a pick-up and the lead that follows it together: players getting away on the
        same trick are told after the lead."""
        out: list[Event] = []
        i = 0
        while i < len(events):
            event = events[i]
            out.append(event)
            i += 1
            if event.kind == EventKind.PICKUP:
                j = i
                while j < len(events) and events[j].kind == EventKind.OUT:
                    j += 1
                if j > i and j < len(events) and events[j].kind == EventKind.LEAD and events[j].seat == event.seat:
                    out.append(events[j])
                    out.extend(events[i:j])
                    i = j + 1
        return out

    def _say(self, event: Event, nxt: Event | None, after: Event | None) -> tuple[str | None, int]:
        kind = event.kind
        who = self.name(event.seat)
        cards = _cards(event.cards)
        last, self._last = self._last, event
        if (
            kind == EventKind.PLAY
            and nxt is not None
            and nxt.kind in (EventKind.TOCHOO, EventKind.RUFF)
            and (nxt.seat, nxt.cards) == (event.seat, event.cards)
        ):
            self._trick_open = True
            return None, 1  # told as the tochoo or the ruff
        if kind == EventKind.PLAY:
            first = not self._trick_open
            self._trick_open = True
            if first and event.cards and not event.cards[0].is_joker:
                self._led = event.cards[0].suit
                return _("{who} leads {cards}").format(who=who, cards=cards), 1
            return _("{who} plays {cards}").format(who=who, cards=cards), 1
        if kind == EventKind.TOCHOO:
            suit = suit_plural(self._led) if self._led is not None else "?"
            line = _("{who} has no {suit}: {cards}, tochoo!").format(who=who, suit=suit, cards=cards)
            if nxt is not None and nxt.kind == EventKind.PICKUP:
                more, used = self._pickup(nxt, after)
                return f"{line} {more}", 1 + used
            return line, 1
        if kind == EventKind.VOID:
            suit = suit_plural(self._led) if self._led is not None else "?"
            line = _("{who} has no {suit}").format(who=who, suit=suit)
            if nxt is not None and nxt.kind == EventKind.PICKUP:
                more, used = self._pickup(nxt, after)
                return f"{line}: {more}", 1 + used
            return line + ".", 1
        if kind == EventKind.PICKUP:
            self._special = False  # a penalty ended the special first trick
            return self._pickup(event, nxt)
        if kind == EventKind.WASTE:
            self._trick_open = False
            if event.seat is None:  # a position's blind draw (R-P-DRAW): its card's way in is untold
                return None, 1
            winner = self.name(event.seat)
            n = len(event.cards)
            if self._special:
                self._special = False
                return _("The first trick goes to the waste pile; {who} leads again.").format(who=winner), 1
            return ngettext(
                "{n} card goes to the waste pile ({who} wins the trick).",
                "{n} cards go to the waste pile ({who} wins the trick).",
                n,
            ).format(n=isolate(n), who=winner), 1
        if kind == EventKind.LEAD:
            self._trick_open = False
            if last is not None and last.kind == EventKind.WASTE and last.seat == event.seat:
                return None, 1  # "B wins the trick" said it
            return _("{who} leads the next trick.").format(who=who), 1
        if kind == EventKind.PASS:
            return None, 1
        if kind == EventKind.OUT:
            if last is not None and last.kind == EventKind.TAKE and last.other == event.seat:
                return None, 1  # the take said it
            return _("{who} gets away ({place})!").format(who=who, place=_place(event.other)), 1
        if kind == EventKind.TAKE:
            other = self.name(event.other)
            n = len(event.cards) or event.hidden
            return ngettext(
                "{who} takes {other}'s hand ({n} card): {other} gets away.",
                "{who} takes {other}'s hand ({n} cards): {other} gets away.",
                n,
            ).format(who=who, other=other, n=isolate(n)), 1
        if kind == EventKind.OVER:
            if event.seat is None:
                return _("The deal is over: no loser ({why}).").format(why=termination_name(event.reason)), 1
            return _("The deal is over: {who} loses ({why}).").format(who=who, why=termination_name(event.reason)), 1
        return describe(event, [self.name(s) for s in range(len(self.names))]), 1

    def _pickup(self, event: Event, nxt: Event | None) -> tuple[str, int]:
        self._trick_open = False
        who = self.name(event.seat)
        n = len(event.cards)
        if nxt is not None and nxt.kind == EventKind.LEAD and nxt.seat == event.seat:
            return ngettext("{who} picks up {n} card and leads.", "{who} picks up {n} cards and leads.", n).format(
                who=who, n=isolate(n)
            ), 2
        return ngettext("{who} picks up {n} card.", "{who} picks up {n} cards.", n).format(who=who, n=isolate(n)), 1
