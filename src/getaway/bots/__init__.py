"""Bots: players that decide from a :class:`~getaway.core.view.PlayerView` only.

A bot never sees the :class:`~getaway.core.deal.Deal`: :func:`play_deal` hands it the seat's
view, its legal actions and a seeded generator, so peeking is impossible by construction.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Sequence
from typing import Protocol

from ..core.deal import Deal
from ..core.events import Action, Event
from ..core.messages import N_, Text
from ..core.view import PlayerView

__all__ = [
    "Bot",
    "RandomBot",
    "HeuristicBot",
    "ExpertBot",
    "play_deal",
    "BOTS",
    "LEVELS",
    "make_bot",
    "load_bot",
    "bot_kind",
    "LEVEL_HELP",
]


class Bot(Protocol):
    """A player: ``act(view, legal, rng)`` returns one of ``legal``.

    A bot class also declares its settings (its constructor's keywords) in a class attribute
    ``SETTINGS`` (:mod:`getaway.bots.settings`): :func:`make_bot` and the web server's bot pool
    read them. Every bot of :data:`BOTS` does; a bot of your own may (without, the pool cannot
    rebuild it in a worker process and it plays in the server's threads).
    """

    name: str

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """Choose one of ``legal`` (non-empty) for ``view.seat``; use only ``rng`` for chance."""
        ...


from ..core.knowledge import Knowledge  # noqa: E402
from ..core.view import player_view  # noqa: E402
from .expert import ExpertBot  # noqa: E402
from .heuristic import HeuristicBot  # noqa: E402
from .random import RandomBot  # noqa: E402  (the protocol above is what it implements)
from .settings import Setting, settings_of  # noqa: E402
from .styles import ISMCTS_SETTINGS, STYLES  # noqa: E402


def load_bot(path: str, **settings: object) -> Bot:
    """A bot of your own from ``"package.module:Class"`` (or a factory function), made with
    ``settings`` as keyword arguments; it must have ``act`` (the :class:`Bot` protocol).

    Raises:
        ValueError: the module cannot be imported, has no such attribute, or it is not a bot.
    """
    module, _, attr = path.partition(":")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        message = N_("bot: cannot load {path!r} ({error})")
        raise ValueError(Text(message, path=path, error=f"{type(exc).__name__}: {exc}")) from None
    try:
        bot = factory(**settings) if callable(factory) else None
    except TypeError as exc:  # not a bot's factory, or settings it does not take
        message = N_("bot: cannot make {path!r} ({error})")
        raise ValueError(Text(message, path=path, error=f"{type(exc).__name__}: {exc}")) from None
    if not callable(getattr(bot, "act", None)):
        raise ValueError(Text(N_("bot: {path!r} is not a bot (it has no act method)"), path=path))
    if not isinstance(getattr(bot, "name", None), str):
        bot.name = path
    return bot


def _plugin(path: str, settings: tuple[Setting, ...]) -> Callable[..., Bot]:
    """A factory that imports ``path`` (``module:Class``) only when a bot is made (optional
    extras), declaring the class's ``settings`` (known without importing it)."""

    def factory(**values: object) -> Bot:
        return load_bot(path, **values)

    factory.__doc__ = f"The bot {path} (imported on first use)."
    factory.SETTINGS = settings  # type: ignore[attr-defined]
    return factory


#: Bot kinds by name: a factory taking keyword settings. Other bot modules register here.
BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "expert": ExpertBot,
    **STYLES,
    "style:ismcts": _plugin("getaway.envs.ismcts:ISMCTSStyle", ISMCTS_SETTINGS),  # needs OpenSpiel
}

#: Difficulty levels for people, mapped onto bot kinds and settings (docs/bots.md).
LEVELS: dict[str, tuple[str, dict[str, object]]] = {
    "random": ("random", {}),
    "easy": ("heuristic", {"noise": 0.55}),
    "medium": ("heuristic", {"noise": 0.25}),
    "hard": ("expert", {"iterations": 1, "rollout": "light"}),
    "expert": ("expert", {}),
}


#: One line per level for people, English, each ``"<level>: <what it does>"``: the one place of
#: these texts. The terminal game prints the lines of the levels at its table; the web lobby
#: shows the chosen level's line (the page finds it among the served strings by its
#: ``"<level>: "`` start: getaway.web.strings.UI_STRINGS). Translated where shown (the levels'
#: strength figures: docs/bots.md "Levels").
LEVEL_HELP: dict[str, str] = {
    "random": N_("random: any legal move, picked at random (takes a neighbour's hand only rarely)"),
    "easy": N_("easy: the rules of thumb, but a random move about one time in two"),
    "medium": N_("medium: the rules of thumb, with a random move one time in four"),
    "hard": N_("hard: the rules of thumb, checked against one sampled deal before each move"),
    "expert": N_("expert: plays out many sampled deals before each move (the strongest, slowest)"),
}


def bot_kind(name: str) -> str | None:
    """The kind or level a bot name starts with (``"style:lead-strong:x=1"`` → ``"style:lead-strong"``,
    ``"expert:iterations=9"`` → ``"expert"``), ``"module:Class"`` for a dotted ``package.module:Class``
    path (:func:`load_bot`), or ``None`` for a name no bot has (the settings are not checked)."""
    known = [*LEVELS, *BOTS]
    if name in known:
        return name
    prefixed = [k for k in known if name.startswith(k + ":")]
    if prefixed:
        return max(prefixed, key=len)
    module, sep, attr = name.partition(":")
    if sep and "." in module and attr.isidentifier():
        return "module:Class"
    return None


def make_bot(name: str, **settings: object) -> Bot:
    """A bot from a kind (``random`` …) or a level (``easy``, ``medium``, ``hard``, ``expert``).

    Settings may also ride on the name, for command lines and tournaments:
    ``"expert:iterations=60+exact_cards=8"`` (numbers are parsed as numbers); a style's name
    has a colon of its own (``"style:lead-strong"``, ``"style:ismcts:simulations=400"``).
    A name that is no kind or level but ``package.module:Class`` loads your own bot
    (:func:`load_bot`).

    Raises:
        ValueError: unknown name (the message lists the known ones), or a bad setting.
    """
    if name in BOTS and ":" in name:
        return BOTS[name](**settings)
    if ":" in name:
        kinds = [k for k in BOTS if ":" in k and name.startswith(k + ":")]
        if kinds:
            name, spec = kinds[0], name[len(kinds[0]) + 1 :]
        else:
            name, _, spec = name.partition(":")
            if name not in BOTS and name not in LEVELS and "=" not in spec:
                return load_bot(f"{name}:{spec}", **settings)
        for item in filter(None, spec.split("+")):
            key, sep, text = item.partition("=")
            if not sep or not key:
                message = N_("bot: expected NAME=VALUE in the settings of {name!r}, got {item!r}")
                raise ValueError(Text(message, name=name, item=item))
            value: object = text
            for kind in (int, float):
                try:
                    value = kind(text)
                    break
                except ValueError:
                    continue
            settings.setdefault(key, value)
        _check_numbers(name, settings)
        try:
            return make_bot(name, **settings)
        except TypeError:
            known = [s.name for s in _settings_of(name)]
            unknown = [key for key in settings if key not in known]
            if unknown:
                message = N_("bot: {name!r} has no setting {setting!r} (settings: {known})")
                raise ValueError(Text(message, name=name, setting=unknown[0], known=", ".join(known) or "-")) from None
            raise _bad_number(name, ", ".join(f"{k}={v!r}" for k, v in settings.items())) from None
    if name in LEVELS:
        kind, defaults = LEVELS[name]
        return BOTS[kind](**{**defaults, **settings})
    if name in BOTS:
        return BOTS[name](**settings)
    known = ", ".join(dict.fromkeys([*LEVELS, *BOTS]))
    raise ValueError(Text(N_("bot: unknown bot or level {name!r} (known: {known})"), name=name, known=known))


def _check_numbers(name: str, settings: dict[str, object]) -> None:
    """Refuse a text given on a bot's name for a setting whose default is a number
    (``expert:margin=x``), before the bot is made: some settings are read only in play.

    Raises:
        ValueError: the bad setting value, named.
    """
    numbers = {s.name for s in _settings_of(name) if s.is_number}
    for key, value in settings.items():
        if isinstance(value, str) and key in numbers:
            raise _bad_number(name, f"{key}={value!r}")


def _settings_of(name: str) -> tuple[Setting, ...]:
    """The declared settings (:mod:`getaway.bots.settings`) of the bot kind behind a kind or
    level ``name``; empty for a name that is neither."""
    factory = BOTS.get(LEVELS[name][0] if name in LEVELS else name)
    return (settings_of(factory) or ()) if factory is not None else ()


def _bad_number(name: str, shown: str) -> ValueError:
    """The refusal of a bot setting that should be a number (``shown``: ``"margin='x'"``)."""
    message = N_("bot: bad setting value for {name!r} ({shown}): expected a number")
    return ValueError(Text(message, name=name, shown=shown))


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
        raise ValueError(Text(N_("bots: {k} bots for {n} seats"), k=len(bots), n=deal.players))
    knowledge = [Knowledge.of(deal, s) for s in range(deal.players)]  # followed incrementally
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None
        view = player_view(deal, seat, knowledge[seat])
        action = bots[seat].act(view, view.legal_actions, rng)
        events = deal.apply(action, seat)
        if on_events is not None:
            on_events(seat, action, events)
    return deal
