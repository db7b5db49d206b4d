"""Scoring and tie-breaks (section 22)."""

from __future__ import annotations

from .gamelog import ScoreParts
from .state import GameState, Result
from .units import Seat, owner_of
from .world import Terrain

Points = tuple[int, int, int, int, int, int]  # the rows of R22.1, in the order of ScoreParts


def score(state: GameState, seat: Seat) -> int:
    """R22.1: trophies 5, castles 3, scalps 2, other tiles 1, gold // 2, Six Gates (EG1)."""
    return sum(_points(state, seat))  # bots score leaves of their search: no ScoreParts here


def parts(state: GameState, seat: Seat) -> ScoreParts:
    """``score`` split into the rows of R22.1, in points."""
    return ScoreParts(*_points(state, seat))


def _points(state: GameState, seat: Seat) -> Points:
    tiles = state.controlled(seat)
    castles = sum(1 for t in tiles if state.world.terrain[t] == Terrain.CASTLE)
    gates = 2 * len({state.world.terrain[t] for t in tiles}) if state.six_gates else 0
    return (5 * len(state.trophies[seat]), 3 * castles, 2 * len(state.graveyard[seat]),
            len(tiles) - castles, state.gold[seat] // 2, gates)


def score_parts(state: GameState) -> tuple[ScoreParts | None, ...]:
    """Every seat's score by its parts: its own (None once eliminated, R22.2), or its team's
    in team mode (R23.34)."""
    if state.teams:
        by_team = {team: team_parts(state, team) for team in set(state.team)}
        return tuple(by_team[state.team[p]] for p in range(state.n))
    return tuple(None if state.eliminated[p] else parts(state, p) for p in range(state.n))


def scores(state: GameState) -> list[int | None]:
    """Scores of the players still in the game; None for eliminated players (R22.2)."""
    return [None if state.eliminated[p] else score(state, p) for p in range(state.n)]


def units_in_reserve(state: GameState, seat: Seat) -> int:
    return sum(state.reserve[seat]) + len(state.reserve_specials[seat])


def winner(state: GameState, scores: list[int | None]) -> tuple[Seat, list[list[int]]]:
    """R22.3-R22.4: highest total; ties by units on the board, in reserve, then dice sums."""
    valid = [(s, p) for p, s in enumerate(scores) if s is not None]
    top = max(s for s, _ in valid)
    tied = [p for s, p in valid if s == top]
    for key in (state.units_on_board, lambda p: units_in_reserve(state, p)):
        if len(tied) > 1:
            best = max(key(p) for p in tied)
            tied = [p for p in tied if key(p) == best]
    rolls: list[list[int]] = []
    while len(tied) > 1:
        sums = [sum(state.chance.roll(d) for d in (6, 8, 10, 12)) for _ in tied]
        rolls.append(sums)
        best = max(sums)
        tied = [p for p, s in zip(tied, sums, strict=True) if s == best]
    return tied[0], rolls


# --- team mode (R23.33-R23.36) ---------------------------------------------------------


def team_score(state: GameState, team: int) -> int:
    """R23.34-R23.35: fallen enemy Crowns 5, friendly castles 3, scalps 2, other friendly tiles
    1 (a shared tile once), the team's gold // 2, Six Gates per friendly tile type."""
    return sum(_team_points(state, team))


def team_parts(state: GameState, team: int) -> ScoreParts:
    """``team_score`` split into its parts, in points."""
    return ScoreParts(*_team_points(state, team))


def _team_points(state: GameState, team: int) -> Points:
    members = [p for p in range(state.n) if state.team[p] == team]
    tiles = [t for t, units in enumerate(state.board)
             if units and state.team[owner_of(units[0])] == team]
    castles = sum(1 for t in tiles if state.world.terrain[t] == Terrain.CASTLE)
    gates = 2 * len({state.world.terrain[t] for t in tiles}) if state.six_gates else 0
    return (5 * sum(len(state.trophies[p]) for p in members), 3 * castles,
            2 * sum(len(state.graveyard[p]) for p in members), len(tiles) - castles,
            sum(state.gold[p] for p in members) // 2, gates)


def team_result(state: GameState, end: str, winning_team: int | None = None) -> Result:
    """The result of a team game: every player scores their team's total (R22.5)."""
    totals = {team: team_score(state, team) for team in set(state.team)}
    tie_break: list[list[int]] = []
    if winning_team is None:  # R23.33, R23.36
        top = max(totals.values())
        tied = sorted(t for t, s in totals.items() if s == top)
        for key in (_team_units_on_board, _team_units_in_reserve):
            if len(tied) > 1:
                best = max(key(state, t) for t in tied)
                tied = [t for t in tied if key(state, t) == best]
        while len(tied) > 1:
            sums = [sum(state.chance.roll(d) for d in (6, 8, 10, 12)) for _ in tied]
            tie_break.append(sums)
            best = max(sums)
            tied = [t for t, s in zip(tied, sums, strict=True) if s == best]
        winning_team = tied[0]
    return Result(end, None, _per_seat(state, totals), tie_break, winning_team)


def team_scores(state: GameState) -> list[int | None]:
    """Every player's team total (R23.34): the scores of a team result."""
    return _per_seat(state, {team: team_score(state, team) for team in set(state.team)})


def _per_seat(state: GameState, totals: dict[int, int]) -> list[int | None]:
    return [totals[state.team[p]] for p in range(state.n)]


def _team_units_on_board(state: GameState, team: int) -> int:
    return sum(1 for units in state.board for c in units if state.team[owner_of(c)] == team)


def _team_units_in_reserve(state: GameState, team: int) -> int:
    return sum(units_in_reserve(state, p) for p in range(state.n) if state.team[p] == team)
