"""The first game of /tutorial (issue 40): its definition (static/data/tutorial.json) is a
legal game. Replaying its line with the engine and the greedy bot (deciding as the server's
bot does, from the game's seed) reaches every position the guide teaches in, where the step's
action is legal; the taught battle is won; and a server playing the definition's game as
``POST /api/games`` creates it gives the learner the same decisions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from live_support import GENEROUS, sqlite_url
from server_support import auth, join_all, wait_for_humans

from kaladan.bots.base import SeatView
from kaladan.bots.registry import make_bot
from kaladan.game import Game
from kaladan.server import create_app
from kaladan.server.decision_random import DecisionRandom
from kaladan.server.models import CreateGame
from kaladan.server.service import make_config

TUTORIAL = (Path(__file__).resolve().parents[2] / "src" / "kaladan" / "server" / "static"
            / "data" / "tutorial.json")


def definition() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TUTORIAL.read_text("utf-8"))
    return data


def new_game(data: dict[str, Any]) -> Game:
    body = CreateGame(**data["game"])  # the request the page sends is a valid one
    config = make_config(body.mode, len(body.seats), body.options, body.world, body.quick)
    assert body.seed is not None
    return Game.new(config, body.seed)


def test_the_definition_names_its_source_and_its_steps() -> None:
    data = definition()
    assert data["source"] in ("official", "reconstructed")
    assert [s["id"] for s in data["steps"]] == ["move", "attack", "magic", "battle", "purchase"]
    assert data["game"]["seats"][data["learner"]] == "human"
    assert data["game"]["seats"].count("human") == 1  # a seed is allowed (docs/api.md)


def test_the_line_is_legal_and_reaches_every_taught_position() -> None:
    data = definition()
    learner = data["learner"]
    game = new_game(data)
    bot = make_bot("greedy")
    taught = {s["action"]: s["id"] for s in data["steps"] if s["action"]}
    seen: list[str] = []
    for seat, text in data["line"]:
        state = game.state
        assert state.pending.seat == seat, (text, len(game.steps))
        legal = game.legal_texts()
        assert text in legal, (text, legal)
        if seat != learner:  # the bot decides this, as the server's bot does (live.bot_rng)
            rng = DecisionRandom((game.seed * 1_000_003 + len(game.steps)) * 8 + seat)
            chosen = bot.choose(SeatView(state, seat), game.legal_actions(), rng)
            assert game.format(chosen) == text, len(game.steps)
        elif text in taught:
            step = next(s for s in data["steps"] if s["action"] == text)
            assert state.pending.kind.label == step["decision"], text  # where the guide asks it
            seen.append(taught[text])
        else:  # an untaught decision: the guide suggests its answer
            assert text == data["answers"][state.pending.kind.label], text
        game.play(text, seat)
    assert seen == ["move", "attack", "magic", "purchase"]
    entries = [e.to_json() for e in game.entries]
    ended = [e for e in entries if e["kind"] == "battle_ended"]
    assert len(ended) == 1 and ended[0]["attacker"] == learner
    assert ended[0]["result"] == "attacker_won"  # R16.27: the taught attack is a sensible one
    assert any(e["kind"] == "card_spent" and e["seat"] == learner for e in entries)
    assert any(e["kind"] == "bought" and e["seat"] == learner for e in entries)
    assert not game.is_over


def test_a_server_plays_the_tutorial_game_as_the_line_says(tmp_path: Path) -> None:
    data = definition()
    learner = data["learner"]
    ours = [text for seat, text in data["line"] if seat == learner]
    app = create_app(sqlite_url(tmp_path), GENEROUS, bot_delay=0, rate_limit=1e6)
    with TestClient(app) as client:
        created = client.post("/api/games", json=data["game"])
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        tokens = join_all(client, created.json())
        for text in ours:
            view = wait_for_humans(client, game_id, tokens)
            sent = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[learner]),
                               json={"action": text, "version": view["version"]})
            assert sent.status_code == 200, (text, sent.text)
        history = [e["kind"] for e in client.get(f"/api/games/{game_id}/view",
                                                   headers=auth(tokens[learner])).json()["log"]]
        assert "battle_ended" in history and "bought" in history
