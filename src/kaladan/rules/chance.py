"""The game's single seeded random source (R0 "Randomness"; STYLE principle 5).

Every die roll, shuffle and random draw goes through ``Chance``. Outcomes can be forced (a
test gives the dice, a replay gives the recorded outcomes) and every outcome is logged so a
game record can store it next to the decision that caused it. The generator is SplitMix64:
a single integer of state, cheap to copy, identical on every platform and Python version.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Final

from .errors import InvalidActionError
from .native import mypyc_attr

_MASK: Final = (1 << 64) - 1
_M32: Final = 0xFFFFFFFF
_TWO32: Final = 1 << 32
# SplitMix64's constants as 32-bit halves: the generator runs on halves, so every number in
# it fits a machine word and the compiled engine never falls back to big integers.
_GAMMA_HI: Final = 0x9E3779B9
_GAMMA_LO: Final = 0x7F4A7C15
_MUL1_HI: Final = 0xBF58476D
_MUL1_LO: Final = 0x1CE4E5B9
_MUL2_HI: Final = 0x94D049BB
_MUL2_LO: Final = 0x133111EB


# Multiplications take 16-bit pieces: the compiled engine multiplies machine integers only
# below 2**30 without a detour through Python's big integers.
def _mul_lo32(a: int, b: int) -> int:
    """(a * b) mod 2**32 for a, b < 2**32."""
    a0 = a & 0xFFFF
    b0 = b & 0xFFFF
    mid = a0 * (b >> 16) + (a >> 16) * b0
    return (a0 * b0 + ((mid & 0xFFFF) << 16)) & _M32


def _mul64(hi: int, lo: int, c_hi: int, c_lo: int) -> tuple[int, int]:
    """(hi:lo * c_hi:c_lo) mod 2**64 as 32-bit halves."""
    l0 = lo & 0xFFFF
    l1 = lo >> 16
    c0 = c_lo & 0xFFFF
    c1 = c_lo >> 16
    mid = l0 * c1 + l1 * c0
    low = l0 * c0 + ((mid & 0xFFFF) << 16)
    high = l1 * c1 + (mid >> 16) + (low >> 32)  # the high half of lo * c_lo
    return (high + _mul_lo32(lo, c_hi) + _mul_lo32(hi, c_lo)) & _M32, low & _M32


@mypyc_attr(acyclic=True)
class Chance:
    """Seeded source of dice and draws, with forced outcomes and an outcome log."""

    __slots__ = ("hi", "lo", "forced", "log")

    def __init__(self, seed: int) -> None:
        seed &= _MASK
        self.hi = seed >> 32
        self.lo = seed & _M32
        self.forced: deque[int] = deque()
        self.log: list[int] = []

    @property
    def state(self) -> int:
        """The generator's 64-bit state (positions store it)."""
        return self.hi << 32 | self.lo

    def copy(self) -> Chance:
        other = Chance(0)
        other.hi = self.hi
        other.lo = self.lo
        other.forced = deque(self.forced)
        return other

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled by value: a compiled Chance is rebuilt through __init__ (it needs a seed).
        return _restore, (self.state, tuple(self.forced), tuple(self.log))

    def force(self, outcomes: Iterable[int]) -> None:
        """Queue outcomes to be used, in order, before the generator is asked again."""
        self.forced.extend(outcomes)

    def _next(self, n: int) -> int:
        """The next SplitMix64 output modulo ``n`` (n < 2**20)."""
        lo = self.lo + _GAMMA_LO
        hi = (self.hi + _GAMMA_HI + (lo >> 32)) & _M32
        lo &= _M32
        self.hi = hi
        self.lo = lo
        # z ^= z >> 30; z *= MUL1; z ^= z >> 27; z *= MUL2; z ^= z >> 31 (all mod 2**64)
        hi, lo = _mul64(hi ^ (hi >> 30), lo ^ (((hi << 2) | (lo >> 30)) & _M32),
                        _MUL1_HI, _MUL1_LO)
        hi, lo = _mul64(hi ^ (hi >> 27), lo ^ (((hi << 5) | (lo >> 27)) & _M32),
                        _MUL2_HI, _MUL2_LO)
        hi, lo = hi ^ (hi >> 31), lo ^ (((hi << 1) | (lo >> 31)) & _M32)
        return ((hi % n) * (_TWO32 % n) + lo) % n

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) (used for shuffles and draws)."""
        if self.forced:
            value = self.forced.popleft()
            if not 0 <= value < n:
                raise InvalidActionError(f"forced draw {value} is not in 0..{n - 1}")
        else:
            value = self._next(n)
        self.log.append(value)
        return value

    def roll(self, sides: int) -> int:
        """One die with ``sides`` faces: 1..sides."""
        if self.forced:
            value = self.forced.popleft()
            if not 1 <= value <= sides:
                raise InvalidActionError(f"forced roll {value} is not a D{sides} face")
        else:
            value = self._next(sides) + 1
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
