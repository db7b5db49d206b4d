"""The batched stepping core (``kaladan.env.vector``) and its faces: the buffers equal the AEC
env's observations and masks for the same states, seeded batches do not depend on K, hidden
information stays hidden (R5.13), auto-reset episodes are whole games that replay, and
Gymnasium's vector API holds."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics

import kaladan.env  # noqa: F401  (registers kaladan/Kaladan-v0)
from kaladan.bots.base import SeatView
from kaladan.cli.main import main
from kaladan.env import kaladan_v0
from kaladan.env.batch import SelfPlayGames
from kaladan.env.core import EnvCore, make_config
from kaladan.env.gym_vector import KaladanVectorEnv
from kaladan.env.vector import VectorGames
from kaladan.game import Game
from kaladan.record import dumps, position_digest, to_record
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.errors import InvalidActionError
from kaladan.rules.legal import legal_actions
from kaladan.rules.notation import position_to_json
from kaladan.rules.setup import new_game

SETTINGS = [(2, "free_for_all"), (3, "free_for_all"), (4, "free_for_all"),
            (5, "free_for_all"), (6, "free_for_all"), (4, "team_2v2"), (6, "team_3v3")]


def _pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal token per row (rows of the batch's masks)."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], dtype=np.int64)


@pytest.mark.parametrize(("players", "mode"), SETTINGS, ids=lambda s: str(s))
def test_buffers_equal_the_aec_env_for_the_same_states(players: int, mode: str) -> None:
    """At every step of K games (episodes auto-reset), the batch's observation, mask and seat
    to move are the PettingZoo env's ``observe`` of the selected agent, for the same game
    seeds and tokens; final rewards equal the AEC env's."""
    k = 4
    config = make_config(players, mode)
    games = VectorGames(config, k, seed=11)
    envs = [kaladan_v0.raw_env(players=players, mode=mode) for _ in range(k)]
    episodes = [0] * k
    for i, env in enumerate(envs):
        env.reset(seed=games.episode_seed(i, 0))
    rng = np.random.default_rng(players)
    checked = 0
    while checked < 2_000:
        for i, env in enumerate(envs):
            if games.terminated[i] or games.truncated[i]:
                continue
            agent = env.agent_selection
            seen = env.observe(agent)
            assert games.to_play[i] == int(agent.split("_")[1])
            assert np.array_equal(games.observations[i], seen["observation"])
            assert np.array_equal(games.masks[i], seen["action_mask"].astype(bool))
            checked += 1
        tokens = _pick(games.masks, rng)
        ended = games.terminated | games.truncated
        games.step(tokens)
        for i, env in enumerate(envs):
            if ended[i]:
                episodes[i] += 1
                env.reset(seed=games.episode_seed(i, episodes[i]))
                continue
            env.step(int(tokens[i]))
            if games.terminated[i]:  # the AEC env's game is over too, with these returns
                assert env.core.over
                assert games.rewards[i].tolist() == env.core.returns()
    assert checked >= 2_000


def _trajectory(games: VectorGames, steps: int, count: int) -> list[str]:
    """A digest per game of everything the first ``count`` games' buffers showed, with
    tokens drawn from a generator per game (so a game's tokens do not depend on K)."""
    rngs = [np.random.default_rng(1000 + i) for i in range(games.num_games)]
    digests = [hashlib.sha256() for _ in range(count)]
    for _ in range(steps):
        for i in range(count):
            for array in (games.observations[i], games.masks[i], games.rewards[i],
                          games.to_play[i:i + 1], games.terminated[i:i + 1]):
                digests[i].update(array.tobytes())
        games.step(np.array([rngs[i].choice(np.flatnonzero(games.masks[i]))
                             for i in range(games.num_games)]))
    return [d.hexdigest() for d in digests]


def test_seeded_batches_reproduce_exactly_whatever_k() -> None:
    config = make_config(3)
    small = _trajectory(VectorGames(config, 2, seed=5), 400, 2)
    large = _trajectory(VectorGames(config, 5, seed=5), 400, 2)
    again = _trajectory(VectorGames(config, 2, seed=5), 400, 2)
    other = _trajectory(VectorGames(config, 2, seed=6), 400, 2)
    assert small == large == again
    assert small[0] != other[0]


@pytest.mark.parametrize(("players", "mode"), [(3, "free_for_all"), (4, "team_2v2")],
                         ids=str)
def test_hidden_information_twins_give_identical_rows(players: int, mode: str) -> None:
    """R5.13: a state and its determinized twin for the seat to move (other hands, deck order,
    dice to come redrawn) load into two games of a batch with identical rows and masks."""
    config = make_config(players, mode)
    games = VectorGames(config, 2, seed=1)
    state = new_game(config, 4)
    rng = random.Random(4)
    compared = 0
    while state.result is None:
        legal = legal_actions(state)
        apply_unchecked(state, legal[rng.randrange(len(legal))])
        if state.result is None and state.decisions % 9 == 0:
            seat = state.pending.seat
            twin = SeatView(state, seat).determinize(random.Random(state.decisions))
            games.load(0, state)
            games.load(1, twin)
            assert games.to_play[0] == games.to_play[1] == seat
            assert np.array_equal(games.observations[0], games.observations[1])
            assert np.array_equal(games.masks[0], games.masks[1])
            compared += 1
    assert compared >= 10


def test_rows_follow_any_sequence_of_positions() -> None:
    """Each seat's vector is kept between its turns and moved in and out of the game's output
    row: positions of other games loaded in turn (other seats to move, other stats) and a few
    tokens after each still give exactly the AEC env's observation and mask."""
    config = make_config(4)
    sources = []
    for seed in range(3):
        state = new_game(config, seed)
        rng = random.Random(seed)
        while state.result is None and state.decisions < 300:
            legal = legal_actions(state)
            apply_unchecked(state, legal[rng.randrange(len(legal))])
            if state.decisions % 23 == 0 and state.result is None:
                sources.append(state.copy())
    games = VectorGames(config, 2, seed=0)
    rng = random.Random(7)
    checked = 0
    for _ in range(60):
        state = rng.choice(sources)
        games.load(1, state)
        core = EnvCore(config)
        core.state = state.copy()
        core._new_choice()
        for _ in range(rng.randrange(4)):
            assert games.to_play[1] == core.seat
            assert np.array_equal(games.observations[1], core.observe(core.seat))
            assert np.array_equal(games.masks[1], core.mask(np.bool_))
            checked += 1
            token = int(rng.choice(core.legal_tokens()))
            tokens = np.array([int(np.flatnonzero(games.masks[0])[0]), token])
            games.step(tokens)
            core.step(token)
            if core.over or games.terminated[1] or games.truncated[1]:
                break
    assert checked >= 40


def test_random_terrain_episodes_are_encoded_on_their_own_map() -> None:
    """``world=random_terrain`` (R4.13) gives each episode new terrain on the same shape: the
    rows of every episode equal a fresh core's on that episode's game."""
    config = make_config(2, options={"world": "random_terrain"})
    games = VectorGames(config, 2, seed=8)
    rng = np.random.default_rng(4)
    episodes = [0, 0]
    cores = []
    for i in range(2):
        core = EnvCore(config)
        core.reset(games.episode_seed(i, 0))
        cores.append(core)
    terrains = {tuple(games.state(0).world.terrain)}
    checked = 0
    while sum(episodes) < 4:
        for i in range(2):
            if not (games.terminated[i] or games.truncated[i]):
                assert np.array_equal(games.observations[i], cores[i].observe(cores[i].seat))
                checked += 1
        ended = games.terminated | games.truncated
        tokens = _pick(games.masks, rng)
        games.step(tokens)
        for i in range(2):
            if ended[i]:
                episodes[i] += 1
                cores[i].reset(games.episode_seed(i, episodes[i]))
                terrains.add(tuple(games.state(i).world.terrain))
            else:
                cores[i].step(int(tokens[i]))
    assert len(terrains) > 1 and checked > 200


def test_auto_reset_episodes_are_whole_games_that_replay(tmp_path: Path) -> None:
    """An episode that ended in the batch is a complete game: its actions from its seed reach
    the same final position and result, and its record passes ``kaladan replay --verify``;
    the next call starts the next episode whatever token it is given (Gymnasium's
    ``next_step`` autoreset), with rewards 0 and the flags down."""
    config = make_config(2)
    games = VectorGames(config, 3, seed=2, record=True)
    rng = np.random.default_rng(0)
    episodes = [0, 0, 0]
    replayed = 0
    while replayed < 4:
        games.step(_pick(games.masks, rng))
        ended = np.flatnonzero(games.terminated)
        if not len(ended):
            continue
        i = int(ended[0])
        finished = games.finished(i)
        assert finished is not None
        seed, actions = finished
        assert seed == games.episode_seed(i, episodes[i])
        game = Game.new(config, seed)
        for action in actions:
            game.play(action)  # checked: every action legal in turn
        final = games.state(i)
        assert game.state.result is not None and final.result is not None
        assert game.state.result.winner == final.result.winner
        assert position_to_json(game.state) == position_to_json(final)
        path = tmp_path / f"episode{replayed}.json"
        path.write_text(dumps(to_record(game)), "utf-8")
        assert main(["replay", "--verify", str(path)]) == 0
        assert json.loads(path.read_text("utf-8"))["final"] == position_digest(game)
        replayed += 1
        # The next call: game i's token is ignored (any will do: its mask offers all).
        assert games.masks[i].all()
        episodes = [e + int(t) for e, t in zip(episodes, games.terminated, strict=True)]
        tokens = _pick(games.masks, rng)
        tokens[i] = games.action_size - 1
        games.step(tokens)
        assert not games.terminated[i] and not games.truncated[i]
        assert not games.rewards[i].any()
        fresh = EnvCore(config)
        fresh.reset(games.episode_seed(i, episodes[i]))
        assert position_to_json(games.state(i)) == position_to_json(fresh.state)
        assert games.to_play[i] == fresh.seat
        assert np.array_equal(games.observations[i], fresh.observe(fresh.seat))
        assert np.array_equal(games.masks[i], fresh.mask(np.bool_))
        episodes = [e + int(t) for e, t in zip(episodes, games.terminated, strict=True)]


def test_truncation_after_the_cap_pays_nothing() -> None:
    games = VectorGames(make_config(2), 2, seed=3, max_decisions=25)
    rng = np.random.default_rng(1)
    for _ in range(200):
        games.step(_pick(games.masks, rng))
        if games.truncated.any():
            break
    assert games.truncated.any()
    i = int(np.flatnonzero(games.truncated)[0])
    assert not games.terminated[i] and not games.rewards[i].any()
    assert games.state(i).decisions == 25 and games.state(i).result is None


def test_an_illegal_token_is_refused_and_changes_nothing() -> None:
    games = VectorGames(make_config(3), 3, seed=4)
    rng = np.random.default_rng(2)
    for _ in range(30):
        games.step(_pick(games.masks, rng))
    before = [array.copy() for array in (games.observations, games.masks, games.to_play)]
    positions = [position_to_json(games.state(i)) for i in range(3)]
    tokens = _pick(games.masks, rng)
    tokens[2] = int(np.flatnonzero(~games.masks[2])[0])
    with pytest.raises(InvalidActionError, match="game 2"):
        games.step(tokens)
    with pytest.raises(InvalidActionError, match="expected 3 integer tokens"):
        games.step(np.zeros(2, np.int64))
    assert all(np.array_equal(a, b) for a, b in
               zip(before, (games.observations, games.masks, games.to_play), strict=True))
    assert positions == [position_to_json(games.state(i)) for i in range(3)]
    with pytest.raises(ValueError, match="read-only"):
        games.observations[0, 0] = 1.0


@pytest.mark.parametrize(("players", "mode"), SETTINGS, ids=str)
def test_self_play_face_rewards_and_seats(players: int, mode: str) -> None:
    """pgx's shape: the seat to move, its row and mask; per-seat rewards when a game ends, a
    team's members sharing theirs (R23.1), one winner or none otherwise."""
    games = SelfPlayGames(players, mode, num_games=6, seed=9, quick_setup=True)
    batch = games.reset()
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(3_000):
        assert ((batch.current_player >= 0) & (batch.current_player < players)).all()
        assert batch.legal_action_mask.any(axis=1).all()
        batch = games.step(_pick(batch.legal_action_mask, rng))
        for i in np.flatnonzero(batch.terminated):
            rewards = batch.rewards[i]
            state = games.core.state(int(i))
            if state.teams:
                for p in range(players):
                    for q in range(players):
                        if state.team[p] == state.team[q]:
                            assert rewards[p] == rewards[q]
            else:
                assert (rewards == 1).sum() <= 1
            assert set(rewards.tolist()) <= {-1.0, 0.0, 1.0}
            ended += 1
    assert ended >= 3


def test_gymnasium_make_vec_uses_the_vector_entry_point() -> None:
    env = gymnasium.make_vec("kaladan/Kaladan-v0", num_envs=4,
                             vectorization_mode="vector_entry_point", players=2,
                             opponents=["random"])
    assert isinstance(env.unwrapped, KaladanVectorEnv)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=3)
    assert obs.shape == (4, env.single_observation_space.shape[0])
    assert info["action_mask"].shape == (4, env.single_action_space.n)
    assert info["action_mask"].any(axis=1).all()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(1_500):
        assert obs in env.observation_space
        actions = _pick(info["action_mask"], rng)
        assert actions in env.action_space
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert rewards.shape == (4,) and rewards.dtype == np.float32
        for i in np.flatnonzero(terminated):
            assert rewards[i] in (-1.0, 0.0, 1.0)
            finished += 1
        assert (info["seat"] == env.unwrapped.core.to_play).all()
    assert finished >= 4
    env.close()


def test_gymnasium_vector_env_is_deterministic_and_does_not_reuse_data() -> None:
    """As Gymnasium's env checker asks of a single env: the same seed gives the same data,
    and returned arrays are not overwritten by the next step (with the default copy=True);
    its vector wrappers accept it."""
    def run(seed: int) -> list[object]:
        env = KaladanVectorEnv(3, players=3, opponents=["greedy"])
        out: list[object] = list(env.reset(seed=seed))
        rng = np.random.default_rng(5)
        for _ in range(200):
            out.extend(env.step(_pick(env.action_masks(), rng)))
        return out

    assert data_equivalence(run(7), run(7), exact=True)
    assert not data_equivalence(run(7), run(8))
    env = RecordEpisodeStatistics(KaladanVectorEnv(3, players=2, opponents=["random"]))
    obs, info = env.reset(seed=1)
    first = obs.copy()
    rng = np.random.default_rng(6)
    episodes = 0
    for _ in range(2_000):
        obs2, _, terminated, truncated, info = env.step(_pick(info["action_mask"], rng))
        episodes += int((terminated | truncated).sum())
        if episodes >= 2:
            break
    assert np.array_equal(obs, first)  # the first observation was not overwritten
    assert "episode" in info and episodes >= 2
