"""Load of the web server (issue 6): many rooms at once on one server process.

Rerun with::

    .venv/bin/python bench/web_load.py                          # 200 rooms, 20 seated clients
    .venv/bin/python bench/web_load.py --rooms 50 --clients 10 --spectators 20 --deals 2
    .venv/bin/python bench/web_load.py --profile 20             # py-spy the server for 20 s

It starts ONE server (the app of ``getaway serve``: uvicorn, loopback, a temporary SQLite file,
no flood limits nor limits on bot-only rooms and reads, bots without thinking time), creates
``--rooms`` rooms of ``--players`` seats through the HTTP API (bots at level ``easy``: the
``random`` bot). The first ``--clients`` rooms get one seated human each: a WebSocket client
(the ``websockets`` library) that plays random legal moves as soon as it is its turn (and
starts the next deal, being the host); the other rooms are bot-only (created without a name,
started with the host token). ``--spectators`` more sockets watch rooms round-robin. Every room
is started at once; the run lasts until every room has finished its match (``--deals`` deals).

Reported:
- actions per second (every ``act`` the server logged, bots' and humans', over the wall time);
- move latency as a client sees it: from sending ``act`` to receiving the ``update`` that
  carries the new version (median, p99);
- the server's own rhythm: the gap between consecutive moves of a bot-only room, from the
  log's timestamps (one bot move = queue + engine + commit + broadcast + next bot planned);
- the server process's CPU time;
- nothing lost: every room finished; every socket saw every version (no gap); every finished
  deal's record downloads and replays (``getaway.core.record.deal_from_record``, result checked).

Target (issue 6), one server process: 200 concurrent rooms of 4 seats, p99 ≤ 100 ms, nothing
lost. The exit status is 1 if anything was lost (and, with ``--check-target``, if the p99
misses the target). The load generator runs on the same machine and shares its cores: the
latencies include its own scheduling delays.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shlex
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from serverproc import Server, free_port, percentile
from websockets.asyncio.client import connect

from getaway.core.record import deal_from_record

TARGET_P99_MS = 100.0


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, act → its update
    gaps: list[str] = field(default_factory=list)  # sockets that missed a version
    errors: list[str] = field(default_factory=list)
    human_moves: int = 0


class Watcher:
    """One socket of a room: checks it sees every version once, in order (nothing lost)."""

    def __init__(self, label: str, stats: Stats) -> None:
        self.label = label
        self.stats = stats
        self.ws: Any = None
        self.last: dict[str, Any] = {}
        self.version = -1

    async def open(self, url: str, hello: dict[str, Any]) -> None:
        self.ws = await connect(url, open_timeout=30, max_size=2**22, ping_interval=None)
        await self.ws.send(json.dumps({"type": "hello", "lang": "en", **hello}))
        msg = await self.recv()
        if msg["type"] != "welcome":
            raise RuntimeError(f"{self.label}: {msg}")

    async def recv(self) -> dict[str, Any]:
        msg = json.loads(await self.ws.recv())
        kind = msg["type"]
        if kind in ("welcome", "sync"):
            self.version = msg["version"]
            self.last = msg
        elif kind == "update":
            v = msg["version"]
            # an update repeats the version when only "connected" changed; a jump is a loss
            if v > self.version + 1 and self.version >= 0:
                self.stats.gaps.append(f"{self.label}: version {self.version} → {v}")
            self.version = max(self.version, v)
            self.last = msg
        elif kind == "error":
            self.stats.errors.append(f"{self.label}: {msg.get('code')}")
        return msg

    def done(self) -> bool:
        return bool(self.last) and self.last["room"]["status"] in ("finished", "closed")

    async def watch(self) -> None:
        while not self.done():
            await self.recv()
        await self.ws.close()


class Human(Watcher):
    """A seated player (the room's host) playing random legal moves without thinking."""

    def __init__(self, label: str, stats: Stats, rng: random.Random, think: float = 0.0) -> None:
        super().__init__(label, stats)
        self.rng = rng
        self.think = think

    def my_turn(self) -> bool:
        view = self.last.get("view")
        return (
            self.last["room"]["status"] == "playing"
            and view is not None
            and view["outcome"] is None
            and view["to_act"] == view["seat"]
            and bool(view["legal_actions"])
        )

    async def play(self) -> None:
        asked_next = -1
        while not self.done():
            room = self.last["room"]
            if self.my_turn():
                if self.think:
                    await asyncio.sleep(self.think)
                sent = self.version
                action = self.rng.choice(self.last["view"]["legal_actions"])
                t0 = time.perf_counter()
                await self.ws.send(json.dumps({"type": "act", "action": action, "version": sent}))
                while True:
                    msg = await self.recv()
                    if msg["type"] == "update" and msg["version"] > sent:
                        self.stats.latencies.append(time.perf_counter() - t0)
                        self.stats.human_moves += 1
                        break
                    if msg["type"] == "error":
                        break
            elif room["status"] == "between_deals" and asked_next != self.version:
                asked_next = self.version
                await self.ws.send(json.dumps({"type": "next"}))
                await self.recv()
            else:
                await self.recv()
        await self.ws.close()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    stats = Stats()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="getaway-load-") as tmp:
        # no flood limits for programmed players (all of them on one address), nor the limits on
        # bot-only rooms and reads
        server = Server(
            Path(tmp) / "load.db",
            args.port or free_port(),
            bot_delay=args.bot_delay,
            sockets_per_address=10**6,
            reads_per_second=1e9,
            bot_rooms_per_address=10**6,
            max_bot_rooms=10**6,
        )
        try:
            server.wait_ready()
            result = await _drive(args, server, stats, rng)
            result["server_log_errors"] = [
                line for line in server.output().splitlines() if "Traceback" in line or "ERROR" in line
            ][:10]
            result["nothing_lost"] = result["nothing_lost"] and not result["server_log_errors"]
            result.update(_server_rhythm(server.db, result["bot_only_codes"]))
            del result["bot_only_codes"]
            return result
        finally:
            server.stop()


async def _drive(args: argparse.Namespace, server: Server, stats: Stats, rng: random.Random) -> dict[str, Any]:
    ws_base = server.base.replace("http://", "ws://")
    config = {
        "profile": args.profile_name,
        "players": args.players,
        "deals": args.deals,
        "bot_level": "easy",
        "options": {"takes": args.takes},
    }
    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    async with httpx.AsyncClient(base_url=server.base, timeout=60, limits=limits) as http:
        # ---- create the rooms (the first --clients with a seated human) and connect the sockets
        async def create(i: int) -> dict[str, Any]:
            body = dict(config, **({"name": f"P{i}"} if i < args.clients else {}))
            r = await http.post("/api/rooms", json=body)
            r.raise_for_status()
            return r.json()

        t_setup = time.perf_counter()
        rooms: list[dict[str, Any]] = []
        for start in range(0, args.rooms, 50):
            rooms += await asyncio.gather(*(create(i) for i in range(start, min(args.rooms, start + 50))))
        humans = [
            Human(f"human {r['code']}", stats, random.Random(rng.random()), args.think) for r in rooms[: args.clients]
        ]
        await asyncio.gather(
            *(h.open(f"{ws_base}/ws/{r['code']}", {"token": r["token"]}) for h, r in zip(humans, rooms, strict=False))
        )
        watched = [rooms[i % len(rooms)] for i in range(args.spectators)]
        spectators = [Watcher(f"spectator {r['code']}", stats) for r in watched]
        await asyncio.gather(
            *(s.open(f"{ws_base}/ws/{r['code']}", {"spectate": True}) for s, r in zip(spectators, watched, strict=True))
        )
        setup = time.perf_counter() - t_setup

        # ---- start every room at once; humans and spectators run; bot-only rooms are polled
        cpu0 = _cpu_seconds(server.proc.pid)
        t0 = time.perf_counter()

        async def start(room: dict[str, Any]) -> None:
            r = await http.post(
                f"/api/rooms/{room['code']}/start", headers={"Authorization": f"Bearer {room['host_token']}"}
            )
            r.raise_for_status()

        tasks = [asyncio.create_task(h.play()) for h in humans] + [asyncio.create_task(s.watch()) for s in spectators]
        await asyncio.gather(*(start(r) for r in rooms))
        profiler = None
        if args.profile:
            profiler = _start_profiler(server.proc.pid, args.profile)
        pending = {r["code"] for r in rooms[args.clients :]}
        deadline = t0 + args.timeout
        # Bot-only rooms have no socket to tell us they are done: read their status in the
        # server's database (a read-only SQLite reader beside the server's one writer), so the
        # watching adds no requests of its own to the load being measured.
        while pending and time.perf_counter() < deadline:
            await asyncio.sleep(0.5)
            for code in _finished(server.db, pending):
                pending.discard(code)
        done, not_done = await asyncio.wait(tasks, timeout=max(1.0, deadline - time.perf_counter()))
        for task in not_done:
            task.cancel()
        for task in done:
            if task.exception() is not None:
                stats.errors.append(f"client failed: {task.exception()!r}")
        wall = time.perf_counter() - t0
        cpu = _cpu_seconds(server.proc.pid) - cpu0
        profile_text = _stop_profiler(profiler) if profiler else None

        # ---- nothing lost: every room finished, every record replays
        problems: list[str] = []
        replayed = 0
        actions_in_records = 0

        async def check(room: dict[str, Any]) -> None:
            nonlocal replayed, actions_in_records
            code = room["code"]
            state = (await http.get(f"/api/rooms/{code}")).json()
            if state["status"] != "finished":
                problems.append(f"room {code}: {state['status']} (deal {state.get('deal_index')})")
                return
            for i in range(args.deals):
                r = await http.get(f"/api/rooms/{code}/deals/{i}/record")
                if r.status_code != 200:
                    problems.append(f"room {code} deal {i}: record {r.status_code}")
                    continue
                record = r.json()
                try:
                    deal = deal_from_record(record)
                except Exception as exc:  # noqa: BLE001 - reported, not raised
                    problems.append(f"room {code} deal {i}: replay failed: {exc}")
                    continue
                if not deal.is_over:
                    problems.append(f"room {code} deal {i}: the replay does not finish")
                    continue
                replayed += 1
                actions_in_records += len(record["actions"])

        for start_i in range(0, len(rooms), 50):
            await asyncio.gather(*(check(r) for r in rooms[start_i : start_i + 50]))

    con = sqlite3.connect(server.db)
    logged_acts = con.execute("SELECT count(*) FROM room_log WHERE kind = 'act'").fetchone()[0]
    con.close()
    lat_ms = [x * 1000 for x in stats.latencies]
    nothing_lost = not problems and not stats.gaps and not stats.errors and replayed == args.rooms * args.deals
    return {
        "rooms": args.rooms,
        "players": args.players,
        "deals": args.deals,
        "clients": args.clients,
        "spectators": args.spectators,
        "takes": args.takes,
        "bot_delay": args.bot_delay,
        "think": args.think,
        "setup_s": round(setup, 2),
        "wall_s": round(wall, 2),
        "actions": logged_acts,
        "actions_in_records": actions_in_records,
        "actions_per_s": round(logged_acts / wall, 1) if wall else 0.0,
        "human_moves": stats.human_moves,
        "latency_ms": {
            "median": round(percentile(lat_ms, 0.5), 1),
            "p90": round(percentile(lat_ms, 0.9), 1),
            "p99": round(percentile(lat_ms, 0.99), 1),
            "max": round(max(lat_ms), 1) if lat_ms else float("nan"),
        },
        "server_cpu_s": round(cpu, 2),
        "server_cpu_share": round(cpu / wall, 2) if wall else 0.0,
        "records_replayed": replayed,
        "problems": problems[:20] + stats.gaps[:10] + stats.errors[:10],
        "nothing_lost": nothing_lost,
        "bot_only_codes": [r["code"] for r in rooms[args.clients :]],
        "profile": profile_text,
    }


def _finished(db: Path, codes: set[str]) -> list[str]:
    """The rooms among ``codes`` whose status in the database is finished or closed."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as conn:
        marks = ",".join("?" * len(codes))
        query = f"SELECT code FROM rooms WHERE status IN ('finished', 'closed') AND code IN ({marks})"
        rows = conn.execute(query, [*codes])
        return [code for (code,) in rows]


def _server_rhythm(db: Path, codes: list[str]) -> dict[str, Any]:
    """Gaps between consecutive ``act`` entries of bot-only rooms, from the log's times: the
    time the server takes per bot move of a room (queueing included) while all rooms run."""
    if not codes:
        return {}
    con = sqlite3.connect(db)
    gaps: list[float] = []
    marks = ",".join("?" * len(codes))
    rows = con.execute(
        f"SELECT room, kind, time FROM room_log WHERE room IN ({marks}) ORDER BY room, version", codes
    ).fetchall()
    con.close()
    previous: tuple[str, float] | None = None
    for room, kind, t in rows:
        if kind == "act" and previous is not None and previous[0] == room:
            gaps.append((t - previous[1]) * 1000)
        previous = (room, t) if kind == "act" else None
    return {
        "bot_move_gap_ms": {
            "median": round(percentile(gaps, 0.5), 2),
            "p99": round(percentile(gaps, 0.99), 2),
        }
    }


def _start_profiler(pid: int, seconds: int) -> tuple[subprocess.Popen, str]:
    fd, out = tempfile.mkstemp(prefix="getaway-pyspy-", suffix=".txt")
    os.close(fd)
    cmd = [
        "py-spy",
        "record",
        "-p",
        str(pid),
        "-d",
        str(seconds),
        "-r",
        "200",
        "-f",
        "raw",
        "-o",
        out,
        "--nonblocking",
        "--idle",
        "--threads",
    ]
    venv_bin = Path(sys.executable).parent
    if (venv_bin / "py-spy").exists():
        cmd[0] = str(venv_bin / "py-spy")
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT), out


def _stop_profiler(profiler: tuple[subprocess.Popen, str]) -> str:
    """Summary of py-spy's collapsed stacks: share of samples per function (self and total)."""
    proc, out = profiler
    try:
        proc.wait(120)
    except subprocess.TimeoutExpired:
        proc.terminate()
    return summarize_stacks(Path(out).read_text() if Path(out).exists() else "")


def summarize_stacks(collapsed: str, top: int = 25) -> str:
    """The heaviest functions of collapsed stacks (``frame;frame;frame count`` lines)."""
    total = 0
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    for line in collapsed.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        own[frames[-1]] = own.get(frames[-1], 0) + n
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + n
    if not total:
        return "(no samples)"
    lines = [f"{total} samples; by total time (self time):"]
    for frame, n in sorted(inclusive.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {100 * n / total:5.1f}% ({100 * own.get(frame, 0) / total:4.1f}%)  {frame}")
    lines.append("by self time:")
    for frame, n in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {100 * n / total:5.1f}%  {frame}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=200, help="concurrent rooms (default 200)")
    parser.add_argument("--clients", type=int, default=20, help="rooms with one seated WebSocket player (default 20)")
    parser.add_argument("--spectators", type=int, default=0, help="spectator sockets, round-robin over the rooms")
    parser.add_argument("--deals", type=int, default=1, help="deals in each room's match (default 1)")
    parser.add_argument("--players", type=int, default=4, help="seats per room (default 4)")
    parser.add_argument("--profile-name", default="punjab", choices=["punjab", "classic"], help="rules profile")
    parser.add_argument("--takes", default="off", choices=["off", "any", "leader"], help="take option (default off)")
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.0,
        help="bots' thinking time, s (default 0; the server's own default is 0.7)",
    )
    parser.add_argument("--think", type=float, default=0.0, help="seated clients' thinking time before a move, s")
    parser.add_argument("--seed", type=int, default=1, help="seed of the clients' random moves")
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument("--timeout", type=float, default=900, help="give up after this many seconds")
    parser.add_argument("--profile", type=int, default=0, metavar="SECONDS", help="py-spy the server this long")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--check-target", action="store_true", help="exit 1 if the p99 misses the target")
    args = parser.parse_args(argv)
    if not 0 <= args.clients <= args.rooms or args.rooms < 1:
        parser.error("expected 1 <= rooms and 0 <= clients <= rooms")
    rerun = shlex.join(
        [Path(sys.executable).as_posix(), "bench/web_load.py", *(argv if argv is not None else sys.argv[1:])]
    )
    result = asyncio.run(run(args))
    result["rerun"] = rerun
    p99 = result["latency_ms"]["p99"]
    result["target_met"] = result["nothing_lost"] and (p99 != p99 or p99 <= TARGET_P99_MS)  # NaN: no human moves
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        _print(result)
    if not result["nothing_lost"]:
        return 1
    return 1 if args.check_target and not result["target_met"] else 0


def _print(r: dict[str, Any]) -> None:
    lat = r["latency_ms"]
    print(
        f"web load: {r['rooms']} rooms of {r['players']} seats, {r['deals']} deal(s) each (takes {r['takes']}), "
        f"{r['clients']} seated clients, {r['spectators']} spectators; bot delay {r['bot_delay']} s, "
        f"client think {r['think']} s; one server process"
    )
    print(
        f"  set-up {r['setup_s']} s; play {r['wall_s']} s; {r['actions']} actions logged "
        f"→ {r['actions_per_s']} actions/s; server CPU {r['server_cpu_s']} s ({r['server_cpu_share']:.0%} of a core)"
    )
    print(
        f"  move → its update (clients, {r['human_moves']} moves): median {lat['median']} ms, p90 {lat['p90']} ms, "
        f"p99 {lat['p99']} ms, max {lat['max']} ms  (target p99 ≤ {TARGET_P99_MS:.0f} ms)"
    )
    if "bot_move_gap_ms" in r:
        g = r["bot_move_gap_ms"]
        print(f"  server log, bot-only rooms: one move every {g['median']} ms (median), p99 {g['p99']} ms")
    print(f"  records replayed: {r['records_replayed']}; nothing lost: {'yes' if r['nothing_lost'] else 'NO'}")
    for p in r["problems"] + r["server_log_errors"]:
        print(f"    {p}")
    print(f"  target (p99 ≤ {TARGET_P99_MS:.0f} ms, nothing lost): {'met' if r['target_met'] else 'MISSED'}")
    if r.get("profile"):
        print("  server profile (py-spy):")
        print("    " + r["profile"].replace("\n", "\n    "))
    print(f"rerun: {r['rerun']}")


if __name__ == "__main__":
    sys.exit(main())
