"""The pure state of a room: :class:`Room` (seats, the match, the version) and :class:`Seat`.

:class:`Room` is synchronous and does no I/O and reads no clock (times are passed in): its
state is its creation (code, config, seed) plus the commands applied in order, so replaying a
room's log rebuilds it exactly (the engine is deterministic). Each command is validated before
anything changes; a bad one raises :class:`~.errors.RoomError` and leaves the room as it was.

Owns: the room and how it applies each command, the lobby's entry of a room (:func:`listing`).
Imports :mod:`.errors`, :mod:`.checks` and :mod:`.commands` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...core.deal import Deal
from ...core.events import IllegalActionError, InvalidActionError, parse_action
from ...core.knowledge import Knowledge
from ...core.match import Match, MatchError
from ...core.messages import seat_number
from ...core.record import record_of
from ...core.view import PlayerView, player_view
from ...text import i18n
from ...text.i18n import N_
from ..store import StoredRoom
from .checks import BOT_MARK, TAKE_WINDOW, TURN_TIME, check_config, check_name, name_key, same_token
from .commands import Absent, Act, Close, Command, Join, NextDeal, Reclaim, Rematch, Start, logged
from .errors import RoomError


@dataclass
class Seat:
    """One seat of a room: ``kind`` (``human``, ``bot``, ``empty``), its player's name, whether
    it is the host's, whether a bot plays it for an absent human, its token's hash, and whether
    its player was seated by quick play (``quick``: a host who may start the room, not close it)."""

    kind: str = "empty"
    name: str = ""
    host: bool = False
    bot_playing: bool = False
    token_hash: str | None = field(default=None, repr=False)
    quick: bool = False

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

    Commands (:meth:`apply`, the classes of :mod:`~getaway.web.rooms.commands`; each raises
    :class:`RoomError` and changes nothing if refused): ``Join(seat, name, token_hash, host)``,
    ``Start()``, ``Act(seat, action, bot)``, ``Absent(seat)``, ``Reclaim(seat)``, ``NextDeal()``,
    ``Close(reason)``, and once the match is over ``Rematch(code, host)`` (the rematch room made:
    :meth:`~getaway.web.rooms.lobby.Matchmaking.rematch`).
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
            if same_token(seat.token_hash, token):
                found = i
        return found

    def is_host_token(self, token: str) -> bool:
        """Whether ``token`` is the host token or the host's seat token."""
        if same_token(self.host_hash, token):
            return True
        seat = self.seat_of(token)
        return seat is not None and self.seats[seat].host

    def may_close(self, token: str) -> bool:
        """Whether ``token`` may close the room: the host token, or a host seat's token unless
        that seat was taken by quick play (one more host, to start it: never to close it on the
        others, so that a quick play cannot be used to close strangers' rooms)."""
        if same_token(self.host_hash, token):
            return True
        seat = self.seat_of(token)
        return seat is not None and self.seats[seat].host and not self.seats[seat].quick

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

    @property
    def take_time(self) -> float:
        """Seconds a bot's lead waits between tricks while a connected human may take (the
        room's ``take_window`` option, docs/web.md "Takes")."""
        return float(self.config.get("take_window", TAKE_WINDOW))

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
            self._history = (key, _history_of(self))
        return self._history[1]

    @property
    def deal_over(self) -> bool:
        """Whether the current deal is over (``False`` before the start)."""
        return self.match is not None and self.match.deal.is_over

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
            f"{BOT_MARK} Bot {seat_number(i)}" if s.kind == "bot" else s.name or f"Bot {seat_number(i)}"
            for i, s in enumerate(self.seats)
        ]

    def shown_names(self) -> list[str]:
        """The seat names as narration shows them, in the current language: a bot seat is
        :data:`BOT_MARK` and "Bot n", which no human name can be (:func:`check_name`)."""
        return [
            f"{BOT_MARK} {i18n._('Bot {n}').format(n=seat_number(i))}"
            if s.kind == "bot"
            else s.name or f"Bot {seat_number(i)}"
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

    def apply(self, command: Command, now: float) -> Command:
        """Validate and apply one command (:mod:`~getaway.web.rooms.commands`); returns the
        command to log (normalized: a join's seat chosen, an act's action by its name).

        Raises:
            RoomError: refused (``room_closed``, ``already_started``, ``room_full``,
                ``seat_taken``, ``not_started``, ``bad_message``, an engine reason such as
                ``not_your_turn``, ``unknown_type`` for a command that is only asked …); the
                room is unchanged.
        """
        if self.status == "closed":
            raise RoomError("room_closed", N_("this room is closed"), 410)
        match command:
            case Join():
                done: Command = self._join(command)
            case Start():
                done = self._start()
            case Act():
                done = self._act(command)
            case Absent(seat=seat):
                done = self._absent(seat)
            case Reclaim(seat=seat):
                done = self._reclaim(seat)
            case NextDeal():
                done = self._next_deal()
            case Rematch():
                done = self._rematch(command)
            case Close(reason=reason):
                self.status = "closed"
                done = Close(str(reason))
            case _:
                raise RoomError("unknown_type", N_("unknown command {kind!r}"), kind=command.kind)
        self.version += 1
        self.updated = now
        return done

    def _join(self, p: Join) -> Join:
        if self.status != "lobby":
            raise RoomError("already_started", N_("the match has started"), 409)
        name = check_name(p.name)
        if not self.replaying and any(s.kind == "human" and name_key(s.name) == name_key(name) for s in self.seats):
            raise RoomError("name_taken", N_("someone in this room is already called {name}"), 409, name=name)
        seat = p.seat
        if seat is None:
            seat = next((i for i, s in enumerate(self.seats) if s.kind == "empty"), None)
            if seat is None:
                raise RoomError("room_full", N_("every seat is taken"), 409)
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise RoomError("bad_message", N_("no seat {seat} in this room"), seat=seat)
        elif self.seats[seat].kind != "empty":
            raise RoomError("seat_taken", N_("seat {seat} is taken"), 409, seat=seat_number(seat))
        token_hash = p.token_hash
        if not isinstance(token_hash, str):
            raise RoomError("bad_message", N_("no token"))
        host, quick = bool(p.host), bool(p.quick)
        self.seats[seat] = Seat("human", name, host, False, token_hash, quick)
        return Join(seat, name, token_hash, host, quick)

    def _start(self) -> Start:
        if self.status != "lobby":
            raise RoomError("already_started", N_("the match has started"), 409)
        for seat in self.seats:
            if seat.kind == "empty":
                seat.kind = "bot"
        self.match = Match(self.rules, self.names(), self.seed, secret=self.secret)
        self.status = "playing"
        self._after_move()
        return Start()

    def _act(self, p: Act) -> Act:
        if self.match is None or self.status == "lobby":
            raise RoomError("not_started", N_("the match has not started"), 409)
        seat = p.seat
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise RoomError("bad_message", N_("no seat {seat} in this room"), seat=seat)
        by_bot = bool(p.bot)
        if by_bot != self.seats[seat].bot_controlled:
            raise RoomError("not_your_turn", N_("a bot is playing this seat") if not by_bot else N_("not a bot's seat"))
        try:
            action = parse_action(p.action)
        except (InvalidActionError, TypeError):
            shown = repr(str(p.action)[:40])  # quoted, a newline or a control character escaped
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
        return Act(seat, str(action), by_bot)

    def _after_move(self) -> None:
        assert self.match is not None
        if self.match.deal.is_over:
            self.status = "finished" if self.match.finished else "between_deals"

    def _absent(self, seat: Any) -> Absent:
        seat = self._human_seat(seat)
        if self.status not in ("playing", "between_deals"):
            raise RoomError("not_started", N_("the match has not started"), 409)
        if self.seats[seat].bot_playing:
            raise RoomError("bad_message", N_("a bot already plays seat {seat}"), seat=seat_number(seat))
        self.seats[seat].bot_playing = True
        return Absent(seat)

    def _reclaim(self, seat: Any) -> Reclaim:
        seat = self._human_seat(seat)
        if not self.seats[seat].bot_playing:
            raise RoomError("bad_message", N_("seat {seat} is not played by a bot"), seat=seat_number(seat))
        self.seats[seat].bot_playing = False
        return Reclaim(seat)

    def _human_seat(self, seat: Any) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise RoomError("bad_message", N_("no seat {seat} in this room"), seat=seat)
        if self.seats[seat].kind != "human":
            raise RoomError("bad_message", N_("seat {seat} is not a player's"), seat=seat_number(seat))
        return seat

    def _next_deal(self) -> NextDeal:
        if self.status != "between_deals" or self.match is None:
            code = "not_started" if self.status == "lobby" else "bad_message"
            raise RoomError(code, N_("no next deal to start now"), 409)
        try:
            self.match.next_deal()
        except MatchError as exc:  # pragma: no cover - status says it cannot happen
            raise RoomError("bad_message", N_("{problem}"), 409, problem=str(exc)) from None
        self.status = "playing"
        return NextDeal()

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

    def _rematch(self, p: Rematch) -> Rematch:
        self.check_rematch()
        code, host = p.code, p.host
        if not isinstance(code, str) or not code:
            raise RoomError("bad_message", N_("no room {code}"), code=str(code)[:16])
        seats = range(len(self.seats))
        if host is not None and (isinstance(host, bool) or not isinstance(host, int) or host not in seats):
            raise RoomError("bad_message", N_("no seat {seat} in this room"), seat=host)
        self.rematch = {"code": code, "host": host}
        return Rematch(code, host)

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
            room.apply(logged(entry.kind, entry.payload), entry.time)
        room.replaying = False
        return room


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


def playing_humans(room: Room) -> list[int]:
    """The human seats of ``room`` that their player plays (no bot for an absent one)."""
    return [i for i, s in enumerate(room.seats) if s.kind == "human" and not s.bot_playing]


def _history_of(room: Room) -> dict[str, Any]:
    """:meth:`Room.history`, worked out."""
    deals = []
    if room.match is not None:
        for i, deal in enumerate(room.match.deals):
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
                    "points": list(room.match.deal_points(i)),
                }
            )
    return {
        "code": room.code,
        "status": room.status,
        "names": room.names(),
        "deals": deals,
        "standings": room.standings(),
    }
