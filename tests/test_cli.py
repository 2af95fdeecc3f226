"""The command line: demo, replay (--json), and clear one-line errors."""

from __future__ import annotations

import json

from click.testing import CliRunner

from getaway.text.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_demo_is_seeded_and_ends_with_the_loser():
    a, b = run("demo", "--seed", "4"), run("demo", "--seed", "4")
    assert a.exit_code == 0
    assert a.output == b.output
    assert "Trick 1" in a.output and "A♠" in a.output
    assert "Loser: " in a.output.splitlines()[-1]
    assert run("demo", "--seed", "5").output != a.output


def test_demo_accepts_options_and_refuses_bad_ones():
    ok = run("demo", "--profile", "classic", "-n", "3", "-o", "trump=spades", "-o", "uneven=strip")
    assert ok.exit_code == 0, ok.output
    bad = run("demo", "-n", "9")
    assert bad.exit_code == 2 and "players" in bad.output
    bad = run("demo", "-o", "colour=red")
    assert bad.exit_code == 2 and "colour" in bad.output
    bad = run("demo", "-o", "trump")
    assert bad.exit_code == 2 and "NAME=VALUE" in bad.output


def test_replay_json_matches_the_demo(tmp_path):
    path = tmp_path / "game.json"
    out = run("demo", "--seed", "8", "--record", str(path))
    assert out.exit_code == 0
    res = run("replay", str(path), "--json")
    assert res.exit_code == 0
    summary = json.loads(res.output)
    for key in ("finished", "loser", "out_order", "to_act", "leader", "hands", "waste_size", "trick", "events"):
        assert key in summary
    assert summary["finished"] is True
    names = json.loads(path.read_text(encoding="utf-8"))["players"]
    assert f"Loser: {names[summary['loser']]}" in out.output
    assert run("replay", str(path), "--json").output == res.output  # byte-identical
    text = run("replay", str(path))
    assert text.exit_code == 0 and "loses" in text.output


def test_replay_errors_are_one_line(tmp_path):
    path = tmp_path / "game.json"
    run("demo", "--seed", "8", "--record", str(path))
    record = json.loads(path.read_text(encoding="utf-8"))
    record["actions"].insert(2, {"seat": record["actions"][0]["seat"], "play": "A♠"})
    record.pop("result")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record), encoding="utf-8")
    res = CliRunner().invoke(cli, ["replay", str(bad), "--json"])
    assert res.exit_code == 1
    assert "actions[2]" in res.output and "Traceback" not in res.output
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    res = CliRunner().invoke(cli, ["replay", str(broken)])
    assert res.exit_code == 2 and "not valid JSON" in res.output and len(res.output.strip().splitlines()) == 1
    res = CliRunner().invoke(cli, ["replay", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "cannot read" in res.output
