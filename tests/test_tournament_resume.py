"""Resumable tournaments: partial results per duplicate set, a rerun continues from them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from getaway import Rules
from getaway.sim import tournament
from getaway.sim.tournament import ResumeError, run_tournament
from getaway.text.cli import cli

RULES = Rules.profile("punjab", players=3, takes="off")
LINEUP = ("heuristic", "random", "style:hoarder")


def _outcomes(result):
    return [(r.job.bots, r.job.seed, r.loser, r.places) for r in result.results]


def _counting(monkeypatch):
    played = []
    real = tournament.run_jobs

    def run_jobs(jobs, **kw):
        played.extend(jobs)
        return real(jobs, **kw)

    monkeypatch.setattr(tournament, "run_jobs", run_jobs)
    return played


def test_rerun_continues_from_the_partial_file(tmp_path, monkeypatch):
    whole = run_tournament(RULES, LINEUP, 15, seed=4)  # 5 sets of 3 deals
    path = tmp_path / "partial.jsonl"
    first = run_tournament(RULES, LINEUP, 15, seed=4, resume=path)
    assert _outcomes(first) == _outcomes(whole)
    lines = path.read_text().splitlines()
    assert len(lines) == 6 and json.loads(lines[0])["lineup"] == list(LINEUP)
    # an interrupted run: two sets finished, the third cut short mid-line
    path.write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])
    played = _counting(monkeypatch)
    again = run_tournament(RULES, LINEUP, 15, seed=4, resume=path)
    assert len(played) == 9  # only the three missing sets were played
    assert _outcomes(again) == _outcomes(whole)
    assert [s.losses for s in again.stats] == [s.losses for s in whole.stats]
    assert len(path.read_text().splitlines()) == 6 and path.read_text().endswith("\n")
    played.clear()
    run_tournament(RULES, LINEUP, 15, seed=4, resume=path)  # all done: nothing to play
    assert played == []


def test_a_file_of_another_tournament_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "partial.jsonl"
    run_tournament(RULES, LINEUP, 6, seed=4, resume=path)
    before = path.read_bytes()
    with pytest.raises(ResumeError, match="seed"):
        run_tournament(RULES, LINEUP, 6, seed=5, resume=path)
    with pytest.raises(ResumeError, match="lineup"):
        run_tournament(RULES, ("random", "random", "heuristic"), 6, seed=4, resume=path)
    assert path.read_bytes() == before
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(ResumeError, match="not a partial-results file"):
        run_tournament(RULES, LINEUP, 6, seed=4, resume=bad)


def test_a_finished_run_extends_to_more_deals_and_not_fewer(tmp_path, monkeypatch):
    path = tmp_path / "partial.jsonl"
    run_tournament(RULES, LINEUP, 6, seed=4, resume=path)  # 2 sets
    played = _counting(monkeypatch)
    longer = run_tournament(RULES, LINEUP, 15, seed=4, resume=path)
    assert len(played) == 9  # only sets 3–5 were played
    assert _outcomes(longer) == _outcomes(run_tournament(RULES, LINEUP, 15, seed=4))
    assert json.loads(path.read_text().splitlines()[0])["deals"] == 15
    before = path.read_bytes()
    with pytest.raises(ResumeError, match="longer run"):
        run_tournament(RULES, LINEUP, 6, seed=4, resume=path)
    assert path.read_bytes() == before


def test_cli_resume(tmp_path):
    path = tmp_path / "t.jsonl"
    args = [
        "tournament",
        "-n",
        "3",
        "-o",
        "takes=off",
        "--bots",
        ",".join(LINEUP),
        "--deals",
        "6",
        "-q",
        "--lang",
        "en",
    ]
    one = CliRunner().invoke(cli, [*args, "--resume", str(path)], catch_exceptions=False)
    assert one.exit_code == 0, one.output
    two = CliRunner().invoke(cli, [*args, "--resume", str(path)], catch_exceptions=False)
    assert [line.split()[:5] for line in two.output.splitlines()[2:]] == [
        line.split()[:5] for line in one.output.splitlines()[2:]
    ]
    other = CliRunner().invoke(cli, [*args, "--seed", "9", "--resume", str(path)])
    assert other.exit_code == 2 and "another tournament" in other.output
