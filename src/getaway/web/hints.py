"""The hint in the browser (issue 15, item 6): the expert's move for a player's own decision,
with its reason in the player's language, as the terminal's ``hint`` gives it
(:func:`getaway.bots.hints.best_hint`: the expert bot within its own search budget, falling
back to the next level if it fails). With bot worker processes (``serve --bot-workers``, the
default) the search runs in one of them (:meth:`getaway.web.botpool.BotPool.hint`: behind the
bots' searches, the heuristic's hint at once when no worker is free); without, in a thread.

>>> from getaway.web.rooms import check_config
>>> hints_allowed(check_config({"hints": False})[0]), hints_allowed(check_config({})[0])
(False, True)
"""

from __future__ import annotations

import asyncio
import random
from typing import TYPE_CHECKING, Any

from ..bots.hints import best_hint
from ..core.cards import Card
from ..core.events import Action
from ..core.view import PlayerView
from ..text import i18n

if TYPE_CHECKING:
    from .botpool import BotPool

__all__ = ["hints_allowed", "hint_text", "hint_for"]


def hints_allowed(config: dict[str, Any]) -> bool:
    """Whether a room's host left hints on (room config ``"hints"``, default ``True``)."""
    return config.get("hints", True) is not False


def hint_text(action: Action, reason: str, lang: str) -> dict[str, str]:
    """A hint as the page shows it, in ``lang``: ``{"action": "7♠", "text": "Lead 7♠: …"}``: the
    bot's reason (``reason``: a :class:`~getaway.text.i18n.Reason`, or ``""``), after the move
    (``"play 7♠ (seven of spades): …"``) unless the reason names the move itself. On the
    event loop's thread: the language is process-wide (:func:`getaway.text.i18n.language`)."""
    with i18n.language(lang):
        if isinstance(action, Card):
            what = i18n._("play {card} ({name})").format(card=str(action), name=i18n.card_name(action))
        else:
            what = i18n.command_word(str(action))
        said = i18n.localize(reason) if reason else ""
        # most reasons name the move themselves ("Lead Q♥: …", "Take: …"): then it is said once
        names_it = str(action) in said if isinstance(action, Card) else said.casefold().startswith(what.casefold())
        text = said if said and names_it else f"{what}: {said}" if said else what
    return {"action": str(action), "text": text}


async def hint_for(
    view: PlayerView, seat: int, lang: str, pool: BotPool | None = None, room: str = ""
) -> dict[str, Any]:
    """The ``hint`` message for ``seat``'s own decision (``view``: its view, its turn; the
    room checks that, and that hints are on): the search runs off the event loop, in a worker
    process of ``pool`` (room ``room``'s hint) or, without a pool, in a thread; the text is made
    on the event loop, in ``lang``. The seed comes from the view (its history's length and the
    seat), so a view's hint is the same move wherever it is searched."""
    seed = len(view.history) * 7919 + seat
    if pool is not None:
        action, reason, _level = await pool.hint(room, view, seed)
    else:
        action, reason, _level = await asyncio.to_thread(best_hint, view, random.Random(seed))
    return {"type": "hint", **hint_text(action, reason, lang)}
