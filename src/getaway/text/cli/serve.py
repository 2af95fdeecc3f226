"""``getaway serve``: the web app on uvicorn (docs/web.md). Its options are made from
:class:`getaway.web.settings.ServeSettings` (one per setting with a flag, in the model's order:
the default, bounds, environment variables and help line written once there).

The command line's one entry point into :mod:`getaway.web` (tests/test_architecture.py,
``ENTRY_POINTS``): the app itself is imported when the command runs.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any, Final

import click
from pydantic import ValidationError

from ...web.settings import ServeSettings, bounds_of, env_names, option_name
from ..i18n import N_, _, use
from .common import cli, lang_option

__all__ = ["FILES_BESIDES_CONNECTIONS", "GRACEFUL_SECONDS", "default_hosts", "serve", "settings_options"]


def settings_options(func: Any) -> Any:
    """One Click option per setting of :class:`ServeSettings` that has a flag, in the model's order."""
    for name in reversed(ServeSettings.model_fields):
        if option_name(name) is not None:
            func = _option(name)(func)
    return func


def _option(name: str) -> Callable[[Any], Any]:
    """The Click option of setting ``name``: its type from the annotation, a Click range from the
    bounds (a value out of them is refused naming the flag, exit 2), its environment variables."""
    info = ServeSettings.model_fields[name]
    extra = info.json_schema_extra
    assert isinstance(extra, dict)
    kinds = [kind for kind in typing.get_args(info.annotation) if kind is not type(None)] or [info.annotation]
    bounds = bounds_of(name)
    kind: Any = None  # text
    if kinds[0] in (int, float):
        ranges = {int: click.IntRange, float: click.FloatRange}
        limits = {"min": bounds.get("ge", bounds.get("gt")), "max": bounds.get("le", bounds.get("lt"))}
        opened = {"min_open": "gt" in bounds, "max_open": "lt" in bounds}
        kind = ranges[kinds[0]](**limits, **opened) if bounds else kinds[0]
    default = () if extra["multiple"] else info.default
    return click.option(
        str(option_name(name)),
        name,
        type=kind,
        default=default,
        show_default=default not in (None, "", ()),
        multiple=bool(extra["multiple"]),
        metavar=extra["metavar"],
        envvar=list(env_names(name)),
        help=info.description,
    )


@cli.command(help=N_("Start the web app: play Getaway in a browser with friends, bots filling the empty seats."))
@settings_options
@lang_option
def serve(lang: str | None, **values: Any) -> None:
    """The web server (docs/web.md): FastAPI on uvicorn, rooms in a SQLite file or PostgreSQL.

    SIGTERM drains (:mod:`getaway.web.lifecycle`): the rooms are committed and handed over, their
    sockets closed with 1012, ``/healthz`` says 503; then the process exits (a second signal:
    at once). Requests still running then get :data:`GRACEFUL_SECONDS` to finish.

    Slow clients (:mod:`getaway.web.connections`): uvicorn's HTTP protocol is wrapped with the
    request timeout and the connection caps (``--request-timeout``, ``--incomplete-per-address``,
    ``--max-connections``); the soft limit of open files is raised to fit the connections.

    uvicorn's own proxy-header handling is off (it trusts loopback peers): the app trusts
    ``X-Forwarded-For`` only from ``--forwarded-allow-ips``. WebSocket frames are capped at
    :data:`getaway.web.edge.MAX_FRAME` bytes (a longer one closes the socket with 1009).
    """
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    from ...web.app import create_app
    from ...web.botpool import default_workers
    from ...web.connections import connection_limits, guarded_protocol
    from ...web.edge import MAX_FRAME
    from ...web.lifecycle import DrainingServer
    from ...web.store import database_url

    use(lang)
    host, port = values["host"], values["port"]
    values["database"] = url = database_url(values["database"])
    if values["bot_workers"] is None:
        values["bot_workers"] = default_workers()
    values["allowed_hosts"] = values["allowed_hosts"] or default_hosts(host)
    for name in ("forwarded_allow_ips", "redis_url"):  # empty: none
        values[name] = values[name] or None
    settings = _settings(values, lang)
    if settings.redis_url and settings.cluster_secret is None:  # the cluster's messages are sealed with it
        raise click.UsageError(
            _("a Redis URL needs the cluster's secret: set GETAWAY_CLUSTER_SECRET, the same on every process")
        )
    _check_listen(host, port)
    if settings.redis_url:  # one of many processes: say which rooms it takes over, and when Redis is unreachable
        import logging

        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.getLogger("getaway.web").addHandler(handler)
        logging.getLogger("getaway.web").setLevel(logging.INFO)
    _check_database(url)
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::", "localhost") else host
    click.echo(
        _("Getaway is on http://{host}:{port}/ : open it in a browser (Ctrl+C stops the server).").format(
            host=shown, port=port
        )
    )
    click.echo(_("Database: {url}").format(url=_shown_url(url)))
    _raise_file_limit(settings.max_connections + FILES_BESIDES_CONNECTIONS)
    config = uvicorn.Config(
        create_app(settings),
        host=host,
        port=port,
        log_level="warning",
        proxy_headers=False,
        ws_max_size=MAX_FRAME,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
        http=guarded_protocol(AutoHTTPProtocol, connection_limits(settings)),
    )
    DrainingServer(config, settings.drain_seconds).run()


def _settings(values: dict[str, Any], lang: str | None) -> ServeSettings:
    """The settings of the flags ``values`` (``--lang``: the page's default language), those
    without a flag from the environment (``GETAWAY_MAX_BODY``) or their defaults.

    Raises:
        click.UsageError: a setting from the environment that does not fit (exit 2, one line).
    """
    try:
        return ServeSettings(**values, default_lang=lang)
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = str(problem["loc"][0]) if problem["loc"] else ""
        where = " / ".join(env_names(field)) if field in ServeSettings.model_fields else field
        raise click.UsageError(_("{where}: {message}").format(where=where, message=problem["msg"])) from None


#: Seconds uvicorn gives the requests still running at shutdown, after the drain (then cancels them).
GRACEFUL_SECONDS: Final = 10


#: Files a ``serve`` process keeps open besides its connections (database, logs, bot workers' pipes).
FILES_BESIDES_CONNECTIONS: Final = 256


def _raise_file_limit(wanted: int) -> None:
    """Raise the soft limit of open files (``RLIMIT_NOFILE``) to ``wanted``, at most the hard limit;
    a limit that cannot fit them is said in one line (the server then refuses connections past
    the limit with uvicorn's own "too many open files" pauses)."""
    try:
        import resource
    except ImportError:  # not POSIX
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        target = soft
    if target < wanted:
        message = _("open files are limited to {limit}: --max-connections should be below {most}")
        click.echo(message.format(limit=target, most=max(1, target - FILES_BESIDES_CONNECTIONS)), err=True)


def default_hosts(host: str) -> list[str]:
    """The host names ``serve`` answers to when ``--allowed-host`` is not given: on a loopback
    address only ``localhost`` and ``127.0.0.1`` (a page that rebinds its domain to 127.0.0.1
    cannot drive the server: docs/web.md, "Seats and security"); elsewhere any (``*``), as the
    server's public names are the operator's to list.

    >>> default_hosts("127.0.0.1"), default_hosts("0.0.0.0")
    (['localhost', '127.0.0.1'], ['*'])
    """
    return ["localhost", "127.0.0.1"] if host in ("127.0.0.1", "localhost", "::1") else ["*"]


def _check_listen(host: str, port: int) -> None:
    """Refuse, before anything is printed or opened, an address the server could not listen on.

    Raises:
        click.BadParameter: the port is in use or the host cannot be bound (exit 2).
    """
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _name, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
            probe.bind(address)
    except OSError as exc:
        message = _("cannot listen on {host}:{port}: {reason}")
        raise click.BadParameter(
            message.format(host=host, port=port, reason=exc.strerror or exc), param_hint="--port"
        ) from None


def _check_database(url: str) -> None:
    """Open the database once (creating its tables) so that a bad one is one line, not a traceback.

    Raises:
        click.BadParameter: the database cannot be opened (exit 2).
    """
    from sqlalchemy.exc import SQLAlchemyError

    from ...web.store import Store

    try:
        Store(url).close()
    except (SQLAlchemyError, ValueError, ImportError, OSError) as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        message = _("cannot open {url}: {reason}")
        raise click.BadParameter(message.format(url=_shown_url(url), reason=reason), param_hint="--database") from None


def _shown_url(url: str) -> str:
    """A database URL as ``serve`` prints it: the password hidden (a malformed one as given)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return url
