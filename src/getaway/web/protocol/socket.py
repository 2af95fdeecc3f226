"""The socket's messages both ways, as discriminated unions on ``type`` (``ClientMessage``,
``ServerMessage``), their tag lists and their JSON Schema (``GET /api/socket-schema.json``);
parsing a client message.

Imports :mod:`.base` and :mod:`.http` (the room's state, shared with the HTTP API).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    TypeAdapter,
    ValidationError,
)

from ...text.chat import PHRASES
from .base import Lang, Text, Token, Version, _Model
from .http import RoomState

__all__ = [
    "Hello",
    "Act",
    "Back",
    "Finish",
    "Start",
    "Next",
    "SetLang",
    "SetSpeed",
    "Speed",
    "Ping",
    "AskHint",
    "AskRematch",
    "Chat",
    "ClientMessage",
    "CLIENT_TAGS",
    "Illegal",
    "Welcome",
    "Update",
    "Absent",
    "ErrorMessage",
    "Pong",
    "Closed",
    "Hint",
    "Rematch",
    "ChatFrame",
    "ServerMessage",
    "SERVER",
    "SERVER_TAGS",
    "socket_schema",
    "parse_client",
    "client_error",
]

# ---------------------------------------------------------------------- socket: client → server

#: A page's speed (its header's select, kept in the browser): the room's linger of a finished
#: trick and its bots' delay follow the slowest of its sockets' (docs/web.md "Pace").
Speed = Literal["relaxed", "normal", "fast"]


class Hello(_Model):
    """The first message of a socket: a seat's (or the host's) ``token``, or ``spectate: true``."""

    type: Literal["hello"]
    token: Token | None = None
    spectate: StrictBool | None = None
    lang: Lang | None = None
    since: Version | None = None
    #: the page's speed (``normal`` when not told)
    speed: Speed | None = None

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


class SetSpeed(_Model):
    """The page's speed changed (relaxed ×1.6, normal, fast ×0.6): the room's pace, the linger
    of a finished trick before the next lead and the bots' delay, is its slowest socket's.
    Not answered."""

    type: Literal["speed"]
    speed: Speed


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
    Hello | Act | Back | Finish | Start | Next | SetLang | SetSpeed | Ping | AskHint | AskRematch | Chat,
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
    #: seconds left of the take window a bot's lead waits for (a connected human may take:
    #: docs/web.md "Takes"), ``None`` when there is none
    take_ends_in: float | None = None


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
    #: as in :class:`Welcome`
    take_ends_in: float | None = None


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
    socket's new ``seat`` and secret ``token`` (``None`` for a host without a seat, and for a
    seat whose other socket, on another process, took the seat there: that token never leaves
    its process), and the new ``host_token`` for the host's socket only (else ``None``)."""

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
