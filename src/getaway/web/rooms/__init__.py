"""Rooms of the web app: :class:`Room` (pure state, :mod:`.state`) and :class:`RoomService` (one
writer per room, :mod:`.service`), in modules that each own one concern; each module's docstring
says what it owns and which siblings it may import (tests/test_architecture.py checks the arrows):

- :mod:`.errors`: :class:`RoomError` and the refusals (imports no sibling);
- :mod:`.checks`: limits, names, configurations, tokens and codes (imports :mod:`.errors`);
- :mod:`.state`: :class:`Room`, its seats and commands (imports :mod:`.errors`, :mod:`.checks`);
- :mod:`.handles`: a room's runtime record, a socket's connection, a queue's job;
- :mod:`.worker`, :mod:`.timers`, :mod:`.bots`, :mod:`.sockets`, :mod:`.reads`, :mod:`.lobby`,
  :mod:`.cluster`, :mod:`.mirror`: the components of the service (none imports :mod:`.service`);
- :mod:`.service`: the :class:`RoomService` façade holding them.

Other modules of ``getaway.web`` import from the submodule they need (``RoomError`` from
:mod:`.errors`), so that a refusal does not pull in the service; this package re-exports the
names it always had.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names for readers and checkers; at run time each is imported when first asked
    from .checks import (
        MAX_DEALS,
        MAX_NAME,
        MAX_TAKE_WINDOW,
        MAX_TURN_TIME,
        MIN_TAKE_WINDOW,
        MIN_TURN_TIME,
        STATUSES,
        TAKE_WINDOW,
        TURN_TIME,
        check_config,
        check_name,
        hash_token,
        live_config,
        new_code,
        new_secret,
        new_token,
    )
    from .errors import RelayedError, RoomError, draining_error
    from .handles import RESTART_CLOSE, SEARCH_SHARE, Connection, RoomHandle, room_bot
    from .service import RoomService
    from .state import Room, listing
    from .timers import TAKE_MOMENT

#: Where each re-exported name lives.
_HOMES: dict[str, str] = {
    "MAX_DEALS": "checks",
    "MAX_NAME": "checks",
    "MAX_TAKE_WINDOW": "checks",
    "MAX_TURN_TIME": "checks",
    "MIN_TAKE_WINDOW": "checks",
    "MIN_TURN_TIME": "checks",
    "STATUSES": "checks",
    "TAKE_WINDOW": "checks",
    "TURN_TIME": "checks",
    "check_config": "checks",
    "check_name": "checks",
    "hash_token": "checks",
    "live_config": "checks",
    "new_code": "checks",
    "new_secret": "checks",
    "new_token": "checks",
    "RelayedError": "errors",
    "RoomError": "errors",
    "draining_error": "errors",
    "RESTART_CLOSE": "handles",
    "SEARCH_SHARE": "handles",
    "Connection": "handles",
    "RoomHandle": "handles",
    "room_bot": "handles",
    "RoomService": "service",
    "Room": "state",
    "listing": "state",
    "TAKE_MOMENT": "timers",
}

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
    # also importable from here, as before the package (each from its own module now)
    "MAX_DEALS",
    "MAX_TAKE_WINDOW",
    "MAX_TURN_TIME",
    "MIN_TAKE_WINDOW",
    "MIN_TURN_TIME",
    "TAKE_WINDOW",
    "TURN_TIME",
    "TAKE_MOMENT",
    "SEARCH_SHARE",
    "RESTART_CLOSE",
    "RelayedError",
    "RoomHandle",
    "check_config",
    "check_name",
    "draining_error",
    "live_config",
]


def __getattr__(name: str) -> Any:
    """A re-exported name, imported from its module when first asked (so that importing
    ``getaway.web.rooms.errors`` does not import the service)."""
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
