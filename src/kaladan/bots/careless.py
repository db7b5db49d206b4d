"""The ``careless`` bot: the greedy bot, except that with chance ``p`` it plays any legal
action at random — the weakest level for people (``levels``), who find a plain greedy
opponent merciless at first.

Both draws come from the rng it is given, one uniform number first for every decision, so a
seeded game is the same game every time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from ..rules.actions import Action
from ..rules.errors import ConfigError
from .base import SeatView
from .greedy import GreedyBot
from .random_bot import RandomBot

DEFAULT_P = 0.5


class CarelessBot:
    name = "careless"

    def __init__(self, p: float = DEFAULT_P) -> None:
        self.p = p
        self._greedy = GreedyBot()

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if rng.random() < self.p:
            return RandomBot.pick(legal, rng)
        return self._greedy.choose(view, legal, rng)


def careless_bot(params: dict[str, str]) -> CarelessBot:
    """From a spec's parameters: ``careless`` or ``careless:p=0.5`` (0 < p <= 1)."""
    unknown = set(params) - {"p"}
    if unknown:
        raise ConfigError(f"unknown careless parameter {sorted(unknown)[0]!r}: use p")
    if "p" not in params:
        return CarelessBot()
    text = params["p"]
    try:
        p = float(text)
    except ValueError:
        raise ConfigError(f"careless parameter p={text!r} is not a number") from None
    if not (math.isfinite(p) and 0.0 < p <= 1.0):
        raise ConfigError(f"careless parameter p={text!r} must be above 0 and at most 1")
    return CarelessBot(p)
