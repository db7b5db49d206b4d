"""The live score (issue 40): every view carries each player's score by the parts of R22.1,
and in team mode each team's (R23.34), as the engine's ``rules.scoring`` works them out; the
figures are public, so every seat and a spectator read the same ones."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient
from live_support import live_game
from test_server_replay import finished, states_of

from kaladan.bots import make_bot
from kaladan.bots.base import SeatView
from kaladan.rules.scoring import parts, team_parts
from kaladan.server.live import LiveGame
from kaladan.server.views import build_view, view_text


def engine_score(live: LiveGame) -> dict[str, object]:
    """R22.1 / R23.34 from the engine, in the view's shape."""
    state = live.game.state
    players = [None if state.eliminated[p] else parts(state, p).to_json()
               for p in range(state.n)]
    teams = None
    if state.teams:
        teams = [{"team": t, "seats": [p for p in range(state.n) if state.team[p] == t],
                  **team_parts(state, t).to_json()} for t in sorted(set(state.team))]
    return {"players": players, "teams": teams, "six_gates": state.six_gates}


@pytest.mark.parametrize(("players", "mode", "seed"), [(3, "free_for_all", 4),
                                                       (4, "team_2v2", 7)])
def test_the_views_score_is_the_engines_at_every_version(players: int, mode: str,
                                                         seed: int) -> None:
    live = live_game(players, seed, quick=True, mode=mode)
    game = live.game
    bots = [make_bot("greedy" if p == 0 else "random") for p in range(players)]
    rng = random.Random(seed)
    seen_points = False
    while True:
        expected = engine_score(live)
        readers = [None, *range(players)]
        scores = [build_view(live, seat)["score"] for seat in readers]
        assert all(score == expected for score in scores), game.state.pending  # public: one
        for seat, part in enumerate(expected["players"]):  # type: ignore[arg-type]
            if part is not None:
                assert part["total"] == sum(part[k] for k in (  # type: ignore[index]
                    "trophies", "castles", "scalps", "tiles", "gold", "six_gates"))
                seen_points |= part["scalps"] > 0 or part["trophies"] > 0  # type: ignore[index]
            else:
                assert game.state.eliminated[seat]  # R22.2
        assert '"score":' in view_text(live, None)
        if game.is_over or len(game.steps) >= 2500:
            break
        state = game.state
        seat = state.pending.seat
        legal = game.legal_actions()
        game.play(bots[seat].choose(SeatView(state, seat), legal, rng), seat)
        live.publish()
    assert seen_points  # the game got as far as battles
    assert game.is_over and len(game.steps) > 20
    if game.is_over and game.state.result is not None:
        # at the end the view's totals are the result's (R22.3; team mode: the team's, R22.5)
        view = build_view(live, None)
        final = view["score"]
        for seat, score in enumerate(view["result"]["scores"]):
            if score is None:
                continue
            if final["teams"] is None:
                assert final["players"][seat]["total"] == score
            else:
                team = game.state.team[seat]
                assert [t["total"] for t in final["teams"] if t["team"] == team] == [score]


def test_a_replay_carries_the_score_at_its_version(client: TestClient) -> None:
    """The replay page's players panel reads the same figures, as they stood then."""
    game_id = finished(client, ["random", "random", "random"], seed=5)
    states = states_of(client, game_id)
    for version in (0, len(states) // 2, len(states) - 1):
        shown = client.get(f"/api/games/{game_id}/replay/{version}").json()
        state = states[version]
        assert shown["score"]["players"] == [
            None if state.eliminated[p] else parts(state, p).to_json() for p in range(state.n)]
        assert shown["score"]["teams"] is None
    end = client.get(f"/api/games/{game_id}/view").json()
    assert shown["score"] == end["score"]  # the last version: the live view's figures
