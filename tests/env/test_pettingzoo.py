"""The PettingZoo AEC environment: PettingZoo's own checkers, rewards, eliminations,
truncation, determinism and refusals."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from kaladan.env import kaladan_v0  # noqa: E402
from kaladan.rules.errors import InvalidActionError  # noqa: E402

SETTINGS = [
    {"players": 2}, {"players": 3}, {"players": 4, "quick_setup": True}, {"players": 5},
    {"players": 6, "quick_setup": True}, {"players": 4, "mode": "team_2v2"},
    {"players": 6, "mode": "team_3v3", "quick_setup": True},
]


def play(env: kaladan_v0.raw_env, seed: int, rng: random.Random) -> list[tuple[object, ...]]:
    """A whole random episode; per step (agent, observation bytes, reward, done)."""
    trace: list[tuple[object, ...]] = []
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), reward, termination, truncation))
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
    return trace


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
def test_pettingzoo_api_test(settings: dict[str, object]) -> None:
    api_test(kaladan_v0.env(**settings), num_cycles=300)


@pytest.mark.parametrize("settings", SETTINGS[:2] + SETTINGS[5:6],
                         ids=lambda s: "-".join(map(str, s.values())))
def test_pettingzoo_seed_test(settings: dict[str, object]) -> None:
    seed_test(lambda: kaladan_v0.env(**settings), num_cycles=300)


def test_a_seeded_episode_reproduces_exactly() -> None:
    a = play(kaladan_v0.raw_env(players=3), 9, random.Random(4))
    b = play(kaladan_v0.raw_env(players=3), 9, random.Random(4))
    assert a == b
    c = play(kaladan_v0.raw_env(players=3), 10, random.Random(4))
    assert a != c


def test_end_rewards_win_and_loss() -> None:
    env = kaladan_v0.raw_env(players=2, quick_setup=True)
    totals = {a: 0.0 for a in env.possible_agents}
    rng = random.Random(1)
    env.reset(seed=3)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
    result = env.core.state.result
    assert result is not None and result.winner is not None  # seed 3 ends with a winner
    winner = env.possible_agents[result.winner]
    assert totals[winner] == 1.0
    assert sum(totals.values()) == 0.0


def test_team_members_share_the_result() -> None:
    """R23.1: team mode is won or lost by the team; each member gets the team's reward."""
    env = kaladan_v0.raw_env(players=4, mode="team_2v2", quick_setup=True)
    rng = random.Random(2)
    finals: dict[str, float] = {}
    env.reset(seed=5)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            finals[agent] = reward
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
    team = env.core.state.team
    result = env.core.state.result
    assert result is not None and result.team is not None
    for seat, agent in enumerate(env.possible_agents):
        assert finals[agent] == (1.0 if team[seat] == result.team else -1.0)


def test_an_eliminated_player_is_terminated_at_once_with_minus_one() -> None:
    """R18.1: out of a free-for-all game with -1 at once; it is not selected again while the
    game goes on, and at the end it shows that -1 in ``last()``, is stepped with None and
    leaves ``agents``."""
    for seed in range(40):
        env = kaladan_v0.raw_env(players=4, quick_setup=True)
        rng = random.Random(seed)
        env.reset(seed=seed)
        out: set[str] = set()
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            for a in env.agents:
                if env.terminations[a] and not env.core.over and a not in out:
                    seat = env.possible_agents.index(a)
                    assert env.core.state.eliminated[seat]
                    assert env._cumulative_rewards[a] == -1.0
                    out.add(a)
            if not env.core.over and not env.core.truncated:
                assert agent not in out and not termination  # a live agent is selected
            if termination or truncation:
                if agent in out:
                    assert reward == -1.0  # its -1, nothing added at the end
                env.step(None)
                assert agent not in env.agents
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
        if out and env.core.over:
            assert env.agents == []
            return
    pytest.fail("no elimination before the end in 40 random 4-player games")


def test_truncation_after_the_cap() -> None:
    env = kaladan_v0.raw_env(players=2, max_decisions=30)
    trace = play(env, 1, random.Random(1))
    last = [t for t in trace if t[4]]
    assert len(last) == 2 and all(t[2] == 0.0 for t in last)  # both truncated, no reward
    assert env.core.state.decisions == 30 and env.core.state.result is None


def test_only_the_selected_agent_has_a_mask_and_it_is_the_legal_set() -> None:
    env = kaladan_v0.raw_env(players=3)
    env.reset(seed=2)
    selected = env.agent_selection
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        if agent == selected:
            assert sorted(np.flatnonzero(mask)) == sorted(env.core.legal_tokens())
        else:
            assert not mask.any()


def test_an_illegal_token_is_refused_and_changes_nothing() -> None:
    env = kaladan_v0.raw_env(players=2)
    env.reset(seed=2)
    agent = env.agent_selection
    before = env.observe(agent)
    bad = int(np.flatnonzero(before["action_mask"] == 0)[0])
    with pytest.raises(InvalidActionError, match="not a legal head"):
        env.step(bad)
    after = env.observe(agent)
    assert env.agent_selection == agent
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])


def test_render_ansi_draws_the_board() -> None:
    env = kaladan_v0.raw_env(players=2, render_mode="ansi", quick_setup=True)
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "C1" in text and "P1" in text
    assert kaladan_v0.raw_env(players=2).render() is None
    with pytest.raises(ValueError, match="ansi"):
        kaladan_v0.raw_env(players=2, render_mode="human")


def test_structured_view_on_request() -> None:
    env = kaladan_v0.raw_env(players=2, structured=True)
    env.reset(seed=1)
    info = env.infos[env.agent_selection]
    assert info["view"]["seat"] == env.possible_agents.index(env.agent_selection)
    assert "view" not in kaladan_v0.raw_env(players=2).infos.get("player_0", {})
