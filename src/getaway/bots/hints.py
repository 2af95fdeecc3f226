"""The hint: what the best available bot would do for a player's own decision, and why.

The one hint logic of every interface: the terminal's ``hint`` command
(:class:`getaway.text.terminal.TerminalGame`) and the web page's hint (:mod:`getaway.web.hints`,
searched in a bot worker process by :meth:`getaway.web.botpool.BotPool.hint`) both call
:func:`best_hint`, so a view and a seed give the same move and reason everywhere. The reason is
the bot's own English :class:`~getaway.core.messages.Reason`, translated where it is shown.

>>> import random
>>> from getaway import Deal, Rules, player_view
>>> deal = Deal(Rules.profile("punjab", players=3, takes="off"), 0, 1)
>>> view = player_view(deal, deal.to_act)
>>> action, reason, level = best_hint(view, random.Random(0))
>>> action in view.legal_actions, level
(True, 'expert')
"""

from __future__ import annotations

import random
from typing import Any, Final

from ..core.events import Action
from ..core.view import PlayerView
from . import LEVELS, make_bot

__all__ = ["HINT_LEVELS", "best_hint", "bot_hint"]

#: Levels tried for a hint, best first: the best one that exists gives the hint.
HINT_LEVELS: Final = ("expert", "hard", "medium", "easy")


def bot_hint(bot: Any, view: PlayerView, legal: list[Action], rng: random.Random) -> tuple[Action, Any]:
    """One bot's hint for ``view``: ``(action, reason)`` from its ``hint(view, legal, rng)`` when
    it has one, else its ``act`` and ``""``.

    Raises:
        Exception: whatever the bot raises.
    """
    hint = getattr(bot, "hint", None)
    if callable(hint):
        return hint(view, legal, rng)
    return bot.act(view, legal, rng), ""


def best_hint(view: PlayerView, rng: random.Random) -> tuple[Action, str, str]:
    """What the best available bot would do for ``view`` and why: ``(action, reason, level)``;
    ``reason`` is the bot's own (a :class:`~getaway.core.messages.Reason`, translated by
    :func:`getaway.text.i18n.localize` when shown) or ``""``; ``level`` the level that gave it
    (``"random"``: every level failed, the first legal action).

    Uses the bot's ``hint(view, legal, rng) -> (action, reason)`` when it has one, else its
    ``act`` with no reason; a bot that fails hands over to the next level of
    :data:`HINT_LEVELS` (a hint must never end the game).
    """
    legal = list(view.legal_actions)
    for level in [name for name in HINT_LEVELS if name in LEVELS]:
        try:
            action, reason = bot_hint(make_bot(level), view, legal, rng)
        except Exception:  # noqa: BLE001  (any bot failure: try the next level)
            continue
        if action in legal:  # the reason as the bot gave it (a Reason): translated when shown
            return legal[legal.index(action)], reason or "", level
    return legal[0], "", "random"
