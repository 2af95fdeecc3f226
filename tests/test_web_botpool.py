"""Bots off the event loop (issue 14, item 1; web/botpool.py): searching bots in worker
processes, fair across rooms, the fallback move on time when every worker is busy, a killed
worker that the rooms survive. Real processes and real time (a fraction of a second each)."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import time
from typing import Any

import pytest

from getaway import Deal, Rules, player_view
from getaway.bots import ExpertBot, HeuristicBot, make_bot
from getaway.bots.hints import best_hint
from getaway.web.botpool import BotPool, spec_of
from getaway.web.rooms import RoomService
from getaway.web.store import Store
from sleepy_bot import SleepyBot, broken_hint, sleepy_hint
from web_helpers import OPERATOR, create_room, make_client

pytestmark = pytest.mark.timeout(90)

#: Takes by the poll: every take decision is a move of the seat asked (under interject, the take
#: decisions of the seats not to act are searches of their own, in the pool too: docs/web.md "Takes").
CONFIG = {
    "profile": "punjab",
    "players": 3,
    "deals": 1,
    "options": {"takes": "any", "take_protocol": "poll"},
    "bot_level": "hard",
}


#: The workers of the pool tests build the test's bot when they start.
WARM = [spec_of(SleepyBot(1.0))]


def _view(seed: int = 3):
    """A seat's view mid-deal with at least two legal actions, and those actions."""
    deal = Deal(Rules.profile("punjab", players=4, takes="off"), 0, seed)
    rng = random.Random(seed)
    while True:
        legal = deal.legal_actions()
        if len(legal) > 1 and deal.tricks_played > 1:
            view = player_view(deal, deal.to_act)
            return view, list(view.legal_actions)
        deal.apply(legal[rng.randrange(len(legal))])


async def _play_room(
    service: RoomService, bot: Any, kill: bool = False, config: dict[str, Any] | None = None
) -> tuple[list[Any], str]:
    """Create a bot-only room with ``bot`` in every seat, play it to its end; its log and status.
    ``kill``: SIGKILL a worker process while a search runs in it; ``config``: the room's (:data:`CONFIG`)."""
    answer = await service.create(dict(config or CONFIG))
    handle = service.rooms[answer["code"]]
    handle.bot = bot
    await service.start_match(answer["code"], answer["host_token"])
    pool = service.botpool
    assert pool is not None
    if kill:
        while not pool.in_flight:
            await asyncio.sleep(0.005)
        os.kill(pool.pids()[0], signal.SIGKILL)
    deadline = time.monotonic() + 60
    while handle.room.status != "finished":
        assert time.monotonic() < deadline, "the room did not finish"
        await asyncio.sleep(0.01)
    # read on the service's database thread: the in-memory SQLite connection is one for both
    # threads, and a read from this one while the writer commits fails ("cannot rollback")
    while len(log := (await service.worker.in_db(service.store.load_room, answer["code"])).log) < handle.room.version:
        await asyncio.sleep(0.01)  # the last command is applied, its commit on its way
    return [(e.kind, e.payload) for e in log], handle.room.status


def test_a_room_of_searching_bots_plays_to_the_end_in_workers_and_replays_from_its_seed(monkeypatch):
    monkeypatch.setattr("getaway.web.rooms.checks.new_seed", lambda: 0x5EED)  # every room: one seed, one secret
    monkeypatch.setattr("getaway.web.rooms.checks.new_secret", lambda: b"s" * 32)

    async def main() -> tuple[list[Any], Any]:
        service = RoomService(Store("sqlite://"), bot_delay=0, bot_workers=1)
        await service.start()
        try:
            assert service.botpool is not None and len(service.botpool.pids()) == 1
            log, status = await _play_room(service, ExpertBot(iterations=8))
            assert status == "finished"
            return log, dict(service.botpool.stats)
        finally:
            await service.stop()

    first, stats = asyncio.run(main())
    acts = [p for kind, p in first if kind == "act"]
    assert len(acts) > 20 and all(p["bot"] for p in acts)
    assert stats["searches"] > 10 and stats.get("fallbacks", 0) == 0  # every move searched in a worker
    again, _ = asyncio.run(main())  # the same seeds (the fixture): the same moves, whatever the timing
    assert [p for kind, p in again if kind == "act"] == acts


def test_a_room_with_a_slow_bot_does_not_delay_another_rooms_search():
    """Room A asks for three searches of 0.6 s at once, room B for a quick one: A's run one
    at a time (one per room in flight), so B gets the second worker at once and is back before
    A's first is; nothing falls back."""

    async def main() -> tuple[list[float], float, dict[str, int]]:
        pool = BotPool(2, warm=WARM)
        await pool.start()
        try:
            view, legal = _view()
            start = time.monotonic()
            slow = SleepyBot(0.6)

            async def timed(room: str, bot: Any, due: float | None) -> float:
                await pool.act(room, bot, view, legal, random.Random(1), due=due)
                return time.monotonic() - start

            a = [asyncio.create_task(timed("A", slow, None)) for _ in range(3)]
            await asyncio.sleep(0.05)
            b = await timed("B", SleepyBot(0.05, time_limit=0.9), start + 1.5)
            return sorted(await asyncio.gather(*a)), b, dict(pool.stats)
        finally:
            await pool.stop()

    a, b, stats = asyncio.run(main())
    assert b < a[0], f"room B's search waited for room A's: back after {b:.2f} s, A's first after {a[0]:.2f} s"
    assert a[0] >= 0.6 and a[1] >= 1.2 and a[2] >= 1.8, f"room A's searches overlapped: {a}"
    assert stats["searches"] == 4 and stats.get("fallbacks", 0) == 0


def test_every_worker_busy_the_bot_plays_its_fallback_move_on_time_and_it_is_logged(caplog):
    async def main() -> tuple[Any, float, float, dict[str, int]]:
        pool = BotPool(1, warm=WARM)
        await pool.start()
        try:
            view, legal = _view()
            hog = asyncio.create_task(pool.act("HOG", SleepyBot(0.8), view, legal, random.Random(2)))
            while not pool.in_flight:
                await asyncio.sleep(0.005)
            due = time.monotonic() + 0.4
            action = await pool.act("LATE", SleepyBot(0.01, time_limit=0.24), view, legal, random.Random(7), due=due)
            back = time.monotonic()
            hog.cancel()
            return action, back, due, dict(pool.stats)
        finally:
            await pool.stop()

    with caplog.at_level(logging.WARNING, logger="getaway.web"):
        action, back, due, stats = asyncio.run(main())
    view, legal = _view()
    seed = random.Random(7).getrandbits(64)  # the one draw the pool makes from the room's generator
    assert action == HeuristicBot().act(view, legal, random.Random(seed))  # the heuristic's choice
    assert back < due  # on time (it was given up at MIN_SHARE of its time before the due time)
    lines = [r.getMessage() for r in caplog.records if "fallback move" in r.getMessage()]
    assert lines == [f"room LATE: bot of seat {view.seat} plays its fallback move: every bot worker was busy"]
    assert stats["fallbacks"] == stats["fallback:busy"] == 1


def test_a_killed_worker_process_does_not_stop_the_room():
    async def main() -> tuple[str, dict[str, int], list[int], list[int]]:
        service = RoomService(Store("sqlite://"), bot_delay=0, bot_workers=1)
        await service.start()
        try:
            assert service.botpool is not None
            before = service.botpool.pids()
            _log, status = await _play_room(service, SleepyBot(0.3, slow=1), kill=True)
            return status, dict(service.botpool.stats), before, service.botpool.pids()
        finally:
            await service.stop()

    status, stats, before, after = asyncio.run(main())
    assert status == "finished"
    assert stats["fallback:crash"] >= 1 and stats["rebuilds"] == 1
    assert after and set(after).isdisjoint(before)  # new workers
    # the searches after the crash ran in the new worker (how many: the machine's load decides)
    assert stats["searches"] > stats["fallbacks"] + 1


def test_only_bots_rebuildable_by_name_go_to_the_workers():
    assert spec_of(make_bot("expert")) is not None and BotPool.takes(make_bot("hard"))
    assert not BotPool.takes(make_bot("medium"))  # no search: it stays in the server's threads

    class Local(SleepyBot):  # defined in a function: a worker cannot import it
        pass

    assert spec_of(Local()) is None and not BotPool.takes(Local())
    with pytest.raises(ValueError, match="workers: at least 1"):
        BotPool(0)


def test_a_room_whose_searches_cannot_have_a_worker_sends_fallback_moves_at_the_bot_delay(caplog):
    """The only worker is held by another room's long search: every move of this room that
    would search is the heuristic's, logged, and sent at the bot delay like any other."""
    delay = 0.3

    async def main() -> tuple[str, list[float]]:
        service = RoomService(Store("sqlite://"), bot_delay=delay, bot_workers=1)
        await service.start()
        pool = service.botpool
        assert pool is not None
        try:
            view, legal = _view()
            hog = asyncio.create_task(pool.act("HOG", SleepyBot(8.0), view, legal, random.Random(2)))
            while not pool.in_flight:
                await asyncio.sleep(0.005)
            answer = await service.create(dict(CONFIG))
            code = answer["code"]
            handle = service.rooms[code]
            handle.bot = SleepyBot(0.01, time_limit=0.18)
            delays: list[float] = []
            began: dict[int, float] = {}
            original_move, original_submit = service.bots.move, service.submit

            async def bot_move(h, version, seat, start):
                began[version] = start
                await original_move(h, version, seat, start)

            async def submit(h, job):
                if job.kind == "act" and job.payload.get("bot") and job.payload["action"] != "take":
                    delays.append(service.timer() - began[job.version])
                return await original_submit(h, job)

            service.bots.move, service.submit = bot_move, submit  # type: ignore[method-assign]
            await service.start_match(code, answer["host_token"])
            deadline = time.monotonic() + 6.0  # within the hog's search
            while pool.stats["fallbacks"] < 3:
                assert time.monotonic() < deadline, "no fallback moves: the room waited for the worker"
                await asyncio.sleep(0.01)
            hog.cancel()
            return code, delays
        finally:
            await service.stop()

    with caplog.at_level(logging.WARNING, logger="getaway.web"):
        code, delays = asyncio.run(main())
    lines = [r.getMessage() for r in caplog.records if "fallback move" in r.getMessage()]
    assert len(lines) >= 3 and all(line.startswith(f"room {code}: bot of seat ") for line in lines)
    assert all("every bot worker was busy" in line for line in lines)
    # sent at the bot delay, never before, and not after waiting for the worker (8 s): the bound
    # is loose, as this machine may be loaded (the lateness figures are bench/web_rooms.py's)
    assert delays and all(delay - 0.001 <= d < delay + 1.0 for d in delays), delays


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.timeout(60)
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_the_workers_end_when_their_server_is_killed(tmp_path):
    # a server killed with SIGKILL cannot stop its pool: its workers (and multiprocessing's
    # resource tracker) must not live on, orphaned
    from web_helpers import ServerProcess

    server = ServerProcess(tmp_path, "--bot-workers", "1")
    try:
        deadline = time.time() + 20
        while len(_children(server.proc.pid)) < 2 and time.time() < deadline:  # the worker + the tracker
            time.sleep(0.1)
        children = _children(server.proc.pid)
        assert len(children) >= 2, children
    finally:
        server.kill()
        server.stop()
    deadline = time.time() + 10
    while any(_alive(pid) for pid in children) and time.time() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in children if _alive(pid)], "orphaned workers live on"


def test_the_pool_reports_its_busy_workers_and_its_queue():
    async def main() -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
        pool = BotPool(1, warm=WARM)
        await pool.start()
        try:
            idle = pool.report()
            view, legal = _view()
            hog = asyncio.create_task(pool.act("HOG", SleepyBot(0.6), view, legal, random.Random(2)))
            while not pool.in_flight:
                await asyncio.sleep(0.005)
            bot = SleepyBot(0.01)
            waiting = [asyncio.create_task(pool.act(room, bot, view, legal, random.Random(3))) for room in ("A", "B")]
            await asyncio.sleep(0.05)
            busy = pool.report()
            await asyncio.gather(hog, *waiting)
            return idle, busy, pool.report()
        finally:
            await pool.stop()

    idle, busy, after = asyncio.run(main())
    assert idle == dict.fromkeys(idle, 0) | {"workers": 1}
    assert busy["busy"] == 1 and busy["waiting"] == 2 and busy["rooms_waiting"] == 2 and busy["searches"] == 1
    assert after["busy"] == after["waiting"] == 0 and after["searches"] + after["fallbacks"] == 3
    assert set(after) == {
        "workers", "busy", "waiting", "rooms_waiting", "hinting", "searches", "fallbacks", "fallback_busy",
        "fallback_late", "fallback_crash", "fallback_error", "fallback_stop", "hints", "hint_fallbacks",
        "hint_fallback_busy", "hint_fallback_late", "hint_fallback_crash", "hint_fallback_error",
        "hint_fallback_stop", "rebuilds",
    }  # fmt: skip


def test_an_operator_reads_the_bot_workers_counts_at_stats(tmp_path):
    with make_client(tmp_path, bot_workers=1) as outsider:  # not on the machine: no counts (they move with bot turns)
        refused = outsider.get("/stats")
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
        assert "bots" not in refused.text
    with make_client(tmp_path, peer=OPERATOR, bot_workers=1) as client:
        first = client.get("/stats")
        assert first.status_code == 200 and first.headers["cache-control"] == "no-store"
        counts = first.json()
        assert counts["bots"]["workers"] == 1 and counts["bots"]["searches"] == counts["bots"]["busy"] == 0
        assert counts["rooms"] == dict.fromkeys(counts["rooms"], 0) and counts["heartbeat"] is None
        room = create_room(client, None, players=3, bot_level="hard")  # searching bots alone
        host = {"Authorization": f"Bearer {room['host_token']}"}
        started = client.post(f"/api/rooms/{room['code']}/start", headers=host)
        assert started.status_code == 200, started.text
        deadline = time.monotonic() + 30
        while (answer := client.get("/stats")).json()["bots"]["searches"] == 0:
            assert time.monotonic() < deadline, answer.json()
            time.sleep(0.05)
        counts = answer.json()
        assert counts["rooms"]["open"] == counts["rooms"]["owned"] == 1 and counts["rooms"]["bots_alone"] == 1
        assert room["code"] not in answer.text and "hand" not in answer.text  # counts only
        assert all(isinstance(v, int) for part in ("rooms", "bots") for v in counts[part].values())


# ---------------------------------------------------------------------------------- hints


def _cards_of(view) -> list[str]:
    """The cards of the view's own hand, as text (none of them may be in a log line)."""
    return [str(card) for card in view.hand]


def test_a_hint_is_searched_in_a_worker_and_is_the_terminals_hint_for_the_same_view_and_seed(monkeypatch):
    views = [_view(seed)[0] for seed in (3, 5, 8)]
    expected = [best_hint(view, random.Random(11 + i)) for i, view in enumerate(views)]

    def not_here(*_args: Any) -> None:
        raise AssertionError("the hint was searched in the server process")

    # the workers are fresh interpreters (spawn): the patch reaches the server process only
    monkeypatch.setattr("getaway.bots.hints.best_hint", not_here)
    monkeypatch.setattr("getaway.web.botpool.best_hint", not_here)

    async def main() -> tuple[list[Any], dict[str, int]]:
        pool = BotPool(1, warm=WARM)
        await pool.start()
        try:
            return [await pool.hint("ROOM", view, 11 + i) for i, view in enumerate(views)], pool.report()
        finally:
            await pool.stop()

    hints, report = asyncio.run(main())
    assert [(a, str(r), level) for a, r, level in hints] == [(a, str(r), level) for a, r, level in expected]
    assert [getattr(r, "template", r) for _a, r, _l in hints] == [getattr(r, "template", r) for _a, r, _l in expected]
    assert [getattr(r, "args", None) for _a, r, _l in hints] == [getattr(r, "args", None) for _a, r, _l in expected]
    assert {level for _a, _r, level in hints} == {"expert"}
    assert report["hints"] == 3 and report["hint_fallbacks"] == 0 and report["searches"] == 0


def test_every_worker_busy_a_hint_is_the_heuristics_at_once_logged_and_counted(caplog):
    view, legal = _view()

    async def main() -> tuple[Any, float, dict[str, int]]:
        pool = BotPool(1, warm=WARM)
        await pool.start()
        try:
            hog = asyncio.create_task(pool.act("HOG", SleepyBot(1.5), view, legal, random.Random(2)))
            while not pool.in_flight:
                await asyncio.sleep(0.005)
            start = time.monotonic()
            hint = await pool.hint("ROOM", view, 17)
            took = time.monotonic() - start
            hog.cancel()
            return hint, took, pool.report()
        finally:
            await pool.stop()

    with caplog.at_level(logging.WARNING, logger="getaway.web"):
        (action, reason, level), took, report = asyncio.run(main())
    assert (action, reason) == HeuristicBot().hint(view, legal, random.Random(17)) and level == "heuristic"
    assert took < 0.5, f"the hint waited for the busy worker ({took:.2f} s; the hog takes 1.5 s)"
    assert report["hint_fallbacks"] == report["hint_fallback_busy"] == 1 and report["hints"] == 0
    lines = [r.getMessage() for r in caplog.records if "hint of seat" in r.getMessage()]
    assert lines == [f"room ROOM: hint of seat {view.seat} is the fallback's: every bot worker was busy"]
    assert not [card for line in lines for card in _cards_of(view) if card in line]


def test_a_hint_not_back_in_time_is_the_heuristics():
    view, legal = _view()

    async def main() -> tuple[Any, float, dict[str, int]]:
        pool = BotPool(1, warm=WARM, hint_timeout=0.2, hinter=sleepy_hint)
        await pool.start()
        try:
            start = time.monotonic()
            hint = await pool.hint("ROOM", view, 17)
            took = time.monotonic() - start
            return hint, took, pool.report()
        finally:
            await pool.stop()

    (action, reason, _level), took, report = asyncio.run(main())
    assert (action, reason) == HeuristicBot().hint(view, legal, random.Random(17))
    assert 0.2 <= took < 0.9, took  # given up at its timeout, not when the 1 s search ended
    assert report["hints"] == 1 and report["hint_fallback_late"] == 1


def test_a_failed_hint_is_the_heuristics_and_its_log_names_no_card(caplog):
    view, legal = _view()

    async def main() -> tuple[Any, dict[str, int]]:
        pool = BotPool(1, warm=WARM, hinter=broken_hint)
        await pool.start()
        try:
            return await pool.hint("ROOM", view, 17), pool.report()
        finally:
            await pool.stop()

    with caplog.at_level(logging.WARNING, logger="getaway.web"):
        (action, reason, _level), report = asyncio.run(main())
    assert (action, reason) == HeuristicBot().hint(view, legal, random.Random(17))
    assert report["hints"] == 1 and report["hint_fallbacks"] == report["hint_fallback_error"] == 1
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("room ROOM: hint")]
    assert lines == [
        f"room ROOM: hint search of seat {view.seat} failed (ValueError)",
        f"room ROOM: hint of seat {view.seat} is the fallback's: its search failed",
    ]
    assert not [card for line in lines for card in _cards_of(view) if card in line]


def test_a_slow_hint_does_not_delay_its_rooms_due_bot_move_nor_take_the_bots_last_worker():
    """Room A's hint takes a second in one of two workers; then A's bot must move (its
    player moved), and room B asks for a hint: A's search gets the other worker at once and is
    back before the hint, and B's hint is the fallback's at once (the hints may hold only all
    workers but one)."""
    view, legal = _view()

    async def main() -> tuple[float, float, Any, dict[str, int]]:
        pool = BotPool(2, warm=WARM, hinter=sleepy_hint)
        await pool.start()
        try:
            start = time.monotonic()
            slow = asyncio.create_task(pool.hint("A", view, 1))
            while not pool.report()["hinting"]:
                await asyncio.sleep(0.005)
            other = await pool.hint("B", view, 2)
            await pool.act("A", SleepyBot(0.05, time_limit=0.3), view, legal, random.Random(3), due=start + 0.8)
            moved = time.monotonic() - start
            await slow
            return moved, time.monotonic() - start, other, pool.report()
        finally:
            await pool.stop()

    moved, hinted, (_action, _reason, level), report = asyncio.run(main())
    assert moved < hinted, f"the bot's move ({moved:.2f} s) waited for its room's hint ({hinted:.2f} s)"
    assert report["searches"] == 1 and report["fallbacks"] == 0  # the move was searched, on time
    assert level == "heuristic" and report["hints"] == 1 and report["hint_fallback_busy"] == 1


def test_a_bot_search_waiting_for_the_only_worker_goes_before_a_hint():
    """One worker, held by a hint: a bot search waits for it, and a hint asked meanwhile does
    not take the worker when it frees (it is the fallback's at once): the bot's search does."""
    view, legal = _view()

    async def main() -> tuple[Any, dict[str, int], dict[str, int]]:
        pool = BotPool(1, warm=WARM, hinter=sleepy_hint)
        await pool.start()
        try:
            slow = asyncio.create_task(pool.hint("A", view, 1))
            while not pool.report()["hinting"]:
                await asyncio.sleep(0.005)
            move = asyncio.create_task(pool.act("B", SleepyBot(0.05), view, legal, random.Random(3)))
            await asyncio.sleep(0.05)
            second = await pool.hint("C", view, 2)
            waiting = pool.report()
            await asyncio.gather(slow, move)
            return second, waiting, pool.report()
        finally:
            await pool.stop()

    (_a, _r, level), waiting, after = asyncio.run(main())
    assert waiting["waiting"] == 1 and waiting["hinting"] == 1 and level == "heuristic"
    assert after["searches"] == 1 and after["fallbacks"] == 0 and after["hints"] == 1


def test_every_bot_name_and_level_round_trips_through_its_spec():
    """The pool rebuilds every registered bot (kind or level) from its declared settings
    (``SETTINGS``): the worker's bot is the same bot, with the same settings."""
    from getaway.bots import BOTS, LEVELS
    from getaway.bots.settings import values_of

    names = [*BOTS, *LEVELS]
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        names.remove("style:ismcts")
    for name in names:
        bot = make_bot(name)
        spec = spec_of(bot)
        assert spec is not None, name
        built = spec.build()
        assert type(built) is type(bot) and values_of(built) == values_of(bot), name
        assert spec_of(built) == spec, name
    searching = make_bot("expert:iterations=7+rollout=light", time_limit=0.5)
    spec = spec_of(searching)
    assert dict(spec.settings)["iterations"] == 7 and "time_limit" not in dict(spec.settings)
    assert spec.build().rollout == "light" and BotPool.takes(searching)


def test_a_searching_levels_takes_in_a_take_window_are_searched_in_the_workers():
    """Under ``interject`` (a new room's protocol), the take decisions of the bots not to act are
    their level's bot's, searched in the pool as their moves are (docs/web.md "Takes")."""

    async def main() -> tuple[str, list[list[str]]]:
        service = RoomService(Store("sqlite://"), bot_delay=0, bot_workers=1)
        await service.start()
        pool = service.botpool
        assert pool is not None
        asked: list[list[str]] = []
        original = pool.act

        async def act(room, bot, view, legal, rng, **kw):
            asked.append([str(a) for a in legal])
            return await original(room, bot, view, legal, rng, **kw)

        pool.act = act  # type: ignore[method-assign]
        try:
            config = dict(CONFIG, options={"takes": "any", "take_protocol": "interject"})
            _log, status = await _play_room(service, SleepyBot(0.0), config=config)
            return status, asked
        finally:
            await service.stop()

    status, asked = asyncio.run(main())
    assert status == "finished"
    assert ["take", "pass"] in asked  # a take window's decision went to the pool
