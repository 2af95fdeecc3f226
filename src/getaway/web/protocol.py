"""The web protocol's messages as pydantic models (docs/web.md): every HTTP body and answer, and
every WebSocket message (a discriminated union on ``type``), used to parse what comes in and to
describe what goes out. ``GET /api/openapi.json`` (FastAPI, from these models) documents the HTTP
API; ``GET /api/socket-schema.json`` (:func:`socket_schema`) the socket's messages.

A refusal is a :class:`~getaway.web.rooms.RoomError` whose code and translated message name the
field (:func:`refusal`): ``bad_json`` (not JSON), ``unknown_type`` (a ``type`` the server does not
know), ``bad_message`` (anything else: a wrong type, a missing or unknown field, a lone surrogate),
and the checks' own codes (``name_too_long``).

>>> parse_client('{"type": "act", "action": "10h", "version": 3}')
Act(type='act', action='10h', version=3)
>>> refusal(client_error('{"type": "act", "action": 5, "version": 3}')).code
'bad_message'
>>> refusal(client_error('{"type": "fly"}')).code
'unknown_type'
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    TypeAdapter,
    ValidationError,
    create_model,
)
from pydantic_core import PydanticCustomError

from ..bots import LEVELS
from ..bots.review import REVIEW_ITERATIONS
from ..core.rules import Rules
from ..text import i18n
from ..text.chat import PHRASES
from ..text.i18n import N_
from .rooms.checks import MAX_DEALS, MAX_TURN_TIME, MIN_TURN_TIME, TURN_TIME, check_name
from .rooms.errors import RoomError

__all__ = [
    "MAX_MESSAGE",
    "MAX_VERSION",
    "Text",
    "Name",
    "CreateRoom",
    "JoinRoom",
    "Created",
    "Joined",
    "QuickPlay",
    "QuickPlayed",
    "PublicRooms",
    "Rematch",
    "RoomState",
    "History",
    "ErrorBody",
    "ErrorAnswer",
    "Health",
    "Stats",
    "Strings",
    "RulesSummary",
    "ClientMessage",
    "ServerMessage",
    "CLIENT_TAGS",
    "SERVER_TAGS",
    "Hello",
    "Act",
    "Chat",
    "ChatFrame",
    "parse_client",
    "client_error",
    "refusal",
    "socket_schema",
    "printable",
]

#: Longest client socket message accepted (characters; the socket's frames are capped in bytes).
MAX_MESSAGE: Final = 4096
#: Largest version or seat number a client may send (JSON's exact integers).
MAX_VERSION: Final = 2**53 - 1


def printable(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters, with whatever UTF-8 cannot carry (a lone surrogate)
    shown as a ``\\udxxx`` escape, so that an answer quoting it can always be sent.

    >>> printable("a\\ud800b")
    'a\\\\ud800b'
    """
    return text[:limit].encode("utf-8", "backslashreplace").decode("utf-8")


def _utf8(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        template = N_("{fields}: text that is not UTF-8 (a lone surrogate)")
        raise PydanticCustomError("bad_message", template, {"template": template}) from None
    return value


def _name(value: str) -> str:
    try:
        return check_name(value)
    except RoomError as exc:
        raise PydanticCustomError(exc.code, exc.template, {"template": exc.template, **exc.args_}) from None


#: Text: a JSON string UTF-8 can carry (no lone surrogates: ``"\\ud800"``).
Text = Annotated[str, AfterValidator(_utf8)]
#: A display name (:func:`getaway.web.rooms.check_name`: 1–24 printable characters, spaces collapsed).
Name = Annotated[str, AfterValidator(_utf8), AfterValidator(_name)]
Lang = Literal[tuple(i18n.LANGUAGES)]  # type: ignore[valid-type]
Level = Literal[tuple(LEVELS)]  # type: ignore[valid-type]
Version = Annotated[StrictInt, Field(ge=0, le=MAX_VERSION)]
Token = Annotated[Text, Field(max_length=200)]


class _Model(BaseModel):
    """Strict: no unknown field, no ``"4"`` for 4 nor ``true`` for 1."""

    model_config = ConfigDict(extra="forbid", strict=True)


# ---------------------------------------------------------------------- HTTP bodies and answers

#: The core's option schema (``Rules.schema()``, docs/engine.md): the room options' models are
#: made from it, so that the web has no second copy of the options, their types or ranges.
SCHEMA: Final = Rules.schema()
#: Options a room sets at its top level rather than in ``options``.
_TOP: Final = ("profile", "players", "deals")


def _option_type(spec: dict[str, Any]) -> Any:
    """The pydantic type of one option of :data:`SCHEMA` (a choice, a bounded int, a bool)."""
    if spec["type"] == "bool":
        return StrictBool
    if spec["type"] == "int":
        bounded = Annotated[StrictInt, Field(ge=spec["min"], le=spec["max"])]
        return bounded | None if spec.get("nullable") else bounded
    choices = [c for c in spec["choices"] if c is not None]
    kind: Any = Literal[tuple(choices)]
    return kind | None if None in spec["choices"] else kind


def _options_model() -> type[BaseModel]:
    fields: dict[str, Any] = {
        name: (_option_type(spec), Field(None, description=spec.get("hint") or spec["label"]))
        for name, spec in SCHEMA["options"].items()
        if name not in _TOP
    }
    model = create_model("RoomOptions", __base__=_Model, **fields)
    model.__doc__ = "A room's options (``Rules.schema()``): each one unset keeps the profile's default."
    return model


#: A room's ``options``: every option of the core's schema but the top-level ones, each optional.
RoomOptions: Final = _options_model()
_PLAYERS: Final = SCHEMA["options"]["players"]
_DEALS: Final = SCHEMA["options"]["deals"]


class CreateRoom(_Model):
    """``POST /api/rooms``: the room's configuration, and the creator's name (without a name nobody
    sits: a bot-only or hosted room). Every field optional. Options, their types and ranges come
    from the core's schema; the players' range of a profile and the options that exclude each other
    are the core's checks (a refusal naming the option)."""

    profile: Literal[tuple(SCHEMA["options"]["profile"]["choices"])] = "punjab"  # type: ignore[valid-type]
    players: Annotated[StrictInt, Field(ge=_PLAYERS["min"], le=_PLAYERS["max"])] = 4
    deals: Annotated[StrictInt, Field(ge=_DEALS["min"], le=min(_DEALS["max"], MAX_DEALS))] = 1
    options: RoomOptions = Field(default_factory=RoomOptions)  # type: ignore[valid-type]
    bot_level: Level = "medium"
    hints: StrictBool = True
    public: StrictBool = False
    #: seconds a connected human has for a turn before a bot plays it and they are away
    turn_time: Annotated[StrictInt, Field(ge=MIN_TURN_TIME, le=MAX_TURN_TIME)] = TURN_TIME
    name: Name | None = None

    def config(self) -> dict[str, Any]:
        """The room configuration (:func:`getaway.web.rooms.check_config`'s input): the options given."""
        config = self.model_dump(exclude={"name", "options"})
        config["options"] = self.options.model_dump(exclude_unset=True)
        return config


class JoinRoom(_Model):
    """``POST /api/rooms/{code}/join``: a name, and a seat (0-based; ``None``: the first empty one)."""

    name: Name
    seat: Annotated[StrictInt, Field(ge=0, le=MAX_VERSION)] | None = None


class Created(BaseModel):
    """The answer to ``POST /api/rooms``: ``seat``/``token`` are ``None`` when nobody sat."""

    code: str
    url: str
    host_token: str
    seat: int | None
    token: str | None


class QuickPlay(_Model):
    """``POST /api/quickplay``: your name (a seat in a public room waiting for players, or a new one)."""

    name: Name


class QuickPlayed(BaseModel):
    """The answer to quick play: the room, your seat and its secret token; ``host_token`` and
    ``created`` when no public room had a free seat and a new one was made with you as host."""

    code: str
    url: str
    seat: int
    token: str
    host_token: str | None
    created: bool


class PublicSeat(BaseModel):
    """A seat of a listed room: its player's name (empty for a free seat) and ``kind``."""

    seat: int
    name: str
    kind: Literal["human", "bot", "empty"]


class PublicRoom(BaseModel):
    """A public room waiting in its lobby with a free seat (:func:`getaway.web.rooms.listing`):
    only what its room page shows anyone (no token, seed or hand)."""

    code: str
    url: str
    profile: str
    players: int
    deals: int
    options: dict[str, Any]
    bot_level: str
    free: int
    seats: list[PublicSeat]


class PublicRooms(BaseModel):
    """``GET /api/rooms?public=1``: the public rooms with a free seat, oldest first."""

    rooms: list[PublicRoom]


class Joined(BaseModel):
    """The answer to a join: the seat and its secret token (kept by the page)."""

    seat: int
    token: str


class SeatState(BaseModel):
    """A seat in the public room state; ``kind`` tells a bot from a human (the name never does)."""

    seat: int
    name: str
    kind: Literal["human", "bot", "empty"]
    connected: bool
    bot_playing: bool
    host: bool


class RoomState(BaseModel):
    """The public room state (``GET /api/rooms/{code}``, and ``room`` in socket messages)."""

    code: str
    status: Literal["lobby", "playing", "between_deals", "finished", "closed"]
    config: dict[str, Any]
    seats: list[SeatState]
    deal_index: int | None
    deals: int
    standings: list[dict[str, Any]]
    version: int


class History(BaseModel):
    """``GET /api/rooms/{code}/history``: finished deals (dealer, loser, out order, points) and standings."""

    code: str
    status: str
    names: list[str]
    deals: list[dict[str, Any]]
    standings: list[dict[str, Any]]


class Strings(BaseModel):
    """``GET /api/strings/{lang}``: the page's texts, card, rank and suit names in ``lang``."""

    lang: str
    strings: dict[str, str]
    cards: dict[str, str]
    ranks: dict[str, str]
    suits: dict[str, str]
    suit_plurals: dict[str, str]
    #: the quick chat's phrases and emotes (:data:`getaway.text.chat.PHRASES`): key → text
    chat: dict[str, str]


class RulesSection(BaseModel):
    title: str
    text: str


class RulesSummary(BaseModel):
    """``GET /api/rules/{lang}``: the rules summary of a profile, with the variants in force."""

    profile: str
    title: str
    sections: list[RulesSection]


class ReplayRequest(_Model):
    """``POST /api/replay``: a deal's record (``getaway/1``; the body is size-limited by the edge),
    how many recorded actions to apply (``None``: all), whose view (0-based; ``None``: every hand)."""

    record: dict[str, Any]
    move: Annotated[StrictInt, Field(ge=0, le=MAX_VERSION)] | None = None
    seat: Annotated[StrictInt, Field(ge=0, le=7)] | None = None


class ReplayFrame(BaseModel):
    """The answer to ``POST /api/replay``: one frame of the replay viewer (getaway.web.learn.replay_frame)."""

    players: list[str]
    moves: int
    move: int
    seat: int | None
    view: dict[str, Any]
    hands: list[list[str]] | None
    log: list[str]


class ReviewRequest(_Model):
    """``POST /api/review``: a deal's record, the seat to review (0-based), and optionally a smaller
    budget (the expert's rollouts per decision, at most the review's default: a quicker, rougher review)."""

    record: dict[str, Any]
    seat: Annotated[StrictInt, Field(ge=0, le=7)]
    iterations: Annotated[StrictInt, Field(ge=1, le=REVIEW_ITERATIONS)] | None = None


class ReviewAnswer(BaseModel):
    """The answer to ``POST /api/review`` (getaway.bots.review.Review.to_dict, reasons translated)."""

    players: list[str]
    seat: int
    seed: int
    iterations: int
    lost: bool | None
    mistakes: int
    blunders: int
    decisions: list[dict[str, Any]]


class LessonRequest(_Model):
    """``POST /api/lessons/{key}``: the learner's moves so far (card names or take/pass/pickup)."""

    moves: Annotated[list[Annotated[Text, Field(max_length=12)]], Field(max_length=8)] = Field(default_factory=list)


class LessonState(BaseModel):
    """The answer to ``POST /api/lessons/{key}`` (getaway.web.learn.lesson_state)."""

    key: str
    profile: str
    title: str
    goal: str
    seat: int
    view: dict[str, Any]
    verdict: str
    message: str
    log: list[str]


class LessonItem(BaseModel):
    key: str
    profile: str
    title: str


class ErrorBody(BaseModel):
    """A refusal: a machine-readable ``code`` (docs/web.md) and the ``message`` in the client's language."""

    code: str
    message: str


class ErrorAnswer(BaseModel):
    """Every HTTP refusal (4xx, 5xx): ``{"error": {"code", "message"}}``."""

    error: ErrorBody


class Health(BaseModel):
    """``GET /healthz``: ``ok`` (200: ready), ``starting``, ``draining`` or ``unavailable`` (503:
    the database did not answer); nothing else, so it tells nobody anything."""

    status: Literal["ok", "starting", "draining", "unavailable"]


class RoomCounts(BaseModel):
    """The rooms in this process's memory: ``open`` (all), ``owned`` (run here: a lease, or
    alone), ``mirrored`` (another process owns them; sockets here), ``bots_alone`` (holding a
    slot of the rooms played by bots alone), ``paused`` (played by bots alone, waiting for one)."""

    open: int
    owned: int
    mirrored: int
    bots_alone: int
    paused: int


class BotCounts(BaseModel):
    """The bot worker processes (:meth:`~getaway.web.botpool.BotPool.report`): now (``workers``,
    ``busy``, ``waiting`` searches, ``rooms_waiting``, ``hinting``) and since the start
    (``searches``, ``fallbacks`` and why, ``hints`` searched, ``hint_fallbacks`` and why,
    ``rebuilds``)."""

    workers: int
    busy: int
    waiting: int
    rooms_waiting: int
    hinting: int
    searches: int
    fallbacks: int
    fallback_busy: int
    fallback_late: int
    fallback_crash: int
    fallback_error: int
    fallback_stop: int
    hints: int
    hint_fallbacks: int
    hint_fallback_busy: int
    hint_fallback_late: int
    hint_fallback_crash: int
    hint_fallback_error: int
    hint_fallback_stop: int
    rebuilds: int


class HeartbeatCounts(BaseModel):
    """The lease heartbeat of a process of a cluster, since the start: ``renewals`` (calls
    renewing all its leases), ``lost`` (leases found gone), ``late`` (beats more than a period
    late) and ``worst_late_ms``."""

    renewals: int
    lost: int
    late: int
    worst_late_ms: int


class Stats(BaseModel):
    """``GET /stats``: what an operator reads of one process (counts only: no room code, address,
    seat or card). ``bots`` is ``null`` when bots search in threads (``--bot-workers 0``),
    ``heartbeat`` when the process is alone (no ``--redis-url``)."""

    draining: bool
    rooms: RoomCounts
    bots: BotCounts | None
    heartbeat: HeartbeatCounts | None


# ---------------------------------------------------------------------- socket: client → server


class Hello(_Model):
    """The first message of a socket: a seat's (or the host's) ``token``, or ``spectate: true``."""

    type: Literal["hello"]
    token: Token | None = None
    spectate: StrictBool | None = None
    lang: Lang | None = None
    since: Version | None = None

    def payload(self) -> dict[str, Any]:
        """What :meth:`getaway.web.rooms.RoomService.attach` reads."""
        return self.model_dump(exclude_none=True)


class Act(_Model):
    """A move of this socket's seat (``"10h"``, ``"Q♠"``, ``"take"``, ``"pass"``, ``"pickup"``),
    made on the room ``version`` the client last saw."""

    type: Literal["act"]
    action: Annotated[Text, Field(max_length=16)]
    version: Version


class Back(_Model):
    """A player marked away (their turn timed out, a bot plays for them) takes their seat back;
    any ``act`` of theirs while away does the same (and is not played)."""

    type: Literal["back"]


class Finish(_Model):
    """Finish the deal at once: bots play the rest without their delay. Refused (``not_now``)
    while a human (not away) is still in the deal."""

    type: Literal["finish"]


class Start(_Model):
    """The host starts the match (empty seats become bots)."""

    type: Literal["start"]


class Next(_Model):
    """The host starts the next deal of the match."""

    type: Literal["next"]


class SetLang(_Model):
    """Switch the socket's language; answered with a ``sync``."""

    type: Literal["lang"]
    lang: Lang


class Ping(_Model):
    """Answered with ``pong``."""

    type: Literal["ping"]


class AskHint(_Model):
    """Ask for the expert's move on this socket's own decision (web/hints.py); answered with a
    ``hint`` to this socket only, or an ``error`` (``hints_off``, ``not_your_turn``)."""

    type: Literal["hint"]


class AskRematch(_Model):
    """At the end of a match (a seat's or the host's socket): a new room with the same players
    and options; each human's socket is answered with ``rematch`` (its own token only)."""

    type: Literal["rematch"]


class Chat(_Model):
    """Quick chat: a seated player says one of the preset phrases or emotes (``phrase``, a key of
    :data:`getaway.text.chat.PHRASES`: no free text); everyone in the room gets a ``chat``. Refused
    for a spectator (``spectator``) and beyond a few per seat (``rate_limited``)."""

    type: Literal["chat"]
    phrase: Literal[PHRASES]  # type: ignore[valid-type]


ClientMessage = Annotated[
    Hello | Act | Back | Finish | Start | Next | SetLang | Ping | AskHint | AskRematch | Chat,
    Field(discriminator="type"),
]
_CLIENT: Final = TypeAdapter(ClientMessage)


def _tags(union: Any) -> tuple[str, ...]:
    """The ``type`` tags of a discriminated union of message models, in the union's order."""
    return tuple(
        tag for model in get_args(get_args(union)[0]) for tag in get_args(model.model_fields["type"].annotation)
    )


#: Every client message's ``type`` (from :data:`ClientMessage`): ``("hello", "act", …)``.
CLIENT_TAGS: Final = _tags(ClientMessage)


# ---------------------------------------------------------------------- socket: server → client


class _Out(BaseModel):
    """A message the server sends: nothing but its declared fields (``additionalProperties:
    false`` in the socket schema; tests/test_web_frames.py checks every frame sent against it)."""

    model_config = ConfigDict(extra="forbid")


class Illegal(_Out):
    """Why a card of this seat's hand may not be played now: the ``card``, the engine's
    ``reason`` code (``Deal.why_illegal``) and its ``text`` in the socket's language."""

    card: str
    reason: str
    text: str


class Welcome(_Out):
    """The answer to ``hello`` (and ``sync``: the same, after ``lang`` or a reconnect): the whole
    state this socket may see; ``view`` is ``PlayerView.to_dict()`` of its seat (docs/engine.md);
    ``illegal``: why each card of this seat's hand may not be played now (``{"card", "reason",
    "text"}``, this seat's only)."""

    type: Literal["welcome", "sync"]
    seat: int | None
    host: bool
    room: RoomState
    view: dict[str, Any] | None
    illegal: list[Illegal]
    version: int
    log: list[str]
    #: seconds left of the turn timer of the human to act, ``None`` when no human's turn is timed
    turn_ends_in: float | None = None


class Update(_Out):
    """After every accepted command: the view without ``history``, the new redacted ``events``
    (the whole deal's when a deal began), ``history_length`` to check against, new narration."""

    type: Literal["update"]
    version: int
    room: RoomState
    view: dict[str, Any] | None
    events: list[dict[str, Any]]
    history_length: int
    illegal: list[Illegal]
    log: list[str]
    #: as in :class:`Welcome`
    turn_ends_in: float | None = None


class Absent(_Out):
    """A seat's player left: a bot takes over at ``deadline`` (Unix seconds)."""

    type: Literal["absent"]
    seat: int
    deadline: float


class ErrorMessage(_Out):
    """A refused message: nothing changed; ``version`` is the room's (``None`` before a room)."""

    type: Literal["error"]
    code: str
    message: str
    version: int | None


class Pong(_Out):
    """The answer to ``ping``."""

    type: Literal["pong"]


class Closed(_Out):
    """The room is closed, and the socket closes after it: ``reason`` is the logged close's
    (``idle``: no command for ``--idle``; ``host``: the host closed it; ``restart``: a started room
    without a human seat at start-up), ``closed`` where a follower of another process's room
    found no close in the log."""

    type: Literal["closed"]
    reason: Literal["idle", "host", "restart", "closed"]


class Hint(_Out):
    """The answer to ``hint``, to that socket only: the expert's ``action`` (``"7♠"``, ``"take"``)
    and ``text``, the move and its reason in the socket's language, for the room ``version``."""

    type: Literal["hint"]
    action: str
    text: str
    version: int


class Rematch(_Out):
    """The rematch room of a finished match, to one socket: its ``code`` and ``url``, this
    socket's new ``seat`` and secret ``token`` (``None`` for a host without a seat), and the new
    ``host_token`` for the host's socket only (else ``None``)."""

    type: Literal["rematch"]
    code: str
    url: str
    seat: int | None
    token: str | None
    host_token: str | None


class ChatFrame(_Out):
    """A seat's quick chat, to every socket of the room (spectators too): the sender's ``seat``
    (0-based) and the ``phrase``'s key (the page shows its text from ``/api/strings``)."""

    type: Literal["chat"]
    seat: int
    phrase: str


ServerMessage = Annotated[
    Welcome | Update | Absent | ErrorMessage | Pong | Closed | Hint | Rematch | ChatFrame,
    Field(discriminator="type"),
]
SERVER: Final = TypeAdapter(ServerMessage)
#: Every server message's ``type`` (from :data:`ServerMessage`): ``("welcome", "sync", "update", …)``.
SERVER_TAGS: Final = _tags(ServerMessage)


def socket_schema() -> dict[str, Any]:
    """The JSON Schema of the socket's messages (``GET /api/socket-schema.json``), generated from
    the models: ``{"client": <schema of ClientMessage>, "server": <schema of ServerMessage>}``,
    each union titled, every message with its model's title and description (docs/web.md's
    tables are made from it: :mod:`getaway.web.socketdoc`)."""
    return {
        "$comment": "Getaway WebSocket /ws/{code} (docs/web.md): one JSON object per message, by type",
        "client": {
            "title": "ClientMessage",
            "description": "What a client sends on the socket (hello first).",
            **_CLIENT.json_schema(),
        },
        "server": {
            "title": "ServerMessage",
            "description": "What the server sends on the socket.",
            **SERVER.json_schema(),
        },
    }


# ---------------------------------------------------------------------- parsing and refusals


def parse_client(text: str) -> ClientMessage:
    """One client socket message, parsed and checked.

    Raises:
        pydantic.ValidationError: not JSON, not a known message, a bad field (see :func:`refusal`).
    """
    return _CLIENT.validate_json(text)


def client_error(text: str) -> ValidationError:
    """The :class:`~pydantic.ValidationError` that ``text`` raises (for tests and doctests).

    Raises:
        AssertionError: ``text`` is a valid message.
    """
    try:
        parse_client(text)
    except ValidationError as exc:
        return exc
    raise AssertionError("a valid message")


def _field(loc: tuple[Any, ...], whole: str = "?") -> str:
    return printable(".".join(str(p) for p in loc) or whole)


def refusal(error: ValidationError | list[Any], *, body: bool = False, field: str = "") -> RoomError:
    """The :class:`RoomError` for a message or body that did not validate: its first problem,
    naming the field (``players``, ``options.ante``, ``action``).

    Args:
        error: pydantic's error, or the list of its ``errors()`` (FastAPI's ``RequestValidationError``).
        body: an HTTP body (its locations start with ``body``, and its "not JSON" text says request).
        field: the name of the value that was parsed (``options`` of a query), before its inner fields.
    """
    errors = error.errors() if isinstance(error, ValidationError) else list(error)
    if not errors:
        return RoomError("bad_message", N_("expected a JSON object"))
    first = errors[0]
    kind = first.get("type", "")
    loc = tuple(first.get("loc", ()))
    if body and loc[:1] and loc[0] in ("body", "path", "query", "header"):
        loc = loc[1:]
    if field:
        loc = (field, *loc)
    ctx = first.get("ctx") or {}
    if kind == "json_invalid":
        if body:
            return RoomError("bad_json", N_("the request is not valid JSON"))
        return RoomError("bad_json", N_("the message is not valid JSON"))
    if kind == "union_tag_invalid":
        given = first.get("input")
        if isinstance(given, dict) and isinstance(given.get("type"), str):
            return RoomError("unknown_type", N_("unknown message type"))
        return RoomError("bad_message", N_("expected a JSON object with a type"))
    if kind in ("union_tag_not_found", "model_attributes_type", "dict_type", "model_type") and len(loc) <= 1:
        if body:
            return RoomError("bad_message", N_("expected a JSON object"))
        return RoomError("bad_message", N_("expected a JSON object with a type"))
    if not body and loc and loc[0] in CLIENT_TAGS:
        loc = loc[1:]  # the socket union's tag (an HTTP body has no union: a field may be called "lang")
    whole = "body" if body else "message"
    if "template" in ctx:  # our own checks (names, text): their code and message
        args = {k: (printable(v) if isinstance(v, str) else v) for k, v in ctx.items() if k != "template"}
        return RoomError(kind, ctx["template"], fields=_field(loc, whole), **args)
    if kind == "string_unicode":  # a lone surrogate where pydantic cannot even read it (a key)
        return RoomError(
            "bad_message", N_("{fields}: text that is not UTF-8 (a lone surrogate)"), fields=_field(loc, whole)
        )
    if kind == "missing":
        return RoomError("bad_message", N_("missing field: {fields}"), fields=_field(loc, whole))
    if kind == "extra_forbidden":
        return RoomError("bad_message", N_("unknown field: {fields}"), fields=_field(loc, whole))
    fields = _field(loc, whole)
    if kind in ("greater_than_equal", "less_than_equal") and isinstance(first.get("input"), int):
        limit = ctx.get("ge", ctx.get("le"))
        if kind == "greater_than_equal":
            return RoomError("bad_message", N_("{fields}: at least {limit}"), fields=fields, limit=limit)
        return RoomError("bad_message", N_("{fields}: at most {limit}"), fields=fields, limit=limit)
    if kind == "literal_error" and "expected" in ctx:
        # pydantic writes the choices in English ("'en', 'fr' or 'es'"): list them with commas only
        known = ", ".join(str(ctx["expected"]).rsplit(" or ", 1))
        return RoomError("bad_message", N_("{fields}: expected {known}"), fields=fields, known=printable(known))
    return RoomError("bad_message", N_("bad value for: {fields}"), fields=fields)
