"""Play complete games between bots and summarise them.

Each game gets its own seed derived from the run's seed and the game's number, so a game can
be re-played alone and results do not depend on the order games are run in.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..bots.base import SeatView
from ..bots.registry import make_bot
from ..game import Game
from ..record import to_record
from ..rules.actions import Action
from ..rules.apply import apply_unchecked
from ..rules.config import Config
from ..rules.legal import legal_actions
from ..rules.setup import new_game
from ..rules.state import GameState
from ..rules.units import REALMS
from .stats import wilson

_MASK = (1 << 64) - 1


def game_seed(run_seed: int, index: int) -> int:
    """A well-mixed 63-bit seed for game ``index`` of a run (SplitMix64 finaliser)."""
    z = (run_seed * 0x9E3779B97F4A7C15 + (index + 1) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return (z ^ (z >> 31)) >> 1


@dataclass(slots=True)
class GameSummary:
    seed: int
    bots: list[str]
    realms: list[str | None]
    winner: int | None
    end: str
    rounds: int
    decisions: int
    scores: list[int | None]
    record: dict[str, Any] | None = None
    team: int | None = None  # team mode: the winning team (winner is then None)
    teams: list[int] | None = None  # team mode: the team of each seat
    # CPU seconds each seat's bot spent choosing (its own thinking, whatever else runs on the
    # machine). Measured, so not part of to_json(): the games list stays identical for the
    # same seed whatever the machine, jobs or backend.
    think: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seed": self.seed, "seats": len(self.bots), "bots": self.bots, "realms": self.realms,
            "winner": self.winner,
            "end": self.end, "rounds": self.rounds, "decisions": self.decisions,
            "scores": self.scores,
        }
        if self.teams is not None:
            out["teams"] = self.teams
            out["winning_team"] = self.team
        if self.record is not None:
            out["record"] = self.record
        return out


def rounds_played(state: GameState) -> int:
    return state.slot // state.n + 1


def play_game(config: Config, seed: int, bot_specs: list[str],
              keep_record: bool = False) -> GameSummary:
    """Play one complete game. Bots decide from their seat's view only."""
    bots = [make_bot(spec) for spec in bot_specs]
    rngs = [random.Random(seed * 7 + seat) for seat in range(len(bots))]
    think = [0.0] * len(bots)
    clock = time.process_time
    if keep_record:
        game = Game.new(config, seed)
        while not game.is_over:
            seat = game.state.pending.seat
            legal: Sequence[Action] = game.legal_actions()
            start = clock()
            action = bots[seat].choose(SeatView(game.state, seat), legal, rngs[seat])
            think[seat] += clock() - start
            game.play(action, seat)
        state = game.state
        record: dict[str, Any] | None = to_record(game)
    else:
        state = new_game(config, seed)
        while not state.is_over:
            seat = state.pending.seat
            legal = legal_actions(state)
            start = clock()
            action = bots[seat].choose(SeatView(state, seat), legal, rngs[seat])
            think[seat] += clock() - start
            apply_unchecked(state, action)
        record = None
    result = state.result
    assert result is not None
    return GameSummary(
        seed=seed, bots=list(bot_specs),
        realms=[REALMS[r] if r >= 0 else None for r in state.realm],
        winner=result.winner, end=result.end, rounds=rounds_played(state),
        decisions=state.decisions, scores=list(result.scores), record=record,
        team=result.team, teams=list(state.team) if state.teams else None, think=think,
    )


@dataclass(slots=True)
class Summary:
    games: list[GameSummary] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        n = len(self.games)
        wins: dict[str, int] = {}
        seats: dict[str, int] = {}
        realms: dict[str, int] = {}
        ends: dict[str, int] = {}
        teams: dict[str, int] = {}
        for g in self.games:
            ends[g.end] = ends.get(g.end, 0) + 1
            if g.team is not None:
                teams[str(g.team)] = teams.get(str(g.team), 0) + 1
            if g.winner is not None:
                seats[str(g.winner)] = seats.get(str(g.winner), 0) + 1
                bot = g.bots[g.winner]
                wins[bot] = wins.get(bot, 0) + 1
                realm = g.realms[g.winner] or "?"
                realms[realm] = realms.get(realm, 0) + 1
        return {
            "games": [g.to_json() for g in self.games],
            "count": n,
            "wins_by_seat": seats,
            "wins_by_bot": wins,
            "wins_by_realm": realms,
            **({"wins_by_team": teams} if any(g.teams for g in self.games) else {}),
            "ends": ends,
            "average_rounds": sum(g.rounds for g in self.games) / n if n else 0.0,
            "average_decisions": sum(g.decisions for g in self.games) / n if n else 0.0,
            "average_scores": self.average_scores(),
            "rates": {group: {key: row for key, row in rows.items()}
                      for group, rows in self.rates().items()},
        }

    def rates(self) -> dict[str, dict[str, dict[str, float | int]]]:
        """Win rates per bot, realm and seat with Wilson 95% intervals. A seat wins when it
        is the winner or, in team mode, on the winning team; draws are no win."""
        counts: dict[str, dict[str, list[int]]] = {"bot": {}, "realm": {}, "seat": {}}
        for g in self.games:
            for seat, bot in enumerate(g.bots):
                won = (g.winner == seat if g.teams is None
                       else g.team is not None and g.teams[seat] == g.team)
                for group, key in (("bot", bot), ("realm", g.realms[seat] or "?"),
                                   ("seat", str(seat))):
                    row = counts[group].setdefault(key, [0, 0])
                    row[0] += 1
                    row[1] += int(won)
        out: dict[str, dict[str, dict[str, float | int]]] = {}
        for group, rows in counts.items():
            out[group] = {}
            for key in sorted(rows):
                played, wins = rows[key]
                low, high = wilson(wins, played)
                out[group][key] = {"games": played, "wins": wins, "rate": wins / played,
                                   "low": low, "high": high}
        return out

    def thinking(self) -> dict[str, dict[str, float]]:
        """Per bot: mean and maximum CPU seconds of thinking per game (measured, varies)."""
        per_bot: dict[str, list[float]] = {}
        for g in self.games:
            for bot, seconds in zip(g.bots, g.think, strict=False):
                per_bot.setdefault(bot, []).append(seconds)
        return {bot: {"mean": sum(v) / len(v), "max": max(v)}
                for bot, v in sorted(per_bot.items())}

    def average_scores(self) -> list[float]:
        seats = len(self.games[0].bots) if self.games else 0
        out = []
        for seat in range(seats):
            scores = [g.scores[seat] for g in self.games if g.scores[seat] is not None]
            out.append(sum(s for s in scores if s is not None) / len(scores) if scores else 0.0)
        return out


def _play_task(task: tuple[Config, int, list[str], bool]) -> GameSummary:
    config, seed, bot_specs, keep_records = task
    return play_game(config, seed, bot_specs, keep_records)


BACKENDS = ("local", "ray")


def simulate(config: Config, bot_specs: list[str], games: int, seed: int,
             keep_records: bool = False, jobs: int = 1,
             progress: Callable[[int, int], None] | None = None,
             backend: str = "local", ray_address: str | None = None) -> Summary:
    """Play ``games`` games. With ``jobs`` > 1 they run in that many local processes; with
    ``backend="ray"`` on a Ray cluster (``ray_address``, or a local instance when None; ``jobs``
    is then unused). Every game has its own seed (``game_seed``) and results keep their order,
    so the summary is the same whatever the number of jobs or the backend."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    tasks = [(config, game_seed(seed, i), bot_specs, keep_records) for i in range(games)]
    summary = Summary()
    if backend == "ray":
        from .ray_backend import run_on_ray  # Ray is an optional extra: import only when used

        summary.games = run_on_ray(tasks, ray_address, progress)
        return summary
    if jobs <= 1:
        for i, task in enumerate(tasks):
            summary.games.append(_play_task(task))
            if progress is not None:
                progress(i + 1, games)
        return summary
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        chunk = max(1, min(32, games // (4 * jobs)))
        for i, game in enumerate(pool.map(_play_task, tasks, chunksize=chunk)):
            summary.games.append(game)
            if progress is not None:
                progress(i + 1, games)
    return summary
