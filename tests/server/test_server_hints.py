"""Advice on request (issues 15 and 44): a per-game option, on by default when a bot plays
and off when every seat is human, stored with the game; a hint is the expert bot's choice
(the greedy bot's where no value network serves the game) from the seat's own view (and an
attack's exact odds), refused when the option is off, and the same for every game that looks
the same to the seat (R5.13: nothing hidden is used)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from live_support import GENEROUS, live_game, sqlite_url
from server_support import auth, create, join_all, wait_for_humans

from kaladan.bots.base import SeatView
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.observe import observe
from kaladan.server import create_app
from kaladan.server.hints import GREEDY, advice, adviser


def error_code(response: Any) -> str:
    code: str = response.json()["error"]["code"]
    return code


def test_the_option_defaults_to_bots_and_is_stored_with_the_game(tmp_path: Path) -> None:
    app = create_app(sqlite_url(tmp_path), GENEROUS, bot_delay=0, rate_limit=1e6)
    with TestClient(app) as client:
        bots = create(client, ["human", "random"])["game_id"]
        people = create(client, ["human", "human"])["game_id"]
        chosen_off = create(client, ["human", "greedy"], hints=False)["game_id"]
        chosen_on = create(client, ["human", "human"], hints=True)["game_id"]
        wanted = {bots: True, people: False, chosen_off: False, chosen_on: True}
        for game_id, hints in wanted.items():
            assert client.get(f"/api/games/{game_id}").json()["hints"] is hints
        refused = client.post("/api/games", json={"seats": ["human", "human"], "hints": "yes"})
        assert refused.status_code == 400
    # A new server on the same database: the games come back from storage with their option.
    again = create_app(sqlite_url(tmp_path), GENEROUS, bot_delay=0, rate_limit=1e6)
    with TestClient(again) as client:
        for game_id, hints in wanted.items():
            assert client.get(f"/api/games/{game_id}").json()["hints"] is hints
        listed = {g["game_id"]: g["hints"] for g in client.get("/api/games").json()["games"]}
        assert {g: listed[g] for g in wanted} == wanted


def test_a_hint_is_refused_when_the_option_is_off_or_not_the_seats_turn(
        client: TestClient) -> None:
    created = create(client, ["human", "human"], quick=True)
    tokens = join_all(client, created)
    game_id = created["game_id"]
    view = wait_for_humans(client, game_id, tokens)
    off = client.get(f"/api/games/{game_id}/hint", headers=auth(tokens[view["seat"]]))
    assert off.status_code == 403 and error_code(off) == "hints_off"
    assert "no advice" in off.json()["error"]["message"]
    created = create(client, ["human", "human"], quick=True, hints=True)
    tokens = join_all(client, created)
    game_id = created["game_id"]
    view = wait_for_humans(client, game_id, tokens)
    waiting = client.get(f"/api/games/{game_id}/hint", headers=auth(tokens[1 - view["seat"]]))
    assert waiting.status_code == 409 and error_code(waiting) == "not_your_turn"
    # Seats are numbered from 1 in messages, as the lobby shows them (the API's are 0-based).
    assert (f"seat {view['seat'] + 1} is to decide, not seat {2 - view['seat']}"
            in waiting.json()["error"]["message"])
    nobody = client.get(f"/api/games/{game_id}/hint")
    assert nobody.status_code == 401 and error_code(nobody) == "missing_token"
    before = client.get(f"/api/games/{game_id}/view").json()
    asked = client.get(f"/api/games/{game_id}/hint", headers=auth(tokens[view["seat"]]))
    assert asked.status_code == 200
    assert client.get(f"/api/games/{game_id}/view").json() == before  # asking changes nothing


def test_hints_are_legal_decisions_with_the_odds_of_an_attack(client: TestClient) -> None:
    created = create(client, ["human", "greedy"], quick=True, seed=5)
    tokens = join_all(client, created)
    game_id = created["game_id"]
    attacks = 0
    for _ in range(120):
        view = wait_for_humans(client, game_id, tokens)
        if view["result"] is not None:
            break
        token = tokens[view["seat"]]
        hint = client.get(f"/api/games/{game_id}/hint", headers=auth(token)).json()
        again = client.get(f"/api/games/{game_id}/hint", headers=auth(token)).json()
        assert hint == again  # the same advice for the same moment
        assert hint["version"] == view["version"]
        assert hint["adviser"] == "expert"  # the shipped 2-player network serves the game
        whole = client.get(f"/api/games/{game_id}/legal", headers=auth(token)).json()["legal"]
        action = hint["action"]
        assert whole[action["index"]] == action  # one of the seat's legal actions
        if action["kind"] == "attack":
            odds = client.get(f"/api/games/{game_id}/odds", headers=auth(token)).json()
            assert hint["odds"] == odds["odds"][action["text"]]  # R16.14-R16.21, exact
            attacks += 1
        else:
            assert hint["odds"] is None
        r = client.post(f"/api/games/{game_id}/actions", headers=auth(token),
                        json={"index": action["index"], "version": view["version"]})
        assert r.status_code == 200, r.text  # following the advice is always allowed
    assert attacks >= 1


def test_a_hint_uses_nothing_the_seat_cannot_see() -> None:
    """R5.13: every state that looks the same to the seat (other hands and pools, the face-
    down cards, the deck's order and every future die drawn anew from its observation) gets
    the same advice, from the expert bot (a small budget) where a network serves the game
    and from the greedy bot."""
    compared = {GREEDY: 0, "expert": 0}
    for players, seed in ((2, 3), (3, 4), (4, 5)):
        live = live_game(players, seed, quick=True, **({"mode": "team_2v2"} if players == 4
                                                       else {}))
        game = live.game
        searched = adviser(game.config, 12)
        rng = random.Random(seed)
        for step in range(160):
            if game.is_over:
                break
            state = game.state
            seat = state.pending.seat
            if step % 4 == 0:
                salt = f"g_test:{step}:{seat}"
                for spec in {GREEDY, searched}:
                    shown = advice(state, seat, salt, spec)
                    for k in range(3):
                        other = SeatView(state, seat).determinize(random.Random(k))
                        assert observe(other, seat) == observe(state, seat)
                        assert advice(other, seat, salt, spec) == shown, (spec, step)
                        compared[spec.partition(":")[0]] += 1
            legal = legal_actions(state)
            game.play(legal[rng.randrange(len(legal))], seat)
    assert compared[GREEDY] > 200 and compared["expert"] > 50, compared


def test_a_game_no_network_serves_is_advised_by_the_greedy_bot(client: TestClient) -> None:
    players = next((n for n in range(3, 7) if adviser(Config(players=n), 8) == GREEDY), None)
    if players is None:
        pytest.skip("every player count has a value network")
    created = create(client, ["human"] + ["random"] * (players - 1), quick=True, seed=2)
    tokens = join_all(client, created)
    game_id = created["game_id"]
    view = wait_for_humans(client, game_id, tokens)
    hint = client.get(f"/api/games/{game_id}/hint", headers=auth(tokens[view["seat"]])).json()
    assert hint["adviser"] == GREEDY
