"""Moving a seat to another device (issue 40): the seat asks for a one-time code, the device
that joins with it plays on, the old token ends with a clear refusal; teams, winners and
the finish time in the games' summaries."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from account_support import PASSWORD, Browser, create_as, csrf, make_app, sign_up
from cluster_support import Processes
from fastapi.testclient import TestClient
from live_support import sqlite_url
from server_support import auth, create, join_all, join_code, play_http
from starlette.websockets import WebSocketDisconnect


def hand_over(client: Any, game_id: str, seat: int, **kwargs: Any) -> httpx.Response:
    response: httpx.Response = client.post(f"/api/games/{game_id}/seats/{seat}/handover",
                                           **kwargs)
    return response


def join(client: Any, game_id: str, seat: int, code: str) -> httpx.Response:
    response: httpx.Response = client.post(f"/api/games/{game_id}/seats/{seat}/join",
                                           json={"code": code})
    return response


def test_a_seat_moves_to_another_device_with_a_one_time_code(client: TestClient) -> None:
    created = create(client, ["human", "human"], quick=True)
    game_id = created["game_id"]
    tokens = join_all(client, created)
    r = hand_over(client, game_id, 1, headers=auth(tokens[1]))
    assert r.status_code == 200, r.text
    moved = r.json()
    assert moved["seat"] == 1 and moved["url"] == f"/play/{game_id}/1?code={moved['code']}"
    assert moved["link"].endswith(moved["url"]) and moved["qr"].startswith("<svg")
    # until the new device joins, the old token plays on
    assert client.get(f"/api/games/{game_id}/legal", headers=auth(tokens[1])).status_code \
        == 200
    r = join(client, game_id, 1, moved["code"])
    assert r.status_code == 200, r.text
    new = r.json()["token"]
    assert new != tokens[1]
    view = client.get(f"/api/games/{game_id}/view", headers=auth(new)).json()
    assert view["seat"] == 1
    # the old token is refused, and says why
    for method, path in (("GET", "view"), ("GET", "legal"), ("POST", "actions")):
        r = client.request(method, f"/api/games/{game_id}/{path}", headers=auth(tokens[1]),
                           json={"index": 0} if method == "POST" else None)
        assert r.status_code == 403, (path, r.text)
        error = r.json()["error"]
        assert error["code"] == "seat_moved" and "seat 2 " in error["message"], error
    # the code is one-time; the first join link says the seat is taken, numbered from 1
    for code in (moved["code"], join_code(created["join"][1])):
        r = join(client, game_id, 1, code)
        assert r.status_code == 409, r.text
        message = r.json()["error"]["message"]
        assert r.json()["error"]["code"] == "already_joined"
        assert message.startswith("seat 2 has already joined") and "hand it over" in message
    # the other seat is untouched; the game goes on with the new token
    assert client.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()["seat"] \
        == 0
    play_http(client, game_id, {0: tokens[0], 1: new}, random.Random(4), 6)


def test_only_the_seat_itself_asks_for_its_hand_over(client: TestClient) -> None:
    created = create(client, ["human", "human", "greedy"], quick=True)
    game_id = created["game_id"]
    tokens = join_all(client, created)
    r = hand_over(client, game_id, 1)  # a spectator
    assert r.status_code == 401 and r.json()["error"]["code"] == "missing_token"
    r = hand_over(client, game_id, 1, headers=auth(tokens[0]))  # another seat
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_seat"
    assert "seat 1's, not seat 2's" in r.json()["error"]["message"]
    r = hand_over(client, game_id, 1, headers=auth("not a token"))
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
    r = hand_over(client, game_id, 2, headers=auth(tokens[0]))  # a bot's seat
    assert r.status_code == 403
    # asking twice: only the newest code moves the seat
    first = hand_over(client, game_id, 0, headers=auth(tokens[0])).json()["code"]
    second = hand_over(client, game_id, 0, headers=auth(tokens[0])).json()["code"]
    assert join(client, game_id, 0, first).status_code == 409
    assert join(client, game_id, 0, second).status_code == 200


def test_an_open_seat_is_not_handed_over(client: TestClient) -> None:
    created = create(client, ["human", "human"], quick=True)
    game_id = created["game_id"]
    token = join(client, game_id, 0, join_code(created["join"][0])).json()["token"]
    # seat 1 has not joined: nobody may ask for it, and its own link still takes it
    r = hand_over(client, game_id, 1, headers=auth(token))
    assert r.status_code == 403
    assert join(client, game_id, 1, join_code(created["join"][1])).status_code == 200


def test_the_old_devices_socket_hears_that_the_seat_moved(client: TestClient) -> None:
    created = create(client, ["human", "human"], quick=True)
    game_id = created["game_id"]
    tokens = join_all(client, created)
    with client.websocket_connect(f"/ws/games/{game_id}?token={tokens[0]}") as old:
        assert old.receive_json()["type"] == "view"
        code = hand_over(client, game_id, 0, headers=auth(tokens[0])).json()["code"]
        assert join(client, game_id, 0, code).status_code == 200
        while True:  # the seats changed: a view may come first, then the refusal
            message = old.receive_json()
            if message["type"] == "error":
                break
        assert message["error"]["code"] == "seat_moved"
        with pytest.raises(WebSocketDisconnect) as closed:
            old.receive_json()
        assert closed.value.code == 4403
    with client.websocket_connect(f"/ws/games/{game_id}?token={tokens[0]}") as again, \
            pytest.raises(WebSocketDisconnect) as refused:
        again.receive_json()
    assert refused.value.code == 4403 and "moved to another device" in refused.value.reason


@pytest.fixture
def accounts_client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(sqlite_url(tmp_path))) as c:
        yield c


def test_a_signed_in_players_seat_is_handed_over_by_the_session(
        accounts_client: TestClient) -> None:
    anna = Browser(accounts_client)
    me = sign_up(anna, "Anna")
    created = create_as(anna, me, ["human", "greedy"], rated=True)
    game_id = created["game_id"]
    r = anna.post(f"/api/games/{game_id}/seats/0/join", headers=csrf(me),
                  json={"code": join_code(created["join"][0])})
    assert r.status_code == 200, r.text
    r = anna.post(f"/api/games/{game_id}/seats/0/handover", headers=csrf(me))
    assert r.status_code == 200, r.text
    code = r.json()["code"]
    # a rated seat is for its signed-in player: a guest device cannot take it, nor can
    # another player
    guest = Browser(accounts_client)
    assert join(guest, game_id, 0, code).status_code == 401
    bert = Browser(accounts_client)
    b = sign_up(bert, "Bert")
    r = bert.post(f"/api/games/{game_id}/seats/0/join", headers=csrf(b), json={"code": code})
    assert r.status_code == 409 and r.json()["error"]["code"] == "seat_taken"
    # Anna on her second device (signed in there too) takes it with the code
    phone = Browser(accounts_client)
    r = phone.post("/api/session", json={"name": "Anna", "password": PASSWORD})
    assert r.status_code == 200, r.text
    r = phone.post(f"/api/games/{game_id}/seats/0/join", headers=csrf(r.json()),
                   json={"code": code})
    assert r.status_code == 200, r.text
    new = r.json()["token"]
    summary = accounts_client.get(f"/api/games/{game_id}").json()
    assert summary["seats"][0]["player"] == "Anna"  # still her seat
    assert accounts_client.get(f"/api/games/{game_id}/view",
                               headers=auth(new)).json()["seat"] == 0
    assert anna.get(f"/api/games/{game_id}/view").json()["seat"] == 0  # her session too


def test_summaries_name_teams_winners_and_the_finish(client: TestClient) -> None:
    created = create(client, ["random", "random", "random", "random"], mode="team_2v2",
                     quick=True, seed=3)
    game_id = created["game_id"]
    summary = client.get(f"/api/games/{game_id}").json()
    assert [s["team"] for s in summary["seats"]] == [0, 1, 0, 1]
    for _ in range(600):
        summary = client.get(f"/api/games/{game_id}").json()
        if summary["status"] == "over":
            break
        client.get(f"/api/games/{game_id}/view")
    assert summary["status"] == "over"
    assert summary["finished_at"] is not None
    assert summary["finished_at"] >= summary["created"]
    team = summary["winning_team"]
    if team is None:  # a draw
        assert summary["winners"] == []
    else:
        assert summary["winners"] == [s for s in range(4) if s % 2 == team]
    listed = next(g for g in client.get("/api/games").json()["games"]
                  if g["game_id"] == game_id)
    assert listed["winners"] == summary["winners"]
    # a free-for-all has no teams; a running game no winners
    other = create(client, ["human", "greedy"], quick=True)
    summary = client.get(f"/api/games/{other['game_id']}").json()
    assert [s["team"] for s in summary["seats"]] == [None, None]
    assert summary["winners"] is None and summary["finished_at"] is None


def test_a_hand_over_holds_across_server_processes(postgres_db: str, redis_server: Any,
                                                   tmp_path: Path) -> None:
    """The code asked for on one process moves the seat on another; every process then
    refuses the old token (the seats live in the database, the change is announced)."""
    processes = Processes(postgres_db, redis_server, tmp_path)
    try:
        a, b = processes.start(2)
        r = httpx.post(a.http + "/api/games", json={"seats": ["human", "human"],
                                                    "quick": True}, timeout=30)
        created = r.json()
        game_id = created["game_id"]
        tokens = join_all(httpx.Client(base_url=a.http, timeout=30), created)
        r = httpx.post(f"{a.http}/api/games/{game_id}/seats/1/handover",
                       headers=auth(tokens[1]), timeout=30)
        assert r.status_code == 200, r.text
        r = httpx.post(f"{b.http}/api/games/{game_id}/seats/1/join",
                       json={"code": r.json()["code"]}, timeout=30)
        assert r.status_code == 200, r.text
        new = r.json()["token"]
        for server in (a, b):
            for _ in range(100):  # the other process hears of the change within moments
                r = httpx.get(f"{server.http}/api/games/{game_id}/view",
                              headers=auth(tokens[1]), timeout=30)
                if r.status_code == 403:
                    break
                time.sleep(0.05)
            assert r.json()["error"]["code"] == "seat_moved", r.text
            r = httpx.get(f"{server.http}/api/games/{game_id}/view", headers=auth(new),
                          timeout=30)
            assert r.json()["seat"] == 1
    finally:
        processes.close()
