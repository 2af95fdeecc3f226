"""Load across processes (issue 14, item 5): ``getaway serve`` processes behind nginx, one
PostgreSQL database, one Redis.

Rerun with (docs/web.md, "Load across processes")::

    export GETAWAY_BENCH_DATABASE_URL=postgresql+psycopg://getaway:getaway@127.0.0.1/getaway_test  # EMPTIED
    .venv/bin/python bench/web_cluster.py play --processes 4 --rooms 1000 --deals 3   # the scenario
    .venv/bin/python bench/web_cluster.py play --processes 4 --rooms 50 --deals 1     # a smaller size
    .venv/bin/python bench/web_cluster.py throughput --processes 1,2,4 --rooms 40     # bot delay 0
    .venv/bin/python bench/web_cluster.py renew --leases 1000,5000                    # the heartbeat's renewal

Each run starts its own redis-server (Debian's binary, a free loopback port, nothing saved),
empties the PostgreSQL database (its tables dropped: the first server migrates it), starts
``--processes`` real ``getaway serve`` processes on it with ``--redis-url`` (the serve
command's own defaults, ``--bot-workers`` included, but for the limits below), and Debian's nginx
in front of them with the repo's site (deploy/nginx/getaway.conf, as tests/test_web_front.py
runs it). Every request and socket of the load generator goes through the front, which spreads
them round-robin over the processes: a room is created on one process, its socket lands on any.

- ``play``: ``--rooms`` rooms, each with one scripted client (bench/web_rooms.py
  ``HumanRoom``: it plays at once a legal move read from its own view) and 3 ``--level`` bots
  at ``--bot-delay``, ``--deals`` deals, takes off (a person's lead in a take window is held for
  the bot delay, which is no latency of the server's). Reported: move → echo (the client's act
  to the update with the new version), the bots' lateness (their update minus the update that
  began their turn plus the delay, or the trick's linger for a lead: ``HumanRoom.planned``),
  lost actions (a move the server echoed that is not in the room's log at the next version, as
  that client's seat's act), the log audited (versions 1, 2, 3 … once each, every act by the
  seat's controller), and every finished deal's record downloaded through the front and
  replayed with ``core.record.deal_from_record``. Targets (``TARGETS``): echo p99 ≤ 100 ms, bot
  lateness p99 ≤ 250 ms, 0 lost, every record replays.
- ``capacity``: ``play`` for each count of ``--processes`` (``1,2,4``) at each of ``--rooms``
  sizes (``100,200,300``), ``--repeat`` times each, up to the first size that misses a target
  in a run: the largest size that met them all, each run's figures.
- ``throughput``: the same rooms at bot delay 0, for each count of ``--processes`` (e.g.
  ``1,2,4``): actions per second (the ``act`` entries of every room's log over the time from
  the first room created to the last room finished).
- ``renew``: no server, no database: one :class:`~getaway.web.broker.RedisBroker` holding
  ``--leases`` leases (e.g. ``1000,5000``) renews them all with ``renew_all`` (what a process's
  heartbeat does each beat) 20 times: the median time of a call from the process, and Redis's
  own time per call (``INFO commandstats``); and, for comparison, 1,000 of them renewed one call
  each (``renew``: the heartbeat before).

Both report, over the measured time: CPU of each serve process (with its bot workers), of
redis-server, nginx and the load generator (percent of one core, from /proc), Redis commands/s
(``INFO stats`` ``total_commands_processed``), PostgreSQL commits/s (``pg_stat_database``
``xact_commit``: every process's transactions in that database), and the machine's load average.

The load generator is one asyncio process (one socket per room) on the same machine, its
latencies include its own delays. The limits the bench raises (every client is 127.0.0.1;
people never come from one address): ``--rooms-per-minute``, ``--message-rate``/``--message-burst``,
``--sockets-per-address``, ``--incomplete-per-address``, ``--reads-per-second``,
``--bot-rooms-per-address``/``--max-bot-rooms`` (each client's room is played by 3 bots), and the
front's ``limit_conn``/``limit_req`` per address (left out); nothing else is changed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import httpx
from cost_profile import Sampler, Statements
from serverproc import free_port
from web_rooms import HumanRoom, summary

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from getaway.core.record import deal_from_record  # noqa: E402
from getaway.web.store import Store, metadata  # noqa: E402
from web_helpers import CLUSTER_SECRET, ServerProcess, check_authority, running_front  # noqa: E402 - the tests' helpers

__all__ = ["empty_database", "main", "redis_server", "run"]

DATABASE_ENV = "GETAWAY_BENCH_DATABASE_URL"
_TICKS = os.sysconf("SC_CLK_TCK")
SELF = "load generator"


@contextlib.contextmanager
def redis_server(tmp: Path) -> Iterator[str]:
    """Debian's redis-server on a free loopback port, nothing saved, with a password (``requirepass``,
    as docs/web.md says to run it), until the block ends; yields its URL (the password in it).
    The serve processes seal their messages with the tests' cluster secret (web_helpers.ServerProcess).

    Raises:
        SystemExit: no redis-server (``apt-get install redis-server``), or it did not answer in 10 s.
    """
    import redis

    binary = os.environ.get("GETAWAY_REDIS_SERVER") or shutil.which("redis-server")
    if binary is None:
        raise SystemExit("no redis-server: apt-get install redis-server (or GETAWAY_REDIS_SERVER)")
    port = free_port()
    password = secrets.token_hex(16)
    cmd = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp)]
    cmd += ["--requirepass", password]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, password=password, socket_connect_timeout=1)
    deadline = time.time() + 10
    try:
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.time() > deadline:
                    raise SystemExit("redis-server did not answer") from None
                time.sleep(0.05)
        yield f"redis://:{password}@127.0.0.1:{port}/0"
    finally:
        client.close()
        proc.terminate()
        proc.wait(10)


def empty_database(url: str) -> None:
    """Drop the web tables of the PostgreSQL database ``url`` (and the migrations' bookkeeping).

    Raises:
        SystemExit: ``url`` is not PostgreSQL (the processes share one database server).
    """
    from sqlalchemy import create_engine, text

    if not url.startswith("postgresql"):
        raise SystemExit(f"{DATABASE_ENV}: expected a postgresql+psycopg:// URL, got {url!r}")
    engine = create_engine(url)
    metadata.drop_all(engine)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
    engine.dispose()


class Meter:
    """Counters read at :meth:`start` and :meth:`stop`: CPU of processes (``/proc``), Redis
    commands, PostgreSQL commits; :meth:`report` gives their rates over the time between."""

    def __init__(self, pids: dict[str, int], redis_url: str | None, database: str) -> None:
        self.pids = pids
        self.redis_url = redis_url
        self.database = database
        self.marks: list[tuple[float, dict[str, float], int, int]] = []

    @staticmethod
    def _cpu(pid: int, children: bool = True) -> float:
        """CPU seconds of ``pid`` and (``children``) of its children: the live ones' own, and the
        ones ``pid`` has reaped (its cutime, cstime: PostgreSQL's backends that ended, a serve's
        bot workers, nginx's workers)."""
        total = 0.0
        for p in [pid, *(_children(pid) if children else [])]:
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime
                if children and p == pid:
                    total += (int(fields[13]) + int(fields[14])) / _TICKS  # cutime, cstime
        return total

    def _mark(self) -> None:
        import redis
        from sqlalchemy import create_engine, text

        commands = commits = 0
        if self.redis_url:
            client = redis.Redis.from_url(self.redis_url)
            commands = int(client.info("stats")["total_commands_processed"])
            client.close()
        if self.database.startswith("postgresql"):
            engine = create_engine(self.database)
            with engine.connect() as conn:
                conn.execute(text("SELECT pg_stat_clear_snapshot()"))
                commits = conn.execute(
                    text("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
                ).scalar_one()
            engine.dispose()
        cpu = {k: self._cpu(v, children=k != SELF) for k, v in self.pids.items()}
        self.marks.append((time.monotonic(), cpu, commands, int(commits)))

    def start(self) -> None:
        self._mark()

    def stop(self) -> None:
        self._mark()

    def report(self, actions: int) -> dict[str, Any]:
        """The rates between the first and the last mark; ``cpu_ms_per_action``: each
        component's CPU milliseconds per applied action (``actions``: the rooms' logs' acts), its
        ``cluster`` sum leaving out the load generator (issue 26's cost model)."""
        (t0, cpu0, r0, c0), (t1, cpu1, r1, c1) = self.marks[0], self.marks[-1]
        wall = max(t1 - t0, 1e-9)
        spent = {k: cpu1[k] - cpu0[k] for k in self.pids}
        per = {k: round(1000 * v / max(actions, 1), 3) for k, v in spent.items()}
        per["cluster"] = round(1000 * sum(v for k, v in spent.items() if k != SELF) / max(actions, 1), 3)
        return {
            "seconds": round(wall, 1),
            "cpu_percent": {k: round(100 * (cpu1[k] - cpu0[k]) / wall, 1) for k in self.pids},
            "cpu_ms_per_action": per,
            "redis_commands_per_s": round((r1 - r0) / wall, 1),
            "postgres_commits_per_s": round((c1 - c0) / wall, 1),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }


def _children(pid: int) -> list[int]:
    out = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                out += [int(c) for c in (task / "children").read_text().split()]
    return out


def serve_options(rooms: int, redis_url: str | None, bot_delay: float, more: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The options of each ``getaway serve`` of the bench: Redis (``None``: none, one process
    alone), the bot delay, and the per-address limits raised for ``rooms`` clients that all come
    from 127.0.0.1 (the module's docstring)."""
    many = str(max(rooms, 1) * 4)
    return (
        *(("--redis-url", redis_url) if redis_url else ()),
        "--bot-delay", str(bot_delay),
        "--grace", "3600",
        "--rooms-per-minute", many,
        "--message-rate", "1000000",
        "--message-burst", "1000000",
        "--sockets-per-address", many,
        "--incomplete-per-address", many,
        "--reads-per-second", "1000000",
        "--bot-rooms-per-address", many,
        "--max-bot-rooms", many,
        *more,
    )  # fmt: skip


async def _play(base: str, rooms: int, deals: int, bot_delay: float, level: str, timeout: float) -> list[HumanRoom]:
    limits = httpx.Limits(max_connections=200)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        players = [HumanRoom(base, bot_delay, i, level, deals, {"takes": "off"}) for i in range(rooms)]
        tasks = [asyncio.create_task(p.run(http)) for p in players]
        done, pending = await asyncio.wait(tasks, timeout=timeout)
        for p in players:
            p.stop = True
        if pending:
            await asyncio.wait(pending, timeout=5)
        for task in pending:
            task.cancel()
        for task in done:
            if task.exception() is not None:
                players[tasks.index(task)].errors.append(f"client: {task.exception()!r}")
    return players


def _check(players: list[HumanRoom], database: str, base: str, deals: int) -> dict[str, Any]:
    """Lost actions, the logs audited, every finished deal's record replayed; actions counted."""
    store = Store(database)
    lost, superseded, audit_failures, acts, finished, examples = 0, 0, [], 0, 0, []
    codes = [p.code for p in players if p.code]
    for player in players:
        if not player.code:
            continue
        log = store.load_room(player.code).log
        by_version = {e.version: e for e in log}
        try:
            check_authority(log, 4)
        except AssertionError as exc:
            audit_failures.append(f"{player.code}: {exc}")
        acts += sum(1 for e in log if e.kind == "act")
        for version, action in player.acked:
            entry = by_version.get(version + 1)
            mine = entry is not None and entry.kind == "act" and not entry.payload["bot"]
            if mine and entry.payload["action"] == action:
                continue
            found = None if entry is None else (entry.kind, entry.payload)
            if entry is not None and (
                entry.kind in ("act", "absent")
                and (entry.payload.get("bot") or entry.payload.get("seat") != 0)  # the human made the room: seat 0
                or entry.kind == "reclaim"
                and entry.payload.get("seat") == 0
            ):
                # The version was taken first (the turn timer's move for this seat, or another
                # seat's take): the client's act came stale and was refused; or the turn timer had
                # marked the seat away and the act brought it back instead of being played (the
                # server's rule: an away player's first act is a "back"). The client counted that
                # newer version as its echo (web_rooms.HumanRoom cannot tell them apart).
                superseded += 1
                continue
            lost += 1
            examples.append(f"{player.code}: {action} sent at version {version}, the log has {found}")
    store.close()
    replayed, failed = 0, []
    with httpx.Client(base_url=base, timeout=60) as http:
        for code in codes:
            history = http.get(f"/api/rooms/{code}/history").json()
            indexes = [d["index"] for d in history["deals"]]
            finished += history.get("status") == "finished" or len(indexes) >= deals
            for i in indexes:
                try:
                    deal_from_record(http.get(f"/api/rooms/{code}/deals/{i}/record").json())
                    replayed += 1
                except Exception as exc:  # noqa: BLE001 - counted and reported
                    failed.append(f"{code}/{i}: {exc}")
    return {
        "rooms_finished": finished,
        "actions": acts,
        "acked_client_moves": sum(len(p.acked) for p in players),
        "lost_actions": lost,
        "superseded_actions": superseded,
        "lost_examples": examples[:5],
        "log_audit_failures": audit_failures[:5],
        "records_replayed": replayed,
        "records_failed": failed[:5],
    }


def run(
    tmp: Path, database: str, processes: int, rooms: int, deals: int, bot_delay: float, level: str,
    timeout: float = 3600, more: tuple[str, ...] = (), alone: bool = False, profile: Path | None = None,
) -> dict[str, Any]:  # fmt: skip
    """One measured run: redis-server, ``processes`` serve processes on ``database`` (emptied),
    nginx in front; ``rooms`` rooms of one scripted client and 3 ``level`` bots, ``deals`` deals,
    at ``bot_delay`` s; ``more``: further serve options. ``alone``: the same scenario on one serve
    process with no Redis and no front, the clients on it directly (``database`` PostgreSQL, or
    ``sqlite``: a SQLite file), the cost model's baseline. ``profile``: a folder for py-spy's
    samples of each serve process and, on PostgreSQL, pg_stat_statements (bench/cost_profile.py),
    their breakdown under ``"profile"``. Returns the figures (module docstring).

    Raises:
        SystemExit: redis-server or a server did not start, the database is not PostgreSQL.
    """
    sqlite = database == "sqlite"
    if sqlite:
        database = str(tmp / "alone.db")  # a file: serve and Store take its path
    else:
        empty_database(database)
    with contextlib.nullcontext(None) if alone else redis_server(tmp) as redis_url:
        servers: list[ServerProcess] = []
        try:
            options = serve_options(rooms, redis_url, bot_delay, more)
            for i in range(1 if alone else processes):
                servers.append(ServerProcess(tmp, *options, database=database, name=f"serve{processes}-{i}"))
            upstream = [f"127.0.0.1:{s.port}" for s in servers]
            (tmp / f"front{processes}").mkdir()
            front = (
                contextlib.nullcontext(servers[0].base)
                if alone
                else running_front(tmp / f"front{processes}", upstream, connections=4 * rooms + 256, per_address=False)
            )
            with front as base:
                pids = {f"serve {i}": s.proc.pid for i, s in enumerate(servers)}
                if not alone:
                    pids.update(_service_pids(redis_url, tmp / f"front{processes}"))
                if database.startswith("postgresql"):
                    pids["postgres"] = _postmaster(database)
                pids[SELF] = os.getpid()  # its children are the servers: counted without them
                meter = Meter(pids, redis_url, database)
                sampler = statements = None
                if profile is not None:
                    sampler = Sampler(profile, {k: v for k, v in pids.items() if k.startswith("serve")})
                    statements = Statements(database) if database.startswith("postgresql") else None
                    if statements:
                        statements.start()
                    sampler.start()
                meter.start()
                started = time.monotonic()
                players = asyncio.run(_play(base, rooms, deals, bot_delay, level, timeout))
                wall = time.monotonic() - started
                meter.stop()
                sampled = sampler.stop() if sampler else None
                checked = _check(players, database, base, deals)
                if sampled is not None:
                    sampled["postgres_statements"] = statements.stop(checked["actions"]) if statements else None
        finally:
            for server in servers:
                server.stop()
        logs = "".join(s.log() for s in servers)
        owned = [s.log().count("owned by this process") for s in servers]  # leases taken, by process
    errors: dict[str, int] = {}
    for p in players:
        for e in p.errors:
            errors[e] = errors.get(e, 0) + 1
    return {
        "processes": 1 if alone else processes,
        "alone": ("sqlite" if sqlite else "postgresql") if alone else False,
        "rooms": rooms,
        "deals": deals,
        "bot_delay": bot_delay,
        "level": level,
        "echo_ms": summary([e for p in players for e in p.echo]),
        "bot_lateness_ms": summary([e for p in players for e in p.lateness]),
        "actions_per_s": round(checked["actions"] / wall, 1),
        **checked,
        **meter.report(checked["actions"]),
        "client_errors": errors,
        "leases_taken_by_process": owned,
        "server_tracebacks": logs.count("Traceback"),
        "fallback_moves": logs.count("plays its fallback move"),
        **({"profile": sampled} if sampled is not None else {}),
    }


#: Issue 14's targets for ``play`` (issue 26 item 4): echo p99 and bot lateness p99 in ms.
TARGETS: Final = {"echo_p99_ms": 100.0, "bot_lateness_p99_ms": 250.0}


def meets(result: dict[str, Any]) -> list[str]:
    """What a ``play`` result misses of :data:`TARGETS` (0 lost, every finished deal's record
    replayed, every room finished), as short phrases; ``[]`` when it meets them all."""
    missed = []
    if result["echo_ms"]["p99"] > TARGETS["echo_p99_ms"]:
        missed.append(f"echo p99 {result['echo_ms']['p99']} ms")
    if result["bot_lateness_ms"]["p99"] > TARGETS["bot_lateness_p99_ms"]:
        missed.append(f"bot lateness p99 {result['bot_lateness_ms']['p99']} ms")
    if result["lost_actions"]:
        missed.append(f"{result['lost_actions']} lost")
    if result["records_failed"] or result["records_replayed"] < result["rooms_finished"] * result["deals"]:
        missed.append(f"records replayed {result['records_replayed']}")
    if result["rooms_finished"] < result["rooms"]:
        missed.append(f"rooms finished {result['rooms_finished']} of {result['rooms']}")
    return missed


def capacity(
    tmp: Path, database: str, processes: list[int], sizes: list[int], repeat: int, deals: int, bot_delay: float,
    level: str, timeout: float, more: tuple[str, ...],
) -> dict[str, Any]:  # fmt: skip
    """For each count of ``processes``, ``play`` at each of ``sizes`` rooms (ascending), ``repeat``
    times, until a size misses a target (:func:`meets`) in any of its runs: the largest size
    that met them in every run, and each run's figures (one JSON line each on stderr as it ends).

    Returns:
        ``{"targets", "runs": [{"processes", "rooms", "missed", "echo_p99_ms",
        "bot_lateness_p99_ms", "cluster_cpu_ms_per_action", "generator_cpu_ms_per_action",
        "actions_per_s", "load_average"}], "largest": {processes: rooms or None}}``.
    """
    runs: list[dict[str, Any]] = []
    largest: dict[int, int | None] = {}
    for n in processes:
        largest[n] = None
        for rooms in sorted(sizes):
            ok = True
            for i in range(repeat):
                sub = tmp / f"p{n}-r{rooms}-{i}"
                sub.mkdir()
                result = run(sub, database, n, rooms, deals, bot_delay, level, timeout, more)
                cpu = result["cpu_ms_per_action"]
                row = {
                    "processes": n, "rooms": rooms, "missed": meets(result),
                    "echo_p99_ms": result["echo_ms"]["p99"], "bot_lateness_p99_ms": result["bot_lateness_ms"]["p99"],
                    "cluster_cpu_ms_per_action": cpu["cluster"],
                    "generator_cpu_ms_per_action": cpu["load generator"],
                    "actions_per_s": result["actions_per_s"], "load_average": result["load_average"],
                }  # fmt: skip
                print(json.dumps(row), file=sys.stderr, flush=True)
                runs.append(row)
                ok = ok and not row["missed"]
            if not ok:
                break
            largest[n] = rooms
    return {"targets": TARGETS, "runs": runs, "largest": largest}


def _postmaster(database: str) -> int:
    """The pid of the PostgreSQL server of ``database`` (the parent of a backend's process): its
    CPU and its backends' (live and ended) are PostgreSQL's share. Needs the server on this machine."""
    from sqlalchemy import create_engine, text

    engine = create_engine(database)
    with engine.connect() as conn:  # read while the backend lives: it ends with the connection
        backend = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        parent = int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])  # ppid
    engine.dispose()
    return parent


def _service_pids(redis_url: str, front: Path) -> dict[str, int]:
    """redis-server's pid (``INFO server``) and nginx's master (its pid file)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    out = {"redis-server": int(client.info("server")["process_id"])}
    client.close()
    with contextlib.suppress(OSError, ValueError):
        out["nginx"] = int((front / "nginx" / "nginx.pid").read_text())
    return out


async def _renewals(redis_url: str, counts: list[int], repeats: int = 20) -> list[dict[str, Any]]:
    import redis

    from getaway.web.redis_broker import RedisBroker

    broker, client = RedisBroker(redis_url, secret=CLUSTER_SECRET), redis.Redis.from_url(redis_url)
    rows = []
    try:
        for count in counts:
            leases = [await broker.acquire(f"RENEW{count}-{i}") for i in range(count)]
            client.config_resetstat()
            times = []
            for _ in range(repeats):
                began = time.perf_counter()
                held = await broker.renew_all([lease for lease in leases if lease is not None])
                times.append(time.perf_counter() - began)
            in_redis = client.info("commandstats")["cmdstat_evalsha"]["usec_per_call"] / 1000
            began = time.perf_counter()
            for lease in leases[:1000]:
                assert lease is not None and await broker.renew(lease)
            one_by_one = time.perf_counter() - began
            rows.append(
                {
                    "leases": count,
                    "all_held": all(held) and len(held) == count,
                    "renew_all_ms_median": round(sorted(times)[len(times) // 2] * 1000, 2),
                    "renew_all_ms_in_redis": round(in_redis, 3),
                    "one_call_each_ms": {"leases": min(count, 1000), "ms": round(one_by_one * 1000, 1)},
                }
            )
    finally:
        client.close()
        await broker.stop()
    return rows


def renew(tmp: Path, counts: list[int]) -> dict[str, Any]:
    """The ``renew`` mode: the heartbeat's renewal of ``counts`` leases, against a redis-server
    of its own (the module doc)."""
    with redis_server(tmp) as url:
        return {"renewals": asyncio.run(_renewals(url, counts))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0]
        + " Needs a PostgreSQL database it may empty (--database), redis-server and nginx (dev.py installs them).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="modes:\n"
        "  play        --rooms rooms (one scripted client and 3 bots each) on --processes processes: latencies,\n"
        "              lost moves, records replayed, CPU per action of each part (--alone: one process)\n"
        "  throughput  the same rooms at bot delay 0, for each of --processes (1,2,4): actions/s\n"
        "  capacity    play at each of --rooms (100,200,300) for each of --processes (1,2,4), --repeat times,\n"
        "              up to the first size that misses a target: the largest that met them (long: tens of runs)\n"
        "  renew       one broker renewing --leases leases (no server, no database)",
    )
    parser.add_argument("mode", choices=["play", "throughput", "capacity", "renew"], help="what to measure (below)")
    parser.add_argument("--leases", default="1000,5000", help="renew: the counts of leases (default 1000,5000)")
    parser.add_argument(
        "--processes", default=None, help="serve processes (play: 4; throughput, capacity: a list, 1,2,4)"
    )
    parser.add_argument(
        "--rooms",
        default=None,
        help="rooms, one scripted client each (play 1000, throughput 40; capacity: a list of sizes, 100,200,300)",
    )
    parser.add_argument("--repeat", type=int, default=2, help="capacity: runs of each size (default 2)")
    parser.add_argument("--deals", type=int, default=3, help="deals per room (default 3)")
    parser.add_argument("--bot-delay", type=float, default=0.7, help="the servers' bot delay, s (play; throughput: 0)")
    parser.add_argument("--level", default="medium", help="the 3 bots' level (default medium)")
    parser.add_argument("--timeout", type=float, default=3600, help="stop the clients after this many seconds")
    parser.add_argument("--serve-option", action="append", default=[], help="a further serve option (repeatable)")
    parser.add_argument(
        "--alone",
        action="store_true",
        help="play: one serve process, no Redis, no nginx (--database sqlite for a SQLite file): the cost baseline",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="play: py-spy each serve process and read pg_stat_statements into this folder (bench/cost_profile.py)",
    )
    parser.add_argument(
        "--database", default=os.environ.get(DATABASE_ENV), help=f"PostgreSQL URL (default: {DATABASE_ENV})"
    )
    args = parser.parse_args(argv)
    rerun = shlex.join([Path(sys.executable).as_posix(), "bench/web_cluster.py", *(argv or sys.argv[1:])])
    if args.mode == "renew":
        with tempfile.TemporaryDirectory(prefix="getaway-renew-") as tmp:
            found = renew(Path(tmp), [int(x) for x in args.leases.split(",")])
        print(json.dumps({"mode": "renew", **found, "rerun": rerun}, ensure_ascii=False))
        return 0
    if not args.database:
        parser.error(f"no database: --database or {DATABASE_ENV} (a PostgreSQL URL; it is emptied)")
    more = tuple(x for opt in args.serve_option for x in shlex.split(opt))
    with tempfile.TemporaryDirectory(prefix="getaway-cluster-") as tmp:
        if args.mode == "capacity":
            processes = [int(x) for x in (args.processes or "1,2,4").split(",")]
            sizes = [int(x) for x in (args.rooms or "100,200,300").split(",")]
            result = capacity(
                Path(tmp), args.database, processes, sizes, args.repeat, args.deals, args.bot_delay, args.level,
                args.timeout, more,
            )  # fmt: skip
        elif args.mode == "play":
            processes = int(args.processes or 4)
            rooms = int(args.rooms) if args.rooms is not None else 1000
            result = run(
                Path(tmp), args.database, processes, rooms, args.deals, args.bot_delay, args.level, args.timeout, more,
                alone=args.alone, profile=args.profile,
            )  # fmt: skip
        else:
            rooms = int(args.rooms) if args.rooms is not None else 40
            result = {"mode": "throughput", "runs": []}
            for n in [int(x) for x in (args.processes or "1,2,4").split(",")]:
                sub = Path(tmp) / f"p{n}"
                sub.mkdir()
                result["runs"].append(
                    run(sub, args.database, n, rooms, args.deals, 0.0, args.level, args.timeout, more)
                )
    result = {"mode": args.mode, **result, "rerun": rerun}
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
