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
        return legal[rng.randrange(len(legal))]
