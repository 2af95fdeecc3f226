"""The cluster's message seal (web/redis_broker.py ``Seal``, issue 29 item 3): replays are refused
inside and behind the window of sequence numbers, and what a receiver remembers per sender stays
bounded (issue 26: the window is pruned in batches, not at every message)."""

from __future__ import annotations

import pytest

from getaway.web.redis_broker import REPLAY_WINDOW, Forged, Replayed, Seal

CHANNEL = "getaway:room:R1"


def _pair() -> tuple[Seal, Seal]:
    return Seal("s3cret-of-the-cluster", "p1"), Seal("s3cret-of-the-cluster", "p2")


def test_replays_are_refused_in_and_behind_the_window():
    sender, receiver = _pair()
    sent = [sender.seal(CHANNEL, {"t": "news", "code": "R1", "news": {"v": i}}) for i in range(3 * REPLAY_WINDOW)]
    for data in sent:
        receiver.open(CHANNEL, data)
    newest, window = receiver.seen["p1"]
    assert newest == 3 * REPLAY_WINDOW - 1
    assert len(window) <= 2 * REPLAY_WINDOW + 1  # bounded: pruned in batches
    for data in (sent[-1], sent[-REPLAY_WINDOW + 1], sent[-REPLAY_WINDOW - 1], sent[0], sent[REPLAY_WINDOW]):
        with pytest.raises(Replayed):
            receiver.open(CHANNEL, data)


def test_out_of_order_inside_the_window_is_heard_once():
    sender, receiver = _pair()
    sent = [sender.seal(CHANNEL, {"t": "news", "code": "R1", "news": {"v": i}}) for i in range(10)]
    for i in (0, 5, 9, 3, 1):
        assert receiver.open(CHANNEL, sent[i]).m.news.v == i
    with pytest.raises(Replayed):
        receiver.open(CHANNEL, sent[3])
    assert receiver.open(CHANNEL, sent[4]).m.news.v == 4


def test_another_channel_or_secret_is_forged():
    sender, receiver = _pair()
    data = sender.seal(CHANNEL, {"t": "news", "code": "R1", "news": {"v": 1}})
    with pytest.raises(Forged):
        receiver.open("getaway:room:R2", data)
    with pytest.raises(Forged):
        Seal("another-secret-entirely", "p3").open(CHANNEL, data)


def test_news_carries_log_entries_but_never_a_join_and_only_a_few():
    """The owner's news carries the entries written since the last one (issue 26: the mirrors
    apply them instead of reading the log); what crosses Redis is checked: a join's entry (its
    token hash) or more than NEWS_LOG entries are dropped as malformed."""
    from pydantic import ValidationError

    from getaway.web.broker import NEWS_LOG

    sender, receiver = _pair()
    entry = [7, "act", {"seat": 2, "action": "Q♥", "bot": True}, 1764892800.25]
    news = {"v": 7, "connected": [0], "log": [entry]}
    heard = receiver.open(CHANNEL, sender.seal(CHANNEL, {"t": "news", "code": "R1", "news": news}))
    assert heard.m.news.model_dump(exclude_unset=True)["log"] == [tuple(entry)]
    joined = [3, "join", {"seat": 1, "name": "Ben", "token_hash": "ab" * 32, "host": False}, 1764892800.0]
    too_many = [[v, "act", {"seat": 0, "action": "pass"}, 1.0] for v in range(1, NEWS_LOG + 2)]
    for log in ([joined], too_many, [[0, "act", {}, 1.0]], [[8, "act", {"seat": [1]}, 1.0]]):
        with pytest.raises(ValidationError):
            receiver.open(CHANNEL, sender.seal(CHANNEL, {"t": "news", "code": "R1", "news": {"v": 9, "log": log}}))
