"""Battles through the checked Game facade with forced dice (RULES.md sections 16-19).

Dice are forced in pool order: the attacker's units in the tile's canonical order (Crown,
General, Catapult, Archer, Shield, Sword, special; plain before upgraded), then the Forest D10;
then the defender's units, then the Mountain D10 and the upgraded-castle D8. A forced die that
the engine does not roll makes ``Game.play`` fail, so every test also checks the pool sizes.

2-player standard world: T1 Field, T2 Mountain, T3 Forest, T4 Field, T5 Forest, T6 Mountain,
T7 Field; C1 (seat 0's home) next to T5 and T7, C2 (seat 1's home) next to T1 and T3.
3-player standard world: T1 Field, T2 Forest, T3 Forest, T4 Mountain, T5 Field, T6 Field,
T7 Forest; C1 (seat 0) next to T1 and T2, C2 (seat 1) next to T5 and T7, C3 (seat 2) next to
T3 and T6. Realms by seat: Khalisia, Kimbria, Nanchia. Hands are empty, so no magic is declared.
"""

from __future__ import annotations

from collections import Counter

import pytest

from kaladan.game import Game
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.state import Decision, Phase
from kaladan.rules.units import KHALISIA, KIMBRIA, NANCHIA, UnitType, type_of
from positions import build, game_at, on, options_of, pass_turn, pending, refs

# --- named positions (2 players unless the name says 3P) ------------------------------------

# EX1: General, Catapult, Sword on Forest T3 attack upgraded Shield + Shield on Mountain T6.
EX1 = {"C1": "0/crown", "T3": "0/general 0/catapult 0/sword",
       "T6": "1/shield+ 1/shield", "C2": "1/crown"}
# Attacker dice: General D12=7, Catapult D10 9 9, Sword D8 2, Forest D10 1;
# defender dice: Shield D10 9, Shield+ D12 12, Mountain D10 2.
EX1_DICE = [7, 9, 9, 2, 1, 9, 12, 2]
# EX4: four units on Field T4 attack a Sword on Mountain T6 (capacity 3).
EX4_FOUR = {"C1": "0/crown", "T4": "0/general 0/archer 0/shield 0/sword",
            "T6": "1/sword", "C2": "1/crown"}
EX4_FOUR_DICE = [12, 10, 6, 8, 1, 1]  # General, Archer, Shield, Sword; Sword, Mountain
# EX4: three units on Mountain T6 attack a Sword on Field T7 (capacity 4).
EX4_THREE = {"C1": "0/crown", "T6": "0/archer 0/shield 0/sword", "T7": "1/sword",
             "C2": "1/crown"}
# EX5: a lone Catapult on Forest T3 attacks three Swords on Field T4.
EX5 = {"C1": "0/crown", "T3": "0/catapult", "T4": "1/sword 1/sword 1/sword", "C2": "1/crown"}
# EX6: Crown, Shield and Archer on their castle C2, attacked from Field T1.
EX6 = {"C1": "0/crown", "T1": "0/general 0/sword 0/sword", "C2": "1/crown 1/shield 1/archer"}
# Defender dice order: Crown D6, Archer D6, Shield D10.
# R16.1: seat 0 on T4, T7, C1; seat 1 on T2, T6 (both next to T4) and C2 (not next to T4).
FRONT = {"C1": "0/crown", "T4": "0/sword", "T7": "0/archer",
         "T2": "1/sword", "T6": "1/shield", "C2": "1/crown"}
# R16.24: the defender's only other units are two Shields: no choice is asked.
CROWN_AND_TWO_SHIELDS = {"C1": "0/crown", "T1": "0/general 0/sword 0/sword",
                         "C2": "1/crown 1/shield 1/shield"}
# R16.23 attacking side: Crown, Sword, Archer on Field T1 attack three Shields on C2.
ATTACKING_CROWN = {"T1": "0/crown 0/sword 0/archer", "C2": "1/shield 1/shield 1/shield",
                   "T6": "1/crown"}
# R16.28 / R14.7: special units that die go back to their owner's reserve.
LION_DEFENDS = {"C1": "0/crown", "T4": "0/sword 0/sword", "T7": "1/special:kimbria+",
                "C2": "1/crown"}
SWORD_OF_KHALIS_ATTACKS = {"C1": "0/crown", "T4": "0/special+ 0/sword",
                           "T7": "1/shield 1/shield", "C2": "1/crown"}
# R16.30: a Sword on Forest T3 against a Sword on Mountain T6: both can be wiped out.
LONE_SWORDS = {"C1": "0/crown", "T3": "0/sword", "T6": "1/sword", "C2": "1/crown"}
# R17.4: upgraded attackers on Field T4 against an upgraded Shield on Mountain T6.
UPGRADED = {"C1": "0/crown", "T4": "0/archer+ 0/sword+", "T6": "1/shield+", "C2": "1/crown"}
# R17.6: five units on castle C2 win against Forest T3 (capacity 3): two must stay.
FIVE_FROM_CASTLE = {"C2": "0/crown 0/general 0/archer 0/shield 0/sword", "T3": "1/sword",
                    "C1": "1/crown"}
# R17.10: two Swords on T4 attack three Swords on Field T7.
HOLDS = {"C1": "0/crown", "T4": "0/sword 0/sword", "T7": "1/sword 1/sword 1/sword",
         "C2": "1/crown"}
# R15.4: two Swords on T4 attack two Swords on Field T7.
TWO_ON_FIELD = {"C1": "0/crown", "T4": "0/sword 0/sword", "T7": "1/sword 1/sword",
                "C2": "1/crown"}
# R17.8, R19.2: a Sword on T1 takes seat 1's home castle C2; seat 1's Crown is on T6.
TAKE_CASTLE = {"C1": "0/crown", "T1": "0/sword", "C2": "1/shield", "T6": "1/crown"}
# R19.1: four units on Field T1 take castle C2: all four fit.
FOUR_INTO_CASTLE = {"C1": "0/crown", "T1": "0/sword 0/sword 0/archer 0/shield",
                    "C2": "1/sword", "T6": "1/crown"}
# R19.4: seat 0 holds seat 1's upgraded home C2; seat 1 attacks it from T1.
RETAKE_CASTLE = {"C1": "0/crown", "C2": "0/shield", "T1": "1/sword 1/sword", "T6": "1/crown"}
# Section 18, 3 players: seat 1's Crown alone on its home C2, attacked from Field T5;
# seat 1 also has an upgraded Archer and its upgraded Lion on Forest T7.
CROWN_AT_HOME_3P = {"C1": "0/crown", "T5": "0/sword 0/sword", "C2": "1/crown",
                    "T7": "1/archer+ 1/special:kimbria+", "C3": "2/crown"}
# 3 players: seat 1's Crown alone on Forest T7, its Sword on its home castle C2.
CROWN_AWAY_3P = {"C1": "0/crown", "T5": "0/sword 0/sword", "T7": "1/crown", "C2": "1/sword",
                 "C3": "2/crown"}
# 3 players, seat 1 active: Crown + Sword attack out of its home C2 into Field T5.
CROWN_ATTACKS_FROM_HOME_3P = {"C1": "0/crown", "T5": "0/shield 0/shield",
                              "C2": "1/crown 1/sword", "C3": "2/crown"}
# R18.9: two lone Crowns, Forest T3 (seat 0) against Mountain T6 (seat 1).
CROWNS_CLASH = {"T3": "0/crown", "T6": "1/crown"}
CROWNS_CLASH_DICE = [6, 2, 3, 5]  # 6v5 hit on D, 2v3 hit on A
# 3 players: the same clash on Forest T2 against Mountain T4; seat 2 looks on.
CROWNS_CLASH_3P = {"T2": "0/crown", "T4": "1/crown", "C3": "2/crown"}


# --- helpers -------------------------------------------------------------------------------


def at(board: dict[str, str], players: int = 2, **options: object) -> Game:
    """The checked game at ``board``, seat 0 in its Action phase unless told, hands empty."""
    options.setdefault("hands", [[] for _ in range(players)])
    return game_at(build(board, players=players, **options))  # type: ignore[arg-type]


def index(g: Game, name: str) -> int:
    return g.state.world.index(name)


# --- worked examples ---------------------------------------------------------------------------


def test_ex1_one_hit_each_defender_holds_scalps_cross_over() -> None:
    """EX1, R16.22, R16.27, R17.2, R17.10: one hit each; the defender holds; one scalp each."""
    g = at(EX1, gold=[3, 0])
    g.play("attack T3 T6", dice=EX1_DICE)
    step = g.steps[-1]
    assert step.chance == tuple(EX1_DICE)
    assert pending(g) == (Decision.CASUALTY, 0)  # R16.22: the attacker chooses first
    battle = g.state.battle
    assert battle is not None  # R16.22: both sides choose knowing all dice
    assert battle.attack_dice == [12, 10, 10, 8, 10]
    assert battle.defence_dice == [10, 12, 10]
    assert battle.attack_rolls == [7, 9, 9, 2, 1]
    assert battle.defence_rolls == [9, 12, 2]
    assert options_of(g, "casualty") == ["casualty general", "casualty catapult", "casualty sword"]
    g.play("casualty sword")
    assert pending(g) == (Decision.CASUALTY, 1)  # then the defender
    assert options_of(g, "casualty") == ["casualty shield", "casualty shield+"]
    g.play("casualty shield")
    assert on(g, "T6") == ["1/shield+"]  # R16.27: a defender is left, D is held
    assert on(g, "T3") == ["0/catapult", "0/general"]  # R17.10: nobody moves
    assert refs(g.state.graveyard[1]) == ["0/sword"]  # R17.2: the defender killed the Sword
    assert refs(g.state.graveyard[0]) == ["1/shield"]
    assert g.state.phase == Phase.PURCHASE  # R16.31


def test_ex2a_drop_lowest_attacker_takes_the_only_hit() -> None:
    """EX2 (a), R15.4, R16.16: the defender drops its 2; the attacker loses one unit only."""
    g = at(EX1, mountain_defence="drop_lowest", gold=[3, 0])
    g.play("attack T3 T6", dice=EX1_DICE)
    assert pending(g) == (Decision.CASUALTY, 0)
    g.play("casualty catapult")
    assert on(g, "T6") == ["1/shield", "1/shield+"]
    assert on(g, "T3") == ["0/general", "0/sword"]
    assert refs(g.state.graveyard[1]) == ["0/catapult"]
    assert g.state.graveyard[0] == []
    assert g.state.phase == Phase.PURCHASE


def test_ex2b_scales_tie_hits_defender_two_survivors_invade_forest_left_empty() -> None:
    """EX2 (b), R16.19, R17.6-R17.7: both Shields die; the 2 survivors move onto the Mountain."""
    state = build(EX1, hands=[[], []], gold=[3, 0])
    state.scales = True
    g = game_at(state)
    g.play("attack T3 T6", dice=EX1_DICE)
    assert pending(g) == (Decision.CASUALTY, 0)
    g.play("casualty sword")
    # The defender has 2 hits on 2 units: no choice to make, both die.
    assert on(g, "T6") == ["0/catapult", "0/general"]
    assert on(g, "T3") == []
    assert refs(g.state.graveyard[0]) == ["1/shield", "1/shield"]  # R17.2, R17.4 unupgraded
    assert refs(g.state.graveyard[1]) == ["0/sword"]


@pytest.mark.parametrize("stays", ["general", "archer", "shield", "sword"])
def test_ex4_four_win_against_mountain_three_move_attacker_chooses_who_stays(stays: str) -> None:
    """EX4, R17.6, R17.9: min(4, 3) = 3 move in; the active player picks the one that stays."""
    g = at(EX4_FOUR)
    g.play("attack T4 T6", dice=EX4_FOUR_DICE)
    assert pending(g) == (Decision.INVASION, 0)
    assert options_of(g, "leave") == ["leave general", "leave archer", "leave shield",
                                      "leave sword"]
    g.play(f"leave {stays}")
    assert on(g, "T4") == [f"0/{stays}"]
    movers = {"general", "archer", "shield", "sword"} - {stays}
    assert on(g, "T6") == sorted(f"0/{u}" for u in movers)
    assert refs(g.state.graveyard[0]) == ["1/sword"]


def test_ex4_three_from_mountain_into_field_all_move() -> None:
    """EX4, R17.6-R17.7: three units attacking a Field (capacity 4) all move; A is empty."""
    g = at(EX4_THREE, gold=[1, 0])
    g.play("attack T6 T7", dice=[10, 6, 8, 1])  # Archer, Shield, Sword; Sword (no bonus)
    assert on(g, "T7") == ["0/archer", "0/shield", "0/sword"]
    assert on(g, "T6") == []
    assert g.state.phase == Phase.PURCHASE


def test_ex5_hits_beyond_units_are_ignored() -> None:
    """EX5, R16.21: 3 hits on a lone Catapult: it dies, the other two hits are ignored."""
    g = at(EX5)
    g.play("attack T3 T4", dice=[6, 4, 3, 8, 7, 5])  # Catapult D10 D10, Forest D10; 3 Swords
    assert on(g, "T3") == []
    assert on(g, "C1") == ["0/crown"]  # hits never spill onto another tile
    assert on(g, "T4") == ["1/sword", "1/sword", "1/sword"]
    assert refs(g.state.graveyard[1]) == ["0/catapult"]
    assert not g.state.eliminated[0]


def test_ex6_two_hits_crown_survives_and_holds() -> None:
    """EX6, R16.23: with 2 hits the Shield and the Archer die; the Crown holds its castle."""
    g = at(EX6)
    # Attacker General 12, Sword 8, Sword 1; defender Crown 1, Archer 2, Shield 10:
    # 12v10, 8v2 hit D; 1v1 tie.
    g.play("attack T1 C2", dice=[12, 8, 1, 1, 2, 10])
    assert pending(g) == (Decision.CASUALTY, 1)
    assert options_of(g, "casualty") == ["casualty archer", "casualty shield"]  # no Crown
    g.play("casualty archer")
    assert on(g, "C2") == ["1/crown"]
    assert on(g, "T1") == ["0/general", "0/sword", "0/sword"]
    assert refs(g.state.graveyard[0]) == ["1/archer", "1/shield"]
    assert not g.state.eliminated[1]
    assert not g.is_over


def test_ex6_three_hits_all_die_defender_eliminated() -> None:
    """EX6, R16.23, R18.1, R18.5, R18.8: 3 hits kill all three; the last Crown wins at once."""
    g = at(EX6)
    g.play("attack T1 C2", dice=[12, 8, 8, 1, 1, 9])
    assert g.state.eliminated[1]
    assert g.is_over
    assert g.state.result is not None
    assert g.state.result.end == "last_crown"
    assert g.state.result.winner == 0
    assert g.state.pending.kind == Decision.NONE
    assert refs(g.state.trophies[0]) == ["1/crown"]  # R18.5: a trophy, not a scalp
    assert refs(g.state.graveyard[0]) == ["1/archer", "1/shield"]
    # R16.29: the game ends before any invasion.
    assert on(g, "C2") == []
    assert on(g, "T1") == ["0/general", "0/sword", "0/sword"]


# --- section 16 -------------------------------------------------------------------------------


def test_r16_1_attacks_only_from_own_tile_to_adjacent_enemy_tile() -> None:
    """R16.1, R10.9: every own tile against every adjacent enemy tile, nothing else."""
    g = at(FRONT)
    assert sorted(options_of(g, "attack")) == ["attack T4 T2", "attack T4 T6", "attack T7 T6"]


@pytest.mark.parametrize("text", [
    "attack T4 C2",  # not adjacent
    "attack T4 T7",  # own tile
    "attack T4 T1",  # empty tile
    "attack T1 T2",  # no unit on A
    "attack T2 T4",  # an enemy tile as A
])
def test_r16_1_other_attacks_are_refused_with_the_rule(text: str) -> None:
    """R16.1: a refused attack names R16.1 and changes nothing."""
    g = at(FRONT)
    before = g.position()
    with pytest.raises(IllegalActionError) as err:
        g.play(text)
    assert err.value.rule == "R16.1"
    assert g.position() == before


def test_r16_2_one_battle_per_turn_then_purchase() -> None:
    """R16.2, R16.31: after the battle the Action phase is over; no second attack."""
    g = at(HOLDS, gold=[1, 0])
    g.play("attack T4 T7", dice=[8, 1, 1, 1, 1])
    assert g.state.phase == Phase.PURCHASE
    assert pending(g) == (Decision.PURCHASE, 0)
    assert options_of(g, "attack") == []
    g.play("end")
    assert g.state.phase == Phase.REINFORCE
    assert options_of(g, "attack") == []


def test_r16_23_attacking_crown_is_never_offered_while_others_remain() -> None:
    """R16.23: the attacking side's Crown is offered only when it is the last unit."""
    g = at(ATTACKING_CROWN)
    # Attacker Crown 1, Archer 1, Sword 1; defender Shields 9, 9, 9: three hits on A.
    g.play("attack T1 C2", dice=[1, 1, 1, 9, 9, 9])
    # 3 hits on 3 units: all three die, no choice; the Crown falls with them.
    assert on(g, "T1") == []
    assert g.state.eliminated[0]
    g = at(ATTACKING_CROWN)
    # Crown 1, Archer 9, Sword 1 against 9, 9, 9: a tie and two hits on A.
    g.play("attack T1 C2", dice=[1, 9, 1, 9, 9, 9])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert options_of(g, "casualty") == ["casualty archer", "casualty sword"]
    g.play("casualty sword")
    assert on(g, "T1") == ["0/crown"]  # the Archer died as the second hit, not the Crown
    assert not g.state.eliminated[0]


def test_r16_24_forced_choice_uses_default_order_crown_last() -> None:
    """R16.24, R16.23: 2 hits, the only other units are two Shields: they die, no question."""
    g = at(CROWN_AND_TWO_SHIELDS, gold=[1, 0])
    g.play("attack T1 C2", dice=[12, 8, 1, 1, 2, 10])  # 12v10, 8v2 hit D; 1v1 tie
    assert on(g, "C2") == ["1/crown"]
    assert refs(g.state.graveyard[0]) == ["1/shield", "1/shield"]
    assert g.state.phase == Phase.PURCHASE


def test_r16_28_special_unit_killed_returns_to_owner_reserve_no_scalp() -> None:
    """R16.28, R14.7, R17.5: the dead upgraded Lion goes to seat 1's reserve, no scalp."""
    g = at(LION_DEFENDS)
    assert g.state.reserve_specials[1] == []
    g.play("attack T4 T7", dice=[8, 8, 1])  # two Swords; the Lion+ rolls D12
    assert g.state.reserve_specials[1] == [KIMBRIA]
    assert g.state.graveyard[0] == []
    assert on(g, "T7") == ["0/sword", "0/sword"]
    assert all(type_of(c) != UnitType.SPECIAL for c in g.state.removed)


def test_r14_7_own_dead_special_can_be_bought_back_same_turn() -> None:
    """R16.28, R14.7: the dead upgraded special is back in reserve and is bought back plain."""
    g = at(SWORD_OF_KHALIS_ATTACKS, gold=[2, 0])
    g.play("attack T4 T7", dice=[8, 1, 9, 1])  # Sword 8, special+ 1; Shields 9, 1: 8v9, 1v1
    assert pending(g) == (Decision.CASUALTY, 0)
    g.play("casualty special+")
    assert g.state.reserve_specials[0] == [KHALISIA]
    assert g.state.graveyard[1] == []
    assert "buy special:khalisia T4" in g.legal_texts()
    g.play("buy special:khalisia T4")
    assert on(g, "T4") == ["0/special:khalisia", "0/sword"]
    assert g.state.gold[0] == 0


def test_r15_4_drop_lowest_only_on_a_mountain() -> None:
    """R15.4, R16.16: with drop_lowest a defender on a Field keeps all its dice."""
    g = at(TWO_ON_FIELD, mountain_defence="drop_lowest")
    g.play("attack T4 T7", dice=[5, 5, 6, 1])  # 5v6 hit A, 5v1 hit D: the 1 is not dropped
    assert on(g, "T4") == ["0/sword"]
    assert on(g, "T7") == ["1/sword"]


def test_r16_30_both_sides_wiped_nobody_invades() -> None:
    """R16.30: both lose everything; the attacker has won, but D and A both stay empty."""
    g = at(LONE_SWORDS)
    g.play("attack T3 T6", dice=[8, 2, 1, 9])  # Sword 8, Forest 2; Sword 1, Mountain 9
    assert on(g, "T3") == []
    assert on(g, "T6") == []
    assert refs(g.state.graveyard[0]) == ["1/sword"]
    assert refs(g.state.graveyard[1]) == ["0/sword"]
    assert not g.state.eliminated[0] and not g.state.eliminated[1]


# --- section 17 -------------------------------------------------------------------------------


def test_r17_4_survivors_keep_upgrades_dead_enter_graveyards_plain() -> None:
    """R17.4, R17.2, R13.4: the surviving Archer+ invades still upgraded; the dead are plain."""
    g = at(UPGRADED)
    # Archer+ D12 12, Sword+ D10 2; Shield+ D12 11, Mountain 5: 12v11 hit D, 2v5 hit A.
    g.play("attack T4 T6", dice=[12, 2, 11, 5])
    assert options_of(g, "casualty") == ["casualty archer+", "casualty sword+"]
    g.play("casualty sword+")
    assert on(g, "T6") == ["0/archer+"]
    assert on(g, "T4") == []
    assert refs(g.state.graveyard[1]) == ["0/sword"]
    assert refs(g.state.graveyard[0]) == ["1/shield"]


def test_r17_4_losing_defender_survivor_keeps_upgrade() -> None:
    """R17.4: units that survive keep their upgrade even on the side that lost units."""
    g = at(EX1)
    g.play("attack T3 T6", dice=EX1_DICE)
    g.play("casualty general")
    g.play("casualty shield")
    assert on(g, "T6") == ["1/shield+"]
    assert refs(g.state.graveyard[1]) == ["0/general"]


def test_r17_6_exactly_capacity_invade_two_stay_crown_may_invade() -> None:
    """R17.6-R17.7: five winners, Forest holds 3: two chosen units stay, the Crown goes in."""
    g = at(FIVE_FROM_CASTLE)
    g.play("attack C2 T3", dice=[1, 12, 1, 1, 1, 1])  # Crown, General, Archer, Shield, Sword
    assert pending(g) == (Decision.INVASION, 0)
    assert "leave crown" in g.legal_texts()
    g.play("leave general")
    assert pending(g) == (Decision.INVASION, 0)
    assert "leave general" not in g.legal_texts()
    g.play("leave sword")
    assert on(g, "T3") == ["0/archer", "0/crown", "0/shield"]
    assert on(g, "C2") == ["0/general", "0/sword"]
    assert g.state.phase == Phase.REINFORCE  # gold 0: Purchase had nothing to offer


def test_r17_6_attacker_may_send_crown_or_keep_it_back() -> None:
    """R17.6: the Crown may be among the movers, or the unit that stays."""
    g = at(EX4_FOUR | {"T4": "0/crown 0/archer 0/shield 0/sword", "C1": ""})
    g.play("attack T4 T6", dice=[1, 10, 6, 8, 1, 1])  # Crown, Archer, Shield, Sword
    g.play("leave crown")
    assert on(g, "T4") == ["0/crown"]
    assert on(g, "T6") == ["0/archer", "0/shield", "0/sword"]


def test_r17_10_defender_holds_nothing_moves() -> None:
    """R17.10: only the dead leave; both sides' survivors stay on their tiles."""
    g = at(HOLDS)
    g.play("attack T4 T7", dice=[8, 1, 1, 1, 1])  # 8v1 hit D, 1v1 tie
    assert on(g, "T4") == ["0/sword", "0/sword"]
    assert on(g, "T7") == ["1/sword", "1/sword"]


def test_r17_8_captured_castle_spawns_and_pays_next_turn() -> None:
    """R17.8, R19.2, R19.3: the taken castle C2 gives a spawn and 1 gold in the next turn."""
    g = at(TAKE_CASTLE)
    g.play("attack T1 C2", dice=[8, 1])
    assert on(g, "C2") == ["0/sword"]
    assert on(g, "T1") == []
    assert g.state.controlled(0) == [index(g, "C1"), index(g, "C2")]
    pass_turn(g)
    assert g.state.active == 1
    pass_turn(g)
    assert g.state.active == 0
    assert pending(g) == (Decision.SPAWN, 0)
    assert "spawn sword C2" in g.legal_texts()
    assert "spawn sword C1" in g.legal_texts()
    gold = g.state.gold[0]
    g.play("end")
    assert g.state.phase == Phase.ACTION
    assert g.state.gold[0] == gold + 2  # two castles, no other tile (R9.1)


# --- section 18 -------------------------------------------------------------------------------


def test_r18_2_elimination_removes_units_reserve_and_gold() -> None:
    """R18.1-R18.2, R18.7: the units and reserve leave the game; gold 0; graveyard stays."""
    g = at(CROWN_AT_HOME_3P, players=3, gold=[0, 7, 0], graveyards=[[], ["0/shield"], []])
    g.play("attack T5 C2", dice=[8, 8, 1])
    s = g.state
    assert s.eliminated[1] and not s.eliminated[0] and not s.eliminated[2]
    assert not g.is_over
    assert all(c >> 7 != 1 for units in s.board for c in units)
    assert s.gold[1] == 0
    assert sum(s.reserve[1]) == 0 and s.reserve_specials[1] == []
    removed = Counter(UnitType(type_of(c)).label for c in s.removed if c >> 7 == 1)
    assert removed == Counter(general=1, catapult=2, sword=4, archer=4, shield=4)
    assert refs(s.graveyard[1]) == ["0/shield"]  # R18.7
    assert s.graveyard[0] == []  # R17.3: units removed at elimination are nobody's scalps
    assert refs(s.trophies[0]) == ["1/crown"]  # R18.5


def test_r18_3_crown_fell_defending_home_castle_attacker_invades_it() -> None:
    """R18.3, R16.29: the killer's mandatory invasion takes the home castle."""
    g = at(CROWN_AT_HOME_3P, players=3)
    g.play("attack T5 C2", dice=[8, 8, 1])
    assert on(g, "C2") == ["0/sword", "0/sword"]
    assert on(g, "T5") == []
    assert on(g, "T7") == []  # seat 1's other units are gone (R18.2)


def test_r18_3_crown_fell_elsewhere_home_castle_becomes_empty() -> None:
    """R18.3: the Crown falls on Forest T7; the home castle C2 is left empty, upgrade stays."""
    g = at(CROWN_AWAY_3P, players=3, fortified=["C2"])
    g.play("attack T5 T7", dice=[8, 8, 1])
    assert g.state.eliminated[1]
    assert on(g, "T7") == ["0/sword", "0/sword"]
    assert on(g, "C2") == []
    assert g.state.fortified[index(g, "C2")]  # R11.11, R18.3


def test_r18_3_r6_4_crown_fell_attacking_from_home_castle_turn_passes() -> None:
    """R18.3, R6.4, R6.1: attacking from C2 the Crown falls: C2 empty, seat 2 plays next."""
    g = at(CROWN_ATTACKS_FROM_HOME_3P, players=3, active=1, fortified=["C2"])
    g.play("attack C2 T5", dice=[1, 1, 9, 9])  # Crown 1, Sword 1; Shields 9, 9
    s = g.state
    assert s.eliminated[1]
    assert on(g, "C2") == []
    assert on(g, "T5") == ["0/shield", "0/shield"]  # the defender holds, nobody invades
    assert s.fortified[index(g, "C2")]
    assert s.active == 2
    assert s.pending.seat == 2
    assert s.battle is None
    assert refs(s.trophies[0]) == ["1/crown"]
    assert refs(s.graveyard[0]) == ["1/sword"]


def test_r6_1_eliminated_player_takes_no_more_turns() -> None:
    """R6.1: after seat 0's turn, seat 2 plays; eliminated seat 1 is skipped."""
    g = at(CROWN_AT_HOME_3P, players=3)
    g.play("attack T5 C2", dice=[8, 8, 1])
    pass_turn(g)
    assert g.state.active == 2


def test_r18_4_special_units_go_to_killer_unupgraded_and_are_buyable_next_turn() -> None:
    """R18.4, R11.2: the Lion+ (on T7) joins seat 0's reserve plain; it can be placed for 2
    gold from seat 0's next turn on ("ab dem nächsten Zug"), not in this turn's Purchase."""
    g = at(CROWN_AT_HOME_3P, players=3, gold=[6, 0, 0])
    g.play("attack T5 C2", dice=[8, 8, 1])
    s = g.state
    assert s.reserve_specials[0] == [KHALISIA, KIMBRIA]
    assert s.reserve_specials[2] == [NANCHIA]  # only the killer gets it
    assert s.specials_waiting[0] == (KIMBRIA,)
    assert pending(g) == (Decision.PURCHASE, 0)
    assert [t for t in g.legal_texts() if "special:kimbria" in t] == []
    with pytest.raises(IllegalActionError) as refused:
        g.play("buy special:kimbria C2")
    assert refused.value.rule == "R18.4"
    assert g.state.gold[0] == 6 and g.state.reserve_specials[0] == [KHALISIA, KIMBRIA]
    pass_turn(g)  # seat 0's turn ends
    pass_turn(g)  # seat 2's
    assert g.state.active == 0 and g.state.specials_waiting[0] == ()
    while pending(g) != (Decision.PURCHASE, 0):
        g.play("pass" if "pass" in g.legal_texts() else "end")
    assert "buy special:kimbria C2" in g.legal_texts()
    gold = g.state.gold[0]
    g.play("buy special:kimbria C2")
    assert on(g, "C2") == ["0/special:kimbria", "0/sword", "0/sword"]
    assert g.state.gold[0] == gold - 2


def test_r18_4_special_in_reserve_or_killed_in_the_battle_is_transferred() -> None:
    """R18.4 "wherever it was": the Lion killed beside its Crown goes to the killer too."""
    board = CROWN_AT_HOME_3P | {"C2": "1/crown 1/special:kimbria", "T7": ""}
    g = at(board, players=3)
    g.play("attack T5 C2", dice=[8, 8, 1, 1])  # Crown D6 1, Lion (castle: D10) 1
    assert g.state.eliminated[1]
    assert g.state.reserve_specials[0] == [KHALISIA, KIMBRIA]
    assert g.state.reserve_specials[1] == []


def test_r18_6_killer_may_buy_the_eliminated_players_cards_for_4() -> None:
    """R18.6, R11.2: the eliminated player's hand and pool are offered to the killer at 4."""
    # KIM-2 can be used by an attacker only: seat 1 is still asked to declare (holding a card,
    # R5.13 decision 2) but can only decline.
    g = at(CROWN_AT_HOME_3P, players=3, gold=[4, 0, 9], hands=[[], ["KIM-2"], []])
    g.play("attack T5 C2")
    assert g.legal_texts() == ["nomagic"]
    g.play("nomagic", dice=[8, 8, 1])
    assert g.legal_texts() == ["nomagic"]  # the after-battle window (R16.26), same card
    g.play("nomagic")
    cards = ["KIM-1", "KIM-2", "KIM-3", "KIM-4", "KIM-5"]
    assert options_of(g, "buycard") == [f"buycard {c}" for c in cards]
    assert g.state.buyable[2] == []  # nobody else can obtain them
    g.play("buycard KIM-3")
    assert "KIM-3" in g.state.hand[0]
    assert g.state.gold[0] == 0


def test_r18_6_buycard_needs_4_gold() -> None:
    """R18.6, R11.1: with 3 gold no eliminated player's card is offered."""
    g = at(CROWN_AT_HOME_3P, players=3, gold=[3, 0, 0])
    g.play("attack T5 C2", dice=[8, 8, 1])
    assert options_of(g, "buycard") == []


def test_r18_9_r21_6_both_crowns_fall_two_players_draw() -> None:
    """R18.9, R21.6: both Crowns fall in one battle: both out, nothing handed over, a draw."""
    g = at(CROWNS_CLASH)
    g.play("attack T3 T6", dice=CROWNS_CLASH_DICE)
    s = g.state
    assert s.eliminated == [True, True]
    assert g.is_over
    assert s.result is not None
    assert s.result.end == "draw"
    assert s.result.winner is None
    assert s.trophies == [[], []]
    assert KIMBRIA not in s.reserve_specials[0] and KHALISIA not in s.reserve_specials[1]
    assert s.buyable == [[], []]
    assert refs([c for c in s.removed if type_of(c) == UnitType.CROWN]) == ["0/crown", "1/crown"]


def test_r18_9_both_crowns_fall_third_player_wins() -> None:
    """R18.9, R18.8: with 3 players the onlooker is the last Crown and wins at once."""
    g = at(CROWNS_CLASH_3P, players=3)
    g.play("attack T2 T4", dice=CROWNS_CLASH_DICE)
    s = g.state
    assert s.eliminated == [True, True, False]
    assert s.result is not None
    assert s.result.end == "last_crown"
    assert s.result.winner == 2
    assert s.trophies == [[], [], []]
    assert KIMBRIA not in s.reserve_specials[0] and KHALISIA not in s.reserve_specials[1]
    assert s.buyable == [[], [], []]


# --- section 19 -------------------------------------------------------------------------------


def test_r19_1_castle_holds_five_four_winners_all_move_in() -> None:
    """R19.1, R17.6, R19.2: capacity 5: four winners all move into the captured castle."""
    g = at(FOUR_INTO_CASTLE)
    assert g.state.world.capacity[index(g, "C2")] == 5
    g.play("attack T1 C2", dice=[10, 6, 8, 8, 1])  # Archer, Shield, Sword, Sword; Sword
    assert on(g, "C2") == ["0/archer", "0/shield", "0/sword", "0/sword"]
    assert on(g, "T1") == []
    assert index(g, "C2") in g.state.controlled(0)


def test_r19_4_r11_11_upgraded_castle_d8_for_holder_and_stays_with_tile() -> None:
    """R19.4, R11.11: seat 0 defends seat 1's upgraded home with the D8; it stays on C2."""
    g = at(RETAKE_CASTLE, active=1, fortified=["C2"])
    # Swords 7, 7; Shield D10 1, castle D8 8: 7v8 hit A, 7v1 hit D.
    g.play("attack T1 C2", dice=[7, 7, 1, 8])
    step = g.steps[-1]
    assert len(step.chance) == 4
    assert on(g, "C2") == ["1/sword"]
    assert on(g, "T1") == []
    assert refs(g.state.graveyard[0]) == ["1/sword"]
    assert g.state.fortified[index(g, "C2")]
    assert g.state.fortified.count(True) == 1


def test_r19_4_plain_castle_gives_no_d8() -> None:
    """R19.4, R15.5: without the upgrade the same battle rolls one die fewer."""
    g = at(RETAKE_CASTLE, active=1)
    g.play("attack T1 C2", dice=[7, 7, 1])
    step = g.steps[-1]
    assert len(step.chance) == 3
    assert on(g, "C2") == ["1/sword", "1/sword"]
