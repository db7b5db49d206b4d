"""The migrations upgrade a database written before accounts without losing a game (issue
39, point 7), on SQLite and on PostgreSQL.

``data/pre_accounts.sql`` is a SQLite database written by the server at 6892fb8 (schema
0005): a finished bots game, a running 2v2 whose two human seats joined, and an open game.
On PostgreSQL the same rows are put into a database migrated to 0005 by the same
migrations, then both are upgraded by starting today's server.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config as AlembicConfig
from fastapi.testclient import TestClient
from live_support import GENEROUS
from sqlalchemy import MetaData, create_engine, insert, select

from kaladan.record import position_digest, replay, to_record
from kaladan.server import create_app
from kaladan.server.storage import MIGRATIONS, games, steps

DUMP = Path(__file__).with_name("data") / "pre_accounts.sql"
OLD_HEAD = "0005"


def old_rows() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The games and steps rows of the old database, as they were stored."""
    db = sqlite3.connect(":memory:")
    db.executescript(DUMP.read_text(encoding="utf-8"))
    db.row_factory = sqlite3.Row
    found = ([dict(r) for r in db.execute("SELECT * FROM games ORDER BY id")],
             [dict(r) for r in db.execute('SELECT * FROM steps ORDER BY game_id, "index"')])
    db.close()
    return found


def check_upgraded(url: str) -> None:
    """Start today's server on the old database: every game reads back as it was, the
    finished one replays, the running one goes on, and accounts work beside them."""
    old_games, old_steps = old_rows()
    app = create_app(url, GENEROUS, bot_delay=0, rate_limit=1e6)
    with TestClient(app) as client:
        store = app.state.service.store
        assert store.migrations_current()
        with store.reading() as c:
            kept = {r.id: r for r in c.execute(select(games)).all()}
            kept_steps = c.execute(select(steps).order_by(steps.c.game_id, steps.c.index)
                                   ).all()
        assert sorted(kept) == [g["id"] for g in old_games]
        assert [(s.game_id, s.index, s.seat, s.action) for s in kept_steps] == [
            (s["game_id"], s["index"], s["seat"], s["action"]) for s in old_steps]
        for old in old_games:
            row = kept[old["id"]]
            assert (row.name, row.status, row.seed) == (old["name"], old["status"],
                                                        old["seed"])
            assert row.rated is False and row.open_seats is False  # the new columns' defaults
            summary = client.get(f"/api/games/{old['id']}").json()
            assert summary["status"] == old["status"] and not summary["rated"]
            assert [s["player"] for s in summary["seats"]] == [None] * summary["players"]
            view = client.get(f"/api/games/{old['id']}/view").json()
            assert view["version"] == sum(1 for s in old_steps if s["game_id"] == old["id"])
        over = next(g["id"] for g in old_games if g["status"] == "over")
        record = client.get(f"/api/games/{over}/record").json()
        live = app.state.service.games[over]
        assert position_digest(replay(record)) == position_digest(live.game)
        assert to_record(live.game) == record
        # the running game's joined seats keep their tokens' hashes: its players play on
        running = next(g for g in old_games if g["status"] == "running")
        assert kept[running["id"]].seats == _json(running["seats"])
        # and the new tables work beside the old games
        r = client.post("/api/accounts", json={"name": "Anna", "password": "a long password"})
        assert r.status_code == 201
        created = client.post("/api/games", json={"seats": ["human", "greedy"], "rated": True},
                              headers={"X-CSRF-Token": r.json()["csrf"]})
        assert created.status_code == 201


def _json(text: str) -> Any:
    return json.loads(text)


def test_a_sqlite_database_of_schema_0005_upgrades_without_losing_a_game(
        tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(DUMP.read_text(encoding="utf-8"))
    db.close()
    check_upgraded(f"sqlite:///{path}")


def test_a_postgres_database_of_schema_0005_upgrades_without_losing_a_game(
        postgres_db: str) -> None:
    engine = create_engine(postgres_db)
    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, OLD_HEAD)
    old_games, old_steps = old_rows()
    tables = MetaData()
    tables.reflect(engine, only=["games", "steps"])
    with engine.begin() as connection:
        connection.execute(insert(tables.tables["games"]),
                           [{**g, "config": _json(g["config"]), "seats": _json(g["seats"]),
                             "seed_public": bool(g["seed_public"]), "hints": bool(g["hints"])}
                            for g in old_games])
        connection.execute(insert(tables.tables["steps"]),
                           [{**s, "chance": _json(s["chance"])} for s in old_steps])
    engine.dispose()
    check_upgraded(postgres_db)


@pytest.mark.parametrize("revision", [OLD_HEAD])
def test_the_dump_is_of_the_schema_it_says(revision: str) -> None:
    db = sqlite3.connect(":memory:")
    db.executescript(DUMP.read_text(encoding="utf-8"))
    assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(revision,)]
    assert db.execute("SELECT COUNT(*) FROM steps").fetchone()[0] > 100
