"""Lobby and HTTP play: create, join, tokens, listing, views, and every error status."""

from __future__ import annotations

import random

from fastapi.testclient import TestClient
from live_support import GENEROUS
from server_support import auth, create, join_all, join_code, listed, play_http

from kaladan.server import create_app


def test_create_join_and_list(client: TestClient) -> None:
    created = create(client, ["human", "random", "human"], name="Friday game", quick=True,
                     options={"phase_order": "official"})
    game_id = created["game_id"]
    assert [link["seat"] for link in created["join"]] == [0, 2]  # only human seats
    assert created["spectate"] == f"/watch/{game_id}"
    listed = client.get("/api/games").json()["games"]
    assert [g["game_id"] for g in listed] == [game_id]
    assert listed[0]["status"] == "open" and listed[0]["name"] == "Friday game"
    assert [s["joined"] for s in listed[0]["seats"]] == [False, True, False]
    tokens = join_all(client, created)
    assert tokens[0] != tokens[2]
    summary = client.get(f"/api/games/{game_id}").json()
    assert summary["status"] == "running"
    # R6.2: the phase order played is public, for the phase tracker; no seed is sent.
    assert summary["options"]["phase_order"] == "official"
    assert listed[0]["options"] == summary["options"] and "seed" not in summary
    assert client.get("/api/games", params={"status": "open"}).json()["games"] == []
    view = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
    assert view["seat"] == 0 and view["observation"]["seat"] == 0
    assert "hand" in view["observation"]["players"][0]


def test_the_seeds_readings_as_options_are_accepted_and_public(client: TestClient) -> None:
    """R3.3: upgrade_loss and end_game_trigger (decisions 35, 36) are created, played and
    shown in the game's summary and in the list."""
    options = {"upgrade_loss": "losing_side", "end_game_trigger": "deck_end"}
    created = create(client, ["human", "random"], quick=True, seed=4, options=options)
    game_id = created["game_id"]
    summary = client.get(f"/api/games/{game_id}").json()
    assert {k: summary["options"][k] for k in options} == options
    listed = client.get("/api/games").json()["games"][0]
    assert listed["game_id"] == game_id and listed["options"] == summary["options"]
    live = client.app.state.service.games[game_id]  # type: ignore[attr-defined]
    assert (live.game.config.upgrade_loss, live.game.config.end_game_trigger) == (
        "losing_side", "deck_end")
    default = create(client, ["human", "random"], quick=True)
    summary = client.get(f"/api/games/{default['game_id']}").json()
    assert (summary["options"]["upgrade_loss"], summary["options"]["end_game_trigger"]) == (
        "dead_only", "final_round")
    for name in options:
        bad = client.post("/api/games", json={"seats": ["human", "random"],
                                              "options": {name: "sometimes"}})
        assert bad.status_code == 400 and bad.json()["error"]["rule"] == "R3.3", bad.text


def test_join_code_is_single_use_and_token_handed_out_once(client: TestClient) -> None:
    created = create(client, ["human", "random"])
    path = f"/api/games/{created['game_id']}/seats/0/join"
    code = join_code(created["join"][0])
    assert client.post(path, json={"code": "wrong"}).status_code == 403
    first = client.post(path, json={"code": code})
    assert first.status_code == 200
    again = client.post(path, json={"code": code})
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_joined"


def test_play_through_http_until_the_end(client: TestClient) -> None:
    created = create(client, ["human", "random"], quick=True, seed=11)
    tokens = join_all(client, created)
    view = play_http(client, created["game_id"], tokens, random.Random(1), 2000)
    assert view["result"] is not None
    assert view["result"]["end"] in ("last_crown", "final_round", "draw")
    record = client.get(f"/api/games/{created['game_id']}/record")
    assert record.status_code == 200 and record.json()["format"] == "kaladan-record"
    assert client.get("/api/games").json()["games"][0]["status"] == "over"


def test_views_name_legal_actions_and_exact_odds(client: TestClient) -> None:
    created = create(client, ["human", "random"], quick=True, seed=5)
    tokens = join_all(client, created)
    game_id = created["game_id"]
    rng = random.Random(2)
    for _ in range(400):  # play until the human seat may attack
        view = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
        attacks = [a for a in listed(view) if a["kind"] == "attack"]
        if attacks:
            break
        view = play_http(client, game_id, tokens, rng, 1)
    assert attacks, "no attack became possible"
    asked = client.get(f"/api/games/{game_id}/odds", headers=auth(tokens[0])).json()
    assert asked["version"] == view["version"] and "odds" not in view
    assert set(asked["odds"]) == {a["text"] for a in attacks}  # every attack, asked for
    assert client.get(f"/api/games/{game_id}/odds").status_code == 401  # a seat's question
    for attack in attacks:
        assert attack["text"].split()[1:] == attack["tiles"]
        odds = asked["odds"][attack["text"]]
        p, q = map(int, odds["attacker_wins_exact"].split("/"))
        assert abs(p / q - odds["attacker_wins"]) < 1e-12
    blocks = [*(to[-2:] for m in view["moves"] for to in m["to"]),  # [..., index, count]
              *(shape[-2:] for s in view["swaps"] for shape in s["shapes"])]
    covered = [a["index"] for a in view["legal"]] + [
        i for index, count in blocks for i in range(index, index + count)]
    assert sorted(covered) == list(range(view["legal_count"]))  # listed or grouped, once


def test_spectator_view_has_no_hands_and_no_legal_actions(client: TestClient) -> None:
    created = create(client, ["human", "human"])
    join_all(client, created)
    view = client.get(f"/api/games/{created['game_id']}/view").json()
    assert view["seat"] is None and view["your_turn"] is False and view["legal"] == []
    assert view["moves"] == view["swaps"] == [] and view["legal_count"] == 0
    for player in view["observation"]["players"]:
        assert not {"hand", "pool", "buyable"} & set(player)


# --- errors -------------------------------------------------------------------------------


def error_of(response: object, status: int) -> dict[str, object]:
    from httpx import Response

    assert isinstance(response, Response)
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["status"] == status
    assert set(body["error"]) == {"status", "code", "message", "rule", "input"}
    error: dict[str, object] = body["error"]
    return error


def test_400_for_malformed_requests(client: TestClient) -> None:
    error_of(client.post("/api/games", content=b"{not json",
                         headers={"content-type": "application/json"}), 400)
    error_of(client.post("/api/games", json={"seats": "human"}), 400)
    error_of(client.post("/api/games", json={"seats": ["human"]}), 400)  # one seat
    error_of(client.post("/api/games", json={"seats": ["human", "random"], "extra": 1}), 400)
    error_of(client.post("/api/games", json={"seats": ["human", "robot"]}), 400)
    error_of(client.post("/api/games", json={"seats": ["human", "bots/evil.py:Evil"]}), 400)
    error_of(client.post("/api/games", json={"seats": ["human", "mcts:time=3600"]}), 400)
    error_of(client.post("/api/games", json={"seats": ["human", "mcts:iterations=x"]}), 400)
    bad_option = error_of(client.post("/api/games", json={
        "seats": ["human", "random"], "options": {"mountain_defence": "lava"}}), 400)
    assert bad_option["rule"] == "R3.3"
    wrong_count = error_of(client.post("/api/games", json={
        "mode": "team_2v2", "seats": ["human", "random"]}), 400)
    assert wrong_count["rule"] == "R23.1"
    error_of(client.post("/api/games", json={"seats": ["human", "random"],
                                             "world": {"tiles": "nonsense"}}), 400)
    created = create(client, ["human", "random"], quick=True)
    tokens = join_all(client, created)
    path = f"/api/games/{created['game_id']}/actions"
    error_of(client.post(path, headers=auth(tokens[0]), json={}), 400)
    error_of(client.post(path, headers=auth(tokens[0]), json={"action": "a", "index": 0}), 400)
    error_of(client.post(path, headers=auth(tokens[0]), json={"index": 10_000}), 400)
    malformed = error_of(client.post(path, headers=auth(tokens[0]),
                                     json={"action": "teleport T1"}), 400)
    assert malformed["code"] == "invalid_action" and malformed["input"] == "teleport T1"
    error_of(client.get("/api/games/x/view", headers={"Authorization": "Basic abc"}), 404)


def test_401_for_a_missing_token_403_for_a_bad_one(client: TestClient) -> None:
    created = create(client, ["human", "random"], quick=True)
    join_all(client, created)
    game_id = created["game_id"]
    error_of(client.post(f"/api/games/{game_id}/actions", json={"index": 0}), 401)
    error_of(client.post(f"/api/games/{game_id}/actions", json={"index": 0},
                         headers=auth("not-a-token")), 403)
    error_of(client.get(f"/api/games/{game_id}/view", headers=auth("not-a-token")), 403)
    error_of(client.get(f"/api/games/{game_id}/view",
                        headers={"Authorization": "Basic abc"}), 403)
    other = create(client, ["human", "random"], quick=True)
    other_tokens = join_all(client, other)  # a token of another game is no token here
    error_of(client.post(f"/api/games/{game_id}/actions", json={"index": 0},
                         headers=auth(other_tokens[0])), 403)


def test_404_for_unknown_games_and_seats(client: TestClient) -> None:
    error_of(client.get("/api/games/g_0000000000000000"), 404)
    error_of(client.get("/api/games/g_0000000000000000/view"), 404)
    error_of(client.get("/api/games/" + "x" * 150), 404)
    error_of(client.get("/api/nothing-here"), 404)
    created = create(client, ["human", "random"])
    game_id = created["game_id"]
    error_of(client.post(f"/api/games/{game_id}/seats/1/join", json={"code": "x"}), 404)  # bot
    error_of(client.post(f"/api/games/{game_id}/seats/5/join", json={"code": "x"}), 404)
    error_of(client.post(f"/api/games/{game_id}/seats/-1/join", json={"code": "x"}), 404)
    error_of(client.post(f"/api/games/{game_id}/seats/99/join", json={"code": "x"}), 404)


def test_409_for_wrong_seat_stale_version_and_finished_games(client: TestClient) -> None:
    created = create(client, ["human", "human"], quick=True, seed=3)
    tokens = join_all(client, created)
    game_id = created["game_id"]
    path = f"/api/games/{game_id}/actions"
    view = client.get(f"/api/games/{game_id}/view").json()
    mover, waiter = view["to_move"], 1 - view["to_move"]
    wrong = error_of(client.post(path, headers=auth(tokens[waiter]), json={"index": 0}), 409)
    assert wrong["code"] == "not_your_turn"
    stale = error_of(client.post(path, headers=auth(tokens[mover]),
                                 json={"index": 0, "version": view["version"] + 1}), 409)
    assert stale["code"] == "stale_version"
    assert client.get(f"/api/games/{game_id}/view").json()["version"] == view["version"]
    error_of(client.get(f"/api/games/{game_id}/record"), 409)
    play_http(client, game_id, tokens, random.Random(4), 3000)
    over = error_of(client.post(path, headers=auth(tokens[0]), json={"index": 0}), 409)
    assert over["code"] == "game_over"


def test_422_names_the_rule_and_changes_nothing(client: TestClient) -> None:
    created = create(client, ["human", "random"], quick=True, seed=8)
    tokens = join_all(client, created)
    game_id = created["game_id"]
    view = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
    for _ in range(200):  # find a decision where passing or ending is not legal
        texts = {a["text"] for a in listed(view)}
        if view["your_turn"] and "pass" not in texts:
            break
        view = play_http(client, game_id, tokens, random.Random(len(texts)), 1)
    before = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
    assert "pass" not in {a["text"] for a in listed(before)}
    illegal = error_of(client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[0]),
                                   json={"action": "pass"}), 422)
    assert illegal["code"] == "illegal_action"
    assert isinstance(illegal["rule"], str) and illegal["rule"].startswith("R")
    after = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
    assert after == before


def test_413_for_large_bodies(client: TestClient) -> None:
    huge = {"seats": ["human", "random"], "name": "x" * 20_000}
    error_of(client.post("/api/games", json=huge), 413)
    chunks = (b"{" + b" " * 8192 for _ in range(3))  # no content-length: counted as it comes
    error_of(client.post("/api/games", content=chunks,
                         headers={"content-type": "application/json"}), 413)


def test_429_when_one_connection_posts_too_fast(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    app = create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", GENEROUS, bot_delay=0, rate_limit=5)
    with TestClient(app) as slow:
        statuses = [slow.post("/api/games", json={"seats": ["human"]}).status_code
                    for _ in range(8)]
    assert statuses[:5] == [400] * 5  # counted before the body is even read
    assert set(statuses[5:]) == {429}


def test_openapi_documents_the_api(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    for path in ("/api/games", "/api/games/{game_id}", "/api/games/{game_id}/view",
                 "/api/games/{game_id}/actions", "/api/games/{game_id}/seats/{seat}/join",
                 "/api/games/{game_id}/record"):
        assert path in paths
    schemas = spec["components"]["schemas"]
    assert {"View", "CreateGame", "ErrorBody", "LegalAction", "AttackOdds",
            "LogEntry"} <= set(schemas)
    view = schemas["View"]["properties"]
    assert {"log", "log_since"} <= set(view) and "battle" not in view
    assert {"kind", "index", "version"} <= set(schemas["LogEntry"]["properties"])
    since = paths["/api/games/{game_id}/view"]["get"]["parameters"]
    assert any(p["name"] == "since" for p in since)
    assert "422" in paths["/api/games/{game_id}/actions"]["post"]["responses"]


def test_pages_serve_the_ui_for_every_route(client: TestClient) -> None:
    for path in ("/", "/play/g_1/0", "/watch/g_1"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert client.get("/static/does-not-exist.js").status_code == 404


def test_search_bots_play_on_their_own_threads(client: TestClient) -> None:
    created = create(client, ["human", "mcts:iterations=10"], quick=True, seed=2)
    tokens = join_all(client, created)
    view = play_http(client, created["game_id"], tokens, random.Random(5), 8)
    assert view["version"] >= 8
    live = client.app.state.service.games[created["game_id"]]  # type: ignore[attr-defined]
    assert any(step.seat == 1 for step in live.game.steps), "the mcts seat never decided"
