"""Storage: games as configuration + seed + decision log, never pickles (SQLAlchemy 2).

Two tables (schema managed by the Alembic migrations in ``migrations/``): ``games`` holds
each game's configuration, seed, status and seats (kind, bot spec, hashes of the join code and
of the seat token), ``steps`` every applied decision with the chance outcomes it caused. A
game is rebuilt by replaying its steps (``service.rebuild``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
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
    String,
    Table,
    Text,
    create_engine,
    event,
    false,
    insert,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from ..rules.errors import KaladanError

metadata = MetaData()

games = Table(
    "games", metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("config", JSON, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("seats", JSON, nullable=False),
    Column("creator", String(64), nullable=True),  # hash of the creating client's address
    Column("seed_public", Boolean, nullable=False, server_default=false()),
    Column("problem", Text, nullable=True),  # why a damaged game was set aside
    Column("hints", Boolean, nullable=False, server_default=false()),  # advice on request
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

MIGRATIONS = Path(__file__).with_name("migrations")
# The steps writer's statements on SQLite (``Store._write_sqlite``).
INSERT_STEPS = ('INSERT INTO steps (game_id, "index", seat, action, chance) '
                "VALUES (?, ?, ?, ?, ?)")
UPDATE_STATUS = "UPDATE games SET status = ? WHERE id = ?"


class StorageError(KaladanError):
    """The database cannot be opened or migrated (bad URL, server down, missing driver)."""


class DamagedGame(KaladanError):
    """A stored game that cannot be read back as a game (a damaged row)."""


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


@dataclass(slots=True)
class QueuedSteps:
    """One game's new steps (and status) waiting to be committed (``StepWriter``)."""

    game_id: str
    rows: list[dict[str, Any]]
    status: str | None
    done: bool = False
    error: Exception | None = None


def commit_batch(store: Store, batch: Sequence[QueuedSteps]) -> None:
    """Write a batch in one transaction; every item ends done, with its error if it was
    refused. A refused batch is retried game by game, so one game's failure stays its own."""
    try:
        store.write_steps(batch)
    except Exception as exc:
        if len(batch) == 1:
            batch[0].error = exc
        else:
            for item in batch:
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
    with one call into the loop. A worker thread per decision cost the server a third of its
    time per action: each hand-off woke a thread on the other core, and the game's objects
    moved between the cores' caches (bench/bench_server.py, docs/server.md).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.changed = threading.Condition()
        self.queue: list[Waiting] = []
        self.closed = False
        self.thread: threading.Thread | None = None

    def add_steps(self, game_id: str, first: int,
                  new: Sequence[tuple[int, str, Sequence[int]]],
                  status: str | None = None) -> asyncio.Future[None]:
        """What ``Store.add_steps`` stores, as a future of the running loop: done once the
        steps are committed, with the database's error if they were refused."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if not new:
            done.set_result(None)
            return done
        item = QueuedSteps(game_id, step_rows(game_id, first, new), status)
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
                return  # closed, and nothing left to write
            commit_batch(self.store, [item for item, _, _ in batch])
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


class Store:
    """Synchronous storage; the service calls it from worker threads (steps from its
    ``StepWriter``'s), never the event loop."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        try:
            parsed = make_url(url)
        except ArgumentError as exc:
            raise StorageError(f"bad database URL {url!r}: {exc}") from exc
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        try:
            if self.is_sqlite:
                self.engine: Engine = create_engine(
                    url, connect_args={"check_same_thread": False, "timeout": timeout})
                event.listen(self.engine, "connect", _sqlite_pragmas)
            else:
                self.engine = create_engine(url, pool_size=10, max_overflow=10,
                                            pool_pre_ping=True)
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
        try:
            with self.engine.begin() as connection:
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
        except Exception as exc:
            raise StorageError(f"cannot open or migrate the database "
                               f"{self.engine.url!r}: {exc}") from exc

    def dispose(self) -> None:
        if self._write_lock is not None:
            with self._write_lock:
                self._drop_steps_connection()
        self.engine.dispose()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        if self._write_lock is None:
            with self.engine.begin() as connection:
                yield connection
            return
        with self._write_lock, self.engine.begin() as connection:
            yield connection

    def create_game(self, game_id: str, name: str, created: datetime, config: dict[str, Any],
                    seed: int, status: str, seats: Sequence[dict[str, Any]],
                    creator: str | None = None, seed_public: bool = False,
                    hints: bool = False) -> None:
        with self._write() as c:
            c.execute(insert(games).values(id=game_id, name=name, created=created,
                                           config=config, seed=seed, status=status,
                                           seats=list(seats), creator=creator,
                                           seed_public=seed_public, hints=hints))

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
                  status: str | None = None) -> None:
        """Append decisions ``(seat, action, chance)`` numbered from ``first``, and the new
        status, in one transaction; returns once they are committed. (The server stores
        through its ``StepWriter``, which commits several games' steps together.)"""
        if not new:
            return
        item = QueuedSteps(game_id, step_rows(game_id, first, new), status)
        commit_batch(self, [item])
        if item.error is not None:
            raise item.error

    def write_steps(self, batch: Sequence[QueuedSteps]) -> None:
        """Several games' new steps and statuses in one transaction (``commit_batch``)."""
        if self._write_lock is not None:
            with self._write_lock:
                self._write_sqlite(batch)
            return
        rows = [row for item in batch for row in item.rows]
        with self._write() as c:
            if rows:
                c.execute(insert(steps), rows)
            for item in batch:
                if item.status is not None:
                    c.execute(update(games).where(games.c.id == item.game_id)
                              .values(status=item.status))

    def _write_sqlite(self, batch: Sequence[QueuedSteps]) -> None:
        """``write_steps`` on SQLite, write lock held: plain SQL on a driver connection kept
        open, the same rows and JSON text as SQLAlchemy writes. Going through SQLAlchemy
        (a pooled connection, a compiled statement, the JSON type) cost about 0.3 ms a
        batch, more than the commit itself. A refusal rolls back, drops the connection
        (the next batch opens a new one) and is raised as SQLAlchemy's error."""
        rows = [(row["game_id"], row["index"], row["seat"], row["action"],
                 chance_json(row["chance"])) for item in batch for row in item.rows]
        statuses = [(item.status, item.game_id) for item in batch if item.status is not None]
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

    def load(self, game_id: str) -> StoredGame | None:
        """One game with its steps; None when there is no such game (or it was set aside).
        Raises DamagedGame when the row cannot be read as a game, and the database's own
        error when it cannot be reached."""
        with self.engine.connect() as c:
            row = c.execute(select(games).where(games.c.id == game_id)).first()
            if row is None or row.status == QUARANTINED:
                return None
            rows = c.execute(select(steps.c.seat, steps.c.action, steps.c.chance)
                             .where(steps.c.game_id == game_id)
                             .order_by(steps.c.index)).all()
        try:
            return StoredGame(row.id, row.name, aware(row.created), dict(row.config),
                              int(row.seed), row.status, list(row.seats),
                              [(int(r.seat), str(r.action), [int(x) for x in r.chance])
                               for r in rows], row.creator, bool(row.seed_public),
                              bool(row.hints))
        except (TypeError, ValueError, AttributeError) as exc:
            raise DamagedGame(f"game {game_id} cannot be read: {exc!r}") from exc

    def recent(self, limit: int) -> list[StoredGame]:
        """The newest games without their steps (for the lobby); rows that cannot be read
        as games are left out (``load`` sets them aside when someone asks for them)."""
        query = (select(games).where(games.c.status != QUARANTINED)
                 .order_by(games.c.created.desc()).limit(limit))
        out = []
        with self.engine.connect() as c:
            for r in c.execute(query):
                try:
                    out.append(StoredGame(r.id, r.name, aware(r.created), dict(r.config),
                                          int(r.seed), r.status, list(r.seats), [],
                                          r.creator, bool(r.seed_public), bool(r.hints)))
                except (TypeError, ValueError, AttributeError):
                    continue
        return out

    def game_ids(self, unfinished_only: bool = False) -> list[str]:
        query = select(games.c.id).where(games.c.status != QUARANTINED).order_by(games.c.created)
        if unfinished_only:
            query = query.where(games.c.status != "over")
        with self.engine.connect() as c:
            return [str(r.id) for r in c.execute(query)]
