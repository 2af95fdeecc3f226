"""The load-across-processes bench (bench/web_cluster.py, issue 14 item 5) runs end to end at a
tiny size, so that it cannot rot: 2 ``getaway serve`` processes behind nginx, one PostgreSQL
database, one Redis, 3 rooms of one scripted client and 3 bots, 1 deal, bot delay 0. Every room
finishes, no echoed move is lost, every log passes the audit, every record replays, and each
figure of the report is there. Not a timing test: the latencies are only reported (the targets
are for the full scenario, docs/web.md "Load across processes").

It runs in dev.py's PostgreSQL pass (``GETAWAY_TEST_DATABASE_URL``); it is skipped with the
reason without redis-server or nginx, except that ``GETAWAY_REQUIRE_REDIS=1`` /
``GETAWAY_REQUIRE_NGINX=1`` (CI) make a missing one fail.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from web_helpers import cluster_skip, fresh_database

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

pytestmark = cluster_skip("the cluster bench", nginx=True)


@pytest.mark.timeout(300)
def test_cluster_bench_tiny(tmp_path):
    import web_cluster

    result = web_cluster.run(tmp_path, fresh_database(), processes=2, rooms=3, deals=1, bot_delay=0.0, level="medium")
    assert result["rooms_finished"] == 3, result
    assert result["client_errors"] == {} and result["server_tracebacks"] == 0, result
    assert result["acked_client_moves"] == result["echo_ms"]["n"] > 0, result
    assert result["lost_actions"] == 0 and result["log_audit_failures"] == [], result
    assert result["records_replayed"] == 3 and result["records_failed"] == [], result
    assert result["actions"] > result["acked_client_moves"] and result["actions_per_s"] > 0, result
    assert result["bot_lateness_ms"]["n"] > 0, result
    parts = {"serve 0", "serve 1", "redis-server", "nginx", "postgres", "load generator"}
    assert set(result["cpu_percent"]) == parts, result
    assert result["cpu_percent"]["serve 0"] > 0 and result["cpu_percent"]["serve 1"] > 0, result
    # the cost model: each part's CPU per applied action, and the cluster's sum without the generator
    cost = result["cpu_ms_per_action"]
    assert set(cost) == parts | {"cluster"} and cost["serve 0"] > 0 and cost["postgres"] > 0, result
    assert cost["cluster"] == pytest.approx(
        sum(v for k, v in cost.items() if k not in ("cluster", "load generator")), abs=0.01
    )
    assert result["redis_commands_per_s"] > 0 and result["postgres_commits_per_s"] >= 0, result


@pytest.mark.timeout(300)
def test_cluster_bench_alone_is_the_baseline(tmp_path):
    """``--alone``: the same scenario on one process, no Redis, no front, on SQLite."""
    import web_cluster

    result = web_cluster.run(
        tmp_path, "sqlite", processes=4, rooms=2, deals=1, bot_delay=0.0, level="medium", alone=True
    )
    assert result["alone"] == "sqlite" and result["processes"] == 1, result
    assert result["rooms_finished"] == 2 and result["lost_actions"] == 0 and result["records_replayed"] == 2, result
    assert set(result["cpu_ms_per_action"]) == {"serve 0", "load generator", "cluster"}, result
    assert result["cpu_ms_per_action"]["cluster"] == result["cpu_ms_per_action"]["serve 0"] > 0, result


@pytest.mark.timeout(300)
def test_cluster_bench_profile_tiny(tmp_path):
    """``--profile``: py-spy's samples of each serve process sorted into categories, and the
    statements PostgreSQL ran per action (pg_stat_statements: dev.py's PostgreSQL loads it)."""
    import web_cluster

    result = web_cluster.run(
        tmp_path, fresh_database(), processes=2, rooms=2, deals=1, bot_delay=0.0, level="medium",
        profile=tmp_path / "profile",
    )  # fmt: skip
    assert result["rooms_finished"] == 2 and result["lost_actions"] == 0, result
    profile = result["profile"]
    assert profile["py_spy_failed"] == {} and len(profile["files"]) == 2 and profile["samples"] > 0, profile
    shares = profile["category_percent"]
    # the shares cover every sample (which category a tiny run's few samples fall in varies)
    assert sum(shares.values()) == pytest.approx(100, abs=1) and len(shares) >= 2, shares
    assert any(k.startswith("web/") for k in profile["outermost_getaway_percent"]), profile
    statements = profile["postgres_statements"]
    assert statements["calls_per_action"] > 0 and statements["exec_ms_per_action"] > 0, statements
    assert any(row["query"].startswith("INSERT INTO room_log") for row in statements["top"]), statements


def test_profile_categories_and_bad_lines(tmp_path):
    """A sample's category is its first frame from the leaf in a known package; a line that is not
    py-spy's raw format is an error naming the file and line."""
    from cost_profile import breakdown, category_of

    stack = ["<module> (getaway/__main__.py:6)", "beat (getaway/web/rooms/cluster.py:380)"]
    stack.append("dumps (json/__init__.py:231)")
    assert category_of(stack) == "JSON"
    assert category_of([*stack[:2], "send (socket.py:10)"]) == "web server (getaway.web)"  # stdlib passed over
    assert category_of(["run (asyncio/base_events.py:600)"]) == "asyncio loop"
    good = tmp_path / "a.txt"
    good.write_text(";".join(stack) + " 3\n" + ";".join(stack[:2]) + " 1\n")
    found = breakdown([good])
    assert found["samples"] == 4 and found["category_percent"] == {"JSON": 75.0, "web server (getaway.web)": 25.0}
    assert found["outermost_getaway_percent"] == {"web/rooms/cluster.py:beat": 100.0}
    bad = tmp_path / "b.txt"
    bad.write_text("no count here\n")
    with pytest.raises(ValueError, match="b.txt:1"):
        breakdown([bad])


def test_cluster_bench_renew_tiny(tmp_path):
    import web_cluster

    (row,) = web_cluster.renew(tmp_path, [20])["renewals"]
    assert row["leases"] == 20 and row["all_held"], row
    assert row["renew_all_ms_median"] > 0 and row["renew_all_ms_in_redis"] > 0, row
    assert row["one_call_each_ms"]["leases"] == 20 and row["one_call_each_ms"]["ms"] > 0, row


@pytest.mark.timeout(300)
def test_cluster_bench_capacity_tiny(tmp_path, capsys):
    """``capacity``: the largest size that met the targets in every run, up to the first that
    missed one; at bot delay 0.3 s, 2 rooms on 1 process meet them (it is not a timing test:
    a miss is reported with its reason, and then this size is not the largest)."""
    import web_cluster

    db = fresh_database()
    found = web_cluster.capacity(tmp_path, db, [1], [1, 2], repeat=1, deals=1, bot_delay=0.3, level="easy",
                                 timeout=120, more=())  # fmt: skip
    assert [(r["processes"], r["rooms"]) for r in found["runs"]][:1] == [(1, 1)], found
    first = found["runs"][0]
    assert first["cluster_cpu_ms_per_action"] > 0 and first["generator_cpu_ms_per_action"] > 0, found
    want = None if first["missed"] else 1 if found["runs"][-1]["missed"] else 2
    assert found["largest"] == {1: want} and found["targets"] == web_cluster.TARGETS, found
    assert capsys.readouterr().err.count('"processes": 1') == len(found["runs"])


def test_a_run_misses_each_target_by_name():
    import web_cluster

    good = {"echo_ms": {"p99": 40.0}, "bot_lateness_ms": {"p99": 90.0}, "lost_actions": 0, "records_failed": [],
            "records_replayed": 6, "rooms_finished": 3, "rooms": 3, "deals": 2}  # fmt: skip
    assert web_cluster.meets(good) == []
    bad = {**good, "echo_ms": {"p99": 140.0}, "bot_lateness_ms": {"p99": 900.0}, "lost_actions": 2,
           "records_replayed": 3, "rooms_finished": 2}  # fmt: skip
    assert web_cluster.meets(bad) == [
        "echo p99 140.0 ms", "bot lateness p99 900.0 ms", "2 lost", "records replayed 3", "rooms finished 2 of 3"
    ]  # fmt: skip


def test_a_bots_lead_after_a_trick_is_planned_after_its_linger():
    """The bench's lateness of a bot: from its planned move, which for a lead after a finished
    trick is the trick's linger (web/rooms/timers.py LEAD_HOLD) when longer than the bot delay."""
    import web_rooms

    from getaway.web.rooms.timers import LEAD_HOLD

    room = web_rooms.HumanRoom("http://x", bot_delay=0.7)
    assert room.planned({"trick": [], "tricks_played": 3}) == max(0.7, LEAD_HOLD)
    assert room.planned({"trick": [["2♣", 1]], "tricks_played": 3}) == 0.7
    assert room.planned({"trick": [], "tricks_played": 0}) == 0.7  # the deal's first lead: no trick lies there
    assert web_rooms.HumanRoom("http://x", bot_delay=0.0).planned({"trick": [], "tricks_played": 3}) == 0.0
