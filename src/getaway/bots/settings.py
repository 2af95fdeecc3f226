"""Each bot's settings, declared once: :class:`Setting` and a bot class's ``SETTINGS``.

A bot class (or a factory registered in :data:`getaway.bots.BOTS`) lists its settings in a
class attribute ``SETTINGS``, a tuple of :class:`Setting`: the keyword arguments of its
constructor, with their types, defaults and bounds, and where the bot keeps each value. Three
readers use it, so nothing is inferred from a signature or from attribute names:

- :func:`getaway.bots.make_bot`: which settings a name may carry (``expert:iterations=60``),
  which ones are numbers (a text given for one is refused before the bot is made);
- the difficulty levels (:data:`getaway.bots.LEVELS`): each level's settings are declared
  settings of its kind (tests/test_bots.py checks every level);
- the web server's bot pool (:func:`getaway.web.botpool.spec_of`): a bot goes to a worker
  process as its class's path and :func:`values_of` (the settings it was made with), and the
  worker rebuilds it with ``cls(**values)``. A bot whose class declares no ``SETTINGS`` cannot
  be rebuilt and plays in the server's threads.

The constructor stays the one that checks a value (its messages are the bot's own);
:attr:`Setting.low` and :attr:`Setting.high` say which bounds it enforces.

>>> from getaway.bots import RandomBot
>>> [s.name for s in RandomBot.SETTINGS], values_of(RandomBot(take_probability=0.5))
(['take_probability'], {'take_probability': 0.5})
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Setting", "settings_of", "values_of"]


@dataclass(frozen=True)
class Setting:
    """One setting of a bot: a keyword argument of its constructor.

    Attributes:
        name: the keyword (``iterations``).
        type: the type of its values: ``int``, ``float`` (an ``int`` is taken too), ``bool`` or
            ``str``; a number written on a bot's name (``expert:margin=0.1``) is parsed as one.
        default: the constructor's default.
        low: the smallest value the constructor accepts (``None``: no bound it checks).
        high: the largest value it accepts (``None``: no bound it checks).
        choices: the values a ``str`` setting may take (empty: any).
        optional: whether ``None`` is a value (``time_limit=None``: no time limit).
        per_search: set by each search rather than kept by the bot (``time_limit``: the bot pool
            sends it with every search, so it is not part of :func:`values_of`).
        read: how to read the value back from a bot (``None``: the attribute ``name``), for a
            bot that keeps it in another form (the heuristic keeps its tips as objects).
    """

    name: str
    type: type
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] = ()
    optional: bool = False
    per_search: bool = False
    read: Callable[[Any], Any] | None = None

    @property
    def is_number(self) -> bool:
        """Whether the values are numbers (``int`` or ``float``, not ``bool``)."""
        return self.type in (int, float)

    def value_of(self, bot: object) -> Any:
        """The value ``bot`` was made with.

        Raises:
            AttributeError: the bot does not keep it where the declaration says.
        """
        return self.read(bot) if self.read is not None else getattr(bot, self.name)


def settings_of(factory: object) -> tuple[Setting, ...] | None:
    """The settings a bot class or factory declares (its ``SETTINGS``), or ``None`` when it
    declares none.

    >>> from getaway.bots import ExpertBot
    >>> [s.name for s in settings_of(ExpertBot)][:2], settings_of(object)
    (['iterations', 'time_limit'], None)
    """
    declared = getattr(factory, "SETTINGS", None)
    return tuple(declared) if declared is not None else None


def values_of(bot: object) -> dict[str, Any] | None:
    """The settings ``bot`` was made with, by name (``type(bot)(**values_of(bot))`` makes the
    same bot), those set per search left out; ``None`` when its class declares no settings or
    one of them cannot be read.
    """
    declared = settings_of(type(bot))
    if declared is None:
        return None
    try:
        return {s.name: s.value_of(bot) for s in declared if not s.per_search}
    except AttributeError:
        return None
