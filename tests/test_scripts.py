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


def test_the_review_benchmark_resumes_a_stopped_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bench/review.py writes each finished deal at once; --resume runs only the missing deals (a
    line cut short by a stop is run again), and --report reads the file alone."""
    import json

    bench = _load("bench/review.py")
    out = tmp_path / "run.jsonl"
    common = ["--iterations", "4", "--replays", "2", "--out", str(out)]
    assert bench.main(["--deals", "2", *common]) == 0
    first = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["deal"] for r in first) == [0, 1]
    assert all(len(f["lost_played"]) == len(f["lost_best"]) == 2 for r in first for f in r["flags"])
    capsys.readouterr()
    with out.open("a") as f:  # a stop in the middle of writing deal 2
        f.write('{"deal": 2, "iterat')
    assert bench.main(["--deals", "3", "--resume", *common]) == 0
    err = capsys.readouterr().err
    assert "2 deals already" in err and "1 to go" in err
    rows = [json.loads(line) for line in out.read_text().splitlines()]  # the cut line is gone
    assert [r["deal"] for r in rows] == [0, 1, 2] and rows[:2] == first  # the finished deals were not run again
    assert bench.main(["--deals", "3", "--report", *common]) == 0
    assert "3 deals" in capsys.readouterr().out
    for bad in (
        ["--deals", "3", *common],
        ["--deals", "0", "--out", str(tmp_path / "x")],
        ["--report", "--out", str(tmp_path / "none.jsonl")],
        ["--resume", "--iterations", "5", "--out", str(out)],
    ):
        with pytest.raises(SystemExit) as stop:
            bench.main(bad)
        assert stop.value.code not in (0, None), bad
        capsys.readouterr()


def test_the_expert_bounds_see_the_true_deal_and_refuse_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    """bench/expert_bounds.py: the seeing search is handed the true deal itself, and runs."""
    from getaway import Deal, Rules, player_view

    bench = _load("bench/expert_bounds.py")
    deal = Deal(Rules.profile("punjab", players=4), 0, 7)
    seeing = bench.SeeingExpert(iterations=4)
    seeing.truth = deal
    world = seeing._world(player_view(deal, 0), None)
    assert world is not deal and all(world.hand_mask(s) == deal.hand_mask(s) for s in range(4))
    assert bench.main(["--deals", "2", "-w", "1", "--iterations", "2"]) == 0
    assert "seeing against 3 heuristics, seed 1: lost " in capsys.readouterr().out
    for bad in (["--deals", "0"], ["-n", "2"], ["--bot", "nobody"]):
        with pytest.raises(SystemExit) as stop:
            bench.main(bad)
        assert stop.value.code == 2, bad
        assert "error:" in capsys.readouterr().err


def test_the_decision_rules_of_the_expert_decisions_bench() -> None:
    """bench/expert_decisions.py's rules: the mean keeps the heuristic's choice within the margin;
    the sign test leaves it only when the best action wins in t more worlds than it loses."""
    bench = _load("bench/expert_decisions.py")
    rows = [[1.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]  # action 1 wins one world more (net)
    assert bench.mean_rule(rows, h=0) == 1 and bench.mean_rule(rows, h=0, margin=0.3) == 0
    assert bench.sign_rule(rows, h=0, t=1) == 1 and bench.sign_rule(rows, h=0, t=2) == 0
    log = [{"heuristic": 0, "played": 1, "true": [True, False]}, {"heuristic": 0, "played": 0, "true": [False, True]}]
    assert bench.best_true(log[0]) == 1 and bench.best_true(log[1]) == 0
    line = bench.score(log, lambda d: d["played"])
    assert "true losses     0" in line and "good    1, bad    0, net   +1" in line
    assert bench.main(["--deals", "1", "--worlds", "2", "-w", "1"]) == 0
    with pytest.raises(SystemExit) as stop:
        bench.main(["--worlds", "0"])
    assert stop.value.code == 2
