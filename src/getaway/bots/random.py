"""The ``random`` bot: uniform among legal actions, taking hands only rarely."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import ClassVar

from ..core.batch import random_action
from ..core.events import Action
from ..core.view import PlayerView
from .settings import Setting

__all__ = ["RandomBot"]


class RandomBot:
    """Uniform choice among the legal actions, except that a take (R-P-TAKE) is chosen
    with probability ``take_probability`` when offered (uniform takes end deals at once).

    Args:
        take_probability: chance of taking when a take is legal, 0–1.

    Raises:
        ValueError: probability outside 0–1.
    """

    name = "random"
    #: its settings (:mod:`getaway.bots.settings`)
    SETTINGS: ClassVar[tuple[Setting, ...]] = (Setting("take_probability", float, 0.02, low=0.0, high=1.0),)

    def __init__(self, take_probability: float = 0.02) -> None:
        if not 0.0 <= take_probability <= 1.0:
            raise ValueError(f"take_probability: {take_probability} is not between 0 and 1")
        self.take_probability = take_probability

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """A uniformly random legal action (takes with ``take_probability``): the core's
        :func:`~getaway.core.batch.random_action`, which the vector environment's compiled
        opponents use too."""
        return random_action(legal, rng, self.take_probability)
