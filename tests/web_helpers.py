"""Helpers of the web server tests: a test client on an in-memory database, and a player that
drives one socket through a deal (issue 6)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import inspect
import json
import os
import pwd
import random
import re
import resource
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from getaway.web.app import create_app
from getaway.web.protocol import SERVER, SERVER_TAGS
from getaway.web.store import metadata


@pytest.fixture
def seeded(monkeypatch):
    """Rooms get fixed 63-bit match seeds, ``SEED_BASE + 1``, ``+ 2`` … and fixed deal secrets
    (the SHA-256 of ``"secret 1"``, ``"secret 2"`` …): deterministic deals (the server draws
    both from ``secrets`` otherwise; the secret makes each deal's shuffle)."""
    counter = iter(range(1, 1_000_000))
    secrets_counter = iter(range(1, 1_000_000))
    monkeypatch.setattr("getaway.web.rooms.checks.new_seed", lambda: SEED_BASE + next(counter))
    monkeypatch.setattr(
        "getaway.web.rooms.checks.new_secret", lambda: hashlib.sha256(b"secret %d" % next(secrets_counter)).digest()
    )


#: Base of the seeds of :func:`seeded` (long enough to be found if it leaks into a message).
SEED_BASE = 0x2B7E_1516_28AE_D200


#: Run the web tests on another database (PostgreSQL: docs/web.md, "Tests and load"); each
#: client then starts from empty tables.
TEST_DATABASE = os.environ.get("GETAWAY_TEST_DATABASE_URL")


def fresh_database(tmp_path=None) -> str:
    """The URL of an empty database: ``GETAWAY_TEST_DATABASE_URL`` emptied, else SQLite
    (a file in ``tmp_path``, or in memory)."""
    if TEST_DATABASE:
        engine = create_engine(TEST_DATABASE)
        metadata.drop_all(engine)
        with engine.begin() as conn:  # the migrations' bookkeeping: the next Store migrates from scratch
            conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
        engine.dispose()
        return TEST_DATABASE
    return f"sqlite:///{tmp_path / 'web.db'}" if tmp_path is not None else "sqlite://"


#: The address of a client on the server's own machine (an operator: ``GET /stats``).
OPERATOR: Final = ("127.0.0.1", 50000)


def make_client(tmp_path=None, peer: tuple[str, int] = ("testclient", 50000), **settings: Any) -> TestClient:
    """A TestClient (use it as a context manager) on a fresh database, no bot delay; ``peer``:
    the client's address and port as the server sees them (:data:`OPERATOR`: on the machine)."""
    url = settings.pop("database_url", None) or fresh_database(tmp_path)
    settings.setdefault("bot_delay", 0)
    return TestClient(create_app(url, **settings), client=peer)


def create_room(client: TestClient, name: str | None = "Asha", **config: Any) -> dict[str, Any]:
    """POST /api/rooms (punjab, 4 players, 1 deal, easy bots, takes off unless said)."""
    body: dict[str, Any] = {"profile": "punjab", "players": 4, "deals": 1, "bot_level": "easy"}
    body["options"] = config.pop("options", {"takes": "off"})
    body.update(config)
    if name is not None:
        body["name"] = name
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def check_frame(text: str) -> dict[str, Any]:
    """One frame the server sent, checked against the protocol's models strictly, and returned
    as JSON: an object whose ``type`` is a tag of ``ServerMessage``, that validates against the
    union in strict mode (no ``"4"`` for 4; no undeclared field: the socket models forbid
    them), and that their dump gives back exactly (so that a field undeclared in a nested model
    shared with the HTTP side, ``room``'s ``RoomState``, or a default filled in, fails too).

    Raises:
        AssertionError: the frame does not fit, naming it.
    """
    frame = json.loads(text)
    assert isinstance(frame, dict) and frame.get("type") in SERVER_TAGS, f"no model for the frame {text[:200]}"
    try:
        model = SERVER.validate_json(text, strict=True)
    except ValueError as exc:  # pydantic's ValidationError
        raise AssertionError(f"{exc}\nin the frame {text[:400]}") from None
    again = model.model_dump(mode="json")
    assert again == frame, f"the frame differs from its model's dump: {_difference(frame, again)} in {text[:400]}"
    return frame


def _difference(sent: Any, model: Any, where: str = "") -> str:
    """Where ``sent`` and ``model`` (JSON values) first differ: ``room.seats.0.x`` and how."""
    if isinstance(sent, dict) and isinstance(model, dict):
        for key in sorted(set(sent) | set(model)):
            if key not in model:
                return f"{where}{key}: sent, not in the model"
            if key not in sent:
                return f"{where}{key}: in the model, not sent"
            if sent[key] != model[key]:
                return _difference(sent[key], model[key], f"{where}{key}.")
    if isinstance(sent, list) and isinstance(model, list) and len(sent) == len(model):
        for i, (a, b) in enumerate(zip(sent, model, strict=True)):
            if a != b:
                return _difference(a, b, f"{where}{i}.")
    return f"{where.rstrip('.')}: sent {sent!r:.80}, model {model!r:.80}"


class Player:
    """One socket of a test: keeps every message received (``seen``) for the leak audit."""

    def __init__(self, ws: Any, label: str = "") -> None:
        self.ws = ws
        self.label = label
        self.seen: list[dict[str, Any]] = []
        self.last: dict[str, Any] | None = None  # last welcome/sync/update
        self.history: list[dict[str, Any]] = []  # the view's history, rebuilt from updates

    def send(self, **msg: Any) -> None:
        self.ws.send_text(json.dumps(msg))

    def recv(self) -> dict[str, Any]:
        msg = json.loads(self.ws.receive_text())
        self.seen.append(msg)
        if msg["type"] in ("welcome", "sync"):
            self.history = [] if msg["view"] is None else list(msg["view"]["history"])
        elif msg["type"] == "update" and msg["view"] is not None:
            # As the page does (docs/web.md): an update's view has no history; append its events
            # (a new deal starts afresh) and check the count the server says it should be.
            assert "history" not in msg["view"]
            if self.last is None or self.last["room"]["deal_index"] != msg["room"]["deal_index"]:
                self.history = []
            self.history = self.history + msg["events"]
            assert len(self.history) == msg["history_length"], (self.label, msg["version"])
            msg = {**msg, "view": {**msg["view"], "history": self.history}}
        if msg["type"] in ("welcome", "sync", "update"):
            self.last = msg
        return msg

    def until(self, pred) -> dict[str, Any]:
        """Receive until a message satisfies ``pred``."""
        while True:
            msg = self.recv()
            if pred(msg):
                return msg

    def hello(self, **fields: Any) -> dict[str, Any]:
        self.send(type="hello", lang="en", **fields)
        return self.until(lambda m: m["type"] in ("welcome", "error"))

    @property
    def view(self) -> dict[str, Any] | None:
        return self.last["view"] if self.last else None

    @property
    def version(self) -> int:
        return self.last["version"]

    def my_turn(self) -> bool:
        v = self.view
        return v is not None and v["outcome"] is None and v["to_act"] == v["seat"] and bool(v["legal_actions"])

    def play_one(self, rng: random.Random) -> dict[str, Any]:
        """Play a random legal action and wait for the answer (an update or an error)."""
        action = rng.choice(self.view["legal_actions"])
        self.send(type="act", action=action, version=self.version)
        return self.until(lambda m: m["type"] in ("update", "error"))


def check_authority(log: list[Any], players: int) -> None:
    """Audit a room's log with rules of its own (not the room's code): every ``act`` is by the
    seat's controller, a human's move only on a seat no bot plays (``absent`` hands a human
    seat to a bot until ``reclaim``), a bot's only on a bot's seat or an absent human's; and
    versions run 1, 2, 3 … without a gap."""
    kind = ["empty"] * players
    bot_playing = [False] * players
    for i, entry in enumerate(log, 1):
        assert entry.version == i, f"version {entry.version} at log position {i}"
        p = entry.payload
        if entry.kind == "join":
            kind[p["seat"]] = "human"
        elif entry.kind == "start":
            kind = ["bot" if k == "empty" else k for k in kind]
        elif entry.kind == "absent":
            bot_playing[p["seat"]] = True
        elif entry.kind == "reclaim":
            bot_playing[p["seat"]] = False
        elif entry.kind == "act":
            seat = p["seat"]
            by_bot = kind[seat] == "bot" or bot_playing[seat]
            if p["bot"]:
                assert by_bot, f"version {entry.version}: a bot moved for seat {seat}, a human's"
            else:
                assert not by_bot, f"version {entry.version}: a human moved for seat {seat}, which a bot plays"


def drain_to(player: Player, version: int) -> None:
    """Receive until the player has seen ``version``."""
    if player.last is not None and player.last["version"] >= version:
        return
    player.until(lambda m: m["type"] in ("update", "sync", "welcome") and m["version"] >= version)


def play_deal(players: list[Player], rng: random.Random, stop=None) -> None:
    """Play until the deal is over (or ``stop(players)`` says so): whoever's turn it is plays,
    everyone else reads until they have caught up with the newest version."""
    for _ in range(3000):
        newest = max(p.last["version"] for p in players)
        for p in players:
            drain_to(p, newest)
        if players[0].view["outcome"] is not None:
            return
        if stop is not None and stop(players):
            return
        mover = next((p for p in players if p.my_turn()), None)
        if mover is None:
            # a bot is to act: wait for the next update on the first socket
            players[0].until(lambda m: m["type"] == "update")
            continue
        msg = mover.play_one(rng)
        if msg["type"] == "error" and msg["code"] == "rate_limited":
            # the server's flood control dropped the move (the test plays faster than a person):
            # as the page would, wait for the socket's bucket to refill a little and try again
            time.sleep(0.1)
            continue
        # a stale version is possible right after a reconnect (the reclaim moves the room on)
        assert msg["type"] == "update" or msg["code"] == "stale_version", msg
    raise AssertionError("the deal did not end")


class SyncSocket:
    """A blocking websockets client of one room speaking the protocol (the cluster tests and
    bench/failover.py): ``last`` is the last state it was sent (``welcome``, ``update`` or
    ``sync``), ``welcome`` the first, ``seen`` every frame it read as sent, and ``arrived``
    (version → ``time.monotonic()`` when a socket sharing that dict first saw it; by default
    the class's own, shared by every socket). Without a token it says hello as a spectator.

    Raises:
        RuntimeError: the server answered the hello with an ``error``.
        TimeoutError: no answer to the hello within ``open_timeout`` seconds.
    """

    arrived: dict[int, float] = {}

    def __init__(self, url: str, token: str | None, arrived: dict[int, float] | None = None,
                 open_timeout: float = 10) -> None:  # fmt: skip
        self._socket = connect(url, open_timeout=open_timeout)
        self.ws = self._socket.__enter__()
        if arrived is not None:
            self.arrived = arrived
        self.seen: list[str] = []
        hello = {"token": token} if token is not None else {"spectate": True}
        self.ws.send(json.dumps({"type": "hello", **hello, "lang": "en"}))
        self.last = self.until(lambda m: m["type"] in ("welcome", "error"))
        if self.last["type"] != "welcome":
            raise RuntimeError(f"not welcomed: {self.last}")
        self.welcome = self.last

    def until(self, pred: Any, timeout: float = 20) -> dict[str, Any]:
        """Read messages until ``pred(message)`` holds for one (returned).

        Raises:
            TimeoutError: none within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            text = self.ws.recv(timeout=max(0.01, deadline - time.monotonic()))
            self.seen.append(text)
            msg = json.loads(text)
            if msg["type"] in ("welcome", "update", "sync"):
                self.last = msg
                self.arrived.setdefault(msg["version"], time.monotonic())
            if pred(msg):
                return msg

    def mine(self) -> bool:
        """Whether this socket's seat is to act in the state it was last sent."""
        v = self.last["view"]
        return v is not None and v["outcome"] is None and v["to_act"] == v["seat"]

    def close(self) -> None:
        """Close the socket (quietly if it is closed already)."""
        with contextlib.suppress(Exception):
            self._socket.__exit__(None, None, None)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: The secret the tests' clusters seal their messages with (GETAWAY_CLUSTER_SECRET of every
#: ServerProcess, unless the environment sets one; docs/web.md "More than one process").
CLUSTER_SECRET = "the-tests-cluster-secret-" + os.urandom(8).hex()


#: The environment variables of the serve settings (``GETAWAY_*``, ``DATABASE_URL``, ``REDIS_URL``).
SETTINGS_ENV = re.compile(r"^(GETAWAY_|DATABASE_URL$|REDIS_URL$)")


class ServerProcess:
    """One ``getaway serve`` in a subprocess on a free loopback port (bots without thinking
    time, ``--grace 60``, and the options ``more``), on ``database`` (default: a SQLite file in
    ``tmp``); its output goes to ``tmp/<name>.log``. :meth:`kill` is SIGKILL (no clean shutdown).

    ``settings_env`` (a settings file's variables, deploy/getaway.env): the settings come from it
    alone, as in a container: neither the test flags above nor any settings variable of the tests'
    own environment (:data:`SETTINGS_ENV`), only ``--port`` and ``more``."""

    def __init__(
        self,
        tmp: Path,
        *more: str,
        database: str | None = None,
        name: str = "server",
        settings_env: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp / f"{name}.log"
        cmd = [sys.executable, "-m", "getaway", "serve", "--port", str(self.port)]
        if settings_env is None:
            cmd += ["--database", database or str(tmp / f"{name}.db"), "--bot-delay", "0", "--grace", "60"]
        cmd += more
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed by stop()
        env = dict(os.environ, PYTHONUTF8="1")
        if settings_env is None:
            env.setdefault("GETAWAY_CLUSTER_SECRET", CLUSTER_SECRET)  # used with --redis-url only
        else:
            env = {key: value for key, value in env.items() if not SETTINGS_ENV.match(key)} | settings_env
        self.proc = subprocess.Popen(cmd, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while True:
            try:
                httpx.get(f"{self.base}/api/strings/en", timeout=1)
                return
            except httpx.HTTPError:
                if self.proc.poll() is not None or time.time() > deadline:
                    self.stop()
                    raise AssertionError(self.log_path.read_text()) from None
                time.sleep(0.1)

    @property
    def ws(self) -> str:
        """The base URL of its sockets (``ws://127.0.0.1:port``)."""
        return f"ws://127.0.0.1:{self.port}"

    def log(self) -> str:
        """What the server has printed so far (also once it has stopped)."""
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: only what was committed survives."""
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM (a drain: docs/web.md), then SIGKILL after 20 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


@contextlib.contextmanager
def server_process(tmp: Path, *more: str, database: str | None = None, name: str = "server"):
    """A :class:`ServerProcess` until the block ends (then :meth:`ServerProcess.stop`)."""
    server = ServerProcess(tmp, *more, database=database, name=name)
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def running_server(tmp: Path, *more: str, database: str | None = None):
    """Run ``getaway serve`` (:class:`ServerProcess`) until the block ends; yields its base URL."""
    with server_process(tmp, *more, database=database) as server:
        yield server.base


ROOT = Path(__file__).resolve().parent.parent
#: The front's configuration in the repo (docs/web.md, "Behind a front").
NGINX_SITE = ROOT / "deploy" / "nginx" / "getaway.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


NGINX_UPSTREAM = ROOT / "deploy" / "nginx" / "getaway-upstream.conf"
#: The front's main nginx file in the repo: its worker_connections and worker_rlimit_nofile.
NGINX_MAIN = ROOT / "deploy" / "nginx" / "nginx.conf"


def shipped_nginx_limit(directive: str) -> int:
    """The number the repo's main nginx file (:data:`NGINX_MAIN`) gives ``directive``
    (``worker_connections``, ``worker_rlimit_nofile``).

    Raises:
        AssertionError: the file has not exactly one such line.
    """
    found = re.findall(rf"^\s*{directive}\s+(\d+);", NGINX_MAIN.read_text(), re.MULTILINE)
    assert len(found) == 1, f"deploy/nginx/nginx.conf: expected one `{directive} N;` line, found {found}"
    return int(found[0])


def front_command(
    prefix: Path, port: int, upstream: str, connections: int | None = None, per_address: bool = True
) -> list[str]:
    """Write a main nginx file in ``prefix`` (pid, logs and temporary files there too, ``daemon
    off;``, ``connections`` per worker, by default the repo's :data:`NGINX_MAIN`'s
    ``worker_connections``, and its ``worker_rlimit_nofile``: each proxied socket takes two) that
    includes the repo's site (:data:`NGINX_SITE`) as it is but for its ``listen`` line
    (``127.0.0.1:port``), with ``upstream`` as the site's ``getaway-upstream.conf``; returns the
    command that runs nginx on it (add ``-t`` to only check it). ``per_address=False``: the
    site's ``limit_conn`` and ``limit_req`` lines left out (a load bench whose every client is
    127.0.0.1)."""
    assert NGINX is not None, "nginx is missing"
    prefix.mkdir(exist_ok=True)
    site = NGINX_SITE.read_text()
    assert site.count("listen 8080;") == 1, "deploy/nginx/getaway.conf: expected one `listen 8080;` line"
    if not per_address:
        site, count = re.subn(r"^(\s*)(limit_conn|limit_req) ", r"\1# \2 ", site, flags=re.MULTILINE)
        assert count >= 2, "deploy/nginx/getaway.conf: expected its limit_conn and limit_req lines"
    (prefix / "getaway.conf").write_text(site.replace("listen 8080;", f"listen 127.0.0.1:{port};"))
    (prefix / "getaway-upstream.conf").write_text(upstream)
    if connections is None:
        connections = shipped_nginx_limit("worker_connections")
    # as this user, nginx may raise its own soft limit only up to the hard one
    files = min(shipped_nginx_limit("worker_rlimit_nofile"), resource.getrlimit(resource.RLIMIT_NOFILE)[1])
    # as root, nginx's workers would become `nobody`, who may not write in tmp: they stay this user
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};\n" if os.geteuid() == 0 else ""
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temps = "".join(f"    {kind}_temp_path {prefix / kind};\n" for kind in kinds)
    (prefix / "nginx.conf").write_text(
        f"{user}daemon off;\nworker_processes 1;\npid {prefix / 'nginx.pid'};\nworker_rlimit_nofile {files};\n"
        f"error_log {prefix / 'error.log'} info;\nevents {{ worker_connections {connections}; }}\n"
        f"http {{\n    access_log {prefix / 'access.log'};\n{temps}    include getaway.conf;\n}}\n"
    )
    return [NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", str(prefix / "error.log")]


@contextlib.contextmanager
def running_front(tmp: Path, servers: list[str], connections: int | None = None, per_address: bool = True):
    """Run Debian's nginx as this user with the repo's site in front of ``servers`` (upstream
    ``server`` lines without the keyword and ``;``, e.g. ``"127.0.0.1:8001 max_fails=1
    fail_timeout=10s"``, ``"… backup"``) on a free loopback port, everything in ``tmp/nginx``
    (:func:`front_command`, ``connections`` per nginx worker, by default the shipped number;
    ``per_address``), until the block ends; yields its base URL."""
    prefix = tmp / "nginx"
    port = free_port()
    cmd = front_command(prefix, port, "".join(f"server {line};\n" for line in servers), connections, per_address)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 10
    try:
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    errors = prefix / "error.log"
                    raise AssertionError(errors.read_text() if errors.exists() else "nginx did not start") from None
                time.sleep(0.05)
        yield base
    finally:
        proc.terminate()  # nginx's fast shutdown
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def client_from(address: str) -> httpx.Client:
    """An HTTP client whose connections come from ``address``."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)


class FrontSocket:
    """A room socket through the front from client ``address``, with the test Player's API."""

    def __init__(self, base: str, code: str, address: str) -> None:
        host, port = urlsplit(base).hostname, urlsplit(base).port
        sock = socket.create_connection((host, port), timeout=10, source_address=(address, 0))
        self.stack = contextlib.ExitStack()  # closed with the socket (the server closes it, or the test ends)
        self.ws = self.stack.enter_context(connect(f"ws://{host}:{port}/ws/{code}", sock=sock, open_timeout=5))

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def receive_text(self) -> str:
        return self.ws.recv(timeout=10)

    def close_code(self) -> int | None:
        """Read until the server closes the socket; its close code."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                self.ws.recv(timeout=15)
        return self.ws.close_code


#: Debian's redis-server for the cluster tests (dev.py passes it as GETAWAY_REDIS_SERVER).
REDIS_BINARY = os.environ.get("GETAWAY_REDIS_SERVER") or shutil.which("redis-server")


class RedisServer:
    """A redis-server of one test, on a free loopback port, nothing saved to disk, with a
    password (``requirepass``, as docs/web.md says to run it; by default a new random one):
    ``url`` has it."""

    def __init__(self, tmp: Path, password: str | None = None) -> None:
        self.port = free_port()
        self.password = password or secrets.token_hex(16)
        self.url = f"redis://:{self.password}@127.0.0.1:{self.port}/0"
        self.tmp = tmp
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        assert REDIS_BINARY is not None
        cmd = [REDIS_BINARY, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        cmd += ["--dir", str(self.tmp), "--requirepass", self.password]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis

        client = redis.Redis(port=self.port, password=self.password, socket_connect_timeout=1)
        deadline = time.time() + 10
        while True:
            try:
                client.ping()
                client.close()
                return
            except redis.ConnectionError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def cluster_skip(what: str, *, nginx: bool = False) -> list[pytest.MarkDecorator]:
    """The ``pytestmark`` of a test file that needs PostgreSQL and :data:`REDIS_BINARY` (and
    nginx with ``nginx``): a skip naming the missing part, or none (``[]``).

    Raises:
        RuntimeError: Redis or nginx is missing where ``GETAWAY_REQUIRE_REDIS=1`` /
            ``GETAWAY_REQUIRE_NGINX=1`` requires it (CI).
    """
    if not TEST_DATABASE:
        reason = f"{what}: PostgreSQL needed, as in dev.py's PostgreSQL pass (GETAWAY_TEST_DATABASE_URL)"
        return [pytest.mark.skip(reason=reason)]
    if REDIS_BINARY is None:
        if os.environ.get("GETAWAY_REQUIRE_REDIS") == "1":
            raise RuntimeError("GETAWAY_REQUIRE_REDIS=1 but no redis-server (dev.py installs Debian's when root)")
        return [pytest.mark.skip(reason="no redis-server (dev.py installs Debian's when root; GETAWAY_REDIS_SERVER)")]
    if nginx and NGINX is None:
        if os.environ.get("GETAWAY_REQUIRE_NGINX") == "1":
            raise RuntimeError("GETAWAY_REQUIRE_NGINX=1 but no nginx (dev.py installs Debian's when root)")
        return [pytest.mark.skip(reason="no nginx (apt-get install -y nginx; GETAWAY_REQUIRE_NGINX=1 makes this fail)")]
    return []


class SlowBroker:
    """A broker (``inner``) whose every call is a round trip of ``latency`` seconds, counted by
    name in ``calls``: what a loaded Redis costs a heartbeat that calls it once per room."""

    def __init__(self, inner: Any, latency: float) -> None:
        self.inner, self.latency = inner, latency
        self.calls: collections.Counter[str] = collections.Counter()
        self.order: list[str] = []  # the calls' names, in order

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        if not inspect.iscoroutinefunction(value):
            return value

        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            self.order.append(name)
            await asyncio.sleep(self.latency)
            return await value(*args, **kwargs)

        return call


#: A room of four played by bots alone (created without a name), whose first deal lasts.
BOT_ROOM = {"profile": "punjab", "players": 4, "deals": 1, "options": {"takes": "off"}, "bot_level": "easy"}


async def check_public_room_caps(a: Any, b: Any) -> None:
    """Two room services of one cluster, each with ``public_rooms_per_address=2`` and a short
    ``lobby_expiry`` (under a second): one address's public rooms waiting in the lobby are
    counted in the whole cluster (a third on either process refused, nothing made); one that
    leaves the lobby (started; or expired, nobody seated) frees its place; an expired room is
    never chosen by quick play, but can still be joined by its code (issue 29 item 2)."""
    from getaway.web.rooms import RoomError

    public = {**BOT_ROOM, "public": True}

    async def until(pred: Any, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while not await pred():
            assert time.monotonic() < deadline, "not in time"
            await asyncio.sleep(0.02)

    async def codes() -> set[str]:
        return {room["code"] for room in await a.lobby()} | {room["code"] for room in await b.lobby()}

    first = await a.create(dict(public), "Asha", "203.0.113.7")
    second = await b.create(dict(public), "Asha", "203.0.113.7")
    for service in (a, b):  # a third on either process: refused, nothing made
        before = len(service.rooms)
        with pytest.raises(RoomError) as refused:
            await service.create(dict(public), "Asha", "203.0.113.7")
        assert refused.value.code == "too_many_public_rooms" and refused.value.status == 409
        told = refused.value.text("en")
        assert told == "too many of your public rooms are waiting for players (at most 2): start one, or wait"
        assert len(service.rooms) == before
    other = await b.create(dict(public), "Bea", "198.51.100.1")  # another address: its own count
    await a.create(dict(BOT_ROOM), "Asha", "203.0.113.7")  # a private room is not counted

    async def listed() -> bool:
        return await codes() == {first["code"], second["code"], other["code"]}

    await until(listed)
    await a.start_match(first["code"], first["host_token"])  # out of the lobby: a place frees
    third: dict[str, Any] = {}

    async def made() -> bool:
        try:
            third.update(await b.create(dict(public), "Asha", "203.0.113.7"))
        except RoomError as exc:
            assert exc.code == "too_many_public_rooms"
            return False  # freed in the background
        return True

    await until(made)

    async def expired() -> bool:  # nobody sits in them: they leave the lobby after lobby_expiry
        return not await codes()

    await until(expired)
    again = await a.create(dict(public), "Asha", "203.0.113.7")  # and their places are free again
    await a.create(dict(public), "Asha", "203.0.113.7")
    played = await a.quick_play("Ben", "198.51.100.2")  # an expired room is never chosen
    assert played["code"] not in (third["code"], second["code"])
    assert played["code"] == again["code"] or played["created"]
    assert (await a.join(third["code"], "Chen"))["seat"] == 1  # it can still be joined by its code


async def check_bot_room_caps(a: Any, b: Any) -> None:
    """Two room services of one cluster, each with ``bot_rooms_per_address=1`` and
    ``max_bot_rooms=2`` (and a bot delay long enough that no room ends meanwhile): the caps on
    rooms played by bots alone are the cluster's, not each process's, and a closed room's slot
    is free again on every process. Each room is started on the process that made it."""
    from getaway.web.rooms import RoomError

    made = [(service, await service.create(dict(BOT_ROOM))) for service in (a, b, a, b)]

    async def start(i: int, address: str) -> None:
        service, room = made[i]
        await service.start_match(room["code"], room["host_token"], address)

    await start(0, "10.0.0.1")
    with pytest.raises(RoomError) as refused:  # the address's one room runs on the other process
        await start(1, "10.0.0.1")
    assert refused.value.code == "too_many_bot_rooms" and refused.value.status == 429
    assert refused.value.args_ == {"n": 1, "total": 2}  # the message of one process alone
    told = refused.value.text("en")
    assert told == "too many rooms played by bots alone are running (at most 1 per address, 2 in all)"
    assert b.rooms[made[1][1]["code"]].room.status == "lobby"  # nothing changed
    await start(1, "10.0.0.2")
    with pytest.raises(RoomError, match="too_many_bot_rooms"):
        await start(2, "10.0.0.3")  # 2 in the whole cluster
    await a.close_room(made[0][1]["code"], made[0][1]["host_token"])  # its slot is freed for every process
    for _ in range(100):
        try:
            await start(3, "10.0.0.1")
            break
        except RoomError as exc:
            assert exc.code == "too_many_bot_rooms"
            await asyncio.sleep(0.02)  # the slot is freed in the background
    assert b.rooms[made[3][1]["code"]].room.status == "playing"
    assert a.rooms[made[2][1]["code"]].room.status == "lobby"
