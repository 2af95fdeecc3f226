"""Bots: players that decide from a :class:`~getaway.view.PlayerView` only.

A bot never sees the :class:`~getaway.deal.Deal`: :func:`play_deal` hands it the seat's
view, its legal actions and a seeded generator, so peeking is impossible by construction.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from ..deal import Deal
from ..events import Action, Event
from ..view import PlayerView

__all__ = ["Bot", "RandomBot", "play_deal", "BOTS", "LEVELS", "make_bot"]


class Bot(Protocol):
    """A player: ``act(view, legal, rng)`` returns one of ``legal``."""

    name: str

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """Choose one of ``legal`` (non-empty) for ``view.seat``; use only ``rng`` for chance."""
        ...


from .random import RandomBot  # noqa: E402  (the protocol above is what it implements)

#: Bot kinds by name: a factory taking keyword settings. Other bot modules register here.
BOTS: dict[str, Callable[..., Bot]] = {"random": RandomBot}

#: Difficulty levels for people, mapped onto bot kinds and settings (issue 4 refines these).
LEVELS: dict[str, tuple[str, dict[str, object]]] = {
    "easy": ("random", {}),
    "medium": ("random", {}),
    "hard": ("random", {}),
    "expert": ("random", {}),
}


def make_bot(name: str, **settings: object) -> Bot:
    """A bot from a kind (``random`` …) or a level (``easy``, ``medium``, ``hard``, ``expert``).

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    if name in LEVELS:
        kind, defaults = LEVELS[name]
        return BOTS[kind](**{**defaults, **settings})
    if name in BOTS:
        return BOTS[name](**settings)
    known = ", ".join([*BOTS, *LEVELS])
    raise ValueError(f"bot: unknown bot or level {name!r} (known: {known})")


def play_deal(
    deal: Deal,
    bots: Sequence[Bot],
    rng: random.Random,
    on_events: Callable[[int, Action, list[Event]], None] | None = None,
) -> Deal:
    """Let ``bots[seat]`` make every decision of ``deal`` until it is over; returns ``deal``.

    Args:
        deal: the deal (played in place).
        bots: one bot per seat.
        rng: the generator the bots draw from (seeded by the caller).
        on_events: called after each action with ``(seat, action, events)``.

    Raises:
        ValueError: wrong number of bots.
    """
    if len(bots) != deal.players:
        raise ValueError(f"bots: {len(bots)} bots for {deal.players} seats")
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None
        view = deal.view(seat)
        action = bots[seat].act(view, view.legal_actions, rng)
        events = deal.apply(action, seat)
        if on_events is not None:
            on_events(seat, action, events)
    return deal
