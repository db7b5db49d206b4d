"""What researchers hit, checked from outside with the libraries' own entry points: OpenSpiel's
serializing random simulation, pickles and deep copies of running environments, Gymnasium's
``make_vec`` masks across autoresets, Stable-Baselines3's ``make_vec_env`` (and its
``rgb_array`` render mode), PettingZoo's SB3 self-play pattern through eliminations, and a
ppo policy meeting decisions it never trained on."""

from __future__ import annotations

import copy
import pickle
import random
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import pettingzoo.utils  # noqa: E402

import kaladan.env  # noqa: E402,F401  (registers kaladan/Kaladan-v0)
from kaladan.env import kaladan_v0  # noqa: E402
from kaladan.env.core import EnvCore, make_config  # noqa: E402
from kaladan.env.gym_env import ENV_ID, KaladanEnv  # noqa: E402
from kaladan.rules.errors import ConfigError  # noqa: E402


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


# --- 2. pickles and deep copies of running environments --------------------------------------

ENV_SETTINGS = [{"players": 2}, {"players": 4, "quick_setup": True},
                {"players": 4, "mode": "team_2v2", "quick_setup": True}]
COPIES: list[Callable[[Any], Any]] = [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy]
COPY_IDS = ["pickle", "deepcopy"]


def pz_step(env: Any, rng: random.Random) -> tuple[object, ...]:
    """One AEC step with a random legal token (None for a dead agent); what it showed."""
    obs, reward, termination, truncation, _ = env.last()
    agent = env.agent_selection
    env.step(None if termination or truncation else pick(obs["action_mask"], rng))
    return agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward


@pytest.mark.parametrize("how", COPIES, ids=COPY_IDS)
@pytest.mark.parametrize("settings", ENV_SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
def test_a_running_pettingzoo_env_copies(settings: dict[str, Any],
                                         how: Callable[[Any], Any]) -> None:
    env = kaladan_v0.env(**settings)
    env.reset(seed=3)
    rng = random.Random(1)
    for _ in range(120):
        pz_step(env, rng)
    while not env.unwrapped.core.choice.prefix:  # stop inside a compound action
        pz_step(env, rng)
    before = env.unwrapped.core.observe(0).tobytes(), env.agent_selection
    twin = how(env)
    a, b = random.Random(7), random.Random(7)
    for _ in range(200):  # the copy plays on exactly like the original
        if not env.agents:
            break
        assert pz_step(twin, b) == pz_step(env, a)
    # and independently: stepping one leaves the other as it was
    other = how(env)
    snapshot = env.unwrapped.core.observe(0).tobytes(), env.agent_selection
    for _ in range(30):
        if other.agents:
            pz_step(other, random.Random(9))
    assert (env.unwrapped.core.observe(0).tobytes(), env.agent_selection) == snapshot
    assert before != snapshot


def gym_step(env: KaladanEnv, rng: random.Random) -> tuple[object, ...]:
    obs, reward, terminated, truncated, info = env.step(pick(env.action_masks(), rng))
    if terminated or truncated:
        obs, info = env.reset()
    return obs.tobytes(), reward, terminated, truncated, info["action_mask"].tobytes()


@pytest.mark.parametrize("how", COPIES, ids=COPY_IDS)
@pytest.mark.parametrize("settings", [{"players": 2}, {"players": 3, "quick_setup": True},
                                      {"players": 4, "mode": "team_2v2", "quick_setup": True}],
                         ids=lambda s: "-".join(map(str, s.values())))
def test_a_running_gymnasium_env_copies(settings: dict[str, Any],
                                        how: Callable[[Any], Any]) -> None:
    env = KaladanEnv(opponents=["random"], **settings)
    env.reset(seed=5)
    rng = random.Random(2)
    for _ in range(80):
        gym_step(env, rng)
    twin = how(env)
    assert np.array_equal(twin.action_masks(), env.action_masks())
    a, b = random.Random(8), random.Random(8)
    for _ in range(300):  # through episode ends: the bots' generators are copied too
        assert gym_step(twin, b) == gym_step(env, a)
    snapshot = env.core.observe(env.seat).tobytes(), env.core.state.decisions
    other = how(env)
    for _ in range(40):
        gym_step(other, random.Random(3))
    assert (env.core.observe(env.seat).tobytes(), env.core.state.decisions) == snapshot


@pytest.mark.parametrize("how", COPIES, ids=COPY_IDS)
def test_a_running_core_copies_mid_composition(how: Callable[[Any], Any]) -> None:
    core = EnvCore(make_config(4, quick_setup=True))
    core.reset(21)
    rng = random.Random(4)
    while core.state.decisions < 40 or core.choice is None or not core.choice.prefix:
        core.step(pick(core.mask(), rng))
    twin = how(core)
    assert twin.choice is not None and twin.choice.prefix == core.choice.prefix
    a, b = random.Random(6), random.Random(6)
    for _ in range(300):
        if core.choice is None:
            break
        assert twin.seat == core.seat
        assert np.array_equal(twin.mask(), core.mask())
        assert np.array_equal(twin.observe(twin.seat), core.observe(core.seat))
        core.step(pick(core.mask(), a))
        twin.step(pick(twin.mask(), b))
    assert twin.state.decisions == core.state.decisions


# --- 3. Gymnasium's make_vec: masks at every step, across autoresets ---------------------------

@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_masks_offer_a_token_at_every_step(mode: str) -> None:
    """Under the default next-step autoreset, the step after an episode's end hands the
    vector env an action it ignores; the mask of that step must still offer one."""
    envs = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode=mode, opponents=["random"],
                        quick_setup=True)
    try:
        _, info = envs.reset(seed=0)
        rng = random.Random(0)
        ended = 0
        for _ in range(400):
            masks = info["action_mask"]
            assert masks.shape == (2, envs.single_action_space.n)
            assert masks.any(axis=1).all()
            _, _, terminated, truncated, info = envs.step(
                np.array([pick(row, rng) for row in masks]))
            ended += int((terminated | truncated).sum())
        assert ended >= 2  # autoresets happened
    finally:
        envs.close()


# --- 4. Stable-Baselines3's make_vec_env (render_mode="rgb_array") ---------------------------

def test_sb3_make_vec_env_trains_maskable_ppo() -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    venv = make_vec_env(ENV_ID, n_envs=2, seed=0,
                        env_kwargs={"opponents": ["random"], "quick_setup": True})
    venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape[0] == 2 and masks.any(axis=1).all()
    images = venv.get_images()
    assert len(images) == 2
    for image in images:
        assert image is not None
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
        # terrain and both players' units are drawn in their colours
        colours = {tuple(c) for c in image.reshape(-1, 3)}
        assert {(214, 40, 40), (40, 90, 214)} <= colours
        assert len(colours) >= 6
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [32]}, seed=0, device="cpu")
    model.learn(512)
    assert model.num_timesteps >= 512


def test_rgb_array_follows_the_game() -> None:
    env = KaladanEnv(players=2, opponents=["random"], quick_setup=True, render_mode="rgb_array")
    env.reset(seed=1)
    first = env.render()
    assert isinstance(first, np.ndarray)
    rng = random.Random(0)
    for _ in range(40):
        gym_step(env, rng)
    later = env.render()
    assert isinstance(later, np.ndarray) and later.shape == first.shape
    assert not np.array_equal(first, later)
    with pytest.raises(ValueError, match="'ansi' and 'rgb_array'"):
        KaladanEnv(render_mode="human")


# --- 5. PettingZoo's SB3 self-play pattern through eliminations -------------------------------

class SingleAgentView(pettingzoo.utils.BaseWrapper):  # type: ignore[misc]
    """The AEC env as one Gymnasium-like env, after PettingZoo's SB3 action-masking tutorial
    (tutorials/SB3/connect_four): observe and mask ``agent_selection`` after each step; the
    reward, termination and truncation are the acting agent's."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])[
            "observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        acting = self.agent_selection
        super().step(action)
        return (self.observe(self.agent_selection), self._cumulative_rewards[acting],
                self.terminations[acting], self.truncations[acting], self.infos[acting])

    def observe(self, agent: str) -> Any:
        return super().observe(agent)["observation"]

    def action_mask(self) -> Any:
        return super().observe(self.agent_selection)["action_mask"]


def test_the_sb3_self_play_pattern_runs_through_eliminations() -> None:
    env = SingleAgentView(kaladan_v0.env(players=4, quick_setup=True))
    raw = env.unwrapped
    eliminations = finished = 0
    for seed in range(12):
        env.reset(seed=seed)
        env.action_space.seed(seed)
        out_before = 0
        while True:
            mask = env.action_mask()
            assert mask.any(), "the selected agent has no legal token"
            _, reward, terminated, truncated, _ = env.step(int(env.action_space.sample(mask)))
            out = sum(raw.core.state.eliminated)
            if out > out_before and not raw.core.over:
                eliminations += out - out_before  # the game goes on without them
                assert raw.terminations[raw.agent_selection] is False
            out_before = out
            if terminated or truncated:
                break
        finished += raw.core.over
    assert eliminations >= 1
    assert finished >= 6


# --- 6. a ppo policy meeting decisions it never trained on ------------------------------------

@pytest.fixture(scope="module")
def tiny_policy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A MaskablePPO policy trained for a few hundred tokens with quick setup, saved with its
    training record and once more without (as older files are)."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from kaladan.env.policy import save_policy

    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("tiny_ppo")
    venv = DummyVecEnv([lambda: KaladanEnv(players=2, opponents=["random"], quick_setup=True)])
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [16]}, seed=0, device="cpu")
    model.learn(256)
    save_policy(model, out / "recorded.zip")
    delattr(model, "kaladan_training")
    model.save(out / "old.zip")
    return out / "recorded.zip", out / "old.zip"


def play_full_setup_game(bot: Any, seed: int = 7, decisions: int = 60) -> None:
    """``bot`` in seat 0 of a 2-player game with the setup decisions, random in seat 1."""
    from kaladan.bots.base import SeatView
    from kaladan.bots.registry import make_bot
    from kaladan.game import Game
    from kaladan.rules.config import Config

    other = make_bot("random")
    game = Game.new(Config(players=2), seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if game.is_over:
            break
        seat = game.state.pending.seat
        legal = game.legal_actions()
        action = (bot if seat == 0 else other).choose(SeatView(game.state, seat), legal, rng)
        game.play(action, seat)


def test_a_policy_records_what_it_trained_on(tiny_policy: tuple[Path, Path]) -> None:
    from kaladan.env.policy import load_model

    record = load_model(str(tiny_policy[0])).kaladan_training
    assert record["quick_setup"] is True
    assert "action" in record["decisions"] and "realm" not in record["decisions"]


def test_setup_decisions_new_to_a_quick_setup_policy_warn_once_each(
        tiny_policy: tuple[Path, Path]) -> None:
    from kaladan.bots.registry import make_bot
    from kaladan.env.policy import UntrainedDecisionWarning

    bot = make_bot(f"ppo:path={tiny_policy[0]}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        play_full_setup_game(bot)
        play_full_setup_game(bot, seed=8)  # the same bot warns no more for the same kinds
    texts = [str(w.message) for w in caught if w.category is UntrainedDecisionWarning]
    named = [t.split("'")[3] for t in texts]  # the decision's label
    assert "realm" in named and "castle" in named
    assert len(named) == len(set(named))
    assert all("never met in training" in t for t in texts)


def test_strict_refuses_a_decision_the_policy_never_met(tiny_policy: tuple[Path, Path]) -> None:
    from kaladan.bots.registry import make_bot

    bot = make_bot(f"ppo:path={tiny_policy[0]},strict=1")
    with pytest.raises(ConfigError, match=r"never met a '(realm|start_card|castle|start_unit)' "
                                          r"decision in training .*strict=1 refuses"):
        play_full_setup_game(bot)


def test_an_old_policy_file_loads_assumed_quick_setup(tiny_policy: tuple[Path, Path]) -> None:
    from kaladan.bots.registry import make_bot
    from kaladan.env.policy import UntrainedDecisionWarning

    bot = make_bot(f"ppo:path={tiny_policy[1]}")
    with pytest.warns(UntrainedDecisionWarning, match="records nothing"):
        play_full_setup_game(bot)
    with pytest.raises(ConfigError, match="no record of the decisions"):
        make_bot(f"ppo:path={tiny_policy[1]},strict=1")
    with pytest.raises(ConfigError, match="strict"):
        make_bot(f"ppo:path={tiny_policy[1]},strict=maybe")
