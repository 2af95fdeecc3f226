"""The HTTP API's bodies and answers (``GET /api/openapi.json`` is made from them by FastAPI).

Imports :mod:`.base`.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    create_model,
)

from ...bots.review import REVIEW_ITERATIONS
from ...core.rules import Rules
from ..rooms.checks import (
    MAX_DEALS,
    MAX_TAKE_WINDOW,
    MAX_TURN_TIME,
    MIN_TAKE_WINDOW,
    MIN_TURN_TIME,
    TAKE_WINDOW,
    TURN_TIME,
)
from .base import MAX_VERSION, Level, Name, Text, _Model

__all__ = [
    "SCHEMA",
    "RoomOptions",
    "CreateRoom",
    "JoinRoom",
    "Created",
    "QuickPlay",
    "QuickPlayed",
    "PublicSeat",
    "PublicRoom",
    "PublicRooms",
    "Joined",
    "SeatState",
    "RoomState",
    "History",
    "Strings",
    "RulesSection",
    "RulesSummary",
    "ReplayRequest",
    "ReplayFrame",
    "ReviewRequest",
    "ReviewAnswer",
    "LessonRequest",
    "LessonState",
    "LessonItem",
    "ErrorBody",
    "ErrorAnswer",
    "Health",
    "RoomCounts",
    "BotCounts",
    "HeartbeatCounts",
    "ReviewCounts",
    "Stats",
]

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
    #: seconds a bot's lead waits between tricks while a connected human may take (docs/web.md "Takes")
    take_window: Annotated[StrictInt | StrictFloat, Field(ge=MIN_TAKE_WINDOW, le=MAX_TAKE_WINDOW)] = TAKE_WINDOW
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
    """The answer to quick play: the room, your seat and its secret token, a host token (seated
    in a waiting room, your seat's token: you are one more host of it and may start it; else the
    new public room's, made with you as host) and ``created`` when that room is new."""

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

    #: any JSON (a file dropped on the page): what is not a record is refused in a player's words
    record: Any
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

    #: any JSON (a file dropped on the page): what is not a record is refused in a player's words
    record: Any
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
    #: why each card of the learner's hand may not be played now: ``{"card", "reason", "text"}``
    #: (as the socket's ``illegal``), shown next to the hand when such a card is tapped
    illegal: list[dict[str, str]] = []


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


class ReviewCounts(BaseModel):
    """The review workers of one process (:meth:`~getaway.web.reviews.ReviewPool.report`): now
    (``workers``, ``queue`` places, reviews ``running`` and ``waiting``) and since the start
    (``reviews`` made, refused ``busy`` (503) and ``per_address`` (429), ``failed``)."""

    workers: int
    queue: int
    running: int
    waiting: int
    reviews: int
    busy: int
    per_address: int
    failed: int


class Stats(BaseModel):
    """``GET /stats``: what an operator reads of one process (counts only: no room code, address,
    seat or card). ``bots`` is ``null`` when bots search in threads (``--bot-workers 0``),
    ``heartbeat`` when the process is alone (no ``--redis-url``); ``reviews``: its review workers
    (``null`` only in a report made without the app)."""

    draining: bool
    rooms: RoomCounts
    bots: BotCounts | None
    heartbeat: HeartbeatCounts | None
    reviews: ReviewCounts | None = None
