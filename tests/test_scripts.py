"""The example and benchmark scripts of the AI environments run, and refuse bad arguments
with a usage error (not a traceback)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(relative: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(Path(relative).stem, ROOT / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ismcts_example_plays_and_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    example = _load("examples/ismcts_vs_expert.py")
    assert example.main(["--deals", "1", "--players", "3", "--simulations", "3", "--bot", "heuristic"]) == 0
    assert "ISMCTS loss rate" in capsys.readouterr().out
    for bad in (["--deals", "0"], ["--simulations", "0"], ["--players", "2"], ["--bot", "nobody"]):
        with pytest.raises(SystemExit) as stop:
            example.main(bad)
        assert stop.value.code == 2, bad  # argparse's usage error
        assert "error:" in capsys.readouterr().err


def test_the_environments_benchmark_runs_and_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load("bench/envs.py")
    assert bench.main(["--seconds", "0.05", "--rounds", "1", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "engine, numpy masks" in out and "engine, apply_id + numpy masks" in out and "target (issue 12)" in out
    for bad in (["--players", "2"], ["--rounds", "0"]):
        with pytest.raises(SystemExit) as stop:
            bench.main(bad)
        assert stop.value.code == 2, bad


def test_the_search_benchmark_runs_and_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load("bench/search.py")
    assert bench.main(["--seconds", "0.01", "--rounds", "1", "--players", "3", "--exact-cards", "5"]) == 0
    out = capsys.readouterr().out
    assert "exact endgame" in out and "undo/clone" in out
    for bad in (["--players", "2"], ["--rounds", "0"]):
        with pytest.raises(SystemExit) as stop:
            bench.main(bad)
        assert stop.value.code == 2, bad
