"""The figures that the value network reads after the observation vector.

Compiled with the engine (setup.py): they are computed at every leaf of the expert's search,
and interpreted they took about half of an iteration. ``value.Features`` documents what they
mean; ``FIGURES`` names the per-player figures in order (``FIGURES_V2`` and ``GLOBALS_V2``
those that feature layout 2 adds).
"""

from __future__ import annotations

from typing import Final

from ..bots.mcts import evaluate
from ..odds import hit_distribution
from ..rules.combat import attack_pool, defence_pool, side_leader
from ..rules.magic import playable
from ..rules.scoring import score, team_score
from ..rules.state import Battle, GameState
from ..rules.units import CROWN, OWNER_SHIFT, type_of, unit_value
from ..rules.world import Terrain

FIGURES: Final = ("score/40", "unit worth/40", "heuristic value", "best attack chance",
                  "worst attack on own Crown", "attacks above 1/2 /5", "castles/5", "tiles/20")
PER_PLAYER: Final = 8
# Layout 2 adds, per player: the worth under attack (its units' worth, the Crown left out,
# times the chance of the best enemy attack on their tile), and how many held cards it could
# play in its best attack and against the most dangerous attack on its Crown; then, once,
# the chance the final round begins within one and within two rounds of event draws.
FIGURES_V2: Final = (*FIGURES, "worth under attack/40", "cards for its best attack/3",
                     "cards against the attack on its Crown/3")
PER_PLAYER_V2: Final = 11
GLOBALS_V2: Final = ("final round within a round", "final round within two rounds")
DECLARE_WINDOWS: Final = ("W1", "W2")  # the magic declaration of step B (R16.5-R16.8)
END_CARD_AMONG: Final = 9  # R5.10: the end-game card is one of the deck's last 9 cards

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
                   memo: ChanceMemo, version: int = 1) -> list[float]:
    """The figures of feature layout ``version``, relative to ``seat``: ``PER_PLAYER``
    (layout 1) or ``PER_PLAYER_V2`` (layout 2) per player, seat first, then (layout 2)
    ``GLOBALS_V2``."""
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
    best_at: list[tuple[int, int]] = [(-1, -1)] * n  # the attack of ``best``
    threat_at: list[tuple[int, int]] = [(-1, -1)] * n  # the attack of ``threat``
    tile_danger = [0.0] * len(board)  # the best enemy attack's chance on each tile
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
                best_at[attacker] = (a_tile, d_tile)
            if chance > 0.5:
                good[attacker] += 1
            if chance > tile_danger[d_tile]:
                tile_danger[d_tile] = chance
            for c in d_units:
                if type_of(c) == CROWN:
                    victim = c >> OWNER_SHIFT
                    if chance > threat[victim]:
                        threat[victim] = chance
                        threat_at[victim] = (a_tile, d_tile)
    heuristic = evaluate(state)
    points: list[float] = []
    for p in range(n):
        if state.teams:
            points.append(float(team_score(state, team[p])))
        else:
            points.append(0.0 if state.eliminated[p] else float(score(state, p)))
    under_attack = [0.0] * n
    if version >= 2:
        for tile, units in enumerate(board):
            danger = tile_danger[tile]
            if danger > 0.0:
                for c in units:
                    if type_of(c) != CROWN:
                        under_attack[c >> OWNER_SHIFT] += danger * unit_value(c)[0]
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
        if version >= 2:
            # Only the hands the seat sees: its own and its allies' (R5.13, R23.5).
            seen = team[p] == team[seat]
            out += [under_attack[p] / 40.0,
                    cards_for(state, best_at[p], p) / 3.0 if seen else 0.0,
                    cards_for(state, threat_at[p], p) / 3.0 if seen else 0.0]
    if version >= 2:
        out += [final_round_chance(state, n), final_round_chance(state, 2 * n)]
    return out


def cards_for(state: GameState, attack: tuple[int, int], p: int) -> int:
    """How many different cards ``p``'s side could declare (R16.5-R16.8: window, side,
    condition) in a battle of ``attack`` declared now; 0 when there is no such attack."""
    a_tile, d_tile = attack
    if a_tile < 0 or not any(state.hand[q] for q in range(state.n)
                             if state.team[q] == state.team[p]):
        return 0
    board = state.board
    owners = {c >> OWNER_SHIFT for c in board[a_tile]} | {c >> OWNER_SHIFT for c in board[d_tile]}
    battle = Battle(side_leader(state, a_tile), side_leader(state, d_tile), a_tile, d_tile,
                    team=state.team, participants=tuple(sorted(owners)))
    return len(playable(state, battle, p, DECLARE_WINDOWS))


def final_round_chance(state: GameState, draws: int) -> float:
    """The chance that the final round has begun after ``draws`` more event cards (R21.2),
    from public facts only: the deck's size, whether the end-game card was drawn (its
    effect shows), the options. The end-game card not yet drawn lies equally likely at any
    of the deck's last ``END_CARD_AMONG`` places (R5.10); EG3 ends the drawing at once."""
    if state.final_slot >= 0:
        return 1.0
    left = len(state.deck)
    runs_out = 1.0 if left <= draws else 0.0
    option = str(state.config.end_game_card)
    drawn = state.six_gates or state.scales or state.oracles or state.gilded_slot >= 0
    if option == "none" or drawn or left == 0:
        return runs_out
    among = min(END_CARD_AMONG, left)
    card_comes = max(0, min(draws, left) - (left - among)) / among
    if str(state.config.end_game_trigger) == "final_round":
        return card_comes
    oracles = 1.0 if option == "oracles" else 0.25 if option == "random" else 0.0
    return max(runs_out, card_comes * oracles)
