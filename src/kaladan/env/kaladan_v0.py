"""PettingZoo AEC environment: ``kaladan.env.kaladan_v0.env(players=..., mode=...)``.

Agents ``player_0`` .. ``player_{n-1}`` are the seats. Each ``step`` takes one token of the
action space (``encoding``): most decisions are one token, a move is its head, its units and
``DONE``; the same agent stays selected until its action is complete. Observations are
``{"observation": float32 vector, "action_mask": int8 vector}`` from the agent's own seat
view (R5.13). Rewards come at the end: +1 win, -1 loss, 0 draw (a team's members share
its result, R23.1). The episode is truncated (reward 0) after ``max_decisions`` engine
decisions. See docs/env.md.

A player eliminated in free-for-all (R18.1) is terminated at once with reward -1 and no
further reward. It stays in ``agents`` but is not selected while the game goes on: the
selected agent is always one with a decision to take, as single-agent wrappers expect
(PettingZoo's Stable-Baselines3 tutorial turns the AEC env into a Gymnasium env by
observing ``agent_selection`` after each step and handing its mask to the learner). When
the game ends every agent still listed is selected in turn (in seat order), shows its
``last()`` (an eliminated agent its -1) and is stepped with ``None``, which removes it
(PettingZoo's dead steps). ``observe`` of an eliminated agent is its seat's view with an
all-zero mask.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .core import MAX_DECISIONS, OBS_HIGH, OBS_LOW, EnvCore, make_config


def env(**kwargs: Any) -> AECEnv[str, dict[str, Any], int | None]:
    """The AEC environment with PettingZoo's order-enforcing wrapper."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv[str, dict[str, Any], int | None]):  # noqa: N801 (PettingZoo's name)
    metadata = {"render_modes": ["ansi"], "name": "kaladan_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, players: int = 2, mode: str = "free_for_all",
                 options: Mapping[str, str] | None = None, render_mode: str | None = None,
                 quick_setup: bool = False, max_decisions: int = MAX_DECISIONS,
                 score_shaping: float = 0.0, structured: bool = False) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' is offered")
        self.core = EnvCore(make_config(players, mode, options, quick_setup),
                            max_decisions=max_decisions, score_shaping=score_shaping)
        self.render_mode = render_mode
        self.structured = structured
        self._out: set[int] = set()
        self._rewarded = False
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        size = self.core.actions.size
        obs_size = self.core.observations.size
        self._observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(OBS_LOW, OBS_HIGH, (obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (size,), np.int8),
            }) for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self._seeds = random.Random()
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    # --- episode -------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` fixes the game (map, turn order, cards, dice); without one the
        next seed comes from the environment's own generator (seeded by the last seed)."""
        if seed is not None:
            self._seeds = random.Random(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.getrandbits(63)
        self.core.reset(game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._out = set()
        self._rewarded = False
        self.agent_selection = self.possible_agents[self.core.seat]
        if self.structured:
            self._update_infos()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._index[agent]
        core = self.core
        if agent == self.agent_selection and core.seat == seat:
            mask = core.mask()
        else:
            mask = np.zeros(core.actions.size, dtype=np.int8)
        return {"observation": core.observe(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is alive: None is the action of a terminated agent")
        core = self.core
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:  # rewards are non-zero only at an elimination and at the end
            self._clear_rewards()
            self._rewarded = False
        if core.step(int(action)):  # an engine decision completed: the game moved on
            self._after_decision()
            if self.structured:
                self._update_infos()

    def _after_decision(self) -> None:
        core = self.core
        if True in core.state.eliminated:
            for seat, a in enumerate(self.possible_agents):
                if seat not in self._out and core.out(seat):  # R18.1
                    self._out.add(seat)
                    self.rewards[a] = -1.0
                    self.terminations[a] = True
                    self._rewarded = True
        # An eliminated agent's -1 was its final reward: the end gives it nothing more.
        live = [a for seat, a in enumerate(self.possible_agents)
                if a in self.agents and seat not in self._out]
        if core.over:
            returns = core.returns()
            for a in live:
                self.rewards[a] = returns[self._index[a]]
                self.terminations[a] = True
            self._rewarded = True
        elif core.truncated:
            for a in live:
                self.truncations[a] = True
        if self._rewarded:
            self._accumulate_rewards()
        if core.seat >= 0:
            self.agent_selection = self.possible_agents[core.seat]
        if core.over or core.truncated:  # mid-game the selection stays a live agent
            self._deads_step_first()

    def _update_infos(self) -> None:
        """``structured=True``: each agent's JSON view in its info (built per decision)."""
        for a in self.agents:
            self.infos[a]["view"] = self.core.view(self._index[a])

    # --- display -------------------------------------------------------------------------

    def render(self) -> str | None:
        return None if self.render_mode is None else self.core.render()

    def close(self) -> None:
        pass
