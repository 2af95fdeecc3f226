"""Slow clients on a bare ``getaway serve``: a request-read timeout and connection caps
(docs/web.md, "Seats and security", "Slow clients").

uvicorn has no timeout for a request's headers (its ``timeout_keep_alive`` only covers the idle
time between requests and is reset by every byte; uvicorn issue #157, ``--timeout-request-start``,
is still open), and nothing caps connections before a request is complete: 200 connections from
one address that each send half a request line stay open for ever. :func:`guarded_protocol` wraps
uvicorn's HTTP protocol class (httptools or h11, whichever ``--http`` would pick) with three
checks, all at the connection, before the app sees anything:

- **request timeout**: a connection must deliver a request's line, headers and body within
  :attr:`ConnectionLimits.request_timeout` seconds of its first byte (of its opening for the
  first request); otherwise it is closed (aborted: nothing is kept for a client that does not
  read). A WebSocket is done with it at its upgrade (its ``hello`` has its own timeout:
  ``hello_timeout``); a response being written is never cut;
- **incomplete connections per address**: at most :attr:`ConnectionLimits.incomplete_per_address`
  connections of one peer address may be in the middle of sending a request; one more is answered
  ``429`` and closed at once. Peers named by ``forwarded_allow_ips`` (the front, which reads the
  headers itself) are not counted;
- **connections in all**: at most :attr:`ConnectionLimits.max_connections` open connections
  (HTTP and WebSocket, uvicorn's ``server_state.connections``); one more is answered ``503`` and
  closed at once.
"""

from __future__ import annotations

import asyncio
import collections
import ipaddress
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .settings import ServeSettings

__all__ = ["ConnectionLimits", "connection_limits", "guarded_protocol", "trusted_peers"]

log = logging.getLogger("getaway.web")

_REFUSALS = {
    429: b"HTTP/1.1 429 Too Many Requests\r\n",
    503: b"HTTP/1.1 503 Service Unavailable\r\n",
}
_REFUSAL_TAIL = b"Retry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def trusted_peers(forwarded_allow_ips: str | None) -> frozenset[str] | tuple[Any, ...] | None:
    """The peers exempt from the per-address cap: ``None`` for none, ``frozenset({"*"})`` for any,
    else a tuple of :class:`ipaddress.IPv4Network`/``IPv6Network`` and literal strings (an entry
    that is not an address or a network, as uvicorn's proxy middleware accepts).

    >>> trusted_peers(None) is None, trusted_peers("*")
    (True, frozenset({'*'}))
    >>> trusted_peers("127.0.0.1, 10.0.0.0/8")
    (IPv4Network('127.0.0.1/32'), IPv4Network('10.0.0.0/8'))
    """
    if not forwarded_allow_ips:
        return None
    words = [word.strip() for word in forwarded_allow_ips.split(",") if word.strip()]
    if "*" in words:
        return frozenset({"*"})
    out: list[Any] = []
    for word in words:
        try:
            out.append(ipaddress.ip_network(word, strict=False))
        except ValueError:
            out.append(word)
    return tuple(out)


@dataclass(frozen=True)
class ConnectionLimits:
    """The limits :func:`guarded_protocol` enforces (settings ``request_timeout``,
    ``incomplete_per_address``, ``max_connections``, ``forwarded_allow_ips``).

    Args:
        request_timeout: seconds (> 0) a connection has to send a whole request.
        incomplete_per_address: connections (≥ 1) of one peer address sending a request at once.
        max_connections: open connections (≥ 1) of the server, HTTP and WebSocket.
        exempt: :func:`trusted_peers`' answer: peers not counted per address.

    Raises:
        ValueError: a limit out of its bounds.
    """

    request_timeout: float = 5.0
    incomplete_per_address: int = 16
    max_connections: int = 2000
    exempt: frozenset[str] | tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if not self.request_timeout > 0:
            raise ValueError(f"request_timeout: expected seconds > 0, got {self.request_timeout}")
        if self.incomplete_per_address < 1 or self.max_connections < 1:
            raise ValueError(
                f"incomplete_per_address, max_connections: expected ≥ 1, got "
                f"{self.incomplete_per_address}, {self.max_connections}"
            )

    def is_exempt(self, host: str) -> bool:
        """Whether peer ``host`` (an address) is a trusted proxy, not counted per address.

        >>> ConnectionLimits(exempt=trusted_peers("127.0.0.0/8")).is_exempt("127.0.0.2")
        True
        >>> ConnectionLimits().is_exempt("127.0.0.1")
        False
        """
        if self.exempt is None:
            return False
        if "*" in self.exempt:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return host in self.exempt
        return any(not isinstance(net, str) and address in net for net in self.exempt)


def connection_limits(settings: ServeSettings) -> ConnectionLimits:
    """The :class:`ConnectionLimits` of ``settings`` (``request_timeout``, ``incomplete_per_address``,
    ``max_connections``; the ``forwarded_allow_ips`` proxies exempt per address)."""
    return ConnectionLimits(
        request_timeout=settings.request_timeout,
        incomplete_per_address=settings.incomplete_per_address,
        max_connections=settings.max_connections,
        exempt=trusted_peers(settings.forwarded_allow_ips),
    )


def guarded_protocol(base: type[asyncio.Protocol], limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """A subclass of uvicorn's HTTP protocol ``base`` (``HttpToolsProtocol`` or ``H11Protocol``:
    uvicorn's ``Config(http=...)``) enforcing ``limits`` (this module's docstring). Each call
    makes a class with its own counts: one per server.

    The class's ``incomplete`` is the live count of connections sending a request, per peer
    address (a :class:`collections.Counter`; trusted proxies not in it); its ``totals`` counts
    the connections ``refused`` and ``timed_out`` since the start.

    Raises:
        TypeError: ``base`` is not a class of :class:`asyncio.Protocol`.
    """
    if not (isinstance(base, type) and issubclass(base, asyncio.Protocol)):
        raise TypeError(f"guarded_protocol: expected an asyncio.Protocol class, got {base!r}")
    incomplete: collections.Counter[str] = collections.Counter()
    totals = {"refused": 0, "timed_out": 0}

    class Guarded(base):  # type: ignore[valid-type, misc]
        __doc__ = f"uvicorn's {base.__name__} with getaway's request timeout and connection caps."

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self._guard_timer: asyncio.TimerHandle | None = None
            self._guard_host: str | None = None  # counted in `incomplete` under this address
            self._guard_waiting = False  # a request is being read, the timer armed
            self._guard_done: Any = None  # the cycle of the last request read whole
            self._guard_refused = False
            peer = transport.get_extra_info("peername")
            host = peer[0] if isinstance(peer, tuple) and peer else "?"
            counted = not limits.is_exempt(host)
            status = None
            if len(self.server_state.connections) >= limits.max_connections:
                status = 503
            elif counted and incomplete[host] >= limits.incomplete_per_address:
                status = 429
            if status is not None:
                self._guard_refused = True
                totals["refused"] += 1
                if totals["refused"] in (1, 100) or totals["refused"] % 10000 == 0:
                    opened = len(self.server_state.connections)
                    log.warning("connections: refused %s (%d so far, %d open)", host, totals["refused"], opened)
                transport.write(_REFUSALS[status] + _REFUSAL_TAIL)  # type: ignore[attr-defined]
                transport.close()
                return
            super().connection_made(transport)
            if counted:
                self._guard_host = host
            self._guard_start()

        def data_received(self, data: bytes) -> None:
            if not self._guard_waiting and (self.cycle is None or self.cycle.response_complete):
                self._guard_start()  # the first bytes of the next request on a kept-alive connection
            super().data_received(data)
            if self._guard_waiting and self._guard_read_whole():
                self._guard_stop()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._guard_refused:
                return  # never started (uvicorn's state untouched)
            self._guard_stop()
            super().connection_lost(exc)

        def _guard_read_whole(self) -> bool:
            if self.transport.get_protocol() is not self:  # upgraded to a WebSocket
                return True
            cycle = self.cycle
            return cycle is not None and cycle is not self._guard_done and not cycle.more_body

        def _guard_start(self) -> None:
            self._guard_waiting = True
            if self._guard_host is not None:
                incomplete[self._guard_host] += 1
            self._guard_timer = self.loop.call_later(limits.request_timeout, self._guard_expire)

        def _guard_stop(self) -> None:
            if not self._guard_waiting:
                return
            self._guard_waiting = False
            self._guard_done = self.cycle
            if self._guard_timer is not None:
                self._guard_timer.cancel()
                self._guard_timer = None
            host = self._guard_host
            if host is not None:
                incomplete[host] -= 1
                if incomplete[host] <= 0:
                    del incomplete[host]

        def _guard_expire(self) -> None:
            self._guard_timer = None
            if not self._guard_waiting:
                return
            totals["timed_out"] += 1
            self._guard_stop()
            self.transport.abort()  # a client that sends slowly may read slowly too: nothing kept

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    Guarded.incomplete = incomplete  # type: ignore[attr-defined]
    Guarded.totals = totals  # type: ignore[attr-defined]
    return Guarded
