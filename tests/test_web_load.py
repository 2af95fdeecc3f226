"""The web load script (bench/web_load.py, issue 6) runs end to end at a small size: rooms
finish, every socket sees every version, every record replays. Not a timing test: the
latencies are only reported (the target is for `bench/web_load.py` at 200 rooms)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SOAK

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "web_load.py"


@pytest.mark.soak
@pytest.mark.timeout(300)
def test_web_load_small():
    rooms = 5 * SOAK
    cmd = [sys.executable, str(SCRIPT), "--rooms", str(rooms), "--clients", "2", "--spectators", "2"]
    cmd += ["--deals", "2", "--json", "--timeout", "240"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=290)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert result["nothing_lost"], result["problems"]
    assert result["records_replayed"] == rooms * 2
    assert result["actions"] == result["actions_in_records"] > 0
    assert result["human_moves"] > 0 and result["latency_ms"]["p99"] > 0
    assert "bench/web_load.py" in result["rerun"]
