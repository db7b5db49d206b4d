"""The self-play face of the batched core: every seat of K games, as pgx hands them out.

``SelfPlayGames(players=4, num_games=256, seed=0)`` steps K games in which every seat is a
learner (2-6 players, free-for-all or a team mode). ``reset()`` and ``step(actions)`` return a
``Batch``: per game the seat to move (``current_player``), its ``observation`` and
``legal_action_mask``, ``rewards`` per seat, ``terminated`` and ``truncated``; the names are
pgx's. Auto-reset and rewards as ``vector.VectorGames`` documents (``next_step`` mode): in
the call where a game ends its rewards are paid and its mask is all False; the next call
starts its next episode whatever action it is given.

The arrays are the core's read-only buffers, overwritten by the next call: copy what is
kept (a replay buffer does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .core import MAX_DECISIONS, make_config
from .vector import VectorGames

__all__ = ["Batch", "SelfPlayGames"]


class Batch(NamedTuple):
    """One call's results for K games (shapes: K, S observation floats, N tokens, n seats)."""

    current_player: NDArray[np.int32]  # (K,) the seat whose token is expected
    observation: NDArray[np.float32]  # (K, S) that seat's view
    legal_action_mask: NDArray[np.bool_]  # (K, N)
    rewards: NDArray[np.float32]  # (K, n) per seat, non-zero when a game ends
    terminated: NDArray[np.bool_]  # (K,)
    truncated: NDArray[np.bool_]  # (K,)


class SelfPlayGames:
    """K games whose every seat is played by the caller (see the module docstring)."""

    def __init__(self, players: int = 2, mode: str = "free_for_all", num_games: int = 64,
                 seed: int = 0, options: Mapping[str, str] | None = None,
                 quick_setup: bool = False, max_decisions: int = MAX_DECISIONS,
                 score_shaping: float = 0.0) -> None:
        self.core = VectorGames(make_config(players, mode, options, quick_setup), num_games,
                                seed, max_decisions=max_decisions,
                                score_shaping=score_shaping)
        self.num_games = num_games
        self.num_players = players
        self.observation_size = self.core.observation_size
        self.num_actions = self.core.action_size

    def _batch(self) -> Batch:
        core = self.core
        return Batch(core.to_play, core.observations, core.masks, core.rewards,
                     core.terminated, core.truncated)

    def reset(self) -> Batch:
        """Every game's first episode (the same games after every reset)."""
        self.core.reset()
        return self._batch()

    def step(self, actions: Sequence[int] | NDArray[Any]) -> Batch:
        """One token per game, for its ``current_player``; raises InvalidActionError,
        changing nothing, if a token is not legal in its game."""
        self.core.step(actions)
        return self._batch()
