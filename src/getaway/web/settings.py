"""The serve settings, written once (docs/web.md "Settings"): each one's default, bounds,
environment variable and help line. ``getaway serve``'s options (:mod:`getaway.text.cli.serve`),
:func:`getaway.web.app.create_app` and docs/web.md's settings table are made from
:class:`ServeSettings`.

Owns: the settings model and the table of it. Imports: pydantic, pydantic-settings and the
catalogs' ``N_`` (the help lines are msgids, shown in the user's language by
the command line).

>>> ServeSettings.of(grace=5).grace, ServeSettings.of().hello_timeout
(5.0, 5.0)
>>> option_name("rate"), env_names("redis_url")
('--message-rate', ('GETAWAY_REDIS_URL', 'REDIS_URL'))
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from annotated_types import Ge, Gt, Le, Lt
from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, InitSettingsSource, NoDecode, SettingsConfigDict

from ..text.i18n import N_

__all__ = [
    "ENV_PREFIX",
    "MAX_BODY",
    "TABLE_END",
    "TABLE_START",
    "ServeSettings",
    "bounds_of",
    "env_names",
    "option_name",
    "settings_table",
    "with_table",
]

#: Largest HTTP request body (bytes) by default; a longer one is refused with 413 once that many
#: are read (:class:`getaway.web.edge.EdgeMiddleware`).
MAX_BODY: Final = 16_384
#: The prefix of every setting's environment variable (``GETAWAY_GRACE``).
ENV_PREFIX: Final = "GETAWAY_"


def _setting(
    default: Any,
    help: str,
    *,
    option: str | None = "",
    metavar: str | None = None,
    multiple: bool = False,
    env: tuple[str, ...] = (),
    **bounds: float,
) -> Any:
    """One setting's field: its default, help msgid (``N_``), bounds (``ge``, ``gt``, ``le``,
    ``lt``) and how ``serve`` shows it (``option``: the flag when not the field's name, ``None``:
    no flag; ``metavar``; ``multiple``: the flag may be repeated; ``env``: the environment
    variables when not just ``GETAWAY_<NAME>``)."""
    extra = {"option": option, "metavar": metavar, "multiple": multiple}
    alias = AliasChoices(*env) if env else None
    return Field(default, description=help, validation_alias=alias, json_schema_extra=extra, **bounds)  # type: ignore


_Words = Annotated[tuple[str, ...], NoDecode]  # read from the environment as space-separated words


class ServeSettings(BaseSettings):
    """The settings of ``getaway serve`` and :func:`~getaway.web.app.create_app`.

    ``ServeSettings(**values)`` reads the environment for the settings not given (each
    setting's ``GETAWAY_`` name, and ``DATABASE_URL``/``REDIS_URL``); :meth:`of` does not. A value
    out of its bounds raises :class:`pydantic.ValidationError` (naming the setting).
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, populate_by_name=True, extra="forbid", frozen=True)

    host: str = _setting("127.0.0.1", N_("Address to listen on (0.0.0.0: every interface)."))
    port: int = _setting(8000, N_("Port to listen on."), ge=0, le=65535)
    database: str | None = _setting(
        None,
        N_("Database: a SQLAlchemy URL or a SQLite file (default: DATABASE_URL, else getaway.db here)."),
        metavar="URL",
        env=("GETAWAY_DATABASE", "DATABASE_URL"),
    )
    grace: float = _setting(60.0, N_("Seconds before a bot plays for a disconnected player."), ge=0)
    idle: float = _setting(7200.0, N_("Seconds without a move before a room is closed."), ge=1)
    bot_delay: float = _setting(0.7, N_("Seconds from the start of a bot's turn to its move, whatever it holds."), ge=0)
    bot_rooms_per_address: int = _setting(
        2, N_("Rooms played by bots alone that one client address may have running at once."), ge=0
    )
    max_bot_rooms: int = _setting(4, N_("Rooms played by bots alone running at once on this server."), ge=0)
    #: ``None``: ``serve`` starts :func:`~getaway.web.botpool.default_workers`; the app factory 0.
    bot_workers: int | None = _setting(
        None,
        N_(
            "Worker processes the searching bots (hard, expert) think in, off the server's event loop "
            "(default: one per core but one, at least 1; 0: threads of the server process)."
        ),
        ge=0,
    )
    reads_per_second: float = _setting(
        20.0, N_("Room reads (state, history, records) per client address and second."), gt=0
    )
    forwarded_allow_ips: str | None = _setting(
        None,
        N_(
            "Proxies whose X-Forwarded-For names the client: comma-separated addresses or networks, * for any "
            "(default: none, the client is the connection's peer)."
        ),
        metavar="A,B,…",
    )
    allowed_origins: _Words = _setting(
        (),
        N_("Another origin (scheme://host:port) whose pages may use this server; the server's own always may."),
        option="--allowed-origin",
        metavar="URL",
        multiple=True,
    )
    #: ``None``: any host (the app factory's default); ``serve`` without ``--allowed-host`` gives
    #: :func:`~getaway.text.cli.serve.default_hosts`.
    allowed_hosts: _Words | None = _setting(
        None,
        N_(
            "A host name the server answers to (the Host header; * for any). Default: localhost and 127.0.0.1 "
            "when it listens on a loopback address, else any."
        ),
        option="--allowed-host",
        metavar="NAME",
        multiple=True,
    )
    rooms_per_minute: float = _setting(
        30.0, N_("Rooms created and seats taken per client address and minute (bursts of twice as many)."), ge=0.5
    )
    rate: float = _setting(20.0, N_("Messages per second each socket may send."), option="--message-rate", ge=0.1)
    burst: int = _setting(40, N_("Messages a socket may send in a burst."), option="--message-burst", ge=1)
    sockets_per_address: int = _setting(20, N_("Open sockets per client address."), ge=1)
    hello_timeout: float = _setting(5.0, N_("Seconds a socket may stay open before it says hello."), ge=0.1)
    request_timeout: float = _setting(
        5.0,
        N_(
            "Seconds a connection has to send a whole request (line, headers, body) from its first byte: "
            "then it is closed (serve only)."
        ),
        ge=0.1,
    )
    incomplete_per_address: int = _setting(
        16,
        N_(
            "Connections from one client address that may be sending a request at once; one more is refused "
            "(429) at once (serve only; the --forwarded-allow-ips proxies are not counted)."
        ),
        ge=1,
    )
    max_connections: int = _setting(
        2000,
        N_(
            "Connections (HTTP and WebSocket) the server holds at once; one more is refused (503) at once (serve only)."
        ),
        ge=1,
    )
    rate_limit_storage: str = _setting(
        "memory://", N_("Where the rate limits count (a storage URI of the limits library)."), metavar="URL"
    )
    drain_seconds: float = _setting(
        0.0,
        N_(
            "On SIGTERM, seconds to go on answering 503 (on /healthz too) after the rooms are handed over, "
            "for a load balancer to notice."
        ),
        ge=0,
    )
    redis_url: str | None = _setting(
        None,
        N_(
            "A Redis that many server processes share (redis://, rediss:// for TLS, a password in the URL): "
            "they then serve the same rooms (default: REDIS_URL; none: this process alone)."
        ),
        metavar="URL",
        env=("GETAWAY_REDIS_URL", "REDIS_URL"),
    )
    cluster_secret: SecretStr | None = _setting(
        None,
        N_(
            "With many processes: a secret they all share (at least 16 characters, from the environment only); "
            "every message between them on Redis carries an HMAC-SHA256 made with it, and one without is dropped."
        ),
        option=None,
    )
    lease: float = _setting(
        2.0,
        N_(
            "With many processes: seconds a room's lease lasts unless its owner renews it (four times a lease); "
            "a dead owner's rooms are taken over as it runs out."
        ),
        option="--lease-seconds",
        ge=0.3,
        le=60,
    )
    max_body: int = _setting(MAX_BODY, "Bytes of a request body (413 past them).", option=None, ge=1)
    default_lang: str | None = _setting(
        None,
        "The page's language when the user has not picked one on the page (serve --lang); none: the browser's.",
        option=None,
    )

    @field_validator("allowed_origins", "allowed_hosts", mode="before")
    @classmethod
    def _words(cls, value: Any) -> Any:
        return tuple(value.split()) if isinstance(value, str) else value

    @field_validator("cluster_secret")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) < 16:
            raise ValueError("the cluster's secret must be at least 16 characters")
        return value

    @classmethod
    def of(cls, **values: Any) -> ServeSettings:
        """The settings ``values`` (by field name), the others at their defaults: the
        environment is not read (tests, embedding).

        Raises:
            pydantic.ValidationError: a value of the wrong type or out of its bounds, or an
                unknown setting.
        """
        return cls(_build_sources=((InitSettingsSource(cls, values),), values))


def option_name(field: str) -> str | None:
    """``serve``'s flag of setting ``field`` (``--bot-delay``), ``None`` when it has none."""
    extra = ServeSettings.model_fields[field].json_schema_extra
    assert isinstance(extra, dict)
    option = extra["option"]
    if option is None:
        return None
    return str(option) or "--" + field.replace("_", "-")


def env_names(field: str) -> tuple[str, ...]:
    """The environment variables of setting ``field``, the first one set wins."""
    alias = ServeSettings.model_fields[field].validation_alias
    if isinstance(alias, AliasChoices):
        return tuple(str(choice) for choice in alias.choices)
    return (ENV_PREFIX + field.upper(),)


def bounds_of(field: str) -> dict[str, float]:
    """The bounds of setting ``field``: any of ``ge``, ``gt``, ``le``, ``lt``."""
    names = {Ge: "ge", Gt: "gt", Le: "le", Lt: "lt"}
    found: dict[str, float] = {}
    for item in ServeSettings.model_fields[field].metadata:
        for kind, name in names.items():
            if isinstance(item, kind):
                found[name] = getattr(item, name)
    return found


def _bounds_text(field: str) -> str:
    signs = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    return ", ".join(f"{signs[k]} {v}" for k, v in bounds_of(field).items())


#: The lines around the table in docs/web.md.
TABLE_START: Final = "<!-- the settings table, made by: python -m getaway.web.settings docs/web.md -->"
TABLE_END: Final = "<!-- end of the settings table -->"


def settings_table() -> str:
    """docs/web.md's settings table (Markdown), made from :class:`ServeSettings`
    (tests/test_web_settings.py checks the document has it)."""
    lines = ["| setting | option | environment | default | bounds | meaning |", "| --- | --- | --- | --- | --- | --- |"]
    for name, info in ServeSettings.model_fields.items():
        default = "—" if info.default in (None, ()) else f"`{info.default}`"
        option = option_name(name)
        env = ", ".join(f"`{e}`" for e in env_names(name))
        meaning = (info.description or "").replace("|", "\\|").replace("*", "\\*")
        cells = [f"`{name}`", f"`{option}`" if option else "—", env, default, _bounds_text(name) or "—", meaning]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def with_table(document: str) -> str:
    """``document`` with the text between :data:`TABLE_START` and :data:`TABLE_END` replaced by
    :func:`settings_table`.

    Raises:
        ValueError: the document lacks one of the two lines.
    """
    head, start, rest = document.partition(TABLE_START + "\n")
    _old, end, tail = rest.partition(TABLE_END)
    if not start or not end:
        raise ValueError(f"expected the lines {TABLE_START!r} and {TABLE_END!r}")
    return head + start + settings_table() + end + tail


if __name__ == "__main__":  # python -m getaway.web.settings docs/web.md: the table made again
    import sys
    from pathlib import Path

    for path in map(Path, sys.argv[1:]):
        path.write_text(with_table(path.read_text(encoding="utf-8")), encoding="utf-8")
