"""The game's single seeded random source (R0 "Randomness"; STYLE principle 5).

Every die roll, shuffle and random draw goes through ``Chance``. Outcomes can be forced (a
test gives the dice, a replay gives the recorded outcomes) and every outcome is logged so a
game record can store it next to the decision that caused it. The generator is SplitMix64:
a single integer of state, cheap to copy, identical on every platform and Python version.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from .errors import InvalidActionError

_MASK = (1 << 64) - 1


class Chance:
    """Seeded source of dice and draws, with forced outcomes and an outcome log."""

    __slots__ = ("state", "forced", "log")

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK
        self.forced: deque[int] = deque()
        self.log: list[int] = []

    def copy(self) -> Chance:
        other = Chance(self.state)
        other.forced = deque(self.forced)
        return other

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled by value: a compiled Chance is rebuilt through __init__ (it needs a seed).
        return _restore, (self.state, tuple(self.forced), tuple(self.log))

    def force(self, outcomes: Iterable[int]) -> None:
        """Queue outcomes to be used, in order, before the generator is asked again."""
        self.forced.extend(outcomes)

    def _next(self) -> int:
        z = (self.state + 0x9E3779B97F4A7C15) & _MASK
        self.state = z
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) (used for shuffles and draws)."""
        if self.forced:
            value = self.forced.popleft()
            if not 0 <= value < n:
                raise InvalidActionError(f"forced draw {value} is not in 0..{n - 1}")
        else:
            value = self._next() % n
        self.log.append(value)
        return value

    def roll(self, sides: int) -> int:
        """One die with ``sides`` faces: 1..sides."""
        if self.forced:
            value = self.forced.popleft()
            if not 1 <= value <= sides:
                raise InvalidActionError(f"forced roll {value} is not a D{sides} face")
        else:
            value = self._next() % sides + 1
        self.log.append(value)
        return value

    def shuffle(self, items: list[str]) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def take_log(self) -> list[int]:
        log = self.log
        self.log = []
        return log


def _restore(state: int, forced: tuple[int, ...], log: tuple[int, ...]) -> Chance:
    chance = Chance(state)
    chance.forced.extend(forced)
    chance.log.extend(log)
    return chance
