"""The random generator of one bot decision on the server.

The server makes a generator for every bot decision, seeded by the game's seed, the seat and
the version (``LiveGame.bot_rng``), so that a restarted server's bots decide as before.
``random.Random`` seeds its Mersenne Twister through 624 words: 7.6 µs, more than a random
bot's whole decision. SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
number generators", 2014) is seeded by one word and passes BigCrush; here it drives
``random.Random``'s methods (``random``, ``getrandbits`` and all built on them).
"""

from __future__ import annotations

import os
import random

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


class DecisionRandom(random.Random):
    """``random.Random`` on SplitMix64: the same methods, seeded by a whole number."""

    _state: int

    def seed(self, a: object = None, version: int = 2) -> None:
        if a is None:  # as random.Random: from the system's entropy (unpickling starts so)
            a = int.from_bytes(os.urandom(8))
        if not isinstance(a, int):
            raise TypeError("DecisionRandom is seeded by a whole number")
        state, rest = a & _MASK, a >> 64  # every bit of a larger seed counts too
        while rest not in (0, -1):
            state = ((state ^ (rest & _MASK)) * _GOLDEN) & _MASK
            rest >>= 64
        self._state = state ^ _GOLDEN if a < 0 else state

    def _next(self) -> int:
        self._state = z = (self._state + _GOLDEN) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def random(self) -> float:
        return (self._next() >> 11) * (1.0 / 9007199254740992.0)  # 53 bits in [0, 1)

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        bits = filled = 0
        while filled < k:
            bits |= self._next() << filled
            filled += 64
        return bits & ((1 << k) - 1)

    def getstate(self) -> tuple[int, float | None]:  # type: ignore[override]
        return self._state, self.gauss_next

    def setstate(self, state: tuple[int, float | None]) -> None:  # type: ignore[override]
        self._state, self.gauss_next = state
