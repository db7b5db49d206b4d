"""Round-robin tournaments between bots and a rating table.

Every pairing plays 2-player games with seats rotated (half the games each way). Ratings are
the Bradley-Terry maximum-likelihood strengths on the Elo scale (400 points = 10:1 odds),
centred on 1500; a draw counts half a win for each. The 95% intervals come from a seeded
bootstrap over the games, so a tournament is reproducible from its seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from math import log10

from ..rules.config import Config
from .runner import simulate

Match = tuple[str, str, float]  # (bot a, bot b, score of a: 1 win, 0.5 draw, 0 loss)


@dataclass(slots=True)
class Standing:
    bot: str
    rating: float
    low: float
    high: float
    games: int
    score: float


@dataclass(slots=True)
class Tournament:
    matches: list[Match] = field(default_factory=list)
    standings: list[Standing] = field(default_factory=list)


def play(bots: list[str], games: int, seed: int, jobs: int = 1,
         bootstrap: int = 200, backend: str = "local",
         ray_address: str | None = None) -> Tournament:
    """Every pairing of ``bots`` plays ``games`` 2-player games, seats rotated; on Ray with
    ``backend="ray"`` (one connection for the whole tournament)."""
    if backend == "ray":
        from .ray_backend import session  # Ray is an optional extra: import only when used

        with session(ray_address):
            return _play(bots, games, seed, jobs, bootstrap, backend, ray_address)
    return _play(bots, games, seed, jobs, bootstrap, backend, ray_address)


Run = tuple[tuple[str, str], tuple[str, str], int, int]  # pairing, seat order, games, seed


def pairings(bots: list[str], games: int, seed: int) -> list[Run]:
    """The runs a tournament makes: (the pairing, its two bots in seat order, games, run
    seed), each pairing's games split between its two seat orders."""
    runs = []
    for i, (a, b) in enumerate(combinations(bots, 2)):
        first = (games + 1) // 2
        for k, (order, count) in enumerate((((a, b), first), ((b, a), games - first))):
            if count > 0:
                runs.append(((a, b), order, count, seed * 1000 + i * 2 + k))
    return runs


def _play(bots: list[str], games: int, seed: int, jobs: int, bootstrap: int, backend: str,
          ray_address: str | None) -> Tournament:
    result = Tournament()
    for (a, b), order, count, run_seed in pairings(bots, games, seed):
        summary = simulate(Config(players=2), list(order), count, seed=run_seed, jobs=jobs,
                           backend=backend, ray_address=ray_address)
        for game in summary.games:
            if game.winner is None:
                score = 0.5
            else:
                score = 1.0 if order[game.winner] == a else 0.0
            result.matches.append((a, b, score))
    result.standings = standings(bots, result.matches, seed, bootstrap)
    return result


def ratings(bots: list[str], matches: list[Match], iterations: int = 200) -> dict[str, float]:
    """Bradley-Terry strengths by the minorisation-maximisation iteration, on the Elo scale."""
    return _strengths(bots, ((match, 1) for match in matches), iterations)


def _strengths(bots: list[str], counted: Iterable[tuple[Match, int]],
               iterations: int) -> dict[str, float]:
    """``ratings`` of the matches given as (match, how many times it was played)."""
    wins = {bot: 0.0 for bot in bots}
    pairs: dict[tuple[str, str], int] = {}
    for (a, b, score), n in counted:
        wins[a] += score * n  # sums of halves: exact, in any order
        wins[b] += (1 - score) * n
        key = (a, b) if a < b else (b, a)
        pairs[key] = pairs.get(key, 0) + n
    strength = {bot: 1.0 for bot in bots}
    for _ in range(iterations):
        updated = {}
        for bot in bots:
            denominator = sum(n / (strength[x] + strength[y])
                              for (x, y), n in pairs.items() if bot in (x, y))
            # A bot that never lost or never won has no finite strength: keep it bounded.
            w = min(max(wins[bot], 0.5), sum(n for (x, y), n in pairs.items()
                                               if bot in (x, y)) - 0.5)
            updated[bot] = w / denominator if denominator else 1.0
        mean = sum(log10(s) for s in updated.values()) / len(updated)
        strength = {bot: s / 10 ** mean for bot, s in updated.items()}
    return {bot: 1500 + 400 * log10(s) for bot, s in strength.items()}


def standings(bots: list[str], matches: list[Match], seed: int,
              bootstrap: int) -> list[Standing]:
    point = ratings(bots, matches)
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {bot: [] for bot in bots}
    # A resample matters only by how often it drew each kind of match (pairing and score):
    # counted, not listed, its ratings cost a few kinds instead of every match. The counts
    # keep the kinds in the order the draws first met them, which is the order the pairs'
    # sums are taken in, so the figures are those of the resampled list itself.
    kinds = list(dict.fromkeys(matches))
    index = {kind: k for k, kind in enumerate(kinds)}
    kind_of = [index[match] for match in matches]
    n = len(matches)
    # rng.randrange(n) draws getrandbits(n.bit_length()) until the value is below n: the
    # same draws, without its argument checks at each of the bootstrap * n calls.
    bits, getrandbits = n.bit_length(), rng.getrandbits
    for _ in range(bootstrap):
        picks = []
        for _ in range(n):
            r = getrandbits(bits)
            while r >= n:
                r = getrandbits(bits)
            picks.append(kind_of[r])
        drawn = Counter(picks)
        counted = [(kinds[k], times) for k, times in drawn.items()]
        for bot, value in _strengths(bots, counted, iterations=60).items():
            samples[bot].append(value)
    out = []
    for bot in bots:
        values = sorted(samples[bot])
        low = values[int(0.025 * (len(values) - 1))] if values else point[bot]
        high = values[int(0.975 * (len(values) - 1))] if values else point[bot]
        games = sum(1 for a, b, _ in matches if bot in (a, b))
        score = sum(s if a == bot else 1 - s for a, b, s in matches if bot in (a, b))
        out.append(Standing(bot, point[bot], low, high, games, score))
    return sorted(out, key=lambda s: -s.rating)
