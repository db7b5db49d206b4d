"""Several real server processes on one PostgreSQL database and one Redis server
(docs/server.md "Scaling out"): any process serves any client, one writer per game,
events fanned out and resynced, a dead owner's games taken over."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_support import Processes, ServerProcess
from redis_support import RedisServer
from server_support import auth, join_code

from kaladan.server.service import rebuild
from kaladan.server.storage import Store


@pytest.fixture
def cluster(postgres_db: str, redis_server: RedisServer, tmp_path: Path) -> Iterator[Processes]:
    processes = Processes(postgres_db, redis_server, tmp_path)
    try:
        yield processes
    finally:
        processes.close()


def new_game(server: ServerProcess, seats: list[str], seed: int = 7) -> dict[str, Any]:
    r = httpx.post(server.http + "/api/games", json={"seats": seats, "seed": seed,
                                                      "quick": True}, timeout=30)
    assert r.status_code == 201, r.text
    return dict(r.json())


def join(server: ServerProcess, game: dict[str, Any], seat: int) -> str:
    link = next(link for link in game["join"] if link["seat"] == seat)
    r = httpx.post(f"{server.http}/api/games/{game['game_id']}/seats/{seat}/join",
                   json={"code": join_code(link)}, timeout=30)
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def view(server: ServerProcess, game_id: str, token: str | None = None) -> dict[str, Any]:
    r = httpx.get(f"{server.http}/api/games/{game_id}/view",
                  headers=auth(token) if token else {}, timeout=30)
    assert r.status_code == 200, r.text
    return dict(r.json())


def view_at(server: ServerProcess, game_id: str, version: int,
            token: str | None = None) -> dict[str, Any]:
    """The view once the server's copy has reached ``version`` (events take a moment)."""
    deadline = time.monotonic() + 20
    while True:
        seen = view(server, game_id, token)
        if seen["version"] >= version or time.monotonic() > deadline:
            assert seen["version"] == version, (seen["version"], version)
            return seen
        time.sleep(0.01)


def at_once(*calls: Callable[[], int]) -> list[int]:
    """Run ``calls`` on threads released together; their results in order."""
    results = [0] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(i: int) -> None:
        barrier.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def post(url: str, body: dict[str, Any], token: str | None = None) -> int:
    return httpx.post(url, json=body, headers=auth(token) if token else {},
                      timeout=30).status_code


def stored_steps(database: str, game_id: str) -> list[tuple[int, str, list[int]]]:
    store = Store(database)
    try:
        row = store.load(game_id)
        assert row is not None
        rebuild(row)  # every stored step is legal and causes its recorded chance
        return row.steps
    finally:
        store.dispose()


def test_any_process_serves_any_client(cluster: Processes) -> None:
    """A game created on one process, its seats joined on two others, decisions sent to
    whichever process: every process shows each seat the same view at every version."""
    a, b, c = cluster.start(3)
    game = new_game(a, ["human", "human"])
    game_id = game["game_id"]
    tokens = {0: join(b, game, 0), 1: join(c, game, 1)}
    rng = random.Random(5)
    servers = [a, b, c]
    for _ in range(40):
        spectator = view(rng.choice(servers), game_id)
        if spectator["result"] is not None:
            break
        seat = spectator["to_move"]
        shown = view_at(rng.choice(servers), game_id, spectator["version"], tokens[seat])
        r = httpx.post(f"{rng.choice(servers).http}/api/games/{game_id}/actions",
                       headers=auth(tokens[seat]), timeout=30,
                       json={"index": rng.randrange(shown["legal_count"]),
                             "version": shown["version"]})
        assert r.status_code == 200, r.text
        version = r.json()["version"]
        for s in (0, 1):
            views = [json.dumps(view_at(server, game_id, version, tokens[s]), sort_keys=True)
                     for server in servers]
            assert views[0] == views[1] == views[2]
    assert len(stored_steps(cluster.database, game_id)) == view(a, game_id)["version"]


def test_the_same_decision_at_once_on_two_processes_is_applied_once(cluster: Processes) -> None:
    a, b = cluster.start(2)
    game = new_game(a, ["human", "human"], seed=11)
    game_id = game["game_id"]
    tokens = {0: join(a, game, 0), 1: join(b, game, 1)}
    for round_ in range(200):
        spectator = view(a, game_id)
        if spectator["result"] is not None:
            game = new_game(a if round_ % 2 else b, ["human", "human"], seed=round_)
            game_id = game["game_id"]
            tokens = {0: join(a, game, 0), 1: join(b, game, 1)}
            continue
        seat = spectator["to_move"]
        shown = view_at(a, game_id, spectator["version"], tokens[seat])
        body = {"index": random.Random(round_).randrange(shown["legal_count"]),
                "version": shown["version"]}
        url = f"/api/games/{game_id}/actions"
        answers = at_once(partial(post, a.http + url, body, tokens[seat]),
                          partial(post, b.http + url, body, tokens[seat]))
        assert sorted(answers) == [200, 409], answers
        assert len(stored_steps(cluster.database, game_id)) == shown["version"] + 1


def test_a_seat_joined_on_two_processes_at_once_gets_one_token(cluster: Processes) -> None:
    a, b = cluster.start(2)
    for seed in range(10):
        game = new_game(a, ["human", "human", "human"], seed=seed)
        url = f"/api/games/{game['game_id']}/seats/{{}}/join"
        code = {link["seat"]: {"code": join_code(link)} for link in game["join"]}
        results = at_once(partial(post, a.http + url.format(0), code[0]),
                          partial(post, b.http + url.format(0), code[0]),
                          partial(post, b.http + url.format(1), code[1]))
        # one of the two claims of seat 0 wins; the other seat's join is not lost
        assert sorted(results[:2]) == [200, 409] and results[2] == 200, results
        seats = httpx.get(f"{a.http}/api/games/{game['game_id']}", timeout=30).json()["seats"]
        assert [s["joined"] for s in seats] == [True, True, False]
