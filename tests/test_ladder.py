"""``getaway ladder`` (sim/ladder.py): mixed tables, OpenSkill ratings, own bots by path."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from getaway import Rules
from getaway.sim.ladder import ladder_tables, rate, run_ladder
from getaway.text.cli import cli

RULES = Rules.profile("punjab", players=3, takes="off")


def test_tables_are_mixed_and_balanced():
    tables = ladder_tables(["a", "b", "c", "d", "e"], 3, 50, seed=2)
    assert all(len(set(t)) == 3 for t in tables)
    counts = [sum(b in t for t in tables) for b in "abcde"]
    assert max(counts) - min(counts) <= 2 and sum(counts) == 150
    assert tables == ladder_tables(["a", "b", "c", "d", "e"], 3, 50, seed=2)


def test_the_stronger_bot_rates_higher_and_workers_do_not_matter():
    bots = ["heuristic", "random", "style:lowest", "getaway.bots.styles:Hoarder"]
    one = run_ladder(RULES, bots, tables=24, seed=3)
    assert one.ratings[0].bot == "heuristic" and one.ratings[0].ordinal > one.ratings[1].mu - 3 * one.ratings[1].sigma
    assert sum(r.deals for r in one.ratings) == 24 * 3 * 3
    assert all(0 < r.sigma < 25 / 3 for r in one.ratings)  # every deal narrowed the uncertainty
    two = run_ladder(RULES, bots, tables=24, seed=3, workers=2)
    assert [(r.bot, round(r.mu, 9)) for r in two.ratings] == [(r.bot, round(r.mu, 9)) for r in one.ratings]


def test_rate_follows_the_places():
    result = run_ladder(RULES, ["heuristic", "random", "style:lowest"], tables=1, seed=1)
    ratings = {r.bot: r for r in rate(["heuristic", "random", "style:lowest"], result.results[:1])}
    first = result.results[0]
    best = first.job.bots[first.places.index(1)]
    worst = first.job.bots[first.loser]
    assert ratings[best].mu > 25 > ratings[worst].mu


def test_bad_ladders_are_refused():
    with pytest.raises(ValueError, match="at least 3 different bots"):
        run_ladder(RULES, ["heuristic", "random", "random"], tables=2)
    with pytest.raises(ValueError, match="tables"):
        run_ladder(RULES, ["heuristic", "random", "easy"], tables=0)


def test_cli_ladder():
    args = ["ladder", "-n", "3", "-o", "takes=off", "--tables", "4", "-w", "1", "-q", "--lang", "en"]
    out = CliRunner().invoke(
        cli, [*args, "--bots", "heuristic,random,getaway.bots.styles:Lowest"], catch_exceptions=False
    )
    assert out.exit_code == 0, out.output
    assert "getaway.bots.styles:Lowest" in out.output and "OpenSkill" in out.output
    bad = CliRunner().invoke(cli, [*args, "--bots", "heuristic,random"])
    assert bad.exit_code == 2 and "at least 3 different bots" in bad.output
