"""The Bot protocol and the seat view a bot decides from."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

from ..rules.actions import Action, format_action
from ..rules.config import Config
from ..rules.observe import Observation, observe
from ..rules.state import GameState
from ..rules.world import World


class SeatView:
    """What one seat may see: its observation (R5.13) and helpers to name actions.

    The true state stays private; bots must decide from ``observation`` only.
    """

    __slots__ = ("seat", "_state", "__dict__")

    def __init__(self, state: GameState, seat: int) -> None:
        self.seat = seat
        self._state = state

    @cached_property
    def observation(self) -> Observation:
        return observe(self._state, self.seat)

    @property
    def world(self) -> World:
        """The map (public: R5.13)."""
        return self._state.world

    @property
    def config(self) -> Config:
        """The game's configuration and ruleset options (public)."""
        return self._state.config

    def format(self, action: Action) -> str:
        return format_action(action, self._state)


class Bot(Protocol):
    name: str

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        """Pick one of ``legal`` (never empty)."""
        ...
