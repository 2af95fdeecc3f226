"""Heavy reads (issue 29, item 4; docs/web.md "Heavy reads"): replay frames, record downloads and
reviews share one budget per client address (429 with ``Retry-After`` past it, another address
still served); reviews are made in worker processes, off the server's event loop, at most
``review_workers`` at once with ``review_queue`` more waiting (503 beyond), one per address."""

from __future__ import annotations

import copy
import os
import random
import signal
import sys
import threading
import time
from typing import Any

from getaway import Deal, Rules
from getaway.bots import HeuristicBot, play_deal
from getaway.core.record import record_of
from web_helpers import make_client

A = {"X-Forwarded-For": "203.0.113.1"}
B = {"X-Forwarded-For": "203.0.113.2"}


def _record(seed: int = 5, profile: str = "classic") -> dict[str, Any]:
    deal = Deal(Rules.profile(profile, players=4), 0, seed)
    play_deal(deal, [HeuristicBot()] * 4, random.Random(seed))
    return record_of(deal)


def _client(**settings: Any) -> Any:
    # the tests name their client's address in X-Forwarded-For (the TestClient's peer is the proxy)
    return make_client(forwarded_allow_ips="testclient", **settings)


def _refused(res: Any, status: int, code: str) -> int:
    """The refusal's ``Retry-After`` (seconds) once its status, code and header are checked."""
    assert res.status_code == status, res.text
    assert res.json()["error"]["code"] == code
    wait = int(res.headers["retry-after"])
    assert wait >= 1
    return wait


def test_one_address_past_its_budget_gets_429_with_retry_after_and_another_is_served():
    record = _record()
    frame = {"record": record, "move": 3}
    with _client(heavy_reads_per_minute=5) as client:
        assert [client.post("/api/replay", json=frame, headers=A).status_code for _ in range(5)] == [200] * 5
        refused = client.post("/api/replay", json=frame, headers=A)
        wait = _refused(refused, 429, "rate_limited")
        assert wait <= 60  # the budget is a one-minute window
        message = refused.json()["error"]["message"]
        assert "replays" in message and f"{wait} s" in message, message
        french = client.post("/api/replay", json=frame, headers={**A, "Accept-Language": "fr"})
        assert french.status_code == 429 and "analyses" in french.json()["error"]["message"], french.text
        assert client.post("/api/replay", json=frame, headers=B).status_code == 200  # another address: served
        # a bad request past the budget is refused for the budget, and changed nothing
        assert client.post("/api/replay", json={"record": {}, "move": 0}, headers=A).status_code == 429


def test_replays_record_downloads_and_reviews_share_the_budget():
    record = _record()
    review = {"record": record, "seat": 1, "iterations": 2}
    with _client(heavy_reads_per_minute=6, review_weight=3, review_workers=0) as client:
        code = client.post("/api/rooms", json={}, headers=A).json()["code"]
        assert client.post("/api/review", json=review, headers=A).status_code == 200  # 3 of 6
        assert client.post("/api/replay", json={"record": record}, headers=A).status_code == 200  # 4
        # no deal finished yet: refused for that, but counted (5)
        assert client.get(f"/api/rooms/{code}/deals/0/record", headers=A).json()["error"]["code"] == "not_found"
        # a review weighs 3 (1 when it comes, 2 once its record is read): refused with 1 left
        # (its first unit taken: 6 of 6)
        _refused(client.post("/api/review", json=review, headers=A), 429, "rate_limited")
        _refused(client.post("/api/replay", json={"record": record}, headers=A), 429, "rate_limited")
        _refused(client.get(f"/api/rooms/{code}/deals/0/record", headers=A), 429, "rate_limited")
        _refused(client.post("/api/review", json=review, headers=A), 429, "rate_limited")
        # the room's other reads keep their own limit
        assert client.get(f"/api/rooms/{code}", headers=A).status_code == 200
        assert client.post("/api/review", json=review, headers=B).status_code == 200


def test_a_record_that_cannot_be_reviewed_costs_one_unit_and_no_worker():
    record = _record()
    swapped = copy.deepcopy(record)
    swapped["actions"][3], swapped["actions"][4] = swapped["actions"][4], swapped["actions"][3]
    with _client(heavy_reads_per_minute=3, review_weight=3) as client:
        for bad in (swapped, {"hello": 1}, dict(record, dealer="x")):  # an illegal move, not a record, a bad field
            answer = client.post("/api/review", json={"record": bad, "seat": 0}, headers=A)
            assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_record", answer.text
        assert client.app.state.reviews.pids() == []  # no worker was started for them
        _refused(client.post("/api/replay", json={"record": record}, headers=A), 429, "rate_limited")  # 3 of 3


def _in_this_process(*args: Any, **kwargs: Any) -> Any:
    """The server process's own review function in this test: noted, then refused."""
    _in_this_process.calls += 1  # type: ignore[attr-defined]
    raise AssertionError("the review was made in the server's process")


_in_this_process.calls = 0  # type: ignore[attr-defined]


def test_a_review_is_made_off_the_event_loop(monkeypatch):
    # Every module of this (the server's) process that holds a review_deal gets one that notes
    # it was called: a review made in the server's process (in a thread of it, as before, holding
    # the GIL its event loop needs) calls it; one made in a review worker process does not.
    for name in ("getaway.bots.review", "getaway.web.learn", "getaway.web.reviews"):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "review_deal"):
            monkeypatch.setattr(module, "review_deal", _in_this_process)
    _in_this_process.calls = 0  # type: ignore[attr-defined]
    answers: list[Any] = []
    with _client() as client:
        body = {"record": _record(), "seat": 2, "iterations": 64}  # a tenth of the budget: still seconds
        thread = threading.Thread(target=lambda: answers.append(client.post("/api/review", json=body, headers=A)))
        thread.start()
        pool = getattr(client.app.state, "reviews", None)
        deadline = time.monotonic() + 30
        while thread.is_alive() and not (pool is not None and pool.running) and time.monotonic() < deadline:
            time.sleep(0.01)
        health = [client.get("/healthz").status_code for _ in range(5)]  # while the review is made
        review_running = thread.is_alive()
        thread.join(120)
        assert _in_this_process.calls == 0, "the review was made in the server's process"  # type: ignore[attr-defined]
        assert health == [200] * 5
        assert review_running, "/healthz was answered only once the review was done"
        assert answers[0].status_code == 200, answers[0].text
        assert answers[0].json()["decisions"]
        assert pool is not None and pool.report()["reviews"] == 1
        assert pool.pids() and os.getpid() not in pool.pids()
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert all(os.getpriority(os.PRIO_PROCESS, pid) == min(19, mine + 10) for pid in pool.pids())  # niced


def test_reviews_past_the_cap_wait_in_a_bounded_queue_then_get_503():
    record = _record()
    body = {"record": record, "seat": 0, "iterations": 64}  # seconds of work (a worker's start, then the review)
    answers: dict[str, Any] = {}
    with _client(review_workers=1, review_queue=1) as client:
        pool = client.app.state.reviews

        def ask(name: str, headers: dict[str, str], body: dict[str, Any]) -> threading.Thread:
            def post() -> None:
                answers[name] = client.post("/api/review", json=body, headers=headers)

            thread = threading.Thread(target=post)
            thread.start()
            return thread

        first = ask("a", A, body)
        deadline = time.monotonic() + 30
        while not pool.running and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pool.running == 1
        # the same address again while its review is being made: 429, nothing queued
        again = client.post("/api/review", json=body, headers=A)
        _refused(again, 429, "rate_limited")
        assert "still being made" in again.json()["error"]["message"]
        quick = {**body, "iterations": 2}
        second = ask("b", B, quick)  # waits in the queue (one place)
        while not pool.waiting and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pool.waiting == 1
        third = {"X-Forwarded-For": "203.0.113.3", "Accept-Language": "es"}
        busy = client.post("/api/review", json=quick, headers=third)
        wait = _refused(busy, 503, "reviews_busy")
        assert f"{wait} s" in busy.json()["error"]["message"] and "análisis" in busy.json()["error"]["message"]
        first.join(120)
        second.join(120)
        assert answers["a"].status_code == answers["b"].status_code == 200
        # what an operator reads of it (on the machine: the trusted proxy names a loopback client)
        stats = client.get("/stats", headers={"X-Forwarded-For": "127.0.0.1"}).json()["reviews"]
        assert stats == pool.report() and stats["busy"] == 1 and stats["reviews"] == 2
        assert stats["per_address"] == 1 and stats["running"] == stats["waiting"] == 0


def test_a_dead_review_worker_is_answered_503_and_replaced():
    record = _record()
    body = {"record": record, "seat": 3}
    answers: list[Any] = []
    with _client() as client:
        pool = client.app.state.reviews
        thread = threading.Thread(target=lambda: answers.append(client.post("/api/review", json=body, headers=A)))
        thread.start()
        deadline = time.monotonic() + 30
        while not pool.pids() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(pool.pids()[0], signal.SIGKILL)
        thread.join(60)
        _refused(answers[0], 503, "review_failed")
        again = client.post("/api/review", json={**body, "iterations": 2}, headers=A)  # a new worker makes it
        assert again.status_code == 200, again.text
        assert pool.report()["failed"] == 1
