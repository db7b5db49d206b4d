"""Storage: games as configuration + seed + decision log, never pickles (SQLAlchemy 2).

Two tables (schema managed by the Alembic migrations in ``migrations/``): ``games`` holds
each game's configuration, seed, status and seats (kind, bot spec, hashes of the join code and
of the seat token), ``steps`` every applied decision with the chance outcomes it caused. A
game is rebuilt by replaying its steps (``service.rebuild``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import socket
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeAlias

import platformdirs
from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    Select,
    String,
    Table,
    Text,
    cast,
    create_engine,
    delete,
    event,
    false,
    insert,
    select,
    true,
    type_coerce,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from ..rules.errors import KaladanError
from . import leases
from .leases import Holder, LeaseLost

log = logging.getLogger("kaladan.server")
WATCHDOG_GRACE = 2.0  # seconds beyond the timeout before a silent database is cut off

metadata = MetaData()

games = Table(
    "games", metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(200), nullable=False),
    # indexed: the lobby reads the newest games (migration 0004)
    Column("created", DateTime(timezone=True), nullable=False, index=True),
    Column("config", JSON, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("seats", JSON, nullable=False),
    Column("creator", String(64), nullable=True),  # hash of the creating client's address
    Column("seed_public", Boolean, nullable=False, server_default=false()),
    Column("problem", Text, nullable=True),  # why a damaged game was set aside
    Column("hints", Boolean, nullable=False, server_default=false()),  # advice on request
    # rated (migration 0006): only signed-in players take its human seats (ratings.py)
    Column("rated", Boolean, nullable=False, server_default=false()),
    # open seats (migration 0006): any signed-in player may take a free seat without a code
    Column("open_seats", Boolean, nullable=False, server_default=false()),
    # time controls (migration 0008, clocks.py): the clock's JSON and its running deadline,
    # indexed (the timer finds due games with one query); NULL for untimed games
    Column("clock", JSON, nullable=True),
    Column("deadline", DateTime(timezone=True), nullable=True, index=True),
    # a finished game (migration 0011): when its last decision was stored, and who won
    # ({"winners": [seats], "team": n | null}) for the lobby's list without a replay
    Column("finished", DateTime(timezone=True), nullable=True),
    Column("result", JSON, nullable=True),
)
QUARANTINED = "quarantined"  # the status of a game that cannot be rebuilt

steps = Table(
    "steps", metadata,
    Column("game_id", String(40), ForeignKey("games.id", ondelete="CASCADE"),
           primary_key=True),
    Column("index", Integer, primary_key=True, autoincrement=False),
    Column("seat", Integer, nullable=False),
    Column("action", Text, nullable=False),
    Column("chance", JSON, nullable=False),
)

# Accounts (migration 0006, server/accounts.py): players, their sessions, one-time e-mail
# links, and which account sits at which seat (also in the seat's stored JSON, ``account``).
accounts = Table(
    "accounts", metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(40), nullable=False),
    Column("name_key", String(100), nullable=True, unique=True),
    Column("password", Text, nullable=True),
    Column("email", String(254), nullable=True),
    Column("email_confirmed", Boolean, nullable=False, server_default=false()),
    Column("notify_email", Boolean, nullable=False, server_default=false()),
    Column("chat", Boolean, nullable=False, server_default=true()),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("deleted", DateTime(timezone=True), nullable=True),
)
sessions = Table(
    "sessions", metadata,
    Column("id", String(64), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("expires", DateTime(timezone=True), nullable=False),
)
email_tokens = Table(
    "email_tokens", metadata,
    Column("id", String(64), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("purpose", String(16), nullable=False),
    Column("email", String(254), nullable=True),
    Column("expires", DateTime(timezone=True), nullable=False),
)
game_players = Table(
    "game_players", metadata,
    Column("game_id", String(40), ForeignKey("games.id", ondelete="CASCADE"),
           primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False, index=True),
)

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATION_LOCK = 0x6B616C6164616E  # PostgreSQL advisory lock key held while migrating
# The steps writer's statements on SQLite (``Store._write_sqlite``).
INSERT_STEPS = ('INSERT INTO steps (game_id, "index", seat, action, chance) '
                "VALUES (?, ?, ?, ?, ?)")
UPDATE_STATUS = "UPDATE games SET status = ? WHERE id = ?"
UPDATE_CLOCK = "UPDATE games SET clock = ?, deadline = ? WHERE id = ?"
SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"  # how SQLAlchemy's DateTime writes a time on SQLite


class StorageError(KaladanError):
    """The database cannot be opened or migrated (bad URL, server down, missing driver)."""


class DamagedGame(KaladanError):
    """A stored game that cannot be read back as a game (a damaged row)."""


class CommitUnknown(KaladanError):
    """The database failed while committing: the steps may or may not be stored (the
    reply to COMMIT was lost). The caller reads back what is stored to know."""


class RowBusy(KaladanError):
    """A game's row is locked by another transaction: its steps are written apart from the
    batch (``StepWriter``), so one locked game never holds up the others."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    id: str
    name: str
    created: datetime
    config: dict[str, Any]
    seed: int
    status: str
    seats: list[dict[str, Any]]
    steps: list[tuple[int, str, list[int]]]  # (seat, action text, chance)
    creator: str | None = None
    seed_public: bool = False
    hints: bool = False
    rated: bool = False
    open_seats: bool = False
    clock: dict[str, Any] | None = None  # a timed game's clock (clocks.py)
    finished: datetime | None = None  # when a finished game's last decision was stored
    result: dict[str, Any] | None = None  # its winners ({"winners": [...], "team": ...})


# A timed game's clock as stored with its steps: its JSON and its running deadline.
StoredClock: TypeAlias = tuple[dict[str, Any], datetime | None]


@dataclass(slots=True)
class QueuedSteps:
    """One game's new steps (and status) waiting to be committed (``StepWriter``)."""

    game_id: str
    rows: list[dict[str, Any]]
    status: str | None
    done: bool = False
    error: Exception | None = None
    # (owner, token): stored only while that process holds the game's lease (leases.py)
    fence: tuple[str, int] | None = None
    clock: StoredClock | None = None  # a timed game's clock after these steps


def commit_batch(store: Store, batch: Sequence[QueuedSteps]) -> None:
    """Write a batch in one transaction; every item ends done, with its error if it was
    refused. A refused batch is retried game by game, so one game's failure stays its own."""
    try:
        store.write_steps(batch)
    except Exception as exc:
        if len(batch) == 1 or isinstance(exc, CommitUnknown):  # may be stored: no retry
            for item in batch:
                if item.error is None:
                    item.error = exc
        else:
            for item in batch:
                if item.error is not None:  # a busy row (``RowBusy``): written apart
                    continue
                try:
                    store.write_steps([item])
                except Exception as single:
                    item.error = single
    for item in batch:
        item.done = True


Waiting: TypeAlias = tuple[QueuedSteps, "asyncio.Future[None]", asyncio.AbstractEventLoop]


class StepWriter:
    """Stores the steps that games on an event loop make, on one thread of its own.

    ``add_steps`` queues a game's steps and returns a future; the thread takes everything
    queued, writes it in one transaction (``commit_batch``) and settles the batch's futures
    with one call into the loop. On PostgreSQL a game whose row another transaction holds
    is left out of the batch (``RowBusy``) and written by a thread of ``apart``, which waits
    for the row (at most the database timeout) while this thread writes the other games'
    steps. A worker thread per decision cost the server a third of its
    time per action: each hand-off woke a thread on the other core, and the game's objects
    moved between the cores' caches (bench/bench_server.py, docs/server.md).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.changed = threading.Condition()
        self.queue: list[Waiting] = []
        self.closed = False
        self.thread: threading.Thread | None = None
        self.apart: ThreadPoolExecutor | None = None  # games whose row is busy (``RowBusy``)

    def add_steps(self, game_id: str, first: int,
                  new: Sequence[tuple[int, str, Sequence[int]]],
                  status: str | None = None,
                  fence: tuple[str, int] | None = None,
                  clock: StoredClock | None = None) -> asyncio.Future[None]:
        """What ``Store.add_steps`` stores, as a future of the running loop: done once the
        steps are committed, with the database's error if they were refused (``LeaseLost``
        when ``fence``, the writer's (owner, token), no longer holds the game's lease).
        ``clock``: a timed game's clock, stored with them (or alone: a seat taken back)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if not new and clock is None:
            done.set_result(None)
            return done
        item = QueuedSteps(game_id, step_rows(game_id, first, new), status, fence=fence,
                           clock=clock)
        with self.changed:
            if self.closed:
                done.set_exception(StorageError("the server is stopping"))
                return done
            self.queue.append((item, done, loop))
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="kaladan-steps",
                                               daemon=True)
                self.thread.start()
            self.changed.notify()
        return done

    def close(self) -> None:
        """Write what is queued, then stop the thread."""
        with self.changed:
            self.closed = True
            self.changed.notify()
            thread = self.thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        while True:
            with self.changed:
                while not self.queue and not self.closed:
                    self.changed.wait()
                batch, self.queue = self.queue, []
            if not batch:
                if self.apart is not None:
                    self.apart.shutdown(wait=True)
                return  # closed, and nothing left to write
            commit_batch(self.store, [item for item, _, _ in batch])
            busy = [w for w in batch if isinstance(w[0].error, RowBusy)]
            _settle_all([w for w in batch if not isinstance(w[0].error, RowBusy)])
            if busy:
                # A game whose row another transaction holds waits on a thread of its own
                # (at most the database timeout): the other games' steps are committed.
                if self.apart is None:
                    self.apart = ThreadPoolExecutor(max_workers=4,
                                                    thread_name_prefix="kaladan-busy")
                for waiting in busy:
                    self.apart.submit(self._write_apart, waiting)

    def _write_apart(self, waiting: Waiting) -> None:
        item = waiting[0]
        item.error = None
        try:
            self.store.write_steps([item], wait=True)
        except Exception as exc:
            item.error = exc
        _settle_all([waiting])


def _settle_all(batch: list[Waiting]) -> None:
    """Settle the futures of written items with one call into each loop."""
    loops: dict[asyncio.AbstractEventLoop, list[Waiting]] = {}
    for waiting in batch:
        loops.setdefault(waiting[2], []).append(waiting)
    for loop, settled in loops.items():
        with suppress(RuntimeError):  # the loop has closed: nobody waits
            loop.call_soon_threadsafe(_settle, settled)


def _settle(batch: list[Waiting]) -> None:
    for item, done, _ in batch:
        if done.done():
            continue
        if item.error is None:
            done.set_result(None)
        else:
            done.set_exception(item.error)


def step_rows(game_id: str, first: int,
              new: Sequence[tuple[int, str, Sequence[int]]]) -> list[dict[str, Any]]:
    """The ``steps`` rows of decisions ``(seat, action, chance)`` numbered from ``first``."""
    return [{"game_id": game_id, "index": first + i, "seat": seat, "action": action,
             "chance": list(chance)} for i, (seat, action, chance) in enumerate(new)]


def chance_json(chance: Sequence[int]) -> str:
    """A step's chance outcomes (whole numbers) as the JSON text SQLAlchemy's JSON type
    writes (``json.dumps``), without the cost of a JSON encoder per step.

    >>> chance_json([3, 0, 5])  # json.dumps([3, 0, 5])
    '[3, 0, 5]'
    """
    return "[" + ", ".join([str(int(x)) for x in chance]) + "]"


def default_database_url() -> str:
    """A SQLite file in the user's data directory (created when missing)."""
    folder = Path(platformdirs.user_data_dir("kaladan"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'kaladan.sqlite3'}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL + NORMAL: a killed server process loses nothing that was committed; readers never
    # wait for the writer.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def aware(moment: datetime) -> datetime:
    """SQLite returns naive datetimes; every stored time is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# The games columns as the database holds them: the JSON and time columns as text, read
# by ``stored_game`` one row at a time. Through SQLAlchemy's JSON and DateTime types a
# damaged value raised while the row was fetched, outside any one game's handling.
RAW_GAME = (games.c.id, games.c.name, type_coerce(games.c.created, Text).label("created"),
            type_coerce(games.c.config, Text).label("config"), games.c.seed, games.c.status,
            type_coerce(games.c.seats, Text).label("seats"), games.c.creator,
            games.c.seed_public, games.c.hints, games.c.rated, games.c.open_seats,
            type_coerce(games.c.clock, Text).label("clock"),
            type_coerce(games.c.finished, Text).label("finished"),
            type_coerce(games.c.result, Text).label("result"))


def json_value(value: Any) -> Any:
    """A JSON column's value: PostgreSQL's driver has decoded it, SQLite's gives text."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def json_list(value: Any) -> list[Any]:
    decoded = json_value(value)
    if not isinstance(decoded, list):
        raise TypeError(f"a JSON list was expected, not {decoded!r:.80}")
    return decoded


def stored_time(value: Any) -> datetime:
    """A ``created`` value: a datetime from PostgreSQL's driver, text from SQLite."""
    if isinstance(value, datetime):
        return aware(value)
    if not isinstance(value, str):
        raise TypeError(f"a time was expected, not {value!r:.80}")
    return aware(datetime.fromisoformat(value))  # ValueError when it is not a time


def lobby_query(limit: int) -> Select[Any]:
    """The newest ``limit`` games that are not set aside: a backward walk of the index on
    ``created`` that stops after ``limit`` rows (without it, every stored game was read and
    sorted on each request)."""
    return (select(*RAW_GAME).where(games.c.status != QUARANTINED)
            .order_by(games.c.created.desc()).limit(limit))


def steps_query(game_id: str, first: int = 0) -> Select[Any]:
    """A game's stored steps from index ``first`` on, in order, the chance as its text."""
    return (select(steps.c.seat, steps.c.action,
                   type_coerce(steps.c.chance, Text).label("chance"))
            .where(steps.c.game_id == game_id, steps.c.index >= first)
            .order_by(steps.c.index))


def step_tuples(rows: Sequence[Any]) -> list[tuple[int, str, list[int]]]:
    """``steps_query`` rows as (seat, action, chance); TypeError or ValueError when one is
    damaged."""
    return [(int(r.seat), str(r.action), [int(x) for x in json_list(r.chance)])
            for r in rows]


def stored_game(r: Any) -> StoredGame:
    """A ``RAW_GAME`` row as a game without its steps; TypeError or ValueError (json's
    decode error is one) when it cannot be one."""
    config = json_value(r.config)
    if not isinstance(config, dict):
        raise TypeError(f"a JSON object was expected, not {config!r:.80}")
    clock = None if r.clock is None else json_value(r.clock)
    if clock is not None and not isinstance(clock, dict):
        raise TypeError(f"a JSON object was expected, not {clock!r:.80}")
    result = None if r.result is None else json_value(r.result)
    if result is not None and not isinstance(result, dict):
        raise TypeError(f"a JSON object was expected, not {result!r:.80}")
    return StoredGame(str(r.id), str(r.name), stored_time(r.created), config, int(r.seed),
                      str(r.status), json_list(r.seats), [], r.creator, bool(r.seed_public),
                      bool(r.hints), bool(r.rated), bool(r.open_seats), clock,
                      None if r.finished is None else stored_time(r.finished), result)


class Watchdog:
    """PostgreSQL: cuts the connections of a database that stopped answering.

    The server-side ``statement_timeout`` and ``lock_timeout`` end a slow statement or a
    lock wait, but a frozen server (a stopped process, a host that hangs) answers nothing,
    and the driver waits on its socket for ever. Every storage call runs under a deadline
    (the timeout and a grace); a call that overruns it shuts the sockets of every
    connection of the pool down, so the waiting driver calls fail at once (a frozen
    server's connections are all stuck alike). A transaction cut before its COMMIT is
    never committed (the server rolls it back when it reads the closed socket).
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.connections: weakref.WeakSet[Any] = weakref.WeakSet()
        self.deadlines: dict[int, float] = {}
        self.changed = threading.Condition()
        self.thread: threading.Thread | None = None
        self.cuts = 0  # how many times the connections were cut (tests, logs)

    def add(self, dbapi_connection: Any, _record: Any) -> None:
        with self.changed:
            self.connections.add(dbapi_connection)

    @contextmanager
    def deadline(self) -> Iterator[None]:
        token = object()
        with self.changed:
            self.deadlines[id(token)] = time.monotonic() + self.seconds
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="kaladan-db-watchdog",
                                               daemon=True)
                self.thread.start()
            self.changed.notify()
        try:
            yield
        finally:
            with self.changed:
                del self.deadlines[id(token)]

    def _run(self) -> None:
        while True:
            with self.changed:
                now = time.monotonic()
                first = min((when for when in self.deadlines.values() if when < math.inf),
                            default=None)
                if first is None or first > now:
                    self.changed.wait(None if first is None else first - now)
                    continue
                for key in [k for k, when in self.deadlines.items() if when <= now]:
                    self.deadlines[key] = math.inf  # cut once per call
                connections = list(self.connections)
                self.cuts += 1
            log.error("the database has not answered for %.1f s: its connections are cut",
                      self.seconds)
            for connection in connections:
                _shut_down(connection)


def _shut_down(connection: Any) -> None:
    """Shut a driver connection's socket down (both ways): its pending reads end at once.
    The descriptor stays the driver's (``shutdown`` acts on the socket, ``close`` of the
    duplicate only on the duplicate)."""
    with suppress(Exception):  # closed meanwhile
        duplicate = socket.socket(fileno=os.dup(connection.fileno()))
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        finally:
            duplicate.close()


def postgres_connect_args(timeout: float) -> dict[str, Any]:
    """libpq options bounding every wait by ``timeout``: connecting (whole seconds, at
    least 2, libpq's own floor), a statement, a lock wait."""
    ms = max(1, round(timeout * 1000))
    return {"connect_timeout": max(2, math.ceil(timeout)),
            "options": f"-c statement_timeout={ms} -c lock_timeout={ms}"}


class Store:
    """Synchronous storage; the service calls it from worker threads (steps from its
    ``StepWriter``'s), never the event loop."""

    def __init__(self, url: str, timeout: float = 30.0, lease_seconds: float = 5.0) -> None:
        self.lease_seconds = lease_seconds  # how long a lease lasts unrenewed (leases.py)
        try:
            parsed = make_url(url)
        except ArgumentError as exc:
            raise StorageError(f"bad database URL {url!r}: {exc}") from exc
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self.timeout = timeout
        self.watchdog: Watchdog | None = None
        try:
            if self.is_sqlite:
                self.engine: Engine = create_engine(
                    url, connect_args={"check_same_thread": False, "timeout": timeout})
                event.listen(self.engine, "connect", _sqlite_pragmas)
            else:
                connect_args = (postgres_connect_args(timeout)
                                if parsed.get_backend_name() == "postgresql" else {})
                # pool_timeout: a call waiting for a free connection (all of them busy
                # with a stuck database) waits no longer than for the database itself
                self.engine = create_engine(url, pool_size=10, max_overflow=10,
                                            pool_pre_ping=True, connect_args=connect_args,
                                            pool_timeout=max(1.0, timeout))
                if connect_args:
                    self.watchdog = Watchdog(timeout + WATCHDOG_GRACE)
                    event.listen(self.engine, "connect", self.watchdog.add)
        except Exception as exc:  # unknown dialect or driver not installed
            raise StorageError(f"cannot use database URL {parsed!r}: {exc}") from exc
        # SQLite has one writer at a time; serialising here avoids "database is locked".
        self._write_lock = threading.Lock() if self.is_sqlite else None
        # SQLite: the steps' own driver connection, kept open (``_write_sqlite``)
        self._steps_connection: Any = None

    def upgrade(self) -> None:
        """Bring the schema to the newest migration (run on every start)."""
        config = AlembicConfig()
        config.set_main_option("script_location", str(MIGRATIONS))
        if self.is_sqlite:
            self._upgrade_sqlite(config)
            return
        try:
            with self.engine.begin() as connection:
                if self.engine.dialect.name == "postgresql":
                    # a migration may build an index over every stored game: it is not a
                    # player's call, so the per-call statement timeout does not bound it
                    connection.exec_driver_sql("SET LOCAL statement_timeout = 0")
                    connection.exec_driver_sql("SET LOCAL lock_timeout = 0")
                    # several processes starting at once migrate one after the other
                    # (the lock is let go at the transaction's end)
                    connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
        except Exception as exc:
            raise StorageError(f"cannot open or migrate the database "
                               f"{self.engine.url!r}: {exc}") from exc

    def _upgrade_sqlite(self, config: AlembicConfig) -> None:
        """SQLite changes a table's columns by copying it to a new table and dropping the
        old one (Alembic's batch mode). With foreign keys on, dropping ``games`` would
        delete every game's steps (ON DELETE CASCADE): the migrations run with them off,
        and the keys are checked before the upgrade is committed."""
        try:
            with self.engine.connect() as connection:
                # outside a transaction, or SQLite ignores it
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                connection.commit()
                try:
                    with connection.begin():
                        config.attributes["connection"] = connection
                        command.upgrade(config, "head")
                        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
                        if broken:
                            raise StorageError(f"the migrated rows break {len(broken)} "
                                               f"foreign keys, e.g. {tuple(broken[0])}")
                finally:
                    connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                    connection.commit()
        except Exception as exc:
            raise StorageError(f"cannot open or migrate the database "
                               f"{self.engine.url!r}: {exc}") from exc

    def migrations_current(self) -> bool:
        """The database answers and its schema is at the newest migration (``/readyz``)."""
        from alembic.script import ScriptDirectory

        config = AlembicConfig()
        config.set_main_option("script_location", str(MIGRATIONS))
        head = ScriptDirectory.from_config(config).get_current_head()
        with self._read() as c:
            row = c.exec_driver_sql("SELECT version_num FROM alembic_version").first()
        return row is not None and row[0] == head

    def dispose(self) -> None:
        if self._write_lock is not None:
            with self._write_lock:
                self._drop_steps_connection()
        self.engine.dispose()

    @contextmanager
    def _deadline(self) -> Iterator[None]:
        """PostgreSQL: the call's connections are cut when the database stays silent past
        the timeout (``Watchdog``)."""
        if self.watchdog is None:
            yield
            return
        with self.watchdog.deadline():
            yield

    def reading(self) -> contextlib.AbstractContextManager[Connection]:
        """A connection for reading (the other tables' modules: accounts.py)."""
        return self._read()

    def writing(self) -> contextlib.AbstractContextManager[Connection]:
        """A transaction, committed at the end (SQLite: one writer at a time)."""
        return self._write()

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._deadline(), self.engine.connect() as connection:
            yield connection

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        if self._write_lock is None:
            with self._deadline(), self.engine.begin() as connection:
                yield connection
            return
        with self._write_lock, self.engine.begin() as connection:
            yield connection

    def create_game(self, game_id: str, name: str, created: datetime, config: dict[str, Any],
                    seed: int, status: str, seats: Sequence[dict[str, Any]],
                    creator: str | None = None, seed_public: bool = False,
                    hints: bool = False, rated: bool = False,
                    open_seats: bool = False, clock: StoredClock | None = None) -> None:
        timed = {} if clock is None else {"clock": clock[0], "deadline": clock[1]}
        with self._write() as c:
            c.execute(insert(games).values(id=game_id, name=name, created=created,
                                           config=config, seed=seed, status=status,
                                           seats=list(seats), creator=creator,
                                           seed_public=seed_public, hints=hints,
                                           rated=rated, open_seats=open_seats,
                                           **timed))
            # seats that are signed-in players' from the start (a rematch, rematch.py)
            players = [{"game_id": game_id, "seat": i, "account_id": s["account"]}
                       for i, s in enumerate(seats) if s.get("account")]
            if players:
                c.execute(insert(game_players), players)

    def quarantine(self, game_id: str, problem: str) -> None:
        """Set a damaged game aside: out of the lobby, never loaded again (docs/server.md)."""
        with self._write() as c:
            c.execute(update(games).where(games.c.id == game_id)
                      .values(status=QUARANTINED, problem=problem[:2000]))

    def update_game(self, game_id: str, *, status: str | None = None,
                    seats: Sequence[dict[str, Any]] | None = None) -> None:
        values: dict[str, Any] = {}
        if status is not None:
            values["status"] = status
        if seats is not None:
            values["seats"] = list(seats)
        if values:
            with self._write() as c:
                c.execute(update(games).where(games.c.id == game_id).values(**values))

    def add_steps(self, game_id: str, first: int, new: Sequence[tuple[int, str, Sequence[int]]],
                  status: str | None = None, fence: tuple[str, int] | None = None) -> None:
        """Append decisions ``(seat, action, chance)`` numbered from ``first``, and the new
        status, in one transaction; returns once they are committed (``LeaseLost`` when
        ``fence`` no longer holds the game's lease). (The server stores through its
        ``StepWriter``, which commits several games' steps together.)"""
        if not new:
            return
        item = QueuedSteps(game_id, step_rows(game_id, first, new), status, fence=fence)
        commit_batch(self, [item])
        if item.error is not None:
            raise item.error

    def write_steps(self, batch: Sequence[QueuedSteps], wait: bool = False) -> None:
        """Several games' new steps and statuses in one transaction (``commit_batch``).

        On PostgreSQL the games' rows are locked first, skipping the rows another
        transaction holds (unless ``wait``): those items end with ``RowBusy`` and are not
        written, the others are. A failure of the COMMIT itself is ``CommitUnknown``: the
        steps may be stored."""
        if self._write_lock is not None:
            with self._write_lock:
                self._write_sqlite(batch)
            return
        with self._deadline(), self.engine.connect() as c:
            batch = self._fence(c, batch)
            if not wait and self.engine.dialect.name == "postgresql":
                batch = self._lock_rows(c, batch)
            rows = [row for item in batch for row in item.rows]
            if rows:
                c.execute(insert(steps), rows)
            for item in batch:
                if item.status is not None:
                    c.execute(update(games).where(games.c.id == item.game_id)
                              .values(status=item.status))
                if item.clock is not None:  # timed games only: untimed ones write nothing more
                    c.execute(update(games).where(games.c.id == item.game_id)
                              .values(clock=item.clock[0], deadline=item.clock[1]))
            try:
                c.commit()
            except DBAPIError as exc:
                raise CommitUnknown(f"the database failed while committing: {exc}") from exc

    def _fence(self, c: Connection, batch: Sequence[QueuedSteps]) -> list[QueuedSteps]:
        """The items whose writer still holds its game's lease, each lease renewed (and
        locked until the commit, in game-id order: ``leases``); the others get
        ``LeaseLost`` and are not written. One statement per owner (a process's batch has
        one)."""
        kept = [item for item in batch if item.fence is None]
        owners: dict[str, dict[str, int]] = {}
        for item in batch:
            if item.fence is not None:
                owners.setdefault(item.fence[0], {})[item.game_id] = item.fence[1]
        held: set[tuple[str, str]] = set()
        for owner, tokens in owners.items():
            held |= {(owner, game) for game in leases.fence(c, tokens, owner,
                                                            self.lease_seconds)}
        for item in batch:
            if item.fence is None:
                continue
            if (item.fence[0], item.game_id) in held:
                kept.append(item)
            else:
                item.error = LeaseLost(f"this process no longer holds the lease of game "
                                       f"{item.game_id}")
        return kept

    @staticmethod
    def _lock_rows(c: Connection, batch: Sequence[QueuedSteps]) -> list[QueuedSteps]:
        """Lock the batch's game rows as the writes need them (the steps' foreign key: KEY
        SHARE; a new status: NO KEY UPDATE), skipping rows locked by others. Returns the
        items whose rows are locked; the others get ``RowBusy``."""
        got: set[str] = set()
        for share in (False, True):  # NO KEY UPDATE for a new status, else KEY SHARE
            ids = [i.game_id for i in batch
                   if (i.status is None and i.clock is None) == share]
            if ids:
                query = (select(games.c.id).where(games.c.id.in_(ids))
                         .with_for_update(skip_locked=True, key_share=True, read=share))
                got.update(str(r.id) for r in c.execute(query))
        kept = []
        for item in batch:
            if item.game_id in got:
                kept.append(item)
            else:
                item.error = RowBusy(f"the row of game {item.game_id} is locked by another "
                                     "transaction")
        return kept

    def _write_sqlite(self, batch: Sequence[QueuedSteps]) -> None:
        """``write_steps`` on SQLite, write lock held: plain SQL on a driver connection kept
        open, the same rows and JSON text as SQLAlchemy writes. Going through SQLAlchemy
        (a pooled connection, a compiled statement, the JSON type) cost about 0.3 ms a
        batch, more than the commit itself. A refusal rolls back, drops the connection
        (the next batch opens a new one) and is raised as SQLAlchemy's error."""
        rows = [(row["game_id"], row["index"], row["seat"], row["action"],
                 chance_json(row["chance"])) for item in batch for row in item.rows]
        statuses = [(item.status, item.game_id) for item in batch if item.status is not None]
        clocks = [(json.dumps(item.clock[0]), sqlite_time(item.clock[1]), item.game_id)
                  for item in batch if item.clock is not None]
        connection = self._steps_connection
        if connection is None:
            connection = self._steps_connection = self.engine.raw_connection()
        statement = INSERT_STEPS
        try:
            cursor = connection.cursor()
            try:
                if rows:
                    cursor.executemany(INSERT_STEPS, rows)
                statement = UPDATE_STATUS
                if statuses:
                    cursor.executemany(UPDATE_STATUS, statuses)
                statement = UPDATE_CLOCK
                if clocks:
                    cursor.executemany(UPDATE_CLOCK, clocks)
            finally:
                cursor.close()
            statement = "COMMIT"
            connection.commit()
        except Exception as exc:
            self._drop_steps_connection()
            error = self.engine.dialect.loaded_dbapi.Error
            if isinstance(exc, error):
                raise DBAPIError.instance(statement, None, exc, error) from exc
            raise

    def _drop_steps_connection(self) -> None:
        """Close the steps' connection (rolling back what it had not committed)."""
        connection, self._steps_connection = self._steps_connection, None
        if connection is not None:
            with suppress(Exception):  # a broken connection is closed all the same
                connection.rollback()
            connection.invalidate()

    # --- several processes (leases.py, docs/server.md "Scaling out") ---------------------

    def acquire_lease(self, game_id: str, owner: str) -> int | None:
        with self._write() as c:
            return leases.acquire(c, game_id, owner, self.lease_seconds)

    def renew_leases(self, owner: str) -> set[str]:
        with self._write() as c:
            return leases.renew(c, owner, self.lease_seconds)

    def release_leases(self, game_ids: Sequence[str], owner: str) -> None:
        with self._write() as c:
            leases.release(c, game_ids, owner)

    def hand_over_leases(self, owner: str) -> None:
        with self._write() as c:
            leases.hand_over(c, owner)

    def lease_holder(self, game_id: str) -> Holder | None:
        with self._read() as c:
            return leases.holder(c, game_id)

    def expired_leases(self, limit: int = 20) -> list[str]:
        with self._read() as c:
            return leases.expired(c, limit)

    def steps_after(self, game_id: str, version: int) -> list[tuple[int, str, list[int]]]:
        """The stored steps from index ``version`` on (a copy catching up)."""
        with self._read() as c:
            rows = c.execute(steps_query(game_id, version)).all()
        return step_tuples(rows)

    def set_finished(self, game_id: str, at: datetime, result: dict[str, Any]) -> None:
        """Record when a game finished and who won, once (a second call changes nothing:
        the first process to store the end wrote it)."""
        with self._write() as c:
            c.execute(update(games).where(games.c.id == game_id, games.c.finished.is_(None))
                      .values(finished=at, result=result))

    def seats_text(self, game_id: str) -> str | None:
        """A game's seats as the JSON text stored (None: no such game, or set aside): what
        ``replace_seats`` compares against."""
        with self._read() as c:
            row = c.execute(select(cast(games.c.seats, Text).label("seats"),
                                   games.c.status).where(games.c.id == game_id)).first()
        if row is None or row.status == QUARANTINED:
            return None
        return str(row.seats)

    def replace_seats(self, game_id: str, old: str, seats: Sequence[dict[str, Any]],
                      status: str, player: tuple[int, str] | None = None) -> bool:
        """Compare-and-set: store ``seats`` and ``status`` only if the stored seats are still
        the text ``old``; False when another request changed them first (a join raced on
        two processes). ``player`` (seat, account id) is the signed-in player now sitting
        at that seat, recorded in the same transaction."""
        with self._write() as c:
            done = c.execute(update(games).where(games.c.id == game_id,
                                                 cast(games.c.seats, Text) == old)
                             .values(seats=list(seats), status=status))
            if done.rowcount != 1:
                return False
            if player is not None:
                c.execute(delete(game_players).where(game_players.c.game_id == game_id,
                                                     game_players.c.seat == player[0]))
                c.execute(insert(game_players).values(game_id=game_id, seat=player[0],
                                                      account_id=player[1]))
            return True

    def rename_player(self, game_ids: Sequence[str], account_id: str, name: str) -> None:
        """Show ``name`` at every seat of ``account_id`` in these games (a deleted account:
        "deleted player")."""
        for game_id in game_ids:
            with self._write() as c:
                row = c.execute(select(cast(games.c.seats, Text).label("seats"))
                                .where(games.c.id == game_id)).first()
                if row is None:
                    continue
                try:
                    seats = json.loads(row.seats)
                    for seat in seats:
                        if seat.get("account") == account_id:
                            seat["name"] = name
                except (ValueError, TypeError, AttributeError):
                    continue  # a damaged row keeps what it has
                c.execute(update(games).where(games.c.id == game_id).values(seats=seats))

    def load(self, game_id: str) -> StoredGame | None:
        """One game with its steps; None when there is no such game (or it was set aside).
        Raises DamagedGame when the row cannot be read as a game, and the database's own
        error when it cannot be reached."""
        with self._read() as c:
            row = c.execute(select(*RAW_GAME).where(games.c.id == game_id)).first()
            if row is None or row.status == QUARANTINED:
                return None
            rows = c.execute(steps_query(game_id)).all()
        try:
            return replace(stored_game(row), steps=step_tuples(rows))
        except (TypeError, ValueError, AttributeError) as exc:
            raise DamagedGame(f"game {game_id} cannot be read: {exc!r}") from exc

    def recent(self, limit: int) -> tuple[list[StoredGame], list[str]]:
        """The newest games without their steps (for the lobby; the query walks the index
        on ``created``), and the ids of the rows among them that cannot be read as games
        (the caller sets them aside)."""
        out, damaged = [], []
        with self._read() as c:
            for r in c.execute(lobby_query(limit)):
                try:
                    out.append(stored_game(r))
                except (TypeError, ValueError, AttributeError):
                    damaged.append(str(r.id))
        return out, damaged

    def game_ids(self, unfinished_only: bool = False) -> list[str]:
        query = select(games.c.id).where(games.c.status != QUARANTINED).order_by(games.c.created)
        if unfinished_only:
            query = query.where(games.c.status != "over")
        with self._read() as c:
            return [str(r.id) for r in c.execute(query)]

    # --- time controls (clocks.py, docs/server.md "Time controls") -----------------------

    def clock_of(self, game_id: str) -> dict[str, Any] | None:
        """A timed game's stored clock (None: untimed, or no such game)."""
        with self._read() as c:
            row = c.execute(select(type_coerce(games.c.clock, Text).label("clock"))
                            .where(games.c.id == game_id)).first()
        if row is None or row.clock is None:
            return None
        clock = json_value(row.clock)
        return clock if isinstance(clock, dict) else None

    def due_games(self, before: datetime, limit: int = 100) -> list[str]:
        """Unfinished games whose running deadline is at or before ``before``, earliest
        first (a walk of the index on ``deadline``)."""
        query = (select(games.c.id).where(games.c.deadline <= before,
                                          games.c.status != QUARANTINED,
                                          games.c.status != "over")
                 .order_by(games.c.deadline).limit(limit))
        with self._read() as c:
            return [str(r.id) for r in c.execute(query)]


def sqlite_time(moment: datetime | None) -> str | None:
    """A UTC time as SQLAlchemy's DateTime stores it on SQLite (text that sorts as time)."""
    return None if moment is None else moment.astimezone(UTC).strftime(SQLITE_TIME)
