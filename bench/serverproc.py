"""What the web benchmarks (bench/web_load.py, bench/web_rooms.py, bench/web_edge.py) share: a
getaway web server in a subprocess on a loopback port (one way to start it, wait until it
answers, read its log and stop it) and the percentile their latencies are reported with."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

__all__ = ["Server", "free_port", "percentile", "stop_process", "wait_ready"]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(base: str, proc: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    """Wait until the server at ``base`` answers (``GET /api/strings/en``).

    Raises:
        SystemExit: the process ended or ``timeout`` seconds passed; the message holds its log.
    """
    deadline = time.time() + timeout
    while True:
        try:
            httpx.get(f"{base}/api/strings/en", timeout=1)
            return
        except httpx.HTTPError:
            if proc.poll() is not None or time.time() > deadline:
                raise SystemExit("the server did not start:\n" + log.read_text(errors="replace")) from None
            time.sleep(0.1)


def stop_process(proc: subprocess.Popen, grace: float = 15) -> None:
    """SIGTERM ``proc`` (a server drains: docs/web.md), SIGKILL if it has not ended within
    ``grace`` seconds; nothing if it has already ended."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(15)


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank; NaN when empty.

    >>> percentile([1, 2, 3, 4], 0.5), percentile(list(range(1, 101)), 0.99)
    (2, 99)
    """
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, int(round(q * len(ordered))) - 1))]


#: The server's program with the event-loop ticker of :class:`Server` (``lag_probe``).
_LAG_PROBE = """
import asyncio, time, uvicorn
from getaway.web.app import create_app

async def main():
    async def tick():
        lines = []
        while True:
            t = time.monotonic()
            await asyncio.sleep(0.01)
            now = time.monotonic()
            lines.append(f"{{now}} {{now - t - 0.01}}\\n")
            if len(lines) >= 50:  # written as it goes: uvicorn ends the process on SIGTERM
                with open({out!r}, "a") as f:
                    f.writelines(lines)
                lines.clear()

    ticker = asyncio.create_task(tick())
    server = uvicorn.Server(uvicorn.Config({app}, host="127.0.0.1", port={port}, log_level="warning"))
    await server.serve()
    ticker.cancel()

asyncio.run(main())
"""


class Server:
    """``create_app(db, **settings)`` (getaway.web.app) under uvicorn in a subprocess on ``port``
    of 127.0.0.1, its output in ``db``'s folder (``<db>.log``); :meth:`wait_ready` before use.
    ``settings`` are create_app's keyword arguments; the defaults lift the per-socket flood limit
    and the room creation limit (programmed players move as fast as the server answers, all from
    one address, which people never do).

    ``lag_probe``: the server's event loop also runs a ticker that sleeps 10 ms at a time and
    notes how late each wake-up is (lines ``time.monotonic() lateness``, seconds), written to
    ``<db>.lag.txt`` as it goes (:meth:`lags`): how long the loop was kept from
    running (by the GIL, or by work done on it)."""

    def __init__(self, db: Path, port: int, lag_probe: bool = False, **settings: Any) -> None:
        self.db = db
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.log_path = db.with_suffix(".log")
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        settings = {"grace": 3600.0, "idle": 86400.0, "rate": 1e6, "burst": 1e6, "rooms_per_minute": 1e9, **settings}
        args = ", ".join(f"{k}={v!r}" for k, v in settings.items())
        self.lag_path = db.with_suffix(".lag.txt")
        code = (
            "import uvicorn; from getaway.web.app import create_app; "
            f"uvicorn.run(create_app({str(db)!r}, {args}), host='127.0.0.1', port={port}, log_level='warning')"
        )
        if lag_probe:
            code = _LAG_PROBE.format(app=f"create_app({str(db)!r}, {args})", port=port, out=str(self.lag_path))
        env = dict(os.environ, PYTHONUTF8="1")
        self.proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 60) -> None:
        """See :func:`wait_ready`."""
        self.log.flush()
        wait_ready(self.base, self.proc, self.log_path, timeout)

    def output(self) -> str:
        """What the server printed so far."""
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(errors="replace")

    def lags(self, start: float = 0.0, end: float = float("inf")) -> list[float]:
        """The ticker's lateness (seconds) between ``start`` and ``end`` (``time.monotonic()``,
        the same clock in every process of the machine), once stopped (``lag_probe``)."""
        rows = (line.split() for line in self.lag_path.read_text().splitlines())
        return [float(lag) for t, lag in rows if start <= float(t) <= end]

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 15 s (:func:`stop_process`)."""
        stop_process(self.proc)
        self.log.close()
