"""Levels and the expert bot on the server (issue 44): a level is a seat kind shown by its
name and played as its bot (a searching one in the worker pool); an expert seat within the
caps like mcts, never naming a file; a seat no value network serves is refused before the
game (422), also in the quick-match queue; a level is rated as its own entry, else as the bot
it plays."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from live_support import sqlite_url
from server_support import create, join_all, play_http
from test_accounts import Browser, csrf, make_app, sign_up

from kaladan.bots.levels import default_level, level_names
from kaladan.bots.registry import check_config
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError
from kaladan.server import rating_store
from kaladan.server.errors import ApiError
from kaladan.server.rating_store import bot_ratings, seat_ratings
from kaladan.server.ratings import Skill, bot_kind, bot_skill
from kaladan.server.service import check_bot_spec, quick


def unserved_players() -> int:
    """A player count the expert bot cannot play (no shipped value network for it)."""
    for players in range(3, 7):
        try:
            check_config("expert", Config(players=players))
        except ConfigError:
            return players
    pytest.skip("every player count has a value network")


def test_a_level_seat_is_shown_by_its_name_and_plays(client: TestClient) -> None:
    created = create(client, ["human", "adept"], quick=True, seed=4)
    game_id = created["game_id"]
    seats = client.get(f"/api/games/{game_id}").json()["seats"]
    assert [(s["kind"], s["bot"]) for s in seats] == [("human", None), ("bot", "adept")]
    listed = next(g for g in client.get("/api/games").json()["games"]
                  if g["game_id"] == game_id)
    assert listed["seats"][1]["bot"] == "adept"
    tokens = join_all(client, created)
    play_http(client, game_id, tokens, random.Random(1), 6)  # adept answers in between
    steps = client.app.state.service.games[game_id].game.steps  # type: ignore[attr-defined]
    assert any(step.seat == 1 for step in steps)  # searched in the worker pool


def test_every_level_and_the_expert_are_seat_kinds_within_the_caps(client: TestClient) -> None:
    for name in level_names():
        assert check_bot_spec(name) == name
    for spec in ("expert", "expert:time=1", "expert:iterations=400,c=0.5,reuse=0",
                 "careless", "careless:p=0.5"):
        assert check_bot_spec(spec) == spec
        create(client, ["human", spec], quick=True)
    refused = {"expert:time=11": "bot_too_slow", "expert:iterations=20001": "bot_too_slow",
               "expert:net=value-2p.npz": "unknown_bot", "adept:time=1": "unknown_bot",
               "careless:p=2": "unknown_bot"}
    for spec, code in refused.items():
        with pytest.raises(ApiError) as caught:
            check_bot_spec(spec)
        assert caught.value.code == code, spec
        r = client.post("/api/games", json={"seats": ["human", spec]})
        assert r.status_code == 400, (spec, r.text)  # the request's pattern refuses it first


def test_searching_levels_think_in_the_pool_and_quick_ones_do_not() -> None:
    assert [quick(name) for name in level_names()] == [True, True, False, False, False]
    assert quick("careless:p=0.2") and not quick("expert:time=1")


def test_an_expert_seat_no_network_serves_is_refused_before_the_game(
        client: TestClient) -> None:
    players = unserved_players()
    for strong in ("master", "expert:time=1"):
        seats = ["human", strong] + ["random"] * (players - 2)
        r = client.post("/api/games", json={"seats": seats, "quick": True})
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["code"] == "bot_cannot_play"
        assert f"{players} players" in error["message"]
        if strong != "expert:time=1":
            assert f"the {strong} level" in error["message"]
            assert "choose veteran or a weaker level" in error["message"]
    seats = ["human", default_level().name] + ["random"] * (players - 2)
    assert create(client, seats, quick=True)["game_id"]  # the default level plays any game


def test_the_quick_match_queue_refuses_a_bot_that_cannot_play(tmp_path: Path) -> None:
    players = unserved_players()
    with TestClient(make_app(sqlite_url(tmp_path))) as client:
        anna = Browser(client)
        a = sign_up(anna, "Anna")
        r = anna.post("/api/match", json={"players": players, "bots": "master"},
                      headers=csrf(a))
        assert r.status_code == 422 and r.json()["error"]["code"] == "bot_cannot_play", r.text
        r = anna.post("/api/match", json={"players": players}, headers=csrf(a))
        assert r.status_code == 200, r.text
        assert r.json()["bots"] == default_level().name  # the default: the middle level


def test_a_level_is_rated_as_its_entry_else_as_the_bot_it_plays(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert bot_kind("adept") == "adept" and bot_kind("mcts:time=1") == "mcts"
    measured = bot_ratings()
    table = seat_ratings()
    # the league measured every level: each has its own rating, adept's below mcts's best
    assert all(table[name] == measured[name] for name in level_names())
    assert table["adept"].mu < measured["mcts"].mu
    assert bot_skill("adept", table) == measured["adept"]
    # a level the table lacks is rated as the bot it plays
    unmeasured = {k: v for k, v in measured.items() if k != "adept"}
    monkeypatch.setattr(rating_store, "bot_ratings", lambda: unmeasured)
    assert rating_store.seat_ratings.__wrapped__()["adept"] == measured["mcts"]
    assert bot_skill("adept", {**table, "adept": Skill(40.0, 2.0)}) == Skill(40.0, 2.0)
