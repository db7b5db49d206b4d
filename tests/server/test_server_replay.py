"""Replays and round figures of finished games (issue 15; docs/api.md "Replays and round
figures"): the state after any number of decisions as a spectator saw it, with the public
log up to then, and every seat's score (R22.1), gold and units on the board round by round.
Checked against an independent replay of the game's record."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient
from server_support import create

from kaladan.game import Game
from kaladan.record import replay
from kaladan.rules.observe import observe
from kaladan.rules.scoring import score_parts
from kaladan.rules.state import GameState
from kaladan.server.rates import PerAddress


def finished(client: TestClient, seats: list[str], seed: int, **fields: Any) -> str:
    """A bots-only game played to its end on the server (bots act without a pause)."""
    game_id = str(create(client, seats, seed=seed, quick=True, **fields)["game_id"])
    deadline = time.monotonic() + 60
    while client.get(f"/api/games/{game_id}").json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.02)
    return game_id


def states_of(client: TestClient, game_id: str) -> list[GameState]:
    """The game after each number of decisions, replayed from its published record."""
    record = client.get(f"/api/games/{game_id}/record").json()
    replay(record)  # the record is sound
    game = Game.new(replay(record).config, record["seed"])
    states = [game.state]
    for step in record["steps"]:
        game.play(step["action"], step["seat"])
        states.append(game.state)
    return states


def test_a_replay_shows_each_version_as_a_spectator_saw_it(client: TestClient) -> None:
    game_id = finished(client, ["random", "random"], seed=3)
    states = states_of(client, game_id)
    end = client.get(f"/api/games/{game_id}/view").json()  # the spectator's, at the end
    whole = end["log"]
    assert len(whole) < 500 and end["version"] == len(states) - 1
    for version in (0, 1, len(states) // 2, len(states) - 1):
        got = client.get(f"/api/games/{game_id}/replay/{version}")
        assert got.status_code == 200, got.text
        shown = got.json()
        assert shown["version"] == version and shown["last"] == len(states) - 1
        assert shown["observation"] == observe(states[version], None)
        assert shown["log_since"] == -1
        assert shown["log"] == [e for e in whole if e["version"] <= version]
    assert shown["observation"] == end["observation"]  # the same final board
    # Stepping forward: the entries of the next decision only.
    step = client.get(f"/api/games/{game_id}/replay/6", params={"since": 5}).json()
    assert step["log_since"] == 5 and step["log"] == [e for e in whole if e["version"] == 6]
    assert client.get(f"/api/games/{game_id}/replay/6", params={"since": 6}).json()["log"] == []


def test_a_team_replay_keeps_secret_cards_secret(client: TestClient) -> None:
    """R5.13, R16.5, R23.5: a replay is the spectator's: no hand, no face-down card."""
    game_id = finished(client, ["random"] * 4, seed=5, mode="team_2v2")
    states = states_of(client, game_id)
    end = client.get(f"/api/games/{game_id}/view").json()
    last = client.get(f"/api/games/{game_id}/replay/{len(states) - 1}").json()
    assert last["log"] == end["log"] and last["observation"] == end["observation"]
    committed = 0
    for version in range(0, len(states), 7):
        shown = client.get(f"/api/games/{game_id}/replay/{version}").json()
        assert shown["observation"] == observe(states[version], None)
        assert all("hand" not in p for p in shown["observation"]["players"])
        for entry in shown["log"]:
            if entry["kind"] in ("card_committed", "starting_card_taken"):
                committed += 1
                assert entry["card"] is None, entry
    assert committed > 0


def test_round_figures_are_the_replayed_states(client: TestClient) -> None:
    game_id = finished(client, ["greedy", "random", "random"], seed=4)
    states = states_of(client, game_id)
    log = client.get(f"/api/games/{game_id}/replay/{len(states) - 1}").json()["log"]
    result = client.get(f"/api/games/{game_id}/view").json()["result"]
    got = client.get(f"/api/games/{game_id}/rounds")
    assert got.status_code == 200, got.text
    rounds = got.json()["rounds"]
    starts = {}  # round -> the version of its first turn_started entry
    for entry in log:
        if entry["kind"] == "turn_started":
            starts.setdefault(entry["round"], entry["version"])
    assert [r["round"] for r in rounds] == [*sorted(starts), None]
    assert [r["version"] for r in rounds] == [*(starts[r] for r in sorted(starts)),
                                              len(states) - 1]
    for item in rounds:
        state = states[item["version"]]
        obs = observe(state, None)
        assert item["score"] == [None if p is None else p.total for p in score_parts(state)]
        assert item["gold"] == [p["gold"] for p in obs["players"]]
        assert item["units"] == [sum(unit.startswith(f"{seat}/") for units in obs["board"].values()
                                     for unit in units) for seat in range(3)]
    assert rounds[-1]["score"] == result["scores"]  # R22.1: the end is the final score
    assert len(rounds) >= 3


def test_replays_and_rounds_refuse_what_is_not_there(client: TestClient) -> None:
    running = create(client, ["human", "random"])["game_id"]  # nobody joined: it waits
    for path in (f"/api/games/{running}/rounds", f"/api/games/{running}/replay/0"):
        got = client.get(path)
        assert got.status_code == 409 and got.json()["error"]["code"] == "game_not_over"
    game_id = finished(client, ["random", "random"], seed=8)
    last = client.get(f"/api/games/{game_id}/replay/0").json()["last"]
    beyond = client.get(f"/api/games/{game_id}/replay/{last + 1}")
    assert beyond.status_code == 404 and beyond.json()["error"]["code"] == "unknown_version"
    for bad in ("-1", "1.5", "x", str(1 << 53)):
        got = client.get(f"/api/games/{game_id}/replay/{bad}")
        assert got.status_code == 400, (bad, got.text)
    assert client.get(f"/api/games/{game_id}/replay/0", params={"since": -2}).status_code == 400
    for path in ("/api/games/g_nosuchgame/rounds", "/api/games/g_nosuchgame/replay/0"):
        assert client.get(path).json()["error"]["code"] == "unknown_game"


def test_histories_are_kept_for_the_last_games_only(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    kept = service.histories.kept
    games = [finished(client, ["random", "random"], seed=20 + i) for i in range(kept + 1)]
    for game_id in games:
        assert client.get(f"/api/games/{game_id}/rounds").status_code == 200
    assert list(service.histories.items) == games[1:]


def test_replaying_counts_against_the_addresss_load_rate(client: TestClient) -> None:
    """A history not kept is a replay of the whole game: at most ``load_rate`` of them per
    address (here one an hour); a kept one costs nothing."""
    first, second = (finished(client, ["random", "random"], seed=40 + i) for i in range(2))
    service = client.app.state.service  # type: ignore[attr-defined]
    service.loads = PerAddress(1, per=3600)
    assert client.get(f"/api/games/{first}/rounds").status_code == 200
    refused = client.get(f"/api/games/{second}/replay/0")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert client.get(f"/api/games/{first}/replay/3").status_code == 200  # kept
