"""Where a cluster's CPU per action goes (issue 26, item 1): py-spy samples of each serve process
(its bot workers included) and PostgreSQL's own statements (pg_stat_statements), over the window
bench/web_cluster.py measures. Used by ``web_cluster.py play --profile DIR``.

- :class:`Sampler`: one ``py-spy record --format raw --subprocesses --nonblocking`` per serve
  process, stopped with SIGINT at the window's end (py-spy writes its file then). Idle stacks are
  left out by py-spy (no ``--idle``), so a process's samples are proportional to its CPU time.
- :func:`breakdown`: each sample's category (the first frame from the leaf that belongs to a
  known package: :data:`CATEGORIES`), and the getaway functions that the samples ran under (the
  outermost one below the command's entry: what the event loop was doing; the innermost one: the
  code that called out). A sample with no such frame is the event loop's own work (or uvicorn's).
- :class:`Statements`: pg_stat_statements before and after, the statements' calls and execution
  time in the window (it needs ``shared_preload_libraries = 'pg_stat_statements'`` and the
  extension created in the database: docs/web.md "The cost per action").
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

__all__ = ["CATEGORIES", "Sampler", "Statements", "breakdown", "category_of"]

#: a frame's category by its file (py-spy's short name: the package part of the path), the first
#: match wins; a frame in none of them (the standard library's socket, ssl, hmac …) is passed over
#: and the next frame towards the root decides
CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("JSON", ("json/", "orjson")),
    ("pydantic", ("pydantic/", "pydantic_core/")),
    ("Redis client", ("redis/",)),
    ("database client", ("sqlalchemy/", "psycopg/", "psycopg_pool/", "sqlite3/")),
    ("HTTP and WebSocket", ("uvicorn/", "websockets/", "starlette/", "fastapi/", "h11/", "httptools/", "wsproto/")),
    ("rules engine", ("getaway/core/",)),
    ("bots", ("getaway/bots/",)),
    ("web server (getaway.web)", ("getaway/web/",)),
    ("getaway, other", ("getaway/",)),
    ("asyncio loop", ("asyncio/", "selectors.py", "uvloop/")),
    ("processes and pickling", ("multiprocessing/", "concurrent/", "pickle")),
)
OTHER = "other"


def _file(frame: str) -> str:
    """``"func (pkg/mod.py:12)"`` → ``"pkg/mod.py"``."""
    inner = frame.rsplit(" (", 1)[-1].rstrip(")")
    return inner.rsplit(":", 1)[0]


def category_of(stack: list[str]) -> str:
    """The category of one sample: ``stack`` is its frames root first (py-spy's raw format); the
    first frame from the leaf whose file matches :data:`CATEGORIES` names it, else ``"other"``."""
    for frame in reversed(stack):
        name = _file(frame)
        for category, prefixes in CATEGORIES:
            if any(name.startswith(p) or f"/{p}" in name for p in prefixes):
                return category
    return OTHER


#: the frames every sample of a serve process runs under (the command's entry and its event loop)
_ENTRY = ("getaway/__main__.py", "getaway/text/cli/")


def _getaway_frame(frame: str) -> str | None:
    name = _file(frame)
    if not name.startswith("getaway/") or name.startswith(_ENTRY):
        return None
    return f"{name.removeprefix('getaway/')}:{frame.rsplit(' (', 1)[0]}"


def breakdown(files: list[Path], top: int = 12) -> dict[str, Any]:
    """The samples of py-spy raw ``files`` (lines ``frame;frame;… count``): their number, each
    category's share in percent, and the ``top`` outermost and innermost getaway functions' shares.

    Raises:
        ValueError: a line is not ``stack count``.
    """
    categories: Counter[str] = Counter()
    outer: Counter[str] = Counter()
    inner: Counter[str] = Counter()
    total = 0
    for path in files:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            stack_text, _, count_text = line.rpartition(" ")
            if not stack_text or not count_text.isdigit():
                raise ValueError(f"{path}:{n}: not a py-spy raw line (stack count): {line[:80]!r}")
            stack, count = stack_text.split(";"), int(count_text)
            total += count
            categories[category_of(stack)] += count
            ours = [f for f in map(_getaway_frame, stack) if f is not None]
            outer[ours[0] if ours else "(event loop, no getaway frame)"] += count
            inner[ours[-1] if ours else "(event loop, no getaway frame)"] += count

    def shares(counter: Counter[str], limit: int | None = None) -> dict[str, float]:
        return {k: round(100 * v / max(total, 1), 1) for k, v in counter.most_common(limit)}

    return {
        "samples": total,
        "category_percent": shares(categories),
        "outermost_getaway_percent": shares(outer, top),
        "innermost_getaway_percent": shares(inner, top),
    }


class Sampler:
    """py-spy on each of ``pids`` (``{name: pid}``) from :meth:`start` to :meth:`stop`, a raw file
    per process in ``folder`` (``<name>.txt``).

    Raises:
        SystemExit: no py-spy (``pip install -e '.[bench]'``).
    """

    def __init__(self, folder: Path, pids: dict[str, int], rate: int = 100) -> None:
        self.binary = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        if not Path(self.binary).exists():
            raise SystemExit("no py-spy: pip install -e '.[bench]' (bench/cost_profile.py)")
        self.folder, self.pids, self.rate = folder, pids, rate
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        folder.mkdir(parents=True, exist_ok=True)

    def start(self) -> None:
        for name, pid in self.pids.items():
            out = self.folder / f"{name.replace(' ', '-')}.txt"
            cmd = [self.binary, "record", "--pid", str(pid), "--format", "raw", "--output", str(out)]
            cmd += ["--rate", str(self.rate), "--subprocesses", "--nonblocking"]
            self.procs[name] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def stop(self) -> dict[str, Any]:
        """Stop every py-spy (SIGINT: each writes its file) and return :func:`breakdown` of them
        all, with each process's file and any py-spy that failed (its last error line)."""
        failed = {}
        for name, proc in self.procs.items():
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            error = (proc.stderr.read() if proc.stderr else b"").decode(errors="replace").strip()
            if proc.returncode not in (0, -signal.SIGINT) and error:
                failed[name] = error.splitlines()[-1]
        files = sorted(self.folder.glob("*.txt"))
        return {**breakdown(files), "files": [str(f) for f in files], "py_spy_failed": failed}


class Statements:
    """pg_stat_statements of ``database`` (a PostgreSQL URL) between :meth:`start` and :meth:`stop`.

    Raises:
        SystemExit: the server does not load pg_stat_statements or the database lacks the
            extension (the message says the two commands that add them).
    """

    HOW = (
        "pg_stat_statements is needed: as postgres, ALTER SYSTEM SET shared_preload_libraries = "
        "'pg_stat_statements'; restart the server; CREATE EXTENSION pg_stat_statements; in the database"
    )

    def __init__(self, database: str) -> None:
        from sqlalchemy import create_engine, text

        self.engine, self.text = create_engine(database), text
        self.before: dict[tuple[int, str], tuple[int, float]] = {}
        try:
            self._read()
        except Exception as exc:  # noqa: BLE001 - any of: not loaded, no extension, no right
            self.engine.dispose()
            raise SystemExit(f"{self.HOW} ({type(exc).__name__}: {str(exc).splitlines()[0]})") from None

    def _read(self) -> dict[tuple[int, str], tuple[int, float]]:
        query = self.text(
            "SELECT queryid, query, calls, total_exec_time FROM pg_stat_statements "
            "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        with self.engine.connect() as conn:
            return {(r[0], r[1]): (int(r[2]), float(r[3])) for r in conn.execute(query)}

    def start(self) -> None:
        self.before = self._read()

    def stop(self, actions: int, top: int = 10) -> dict[str, Any]:
        """The statements run in the window: their calls and execution milliseconds per applied
        action (``actions``), the ``top`` by time, and the sum."""
        after = self._read()
        rows = []
        for key, (calls, ms) in after.items():
            calls0, ms0 = self.before.get(key, (0, 0.0))
            if calls > calls0:
                rows.append((ms - ms0, calls - calls0, " ".join(key[1].split())[:120]))
        self.engine.dispose()
        rows.sort(reverse=True)
        per = max(actions, 1)
        return {
            "exec_ms_per_action": round(sum(r[0] for r in rows) / per, 3),
            "calls_per_action": round(sum(r[1] for r in rows) / per, 2),
            "top": [
                {"query": q, "calls_per_action": round(c / per, 3), "exec_ms_per_action": round(ms / per, 4)}
                for ms, c, q in rows[:top]
            ],
        }
