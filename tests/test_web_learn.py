"""The learning endpoints of the web app (issue 16): the replay viewer's frames, the review, the lessons."""

from __future__ import annotations

import json
import random

from getaway import Deal, Rules
from getaway.bots import HeuristicBot, play_deal
from getaway.core.deal import replay
from getaway.core.record import parse_record, record_of
from getaway.core.view import player_view
from web_helpers import make_client


def _record(seed: int = 3, profile: str = "punjab") -> dict:
    deal = Deal(Rules.profile(profile, players=4), 0, seed)
    play_deal(deal, [HeuristicBot()] * 4, random.Random(seed))
    return record_of(deal)


def test_a_replay_frame_shows_one_seats_view_or_every_hand():
    record = _record()
    with make_client() as client:
        start = client.post("/api/replay", json={"record": record, "move": 0}).json()
        assert start["move"] == 0 and start["moves"] == len(record["actions"])
        assert [len(h) for h in start["hands"]] == start["view"]["hand_sizes"]
        end = client.post("/api/replay", json={"record": record}).json()
        assert end["move"] == end["moves"] and end["view"]["outcome"]["loser"] == record["result"]["loser"]
        mid = client.post("/api/replay", json={"record": record, "move": 10, "seat": 2}).json()
        assert mid["hands"] is None and mid["view"]["seat"] == 2 and mid["view"]["hand"] is not None
        # the seat's view is the engine's player_view of that seat (no other hand in it), nothing more
        deal, actions, _n, _r = parse_record(record)
        replay(deal, actions[:10])
        assert mid["view"] == json.loads(json.dumps(player_view(deal, 2).to_dict()))
        assert mid["log"]
        fr = client.post("/api/replay?lang=fr", json={"record": record, "move": 10}).json()
        assert fr["log"] != client.post("/api/replay", json={"record": record, "move": 10}).json()["log"]


def test_a_bad_record_gets_a_clear_error():
    record = _record()
    with make_client() as client:
        bad = client.post("/api/replay", json={"record": {"format": "nope"}})
        assert bad.status_code == 400 and "format" in bad.json()["error"]["message"]
        illegal = dict(record, actions=[{"seat": 1, "play": "2♥"}])
        res = client.post("/api/replay", json={"record": illegal})
        assert res.status_code == 400 and "actions[0]" in res.json()["error"]["message"]
        seat = client.post("/api/replay", json={"record": record, "seat": 6})
        assert seat.status_code == 400 and "seat 6" in seat.json()["error"]["message"]
        big = client.post(
            "/api/replay",
            content=json.dumps({"record": {"x": "y" * 40_000}}),
            headers={"content-type": "application/json"},
        )
        assert big.status_code == 413
        assert client.post("/api/replay", json={"record": record, "move": -1}).status_code == 400


def test_the_review_endpoint_reviews_a_seat():
    record = _record(5, "classic")
    with make_client() as client:
        res = client.post("/api/review", json={"record": record, "seat": 1, "iterations": 8})
        assert res.status_code == 200, res.text
        data = res.json()
        assert data["seat"] == 1 and data["decisions"] and data["players"] == record["players"]
        assert client.post("/api/review", json={"record": record, "seat": 1, "iterations": 10**6}).status_code == 400


def test_the_lessons_endpoint_judges_a_move_in_the_learners_language():
    with make_client() as client:
        items = client.get("/api/lessons").json()
        assert len(items) >= 8 and items[0]["key"]
        start = client.post("/api/lessons/punjab-who-picks-up", json={"moves": []}).json()
        assert start["verdict"] == "playing" and start["view"]["to_act"] == start["seat"]
        wrong = client.post("/api/lessons/punjab-who-picks-up", json={"moves": ["K♦"]}).json()
        assert wrong["verdict"] == "failure" and wrong["message"]
        right = client.post("/api/lessons/punjab-who-picks-up?lang=es", json={"moves": ["4♦"]}).json()
        assert right["verdict"] == "success" and right["log"]
        illegal = client.post("/api/lessons/punjab-first-trick", json={"moves": ["K♥"]}).json()
        assert illegal["verdict"] == "illegal" and illegal["message"]
        assert client.post("/api/lessons/nope", json={"moves": []}).status_code == 404
        assert client.post("/api/lessons/punjab-tochoo", json={"moves": ["3♣", "J♦"]}).status_code == 400
