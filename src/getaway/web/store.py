"""Persistence of the web app: rooms, seat tokens and an append-only room log (SQLAlchemy Core).

A room is its creation row (config, the server-side match seed and deal secret, the host
token's hash) plus its log of accepted commands; :mod:`getaway.web.rooms` rebuilds a room by
replaying the log (event sourcing). Reads do not replay: each finished deal's record is stored
once (``room_deals``), and the room's public state and history are stored as a snapshot
(``rooms.snapshot``) by the command that ends a deal or closes the room. The same code runs on
SQLite (the default: a file ``getaway.db``, WAL journal, ``synchronous=NORMAL``) and
PostgreSQL (``DATABASE_URL=postgresql+psycopg://…``).

Writes are synchronous and short; the room service runs them on one worker thread, so the
event loop never waits on the disk and SQLite sees one writer at a time. Reads
(:meth:`Store.read_room`, :meth:`Store.read_record`) run on other threads (SQLite's WAL lets
readers run beside the writer), off the writer's path.

>>> store = Store("sqlite://")
>>> store.create_room("ABC123", {"profile": "punjab"}, seed=7, host_hash="h", now=1.0)
True
>>> store.append("ABC123", 1, "join", {"seat": 0, "name": "Asha"}, now=2.0, status="lobby")
>>> [(e.version, e.kind, e.payload) for e in store.load_room("ABC123").log]
[(1, 'join', {'seat': 0, 'name': 'Asha'})]
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.pool import StaticPool

__all__ = [
    "Store",
    "StoredRoom",
    "RoomSummary",
    "LogEntry",
    "NewEntry",
    "database_url",
    "migrate",
    "DEFAULT_DATABASE",
    "MIGRATIONS",
]

#: The Alembic migrations (``alembic.ini``, ``env.py``, ``versions/``): every change of the tables
#: below is a new revision there (docs/web.md, "Migrations").
MIGRATIONS = Path(__file__).resolve().parent / "migrations"

#: The database when neither ``--database`` nor ``DATABASE_URL`` says otherwise.
DEFAULT_DATABASE = "sqlite:///getaway.db"

metadata = MetaData()

rooms = Table(
    "rooms",
    metadata,
    Column("code", String(16), primary_key=True),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
    Column("config", Text, nullable=False),  # JSON
    Column("seed", BigInteger, nullable=False),  # the match seed: never leaves the server
    Column("host_hash", String(64), nullable=False),  # SHA-256 of the host token
    Column("status", String(16), nullable=False),
    Column("version", Integer, nullable=False, default=0),
    Column("secret", String(64), nullable=True),  # hex of the 32-byte deal secret: never leaves the server
    Column("snapshot", Text, nullable=True),  # JSON {"public", "history"} at the last deal end or close
    Index("ix_rooms_status", "status"),
)

seats = Table(
    "seats",
    metadata,
    Column("room", String(16), ForeignKey("rooms.code"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("token_hash", String(64), nullable=False),  # SHA-256 of the seat token
)

room_log = Table(
    "room_log",
    metadata,
    Column("room", String(16), ForeignKey("rooms.code"), primary_key=True),
    Column("version", Integer, primary_key=True),  # 1, 2, 3 …: one writer per room, no gaps
    Column("kind", String(16), nullable=False),
    Column("payload", Text, nullable=False),  # JSON
    Column("time", Float, nullable=False),
)


#: Finished deals' records (issue 13): written once, with the command that ended the deal.
room_deals = Table(
    "room_deals",
    metadata,
    Column("room", String(16), ForeignKey("rooms.code"), primary_key=True),
    Column("deal", Integer, primary_key=True),  # 0-based
    Column("record", Text, nullable=False),  # JSON, the engine's getaway/1 record
)


def database_url(option: str | None = None) -> str:
    """The database to use: ``option`` (``--database``), else ``DATABASE_URL``, else
    :data:`DEFAULT_DATABASE`. A bare file path means a SQLite file.

    >>> database_url("games.db"), database_url("postgresql+psycopg://u@h/db")
    ('sqlite:///games.db', 'postgresql+psycopg://u@h/db')
    """
    url = option or os.environ.get("DATABASE_URL") or DEFAULT_DATABASE
    if "://" not in url:
        url = f"sqlite:///{url}"
    if url.startswith("postgresql://"):  # the psycopg 3 driver, not psycopg2
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


@dataclass(frozen=True)
class LogEntry:
    """One accepted command of a room: ``version`` (1-based), ``kind``, ``payload`` (a dict)."""

    version: int
    kind: str
    payload: dict[str, Any]
    time: float


@dataclass
class StoredRoom:
    """A room as stored: its creation row, seat token hashes and log (in version order)."""

    code: str
    created: float
    updated: float
    config: dict[str, Any]
    seed: int
    host_hash: str
    status: str
    seat_hashes: dict[int, str] = field(default_factory=dict)
    log: list[LogEntry] = field(default_factory=list)
    secret: bytes | None = field(default=None, repr=False)  # None: a room made before issue 13


@dataclass(frozen=True)
class RoomSummary:
    """What the read routes need of a room, without its log: ``status``, ``version``,
    ``config``, and ``snapshot`` (``{"public", "history"}`` as of version ``snapshot["public"]
    ["version"]``, or ``None``)."""

    code: str
    status: str
    version: int
    config: dict[str, Any]
    snapshot: dict[str, Any] | None


# Built once: building a statement per call (``insert(...).values(...)``) cost SQLAlchemy more
# than SQLite's own work, on the one database thread every move waits for (bench/web_load.py).
_INSERT_LOG = insert(room_log)
_UPDATE_ROOM = update(rooms).where(rooms.c.code == bindparam("room_code"))
_UPDATE_SNAPSHOT = update(rooms).where(rooms.c.code == bindparam("room_code")).values(snapshot=bindparam("snapshot"))


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class NewEntry:
    """One accepted command to append (for :meth:`Store.append_many`): room code, the room's new
    version, command kind and payload, time (Unix seconds), the room's status after it, and
    for a join the ``(seat, token hash)``."""

    code: str
    version: int
    kind: str
    payload: dict[str, Any]
    now: float
    status: str
    seat_hash: tuple[int, str] | None = None
    record: tuple[int, dict[str, Any]] | None = None  # (deal index, record) of a deal this command ended
    snapshot: dict[str, Any] | None = None  # the room's {"public", "history"} after this command


class Store:
    """The rooms database.

    Args:
        url: a SQLAlchemy URL (``sqlite:///getaway.db``, ``sqlite://`` in memory,
            ``postgresql+psycopg://…``); ``None``: :func:`database_url`.

    The database is migrated to the newest schema (:func:`migrate`): a new one gets every table,
    one made by an older version (even before migrations existed) is upgraded in place.
    """

    def __init__(self, url: str | None = None) -> None:
        self.url = database_url(url)
        kwargs: dict[str, Any] = {}
        sqlite = self.url.startswith("sqlite")
        if sqlite:
            kwargs["connect_args"] = {"check_same_thread": False}
            if self.url in ("sqlite://", "sqlite:///:memory:"):
                kwargs["poolclass"] = StaticPool  # one shared in-memory database
        self.engine: Engine = create_engine(self.url, **kwargs)
        if sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        migrate(self.engine)

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

    def ping(self) -> None:
        """Ask the database ``SELECT 1`` (the health check, ``/healthz``).

        Raises:
            sqlalchemy.exc.SQLAlchemyError: the database does not answer.
        """
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    # ------------------------------------------------------------------ writes

    def create_room(
        self,
        code: str,
        config: dict[str, Any],
        *,
        seed: int,
        host_hash: str,
        now: float,
        secret: bytes | None = None,
    ) -> bool:
        """Insert a new room (status ``lobby``, version 0); ``False`` if ``code`` is taken.
        ``secret``: the deal secret (kept as hex, never sent)."""
        row = {
            "secret": None if secret is None else secret.hex(),
            "code": code,
            "created": now,
            "updated": now,
            "config": _dumps(config),
            "seed": seed,
            "host_hash": host_hash,
            "status": "lobby",
            "version": 0,
        }
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(rooms).values(**row))
        except IntegrityError:
            return False
        return True

    def append(
        self,
        code: str,
        version: int,
        kind: str,
        payload: dict[str, Any],
        *,
        now: float,
        status: str,
        seat_hash: tuple[int, str] | None = None,
    ) -> None:
        """Append one accepted command and commit, in one transaction: the log row, the room's
        status/version/time, and (for a join) the seat's token hash.

        Raises:
            sqlalchemy.exc.IntegrityError: ``version`` already written (a second writer).
        """
        self._append_one(NewEntry(code, version, kind, payload, now, status, seat_hash))

    def _append_one(self, e: NewEntry) -> None:
        with self.engine.begin() as conn:
            log_row = {"room": e.code, "version": e.version, "kind": e.kind, "payload": _dumps(e.payload)}
            conn.execute(_INSERT_LOG, {**log_row, "time": e.now})
            room_row = {"room_code": e.code, "updated": e.now, "status": e.status, "version": e.version}
            conn.execute(_UPDATE_ROOM, room_row)
            if e.seat_hash is not None:
                conn.execute(insert(seats).values(room=e.code, seat=e.seat_hash[0], token_hash=e.seat_hash[1]))
            self._write_reads(conn, [e])

    @staticmethod
    def _write_reads(conn: Any, entries: list[NewEntry]) -> None:
        """The read side of ``entries``: finished deals' records and the rooms' snapshots."""
        records = [{"room": e.code, "deal": e.record[0], "record": _dumps(e.record[1])} for e in entries if e.record]
        if records:
            conn.execute(insert(room_deals), records)
        snapshots = {e.code: e.snapshot for e in entries if e.snapshot is not None}  # a room's latest
        if snapshots:
            conn.execute(_UPDATE_SNAPSHOT, [{"room_code": c, "snapshot": _dumps(s)} for c, s in snapshots.items()])

    def append_many(self, entries: list[NewEntry]) -> list[Exception | None]:
        """Group commit: append many accepted commands (of any rooms) in ONE transaction.

        Each room's worker waits for its own entry before broadcasting, so "committed before
        broadcast" holds for every room while the disk sees one commit per batch. If the batch
        fails (say one entry's version was already written), the entries are written one by one
        so that one bad entry does not sink the others.

        Returns:
            per entry, ``None`` (written) or the exception that refused it.
        """
        if not entries:
            return []
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    _INSERT_LOG,
                    [
                        {
                            "room": e.code,
                            "version": e.version,
                            "kind": e.kind,
                            "payload": _dumps(e.payload),
                            "time": e.now,
                        }
                        for e in entries
                    ],
                )
                last = {e.code: e for e in entries}  # a room's latest entry of the batch
                conn.execute(
                    _UPDATE_ROOM,
                    [
                        {"room_code": e.code, "updated": e.now, "status": e.status, "version": e.version}
                        for e in last.values()
                    ],
                )
                joins = [
                    {"room": e.code, "seat": e.seat_hash[0], "token_hash": e.seat_hash[1]}
                    for e in entries
                    if e.seat_hash
                ]
                if joins:
                    conn.execute(insert(seats), joins)
                self._write_reads(conn, entries)
            return [None] * len(entries)
        except Exception as exc:
            if len(entries) == 1:
                return [exc]
        results: list[Exception | None] = []
        for e in entries:
            try:
                self._append_one(e)
                results.append(None)
            except Exception as exc:
                results.append(exc)
        return results

    # ------------------------------------------------------------------ reads

    def load_room(self, code: str) -> StoredRoom | None:
        """The stored room ``code`` with its seats and full log, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(rooms).where(rooms.c.code == code)).mappings().first()
            if row is None:
                return None
            return self._load(conn, row)

    def log_after(self, code: str, version: int) -> list[LogEntry]:
        """Room ``code``'s log entries after ``version``, in order (how a process that follows a
        room owned by another catches up: web/broker.py)."""
        query = (
            select(room_log.c.version, room_log.c.kind, room_log.c.payload, room_log.c.time)
            .where(room_log.c.room == code, room_log.c.version > version)
            .order_by(room_log.c.version)
        )
        with self.engine.connect() as conn:
            return [LogEntry(r.version, r.kind, json.loads(r.payload), r.time) for r in conn.execute(query)]

    def unfinished(self, *, with_humans: bool = False) -> list[StoredRoom]:
        """Every room not ``finished`` nor ``closed`` (to rebuild at start-up), oldest first;
        ``with_humans``: only rooms where a person has taken a seat."""
        with self.engine.connect() as conn:
            live = select(rooms).where(rooms.c.status.not_in(["finished", "closed"])).order_by(rooms.c.created)
            if with_humans:
                live = live.where(select(seats.c.seat).where(seats.c.room == rooms.c.code).exists())
            rows = conn.execute(live).mappings().all()
            return [self._load(conn, row) for row in rows]

    def read_room(self, code: str) -> RoomSummary | None:
        """Room ``code``'s status, version, config and snapshot (one row, no log), or ``None``."""
        query = select(rooms.c.code, rooms.c.status, rooms.c.version, rooms.c.config, rooms.c.snapshot)
        with self.engine.connect() as conn:
            row = conn.execute(query.where(rooms.c.code == code)).first()
        if row is None:
            return None
        snapshot = None if row.snapshot is None else json.loads(row.snapshot)
        return RoomSummary(row.code, row.status, row.version, json.loads(row.config), snapshot)

    def read_record(self, code: str, index: int) -> dict[str, Any] | None:
        """The stored record of finished deal ``index`` of room ``code``, or ``None``."""
        query = select(room_deals.c.record).where(room_deals.c.room == code, room_deals.c.deal == index)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else json.loads(row.record)

    @staticmethod
    def _load(conn: Any, row: Any) -> StoredRoom:
        code = row["code"]
        query = select(seats.c.seat, seats.c.token_hash).where(seats.c.room == code)
        hashes = {r.seat: r.token_hash for r in conn.execute(query)}
        log = [
            LogEntry(r.version, r.kind, json.loads(r.payload), r.time)
            for r in conn.execute(
                select(room_log.c.version, room_log.c.kind, room_log.c.payload, room_log.c.time)
                .where(room_log.c.room == code)
                .order_by(room_log.c.version)
            )
        ]
        return StoredRoom(
            code=code,
            created=row["created"],
            updated=row["updated"],
            config=json.loads(row["config"]),
            seed=int(row["seed"]),
            host_hash=row["host_hash"],
            status=row["status"],
            seat_hashes=hashes,
            log=log,
            secret=None if row["secret"] is None else bytes.fromhex(row["secret"]),
        )


#: The PostgreSQL advisory lock that :func:`migrate` holds for its transaction (any fixed number).
MIGRATION_LOCK: Final = 0x6765_7461_7761_79  # "getaway"


def migrate(engine: Engine) -> str:
    """Upgrade the database of ``engine`` to the newest revision of :data:`MIGRATIONS`, in one
    transaction (on PostgreSQL a failed upgrade changes nothing, and processes that start
    together on one database migrate one after another: :data:`MIGRATION_LOCK`). Returns that revision.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: the database refused a step.
    """
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # processes started together: one migrates, the others wait
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL journal (readers do not block the writer) and NORMAL sync (a commit survives a
    process crash; only a power cut may lose the last commits)."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
    finally:
        cursor.close()
