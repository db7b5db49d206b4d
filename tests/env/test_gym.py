"""The Gymnasium single-agent environment: Gymnasium's checker with no warning, masks for
MaskablePPO, seat rotation, determinism, rewards and illegal tokens."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import kaladan.env  # noqa: E402,F401  (registers kaladan/Kaladan-v0)
from kaladan.env.gym_env import KaladanEnv  # noqa: E402
from kaladan.rules.errors import InvalidActionError  # noqa: E402


def episode(env: KaladanEnv, seed: int | None, pick: np.random.Generator
            ) -> tuple[list[bytes], float, dict[str, object]]:
    obs, info = env.reset(seed=seed)
    trace = [obs.tobytes()]
    while True:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(pick.choice(np.flatnonzero(mask))))
        trace.append(obs.tobytes())
        if terminated or truncated:
            return trace, reward, info


@pytest.mark.parametrize("kwargs", [
    {"players": 2, "opponents": ["random"]},
    {"players": 3, "opponents": ["greedy"], "quick_setup": True},
    {"players": 4, "mode": "team_2v2", "opponents": ["random"], "quick_setup": True},
], ids=["2-random", "3-greedy", "team_2v2"])
def test_gymnasium_check_env_passes_without_a_warning(kwargs: dict[str, object]) -> None:
    env = gym.make("kaladan/Kaladan-v0", **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


def test_masks_seat_rotation_and_rewards() -> None:
    env = KaladanEnv(players=2, opponents=["random"])
    pick = np.random.default_rng(0)
    seats = []
    rewards = []
    for ep in range(4):
        _, reward, info = episode(env, 100 + ep if ep == 0 else None, pick)
        seats.append(info["seat"])
        rewards.append(reward)
        result = env.core.state.result
        if result is not None and result.winner is not None:
            assert reward == (1.0 if result.winner == info["seat"] else -1.0)
    assert seats == [0, 1, 0, 1]  # the agent's seat rotates by episode
    assert set(rewards) <= {-1.0, 0.0, 1.0}
    fixed = KaladanEnv(players=3, opponents=["random"], seat=2, quick_setup=True)
    _, _, info = episode(fixed, 1, pick)
    assert info["seat"] == 2


def test_a_seeded_episode_reproduces_exactly() -> None:
    a = episode(KaladanEnv(players=2, opponents=["greedy"]), 7, np.random.default_rng(3))
    b = episode(KaladanEnv(players=2, opponents=["greedy"]), 7, np.random.default_rng(3))
    assert a[0] == b[0] and a[1] == b[1]


def test_an_illegal_token_ends_the_episode_without_touching_the_game() -> None:
    env = KaladanEnv(players=2, opponents=["random"], illegal_reward=-2.0)
    env.reset(seed=1)
    decisions = env.core.state.decisions
    bad = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated) == (-2.0, True, False)
    assert "not a legal head" in str(info["illegal_action"])
    assert env.core.state.decisions == decisions
    strict = KaladanEnv(players=2, opponents=["random"], illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(InvalidActionError):
        strict.step(bad)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="opponents"):
        KaladanEnv(players=3, opponents=["random", "random", "random"])
    with pytest.raises(ValueError, match="seat"):
        KaladanEnv(players=2, seat=2)
    with pytest.raises(ValueError, match="ansi"):
        KaladanEnv(render_mode="human")
