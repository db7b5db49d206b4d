"""Storage faults of issue 42, point 7: a COMMIT whose reply is lost, a step index another
writer stored first, a frozen PostgreSQL, one game's locked row, damaged JSON and time
values, and the lobby's query at 100,000 stored games.

Each fault is made for real where it can be: a proxy between the server and PostgreSQL that
swallows the reply to one COMMIT, SIGSTOP of every process of the cluster, a row lock held
by another connection, rows written by hand.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from live_support import GENEROUS, LiveServer, sqlite_url
from server_support import auth, create, join_all
from sqlalchemy import create_engine, text
from sqlalchemy.dialects import postgresql, sqlite

from kaladan.game import Game
from kaladan.server import create_app
from kaladan.server.storage import QUARANTINED, Store, games, lobby_query

SEED = 77
FAST_FAIL = replace(GENEROUS, db_timeout=0.3)


def new_game(client: Any) -> tuple[str, dict[int, str]]:
    created = create(client, ["human", "human"], seed=SEED, quick=True)
    return created["game_id"], join_all(client, created)


def decide(client: Any, game_id: str, tokens: dict[int, str], choice: int = 0,
           ) -> httpx.Response:
    """The seat to decide sends legal action ``choice`` (by index) at the version shown."""
    seat = client.get(f"/api/games/{game_id}/view").json()["to_move"]
    view = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[seat])).json()
    response: httpx.Response = client.post(
        f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
        json={"index": min(choice, view["legal_count"] - 1), "version": view["version"]})
    return response


def play(client: Any, game_id: str, tokens: dict[int, str], decisions: int) -> None:
    for _ in range(decisions):
        r = decide(client, game_id, tokens)
        assert r.status_code == 200, r.text


def version(client: Any, game_id: str) -> int:
    return int(client.get(f"/api/games/{game_id}/view").json()["version"])


# --- 1. a COMMIT whose reply is lost; a step index stored by another writer --------------


class LossyProxy:
    """A TCP proxy in front of PostgreSQL that, once armed, swallows the server's reply to
    the next COMMIT and closes that connection: the transaction is committed, the client
    never hears so (a network cut or a crash at the worst moment)."""

    COMMIT_DONE = b"C\x00\x00\x00\x0bCOMMIT\x00"  # CommandComplete "COMMIT"

    def __init__(self, port: int) -> None:
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.armed = threading.Event()
        self.swallowed = threading.Event()
        self.down_after = False  # the database "goes away" with the swallowed reply
        self.refusing = threading.Event()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refusing.is_set():
                client.close()
                continue
            server = socket.create_connection(("127.0.0.1", self.target))
            self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, False),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True),
                             daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, replies: bool) -> None:
        try:
            while data := source.recv(65536):
                if replies and self.armed.is_set() and self.COMMIT_DONE in data:
                    self.armed.clear()
                    # Said before the cut: the cut fails the client's request at once, and
                    # the test asks right after its answer whether the reply was swallowed.
                    self.swallowed.set()
                    if self.down_after:
                        self.cut()
                    break
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def cut(self) -> None:
        """Every connection cut, new ones refused until ``refusing`` is cleared."""
        self.refusing.set()
        for end in self.sockets:
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()


@contextmanager
def lossy(postgres_db: str) -> Iterator[tuple[LossyProxy, str]]:
    """A ``LossyProxy`` in front of the test database, and the database's URL through it."""
    host, _, rest = postgres_db.rpartition(":")
    port, _, database = rest.partition("/")
    proxy = LossyProxy(int(port))
    try:
        yield proxy, f"{host}:{proxy.port}/{database}"
    finally:
        proxy.close()


def test_a_commit_whose_reply_is_lost_is_the_clients_success(postgres_db: str) -> None:
    """The step is stored though the server never heard so: the client hears 200 (it is
    its own decision), not "503, nothing changed", and the game plays on without a
    restart; a new server holds exactly what the first one showed."""
    with lossy(postgres_db) as (proxy, url):
        with TestClient(create_app(url, FAST_FAIL, bot_delay=0)) as client:
            game_id, tokens = new_game(client)
            play(client, game_id, tokens, 4)
            before = version(client, game_id)
            proxy.armed.set()
            r = decide(client, game_id, tokens)
            assert proxy.swallowed.is_set()
            assert r.status_code == 200, r.text
            assert version(client, game_id) == before + 1
            play(client, game_id, tokens, 6)  # the game keeps working
            shown = client.get(f"/api/games/{game_id}/view").json()
        with TestClient(create_app(postgres_db, FAST_FAIL, bot_delay=0)) as client:
            assert client.get(f"/api/games/{game_id}/view").json() == shown


def test_a_lost_commit_reply_and_no_database_to_ask_is_never_nothing_changed(
        postgres_db: str) -> None:
    """The reply to COMMIT is lost and the database cannot be reached to ask: the client
    hears 503 that the outcome is unknown, never "nothing changed". Once the database is
    back, the game is read back before the next decision: the stored step is there, and
    a decision sent at the old version is stale (409), not applied twice."""
    with lossy(postgres_db) as (proxy, url), \
            TestClient(create_app(url, FAST_FAIL, bot_delay=0)) as client:
        game_id, tokens = new_game(client)
        play(client, game_id, tokens, 4)
        before = version(client, game_id)
        seat = client.get(f"/api/games/{game_id}/view").json()["to_move"]
        proxy.down_after = True
        proxy.armed.set()
        r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                        json={"index": 0, "version": before})
        assert proxy.swallowed.is_set()
        assert r.status_code == 503, r.text
        message = r.json()["error"]["message"]
        assert "nothing changed" not in message and "cannot tell" in message
        proxy.refusing.clear()
        r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                        json={"index": 0, "version": before})
        assert r.status_code == 409 and r.json()["error"]["code"] == "stale_version", r.text
        assert version(client, game_id) == before + 1  # the stored step, once
        play(client, game_id, tokens, 4)
        assert version(client, game_id) == before + 5


def test_a_step_stored_by_another_writer_is_a_conflict_and_the_game_reloads(
        tmp_path: Path) -> None:
    """Another writer stored the next step (its index is taken): the client hears 409
    ``stale_version``, the game is reloaded from storage with that step, and plays on."""
    url = sqlite_url(tmp_path)
    with TestClient(create_app(url, GENEROUS, bot_delay=0)) as client:
        game_id, tokens = new_game(client)
        play(client, game_id, tokens, 3)
        live = client.app.state.service.games[game_id]  # type: ignore[attr-defined]
        other = Game.new(live.game.config, live.game.seed)
        for step in live.game.steps:
            other.play(step.action, step.seat)
        legal = other.legal_actions()
        assert len(legal) > 1
        seat = other.state.pending.seat
        other.play(legal[-1], seat)  # not the index 0 the client sends
        theirs = other.steps[-1]
        before = version(client, game_id)
        with sqlite3.connect(tmp_path / "kaladan.sqlite3") as db:
            db.execute('INSERT INTO steps (game_id, "index", seat, action, chance) '
                       "VALUES (?, ?, ?, ?, ?)",
                       (game_id, before, seat, theirs.action,
                        "[" + ", ".join(map(str, theirs.chance)) + "]"))
        r = decide(client, game_id, tokens, 0)
        assert r.status_code == 409, r.text
        assert r.json()["error"]["code"] == "stale_version"
        assert version(client, game_id) == before + 1
        now = client.app.state.service.games[game_id]  # type: ignore[attr-defined]
        assert now.game.steps[-1].action == theirs.action
        play(client, game_id, tokens, 5)  # no restart needed
        shown = client.get(f"/api/games/{game_id}/view").json()
    with TestClient(create_app(url, GENEROUS, bot_delay=0)) as client:
        assert client.get(f"/api/games/{game_id}/view").json() == shown


# --- 2. a frozen PostgreSQL --------------------------------------------------------------


def cluster_pids(data: Path) -> list[int]:
    """The postmaster and every process it started."""
    postmaster = int((data / "postmaster.pid").read_text().split()[0])
    pids = [postmaster]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == postmaster:
                    pids.append(int(entry.name))
    return pids


@contextmanager
def frozen(cluster: Any) -> Iterator[None]:
    """Every process of the cluster stopped (SIGSTOP): connections stay open, nothing
    answers, no statement or lock timeout of the server can fire."""
    pids = cluster_pids(cluster.data)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def test_a_frozen_postgresql_answers_503_and_nothing_changed(
        postgres_cluster: Any, postgres_db: str) -> None:
    """``--db-timeout`` bounds PostgreSQL's waits too: an action on a frozen database
    answers 503 "nothing changed" (the client's read timeout, 30 s, is a liveness bound,
    not a measure: the server answers after about the timeout, 0.3 s, the watchdog's grace
    and a connect timeout, a few seconds); once it thaws the game goes on."""
    with LiveServer(create_app(postgres_db, FAST_FAIL, bot_delay=0)) as server, \
            httpx.Client(base_url=server.http, timeout=30.0) as client:
        game_id, tokens = new_game(client)
        play(client, game_id, tokens, 4)
        before = version(client, game_id)
        seat = client.get(f"/api/games/{game_id}/view").json()["to_move"]
        with frozen(postgres_cluster):
            r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                            json={"index": 0, "version": before})
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "storage_unavailable"
        assert "nothing changed" in r.json()["error"]["message"]
        watchdog = server.app.state.service.store.watchdog
        assert watchdog is not None and watchdog.cuts >= 1  # the silent server was cut off
        assert version(client, game_id) == before
        play(client, game_id, tokens, 4)
        assert version(client, game_id) == before + 4
    engine = create_engine(postgres_db)
    try:
        with engine.connect() as c:
            stored = c.execute(text("SELECT count(*) FROM steps WHERE game_id = :g"),
                               {"g": game_id}).scalar_one()
    finally:
        engine.dispose()
    assert stored == before + 4  # the frozen attempt left nothing


# --- 3. one game's locked row -------------------------------------------------------------


def test_one_locked_game_row_does_not_hold_up_another_games_commits(
        postgres_db: str) -> None:
    """Another connection holds game A's row (SELECT ... FOR UPDATE) while A's player acts:
    A waits for the row (at most the timeout), and game B's decisions are committed
    meanwhile. The 20 s read timeout of B's request is a liveness bound, not a measure."""
    with LiveServer(create_app(postgres_db, GENEROUS, bot_delay=0)) as server, \
            httpx.Client(base_url=server.http, timeout=60.0) as client:
        a, a_tokens = new_game(client)
        b, b_tokens = new_game(client)
        play(client, a, a_tokens, 2)
        play(client, b, b_tokens, 2)
        engine = create_engine(postgres_db)
        try:
            with engine.connect() as holder:
                holder.execute(text("SELECT id FROM games WHERE id = :a FOR UPDATE"),
                               {"a": a})
                answers: list[httpx.Response] = []
                acting = threading.Thread(
                    target=lambda: answers.append(decide(client, a, a_tokens)))
                acting.start()
                with engine.connect() as watch:  # A's write waits for the row lock
                    for _ in range(400):
                        waiting = watch.execute(text(
                            "SELECT count(*) FROM pg_stat_activity "
                            "WHERE wait_event_type = 'Lock'")).scalar_one()
                        if waiting:
                            break
                        time.sleep(0.05)
                    assert waiting, "game A's write never waited for its row"
                with httpx.Client(base_url=server.http, timeout=20.0) as other:
                    for _ in range(3):
                        r = decide(other, b, b_tokens)
                        assert r.status_code == 200, r.text
                assert acting.is_alive(), answers[0].text  # A waits; B did not wait for A
                holder.rollback()
            acting.join(60)
            assert answers and answers[0].status_code == 200, answers
            assert version(client, a) == 3 and version(client, b) == 5
        finally:
            engine.dispose()


def test_a_row_locked_past_the_timeout_is_503_and_nothing_changed(postgres_db: str) -> None:
    """``--db-timeout`` is PostgreSQL's lock_timeout too: a decision whose game row stays
    locked answers 503 "nothing changed" once the wait is over (0.3 s here; the 30 s read
    timeout is a liveness bound), while the lock is still held."""
    with LiveServer(create_app(postgres_db, FAST_FAIL, bot_delay=0)) as server, \
            httpx.Client(base_url=server.http, timeout=30.0) as client:
        game_id, tokens = new_game(client)
        play(client, game_id, tokens, 2)
        engine = create_engine(postgres_db)
        try:
            with engine.connect() as holder:
                holder.execute(text("SELECT id FROM games WHERE id = :g FOR UPDATE"),
                               {"g": game_id})
                r = decide(client, game_id, tokens)
                assert r.status_code == 503, r.text
                assert "nothing changed" in r.json()["error"]["message"]
                holder.rollback()
        finally:
            engine.dispose()
        assert version(client, game_id) == 2
        play(client, game_id, tokens, 2)
        assert version(client, game_id) == 4


def test_postgresql_connections_carry_the_timeouts(postgres_db: str) -> None:
    store = Store(postgres_db, timeout=1.5)
    try:
        with store.engine.connect() as c:
            assert c.exec_driver_sql("SHOW statement_timeout").scalar_one() == "1500ms"
            assert c.exec_driver_sql("SHOW lock_timeout").scalar_one() == "1500ms"
    finally:
        store.dispose()


# --- 4. damaged JSON and time values ------------------------------------------------------

DAMAGE = {
    "bad_config_json": "UPDATE games SET config = '{\"players\": 2,' WHERE id = ?",
    "bad_seats_json": "UPDATE games SET seats = '[{\"kind\": ' WHERE id = ?",
    "bad_created": "UPDATE games SET created = 'the day before yesterday' WHERE id = ?",
    "bad_chance_json": 'UPDATE steps SET chance = \'[3, \' WHERE game_id = ? AND "index" = 0',
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_damaged_json_or_time_value_is_set_aside_and_the_lobby_lists_the_others(
        tmp_path: Path, kind: str) -> None:
    """A value the database types cannot read (JSON text cut short, a time that is not
    one) sets that game aside like any damaged game; the lobby lists every other game."""
    url = sqlite_url(tmp_path)
    with TestClient(create_app(url, GENEROUS, bot_delay=0)) as client:
        good, good_tokens = new_game(client)
        bad, bad_tokens = new_game(client)  # the newest: first in the lobby
        play(client, good, good_tokens, 3)
        play(client, bad, bad_tokens, 3)
    with sqlite3.connect(tmp_path / "kaladan.sqlite3") as db:
        db.execute(DAMAGE[kind], (bad,))
    with TestClient(create_app(url, GENEROUS, bot_delay=0)) as client:
        listed = client.get("/api/games")
        assert listed.status_code == 200, listed.text
        assert good in [g["game_id"] for g in listed.json()["games"]]
        r = client.get(f"/api/games/{bad}/view")
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_game"
        listed = client.get("/api/games")
        assert listed.status_code == 200
        assert [g["game_id"] for g in listed.json()["games"]] == [good]
        play(client, good, good_tokens, 3)
    with sqlite3.connect(tmp_path / "kaladan.sqlite3") as db:
        status, problem = db.execute("SELECT status, problem FROM games WHERE id = ?",
                                     (bad,)).fetchone()
    assert status == QUARANTINED and problem


# --- 5. the lobby at 100,000 stored games -------------------------------------------------


def add_games(store: Store, count: int, first: int = 0) -> None:
    """``count`` plain rows, one second apart, written in bulk (the lobby reads them)."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    seats = [{"kind": "human"}, {"kind": "human"}]
    rows = [{"id": f"g_{first + i:016x}", "name": f"Game {first + i}",
             "created": start + timedelta(seconds=first + i),
             "config": {"players": 2, "mode": "free_for_all"}, "seed": i, "status": "open",
             "seats": seats} for i in range(count)]
    with store.engine.begin() as c:
        for chunk in range(0, count, 10_000):
            c.execute(games.insert(), rows[chunk:chunk + 10_000])


def lobby_cpu(store: Store) -> float:
    """The median CPU time of the lobby's storage call (its query and rows)."""
    times = []
    for _ in range(7):
        began = time.process_time()
        listed, damaged = store.recent(200)
        times.append(time.process_time() - began)
        assert len(listed) == 200 and not damaged
    return statistics.median(times)


def test_the_lobby_walks_the_created_index_on_sqlite(tmp_path: Path) -> None:
    store = Store(sqlite_url(tmp_path))
    try:
        store.upgrade()
        add_games(store, 1_000)
        small = lobby_cpu(store)
        add_games(store, 99_000, first=1_000)
        sql = str(lobby_query(200).compile(dialect=sqlite.dialect(),
                                           compile_kwargs={"literal_binds": True}))
        with store.engine.connect() as c:
            c.exec_driver_sql("ANALYZE")
            plan = " / ".join(str(r[-1]) for r in c.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + sql))
        assert "USING INDEX ix_games_created" in plan, plan
        assert "TEMP B-TREE" not in plan, plan  # no sort of every stored game
        large = lobby_cpu(store)
        # a coarse CPU ratio (process time, not wall clock): reading 200 rows either way
        assert large < 2 * small + 0.002, (small, large)
    finally:
        store.dispose()


def test_the_lobby_walks_the_created_index_on_postgresql(postgres_db: str) -> None:
    store = Store(postgres_db)
    try:
        store.upgrade()
        add_games(store, 100_000)
        sql = str(lobby_query(200).compile(dialect=postgresql.dialect(),
                                           compile_kwargs={"literal_binds": True}))
        with store.engine.connect() as c:
            c.exec_driver_sql("ANALYZE games")
            plan = "\n".join(str(r[0]) for r in c.exec_driver_sql("EXPLAIN " + sql))
        assert "Index Scan Backward using ix_games_created" in plan, plan
        assert "Sort" not in plan.split("Index Scan")[0], plan
    finally:
        store.dispose()
