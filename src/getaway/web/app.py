"""The web app: :func:`create_app` builds the FastAPI app of ``getaway serve`` (docs/web.md) from
one :class:`~getaway.web.settings.ServeSettings`: the edge's middleware, the error handlers and
the routers of :mod:`getaway.web.routes` (rooms, reads, learn, texts, pages, the socket, health).

Every body and socket message is parsed by the models of :mod:`getaway.web.protocol`; the edge
(:mod:`getaway.web.edge`) bounds bodies, sockets and rates and adds the browser protections.

>>> app = create_app("sqlite://", bot_delay=0)
>>> sorted(path for path in app.openapi()["paths"] if path.startswith("/api/rooms"))[:2]
['/api/rooms', '/api/rooms/{code}']
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI

from .edge import EdgeMiddleware, Limits, client_lang
from .protocol import MAX_MESSAGE
from .rooms.service import RoomService
from .routes import ROUTERS
from .routes.common import install_error_handlers
from .routes.health import HEALTH_TIMEOUT
from .routes.pages import STATIC_DIR, mount_static
from .routes.socket import SocketCounts
from .routes.texts import page_strings, rules_summary
from .settings import ServeSettings
from .store import Store

__all__ = [
    "HEALTH_TIMEOUT",
    "MAX_MESSAGE",
    "STATIC_DIR",
    "client_lang",
    "create_app",
    "limits_storage",
    "page_strings",
    "rules_summary",
]


def create_app(settings: ServeSettings | str | None = None, /, **overrides: Any) -> FastAPI:
    """The ASGI app of ``getaway serve``.

    Args:
        settings: the :class:`~getaway.web.settings.ServeSettings` (docs/web.md "Settings": each
            one's meaning, default and bounds), or just the database (a SQLAlchemy URL; ``None``:
            ``DATABASE_URL`` or ``sqlite:///getaway.db``), the other settings at their defaults.
        overrides: settings by name (``bot_delay=0``, ``rate=50`` …), over ``settings``; with
            a database or ``None`` the environment is not read (:meth:`ServeSettings.of`).
            ``bot_workers`` ``None``: threads of the server process (``serve`` starts
            :func:`~getaway.web.botpool.default_workers`); ``allowed_hosts`` ``None``: any host;
            ``redis_url``: rooms shared with the processes on that Redis, the rate limits counted
            there unless ``rate_limit_storage`` says otherwise.

    Raises:
        pydantic.ValidationError: an unknown setting, or a value of the wrong type or out of its bounds.
        ValueError: ``redis_url`` without ``cluster_secret``.

    The database is opened (and migrated to the newest schema) and unfinished rooms are rebuilt
    when the app starts (lifespan). ``app.state.service.drain()`` hands the rooms over before the
    process stops (``getaway serve`` calls it on SIGTERM: :mod:`getaway.web.lifecycle`).
    """
    if isinstance(settings, ServeSettings):
        if overrides:
            settings = ServeSettings.of(**{**settings.model_dump(), **overrides})
    else:
        settings = ServeSettings.of(database=settings, **overrides)
    config = settings
    if config.redis_url and config.cluster_secret is None:
        raise ValueError("redis_url needs cluster_secret: the processes seal their messages with it")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(config.database)
        broker = None
        if config.redis_url:
            from .redis_broker import RedisBroker

            secret = config.cluster_secret.get_secret_value() if config.cluster_secret is not None else ""
            broker = RedisBroker(config.redis_url, secret=secret, lease_ms=round(config.lease * 1000))
        service = RoomService(
            store,
            bot_delay=config.bot_delay,
            grace=config.grace,
            idle=config.idle,
            bot_rooms_per_address=config.bot_rooms_per_address,
            max_bot_rooms=config.max_bot_rooms,
            bot_workers=0 if config.bot_workers is None else config.bot_workers,
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
        # A body that does not fit its model is answered 400 (validation_error), not FastAPI's 422.
        schema = generated()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                operation.get("responses", {}).pop("422", None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_middleware(EdgeMiddleware, max_body=settings.max_body, allowed_origins=settings.allowed_origins)
    if settings.forwarded_allow_ips:
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.forwarded_allow_ips)
    if settings.allowed_hosts is not None:  # added last: the outermost check
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts))
    storage = settings.rate_limit_storage
    shared_limits = bool(settings.redis_url) and storage == "memory://"
    if shared_limits:  # every process counts in the same place (its outage is logged by the broker)
        storage = limits_storage(settings.redis_url or "")
    app.state.settings = settings
    app.state.limits = Limits(
        rooms_per_minute=settings.rooms_per_minute,
        rate=settings.rate,
        burst=settings.burst,
        storage=storage,
        reads_per_second=settings.reads_per_second,
        log_outage=not shared_limits,
    )
    app.state.sockets = SocketCounts()
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    mount_static(app)
    return app


def limits_storage(redis_url: str) -> str:
    """The ``limits`` storage URI of a Redis URL (``unix://`` is ``redis+unix://`` there).

    >>> limits_storage("redis://:pw@127.0.0.1:6379/0"), limits_storage("unix:///run/redis.sock")
    ('redis://:pw@127.0.0.1:6379/0', 'redis+unix:///run/redis.sock')
    """
    return "redis+" + redis_url if redis_url.startswith("unix://") else redis_url
