"""The web app: FastAPI routes, the WebSocket endpoint, the static page (docs/web.md).

Every body and socket message is parsed by the models of :mod:`getaway.web.protocol`; the edge
(:mod:`getaway.web.edge`) bounds bodies, sockets and rates and adds the browser protections.

>>> app = create_app("sqlite://", bot_delay=0)
>>> sorted(r.path for r in app.routes if r.path.startswith("/api/rooms"))[:2]
['/api/rooms', '/api/rooms/{code}']
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Annotated, Any, Final

from fastapi import FastAPI, Header, Request, WebSocket, WebSocketDisconnect
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import TypeAdapter, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles

from ..core.cards import Card
from ..core.rules import Rules
from ..text import i18n
from ..text.i18n import N_
from . import learn, protocol
from .edge import MAX_BODY, BodyTooLarge, EdgeMiddleware, Limits, client_lang, error_json
from .protocol import MAX_MESSAGE, CreateRoom, JoinRoom, parse_client, refusal
from .rooms import frames
from .rooms.checks import MAX_DEALS, check_config
from .rooms.errors import RoomError, draining_error
from .rooms.handles import RESTART_CLOSE, Connection, RoomHandle
from .rooms.service import RoomService
from .store import Store

__all__ = ["create_app", "STATIC_DIR", "MAX_MESSAGE", "client_lang"]

STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
_SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")
_OPTIONS: Final = TypeAdapter(protocol.RoomOptions)
#: The answers a route may refuse with, for the OpenAPI document.
_REFUSALS: Final[dict[int | str, dict[str, Any]]] = {
    status: {"model": protocol.ErrorAnswer} for status in (400, 403, 404, 409, 410, 413, 415, 429, 503)
}
#: Seconds ``/healthz`` waits for the database's answer (then 503 ``unavailable``).
HEALTH_TIMEOUT: Final = 2.0


def _error(exc: RoomError, lang: str) -> Response:
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return Response(error_json(exc, lang), status_code=exc.status, media_type="application/json", headers=headers)


def _bearer(authorization: str | None) -> str:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise RoomError("not_host", N_("only the host can do this"), 403)
    return token.strip()


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
    sockets_per_address: int = 20,
    hello_timeout: float = 5.0,
    max_body: int = MAX_BODY,
    forwarded_allow_ips: str | None = None,
    allowed_origins: Iterable[str] = (),
    allowed_hosts: Iterable[str] | None = None,
    rate_limit_storage: str = "memory://",
    reads_per_second: float = 20.0,
    bot_rooms_per_address: int = 2,
    max_bot_rooms: int = 4,
    bot_workers: int = 0,
    default_lang: str | None = None,
    redis_url: str | None = None,
) -> FastAPI:
    """The ASGI app of ``getaway serve``.

    Args:
        database_url: SQLAlchemy URL (``None``: ``DATABASE_URL`` or ``sqlite:///getaway.db``).
        bot_delay: seconds from the start of a bot's turn to its move (0 in tests and benchmarks).
        grace: seconds before a bot plays for a disconnected player.
        idle: seconds without a command before a room is closed.
        rate, burst: each socket's messages per second, and burst size (:class:`~getaway.web.edge.Limits`).
        rooms_per_minute: rooms created and seats joined per client address and minute (bursts
            up to twice as many), so that nobody can fill the database over HTTP.
        sockets_per_address: open sockets per client address; more are refused (``too_many_sockets``).
        hello_timeout: seconds a socket may stay open without a ``hello`` (then closed, 1008).
        max_body: bytes of a request body (413 past them).
        forwarded_allow_ips: the proxies whose ``X-Forwarded-For``/``-Proto`` name the client
            (comma-separated addresses or networks, ``*``: any); ``None`` or empty: trust nobody's,
            the client is the peer.
        allowed_origins: origins other than the server's own allowed to post and open sockets.
        allowed_hosts: the host names (``Host`` header, without the port) the server answers to;
            another gets 400 (Starlette's ``TrustedHostMiddleware``): a page that rebinds its own
            domain to this server's address (DNS rebinding) is then refused even though its
            ``Origin`` and ``Host`` agree. ``None``: any host (``getaway serve`` sets it).
        rate_limit_storage: the ``limits`` storage (``memory://``).
        reads_per_second: room reads (state, history, records, a room's rules) per client
            address and second (bursts up to three times as many).
        bot_rooms_per_address, max_bot_rooms: rooms played by bots alone running at once, per
            client address and in all (:class:`~getaway.web.rooms.RoomService`).
        bot_workers: worker processes the searching bots search in (:mod:`getaway.web.botpool`;
            ``serve --bot-workers``, whose default is :func:`~getaway.web.botpool.default_workers`);
            0: threads of the server process.
        default_lang: the page's language when the user has not picked one on the page (``serve
            --lang``); ``None``: the browser's.
        redis_url: the Redis that many server processes share (``redis://…``, ``rediss://…`` for
            TLS; a password in the URL): rooms owned by one process at a time, commands and news
            between them (:class:`~getaway.web.broker.RedisBroker`), and the rate limits counted
            there unless ``rate_limit_storage`` says otherwise; ``None``: this process alone.

    The database is opened (and migrated to the newest schema) and unfinished rooms are rebuilt
    when the app starts (lifespan). ``app.state.service.drain()`` hands the rooms over before the
    process stops (``getaway serve`` calls it on SIGTERM: :mod:`getaway.web.lifecycle`).
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(database_url)
        broker = None
        if redis_url:
            from .broker import RedisBroker

            broker = RedisBroker(redis_url)
        service = RoomService(
            store,
            bot_delay=bot_delay,
            grace=grace,
            idle=idle,
            bot_rooms_per_address=bot_rooms_per_address,
            max_bot_rooms=max_bot_rooms,
            bot_workers=bot_workers,
            broker=broker,
        )
        await service.start()
        app.state.service = service
        try:
            yield
        finally:
            await service.stop()
            store.close()

    app = FastAPI(
        title="Getaway",
        summary="Play Getaway (Bhabhi) online: rooms, seats, records (the socket: /api/socket-schema.json)",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    generated = app.openapi

    def openapi() -> dict[str, Any]:
        # A body that does not fit its model is answered 400 (validation_error below), not FastAPI's 422.
        schema = generated()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                operation.get("responses", {}).pop("422", None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_middleware(EdgeMiddleware, max_body=max_body, allowed_origins=allowed_origins)
    if forwarded_allow_ips:
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=forwarded_allow_ips)
    if allowed_hosts is not None:  # added last: the outermost check
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
    shared_limits = bool(redis_url) and rate_limit_storage == "memory://"
    if shared_limits:  # every process counts in the same place (its outage is logged by the broker)
        rate_limit_storage = limits_storage(redis_url or "")
    limits = Limits(
        rooms_per_minute=rooms_per_minute,
        rate=rate,
        burst=burst,
        storage=rate_limit_storage,
        reads_per_second=reads_per_second,
        log_outage=not shared_limits,
    )
    app.state.limits = limits
    sockets: Counter[str] = Counter()  # open sockets per client address
    socket_ids = itertools.count(1)
    # A socket's id names its message limit: unique among processes that count in one Redis.
    socket_prefix = secrets.token_hex(4)

    def service_of(request: Request | WebSocket) -> RoomService:
        return request.app.state.service

    def check_address(request: Request) -> None:
        address = request.client.host if request.client is not None else "?"
        if not limits.room(address):
            error = RoomError("rate_limited", N_("too many rooms or seats from your address: wait a minute"), 429)
            error.retry_after = limits.wait("rooms", address)
            raise error

    def check_reads(request: Request) -> None:
        address = _address(request)
        if not limits.read(address):
            error = RoomError("rate_limited", N_("too many requests from your address: wait a moment"), 429)
            error.retry_after = limits.wait("reads", address)
            raise error

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # FastAPI's own refusals (no such route, wrong method, a body it could not read) in the API's shape.
        if isinstance(exc, BodyTooLarge):
            error = RoomError("bad_message", N_("request too large"), 413)
        elif exc.status_code == 400:  # a body FastAPI could not decode (too deeply nested JSON)
            error = RoomError("bad_json", N_("the request is not valid JSON"))
        else:
            code = {404: "not_found", 405: "bad_message"}.get(exc.status_code, "bad_message")
            error = RoomError(code, N_("no such page or method: {path}"), exc.status_code, path=request.url.path[:80])
        return _error(error, client_lang(request))

    @app.exception_handler(RoomError)
    async def room_error(request: Request, exc: RoomError) -> Response:
        # Every route's refusal (a RoomError raised anywhere in it): its code and status, the
        # message in the client's language.
        return _error(exc, client_lang(request))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        # A body, path or query value that does not fit its model: the first problem, naming the field.
        return _error(refusal(list(exc.errors()), body=True), client_lang(request))

    # ------------------------------------------------------------------ HTTP API

    @app.get("/healthz", response_model=protocol.Health, responses={503: {"model": protocol.Health}})
    async def healthz(request: Request) -> Response:
        """Whether this process is ready, for a load balancer: 200 ``{"status": "ok"}`` when the
        database answers and the process is not draining; 503 ``starting`` (the rooms are not
        rebuilt yet), ``draining`` (it is stopping: SIGTERM) or ``unavailable`` (the database did not
        answer within :data:`HEALTH_TIMEOUT` seconds). Never more than the status word."""
        service: RoomService | None = getattr(request.app.state, "service", None)
        if service is None or not service.started:
            status = "starting"
        elif service.draining:
            status = "draining"
        else:
            try:
                await asyncio.wait_for(asyncio.to_thread(service.store.ping), HEALTH_TIMEOUT)
                status = "ok"
            except Exception:  # no detail: the answer is public
                status = "unavailable"
        code = 200 if status == "ok" else 503
        return JSONResponse({"status": status}, status_code=code, headers={"Cache-Control": "no-store"})

    @app.get("/stats", response_model=protocol.Stats)
    async def stats(request: Request) -> Response:
        """What an operator reads of this process (docs/web.md "Behind a front"): its rooms,
        its bot workers (searches, fallbacks, busy workers, the queue) and its lease heartbeat.
        Counts in memory only (never the database), nothing about a room's players or cards."""
        report = protocol.Stats.model_validate(service_of(request).report()).model_dump()
        return JSONResponse(report, headers={"Cache-Control": "no-store"})

    @app.post("/api/rooms", status_code=201, response_model=protocol.Created, responses=_REFUSALS)
    async def create_room(request: Request, body: CreateRoom | None = None) -> Any:
        """Create a room; with a ``name`` its creator sits at seat 0 as host."""
        body = body or CreateRoom()
        check_address(request)
        return await service_of(request).create(body.config(), body.name)

    @app.get("/api/rooms", response_model=protocol.PublicRooms, responses=_REFUSALS)
    async def public_rooms(request: Request, public: bool = False) -> Any:
        """The public rooms waiting for players with a free seat (``?public=1``; private rooms are
        never listed): profile, players, options, who is there (names and seat kinds)."""
        check_reads(request)
        if not public:
            raise RoomError("bad_message", N_("only public rooms are listed: add ?public=1"))
        rooms = await service_of(request).lobby()
        return JSONResponse({"rooms": rooms}, headers={"Cache-Control": "no-store"})

    @app.post("/api/quickplay", response_model=protocol.QuickPlayed, responses=_REFUSALS)
    async def quick_play(request: Request, body: protocol.QuickPlay) -> Any:
        """Quick play: a seat in a public room waiting for players, or a new public room with you as host."""
        check_address(request)
        return await service_of(request).quick_play(body.name)

    @app.get("/api/rooms/{code}", response_model=protocol.RoomState, responses=_REFUSALS)
    async def room_state(request: Request, code: str) -> Any:
        """The public room state."""
        check_reads(request)
        # a Response: served as built (the read path is hot), the model documents it
        return JSONResponse(await service_of(request).read_public(code))

    @app.post("/api/rooms/{code}/join", response_model=protocol.Joined, responses=_REFUSALS)
    async def join_room(request: Request, code: str, body: JoinRoom) -> Any:
        """Take a seat (the first empty one without ``seat``): answers the seat's secret token."""
        check_address(request)
        return await service_of(request).join(code, body.name, body.seat)

    @app.post("/api/rooms/{code}/start", response_model=protocol.RoomState, responses=_REFUSALS)
    async def start_room(request: Request, code: str, authorization: str | None = Header(None)) -> Any:
        """The host starts the match (``Authorization: Bearer <host token or the host's seat token>``)."""
        return await service_of(request).start_match(code, _bearer(authorization), _address(request))

    @app.post("/api/rooms/{code}/close", response_model=protocol.RoomState, responses=_REFUSALS)
    async def close_room(request: Request, code: str, authorization: str | None = Header(None)) -> Any:
        """The host closes the room (same header as the start): it never resumes; reads stay."""
        return await service_of(request).close_room(code, _bearer(authorization))

    @app.get("/api/rooms/{code}/deals/{index}/record", response_model=dict[str, Any], responses=_REFUSALS)
    async def deal_record(request: Request, code: str, index: Annotated[int, PathParam(ge=0, lt=MAX_DEALS)]) -> Any:
        """The engine's record (``getaway/1``, docs/records.md) of finished deal ``index`` (0-based,
        below the most deals a match has: 400 naming ``index`` otherwise)."""
        check_reads(request)
        record = await service_of(request).read_record(code, index)
        name = f"getaway-{code.upper()}-deal{index + 1}.json"  # a real room's code: the read found it
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        return JSONResponse(record, headers=headers)

    @app.get("/api/rooms/{code}/history", response_model=protocol.History, responses=_REFUSALS)
    async def room_history(request: Request, code: str) -> Any:
        """The match history: finished deals and the standings."""
        check_reads(request)
        return JSONResponse(await service_of(request).read_history(code))

    @app.post("/api/replay", response_model=protocol.ReplayFrame, responses=_REFUSALS)
    async def replay_frame(request: Request, body: protocol.ReplayRequest) -> Any:
        """One frame of the replay viewer: the record's deal after ``move`` actions, one seat's view or every hand."""
        return learn.replay_frame(body.record, body.move, body.seat, client_lang(request))

    @app.post("/api/review", response_model=protocol.ReviewAnswer, responses=_REFUSALS)
    async def review(request: Request, body: protocol.ReviewRequest) -> Any:
        """The review of one seat's decisions in a record (the expert's losing chances; seconds of work)."""
        return await learn.review_of(body.record, body.seat, client_lang(request), body.iterations)

    @app.get("/api/lessons", response_model=list[protocol.LessonItem])
    async def lessons(request: Request) -> Any:
        """The tutorial's lessons, in the order taught (titles in the client's language)."""
        return learn.lesson_list(client_lang(request))

    @app.post("/api/lessons/{key}", response_model=protocol.LessonState, responses=_REFUSALS)
    async def lesson(request: Request, key: str, body: protocol.LessonRequest | None = None) -> Any:
        """A lesson after the learner's moves: the view, the verdict of the last move, the feedback."""
        moves = [] if body is None else list(body.moves)
        return learn.lesson_state(key, moves, client_lang(request))

    @app.get("/api/strings/{lang}", response_model=protocol.Strings, responses=_REFUSALS)
    async def strings(request: Request, lang: str) -> Any:
        """The page's texts in ``lang``."""
        return page_strings(_lang_of(lang))

    @app.get("/api/lang")
    async def page_language() -> Response:
        # The page's language: the one picked on the page, else this one (serve --lang), else the browser's.
        known = default_lang in i18n.LANGUAGES
        return JSONResponse({"default": default_lang if known else None, "languages": list(i18n.LANGUAGES)})

    @app.get("/api/rules/schema", response_model=dict[str, Any])
    async def rules_schema() -> Response:
        """The core's one option schema (``Rules.schema()``, docs/engine.md): the lobby's controls."""
        return JSONResponse(Rules.schema(), headers={"Cache-Control": "max-age=3600"})

    @app.get("/api/rules/{lang}", response_model=protocol.RulesSummary, responses=_REFUSALS)
    async def rules(
        request: Request, lang: str, profile: str = "punjab", options: str | None = None, code: str | None = None
    ) -> Any:
        """The rules summary of ``profile`` with ``options`` (a JSON object), or of room ``code``."""
        game = None
        if code is not None:  # a room's rules: its profile and the variants in force
            check_reads(request)
            game = await service_of(request).read_rules(code)
            profile = game.profile
        if profile not in ("punjab", "classic"):
            raise RoomError("bad_message", N_("profile: expected punjab or classic"))
        if options and game is None:  # the options of a room being set up (JSON object)
            try:
                chosen = _OPTIONS.validate_json(options).model_dump(exclude_unset=True)
            except ValidationError as exc:
                raise refusal(exc, body=True, field="options") from None
            game = check_config({"profile": profile, "options": chosen})[1]
        return rules_summary(_lang_of(lang), profile, game)

    @app.get("/api/socket-schema.json", response_model=dict[str, Any])
    async def socket_schema() -> Any:
        """The JSON Schema of the WebSocket's messages (client → server, server → client)."""
        return protocol.socket_schema()

    # ------------------------------------------------------------------ the page

    def index() -> Response:
        page = STATIC_DIR / "index.html"
        if not page.is_file():
            return JSONResponse({"error": {"code": "not_found", "message": "the page is not built"}}, status_code=404)
        return FileResponse(page, headers={"Cache-Control": "no-cache"})

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def home() -> Response:
        return index()

    @app.api_route("/replay", methods=["GET", "HEAD"], include_in_schema=False)
    async def replay_page() -> Response:
        return index()

    @app.api_route("/learn", methods=["GET", "HEAD"], include_in_schema=False)
    async def learn_page() -> Response:
        return index()

    @app.api_route("/r/{code}", methods=["GET", "HEAD"], include_in_schema=False)
    async def room_page(code: str) -> Response:
        return index()

    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")

    # ------------------------------------------------------------------ the socket

    @app.websocket("/ws/{code}")
    async def socket(websocket: WebSocket, code: str) -> None:
        address = websocket.client.host if websocket.client is not None else "?"
        if service_of(websocket).draining:  # refused at the handshake: the front tries another process
            await _refuse_handshake(websocket)
            return
        await websocket.accept()
        lang = client_lang(websocket)  # for errors before a hello names the language
        socket_id = f"{address}#{socket_prefix}.{next(socket_ids)}"
        service = service_of(websocket)
        # this process's count, and with many processes the cluster's (RoomService.take_socket)
        if sockets[address] >= sockets_per_address or not await service.take_socket(
            address, socket_id, sockets_per_address
        ):
            error = RoomError("too_many_sockets", N_("too many connections from your address"), 429)
            await _send_error(websocket, error, None, lang)
            await websocket.close(code=1008)
            return
        sockets[address] += 1
        try:
            await _serve(websocket, code, lang, socket_id)
        finally:
            sockets[address] -= 1
            if sockets[address] <= 0:
                del sockets[address]
            await service.free_socket(address, socket_id)

    async def _serve(websocket: WebSocket, code: str, lang: str, socket_id: str) -> None:
        service = service_of(websocket)
        try:
            handle = await service.handle(code)
        except RoomError as exc:
            if exc.code == "draining":  # the page reconnects, to another process
                await websocket.close(code=RESTART_CLOSE)
                return
            await _send_error(websocket, exc, None, lang)
            await websocket.close(code=4404 if exc.code == "room_not_found" else 4410)
            return
        conn: Connection | None = None
        sender = None
        hello_by = time.monotonic() + hello_timeout
        try:
            while True:
                if conn is None:  # a socket that never says hello is closed after hello_timeout
                    try:
                        frame = await asyncio.wait_for(websocket.receive(), max(hello_by - time.monotonic(), 0))
                    except TimeoutError:
                        error = RoomError("not_hello", N_("no hello in time: closing"))
                        await _send_error(websocket, error, handle.room.version, lang)
                        await websocket.close(code=1008)
                        return
                else:
                    frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    return
                text = frame.get("text")
                if not limits.message(socket_id):
                    err = RoomError("rate_limited", N_("too many messages: slow down"))
                    await _reply_error(websocket, conn, err, handle, lang)
                    continue
                try:
                    msg = _parse(text)
                except RoomError as err:
                    await _reply_error(websocket, conn, err, handle, lang)
                    continue
                if conn is None:
                    if not isinstance(msg, protocol.Hello):
                        await _reply_error(websocket, None, RoomError("not_hello", N_("say hello first")), handle, lang)
                        continue
                    if msg.lang is not None:
                        lang = msg.lang
                    try:
                        conn = await service.attach(handle, msg.payload(), _address(websocket))
                    except RoomError as exc:
                        if exc.code == "draining":
                            await websocket.close(code=RESTART_CLOSE)
                            return
                        await _send_error(websocket, exc, handle.room.version, lang)
                        continue
                    sender = _start_sender(websocket, conn)
                    continue
                if isinstance(msg, protocol.Hello):
                    conn.error(RoomError("bad_message", N_("already said hello")), handle.room.version)
                    continue
                if isinstance(msg, protocol.AskRematch):  # makes a room: the address's room limit
                    await _rematch(service, handle, conn, _address(websocket))
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

    async def _rematch(service: RoomService, handle: RoomHandle, conn: Connection, address: str) -> None:
        try:
            if not limits.room(address):
                raise RoomError("rate_limited", N_("too many rooms or seats from your address: wait a minute"), 429)
            await service.rematch(handle, conn)
        except RoomError as exc:
            conn.error(exc, handle.room.version)

    return app


def limits_storage(redis_url: str) -> str:
    """The ``limits`` storage URI of a Redis URL (``unix://`` is ``redis+unix://`` there).

    >>> limits_storage("redis://:pw@127.0.0.1:6379/0"), limits_storage("unix:///run/redis.sock")
    ('redis://:pw@127.0.0.1:6379/0', 'redis+unix:///run/redis.sock')
    """
    return "redis+" + redis_url if redis_url.startswith("unix://") else redis_url


def _address(request: Request | WebSocket) -> str:
    """The client's address (the peer's, or a trusted proxy's client: ``forwarded_allow_ips``)."""
    return request.client.host if request.client is not None else "?"


def _parse(text: str | None) -> protocol.Hello | protocol.Act | Any:
    """A client message (:func:`getaway.web.protocol.parse_client`).

    Raises:
        RoomError: binary, too long, not JSON, not a known message or a bad field (named).
    """
    if text is None:
        raise RoomError("bad_message", N_("messages are JSON text"))
    if len(text) > MAX_MESSAGE:
        raise RoomError("bad_message", N_("message too long"))
    try:
        return parse_client(text)
    except ValidationError as exc:
        raise refusal(exc) from None


async def _refuse_handshake(websocket: WebSocket) -> None:
    """Refuse a socket before accepting it: HTTP 503 ``draining`` where the server can send a
    response at the handshake (uvicorn), else a close before the accept (HTTP 403)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(_error(draining_error(), client_lang(websocket)))
    else:
        await websocket.close(code=RESTART_CLOSE)


async def _send_error(websocket: WebSocket, exc: RoomError, version: int | None, lang: str) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(frames.encode(frames.error(exc, lang, version)))


async def _reply_error(
    websocket: WebSocket, conn: Connection | None, exc: RoomError, handle: RoomHandle, lang: str
) -> None:
    if conn is None:
        await _send_error(websocket, exc, handle.room.version, lang)
    else:
        conn.error(exc, handle.room.version)


def _start_sender(websocket: WebSocket, conn: Connection) -> Any:
    async def run() -> None:
        try:
            while True:
                text = await conn.outbox.get()
                if text is None:
                    await websocket.close(code=conn.close_code)
                    return
                await websocket.send_text(text)
        except Exception:  # the socket is gone: the receive loop ends too
            with contextlib.suppress(Exception):
                await websocket.close()

    return asyncio.create_task(run())
