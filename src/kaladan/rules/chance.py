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
from .native import i64, mypyc_attr

_MASK: Final = (1 << 64) - 1
_M32: Final = 0xFFFFFFFF
_TWO32: Final = 1 << 32
# SplitMix64's constants as 32-bit halves: the generator runs on halves held in machine
# integers (``i64`` to the compiler, ``int`` to the interpreter). No product of two halves
# is formed whole (it could reach 2**64): a half is multiplied by 16 bits of the other, so
# every intermediate value stays below 2**49 and the two engines compute the same numbers.
_GAMMA_HI: Final[i64] = 0x9E3779B9
_GAMMA_LO: Final[i64] = 0x7F4A7C15
_MUL1_HI: Final[i64] = 0xBF58476D
_MUL1_LO: Final[i64] = 0x1CE4E5B9
_MUL2_HI: Final[i64] = 0x94D049BB
_MUL2_LO: Final[i64] = 0x133111EB


def _mul_lo32(a: i64, b: i64) -> i64:
    """(a * b) mod 2**32 for a, b < 2**32: a times b's low 16 bits, plus the low 16 bits of
    a times b's high 16 bits, shifted."""
    return (a * (b & 0xFFFF) + (((a * (b >> 16)) & 0xFFFF) << 16)) & _M32


def _mul64(hi: i64, lo: i64, c_hi: i64, c_lo: i64) -> tuple[i64, i64]:
    """(hi:lo * c_hi:c_lo) mod 2**64 as 32-bit halves."""
    low = lo * (c_lo & 0xFFFF)  # lo * c_lo = low + mid * 2**16, both below 2**48
    mid = lo * (c_lo >> 16)
    low += (mid & 0xFFFF) << 16
    high = (mid >> 16) + (low >> 32)  # the high half of lo * c_lo
    return (high + _mul_lo32(lo, c_hi) + _mul_lo32(hi, c_lo)) & _M32, low & _M32


@mypyc_attr(acyclic=True)
class Chance:
    """Seeded source of dice and draws, with forced outcomes and an outcome log."""

    __slots__ = ("hi", "lo", "forced", "log")

    def __init__(self, seed: int) -> None:
        seed &= _MASK
        self.hi: i64 = seed >> 32
        self.lo: i64 = seed & _M32
        self.forced: deque[int] = deque()
        self.log: list[int] = []

    @property
    def state(self) -> int:
        """The generator's 64-bit state (positions store it)."""
        return int(self.hi) << 32 | int(self.lo)  # as an int: i64 would overflow

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
        return int(((hi % n) * (_TWO32 % n) + lo) % n)

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
