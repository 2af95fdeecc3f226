"""A player's move → echo latency on a bare ``getaway serve`` with and without slow clients
(issue 28, item 1; docs/web.md, "Slow clients").

Starts ``getaway serve`` (a temporary SQLite file, bots at ``--bot-delay``, every other setting
at its default) and, from this process, on loopback:

1. a player from 127.0.0.2 in a room of four (three ``easy`` bots, takes off) plays a random
   legal card as soon as it is its turn; for ``--moves`` moves the time from its ``act`` to the
   ``update`` with the new version is noted (**quiet**);
2. then an attacker from 127.0.0.1 keeps ``--slow`` connections open that each send half a
   request's headers and wait, from a process of its own: one that the server closes or refuses
   is opened again (``--retry`` seconds later, default 50 ms, when refused), so the attack never
   lets up; the player plays ``--moves`` more moves (**under attack**). Reported: the
   attacker's connections opened, refused at once (429), closed by the server after a while (the
   request timeout), and how many were open at most at once (held or not yet refused).

Printed: p50, p99 and max of each phase's echo (ms) and the attacker's counts; ``--json`` as JSON.

    .venv/bin/python bench/slow_clients.py                       # this code
    .venv/bin/python bench/slow_clients.py --src /work/main/src  # another checkout's server
    .venv/bin/python bench/slow_clients.py --slow 200 --moves 300 --json

The load generator shares the machine's cores with the server: latencies include its own delays.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from serverproc import free_port, percentile, wait_ready
from websockets.asyncio.client import connect

ATTACKER, PLAYER = "127.0.0.1", "127.0.0.2"
#: Half a request: its line and one header, never the blank line that ends them.
HALF = b"GET /api/strings/en HTTP/1.1\r\nHost: localhost\r\n"
ROOM = {"profile": "punjab", "players": 4, "deals": 50, "bot_level": "easy", "options": {"takes": "off"}}


def summary(seconds: list[float]) -> dict[str, float]:
    """Count, p50, p99 and max of ``seconds``, in milliseconds."""
    ms = [s * 1000 for s in seconds]
    if not ms:
        return {"n": 0}
    return {
        "n": len(ms),
        "p50": round(percentile(ms, 0.5), 1),
        "p99": round(percentile(ms, 0.99), 1),
        "max": round(max(ms), 1),
    }


class Attacker:
    """``count`` slow connections from :data:`ATTACKER`, each reopened once the server ends it
    (``retry`` seconds later when it was refused at once)."""

    def __init__(self, port: int, count: int, retry: float) -> None:
        self.port, self.count, self.retry = port, count, retry
        self.opened = self.refused = self.closed_later = self.failed = 0
        self.held = 0  # connections open now, not refused
        self.most_held = 0
        self.stop = asyncio.Event()

    async def one(self) -> None:
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(ATTACKER, 0))
            except OSError:
                self.failed += 1
                await asyncio.sleep(self.retry)
                continue
            self.opened += 1
            self.held += 1
            self.most_held = max(self.most_held, self.held)
            stop = asyncio.ensure_future(self.stop.wait())
            read = asyncio.ensure_future(self._first_bytes(reader, writer))
            try:
                await asyncio.wait({stop, read}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                self.held -= 1
                stop.cancel()
                read.cancel()
            writer.close()
            if self.stop.is_set():
                break
            if read.result().startswith(b"HTTP/1.1 429"):  # refused at once: try again soon
                self.refused += 1
                await asyncio.sleep(self.retry)
            else:  # closed by the server (the request timeout): reopen at once
                self.closed_later += 1

    @staticmethod
    async def _first_bytes(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bytes:
        try:
            writer.write(HALF)
            await writer.drain()
            return await reader.read(100)
        except OSError:
            return b""

    def report(self) -> dict[str, int]:
        return {
            "slow": self.count,
            "opened": self.opened,
            "refused_at_once": self.refused,
            "closed_later": self.closed_later,
            "connect_failed": self.failed,
            "most_held": self.most_held,
        }


def mine(view: dict[str, Any]) -> bool:
    """Whether the seat of ``view`` is to act and has a legal action."""
    return view["to_act"] == view["seat"] and bool(view["legal_actions"])


async def play(base: str, moves: int, rng: random.Random) -> list[float]:
    """``moves`` move → echo times (seconds) of a player from :data:`PLAYER` (new rooms as needed)."""
    echoes: list[float] = []
    transport = httpx.AsyncHTTPTransport(local_address=PLAYER)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=30) as http:
        while len(echoes) < moves:
            answer = await http.post("/api/rooms", json={**ROOM, "name": "Human"})
            answer.raise_for_status()
            room = answer.json()
            url = f"{base.replace('http', 'ws')}/ws/{room['code']}"
            async with connect(url, local_addr=(PLAYER, 0), ping_interval=None, max_size=2**22) as ws:
                await ws.send(json.dumps({"type": "hello", "token": room["token"], "lang": "en"}))
                await ws.recv()
                await ws.send(json.dumps({"type": "start"}))
                pending: tuple[int, float] | None = None
                asked_next = -1
                while len(echoes) < moves:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if msg["type"] == "error":
                        pending = None
                        continue
                    if msg["type"] not in ("update", "welcome", "sync") or "view" not in msg:
                        continue
                    version, view, status = msg["version"], msg["view"], msg["room"]["status"]
                    if pending is not None and version > pending[0]:
                        echoes.append(time.perf_counter() - pending[1])
                        pending = None
                    if status == "between_deals" and asked_next != version:
                        asked_next = version
                        await ws.send(json.dumps({"type": "next"}))
                    elif status in ("finished", "closed"):
                        break
                    elif status == "playing" and view and view["outcome"] is None and pending is None and mine(view):
                        action = rng.choice(view["legal_actions"])
                        pending = (version, time.perf_counter())
                        await ws.send(json.dumps({"type": "act", "action": action, "version": version}))
    return echoes


def attack_process(port: int, count: int, retry: float, stop: Any, out: Any) -> None:
    """The attacker's process: :class:`Attacker` until ``stop`` (a multiprocessing event) is set,
    then its report put on ``out`` (a multiprocessing queue)."""

    async def go() -> dict[str, int]:
        attacker = Attacker(port, count, retry)
        tasks = [asyncio.create_task(attacker.one()) for _ in range(count)]
        while not stop.is_set():
            await asyncio.sleep(0.1)
        attacker.stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return attacker.report()

    out.put(asyncio.run(go()))


def run(args: argparse.Namespace, port: int) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(28)
    quiet = asyncio.run(play(base, args.moves, rng))
    stop, out = multiprocessing.Event(), multiprocessing.Queue()
    attacker = multiprocessing.Process(target=attack_process, args=(port, args.slow, args.retry, stop, out))
    attacker.start()
    time.sleep(args.settle)  # the attack at full strength before the player goes on
    try:
        attacked = asyncio.run(play(base, args.moves, rng))
    finally:
        stop.set()
        report = out.get(timeout=60)
        attacker.join(30)
    return {"quiet_echo_ms": summary(quiet), "attacked_echo_ms": summary(attacked), "attacker": report}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slow", type=int, default=200, help="the attacker's slow connections")
    parser.add_argument("--moves", type=int, default=200, help="the player's moves in each phase")
    parser.add_argument("--bot-delay", type=float, default=0.05)
    parser.add_argument("--retry", type=float, default=0.05, help="seconds before a refused connection is reopened")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds of attack before the player goes on")
    parser.add_argument("--src", default=None, help="run the server from this source folder (PYTHONPATH)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="getaway-slow-"))
    port = free_port()
    env = dict(os.environ, PYTHONUTF8="1")
    if args.src:
        env["PYTHONPATH"] = args.src
    cmd = [sys.executable, "-m", "getaway", "serve", "--port", str(port), "--database", str(tmp / "slow.db")]
    cmd += ["--bot-delay", str(args.bot_delay), "--grace", "3600"]
    log_path = tmp / "serve.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_ready(f"http://127.0.0.1:{port}", proc, log_path)
            report = run(args, port)
        finally:
            proc.terminate()
            proc.wait(30)
    report["command"] = " ".join(["bench/slow_clients.py", *sys.argv[1:]])
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for phase in ("quiet_echo_ms", "attacked_echo_ms"):
            print(f"{phase}: {report[phase]}")
        print(f"attacker: {report['attacker']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
