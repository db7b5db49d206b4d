"""The uniform-random bot."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..rules.actions import Action
from .base import SeatView


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return self.pick(legal, rng)

    @staticmethod
    def pick(legal: Sequence[Action], rng: random.Random) -> Action:
        """The choice, which needs no view of the game (simulate's loop calls it without
        making one)."""
        # random() scaled is uniform over the indices (n is far below 2**53) and cheaper
        # than randrange, which matters in long simulations.
        return legal[int(rng.random() * len(legal))]
