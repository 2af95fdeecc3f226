"""The commands of a room, one typed union: what a room's queue carries, what :meth:`Room.apply
<getaway.web.rooms.state.Room.apply>` dispatches on (``match``), what the log keeps and what a
mirror forwards to the owner (web/redis_broker.py carries a command as ``{"kind", "payload"}``).

A command is a small frozen dataclass; its ``kind`` names it in the log and on the wire, and its
fields, in order, are its payload (:meth:`payload`): the log's JSON of a command is its fields,
so that a new field is one edit here (logged, forwarded and replayed from the same class).
The logged form is the one the room returns from :meth:`~getaway.web.rooms.state.Room.apply`
(normalized: a join's seat chosen, an act's action as its name); stored logs replay through
:func:`logged`. Two commands are only asked, never logged: :class:`Finish` (bots finish the
deal at once) and :class:`AskRematch` (the owner makes the room and logs :class:`Rematch`).

Owns: the command classes and their two tables (:data:`LOGGED`, :data:`REQUESTS`). Imports
:mod:`.errors` only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from ...text.i18n import N_
from .errors import RoomError

__all__ = [
    "Command",
    "Join",
    "Start",
    "Act",
    "Absent",
    "Reclaim",
    "NextDeal",
    "Rematch",
    "Close",
    "Finish",
    "AskRematch",
    "LOGGED",
    "REQUESTS",
    "logged",
    "requested",
]


class _Command:
    """What every command has: its ``kind`` and its payload (its fields, in order)."""

    __slots__ = ()
    kind: ClassVar[str]
    __match_args__: ClassVar[tuple[str, ...]]

    def payload(self) -> dict[str, Any]:
        """The command's fields as the log and the forwarded body carry them (JSON values)."""
        return {name: getattr(self, name) for name in self.__match_args__}

    @classmethod
    def of(cls, payload: dict[str, Any]) -> Any:
        """The command of a stored or forwarded ``payload``: its known fields (a missing one
        takes its default; the room checks the values when it applies it)."""
        return cls(**{name: payload[name] for name in cls.__match_args__ if name in payload})


@dataclass(frozen=True, slots=True)
class Join(_Command):
    """Sit a player: ``seat`` (``None``: the first empty one), ``name``, ``token_hash`` (of their
    seat token), ``host``. Fields as sent by HTTP, checked by the room.

    ``quick``: a quick play's join: the owner seats the player only in a room still waiting in
    the lobby, as one more host (who may start it, not close it), and starts the room when that
    seat was its last free one (:meth:`~getaway.web.rooms.lobby.Matchmaking.quick_seat`). In the
    payload only when set, so that every other join is logged as before.
    """

    kind: ClassVar[str] = "join"
    seat: Any = None
    name: Any = None
    token_hash: Any = None
    host: bool = False
    quick: bool = False

    def payload(self) -> dict[str, Any]:
        """The fields as logged (``quick`` only when set)."""
        fields = {"seat": self.seat, "name": self.name, "token_hash": self.token_hash, "host": self.host}
        return {**fields, "quick": True} if self.quick else fields


@dataclass(frozen=True, slots=True)
class Start(_Command):
    """Start the match (empty seats become bots)."""

    kind: ClassVar[str] = "start"


@dataclass(frozen=True, slots=True)
class Act(_Command):
    """A move of ``seat`` (``action`` as the engine parses it), by its bot if ``bot``."""

    kind: ClassVar[str] = "act"
    seat: Any = None
    action: Any = None
    bot: bool = False


@dataclass(frozen=True, slots=True)
class Absent(_Command):
    """A bot plays ``seat`` for its absent player."""

    kind: ClassVar[str] = "absent"
    seat: Any = None


@dataclass(frozen=True, slots=True)
class Reclaim(_Command):
    """The player of ``seat`` is back: their bot stops."""

    kind: ClassVar[str] = "reclaim"
    seat: Any = None


@dataclass(frozen=True, slots=True)
class NextDeal(_Command):
    """Start the next deal of the match."""

    kind: ClassVar[str] = "next_deal"


@dataclass(frozen=True, slots=True)
class Rematch(_Command):
    """The rematch room made for the finished match: its ``code``, and the seat that is host
    there (``host``; ``None``: this room's seat-less host)."""

    kind: ClassVar[str] = "rematch"
    code: Any = None
    host: Any = None


@dataclass(frozen=True, slots=True)
class Close(_Command):
    """Close the room (``reason``: ``idle``, ``host``, ``restart``)."""

    kind: ClassVar[str] = "close"
    reason: Any = "idle"


@dataclass(frozen=True, slots=True)
class Finish(_Command):
    """Bots play the rest of the deal without their delay (asked, never logged)."""

    kind: ClassVar[str] = "finish"


@dataclass(frozen=True, slots=True)
class AskRematch(_Command):
    """Make the rematch room, asked by the socket of ``seat`` (``None``: a seat-less one),
    the host's if ``host``; the owner logs the :class:`Rematch` it made (never logged itself)."""

    kind: ClassVar[str] = "rematch"
    seat: Any = None
    host: bool = False


#: A command of a room (what :meth:`~getaway.web.rooms.state.Room.apply` takes and returns).
Command = Join | Start | Act | Absent | Reclaim | NextDeal | Rematch | Close | Finish | AskRematch
#: The commands of the log, by kind.
LOGGED: Final[dict[str, type[Any]]] = {c.kind: c for c in (Join, Start, Act, Absent, Reclaim, NextDeal, Rematch, Close)}
#: The commands a mirror forwards to the owner, by kind (a rematch is asked, not yet made).
REQUESTS: Final[dict[str, type[Any]]] = {**LOGGED, AskRematch.kind: AskRematch, Finish.kind: Finish}


def _of(table: dict[str, type[Any]], kind: str, payload: dict[str, Any]) -> Command:
    cls = table.get(kind)
    if cls is None:
        raise RoomError("unknown_type", N_("unknown command {kind!r}"), kind=kind)
    return cls.of(payload)


def logged(kind: str, payload: dict[str, Any]) -> Command:
    """The command of a log entry (``kind``, ``payload``), to replay.

    Raises:
        RoomError: ``unknown_type`` (no such command).
    """
    return _of(LOGGED, kind, payload)


def requested(kind: str, payload: dict[str, Any]) -> Command:
    """The command of a forwarded request (``kind``, ``payload``: :meth:`payload` of the
    mirror's command).

    Raises:
        RoomError: ``unknown_type`` (no such command).
    """
    return _of(REQUESTS, kind, payload)
