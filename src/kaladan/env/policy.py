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

Within those spaces a policy may still meet a kind of decision it never met in training
(the setup decisions of R5.5-R5.9 after training with ``quick_setup``, a team split after
free-for-all training): the spaces fit, so it answers, but its answer is a guess. The bot
warns (``UntrainedDecisionWarning``, once per kind of decision and bot, naming it), or with
``strict=1`` refuses such a decision with a ConfigError. It knows what the policy met from
the record ``save_policy`` stores in the saved model (``kaladan_training``: quick setup or
not and the kinds of decision the training envs handed the agent, ``KaladanEnv.
decisions_seen``). A policy saved without that record (by an older ``bench/train_ppo.py``
or a bare ``model.save``) still loads; it is taken to have trained with quick setup, the
training script's default, on every other kind of decision, and ``strict=1`` refuses it.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..bots.base import SeatView
from ..rules.actions import Action
from ..rules.config import Config
from ..rules.errors import ConfigError
from ..rules.state import Decision, GameState
from ..rules.world import World
from .encoding import ActionEncoder, Choice
from .observation import ObservationEncoder

_INSTALL = "the ppo bot needs torch and sb3-contrib: install kaladan[train]"

TRAINING_RECORD = "kaladan_training"
"""The saved model's attribute holding what it trained on (``save_policy``)."""

# Decided for every player when the game starts with quick setup (R5.5-R5.9).
SETUP_DECISIONS: frozenset[str] = frozenset(
    d.label for d in (Decision.REALM, Decision.START_CARD, Decision.CASTLE, Decision.START_UNIT))


class UntrainedDecisionWarning(UserWarning):
    """A ppo policy meets a kind of decision it never met in training."""


def training_record(env: Any) -> dict[str, Any]:
    """What the agent of ``env`` (a ``KaladanEnv``, wrapped or not, or a Stable-Baselines3
    VecEnv of them) has trained on so far: quick setup or not, the decisions it was handed."""
    if hasattr(env, "get_attr"):  # a VecEnv: its sub-environments
        seen = env.get_attr("decisions_seen")
        quick = env.get_attr("core")[0].config.quick_setup
    else:
        seen = [env.get_wrapper_attr("decisions_seen")]
        quick = env.get_wrapper_attr("core").config.quick_setup
    return {"quick_setup": bool(quick), "decisions": sorted(set().union(*seen))}


def save_policy(model: Any, path: str | Path) -> None:
    """``model.save(path)`` with the record of what its environment taught it
    (``TRAINING_RECORD``), which ``PpoBot`` reads to know what is new to it."""
    setattr(model, TRAINING_RECORD, training_record(model.get_env()))
    model.save(path)


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


def _trained_on(model: Any) -> tuple[frozenset[str], bool]:
    """The kinds of decision ``model`` met in training and whether it says so itself (a
    model without ``TRAINING_RECORD`` is taken to know everything but setup)."""
    record = getattr(model, TRAINING_RECORD, None)
    if isinstance(record, dict) and isinstance(record.get("decisions"), list):
        return frozenset(str(d) for d in record["decisions"]), True
    every = frozenset(d.label for d in Decision if d is not Decision.NONE)
    return every - SETUP_DECISIONS, False


def _names(labels: Iterable[str]) -> str:
    return ", ".join(sorted(labels)) or "none"


class PpoBot:
    """A trained MaskablePPO policy as a bot: ``PpoBot(path)`` or ``PpoBot(model=...)`` for a
    policy in memory (evaluation during training). ``strict`` refuses decisions the policy
    never met in training instead of warning (the module's docstring)."""

    name = "ppo"

    def __init__(self, path: str | None = None, deterministic: bool = True, *,
                 model: Any = None, strict: bool = False) -> None:
        if model is None:
            if not path:
                raise ConfigError("the ppo bot needs a policy: ppo:path=FILE.zip")
            model = load_model(path)
        self.model = model
        self.path = path
        self.deterministic = deterministic
        self.strict = strict
        self.trained_on, recorded = _trained_on(model)
        if strict and not recorded:
            raise ConfigError(f"ppo policy {self._label()} carries no record of the decisions "
                              f"it trained on, which strict=1 needs: save it with "
                              f"kaladan.env.policy.save_policy, or drop strict")
        self._assumed = not recorded
        self._warned: set[str] = set()
        self._encoders: dict[tuple[Config, World], tuple[ActionEncoder, ObservationEncoder]] = {}

    def _label(self) -> str:
        return repr(self.path) if self.path else "(in memory)"

    def check_decision(self, kind: Decision) -> None:
        """Warn once (or, ``strict``, refuse) when ``kind`` is new to the policy."""
        label = kind.label
        if label in self.trained_on or label in self._warned:
            return
        met = (f"it is taken to have trained with quick setup, on {_names(self.trained_on)} "
               f"(its file records nothing)" if self._assumed
               else f"it trained on {_names(self.trained_on)}")
        if self.strict:
            raise ConfigError(f"ppo policy {self._label()} never met a {label!r} decision in "
                              f"training ({met}); strict=1 refuses to guess: train on such "
                              f"decisions (no quick setup for setup decisions) or drop strict")
        self._warned.add(label)
        warnings.warn(f"ppo policy {self._label()} meets a {label!r} decision, which it never "
                      f"met in training ({met}): its choice is a guess",
                      UntrainedDecisionWarning, stacklevel=3)

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
        state = _seat_state(view)
        self.check_decision(state.pending.kind)
        return compose(self.model, actions, observations, state, legal,
                       None if self.deterministic else rng)


def _flag(params: dict[str, str], name: str, default: str) -> bool:
    flag = params.get(name, default).lower()
    if flag not in ("0", "1", "true", "false"):
        raise ConfigError(f"ppo {name}={flag!r}: expected 0 or 1")
    return flag in ("1", "true")


def from_params(params: dict[str, str]) -> PpoBot:
    """The registry's ``ppo:path=FILE[,deterministic=0|1][,strict=0|1]``."""
    unknown = sorted(set(params) - {"path", "deterministic", "strict"})
    if unknown:
        raise ConfigError(f"unknown ppo parameter(s) {', '.join(unknown)}: the ppo bot takes "
                          f"path=FILE, deterministic=0|1 and strict=0|1")
    path = params.get("path", "")
    if not path:
        raise ConfigError("the ppo bot needs a policy: ppo:path=FILE.zip")
    deterministic = _flag(params, "deterministic", "1")
    strict = _flag(params, "strict", "0")
    return PpoBot(path, deterministic=deterministic, strict=strict)
