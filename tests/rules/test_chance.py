"""The generator (R0 "Randomness"): SplitMix64, bit for bit, in both engines.

``Chance`` runs SplitMix64 on 32-bit halves (machine integers when compiled, so no product
of two halves is formed whole). These tests compare its draws and its state with the 64-bit
formula written out here, over 300,000 draws from seeds at the edges of the range and from
random ones, and for every size of draw the engine asks for (dice, shuffles, card draws).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from kaladan.rules.chance import Chance

_MASK = (1 << 64) - 1


def splitmix64(seed: int) -> Iterator[tuple[int, int]]:
    """(state, output) after each step of SplitMix64 from ``seed``, in 64-bit arithmetic."""
    state = seed & _MASK
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        yield state, z ^ (z >> 31)


_PICK = random.Random(7)
SEEDS = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, _MASK, -1,
         *(_PICK.getrandbits(64) for _ in range(8))]


@pytest.mark.parametrize("seed", SEEDS)
def test_draws_and_state_follow_the_64_bit_formula(seed: int) -> None:
    chance = Chance(seed)
    rng = random.Random(seed)
    reference = splitmix64(seed)
    for _ in range(18_750):  # 16 seeds: 300,000 draws
        n = rng.choice((2, 4, 6, 8, 10, 12, 20, 52, 1000, 2**20 - 1)) if rng.random() < 0.9 \
            else rng.randrange(1, 2**20)
        state, z = next(reference)
        assert chance.below(n) == z % n
        assert chance.state == state


def test_rolls_are_draws_plus_one_and_all_are_logged() -> None:
    chance, reference = Chance(99), splitmix64(99)
    rolls = [chance.roll(6) for _ in range(1000)]
    assert rolls == [z % 6 + 1 for _, z in (next(reference) for _ in range(1000))]
    assert chance.take_log() == rolls and chance.log == []


def test_a_copy_and_a_restored_generator_go_on_alike() -> None:
    chance = Chance(2**63 + 12345)
    for _ in range(10):
        chance.below(100)
    copy, restored = chance.copy(), Chance(chance.state)
    ahead = [chance.below(1000) for _ in range(50)]
    assert [copy.below(1000) for _ in range(50)] == ahead
    assert [restored.below(1000) for _ in range(50)] == ahead
