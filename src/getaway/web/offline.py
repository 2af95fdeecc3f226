"""The offline table: one deal against bots, played in the page by Pyodide in a Web Worker
(static/offline/worker.js, docs/web.md "Offline").

The page runs this module, the core and the bots from a zip the server builds from its own
package files (:func:`getaway.web.routes.offline.package_zip`): one copy of the rules, the pure
Python one (the compiled engine is not shipped; :mod:`getaway.core._engine` then imports the
sources). So it imports only the standard library, the core and the bots, never the rest of
``getaway.web`` (FastAPI is not in the page); tests/test_web_offline.py checks it runs from the
zip alone.

The deal is dealt as a server room deals it (:class:`~getaway.core.match.Match`: the first dealer
cut from ``seed``, the shuffle from a secret), the bots are the server's
(:func:`getaway.bots.make_bot`, seeded as a room seeds them), the human's view is the
:func:`~getaway.core.view.player_view` dict the server sends as ``view``, and the finished deal's
record is :func:`~getaway.core.record.record_of`'s, which replays with
:func:`~getaway.core.record.deal_from_record`.

>>> table = OfflineTable(level="easy", seed=7, secret=bytes(32), name="Asha")
>>> while not table.over:
...     if table.human_to_act:
...         _ = table.play(table.view()["legal_actions"][0])
...     else:
...         _ = table.bot_step()
>>> from getaway.core.record import deal_from_record
>>> deal_from_record(table.record()).outcome == table.deal.outcome
True
"""

from __future__ import annotations

import json
import random
from typing import Any, Final

from ..bots import LEVELS, Bot, make_bot
from ..core.events import parse_action
from ..core.match import SECRET_BYTES, Match
from ..core.record import record_of
from ..core.rules import Rules
from ..core.view import player_view

__all__ = ["BOT_TIME", "HUMAN", "OfflineTable", "answer"]

#: The human's seat (the bots hold the others).
HUMAN: Final = 0

#: Seconds a searching bot (the ``expert`` kind) may think for one move in the page (a room's
#: bots get 0.6 × its bot delay: web/rooms/handles.py ``room_bot``).
BOT_TIME: Final = 1.0


class OfflineTable:
    """One deal of ``profile`` among ``players`` seats: the human at seat :data:`HUMAN`, bots of
    ``level`` elsewhere.

    Args:
        level: a bot level of :data:`getaway.bots.LEVELS` (``random`` … ``expert``).
        seed: the match seed (cuts for the first dealer, seeds the bots), an int.
        secret: at least 32 random bytes (the page's ``crypto.getRandomValues``): the shuffle's
            seed comes from it, as in a server room.
        name: the human's name (the record's); bots are named ``Bot 2`` … by seat number.
        profile: the rules profile (``punjab``).
        players: the number of seats (4).

    Raises:
        ValueError: an unknown level; a bad profile or number of players (``RulesError``); a
            secret that is too short (``MatchError``).
    """

    def __init__(
        self,
        level: str = "medium",
        seed: int = 0,
        secret: bytes = b"",
        name: str = "You",
        profile: str = "punjab",
        players: int = 4,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown bot level {level!r} (expected one of: {', '.join(LEVELS)})")
        if len(secret) < SECRET_BYTES:
            raise ValueError(f"secret: expected at least {SECRET_BYTES} bytes, got {len(secret)}")
        rules = Rules.profile(profile, players=players, deals=1)
        names = [name.strip()[:24] or "You", *(f"Bot {seat + 1}" for seat in range(1, players))]
        self.level: Final = level
        self.match: Final = Match(rules, names, seed, secret=secret)
        self.deal: Final = self.match.deal
        kind, _settings = LEVELS[level]
        self.bots: Final[dict[int, Bot]] = {
            seat: make_bot(level, time_limit=BOT_TIME) if kind == "expert" else make_bot(level)
            for seat in range(players)
            if seat != HUMAN
        }
        self.bot_rng: Final = random.Random(seed ^ 0x5EED_B075)

    @property
    def over(self) -> bool:
        """Whether the deal is finished."""
        return self.deal.is_over

    @property
    def human_to_act(self) -> bool:
        """Whether the deal waits for the human (a card, a take or pass, a pick-up)."""
        return not self.over and self.deal.to_act == HUMAN

    def view(self) -> dict[str, Any]:
        """The human's view (:meth:`PlayerView.to_dict`, history included): what the server sends
        this seat as ``view``; other hands are sizes only."""
        return player_view(self.deal, HUMAN).to_dict()

    def play(self, action: str) -> dict[str, Any]:
        """Apply the human's ``action`` (a card ``10♥``/``th``, ``take``, ``pass``, ``pickup``);
        returns the new :meth:`view`.

        Raises:
            ValueError: not the human's turn, unparsable notation (``InvalidActionError``) or not
                legal here (``IllegalActionError``, its reason set); the deal is unchanged.
        """
        if not self.human_to_act:
            raise ValueError("it is not your turn")
        self.deal.apply(parse_action(action), HUMAN)
        return self.view()

    def bot_step(self) -> dict[str, Any] | None:
        """Let the bot to act play one move; returns ``{"seat", "action", "view"}`` (the action in
        notation, the human's view after it), or ``None`` when the human is to act or the deal is over."""
        if self.over or self.deal.to_act == HUMAN:
            return None
        seat = self.deal.to_act
        assert seat is not None
        view = player_view(self.deal, seat)
        action = self.bots[seat].act(view, view.legal_actions, self.bot_rng)
        self.deal.apply(action, seat)
        return {"seat": seat, "action": str(action), "view": self.view()}

    def record(self) -> dict[str, Any]:
        """The deal's record (:func:`~getaway.core.record.record_of`, with the seat names), finished or not."""
        return record_of(self.deal, self.match.names)


_table: OfflineTable | None = None


def _state(table: OfflineTable) -> dict[str, Any]:
    return {"view": table.view(), "human_to_act": table.human_to_act, "over": table.over}


def answer(message: str) -> str:
    """Answer one message of the page's worker (JSON text in, JSON text out), for the one deal
    this interpreter holds:

    - ``{"kind": "new", "level", "seed", "secret" (hex, ≥ 32 digits), "name"}``: deal a new
      deal (punjab, 4 players); answers ``{"view", "human_to_act", "over"}``;
    - ``{"kind": "view"}``: the same, for the deal as it stands;
    - ``{"kind": "play", "action"}``: the human's move; the same answer after it;
    - ``{"kind": "bot"}``: one bot's move, ``{"seat", "action", "view", "human_to_act", "over"}``,
      or ``{"step": null, …}`` (the state) when no bot is to act;
    - ``{"kind": "record"}``: ``{"record_text": …}``, the JSON text of :meth:`OfflineTable.record`
      (text, so that its 128-bit seed is not rounded by JavaScript's numbers).

    A bad message (not JSON, an unknown kind, no deal yet) or a move that is refused answers
    ``{"error": {"code", "message"}}`` (``code`` the refusal's reason, else ``bad_message``)
    and changes nothing.

    >>> answer('{"kind": "view"}') if _table is None else None
    '{"error": {"code": "bad_message", "message": "no deal yet"}}'
    """
    global _table
    try:
        data = json.loads(message)
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        kind = data.get("kind")
        if kind == "new":
            secret = bytes.fromhex(str(data.get("secret", "")))
            table = OfflineTable(
                str(data.get("level", "medium")), int(data.get("seed", 0)), secret, str(data.get("name", ""))
            )
            _table = table
            return json.dumps(_state(table))
        if _table is None:
            raise ValueError("no deal yet")
        if kind == "view":
            return json.dumps(_state(_table))
        if kind == "play":
            _table.play(str(data.get("action", "")))
            return json.dumps(_state(_table))
        if kind == "bot":
            step = _table.bot_step()
            return json.dumps({"step": None, **_state(_table)} if step is None else {**step, **_state(_table)})
        if kind == "record":
            # as text: the seed is a 128-bit integer, which a JavaScript number would round
            return json.dumps({"record_text": json.dumps(_table.record(), ensure_ascii=False, indent=1)})
        raise ValueError(f"unknown message kind {kind!r}")
    except (ValueError, TypeError) as exc:  # JSONDecodeError, IllegalActionError, … are ValueErrors
        code = getattr(exc, "reason", None) or "bad_message"
        return json.dumps({"error": {"code": code, "message": str(exc)}})
