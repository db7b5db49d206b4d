"""Battles, steps A-H of section 16, and what follows them (sections 17, 18).

Dice pools and the pair comparison are pure functions (``attack_pool``, ``defence_pool``,
``compare``) so that the odds calculator and the engine share one set of dice rules.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import flow, magic, ops
from .state import Battle, Decision, GameState, Pending, Result
from .units import (
    ARDINOR,
    ATTACK_DICE,
    CROWN,
    DEFENCE_DICE,
    KHALISIA,
    KIMBRIA,
    LAURIELLE,
    NANCHIA,
    SPECIAL,
    ZHOJIRA,
    Seat,
    UnitCode,
    code,
    plain,
    realm_of,
    type_of,
    unit_value,
)
from .world import Terrain

# --- dice rules (sections 13-15) -------------------------------------------------------


def special_d12(realm: int, attacking: bool, own_terrain: Terrain, own_crown_on_d: bool,
                enemy_crown_on_d: bool, wolf_option: str) -> bool:
    """R14.1-R14.6: does a (not upgraded) special unit roll a D12 in this battle?"""
    if realm == KHALISIA:
        return enemy_crown_on_d if attacking else own_crown_on_d
    if realm == KIMBRIA:
        return own_terrain == Terrain.FIELD
    if realm == NANCHIA:
        return own_terrain == Terrain.MOUNTAIN
    if realm == ARDINOR:
        return not attacking
    if realm == ZHOJIRA:
        if wolf_option == "attack_from_forest" and not attacking:
            return False
        return own_terrain == Terrain.FOREST
    if realm == LAURIELLE:
        return attacking
    return False


def unit_dice(c: UnitCode, attacking: bool, own_terrain: Terrain, d_units: Sequence[UnitCode],
              crown_d8: bool, wolf_option: str) -> tuple[int, ...]:
    """The dice of one unit (R13.1-R13.3, section 14); ``d_units`` are the units on D."""
    t = type_of(c)
    up = c & 1
    if t == SPECIAL:
        if up:
            return (12,)
        owner = c >> 7
        own_crown = any(u >> 7 == owner and type_of(u) == CROWN for u in d_units)
        enemy_crown = any(u >> 7 != owner and type_of(u) == CROWN for u in d_units)
        return (12,) if special_d12(realm_of(c), attacking, own_terrain, own_crown, enemy_crown,
                                    wolf_option) else (10,)
    if t == CROWN and not attacking and crown_d8 and own_terrain == Terrain.CASTLE:
        return (8,)  # R13.3 variant d8
    return ATTACK_DICE[t][up] if attacking else DEFENCE_DICE[t][up]


def attack_pool(state: GameState, a_tile: int, d_tile: int,
                units: list[UnitCode] | None = None) -> list[int]:
    """R16.14 for the attacking side: unit dice, then the Forest bonus (R15.3)."""
    terrain = state.world.terrain
    d_units = state.board[d_tile]
    pool: list[int] = []
    for c in state.board[a_tile] if units is None else units:
        pool.extend(unit_dice(c, True, terrain[a_tile], d_units, False, state.config.wolf_d12))
    if terrain[a_tile] == Terrain.FOREST:
        pool.append(10)
    return pool


def defence_pool(state: GameState, d_tile: int) -> list[int]:
    """R16.14 for the defending side: unit dice, then Mountain and upgraded-castle bonus."""
    terrain = state.world.terrain
    d_units = state.board[d_tile]
    crown_d8 = state.config.crown_defence_in_castle == "d8"
    pool: list[int] = []
    for c in d_units:
        pool.extend(unit_dice(c, False, terrain[d_tile], d_units, crown_d8,
                              state.config.wolf_d12))
    if terrain[d_tile] == Terrain.MOUNTAIN:
        pool.append(10)  # R15.4
    if state.fortified[d_tile]:
        pool.append(8)  # R15.5, R19.4
    return pool


def compare(attack: list[int], defence: list[int], drop_lowest: bool,
            scales: bool) -> tuple[int, int]:
    """R16.16-R16.20: hits on (attacker, defender) from rolled dice."""
    if drop_lowest and defence:
        defence = sorted(defence)[1:]
    a = sorted(attack, reverse=True)
    d = sorted(defence, reverse=True)
    hits_a = hits_d = 0
    for x, y in zip(a, d, strict=False):
        if x > y:
            hits_d += 1
        elif y > x:
            hits_a += 1
        elif scales:
            hits_d += 1  # EG2: a tie gives the defending side a hit
    return hits_a, hits_d


# --- the battle procedure --------------------------------------------------------------


def declare(state: GameState, a_tile: int, d_tile: int) -> None:
    """Step A (R16.1-R16.4), then the magic declarations of step B."""
    attacker = state.active
    defender = state.tile_owner(d_tile)
    battle = Battle(attacker, defender, a_tile, d_tile)
    battle.magic_queue = [attacker, defender]  # R16.5: attacker first
    state.battle = battle
    _next_declaration(state)


def _next_declaration(state: GameState) -> None:
    battle = state.battle
    assert battle is not None
    while battle.magic_queue:
        seat = battle.magic_queue[0]
        if magic.must_declare(state, battle, seat):
            state.pending = Pending(Decision.MAGIC, seat)
            return
        battle.magic_queue.pop(0)
    if battle.step == "w3":
        _outcome(state)
    else:
        _fight(state)


def declare_magic(state: GameState, card: str | None) -> None:
    """A side's declaration (R16.5) or its after-battle card (R16.26)."""
    battle = state.battle
    assert battle is not None
    seat = battle.magic_queue.pop(0)
    if card is not None:
        battle.cards[seat] = card
        battle.used_card[seat] = True
        if battle.step == "w3":
            effect = magic.EFFECTS[card]
            state.hand[seat].remove(card)
            state.spent.append(card)  # R20.6
            effect.resolve(state, battle, seat)
    _next_declaration(state)


def _resolve_selected(state: GameState, battle: Battle) -> None:
    """Step C (R16.10-R16.11): W1/W2 effects of the selected cards, attacker first."""
    for seat in (battle.attacker, battle.defender):
        card = battle.cards.get(seat)
        if card is None:
            continue
        state.hand[seat].remove(card)
        state.spent.append(card)
        magic.EFFECTS[card].resolve(state, battle, seat)


def _fight(state: GameState) -> None:
    """Steps C-E: effects, pools, one roll of all dice, hits capped by units (R16.21)."""
    battle = state.battle
    assert battle is not None
    if battle.cards:
        _resolve_selected(state, battle)
    a, d = battle.a_tile, battle.d_tile
    if state.board[a] and state.board[d]:
        battle.attack_dice = attack_pool(state, a, d)
        battle.defence_dice = defence_pool(state, d)
        roll = state.chance.roll
        battle.attack_rolls = [roll(s) for s in battle.attack_dice]  # R16.15
        battle.defence_rolls = [roll(s) for s in battle.defence_dice]
        drop = (state.config.mountain_defence == "drop_lowest"
                and state.world.terrain[d] == Terrain.MOUNTAIN)
        hits_a, hits_d = compare(battle.attack_rolls, battle.defence_rolls, drop, state.scales)
        battle.hits = {battle.attacker: min(hits_a, len(state.board[a])),
                       battle.defender: min(hits_d, len(state.board[d]))}
        battle.casualty_queue = [battle.attacker, battle.defender]  # R16.22
    battle.step = "casualties"
    next_casualty(state)


def next_casualty(state: GameState) -> None:
    """R16.22: each loser picks casualties; a choice is asked only if some unit survives."""
    battle = state.battle
    assert battle is not None
    while battle.casualty_queue:
        seat = battle.casualty_queue[0]
        tile = battle.a_tile if seat == battle.attacker else battle.d_tile
        left = battle.hits.get(seat, 0)
        mine = [c for c in state.board[tile] if c >> 7 == seat]
        if left > 0 and left < len(mine):
            kinds = {c for c in mine if type_of(c) != CROWN}
            if len(kinds) > 1:
                state.pending = Pending(Decision.CASUALTY, seat)
                return
            for c in sorted(mine, key=unit_value)[:left]:
                kill(state, battle, tile, c, other_side(battle, seat))
        elif left > 0:
            for c in mine:
                kill(state, battle, tile, c, other_side(battle, seat))
        battle.hits[seat] = 0
        battle.casualty_queue.pop(0)
    battle.step = "w3"
    battle.magic_queue = [battle.attacker, battle.defender]  # R16.26
    _next_declaration(state)


def choose_casualty(state: GameState, c: UnitCode) -> None:
    battle = state.battle
    assert battle is not None
    seat = battle.casualty_queue[0]
    tile = battle.a_tile if seat == battle.attacker else battle.d_tile
    kill(state, battle, tile, c, other_side(battle, seat))
    battle.hits[seat] -= 1
    if battle.hits[seat] == 0:
        battle.casualty_queue.pop(0)
    next_casualty(state)


def other_side(battle: Battle, seat: Seat) -> Seat:
    return battle.defender if seat == battle.attacker else battle.attacker


def kill(state: GameState, battle: Battle, tile: int, c: UnitCode, killer: Seat) -> None:
    """R16.25: a killed unit leaves the board and is set aside until step G."""
    ops.take_unit(state, tile, c)
    battle.killer[len(battle.set_aside)] = killer
    battle.set_aside.append((c, tile))


def _outcome(state: GameState) -> None:
    """Step G (R16.27-R16.30), elimination (section 18), end of game, invasion."""
    battle = state.battle
    assert battle is not None
    attacker_won = not state.board[battle.d_tile]  # R16.27
    fallen = [c >> 7 for c, _ in battle.set_aside if type_of(c) == CROWN]
    both_fell = len(fallen) > 1  # R18.9
    for i, (c, _tile) in enumerate(battle.set_aside):  # R16.28
        killer = battle.killer[i]
        t = type_of(c)
        if t == SPECIAL:
            ops.put_in_reserve(state, c >> 7, plain(c))  # R14.7
        elif t == CROWN:
            if both_fell:
                state.removed.append(c)
            else:
                state.trophies[killer].append(c)  # R18.5
        else:
            state.graveyard[killer].append(plain(c))  # R17.2
    battle.set_aside.clear()
    for seat in fallen:
        eliminate(state, seat, None if both_fell else other_side(battle, seat))
    alive = state.alive()
    if fallen and len(alive) <= 1:  # R16.29 (2), R21.1, R21.6
        from .scoring import scores

        if alive:
            flow.game_over(state, Result("last_crown", alive[0], scores(state)))
        else:
            flow.game_over(state, Result("draw", None, scores(state)))
        return
    if state.eliminated[battle.attacker]:
        flow.end_turn(state)  # R6.4
        return
    survivors = len(state.board[battle.a_tile])
    if attacker_won and survivors:  # R17.6
        capacity = state.world.capacity[battle.d_tile]
        if survivors <= capacity:
            ops.move_units(state, battle.a_tile, battle.d_tile, state.board[battle.a_tile])
        else:
            battle.invade_left = survivors - capacity
            battle.step = "invade"
            if len(set(state.board[battle.a_tile])) > 1:
                state.pending = Pending(Decision.INVASION, battle.attacker)
                return
            units = state.board[battle.a_tile]
            ops.move_units(state, battle.a_tile, battle.d_tile, tuple(units[:capacity]))
    _end_battle(state)


def choose_leave(state: GameState, c: UnitCode) -> None:
    """R17.6-R17.7: one more unit stays on A; when enough stay, the rest invade."""
    battle = state.battle
    assert battle is not None
    battle.staying.append(c)
    battle.invade_left -= 1
    if battle.invade_left > 0 and len(set(invasion_candidates(state, battle))) > 1:
        return
    movers = invasion_candidates(state, battle)
    if battle.invade_left > 0:
        battle.staying.extend(movers[:battle.invade_left])
        movers = movers[battle.invade_left:]
    ops.move_units(state, battle.a_tile, battle.d_tile, tuple(movers))
    _end_battle(state)


def invasion_candidates(state: GameState, battle: Battle) -> list[UnitCode]:
    """Units on A not yet chosen to stay behind."""
    units = list(state.board[battle.a_tile])
    for c in battle.staying:
        units.remove(c)
    return units


def _end_battle(state: GameState) -> None:
    """Step H (R16.31): the battle and the Action phase are over."""
    state.battle = None
    flow.next_phase(state)


def eliminate(state: GameState, seat: Seat, killer: Seat | None) -> None:
    """R18.1-R18.6, R18.9: remove the player; hand over specials and cards to the killer."""
    state.eliminated[seat] = True
    for t, units in enumerate(state.board):
        for c in [u for u in units if u >> 7 == seat]:
            if type_of(c) == SPECIAL and killer is not None:
                ops.take_unit(state, t, c)
                ops.put_in_reserve(state, killer, (killer << 7) | (plain(c) & 127))  # R18.4
            else:
                ops.remove_from_game(state, t, c)  # R18.2
    for realm in state.reserve_specials[seat]:
        c = (seat << 7) | (realm << 4) | (SPECIAL << 1)
        if killer is not None:
            ops.put_in_reserve(state, killer, (killer << 7) | (c & 127))
        else:
            state.removed.append(c)
    state.reserve_specials[seat] = []
    realm = state.realm[seat]
    for t, count in enumerate(state.reserve[seat]):
        state.removed.extend([code(seat, realm, t)] * count)
    state.reserve[seat] = [0] * len(state.reserve[seat])
    state.gold[seat] = 0
    cards = state.hand[seat] + state.pool[seat]
    state.hand[seat] = []
    state.pool[seat] = []
    if killer is not None:
        state.buyable[killer] = sorted(state.buyable[killer] + cards)  # R18.6
    else:
        state.spent.extend(cards)
    state.removed.sort()
