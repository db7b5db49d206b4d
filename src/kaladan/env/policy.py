"""A bot playing a MaskablePPO policy trained on ``kaladan/Kaladan-v0`` (``kaladan[train]``).

It lives beside the encoders it reads (``bots/`` never imports ``env/``) and registers itself
as the bot ``ppo`` through the ``kaladan.bots`` entry points (pyproject.toml), which the bot
registry reads: ``ppo:path=bench/results/ppo/policy.zip``; ``deterministic=0`` samples from
the policy (with the rng the bot is handed) instead of taking its most likely token. The
policy names an engine action the way the environment taught it to: token by token
(``env.encoding``), each token chosen from the seat's observation tensor
(``env.observation``) with the composition so far, under the legal mask.

A policy only fits the action and observation spaces it was trained on: those depend on the
player count and the world, so a 2-player policy is refused for a 3-player game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..bots.base import SeatView
from ..rules.actions import Action
from ..rules.config import Config
from ..rules.errors import ConfigError
from ..rules.state import GameState
from ..rules.world import World
from .encoding import ActionEncoder, Choice
from .observation import ObservationEncoder

_INSTALL = "the ppo bot needs torch and sb3-contrib: install kaladan[train]"


def load_model(path: str) -> Any:
    """A saved ``sb3_contrib.MaskablePPO`` on the CPU, torch limited to one thread."""
    try:
        import torch
        from sb3_contrib import MaskablePPO  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:
        raise ConfigError(f"{_INSTALL} ({exc})") from exc
    if not (Path(path).is_file() or Path(path + ".zip").is_file()):  # sb3 adds the .zip
        raise ConfigError(f"ppo policy {path!r} not found")
    torch.set_num_threads(1)
    try:
        return MaskablePPO.load(path, device="cpu")
    except Exception as exc:  # a foreign or damaged file: report, do not crash
        raise ConfigError(f"ppo policy {path!r} failed to load: {exc!r}") from exc


def _seat_state(view: SeatView) -> GameState:
    """The state behind ``view``, for the encoders only. The observation encoder reads only
    what the seat may see (the hidden-information twins test of tests/env/test_observation.py
    checks it) and ``Choice`` reads only the pending seat; neither looks at hidden cards,
    the deck order or the dice to come."""
    return view._state


def check_sizes(model: Any, actions: int, observations: int) -> None:
    """ConfigError unless ``model`` was trained for these action and observation sizes."""
    trained_actions = int(model.action_space.n)
    if trained_actions != actions:
        raise ConfigError(f"ppo policy trained for {trained_actions} actions, this game has "
                          f"{actions}: train for this player count and mode")
    trained_obs = int(np.prod(model.observation_space.shape))
    if trained_obs != observations:
        raise ConfigError(f"ppo policy trained for observations of {trained_obs}, this game's "
                          f"have {observations}: train for this player count and mode")


def predict_token(model: Any, obs: NDArray[np.float32], mask: NDArray[np.bool_],
                  rng: random.Random | None = None) -> int:
    """The policy's token for one observation under the legal ``mask``: the most likely one,
    or with ``rng`` one drawn from the masked distribution.

    The same result as ``model.predict(obs, action_masks=mask, deterministic=True)`` at a
    third of its cost (no distribution objects, no mode switches): the actor's logits only.
    """
    import torch

    policy = model.policy
    with torch.no_grad():
        x = torch.from_numpy(np.asarray(obs, dtype=np.float32)).unsqueeze(0)
        latent = policy.mlp_extractor.forward_actor(policy.pi_features_extractor(x))
        logits: NDArray[np.float32] = policy.action_net(latent)[0].numpy()
    masked = np.where(mask, logits, -np.inf)
    if rng is None:
        return int(np.argmax(masked))
    weights = np.exp(masked - masked.max())
    cumulative = np.cumsum(weights)
    token = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    return min(token, len(cumulative) - 1)


def compose(model: Any, actions: ActionEncoder, observations: ObservationEncoder,
            state: GameState, legal: Sequence[Action],
            rng: random.Random | None = None) -> Action:
    """The engine action the policy composes for the pending seat of ``state``, token by
    token (``rng`` as in ``predict_token``)."""
    choice = Choice(actions, state, legal)
    seat = choice.seat
    while True:
        obs = observations.encode(state, seat, *choice.partial())
        done = choice.push(predict_token(model, obs, choice.mask(np.bool_), rng))
        if done is not None:
            return done


class PpoBot:
    """A trained MaskablePPO policy as a bot: ``PpoBot(path)`` or ``PpoBot(model=...)`` for a
    policy in memory (evaluation during training)."""

    name = "ppo"

    def __init__(self, path: str | None = None, deterministic: bool = True, *,
                 model: Any = None) -> None:
        if model is None:
            if not path:
                raise ConfigError("the ppo bot needs a policy: ppo:path=FILE.zip")
            model = load_model(path)
        self.model = model
        self.path = path
        self.deterministic = deterministic
        self._encoders: dict[tuple[Config, World], tuple[ActionEncoder, ObservationEncoder]] = {}

    def encoders(self, config: Config, world: World) -> tuple[ActionEncoder, ObservationEncoder]:
        """The action and observation encoders of a configuration, checked against the
        policy's sizes once and kept."""
        key = (config, world)
        found = self._encoders.get(key)
        if found is None:
            actions = ActionEncoder(config, world)
            observations = ObservationEncoder(config, world)
            check_sizes(self.model, actions.size, observations.size)
            found = self._encoders[key] = (actions, observations)
        return found

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        actions, observations = self.encoders(view.config, view.world)
        return compose(self.model, actions, observations, _seat_state(view), legal,
                       None if self.deterministic else rng)


def from_params(params: dict[str, str]) -> PpoBot:
    """The registry's ``ppo:path=FILE[,deterministic=0|1]``."""
    unknown = sorted(set(params) - {"path", "deterministic"})
    if unknown:
        raise ConfigError(f"unknown ppo parameter(s) {', '.join(unknown)}: the ppo bot takes "
                          f"path=FILE and deterministic=0|1")
    path = params.get("path", "")
    if not path:
        raise ConfigError("the ppo bot needs a policy: ppo:path=FILE.zip")
    flag = params.get("deterministic", "1").lower()
    if flag not in ("0", "1", "true", "false"):
        raise ConfigError(f"ppo deterministic={flag!r}: expected 0 or 1")
    return PpoBot(path, deterministic=flag in ("1", "true"))
