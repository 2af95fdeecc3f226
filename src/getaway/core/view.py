"""A player's view: exactly what one seat may know (R-INFO). A view is the deal's public
facts plus the seat's :class:`~getaway.core.knowledge.Knowledge` (which hides from the
history what the seat may not see: :func:`~getaway.core.knowledge.redact`, the one filter):
bots, the terminal, the web server and AI environments all read a deal only through
:func:`player_view`, so a leak is fixed in one place. The view reads the deal through its
public API only.

Public: every card played to a trick, who picked up which cards, what went into the waste
pile (not its order), hand sizes, takes (who took whose hand, not the cards), who got away,
the stripped cards. Private to a seat: its own hand, a card it drew blind (R-P-DRAW) and
the cards of a hand it took or that was taken from it. Never shown: other hands, the waste
order, the seed or the random generator.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from .cards import Card, cards_of
from .deal import Deal, active_after
from .events import Action, Outcome
from .knowledge import EventLog, Knowledge, followed_knowledge
from .rules import Rules

__all__ = ["PlayerView", "player_view", "must_lead_card", "got_away_of", "EventLog"]


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What ``seat`` may know about a deal, at one moment (immutable).

    Attributes:
        seat: the viewer's seat, or ``None`` for a spectator.
        rules: the rules in force.
        players: number of seats.
        dealer: the dealer's seat.
        hand: the viewer's cards (suit order, low to high); ``None`` for a spectator
            (a property, from ``hand_mask``).
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
            (a property, from ``waste_seen_mask``, the same as a bit set)
            (after someone else's blind draw this still holds the drawn card until it is led).
        must_lead: the card the viewer drew and must lead (R-P-DRAW), else ``None``.
        tricks_played: tricks resolved so far.
        pickups: per seat, how many times it picked up.
        takes: ``(taker, taken)`` pairs so far.
        captured_tens: per seat, tens captured (V-DEHLA), public (a property, from
            ``captured_tens_masks``, the same as bit sets).
        stripped: cards removed before the deal (R-UNEVEN strip), public.
        history: every event so far, with hidden cards removed (``hidden`` counts them).
        outcome: the outcome once the deal is over (public), else ``None``.
        knowledge: what the viewer can deduce (:class:`~getaway.core.knowledge.Knowledge`,
            a read-only snapshot of this moment: known cards, proven voids, blind draws).
    """

    seat: int | None
    rules: Rules
    players: int
    dealer: int
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
    waste_seen_mask: int
    must_lead: Card | None
    tricks_played: int
    pickups: tuple[int, ...]
    takes: tuple[tuple[int, int], ...]
    captured_tens_masks: tuple[int, ...]
    stripped: tuple[Card, ...]
    history: EventLog
    outcome: Outcome | None
    knowledge: Knowledge = field(compare=False, repr=False)

    @property
    def hand(self) -> tuple[Card, ...] | None:
        """The viewer's cards (suit order, low to high); ``None`` for a spectator."""
        return None if self.seat is None else cards_of(self.hand_mask)

    @property
    def waste_seen(self) -> tuple[Card, ...]:
        """Cards the viewer saw go into the waste and has not seen come out."""
        return cards_of(self.waste_seen_mask)

    @property
    def captured_tens(self) -> tuple[tuple[Card, ...], ...]:
        """Per seat, the tens it captured (V-DEHLA)."""
        return tuple(cards_of(t) if t else () for t in self.captured_tens_masks)

    @property
    def finished(self) -> bool:
        """Whether the deal is over."""
        return self.outcome is not None

    @property
    def led_suit(self) -> int | None:
        """Suit of the current trick's lead (0–3), or ``None`` before the lead."""
        return self.trick[0][1] // 13 if self.trick else None

    def active_after(self, seat: int | None = None) -> list[int]:
        """The seats still in the deal after ``seat`` (the viewer's by default) clockwise, that is
        to its left, ``seat`` excluded (:func:`getaway.core.deal.active_after`); ``[]`` for a
        spectator's own.

        Raises:
            IndexError: ``seat`` is no seat of the deal.
        """
        if seat is None:
            seat = self.seat
            if seat is None:
                return []
        if not 0 <= seat < self.players:
            raise IndexError(f"seat {seat} of {self.players}")
        return active_after(self.players, _out_mask(self.got_away), seat)

    def left_active(self) -> int | None:
        """The viewer's left neighbour still in the deal, whose hand a take takes (R-P-TAKE);
        ``None`` for a spectator or when no other seat is still in."""
        after = self.active_after()
        return after[0] if after else None

    def still_to_play(self) -> list[int]:
        """The seats after the viewer, clockwise, that still play to the open trick: still in
        the deal and not played to it yet (under V-NOPICKUP a void player's pass is its play);
        ``[]`` for a spectator."""
        acted = {s for s, _ in self.trick}
        if self.rules.nopickup:  # a void player's pass is an action too
            history = self.history
            start = len(history)
            for i in range(len(history) - 1, -1, -1):
                if history[i].kind in ("pickup", "waste", "lead"):
                    break
                start = i
            acted |= {e.seat for e in history[start:] if e.kind == "void" and e.seat is not None}
        return [s for s in self.active_after() if s not in acted]

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


@functools.cache
def got_away_of(players: int, out: int) -> tuple[bool, ...]:
    """:attr:`PlayerView.got_away` of a deal whose seats that got away are the bit set ``out``
    (``Deal.out_mask``): per seat, whether its bit is set. Cached (at most 2⁸ patterns per table
    size): the same tuple each time.

    >>> got_away_of(3, 0b010)
    (False, True, False)
    """
    return tuple(bool(out >> s & 1) for s in range(players))


@functools.cache
def _out_mask(got_away: tuple[bool, ...]) -> int:
    """The bit set of the seats in ``got_away`` (the inverse of :func:`got_away_of`)."""
    return sum(1 << s for s, gone in enumerate(got_away) if gone)


def player_view(deal: Deal, seat: int | None, knowledge: Knowledge | None = None) -> PlayerView:
    """What ``seat`` may know about ``deal`` now; ``seat=None`` is a spectator (no hand).

    Args:
        deal: the deal.
        seat: the viewer, or ``None``.
        knowledge: that seat's :class:`~getaway.core.knowledge.Knowledge` of this deal, kept
            by the caller from one view to the next (brought up to date here, so a view
            costs O(new events)); ``None`` reads the whole history afresh.

    Raises:
        ValueError: ``seat`` is not a seat of this deal, or ``knowledge`` is another seat's.
    """
    knowledge = followed_knowledge(deal, seat, knowledge)
    n = deal.players
    hand_mask = 0 if seat is None else deal.hand_mask(seat)
    leader = deal.leader
    return PlayerView(
        seat=seat,
        rules=deal.rules,
        players=n,
        dealer=deal.dealer,
        hand_mask=hand_mask,
        hand_sizes=deal.hand_sizes,
        got_away=got_away_of(n, deal.out_mask),
        out_order=deal.out_order,
        leader=leader,
        to_act=deal.to_act,
        decision=deal.decision,
        legal_actions=() if seat is None else tuple(deal.legal_actions(seat)),
        trick=deal.trick,
        first_trick_done=deal.first_trick_done,
        waste_size=deal.waste_size,
        waste_seen_mask=knowledge.waste,
        must_lead=must_lead_card(deal, seat, hand_mask, leader),
        tricks_played=deal.tricks_played,
        pickups=deal.pickups,
        takes=deal.takes,
        captured_tens_masks=deal.captured_tens,
        stripped=deal.stripped,
        history=knowledge.history,
        outcome=deal.outcome,
        knowledge=knowledge.snapshot(),
    )


def must_lead_card(deal: Deal, seat: int | None, hand_mask: int, leader: int) -> Card | None:
    """The card ``seat`` (whose hand is ``hand_mask``; ``leader`` leads the trick) drew and must
    lead (R-P-DRAW), else ``None``: only the drawer sees it."""
    forced = deal.forced_lead
    return forced if forced is not None and hand_mask >> forced & 1 and seat == leader else None

