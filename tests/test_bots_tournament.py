"""The tournament harness: duplicate rotation, worker independence, the command line."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from getaway import Rules
from getaway.sim.tournament import make_jobs, rotations, run_tournament, wilson
from getaway.text.cli import cli


def test_rotation_puts_every_bot_in_every_seat_for_each_seed():
    lineup = ["heuristic", "random", "random", "expert"]
    rots = rotations(lineup)
    assert len(rots) == 4
    for seat in range(4):
        assert sorted(r[seat] for r in rots) == sorted(lineup)
    jobs = make_jobs(Rules.profile("punjab", takes="off"), lineup, deals=8, seed=3)
    assert len(jobs) == 8
    by_seed: dict[int, list] = {}
    for job in jobs:
        by_seed.setdefault(job.seed, []).append(job)
    assert len(by_seed) == 2
    for same in by_seed.values():
        assert len({j.dealer for j in same}) == 1  # the same deal, rotated
        assert sorted(j.bots for j in same) == sorted(rots)


def test_deals_round_up_to_whole_rotations():
    result = run_tournament(Rules.profile("punjab", players=3, takes="off"), ["heuristic", "random", "random"], 5)
    assert result.deals == 6 and result.seeds == 2
    heuristic, random_ = result.stats
    assert heuristic.deals == 6 and random_.deals == 12 and random_.seats == 2
    assert heuristic.losses + random_.losses == 6  # punjab: exactly one loser per deal


def test_workers_do_not_change_results():
    rules = Rules.profile("classic", players=4)
    lineup = ["heuristic", "random", "random", "random"]
    one = run_tournament(rules, lineup, 16, seed=5, workers=1)
    two = run_tournament(rules, lineup, 16, seed=5, workers=2)
    assert [(r.job, r.loser, r.places) for r in one.results] == [(r.job, r.loser, r.places) for r in two.results]
    assert [(s.losses, s.avg_place) for s in one.stats] == [(s.losses, s.avg_place) for s in two.stats]


def test_wilson_interval():
    lo, hi = wilson(0, 50)
    assert lo == 0.0 and 0.05 < hi < 0.08
    lo, hi = wilson(25, 100)
    assert lo < 0.25 < hi and round(hi - lo, 2) == 0.17


def test_cli_tournament_writes_json_and_csv(tmp_path):
    out_json, out_csv = tmp_path / "t.json", tmp_path / "t.csv"
    result = CliRunner().invoke(
        cli,
        [
            "tournament",
            "--profile",
            "punjab",
            "-n",
            "3",
            "--bots",
            "heuristic,random,random",
            "--deals",
            "6",
            "--workers",
            "1",
            "--json",
            str(out_json),
            "--csv",
            str(out_csv),
            "-o",
            "takes=off",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "heuristic" in result.output and "95% CI" in result.output
    data = json.loads(out_json.read_text())
    assert data["deals"] == 6 and data["rotations"] == 3 and data["lineup"] == ["heuristic", "random", "random"]
    assert {s["bot"] for s in data["stats"]} == {"heuristic", "random"}
    assert all(0 <= s["ci_low"] <= s["loss_rate"] <= s["ci_high"] <= 1 for s in data["stats"])
    rows = list(csv.DictReader(out_csv.open()))
    assert [r["bot"] for r in rows] == ["heuristic", "random"] and rows[0]["profile"] == "punjab"


def test_cli_tournament_bad_options_exit_2_with_one_line():
    runner = CliRunner()
    for args in (
        ["--bots", "heuristic,random"],  # 2 bots for 4 players
        ["--bots", "wizard,random,random,random"],
        ["-o", "trump=clubs"],
        ["--deals", "0"],
        ["--workers", "0"],
        ["-o", "nonsense"],
    ):
        result = runner.invoke(cli, ["tournament", *args])
        assert result.exit_code == 2, (args, result.output)
        errors = [line for line in result.output.splitlines() if "rror" in line]
        assert len(errors) == 1, (args, result.output)


def test_tournament_cli_refuses_players_in_options_and_bad_output_paths(tmp_path):
    from click.testing import CliRunner

    from getaway.text.cli import cli

    for args in (["-o", "players=5"], ["-o", "colour=red"], ["--json", str(tmp_path / "no" / "x.json")]):
        res = CliRunner().invoke(cli, ["tournament", "--deals", "4", *args])
        assert res.exit_code == 2, res.output
        assert "Traceback" not in res.output and len(res.output.strip().splitlines()) <= 3


def test_a_small_tournament_on_ray_matches_one_worker():
    ray = pytest.importorskip("ray")
    from getaway.sim.tournament import run_tournament

    rules = Rules.profile("punjab", players=3, takes="off")
    lineup = ["heuristic", "random", "random"]
    local = run_tournament(rules, lineup, deals=6, seed=4, workers=1)
    try:
        remote = run_tournament(rules, lineup, deals=6, seed=4, workers=2, backend="ray")
    finally:
        ray.shutdown()
    strip = [(s.bot, s.deals, s.losses, s.avg_place) for s in local.stats]
    assert strip == [(s.bot, s.deals, s.losses, s.avg_place) for s in remote.stats]
