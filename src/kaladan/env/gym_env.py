"""Gymnasium single-agent environment: one seat against registry bots.

``gymnasium.make("kaladan/Kaladan-v0", opponents=["greedy"], players=2)`` (registered when
``kaladan.env`` is imported). The agent takes tokens of the action space (``encoding``);
between its decisions the other seats are played by bots that see only their own seat's
view (R5.13). The agent's seat rotates by episode unless ``seat`` is given. ``action_masks()``
serves sb3-contrib's MaskablePPO; ``info["action_mask"]`` carries the same mask. Once the
episode is over the mask offers every token: the action that follows the end is not played
(Gymnasium's vector envs ignore it under their default next-step autoreset and reset the
sub-environment instead; this env's own ``step`` refuses it), and a mask with no token at
all leaves a masked sampler nothing to draw from.

Reward: at the end only, +1 / -1 / 0 (``core.returns``). An illegal token ends the episode
with ``illegal_reward`` and ``info["illegal_action"]`` saying why; the game is not touched
(``illegal="raise"`` raises InvalidActionError instead, for debugging).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from ..bots.base import Bot, SeatView
from ..bots.registry import make_bot
from ..rules.errors import InvalidActionError
from .core import MAX_DECISIONS, OBS_HIGH, OBS_LOW, EnvCore, make_config

ENV_ID = "kaladan/Kaladan-v0"


class KaladanEnv(gym.Env[NDArray[np.float32], int]):
    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, players: int = 2, mode: str = "free_for_all",
                 opponents: Sequence[str | Bot] = ("greedy",),
                 options: Mapping[str, str] | None = None, seat: int | None = None,
                 quick_setup: bool = False, max_decisions: int = MAX_DECISIONS,
                 score_shaping: float = 0.0, illegal: str = "end",
                 illegal_reward: float = -1.0, render_mode: str | None = None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' is offered")
        if illegal not in ("end", "raise"):
            raise ValueError(f"illegal={illegal!r}: choose 'end' or 'raise'")
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat of a {players}-player game")
        self.core = EnvCore(make_config(players, mode, options, quick_setup),
                            max_decisions=max_decisions, score_shaping=score_shaping)
        self.players = players
        specs = list(opponents)
        if len(specs) == 1:
            specs *= players - 1
        if len(specs) != players - 1:
            raise ValueError(f"{len(specs)} opponents for a {players}-player game: give one "
                             f"(used for every other seat) or {players - 1}")
        self.opponents: list[Bot] = [make_bot(s) if isinstance(s, str) else s for s in specs]
        self.fixed_seat = seat
        self.illegal = illegal
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.observation_space = spaces.Box(OBS_LOW, OBS_HIGH, (self.core.observations.size,),
                                            np.float32)
        self.action_space = spaces.Discrete(self.core.actions.size)  # type: ignore[assignment]
        self.seat = 0
        self._episodes = 0
        self._bot_rng = random.Random(0)
        self._bots: dict[int, Bot] = {}
        self._over = True  # until the first reset: no token may be played

    # --- episode -------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None
              ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**63 - 1))
        if seed is not None:
            self._episodes = 0
        self.seat = (self.fixed_seat if self.fixed_seat is not None
                     else self._episodes % self.players)
        self._episodes += 1
        others = [p for p in range(self.players) if p != self.seat]
        self._bots = dict(zip(others, self.opponents, strict=True))
        self._bot_rng = random.Random(game_seed ^ 0x5EED)
        self.core.reset(game_seed)
        self._play_opponents()
        self._over = self.core.over or self.core.truncated or self.core.out(self.seat)
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[NDArray[np.float32], float, bool, bool,
                                         dict[str, Any]]:
        core = self.core
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        try:
            core.step(int(action))
        except InvalidActionError as exc:
            if self.illegal == "raise":
                raise
            self._over = True
            info = self._info()
            info["illegal_action"] = str(exc)
            return self._obs(), self.illegal_reward, True, False, info
        self._play_opponents()
        terminated = core.over or core.out(self.seat)
        reward = 0.0
        if core.over:
            reward = core.returns()[self.seat]
        elif terminated:
            reward = -1.0  # R18.1: out of a free-for-all game
        truncated = core.truncated and not terminated
        self._over = terminated or truncated
        return self._obs(), reward, terminated, truncated, self._info()

    def _play_opponents(self) -> None:
        core = self.core
        while (not core.over and not core.truncated and core.seat != self.seat
               and not core.out(self.seat)):
            seat = core.seat
            choice = core.choice
            assert choice is not None
            action = self._bots[seat].choose(SeatView(core.state, seat), choice.legal,
                                             self._bot_rng)
            core.play(action)

    # --- what the agent sees -------------------------------------------------------------

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal tokens now, for MaskablePPO; every token once the episode is over (the
        module's docstring says why)."""
        if self._over:
            return np.ones(self.core.actions.size, dtype=bool)
        return self.core.mask(np.bool_)

    def _obs(self) -> NDArray[np.float32]:
        return self.core.observe(self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat,
                "decisions": self.core.state.decisions}

    def render(self) -> str | None:
        return None if self.render_mode is None else self.core.render()


def register() -> None:
    """Register ``kaladan/Kaladan-v0`` with Gymnasium (idempotent)."""
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point="kaladan.env.gym_env:KaladanEnv",
                     max_episode_steps=None, disable_env_checker=False)
