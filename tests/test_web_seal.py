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
