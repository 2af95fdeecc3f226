"""The web app's routes, one APIRouter per area (docs/web.md "Server details"); the app factory
:func:`getaway.web.app.create_app` includes them in :data:`ROUTERS`' order.

- :mod:`.common`: what the areas share: the service and the limits of the app, the address and
  read checks, the host's bearer token, the refusals and the error handlers.
- :mod:`.health`: ``/healthz`` and ``/stats``.
- :mod:`.rooms`: creating, listing, joining, starting and closing rooms, quick play.
- :mod:`.reads`: a room's state, history and deal records.
- :mod:`.learn`: the replay viewer, the review and the lessons.
- :mod:`.texts`: the page's texts, its language, the rules, the option and socket schemas.
- :mod:`.offline`: the files of offline play against bots (the Pyodide worker's).
- :mod:`.pages`: the page itself (and ``/static``).
- :mod:`.socket`: the WebSocket ``/ws/{code}``.

Each module imports :mod:`.common`, the models (:mod:`getaway.web.protocol`) and the service's
names (:mod:`getaway.web.rooms`); none imports another area's module.
"""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter

from . import health, learn, offline, pages, reads, rooms, socket, texts

__all__ = ["ROUTERS"]

#: The routers in the order their routes are matched (and listed in the OpenAPI document).
ROUTERS: Final[tuple[APIRouter, ...]] = (
    health.router,
    rooms.router,
    reads.router,
    learn.router,
    texts.router,
    offline.router,
    pages.router,
    socket.router,
)
