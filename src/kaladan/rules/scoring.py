"""Scoring and tie-breaks (section 22)."""

from __future__ import annotations

from .state import GameState
from .units import Seat
from .world import Terrain


def score(state: GameState, seat: Seat) -> int:
    """R22.1: trophies 5, castles 3, scalps 2, other tiles 1, gold // 2, Six Gates (EG1)."""
    tiles = state.controlled(seat)
    castles = sum(1 for t in tiles if state.world.terrain[t] == Terrain.CASTLE)
    total = (5 * len(state.trophies[seat]) + 3 * castles + 2 * len(state.graveyard[seat])
             + (len(tiles) - castles) + state.gold[seat] // 2)
    if state.six_gates:
        total += 2 * len({state.world.terrain[t] for t in tiles})
    return total


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
