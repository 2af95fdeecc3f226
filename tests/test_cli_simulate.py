"""``getaway simulate``, ``replay`` (step by step, as one seat saw it) and ``rules``."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from getaway.sim.stats import wilson
from getaway.text.cli import cli


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_simulate_is_seeded_and_summarizes():
    args = ("simulate", "-d", "40", "--seed", "5", "--bots", "easy,medium,easy,medium", "-w", "1", "--lang", "en")
    a, b = run(*args), run(*args)
    assert a.exit_code == 0, a.output
    assert a.output == b.output
    for text in ("40 deals, punjab profile, 4 players", "Loss rate per seat", "Loss rate per bot", "Average deal"):
        assert text in a.output
    assert run("simulate", "-d", "40", "--seed", "6", "-w", "1").output != a.output


def test_simulate_on_two_workers_gives_the_same_summary():
    one = run("simulate", "-d", "24", "--seed", "2", "-w", "1", "--lang", "en")
    two = run("simulate", "-d", "24", "--seed", "2", "-w", "2", "--lang", "en")
    assert one.output == two.output


def test_simulate_matches_and_options():
    res = run("simulate", "--matches", "3", "-o", "deals=2", "--profile", "classic", "-n", "3", "-o", "trump=spades")
    assert res.exit_code == 0, res.output
    assert "6 deals, classic profile, 3 players" in res.output and "Matches lost" in res.output


def test_simulate_writes_jsonl_csv_and_png(tmp_path):
    jsonl, table, png = tmp_path / "r.jsonl", tmp_path / "r.csv", tmp_path / "r.png"
    res = run("simulate", "-d", "30", "-w", "1", "--out", str(jsonl), "--plot", str(png))
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 30 and {"seed", "loser", "tricks", "plays", "pickups", "takes"} <= set(rows[0])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert run("simulate", "-d", "30", "-w", "1", "--out", str(table)).exit_code == 0
    with table.open(encoding="utf-8") as fh:
        lines = list(csv.DictReader(fh))
    assert len(lines) == 30 and [r["loser"] for r in lines] == [str(r["loser"]) for r in rows]


@pytest.mark.parametrize(
    "args, word",
    [
        (["-d", "0"], "--deals"),
        (["--bots", "genius"], "genius"),
        (["--bots", "easy,easy"], "--bots"),
        (["--out", "x.txt"], "--out"),
        (["--plot", "x.jpg"], "--plot"),
        (["-o", "colour=red"], "colour"),
        (["-o", "nopickup=true", "-o", "kicker=true"], "nopickup+kicker"),
        (["-w", "0"], "--workers"),
        (["-d", "ten"], "--deals"),
    ],
)
def test_bad_simulate_options_are_one_line_and_exit_2(args, word):
    res = CliRunner().invoke(cli, ["simulate", *args])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and word in lines[0] and "error" in lines[0], res.output


def test_wilson_interval():
    lo, hi = wilson(0, 10)
    assert lo == 0 and 0.27 < hi < 0.29
    lo, hi = wilson(50, 100)
    assert abs((lo + hi) / 2 - 0.5) < 1e-9 and 0.40 < lo < 0.41


def test_replay_step_by_step_all_hands_and_one_seat(tmp_path):
    path = tmp_path / "game.json"
    assert run("demo", "--seed", "8", "--record", str(path)).exit_code == 0
    names = json.loads(path.read_text(encoding="utf-8"))["players"]
    full = run("replay", str(path), "--lang", "en")
    assert full.exit_code == 0 and "Trick 1" in full.output and "Trick 2" in full.output
    assert "loses" in full.output
    seat = run("replay", str(path), "--seat", "B", "--lang", "en")
    assert seat.exit_code == 0 and "hidden" in seat.output
    hands = [line for line in seat.output.splitlines() if line.startswith(f"  {names[0]}:")]
    assert hands and all("hidden" in h or "got away" in h for h in hands)  # A's cards never shown to B
    assert run("replay", str(path), "--seat", "9").exit_code == 2


def test_rules_command_adds_the_variants_given():
    plain = run("rules", "--lang", "en").output
    res = run("rules", "--lang", "en", "-o", "trump=spades", "-o", "dehla=true")
    assert res.exit_code == 0 and res.output.startswith(plain.rstrip("\n"))
    assert "In this game: spades are trumps (trump=spades)" in res.output and "In this game" not in plain
    assert "captures the tens" in res.output and "Joker (joker=true)" not in res.output
    assert run("rules", "-o", "trump=hearts").exit_code == 2


def test_rules_command_tells_who_may_take_and_how_an_uneven_pack_is_dealt():
    """R-P-TAKE's and R-UNEVEN's choices: the text never contradicts the game (issue 5's
    rules command, found by a fresh user: -o takes=off still explained taking)."""
    taking = "may take the whole hand of the next player"

    def rules(*args: str) -> str:
        res = run("rules", "--lang", "en", *args)
        assert res.exit_code == 0, res.output
        return " ".join(res.output.split())  # unwrapped

    assert taking in rules() and "In this game" not in rules()
    off = rules("-o", "takes=off")
    assert taking not in off and "no takes (takes=off)" in off
    leader = rules("-o", "takes=leader")
    assert leader.count(taking) == 1 and "only the leader takes (takes=leader)" in leader
    classic = rules("--profile", "classic")
    assert taking not in classic
    assert rules("--profile", "classic", "-o", "takes=any").count(taking) == 1
    both = rules("--profile", "classic", "-o", "takes=leader")
    assert both.count(taking) == 1 and "only the leader takes" in both
    assert "lowest cards are taken out" in rules("-o", "uneven=strip")
    assert "all the extra cards go to one player" in rules("-o", "uneven=loaded")


def test_rules_command():
    res = run("rules", "--lang", "en")
    assert res.exit_code == 0 and "tochoo" in res.output and "ace of spades" in res.output
    classic = run("rules", "--profile", "classic", "--lang", "en")
    assert "plays no card" in classic.output and "tochoo" not in classic.output.split("Tricks (classic)")[1]
