"""A bot and a hinter for the bot worker tests (tests/test_web_botpool.py), in a module of its
own: a worker process imports it to build the bot (:func:`getaway.web.botpool.spec_of`) or to
run the hinter, and nothing else."""

from __future__ import annotations

import time

from getaway.bots.settings import Setting


class SleepyBot:
    """A searching bot (it has a ``time_limit``) whose first ``slow`` searches in each process
    take ``seconds``; it then plays a legal action at random. Importable by name, so a worker
    process builds it from its settings (:func:`getaway.web.botpool.spec_of`)."""

    name = "sleepy"
    SETTINGS = (
        Setting("seconds", float, 1.0),
        Setting("slow", int, 1_000_000),
        Setting("time_limit", float, None, optional=True, per_search=True),
    )

    def __init__(self, seconds: float = 1.0, slow: int = 1_000_000, time_limit: float | None = None) -> None:
        self.seconds = seconds
        self.slow = slow
        self.time_limit = time_limit
        self.calls = 0

    def act(self, view, legal, rng):
        self.calls += 1
        if self.calls <= self.slow:
            time.sleep(self.seconds)
        return legal[rng.randrange(len(legal))]


def sleepy_hint(view, seed):
    """A hinter for :class:`getaway.web.botpool.BotPool` (``hinter=``) whose search takes a
    second: the first legal action, no reason."""
    time.sleep(1.0)
    return view.legal_actions[0], "", "sleepy"


def broken_hint(view, seed):
    """A hinter whose search fails with a message naming a card of the hand (which no log
    line may repeat)."""
    raise ValueError(f"cannot hint with {view.hand[0]} in hand")
