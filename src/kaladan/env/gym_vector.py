"""Gymnasium vector env: K games in one process, one learning seat each, against bots.

``gymnasium.make_vec("kaladan/Kaladan-v0", num_envs=K, vectorization_mode="vector_entry_point",
opponents=["greedy"])`` builds it (``kaladan.env`` registers the vector entry point); it
takes ``KaladanEnv``'s keyword arguments. It steps the batched core (``vector.VectorGames``)
instead of K envs: observations (K, S), masks in ``info["action_mask"]`` (K, N, bool),
rewards of the learning seats, in Gymnasium's ``next_step`` autoreset mode
(``metadata["autoreset_mode"]``): the step in which a game ends returns its last observation
and its reward; the next step ignores that game's action and returns its next episode's first
observation with reward 0.

The learning seat rotates by episode (seat ``e % n`` in game episode ``e``) unless ``seat``
is given; the other seats are the ``opponents`` bots, deciding from their own seat's view.
An illegal token raises ``InvalidActionError`` and changes nothing (the mask says what is
legal). Results are copies unless ``copy=False`` (then: read-only arrays overwritten by the
next call).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from ..bots.base import Bot
from .core import MAX_DECISIONS, OBS_HIGH, OBS_LOW, make_config
from .gym_env import opponent_bots
from .vector import VectorGames

__all__ = ["KaladanVectorEnv"]


class KaladanVectorEnv(VectorEnv[NDArray[np.float32], NDArray[np.int64], NDArray[Any]]):
    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, players: int = 2, mode: str = "free_for_all",
                 opponents: Sequence[str | Bot] = ("greedy",),
                 options: Mapping[str, str] | None = None, seat: int | None = None,
                 quick_setup: bool = False, max_decisions: int = MAX_DECISIONS,
                 score_shaping: float = 0.0, copy: bool = True,
                 render_mode: str | None = None) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r}: the vector env does not render")
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat of a {players}-player game")
        self._config = make_config(players, mode, options, quick_setup)
        self._bots = opponent_bots(opponents, players)
        self._seat = seat
        self._max_decisions = max_decisions
        self._score_shaping = score_shaping
        self.num_envs = num_envs
        self.copy = copy
        self.render_mode = render_mode
        self.core = self._core(0)
        self.single_observation_space = spaces.Box(OBS_LOW, OBS_HIGH,
                                                   (self.core.observation_size,), np.float32)
        self.single_action_space = spaces.Discrete(self.core.action_size)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._columns = np.arange(num_envs)

    def _core(self, seed: int) -> VectorGames:
        return VectorGames(self._config, self.num_envs, seed,
                           max_decisions=self._max_decisions,
                           score_shaping=self._score_shaping, opponents=self._bots,
                           learner=self._seat)

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None
              ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Every game's first episode. A ``seed`` (one int for the batch) fixes the games;
        without one, the first reset draws one."""
        if isinstance(seed, list):
            raise ValueError("give one seed for the batch: its games are seeded from it")
        super().reset(seed=seed)
        run_seed = seed if seed is not None else int(self.np_random.integers(0, 2**62))
        self.core = self._core(run_seed)
        return self._out(self.core.observations), self._info()

    def step(self, actions: NDArray[np.int64]
             ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.bool_],
                        NDArray[np.bool_], dict[str, Any]]:
        core = self.core
        core.step(np.asarray(actions))
        rewards = core.rewards[self._columns, core.to_play]  # the learners' (a new array)
        return (self._out(core.observations), rewards, self._out(core.terminated),
                self._out(core.truncated), self._info())

    def action_masks(self) -> NDArray[np.bool_]:
        """The learners' legal tokens (K, N), for sb3-contrib's MaskablePPO."""
        return self.core.masks.copy()

    def _out(self, array: NDArray[Any]) -> NDArray[Any]:
        return array.copy() if self.copy else array

    def _info(self) -> dict[str, Any]:
        core = self.core
        return {"action_mask": self._out(core.masks), "seat": self._out(core.to_play)}
