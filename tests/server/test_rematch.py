"""Rematch (docs/server.md "Rematch"): every human seat accepts, one new game with the
same settings, a new seed and the seats rotated; each new token reaches its seat only."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from live_support import sqlite_url
from server_support import auth, create, join_all, join_code, play_http
from sqlalchemy import select
from test_accounts import Browser, create_as, csrf, make_app, sign_up

from kaladan.server import social_store
from kaladan.server.rematch import new_token
from kaladan.server.service import digest
from kaladan.server.storage import game_players


def finished(client: TestClient, seats: list[str], **fields: Any) -> tuple[str, dict[int, str]]:
    created = create(client, seats, quick=True, **fields)
    tokens = join_all(client, created)
    view = play_http(client, created["game_id"], tokens, random.Random(3), 5000)
    assert view["result"] is not None
    return created["game_id"], tokens


def rematch(client: TestClient, game_id: str, token: str | None) -> Any:
    return client.post(f"/api/games/{game_id}/rematch",
                       headers=auth(token) if token else {})


def test_offer_and_accept_start_one_game_with_rotated_seats(client: TestClient) -> None:
    game_id, tokens = finished(client, ["human", "random", "human"],
                               options={"phase_order": "seeds"}, hints=True)
    assert client.get(f"/api/games/{game_id}/rematch").json()["status"] == "none"
    first = rematch(client, game_id, tokens[0])
    assert first.status_code == 200, first.text
    assert first.json() == {"status": "waiting", "accepted": [0], "humans": [0, 2],
                            "game_id": None, "seat": None, "token": None}
    again = rematch(client, game_id, tokens[0]).json()  # offering twice changes nothing
    assert again["accepted"] == [0] and again["status"] == "waiting"
    last = rematch(client, game_id, tokens[2]).json()
    assert last["status"] == "started" and last["seat"] == 0  # seat 2 -> seat 0
    new_id = last["game_id"]
    assert last["token"] == new_token(tokens[2], new_id)
    mine = client.get(f"/api/games/{game_id}/rematch", headers=auth(tokens[0])).json()
    assert mine["game_id"] == new_id and mine["seat"] == 1
    new_tokens = {1: mine["token"], 0: last["token"]}
    old = client.get(f"/api/games/{game_id}").json()
    new = client.get(f"/api/games/{new_id}").json()
    assert new["status"] == "running" and new["options"] == old["options"]
    assert new["mode"] == old["mode"] and new["hints"] is True
    assert [(s["kind"], s["bot"]) for s in new["seats"]] == [
        ("human", None), ("human", None), ("bot", "random")]  # rotated with their seats
    for seat, token in new_tokens.items():
        view = client.get(f"/api/games/{new_id}/view", headers=auth(token)).json()
        assert view["seat"] == seat
    service = client.app.state.service  # type: ignore[attr-defined]
    seeds = {service.games[g].game.seed for g in (game_id, new_id)}
    assert len(seeds) == 2  # a seed drawn anew
    assert service.games[new_id].game.config == service.games[game_id].game.config
    # one game: later calls name the same one
    assert rematch(client, game_id, tokens[2]).json()["game_id"] == new_id
    assert sum(g["game_id"] == new_id for g in client.get("/api/games").json()["games"]) == 1


def test_tokens_reach_only_their_seats(client: TestClient) -> None:
    game_id, tokens = finished(client, ["human", "human"])
    rematch(client, game_id, tokens[0])
    started = rematch(client, game_id, tokens[1]).json()
    assert started["status"] == "started"
    public = client.get(f"/api/games/{game_id}/rematch").json()
    assert public["game_id"] == started["game_id"]
    assert public["token"] is None and public["seat"] is None
    theirs = client.get(f"/api/games/{game_id}/rematch", headers=auth(tokens[0])).json()
    assert theirs["token"] != started["token"]
    assert started["token"] not in str(theirs) and theirs["token"] not in str(started)
    # only hashes are stored
    store = client.app.state.service.store  # type: ignore[attr-defined]
    seats = store.seats_text(started["game_id"])
    assert theirs["token"] not in seats and digest(theirs["token"]) in seats


def at_once(*calls: Any) -> list[Any]:
    answers: list[Any] = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(i: int) -> None:
        barrier.wait()
        answers[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def test_the_last_accepts_at_once_start_one_game(client: TestClient) -> None:
    game_id, tokens = finished(client, ["human", "human", "human"])
    rematch(client, game_id, tokens[0])
    answers = at_once(lambda: rematch(client, game_id, tokens[1]).json(),
                      lambda: rematch(client, game_id, tokens[2]).json())
    assert "started" in {a["status"] for a in answers}  # both count: the one who came last
    state = client.get(f"/api/games/{game_id}/rematch").json()
    assert state["status"] == "started" and state["accepted"] == [0, 1, 2]
    assert {a["game_id"] for a in answers if a["game_id"]} == {state["game_id"]}
    assert len(client.get("/api/games").json()["games"]) == 2  # the old game and one new


def test_two_calls_starting_the_game_at_once_store_one(client: TestClient) -> None:
    """Every seat accepted but the game was not stored (its starter was cut off): the next
    calls start it, and two at once store one game (the games' primary key)."""
    game_id, tokens = finished(client, ["human", "human"])
    store = client.app.state.service.store  # type: ignore[attr-defined]
    new_id = "g_0123456789abcdef"
    accepted = {str(s): digest(new_token(t, new_id)) for s, t in tokens.items()}
    assert social_store.offer_rematch(store, game_id, new_id, json.dumps(accepted))
    answers = at_once(*[lambda t=t: client.get(f"/api/games/{game_id}/rematch",
                                               headers=auth(t)).json()
                        for t in tokens.values()])
    assert [a["game_id"] for a in answers] == [new_id, new_id]
    assert sorted(a["seat"] for a in answers) == [0, 1]
    assert len(client.get("/api/games").json()["games"]) == 2
    for answer in answers:
        view = client.get(f"/api/games/{new_id}/view", headers=auth(answer["token"]))
        assert view.json()["seat"] == answer["seat"]


def test_only_players_of_a_finished_game(client: TestClient) -> None:
    created = create(client, ["human", "human"], quick=True)
    tokens = join_all(client, created)
    running = rematch(client, created["game_id"], tokens[0])
    assert running.status_code == 409 and running.json()["error"]["code"] == "game_not_over"
    game_id, tokens = finished(client, ["human", "random"])
    assert rematch(client, game_id, None).status_code == 401
    assert rematch(client, game_id, "not-a-token").status_code == 403
    other, _ = finished(client, ["human", "random"])
    assert rematch(client, other, tokens[0]).status_code == 403  # another game's token


def test_signed_in_players_keep_their_accounts_and_play_by_session(tmp_path: Path) -> None:
    with TestClient(make_app(sqlite_url(tmp_path))) as client:
        anna, bert = Browser(client), Browser(client)
        a, b = sign_up(anna, "Anna"), sign_up(bert, "Bert")
        created = create_as(anna, a, ["human", "random", "human"], quick=True, rated=True)
        game_id = created["game_id"]
        tokens = {}
        for player, me, link in ((anna, a, created["join"][0]), (bert, b, created["join"][1])):
            r = player.post(f"/api/games/{game_id}/seats/{link['seat']}/join",
                            headers=csrf(me), json={"code": join_code(link)})
            assert r.status_code == 200, r.text
            tokens[link["seat"]] = r.json()["token"]
        assert play_http(client, game_id, tokens, random.Random(4), 5000)["result"]
        # by the session alone (no token): the answer names the new seat, no token
        first = anna.post(f"/api/games/{game_id}/rematch", headers=csrf(a)).json()
        assert first["status"] == "waiting" and first["token"] is None
        last = bert.post(f"/api/games/{game_id}/rematch", headers=csrf(b)).json()
        assert last["status"] == "started" and last["seat"] == 0 and last["token"] is None
        new_id = last["game_id"]
        summary = client.get(f"/api/games/{new_id}").json()
        assert [s.get("player") for s in summary["seats"]] == ["Bert", "Anna", None]
        assert client.app.state.service.games[new_id].rated  # type: ignore[attr-defined]
        assert anna.get(f"/api/games/{new_id}/view").json()["seat"] == 1
        assert bert.get(f"/api/games/{new_id}/view").json()["seat"] == 0
        store = client.app.state.service.store  # type: ignore[attr-defined]
        with store.engine.connect() as c:
            rows = c.execute(select(game_players.c.seat, game_players.c.account_id)
                             .where(game_players.c.game_id == new_id)
                             .order_by(game_players.c.seat)).all()
        old = {s: i for s, i in enumerate(client.app.state.service  # type: ignore[attr-defined]
                                          .games[game_id].seats) if i.account}
        assert [(seat, account) for seat, account in rows] == [
            (0, old[2].account), (1, old[0].account)]
