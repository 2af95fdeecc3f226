"""The :class:`~getaway.web.broker.Broker` on Redis (``serve --redis-url``): leases as keys set by
Lua scripts with a fencing counter, news and forwarded requests as pub/sub messages, every
message authenticated (an HMAC-SHA256 with the cluster's secret over its channel and its text,
which carries its sender, a sequence number and a time: a forged or replayed message is dropped
with one log line, :class:`Seal`) and checked against its pydantic shape (anything else dropped
with one log line). The interface, its errors and the in-process :class:`~getaway.web.broker.MemoryBroker` are
in :mod:`getaway.web.broker`; docs/web.md "More than one process".
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Sequence
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from .broker import (
    FORWARD_TIMEOUT,
    LEASE_MS,
    NEWS_LOG,
    OWNER_CHECK,
    SLOT_MS,
    Broker,
    BrokerDown,
    Lease,
    NoOwner,
    OnNews,
    OnRequest,
    OwnerGone,
    process_id,
    process_of,
)

__all__ = ["Forged", "RedisBroker", "Replayed", "Seal"]

log = logging.getLogger("getaway.web")

#: Take a free lease: KEYS = lease key, fencing counter; ARGV = process, lifetime (ms). The token
#: (INCR of the counter) and the key are set together, so tokens increase with each new holder.
_ACQUIRE: Final = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return token
"""
#: Extend leases, each only by its holder: KEYS = lease keys; ARGV = their "process:token"s, then
#: the lifetime (ms). Returns 1 (extended) or 0 (not held) for each key, in order.
_RENEW_ALL: Final = """
local life = ARGV[#KEYS + 1]
local held = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i] then held[i] = redis.call('PEXPIRE', key, life) else held[i] = 0 end
end
return held
"""
#: Give a lease up, only by its holder: KEYS = lease key; ARGV = "process:token".
_RELEASE: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

#: Take or renew a slot: KEYS = the slots' sorted set (member → expiry, ms of Redis's clock);
#: ARGV = member, cap, lifetime (ms). Expired members are dropped first.
_SLOT: Final = """
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0
"""
#: Renew slots whatever the cap: KEYS = the slots' sorted sets; ARGV = their members, then the
#: lifetime (ms).
_RENEW_SLOTS: Final = """
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local life = tonumber(ARGV[#KEYS + 1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + life, ARGV[i])
  redis.call('PEXPIRE', key, life)
end
return #KEYS
"""

_PREFIX: Final = "getaway:"


# What the processes publish on Redis (the shapes :meth:`RedisBroker._listen` accepts; anything
# else is dropped with one log line).


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


#: A seat number as it may cross Redis (a room has at most 8 seats; the room checks its own count).
_Seat = Annotated[int, Field(ge=0, lt=16)]


#: One value of a carried log entry's payload (a seat, a card or command word, a reason, a room code).
_Value = int | bool | Annotated[str, Field(max_length=32)] | None
#: A log entry as news carries it: version, kind (not a join), payload, time (Unix seconds).
_Entry = tuple[
    Annotated[int, Field(ge=1)],
    Literal["start", "act", "absent", "reclaim", "next_deal", "rematch", "close"],
    Annotated[dict[Annotated[str, Field(max_length=16)], _Value], Field(max_length=4)],
    Annotated[float, Field(allow_inf_nan=False)],
]


class _News(_Shape):
    """News of a room (:meth:`getaway.web.rooms.mirror.Mirror.publish`): public facts only (a
    quick chat's news carries the version and the chat alone)."""

    v: Annotated[int, Field(ge=0)]
    #: the owner's lease token (a new owner's is larger: the mirrors tell it their seats at once)
    lease: Annotated[int, Field(ge=0)] | None = None
    connected: list[_Seat] = []
    turn_ends_in: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    #: seconds left of the take window a bot's lead waits for (docs/web.md "Takes")
    take_ends_in: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    absent: tuple[_Seat, Annotated[float, Field(allow_inf_nan=False)]] | None = None
    #: a seat's quick chat: the seat and the phrase's key (checked by the mirror)
    chat: tuple[_Seat, Annotated[str, Field(max_length=32)]] | None = None
    #: the log entries written since the last news, ``[version, kind, payload, time]`` (the room
    #: checks each as it applies it; a join's is never carried: it holds a token hash)
    log: Annotated[list[_Entry], Field(max_length=NEWS_LOG)] | None = None


class _Request(_Shape):
    """A forwarded request: a mirror's ``presence`` (its ``process`` has sockets for ``seats``,
    and one of a seat-less host if ``host``, the slowest at ``pace``), a ``chat`` (``seats``: the sender's; ``payload``:
    its ``phrase``), or a command (``kind``, ``payload``, ``version``,
    ``address``; checked by the room itself). A command's ``payload`` is its fields
    (:mod:`getaway.web.rooms.commands`: written and read from its class, so a new field of a
    command needs no edit here)."""

    kind: str
    process: str | None = None
    seats: list[_Seat] | None = None
    host: bool | None = None
    #: a presence's slowest pace of its sockets (web/rooms/timers.py ``PACES``)
    pace: Annotated[float, Field(ge=0.5, le=2.0, allow_inf_nan=False)] | None = None
    payload: dict[str, Any] | None = None
    version: int | None = None
    address: str | None = None

    @model_validator(mode="after")
    def _presence_names_its_seats(self) -> _Request:
        if self.kind == "presence" and (self.process is None or self.seats is None):
            raise ValueError("a presence names its process and seats")
        return self


class _Refusal(_Shape):
    """A relayed refusal (``RelayedError.relay``)."""

    code: str
    template: str
    args: dict[str, int | float | str | bool | None]
    status: int
    texts: dict[str, str] | None = None


class _Logged(_Shape):
    seat: int | None = None


class _Reply(_Shape):
    """The owner's answer to a request: ``ok`` (presence), ``retry`` (not the owner), a
    command's ``logged`` facts, ``version`` and entry (``log``), or its ``error``."""

    ok: bool | None = None
    retry: bool | None = None
    logged: _Logged | None = None
    version: int | None = None
    #: the entry the command wrote, as news carries it (the asker applies it: no read of the log)
    log: Annotated[list[_Entry], Field(max_length=1)] | None = None
    error: _Refusal | None = None


class _NewsMessage(_Shape):
    t: Literal["news"]
    code: str
    news: _News


class _AskMessage(_Shape):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    t: Literal["ask"]
    id: str
    sender: str = Field(alias="from")
    code: str
    body: _Request


class _AnswerMessage(_Shape):
    t: Literal["answer"]
    id: str
    body: _Reply


def _problem(exc: ValidationError) -> str:
    """The first problem of a message that does not parse, in one line (never its content)."""
    error = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else error["msg"]


#: Seconds a message's time may differ from the receiver's clock (clocks kept by NTP): an older
#: message is a replay (:class:`Seal`).
MAX_AGE: Final = 10.0
#: Sequence numbers remembered per sender: a message further behind the sender's newest is dropped.
REPLAY_WINDOW: Final = 4096
#: Seconds a message may be stamped before its receiver began to listen on the channel (the
#: sender's stamp comes before its publish; their clocks may differ a little): older ones were
#: recorded before this process listened, and published again.
LISTEN_SLACK: Final = 2.0
#: Connections each client of a process may open to Redis at once (commands in flight): redis-py
#: 8's asyncio pool stops at 100 unless told, and at a few hundred rooms a process has more
#: commands in flight ("Too many connections": the broker was taken for unreachable).
POOL_SIZE: Final = 1024


class _Sealed(_Shape):
    """What a sealed message's text holds: its sender ``p`` (a process id), its sequence number
    ``s`` (increasing per sender), its time ``ts`` (ms since the epoch) and the message ``m``."""

    p: Annotated[str, Field(max_length=64)]
    s: Annotated[int, Field(ge=0)]
    ts: int
    m: Annotated[_NewsMessage | _AskMessage | _AnswerMessage, Field(discriminator="t")]


_SEALED: Final = TypeAdapter(_Sealed)


class Forged(ValueError):
    """A message without the cluster's MAC (or a wrong one): dropped."""


class Replayed(Forged):
    """An authentic message heard before, or too old (a copy published again): dropped."""


class Seal:
    """The authentication of the messages between the processes of a cluster (issue 29 item 3):
    each is sent as ``<mac>.<text>``, ``text`` being the JSON of ``{"p": sender, "s": sequence,
    "ts": ms, "m": message}`` and ``mac`` the hex HMAC-SHA256, with the cluster's secret, of the
    channel's name, a newline and ``text``: a message cannot be made, changed or moved to another
    channel without the secret. A receiver drops a message whose time is more than
    :data:`MAX_AGE` seconds from its clock, or whose sender's sequence number it has seen (or
    that is :data:`REPLAY_WINDOW` behind the newest it has seen from that sender): a message
    recorded off Redis and published again is dropped too. So is a message stamped more than
    :data:`LISTEN_SLACK` before the receiver began to listen on its channel (``since``): Redis
    delivers only what is published after a subscription, so such a message was recorded
    before and published again, to a process that had not heard it (one that just began to
    follow the room, or just started).

    Args:
        secret: the cluster's secret (``cluster_secret``: every process the same).
        sender: this process's id.

    >>> one, two = Seal("s3cret-of-the-cluster", "p1"), Seal("s3cret-of-the-cluster", "p2")
    >>> data = one.seal("getaway:room:R1", {"t": "news", "code": "R1", "news": {"v": 1}})
    >>> two.open("getaway:room:R1", data).m.news.v
    1
    >>> two.open("getaway:room:R1", data)
    Traceback (most recent call last):
    ...
    getaway.web.redis_broker.Replayed: sequence number 0 of p1 heard before
    """

    def __init__(self, secret: str, sender: str) -> None:
        if not secret:
            raise ValueError("the cluster's messages need a secret (cluster_secret, GETAWAY_CLUSTER_SECRET)")
        self.key = secret.encode("utf-8")
        self.sender = sender
        self.sequence = 0
        self.seen: dict[str, tuple[int, set[int]]] = {}  # sender → (newest sequence, those in the window)

    def _mac(self, channel: str, text: bytes) -> str:
        return hmac.new(self.key, channel.encode("utf-8") + b"\n" + text, hashlib.sha256).hexdigest()

    def seal(self, channel: str, message: dict[str, Any]) -> str:
        """The text to publish on ``channel`` for ``message`` (a JSON object)."""
        body = {"p": self.sender, "s": self.sequence, "ts": round(time.time() * 1000), "m": message}
        self.sequence += 1
        text = json.dumps(body, separators=(",", ":"))
        return f"{self._mac(channel, text.encode('utf-8'))}.{text}"

    def sign(self, name: str, text: str) -> str:
        """``text`` (state kept in Redis under ``name``, e.g. a lobby entry) as ``<mac>.<text>``:
        no one without the secret can write or move it (no time or sequence: it is state, read
        many times, not a message)."""
        return f"{self._mac(name, text.encode('utf-8'))}.{text}"

    def verify(self, name: str, data: bytes | str) -> str:
        """The text of ``data`` read from Redis under ``name``, once its MAC is checked.

        Raises:
            Forged: no MAC or a wrong one (written without the secret, or under another name).
        """
        raw = data.encode("utf-8") if isinstance(data, str) else data
        mac, dot, text = raw.partition(b".")
        if not dot or not hmac.compare_digest(mac, self._mac(name, text).encode("ascii")):
            raise Forged("no valid MAC (not signed with the cluster's secret)")
        return text.decode("utf-8")

    def open(self, channel: str, data: bytes | str, since: float | None = None) -> _Sealed:
        """The message of ``data`` heard on ``channel``, once its MAC, time and sequence number
        are checked (its sequence number is then remembered). ``since``: when this process
        began to listen on ``channel`` (``time.time()``, seconds), if known.

        Raises:
            Forged: no MAC or a wrong one; :class:`Replayed`: a time out of :data:`MAX_AGE`, a
                sequence number heard before, or a time before ``since`` (less the slack).
            pydantic.ValidationError: authentic, but not a shape the processes publish.
        """
        raw = data.encode("utf-8") if isinstance(data, str) else data
        mac, dot, text = raw.partition(b".")
        if not dot or not hmac.compare_digest(mac, self._mac(channel, text).encode("ascii")):
            raise Forged("no valid MAC (not signed with the cluster's secret)")
        sealed = _SEALED.validate_json(text)
        if abs(time.time() * 1000 - sealed.ts) > MAX_AGE * 1000:
            raise Replayed(f"sent {abs(time.time() - sealed.ts / 1000):.0f} s from this clock's time")
        if since is not None and sealed.ts < (since - LISTEN_SLACK) * 1000:
            raise Replayed(f"sent {since - sealed.ts / 1000:.1f} s before this process listened on the channel")
        newest, window = self.seen.get(sealed.p, (-1, set()))
        if sealed.s in window or sealed.s <= newest - REPLAY_WINDOW:
            raise Replayed(f"sequence number {sealed.s} of {sealed.p} heard before")
        window.add(sealed.s)
        newest = max(newest, sealed.s)
        if len(window) > 2 * REPLAY_WINDOW:  # numbers behind the window are refused by the test above:
            window = {n for n in window if n > newest - REPLAY_WINDOW}  # dropped in a batch, not each time
        self.seen[sealed.p] = (newest, window)
        return sealed


class RedisBroker(Broker):
    """A :class:`Broker` on Redis (``redis.asyncio``): every process of the cluster uses the same
    Redis. Keys: ``getaway:lease:{code}`` (``"process:token"``, expiring), ``getaway:fence:{code}``
    (the fencing counter); pub/sub channels: ``getaway:room:{code}`` (news), and
    ``getaway:proc:{process}`` (requests to a process, and the answers to its own requests).

    Args:
        url: ``redis://[user:password@]host:port/db`` (a password, or an ACL user and its
            password), ``rediss://…`` for TLS, or ``unix://…``.
        secret: the cluster's secret: every message is sealed with it (:class:`Seal`).
        lease_ms: the lease's lifetime (milliseconds).

    Raises:
        ValueError: no ``secret``.

    When Redis cannot be reached, calls raise :class:`BrokerDown` and one line is logged (and
    one more when it is back); listening resumes by itself (redis-py subscribes again).
    """

    shared = True

    def __init__(self, url: str, *, secret: str, lease_ms: int = LEASE_MS) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        self.url = url
        self.lease_ms = lease_ms
        self.process = process_id()
        self.seal = Seal(secret, self.process)
        # One quick retry (a connection broken by a Redis restart), never seconds of backoff: a
        # command waits at most a few seconds for an unreachable Redis before it is refused.
        self.redis = aioredis.from_url(
            url, socket_timeout=2.0, socket_connect_timeout=2.0, decode_responses=True, retry=Retry(NoBackoff(), 1),
            max_connections=POOL_SIZE,
        )  # fmt: skip
        # The listener reads bytes: a message that is not UTF-8 text is dropped like any other
        # malformed one (a decoding client would raise inside get_message and stop the listener).
        self._raw = aioredis.from_url(
            url, socket_timeout=2.0, socket_connect_timeout=2.0, retry=Retry(NoBackoff(), 1), max_connections=POOL_SIZE
        )
        self._acquire = self.redis.register_script(_ACQUIRE)
        self._renew_all = self.redis.register_script(_RENEW_ALL)
        self._release = self.redis.register_script(_RELEASE)
        self._slot = self.redis.register_script(_SLOT)
        self._renew_slots = self.redis.register_script(_RENEW_SLOTS)
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._sender: asyncio.Task[None] | None = None
        # (channel, message): sealed as it is published, so that its time is its publish's, not
        # its queueing's (a receiver that began to listen meanwhile would take it for a replay)
        self._outbox: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._wanted: set[str] = set()  # the room channels to hear (subscribed again if a subscribe failed)
        self._since: dict[str, float] = {}  # channel → when this process asked to hear it (time.time())
        self._tasks: set[asyncio.Task[Any]] = set()
        self.on_request: OnRequest | None = None
        self.on_news: OnNews | None = None
        self.down = False  # Redis unreachable (logged once)

    # -------------------------------------------------------------- reachability

    async def _call(self, awaitable: Awaitable[Any]) -> Any:
        """Await one Redis call; a connection failure becomes :class:`BrokerDown` (logged once)."""
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        try:
            result = await awaitable
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            self._went_down(exc)
            raise BrokerDown(str(exc)) from None
        self._came_back()
        return result

    def _went_down(self, exc: BaseException) -> None:
        if not self.down:
            self.down = True
            log.error("redis %s unreachable (%s): commands are refused until it is back", self._shown(), exc)

    def _came_back(self) -> None:
        if self.down:
            self.down = False
            log.warning("redis %s reachable again", self._shown())

    def _shown(self) -> str:
        return self.url.split("@")[-1]  # no password in the log

    # -------------------------------------------------------------- life cycle

    async def start(self, on_request: OnRequest, on_news: OnNews) -> None:
        self.on_request, self.on_news = on_request, on_news
        self._pubsub = self._raw.pubsub(ignore_subscribe_messages=True)
        self._since[self._inbox(self.process)] = time.time()
        await self._call(self._pubsub.subscribe(self._inbox(self.process)))
        self._listener = asyncio.create_task(self._listen(), name="broker-listen")
        self._sender = asyncio.create_task(self._send(), name="broker-send")

    async def stop(self) -> None:
        for task in (self._listener, self._sender, *self._tasks):
            if task is not None:
                task.cancel()
        for task in (self._listener, self._sender, *self._tasks):
            if task is not None:
                with contextlib.suppress(BaseException):
                    await task
        with contextlib.suppress(Exception):
            if self._pubsub is not None:
                await self._pubsub.aclose()
        for client in (self._raw, self.redis):
            with contextlib.suppress(Exception):
                await client.aclose()

    @staticmethod
    def _inbox(process: str) -> str:
        return f"{_PREFIX}proc:{process}"

    @staticmethod
    def _room(code: str) -> str:
        return f"{_PREFIX}room:{code}"

    # -------------------------------------------------------------- leases

    async def acquire(self, code: str) -> Lease | None:
        keys = [f"{_PREFIX}lease:{code}", f"{_PREFIX}fence:{code}"]
        token = int(await self._call(self._acquire(keys=keys, args=[self.process, self.lease_ms])))
        return Lease(code, self.process, token) if token else None

    async def renew_all(self, leases: Sequence[Lease]) -> list[bool]:
        if not leases:
            return []
        keys = [f"{_PREFIX}lease:{lease.code}" for lease in leases]
        held = await self._call(self._renew_all(keys=keys, args=[*(lease.value for lease in leases), self.lease_ms]))
        return [bool(h) for h in held]

    async def release(self, lease: Lease) -> None:
        await self._call(self._release(keys=[f"{_PREFIX}lease:{lease.code}"], args=[lease.value]))

    async def holds(self, lease: Lease) -> bool:
        return await self._call(self.redis.get(f"{_PREFIX}lease:{lease.code}")) == lease.value

    async def holders(self, codes: Sequence[str]) -> list[str | None]:
        if not codes:
            return []
        values = await self._call(self.redis.mget([f"{_PREFIX}lease:{code}" for code in codes]))
        return [process_of(value) for value in values]

    async def listening(self, processes: Sequence[str]) -> list[bool]:
        if not processes:
            return []
        # PUBSUB NUMSUB: a process hears its inbox as long as its connection lives (kill -9 ends it).
        counts = dict(await self._call(self.redis.pubsub_numsub(*(self._inbox(p) for p in processes))))
        return [int(counts.get(self._inbox(p), 0)) > 0 for p in processes]

    async def lease_left(self, code: str) -> float | None:
        left = int(await self._call(self.redis.pttl(f"{_PREFIX}lease:{code}")))
        return None if left < 0 else left / 1000

    # -------------------------------------------------------------- slots

    async def take_slot(self, group: str, key: str, member: str, cap: int) -> bool:
        keys = [f"{_PREFIX}slots:{group}:{key}"]
        return bool(await self._call(self._slot(keys=keys, args=[member, cap, SLOT_MS])))

    async def renew_slots(self, slots: Sequence[tuple[str, str, str]]) -> None:
        if slots:
            keys = [f"{_PREFIX}slots:{group}:{key}" for group, key, _ in slots]
            await self._call(self._renew_slots(keys=keys, args=[*(member for _, _, member in slots), SLOT_MS]))

    async def free_slot(self, group: str, key: str, member: str) -> None:
        await self._call(self.redis.zrem(f"{_PREFIX}slots:{group}:{key}", member))

    # -------------------------------------------------------------- the lobby

    async def list_room(self, code: str, entry: str | None) -> None:
        if entry is None:
            await self._call(self.redis.hdel(f"{_PREFIX}lobby", code))
        else:
            signed = self.seal.sign(f"{_PREFIX}lobby:{code}", entry)
            await self._call(self.redis.hset(f"{_PREFIX}lobby", code, signed))

    async def lobby(self) -> list[str]:
        """The lobby's entries whose MAC (:meth:`Seal.sign`, bound to the room's code) is right;
        one line logged for each other one (written to Redis by someone without the secret)."""
        found = []
        for code, data in (await self._call(self.redis.hgetall(f"{_PREFIX}lobby"))).items():
            name = code.decode("utf-8", "replace") if isinstance(code, bytes) else str(code)
            try:
                found.append(self.seal.verify(f"{_PREFIX}lobby:{name}", data))
            except Forged as exc:
                log.warning("broker: dropped a forged lobby entry %r: %s", name[:40], exc)
        return found

    # -------------------------------------------------------------- news

    def publish(self, code: str, news: dict[str, Any]) -> None:
        channel = self._room(code)
        self._outbox.put_nowait((channel, {"t": "news", "code": code, "news": news}))

    async def _send(self) -> None:
        """Send the queued messages in order (news of one room arrive in version order)."""
        while True:
            channel, message = await self._outbox.get()
            with contextlib.suppress(BrokerDown):  # logged; the followers catch up with later news
                await self._call(self.redis.publish(channel, self.seal.seal(channel, message)))

    async def follow(self, code: str) -> None:
        self._wanted.add(self._room(code))  # kept even if this fails: the listener subscribes later
        self._since.setdefault(self._room(code), time.time())
        await self._call(self._pubsub.subscribe(self._room(code)))

    async def unfollow(self, code: str) -> None:
        self._wanted.discard(self._room(code))
        self._since.pop(self._room(code), None)
        with contextlib.suppress(BrokerDown):
            await self._call(self._pubsub.unsubscribe(self._room(code)))

    async def _resubscribe(self) -> None:
        """Subscribe to the room channels whose subscription failed (Redis was unreachable);
        redis-py itself subscribes again to those it had, on reconnection."""
        have = {c.decode() if isinstance(c, bytes) else str(c) for c in self._pubsub.channels}
        missing = self._wanted - have
        if missing:
            await self._call(self._pubsub.subscribe(*missing))

    # -------------------------------------------------------------- forwarding

    async def forward(self, code: str, body: dict[str, Any], timeout: float = FORWARD_TIMEOUT) -> dict[str, Any]:
        holder = await self.holder(code)
        if holder is None or holder == self.process:
            raise NoOwner(code)
        ask = secrets.token_hex(8)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ask] = answer
        try:
            message = {"t": "ask", "id": ask, "from": self.process, "code": code, "body": body}
            inbox = self._inbox(holder)
            heard = await self._call(self.redis.publish(inbox, self.seal.seal(inbox, message)))
            if not heard:  # the holder's connection is gone (a dead process): its lease will expire
                raise NoOwner(code)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while True:  # the answer, or the owner found gone (it heard the request: maybe applied)
                wait = min(OWNER_CHECK, deadline - loop.time())
                if wait <= 0:
                    raise TimeoutError(f"no answer from the owner of room {code} in {timeout} s")
                with contextlib.suppress(TimeoutError):
                    return await asyncio.wait_for(asyncio.shield(answer), wait)
                if not (await self.listening([holder]))[0]:
                    raise OwnerGone(code)
        finally:
            self._waiting.pop(ask, None)

    # -------------------------------------------------------------- listening

    async def _listen(self) -> None:
        """Read this process's inbox and the news of the rooms it follows, for ever; while Redis
        is unreachable, try again every half second (redis-py subscribes again on reconnection)."""
        while True:
            try:
                await self._resubscribe()
                message = await self._call(self._pubsub.get_message(timeout=1.0))
            except BrokerDown:
                await asyncio.sleep(0.5)
                continue
            except Exception as exc:  # never let one bad read end the listening: one line, go on
                log.error("broker: cannot read a message (%s: %s); listening goes on", type(exc).__name__, exc)
                await asyncio.sleep(0.1)
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = message.get("channel")
            if isinstance(channel, bytes):
                channel = channel.decode("utf-8", "replace")
            try:
                sealed = self.seal.open(channel, message["data"], self._since.get(channel))
            except Forged as exc:  # one line, no traceback: the message is dropped
                kind = "replayed" if isinstance(exc, Replayed) else "forged"
                log.warning("broker: dropped a %s message on %s: %s", kind, channel, exc)
                continue
            except (ValidationError, ValueError) as exc:
                problem = _problem(exc) if isinstance(exc, ValidationError) else str(exc)
                log.warning("broker: dropped a malformed message on %s: %s", channel, problem)
                continue
            try:
                parsed = sealed.m
                if isinstance(parsed, _NewsMessage) and channel != self._room(parsed.code):
                    raise ValueError(f"news of room {parsed.code!r} on another room's channel")
                if isinstance(parsed, _AskMessage) and parsed.sender != sealed.p:
                    raise ValueError(f"a request from {parsed.sender!r} sealed by {sealed.p!r}")
            except ValueError as exc:  # one line, no traceback: the message is dropped
                problem = _problem(exc) if isinstance(exc, ValidationError) else str(exc)
                log.warning("broker: dropped a malformed message on %s: %s", channel, problem)
                continue
            try:
                self._dispatch(parsed)
            except Exception:  # one failure must not stop the listener
                log.exception("broker: cannot handle a message on %s", channel)

    def _dispatch(self, message: _NewsMessage | _AskMessage | _AnswerMessage) -> None:
        if isinstance(message, _NewsMessage):
            if self.on_news is not None:
                self.on_news(message.code, message.news.model_dump(exclude_unset=True))
        elif isinstance(message, _AnswerMessage):
            waiting = self._waiting.get(message.id)
            if waiting is not None and not waiting.done():
                waiting.set_result(message.body.model_dump(exclude_unset=True))
        elif self.on_request is not None:
            task = asyncio.create_task(self._answer(message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _answer(self, message: _AskMessage) -> None:
        assert self.on_request is not None
        try:
            body = await self.on_request(message.code, message.body.model_dump(exclude_unset=True))
        except Exception:
            log.exception("broker: a forwarded command of room %s failed", message.code)
            body = {"error": {"code": "server_error", "template": "internal error", "args": {}, "status": 500}}
        inbox = self._inbox(message.sender)
        self._outbox.put_nowait((inbox, {"t": "answer", "id": message.id, "body": body}))
