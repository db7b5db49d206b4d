"""What researchers hit, checked from outside with the libraries' own entry points: OpenSpiel's
serializing random simulation, pickles and deep copies of running environments, Gymnasium's
``make_vec`` masks across autoresets, Stable-Baselines3's ``make_vec_env`` (and its
``rgb_array`` render mode), PettingZoo's SB3 self-play pattern through eliminations, and a
ppo policy meeting decisions it never trained on."""

from __future__ import annotations

import pickle
import random
from typing import Any

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")


import kaladan.env  # noqa: E402,F401  (registers kaladan/Kaladan-v0)


def pick(mask: np.ndarray, rng: random.Random) -> int:
    """A uniformly random legal token of ``mask``."""
    legal = np.flatnonzero(mask)
    assert len(legal), "a mask with no legal token"
    return int(legal[int(rng.random() * len(legal))])


# --- 1. OpenSpiel: serialization -------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 4])
def test_openspiel_random_sim_test_serializes(players: int) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from kaladan.env import openspiel_game  # noqa: F401  (registers python_kaladan)

    game = pyspiel.load_game("python_kaladan", {"players": players})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def same_openspiel_state(a: Any, b: Any, players: int) -> None:
    assert str(a) == str(b)
    assert a.history() == b.history()
    assert a.legal_actions() == b.legal_actions()
    assert a.current_player() == b.current_player()
    for p in range(players):
        assert a.observation_tensor(p) == b.observation_tensor(p)
        assert a.information_state_string(p) == b.information_state_string(p)


def test_a_deserialized_openspiel_state_is_the_same_state() -> None:
    """Mid-composition, after a redraw of hidden information too: the record replays to the
    same observations, legal actions and history, and the copy plays on like the original."""
    pyspiel = pytest.importorskip("pyspiel")
    from kaladan.env import openspiel_game  # noqa: F401

    game = pyspiel.load_game("python_kaladan", {"players": 3, "seed": 5})
    state = game.new_initial_state(11)  # another deal than the game's seed
    rng = random.Random(2)
    for _ in range(150):
        state.apply_action(rng.choice(state.legal_actions()))
    sample = state.resample_from_infostate(1, random.Random(3).random)
    while sample.core.choice is None or not sample.core.choice.prefix:  # a compound under way
        sample.apply_action(rng.choice(sample.legal_actions()))
    for original in (state, sample):
        for copied in (game.deserialize_state(original.serialize()),
                       pickle.loads(pickle.dumps(original))):
            same_openspiel_state(copied, original, 3)
            moves = random.Random(4)
            replay = random.Random(4)
            probe = original.clone()
            for _ in range(60):
                if probe.is_terminal():
                    break
                probe.apply_action(moves.choice(probe.legal_actions()))
                copied.apply_action(replay.choice(copied.legal_actions()))
                same_openspiel_state(copied, probe, 3)
