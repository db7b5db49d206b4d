"""Dice rules (RULES.md sections 13-15, R16.16-R16.20) through the pure functions of combat.py.

``unit_dice`` and ``special_d12`` are checked against the tables of R13.1 and R14.1 written out
here (not read from the engine's data file); ``attack_pool`` / ``defence_pool`` against small
named positions on the 2-player standard world (T1 Field, T2 Mountain, T3 Forest, T4 Field,
T5 Forest, T6 Mountain, T7 Field, castles C1 and C2); ``compare`` against hand-made rolls and
the rolls of EX1/EX2.
"""

from __future__ import annotations

import pytest

from kaladan.rules.combat import attack_pool, compare, defence_pool, special_d12, unit_dice
from kaladan.rules.units import (
    ARCHER,
    ARDINOR,
    CATAPULT,
    CROWN,
    GENERAL,
    KHALISIA,
    KIMBRIA,
    LAURIELLE,
    NANCHIA,
    REALMS,
    SHIELD,
    SPECIAL,
    SWORD,
    ZHOJIRA,
    code,
)
from kaladan.rules.world import Terrain
from positions import build

FIELD, FOREST, MOUNTAIN, CASTLE = Terrain.FIELD, Terrain.FOREST, Terrain.MOUNTAIN, Terrain.CASTLE
TERRAINS = (FIELD, FOREST, MOUNTAIN, CASTLE)
EITHER = "forest_either"  # R14.6 default
FROM_FOREST = "attack_from_forest"

# --- named positions ------------------------------------------------------------------------

# One Sword attacking from each kind of tile: T3 Forest, T4 Field, T6 Mountain, C2 castle.
# Every attacker faces a lone enemy Sword on an adjacent tile.
FROM_FOREST_T3 = {"T3": "0/sword", "T4": "1/sword"}
FROM_FIELD_T4 = {"T4": "0/sword", "T7": "1/sword"}
FROM_MOUNTAIN_T6 = {"T6": "0/sword", "T7": "1/sword"}
FROM_CASTLE_C2 = {"C2": "0/sword", "T1": "1/sword"}
# Three attackers on a Forest: the Forest D10 is added once, not once per unit (R15.1).
THREE_IN_FOREST = {"T3": "0/sword 0/archer 0/shield", "T4": "1/sword"}
# Defenders on each kind of tile.
HELD_MOUNTAIN = {"T6": "1/sword 1/archer"}
HELD_FOREST = {"T5": "1/sword 1/archer"}
HELD_FIELD = {"T7": "1/sword 1/archer"}
HELD_CASTLE = {"C1": "1/sword 1/archer"}
# Seat 0 holds seat 1's home castle C2 (upgraded by whoever held it before, R19.4).
CAPTURED_CASTLE = {"C2": "0/shield", "T1": "1/sword"}
# A Crown defending on a castle and on a Field (R13.3).
CROWN_ON_CASTLE = {"C2": "1/crown", "T1": "0/sword"}
CROWN_ON_FIELD = {"T1": "1/crown", "C2": "0/sword"}


def tile(state, name: str) -> int:
    return state.world.index(name)


# --- R13.1: the dice table ------------------------------------------------------------------

# unit type -> (attack, defence, upgraded attack, upgraded defence), copied from R13.1.
DICE_TABLE = {
    CROWN: ((6,), (6,), None, None),
    GENERAL: ((12,), (12,), (12, 10), (12, 10)),
    CATAPULT: ((10, 10), (6,), (12, 10), (8,)),
    ARCHER: ((10,), (6,), (12,), (8,)),
    SHIELD: ((6,), (10,), (8,), (12,)),
    SWORD: ((8,), (8,), (10,), (10,)),
}
ROWS = [
    pytest.param(t, attacking, up, id=f"{name}-{'attack' if attacking else 'defence'}"
                 f"{'-upgraded' if up else ''}")
    for t, name in ((CROWN, "crown"), (GENERAL, "general"), (CATAPULT, "catapult"),
                    (ARCHER, "archer"), (SHIELD, "shield"), (SWORD, "sword"))
    for up in (False, True) if not (t == CROWN and up)
    for attacking in (True, False)
]


@pytest.mark.parametrize(("utype", "attacking", "upgraded"), ROWS)
@pytest.mark.parametrize("terrain", (FIELD, FOREST))
def test_r13_1_dice_table(utype: int, attacking: bool, upgraded: bool, terrain: Terrain) -> None:
    """R13.1, R13.2: attack dice on the attacking side, defence dice on the defending side."""
    row = DICE_TABLE[utype]
    expected = row[(2 if upgraded else 0) + (0 if attacking else 1)]
    c = code(0, 0, utype, upgraded)
    assert unit_dice(c, attacking, terrain, [], False, EITHER) == expected


@pytest.mark.parametrize("attacking", (True, False))
def test_r13_1_plain_special_rolls_d10_when_its_condition_fails(attacking: bool) -> None:
    """R13.1, R14.1: a plain Sword of Khalis with no Crown on D rolls a D10 either way."""
    c = code(0, KHALISIA, SPECIAL)
    assert unit_dice(c, attacking, FIELD, [], False, EITHER) == (10,)


def test_r13_1_a_catapult_is_one_unit_with_two_dice_in_the_pool() -> None:
    """R1.6, R13.1: a Catapult adds D10 + D10 to an attack; one Archer adds one D10."""
    s = build({"T4": "0/catapult 0/archer", "T7": "1/sword"})
    assert sorted(attack_pool(s, tile(s, "T4"), tile(s, "T7"))) == [10, 10, 10]


# --- R13.3: crown_defence_in_castle ---------------------------------------------------------


def test_r13_3_default_crown_rolls_d6_defending_its_castle() -> None:
    """R13.3 (d6, default): the Crown rolls D6 even when it defends on a castle tile."""
    s = build(CROWN_ON_CASTLE)
    assert defence_pool(s, tile(s, "C2")) == [6]
    assert unit_dice(code(1, 0, CROWN), False, CASTLE, [], False, EITHER) == (6,)


def test_r13_3_d8_variant_crown_rolls_d8_defending_a_castle() -> None:
    """R13.3 (d8): the Crown rolls D8 while it defends on a castle tile."""
    s = build(CROWN_ON_CASTLE, crown_defence_in_castle="d8")
    assert defence_pool(s, tile(s, "C2")) == [8]


def test_r13_3_d8_variant_applies_on_any_castle_not_only_home() -> None:
    """R13.3 (d8): "any castle tile": seat 1's Crown defending seat 0's home C1 rolls D8."""
    s = build({"C1": "1/crown", "T7": "0/sword"}, crown_defence_in_castle="d8")
    assert defence_pool(s, tile(s, "C1")) == [8]


def test_r13_3_d8_variant_crown_rolls_d6_defending_a_field() -> None:
    """R13.3 (d8): D6 when the Crown defends anywhere but a castle."""
    s = build(CROWN_ON_FIELD, crown_defence_in_castle="d8")
    assert defence_pool(s, tile(s, "T1")) == [6]


def test_r13_3_d8_variant_crown_attacking_from_a_castle_rolls_d6() -> None:
    """R13.3 (d8): only a defending Crown gets the D8; attacking from a castle it rolls D6."""
    s = build({"C2": "0/crown", "T1": "1/sword"}, crown_defence_in_castle="d8")
    assert attack_pool(s, tile(s, "C2"), tile(s, "T1")) == [6]
    assert unit_dice(code(0, 0, CROWN), True, CASTLE, [], True, EITHER) == (6,)


# --- section 14: special units -----------------------------------------------------------------

# (realm, attacking, own terrain) -> D12? for the realms whose condition is terrain or side.
def _special_cases() -> list[object]:
    cases = []
    for terrain in TERRAINS:
        for attacking in (True, False):
            side = "attack" if attacking else "defend"
            expect = {
                KIMBRIA: terrain == FIELD,  # R14.1 Lion: battle tile a Field
                NANCHIA: terrain == MOUNTAIN,  # R14.1 Bear: battle tile a Mountain
                ARDINOR: not attacking,  # R14.1 Shield of Ardan: defending, anywhere
                ZHOJIRA: terrain == FOREST,  # R14.1, R14.6 forest_either
                LAURIELLE: attacking,  # R14.1 Bow: attacking, anywhere
            }
            for realm, d12 in expect.items():
                cases.append(pytest.param(realm, attacking, terrain, d12,
                                          id=f"{REALMS[realm]}-{side}-{terrain.name.lower()}"))
    return cases


@pytest.mark.parametrize(("realm", "attacking", "terrain", "d12"), _special_cases())
def test_r14_1_special_unit_d12_conditions(realm: int, attacking: bool, terrain: Terrain,
                                           d12: bool) -> None:
    """R14.1, R14.4, R14.6: D12 exactly when the realm's condition holds, else D10."""
    assert special_d12(realm, attacking, terrain, False, False, EITHER) is d12
    c = code(0, realm, SPECIAL)
    assert unit_dice(c, attacking, terrain, [], False, EITHER) == ((12,) if d12 else (10,))


@pytest.mark.parametrize("realm", (KIMBRIA, NANCHIA, ZHOJIRA))
@pytest.mark.parametrize("attacking", (True, False))
def test_r14_4_castle_is_not_a_terrain_for_lion_bear_wolf(realm: int, attacking: bool) -> None:
    """R14.4: a Lion, Bear or Wolf fighting from or on a castle rolls D10."""
    assert unit_dice(code(0, realm, SPECIAL), attacking, CASTLE, [], False, EITHER) == (10,)
    assert unit_dice(code(0, realm, SPECIAL), attacking, CASTLE, [], False, FROM_FOREST) == (10,)


def test_r14_2_lion_attacking_from_field_into_mountain_rolls_d12() -> None:
    """R14.2 example: the Lion attacking from a Field (T4) into a Mountain (T6) rolls D12."""
    s = build({"T4": "0/special:kimbria", "T6": "1/sword"})
    assert attack_pool(s, tile(s, "T4"), tile(s, "T6")) == [12]


def test_r14_2_lion_attacking_from_forest_into_field_rolls_d10() -> None:
    """R14.2 example: attacking from a Forest (T3) into a Field (T4) the Lion rolls D10."""
    s = build({"T3": "0/special:kimbria", "T4": "1/sword"})
    assert attack_pool(s, tile(s, "T3"), tile(s, "T4")) == [10, 10]  # Lion D10, Forest D10


def test_r14_2_bear_defending_mountain_attacked_from_field_rolls_d12() -> None:
    """R14.2: for a defender only its own tile counts: Bear on Mountain T6 vs a Field attacker."""
    s = build({"T6": "1/special:nanchia", "T4": "0/sword"}, realms=("khalisia", "nanchia"))
    assert defence_pool(s, tile(s, "T6")) == [12, 10]  # Bear D12, Mountain D10


def test_r14_2_bear_attacking_from_field_into_mountain_rolls_d10() -> None:
    """R14.2: the tile being attacked does not matter: Bear from Field T4 into Mountain T6."""
    s = build({"T4": "0/special:nanchia", "T6": "1/sword"}, realms=("nanchia", "kimbria"))
    assert attack_pool(s, tile(s, "T4"), tile(s, "T6")) == [10]


def test_r14_3_sword_of_khalis_defending_with_own_crown_rolls_d12() -> None:
    """R14.1, R14.3: it defends a tile on which its owner's Crown stands."""
    s = build({"C1": "0/crown 0/special", "T7": "1/sword"}, active=1)
    assert defence_pool(s, tile(s, "C1")) == [6, 12]


def test_r14_3_sword_of_khalis_defending_without_crown_rolls_d10() -> None:
    """R14.1: defending a tile without its owner's Crown: D10."""
    s = build({"C1": "0/crown", "T7": "0/special", "T4": "1/sword"}, active=1)
    assert defence_pool(s, tile(s, "T7")) == [10]


def test_r14_3_sword_of_khalis_attacking_enemy_crown_rolls_d12() -> None:
    """R14.1, R14.3: it attacks a tile on which an enemy Crown stands."""
    s = build({"T1": "0/special", "C2": "1/crown 1/sword"})
    assert attack_pool(s, tile(s, "T1"), tile(s, "C2")) == [12]


def test_r14_3_sword_of_khalis_attacking_without_enemy_crown_rolls_d10() -> None:
    """R14.1: attacking a tile with no enemy Crown: D10, even with its own Crown beside it."""
    s = build({"T1": "0/special 0/crown", "C2": "1/sword"})
    assert attack_pool(s, tile(s, "T1"), tile(s, "C2")) == [6, 10]


def test_r14_3_sword_of_khalis_uses_its_current_owner_crown() -> None:
    """R14.3, R18.4: after it changed hands, "its owner's Crown" is the new owner's Crown."""
    taken = code(1, KHALISIA, SPECIAL)  # a Sword of Khalis now owned by seat 1
    own_crown, old_crown = code(1, 0, CROWN), code(0, 0, CROWN)
    assert unit_dice(taken, False, FIELD, [own_crown, taken], False, EITHER) == (12,)
    assert unit_dice(taken, False, FIELD, [taken], False, EITHER) == (10,)
    # Attacking a tile with its former owner's Crown: that Crown is now an enemy Crown.
    assert unit_dice(taken, True, FIELD, [old_crown], False, EITHER) == (12,)
    assert special_d12(KHALISIA, False, FIELD, True, False, EITHER)
    assert not special_d12(KHALISIA, False, FIELD, False, True, EITHER)
    assert special_d12(KHALISIA, True, FIELD, False, True, EITHER)
    assert not special_d12(KHALISIA, True, FIELD, True, False, EITHER)


@pytest.mark.parametrize(("attacking", "terrain", "d12"), [
    (True, FOREST, True), (False, FOREST, False), (True, FIELD, False), (False, FIELD, False),
    (True, MOUNTAIN, False), (True, CASTLE, False),
])
def test_r14_6_wolf_attack_from_forest_variant(attacking: bool, terrain: Terrain,
                                               d12: bool) -> None:
    """R14.6 (attack_from_forest): the Wolf rolls D12 only when it attacks from a Forest."""
    assert special_d12(ZHOJIRA, attacking, terrain, False, False, FROM_FOREST) is d12
    c = code(0, ZHOJIRA, SPECIAL)
    assert unit_dice(c, attacking, terrain, [], False, FROM_FOREST) == ((12,) if d12 else (10,))


def test_r14_6_wolf_defending_forest_in_a_position() -> None:
    """R14.6: Wolf defending on Forest T5: D12 by default, D10 with attack_from_forest."""
    board = {"T5": "1/special:zhojira", "T4": "0/sword"}
    realms = ("khalisia", "zhojira")
    s = build(board, realms=realms)
    assert defence_pool(s, tile(s, "T5")) == [12]
    s = build(board, realms=realms, wolf_d12=FROM_FOREST)
    assert defence_pool(s, tile(s, "T5")) == [10]


@pytest.mark.parametrize("realm", range(6), ids=REALMS)
@pytest.mark.parametrize("attacking", (True, False))
@pytest.mark.parametrize("terrain", TERRAINS)
@pytest.mark.parametrize("wolf", (EITHER, FROM_FOREST))
def test_r14_1_upgraded_special_always_rolls_d12(realm: int, attacking: bool, terrain: Terrain,
                                                 wolf: str) -> None:
    """R14.1, R13.1: an upgraded special unit always rolls one D12."""
    assert unit_dice(code(0, realm, SPECIAL, True), attacking, terrain, [], False, wolf) == (12,)


# --- section 15: bonus dice ---------------------------------------------------------------------


def test_r15_3_forest_attacker_adds_one_d10_after_unit_dice() -> None:
    """R15.3, R16.14: attacking from a Forest adds one D10, after the units' dice."""
    s = build(FROM_FOREST_T3)
    assert attack_pool(s, tile(s, "T3"), tile(s, "T4")) == [8, 10]


def test_r15_1_forest_bonus_once_per_side_not_per_unit() -> None:
    """R15.1: three units on the Forest still add a single D10."""
    s = build(THREE_IN_FOREST)
    pool = attack_pool(s, tile(s, "T3"), tile(s, "T4"))
    # archer D10, shield D6, sword D8 (canonical order), then the one Forest D10
    assert pool == [10, 6, 8, 10]


@pytest.mark.parametrize(("board", "a", "d"), [
    pytest.param(FROM_FIELD_T4, "T4", "T7", id="field"),
    pytest.param(FROM_MOUNTAIN_T6, "T6", "T7", id="mountain"),
    pytest.param(FROM_CASTLE_C2, "C2", "T1", id="castle"),
])
def test_r15_2_no_attack_bonus_from_field_mountain_or_castle(board: dict[str, str], a: str,
                                                             d: str) -> None:
    """R15.2, R15.4, R15.5: only a Forest gives the attacking side a bonus die."""
    s = build(board)
    assert attack_pool(s, tile(s, a), tile(s, d)) == [8]


def test_r15_4_mountain_defender_adds_one_d10() -> None:
    """R15.4, R15.1: a side defending on a Mountain adds one D10, once, after the units."""
    s = build(HELD_MOUNTAIN)
    assert defence_pool(s, tile(s, "T6")) == [6, 8, 10]  # archer D6, sword D8, Mountain D10


@pytest.mark.parametrize(("board", "d"), [
    pytest.param(HELD_FOREST, "T5", id="forest"),
    pytest.param(HELD_FIELD, "T7", id="field"),
    pytest.param(HELD_CASTLE, "C1", id="castle"),
])
def test_r15_no_defence_bonus_on_forest_field_or_plain_castle(board: dict[str, str],
                                                              d: str) -> None:
    """R15.2, R15.3, R15.5, R19.1: no defence bonus on a Forest, a Field or a plain castle."""
    s = build(board)
    assert defence_pool(s, tile(s, d)) == [6, 8]


def test_r15_5_upgraded_castle_defender_adds_one_d8() -> None:
    """R15.5: an upgraded castle tile gives its defending side one D8."""
    s = build(HELD_CASTLE, fortified=["C1"])
    assert defence_pool(s, tile(s, "C1")) == [6, 8, 8]


def test_r19_4_upgraded_castle_d8_goes_to_whoever_holds_it() -> None:
    """R19.4, R11.11: seat 0 holds seat 1's upgraded home castle and gets the D8 defending it."""
    s = build(CAPTURED_CASTLE, active=1, fortified=["C2"])
    assert s.home[1] == tile(s, "C2")
    assert defence_pool(s, tile(s, "C2")) == [10, 8]


def test_r15_5_upgraded_castle_gives_attacker_nothing() -> None:
    """R15.5: the D8 is for the defended tile only; attacking out of it adds no die."""
    s = build(FROM_CASTLE_C2, fortified=["C2"])
    assert attack_pool(s, tile(s, "C2"), tile(s, "T1")) == [8]


# --- R16.16-R16.20: compare -----------------------------------------------------------------


def test_r16_17_results_sorted_high_to_low_before_pairing() -> None:
    """R16.17-R16.18: pairs by rank, not by roll order: 9v6 and 5v4 -> 2 defender hits."""
    assert compare([2, 9, 5], [6, 4], False, False) == (0, 2)


def test_r16_18_larger_pool_rest_ignored() -> None:
    """R16.18: only as many pairs as the smaller pool has dice."""
    assert compare([12, 12, 12, 12], [1], False, False) == (0, 1)
    assert compare([1], [12, 12, 12], False, False) == (1, 0)


def test_r16_19_tie_gives_no_hit() -> None:
    """R16.19: a tied pair gives no hit to either side."""
    assert compare([5, 5, 3], [5, 5, 3], False, False) == (0, 0)


def test_r16_20_lower_result_takes_the_hit() -> None:
    """R16.19-R16.20: attacker's hits are pairs the defender won and vice versa."""
    assert compare([10, 3], [4, 7], False, False) == (1, 1)
    assert compare([3], [4], False, False) == (1, 0)
    assert compare([4], [3], False, False) == (0, 1)


def test_r16_19_scales_of_equality_tie_hits_the_defender() -> None:
    """R16.19, EG2: under Scales of Equality every tied pair is a hit on the defending side."""
    assert compare([5, 5, 3], [5, 5, 3], False, True) == (0, 3)
    assert compare([5, 2], [5, 4], False, True) == (1, 1)


def test_r16_16_drop_lowest_removes_exactly_one_die_of_several_lowest() -> None:
    """R16.16, R15.4: one die is removed, even when several share the lowest value."""
    # After dropping one 2 the defence is 9, 2: 3v9 (attacker hit), 3v2 (defender hit).
    assert compare([3, 3, 3], [2, 9, 2], True, False) == (1, 1)
    assert compare([3, 3, 3], [2, 9, 2], False, False) == (1, 2)


def test_r16_16_drop_lowest_never_touches_the_attacker() -> None:
    """R16.16: only the defending side drops a die."""
    assert compare([1, 9], [5, 5], True, False) == (0, 1)


def test_ex1_rolls_compare() -> None:
    """EX1 (R16.17-R16.20): 9v12, 9v9, 7v2 -> one hit each; the attacker's 2 and 1 unpaired."""
    assert compare([7, 9, 9, 1, 2], [12, 9, 2], False, False) == (1, 1)


def test_ex2a_drop_lowest_compare() -> None:
    """EX2 (a), R16.16: the defender drops its 2; 9v12 and 9v9: the attacker takes one hit."""
    assert compare([7, 9, 9, 1, 2], [12, 9, 2], True, False) == (1, 0)


def test_ex2b_scales_compare() -> None:
    """EX2 (b), R16.19: the tie 9v9 now hits the defender: 1 hit on A, 2 on D."""
    assert compare([7, 9, 9, 1, 2], [12, 9, 2], False, True) == (1, 2)
