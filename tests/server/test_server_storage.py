"""Storage: games persist as configuration + seed + decision log and are rebuilt by replay,
on SQLite and on a real PostgreSQL server; a killed server resumes every game."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from live_support import GENEROUS, free_port, sqlite_url
from server_support import auth, create, join_all, play_http, wait_for_humans
from sqlalchemy import create_engine, inspect, select

from kaladan.game import Game
from kaladan.server import create_app
from kaladan.server.storage import games, steps


def play_restart_and_compare(url: str) -> None:
    """Play on one app, open the same database with a new app: same view, play goes on."""
    with TestClient(create_app(url, GENEROUS, bot_delay=0, rate_limit=1e6)) as client:
        created = create(client, ["human", "greedy", "human"], seed=42)
        tokens = join_all(client, created)
        game_id = created["game_id"]
        play_http(client, game_id, tokens, random.Random(3), 40)
        wait_for_humans(client, game_id, tokens)
        before = {s: client.get(f"/api/games/{game_id}/view", headers=auth(t)).json()
                  for s, t in tokens.items()}
        spectator = client.get(f"/api/games/{game_id}/view").json()
    assert spectator["version"] > 40
    assert all(len(v["log"]) > 40 and v["log_since"] == -1 for v in before.values())
    with TestClient(create_app(url, GENEROUS, bot_delay=0, rate_limit=1e6)) as client:
        after = {s: client.get(f"/api/games/{game_id}/view", headers=auth(t)).json()
                 for s, t in tokens.items()}
        assert after == before  # the log too: replaying the decisions rebuilt it
        assert client.get(f"/api/games/{game_id}/view").json() == spectator
        assert client.get("/api/games").json()["games"][0]["status"] == "running"
        view = play_http(client, game_id, tokens, random.Random(4), 10)
        assert view["version"] > spectator["version"]
    engine = create_engine(url)
    try:
        with engine.connect() as c:
            row = c.execute(select(games)).one()
            stored = c.execute(select(steps.c.index).where(steps.c.game_id == game_id)
                               .order_by(steps.c.index)).scalars().all()
        assert row.seed == 42 and row.config["players"] == 3
        assert stored == list(range(len(stored))) and len(stored) >= view["version"]
        for seat in row.seats:  # only hashes of codes and tokens are stored
            assert seat["token_hash"] not in tokens.values()
        assert set(inspect(engine).get_table_names()) >= {"games", "steps", "alembic_version"}
    finally:
        engine.dispose()


def test_sqlite_storage_survives_a_new_app(tmp_path: Path) -> None:
    play_restart_and_compare(sqlite_url(tmp_path))


def test_postgresql_storage_survives_a_new_app(postgres_db: str) -> None:
    play_restart_and_compare(postgres_db)


def test_finished_games_are_rebuilt_on_demand(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    with TestClient(create_app(url, GENEROUS, bot_delay=0, rate_limit=1e6)) as client:
        created = create(client, ["human", "random"], quick=True, seed=9)
        tokens = join_all(client, created)
        play_http(client, created["game_id"], tokens, random.Random(0), 3000)
        record = client.get(f"/api/games/{created['game_id']}/record").json()
    with TestClient(create_app(url, GENEROUS, bot_delay=0, rate_limit=1e6)) as client:
        assert client.app.state.service.games == {}  # finished games are not loaded at start
        assert client.get(f"/api/games/{created['game_id']}/record").json() == record
        assert client.get("/api/games").json()["games"][0]["status"] == "over"


@pytest.mark.parametrize("unreadable", [False, True])
def test_a_refused_store_takes_the_decision_and_its_log_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unreadable: bool) -> None:
    """The database refuses a decision (and, ``unreadable``, cannot even be read): 503, and
    the game and its log are as stored, for every seat; then play goes on from there."""
    with TestClient(create_app(sqlite_url(tmp_path), GENEROUS,
                               bot_delay=0, rate_limit=1e6)) as client:
        created = create(client, ["human", "human"], quick=True, seed=3)
        tokens = join_all(client, created)
        game_id = created["game_id"]
        play_http(client, game_id, tokens, random.Random(1), 12)
        view = wait_for_humans(client, game_id, tokens)
        seat, version = view["seat"], view["version"]
        before = views(client, game_id, tokens)  # type: ignore[arg-type]
        service = client.app.state.service  # type: ignore[attr-defined]
        live = service.games[game_id]
        entries = list(live.game.entries)

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise OSError("the disk is full")

        monkeypatch.setattr(service.store, "write_steps", refuse)
        if unreadable:
            monkeypatch.setattr(service.store, "load", refuse)
        r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                        json={"index": 0, "version": version})
        monkeypatch.undo()
        assert r.status_code == 503 and r.json()["error"]["code"] == "storage_unavailable"
        assert len(live.game.steps) == version and live.game.entries == entries
        assert len(live.game.entry_starts) == version
        assert views(client, game_id, tokens) == before  # type: ignore[arg-type]
        r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                        json={"index": 0, "version": version})
        assert r.status_code == 200
        after = r.json()
        assert after["log_since"] == version and after["log"][0]["index"] == len(entries)
        assert after["log"][0]["version"] == version + 1


def test_a_bug_while_bots_answer_leaves_the_game_as_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots answering a decision change their run's state in place; a failure part-way
    (a bug of ours, injected here) takes the whole run back, the human's decision included:
    500, and the game in memory is what storage holds; then play goes on."""
    with TestClient(create_app(sqlite_url(tmp_path), GENEROUS, bot_delay=0, rate_limit=1e6),
                    raise_server_exceptions=False) as client:
        created = create(client, ["human", "random"], quick=True, seed=5)
        tokens = join_all(client, created)
        game_id = created["game_id"]
        live = client.app.state.service.games[game_id]  # type: ignore[attr-defined]
        # A bot that decides first does so in the background: let it finish before the
        # failure is injected, or the human would only ever be told it is not their turn.
        wait_for_humans(client, game_id, tokens)
        play = Game.play

        def failing(game: Game, action: Any, seat: int | None = None, dice: Any = (), *,
                    in_place: bool = False) -> Any:
            if in_place:  # only the bots' answers are played in place
                raise RuntimeError("injected")
            return play(game, action, seat, dice, in_place=in_place)

        monkeypatch.setattr(Game, "play", failing)
        for _ in range(60):  # until a decision hands the turn to the bot
            view = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
            version, entries = view["version"], list(live.game.entries)
            r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[0]),
                            json={"index": 0, "version": version})
            if r.status_code != 200:
                break
        assert r.status_code == 500 and r.json()["error"]["code"] == "internal_error"
        assert live.game.state is live.snapshot.state and live.version == version
        assert len(live.game.steps) == version and live.game.entries == entries
        monkeypatch.undo()
        r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[0]),
                        json={"index": 0, "version": version})
        assert r.status_code == 200 and r.json()["version"] > version + 1  # the bot answered


def test_a_bad_database_url_is_a_clear_error(tmp_path: Path) -> None:
    from kaladan.cli.main import main

    code = main(["serve", "--database-url", "nonsense://", "--port", str(free_port())])
    assert code == 2


# --- the restart test: a real `kaladan serve` process, killed and started again ------------


class ServeProcess:
    def __init__(self, database: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kaladan.cli.main", "serve", "--port", str(self.port),
             "--database-url", f"sqlite:///{database}", "--bot-delay", "0",
             "--games-per-minute", "100000", "--read-rate", "100000", "--load-rate", "1000",
             "--any-seed"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        assert f"Open http://127.0.0.1:{self.port}/ in your browser" in first, first
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.url}/api/games", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert self.process.poll() is None, "kaladan serve exited"
            assert time.monotonic() < deadline, "kaladan serve did not come up"
            time.sleep(0.05)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        assert self.process.stdout is not None
        self.process.stdout.close()


def views(http: httpx.Client, game_id: str, tokens: dict[int, str]) -> dict[Any, Any]:
    out: dict[Any, Any] = {s: http.get(f"/api/games/{game_id}/view", headers=auth(t)).json()
                           for s, t in tokens.items()}
    out[None] = http.get(f"/api/games/{game_id}/view").json()
    return out


def test_killed_server_resumes_every_game(tmp_path: Path) -> None:
    database = tmp_path / "kaladan.sqlite3"
    server = ServeProcess(database)
    try:
        with httpx.Client(base_url=server.url) as http:
            created = [create(http, ["human", "random"], quick=True, seed=5),  # type: ignore[arg-type]
                       create(http, ["human", "human", "greedy"], seed=6)]  # type: ignore[arg-type]
            tokens = [join_all(http, c) for c in created]
            for c, t in zip(created, tokens, strict=True):
                play_http(http, c["game_id"], t, random.Random(1), 25)  # type: ignore[arg-type]
                wait_for_humans(http, c["game_id"], t)
            before = [views(http, c["game_id"], t) for c, t in zip(created, tokens, strict=True)]
    finally:
        server.kill()  # SIGKILL: no shutdown, no flush beyond what was committed
    server = ServeProcess(database)
    try:
        with httpx.Client(base_url=server.url) as http:
            after = [views(http, c["game_id"], t) for c, t in zip(created, tokens, strict=True)]
            assert after == before
            for c, t, old in zip(created, tokens, before, strict=True):
                view = play_http(http, c["game_id"], t, random.Random(2), 5)  # type: ignore[arg-type]
                assert view["version"] > old[None]["version"]
    finally:
        server.kill()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_serve_prints_the_url_to_open(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path / "db.sqlite3")  # asserts the printed line
    server.kill()
