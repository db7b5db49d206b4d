"""Quick match (issue 39, point 3): one queue in the database, matched when full or when
the earliest wait has passed (then with bots), on one process and on two."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_support import Processes
from fastapi import FastAPI
from fastapi.testclient import TestClient
from live_support import sqlite_url
from redis_support import RedisServer
from sqlalchemy import select, update
from test_accounts import PASSWORD, Browser, csrf, make_app, sign_up

from kaladan.server.matchmaking import match_queue
from kaladan.server.storage import game_players


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return make_app(sqlite_url(tmp_path))


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def players_of(app: FastAPI, game_id: str) -> dict[int, str]:
    with app.state.service.store.reading() as c:
        rows = c.execute(select(game_players).where(game_players.c.game_id == game_id)).all()
    return {int(r.seat): str(r.account_id) for r in rows}


def account_id(app: FastAPI, browser: Browser) -> str:
    from kaladan.server.storage import accounts

    name = browser.get("/api/session").json()["name"]
    with app.state.service.store.reading() as c:
        return str(c.execute(select(accounts.c.id).where(accounts.c.name == name)).scalar_one())


def test_a_full_queue_starts_one_game_with_every_queued_player_seated(
        app: FastAPI, client: TestClient) -> None:
    anna, bert = Browser(client), Browser(client)
    a, b = sign_up(anna, "Anna"), sign_up(bert, "Bert")
    r = anna.post("/api/match", json={"players": 2, "wait": 600}, headers=csrf(a))
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "waiting"
    assert r.json()["position"] == 1 and r.json()["count"] == 1
    r = bert.post("/api/match", json={"players": 2, "wait": 600}, headers=csrf(b))
    assert r.json()["status"] == "matched", r.text
    mine, theirs = anna.get("/api/match").json(), bert.get("/api/match").json()
    assert mine["status"] == theirs["status"] == "matched"
    assert mine["game_id"] == theirs["game_id"] and {mine["seat"], theirs["seat"]} == {0, 1}
    assert mine["url"] == f"/play/{mine['game_id']}/{mine['seat']}"
    seated = players_of(app, mine["game_id"])
    assert seated == {mine["seat"]: account_id(app, anna),
                      theirs["seat"]: account_id(app, bert)}
    # the seat is the player's: the view by the session alone
    view = anna.get(f"/api/games/{mine['game_id']}/view")
    assert view.status_code == 200 and view.json()["seat"] == mine["seat"]
    game = client.get(f"/api/games/{mine['game_id']}").json()
    assert game["status"] == "running"
    assert {s["player"] for s in game["seats"]} == {"Anna", "Bert"}


def test_a_passed_wait_fills_the_empty_seats_with_the_earliest_players_bots(
        app: FastAPI, client: TestClient) -> None:
    anna = Browser(client)
    a = sign_up(anna, "Anna")
    r = anna.post("/api/match", json={"players": 3, "wait": 10, "bots": "random"},
                  headers=csrf(a))
    assert r.json()["status"] == "waiting"
    client.portal.call(app.state.matchmaker.sweep)  # type: ignore[union-attr]
    assert anna.get("/api/match").json()["status"] == "waiting"  # not yet
    with app.state.service.store.writing() as c:
        c.execute(update(match_queue).values(joined=datetime.now(UTC) - timedelta(seconds=11)))
    client.portal.call(app.state.matchmaker.sweep)  # type: ignore[union-attr]
    status = anna.get("/api/match").json()
    assert status["status"] == "matched", status
    game = client.get(f"/api/games/{status['game_id']}").json()
    kinds = sorted((s["kind"], s["bot"]) for s in game["seats"])
    assert kinds == [("bot", "random"), ("bot", "random"), ("human", None)]
    assert game["seats"][status["seat"]]["player"] == "Anna"


def test_queues_differ_by_mode_players_and_time_control(app: FastAPI,
                                                        client: TestClient) -> None:
    anna, bert = Browser(client), Browser(client)
    a, b = sign_up(anna, "Anna"), sign_up(bert, "Bert")
    anna.post("/api/match", json={"players": 2, "wait": 600,
                                  "time_control": {"minutes": 5}}, headers=csrf(a))
    r = bert.post("/api/match", json={"players": 2, "wait": 600}, headers=csrf(b))
    assert r.json()["status"] == "waiting" and r.json()["count"] == 1


def test_leaving_the_queue(app: FastAPI, client: TestClient) -> None:
    anna = Browser(client)
    a = sign_up(anna, "Anna")
    anna.post("/api/match", json={"players": 2, "wait": 600}, headers=csrf(a))
    r = anna.delete("/api/match", headers=csrf(a))
    assert r.status_code == 200 and r.json() == {"status": "none"} | r.json()
    assert r.json()["status"] == "none"
    assert anna.get("/api/match").json()["status"] == "none"
    assert anna.delete("/api/match").status_code == 403  # csrf_failed


def test_guests_are_refused_and_bad_requests_say_why(client: TestClient) -> None:
    for method in ("GET", "POST", "DELETE"):
        r = client.request(method, "/api/match", json={} if method == "POST" else None)
        assert r.status_code == 401, (method, r.text)
        assert r.json()["error"]["code"] == "not_signed_in"
    anna = Browser(client)
    a = sign_up(anna, "Anna")
    r = anna.post("/api/match", json={"bots": "ppo"}, headers=csrf(a))
    assert r.status_code == 400 and r.json()["error"]["code"] == "unknown_bot"
    r = anna.post("/api/match", json={"mode": "team_2v2", "players": 3}, headers=csrf(a))
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_config"
    r = anna.post("/api/match", json={"wait": 5}, headers=csrf(a))
    assert r.status_code == 400


@pytest.fixture
def cluster(postgres_db: str, redis_server: RedisServer, tmp_path: Path) -> Iterator[Processes]:
    processes = Processes(postgres_db, redis_server, tmp_path)
    try:
        yield processes
    finally:
        processes.close()


def test_two_processes_make_one_game_of_one_queue(cluster: Processes) -> None:
    servers = cluster.start(2, bot_delay=0.0, sign_up_rate=1e6, sign_in_rate=1e6)
    players: list[tuple[httpx.Client, dict[str, str]]] = []
    for i in range(4):
        c = httpx.Client(base_url=servers[i % 2].http, timeout=30)
        r = c.post("/api/accounts", json={"name": f"Player{i}", "password": PASSWORD})
        assert r.status_code == 201, r.text
        players.append((c, csrf(r.json())))
    answers: list[Any] = [None] * 4

    def enqueue(i: int) -> None:
        c, headers = players[i]
        answers[i] = c.post("/api/match", json={"players": 4, "wait": 600}, headers=headers)

    threads = [threading.Thread(target=enqueue, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    deadline = time.monotonic() + 30
    while True:
        states = [c.get("/api/match").json() for c, _ in players]
        if all(s["status"] == "matched" for s in states) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert all(s["status"] == "matched" for s in states), states
    assert len({s["game_id"] for s in states}) == 1
    assert sorted(s["seat"] for s in states) == [0, 1, 2, 3]
    games = players[0][0].get("/api/games").json()["games"]
    assert len(games) == 1 and games[0]["status"] == "running"
    assert {s["player"] for s in games[0]["seats"]} == {f"Player{i}" for i in range(4)}
    # Six more in the queue of two-player games, three on each process, all at once: three
    # games, each player at exactly one seat of one of them.
    pairs: list[tuple[httpx.Client, dict[str, str]]] = []
    for i in range(6):
        c = httpx.Client(base_url=servers[i % 2].http, timeout=30)
        r = c.post("/api/accounts", json={"name": f"Pair{i}", "password": PASSWORD})
        assert r.status_code == 201, r.text
        pairs.append((c, csrf(r.json())))
    answers = [None] * 6

    def pair(i: int) -> None:
        c, headers = pairs[i]
        answers[i] = c.post("/api/match", json={"players": 2, "wait": 600}, headers=headers)

    threads = [threading.Thread(target=pair, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    deadline = time.monotonic() + 30
    while True:
        states = [c.get("/api/match").json() for c, _ in pairs]
        if all(s["status"] == "matched" for s in states) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert all(s["status"] == "matched" for s in states), states
    seats = [(s["game_id"], s["seat"]) for s in states]
    assert len(set(seats)) == 6 and len({g for g, _ in seats}) == 3
    games = players[0][0].get("/api/games").json()["games"]
    assert len(games) == 4
    names = [s["player"] for g in games for s in g["seats"]]
    assert sorted(names) == sorted([f"Player{i}" for i in range(4)]
                                   + [f"Pair{i}" for i in range(6)])
    for c, _ in players + pairs:
        c.close()
