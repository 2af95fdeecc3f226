"""The review of a deal (issue 16, item 1): getaway.bots.review and ``getaway review``."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from getaway import Deal, Rules
from getaway.bots import HeuristicBot, play_deal
from getaway.bots.expert import ExpertBot
from getaway.bots.review import BLUNDER, MISTAKE, decisions_of, half_width, review_deal
from getaway.core.record import RecordError, record_of
from getaway.text.cli import cli


def _record(profile: str = "punjab", players: int = 4, seed: int = 1, **options: object) -> dict:
    deal = Deal(Rules.profile(profile, players=players, **options), 0, seed)
    play_deal(deal, [HeuristicBot()] * players, random.Random(seed))
    return record_of(deal)


def test_the_decisions_are_the_seats_own_with_a_choice_poll_passes_included():
    """Every decision the seat made with more than one legal action, the take poll's
    unrecorded passes (R-P-TAKE) too, and nothing else."""
    deal = Deal(Rules.profile("punjab", players=4), 0, 1)
    expected: list[tuple[int, str]] = []
    rng = random.Random(1)
    bot = HeuristicBot()
    from getaway import player_view

    while not deal.is_over:
        seat = deal.to_act
        view = player_view(deal, seat)
        action = bot.act(view, view.legal_actions, rng)
        if seat == 2 and len(view.legal_actions) > 1:
            expected.append((seat, str(action)))
        deal.apply(action, seat)
    record = record_of(deal)
    found = decisions_of(record, 2)
    assert [(seat, str(action)) for _i, _d, seat, action in found] == expected
    assert any(action == "pass" for _s, action in expected)  # the unrecorded poll passes are there
    assert all(d.to_act == 2 for _i, d, _s, _a in found)


def test_the_review_is_seeded_and_complete():
    record = _record("classic", seed=3)
    a = review_deal(record, 1, iterations=12)
    b = review_deal(record, 1, iterations=12)
    assert a == b
    assert len(a.decisions) == len(decisions_of(record, 1)) > 0
    for d in a.decisions:
        if d.losses:
            assert d.played in d.losses and d.best in d.losses
            assert d.losses[d.best] == min(d.losses.values())
            assert all(0 <= v <= 100 for v in d.losses.values())
            assert d.plus_minus[d.best] == pytest.approx(100 * half_width(d.losses[d.best] / 100, d.worlds))
    assert a.lost == (record["result"]["loser"] == 1)
    assert review_deal(record, 1, iterations=12, seed=99) != a


def test_the_expert_sees_only_the_seats_view(monkeypatch):
    """The search is given the reviewed seat's own view at each decision: its hand, never the others'."""
    record = _record("punjab", players=3, seed=4, takes="off")
    seen = []
    real = ExpertBot.estimate

    def spy(self, view, legal, rng):
        seen.append((view.seat, view.hand, view.hand_sizes))
        return real(self, view, legal, rng)

    monkeypatch.setattr(ExpertBot, "estimate", spy)
    review_deal(record, 0, iterations=6)
    assert seen and all(seat == 0 for seat, _h, _s in seen)
    for _seat, hand, sizes in seen:
        assert len(hand) == sizes[0]


@pytest.mark.parametrize(("gap", "mark"), [(0.0, ""), (MISTAKE - 0.5, ""), (MISTAKE, "mistake"), (BLUNDER, "blunder")])
def test_marks_follow_the_thresholds(monkeypatch, gap, mark):
    record = _record("classic", seed=5)

    def fixed(self, view, legal, rng):
        played_first = {a: 0.5 for a in legal}
        played_first[legal[-1]] = 0.5 - gap / 100  # the last legal action is best by ``gap`` points
        return played_first, 50

    monkeypatch.setattr(ExpertBot, "estimate", fixed)
    review = review_deal(record, 0, iterations=1)
    for d in review.decisions:
        if d.played == d.best:
            assert d.mark == ""
        else:
            assert d.cost == pytest.approx(gap) and d.mark == mark


def test_a_bad_seat_or_record_is_refused():
    record = _record("classic", seed=2)
    with pytest.raises(RecordError, match="seat 4 does not exist"):
        review_deal(record, 4)
    broken = dict(record, actions=[{"seat": 0, "play": "A♠"}] * 3)
    with pytest.raises(RecordError, match=r"actions\[\d\]"):
        review_deal(broken, 0, iterations=1)


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_the_cli_review_prints_a_table_and_json(tmp_path):
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(_record("classic", seed=6)), encoding="utf-8")
    out = run("review", str(path), "--seat", "B", "--iterations", "8")
    assert out.exit_code == 0, out.output
    assert "Review of seat B" in out.output and "mistake(s)" in out.output
    data = json.loads(run("review", str(path), "--seat", "2", "--iterations", "8", "--json").output)
    assert data["seat"] == 1 and data["decisions"]
    assert data == json.loads(run("review", str(path), "--seat", "B", "--iterations", "8", "--json").output)
    fr = run("review", str(path), "--seat", "B", "--iterations", "8", "--lang", "fr")
    assert fr.exit_code == 0 and "Analyse de la place B" in fr.output and "Review of seat" not in fr.output


def test_the_cli_review_refuses_bad_input(tmp_path):
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(_record("classic", seed=6)), encoding="utf-8")
    bad = run("review", str(path), "--seat", "Z")
    assert bad.exit_code == 2 and "--seat" in bad.output
    junk = tmp_path / "junk.json"
    junk.write_text("{not json", encoding="utf-8")
    res = run("review", str(junk), "--seat", "A")
    assert res.exit_code == 2 and "getaway review:" in res.output
