"""The broker between server processes: who owns a room, news of its versions, forwarded commands.

One room has one writer (:class:`~getaway.web.rooms.RoomService`'s worker). With more than one
``getaway serve`` process, the :class:`Broker` decides which process that is and carries what
the processes tell each other; the log (PostgreSQL) stays the only truth about a room::

    socket ── process B (mirror of R) ──forward(R, command)──▶ process A (owner of R: lease)
                   ▲                                                │ append (fenced) to the log
                   │ catch up from the log, each socket its         ▼
                   └── own player_view ◀── news "R is at v" ── publish(R, v)

- **Leases** (:meth:`Broker.acquire`, :meth:`~Broker.renew_all`, :meth:`~Broker.release`): a room
  is owned by the process holding its lease, which expires unless renewed (a dead process's lease
  runs out); a process renews all of its leases in one call (one round trip to Redis). Each lease
  carries a **fencing token**, increasing per room; only the holder (same process, same token)
  may renew or release it, and :meth:`~Broker.holds` tells a writer whether its lease is still
  the room's before it appends to the log.
- **News** (:meth:`~Broker.publish`, :meth:`~Broker.follow`): the owner says "room R is at version
  v" with public facts only (seats connected, the turn timer, an absence deadline); a process with
  sockets in R reads the new commands from the log and sends each socket its own view. No card
  ever goes through the broker.
- **Forwarding** (:meth:`~Broker.forward`): a command from a socket on another process reaches the
  owner and its answer comes back (request and reply), or :class:`NoOwner` / :class:`BrokerDown`,
  or :class:`OwnerGone` when the owner heard it and stopped listening (died) before it answered.

:class:`MemoryBroker` keeps all of it in this process (one process alone, as without a cluster;
or several services of one test sharing a :class:`MemoryHub`);
:class:`~getaway.web.redis_broker.RedisBroker` uses Redis (``redis.asyncio``): a lease is a key
set with ``SET … PX`` by a Lua script that also ``INCR``s the room's fencing counter, news and
requests are pub/sub messages.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "Broker",
    "BrokerDown",
    "Lease",
    "MemoryBroker",
    "MemoryHub",
    "NoOwner",
    "OwnerGone",
    "LEASE_MS",
    "BEATS_PER_LEASE",
    "OWNER_CHECK",
    "SLOT_MS",
    "FORWARD_TIMEOUT",
    "process_id",
    "process_of",
]

log = logging.getLogger("getaway.web")

#: How long a lease lasts unless renewed (milliseconds; the ``lease`` setting's default, in
#: seconds); the owner renews it :data:`BEATS_PER_LEASE` times a lease. A dead owner's rooms are
#: taken over as soon as its lease runs out: at most this long after it died (docs/web.md "Failover").
LEASE_MS: Final = 2000
#: Heartbeats (lease renewals) per lease: an owner whose event loop stalls for up to three of them
#: (1.5 s with the default lease) keeps its leases.
BEATS_PER_LEASE: Final = 4
#: Seconds between the checks, while a forwarded command waits for its answer, that the owner
#: asked still listens (a dead owner's is not waited for until :data:`FORWARD_TIMEOUT`).
OWNER_CHECK: Final = 0.25
#: How long a slot (:meth:`Broker.take_slot`) lasts unless renewed (milliseconds): the room service
#: renews its slots every few seconds, so a dead process's sockets stop counting within this.
SLOT_MS: Final = 10_000
#: Seconds a forwarded command waits for the owner's answer before it is refused (``server_error``).
FORWARD_TIMEOUT: Final = 5.0
#: The most log entries one news carries (web/rooms/mirror.py ``Mirror.publish``: a mirror applies
#: them instead of reading the log; one or two a news, more only after a burst, then it reads).
NEWS_LOG: Final = 8

#: What a process does with a forwarded request: the request's body in, the answer's body out.
OnRequest = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
#: What a process does with news of a room it follows: ``(code, news)``.
OnNews = Callable[[str, dict[str, Any]], None]


class BrokerDown(RuntimeError):
    """The broker's service (Redis) cannot be reached: nothing was decided or sent."""


class NoOwner(LookupError):
    """Nobody holds the room's lease (or its holder is gone): take it, or wait for it to expire."""


class OwnerGone(NoOwner):
    """The owner heard a forwarded request and stopped listening before it answered (it died):
    the command may have been applied and logged, or not. Read the log before sending it again."""


@dataclass(frozen=True)
class Lease:
    """A process's ownership of one room: ``code``, the holding ``process`` (its id) and the
    fencing ``token`` (increasing per room: a later lease has a larger token)."""

    code: str
    process: str
    token: int

    @property
    def value(self) -> str:
        """What the lease key holds: ``"process:token"``."""
        return f"{self.process}:{self.token}"


class Broker:
    """What :class:`~getaway.web.rooms.RoomService` needs from its peers (see the module doc).

    ``shared`` is ``False`` for a process alone: the service then takes none of these paths
    (every room is its own, nothing is published or forwarded), exactly as without a broker.
    """

    shared: bool = False
    process: str

    async def start(self, on_request: OnRequest, on_news: OnNews) -> None:
        """Start listening: ``on_request`` answers requests forwarded to this process,
        ``on_news`` hears news of the rooms this process follows."""

    async def stop(self) -> None:
        """Stop listening and release the connection."""

    async def acquire(self, code: str) -> Lease | None:
        """Take room ``code``'s lease if nobody holds it: the new lease, else ``None``.

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    async def renew(self, lease: Lease) -> bool:
        """Extend ``lease`` by :data:`LEASE_MS`; ``False`` if it is no longer held (expired, or
        another process holds the room now). One lease of :meth:`renew_all`.

        Raises:
            BrokerDown: the service cannot be reached.
        """
        return (await self.renew_all([lease]))[0]

    async def renew_all(self, leases: Sequence[Lease]) -> list[bool]:
        """Extend each of ``leases`` by :data:`LEASE_MS`, all in one call (one round trip to
        Redis, however many rooms): for each, in order, whether it was still held (``False``:
        expired, or another process holds the room now; that one is not extended).

        Raises:
            BrokerDown: the service cannot be reached (no lease was extended).
        """
        raise NotImplementedError

    async def release(self, lease: Lease) -> None:
        """Give ``lease`` up (only if still held by it)."""
        raise NotImplementedError

    async def holds(self, lease: Lease) -> bool:
        """Whether ``lease`` is still room ``lease.code``'s lease (the fencing check before a write).

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    async def listening(self, processes: Sequence[str]) -> list[bool]:
        """For each process id of ``processes``, in order, whether it still hears its requests
        (a process killed with ``kill -9`` stops at once, long before its leases expire); all in
        one call.

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    async def lease_left(self, code: str) -> float | None:
        """Seconds until room ``code``'s lease runs out unless renewed (``None``: nobody holds it).

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    async def holder(self, code: str) -> str | None:
        """The process holding room ``code``'s lease, or ``None``. One room of :meth:`holders`.

        Raises:
            BrokerDown: the service cannot be reached.
        """
        return (await self.holders([code]))[0]

    async def holders(self, codes: Sequence[str]) -> list[str | None]:
        """For each room of ``codes``, in order, the process holding its lease, or ``None``; all
        in one call (one round trip to Redis).

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    def publish(self, code: str, news: dict[str, Any]) -> None:
        """Queue ``news`` (a JSON object of public facts) for the followers of room ``code``; sent
        in order, in the background (a failure is logged, the followers catch up with the next)."""

    async def follow(self, code: str) -> None:
        """Hear the news of room ``code`` (``on_news``)."""

    async def unfollow(self, code: str) -> None:
        """Stop hearing the news of room ``code``."""

    async def take_slot(self, group: str, key: str, member: str, cap: int) -> bool:
        """Count ``member`` in the slots of ``(group, key)`` (say the open sockets of one client
        address) if fewer than ``cap`` are taken, or if it already holds one (which renews it); a
        slot not renewed within :data:`SLOT_MS` is freed (its process died). Whether it holds one.

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    async def renew_slots(self, slots: Sequence[tuple[str, str, str]]) -> None:
        """Renew each slot ``(group, key, member)`` of ``slots`` for :data:`SLOT_MS` (taken again,
        whatever the cap, if it had expired), all in one call (one round trip to Redis).

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    async def free_slot(self, group: str, key: str, member: str) -> None:
        """Free ``member``'s slot of ``(group, key)``.

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    async def list_room(self, code: str, entry: str | None) -> None:
        """Put room ``code`` in the cluster's lobby with ``entry`` (JSON text of public facts:
        what the lobby's list shows of it), or take it out (``None``).

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    async def lobby(self) -> list[str]:
        """The entries of the cluster's lobby (:meth:`list_room`), in no order.

        Raises:
            BrokerDown: the service cannot be reached.
        """
        raise NotImplementedError

    async def forward(self, code: str, body: dict[str, Any], timeout: float = FORWARD_TIMEOUT) -> dict[str, Any]:
        """Send ``body`` to the owner of room ``code`` and return its answer.

        Raises:
            OwnerGone: the owner heard it and stopped listening before it answered (checked
                every :data:`OWNER_CHECK` seconds): it may have been applied.
            NoOwner: nobody holds the lease, or its holder cannot hear (gone): not sent.
            BrokerDown: the service cannot be reached.
            TimeoutError: no answer within ``timeout`` seconds (the owner still listens).
        """
        raise NotImplementedError


def process_id() -> str:
    """A new process id: 12 hex digits (this process in lease values and channel names)."""
    return secrets.token_hex(6)


def process_of(value: str | None) -> str | None:
    """The process of a lease key's value ``"process:token"`` (``None``: no lease)."""
    return None if value is None else value.rsplit(":", 1)[0]


# ====================================================================== in memory


@dataclass
class MemoryHub:
    """The shared state of :class:`MemoryBroker` s in one process: leases (``code → (value,
    expiry)`` on the event loop's clock), fencing counters, who follows what, who answers."""

    leases: dict[str, tuple[str, float]] = field(default_factory=dict)
    fences: dict[str, int] = field(default_factory=dict)
    brokers: dict[str, MemoryBroker] = field(default_factory=dict)
    slots: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)  # member → expiry
    lobby: dict[str, str] = field(default_factory=dict)  # code → lobby entry (JSON)

    def live(self, code: str) -> str | None:
        """The value of room ``code``'s lease, if it has not expired."""
        held = self.leases.get(code)
        if held is None or held[1] <= asyncio.get_running_loop().time():
            self.leases.pop(code, None)
            return None
        return held[0]


class MemoryBroker(Broker):
    """A :class:`Broker` in this process. Alone (the default: its own hub) it is not ``shared``
    and the room service never calls it: one process, every room its own. Several brokers on one
    :class:`MemoryHub` behave as processes of a cluster (the in-process tests of the protocol).

    Args:
        hub: the hub shared with the other "processes"; ``None``: a hub of its own.
        lease_ms: the lease's lifetime (milliseconds).
    """

    def __init__(self, hub: MemoryHub | None = None, *, lease_ms: int = LEASE_MS) -> None:
        self.shared = hub is not None
        self.hub = hub if hub is not None else MemoryHub()
        self.lease_ms = lease_ms
        self.process = process_id()
        self.following: set[str] = set()
        self.on_request: OnRequest | None = None
        self.on_news: OnNews | None = None

    async def start(self, on_request: OnRequest, on_news: OnNews) -> None:
        self.on_request, self.on_news = on_request, on_news
        self.hub.brokers[self.process] = self

    async def stop(self) -> None:
        self.hub.brokers.pop(self.process, None)

    def _expiry(self) -> float:
        return asyncio.get_running_loop().time() + self.lease_ms / 1000

    async def acquire(self, code: str) -> Lease | None:
        if self.hub.live(code) is not None:
            return None
        token = self.hub.fences[code] = self.hub.fences.get(code, 0) + 1
        lease = Lease(code, self.process, token)
        self.hub.leases[code] = (lease.value, self._expiry())
        return lease

    async def renew_all(self, leases: Sequence[Lease]) -> list[bool]:
        held = []
        for lease in leases:
            mine = self.hub.live(lease.code) == lease.value
            if mine:
                self.hub.leases[lease.code] = (lease.value, self._expiry())
            held.append(mine)
        return held

    async def release(self, lease: Lease) -> None:
        if self.hub.live(lease.code) == lease.value:
            del self.hub.leases[lease.code]

    async def holds(self, lease: Lease) -> bool:
        return self.hub.live(lease.code) == lease.value

    async def holders(self, codes: Sequence[str]) -> list[str | None]:
        return [process_of(self.hub.live(code)) for code in codes]

    async def listening(self, processes: Sequence[str]) -> list[bool]:
        return [process in self.hub.brokers for process in processes]

    async def lease_left(self, code: str) -> float | None:
        if self.hub.live(code) is None:
            return None
        return max(0.0, self.hub.leases[code][1] - asyncio.get_running_loop().time())

    async def take_slot(self, group: str, key: str, member: str, cap: int) -> bool:
        now = asyncio.get_running_loop().time()
        held = self.hub.slots.setdefault((group, key), {})
        for other in [m for m, expiry in held.items() if expiry <= now]:
            del held[other]
        if member not in held and len(held) >= cap:
            return False
        held[member] = now + SLOT_MS / 1000
        return True

    async def renew_slots(self, slots: Sequence[tuple[str, str, str]]) -> None:
        expiry = asyncio.get_running_loop().time() + SLOT_MS / 1000
        for group, key, member in slots:
            self.hub.slots.setdefault((group, key), {})[member] = expiry

    async def free_slot(self, group: str, key: str, member: str) -> None:
        self.hub.slots.get((group, key), {}).pop(member, None)

    async def list_room(self, code: str, entry: str | None) -> None:
        if entry is None:
            self.hub.lobby.pop(code, None)
        else:
            self.hub.lobby[code] = entry

    async def lobby(self) -> list[str]:
        return list(self.hub.lobby.values())

    def publish(self, code: str, news: dict[str, Any]) -> None:
        message = json.loads(json.dumps(news))  # what Redis would carry: JSON, nothing shared
        for broker in list(self.hub.brokers.values()):
            if broker is not self and code in broker.following and broker.on_news is not None:
                broker.on_news(code, message)

    async def follow(self, code: str) -> None:
        self.following.add(code)

    async def unfollow(self, code: str) -> None:
        self.following.discard(code)

    async def forward(self, code: str, body: dict[str, Any], timeout: float = FORWARD_TIMEOUT) -> dict[str, Any]:
        holder = await self.holder(code)
        owner = self.hub.brokers.get(holder) if holder is not None and holder != self.process else None
        if owner is None or owner.on_request is None:
            raise NoOwner(code)
        answer = await asyncio.wait_for(owner.on_request(code, json.loads(json.dumps(body))), timeout)
        return json.loads(json.dumps(answer))
