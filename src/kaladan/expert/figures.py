"""The figures per player that the value network reads after the observation vector.

Compiled with the engine (setup.py): they are computed at every leaf of the expert's search,
and interpreted they took about half of an iteration. ``value.Features`` documents what they
mean; ``FIGURES`` names them in order.
"""

from __future__ import annotations

from typing import Final

from ..bots.mcts import evaluate
from ..odds import hit_distribution
from ..rules.combat import attack_pool, defence_pool
from ..rules.scoring import score, team_score
from ..rules.state import GameState
from ..rules.units import CROWN, OWNER_SHIFT, type_of, unit_value
from ..rules.world import Terrain

FIGURES: Final = ("score/40", "unit worth/40", "heuristic value", "best attack chance",
                  "worst attack on own Crown", "attacks above 1/2 /5", "castles/5", "tiles/20")
PER_PLAYER: Final = 8

# (attack dice, defence dice, lowest defence die dropped, scales, hits needed) -> chance
ChanceMemo = dict[tuple[tuple[int, ...], tuple[int, ...], bool, bool, int], float]


def win_chance(attack: tuple[int, ...], defence: tuple[int, ...], drop: bool, scales: bool,
               need: int, memo: ChanceMemo) -> float:
    """The exact chance that one roll of these dice puts ``need`` hits on the defender
    (R16.14: every unit of both tiles fighting, no cards)."""
    key = (attack, defence, drop, scales, need)
    chance = memo.get(key)
    if chance is None:
        hits = hit_distribution(attack, defence, drop, scales)
        won = 0
        for _, on_defender, rolls in hits.counts:
            if on_defender >= need:
                won += rolls
        chance = won / hits.total
        memo[key] = chance
    return chance


def player_figures(state: GameState, seat: int, drop_on_mountain: bool,
                   memo: ChanceMemo) -> list[float]:
    """``PER_PLAYER`` figures for every player, relative to ``seat`` (seat first)."""
    n = state.n
    board = state.board
    world = state.world
    terrain = world.terrain
    team = state.team
    worth = [0.0] * n
    for units in board:
        for c in units:
            if type_of(c) != CROWN:
                worth[c >> OWNER_SHIFT] += unit_value(c)[0]
    best = [0.0] * n
    threat = [0.0] * n
    good = [0] * n
    scales = state.scales
    for a_tile, units in enumerate(board):
        if not units:
            continue
        attacker = units[0] >> OWNER_SHIFT
        attack: tuple[int, ...] | None = None
        for d_tile in world.neighbours[a_tile]:
            d_units = board[d_tile]
            if not d_units or team[d_units[0] >> OWNER_SHIFT] == team[attacker]:
                continue
            if attack is None:
                attack = tuple(sorted(attack_pool(state, a_tile, d_tile)))
            defence = tuple(sorted(defence_pool(state, d_tile)))
            drop = drop_on_mountain and terrain[d_tile] == Terrain.MOUNTAIN
            chance = win_chance(attack, defence, drop, scales, len(d_units), memo)
            if chance > best[attacker]:
                best[attacker] = chance
            if chance > 0.5:
                good[attacker] += 1
            for c in d_units:
                if type_of(c) == CROWN:
                    victim = c >> OWNER_SHIFT
                    if chance > threat[victim]:
                        threat[victim] = chance
    heuristic = evaluate(state)
    points: list[float] = []
    for p in range(n):
        if state.teams:
            points.append(float(team_score(state, team[p])))
        else:
            points.append(0.0 if state.eliminated[p] else float(score(state, p)))
    out: list[float] = []
    for i in range(n):
        p = (seat + i) % n
        tiles = state.controlled(p)
        castles = 0
        for t in tiles:
            if terrain[t] == Terrain.CASTLE:
                castles += 1
        out += [points[p] / 40.0, worth[p] / 40.0, heuristic[p], best[p], threat[p],
                good[p] / 5.0, castles / 5.0, len(tiles) / 20.0]
    return out
