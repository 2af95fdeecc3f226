"""The strategy lab (sim/lab.py, ``getaway lab``): each tip's switch in the heuristic really
changes play where the tip decides, the twin deals are paired, and a tiny lab writes a report of
the right shape with its PNG charts, continuing from its partial results when rerun."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from conftest import make_deal, play_all
from getaway import Deal, Rules, player_view
from getaway.bots import make_bot
from getaway.bots.heuristic import HeuristicBot
from getaway.bots.tips import TIPS
from getaway.core.cards import Card
from getaway.sim.lab import run_lab, seat_losses, verdict
from getaway.sim.stats import bootstrap_mean
from getaway.sim.tournament import run_tournament
from getaway.text.cli import cli

OTHERS = ["7S 8S 9S TS JS QS", "6H 7H 8H TH JH QH", "6S 5S 4S 3S 2S AS"]


def _deal(hands: list[str], profile: str = "punjab", played: str = "", **options: object) -> Deal:
    """A position after the first trick: ``hands``, four unused cards in the waste, then ``played``."""
    used = {Card.parse(c) for h in hands for c in h.split()}
    waste = [str(c) for c in map(Card, range(52)) if c not in used][:4]
    deal = make_deal(hands, profile=profile, waste=waste, **options)
    play_all(deal, played)
    return deal


#: For each tip, a position where it decides the move, and the move it makes there.
POSITIONS = {
    # hearts hold the most rank points: lead their top (the heuristic sheds the lone 9♦)
    "lead-strong": (lambda: _deal(["2H 3H 4H 5H 9D 4C", *OTHERS]), "5H"),
    # clubs are the shortest suit (the heuristic sheds K♦)
    "void-short": (lambda: _deal(["5C JD QD KD 2H 3H", *OTHERS]), "5C"),
    # a tochoo on 5♥: keep the ace back (the heuristic sheds A♣, its most dangerous card)
    "keep-high": (lambda: _deal(["5H 7S 8S", "AC KD 5D", "9H 2D", "TH 4D"], played="5H"), "KD"),
    # seat 2 is proven void in hearts: lead one (the heuristic dumps K♦)
    "count-voids": (
        lambda: _deal(["5H 7S 8S", "9H 2C 3C 4C 6C", "KD 2D 3D", "TH 4D 5D"], played="5H 9H KD"),
        "5H",
    ),
    # a one-card trick: go over it to pick it up (the heuristic stays under with 2♥)
    "pickup-short": (lambda: _deal(["5H 7S 8S", "2H KH 5D", "9H 2D", "TH 4D"], played="5H"), "KH"),
    # classic, five cards left: lead the top of a short suit (the heuristic leads low from clubs)
    "late-high": (lambda: _deal(["2C 3C 4C QD 9H", *OTHERS], profile="classic"), "QD"),
}


def _move(bot, deal: Deal) -> str:
    view = player_view(deal, deal.to_act)
    return str(bot.act(view, view.legal_actions, random.Random(0)))


def test_every_tip_has_a_position():
    assert set(POSITIONS) == set(TIPS)


@pytest.mark.parametrize("tip", sorted(TIPS))
def test_the_tip_switch_changes_the_heuristics_move_where_the_tip_decides(tip):
    build, expected = POSITIONS[tip]
    want = str(Card.parse(expected))
    on = _move(HeuristicBot(tips=tip), build())
    off = _move(HeuristicBot(), build())
    assert on == want and off != want
    assert _move(make_bot(f"heuristic:tips={tip}"), build()) == want  # by name, as the lab seats it
    assert _move(make_bot(f"style:{tip}"), build()) == want  # the style plays the same tip code
    view = player_view(build(), build().to_act)
    action, why = HeuristicBot(tips=tip).choose(view, view.legal_actions)
    assert str(action) == want
    assert tip in why or tip == "keep-high"  # keep-high only narrows the cards: the heuristic's reason


def test_pickup_short_switch_picks_up_rather_than_ruff_in_classic():
    def build() -> Deal:
        return _deal(["5H 7H 8S", "2S KS 5D", "9H 2D", "TH 4D"], profile="classic", trump="spades", played="5H")

    assert _move(HeuristicBot(tips="pickup-short"), build()) == "pickup"
    assert _move(HeuristicBot(), build()) == str(Card.parse("2S"))


def test_unknown_tip_is_refused_by_name():
    with pytest.raises(ValueError, match="'lead-weak'"):
        HeuristicBot(tips="keep-high/lead-weak")
    with pytest.raises(ValueError, match="lead-strong, void-short"):
        make_bot("heuristic:tips=nosuch")


def test_on_and_off_tournaments_are_twin_deals_with_the_tested_seat_at_the_rotation():
    rules = Rules.profile("punjab", players=4)
    on = run_tournament(rules, ["heuristic:tips=keep-high", *["heuristic"] * 3], 16)
    off = run_tournament(rules, ["heuristic"] * 4, 16)
    for i, (a, b) in enumerate(zip(on.results, off.results, strict=True)):
        assert (a.job.seed, a.job.dealer) == (b.job.seed, b.job.dealer)
        assert a.job.bots[i % 4] == "heuristic:tips=keep-high"
    losses = seat_losses(on.results, 4)
    assert len(losses) == 4 and sum(map(sum, losses)) == on.stats[0].losses


def test_bootstrap_interval_of_a_mean():
    values = [0.0] * 70 + [1.0] * 30
    low, high = bootstrap_mean(values)
    assert low < 0.3 < high and 0.08 < high - low < 0.25
    assert bootstrap_mean(values) == (low, high)  # seeded
    wide = bootstrap_mean([0.0] * 7 + [1.0] * 3)
    assert wide[1] - wide[0] > high - low  # fewer sets, wider interval
    assert bootstrap_mean([0.25] * 20) == (0.25, 0.25)
    with pytest.raises(ValueError, match="level"):
        bootstrap_mean(values, level=1.0)


def test_verdict_reads_the_interval():
    assert verdict(-0.05, -0.01) == "helps" and verdict(0.01, 0.03) == "hurts"
    assert verdict(-0.01, 0.02) == "no clear effect"


def test_tiny_lab_writes_the_report_its_charts_and_resumes(tmp_path):
    out = tmp_path / "lab"
    args = ["lab", "--profiles", "punjab", "--players", "4", "--tips", "keep-high,late-high", "--deals", "8"]
    args += ["--workers", "1", "--out", str(out), "--lang", "en"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "punjab 4p keep-high: loss" in result.output
    report = (out / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# Strategy lab")
    assert "## punjab, 4 players" in report and "## Which tips help, which hurt" in report
    rows = [line for line in report.splitlines() if line.startswith("| keep-high") or line.startswith("| late-high")]
    assert len(rows) == 2 and all(row.count("|") == 8 for row in rows)
    assert "--tips keep-high,late-high --deals 8" in report
    for chart in ("effects.png", "loss_rates.png"):
        data = (out / chart).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
        assert f"({chart})" in report
    data = json.loads((out / "lab.json").read_text(encoding="utf-8"))
    assert [(e["tip"], e["deals"], e["sets"]) for e in data["effects"]] == [("keep-high", 8, 2), ("late-high", 8, 2)]
    assert sorted(p.name for p in (out / "partial").iterdir()) == [
        "punjab-4p-keep-high.jsonl",
        "punjab-4p-late-high.jsonl",
        "punjab-4p-off.jsonl",
    ]
    # rerun: everything is read back from the partial results, the same report comes out
    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 0 and json.loads((out / "lab.json").read_text())["effects"] == data["effects"]
    # more deals on the same folder extend the lab (the sets so far are read back); fewer are
    # refused, naming the folder option
    longer = CliRunner().invoke(cli, [*args[:-6], "--deals", "12", "--workers", "1", "--out", str(out), "--lang", "en"])
    assert longer.exit_code == 0, longer.output
    effects = json.loads((out / "lab.json").read_text())["effects"]
    assert [(e["tip"], e["deals"], e["sets"]) for e in effects] == [("keep-high", 12, 3), ("late-high", 12, 3)]
    shorter = CliRunner().invoke(cli, args)
    assert shorter.exit_code == 2 and "--out" in shorter.output and "longer run" in shorter.output
    other = CliRunner().invoke(cli, [*args[:-6], "--deals", "12", "--workers", "1", "--out", str(out), "--lang", "en"])
    assert other.exit_code == 0  # the same longer lab again: all read back


def test_lab_refuses_bad_arguments(tmp_path):
    out = str(tmp_path / "x")
    for extra, needle in (
        (["--tips", "lead-weak"], "lead-weak"),
        (["--profiles", "bridge"], "bridge"),
        (["--players", "four"], "four"),
        (["--deals", "0"], "--deals"),
        (["--against", "nosuch"], "nosuch"),
    ):
        result = CliRunner().invoke(cli, ["lab", *extra, "--out", out, "--lang", "en"])
        assert result.exit_code == 2 and needle in result.output, (extra, result.output)
    with pytest.raises(ValueError, match="deals"):
        run_lab(["punjab"], [4], ["keep-high"], deals=0, out=out)
