"""Matches between two bot specs with paired dice and rotated seats, and their Wilson interval.

A match of ``games`` games between a ``hero`` and a ``rival`` spec: game ``k`` uses the seed
``game_seed(seed, k // n)`` and seats the hero at seat ``k % n`` (the rival's spec in every
other seat), so each seed is played once from every seat with the same dice and deck
(paired seeds). Games run as ``kaladan simulate`` runs them (``runner.play_spec``), in
``jobs`` processes, each playing one game at a time: a bot's time per decision is its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..rules.config import Config
from .runner import GameSpec, GameSummary, game_seed, player
from .stats import wilson


@dataclass(frozen=True, slots=True)
class MatchResult:
    hero: str
    rival: str
    players: int
    games: int
    wins: float  # a draw counts a half
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def line(self) -> str:
        return (f"{self.hero} vs {self.rival} ({self.players} players): {self.wins:g}/"
                f"{self.games} = {self.rate:.1%} [95% {self.low:.1%}, {self.high:.1%}]")


def specs(config: Config, hero: str, rival: str, games: int, seed: int) -> list[GameSpec]:
    n = config.players
    out = []
    for k in range(games):
        bots = [rival] * n
        bots[k % n] = hero
        out.append(GameSpec(config, game_seed(seed, k // n), tuple(bots)))
    return out


def score(specs_played: list[GameSpec], games: list[GameSummary], hero: str) -> float:
    """The hero's wins over ``games`` (a draw counts a half)."""
    wins = 0.0
    for spec, game in zip(specs_played, games, strict=True):
        seat = spec.bots.index(hero)
        if game.winner is None and game.team is None:
            wins += 0.5 if game.end == "draw" else 0.0
        elif game.won(seat):
            wins += 1.0
    return wins


def play_match(config: Config, hero: str, rival: str, games: int, seed: int, jobs: int = 1,
               progress: Callable[[int, int], None] | None = None) -> MatchResult:
    if hero == rival:
        raise ValueError("the hero and the rival must differ (name a parameter to tell them "
                         "apart)")
    planned = specs(config, hero, rival, games, seed)
    with player(jobs) as play:
        played = play(planned, progress)
    wins = score(planned, played, hero)
    low, high = wilson(round(wins), games) if games else (0.0, 1.0)
    return MatchResult(hero, rival, config.players, games, wins, low, high)
