"""Rooms under attack (issue 13): bot timing, bot-only rooms starving a human, reads of a long room.

Rerun with::

    .venv/bin/python bench/web_rooms.py timing                # hard bots: time to move, by legal count
    .venv/bin/python bench/web_rooms.py timing --level expert --profile classic --bot-delay 0 --workers 1
                                                              # the learned leaf, in the bot pool
    .venv/bin/python bench/web_rooms.py starve                # 30 bot-only expert rooms + one human room
    .venv/bin/python bench/web_rooms.py starve --per-address 30 --max-bot-rooms 4   # 30 addresses
    .venv/bin/python bench/web_rooms.py reads                 # 4 readers of a 5,400-entry room + a live room
    .venv/bin/python bench/web_rooms.py lag                   # 4 expert rooms: bots in threads, then in workers

Each mode starts ONE server (the app of ``getaway serve``: uvicorn in a subprocess, loopback, a
temporary SQLite file; the socket flood limit lifted for the programmed players, every other
limit as given) and drives it with clients of its own:

- ``timing``: ``--rooms`` rooms of one scripted human (plays at once) and 3 ``--level`` bots at
  ``--bot-delay``, ``--deals`` deals; the human's socket notes when each update arrives. For each
  bot move: the time from the update that began its turn to the update with its move, split by
  the number of legal actions the bot had (worked out afterwards by replaying the room's log)
  and by decision (play or take): what a seated player can time. With the fixed delay, every
  move comes ``--bot-delay`` after its turn began whatever the bot holds.
- ``starve``: ``--rooms`` bot-only rooms (``--level``, ``--players`` seats, ``--deals``
  deals), created and started from this one address (the server refuses the starts beyond its
  limits: ``--per-address``, ``--max-bot-rooms``), while a 4-player room with one scripted human
  (plays a random legal card at once) and 3 ``medium`` bots runs at ``--bot-delay`` for
  ``--seconds``. Reported: the human's move → echo latency (send ``act`` → the ``update`` with
  the new version) and the lateness of each bot move of that room as the human sees it (its
  ``update`` minus the planned send time: the update that began the bot's turn + the delay, or
  for a lead after a finished trick + the trick's linger if longer: ``HumanRoom.planned``).
  Targets: echo p99 ≤ 100 ms, bot lateness p99 ≤ 250 ms.
- ``reads``: a room of about ``--entries`` log entries (a bot-only ``easy`` 50-deal match,
  played by the same server at full speed before the measurement, then closed: not in memory),
  read by ``--readers`` HTTP connections at ``--rate`` requests per second each (state, history,
  a record, in turn) for ``--seconds``, while the human room above plays. Reported: read
  latency and the live room's echo latency. Targets: read p99 ≤ 20 ms, echo p99 ≤ 100 ms.
- ``lag``: ``--rooms`` rooms of one scripted human and 3 ``--level`` bots (default ``expert``;
  takes off, so that no lead of the human is held for the take window) at ``--bot-delay`` for
  ``--seconds`` (default 30), on two servers one after the other: the searching bots
  in threads of the server process (``bot_workers=0``), then in ``--workers`` worker processes
  (web/botpool.py; default: the serve default, cores - 1). Reported for each: the event loop's
  lag (a 10 ms asyncio ticker inside the server: how late it wakes; p50, p99, max), the humans'
  move → echo latency, the bots' lateness, and the moves that fell back to the heuristic (every
  worker busy: counted from the server's log lines).

The load generator shares the machine's cores with the server: latencies include its own delays.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from serverproc import Server, free_port, percentile
from websockets.asyncio.client import connect

from getaway.web.rooms.timers import LEAD_HOLD


def _auth(room: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {room['host_token']}"}


def summary(values_s: list[float]) -> dict[str, float]:
    """Median, p90, p99, max of seconds, in milliseconds."""
    ms = [v * 1000 for v in values_s]
    out = {"n": len(ms)}
    for name, q in (("median", 0.5), ("p90", 0.9), ("p99", 0.99)):
        out[name] = round(percentile(ms, q), 1)
    out["max"] = round(max(ms), 1) if ms else float("nan")
    return out


class HumanRoom:
    """A 4-seat room: one scripted human (the host, moves at once) and 3 bots (``medium``)."""

    def __init__(
        self,
        base: str,
        bot_delay: float,
        seed: int = 1,
        level: str = "medium",
        deals: int = 50,
        options: dict[str, Any] | None = None,
        profile: str = "punjab",
    ) -> None:
        self.base = base
        self.profile = profile
        self.options = options if options is not None else {"takes": "any"}
        self.bot_delay = bot_delay
        self.level = level
        self.deals = deals
        self.code = ""
        self.arrivals: dict[int, float] = {}  # version → when its first update arrived
        self.rng = random.Random(seed)
        self.echo: list[float] = []
        self.lateness: list[float] = []
        self.acked: list[tuple[int, str]] = []  # (version the move was sent at, action) echoed back
        self.errors: list[str] = []
        self.stop = False

    async def run(self, http: httpx.AsyncClient) -> None:
        body = {"profile": self.profile, "players": 4, "deals": self.deals, "bot_level": self.level, "name": "Human"}
        body["options"] = self.options
        room = (await http.post("/api/rooms", json=body)).json()
        self.code = room["code"]
        ws = await connect(f"{self.base.replace('http', 'ws')}/ws/{room['code']}", max_size=2**22, ping_interval=None)
        await ws.send(json.dumps({"type": "hello", "token": room["token"], "lang": "en"}))
        last = json.loads(await ws.recv())
        await ws.send(json.dumps({"type": "start"}))
        bot_turn: tuple[int, float] | None = None  # (version, when its move is planned) when a bot is to act
        asked_next = -1
        pending: tuple[int, float, str] | None = None  # (version sent, time, action) of the human's act in flight
        while not self.stop:
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
            except TimeoutError:
                continue
            now = time.perf_counter()
            if msg["type"] == "error":
                self.errors.append(msg["code"])
                pending = None
            if msg["type"] not in ("update", "welcome", "sync"):
                continue
            if msg["type"] == "update" and msg["version"] == last.get("version"):
                last = {**last, "room": msg["room"]}
                continue
            version = msg["version"]
            self.arrivals.setdefault(version, now)
            if pending is not None and version > pending[0]:
                self.echo.append(now - pending[1])
                self.acked.append((pending[0], pending[2]))
                pending = None
            if bot_turn is not None and version == bot_turn[0] + 1:
                self.lateness.append(now - bot_turn[1])
            bot_turn = None
            last = msg
            view, status = msg["view"], msg["room"]["status"]
            if status == "between_deals" and asked_next != version:
                asked_next = version
                await ws.send(json.dumps({"type": "next"}))
            elif status == "playing" and view is not None and view["outcome"] is None:
                if view["to_act"] == view["seat"] and view["legal_actions"]:
                    # a random legal move; a take only now and then (a deal of random takes is short)
                    legal = [a for a in view["legal_actions"] if a != "take" or self.rng.random() < 0.1]
                    action = self.rng.choice(legal or view["legal_actions"])
                    pending = (version, time.perf_counter(), action)
                    await ws.send(json.dumps({"type": "act", "action": action, "version": version}))
                elif view["to_act"] is not None:
                    bot_turn = (version, now + self.planned(view))
            elif status in ("finished", "closed"):
                break
        await ws.close()

    def planned(self, view: dict[str, Any]) -> float:
        """Seconds from a bot's turn to its planned move: the bot delay, and for a lead after a
        finished trick at least the trick's linger (web/rooms/timers.py ``LEAD_HOLD``: the trick
        stays on the table while a person watches; docs/web.md "Pace"), which is no lateness."""
        if self.bot_delay > 0 and not view["trick"] and view["tricks_played"] > 0:
            return max(self.bot_delay, LEAD_HOLD)
        return self.bot_delay

    def report(self) -> dict[str, Any]:
        return {
            "echo_ms": summary(self.echo),
            "bot_lateness_ms": summary(self.lateness),
            "errors": sorted(set(self.errors)),
        }


async def _bot_rooms(http: httpx.AsyncClient, n: int, level: str, players: int, deals: int) -> dict[str, Any]:
    """Create and start ``n`` bot-only rooms; how many started, how many were refused (and why)."""
    body = {"profile": "punjab", "players": players, "deals": deals, "bot_level": level, "options": {"takes": "any"}}
    started, refused, codes = 0, {}, []
    for _ in range(n):
        room = (await http.post("/api/rooms", json=body)).json()
        r = await http.post(f"/api/rooms/{room['code']}/start", headers=_auth(room))
        if r.status_code == 200:
            started += 1
            codes.append(room["code"])
        else:
            code = r.json()["error"]["code"]
            refused[code] = refused.get(code, 0) + 1
    return {"asked": n, "started": started, "refused": refused, "codes": codes}


# ---------------------------------------------------------------------------------- modes


async def timing(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    from getaway.web.rooms import Room
    from getaway.web.rooms.commands import logged
    from getaway.web.store import Store

    async with httpx.AsyncClient(base_url=server.base, timeout=60) as http:
        rooms = [
            HumanRoom(server.base, args.bot_delay, i, args.level, args.deals, profile=args.profile)
            for i in range(args.rooms)
        ]
        await asyncio.wait_for(asyncio.gather(*(r.run(http) for r in rooms)), args.timeout)
    arrivals = {r.code: r.arrivals for r in rooms}
    store = Store(f"sqlite:///{server.db}")
    groups: dict[str, list[float]] = {}
    for code, seen in arrivals.items():
        stored = store.load_room(code)
        room = Room(stored.code, stored.config, stored.seed, stored.host_hash, stored.created, stored.secret)
        room.replaying = True
        for entry in stored.log:
            if entry.kind == "act" and entry.payload["bot"]:
                view = room.view(entry.payload["seat"])
                n = len(view.legal_actions)
                key = f"{view.decision}, {'1 legal action' if n == 1 else '2+ legal actions'}"
                began, done = seen.get(entry.version - 1), seen.get(entry.version)
                if began is not None and done is not None:
                    groups.setdefault(key, []).append(done - began)
            room.apply(logged(entry.kind, entry.payload), entry.time)
    store.close()
    return {"by_decision": {k: summary(v) for k, v in sorted(groups.items())}}


async def starve(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.base, timeout=60) as http:
        bots = await _bot_rooms(http, args.rooms, args.level, args.players, args.deals)
        human = HumanRoom(server.base, args.bot_delay)
        task = asyncio.create_task(human.run(http))
        await asyncio.sleep(args.seconds)
        human.stop = True
        await task
    del bots["codes"]
    return {"bot_only_rooms": bots, "human_room": human.report()}


async def reads(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.base, timeout=60) as http:
        # the long room: played at full speed by a second server process beforehand (see main)
        code = args.long_room
        state = (await http.get(f"/api/rooms/{code}")).json()
        finished = [d["index"] for d in (await http.get(f"/api/rooms/{code}/history")).json()["deals"]]
        paths = [f"/api/rooms/{code}", f"/api/rooms/{code}/history"] + [
            f"/api/rooms/{code}/deals/{i}/record" for i in finished[::7]
        ]
        human = HumanRoom(server.base, args.bot_delay)
        task = asyncio.create_task(human.run(http))
        latencies: list[float] = []
        statuses: dict[int, int] = {}

        async def reader(i: int) -> None:
            async with httpx.AsyncClient(base_url=server.base, timeout=60) as mine:
                k = i
                next_at = time.perf_counter()
                end = next_at + args.seconds
                while time.perf_counter() < end:
                    t0 = time.perf_counter()
                    r = await mine.get(paths[k % len(paths)])
                    k += 1
                    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                    if r.status_code == 200:
                        latencies.append(time.perf_counter() - t0)
                    next_at += 1 / args.rate
                    await asyncio.sleep(max(0.0, next_at - time.perf_counter()))

        await asyncio.sleep(2)  # the human room under way
        await asyncio.gather(*(reader(i) for i in range(args.readers)))
        human.stop = True
        await task
    return {
        "long_room": {"code": code, "version": state["version"], "status": state["status"]},
        "reads_ms": summary(latencies),
        "read_statuses": statuses,
        "human_room": human.report(),
    }


async def _lag_run(args: argparse.Namespace, server: Server) -> tuple[list[HumanRoom], float, float]:
    """The ``lag`` mode's rooms on one server: their players, and the measured window (monotonic)."""
    async with httpx.AsyncClient(base_url=server.base, timeout=60) as http:
        # takes off: a person's lead in a take window is held for the bot delay (docs/web.md "Takes"),
        # which is no latency of the server's
        rooms = [
            HumanRoom(server.base, args.bot_delay, i, args.level, args.deals, {"takes": "off"}, args.profile)
            for i in range(args.rooms)
        ]
        tasks = [asyncio.create_task(r.run(http)) for r in rooms]
        await asyncio.sleep(2)  # every room under way
        for r in rooms:  # measured from now on
            r.echo.clear()
            r.lateness.clear()
        start = time.monotonic()
        await asyncio.sleep(args.seconds)
        end = time.monotonic()
        for r in rooms:
            r.stop = True
        await asyncio.gather(*tasks)
    return rooms, start, end


def lag(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """Bots in threads, then in worker processes: the same rooms on two servers, one after the other."""
    from getaway.web.botpool import default_workers

    workers = args.workers if args.workers is not None else default_workers()
    out: dict[str, Any] = {}
    for name, bot_workers in (("threads", 0), (f"{workers} worker processes", workers)):
        db = tmp / f"lag-{bot_workers}.db"
        server = Server(db, free_port(), lag_probe=True, bot_delay=args.bot_delay, bot_workers=bot_workers)
        server.wait_ready()
        try:
            rooms, start, end = asyncio.run(_lag_run(args, server))
        finally:
            server.stop()
        log = server.output()
        lags = server.lags(start, end)
        out[name] = {
            "event_loop_lag_ms": summary(lags),
            "echo_ms": summary([e for r in rooms for e in r.echo]),
            "bot_lateness_ms": summary([e for r in rooms for e in r.lateness]),
            "fallback_moves": sum(1 for line in log.splitlines() if "plays its fallback move" in line),
            "late_moves_logged": sum(1 for line in log.splitlines() if "after its move was due" in line),
            "errors": sorted({e for r in rooms for e in r.errors}),
            "server_errors": [line for line in log.splitlines() if "Traceback" in line][:5],
        }
    return out


def _long_room(directory: Path, entries: int) -> tuple[Path, str]:
    """Play a bot-only 50-deal room of ``easy`` bots at full speed until it has about
    ``entries`` log entries, then close it (its host): a long room, not in memory."""
    db = directory / "rooms.db"
    server = Server(db, free_port(), bot_delay=0.0, max_bot_rooms=10, bot_rooms_per_address=10)
    server.wait_ready()
    try:
        with httpx.Client(base_url=server.base, timeout=60) as http:
            body = {"profile": "punjab", "players": 4, "deals": 50, "bot_level": "easy", "options": {"takes": "any"}}
            room = http.post("/api/rooms", json=body).json()
            auth = {"Authorization": f"Bearer {room['host_token']}"}
            http.post(f"/api/rooms/{room['code']}/start", headers=auth).raise_for_status()
            while True:
                state = http.get(f"/api/rooms/{room['code']}").json()
                if state["version"] >= entries or state["status"] == "finished":
                    break
                time.sleep(0.2)
            http.post(f"/api/rooms/{room['code']}/close", headers=auth)
    finally:
        server.stop()
    return db, room["code"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["timing", "starve", "reads", "lag"])
    parser.add_argument("--rooms", type=int, default=None, help="bot-only rooms (timing 4, starve 30)")
    parser.add_argument("--level", default=None, help="their bots' level (timing hard, starve expert)")
    parser.add_argument("--profile", default="punjab", help="profile of the human rooms (timing, lag)")
    parser.add_argument("--players", type=int, default=8, help="seats of the starve mode's bot-only rooms")
    parser.add_argument("--deals", type=int, default=None, help="deals of the rooms (timing 3, starve 50)")
    parser.add_argument("--bot-delay", type=float, default=0.7, help="the server's bot delay, s (default 0.7)")
    parser.add_argument("--per-address", type=int, default=2, help="bot-only rooms per address (server default 2)")
    parser.add_argument("--max-bot-rooms", type=int, default=4, help="bot-only rooms in all (server default 4)")
    parser.add_argument("--reads-per-second", type=float, default=1e6, help="the server's read limit per address")
    parser.add_argument("--seconds", type=float, default=60, help="how long the human room plays (starve, reads)")
    parser.add_argument("--entries", type=int, default=5400, help="log entries of the reads mode's long room")
    parser.add_argument("--readers", type=int, default=4, help="reading connections (reads)")
    parser.add_argument("--rate", type=float, default=8, help="requests per second per reader (reads)")
    parser.add_argument(
        "--workers", type=int, default=None, help="bot worker processes (lag: default cores - 1; else threads)"
    )
    parser.add_argument("--timeout", type=float, default=600, help="give up after this many seconds")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--legacy",
        action="store_true",
        help="a server without this issue's settings (an older checkout: PYTHONPATH=/path/to/old/src; timing, starve)",
    )
    args = parser.parse_args(argv)
    args.rooms = args.rooms if args.rooms is not None else (4 if args.mode in ("timing", "lag") else 30)
    args.level = args.level or ("hard" if args.mode == "timing" else "expert")
    args.deals = args.deals if args.deals is not None else (3 if args.mode == "timing" else 50)
    if args.mode == "lag":
        args.seconds = args.seconds if "--seconds" in (argv or sys.argv[1:]) else 30
        with tempfile.TemporaryDirectory(prefix="getaway-lag-") as tmp:
            result = {"mode": "lag", "rooms": args.rooms, "level": args.level, "bot_delay": args.bot_delay}
            result.update(lag(args, Path(tmp)))
        result["rerun"] = shlex.join([Path(sys.executable).as_posix(), "bench/web_rooms.py", *(argv or sys.argv[1:])])
        print(json.dumps(result, indent=None if not args.json else 2, ensure_ascii=False))
        return 0
    rerun = shlex.join([Path(sys.executable).as_posix(), "bench/web_rooms.py", *(argv or sys.argv[1:])])
    settings = {
        "bot_delay": args.bot_delay,
        "bot_rooms_per_address": args.per_address,
        "max_bot_rooms": args.max_bot_rooms,
        "reads_per_second": args.reads_per_second,
    }
    with tempfile.TemporaryDirectory(prefix="getaway-rooms-") as tmp:
        db = Path(tmp) / "rooms.db"
        if args.mode == "reads":
            db, args.long_room = _long_room(Path(tmp), args.entries)
        if args.mode == "timing":
            settings["max_bot_rooms"] = settings["bot_rooms_per_address"] = max(args.rooms, args.max_bot_rooms)
        if args.workers is not None:
            settings["bot_workers"] = args.workers
        if args.legacy:
            settings = {"bot_delay": args.bot_delay}
        server = Server(db, free_port(), **settings)
        server.wait_ready()
        try:
            run = {"timing": timing, "starve": starve, "reads": reads}[args.mode]
            result = asyncio.run(run(args, server))
            log = server.output()
            result["server_warnings"] = sum(1 for line in log.splitlines() if "after its move was due" in line)
            result["server_errors"] = [line for line in log.splitlines() if "Traceback" in line][:5]
        finally:
            server.stop()
    result = {"mode": args.mode, "settings": settings, **result, "rerun": rerun}
    print(json.dumps(result, indent=None if not args.json else 2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
