"""Rooms of the web app: :class:`Room` (pure state) and :class:`RoomService` (one writer per room).

:class:`Room` is synchronous and does no I/O and reads no clock (times are passed in): its
state is its creation (code, config, seed) plus the commands applied in order, so replaying a
room's log rebuilds it exactly (the engine is deterministic). Each command is validated before
anything changes; a bad one raises :class:`RoomError` and leaves the room as it was.

:class:`RoomService` owns the rooms of one process. Every room has one ``asyncio.Queue`` and one
worker task: HTTP joins and starts, socket messages, bots, absence and idle timers all go
through it, so one coroutine changes a room, persists the command (committed) and only then
broadcasts. What a socket receives is built only from ``player_view(deal, seat)`` and public
room facts (:meth:`Room.public`).

With a shared :class:`~getaway.web.broker.Broker` (``serve --redis-url``), many processes serve
one set of rooms: a room's worker runs in the process holding its lease (its *owner*); another
process with sockets in the room keeps a *mirror* of it (a :class:`RoomHandle` whose commands
are forwarded to the owner, and whose room catches up from the log when the owner publishes a
new version); docs/web.md "More than one process".
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import inspect
import json
import logging
import math
import random
import re
import secrets
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final

from ..bots import LEVELS, Bot, make_bot
from ..core.deal import Deal
from ..core.events import PASS, TAKE, Action, IllegalActionError, InvalidActionError, parse_action
from ..core.knowledge import Knowledge
from ..core.match import Match, MatchError
from ..core.messages import error_text
from ..core.record import record_of
from ..core.rules import Rules, RulesError
from ..core.view import PlayerView, player_view
from ..text import i18n
from ..text.i18n import N_
from ..text.narrate import Narrator
from .botpool import BotPool
from .broker import FORWARD_TIMEOUT, LEASE_MS, Broker, BrokerDown, Lease, MemoryBroker, NoOwner
from .store import NewEntry, RoomSummary, Store, StoredRoom

__all__ = [
    "Room",
    "RoomError",
    "RoomService",
    "Connection",
    "hash_token",
    "new_token",
    "new_code",
    "new_secret",
    "room_bot",
    "listing",
    "MAX_NAME",
    "STATUSES",
]

log = logging.getLogger("getaway.web")

#: Longest display name (characters).
MAX_NAME: Final = 24
#: The mark of a bot wherever a seat's name is shown (narration, the page); no human name may hold it.
BOT_MARK: Final = "\N{ROBOT FACE}"
#: Room statuses (``room.status``).
STATUSES: Final = ("lobby", "playing", "between_deals", "finished", "closed")
#: Most deals a web match may have.
MAX_DEALS: Final = 50
#: Seconds a connected human has for a turn before a bot plays it (a room's default ``turn_time``),
#: and the range a room may choose.
TURN_TIME: Final = 45
MIN_TURN_TIME: Final = 1
MAX_TURN_TIME: Final = 600
#: The moment of a take window (after a trick, as a share of the bot delay) at which bots
#: announce their takes, whatever they hold: no timing tells their thinking (docs/web.md "Takes").
TAKE_MOMENT: Final = 0.5
_CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
_OPTION_NAMES: Final = frozenset(n for n, spec in Rules.schema()["options"].items() if spec["group"] != "setup")
#: Share of the bot delay a searching bot may spend searching (``time_limit``): the rest is the
#: margin for its last sampled world to finish, so that the move is ready by its send time.
SEARCH_SHARE: Final = 0.6
#: Rooms rebuilt from their log for reads (rooms made before stored snapshots) kept in memory.
_REPLAYED_ROOMS: Final = 16
#: Snapshots and records of rooms not in memory kept for reads (each).
_READ_CACHE: Final = 512
#: Seconds a rematch room stays out of the lobby at most while its returning players are seated
#: again (each by the process their socket is on): then it is listed even if one never came.
_REMATCH_WAIT: Final = 10.0
#: Heartbeats (a third of a lease each: about a minute) after which a mirrored room without a
#: socket here is forgotten (more than a socket may wait for its hello: ``serve --hello-timeout``).
_QUIET_BEATS: Final = 90


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any, size: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


def room_bot(level: str, bot_delay: float) -> Bot:
    """The bot of a room's level; a searching one (``expert`` kind) gets ``time_limit`` =
    :data:`SEARCH_SHARE` × ``bot_delay``, so it has decided before its move is due (a move is
    sent ``bot_delay`` after the turn began, whatever the bot holds: docs/web.md)."""
    kind, _settings = LEVELS[level]
    if kind == "expert" and bot_delay > 0:
        return make_bot(level, time_limit=SEARCH_SHARE * bot_delay)
    return make_bot(level)


class RoomError(ValueError):
    """A command refused; nothing changed.

    Attributes:
        code: machine-readable (``room_full``, ``stale_version``, ``not_your_turn`` …; docs/web.md).
        template: the English message, ``N_``-marked (translated where shown: :meth:`text`).
        args: the template's arguments.
        status: the HTTP status for the HTTP API.
    """

    def __init__(self, code: str, template: str, status: int = 400, /, **args: Any) -> None:
        super().__init__(f"{code}: {template.format(**args) if args else template}")
        self.code = code
        self.template = template
        self.args_ = args
        self.status = status

    #: the engine's exception this error reports (its message is translated by :func:`i18n.localize`)
    cause: BaseException | None = None
    #: seconds after which the client may try again (a rate limit's 429: the ``Retry-After`` header)
    retry_after: int | None = None

    def text(self, lang: str) -> str:
        """The message in ``lang`` (one of :data:`getaway.text.i18n.LANGUAGES`)."""
        with i18n.language(lang):
            if self.cause is not None:
                # An engine refusal reads "reason: message"; the reason is already in ``code``.
                text = error_text(self.cause)
                inner = text.args.get("message", text) if isinstance(self.cause, IllegalActionError) else text
                players = self.args_.get("players")  # a move's refusal names seats as the page does
                return i18n.localize(inner, page_seats(players) if isinstance(players, int) else None)
            message = i18n._(self.template)
            return message.format(**self.args_) if self.args_ else message

    def message(self, lang: str, version: int | None) -> dict[str, Any]:
        """The socket's ``error`` message (docs/web.md): code, translated text, the room's version."""
        text = self.text(lang)[:400].encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate quoted
        return {"type": "error", "code": self.code, "message": text, "version": version}


def page_seat(seat: int) -> str:
    """How the page names seat ``seat`` (0-based, as in every JSON field; a seat of the room)
    in a text: counted from 1, seat 0 being "seat 1". A value that is no seat of the room is
    refused with the value as sent ("no seat 7 in this room"), not through this."""
    return str(seat + 1)


def page_seats(players: int) -> list[str]:
    """:func:`page_seat` of each seat of a room of ``players``, for the engine's texts
    (:func:`getaway.text.i18n.localize`'s ``seats``)."""
    return [page_seat(n) for n in range(players)]


class RelayedError(RoomError):
    """A :class:`RoomError` raised by the owner of a room on another process, as it came back
    (web/broker.py): its code, template and arguments, and for an engine refusal its text in
    every language (the engine's exception does not travel)."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data["code"], data["template"], data["status"], **data["args"])
        self.texts: dict[str, str] | None = data.get("texts")

    def text(self, lang: str) -> str:
        if self.texts:
            return self.texts.get(lang) or self.texts.get("en") or self.code
        return super().text(lang)

    @staticmethod
    def relay(exc: RoomError) -> dict[str, Any]:
        """What travels of ``exc`` (JSON)."""
        plain = (int, float, str, bool, type(None))
        args = {k: v if isinstance(v, plain) else str(v) for k, v in exc.args_.items()}
        data: dict[str, Any] = {"code": exc.code, "template": exc.template, "args": args, "status": exc.status}
        if exc.cause is not None or isinstance(exc, RelayedError):
            data["texts"] = {lang: exc.text(lang) for lang in i18n.LANGUAGES}
        return data


def _unsaved() -> RoomError:
    return RoomError("server_error", N_("the server could not save this; try again"), 503)


def hash_token(token: str) -> str:
    """The SHA-256 (hex) of a token: what the database keeps."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    """A fresh secret seat or host token (``secrets.token_urlsafe(32)``)."""
    return secrets.token_urlsafe(32)


def new_code() -> str:
    """A random 6-character invite code (no look-alike characters)."""
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(6))


def new_seed() -> int:
    """A fresh 63-bit match seed (``secrets``): it chooses the first dealer and seeds the bots."""
    return secrets.randbits(63)


def new_secret() -> bytes:
    """A fresh 256-bit deal secret (``secrets``): every deal's 128-bit shuffle seed comes from it
    (:func:`getaway.core.match.secret_deal_seed`); it never leaves the server."""
    return secrets.token_bytes(32)


def _same(token_hash: str | None, token: str) -> bool:
    return token_hash is not None and hmac.compare_digest(token_hash, hash_token(token))


def check_name(name: Any) -> str:
    """A display name, stripped: 1–24 printable characters.

    Raises:
        RoomError: ``bad_message`` (not a string or empty), ``name_too_long``.
    """
    if not isinstance(name, str):
        raise RoomError("bad_message", N_("the name must be text"))
    name = " ".join(name.split())
    if not name or not name.isprintable():
        raise RoomError("bad_message", N_("the name is empty or has characters that cannot be shown"))
    if len(name) > MAX_NAME:
        raise RoomError("name_too_long", N_("names have at most {n} characters"), n=MAX_NAME)
    if BOT_MARK in name:
        raise RoomError("bad_message", N_("the name may not hold {mark}: it marks the bots"), mark=BOT_MARK)
    if _BOT_NAME.fullmatch(name_key(name)):  # "Bot 3", "bot3", "ＢＯＴ ３": what the bots are called
        message = N_("{name} is what the bots are called here: choose another name")
        raise RoomError("name_reserved", message, name=name)
    return name


#: A bot's name, "Bot n" in every language of the page, as :func:`name_key` folds it.
_BOT_NAME: Final = re.compile(r"bot[0-9]+")


def name_key(name: str) -> str:
    """What two names must not share in one room: the name in Unicode NFKC form, case-folded,
    without any white space (so "Ben", "ben", " B EN" and "Ｂｅｎ" are one name).

    >>> name_key("  B En ") == name_key("ben") == name_key("Ｂｅｎ")
    True
    """
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


def check_config(data: Any) -> tuple[dict[str, Any], Rules]:
    """The room configuration of ``POST /api/rooms``, normalized, and its rules.

    ``{"profile": "punjab", "players": 4, "deals": 1, "options": {"trump": "spades"},
    "bot_level": "medium", "hints": true, "turn_time": 45}``; every key optional (defaults: punjab,
    4 players, 1 deal, medium, hints on, :data:`TURN_TIME` seconds a turn).

    Raises:
        RoomError: ``bad_message`` naming the bad field (unknown profile or option, bad value).
    """
    if not isinstance(data, dict):
        raise RoomError("bad_message", N_("expected a JSON object"))
    profile = data.get("profile", "punjab")
    players = data.get("players", 4)
    deals = data.get("deals", 1)
    options = data.get("options") or {}
    level = data.get("bot_level", "medium")
    if not isinstance(options, dict) or any(k not in _OPTION_NAMES for k in options):
        known = ", ".join(sorted(_OPTION_NAMES))
        raise RoomError("bad_message", N_("options: unknown option (known: {known})"), known=known)
    if level not in LEVELS:
        raise RoomError("bad_message", N_("bot_level: expected one of {known}"), known=", ".join(LEVELS))
    if isinstance(deals, int) and not isinstance(deals, bool) and deals > MAX_DEALS:
        raise RoomError("bad_message", N_("deals: at most {n}"), n=MAX_DEALS)
    if profile not in ("punjab", "classic"):
        raise RoomError("bad_message", N_("profile: expected punjab or classic"))
    try:
        rules = Rules.profile(profile, players=players, deals=deals, **options)
    except RulesError as exc:  # the core's refusal names the option (translated through ``cause``)
        error = RoomError("bad_message", N_("rules: {problem}"), problem=str(exc)[:200])
        error.cause = exc
        raise error from None
    except TypeError as exc:
        raise RoomError("bad_message", N_("rules: {problem}"), problem=str(exc)[:200]) from None
    config = {"profile": profile, "players": players, "deals": deals, "options": dict(options), "bot_level": level}
    hints = data.get("hints", True)
    if not isinstance(hints, bool):
        raise RoomError("bad_message", N_("hints: expected true or false"))
    if not hints:  # the host switched the hint off (web/hints.py); absent means on
        config["hints"] = False
    public = data.get("public", False)
    if not isinstance(public, bool):
        raise RoomError("bad_message", N_("public: expected true or false"))
    if public:  # listed in the lobby (GET /api/rooms?public=1); absent means private
        config["public"] = True
    turn_time = data.get("turn_time", TURN_TIME)
    if isinstance(turn_time, bool) or not isinstance(turn_time, int) or not MIN_TURN_TIME <= turn_time <= MAX_TURN_TIME:
        template = N_("turn_time: expected whole seconds from {low} to {high}")
        raise RoomError("bad_message", template, low=MIN_TURN_TIME, high=MAX_TURN_TIME)
    if turn_time != TURN_TIME:  # absent means the default (rooms made before the option)
        config["turn_time"] = turn_time
    return config, rules


def listing(room: Room) -> dict[str, Any] | None:
    """What the lobby's list (``GET /api/rooms?public=1``) shows of ``room``: ``None`` unless it
    is public, waiting in its lobby, with a free seat; else ``{"code", "url", "profile",
    "players", "deals", "options", "bot_level", "free", "seats": [{"seat", "name", "kind"}]}``
    (``kind`` ``human``/``bot``/``empty``). Only public room facts: no token, hash, seed or hand."""
    if not room.config.get("public") or room.status != "lobby":
        return None
    free = sum(1 for s in room.seats if s.kind == "empty")
    if free == 0:
        return None
    config = room.config
    return {
        "code": room.code,
        "url": f"/r/{room.code}",
        "profile": config["profile"],
        "players": config["players"],
        "deals": config["deals"],
        "options": dict(config["options"]),
        "bot_level": config["bot_level"],
        "free": free,
        "seats": [{"seat": i, "name": s.name, "kind": s.kind} for i, s in enumerate(room.seats)],
    }


def live_config(data: Any) -> dict[str, Any]:
    """The configuration a new room is created with: :func:`check_config`'s, with punjab's
    takes offered by the ``interject`` protocol (R-P-TAKE) unless the creator chose a
    protocol: a player who never takes is never asked (docs/web.md "Takes"). Stored with the
    room, so that rooms made before (with ``poll``) replay as they were played.

    Raises:
        RoomError: as :func:`check_config`.
    """
    config, rules = check_config(data)
    if rules.take_protocol == "poll" and "take_protocol" not in config["options"]:
        config["options"]["take_protocol"] = "interject"
        config, rules = check_config(config)
    return config


@dataclass
class Seat:
    """One seat of a room: ``kind`` (``human``, ``bot``, ``empty``), its player's name, whether
    it is the host's, whether a bot plays it for an absent human, and its token's hash."""

    kind: str = "empty"
    name: str = ""
    host: bool = False
    bot_playing: bool = False
    token_hash: str | None = field(default=None, repr=False)

    @property
    def bot_controlled(self) -> bool:
        """Whether a bot decides for this seat now."""
        return self.kind == "bot" or self.bot_playing


class Room:
    """One room: seats, the match once started, the version (= commands applied).

    Args:
        code: the invite code.
        config: as returned by :func:`check_config`.
        seed: the match seed (server-side only): the first dealer.
        host_hash: SHA-256 of the host token.
        created: creation time (Unix seconds).
        secret: the deal secret (server-side only; :func:`new_secret`): each deal's shuffle
            seed. ``None`` only for rooms made before it existed (deal seeds from ``seed``).

    Commands (:meth:`apply`; each raises :class:`RoomError` and changes nothing if refused):
    ``join {seat, name, token_hash, host}``, ``start {}``, ``act {seat, action, bot}``,
    ``absent {seat}``, ``reclaim {seat}``, ``next_deal {}``, ``close {reason}``, and once the
    match is over ``rematch {code, host}`` (the rematch room made: :meth:`RoomService.rematch`).
    """

    def __init__(
        self,
        code: str,
        config: dict[str, Any],
        seed: int,
        host_hash: str,
        created: float,
        secret: bytes | None = None,
    ) -> None:
        self.code = code
        self.config, self.rules = check_config(config)
        self.seed = seed
        self.secret = secret
        self.host_hash = host_hash
        self.created = created
        self.updated = created
        self.seats = [Seat() for _ in range(self.rules.players)]
        self.match: Match | None = None
        self.status = "lobby"
        self.version = 0
        #: the rematch room made for this finished match (``rematch``): ``{"code", "host"}``
        #: (``host``: the seat that is host there, ``None`` when it is this room's seat-less host)
        self.rematch: dict[str, Any] | None = None
        self._standings: tuple[tuple[int, bool], list[dict[str, Any]]] | None = None
        self._history: tuple[tuple[int, bool, str], dict[str, Any]] | None = None
        self._records: dict[int, dict[str, Any]] = {}  # finished deals' records, made once
        #: replaying a stored log: commands accepted then are not checked again against policies
        #: added since (unique names), only against the rules
        self.replaying = False
        # each viewer's Knowledge of the current deal, followed from one view to the next
        self._knowledge: tuple[Deal | None, dict[int | None, Knowledge]] = (None, {})

    # ------------------------------------------------------------------ reading

    @property
    def level(self) -> str:
        """The bots' level (``easy`` … ``expert``)."""
        return self.config["bot_level"]

    @property
    def deal_index(self) -> int | None:
        """0-based index of the current deal, or ``None`` before the start."""
        return None if self.match is None else len(self.match.deals) - 1

    def seat_of(self, token: str) -> int | None:
        """The seat whose token is ``token`` (constant-time comparisons), or ``None``."""
        found = None
        for i, seat in enumerate(self.seats):
            if _same(seat.token_hash, token):
                found = i
        return found

    def is_host_token(self, token: str) -> bool:
        """Whether ``token`` is the host token or the host's seat token."""
        if _same(self.host_hash, token):
            return True
        seat = self.seat_of(token)
        return seat is not None and self.seats[seat].host

    def view(self, seat: int | None) -> PlayerView | None:
        """What ``seat`` (``None``: a spectator) may see of the current deal; ``None`` before the start."""
        if self.match is None:
            return None
        deal = self.match.deal
        of, known = self._knowledge
        if of is not deal:
            known = {}
            self._knowledge = (deal, known)
        knowledge = known.get(seat)
        if knowledge is None:
            knowledge = known[seat] = Knowledge.of(deal, seat)
        return player_view(deal, seat, knowledge)

    def illegal(self, seat: int | None) -> dict[str, IllegalActionError]:
        """Why each card of ``seat``'s hand that it may not play now is not legal: the engine's
        reason (:meth:`~getaway.core.deal.Deal.why_illegal`), which reads only that hand and
        public facts, so that it is sent to that seat alone; ``{}`` for a spectator or when no
        deal is being played. Keys are card names (``"10♥"``)."""
        if seat is None or self.status != "playing" or self.match is None or self.match.deal.is_over:
            return {}
        deal = self.match.deal
        reasons = {str(card): deal.why_illegal(card, seat) for card in deal.hand(seat)}
        return {card: why for card, why in reasons.items() if why is not None}

    def to_act(self) -> int | None:
        """The seat whose decision it is, while a deal is being played."""
        if self.status != "playing" or self.match is None:
            return None
        return self.match.deal.to_act

    @property
    def turn_time(self) -> int:
        """Seconds a connected human has for a turn before a bot plays it (the room's option)."""
        return int(self.config.get("turn_time", TURN_TIME))

    def take_window(self) -> bool:
        """Whether the deal is between tricks under the ``interject`` protocol, when any active
        player may announce a take before the lead card (R-P-TAKE)."""
        if self.status != "playing" or self.match is None or self.rules.take_protocol != "interject":
            return False
        deal = self.match.deal
        return not deal.is_over and deal.decision == "play" and not deal.trick

    def takers(self) -> list[int]:
        """The seats that may take now, besides the seat to act (``[]`` outside a take window)."""
        if not self.take_window():
            return []
        assert self.match is not None
        deal = self.match.deal
        return [s for s in range(self.rules.players) if s != deal.to_act and deal.legal_actions(s)]

    def humans_to_act(self) -> list[int]:
        """The human seats still in the current deal (not got away) that a human plays (not a
        bot for an absent one): while there is none, the deal may be finished at once."""
        if self.status != "playing" or self.match is None:
            return []
        out = self.match.deal.got_away_mask
        return [i for i, s in enumerate(self.seats) if s.kind == "human" and not s.bot_playing and not out >> i & 1]

    def public(self, connected: set[int] | frozenset[int] = frozenset()) -> dict[str, Any]:
        """The public room state (docs/web.md): code, status, config, seats, deal index,
        standings, version. ``connected``: seats with an open socket (a runtime fact)."""
        seats = [
            {
                "seat": i,
                "name": s.name,
                "kind": s.kind,
                "connected": i in connected,
                "bot_playing": s.bot_playing,
                "host": s.host,
            }
            for i, s in enumerate(self.seats)
        ]
        return {
            "code": self.code,
            "status": self.status,
            "config": self.config,
            "seats": seats,
            "deal_index": self.deal_index,
            "deals": self.rules.deals,
            "standings": self.standings(),
            "version": self.version,
        }

    def standings(self) -> list[dict[str, Any]]:
        """The match table (``Match.standings()`` as dicts); worked out again only when a deal
        ends, since it changes only then (it is in every broadcast)."""
        if self.match is None:
            return []
        key = (len(self.match.deals), self.match.deal.is_over)
        if self._standings is None or self._standings[0] != key:
            self._standings = (key, [vars(s) for s in self.match.standings()])
        return self._standings[1]

    def history(self) -> dict[str, Any]:
        """The match history: finished deals (dealer, loser, out order, termination, points)
        and the standings. Unfinished deals are not listed. Worked out again only when a deal
        ends or the status changes."""
        key = (0 if self.match is None else len(self.match.deals), self.deal_over, self.status)
        if self._history is None or self._history[0] != key:
            self._history = (key, self._make_history())
        return self._history[1]

    @property
    def deal_over(self) -> bool:
        """Whether the current deal is over (``False`` before the start)."""
        return self.match is not None and self.match.deal.is_over

    def _make_history(self) -> dict[str, Any]:
        deals = []
        if self.match is not None:
            for i, deal in enumerate(self.match.deals):
                outcome = deal.outcome
                if outcome is None:
                    continue
                deals.append(
                    {
                        "index": i,
                        "dealer": deal.dealer,
                        "loser": outcome.loser,
                        "termination": outcome.termination,
                        "out_order": [list(g) for g in outcome.out_order],
                        "points": list(self.match.deal_points(i)),
                    }
                )
        return {
            "code": self.code,
            "status": self.status,
            "names": self.names(),
            "deals": deals,
            "standings": self.standings(),
        }

    def record(self, index: int) -> dict[str, Any]:
        """The engine's record (``getaway/1``) of finished deal ``index`` (0-based).

        Raises:
            RoomError: ``not_found`` (no such deal, 404), ``not_over`` (409).
        """
        if self.match is None or not 0 <= index < len(self.match.deals):
            raise RoomError("not_found", N_("no deal {index} in this room"), 404, index=index)
        deal = self.match.deals[index]
        if not deal.is_over:
            raise RoomError("not_over", N_("deal {index} is not over"), 409, index=index)
        if index not in self._records:
            self._records[index] = record_of(deal, self.names())
        return self._records[index]

    def snapshot(self) -> dict[str, Any]:
        """What the read routes serve for a room that is not in memory: ``{"public", "history"}``
        (nobody connected). Stored when a deal ends and when the room closes."""
        return {"public": self.public(), "history": self.history()}

    def names(self) -> list[str]:
        """The seat names of records, standings and the history: a bot seat is :data:`BOT_MARK`
        and ``Bot n`` (by seat), which no human name can be (:func:`check_name`)."""
        return [
            f"{BOT_MARK} Bot {i + 1}" if s.kind == "bot" else s.name or f"Bot {i + 1}" for i, s in enumerate(self.seats)
        ]

    def shown_names(self) -> list[str]:
        """The seat names as narration shows them, in the current language: a bot seat is
        :data:`BOT_MARK` and "Bot n", which no human name can be (:func:`check_name`)."""
        return [
            f"{BOT_MARK} {i18n._('Bot {n}').format(n=i + 1)}" if s.kind == "bot" else s.name or f"Bot {i + 1}"
            for i, s in enumerate(self.seats)
        ]

    def check_version(self, version: Any) -> None:
        """Refuse an action made on another version than the room's.

        Raises:
            RoomError: ``stale_version``; ``bad_message`` when ``version`` is not a whole number.
        """
        if isinstance(version, bool) or not isinstance(version, int):
            raise RoomError("bad_message", N_("version: expected a whole number"))
        if version != self.version:
            raise RoomError("stale_version", N_("the game has moved on: look again and retry"))

    # ------------------------------------------------------------------ commands

    def apply(self, kind: str, payload: dict[str, Any], now: float) -> dict[str, Any]:
        """Validate and apply one command; returns the payload to log (normalized).

        Raises:
            RoomError: refused (``room_closed``, ``already_started``, ``room_full``,
                ``seat_taken``, ``not_started``, ``bad_message``, an engine reason such as
                ``not_your_turn`` …); the room is unchanged.
        """
        if self.status == "closed":
            raise RoomError("room_closed", N_("this room is closed"), 410)
        handler = getattr(self, f"_cmd_{kind}", None)
        if handler is None:
            raise RoomError("unknown_type", N_("unknown command {kind!r}"), kind=kind)
        logged = handler(payload)
        self.version += 1
        self.updated = now
        return logged

    def _cmd_join(self, p: dict[str, Any]) -> dict[str, Any]:
        if self.status != "lobby":
            raise RoomError("already_started", N_("the match has started"), 409)
        name = check_name(p.get("name"))
        if not self.replaying and any(s.kind == "human" and name_key(s.name) == name_key(name) for s in self.seats):
            raise RoomError("name_taken", N_("someone in this room is already called {name}"), 409, name=name)
        seat = p.get("seat")
        if seat is None:
            seat = next((i for i, s in enumerate(self.seats) if s.kind == "empty"), None)
            if seat is None:
                raise RoomError("room_full", N_("every seat is taken"), 409)
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise RoomError("bad_message", N_("no seat {seat} in this room"), seat=seat)
        elif self.seats[seat].kind != "empty":
            raise RoomError("seat_taken", N_("seat {seat} is taken"), 409, seat=page_seat(seat))
        token_hash = p.get("token_hash")
        if not isinstance(token_hash, str):
            raise RoomError("bad_message", N_("no token"))
        host = bool(p.get("host", False))
        self.seats[seat] = Seat("human", name, host, False, token_hash)
        return {"seat": seat, "name": name, "token_hash": token_hash, "host": host}

    def _cmd_start(self, p: dict[str, Any]) -> dict[str, Any]:
        if self.status != "lobby":
            raise RoomError("already_started", N_("the match has started"), 409)
        for seat in self.seats:
            if seat.kind == "empty":
                seat.kind = "bot"
        self.match = Match(self.rules, self.names(), self.seed, secret=self.secret)
        self.status = "playing"
        self._after_move()
        return {}

    def _cmd_act(self, p: dict[str, Any]) -> dict[str, Any]:
        if self.match is None or self.status == "lobby":
            raise RoomError("not_started", N_("the match has not started"), 409)
        seat = p.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise RoomError("bad_message", N_("no seat {seat} in this room"), seat=seat)
        by_bot = bool(p.get("bot", False))
        if by_bot != self.seats[seat].bot_controlled:
            raise RoomError("not_your_turn", N_("a bot is playing this seat") if not by_bot else N_("not a bot's seat"))
        try:
            action = parse_action(p.get("action"))
        except (InvalidActionError, TypeError):
            shown = repr(str(p.get("action"))[:40])  # quoted, a newline or a control character escaped
            raise RoomError("bad_message", N_("not an action: {action}"), action=shown) from None
        if self.status != "playing":
            raise RoomError("deal_over", N_("the deal is over"), 409)
        try:
            self.match.deal.apply(action, seat)
        except IllegalActionError as exc:
            error = RoomError(exc.reason, N_("{problem}"), problem=str(exc), players=self.rules.players)
            error.cause = exc
            raise error from None
        self._after_move()
        return {"seat": seat, "action": str(action), "bot": by_bot}

    def _after_move(self) -> None:
        assert self.match is not None
        if self.match.deal.is_over:
            self.status = "finished" if self.match.finished else "between_deals"

    def _cmd_absent(self, p: dict[str, Any]) -> dict[str, Any]:
        seat = self._human_seat(p)
        if self.status not in ("playing", "between_deals"):
            raise RoomError("not_started", N_("the match has not started"), 409)
        if self.seats[seat].bot_playing:
            raise RoomError("bad_message", N_("a bot already plays seat {seat}"), seat=page_seat(seat))
        self.seats[seat].bot_playing = True
        return {"seat": seat}

    def _cmd_reclaim(self, p: dict[str, Any]) -> dict[str, Any]:
        seat = self._human_seat(p)
        if not self.seats[seat].bot_playing:
            raise RoomError("bad_message", N_("seat {seat} is not played by a bot"), seat=page_seat(seat))
        self.seats[seat].bot_playing = False
        return {"seat": seat}

    def _human_seat(self, p: dict[str, Any]) -> int:
        seat = p.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise RoomError("bad_message", N_("no seat {seat} in this room"), seat=seat)
        if self.seats[seat].kind != "human":
            raise RoomError("bad_message", N_("seat {seat} is not a player's"), seat=page_seat(seat))
        return seat

    def _cmd_next_deal(self, p: dict[str, Any]) -> dict[str, Any]:
        if self.status != "between_deals" or self.match is None:
            code = "not_started" if self.status == "lobby" else "bad_message"
            raise RoomError(code, N_("no next deal to start now"), 409)
        try:
            self.match.next_deal()
        except MatchError as exc:  # pragma: no cover - status says it cannot happen
            raise RoomError("bad_message", N_("{problem}"), 409, problem=str(exc)) from None
        self.status = "playing"
        return {}

    def check_rematch(self) -> None:
        """Refuse a rematch now.

        Raises:
            RoomError: ``not_finished`` (409: the match is not over), ``rematch_made`` (409: a
                rematch room was already made), ``room_closed`` (410).
        """
        if self.status == "closed":
            raise RoomError("room_closed", N_("this room is closed"), 410)
        if self.status != "finished":
            raise RoomError("not_finished", N_("the match is not over"), 409)
        if self.rematch is not None:
            raise RoomError("rematch_made", N_("a rematch room was already made"), 409)

    def _cmd_rematch(self, p: dict[str, Any]) -> dict[str, Any]:
        self.check_rematch()
        code, host = p.get("code"), p.get("host")
        if not isinstance(code, str) or not code:
            raise RoomError("bad_message", N_("no room {code}"), code=str(code)[:16])
        seats = range(len(self.seats))
        if host is not None and (isinstance(host, bool) or not isinstance(host, int) or host not in seats):
            raise RoomError("bad_message", N_("no seat {seat} in this room"), seat=host)
        self.rematch = {"code": code, "host": host}
        return dict(self.rematch)

    def _cmd_close(self, p: dict[str, Any]) -> dict[str, Any]:
        self.status = "closed"
        return {"reason": str(p.get("reason", "idle"))}

    # ------------------------------------------------------------------ event sourcing

    @classmethod
    def restore(cls, stored: StoredRoom) -> Room:
        """Rebuild a room from its stored creation row and log (replaying every command).

        Raises:
            RoomError: a log entry that no longer applies (a corrupt log).
        """
        room = cls(stored.code, stored.config, stored.seed, stored.host_hash, stored.created, stored.secret)
        room.replaying = True
        for entry in stored.log:
            if entry.version != room.version + 1:
                raise RoomError("corrupt_log", N_("room log: version {v} out of order"), 500, v=entry.version)
            room.apply(entry.kind, entry.payload, entry.time)
        room.replaying = False
        return room


# ====================================================================== the service


class RateLimiter:
    """A token bucket: ``rate`` messages per second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.clock = clock
        self.stamp = clock()

    def full(self) -> bool:
        """Whether the bucket has refilled (its owner may be forgotten)."""
        return self.tokens + (self.clock() - self.stamp) * self.rate >= self.burst

    def allow(self) -> bool:
        """Take one token; ``False`` when the bucket is empty (drop the message)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


#: The WebSocket close code of a draining process's sockets (1012 "service restart", RFC 6455
#: and IANA's registry; uvicorn closes with it too when it shuts down): the page reconnects at once,
#: showing no error (static/net.js), and the front sends it to another process.
RESTART_CLOSE: Final = 1012


def draining_error() -> RoomError:
    """The refusal of a draining process (503 ``draining``, ``Retry-After: 1``): nothing was done,
    another process may be asked the same."""
    error = RoomError("draining", N_("the server is restarting: try again in a moment"), 503)
    error.retry_after = 1
    return error


class Connection:
    """One socket of a room: the seat its ``hello`` proved (``None``: spectator), whether it
    may act as host, its language, and what it has been told (to send only new events)."""

    OUTBOX: Final = 512

    def __init__(self, seat: int | None, host: bool, lang: str, address: str = "?") -> None:
        self.seat = seat
        self.host = host
        self.lang = lang
        self.address = address  # the client's address (who started a room played by bots alone)
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(self.OUTBOX)
        self.deal_index: int | None = None
        self.seen = 0  # events of the current deal's redacted history already sent
        self.narrator: Narrator | None = None
        self.closed = False
        self.close_code = 1000  # the WebSocket close code its writer closes with (1012: reconnect elsewhere)
        #: a seat-less host's own host token, kept in memory only for this socket's rematch message
        #: (the rematch room keeps that host token: :meth:`RoomService._come_along`)
        self.host_token: str | None = None

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message for the socket's writer (a slow socket that falls far behind is closed)."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
        except asyncio.QueueFull:
            self.close()

    def close(self, code: int = 1000) -> None:
        """Ask the socket's writer to close the socket, with WebSocket close ``code`` (1000:
        normal; :data:`RESTART_CLOSE`: the page reconnects at once)."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        while True:
            try:
                self.outbox.put_nowait(None)
                return
            except asyncio.QueueFull:
                self.outbox.get_nowait()

    def error(self, exc: RoomError, version: int) -> None:
        """Send an ``error`` message (translated) for a refused command."""
        self.send(exc.message(self.lang, version))


@dataclass
class _Job:
    """An item of a room's queue: a command to apply (``kind``, ``payload``), or a callable
    run by the worker (``call``); ``future`` gets the result or the :class:`RoomError`."""

    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    call: Callable[[], Any] | None = None
    future: asyncio.Future[Any] | None = None
    version: int | None = None  # for acts: the version the sender saw
    address: str | None = None  # for starts: the client's address


class RoomHandle:
    """The runtime side of one room: its queue, worker, sockets and timers."""

    def __init__(self, room: Room, bot: Bot | None = None) -> None:
        self.room = room
        self.queue: asyncio.Queue[_Job] = asyncio.Queue()
        self.conns: set[Connection] = set()
        self.worker: asyncio.Task[None] | None = None
        self.timers: dict[int, asyncio.Task[None]] = {}
        self.deadlines: dict[int, float] = {}
        self.bot_task: asyncio.Task[None] | None = None
        self.bot_key: tuple[int, int] | None = None  # (version, seat) the planned bot move is for
        self.next_task: asyncio.Task[None] | None = None
        self.bot_rng = random.Random(room.seed ^ 0x5EED_B075)
        self.bot: Bot = bot if bot is not None else make_bot(room.level)
        self.search: asyncio.Future[Any] | None = None  # the bot search running in a thread
        # the last hint asked ((version, seat, language), its answer or the search for it)
        self.hint: tuple[tuple[int, int, str], asyncio.Future[dict[str, Any]]] | None = None
        self.address = f"restored:{room.code}"  # who started the room (set by the start)
        self.slot = False  # holds one of the slots of rooms played by bots alone
        self.paused = False  # played by bots alone and no slot free: bots wait
        self.asking = False  # shared: the cluster is asked for a slot (:meth:`RoomService._ask_slot`)
        self.unlisted = False  # a rematch room while its players are seated: not in the public list yet
        self.awaited: set[int] = set()  # a rematch room's returning seats (listed once all are taken)
        self.came: set[str] = set()  # a finished room: the rematch room this process moved its sockets to
        self.moved: set[int] = set()  # … and the seats it moved (one socket each)
        self.take_bot: Bot = self.bot if LEVELS.get(room.level, ("",))[0] == "random" else make_bot("medium")
        self.takes_key: int | None = None  # the version whose take window bots have decided on
        self.take_tasks: list[asyncio.Task[None]] = []  # the bots' takes planned for it
        self.window: tuple[int, float] | None = None  # (version, timer) a take window opened at
        self.turn_task: asyncio.Task[None] | None = None  # a human's turn timer
        self.turn_key: tuple[int, int] | None = None  # (version, seat) it runs for
        self.turn_deadline: float | None = None  # its end (:attr:`RoomService.timer`)
        self.fast: int | None = None  # the deal index being finished at once (no human left to act)
        # A room shared by many processes (web/broker.py): the lease while this process owns it;
        # ``mirror`` while another does (commands are forwarded, the room follows the log).
        self.lease: Lease | None = None
        self.mirror = False
        self.remote: dict[str, tuple[frozenset[int], float]] = {}  # owner: seats on other processes, when told
        self.hosting: set[str] = set()  # owner: the processes of ``remote`` with a seat-less host's socket
        self.reported: frozenset[int] = frozenset()  # mirror: the seats the owner says are connected
        self.taken: Lease | None = None  # mirror: a lease the heartbeat took, for the worker to promote with
        self.listed: str | None = None  # owner: its entry in the cluster's lobby, as last put there
        self.quiet = 0  # mirror: heartbeats since it last had a socket here (forgotten after _QUIET_BEATS)

    def local_seats(self) -> set[int]:
        """Seats with an open socket on this process."""
        return {c.seat for c in self.conns if c.seat is not None and not c.closed}

    def connected(self) -> set[int]:
        """Seats with at least one open socket (on any process of a cluster)."""
        seats = self.local_seats() | self.reported
        for remote, _when in self.remote.values():
            seats |= remote
        return seats


class RoomService:
    """Every room of this process, one writer (queue + worker task) per room.

    Args:
        store: the database.
        bot_delay: seconds from the start of a bot's turn to its move, whatever it holds (0 in
            tests and benchmarks); a searching bot's time limit is set below it.
        grace: seconds a human may stay disconnected before a bot plays for them.
        idle: seconds without any command after which a room is closed.
        clock: the wall clock (Unix seconds; injectable for tests).
        bot_rooms_per_address: rooms played by bots alone (every seat a bot's, or every human
            away) that one client address may have running at once.
        max_bot_rooms: rooms played by bots alone running at once on this server (with a shared
            ``broker``, both limits count the whole cluster's rooms: its slots). A bot-only
            room's start beyond either limit is refused (``too_many_bot_rooms``); a room that
            becomes played by bots alone (its humans away) beyond them waits until a slot frees.
        timer, sleep: the monotonic clock and the sleep of bot moves (injectable for tests).
        bot_workers: worker processes the searching bots search in (:class:`~getaway.web.botpool.BotPool`:
            fair across rooms, the fallback move when no search can be had in time); 0: threads
            of this process, as the other bots.
        broker: the processes' :class:`~getaway.web.broker.Broker` (``None``: this process alone,
            every room its own).

    Bots search at most one search at a time per room; in threads, the rooms played by bots
    alone share one thread (in worker processes, one worker). Call :meth:`start` inside the
    running event loop, :meth:`drain` when the process is asked to stop (SIGTERM), :meth:`stop`
    at shutdown.
    """

    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = 0.7,
        grace: float = 60.0,
        idle: float = 7200.0,
        clock: Callable[[], float] = time.time,
        bot_rooms_per_address: int = 2,
        max_bot_rooms: int = 4,
        timer: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        bot_workers: int = 0,
        broker: Broker | None = None,
    ) -> None:
        self.store = store
        self.broker: Broker = broker if broker is not None else MemoryBroker()
        self.shared = self.broker.shared  # many processes share the rooms
        self._heart: asyncio.Task[None] | None = None  # leases renewed, mirrors' presence told
        self._slots: set[tuple[str, str, str]] = set()  # the cluster's slots held here (renewed)
        #: What the heartbeat did (:meth:`_heartbeat`): ``renewals`` (calls renewing this
        #: process's leases), ``lost`` (leases found gone), ``late`` (beats more than a period
        #: late) and ``worst_late_ms``.
        self.heartbeat: dict[str, int] = {"renewals": 0, "lost": 0, "late": 0, "worst_late_ms": 0}
        self._tasks: set[asyncio.Task[Any]] = set()  # background calls to the broker
        self.handing_over = False  # draining (:meth:`hand_over`): this process takes no lease any more
        self.bot_delay = bot_delay
        self.grace = grace
        self.idle = idle
        self.clock = clock
        self.bot_rooms_per_address = bot_rooms_per_address
        self.max_bot_rooms = max_bot_rooms
        self.timer = timer
        self.sleep = sleep
        self.rooms: dict[str, RoomHandle] = {}
        self._db = ThreadPoolExecutor(1 if store.url.startswith("sqlite") else 4, thread_name_prefix="getaway-db")
        self._reader = ThreadPoolExecutor(2, thread_name_prefix="getaway-read")  # reads, off the writer's thread
        # Rooms with a person playing: enough threads that no search waits for another (a search's
        # time limit is wall-clock time, so searches that share the cores just sample fewer worlds).
        self._bots = ThreadPoolExecutor(64, thread_name_prefix="getaway-bot")
        self._bots_alone = ThreadPoolExecutor(1, thread_name_prefix="getaway-bot-alone")  # rooms of bots alone
        self.botpool = BotPool(bot_workers, timer=timer) if bot_workers > 0 else None
        self._replayed: OrderedDict[str, Room] = OrderedDict()  # reads of rooms without a fresh snapshot
        # Reads of rooms not in memory, kept: such a room changes only once it is opened again
        # (then reads come from memory, and forgetting it drops these).
        self._snapshots: OrderedDict[str, tuple[RoomSummary, dict[str, Any]]] = OrderedDict()
        self._records: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self._sweeper: asyncio.Task[None] | None = None
        self._loading: dict[str, asyncio.Future[RoomHandle | None]] = {}
        self._pending: list[tuple[NewEntry, asyncio.Future[None]]] = []  # log entries to commit
        self._writer: asyncio.Task[None] | None = None  # the task committing them
        self.started = False  # start() has rebuilt the unfinished rooms
        self.draining = False  # drain() has begun: no new rooms, commands or sockets
        #: Awaited in order by :meth:`drain` once every room's worker has stopped and its log
        #: entries are committed, before the sockets are closed (e.g. a cluster releasing its leases).
        self.on_drain: list[Callable[[], Awaitable[None]]] = []

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Start the bot workers, rebuild every unfinished room from its log and start the idle
        sweeper. Shared: only the unfinished rooms nobody owns (their lease free), taken here; the
        others are opened (as mirrors) when asked."""
        if self.botpool is not None:
            await self.botpool.start()
        if self.shared:
            await self._start_shared()
            self.started = True
            return
        stored = await self._in_db(self.store.unfinished)
        for s in stored:
            try:
                room = Room.restore(s)
            except Exception:  # a corrupt room must not stop the server
                log.exception("room %s: cannot rebuild from its log", s.code)
                continue
            handle = self._open(room)
            if room.status != "lobby" and not any(seat.kind == "human" for seat in room.seats):
                # A started bot-only room: nobody can be watching it now; it is not resumed.
                handle.queue.put_nowait(_Job("close", {"reason": "restart"}))
                continue
            self._resume(handle)
        self._sweeper = asyncio.create_task(self._sweep())
        self.started = True

    async def drain(self, timeout: float = 10.0) -> None:
        """Hand this process's rooms over before it stops (SIGTERM; docs/web.md, "Behind a front").

        From the first call on, new rooms, commands and sockets are refused (``draining``, 503:
        nothing was done, the client may retry on another process). Bots and timers stop; each
        room's worker finishes the commands already queued (their log entries committed) and
        stops (shared: its lease released, so another process takes the room over at its next
        command or heartbeat); then the :attr:`on_drain` callbacks run, in order (one that fails is logged, the
        next still runs); then every socket is closed with :data:`RESTART_CLOSE` (its page
        reconnects at once, to another process through the front, which rebuilds the room from
        the log). Rooms are forgotten here: reads come from the database. A second call returns
        at once.

        Args:
            timeout: seconds to wait for the rooms' queued commands (then their workers are
                cancelled: an entry not yet committed was never acknowledged).
        """
        if self.draining:
            return
        self.draining = True
        self.handing_over = True  # shared: the heartbeat takes no lease any more
        if self._sweeper is not None:
            self._sweeper.cancel()
        handles = list(self.rooms.values())
        for handle in handles:
            for task in (handle.bot_task, handle.next_task, handle.turn_task, *handle.take_tasks):
                if task is not None:
                    task.cancel()
            for task in handle.timers.values():
                task.cancel()
        done: list[asyncio.Future[Any]] = []
        for handle in handles:  # last in each queue: nothing can be queued once draining (submit)
            if handle.worker is not None and not handle.worker.done():
                future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
                handle.queue.put_nowait(_Job("drain", call=lambda: None, future=future))
                done.append(future)
        if done:
            await asyncio.wait(done, timeout=timeout)
        for handle in handles:
            if handle.worker is not None:
                handle.worker.cancel()
                with contextlib.suppress(BaseException):
                    await handle.worker
            self._forget(handle)
        if self._writer is not None:  # entries still being written (a cancelled worker's)
            with contextlib.suppress(BaseException):
                await self._writer
        if self._tasks:  # shared: the leases given up by _forget (the others take the rooms over)
            await asyncio.wait(set(self._tasks), timeout=timeout)
        for callback in self.on_drain:
            try:
                await callback()
            except Exception:
                log.exception("drain: %r failed", callback)
        for handle in handles:
            for conn in list(handle.conns):
                conn.close(RESTART_CLOSE)
        log.info("drained %d rooms", len(handles))

    def report(self) -> dict[str, Any]:
        """What an operator reads of this process now (``GET /stats``: the fields of
        :class:`~getaway.web.protocol.Stats`): ``draining``, counts of ``rooms``, the ``bots``
        workers (:meth:`BotPool.report`; ``None``: threads) and the lease ``heartbeat`` (``None``:
        alone). Counts only: no room code, address, seat or card."""
        handles = list(self.rooms.values())
        rooms = {
            "open": len(handles),
            "owned": sum(1 for h in handles if not h.mirror),
            "mirrored": sum(1 for h in handles if h.mirror),
            "bots_alone": sum(1 for h in handles if h.slot),
            "paused": sum(1 for h in handles if h.paused),
        }
        bots = self.botpool.report() if self.botpool is not None else None
        heartbeat = dict(self.heartbeat) if self.shared else None
        return {"draining": self.draining, "rooms": rooms, "bots": bots, "heartbeat": heartbeat}

    def _refuse_if_draining(self) -> None:
        if self.draining:
            raise draining_error()

    async def stop(self) -> None:
        """Cancel every worker and timer, close every socket (shared: give the leases up)."""
        tasks: list[asyncio.Task[Any]] = []
        if self.shared:
            if self._heart is not None:
                self._heart.cancel()
            for handle in list(self.rooms.values()):
                if handle.lease is not None:
                    with contextlib.suppress(BrokerDown):
                        await self.broker.release(handle.lease)
            await self.broker.stop()
        for task in (self._sweeper, self._writer):  # a batch already in the thread is still written
            if task is not None:
                tasks.append(task)
        for handle in self.rooms.values():
            for conn in list(handle.conns):
                conn.close()
            tasks.extend(t for t in (handle.worker, handle.bot_task, handle.next_task) if t is not None)
            tasks.extend(handle.timers.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self.rooms.clear()
        for pool in (self._bots, self._bots_alone, self._reader):
            pool.shutdown(wait=False, cancel_futures=True)
        if self.botpool is not None:
            await self.botpool.stop()
        self._db.shutdown(wait=True)

    async def _in_db(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._db, lambda: fn(*args, **kwargs))

    async def _write(self, entry: NewEntry) -> None:
        """Append ``entry`` to the log and return once it is committed (group commit: the
        entries of every room that arrive while a batch is being written go in the next batch,
        one transaction; bench/web_load.py).

        Raises:
            Exception: the database refused this entry.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((entry, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())
        await future

    async def _write_pending(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                results = await self._in_db(self.store.append_many, [entry for entry, _ in batch])
            except Exception as exc:  # the thread itself failed: every entry of the batch failed
                results = [exc] * len(batch)
            for (_, future), error in zip(batch, results, strict=True):
                if future.done():  # its worker was cancelled (shutdown)
                    continue
                if error is None:
                    future.set_result(None)
                else:
                    future.set_exception(error)

    def _open(self, room: Room, lease: Lease | None = None) -> RoomHandle:
        """A handle for ``room`` with its worker. Shared, the worker's first job claims the room
        (:meth:`_claim`: its owner with ``lease`` or a lease taken now, else a mirror)."""
        self._drop_reads(room.code)
        handle = RoomHandle(room, room_bot(room.level, self.bot_delay))
        if self.shared:
            handle.mirror = True  # until claimed: nothing runs here, commands wait for the claim
            handle.queue.put_nowait(_Job("claim", call=lambda: self._claim(handle, lease)))
        handle.worker = asyncio.create_task(self._work(handle), name=f"room-{room.code}")
        self.rooms[room.code] = handle
        return handle

    def _resume(self, handle: RoomHandle) -> None:
        """Go on with a room rebuilt from its log (at the start, or opened after the process
        that had it drained): its humans' absence timers (none has a socket here yet) and its bots."""
        for seat in self._humans(handle.room):
            self._start_absence(handle, seat, announce=False)
        self._schedule(handle)

    @staticmethod
    def _humans(room: Room) -> list[int]:
        return [i for i, s in enumerate(room.seats) if s.kind == "human" and not s.bot_playing]

    # ------------------------------------------------------------------ rooms

    async def create(self, config: Any, name: Any = None) -> dict[str, Any]:
        """Create a room; with ``name``, its creator sits at seat 0 as host.

        Returns:
            ``{"code", "url", "host_token", "seat", "token"}`` (``seat``/``token`` ``None`` without a name).

        Raises:
            RoomError: ``bad_message`` (bad config), ``name_too_long``.
        """
        self._refuse_if_draining()
        config = live_config(config)
        if name is not None:
            name = check_name(name)
        host_token = new_token()
        handle = await self._new_room(config, hash_token(host_token))
        code = handle.room.code
        answer: dict[str, Any] = {"code": code, "url": f"/r/{code}", "host_token": host_token}
        answer.update(seat=None, token=None)
        if name is not None:
            joined = await self.join(code, name, 0, host=True)
            answer.update(joined)
        self._schedule(handle)
        return answer

    async def _new_room(self, config: dict[str, Any], host_hash: str) -> RoomHandle:
        """Store and open a new room of (checked) ``config`` whose host token hashes to
        ``host_hash``, with a fresh code, seed and deal secret.

        Raises:
            RoomError: ``draining`` (503), ``server_error`` (no free code).
        """
        seed = new_seed()
        secret = new_secret()
        now = self.clock()
        for _ in range(20):
            code = new_code()
            if code not in self.rooms and await self._in_db(
                self.store.create_room, code, config, seed=seed, host_hash=host_hash, now=now, secret=secret
            ):
                break
        else:  # pragma: no cover - 32**6 codes
            raise RoomError("server_error", N_("no free room code"), 503)
        self._refuse_if_draining()  # began while the room was stored: it opens on another process
        return self._open(Room(code, config, seed, host_hash, now, secret))

    async def handle(self, code: str) -> RoomHandle:
        """The live room ``code``, loading it from the database if needed.

        Raises:
            RoomError: ``room_not_found`` (404), ``room_closed`` (410), ``draining`` (503).
        """
        self._refuse_if_draining()
        code = str(code).upper()
        handle = self.rooms.get(code)
        if handle is not None:
            return handle
        room = await self.load(code)
        if room.status == "closed":
            raise RoomError("room_closed", N_("this room is closed"), 410)
        self._refuse_if_draining()  # began while the room was read
        handle = self.rooms.get(code)  # loaded meanwhile by another request
        if handle is None:  # not open here: a room another process drained (or a rematch's)
            handle = self._open(room)
            self._resume(handle)
        return handle

    async def load(self, code: str) -> Room:
        """Room ``code`` as stored (live if open here, else rebuilt from the database; read-only use).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        code = str(code).upper()
        handle = self.rooms.get(code)
        if handle is not None:
            return handle.room
        if len(code) > 16 or not (code.isascii() and code.isalnum()):  # no query for what no code can be
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code[:16])
        stored = await self._in_db(self.store.load_room, code)
        if stored is None:
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code)
        return Room.restore(stored)

    async def submit(self, handle: RoomHandle, job: _Job) -> Any:
        """Queue ``job`` on the room's worker and wait for its result.

        Raises:
            RoomError: the command was refused (nothing changed); ``draining`` (503).
        """
        self._refuse_if_draining()
        if handle.worker is None or handle.worker.done():
            raise RoomError("room_closed", N_("this room is closed"), 410)
        job.future = asyncio.get_running_loop().create_future()
        handle.queue.put_nowait(job)
        return await job.future

    async def join(self, code: str, name: Any, seat: Any = None, *, host: bool = False) -> dict[str, Any]:
        """Sit a player in room ``code`` (``seat`` ``None``: the first empty one).

        Returns:
            ``{"seat", "token"}``.

        Raises:
            RoomError: ``room_not_found``, ``already_started``, ``room_full``, ``seat_taken``,
                ``name_too_long``, ``bad_message``.
        """
        handle = await self.handle(code)
        token = new_token()
        payload = {"seat": seat, "name": name, "token_hash": hash_token(token), "host": host}
        logged = await self.submit(handle, _Job("join", payload))
        return {"seat": logged["seat"], "token": token}

    async def start_match(self, code: str, token: str, address: str = "?") -> dict[str, Any]:
        """The host starts the match (HTTP) from client ``address``. Returns the public room state.

        Raises:
            RoomError: ``room_not_found``, ``not_host`` (403), ``already_started``,
                ``too_many_bot_rooms`` (429: a bot-only room beyond the limits).
        """
        handle = await self.handle(code)
        if not handle.room.is_host_token(token):
            raise RoomError("not_host", N_("only the host can do this"), 403)
        await self.submit(handle, _Job("start", address=address))
        return handle.room.public(handle.connected())

    async def close_room(self, code: str, token: str) -> dict[str, Any]:
        """The host closes the room (HTTP): sockets get ``closed``, bots stop, and the room
        never resumes (its history and records stay readable). Returns the public room state.

        Raises:
            RoomError: ``room_not_found``, ``room_closed`` (410), ``not_host`` (403).
        """
        handle = await self.handle(code)
        if not handle.room.is_host_token(token):
            raise RoomError("not_host", N_("only the host can do this"), 403)
        await self.submit(handle, _Job("close", {"reason": "host"}))
        return handle.room.public()

    # ------------------------------------------------------------------ the lobby: public rooms, quick play, rematch

    def public_rooms(self, limit: int = 50) -> list[dict[str, Any]]:
        """The public rooms waiting in their lobby with a free seat (:func:`listing`), oldest
        first, at most ``limit``. Every unfinished room is in memory (:meth:`start` rebuilds
        them), so this reads no database."""
        rooms = sorted((h.room for h in self.rooms.values() if not h.unlisted), key=lambda r: (r.created, r.code))
        found = [entry for entry in map(listing, rooms) if entry is not None]
        return found[:limit]

    async def lobby(self, limit: int = 50) -> list[dict[str, Any]]:
        """:meth:`public_rooms`, of the whole cluster when many processes share the rooms (each
        owner keeps its rooms' entries in the broker: :meth:`_list`); this process's own while
        the broker cannot be reached."""
        if not self.shared:
            return self.public_rooms(limit)
        try:
            entries = [json.loads(text) for text in await self.broker.lobby()]
        except BrokerDown:
            return self.public_rooms(limit)
        entries.sort(key=lambda e: (e["created"], e["entry"]["code"]))
        return [e["entry"] for e in entries][:limit]

    def _list(self, handle: RoomHandle) -> None:
        """The owner puts the room in the cluster's lobby, or takes it out, when that changed."""
        entry = None if handle.unlisted else listing(handle.room)
        text = None if entry is None else json.dumps({"entry": entry, "created": handle.room.created})
        if text != handle.listed:
            handle.listed = text
            self._background(self._put_listing(handle.room.code, text))

    async def _put_listing(self, code: str, text: str | None) -> None:
        with contextlib.suppress(BrokerDown):
            await self.broker.list_room(code, text)

    async def quick_play(self, name: Any) -> dict[str, Any]:
        """Seat ``name`` in a public room waiting with a free seat (the fullest first, then the
        oldest), or, when none will take it, create a public room (default options, empty seats
        played by bots at the start) with ``name`` as host.

        Returns:
            ``{"code", "url", "seat", "token", "host_token", "created"}`` (``host_token``
            ``None`` when joining someone's room).

        Raises:
            RoomError: ``name_too_long``, ``bad_message`` (a bad name).
        """
        name = check_name(name)
        waiting = sorted(await self.lobby(), key=lambda r: r["free"])  # stable: the oldest first among equals
        for entry in waiting:
            try:
                joined = await self.join(entry["code"], name)
            except RoomError:  # filled, started or closed meanwhile, or the name is taken there
                continue
            return {"code": entry["code"], "url": entry["url"], "host_token": None, "created": False, **joined}
        created = await self.create({"public": True}, name)
        return {**created, "created": True}

    async def rematch(self, handle: RoomHandle, conn: Connection) -> None:
        """A new room for a finished match, asked on socket ``conn`` (a seated human, or the
        host): the same configuration, every connected human in the same seat (the host stays
        host, else the one who asked), bot seats left to bots (and the seats of humans gone).
        Each human's socket gets a ``rematch`` message with its own new seat token only (the
        host's also with a host token); nothing else is sent.

        The room is made by the finished room's owner (a mirror's ask is forwarded to it like
        any command) and logged there as its ``rematch`` command, so it is made once in the
        whole cluster; every process that applies that entry (the owner, each mirror catching
        up, a new owner rebuilding the room) moves its own sockets (:meth:`_come_along`).

        Raises:
            RoomError: ``not_finished`` (409: the match is not over), ``spectator`` (neither a
                seat nor the host), ``rematch_made`` (409: already made; the asker is moved to
                that room if their socket was not, since tokens are never kept), ``server_error``.
        """
        if handle.room.status != "finished":
            raise RoomError("not_finished", N_("the match is not over"), 409)
        if conn.seat is None and not conn.host:
            raise RoomError("spectator", N_("spectators cannot play"))
        try:
            await self.submit(handle, _Job("rematch", {"seat": conn.seat, "host": conn.host}))
        except RoomError as exc:
            if exc.code == "rematch_made" and handle.room.rematch is not None:
                await self._come_along(handle, [conn])
            raise

    async def _make_rematch(self, handle: RoomHandle, asker: dict[str, Any]) -> dict[str, Any]:
        """The owner makes the rematch room of finished ``handle`` asked by ``asker`` (``{"seat",
        "host"}`` of the asking socket, on any process) and returns the ``rematch`` command's
        payload ``{"code", "host"}`` (run by the room's worker, before the command is logged).

        Who is there is the owner's: the seats connected on any process (and the asker's). The
        host stays host: a seated host's seat is host there (its new seat token is its host
        token); a seat-less host keeps this room's host token (its socket holds it); with the
        host gone, the asker's seat. The new room is left out of the lobby until those seats are
        taken again (or :data:`_REMATCH_WAIT` has passed).

        Raises:
            RoomError: ``not_finished``, ``rematch_made``, ``server_error``.
        """
        room = handle.room
        room.check_rematch()
        seat = asker.get("seat")
        present = handle.connected() | ({seat} if isinstance(seat, int) else set())
        back = {i for i in present if 0 <= i < len(room.seats) and room.seats[i].kind == "human"}
        hosts = sorted(i for i in back if room.seats[i].host)
        if hosts:
            host: int | None = hosts[0]
        elif (seat is None and asker.get("host")) or self._seatless_host(handle):
            host = None
        else:
            host = seat if seat in back else None
        host_hash = room.host_hash if host is None else hash_token(new_token())  # a seat's token hosts it
        new = await self._new_room(dict(room.config), host_hash)
        new.unlisted, new.awaited = True, back  # a stranger's quick play must not take a returning seat

        listed = _Job("listed", call=lambda: self._seated_again(new, force=True))
        asyncio.get_running_loop().call_later(_REMATCH_WAIT, new.queue.put_nowait, listed)
        return {"code": new.room.code, "host": host}

    def _seated_again(self, handle: RoomHandle, *, force: bool = False) -> None:
        """A rematch room is listed once its returning seats are taken (or ``force``)."""
        if not handle.unlisted:
            return
        if force or all(handle.room.seats[i].kind != "empty" for i in handle.awaited):
            handle.unlisted = False
            if handle.lease is not None:
                self._list(handle)  # in the cluster's lobby now

    def _seatless_host(self, handle: RoomHandle) -> bool:
        """Whether the room's host has a socket without a seat here or on another process."""
        if any(c.host and c.seat is None and not c.closed for c in handle.conns):
            return True
        return any(p in handle.remote for p in handle.hosting)

    def _rematch_made(self, handle: RoomHandle) -> None:
        """This process applied the finished room's ``rematch``: its sockets come along."""
        made = handle.room.rematch
        if made is not None and made["code"] not in handle.came:
            handle.came.add(made["code"])
            self._background(self._come_along(handle, list(handle.conns)))

    async def _come_along(self, handle: RoomHandle, conns: list[Connection]) -> None:
        """Sit the humans of sockets ``conns`` (this process's) of finished room ``handle`` in
        its rematch room (:attr:`Room.rematch`), each in their seat (joined with a token made
        here: only its hash leaves this process), and send each its own ``rematch`` message; a
        seat-less host's socket gets the host token it said hello with (the rematch room keeps
        it). A seat moved already from this process, or taken there (from another process), or
        a room closed or started meanwhile: nothing is sent to that socket."""
        room = handle.room
        made = room.rematch
        assert made is not None
        code, host = made["code"], made["host"]
        url = f"/r/{code}"
        seated: dict[int, Connection] = {}
        for c in conns:
            if not c.closed and c.seat is not None and room.seats[c.seat].kind == "human":
                seated.setdefault(c.seat, c)
        for seat, c in sorted(seated.items()):
            if seat in handle.moved:
                continue
            handle.moved.add(seat)
            try:
                joined = await self.join(code, room.seats[seat].name, seat, host=seat == host)
            except RoomError:
                continue
            own = joined["token"] if seat == host else None  # a host seat's token is a host token
            c.send({"type": "rematch", "code": code, "url": url, **joined, "host_token": own})
        if host is not None:
            return
        for c in conns:
            if c.seat is None and c.host and c.host_token is not None and not c.closed:
                token, c.host_token = c.host_token, None  # told once
                c.send({"type": "rematch", "code": code, "url": url, "seat": None, "token": None, "host_token": token})

    # ------------------------------------------------------------------ reads (HTTP)

    async def _in_reader(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._reader, lambda: fn(*args))

    async def _summary(self, code: str) -> tuple[RoomSummary, dict[str, Any]]:
        """A room that is not in memory: its stored row and its ``{"public", "history"}`` from
        the stored snapshot (one row read), or, if the snapshot is missing or older than the
        room, from a replay of its log (kept: :data:`_REPLAYED_ROOMS`).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        if len(code) > 16 or not (code.isascii() and code.isalnum()):  # no query for what no code can be
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code[:16])
        known = self._snapshots.get(code)
        if known is not None:
            self._snapshots.move_to_end(code)
            return known
        summary = await self._in_reader(self.store.read_room, code)
        if summary is None:
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code)
        snap = summary.snapshot
        if snap is None or snap["public"]["version"] != summary.version:
            snap = (await self._replay(code, summary.version)).snapshot()
        if code not in self.rooms:  # not opened meanwhile
            _remember(self._snapshots, code, (summary, snap), _READ_CACHE)
        return summary, snap

    async def _replay(self, code: str, version: int) -> Room:
        room = self._replayed.get(code)
        if room is None or room.version != version:
            stored = await self._in_reader(self.store.load_room, code)
            if stored is None:
                raise RoomError("room_not_found", N_("no room {code}"), 404, code=code)
            room = await self._in_reader(Room.restore, stored)
            self._replayed[code] = room
            while len(self._replayed) > _REPLAYED_ROOMS:
                self._replayed.popitem(last=False)
        self._replayed.move_to_end(code)
        return room

    async def read_public(self, code: str) -> dict[str, Any]:
        """``GET /api/rooms/{code}``: the public room state (from memory, else the snapshot).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        code = str(code).upper()
        handle = self.rooms.get(code)
        if handle is not None:
            return handle.room.public(handle.connected())
        return (await self._summary(code))[1]["public"]

    async def read_history(self, code: str) -> dict[str, Any]:
        """``GET /api/rooms/{code}/history`` (from memory, else the snapshot).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        code = str(code).upper()
        handle = self.rooms.get(code)
        if handle is not None:
            return handle.room.history()
        return (await self._summary(code))[1]["history"]

    async def read_record(self, code: str, index: int) -> dict[str, Any]:
        """``GET /api/rooms/{code}/deals/{index}/record``: the record stored when the deal ended
        (one row read; a live room's from memory).

        Raises:
            RoomError: ``room_not_found``, ``not_found`` (no such deal, 404), ``not_over`` (409).
        """
        code = str(code).upper()
        handle = self.rooms.get(code)
        if handle is not None:
            return handle.room.record(index)
        summary, snap = await self._summary(code)
        record = self._records.get((code, index))
        if record is None:
            record = await self._in_reader(self.store.read_record, code, index)
        if record is not None:
            if code not in self.rooms:
                _remember(self._records, (code, index), record, _READ_CACHE)
            return record
        finished = {d["index"] for d in snap["history"]["deals"]}
        started = snap["public"]["deal_index"]
        if started is None or not 0 <= index <= started:
            raise RoomError("not_found", N_("no deal {index} in this room"), 404, index=index)
        if index not in finished:
            raise RoomError("not_over", N_("deal {index} is not over"), 409, index=index)
        return (await self._replay(code, summary.version)).record(index)  # a room from before stored records

    async def read_rules(self, code: str) -> Rules:
        """The rules of room ``code`` (``GET /api/rules/{lang}?code=``).

        Raises:
            RoomError: ``room_not_found`` (404).
        """
        code = str(code).upper()
        handle = self.rooms.get(code)
        if handle is not None:
            return handle.room.rules
        if len(code) > 16 or not (code.isascii() and code.isalnum()):  # no query for what no code can be
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code[:16])
        summary = await self._in_reader(self.store.read_room, code)
        if summary is None:
            raise RoomError("room_not_found", N_("no room {code}"), 404, code=code)
        return check_config(summary.config)[1]

    # ------------------------------------------------------------------ sockets

    async def attach(self, handle: RoomHandle, hello: dict[str, Any], address: str = "?") -> Connection:
        """Register a socket (of client ``address``) after its ``hello``; sends it ``welcome``.

        Raises:
            RoomError: ``bad_token`` (a token that is neither a seat's nor the host's),
                ``bad_message`` (bad language or neither token nor spectate).
        """
        if handle.mirror:  # a seat joined on another process a moment ago must be known here
            await self.submit(handle, _Job("catch_up", call=lambda: self._catch_up(handle)))
        return await self.submit(handle, _Job("hello", call=lambda: self._hello(handle, hello, address)))

    def _hello(self, handle: RoomHandle, hello: dict[str, Any], address: str = "?") -> Connection:
        room = handle.room
        lang = _lang(hello.get("lang", "en"))
        token = hello.get("token")
        seat: int | None = None
        host = False
        if token is not None:
            if not isinstance(token, str) or len(token) > 200:
                raise RoomError("bad_token", N_("unknown token"), 403)
            seat = room.seat_of(token)
            host = room.is_host_token(token)
            if seat is None and not host:
                raise RoomError("bad_token", N_("unknown token"), 403)
        elif hello.get("spectate") is not True:
            raise RoomError("bad_message", N_("hello needs a token or spectate: true"))
        conn = Connection(seat, host, lang, address)
        if host and seat is None:
            conn.host_token = token
        handle.conns.add(conn)
        if handle.mirror:  # the owner hears of the seat (presence), reclaims it, and tells everyone
            conn.send(self._full(handle, conn, "welcome"))
            self._tell_presence(handle)
            return conn
        if seat is not None:
            timer = handle.timers.pop(seat, None)
            if timer is not None:
                timer.cancel()
            handle.deadlines.pop(seat, None)
            self._plan_turn_timer(handle)
        conn.send(self._full(handle, conn, "welcome"))
        if seat is not None and room.seats[seat].bot_playing and room.status != "closed":
            handle.queue.put_nowait(_Job("reclaim", {"seat": seat}))
        else:
            self._broadcast(handle, skip=conn)  # "connected" changed
        return conn

    async def detach(self, handle: RoomHandle, conn: Connection) -> None:
        """Forget a closed socket; the seat's last socket gone starts its absence timer."""
        conn.close()

        def gone() -> None:
            handle.conns.discard(conn)
            if handle.mirror:
                self._tell_presence(handle)
                return
            seat = conn.seat
            if seat is not None and seat not in handle.connected():
                if self._start_absence(handle, seat, announce=True):
                    return
                self._broadcast(handle)

        handle.queue.put_nowait(_Job("gone", call=gone))

    async def message(self, handle: RoomHandle, conn: Connection, msg: dict[str, Any]) -> None:
        """Handle one checked client message of an attached socket (``act``, ``start``,
        ``next``, ``lang``, ``ping``); errors go back to that socket only."""
        kind = msg["type"]
        room = handle.room
        if kind == "ping":
            conn.send({"type": "pong"})
            return
        if kind == "lang":
            handle.queue.put_nowait(_Job("lang", call=lambda: self._relang(handle, conn, msg.get("lang"))))
            return
        if kind == "hint":
            await self._hint(handle, conn)
            return
        if kind in ("act", "back", "finish") and conn.seat is None:
            conn.error(RoomError("spectator", N_("spectators cannot play")), room.version)
            return
        if kind == "finish":
            try:
                await self.submit(handle, _Job("finish"))
            except RoomError as exc:
                conn.error(exc, room.version)
            return
        if kind == "back" or (kind == "act" and room.seats[conn.seat].bot_playing):
            if room.seats[conn.seat].bot_playing:  # away (timed out): acting again brings them back
                with contextlib.suppress(RoomError):
                    await self.submit(handle, _Job("reclaim", {"seat": conn.seat}))
            return
        if kind == "act":
            payload = {"seat": conn.seat, "action": msg.get("action"), "bot": False}
            job = _Job("act", payload, version=msg.get("version"))
            await self._hold_lead(handle, msg)
        elif kind in ("start", "next"):
            if not conn.host:
                conn.error(RoomError("not_host", N_("only the host can do this"), 403), room.version)
                return
            job = _Job("start" if kind == "start" else "next_deal", address=conn.address)
        else:
            conn.error(RoomError("unknown_type", N_("unknown message type")), room.version)
            return
        try:
            await self.submit(handle, job)
        except RoomError as exc:
            conn.error(exc, room.version)

    async def _hold_lead(self, handle: RoomHandle, msg: dict[str, Any]) -> None:
        """Hold a human's move made in a take window (a lead; a take is never held) until the
        window has lasted the bot delay, as a bot's lead would: whoever leads, the others have
        the same time to take (docs/web.md "Takes"). A take made meanwhile moves the room on,
        and the held move is then refused as stale."""
        window = handle.window
        if window is None or window[0] != handle.room.version or msg.get("action") == "take":
            return
        wait = window[1] + self.bot_delay - self.timer()
        if wait > 0:
            await self.sleep(wait)

    def _finish(self, handle: RoomHandle) -> None:
        """``finish``: bots play the rest of the deal without their delay, once no human is left
        to act in it (:meth:`Room.humans_to_act`).

        Raises:
            RoomError: ``not_now`` (a human still has to act).
        """
        room = handle.room
        if room.status != "playing" or room.humans_to_act():
            raise RoomError("not_now", N_("a player still has to act in this deal"))
        handle.fast = room.deal_index
        if handle.bot_task is not None:
            handle.bot_task.cancel()
        handle.bot_task, handle.bot_key, handle.takes_key = None, None, None
        self._schedule(handle)

    def _fast(self, handle: RoomHandle) -> bool:
        """Whether bots play the current deal without their delay (it is being finished)."""
        return handle.fast is not None and handle.fast == handle.room.deal_index

    async def _hint(self, handle: RoomHandle, conn: Connection) -> None:
        """Answer a ``hint`` (web/hints.py: searched in a bot worker process when there is a
        :attr:`botpool`, else in a thread) to this socket only; nothing is broadcast, and
        nothing of it is logged but a fallback's room and seat."""
        from .hints import hint_for, hints_allowed

        room = handle.room
        version = room.version
        view = room.view(conn.seat)
        if not hints_allowed(room.config):
            error = RoomError("hints_off", N_("the host switched hints off for this room"))
        elif conn.seat is None:
            error = RoomError("spectator", N_("spectators cannot play"))
        elif view is None or view.outcome is not None or view.to_act != conn.seat or not view.legal_actions:
            error = RoomError("not_your_turn", N_("a hint is for your own decision: it is not your turn"))
        else:
            # One search per decision: asked again (or by a flood of asks), the same answer comes
            # from the room's last hint, or from the search still running for it.
            key = (version, conn.seat, conn.lang)
            if handle.hint is None or handle.hint[0] != key:
                handle.hint = (
                    key,
                    asyncio.ensure_future(hint_for(view, conn.seat, conn.lang, self.botpool, room.code)),
                )
            hint = await asyncio.shield(handle.hint[1])
            conn.send({**hint, "version": version})
            return
        conn.error(error, version)

    def _relang(self, handle: RoomHandle, conn: Connection, lang: Any) -> None:
        try:
            conn.lang = _lang(lang)
        except RoomError as exc:
            conn.error(exc, handle.room.version)
            return
        conn.narrator = None
        conn.send(self._full(handle, conn, "sync"))

    # ------------------------------------------------------------------ the worker

    async def _work(self, handle: RoomHandle) -> None:
        while True:
            job = await handle.queue.get()
            try:
                result = await self._run(handle, job)
            except RoomError as exc:
                if job.future is not None and not job.future.done():
                    job.future.set_exception(exc)
            except Exception as exc:  # never let one bad job kill the room
                log.exception("room %s: %s failed", handle.room.code, job.kind)
                if job.future is not None and not job.future.done():
                    job.future.set_exception(RoomError("server_error", N_("internal error"), 500))
                del exc
            else:
                if job.future is not None and not job.future.done():
                    job.future.set_result(result)
            if handle.room.status == "closed" and handle.queue.empty():
                self._forget(handle)
                return

    async def _run(self, handle: RoomHandle, job: _Job) -> Any:
        room = handle.room
        if job.call is not None:
            result = job.call()
            return await result if inspect.isawaitable(result) else result
        if handle.mirror:  # another process owns the room
            return await self._forward(handle, job)
        if job.kind == "finish":
            return self._finish(handle)
        if job.kind == "act":
            if room.status == "closed":
                raise RoomError("room_closed", N_("this room is closed"), 410)
            room.check_version(job.version)
        if handle.lease is not None and not await self._fenced(handle):
            return await self._forward(handle, job)  # the lease was lost: to the new owner
        if job.kind == "start" and room.status == "lobby":
            await self._start_bot_only(handle, job.address)
        if job.kind == "rematch":
            job.payload = await self._make_rematch(handle, job.payload)
        before = room.version
        now = self.clock()
        try:
            logged = room.apply(job.kind, job.payload, now)
        except RoomError:
            if job.kind == "start":
                self._free_slot(handle)
            raise
        seat_hash = (logged["seat"], logged["token_hash"]) if job.kind == "join" else None
        record = None
        if job.kind == "act" and room.deal_over:  # this move ended the deal: its record, stored once
            index = room.deal_index
            assert index is not None
            record = (index, room.record(index))
        snapshot = room.snapshot() if room.status in ("between_deals", "finished", "closed") else None
        entry = NewEntry(room.code, room.version, job.kind, logged, now, room.status, seat_hash, record, snapshot)
        try:
            await self._write(entry)
        except Exception:
            # Not persisted: go back to what the database holds (the log is the truth).
            log.exception("room %s: cannot write version %d", room.code, before + 1)
            stored = await self._in_db(self.store.load_room, room.code)
            handle.room = Room.restore(stored)
            made = self.rooms.get(logged["code"]) if job.kind == "rematch" else None
            if made is not None:  # a rematch room never announced: nobody will come
                made.queue.put_nowait(_Job("close", {"reason": "idle"}))
            raise RoomError("server_error", N_("the server could not save this; try again"), 503) from None
        self._after_command(handle, job.kind, logged)
        return logged

    def _after_command(self, handle: RoomHandle, kind: str, logged: dict[str, Any]) -> None:
        room = handle.room
        if kind == "close":
            self._publish(handle)
            for conn in list(handle.conns):
                conn.send({"type": "closed", "reason": logged["reason"]})
                conn.close()
            self._free_slot(handle)
            return
        if kind == "start":
            connected = handle.connected()
            for seat in self._humans(room):
                if seat not in connected:
                    self._start_absence(handle, seat, announce=True)
        elif kind == "join" and handle.unlisted:
            self._seated_again(handle)
        elif kind == "rematch":
            self._rematch_made(handle)
        self._schedule(handle)  # first: the turn timer's deadline is in the broadcast
        self._broadcast(handle)

    def _forget(self, handle: RoomHandle) -> None:
        for task in (handle.bot_task, handle.next_task, handle.turn_task, *handle.take_tasks, *handle.timers.values()):
            if task is not None:
                task.cancel()
        self._free_slot(handle)
        if self.rooms.get(handle.room.code) is handle:
            del self.rooms[handle.room.code]
        self._drop_reads(handle.room.code)
        if self.shared:
            self._background(self._let_go(handle))

    def _drop_reads(self, code: str) -> None:
        """Forget what reads kept of room ``code`` (it is opened, or changed)."""
        self._snapshots.pop(code, None)
        self._replayed.pop(code, None)
        for key in [k for k in self._records if k[0] == code]:
            del self._records[key]

    # ------------------------------------------------------------------ messages

    def _full(self, handle: RoomHandle, conn: Connection, kind: str) -> dict[str, Any]:
        """``welcome`` / ``sync``: the whole state as ``conn`` may see it, narration of this deal."""
        room = handle.room
        view = room.view(conn.seat)
        conn.deal_index = room.deal_index
        conn.narrator = None
        lines: list[str] = []
        if view is not None:
            lines = self._narrate(room, conn, view, 0)
        return {
            "type": kind,
            "seat": conn.seat,
            "host": conn.host,
            "room": room.public(handle.connected()),
            "view": None if view is None else view.to_dict(),
            "illegal": self._illegal(room, conn, room.illegal(conn.seat)),
            "version": room.version,
            "log": lines,
            "turn_ends_in": self._turn_left(handle),
        }

    def _turn_left(self, handle: RoomHandle) -> float | None:
        """Seconds left of the turn timer of the human to act (public: whose turn it is is), or ``None``."""
        if handle.turn_deadline is None or handle.turn_key != (handle.room.version, handle.room.to_act()):
            return None
        return round(max(0.0, handle.turn_deadline - self.timer()), 3)

    @staticmethod
    def _illegal(room: Room, conn: Connection, reasons: dict[str, IllegalActionError]) -> list[dict[str, Any]]:
        """``illegal`` of a message: for each card of the hand that may not be played now,
        ``{"card", "reason": the engine's code, "text": its message in the connection's
        language}``, seats counted from 1 as the page shows them."""
        if not reasons:
            return []
        labels = page_seats(room.rules.players)
        with i18n.language(conn.lang):
            return [
                {"card": card, "reason": why.reason, "text": i18n.localize(why.params["message"], labels)}
                for card, why in reasons.items()
            ]

    def _narrate(self, room: Room, conn: Connection, view: PlayerView, start: int) -> list[str]:
        new = view.history[start:]
        conn.seen = len(view.history)
        with i18n.language(conn.lang):
            if conn.narrator is None:
                conn.narrator = Narrator(room.shown_names(), room.rules.special_first_trick)
            return conn.narrator.feed(new)

    def _broadcast(self, handle: RoomHandle, skip: Connection | None = None) -> None:
        """Send every socket of the room an ``update`` built from its own seat's view (the owner
        of a shared room also tells the other processes: :meth:`_publish`)."""
        room = handle.room
        self._publish(handle)
        if not any(not c.closed and c is not skip for c in handle.conns):
            return  # nobody to tell (a bot-only room): skip building views
        public = room.public(handle.connected())
        views: dict[int | None, tuple[PlayerView | None, dict[str, Any] | None]] = {}
        reasons: dict[int | None, dict[str, IllegalActionError]] = {}
        for conn in list(handle.conns):
            if conn is skip or conn.closed:
                continue
            if conn.seat not in views:
                view = room.view(conn.seat)
                views[conn.seat] = (view, None if view is None else view.to_dict(history=False))
                reasons[conn.seat] = room.illegal(conn.seat)
            view, view_dict = views[conn.seat]
            events: list[dict[str, Any]] = []
            lines: list[str] = []
            if view is not None:
                if conn.deal_index != room.deal_index:  # a new deal: its history starts afresh
                    conn.deal_index = room.deal_index
                    conn.narrator = None
                    conn.seen = 0
                start = conn.seen
                events = [e.to_dict() for e in view.history[start:]]
                lines = self._narrate(room, conn, view, start)
            conn.send(
                {
                    "type": "update",
                    "version": room.version,
                    "room": public,
                    "view": view_dict,
                    "illegal": self._illegal(room, conn, reasons[conn.seat]),
                    "events": events,
                    "history_length": 0 if view is None else len(view.history),
                    "log": lines,
                    "turn_ends_in": self._turn_left(handle),
                }
            )

    # ------------------------------------------------------------------ bots and timers

    def _schedule(self, handle: RoomHandle) -> None:
        """Start a bot's move if a bot is to act (cancelling one planned for an older version),
        or the next deal of a room without a host to press "next" (a bot-only room, or an
        absent host). Called by the worker after every command. A room played by bots alone
        runs only while it holds a slot (:meth:`_take_slot`); otherwise it waits, paused (with
        many processes, while the cluster is asked for one too). A mirror plans nothing (its
        owner does)."""
        if handle.mirror:
            return
        room = handle.room
        if self._bots_alone_play(room):
            if not handle.slot and not self._take_slot(handle):
                if not handle.paused and not handle.asking:
                    log.info("room %s: played by bots alone and no slot free: paused", room.code)
                handle.paused = handle.paused or not handle.asking
                if handle.bot_task is not None:
                    handle.bot_task.cancel()
                handle.bot_task, handle.bot_key = None, None
                return
        elif handle.slot:
            self._free_slot(handle)
        handle.paused = False
        seat = room.to_act()
        key = (room.version, seat) if seat is not None and room.seats[seat].bot_controlled else None
        if handle.bot_key != key:
            if handle.bot_task is not None and not handle.bot_task.done():
                handle.bot_task.cancel()
            handle.bot_task = None
            handle.bot_key = key
            if key is not None:
                handle.bot_task = asyncio.create_task(self._bot_move(handle, *key, self.timer()))
        self._plan_takes(handle)
        self._plan_turn_timer(handle)
        idle_next = handle.next_task is None or handle.next_task.done()
        if room.status == "between_deals" and idle_next and self._no_host(handle):
            handle.next_task = asyncio.create_task(self._auto_next(handle, room.version))

    def _plan_takes(self, handle: RoomHandle) -> None:
        """In a take window (interject protocol, R-P-TAKE): note when it opened (a human's lead
        waits the bot delay from then, :meth:`_hold_lead`), and plan the takes of the bots not to
        act, each decided now and announced at :data:`TAKE_MOMENT` of the bot delay, whatever
        they decided (the bot to act decides with its move)."""
        room = handle.room
        version = room.version
        if not room.take_window():
            handle.window = None
            return
        if handle.window is None or handle.window[0] != version:
            handle.window = (version, self.timer())
        if handle.takes_key == version:
            return
        for task in handle.take_tasks:
            task.cancel()
        handle.takes_key, handle.take_tasks = version, []
        began = handle.window[1]
        for seat in room.takers():
            if not room.seats[seat].bot_controlled:
                continue
            view = room.view(seat)
            assert view is not None
            if handle.take_bot.act(view, [TAKE, PASS], handle.bot_rng) is TAKE:
                handle.take_tasks.append(asyncio.create_task(self._bot_take(handle, version, seat, began)))

    async def _bot_take(self, handle: RoomHandle, version: int, seat: int, began: float) -> None:
        """A bot's take announced at :data:`TAKE_MOMENT` of the window opened at ``began``."""
        if self.bot_delay > 0 and not self._fast(handle):
            wait = began + TAKE_MOMENT * self.bot_delay - self.timer()
            if wait > 0:
                await self.sleep(wait)
        if handle.room.version != version or not handle.room.seats[seat].bot_controlled:
            return
        with contextlib.suppress(RoomError):
            await self.submit(handle, _Job("act", {"seat": seat, "action": "take", "bot": True}, version=version))

    def _plan_turn_timer(self, handle: RoomHandle) -> None:
        """Start the turn timer of a connected human to act (the room's ``turn_time``): when it
        runs out, a bot plays for them and they are away (``absent``) until they act again."""
        if handle.mirror:
            return  # the owner's timer; the mirror shows its deadline (news)
        room = handle.room
        seat = room.to_act()
        key = None
        human = seat is not None and room.seats[seat].kind == "human" and not room.seats[seat].bot_playing
        if human and seat in handle.connected() and not room.deal_over:
            assert seat is not None
            key = (room.version, seat)
        running = handle.turn_task is not None and not handle.turn_task.done()
        if handle.turn_key == key and (key is None or running):
            return  # (a timer that ran out while its player was disconnected starts again on their return)
        if handle.turn_task is not None:
            handle.turn_task.cancel()
        handle.turn_task, handle.turn_key, handle.turn_deadline = None, key, None
        if key is None:
            return
        handle.turn_deadline = self.timer() + room.turn_time

        async def timeout(version: int, seat: int) -> None:
            await self.sleep(room.turn_time)
            live = handle.room
            if live.version == version and not live.seats[seat].bot_playing and seat in handle.connected():
                with contextlib.suppress(RoomError):
                    await self.submit(handle, _Job("absent", {"seat": seat}))

        handle.turn_task = asyncio.create_task(timeout(*key))

    @staticmethod
    def _no_host(handle: RoomHandle) -> bool:
        room = handle.room
        if not any(s.kind == "human" for s in room.seats):
            return True
        hosts = [i for i, s in enumerate(room.seats) if s.host]
        host_present = any(c.host and not c.closed for c in handle.conns)
        return not host_present and all(room.seats[i].bot_playing for i in hosts)

    # ------------------------------------------------------------------ rooms of bots alone

    @staticmethod
    def _bots_alone_play(room: Room) -> bool:
        """Whether a started, unfinished room is played by bots alone (every seat a bot's or
        an absent human's): such rooms need a slot to run."""
        return room.status in ("playing", "between_deals") and all(s.bot_controlled for s in room.seats)

    def _take_slot(self, handle: RoomHandle) -> bool:
        """Take a slot for a room played by bots alone if both limits allow; whether it has one.
        With many processes the limits are the cluster's: the slot is asked of the broker by the
        room's worker (:meth:`_ask_slot`, which schedules the room again once it has one) and
        this answers ``False`` meanwhile."""
        if handle.slot:
            return True
        if self.shared:
            if not handle.asking:
                handle.asking = True
                handle.queue.put_nowait(_Job("slot", call=lambda: self._ask_slot(handle)))
            return False
        return self._take_local_slot(handle)

    def _take_local_slot(self, handle: RoomHandle) -> bool:
        """:meth:`_take_slot` counting this process's rooms only (one process alone)."""
        holders = [h for h in self.rooms.values() if h.slot]
        mine = sum(1 for h in holders if h.address == handle.address)
        if len(holders) >= self.max_bot_rooms or mine >= self.bot_rooms_per_address:
            return False
        handle.slot = True
        return True

    def _bot_slots(self, handle: RoomHandle) -> list[tuple[str, str, str, int]]:
        """The cluster's slots a room played by bots alone holds: ``(group, key, member, cap)``,
        one among its starter address's and one among all (the member names this process, so
        that a new owner's slot is not the old one's)."""
        member = f"{handle.room.code}@{self.broker.process}"
        return [
            ("bot-rooms-of", handle.address, member, self.bot_rooms_per_address),
            ("bot-rooms", "all", member, self.max_bot_rooms),
        ]

    async def _take_shared_slot(self, handle: RoomHandle) -> bool:
        """Take the cluster's slots of a room played by bots alone (:meth:`_bot_slots`) if both
        limits allow, in the whole cluster; whether it has them. The broker unreachable: this
        process's rooms are counted (as the rate limits are meanwhile)."""
        if handle.slot:
            return True
        taken: list[tuple[str, str, str]] = []
        try:
            for group, key, member, cap in self._bot_slots(handle):
                if not await self.broker.take_slot(group, key, member, cap):
                    for slot in taken:
                        await self.broker.free_slot(*slot)
                    return False
                taken.append((group, key, member))
        except BrokerDown:
            return self._take_local_slot(handle)
        self._slots.update(taken)
        handle.slot = True
        return True

    async def _ask_slot(self, handle: RoomHandle) -> None:
        """Ask the cluster for the slots of a room played by bots alone (run by its worker): once
        it has them, its bots play; if not, it waits, paused (the heartbeat asks again)."""
        handle.asking = False
        if handle.slot or handle.mirror or not self._bots_alone_play(handle.room):
            return
        if await self._take_shared_slot(handle):
            self._schedule(handle)
            return
        if not handle.paused:
            log.info("room %s: played by bots alone and no slot free: paused", handle.room.code)
        handle.paused = True

    def _wake_paused(self) -> None:
        """Let each paused room owned here ask for a slot again (another process's may be free)."""
        for handle in self.rooms.values():
            if handle.paused and not handle.asking and handle.lease is not None:
                handle.queue.put_nowait(_Job("wake", call=lambda h=handle: self._schedule(h)))

    def _free_slot(self, handle: RoomHandle) -> None:
        """Give the room's slot back (the cluster's too) and let a paused room try again."""
        if not handle.slot:
            return
        handle.slot = False
        if self.shared:
            for group, key, member, _cap in self._bot_slots(handle):
                if (group, key, member) in self._slots:
                    self._slots.discard((group, key, member))
                    self._background(self._free_shared_slot(group, key, member))
        for other in self.rooms.values():
            if other.paused and other is not handle:
                other.queue.put_nowait(_Job("wake", call=lambda h=other: self._schedule(h)))

    async def _free_shared_slot(self, group: str, key: str, member: str) -> None:
        with contextlib.suppress(BrokerDown):  # not freed: it expires (SLOT_MS) once not renewed
            await self.broker.free_slot(group, key, member)

    async def _start_bot_only(self, handle: RoomHandle, address: str | None) -> None:
        """Before the start of room ``handle`` by ``address``: a room without a human seat will
        be played by bots alone; it must get a slot now (with many processes, the cluster's).

        Raises:
            RoomError: ``too_many_bot_rooms`` (429).
        """
        handle.address = address or handle.address
        if any(s.kind == "human" for s in handle.room.seats):
            return
        if not (await self._take_shared_slot(handle) if self.shared else self._take_slot(handle)):
            raise RoomError(
                "too_many_bot_rooms",
                N_("too many rooms played by bots alone are running (at most {n} per address, {total} in all)"),
                429,
                n=self.bot_rooms_per_address,
                total=self.max_bot_rooms,
            )

    # ------------------------------------------------------------------ bot moves

    async def _search(
        self, handle: RoomHandle, view: PlayerView, legal: Sequence[Action], due: float | None = None
    ) -> Action:
        """The bot's choice, searched in a thread or a bot worker process (:attr:`botpool`, for
        the searching bots; its fallback move if no worker can have it by ``due``, the move's
        send time): one search at a time per room (a move cancelled mid-search lets its search
        finish before the next one starts); the rooms played by bots alone share one thread (one
        worker), and the time limit of their searches is the search share of the delay divided
        among them, so the thread keeps up with their delays."""
        while handle.search is not None and not handle.search.done():
            await asyncio.wait({handle.search})
        alone = self._bots_alone_play(handle.room)
        pool = self._bots_alone if alone else self._bots
        if self.bot_delay > 0 and getattr(handle.bot, "time_limit", None) is not None:
            # The rooms of bots alone take turns on one thread: their searches share the delay.
            share = max(1, sum(1 for h in self.rooms.values() if h.slot)) if alone else 1
            handle.bot.time_limit = SEARCH_SHARE * self.bot_delay / share  # type: ignore[attr-defined]
        if self.botpool is not None and self.botpool.takes(handle.bot):
            search = self.botpool.act(handle.room.code, handle.bot, view, legal, handle.bot_rng, due=due, alone=alone)
            handle.search = asyncio.ensure_future(search)
            return await handle.search  # cancelled: a waiting search is dropped, a running one ends in its worker
        loop = asyncio.get_running_loop()
        handle.search = loop.run_in_executor(pool, handle.bot.act, view, legal, handle.bot_rng)
        return await asyncio.shield(handle.search)

    async def _bot_move(self, handle: RoomHandle, version: int, seat: int, began: float) -> None:
        """The bot's move for ``(version, seat)``, sent ``bot_delay`` seconds after ``began``
        (the turn's start, :attr:`timer`), however long it took to choose (a search has a time
        limit below the delay; a move ready late is sent at once and logged)."""
        try:
            room = handle.room
            if room.version != version:
                return  # the room moved on; the worker has planned the next move
            view = room.view(seat)
            assert view is not None
            legal = view.legal_actions
            if not legal:
                return
            if len(legal) == 1:
                action = legal[0]
            elif handle.bot.name == "random":
                action = handle.bot.act(view, legal, handle.bot_rng)
            else:  # searching bots take milliseconds to seconds: off the event loop
                due = began + self.bot_delay if self.bot_delay > 0 and not self._fast(handle) else None
                action = await self._search(handle, view, legal, due)
            if self.bot_delay > 0 and not self._fast(handle):
                wait = began + self.bot_delay - self.timer()
                if wait > 0:
                    await self.sleep(wait)
                else:
                    log.warning(
                        "room %s: bot of seat %d decided %.0f ms after its move was due", room.code, seat, -wait * 1000
                    )
            if handle.room.version != version:
                return
            job = _Job("act", {"seat": seat, "action": str(action), "bot": True}, version=version)
            while True:
                try:
                    await self.submit(handle, job)
                except RoomError as exc:
                    if exc.code == "server_error" and handle.lease is not None and handle.room.version == version:
                        await self.sleep(0.5)  # the broker is unreachable: the move is made once it is back
                        continue
                    if exc.code != "stale_version":
                        log.warning("room %s: bot move of seat %d refused: %s", room.code, seat, exc)
                break
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: bot of seat %d failed", handle.room.code, seat)

    async def _auto_next(self, handle: RoomHandle, version: int) -> None:
        await self.sleep(max(self.bot_delay * 3, 0.0))
        if handle.room.version == version and handle.room.status == "between_deals":
            with contextlib.suppress(RoomError):
                await self.submit(handle, _Job("next_deal"))

    def _start_absence(self, handle: RoomHandle, seat: int, *, announce: bool) -> bool:
        """The seat's player left: after the grace period a bot plays for them. Announces
        ``absent`` with the deadline to the others; returns whether it was announced."""
        room = handle.room
        if handle.mirror:
            return False  # the owner's timer
        if room.status not in ("lobby", "playing", "between_deals") or room.seats[seat].bot_playing:
            return False
        if room.seats[seat].kind != "human" or seat in handle.timers:
            return False
        if room.status == "lobby":
            return False  # nothing to play yet; the start announces absent players
        deadline = self.clock() + self.grace
        handle.deadlines[seat] = deadline

        async def takeover() -> None:
            await asyncio.sleep(self.grace)
            handle.timers.pop(seat, None)
            handle.deadlines.pop(seat, None)
            if seat not in handle.connected():
                with contextlib.suppress(RoomError):
                    await self.submit(handle, _Job("absent", {"seat": seat}))

        handle.timers[seat] = asyncio.create_task(takeover())
        if announce:
            self._broadcast(handle)
            self._publish(handle, absent=(seat, round(deadline, 3)))
            for conn in list(handle.conns):
                conn.send({"type": "absent", "seat": seat, "deadline": round(deadline, 3)})
        return announce

    async def _sweep(self) -> None:
        """Close rooms idle for longer than ``idle`` seconds (checked a few times per period)."""
        period = min(max(self.idle / 4, 0.05), 60.0)
        while True:
            await asyncio.sleep(period)
            now = self.clock()
            for handle in list(self.rooms.values()):
                if handle.mirror:
                    continue  # its owner closes it
                if now - handle.room.updated >= self.idle and handle.room.status != "closed":
                    handle.queue.put_nowait(_Job("close", {"reason": "idle"}))

    # ------------------------------------------------------------------ many processes (web/broker.py)
    #
    # A shared room has one owner (the process holding its lease: worker, bots, timers, log
    # appends) and any number of mirrors (processes with sockets in it). A mirror forwards its
    # sockets' commands to the owner (:meth:`_forward`), tells it which seats it has sockets for
    # (:meth:`_tell_presence`), and, told that the room moved on (:meth:`_heard`), reads the new
    # commands from the log and sends each of its sockets its own view. The heartbeat renews the
    # owner's leases and lets a mirror take a lease nobody holds (a dead owner's, once expired).

    async def hand_over(self) -> None:
        """Give every room owned here to the other processes (a drain before shutdown): each
        lease is released and the room followed as a mirror, so that its sockets here are still
        served until they close; from now on this process takes no lease (the others take the
        rooms at their next heartbeat, or at the next command). Nothing to do for a process alone."""
        if not self.shared:
            return
        self.handing_over = True
        jobs = []
        for handle in list(self.rooms.values()):
            if handle.lease is not None and handle.worker is not None and not handle.worker.done():
                jobs.append(self.submit(handle, _Job("hand_over", call=lambda h=handle: self._give_up(h))))
        for outcome in await asyncio.gather(*jobs, return_exceptions=True):
            if isinstance(outcome, BaseException) and not isinstance(outcome, RoomError):
                log.warning("hand over: %s", outcome)

    async def _give_up(self, handle: RoomHandle) -> None:
        """Release the room's lease and follow it as a mirror (run by its worker)."""
        lease = handle.lease
        if lease is None:
            return
        with contextlib.suppress(BrokerDown):
            await self.broker.release(lease)
        log.info("room %s: handed over (lease token %d released)", handle.room.code, lease.token)
        await self._demote(handle, quiet=True)

    async def take_socket(self, address: str, socket: str, cap: int) -> bool:
        """With many processes, count socket ``socket`` of client ``address`` among the address's
        open sockets in the whole cluster (at most ``cap``); whether it may stay. One process
        alone (or the broker unreachable): ``True`` (the app counts this process's sockets)."""
        if not self.shared:
            return True
        try:
            taken = await self.broker.take_slot("sockets", address, socket, cap)
        except BrokerDown:
            return True
        if taken:
            self._slots.add(("sockets", address, socket))
        return taken

    async def free_socket(self, address: str, socket: str) -> None:
        """Socket ``socket`` of ``address`` closed: it no longer counts (:meth:`take_socket`)."""
        if ("sockets", address, socket) not in self._slots:
            return
        self._slots.discard(("sockets", address, socket))
        await self._free_shared_slot("sockets", address, socket)

    async def _start_shared(self) -> None:
        await self.broker.start(self._on_request, self._on_news)
        for stored in await self._in_db(self.store.unfinished):
            try:
                lease = await self.broker.acquire(stored.code)
            except BrokerDown:
                break  # logged by the broker; rooms are opened when asked
            if lease is None:
                continue  # owned by a live process
            try:
                room = Room.restore(stored)
            except Exception:
                log.exception("room %s: cannot rebuild from its log", stored.code)
                await self.broker.release(lease)
                continue
            handle = self._open(room, lease)
            if room.status != "lobby" and not any(seat.kind == "human" for seat in room.seats):
                # A started bot-only room: nobody can be watching it now; it is not resumed.
                handle.queue.put_nowait(_Job("close", {"reason": "restart"}))
        self._heart = asyncio.create_task(self._heartbeat(), name="room-heartbeat")
        self._sweeper = asyncio.create_task(self._sweep())

    def _background(self, coro: Awaitable[Any]) -> None:
        """Run ``coro`` as a task kept until it ends (the event loop keeps only weak references)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _claim(self, handle: RoomHandle, lease: Lease | None) -> None:
        """The first job of a shared room's worker: own it (``lease``, or one taken now if nobody
        holds it), else follow it as a mirror."""
        if lease is None and not self.handing_over:
            with contextlib.suppress(BrokerDown):  # no broker now: a mirror; the heartbeat tries again
                lease = await self.broker.acquire(handle.room.code)
        if lease is not None:
            await self._promote(handle, lease)
            return
        with contextlib.suppress(BrokerDown):
            await self.broker.follow(handle.room.code)
        await self._catch_up(handle)

    async def _promote(self, handle: RoomHandle, lease: Lease) -> None:
        """Become the room's owner with ``lease`` (run by its worker): catch up with the log
        (the previous owner's last commands), then run its bots and timers as after a restart."""
        if handle.lease is not None:  # already the owner (a lease taken twice): keep the first
            with contextlib.suppress(BrokerDown):
                await self.broker.release(lease)
            return
        await self._catch_up(handle)
        handle.lease, handle.mirror, handle.reported = lease, False, frozenset()
        with contextlib.suppress(BrokerDown):
            await self.broker.unfollow(handle.room.code)
        room = handle.room
        if room.status == "closed":
            return
        log.info("room %s: owned by this process (lease token %d, version %d)", room.code, lease.token, room.version)
        connected = handle.connected()
        for seat in self._humans(room):
            if seat not in connected:
                self._start_absence(handle, seat, announce=False)
        self._schedule(handle)
        self._broadcast(handle)

    async def _promote_taken(self, handle: RoomHandle) -> None:
        """Promote with the lease the heartbeat took (unless a forwarded command already did)."""
        lease, handle.taken = handle.taken, None
        if lease is not None:
            await self._promote(handle, lease)

    async def _demote(self, handle: RoomHandle, *, quiet: bool = False) -> None:
        """Stop owning the room (its lease is lost, or given up: run by its worker): its bots and
        timers stop, it follows the new owner as a mirror and catches up with the log."""
        if not quiet:
            log.warning("room %s: lease lost (token %d): following its new owner", handle.room.code, handle.lease.token)
        tasks = (handle.bot_task, handle.next_task, handle.turn_task, *handle.take_tasks, *handle.timers.values())
        for task in tasks:
            if task is not None:
                task.cancel()
        handle.bot_task, handle.bot_key, handle.next_task = None, None, None
        handle.take_tasks, handle.takes_key = [], None
        handle.turn_task, handle.turn_key, handle.turn_deadline, handle.window = None, None, None, None
        handle.timers, handle.deadlines, handle.remote = {}, {}, {}
        self._free_slot(handle)
        handle.lease, handle.mirror = None, True
        with contextlib.suppress(BrokerDown):
            await self.broker.follow(handle.room.code)
        await self._catch_up(handle)

    async def _lost(self, handle: RoomHandle, lease: Lease) -> None:
        """The heartbeat found ``lease`` gone (run by the worker): demote, and take the lease
        again at once if nobody else has (Redis restarted empty: the room goes on here)."""
        if handle.lease != lease:
            return
        await self._demote(handle)
        if self.handing_over:
            return
        with contextlib.suppress(BrokerDown):
            again = await self.broker.acquire(handle.room.code)
            if again is not None:
                await self._promote(handle, again)

    async def _fenced(self, handle: RoomHandle) -> bool:
        """The fencing check before a command of an owned room is applied and logged: whether
        this process still holds the room's lease (if not, it is demoted).

        Why it suffices (docs/web.md "More than one process"): the log's key (room, version)
        lets one append per version; a new owner rebuilds the room from the log when it takes
        the lease, so a late append of the old owner either collides with the new owner's
        (refused: one of them writes version v, the other reloads from the log) or lands
        before the new owner's next one, which then fails and reloads: the log stays one
        history, each command in it once. This check makes the old owner stop at its next
        command instead of writing on until it collides.

        Raises:
            RoomError: ``server_error`` (503) when the broker cannot be reached.
        """
        assert handle.lease is not None
        try:
            held = await self.broker.holds(handle.lease)
        except BrokerDown:
            raise _unsaved() from None
        if not held:
            await self._demote(handle)
        return held

    async def _forward(self, handle: RoomHandle, job: _Job) -> Any:
        """Run command ``job`` of a mirrored room at its owner and return its logged payload once
        this mirror has caught up with it; when nobody owns the room (its owner died and its
        lease expired), take the lease and run it here.

        Raises:
            RoomError: the owner's refusal (:class:`RelayedError`), or ``server_error`` (503) when
                the broker cannot be reached or the owner did not answer in time.
        """
        code = handle.room.code
        body = {"kind": job.kind, "payload": job.payload, "version": job.version, "address": job.address}
        deadline = self.timer() + FORWARD_TIMEOUT
        while True:
            if handle.taken is not None:  # the heartbeat took the lease meanwhile (its promotion waits for us)
                lease, handle.taken = handle.taken, None
                await self._promote(handle, lease)
                return await self._run(handle, job)
            try:
                answer = await self.broker.forward(code, body, max(0.1, deadline - self.timer()))
            except NoOwner:
                try:
                    lease = None if self.handing_over else await self.broker.acquire(code)
                except BrokerDown:
                    raise _unsaved() from None
                if lease is not None:
                    await self._promote(handle, lease)
                    return await self._run(handle, job)
                answer = {"retry": True}  # a dead owner's lease that has not expired yet
            except BrokerDown:
                raise _unsaved() from None
            except TimeoutError:
                log.warning("room %s: the owner did not answer a forwarded %s", code, job.kind)
                raise _unsaved() from None
            if not answer.get("retry"):
                break
            if self.timer() >= deadline:
                log.warning("room %s: nobody took the room in time for a forwarded %s", code, job.kind)
                raise _unsaved()
            await self.sleep(0.1)
        if "error" in answer:
            raise RelayedError(answer["error"])
        if await self._catch_up(handle):
            self._broadcast(handle)
        return answer.get("logged")

    async def _on_request(self, code: str, body: dict[str, Any]) -> dict[str, Any]:
        """Answer a request of another process for room ``code``: its sockets' seats
        (``presence``) or a command, run as if it came from a socket here."""
        handle = self.rooms.get(code)
        if handle is None or handle.lease is None:
            return {"retry": True}  # not the owner (any more): the asker looks again
        kind = body["kind"]
        if kind == "presence":
            seats, host = frozenset(int(s) for s in body["seats"]), bool(body.get("host"))
            if any(s >= len(handle.room.seats) for s in seats):
                log.warning("room %s: dropped a presence naming seats it does not have: %s", code, sorted(seats))
                return {"ok": True}
            presence = _Job("presence", call=lambda: self._presence(handle, body["process"], seats, host))
            handle.queue.put_nowait(presence)
            return {"ok": True}
        payload = body.get("payload") or {}
        job = _Job(kind, payload, version=body.get("version"), address=body.get("address"))
        try:
            if kind == "act" and not payload.get("bot"):
                await self._hold_lead(handle, payload)
            logged = await self.submit(handle, job)
        except RoomError as exc:
            return {"error": RelayedError.relay(exc)}
        # Only what the asker uses (a join's seat): the logged payload stays here (a token's hash).
        seat = logged.get("seat") if isinstance(logged, dict) else None
        return {"logged": {"seat": seat}, "version": handle.room.version}

    def _presence(self, handle: RoomHandle, process: str, seats: frozenset[int], host: bool = False) -> None:
        """Process ``process`` has sockets for ``seats`` of the owned room, and one of the host
        without a seat if ``host`` (run by the worker)."""
        if handle.mirror:
            return
        before = handle.connected()
        if seats or host:
            handle.remote[process] = (seats, self.timer())
        else:
            handle.remote.pop(process, None)
        if host:
            handle.hosting.add(process)
        else:
            handle.hosting.discard(process)
        self._seats_changed(handle, before)

    def _seats_changed(self, handle: RoomHandle, before: set[int]) -> None:
        """The owner's connected seats changed from ``before`` (sockets on other processes):
        a seat back cancels its absence (and reclaims it from the bot), a seat gone starts it."""
        now = handle.connected()
        if now == before:
            return
        room = handle.room
        for seat in now - before:
            timer = handle.timers.pop(seat, None)
            if timer is not None:
                timer.cancel()
            handle.deadlines.pop(seat, None)
            if room.seats[seat].bot_playing and room.status != "closed":
                handle.queue.put_nowait(_Job("reclaim", {"seat": seat}))
        announced = False
        for seat in before - now:
            announced = self._start_absence(handle, seat, announce=True) or announced
        self._plan_turn_timer(handle)
        if not announced:
            self._broadcast(handle)

    def _tell_presence(self, handle: RoomHandle) -> None:
        """Tell the owner of a mirrored room which seats have sockets here (in the background;
        the heartbeat tells it again, so a lost message or a new owner is mended)."""
        host = any(c.host and c.seat is None and not c.closed for c in handle.conns)
        body = {"kind": "presence", "process": self.broker.process, "seats": sorted(handle.local_seats()), "host": host}

        async def tell() -> None:
            with contextlib.suppress(NoOwner, BrokerDown, TimeoutError):
                await self.broker.forward(handle.room.code, body, 1.0)

        self._background(tell())

    def _publish(self, handle: RoomHandle, absent: tuple[int, float] | None = None) -> None:
        """The owner's news for the room's mirrors: its version and public facts only (seats
        connected, seconds left of the turn timer, an absence's deadline). No card: a mirror
        reads the commands from the log and builds each socket's view itself."""
        if handle.lease is None:
            return
        news: dict[str, Any] = {
            "v": handle.room.version,
            "connected": sorted(handle.connected()),
            "turn_ends_in": self._turn_left(handle),
        }
        if absent is not None:
            news["absent"] = list(absent)
        self.broker.publish(handle.room.code, news)
        self._list(handle)

    def _on_news(self, code: str, news: dict[str, Any]) -> None:
        handle = self.rooms.get(code)
        if handle is not None and handle.mirror:
            handle.queue.put_nowait(_Job("news", call=lambda: self._heard(handle, news)))

    async def _heard(self, handle: RoomHandle, news: dict[str, Any]) -> None:
        """The owner's news of a mirrored room (run by the worker): catch up with the log, then
        send the sockets here their updates (and an absence notice) if anything changed."""
        if not handle.mirror:
            return
        changed = await self._catch_up(handle)
        room = handle.room
        reported = frozenset(int(s) for s in news.get("connected", ()))
        if reported != handle.reported:
            handle.reported, changed = reported, True
        left = news.get("turn_ends_in")
        if news.get("v") == room.version:
            key = (room.version, room.to_act()) if left is not None else None
            if key != handle.turn_key or left is not None:
                handle.turn_key = key
                handle.turn_deadline = None if left is None else self.timer() + float(left)
                changed = True
        if changed and room.status != "closed":
            self._broadcast(handle)
        absent = news.get("absent")
        if absent is not None and not 0 <= int(absent[0]) < len(room.seats):
            log.warning("room %s: dropped news of an absence of seat %s it does not have", room.code, absent[0])
        elif absent is not None:
            for conn in list(handle.conns):
                conn.send({"type": "absent", "seat": int(absent[0]), "deadline": float(absent[1])})

    async def _catch_up(self, handle: RoomHandle) -> bool:
        """Apply to a mirrored (or newly owned) room the commands the log holds beyond its
        version; whether there were any. A close closes the sockets here (``closed``)."""
        room = handle.room
        entries = await self._in_reader(self.store.log_after, room.code, room.version)
        if not entries:
            return False
        room.replaying = True
        try:
            for entry in entries:
                if entry.version != room.version + 1:
                    raise RoomError("corrupt_log", N_("room log: version {v} out of order"), 500, v=entry.version)
                room.apply(entry.kind, entry.payload, entry.time)
        except RoomError:  # a gap (read mid-commit) or a refusal: rebuild from the whole log
            stored = await self._in_db(self.store.load_room, room.code)
            room = handle.room = Room.restore(stored)
        finally:
            room.replaying = False
        if any(entry.kind == "rematch" for entry in entries):
            self._rematch_made(handle)
        if room.status == "closed" and handle.mirror:
            reason = next((e.payload.get("reason") for e in reversed(entries) if e.kind == "close"), "closed")
            for conn in list(handle.conns):
                conn.send({"type": "closed", "reason": reason})
                conn.close()
        return True

    async def _let_go(self, handle: RoomHandle) -> None:
        """A forgotten room (closed): give its lease up, or stop following it."""
        with contextlib.suppress(BrokerDown):
            if handle.lease is not None:
                if handle.listed is not None:
                    await self.broker.list_room(handle.room.code, None)
                await self.broker.release(handle.lease)
            else:
                await self.broker.unfollow(handle.room.code)

    async def _heartbeat(self) -> None:
        """Every third of a lease: first renew every lease owned here, all in one call (a lost one
        demotes its room), then renew the slots held here (every fifth beat), forget the seats of
        processes that stopped telling (dead), and for each room mirrored here with sockets, tell
        the owner its seats and take the lease if nobody holds it (one call asks who holds them).

        Beats are due a period apart from the previous renewal, whatever the rest of a beat
        took; a beat that wakes late (a busy event loop) renews first thing, and one more than a
        period late is counted in ``heartbeat["late"]`` and logged (at most a line a minute)."""
        loop = asyncio.get_running_loop()
        period = getattr(self.broker, "lease_ms", LEASE_MS) / 3000
        beats, due, told = 0, loop.time() + period, -math.inf
        while True:
            await asyncio.sleep(max(0.0, due - loop.time()))
            now = loop.time()
            late = now - due
            due = now + period
            beats += 1
            if late > period:
                self.heartbeat["late"] += 1
                self.heartbeat["worst_late_ms"] = max(self.heartbeat["worst_late_ms"], round(late * 1000))
                if now - told >= 60:
                    told = now
                    log.warning("heartbeat %.0f ms late (a busy event loop): leases were at risk", late * 1000)
            try:
                await self._renew_leases(period)
                if beats % 5 == 0:  # the slots held here, renewed well within SLOT_MS
                    await self.broker.renew_slots(sorted(self._slots))
                self._wake_paused()
                await self._beat_mirrors()
            except BrokerDown:
                continue  # logged once by the broker
            except Exception:
                log.exception("heartbeat failed")

    async def _renew_leases(self, period: float) -> None:
        """Renew every lease owned here in one call; a room whose lease is gone is demoted (by
        its worker), and an owned room forgets the seats of processes silent for 3 periods."""
        owned = [(handle, handle.lease) for handle in self.rooms.values() if handle.lease is not None]
        if not owned:
            return
        held = await self.broker.renew_all([lease for _, lease in owned])
        self.heartbeat["renewals"] += 1
        for (handle, lease), renewed in zip(owned, held, strict=True):
            if not renewed:
                self.heartbeat["lost"] += 1
                handle.queue.put_nowait(_Job("lost", call=lambda h=handle, old=lease: self._lost(h, old)))
                continue
            stale = [p for p, (_, when) in handle.remote.items() if self.timer() - when > 3 * period]
            if stale:

                def drop(handle: RoomHandle = handle, stale: list[str] = stale) -> None:
                    before = handle.connected()
                    for process in stale:
                        handle.remote.pop(process, None)
                    self._seats_changed(handle, before)

                handle.queue.put_nowait(_Job("stale", call=drop))

    async def _beat_mirrors(self) -> None:
        """The heartbeat of the rooms mirrored here: one without sockets for long is forgotten;
        one with sockets tells its owner their seats and is taken if nobody holds its lease."""
        wanted: list[RoomHandle] = []
        for handle in list(self.rooms.values()):
            if handle.lease is not None or not handle.mirror:
                continue
            if not any(not c.closed for c in handle.conns):
                handle.quiet += 1
                if handle.quiet >= _QUIET_BEATS and handle.queue.empty() and handle.worker is not None:
                    handle.worker.cancel()  # nobody here needs it: its news and catching up stop
                    if self.rooms.get(handle.room.code) is handle:
                        del self.rooms[handle.room.code]
                    await self.broker.unfollow(handle.room.code)
                continue
            handle.quiet = 0
            self._tell_presence(handle)
            if not self.handing_over and handle.taken is None:
                wanted.append(handle)
        if not wanted:
            return
        for handle, holder in zip(wanted, await self.broker.holders([h.room.code for h in wanted]), strict=True):
            if holder is not None or handle.taken is not None or not handle.mirror or self.handing_over:
                continue
            handle.taken = await self.broker.acquire(handle.room.code)
            if handle.taken is not None:
                handle.queue.put_nowait(_Job("promote", call=lambda h=handle: self._promote_taken(h)))


def _lang(value: Any) -> str:
    if not isinstance(value, str) or value.lower() not in i18n.LANGUAGES:
        raise RoomError("bad_message", N_("language: expected one of {known}"), known=", ".join(i18n.LANGUAGES))
    return value.lower()
