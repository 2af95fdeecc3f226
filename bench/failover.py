"""Failover with margin (issue 28 item 2): ``kill -9`` of a room's owner while a move forwarded
to it is in flight, again and again; how long until the move is applied by the new owner.

Rerun with (docs/web.md "Failover")::

    export GETAWAY_BENCH_DATABASE_URL=postgresql+psycopg://getaway:getaway@127.0.0.1/getaway_test  # EMPTIED
    .venv/bin/python bench/failover.py --kills 20

It starts its own redis-server (Debian's binary, a free loopback port, nothing saved, with a
password: bench/web_cluster.py ``redis_server``), empties the PostgreSQL database and starts three real
``getaway serve`` processes on it (``--redis-url``, the serve command's defaults but a bot delay
of 0 and the per-address limits raised: every client is 127.0.0.1). Each kill:

1. a room of four (takes off, two humans, two easy bots) is made on process X, which owns it;
   the humans' sockets are on the two other processes (mirrors: every move is forwarded to X);
2. the humans play random legal moves until one of them is to act, then that move is sent and
   X killed with SIGKILL: every other kill 0–30 ms after the move was sent (X has applied it,
   or logged it without telling anyone, or not yet), the others with X stopped first (SIGSTOP,
   the move sent, 50 ms, SIGKILL: X's connection heard the move and X never read it, the worst
   case: the new owner must apply it; timed from the SIGSTOP);
3. measured: from the kill to the update that answers the move at its socket (``applied_s``),
   and to the first new version any socket sees (``first_update_s``); a refusal of the move
   (``server_error``) is counted and the move made again;
4. the deal is played to its end (moves refused ``stale_version`` are made again), a new
   process replaces X, and the room's log is audited: every acknowledged move is in it exactly
   once at its version (``lost``: missing, ``doubled``: twice), versions 1, 2, 3 … without a gap,
   each join once.

Reported: median and max of both times (and of ``applied_s`` for each way of killing), the
refusals, lost and doubled, as JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serverproc import free_port, stop_process, wait_ready  # noqa: E402
from web_cluster import DATABASE_ENV, empty_database, redis_server  # noqa: E402

#: The secret the three processes seal their messages with (docs/web.md "More than one process").
SECRET = secrets.token_hex(16)
#: The room every kill plays (two humans, two bots that move at once).
CONFIG = {"profile": "punjab", "players": 4, "deals": 1, "options": {"takes": "off"}, "bot_level": "easy"}


class Serve:
    """One ``getaway serve`` subprocess on a free loopback port; its output in ``tmp/<name>.log``."""

    def __init__(self, tmp: Path, name: str, database: str, redis_url: str, *more: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        self.log_path = tmp / f"{name}.log"
        cmd = [sys.executable, "-m", "getaway", "serve", "--port", str(self.port), "--database", database]
        cmd += ["--redis-url", redis_url, "--bot-delay", "0", "--grace", "60", "--rooms-per-minute", "6000"]
        cmd += ["--sockets-per-address", "200", "--reads-per-second", "1000", "--bot-workers", "0", *more]
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed by stop()
        env = dict(os.environ, PYTHONUTF8="1", GETAWAY_CLUSTER_SECRET=SECRET)
        self.proc = subprocess.Popen(cmd, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        wait_ready(self.base, self.proc, self.log_path)

    def output(self) -> str:
        """What the process printed so far."""
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def kill(self) -> float:
        """SIGKILL; the monotonic time it was sent."""
        at = time.monotonic()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        return at

    def freeze(self) -> float:
        """SIGSTOP (it does nothing more: its leases are no longer renewed); the monotonic time."""
        at = time.monotonic()
        os.kill(self.proc.pid, signal.SIGSTOP)
        return at

    def stop(self) -> None:
        """SIGTERM (a drain), SIGKILL after 20 s (:func:`stop_process`)."""
        stop_process(self.proc, grace=20)
        self._log.close()


class Sock:
    """A seat's socket: the last state it was sent, and when it first saw each version."""

    def __init__(self, url: str, token: str, arrived: dict[int, float]) -> None:
        self._socket = connect(url, open_timeout=10)
        self.ws = self._socket.__enter__()
        self.arrived = arrived
        self.ws.send(json.dumps({"type": "hello", "token": token, "lang": "en"}))
        self.last = self.until(lambda m: m["type"] in ("welcome", "error"))
        if self.last["type"] != "welcome":
            raise RuntimeError(f"not welcomed: {self.last}")

    def until(self, pred: Any, timeout: float = 20) -> dict[str, Any]:
        """Read messages until ``pred`` holds for one (returned).

        Raises:
            TimeoutError: none within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if msg["type"] in ("welcome", "update", "sync"):
                self.last = msg
                self.arrived.setdefault(msg["version"], time.monotonic())
            if pred(msg):
                return msg

    def mine(self) -> bool:
        """Whether this seat is to act."""
        v = self.last["view"]
        return v is not None and v["outcome"] is None and v["to_act"] == v["seat"]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._socket.__exit__(None, None, None)


def _catch_up(socks: list[Sock]) -> None:
    newest = max(s.last["version"] for s in socks)
    for s in socks:
        if s.last["version"] < newest:
            s.until(lambda m, v=newest: m["type"] == "update" and m["version"] >= v)


def _send(mover: Sock, rng: random.Random) -> tuple[int, str]:
    action = rng.choice(mover.last["view"]["legal_actions"])
    version = mover.last["version"]
    mover.ws.send(json.dumps({"type": "act", "action": action, "version": version}))
    return version, action


def _answer(mover: Sock, version: int, timeout: float = 20) -> dict[str, Any]:
    return mover.until(lambda m: m["type"] == "error" or (m["type"] == "update" and m["version"] > version), timeout)


def _play(socks: list[Sock], rng: random.Random, acked: list[tuple[int, int, str]], refused: dict[str, int],
          until_mine: bool = False) -> Sock | None:  # fmt: skip
    """Random human moves until the deal is over (``None``) or, ``until_mine``, a human is to act
    (their socket)."""
    while True:
        _catch_up(socks)
        if socks[0].last["view"]["outcome"] is not None:
            return None
        mover = next((s for s in socks if s.mine()), None)
        if mover is None:
            socks[0].until(lambda m: m["type"] == "update")
            continue
        if until_mine:
            return mover
        version, action = _send(mover, rng)
        answer = _answer(mover, version)
        if answer["type"] == "error":
            refused[answer["code"]] = refused.get(answer["code"], 0) + 1
            if answer["code"] not in ("stale_version", "server_error", "rate_limited"):
                raise RuntimeError(f"move refused: {answer}")
            time.sleep(0.05)
            continue
        acked.append((version + 1, mover.last["view"]["seat"], action))


def _audit(database: str, code: str, acked: list[tuple[int, int, str]]) -> tuple[int, int, list[str]]:
    """(lost, doubled, problems) of room ``code``'s log against the acknowledged moves."""
    from getaway.web.store import Store

    store = Store(database)
    try:
        log = store.load_room(code).log
    finally:
        store.close()
    problems = [f"version {e.version} at position {i}" for i, e in enumerate(log, 1) if e.version != i]
    human = [
        (e.version, e.payload["seat"], e.payload["action"]) for e in log if e.kind == "act" and not e.payload["bot"]
    ]
    lost = sum(human.count(move) == 0 for move in acked)
    doubled = sum(human.count(move) > 1 for move in acked)
    joins = [e.payload["name"] for e in log if e.kind == "join"]
    doubled += len(joins) - len(set(joins))
    return lost, doubled, problems


def one_kill(servers: list[Serve], owner: int, database: str, rng: random.Random, frozen: bool) -> dict[str, Any]:
    """One room made on ``servers[owner]``, its humans on the two others, a move in flight when
    the owner is killed (see the module doc; ``frozen``: stopped first); the measures of that kill."""
    x = servers[owner]
    m1, m2 = (servers[(owner + 1) % 3], servers[(owner + 2) % 3])
    made = httpx.post(f"{x.base}/api/rooms", json={**CONFIG, "name": "Asha"}, timeout=10)
    made.raise_for_status()
    code = made.json()["code"]
    joined = httpx.post(f"{x.base}/api/rooms/{code}/join", json={"name": "Ben"}, timeout=10)
    joined.raise_for_status()
    arrived: dict[int, float] = {}
    socks = [
        Sock(f"{m1.ws}/ws/{code}", made.json()["token"], arrived),
        Sock(f"{m2.ws}/ws/{code}", joined.json()["token"], arrived),
    ]
    refused: dict[str, int] = {}
    acked: list[tuple[int, int, str]] = []
    try:
        socks[0].until(lambda m: m["type"] == "update" and m["room"]["seats"][1]["connected"])
        socks[0].ws.send(json.dumps({"type": "start"}))
        for s in socks:
            s.until(lambda m: m["type"] == "update" and m["room"]["status"] == "playing")
        for _ in range(rng.randint(1, 4)):  # a few moves before the kill
            mover = _play(socks, rng, acked, refused, until_mine=True)
            if mover is None:
                break
            version, action = _send(mover, rng)
            if _answer(mover, version)["type"] == "update":
                acked.append((version + 1, mover.last["view"]["seat"], action))
        mover = _play(socks, rng, acked, refused, until_mine=True)
        assert mover is not None, "the deal ended before the kill"
        before = max(arrived)
        if frozen:  # stopped, the move sent (heard by its connection, never read), then killed
            killed = x.freeze()
            version, action = _send(mover, rng)
            time.sleep(0.05)
            x.kill()
        else:
            version, action = _send(mover, rng)
            time.sleep(rng.uniform(0, 0.03))
            killed = x.kill()
        answer = _answer(mover, version)
        in_flight = "applied"
        while answer["type"] == "error":  # refused: made again (as the page does)
            refused[answer["code"]] = refused.get(answer["code"], 0) + 1
            in_flight = answer["code"]
            _catch_up(socks)
            if not mover.mine():
                break
            version, action = _send(mover, rng)
            answer = _answer(mover, version)
        applied = time.monotonic() - killed
        if answer["type"] == "update":
            acked.append((version + 1, mover.last["view"]["seat"], action))
        first = min(t for v, t in arrived.items() if v > before) - killed
        _play(socks, rng, acked, refused)
    finally:
        for s in socks:
            s.close()
    lost, doubled, problems = _audit(database, code, acked)
    new_owner = [i for i, s in enumerate(servers) if i != owner and f"room {code}: owned by this process" in s.output()]
    return {
        "room": code, "frozen": frozen, "applied_s": round(applied, 3), "first_update_s": round(first, 3),
        "in_flight": in_flight, "refused": refused, "lost": lost, "doubled": doubled, "log_problems": problems,
        "new_owner": new_owner,
    }  # fmt: skip


def run(tmp: Path, database: str, kills: int, seed: int = 1, serve_options: tuple[str, ...] = ()) -> dict[str, Any]:
    """``kills`` kills (see the module doc) on three processes, on the PostgreSQL database
    ``database`` (emptied) and a redis-server of its own; the report (a dict, JSON values).

    Raises:
        SystemExit: no redis-server, or ``database`` is not PostgreSQL.
    """
    empty_database(database)
    rng = random.Random(seed)
    rows = []
    with redis_server(tmp) as redis_url:
        servers = [Serve(tmp, f"serve{i}", database, redis_url, *serve_options) for i in range(3)]
        try:
            for i in range(kills):
                owner = i % 3
                rows.append(one_kill(servers, owner, database, rng, frozen=i % 2 == 0))
                servers[owner].stop()
                servers[owner] = Serve(tmp, f"serve{i + 3}", database, redis_url, *serve_options)
            tracebacks = sum(s.output().count("Traceback") for s in servers)
        finally:
            for s in servers:
                s.stop()

    def spread(key: str, which: list[dict[str, Any]]) -> dict[str, float]:
        values = [r[key] for r in which]
        return {"median": statistics.median(values), "max": max(values)} if values else {}

    return {
        "kills": kills,
        "applied_s": spread("applied_s", rows),
        "first_update_s": spread("first_update_s", rows),
        "applied_s_frozen_first": spread("applied_s", [r for r in rows if r["frozen"]]),
        "applied_s_killed_after_send": spread("applied_s", [r for r in rows if not r["frozen"]]),
        "in_flight": {k: sum(r["in_flight"] == k for r in rows) for k in sorted({r["in_flight"] for r in rows})},
        "lost": sum(r["lost"] for r in rows),
        "doubled": sum(r["doubled"] for r in rows),
        "log_problems": [p for r in rows for p in r["log_problems"]],
        "tracebacks_in_survivors": tracebacks,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20, help="owners killed (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the moves' random seed (default 1)")
    parser.add_argument("--serve-option", action="append", default=[], help="a further serve option (repeatable)")
    args = parser.parse_args(argv)
    database = os.environ.get(DATABASE_ENV)
    if not database:
        raise SystemExit(f"{DATABASE_ENV} must name a PostgreSQL database (it is emptied)")
    with tempfile.TemporaryDirectory() as tmp:
        result = run(Path(tmp), database, args.kills, args.seed, tuple(args.serve_option))
    print(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
