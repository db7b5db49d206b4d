"""The OpenSpiel game ``python_kaladan`` (kaladan.env.openspiel_game): OpenSpiel's own random
simulation test, an ISMCTS game, resampling from an information state and clone
independence."""

from __future__ import annotations

import importlib
import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from kaladan.env import openspiel_game  # noqa: E402

NAME = openspiel_game.SHORT_NAME


def random_play(state: Any, rng: random.Random, tokens: int) -> None:
    """Up to ``tokens`` uniformly random legal actions (fewer if the game ends)."""
    for _ in range(tokens):
        if state.is_terminal():
            return
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("params", [
    {"players": 2},
    {"players": 3},
    {"players": 4, "mode": "team_2v2", "quick_setup": True},
], ids=["2p", "3p", "team_2v2"])
def test_random_sim_test(params: dict[str, Any]) -> None:
    game = pyspiel.load_game(NAME, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_game_description() -> None:
    game = pyspiel.load_game(NAME, {"players": 2})
    kind = game.get_type()
    # No chance nodes: the dice come from the state's seeded generator (the module says why).
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.max_chance_outcomes() == 0
    assert game.observation_tensor_shape() == [game.new_initial_state().core.observations.size]
    three = pyspiel.load_game(NAME, {"players": 3})
    assert three.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert three.num_players() == 3
    # Importing the module again (a reload) does not register twice.
    importlib.reload(openspiel_game)
    assert NAME in pyspiel.registered_names()
    with pytest.raises(ValueError, match="unknown parameters"):
        openspiel_game.KaladanGame({"playrs": 2})


def test_truncation_ends_with_zero_returns() -> None:
    game = pyspiel.load_game(NAME, {"players": 2, "max_decisions": 30})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    state = game.new_initial_state()
    random_play(state, random.Random(0), 100_000)
    assert state.is_terminal() and state.core.truncated
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.returns() == [0.0, 0.0]
    assert game.max_game_length() == 30 * openspiel_game.TOKENS_PER_DECISION


def test_seeded_initial_states_differ() -> None:
    game = pyspiel.load_game(NAME, {"players": 2, "seed": 3})
    a, b = game.new_initial_state(), game.new_initial_state()
    assert str(a) == str(b) and a.core.state.hand == b.core.state.hand
    c = game.new_initial_state(4)
    rng_a, rng_c = random.Random(0), random.Random(0)
    random_play(a, rng_a, 400)
    random_play(c, rng_c, 400)
    assert a.history() != c.history() or str(a) != str(c)


def test_ismcts_plays_to_the_end() -> None:
    game = pyspiel.load_game(NAME, {"players": 2, "seed": 11})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=10,
                           random_state=np.random.RandomState(2))
    # pyspiel.UniformProbabilitySampler is seeded at random: a seeded sampler keeps the
    # test deterministic.
    worlds = random.Random(3)
    bot.set_resampler(lambda s, player: s.resample_from_infostate(player, worlds.random))
    state = game.new_initial_state()
    rng = random.Random(5)
    searched = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) > 1 and searched < 6 and len(state.history()) % 20 == 0:
            action = bot.step(state)
            searched += 1
        else:
            action = rng.choice(legal)
        assert action in legal
        state.apply_action(action)
    assert searched > 0
    returns = state.returns()
    assert sorted(returns) == [-1.0, 1.0] or returns == [0.0, 0.0]
    assert sum(returns) == 0.0


def opponent_holds_cards(state: Any) -> bool:
    p = state.current_player()
    return p >= 0 and any(state.core.state.hand[q] for q in range(state.num_players())
                          if q != p)


def test_resample_from_infostate() -> None:
    game = pyspiel.load_game(NAME, {"players": 2, "seed": 2})
    state = game.new_initial_state()
    rng = random.Random(7)
    while not opponent_holds_cards(state):
        random_play(state, rng, 1)
        assert not state.is_terminal(), "no opponent ever held a card"
    p = state.current_player()
    other = 1 - p
    hands = set()
    for x in (0.01, 0.2, 0.35, 0.5, 0.66, 0.8, 0.99):
        sample = state.resample_from_infostate(p, lambda x=x: x)
        assert sample.observation_tensor(p) == state.observation_tensor(p)
        assert sample.information_state_string(p) == state.information_state_string(p)
        assert sample.legal_actions() == state.legal_actions()
        assert sample.history() == state.history()
        assert sample.current_player() == p
        assert sample.core.state.hand[p] == state.core.state.hand[p]
        assert len(sample.core.state.hand[other]) == len(state.core.state.hand[other])
        hands.add(tuple(sorted(sample.core.state.hand[other])))
        random_play(sample, random.Random(0), 200)  # the sample is a playable game
    assert len(hands) > 1, "the opponent's hidden hand was never redrawn differently"
    # The same sampler value gives the same world.
    a = state.resample_from_infostate(p, lambda: 0.42)
    b = state.resample_from_infostate(p, lambda: 0.42)
    random_play(a, random.Random(3), 300)
    random_play(b, random.Random(3), 300)
    assert str(a) == str(b)


def test_resample_keeps_the_token_prefix() -> None:
    game = pyspiel.load_game(NAME, {"players": 2, "seed": 4})
    state = game.new_initial_state()
    rng = random.Random(8)
    while state.is_terminal() or not state.core.choice or not state.core.choice.prefix:
        random_play(state, rng, 1)
        assert not state.is_terminal(), "no compound action was started"
    p = state.current_player()
    for q in range(2):
        sample = state.resample_from_infostate(q, lambda: 0.3)
        assert sample.core.choice is not None
        assert sample.core.choice.prefix == state.core.choice.prefix
        assert sample.legal_actions() == state.legal_actions()
        assert sample.observation_string(q) == state.observation_string(q)
    assert state.current_player() == p


def test_clone_is_independent_and_replays() -> None:
    game = pyspiel.load_game(NAME, {"players": 3, "seed": 9})
    state = game.new_initial_state()
    random_play(state, random.Random(1), 150)
    before = (str(state), state.history(), state.observation_tensor(0), state.legal_actions())
    clone = state.clone()
    random_play(clone, random.Random(2), 100)
    assert (str(state), state.history(), state.observation_tensor(0),
            state.legal_actions()) == before
    assert clone.history()[:len(before[1])] == before[1]
    # Two clones given the same actions reach the same end: the chance generator is copied.
    a, b = state.clone(), state.clone()
    random_play(a, random.Random(3), 100_000)
    random_play(b, random.Random(3), 100_000)
    assert a.is_terminal() and b.is_terminal()
    assert a.returns() == b.returns() and str(a) == str(b)
    assert (str(state), state.history()) == before[:2]
    # copy.deepcopy goes through the same cheap clone
    import copy
    c = copy.deepcopy(state)
    assert str(c) == str(state) and c.history() == state.history()
    # and the initial state shared by the game is never stepped
    fresh = game.new_initial_state()
    assert fresh.history() == [] and str(fresh) == str(game.new_initial_state())


@pytest.mark.parametrize("seed", range(4))
def test_ismcts_plays_a_team_game(seed: int) -> None:
    """Team mode (R23.1) under ISMCTS: nodes keyed by the information state must always
    offer the same actions (once broken by the invasion order of R17.6, which the
    observation now shows)."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_kaladan", {"players": 4, "mode": "team_2v2",
                                                "quick_setup": True, "seed": seed})
    rng = np.random.default_rng(seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                           uct_c=2.0, max_simulations=10,
                           random_state=np.random.RandomState(seed))
    state = game.new_initial_state()
    tokens = 0
    while not state.is_terminal() and tokens < 500:
        if tokens % 7 == 0:
            action = bot.step(state)
        else:
            action = int(rng.choice(state.legal_actions()))
        assert action in state.legal_actions()
        state.apply_action(action)
        tokens += 1
