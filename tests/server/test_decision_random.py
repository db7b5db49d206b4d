"""The server bots' per-decision generator (``server.decision_random``): reproducible by its
seed, different across seeds, uniform enough for a bot, and every ``random.Random`` method
a bot may call works on it."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest
from live_support import live_game

from kaladan.server.decision_random import DecisionRandom


def test_the_same_seed_gives_the_same_draws_and_others_differ() -> None:
    draws = [DecisionRandom(s).random() for s in (7, 7, 8, 2**70 + 7, -1)]
    assert draws[0] == draws[1]
    assert len(set(draws[1:])) == 4
    assert DecisionRandom(7).getstate() != DecisionRandom(8).getstate()
    rng = DecisionRandom(3)
    state = rng.getstate()
    first = [rng.random() for _ in range(5)]
    rng.setstate(state)
    assert [rng.random() for _ in range(5)] == first
    rng.setstate(state)
    copy = pickle.loads(pickle.dumps(rng))
    assert isinstance(copy, DecisionRandom) and copy.random() == first[0]
    assert DecisionRandom().random() != DecisionRandom().random()  # unseeded: from entropy


def test_the_methods_bots_call_work_and_stay_in_range() -> None:
    rng = DecisionRandom(12345)
    for _ in range(2000):
        assert 0.0 <= rng.random() < 1.0
        assert 0 <= rng.randrange(7) < 7
        assert 0 <= rng.getrandbits(70) < 2**70
    assert rng.getrandbits(0) == 0
    items = list(range(10))
    rng.shuffle(items)
    assert sorted(items) == list(range(10))
    assert rng.choice("abc") in "abc" and len(rng.sample(range(100), 5)) == 5
    with pytest.raises(ValueError):
        rng.getrandbits(-1)
    with pytest.raises(TypeError):
        DecisionRandom("seed")  # type: ignore[arg-type]


def test_draws_are_uniform_across_seeds_as_the_server_makes_them() -> None:
    """One draw per generator, seeds one version apart (as ``bot_seed`` makes them): a
    six-way choice is flat within chance (chi-square, 5 degrees of freedom, p > 0.001)."""
    n = 60_000
    counts = Counter(int(DecisionRandom((99 * 1_000_003 + v) * 8 + 1).random() * 6)
                     for v in range(n))
    chi2 = sum((c - n / 6) ** 2 / (n / 6) for c in counts.values())
    assert len(counts) == 6 and chi2 < 20.5


def test_a_server_bots_generator_depends_on_seed_seat_and_version() -> None:
    """``bot_rng``: the same game, seat and version give the same draws (a restarted server's
    bots decide as before); another seat or the next version other draws."""
    live, again = live_game(2, seed=5), live_game(2, seed=5)
    rng = live.bot_rng(0)
    assert isinstance(rng, DecisionRandom)
    assert rng.random() == again.bot_rng(0).random()
    assert live.bot_rng(1).random() != live.bot_rng(0).random()
    live.game.play(live.game.legal_actions()[0])
    assert live.bot_rng(0).random() != again.bot_rng(0).random()
