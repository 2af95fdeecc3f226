"""The web store's migrations (issue 13, item 0; docs/web.md, "Migrations"): a database made by
the code before migrations existed (main at f237ac2: tests/fixtures/web-main.sqlite, written by
its ``Store``; tests/fixtures/web-main-postgres.sql, its DDL for PostgreSQL with the same rows)
is upgraded in place when the server opens it, and every room in it still replays."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text

from getaway.web.rooms import Room
from getaway.web.store import MIGRATIONS, Store
from web_helpers import TEST_DATABASE, fresh_database, make_client

FIXTURES = Path(__file__).parent / "fixtures"
#: What main's database holds: a lobby room with two players, a bot-only room whose deal finished.
LOBBY, FINISHED = "KH3K87", "Q9WFKY"


def _head() -> str:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def _check_upgraded(url: str) -> None:
    engine = create_engine(url)
    try:
        tables = set(inspect(engine).get_table_names())
        assert {"rooms", "seats", "room_log", "alembic_version"} <= tables
        with engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == _head()
        indexes = {ix["name"] for ix in inspect(engine).get_indexes("rooms")}
        assert "ix_rooms_status" in indexes
    finally:
        engine.dispose()
    store = Store(url)  # opening again: already at the head, nothing to do
    try:
        lobby = store.load_room(LOBBY)
        assert lobby is not None and lobby.status == "lobby" and len(lobby.seat_hashes) == 2
        assert [e.payload["name"] for e in lobby.log] == ["Asha", "Ben"]
        finished = store.load_room(FINISHED)
        assert finished is not None and finished.status == "finished" and len(finished.log) > 50
        room = Room.restore(finished)  # the whole log replays
        assert room.status == "finished" and room.version == len(finished.log)
        assert room.match is not None and room.match.deals[0].is_over and room.record(0)["format"]
        assert [s.code for s in store.unfinished()] == [LOBBY]
    finally:
        store.close()


def test_a_sqlite_database_made_by_main_is_upgraded_and_served(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(FIXTURES / "web-main.sqlite", path)
    url = f"sqlite:///{path}"
    engine = create_engine(url)
    assert "alembic_version" not in inspect(engine).get_table_names()  # as main left it
    engine.dispose()
    with make_client(database_url=url) as client:  # the server upgrades the database on start
        r = client.get(f"/api/rooms/{FINISHED}/history")
        assert r.status_code == 200 and len(r.json()["deals"]) == 1
        assert client.get(f"/api/rooms/{LOBBY}").json()["seats"][1]["name"] == "Ben"
    _check_upgraded(url)


def test_a_new_database_gets_the_newest_schema(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    Store(url).close()
    engine = create_engine(url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == _head()
    engine.dispose()


@pytest.mark.skipif(not TEST_DATABASE or not TEST_DATABASE.startswith("postgresql"), reason="needs PostgreSQL")
def test_a_postgresql_database_made_by_main_is_upgraded():
    url = fresh_database()
    engine = create_engine(url)
    with engine.begin() as conn:  # main's DDL and rows
        conn.exec_driver_sql((FIXTURES / "web-main-postgres.sql").read_text(encoding="utf-8"))
    engine.dispose()
    Store(url).close()
    _check_upgraded(url)


@pytest.mark.skipif(not TEST_DATABASE or not TEST_DATABASE.startswith("postgresql"), reason="needs PostgreSQL")
def test_processes_started_together_on_a_new_postgresql_database_all_start():
    """Three processes opening one empty database at once, as servers started together do
    (docs/web.md, "Behind a front"): one migrates, the others wait for it (an advisory lock), and
    none fails on a half-made schema."""
    import subprocess
    import sys

    url = fresh_database()
    code = "import sys; from getaway.web.store import Store; Store(sys.argv[1]).close()"
    procs = [subprocess.Popen([sys.executable, "-c", code, url], stderr=subprocess.PIPE) for _ in range(3)]
    errors = [p.communicate(timeout=60)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errors
    engine = create_engine(url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == _head()
    engine.dispose()
