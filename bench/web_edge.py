"""The web server's memory under hostile clients (issue 13, item 4; docs/web.md, "Seats and security").

Starts ``getaway serve`` (a temporary SQLite file) and, from this process, on loopback:

1. ``--frames`` sockets each sending one 16 MiB text frame (the server must close each with
   1009 where the frame arrives, not buffer it);
2. ``--bodies`` requests announcing a 100 MB JSON body, and as many sending one chunked
   without a length (the server must answer 413 before reading on);
3. ``--silent`` sockets that never say ``hello`` (closed after the hello timeout; past the cap of
   sockets per address refused at once);
4. ``--slow`` HTTP connections that send half their headers and wait (``serve`` answers those
   past ``--incomplete-per-address`` 429 at once and closes the others after
   ``--request-timeout``: docs/web.md, "Slow clients"; counted here for memory).

It samples the server's RSS (``/proc/<pid>/status``) every 50 ms and prints it at the start, its
peak during the attacks, and 3 s after they stop, and checks: peak ≤ ``--max-rss`` MB and the end
within 20 % of the start (exit status 1 otherwise).

    .venv/bin/python bench/web_edge.py                       # this code
    .venv/bin/python bench/web_edge.py --src /work/main/src  # another checkout's server (before/after)
    .venv/bin/python bench/web_edge.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import websockets
from serverproc import free_port, wait_ready

MB = 1 << 20


def rss_mb(pid: int) -> float:
    """The resident set size of process ``pid`` in MB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class Sampler(threading.Thread):
    """Samples a process's RSS every ``period`` seconds; ``peak`` is the highest seen."""

    def __init__(self, pid: int, period: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.period, self.peak, self.stop = pid, period, 0.0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            with contextlib.suppress(Exception):
                self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(self.period)


async def big_frame(url: str) -> str:
    """Send one 16 MiB frame; what happened to the socket (its close code)."""
    try:
        async with websockets.connect(url, max_size=None, open_timeout=20) as ws:
            try:
                await asyncio.wait_for(ws.send("x" * (16 * MB)), 30)
                await asyncio.wait_for(ws.recv(), 30)
            except websockets.ConnectionClosed as exc:
                return str(exc.rcvd.code if exc.rcvd else "closed")
            return "open"
    except Exception as exc:  # refused at the handshake, reset …
        return type(exc).__name__


async def big_body(port: int, chunked: bool) -> str:
    """Send (up to) 100 MB as a request body; the status line the server answered with."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    length = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {100 * MB}"
    head = f"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n{length}\r\n\r\n"
    writer.write(head.encode())
    chunk = b"x" * (256 * 1024)
    answer = b""
    try:
        for _ in range(400):  # 100 MB
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            await asyncio.wait_for(writer.drain(), 10)
            with contextlib.suppress(asyncio.TimeoutError):
                answer += await asyncio.wait_for(reader.read(4096), 0.001)
            if b"\r\n" in answer:
                break
        if b"\r\n" not in answer:
            answer += await asyncio.wait_for(reader.read(4096), 10)
    except (TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    return answer.split(b"\r\n", 1)[0].decode(errors="replace") or "no answer"


async def silent(url: str, hold: float) -> str:
    """Open a socket and say nothing; how it ended."""
    try:
        async with websockets.connect(url, open_timeout=20) as ws:
            try:
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), hold))
                    last = msg.get("code", msg.get("type"))
            except websockets.ConnectionClosed as exc:
                return f"{last if 'last' in locals() else ''}/{exc.rcvd.code if exc.rcvd else 'closed'}"
            except TimeoutError:
                return "still open"
    except Exception as exc:
        return type(exc).__name__


async def slow_headers(port: int, hold: float) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /api/strings/en HTTP/1.1\r\nHost: x\r\n")
    await writer.drain()
    try:
        data = await asyncio.wait_for(reader.read(100), hold)
        return "closed" if not data else data.split(b"\r\n")[0].decode()
    except TimeoutError:
        return "still open"
    finally:
        writer.close()


def tally(results: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in results:
        out[r] = out.get(r, 0) + 1
    return out


async def attack(args: argparse.Namespace, port: int, code: str) -> dict[str, Any]:
    ws_url = f"ws://127.0.0.1:{port}/ws/{code}"
    report: dict[str, Any] = {}
    t = time.time()
    report["frames"] = tally(await asyncio.gather(*(big_frame(ws_url) for _ in range(args.frames))))
    report["bodies"] = tally(
        await asyncio.gather(*(big_body(port, chunked=i % 2 == 1) for i in range(2 * args.bodies)))
    )
    report["silent"] = tally(await asyncio.gather(*(silent(ws_url, args.hold) for _ in range(args.silent))))
    report["slow_headers"] = tally(await asyncio.gather(*(slow_headers(port, 3.0) for _ in range(args.slow))))
    report["attack_seconds"] = round(time.time() - t, 1)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--bodies", type=int, default=5, help="of each kind (with a length, chunked)")
    parser.add_argument("--silent", type=int, default=100)
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--hold", type=float, default=8.0, help="seconds a silent socket waits to be closed")
    parser.add_argument("--max-rss", type=float, default=300.0, help="MB")
    parser.add_argument("--src", default=None, help="run the server from this source folder (PYTHONPATH)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="getaway-edge-"))
    port = free_port()
    env = dict(os.environ, PYTHONUTF8="1")
    if args.src:
        env["PYTHONPATH"] = args.src
    cmd = [sys.executable, "-m", "getaway", "serve", "--port", str(port), "--database", str(tmp / "edge.db")]
    cmd += ["--bot-delay", "0"]
    log = open(tmp / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        log.flush()
        try:
            wait_ready(base, proc, tmp / "server.log", 30)
        except SystemExit as exc:
            print(exc, file=sys.stderr)
            return 2
        code = httpx.post(f"{base}/api/rooms", json={"name": "Asha"}).json()["code"]
        for _ in range(20):  # warm up: the page, the strings, the room
            httpx.get(f"{base}/")
            httpx.get(f"{base}/api/rooms/{code}")
        time.sleep(1)
        start = rss_mb(proc.pid)
        sampler = Sampler(proc.pid)
        sampler.start()
        report = asyncio.run(attack(args, port, code))
        time.sleep(3)
        sampler.stop.set()
        sampler.join()
        end = rss_mb(proc.pid)
        alive = httpx.get(f"{base}/api/rooms/{code}").status_code == 200
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        if proc.poll() is None:
            proc.kill()
        log.close()
    report.update(
        rss_start_mb=round(start, 1),
        rss_peak_mb=round(sampler.peak, 1),
        rss_end_mb=round(end, 1),
        server_alive=alive,
        src=args.src or "this checkout",
    )
    ok = sampler.peak <= args.max_rss and end <= start * 1.2 and alive
    report["ok"] = ok
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>16}: {value}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
