"""Play complete games between bots and summarise them.

Each game gets its own seed derived from the run's seed and the game's number, so a game can
be re-played alone and results do not depend on the order games are run in.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
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

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seed": self.seed, "bots": self.bots, "realms": self.realms, "winner": self.winner,
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
    if keep_record:
        game = Game.new(config, seed)
        while not game.is_over:
            seat = game.state.pending.seat
            legal: Sequence[Action] = game.legal_actions()
            action = bots[seat].choose(SeatView(game.state, seat), legal, rngs[seat])
            game.play(action, seat)
        state = game.state
        record: dict[str, Any] | None = to_record(game)
    else:
        state = new_game(config, seed)
        while not state.is_over:
            seat = state.pending.seat
            legal = legal_actions(state)
            apply_unchecked(state, bots[seat].choose(SeatView(state, seat), legal, rngs[seat]))
        record = None
    result = state.result
    assert result is not None
    return GameSummary(
        seed=seed, bots=list(bot_specs),
        realms=[REALMS[r] if r >= 0 else None for r in state.realm],
        winner=result.winner, end=result.end, rounds=rounds_played(state),
        decisions=state.decisions, scores=list(result.scores), record=record,
        team=result.team, teams=list(state.team) if state.teams else None,
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
        }


def simulate(config: Config, bot_specs: list[str], games: int, seed: int,
             keep_records: bool = False) -> Summary:
    summary = Summary()
    for i in range(games):
        summary.games.append(play_game(config, game_seed(seed, i), bot_specs, keep_records))
    return summary
