"""A finished game's analysis over HTTP (issue 44; docs/api.md "Analysis"): the library's
analysis of the game's published record, with each costly decision's moves described for the
page; computed in the search pool and kept; refused while the game runs (the analysis reads
every hand) and for a configuration no value network judges."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from server_support import create
from test_server_replay import finished

from kaladan.analysis import DEFAULT_ITERATIONS, states_of
from kaladan.record import replay
from kaladan.rules.kinds import parse_action
from kaladan.server.analysis_view import analysis_json
from kaladan.server.rates import PerAddress


def test_a_finished_games_analysis_is_the_librarys_of_its_record(client: TestClient) -> None:
    game_id = finished(client, ["greedy", "greedy"], seed=11)
    got = client.get(f"/api/games/{game_id}/analysis")
    assert got.status_code == 200, got.text
    assert got.headers["content-type"] == "application/json"
    record = client.get(f"/api/games/{game_id}/record").json()
    assert got.text == analysis_json(record, DEFAULT_ITERATIONS)
    data: dict[str, Any] = got.json()
    assert data["format"] == "kaladan-analysis" and data["players"] == 2
    assert data["decisions"] == len(record["steps"]) == len(data["curve"]) - 1
    winner = record["result"]["winner"]
    assert data["curve"][-1] == [1.0 if s == winner else 0.0 for s in range(2)]
    assert all(0.0 <= p <= 1.0 for point in data["curve"] for p in point)
    states = states_of(replay(record))
    for seat, costly in enumerate(data["costly"]):
        for item in costly:
            assert item["seat"] == seat and item["cost"] > 0
            state = states[item["version"]]
            for key in ("played", "better"):
                described = item[f"{key}_action"]
                action = parse_action(item[key], state)
                assert described["text"] == item[key]
                assert described["kind"] == action.kind.value
                assert described["label"].startswith("act.")
    # Kept: asked again, the same bytes without a second computation.
    analyses = client.app.state.analyses  # type: ignore[attr-defined]
    assert list(analyses.items) == [game_id]
    client.app.state.service.loads = PerAddress(1, per=3600)  # type: ignore[attr-defined]
    assert client.get(f"/api/games/{game_id}/analysis").text == got.text


def test_a_running_game_is_not_analysed(client: TestClient) -> None:
    running = create(client, ["human", "greedy"])["game_id"]  # nobody joined: it waits
    got = client.get(f"/api/games/{running}/analysis")
    assert got.status_code == 409, got.text
    error = got.json()["error"]
    assert error["code"] == "game_not_over" and "over" in error["message"]
    assert "curve" not in got.text


def test_an_unknown_game_is_404(client: TestClient) -> None:
    got = client.get("/api/games/g_nosuchgame/analysis")
    assert got.status_code == 404 and got.json()["error"]["code"] == "unknown_game"


def test_a_game_no_network_judges_is_refused_with_the_reason(client: TestClient) -> None:
    # The shipped networks judge the standard world; a random one is not theirs.
    game_id = finished(client, ["greedy", "greedy"], seed=12,
                       options={"world": "random_terrain"})
    got = client.get(f"/api/games/{game_id}/analysis")
    assert got.status_code == 422, got.text
    error = got.json()["error"]
    assert error["code"] == "no_network" and "random_terrain" in error["message"]
    assert json.loads(got.text).keys() == {"error"}
