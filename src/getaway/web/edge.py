"""The web app's edge (docs/web.md, "Seats and security"): rate limits (the ``limits`` library),
bounded request bodies, browser protections (Content-Security-Policy and friends, ``Origin`` and
``Content-Type`` checks), and the client's language for refusals made before any route runs.

>>> limits = Limits(rooms_per_minute=1, rate=1, burst=1)
>>> [limits.room("10.0.0.1") for _ in range(3)], limits.room("10.0.0.2")
([True, True, False], True)
>>> same_origin("http://localhost:8000", "localhost:8000"), same_origin("https://evil.example", "localhost:8000")
(True, False)
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Final
from urllib.parse import urlsplit

from limits import RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException

from ..text import i18n
from ..text.i18n import N_
from .protocol import printable
from .rooms.errors import RoomError
from .settings import MAX_BODY  # the default of ServeSettings.max_body

log = logging.getLogger("getaway.web")

__all__ = [
    "Limits",
    "EdgeMiddleware",
    "BodyTooLarge",
    "SECURITY_HEADERS",
    "MAX_BODY",
    "MAX_FRAME",
    "CHATS_PER_WINDOW",
    "CHAT_WINDOW",
    "accept_language",
    "client_lang",
    "same_origin",
]

#: Largest WebSocket frame (bytes): 4,096 characters of up to 4 UTF-8 bytes. The server (uvicorn's
#: ``ws_max_size``) closes a socket that sends a longer one with 1009 before buffering it.
MAX_FRAME: Final = 16_384

#: Quick chats a seat may say per :data:`CHAT_WINDOW` seconds (a burst, then a wait).
CHATS_PER_WINDOW: Final = 3
CHAT_WINDOW: Final = 10

#: Headers of every HTTP answer. The page has no inline script or style attribute (styles are
#: set through the CSSOM, which ``style-src 'self'`` allows), loads nothing from elsewhere and
#: talks only to its own origin (``connect-src 'self'`` covers its WebSocket); its fonts, its web app
#: manifest and its service worker (``/sw.js``) are its own files too.
SECURITY_HEADERS: Final = (
    (
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "font-src 'self'; manifest-src 'self'; worker-src 'self'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
    ("cross-origin-opener-policy", "same-origin"),
)
_SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})


def client_lang(conn: Any) -> str:
    """The language a client asked for (a Starlette ``Request`` or ``WebSocket``): ``?lang=xx``,
    else the most preferred language of its ``Accept-Language`` header that has a catalog
    (:func:`accept_language`), else English."""
    asked = conn.query_params.get("lang")
    if asked in i18n.LANGUAGES:
        return asked
    return accept_language(conn.headers.get("accept-language", ""))


def accept_language(header: str) -> str:
    """The language of :data:`getaway.text.i18n.LANGUAGES` that an ``Accept-Language`` header
    (RFC 9110 §12.5.4) prefers: tags by falling ``q`` (equal ``q``: in the header's order), a
    region or script ignored (``hi-IN``, ``pa-Guru-IN``); ``q=0`` and malformed parts are
    skipped, and English when none has a catalog.

    >>> accept_language("pa-IN,pa;q=0.9,en;q=0.8"), accept_language("en;q=0.2, hi-IN"), accept_language("de;q=x")
    ('pa', 'hi', 'en')
    """
    ranked: list[tuple[float, int, str]] = []
    for order, part in enumerate(header.split(",")[:32]):
        tag, *params = (piece.strip() for piece in part.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = -1.0
        code = tag.split("-")[0].lower()
        if 0 < q <= 1 and code in i18n.LANGUAGES:
            ranked.append((-q, order, code))
    return min(ranked)[2] if ranked else "en"


def error_json(exc: RoomError, lang: str) -> bytes:
    """An HTTP refusal's body: ``{"error": {"code", "message"}}`` (UTF-8 whatever it quotes)."""
    body = {"error": {"code": exc.code, "message": printable(exc.text(lang), 400)}}
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


class Limits:
    """The server's rate limits (``limits``, moving windows; memory storage by default).

    Args:
        rooms_per_minute: rooms created plus seats joined per client address and minute, in bursts
            of up to twice as many (a window of 2 minutes).
        rate, burst: messages per second of each socket, in bursts of up to ``burst``
            (a window of ``burst / rate`` seconds, at least 1).
        storage: a ``limits`` storage URI (``memory://``; ``redis://…`` shares them between processes).
            While a shared storage cannot be reached, the limits are counted in this process (one
            line logged when it fails, one when it is back): a Redis outage neither lifts them nor
            turns every request away.
        log_outage: whether that is logged here (not when the storage is the Redis of the
            processes' broker, which logs the outage itself: one line for one outage).
        reads_per_second: room reads (state, history, records) per client address and second, in
            bursts of up to three times as many (a window of 3 seconds).
        heavy_reads_per_minute: the budget of heavy reads (replay frames, record downloads,
            reviews: :meth:`heavy`) per client address, in a moving window of one minute.
    """

    def __init__(
        self,
        *,
        rooms_per_minute: float,
        rate: float,
        burst: float,
        storage: str = "memory://",
        reads_per_second: float = 20.0,
        heavy_reads_per_minute: float = 300.0,
        log_outage: bool = True,
    ) -> None:
        self.log_outage = log_outage
        self.storage = storage_from_string(storage)
        self.limiter = MovingWindowRateLimiter(self.storage)
        # counted in this process: a socket's messages always (one process holds the socket: a
        # round trip to Redis per message, on the event loop, was 3.5 % of a serve process's CPU),
        # the others while the shared storage cannot be reached
        self.here = MovingWindowRateLimiter(storage_from_string("memory://"))
        self.unreachable = False
        self.rooms = RateLimitItemPerMinute(max(1, round(2 * rooms_per_minute)), 2)
        self.messages = RateLimitItemPerSecond(max(1, round(burst)), max(1, round(burst / max(rate, 1e-9))))
        self.reads = RateLimitItemPerSecond(max(1, round(3 * reads_per_second)), 3)
        self.chats = RateLimitItemPerSecond(CHATS_PER_WINDOW, CHAT_WINDOW)
        self.heavies = RateLimitItemPerMinute(max(1, round(heavy_reads_per_minute)), 1)

    def room(self, address: str) -> bool:
        """Count a room creation or join from ``address``; ``False``: over the limit (refuse it)."""
        return self._hit(self.rooms, "rooms", address)

    def read(self, address: str) -> bool:
        """Count a room read from ``address``; ``False``: over the limit (refuse it, 429)."""
        return self._hit(self.reads, "reads", address)

    def heavy(self, address: str, cost: int = 1) -> bool:
        """Count a heavy read of ``cost`` units (a replay frame or a record download 1, a
        review more: ``serve --review-weight``) from ``address`` in its budget, shared by the
        three kinds; ``False``: over the budget (refuse it, 429; nothing is counted).

        >>> limits = Limits(rooms_per_minute=1, rate=1, burst=1, heavy_reads_per_minute=10)
        >>> limits.heavy("10.0.0.1", 8), limits.heavy("10.0.0.1", 3), limits.heavy("10.0.0.1", 2)
        (True, False, True)
        >>> limits.heavy("10.0.0.1"), limits.heavy("10.0.0.2", 10)
        (False, True)
        """
        return self._hit(self.heavies, "heavy", address, cost=cost)

    def wait(self, kind: str, address: str) -> int:
        """Whole seconds until ``address`` may be counted again for ``kind`` (``"rooms"``,
        ``"reads"`` or ``"heavy"``): the ``Retry-After`` of a 429 (RFC 9110 §10.2.3); at least 1."""
        item = {"rooms": self.rooms, "reads": self.reads, "heavy": self.heavies}[kind]
        limiter = self.here if self.unreachable else self.limiter  # where it was counted
        try:
            reset = limiter.get_window_stats(item, kind, address).reset_time
        except Exception:  # the shared storage failed since: the whole window
            return max(1, item.get_expiry())
        return max(1, math.ceil(reset - time.time()))

    def message(self, socket: str) -> bool:
        """Count a message of socket ``socket`` (a unique id) in this process, which holds the
        socket (never in the shared storage); ``False``: over the limit (drop it)."""
        return self.here.hit(self.messages, "socket", socket)

    def chat(self, code: str, seat: int) -> bool:
        """Count a quick chat of seat ``seat`` of room ``code`` (:data:`CHATS_PER_WINDOW` per
        :data:`CHAT_WINDOW` seconds, whichever socket or process it comes through when the
        storage is shared); ``False``: over the limit (refuse it)."""
        return self._hit(self.chats, "chat", code, str(seat))

    def _hit(self, item: Any, *identifiers: str, cost: int = 1) -> bool:
        try:
            allowed = self.limiter.hit(item, *identifiers, cost=cost)
        except Exception as exc:  # the shared storage is unreachable (its client's errors vary)
            if not self.unreachable:
                self.unreachable = True
                if self.log_outage:
                    log.error("rate limits: their storage cannot be reached (%s): counted here meanwhile", exc)
            return self.here.hit(item, *identifiers, cost=cost)
        if self.unreachable:
            self.unreachable = False
            if self.log_outage:
                log.warning("rate limits: their storage is reachable again")
        return allowed


def same_origin(origin: str, host: str, allowed: Iterable[str] = ()) -> bool:
    """Whether a request's ``Origin`` header is the server's own (the scheme's host and port equal
    the ``Host`` header) or one of ``allowed`` (``scheme://host[:port]``, as the operator names
    them: ``serve --allowed-origin``)."""
    if origin in allowed:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.netloc.lower() == host.lower()


class BodyTooLarge(HTTPException):
    """Raised by the counted ``receive`` once a body passes :data:`MAX_BODY` (answered with 413)."""

    def __init__(self) -> None:
        super().__init__(413, "request too large")


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class EdgeMiddleware:
    """ASGI middleware in front of the routes.

    - Every HTTP answer carries :data:`SECURITY_HEADERS`.
    - A request body is counted as it streams in: a ``Content-Length`` over ``max_body`` is refused
      (413) before anything is read, a longer stream raises :class:`BodyTooLarge` at the chunk
      that passes it (the routes answer 413 and read no further).
    - A state-changing request (not GET/HEAD/OPTIONS) with an ``Origin`` that is not the server's
      own is refused (403 ``bad_origin``), and so is one whose body is not ``application/json``
      (415 ``bad_content_type``). A WebSocket with a foreign ``Origin`` is refused at the handshake
      (HTTP 403). No ``Origin`` (scripts, the command line) is allowed: browsers always send it.

    Args:
        app: the ASGI app.
        max_body: bytes.
        allowed_origins: other origins than the server's own that may post and open sockets.
    """

    def __init__(self, app: Any, *, max_body: int = MAX_BODY, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.max_body = max_body
        self.allowed = frozenset(o.rstrip("/") for o in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not same_origin(origin, headers.get("host", ""), self.allowed):
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)

        async def secured(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS if k.encode() not in present]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await self._refuse(scope, secured, refusal)
            return
        received = 0

        async def counted() -> MutableMapping[str, Any]:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise BodyTooLarge()
            return message

        started = False

        async def tracked(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await secured(message)

        try:
            await self.app(scope, counted, tracked)
        except BodyTooLarge:
            if started:
                raise
            await self._refuse(scope, secured, RoomError("bad_message", N_("request too large"), 413))

    def _refusal(self, scope: Scope, headers: Headers) -> RoomError | None:
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return RoomError("bad_message", N_("request too large"), 413)
        if scope["method"] in _SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and not same_origin(origin, headers.get("host", ""), self.allowed):
            return RoomError("bad_origin", N_("requests from another site are refused"), 403)
        kind = headers.get("content-type")
        has_body = (length is not None and length != "0") or "transfer-encoding" in headers
        if kind is not None or has_body:
            media = (kind or "").split(";")[0].strip().lower()
            if media != "application/json" and not media.endswith("+json"):
                return RoomError("bad_content_type", N_("the body must be JSON (Content-Type: application/json)"), 415)
        return None

    @staticmethod
    async def _refuse(scope: Scope, send: Send, exc: RoomError) -> None:
        from starlette.requests import Request

        body = error_json(exc, client_lang(Request(scope)))
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if exc.status == 413:
            headers.append((b"connection", b"close"))  # the rest of the body is not read
        await send({"type": "http.response.start", "status": exc.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
