"""The tutorial (issue 16, item 3): getaway.text.lessons and ``getaway learn``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from getaway.text.cli import cli
from getaway.text.lessons import LESSONS, attempt


def test_there_are_the_lessons_the_issue_asks_for():
    keys = set(LESSONS)
    assert len(keys) >= 8
    for key in (
        "punjab-tochoo",
        "punjab-who-picks-up",
        "punjab-first-trick",
        "punjab-get-away",
        "punjab-blind-draw",
        "punjab-take",
        "classic-follow-suit",
        "classic-void-pickup",
    ):
        assert key in keys
    assert any(key.startswith("tip-") for key in keys)
    assert {lesson.profile for lesson in LESSONS.values()} == {"punjab", "classic"}


@pytest.mark.parametrize("key", list(LESSONS))
def test_every_lesson_starts_at_the_learners_turn_and_can_be_won(key):
    lesson = LESSONS[key]
    deal = lesson.start()
    assert deal.to_act == lesson.seat and not deal.is_over
    verdicts = {str(a): attempt(lesson, [str(a)]).verdict for a in deal.legal_actions()}
    assert "success" in verdicts.values(), verdicts
    # a card the learner does not hold is refused by the engine, with its reason, and changes nothing
    foreign = next(c for c in ("2♣", "A♥", "K♣", "Q♥") if c not in sum(lesson.hands, ()))
    refused = attempt(lesson, [foreign])
    assert refused.verdict == "illegal" and "does not hold" in refused.message
    assert refused.deal.event_count == deal.event_count


@pytest.mark.parametrize(
    ("key", "bad", "verdict"),
    [
        ("punjab-who-picks-up", "K♦", "failure"),
        ("classic-void-pickup", "4♥", "failure"),
        ("punjab-take", "pass", "failure"),
        ("tip-short-suit", "5♥", "wrong"),
        ("punjab-first-trick", "K♥", "illegal"),
        ("classic-follow-suit", "K♦", "illegal"),
        ("punjab-tochoo", "not a card", "illegal"),
    ],
)
def test_the_engine_judges_a_wrong_move(key, bad, verdict):
    result = attempt(LESSONS[key], [bad])
    assert result.verdict == verdict
    assert result.message


def test_the_outcome_is_read_from_the_engine():
    win = attempt(LESSONS["punjab-who-picks-up"], ["4♦"])
    assert any(e.kind == "pickup" and e.seat == 1 for e in win.deal.events)
    away = attempt(LESSONS["punjab-get-away"], ["3♥"])
    assert away.verdict == "success" and away.deal.out_mask >> 2 & 1
    drew = attempt(LESSONS["punjab-blind-draw"], ["K♥"])
    assert drew.verdict == "success" and any(e.kind == "draw" and e.seat == 3 for e in drew.deal.events)


def run(*args: str, input: str = ""):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_getaway_learn_lists_runs_and_retries_a_lesson():
    out = run("learn", input="3\nK♦\n4♦\n")
    assert out.exit_code == 0, out.output
    assert "Who picks up" in out.output and "Tip: empty a short suit early" in out.output
    assert "you picked up" in out.output and "Try again." in out.output
    assert out.output.rstrip().endswith("so its player picked up, not you.")
    illegal = run("learn", "punjab-first-trick", input="K♥\n9♠\n")
    assert "must play a spade" in illegal.output.lower() or "spade" in illegal.output
    assert "nobody picks up" in illegal.output


def test_getaway_learn_speaks_the_learners_language():
    out = run("learn", "classic-void-pickup", "--lang", "es", input="9♣\n")
    assert out.exit_code == 0, out.output
    assert "Sal con trébol" in out.output and "recogió la baza" in out.output


def test_getaway_learn_refuses_an_unknown_lesson():
    bad = run("learn", "chess")
    assert bad.exit_code == 2 and "no lesson 'chess'" in bad.output
