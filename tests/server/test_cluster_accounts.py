"""Accounts with several server processes on one PostgreSQL database and one Redis server
(issue 39: everything works in the several-process mode of issue 42): a session made on one
process signs in on every other, sign-in limits count over all of them, and a signed-in
player's seat is played by the session through any process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_support import Processes, ServerProcess
from redis_support import RedisServer
from server_support import join_code

PASSWORD = "a long enough password"


@pytest.fixture
def cluster(postgres_db: str, redis_server: RedisServer, tmp_path: Path) -> Iterator[Processes]:
    processes = Processes(postgres_db, redis_server, tmp_path)
    try:
        yield processes
    finally:
        processes.close()


def signed_in(server: ServerProcess, name: str, new: bool = True) -> dict[str, str]:
    """Sign up (or in) on ``server``: the headers a browser would send afterwards."""
    r = httpx.post(server.http + ("/api/accounts" if new else "/api/session"),
                   json={"name": name, "password": PASSWORD}, timeout=30)
    assert r.status_code in (200, 201), r.text
    return {"Cookie": f"kaladan_session={r.cookies['kaladan_session']}",
            "X-CSRF-Token": r.json()["csrf"]}


def call(server: ServerProcess, method: str, path: str, headers: dict[str, str],
         **kwargs: Any) -> httpx.Response:
    return httpx.request(method, server.http + path, headers=headers, timeout=30, **kwargs)


def test_a_session_made_on_one_process_plays_through_every_other(cluster: Processes) -> None:
    a, b, c = cluster.start(3, sign_in_rate=1e6, sign_up_rate=1e6)
    anna = signed_in(a, "Anna")
    for server in (b, c):
        assert call(server, "GET", "/api/session", anna).json()["name"] == "Anna"
    r = call(a, "POST", "/api/games", anna, json={"seats": ["human", "greedy"], "rated": True,
                                                   "quick": True})
    assert r.status_code == 201, r.text
    game = r.json()
    game_id = game["game_id"]
    r = call(b, "POST", f"/api/games/{game_id}/seats/0/join", anna,
             json={"code": join_code(game["join"][0])})
    assert r.status_code == 200, r.text
    for server in (a, b, c):
        summary = httpx.get(f"{server.http}/api/games/{game_id}", timeout=30).json()
        assert summary["seats"][0]["player"] == "Anna"
    played = 0
    for _ in range(60):  # Anna's decisions through process C, the bot's on the owner
        view = call(c, "GET", f"/api/games/{game_id}/view", anna).json()
        assert view["seat"] == 0
        if view["result"] is not None or played >= 6:
            break
        if view["to_move"] != 0:
            continue
        r = call(c, "POST", f"/api/games/{game_id}/actions", anna,
                 json={"index": 0, "version": view["version"]})
        assert r.status_code in (200, 409), r.text  # 409: a view older than the bot's move
        played += r.status_code == 200
    assert played >= 3
    # without the CSRF token the same cookie writes nothing, on any process
    cookie_only = {"Cookie": anna["Cookie"]}
    r = call(a, "POST", f"/api/games/{game_id}/actions", cookie_only, json={"index": 0})
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf_failed"
    # signed out everywhere on one process: no process knows the session any longer
    assert call(b, "DELETE", "/api/sessions", anna).status_code == 204
    for server in (a, b, c):
        assert call(server, "GET", "/api/session", anna).status_code == 401


def test_sign_in_attempts_are_counted_over_all_processes(cluster: Processes) -> None:
    servers = cluster.start(2, sign_in_rate=4, sign_up_rate=1e6)
    signed_in(servers[0], "Bert")
    answers = [httpx.post(servers[i % 2].http + "/api/session",
                          json={"name": "Bert", "password": f"guess {i}"}, timeout=30
                          ).status_code for i in range(6)]
    assert answers == [401, 401, 401, 401, 429, 429]
