"""The web app: FastAPI routes, the WebSocket endpoint, the static page (docs/web.md).

>>> app = create_app("sqlite://", bot_delay=0)
>>> sorted(r.path for r in app.routes if r.path.startswith("/api/rooms"))[:2]
['/api/rooms', '/api/rooms/{code}']
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles

from ..core.cards import Card
from ..core.rules import Rules
from ..text import i18n
from ..text.i18n import N_
from .rooms import AddressLimiter, Connection, RateLimiter, RoomError, RoomHandle, RoomService, check_config
from .store import Store

__all__ = ["create_app", "STATIC_DIR", "MAX_MESSAGE"]

STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
#: Longest client message accepted (characters); longer ones are refused unread.
MAX_MESSAGE: Final = 4096
_CLIENT_TYPES: Final = frozenset({"hello", "act", "start", "next", "lang", "ping"})
_SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")


def client_lang(request: Request | WebSocket) -> str:
    """The language a client asked for: ``?lang=xx``, else the first language of its
    ``Accept-Language`` header that has a catalog, else English (the page sends both)."""
    asked = request.query_params.get("lang")
    if asked in i18n.LANGUAGES:
        return asked
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in i18n.LANGUAGES:
            return tag
    return "en"


def _error(exc: RoomError, lang: str) -> JSONResponse:
    return JSONResponse({"error": {"code": exc.code, "message": exc.text(lang)}}, status_code=exc.status)


def _bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise RoomError("not_host", N_("only the host can do this"), 403)
    return token.strip()


async def _body(request: Request) -> dict[str, Any]:
    return _json_object(await request.body())


def _json_object(raw: str | bytes) -> dict[str, Any]:
    """A request's JSON object (a body, or a query value such as the rules' ``options``);
    empty text is ``{}``.

    Raises:
        RoomError: too large (413), not JSON, not an object.
    """
    if len(raw) > 16_384:
        raise RoomError("bad_message", N_("request too large"), 413)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise RoomError("bad_json", N_("the request is not valid JSON")) from None
    if not isinstance(data, dict):
        raise RoomError("bad_message", N_("expected a JSON object"))
    return data


def _lang_of(lang: str) -> str:
    if lang not in i18n.LANGUAGES:
        raise RoomError("not_found", N_("language: expected one of {known}"), 404, known=", ".join(i18n.LANGUAGES))
    return lang


def page_strings(lang: str) -> dict[str, Any]:
    """What ``GET /api/strings/{lang}`` returns: ``lang``; ``strings``: each UI msgid of
    :data:`getaway.web.strings.UI_STRINGS` → its translation; ``cards``: card name such as
    ``Q♥`` → ``queen of hearts`` (the Joker included); ``ranks``: ``"Q"`` → ``queen``;
    ``suits``: symbol → name as in "queen of hearts"; ``suit_plurals``: symbol → name as
    in "no hearts"."""
    from .strings import UI_STRINGS

    with i18n.language(lang):
        strings = {msgid: i18n._(msgid) for msgid in UI_STRINGS}
        cards = {str(Card(i)): i18n.card_name(Card(i)) for i in range(53)}
        ranks = {str(Card(i))[:-1]: name for i, name in enumerate(i18n._rank_names())}
        suits = {symbol: i18n.suit_name(s) for s, symbol in enumerate(_SUIT_SYMBOLS)}
        plurals = {symbol: i18n.suit_plural(s) for s, symbol in enumerate(_SUIT_SYMBOLS)}
    return {"lang": lang, "strings": strings, "cards": cards, "ranks": ranks, "suits": suits, "suit_plurals": plurals}


def rules_summary(lang: str, profile: str, rules: Rules | None = None) -> dict[str, Any]:
    """What ``GET /api/rules/{lang}`` returns: ``profile``, ``title`` and ``sections``
    (``[{"title", "text"}]``), the terminal's rules summary (:mod:`getaway.text.rules_text`), with
    the variants in force when the ``rules`` of a room are given."""
    from ..text.rules_text import rules_sections

    with i18n.language(lang):
        title = i18n._("Getaway: the rules (profile {profile})").format(profile=profile)
        sections = [{"title": h, "text": p} for h, p in rules_sections(profile, rules)]
    return {"profile": profile, "title": title, "sections": sections}


def create_app(
    database_url: str | None = None,
    *,
    bot_delay: float = 0.7,
    grace: float = 60.0,
    idle: float = 7200.0,
    rate: float = 20.0,
    burst: float = 40.0,
    rooms_per_minute: float = 30.0,
    reads_per_second: float = 20.0,
    bot_rooms_per_address: int = 2,
    max_bot_rooms: int = 4,
) -> FastAPI:
    """The ASGI app of ``getaway serve``.

    Args:
        database_url: SQLAlchemy URL (``None``: ``DATABASE_URL`` or ``sqlite:///getaway.db``).
        bot_delay: seconds a bot thinks before each move (0 in tests and benchmarks).
        grace: seconds before a bot plays for a disconnected player.
        idle: seconds without a command before a room is closed.
        rate, burst: each socket's token bucket (messages per second, burst size).
        rooms_per_minute: rooms created and seats joined per client address and minute (bursts
            up to twice as many), so that nobody can fill the database over HTTP.
        reads_per_second: room reads (state, history, records, a room's rules) per client
            address and second (bursts up to three times as many).
        bot_rooms_per_address, max_bot_rooms: rooms played by bots alone running at once, per
            client address and in all (:class:`~getaway.web.rooms.RoomService`).

    The database is opened and unfinished rooms are rebuilt when the app starts (lifespan).
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(database_url)
        service = RoomService(
            store,
            bot_delay=bot_delay,
            grace=grace,
            idle=idle,
            bot_rooms_per_address=bot_rooms_per_address,
            max_bot_rooms=max_bot_rooms,
        )
        await service.start()
        app.state.service = service
        try:
            yield
        finally:
            await service.stop()
            store.close()

    app = FastAPI(title="Getaway", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)

    def service_of(request: Request | WebSocket) -> RoomService:
        return request.app.state.service

    # Room creations and joins per client address: a token bucket each (forgotten when full).
    buckets: dict[str, RateLimiter] = {}

    def check_address(request: Request) -> None:
        address = request.client.host if request.client is not None else "?"
        if len(buckets) > 10_000:  # forget the addresses whose bucket has refilled
            for key in [k for k, b in buckets.items() if b.full()]:
                del buckets[key]
        bucket = buckets.setdefault(address, RateLimiter(rooms_per_minute / 60, 2 * rooms_per_minute))
        if not bucket.allow():
            raise RoomError("rate_limited", N_("too many rooms or seats from your address: wait a minute"), 429)

    reads = AddressLimiter(reads_per_second, 3 * reads_per_second)

    def check_reads(request: Request) -> None:
        if not reads.allow(_address(request)):
            raise RoomError("rate_limited", N_("too many requests from your address: wait a moment"), 429)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # FastAPI's own refusals (no such route, wrong method) in the API's error shape.
        code = {404: "not_found", 405: "bad_message"}.get(exc.status_code, "bad_message")
        error = RoomError(code, N_("no such page or method: {path}"), exc.status_code, path=request.url.path[:80])
        return _error(error, client_lang(request))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        # A path or query value of the wrong type (e.g. a deal number that is not a number).
        fields = ", ".join(".".join(str(p) for p in e.get("loc", ())[1:]) for e in exc.errors()) or "?"
        error = RoomError("bad_message", N_("bad value for: {fields}"), 400, fields=fields[:80])
        return _error(error, client_lang(request))

    # ------------------------------------------------------------------ HTTP API

    @app.post("/api/rooms")
    async def create_room(request: Request) -> Response:
        try:
            check_address(request)
            body = await _body(request)
            name = body.pop("name", None)
            answer = await service_of(request).create(body, name)
        except RoomError as exc:
            return _error(exc, client_lang(request))
        return JSONResponse(answer, status_code=201)

    @app.get("/api/rooms/{code}")
    async def room_state(request: Request, code: str) -> Response:
        try:
            check_reads(request)
            return JSONResponse(await service_of(request).read_public(code))
        except RoomError as exc:
            return _error(exc, client_lang(request))

    @app.post("/api/rooms/{code}/join")
    async def join_room(request: Request, code: str) -> Response:
        try:
            check_address(request)
            body = await _body(request)
            answer = await service_of(request).join(code, body.get("name"), body.get("seat"))
        except RoomError as exc:
            return _error(exc, client_lang(request))
        return JSONResponse(answer)

    @app.post("/api/rooms/{code}/start")
    async def start_room(request: Request, code: str) -> Response:
        try:
            return JSONResponse(await service_of(request).start_match(code, _bearer(request), _address(request)))
        except RoomError as exc:
            return _error(exc, client_lang(request))

    @app.post("/api/rooms/{code}/close")
    async def close_room(request: Request, code: str) -> Response:
        try:
            return JSONResponse(await service_of(request).close_room(code, _bearer(request)))
        except RoomError as exc:
            return _error(exc, client_lang(request))

    @app.get("/api/rooms/{code}/deals/{index}/record")
    async def deal_record(request: Request, code: str, index: int) -> Response:
        try:
            check_reads(request)
            record = await service_of(request).read_record(code, index)
        except RoomError as exc:
            return _error(exc, client_lang(request))
        name = f"getaway-{code.upper()}-deal{index + 1}.json"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        return JSONResponse(record, headers=headers)

    @app.get("/api/rooms/{code}/history")
    async def room_history(request: Request, code: str) -> Response:
        try:
            check_reads(request)
            return JSONResponse(await service_of(request).read_history(code))
        except RoomError as exc:
            return _error(exc, client_lang(request))

    @app.get("/api/strings/{lang}")
    async def strings(request: Request, lang: str) -> Response:
        try:
            return JSONResponse(page_strings(_lang_of(lang)))
        except RoomError as exc:
            return _error(exc, client_lang(request))

    @app.get("/api/rules/schema")
    async def rules_schema() -> Response:
        # The core's one option schema (docs/engine.md, "The option schema"): the lobby's controls.
        return JSONResponse(Rules.schema(), headers={"Cache-Control": "max-age=3600"})

    @app.get("/api/rules/{lang}")
    async def rules(
        request: Request, lang: str, profile: str = "punjab", options: str | None = None, code: str | None = None
    ) -> Response:
        try:
            game = None
            if code is not None:  # a room's rules: its profile and the variants in force
                check_reads(request)
                game = await service_of(request).read_rules(code)
                profile = game.profile
            if profile not in ("punjab", "classic"):
                raise RoomError("bad_message", N_("profile: expected punjab or classic"))
            if options and game is None:  # the options of a room being set up (JSON object)
                game = check_config({"profile": profile, "options": _json_object(options)})[1]
            return JSONResponse(rules_summary(_lang_of(lang), profile, game))
        except RoomError as exc:
            return _error(exc, client_lang(request))

    # ------------------------------------------------------------------ the page

    def index() -> Response:
        page = STATIC_DIR / "index.html"
        if not page.is_file():
            return JSONResponse({"error": {"code": "not_found", "message": "the page is not built"}}, status_code=404)
        return FileResponse(page, headers={"Cache-Control": "no-cache"})

    @app.get("/")
    async def home() -> Response:
        return index()

    @app.get("/r/{code}")
    async def room_page(code: str) -> Response:
        return index()

    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")

    # ------------------------------------------------------------------ the socket

    @app.websocket("/ws/{code}")
    async def socket(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        service = service_of(websocket)
        limiter = RateLimiter(rate, burst)
        lang = client_lang(websocket)  # for errors before a hello names the language
        try:
            handle = await service.handle(code)
        except RoomError as exc:
            await _send_error(websocket, exc, None, lang)
            await websocket.close(code=4404 if exc.code == "room_not_found" else 4410)
            return
        conn: Connection | None = None
        sender = None
        try:
            while True:
                try:
                    text = await websocket.receive_text()
                except KeyError:  # a binary frame
                    text = None
                if not limiter.allow():
                    err = RoomError("rate_limited", N_("too many messages: slow down"))
                    await _reply_error(websocket, conn, err, handle, lang)
                    continue
                msg, err = _parse(text)
                if err is not None:
                    await _reply_error(websocket, conn, err, handle, lang)
                    continue
                assert msg is not None
                if conn is None:
                    if msg["type"] != "hello":
                        await _reply_error(websocket, None, RoomError("not_hello", N_("say hello first")), handle, lang)
                        continue
                    if msg.get("lang") in i18n.LANGUAGES:
                        lang = msg["lang"]
                    try:
                        conn = await service.attach(handle, msg, _address(websocket))
                    except RoomError as exc:
                        await _send_error(websocket, exc, handle.room.version, lang)
                        continue
                    sender = _start_sender(websocket, conn)
                    continue
                if msg["type"] == "hello":
                    conn.error(RoomError("bad_message", N_("already said hello")), handle.room.version)
                    continue
                await service.message(handle, conn, msg)
        except WebSocketDisconnect:
            pass
        except RuntimeError:  # the socket was closed by the server (room closed, too slow)
            pass
        finally:
            if conn is not None:
                await service.detach(handle, conn)
            if sender is not None:
                sender.cancel()
                with contextlib.suppress(BaseException):
                    await sender

    return app


def _address(request: Request | WebSocket) -> str:
    """The client's address (the peer's)."""
    return request.client.host if request.client is not None else "?"


def _parse(text: str | None) -> tuple[dict[str, Any] | None, RoomError | None]:
    """A client message, checked: a JSON object with a known string ``type``."""
    if text is None:
        return None, RoomError("bad_message", N_("messages are JSON text"))
    if len(text) > MAX_MESSAGE:
        return None, RoomError("bad_message", N_("message too long"))
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        return None, RoomError("bad_json", N_("the message is not valid JSON"))
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        return None, RoomError("bad_message", N_("expected a JSON object with a type"))
    if msg["type"] not in _CLIENT_TYPES:
        return None, RoomError("unknown_type", N_("unknown message type"))
    return msg, None


async def _send_error(websocket: WebSocket, exc: RoomError, version: int | None, lang: str) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(json.dumps(exc.message(lang, version), ensure_ascii=False))


async def _reply_error(
    websocket: WebSocket, conn: Connection | None, exc: RoomError, handle: RoomHandle, lang: str
) -> None:
    if conn is None:
        await _send_error(websocket, exc, handle.room.version, lang)
    else:
        conn.error(exc, handle.room.version)


def _start_sender(websocket: WebSocket, conn: Connection) -> Any:
    import asyncio

    async def run() -> None:
        try:
            while True:
                text = await conn.outbox.get()
                if text is None:
                    await websocket.close()
                    return
                await websocket.send_text(text)
        except Exception:  # the socket is gone: the receive loop ends too
            with contextlib.suppress(Exception):
                await websocket.close()

    return asyncio.create_task(run())
