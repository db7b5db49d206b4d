"""Battles, steps A-H of section 16, and what follows them (sections 17, 18).

Dice pools and the pair comparison are pure functions (``attack_pool``, ``defence_pool``,
``compare``) so that the odds calculator and the engine share one set of dice rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, final

from . import flow, magic, ops
from .gamelog import (
    BattleEnded,
    BattleStarted,
    CardCommitted,
    CardReturned,
    CardRevealed,
    CardsOffered,
    DiceRolled,
    Die,
    Eliminated,
    FallenUnit,
    HitsShared,
    LeftBehind,
    Moved,
    NoCard,
    Pair,
    PairsCompared,
    TileCaptured,
    UnitKilled,
    UpgradesLost,
)
from .legal import (
    attacking_units,
    hit_candidates,
    invasion_candidates,
)
from .magic import same_side, side_players
from .scoring import scores, team_result, team_scores
from .state import Battle, BattleStep, Decision, GameState, Pending, Result
from .units import (
    ARDINOR,
    ATTACK_DICE,
    CROWN,
    DEFENCE_DICE,
    KHALISIA,
    KIMBRIA,
    LAURIELLE,
    NANCHIA,
    OWNER_SHIFT,
    SPECIAL,
    ZHOJIRA,
    Seat,
    UnitCode,
    code,
    owner_of,
    plain,
    realm_of,
    type_of,
    unit_value,
    with_owner,
)
from .world import Terrain

if TYPE_CHECKING:
    from .actions import Action

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
        owner = owner_of(c)
        own_crown = any(owner_of(u) == owner and type_of(u) == CROWN for u in d_units)
        enemy_crown = any(owner_of(u) != owner and type_of(u) == CROWN for u in d_units)
        return (12,) if special_d12(realm_of(c), attacking, own_terrain, own_crown, enemy_crown,
                                    wolf_option) else (10,)
    if t == CROWN and not attacking and crown_d8 and own_terrain == Terrain.CASTLE:
        return (8,)  # R13.3 variant d8
    return ATTACK_DICE[t][up] if attacking else DEFENCE_DICE[t][up]


@final
@dataclass(frozen=True)
class Modifiers:
    """Magic-card dice effects on one side's units (R16.14 steps 2-3, R20.13): unit types that
    roll one D12 instead of their usual die, types whose every die is a D12, and the side's
    net die-size shift. Hashed by the odds caches."""

    d12_one: tuple[int, ...] = ()
    d12_all: tuple[int, ...] = ()
    shift: int = 0

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt through __init__: a compiled frozen dataclass cannot be unpickled by
        # assigning its fields.
        return Modifiers, (self.d12_one, self.d12_all, self.shift)


NO_MODIFIERS: Final = Modifiers()
_LADDER: Final = (6, 8, 10, 12)  # R20.13


def shifted(die: int, shift: int) -> int:
    """One die moved ``shift`` sizes along D6-D8-D10-D12, capped at both ends (R20.13)."""
    index = _LADDER.index(die) + shift
    return _LADDER[0 if index < 0 else 3 if index > 3 else index]


def modified(dice: tuple[int, ...], utype: int, mods: Modifiers) -> tuple[int, ...]:
    if utype in mods.d12_one:
        dice = (12,)
    elif utype in mods.d12_all:
        dice = (12,) * len(dice)
    if mods.shift:
        dice = tuple(shifted(d, mods.shift) for d in dice)
    return dice


def side_dice(units: Sequence[UnitCode], attacking: bool, own_terrain: Terrain,
              d_units: Sequence[UnitCode], crown_d8: bool, wolf_option: str,
              mods: Modifiers = NO_MODIFIERS) -> list[int]:
    """R16.14 steps 1-3 for one side: every unit's dice, then its card effects."""
    pool: list[int] = []
    for c in units:
        dice = unit_dice(c, attacking, own_terrain, d_units, crown_d8, wolf_option)
        pool.extend(modified(dice, type_of(c), mods) if mods is not NO_MODIFIERS else dice)
    return pool


def bonus_dice(a_terrain: Terrain, d_terrain: Terrain,
               fortified: bool) -> tuple[list[int], list[int]]:
    """R16.14 step 4, section 15: (attacker's, defender's) bonus dice, never modified."""
    attack = [10] if a_terrain == Terrain.FOREST else []  # R15.3
    defence = [10] if d_terrain == Terrain.MOUNTAIN else []  # R15.4
    if fortified:
        defence.append(8)  # R15.5, R19.4
    return attack, defence


def attack_pool(state: GameState, a_tile: int, d_tile: int,
                units: Sequence[UnitCode] | None = None,
                mods: Modifiers = NO_MODIFIERS) -> list[int]:
    """R16.14 for the attacking side: unit dice, card effects, then the Forest bonus (R15.3)."""
    terrain = state.world.terrain
    pool = side_dice(state.board[a_tile] if units is None else units, True, terrain[a_tile],
                     state.board[d_tile], False, state.config.wolf_d12, mods)
    return pool + bonus_dice(terrain[a_tile], terrain[d_tile], False)[0]


def defence_pool(state: GameState, d_tile: int, mods: Modifiers = NO_MODIFIERS) -> list[int]:
    """R16.14 for the defending side: unit dice, card effects, then Mountain and
    upgraded-castle bonus."""
    terrain = state.world.terrain
    d_units = state.board[d_tile]
    pool = side_dice(d_units, False, terrain[d_tile], d_units,
                     state.config.crown_defence_in_castle == "d8", state.config.wolf_d12, mods)
    return pool + bonus_dice(Terrain.FIELD, terrain[d_tile], state.fortified[d_tile])[1]


def drops_lowest(state: GameState, d_tile: int) -> bool:
    """R15.4, R16.16: under ``mountain_defence = drop_lowest`` a side defending a Mountain
    drops its lowest die after the roll (``compare``'s ``drop_lowest``)."""
    return (state.config.mountain_defence == "drop_lowest"
            and state.world.terrain[d_tile] == Terrain.MOUNTAIN)


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


def pair_up(attack: list[int], defence: list[int], drop_lowest: bool,
            scales: bool) -> tuple[list[Pair], int]:
    """R16.16-R16.20 as the table sees it: the pairs compared with the side that loses each,
    and the defender's dropped die (-1 if none)."""
    dropped = -1
    if drop_lowest and defence:
        defence = sorted(defence)
        dropped = defence.pop(0)
    pairs = []
    for x, y in zip(sorted(attack, reverse=True), sorted(defence, reverse=True), strict=False):
        loser = "defender" if x > y or (x == y and scales) else "attacker" if y > x else ""
        pairs.append(Pair(x, y, loser))
    return pairs, dropped


# --- the battle procedure --------------------------------------------------------------


def declare(state: GameState, a_tile: int, d_tile: int, volley: bool = False) -> None:
    """Step A (R16.1-R16.4), then the magic declarations of step B.

    A volley (LAU-1) is revealed with the declaration (R16.9) and only the defender declares.
    """
    attacker = state.active
    defender = side_leader(state, d_tile)
    battle = Battle(attacker, defender, a_tile, d_tile)
    battle.team = state.team
    battle.participants = tuple(sorted({owner_of(c) for c in state.board[a_tile]}
                                       | {owner_of(c) for c in state.board[d_tile]}))
    if volley:
        battle.ranged = True
        battle.cards[attacker] = "LAU-1"
        battle.used_card[attacker] = True
        battle.magic_queue = [defender]
    else:
        battle.magic_queue = [attacker, defender]  # R16.5: attacker first
    state.battle = battle
    if state.sink is not None:
        names = state.world.names
        bonus_a, bonus_d = bonus_labels(state, a_tile, d_tile)
        state.sink.append(BattleStarted(attacker, defender, names[a_tile], names[d_tile],
                                        state.board[a_tile], state.board[d_tile], volley,
                                        bonus_a, bonus_d))
        if volley:  # R16.9: revealed with the attack
            state.sink.append(CardRevealed(attacker, attacker, "LAU-1"))
    _next_declaration(state)


def side_leader(state: GameState, tile: int) -> Seat:
    """R16.4: the player with the most units on the tile; ties to the first in turn order
    after the active player."""
    counts: dict[Seat, int] = {}
    for c in state.board[tile]:
        counts[owner_of(c)] = counts.get(owner_of(c), 0) + 1
    if len(counts) == 1:
        return next(iter(counts))
    after_active = [(state.active + k) % state.n for k in range(1, state.n + 1)]
    return max(counts, key=lambda p: (counts[p], -after_active.index(p)))


def _next_declaration(state: GameState) -> None:
    battle = state.battle
    assert battle is not None
    while battle.magic_queue:
        seat = battle.magic_queue[0]
        if magic.must_declare(state, battle, seat):
            state.pending = Pending(Decision.MAGIC, seat)
            return
        battle.magic_queue.pop(0)
    if battle.step == BattleStep.W3:
        _outcome(state)
    else:
        _reveal(state)


def declare_magic(state: GameState, card: str | None) -> None:
    """A side's declaration (R16.5) or its after-battle card (R16.26)."""
    battle = state.battle
    assert battle is not None
    seat = battle.magic_queue.pop(0)
    sink = state.sink
    if card is None:
        if sink is not None:
            sink.append(NoCard(seat, "after" if battle.step == BattleStep.W3 else "declare"))
        _next_declaration(state)
        return
    battle.cards[seat] = card
    battle.used_card[seat] = True
    holder = magic.holder_of(state, battle, seat, card)  # R23.23: any ally present may hold it
    battle.holders[seat] = holder
    if sink is not None:
        if battle.step == BattleStep.W3:
            sink.append(CardRevealed(seat, holder, card))
        else:  # R16.5: face down
            sink.append(CardCommitted(seat, state.team[seat], card))
    if battle.step == BattleStep.W3:  # played at once (R16.26)
        magic.spend(state, holder, card)
        if _effect_with_choice(state, battle, holder, card):
            return
    _next_declaration(state)


def _effect_with_choice(state: GameState, battle: Battle, seat: Seat, card: str) -> bool:
    """Carry out a card's effect; True if its holder must first choose (Decision.CARD)."""
    effect = magic.EFFECTS[card]
    if effect.options is not None:
        options = effect.options(state, battle, seat)
        if len(options) > 1:
            battle.choosing = card
            state.pending = Pending(Decision.CARD, seat)
            return True
        if effect.apply is not None and options:
            effect.apply(state, battle, seat, options[0])
        return False
    if effect.apply is not None:
        effect.apply(state, battle, seat, None)
    return False


def choose_for_card(state: GameState, action: Action) -> None:
    """Apply the holder's choice for the card being resolved, then go on with the battle."""
    battle = state.battle
    assert battle is not None
    seat = state.pending.seat
    effect = magic.EFFECTS[battle.choosing]
    battle.choosing = ""
    assert effect.apply is not None
    effect.apply(state, battle, seat, action)
    if battle.step == BattleStep.W3:
        _next_declaration(state)
    elif battle.step == BattleStep.EVADE:
        _after_evade(state)
    else:
        _next_effect(state)


def _reveal(state: GameState) -> None:
    """Step C (R16.10-R16.11): a defender's stop or evade first, else W1 effects in order."""
    battle = state.battle
    assert battle is not None
    attacker, defender = battle.attacker, battle.defender
    sink = state.sink
    if sink is not None:  # R16.5: the selected cards are revealed together
        for seat in (attacker, defender):
            if seat in battle.cards and not (battle.ranged and seat == attacker):
                sink.append(CardRevealed(seat, battle.holders.get(seat, seat),
                                         battle.cards[seat]))
    defence_card = battle.cards.get(defender)
    kind = magic.EFFECTS[defence_card].kind if defence_card else magic.EFFECT
    if kind in (magic.STOP, magic.EVADE):
        assert defence_card is not None
        returned = battle.cards.pop(attacker, None)  # R16.10: no effect, back to the hand
        if sink is not None and returned is not None:
            sink.append(CardReturned(battle.holders.get(attacker, attacker), returned, "R16.10"))
        holder = battle.holders.get(defender, defender)
        magic.spend(state, holder, defence_card)
        if kind == magic.STOP:  # R20.8: no dice, no deaths, nothing moves
            if sink is not None:
                names = state.world.names
                sink.append(BattleEnded(attacker, defender, names[battle.a_tile],
                                        names[battle.d_tile], "stopped", ()))
            _end_battle(state)
            return
        battle.step = BattleStep.EVADE
        if not _effect_with_choice(state, battle, holder, defence_card):
            _after_evade(state)
        return
    if battle.ranged:
        magic.spend(state, attacker, "LAU-1")
    battle.step = BattleStep.W1
    battle.effect_queue = [seat for seat in (attacker, defender)
                           if seat in battle.cards and magic.window(battle.cards[seat]) == "W1"
                           and magic.EFFECTS[battle.cards[seat]].kind != magic.VOLLEY]
    _next_effect(state)


def _after_evade(state: GameState) -> None:
    """R20.9: with no defender left the attacker wins without dice; else the battle goes on."""
    battle = state.battle
    assert battle is not None
    if state.board[battle.d_tile]:
        battle.step = BattleStep.W1
        _next_effect(state)
    else:
        _outcome(state, evaded=True)


def _next_effect(state: GameState) -> None:
    """Resolve the revealed W1 cards, attacker's first (R16.11), then fight."""
    battle = state.battle
    assert battle is not None
    while battle.effect_queue:
        leader = battle.effect_queue.pop(0)
        card = battle.cards[leader]
        holder = battle.holders.get(leader, leader)
        magic.spend(state, holder, card)
        if _effect_with_choice(state, battle, holder, card):
            return
    _fight(state)


def _fight(state: GameState) -> None:
    """Steps D-E: pools with the W2 effects, one roll of all dice, hits (R16.13-R16.21)."""
    battle = state.battle
    assert battle is not None
    a, d = battle.a_tile, battle.d_tile
    attacker, defender = battle.attacker, battle.defender
    attackers = attacking_units(state, battle)
    w2 = [seat for seat in (attacker, defender)
          if seat in battle.cards and magic.window(battle.cards[seat]) == "W2"]
    if not attackers or not state.board[d]:
        for seat in w2:  # R16.12: skipped; a W2 card goes back to its holder's hand
            card = battle.cards.pop(seat)
            if state.sink is not None:
                state.sink.append(CardReturned(battle.holders.get(seat, seat), card, "R16.12"))
        _after_casualties(state)
        return
    for seat in w2:
        card = battle.cards[seat]
        holder = battle.holders.get(seat, seat)
        magic.spend(state, holder, card)
        _effect_with_choice(state, battle, holder, card)
    battle.attack_units = tuple(attackers)
    terrain = state.world.terrain
    bonus_a, bonus_d = bonus_dice(terrain[a], terrain[d], state.fortified[d])
    d_units = state.board[d]
    battle.attack_dice = _pool(state, battle, attackers, True, terrain[a], d_units) + bonus_a
    battle.defence_dice = _pool(state, battle, d_units, False, terrain[d], d_units) + bonus_d
    roll = state.chance.roll
    battle.attack_rolls = [roll(size) for size in battle.attack_dice]  # R16.15
    battle.defence_rolls = [roll(size) for size in battle.defence_dice]
    drop = drops_lowest(state, d)
    hits_a, hits_d = compare(battle.attack_rolls, battle.defence_rolls, drop, state.scales)
    if state.sink is not None:
        _log_dice(state, battle, attackers, d_units, drop, hits_a, hits_d)
    battle.step = BattleStep.CASUALTIES
    if not state.teams:  # one player a side: hits capped by its units (R16.21)
        battle.hits = {attacker: min(hits_a, len(hit_candidates(state, battle, attacker))),
                       defender: min(hits_d, len(hit_candidates(state, battle, defender)))}
        battle.casualty_queue = [attacker, defender]  # R16.22: attacker first
        next_casualty(state)
        return
    battle.hits = {}
    battle.casualty_queue = []
    battle.split_queue = []
    for leader, hits in ((attacker, hits_a), (defender, hits_d)):  # R16.22: attacker first
        players = [p for p in side_players(state, battle, leader)
                   if hit_candidates(state, battle, p)]
        total = sum(len(hit_candidates(state, battle, p)) for p in players)
        hits = min(hits, total)  # R16.21
        if len(players) > 1 and 0 < hits < total:
            battle.hits[leader] = hits  # the leader shares them out first (R23.22)
            battle.split_queue.append(leader)
            continue
        for p in players:  # one player, or everyone loses all: no sharing to decide
            share = min(hits, len(hit_candidates(state, battle, p)))
            battle.hits[p] = battle.hits.get(p, 0) + share
            hits -= share
            battle.casualty_queue.append(p)
    _next_split(state)


def _log_dice(state: GameState, battle: Battle, attackers: list[UnitCode],
              d_units: tuple[UnitCode, ...], drop: bool, hits_a: int, hits_d: int) -> None:
    """The dice with their units and bonuses, then the pairs and the hits (R16.14-R16.21)."""
    assert state.sink is not None
    terrain = state.world.terrain
    a, d = battle.a_tile, battle.d_tile
    a_units = _die_units(state, battle, attackers, True, terrain[a], d_units)
    d_units_of = _die_units(state, battle, d_units, False, terrain[d], d_units)
    bonus_a, bonus_d = bonus_labels(state, a, d)
    attack = tuple(Die(size, face, unit, "") for size, face, unit in zip(
        battle.attack_dice, battle.attack_rolls, a_units, strict=False)) + tuple(
        Die(size, face, -1, bonus) for size, face, bonus in zip(
            battle.attack_dice[len(a_units):], battle.attack_rolls[len(a_units):], bonus_a,
            strict=True))
    defence = tuple(Die(size, face, unit, "") for size, face, unit in zip(
        battle.defence_dice, battle.defence_rolls, d_units_of, strict=False)) + tuple(
        Die(size, face, -1, bonus) for size, face, bonus in zip(
            battle.defence_dice[len(d_units_of):], battle.defence_rolls[len(d_units_of):],
            bonus_d, strict=True))
    pairs, dropped = pair_up(battle.attack_rolls, battle.defence_rolls, drop, state.scales)
    a_cap = sum(len(hit_candidates(state, battle, p))
                for p in side_players(state, battle, battle.attacker))
    d_cap = sum(len(hit_candidates(state, battle, p))
                for p in side_players(state, battle, battle.defender))
    state.sink.append(DiceRolled(battle.attacker, battle.defender, attack, defence))
    state.sink.append(PairsCompared(tuple(pairs), dropped, hits_a, hits_d, min(hits_a, a_cap),
                                    min(hits_d, d_cap)))


def bonus_labels(state: GameState, a_tile: int,
                 d_tile: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What gives each side its bonus dice, in the order of ``bonus_dice`` (section 15)."""
    terrain = state.world.terrain
    attack = ("forest",) if terrain[a_tile] == Terrain.FOREST else ()
    defence = (("mountain",) if terrain[d_tile] == Terrain.MOUNTAIN else ()) + (
        ("castle",) if state.fortified[d_tile] else ())
    return attack, defence


def _die_units(state: GameState, battle: Battle, units: Sequence[UnitCode], attacking: bool,
               terrain: Terrain, d_units: Sequence[UnitCode]) -> list[UnitCode]:
    """The unit of each die of a side's unit dice, in the order ``_pool`` builds them."""
    crown_d8 = not attacking and state.config.crown_defence_in_castle == "d8"
    wolf = state.config.wolf_d12
    out: list[UnitCode] = []
    for c in units:
        count = len(side_dice((c,), attacking, terrain, d_units, crown_d8, wolf,
                              _mods(battle, owner_of(c))))
        out += [c] * count
    return out


def _next_split(state: GameState) -> None:
    battle = state.battle
    assert battle is not None
    if battle.split_queue:
        state.pending = Pending(Decision.SPLIT, battle.split_queue[0])
        return
    order = {p: i for i, p in enumerate([(state.active + k) % state.n for k in range(state.n)])}
    attackers = [p for p in battle.casualty_queue if same_side(battle, p, battle.attacker)]
    defenders = [p for p in battle.casualty_queue if p not in attackers]
    battle.casualty_queue = (sorted(set(attackers), key=order.__getitem__)
                             + sorted(set(defenders), key=order.__getitem__))
    next_casualty(state)


def choose_split(state: GameState, shares: tuple[tuple[Seat, int], ...]) -> None:
    battle = state.battle
    assert battle is not None
    leader = battle.split_queue.pop(0)
    del battle.hits[leader]
    for seat, hits in shares:
        battle.hits[seat] = battle.hits.get(seat, 0) + hits
        battle.casualty_queue.append(seat)
    if state.sink is not None:
        state.sink.append(HitsShared(leader, shares))
    _next_split(state)


def _pool(state: GameState, battle: Battle, units: Sequence[UnitCode], attacking: bool,
          terrain: Terrain, d_units: Sequence[UnitCode]) -> list[int]:
    """A side's unit dice, each player's with that player's card effects (R20.15, R23.24);
    units sort by owner, so each player's units are one run."""
    crown_d8 = not attacking and state.config.crown_defence_in_castle == "d8"
    wolf = state.config.wolf_d12
    pool: list[int] = []
    start = 0
    while start < len(units):
        owner = units[start] >> OWNER_SHIFT
        end = start
        while end < len(units) and units[end] >> OWNER_SHIFT == owner:
            end += 1
        pool += side_dice(units[start:end], attacking, terrain, d_units, crown_d8, wolf,
                          _mods(battle, owner))
        start = end
    return pool


def _mods(battle: Battle, seat: Seat) -> Modifiers:
    if seat not in battle.shift and seat not in battle.d12_one and seat not in battle.d12_all:
        return NO_MODIFIERS
    return Modifiers(battle.d12_one.get(seat, ()), battle.d12_all.get(seat, ()),
                     battle.shift.get(seat, 0))


def next_casualty(state: GameState) -> None:
    """R16.22: each loser picks casualties; a choice is asked only if some unit survives."""
    battle = state.battle
    assert battle is not None
    while battle.casualty_queue:
        seat = battle.casualty_queue[0]
        tile = battle.a_tile if same_side(battle, seat, battle.attacker) else battle.d_tile
        left = battle.hits.get(seat, 0)
        mine = hit_candidates(state, battle, seat)
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
    _after_casualties(state)


def _after_casualties(state: GameState) -> None:
    battle = state.battle
    assert battle is not None
    battle.step = BattleStep.W3
    battle.magic_queue = [battle.attacker, battle.defender]  # R16.26
    _next_declaration(state)


def choose_casualty(state: GameState, c: UnitCode) -> None:
    battle = state.battle
    assert battle is not None
    seat = battle.casualty_queue[0]
    tile = battle.a_tile if same_side(battle, seat, battle.attacker) else battle.d_tile
    kill(state, battle, tile, c, other_side(battle, seat), chosen=True)
    battle.hits[seat] -= 1
    if battle.hits[seat] == 0:
        battle.casualty_queue.pop(0)
    next_casualty(state)


def other_side(battle: Battle, seat: Seat) -> Seat:
    """The leader of the side ``seat`` is not on (scalps and trophies go there, R23.25)."""
    return battle.defender if same_side(battle, seat, battle.attacker) else battle.attacker


def kill(state: GameState, battle: Battle, tile: int, c: UnitCode, killer: Seat,
         card: str = "", chosen: bool = False) -> None:
    """R16.25, R20.10: a killed unit leaves the board and is set aside until step G;
    ``card`` is the magic card that killed it, ``chosen`` whether its owner chose it."""
    ops.take_unit(state, tile, c)
    battle.set_aside.append((c, tile, killer))
    if state.sink is not None:
        state.sink.append(UnitKilled(owner_of(c), c, state.world.names[tile], killer, card,
                                     chosen))


def _outcome(state: GameState, evaded: bool = False) -> None:
    """Step G (R16.27-R16.30), elimination (section 18), end of game, invasion. ``evaded``:
    the defenders left D by a card (R20.9), so nobody lost the battle (R17.4)."""
    battle = state.battle
    assert battle is not None
    attacker_won = not state.board[battle.d_tile]  # R16.27
    fallen = [owner_of(c) for c, _, _ in battle.set_aside if type_of(c) == CROWN]
    if state.config.upgrade_loss == "losing_side" and not evaded:
        _losers_lose_upgrades(state, battle, attacker_won)
    if state.teams:
        _team_outcome(state, battle, attacker_won)
        return
    both_fell = len(fallen) > 1  # R18.9
    losses = tuple(c for c, _, _ in battle.set_aside)
    sink = state.sink
    for c, _tile, killer in battle.set_aside:  # R16.28
        t = type_of(c)
        if t == SPECIAL:
            ops.put_in_reserve(state, owner_of(c), plain(c))  # R14.7
            place, to = "reserve", owner_of(c)
        elif t == CROWN:
            if both_fell:
                state.removed.append(c)
                place, to = "removed", -1
            else:
                state.trophies[killer].append(c)  # R18.5
                place, to = "trophies", killer
        else:
            state.graveyard[killer].append(plain(c))  # R17.2
            place, to = "graveyard", killer
        if sink is not None:
            sink.append(FallenUnit(plain(c) if place == "graveyard" else c, place, to))
    battle.set_aside.clear()
    for seat in fallen:
        eliminate(state, seat, None if both_fell else other_side(battle, seat))
    _battle_ended(state, battle, attacker_won, losses)
    alive = state.alive()
    if fallen and len(alive) <= 1:  # R16.29 (2), R21.1, R21.6
        if alive:
            flow.game_over(state, Result("last_crown", alive[0], scores(state)))
        else:
            flow.game_over(state, Result("draw", None, scores(state)))
        return
    if state.eliminated[battle.attacker]:
        flow.end_turn(state)  # R6.4
        return
    _invade(state, battle, attacker_won)


def _losers_lose_upgrades(state: GameState, battle: Battle, attacker_won: bool) -> None:
    """R13.4, R17.4 (``upgrade_loss = losing_side``): the side that lost keeps no upgrade. The
    defender lost when the attacker won, and then no defending unit is left on D; the
    attacker lost when D still holds defenders: the units that fought from A flip back (with
    LAU-1 the attacker's Archers only, R16.13)."""
    if attacker_won:
        tile, leader = battle.d_tile, battle.defender
        fought = [c for c in state.board[tile] if same_side(battle, owner_of(c), leader)]
    else:
        tile, leader = battle.a_tile, battle.attacker
        fought = attacking_units(state, battle)
    flipped = tuple(c for c in fought if c & 1)
    if not flipped:
        return
    for c in flipped:
        ops.downgrade(state, tile, c)
    if state.sink is not None:
        state.sink.append(UpgradesLost(leader, state.world.names[tile], flipped))


def _battle_ended(state: GameState, battle: Battle, attacker_won: bool,
                  losses: tuple[UnitCode, ...]) -> None:
    if state.sink is not None:
        names = state.world.names
        state.sink.append(BattleEnded(battle.attacker, battle.defender, names[battle.a_tile],
                                      names[battle.d_tile],
                                      "attacker_won" if attacker_won else "defender_held",
                                      losses))


def _team_outcome(state: GameState, battle: Battle, attacker_won: bool) -> None:
    """R23.28-R23.32: nobody is eliminated; a fallen Crown is the killing side's trophy (its
    leader's, R23.25); a team whose every Crown has fallen loses at once, both at once draw."""
    losses = tuple(c for c, _, _ in battle.set_aside)
    sink = state.sink
    for c, _tile, killer in battle.set_aside:
        t = type_of(c)
        if t == SPECIAL:
            ops.put_in_reserve(state, owner_of(c), plain(c))  # R14.7, R23.30: never changes hands
            place, to = "reserve", owner_of(c)
        elif t == CROWN:
            state.trophies[killer].append(c)
            place, to = "trophies", killer
        else:
            state.graveyard[killer].append(plain(c))
            place, to = "graveyard", killer
        if sink is not None:
            sink.append(FallenUnit(plain(c) if place == "graveyard" else c, place, to))
    battle.set_aside.clear()
    _battle_ended(state, battle, attacker_won, losses)
    standing = {state.team[owner_of(c)] for units in state.board for c in units
                if type_of(c) == CROWN}
    if len(standing) < 2:
        if standing:
            flow.game_over(state, team_result(state, "last_crown", next(iter(standing))))
        else:  # R23.32: a draw, scored like every team result (team totals)
            flow.game_over(state, Result("draw", None, team_scores(state)))
        return
    _invade(state, battle, attacker_won)


def _invade(state: GameState, battle: Battle, attacker_won: bool) -> None:
    """R17.6-R17.7 (R23.26: the active player moves allies' units too)."""
    survivors = len(state.board[battle.a_tile])
    if attacker_won and survivors and not battle.ranged:  # R17.6; LAU-1 never invades
        capacity = state.world.capacity[battle.d_tile]
        if survivors <= capacity:
            _invade_with(state, battle, state.board[battle.a_tile])
        else:
            battle.invade_left = survivors - capacity
            battle.step = BattleStep.INVADE
            if len(set(state.board[battle.a_tile])) > 1:
                state.pending = Pending(Decision.INVASION, battle.attacker)
                return
            units = state.board[battle.a_tile]
            _invade_with(state, battle, tuple(units[:capacity]))
    _end_battle(state)


def _invade_with(state: GameState, battle: Battle, movers: tuple[UnitCode, ...]) -> None:
    """R17.6-R17.8: ``movers`` go from A into D; D changes hands."""
    a, d = battle.a_tile, battle.d_tile
    ops.move_units(state, a, d, movers)
    sink = state.sink
    if sink is None:
        return
    names = state.world.names
    sink.append(Moved(battle.attacker, names[a], names[d], movers, "invasion"))
    if state.board[a]:
        stayed = state.board[a]
        sink.append(LeftBehind(battle.attacker, names[a], stayed))
    sink.append(TileCaptured(battle.attacker, names[d], battle.defender,
                             state.world.terrain[d] == Terrain.CASTLE))


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
    _invade_with(state, battle, tuple(movers))
    _end_battle(state)


def _end_battle(state: GameState) -> None:
    """Step H (R16.31): the battle and the Action phase are over."""
    state.battle = None
    flow.next_phase(state)


def eliminate(state: GameState, seat: Seat, killer: Seat | None) -> None:
    """R18.1-R18.6, R18.9: remove the player; hand over specials and cards to the killer."""
    state.eliminated[seat] = True
    specials: list[UnitCode] = []  # as they now stand in the killer's reserve
    removed: list[UnitCode] = []
    for t, units in enumerate(state.board):
        for c in [u for u in units if owner_of(u) == seat]:
            if type_of(c) == SPECIAL and killer is not None:
                ops.take_unit(state, t, c)
                specials.append(with_owner(plain(c), killer))
                ops.put_in_reserve(state, killer, specials[-1])  # R18.4
            else:
                removed.append(c)
                ops.remove_from_game(state, t, c)  # R18.2
    for realm in state.reserve_specials[seat]:
        c = code(seat, realm, SPECIAL)
        if killer is not None:
            specials.append(with_owner(c, killer))
            ops.put_in_reserve(state, killer, specials[-1])
        else:
            state.removed.append(c)
    state.reserve_specials[seat] = []
    if killer is not None and specials:  # R18.4: placeable from the killer's next turn on
        state.specials_waiting[killer] = tuple(sorted(
            set(state.specials_waiting[killer]) | {realm_of(c) for c in specials}))
    state.specials_waiting[seat] = ()
    realm = state.realm[seat]
    for t, count in enumerate(state.reserve[seat]):
        state.removed.extend([code(seat, realm, t)] * count)
    state.reserve[seat] = [0] * len(state.reserve[seat])
    gold = state.gold[seat]
    state.gold[seat] = 0
    cards = state.hand[seat] + state.pool[seat]
    state.hand[seat] = []
    state.pool[seat] = []
    if killer is not None:
        state.buyable[killer] = sorted(state.buyable[killer] + cards)  # R18.6
    else:
        state.spent.extend(cards)
    state.removed.sort()
    if state.sink is not None:
        by = -1 if killer is None else killer
        state.sink.append(Eliminated(seat, by, tuple(specials),
                                     len(cards) if killer is not None else 0, tuple(removed),
                                     gold))
        if killer is not None and cards:
            state.sink.append(CardsOffered(killer, state.team[killer], tuple(sorted(cards)),
                                           seat))
