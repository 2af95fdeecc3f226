"""What the route areas share: the app's service and limits, the checks of a client's address
(rooms and seats per minute, reads per second), the host's bearer token, a language of the path,
the refusals of the OpenAPI document and the handlers that answer every error in the API's shape.

Imports: FastAPI, the edge (:mod:`getaway.web.edge`), the models and the service's errors.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...text import i18n
from ...text.i18n import N_
from .. import protocol
from ..edge import BodyTooLarge, Limits, client_lang, error_json
from ..protocol import refusal
from ..rooms.errors import RoomError
from ..rooms.service import RoomService
from .pages import not_found_page

__all__ = [
    "REFUSALS",
    "address_of",
    "bearer",
    "check_address",
    "check_heavy",
    "check_reads",
    "error_response",
    "install_error_handlers",
    "lang_of",
    "limits_of",
    "service_of",
]

#: The answers a route may refuse with, for the OpenAPI document.
REFUSALS: Final[dict[int | str, dict[str, Any]]] = {
    status: {"model": protocol.ErrorAnswer} for status in (400, 403, 404, 409, 410, 413, 415, 429, 503)
}


def service_of(request: Request | WebSocket) -> RoomService:
    """The app's :class:`~getaway.web.rooms.RoomService` (started by the lifespan)."""
    return request.app.state.service


def limits_of(request: Request | WebSocket) -> Limits:
    """The app's rate limits (:class:`~getaway.web.edge.Limits`)."""
    return request.app.state.limits


def address_of(request: Request | WebSocket) -> str:
    """The client's address (the peer's, or a trusted proxy's client: ``forwarded_allow_ips``)."""
    return request.client.host if request.client is not None else "?"


def check_address(request: Request) -> None:
    """Count a room created or a seat taken from the client's address.

    Raises:
        RoomError: ``rate_limited`` (429, ``Retry-After``) past the rooms per minute.
    """
    _count(request, "rooms", N_("too many rooms or seats from your address: wait a minute"))


def check_reads(request: Request) -> None:
    """Count a room read (state, history, records, a room's rules) from the client's address.

    Raises:
        RoomError: ``rate_limited`` (429, ``Retry-After``) past the reads per second.
    """
    _count(request, "reads", N_("too many requests from your address: wait a moment"))


def check_heavy(request: Request, cost: int = 1) -> None:
    """Count a heavy read (a replay frame or a record download: ``cost`` 1; a review: the
    ``review_weight`` setting) from the client's address, in the budget the three kinds share
    (``heavy_reads_per_minute``; docs/web.md "Heavy reads").

    Raises:
        RoomError: ``rate_limited`` (429, ``Retry-After``, the wait in words) past the budget.
    """
    limits = limits_of(request)
    address = address_of(request)
    if not limits.heavy(address, cost):
        seconds = limits.wait("heavy", address)
        message = N_("too many reviews, replays or record downloads from your address: try again in {seconds} s")
        error = RoomError("rate_limited", message, 429, seconds=seconds)
        error.retry_after = seconds
        raise error


def _count(request: Request, window: str, message: str) -> None:
    # one more in the address's window ("rooms" or "reads"); past it, 429 with the wait
    limits = limits_of(request)
    address = address_of(request)
    if not (limits.room(address) if window == "rooms" else limits.read(address)):
        error = RoomError("rate_limited", message, 429)
        error.retry_after = limits.wait(window, address)
        raise error


def bearer(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` header.

    Raises:
        RoomError: ``not_host`` (403) without one.
    """
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise RoomError("not_host", N_("only the host can do this"), 403)
    return token.strip()


def lang_of(lang: str) -> str:
    """``lang`` when it is one of :data:`getaway.text.i18n.LANGUAGES`.

    Raises:
        RoomError: ``not_found`` (404) naming the languages.
    """
    if lang not in i18n.LANGUAGES:
        raise RoomError("not_found", N_("language: expected one of {known}"), 404, known=", ".join(i18n.LANGUAGES))
    return lang


def error_response(exc: RoomError, lang: str) -> Response:
    """A refusal as the API answers it: ``{"error": {code, message}}`` in ``lang``, its status
    and ``Retry-After`` when it has one."""
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return Response(error_json(exc, lang), status_code=exc.status, media_type="application/json", headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    """Answer FastAPI's own refusals, every route's :class:`RoomError` and a body that does not
    fit its model in the API's shape, the message in the client's language; a page's path that
    is no page (GET or HEAD outside ``/api/``) gets an HTML page instead (:func:`.pages.not_found_page`)."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # FastAPI's own refusals (no such route, wrong method, a body it could not read) in the API's shape.
        if isinstance(exc, BodyTooLarge):
            error = RoomError("bad_message", N_("request too large"), 413)
        elif exc.status_code == 400:  # a body FastAPI could not decode (too deeply nested JSON)
            error = RoomError("bad_json", N_("the request is not valid JSON"))
        elif exc.status_code == 404 and request.method in ("GET", "HEAD") and not request.url.path.startswith("/api/"):
            return not_found_page(request.url.path, client_lang(request))  # a page's path: a page says so
        else:
            code = {404: "not_found", 405: "bad_message"}.get(exc.status_code, "bad_message")
            error = RoomError(code, N_("no such page or method: {path}"), exc.status_code, path=request.url.path[:80])
        return error_response(error, client_lang(request))

    @app.exception_handler(RoomError)
    async def room_error(request: Request, exc: RoomError) -> Response:
        # Every route's refusal (a RoomError raised anywhere in it): its code and status, the
        # message in the client's language.
        return error_response(exc, client_lang(request))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        # A body, path or query value that does not fit its model: the first problem, naming the field.
        return error_response(refusal(list(exc.errors()), body=True), client_lang(request))
