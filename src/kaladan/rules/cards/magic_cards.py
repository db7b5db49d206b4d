"""The thirty magic cards of section 26 as small effect functions, registered by card id.

Card data (names, texts, who may use a card, its window, its source) lives in
``data/magic_cards.json``; this module holds only what each card does. General rules of
section 20 live in ``magic.py`` (declaration, spending) and ``combat.py`` (the windows, kills
set aside, saves counted before the outcome, die-size shifts netted and capped).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product

from .. import actions as A
from .. import ops
from ..actions import Action
from ..combat import kill
from ..gamelog import Moved, Swapped, UnitPlaced, UnitSaved
from ..magic import EVADE, STOP, VOLLEY, CardEffect, card_of, register
from ..state import Battle, GameState
from ..tiles import TileInfo
from ..units import (
    ARCHER,
    BASIC_TYPES,
    CATAPULT,
    CROWN,
    SHIELD,
    SPECIAL,
    SWORD,
    Seat,
    UnitCode,
    code,
    owner_of,
    type_of,
)
from ..world import Terrain

CardCondition = Callable[[GameState, Battle, Seat], bool]
TilesOf = Callable[[GameState, Battle, Seat], list[int]]
TileOf = Callable[[Battle, Seat], int]

# --- shared helpers --------------------------------------------------------------------


def attacking(battle: Battle, seat: Seat) -> bool:
    return battle.team[seat] == battle.team[battle.attacker]


def own_tile(battle: Battle, seat: Seat) -> int:
    """R26.3: "your battle tile"."""
    return battle.a_tile if attacking(battle, seat) else battle.d_tile


def enemy_tile(battle: Battle, seat: Seat) -> int:
    return battle.d_tile if attacking(battle, seat) else battle.a_tile


def enemies(battle: Battle, seat: Seat) -> list[Seat]:
    """The players of the other side in this battle (R20.2, R23.24)."""
    return [p for p in battle.participants if battle.team[p] != battle.team[seat]]


def taking_part(state: GameState, battle: Battle, seat: Seat) -> list[UnitCode]:
    """R26.3: your units standing on your battle tile (with LAU-1 only the Archers attack)."""
    units = [c for c in state.board[own_tile(battle, seat)] if owner_of(c) == seat]
    if battle.ranged and attacking(battle, seat):
        units = [c for c in units if type_of(c) == ARCHER]
    return units


def has_type(units: Sequence[UnitCode], utype: int) -> bool:
    return any(type_of(c) == utype for c in units)


def terrain_is(state: GameState, tile: int, terrain: Terrain) -> bool:
    return state.world.terrain[tile] == terrain


def a_or_d_field(state: GameState, battle: Battle, seat: Seat) -> bool:
    return (terrain_is(state, battle.a_tile, Terrain.FIELD)
            or terrain_is(state, battle.d_tile, Terrain.FIELD))


def own_on_mountain(state: GameState, battle: Battle, seat: Seat) -> bool:
    return terrain_is(state, own_tile(battle, seat), Terrain.MOUNTAIN)


def always(state: GameState, battle: Battle, seat: Seat) -> bool:
    return True


def sub_multisets(units: Sequence[UnitCode], low: int, high: int) -> list[tuple[UnitCode, ...]]:
    """Sub-multisets of sorted ``units`` with low..high units, smaller ones first."""
    if high < low or not units:
        return []
    high = min(high, len(units))
    if high < low:
        return []
    return TileInfo(tuple(sorted(units))).sized(low, high)


# --- kills (R20.10): NAN-3, ZHO-3, LAU-3 -----------------------------------------------


def enemy_targets(state: GameState, battle: Battle, seat: Seat) -> list[UnitCode]:
    """Enemy units other than a Crown on the enemy battle tile (R20.14)."""
    mine = battle.team[seat]
    return sorted({c for c in state.board[enemy_tile(battle, seat)]
                   if battle.team[owner_of(c)] != mine and type_of(c) != CROWN})


def kill_options(state: GameState, battle: Battle, seat: Seat) -> list[Action]:
    tile = enemy_tile(battle, seat)
    return [Action(A.KILL, tile, units=(c,)) for c in enemy_targets(state, battle, seat)]


def kill_chosen(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
    assert action is not None
    kill(state, battle, action.tile, action.units[0], seat,  # into the holder's graveyard
         card_of(battle, seat))


def kill_effect(condition_extra: CardCondition) -> CardEffect:
    def condition(state: GameState, battle: Battle, seat: Seat) -> bool:
        return bool(enemy_targets(state, battle, seat)) and condition_extra(state, battle, seat)

    return CardEffect(condition, options=kill_options, apply=kill_chosen)


# --- placements (R20.12): KHA-4, KIM-4, ARD-5, KIM-3, LAU-5 ------------------------------


def basics_in_reserve(state: GameState, seat: Seat) -> list[UnitCode]:
    """Basic units of the reserve, one code per unit, in canonical order."""
    out: list[UnitCode] = []
    for t in sorted(BASIC_TYPES):
        out += [code(seat, 0, t)] * state.reserve[seat][t]
    return out


def deploy_basics(state: GameState, seat: Seat, tiles: Sequence[int]) -> list[Action]:
    """Up to two basic units of the reserve, any mix, onto one of ``tiles`` within capacity."""
    reserve = basics_in_reserve(state, seat)
    out = []
    for tile in tiles:
        room = state.room(tile)
        for units in sub_multisets(reserve, 1, min(2, room)):
            out.append(Action(A.DEPLOY, tile, units=units))
    return out


def own_tiles_with_room(state: GameState, seat: Seat, terrain: Terrain | None = None) -> list[int]:
    return [t for t in state.controlled(seat) if state.room(t) > 0
            and (terrain is None or state.world.terrain[t] == terrain)]


def deploy_chosen(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
    assert action is not None
    for c in action.units:
        ops.place_from_reserve(state, seat, c, action.tile)
        if state.sink is not None:
            state.sink.append(UnitPlaced(seat, c, state.world.names[action.tile],
                                         card_of(battle, seat)))


def special_options(state: GameState, battle: Battle, seat: Seat) -> list[Action]:
    tile = own_tile(battle, seat)
    if state.room(tile) <= 0:
        return []
    return [Action(A.DEPLOY, tile, units=(code(seat, r, SPECIAL),))
            for r in state.placeable_specials(seat)]  # R18.4


def special_condition(state: GameState, battle: Battle, seat: Seat) -> bool:
    """KIM-3, LAU-5: a special unit in your reserve and room on your battle tile."""
    return bool(state.placeable_specials(seat)) and state.room(own_tile(battle, seat)) > 0


# --- saves (R20.11): KHA-1, NAN-2, ARD-4 -----------------------------------------------


def fallen(battle: Battle, seat: Seat, crown: bool) -> list[UnitCode]:
    return sorted(c for c, _, _ in battle.set_aside
                  if owner_of(c) == seat and (crown or type_of(c) != CROWN))


def save_effect(condition_extra: CardCondition, most: int, crown: bool,
                target: TileOf) -> CardEffect:
    """Save up to ``most`` of your units killed in this battle back onto ``target``."""

    def condition(state: GameState, battle: Battle, seat: Seat) -> bool:
        return bool(fallen(battle, seat, crown)) and condition_extra(state, battle, seat)

    def options(state: GameState, battle: Battle, seat: Seat) -> list[Action]:
        room = state.room(target(battle, seat))
        return [Action(A.SAVE, units=units)
                for units in sub_multisets(fallen(battle, seat, crown), 1, min(most, room))]

    def apply(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
        assert action is not None
        tile = target(battle, seat)
        for c in action.units:
            index = next(i for i, (u, _, _) in enumerate(battle.set_aside) if u == c)
            del battle.set_aside[index]
            ops.add_unit(state, tile, c)  # exactly as it was, upgrade included
            if state.sink is not None:
                state.sink.append(UnitSaved(seat, c, state.world.names[tile],
                                            card_of(battle, seat)))

    return CardEffect(condition, options=options, apply=apply)


# --- moves: KHA-2, ZHO-2, ZHO-5 ----------------------------------------------------------


def harmony_options(state: GameState, battle: Battle, seat: Seat) -> list[Action]:
    """KHA-2: any redistribution between two adjacent own tiles; both stay yours, in capacity."""
    board = state.board
    cap = state.world.capacity
    mine = state.controlled(seat)
    out = []
    for a in mine:
        for b in state.world.neighbours[a]:
            if b <= a or b not in mine:
                continue
            own_a, own_b = state.own_units(seat, a), state.own_units(seat, b)
            from_a = [()] + sub_multisets(own_a, 1, len(own_a))
            from_b = [()] + sub_multisets(own_b, 1, len(own_b))
            for xa, xb in product(from_a, from_b):
                if xa == xb:
                    continue  # nothing would change
                moved = len(xb) - len(xa)
                if (len(own_a) + moved >= 1 and len(own_b) - moved >= 1
                        and len(board[a]) + moved <= cap[a] and len(board[b]) - moved <= cap[b]):
                    out.append(Action(A.HARMONY, a, b, xa, xb))
    return out


def harmony_condition(state: GameState, battle: Battle, seat: Seat) -> bool:
    mine = set(state.controlled(seat))
    return any(b in mine for a in mine for b in state.world.neighbours[a])


def harmony_chosen(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
    assert action is not None
    a, b = action.tile, action.tile2
    names = state.world.names
    sink = state.sink
    if action.units and action.units2:
        ops.swap_units(state, a, b, action.units, action.units2)
        if sink is not None:
            sink.append(Swapped(seat, names[a], names[b], action.units, action.units2, "KHA-2"))
    elif action.units:
        ops.move_units(state, a, b, action.units)
        if sink is not None:
            sink.append(Moved(seat, names[a], names[b], action.units, "KHA-2"))
    else:
        ops.move_units(state, b, a, action.units2)
        if sink is not None:
            sink.append(Moved(seat, names[b], names[a], action.units2, "KHA-2"))


def evade_targets(state: GameState, battle: Battle, seat: Seat) -> list[int]:
    """ZHO-2: a tile next to D, not A, empty or yours, with room for all your units on D."""
    d = battle.d_tile
    mine = [c for c in state.board[d] if owner_of(c) == seat]
    out = []
    for t in state.world.neighbours[d]:
        units = state.board[t]
        if t == battle.a_tile or (units and battle.team[owner_of(units[0])] != battle.team[seat]):
            continue  # R23.16: empty or friendly
        if len(units) + len(mine) <= state.world.capacity[t]:
            out.append(t)
    return out


def evade_condition(state: GameState, battle: Battle, seat: Seat) -> bool:
    return bool(evade_targets(state, battle, seat))


def evade_options(state: GameState, battle: Battle, seat: Seat) -> list[Action]:
    return [Action(A.EVADE, t) for t in evade_targets(state, battle, seat)]


def evade_chosen(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
    assert action is not None
    mine = tuple(c for c in state.board[battle.d_tile] if owner_of(c) == seat)
    ops.move_units(state, battle.d_tile, action.tile, mine)
    if state.sink is not None:
        names = state.world.names
        state.sink.append(Moved(seat, names[battle.d_tile], names[action.tile], mine, "ZHO-2"))


def paths_options(state: GameState, battle: Battle, seat: Seat) -> list[Action]:
    """ZHO-5: some of your units from one tile of yours to another that is not adjacent."""
    board = state.board
    mine = state.controlled(seat)
    battle_tile = own_tile(battle, seat)
    out = []
    for src in mine:
        own = [c for c in board[src] if owner_of(c) == seat]
        most = len(own) - 1 if src == battle_tile else len(own)  # keep one on the battle tile
        for dst in mine:
            if dst == src or dst in state.world.neighbours[src]:
                continue
            room = state.room(dst)
            for units in sub_multisets(own, 1, min(most, room)):
                out.append(Action(A.RELOCATE, src, dst, units))
    return out


def paths_chosen(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
    assert action is not None
    ops.move_units(state, action.tile, action.tile2, action.units)
    if state.sink is not None:
        names = state.world.names
        state.sink.append(Moved(seat, names[action.tile], names[action.tile2], action.units,
                                "ZHO-5"))


def paths_condition(state: GameState, battle: Battle, seat: Seat) -> bool:
    mine = state.controlled(seat)
    return any(b != a and b not in state.world.neighbours[a] for a in mine for b in mine)


# --- dice (R20.13, R16.14): the W2 cards -------------------------------------------------


def d12_one(utype: int) -> CardEffect:
    """KHA-3, ARD-2, LAU-2: each of your units of a type rolls one D12 instead."""

    def condition(state: GameState, battle: Battle, seat: Seat) -> bool:
        return has_type(taking_part(state, battle, seat), utype)

    def apply(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
        battle.d12_one[seat] = battle.d12_one.get(seat, ()) + (utype,)

    return CardEffect(condition, apply=apply)


def raise_own(condition: CardCondition) -> CardEffect:
    """KIM-2, NAN-4: each of your units rolls one die size higher."""

    def apply(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
        battle.shift[seat] = battle.shift.get(seat, 0) + 1

    return CardEffect(condition, apply=apply)


def lower_enemy(condition: CardCondition) -> CardEffect:
    """KIM-5, ARD-3, LAU-4: each enemy unit rolls one die size lower."""

    def apply(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
        for them in enemies(battle, seat):
            battle.shift[them] = battle.shift.get(them, 0) - 1

    return CardEffect(condition, apply=apply)


def bronze_engines(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
    battle.d12_all[seat] = battle.d12_all.get(seat, ()) + (CATAPULT,)


def sneak(state: GameState, battle: Battle, seat: Seat, action: Action | None) -> None:
    battle.sneak = True


# --- conditions on terrain ---------------------------------------------------------------


def d_is(terrain: Terrain) -> CardCondition:
    def condition(state: GameState, battle: Battle, seat: Seat) -> bool:
        return terrain_is(state, battle.d_tile, terrain)
    return condition


def archers_on_own_tile(at_least: int) -> CardCondition:
    def condition(state: GameState, battle: Battle, seat: Seat) -> bool:
        units = state.board[own_tile(battle, seat)]
        return sum(1 for c in units if owner_of(c) == seat and type_of(c) == ARCHER) >= at_least
    return condition


def with_basics(tiles: TilesOf) -> CardCondition:
    def condition(state: GameState, battle: Battle, seat: Seat) -> bool:
        return bool(basics_in_reserve(state, seat)) and bool(tiles(state, battle, seat))
    return condition


def deploy_effect(tiles: TilesOf) -> CardEffect:
    def options(state: GameState, battle: Battle, seat: Seat) -> list[Action]:
        return deploy_basics(state, seat, tiles(state, battle, seat))
    return CardEffect(with_basics(tiles), options=options, apply=deploy_chosen)


def any_own_with_room(state: GameState, battle: Battle, seat: Seat) -> list[int]:
    return own_tiles_with_room(state, seat)


def own_fields_with_room(state: GameState, battle: Battle, seat: Seat) -> list[int]:
    return own_tiles_with_room(state, seat, Terrain.FIELD)


def defended_with_room(state: GameState, battle: Battle, seat: Seat) -> list[int]:
    return [battle.d_tile] if state.room(battle.d_tile) > 0 else []


def defended(battle: Battle, seat: Seat) -> int:
    return battle.d_tile


def attacking_from_forest(state: GameState, battle: Battle, seat: Seat) -> bool:
    return terrain_is(state, battle.a_tile, Terrain.FOREST)


def catapult_takes_part(state: GameState, battle: Battle, seat: Seat) -> bool:
    return has_type(taking_part(state, battle, seat), CATAPULT)


def volley_condition(state: GameState, battle: Battle, seat: Seat) -> bool:
    """LAU-1 is declared with the attack (legal.volleys), never at step B."""
    return False


# --- the registry ------------------------------------------------------------------------

register("KHA-1", save_effect(d_is(Terrain.CASTLE), 3, True, defended))
register("KHA-2", CardEffect(harmony_condition, options=harmony_options, apply=harmony_chosen))
register("KHA-3", d12_one(SWORD))
register("KHA-4", deploy_effect(any_own_with_room))
register("KHA-5", CardEffect(d_is(Terrain.CASTLE), kind=STOP))

register("KIM-1", CardEffect(d_is(Terrain.FIELD), kind=STOP))
register("KIM-2", raise_own(a_or_d_field))
register("KIM-3", CardEffect(special_condition, options=special_options, apply=deploy_chosen))
register("KIM-4", deploy_effect(own_fields_with_room))
register("KIM-5", lower_enemy(a_or_d_field))

register("NAN-1", CardEffect(d_is(Terrain.MOUNTAIN), kind=STOP))
register("NAN-2", save_effect(own_on_mountain, 2, False, own_tile))
register("NAN-3", kill_effect(own_on_mountain))
register("NAN-4", raise_own(own_on_mountain))
register("NAN-5", CardEffect(catapult_takes_part, apply=bronze_engines))

register("ARD-1", CardEffect(always, kind=STOP))
register("ARD-2", d12_one(SHIELD))
register("ARD-3", lower_enemy(always))
register("ARD-4", save_effect(always, 2, False, defended))
register("ARD-5", deploy_effect(defended_with_room))

register("ZHO-1", CardEffect(d_is(Terrain.FOREST), kind=STOP))
register("ZHO-2", CardEffect(evade_condition, kind=EVADE, options=evade_options,
                             apply=evade_chosen))
register("ZHO-3", kill_effect(always))
register("ZHO-4", CardEffect(attacking_from_forest, apply=sneak))
register("ZHO-5", CardEffect(paths_condition, options=paths_options, apply=paths_chosen))

register("LAU-1", CardEffect(volley_condition, kind=VOLLEY))
register("LAU-2", d12_one(ARCHER))
register("LAU-3", kill_effect(archers_on_own_tile(1)))
register("LAU-4", lower_enemy(archers_on_own_tile(2)))
register("LAU-5", CardEffect(special_condition, options=special_options, apply=deploy_chosen))
