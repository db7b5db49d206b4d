"""The magic cards of Ardinor, Zhojira and Laurielle (RULES.md sections 16, 20 and 26).

Every battle runs through the checked Game facade with forced dice. Dice are forced in pool
order: the attacker's units in canonical order (Crown, General, Catapult, Archer, Shield, Sword,
special; plain before upgraded), then the Forest D10; then the defender's units, then the
Mountain D10 and the upgraded-castle D8. A forced die that is not a face of the die rolled, or
that is not rolled at all, makes ``Game.play`` fail. Where a test checks die sizes it stops
at a casualty choice, while ``state.battle`` still shows the pools.

2-player world: T1 Field, T2 Mountain, T3 Forest, T4 Field, T5 Forest, T6 Mountain, T7 Field;
C1 (seat 0's home) next to T5 and T7, C2 (seat 1's home) next to T1 and T3.
3-player world: T1 Field, T2 Forest, T3 Forest, T4 Mountain, T5 Field, T6 Field, T7 Forest;
C1 next to T1 and T2, C2 next to T5 and T7, C3 next to T3 and T6.
Seat 0 is the active player (the attacker) unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from kaladan.game import Game
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.kinds import format_action, parse_action
from kaladan.rules.notation import position_to_json
from kaladan.rules.state import Decision, Phase
from kaladan.rules.units import LAURIELLE, SHIELD, SWORD
from positions import build, game_at, on, options_of, pending, refs

# --- named positions (2 players unless the name says 3P) -------------------------------------

# A Sword and an Archer on Field T4 attack a Shield; seat 1's Crown at home on C2.
ARCHER_AND_SWORD_ATTACK = {"C1": "0/crown", "T4": "0/archer 0/sword", "T7": "1/shield",
                           "C2": "1/crown"}
# ARD-2 / LAU-2: General + Sword on T4 against two Shields (or Archers) and a Sword on T7.
SHIELD_WALL = {"C1": "0/crown", "T4": "0/general 0/sword",
               "T7": "1/shield 1/shield+ 1/sword", "C2": "1/crown"}
ARCHER_LINE = {"C1": "0/crown", "T4": "0/general 0/sword",
               "T7": "1/archer 1/archer+ 1/sword", "C2": "1/crown"}
# ARD-3: Catapult, Shield, upgraded Sword attack from Forest T3 into Field T4.
FOREST_ARMY = {"C1": "0/crown", "T3": "0/catapult 0/shield 0/sword+", "T4": "1/shield 1/sword",
               "C2": "1/crown"}
# ARD-3 against LAU-2: two Archers on T4 attack a Shield and a Sword on T7.
TWO_ARCHERS = {"C1": "0/crown", "T4": "0/archer 0/archer+", "T7": "1/shield 1/sword",
               "C2": "1/crown"}
# ARD-4: a big army on T4 wipes out three defenders on Field T7.
WIPE_OUT = {"C1": "0/crown", "T4": "0/general 0/catapult 0/sword 0/sword",
            "T7": "1/archer 1/shield+ 1/sword", "C2": "1/crown"}
# ARD-4: the same army on T1 wipes out Crown, Shield and Sword on castle C2.
WIPE_OUT_CASTLE = {"C1": "0/crown", "T1": "0/general 0/catapult 0/sword 0/sword",
                   "C2": "1/crown 1/shield 1/sword"}
# Two Swords on T4 attack one Sword on Field T7 (room 3 there).
SWORDS_ON_FIELD = {"C1": "0/crown", "T4": "0/sword 0/sword", "T7": "1/sword", "C2": "1/crown"}
# ZHO-2: Archer + Sword on T7 attack Crown + Shield on T4. Around T4: T1 own with room,
# T2 own but full, T3 and T6 enemy, T5 empty, T7 the attacking tile.
EVADE = {"C1": "0/crown", "T7": "0/archer 0/sword", "T3": "0/sword", "T6": "0/sword",
         "T4": "1/crown 1/shield", "T1": "1/archer", "T2": "1/sword 1/sword 1/sword"}
# ZHO-3: two Swords on T4 attack Crown, upgraded Shield and Sword on Mountain T6.
MOUNTAIN_GUARD = {"C1": "0/crown", "T4": "0/sword 0/sword", "T6": "1/crown 1/shield+ 1/sword"}
# ZHO-4: Archer and two Swords on Forest T3 against a Crown and a Shield on Mountain T6.
AMBUSH_CROWN = {"C1": "0/crown", "T3": "0/archer 0/sword 0/sword", "T6": "1/crown 1/shield"}
AMBUSH_FIELD = {"C1": "0/crown", "T3": "0/archer 0/sword 0/sword", "T4": "1/shield 1/sword",
                "C2": "1/crown"}
# ZHO-5: C1 (distance 2 from T4) holds reserves for the battle tile T4.
PATHS = {"C1": "0/crown 0/archer 0/sword 0/sword", "T4": "0/general 0/sword", "T3": "1/shield",
         "C2": "1/crown"}
# LAU-1: an Archer on T1; enemy tiles T4 (distance 1), T7 (distance 2), C1 (distance 3);
# seat 0's Crown on C2 (distance 2 from T4, but no Archer there).
VOLLEY_RANGES = {"C2": "0/crown", "T1": "0/archer", "T4": "1/sword", "T7": "1/sword",
                 "C1": "1/crown"}
# LAU-1: two Archers and a Sword on Forest T3 shoot at Mountain T2 (distance 2).
VOLLEY = {"C1": "0/crown", "T3": "0/archer 0/archer+ 0/sword", "T2": "1/crown 1/shield"}
VOLLEY_LONE_SWORD = {"C1": "0/crown", "T3": "0/archer 0/sword", "T2": "1/sword",
                     "C2": "1/crown"}
# LAU-3: the attacker's Crown fights on T4 with an upgraded Shield and a Sword.
CROWN_LEADS = {"T4": "0/crown 0/shield+ 0/sword", "T7": "1/archer 1/shield", "C2": "1/crown"}
# LAU-4: two Archers and a Sword on T4 against an upgraded Shield and a Sword on T7.
ARCHER_PAIR = {"C1": "0/crown", "T4": "0/archer 0/archer 0/sword", "T7": "1/shield+ 1/sword",
               "C2": "1/crown"}
# R18.6 / R20.16, 3P: seat 2 (Ardinor) is gone; seat 0 (Khalisia) may buy its cards.
# Seat 1 will attack seat 0's Sword on Mountain T4 from Field T5.
BOUGHT_3P = {"C1": "0/crown", "T4": "0/sword", "C2": "1/crown", "T5": "1/sword 1/sword"}


# --- helpers -----------------------------------------------------------------------------------


def at(board: dict[str, str], realms: tuple[str, ...], hands: list[list[str]],
       players: int = 2, **options: object) -> Game:
    """The checked game at ``board``, seat 0 in its Action phase unless told."""
    return game_at(build(board, players=players, realms=realms, hands=hands,
                         **options))  # type: ignore[arg-type]


def act(g: Game, text: str, dice: list[int] | None = None) -> None:
    """Play ``text`` after checking that every legal action's text parses back to itself."""
    for a in g.legal_actions():
        assert parse_action(format_action(a, g.state), g.state) == a, a
    g.play(text, dice=dice or [])






def pools(g: Game) -> tuple[list[int], list[int]]:
    assert g.state.battle is not None
    return g.state.battle.attack_dice, g.state.battle.defence_dice


def assert_refused(g: Game, text: str, rule: str) -> None:
    """The action raises IllegalActionError naming ``rule`` and changes nothing."""
    before = position_to_json(g.state)
    with pytest.raises(IllegalActionError) as err:
        g.play(text)
    assert err.value.rule == rule
    assert position_to_json(g.state) == before


def after_action_phase(g: Game) -> bool:
    return g.state.battle is None and g.state.phase in (Phase.PURCHASE, Phase.REINFORCE)


# --- ARD-1 Aegis of Ardinor ----------------------------------------------------------------


@pytest.mark.parametrize("a_tile,d_tile", [("T4", "T7"), ("T4", "T6"), ("T4", "T3"),
                                           ("T1", "C2")])
def test_ard1_r20_8_r16_10_stops_on_any_terrain_and_attackers_card_returns(
        a_tile: str, d_tile: str) -> None:
    """ARD-1, R20.8, R16.10, R20.6: a stop on a Field, Mountain, Forest or castle; no dice,
    nothing moves; ARD-1 is spent, the attacker's revealed LAU-3 goes back to its hand."""
    board = {"C1": "0/crown", a_tile: "0/archer 0/sword", "C2": "1/crown"}
    board[d_tile] = "1/crown 1/shield" if d_tile == "C2" else "1/shield"
    g = at(board, ("laurielle", "ardinor"), [["LAU-3"], ["ARD-1"]])
    before = list(g.state.board)
    act(g, f"attack {a_tile} {d_tile}")
    assert pending(g) == (Decision.MAGIC, 0)
    act(g, "magic LAU-3")
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic", "magic ARD-1"]
    g.play("magic ARD-1")
    step = g.steps[-1]
    assert step.chance == ()  # R20.8: no dice
    assert list(g.state.board) == before
    assert g.state.hand == [["LAU-3"], []]
    assert g.state.spent == ["ARD-1"]
    assert g.state.graveyard == [[], []]
    assert after_action_phase(g)  # R16.2: the battle was the attacker's action


def test_ard1_r16_8_defender_card_is_not_offered_to_the_attacker() -> None:
    """ARD-1, R16.8: usable by the defender only; the attacker holding it may only decline."""
    g = at(ARCHER_AND_SWORD_ATTACK, ("ardinor", "laurielle"), [["ARD-1"], []])
    act(g, "attack T4 T7")
    assert pending(g) == (Decision.MAGIC, 0)
    assert g.legal_texts() == ["nomagic"]


# --- ARD-2 Wall of Shields ---------------------------------------------------------------------


def test_ard2_r16_14_each_shield_rolls_one_d12() -> None:
    """ARD-2, R16.14: the Shield (D10) and the upgraded Shield (D12) each roll one D12; the
    Sword keeps its D8."""
    g = at(SHIELD_WALL, ("khalisia", "ardinor"), [[], ["ARD-2"]])
    act(g, "attack T4 T7")
    assert "magic ARD-2" in g.legal_texts()
    # General 12, Sword 1; Shield 11, Shield+ 12, Sword 1: 12v12 tie, 1v11 hit on A.
    act(g, "magic ARD-2", dice=[12, 1, 11, 12, 1])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([12, 8], [12, 12, 8])
    assert g.state.spent == ["ARD-2"]


def test_ard2_r16_8_not_offered_without_a_shield() -> None:
    """ARD-2, R16.8: no Shield of the holder takes part, so only 'nomagic'."""
    g = at(SWORDS_ON_FIELD, ("khalisia", "ardinor"), [[], ["ARD-2"]])
    act(g, "attack T4 T7")
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic"]


# --- ARD-3 Steadfast Line ----------------------------------------------------------------------


def test_ard3_r20_13_enemy_units_one_size_lower_capped_bonus_unchanged() -> None:
    """ARD-3, R20.13, R15.6: Catapult D10+D10 -> D8+D8, Shield D6 stays D6, Sword+ D10 -> D8;
    the Forest D10 is not shifted, nor are the defender's own dice."""
    g = at(FOREST_ARMY, ("khalisia", "ardinor"), [[], ["ARD-3"]])
    act(g, "attack T3 T4")
    # Catapult 8 8, Shield 6, Sword+ 8, Forest 10; Shield 10, Sword 1: 10v10 tie, 8v1 hit D.
    act(g, "magic ARD-3", dice=[8, 8, 6, 8, 10, 10, 1])
    assert pending(g) == (Decision.CASUALTY, 1)
    assert pools(g) == ([8, 8, 6, 8, 10], [10, 8])


def test_ard3_lau2_r16_14_d12_first_then_the_shift() -> None:
    """ARD-3, LAU-2, R16.14 steps 2-3: the attacker's Archers roll a D12 (LAU-2), which the
    defender's ARD-3 then lowers to a D10."""
    g = at(TWO_ARCHERS, ("laurielle", "ardinor"), [["LAU-2"], ["ARD-3"]])
    act(g, "attack T4 T7")
    act(g, "magic LAU-2")
    # Archer 10, Archer+ 10; Shield 10, Sword 1: tie, then a hit on D.
    act(g, "magic ARD-3", dice=[10, 10, 10, 1])
    assert pending(g) == (Decision.CASUALTY, 1)
    assert pools(g) == ([10, 10], [10, 8])
    assert sorted(g.state.spent) == ["ARD-3", "LAU-2"]


def test_ard3_r16_8_not_offered_to_the_attacker() -> None:
    """ARD-3, R16.8: a defender card; the attacker holding it may only decline."""
    g = at(TWO_ARCHERS, ("ardinor", "laurielle"), [["ARD-3"], []])
    act(g, "attack T4 T7")
    assert pending(g) == (Decision.MAGIC, 0)
    assert g.legal_texts() == ["nomagic"]


# --- ARD-4 Oath of the Shield --------------------------------------------------------------


def test_ard4_r20_11_r16_27_saves_two_with_upgrades_and_defender_holds() -> None:
    """ARD-4, R16.26, R20.11, R16.27: all three defenders die; the defender saves the upgraded
    Shield and the Sword onto D, exactly as they were; D is held, no invasion; only the
    Archer is a scalp."""
    g = at(WIPE_OUT, ("khalisia", "ardinor"), [[], ["ARD-4"]])
    act(g, "attack T4 T7")
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic"]  # R16.6: a W3 card is not selected at step B
    # General 12, Catapult 10 10, Swords 8 8; Archer 1, Shield+ 1, Sword 1: 3 hits on D.
    act(g, "nomagic", dice=[12, 10, 10, 8, 8, 1, 1, 1])
    assert pending(g) == (Decision.MAGIC, 1)  # R16.26: the after-battle window
    assert g.legal_texts() == ["nomagic", "magic ARD-4"]
    act(g, "magic ARD-4")
    assert pending(g) == (Decision.CARD, 1)
    assert sorted(options_of(g, "save")) == sorted([
        "save archer", "save shield+", "save sword", "save archer,shield+", "save archer,sword",
        "save shield+,sword"])
    act(g, "save shield+,sword")
    assert on(g, "T7") == ["1/shield+", "1/sword"]
    assert on(g, "T4") == ["0/catapult", "0/general", "0/sword", "0/sword"]
    assert refs(g.state.graveyard[0]) == ["1/archer"]
    assert g.state.spent == ["ARD-4"]
    assert after_action_phase(g)


def test_ard4_r20_11_never_saves_the_crown() -> None:
    """ARD-4, R20.11, R18.1: Crown, Shield and Sword die on C2; the save options never name
    the Crown, so the defender is eliminated even after saving two units."""
    g = at(WIPE_OUT_CASTLE, ("khalisia", "ardinor"), [[], ["ARD-4"]])
    act(g, "attack T1 C2")
    act(g, "nomagic", dice=[12, 10, 10, 8, 8, 1, 1, 1])  # 3 hits: Crown, Shield, Sword
    act(g, "magic ARD-4")
    assert sorted(options_of(g, "save")) == ["save shield", "save shield,sword", "save sword"]
    act(g, "save shield,sword")
    assert g.state.eliminated[1]
    assert g.is_over and g.state.result is not None and g.state.result.winner == 0


def test_ard4_zho3_r20_11_saves_a_unit_killed_by_a_card_with_its_upgrade() -> None:
    """ARD-4, ZHO-3, R20.11: the upgraded Shield killed by ZHO-3 before the dice can be saved
    in the after-battle window; it returns upgraded and is nobody's scalp."""
    board = {"C1": "0/crown", "T4": "0/sword 0/sword", "T7": "1/shield+ 1/sword",
             "C2": "1/crown"}
    g = at(board, ("zhojira", "ardinor"), [["ZHO-3"], ["ARD-4"]])
    act(g, "attack T4 T7")
    act(g, "magic ZHO-3")
    act(g, "nomagic")
    # Swords 8 8; Sword 1: one hit on D, the Sword dies too.
    act(g, "kill shield+ T7", dice=[8, 8, 1])
    assert pending(g) == (Decision.MAGIC, 1)
    act(g, "magic ARD-4")
    assert sorted(options_of(g, "save")) == ["save shield+", "save shield+,sword",
                                             "save sword"]
    act(g, "save shield+")
    assert on(g, "T7") == ["1/shield+"]
    assert on(g, "T4") == ["0/sword", "0/sword"]
    assert refs(g.state.graveyard[0]) == ["1/sword"]


def test_ard4_r16_8_attacker_holding_it_is_not_offered_it_after_the_battle() -> None:
    """ARD-4, R16.8, R16.26: the attacker loses a Sword and is asked in the after-battle window,
    but a defender card is not offered to it."""
    board = {"C1": "0/crown", "T4": "0/shield 0/sword", "T7": "1/general", "C2": "1/crown"}
    g = at(board, ("ardinor", "khalisia"), [["ARD-4"], []])
    act(g, "attack T4 T7")
    act(g, "nomagic", dice=[1, 1, 12])  # Shield 1, Sword 1; General 12: one hit on A
    assert pending(g) == (Decision.CASUALTY, 0)
    act(g, "casualty sword")
    assert pending(g) == (Decision.MAGIC, 0)
    assert g.legal_texts() == ["nomagic"]


# --- ARD-5 Rally to the Banner -------------------------------------------------------------


def test_ard5_r20_12_two_basics_placed_on_d_fight() -> None:
    """ARD-5, R20.12: two Shields from the defender's reserve join the Sword on D and roll
    (five dice in all); both attacking Swords die; D holds."""
    g = at(SWORDS_ON_FIELD, ("khalisia", "ardinor"), [[], ["ARD-5"]])
    act(g, "attack T4 T7")
    act(g, "magic ARD-5")
    assert pending(g) == (Decision.CARD, 1)
    assert len(options_of(g, "deploy")) == 9  # 3 single units + 6 pairs
    assert "deploy T7 archer,sword" in g.legal_texts()
    # Swords 1 2; Shield 10, Shield 10, Sword 1: two hits on A.
    act(g, "deploy T7 shield,shield", dice=[1, 2, 10, 10, 1])
    assert on(g, "T7") == ["1/shield", "1/shield", "1/sword"]
    assert on(g, "T4") == []
    assert refs(g.state.graveyard[1]) == ["0/sword", "0/sword"]
    assert g.state.reserve[1][SHIELD] == 2
    assert g.state.spent == ["ARD-5"]


def test_ard5_r4_6_room_for_one_offers_single_units_only() -> None:
    """ARD-5, R4.6, R20.7: Mountain T6 holds 2 of 3, so 'up to 2' places one unit."""
    board = {"C1": "0/crown", "T4": "0/sword", "T6": "1/sword 1/sword", "C2": "1/crown"}
    g = at(board, ("khalisia", "ardinor"), [[], ["ARD-5"]])
    act(g, "attack T4 T6")
    act(g, "magic ARD-5")
    assert sorted(options_of(g, "deploy")) == ["deploy T6 archer", "deploy T6 shield",
                                               "deploy T6 sword"]


def test_ard5_r16_8_full_tile_not_offered_and_refused_state_unchanged() -> None:
    """ARD-5, R16.8: no room on D; 'magic ARD-5' and a card not held are refused (R16.8) and
    the state is unchanged."""
    board = {"C1": "0/crown", "T4": "0/sword", "T6": "1/shield 1/sword 1/sword",
             "C2": "1/crown"}
    g = at(board, ("khalisia", "ardinor"), [[], ["ARD-5"]])
    act(g, "attack T4 T6")
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic"]
    assert_refused(g, "magic ARD-5", "R16.8")
    assert_refused(g, "magic ARD-1", "R16.8")


# --- ZHO-1 Veil of Leaves ------------------------------------------------------------------


def test_zho1_r20_8_stops_an_attack_on_a_forest() -> None:
    """ZHO-1, R20.8: D is Forest T3; the attack is stopped, nothing moves, ZHO-1 is spent."""
    board = {"C1": "0/crown", "T4": "0/sword", "T3": "1/sword", "C2": "1/crown"}
    g = at(board, ("khalisia", "zhojira"), [[], ["ZHO-1"]])
    before = list(g.state.board)
    act(g, "attack T4 T3")
    assert g.legal_texts() == ["nomagic", "magic ZHO-1"]
    g.play("magic ZHO-1")
    assert g.steps[-1].chance == ()
    assert list(g.state.board) == before
    assert g.state.spent == ["ZHO-1"] and g.state.hand[1] == []
    assert after_action_phase(g)


def test_zho1_r16_8_not_offered_on_a_field() -> None:
    """ZHO-1, R16.8: D is Field T7, so only 'nomagic'."""
    g = at(SWORDS_ON_FIELD, ("khalisia", "zhojira"), [[], ["ZHO-1"]])
    act(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]


# --- ZHO-2 Fade into the Forest --------------------------------------------------------------


def test_zho2_r20_9_r16_10_evade_then_invasion_without_dice_or_scalps() -> None:
    """ZHO-2, R20.9, R16.10, R17.6: the choice is T1 (own, room) or T5 (empty), never A, an
    enemy tile or a full own tile; Crown and Shield move to T1; the attacker invades the empty
    D without dice; no scalps; the attacker's revealed LAU-3 returns to its hand."""
    g = at(EVADE, ("laurielle", "zhojira"), [["LAU-3"], ["ZHO-2"]])
    act(g, "attack T7 T4")
    act(g, "magic LAU-3")
    assert g.legal_texts() == ["nomagic", "magic ZHO-2"]
    act(g, "magic ZHO-2")
    assert pending(g) == (Decision.CARD, 1)
    assert sorted(options_of(g, "evade")) == ["evade T1", "evade T5"]
    g.play("evade T1")
    step = g.steps[-1]
    assert step.chance == ()
    assert on(g, "T1") == ["1/archer", "1/crown", "1/shield"]
    assert on(g, "T4") == ["0/archer", "0/sword"]
    assert on(g, "T7") == []
    assert g.state.graveyard == [[], []]
    assert g.state.hand == [["LAU-3"], []]
    assert g.state.spent == ["ZHO-2"]
    assert after_action_phase(g)


@pytest.mark.parametrize("t3", ["1/sword 1/sword", "0/sword"])
def test_zho2_r16_8_not_offered_without_a_tile_to_go_to(t3: str) -> None:
    """ZHO-2, R16.8: C2 is next to T1 (the attacking tile) and T3 only; T3 is an own tile with
    room for one of two units, or an enemy tile: only 'nomagic'."""
    board = {"C1": "0/crown", "T1": "0/sword", "C2": "1/crown 1/shield", "T3": t3}
    g = at(board, ("khalisia", "zhojira"), [[], ["ZHO-2"]])
    act(g, "attack T1 C2")
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic"]


# --- ZHO-3 Whisper of the Wolf -------------------------------------------------------------


def test_zho3_r20_10_kills_chosen_unit_never_the_crown_into_holders_graveyard() -> None:
    """ZHO-3, R20.10, R20.14: the options are the upgraded Shield and the Sword, not the
    Crown; the Shield dies before the dice and enters the attacker's graveyard unupgraded."""
    g = at(MOUNTAIN_GUARD, ("zhojira", "khalisia"), [["ZHO-3"], []])
    act(g, "attack T4 T6")
    assert g.legal_texts() == ["nomagic", "magic ZHO-3"]
    act(g, "magic ZHO-3")
    assert pending(g) == (Decision.CARD, 0)
    assert sorted(options_of(g, "kill")) == ["kill shield+ T6", "kill sword T6"]
    # Swords 1 1; Crown 6, Sword 8, Mountain 10 (the Shield no longer rolls): 2 hits on A.
    act(g, "kill shield+ T6", dice=[1, 1, 6, 8, 10])
    assert on(g, "T6") == ["1/crown", "1/sword"]
    assert refs(g.state.graveyard[0]) == ["1/shield"]
    assert refs(g.state.graveyard[1]) == ["0/sword", "0/sword"]
    assert g.state.spent == ["ZHO-3"]


def test_zho3_r16_8_not_offered_against_a_lone_crown() -> None:
    """ZHO-3, R16.8, R20.14: only a Crown stands on D, so only 'nomagic'."""
    board = {"C1": "0/crown", "T4": "0/sword 0/sword", "T6": "1/crown"}
    g = at(board, ("zhojira", "khalisia"), [["ZHO-3"], []])
    act(g, "attack T4 T6")
    assert g.legal_texts() == ["nomagic"]


# --- ZHO-4 Ambush from the Shadows ----------------------------------------------------------


def test_zho4_r20_14_no_hit_on_the_attacker_and_the_crown_cannot_die() -> None:
    """ZHO-4, R20.14: the defender wins a pair but the attacker loses nothing; two hits on D
    kill the Shield only, the hit that could only go to the Crown is ignored; D holds."""
    g = at(AMBUSH_CROWN, ("zhojira", "khalisia"), [["ZHO-4"], []])
    act(g, "attack T3 T6")
    assert g.legal_texts() == ["nomagic", "magic ZHO-4"]
    # Archer 9, Sword 8, Sword 2, Forest 1; Crown 1, Shield 2, Mountain 10:
    # 9v10 hit on A (ignored), 8v2 and 2v1 hits on D.
    act(g, "magic ZHO-4", dice=[9, 8, 2, 1, 1, 2, 10])
    assert on(g, "T3") == ["0/archer", "0/sword", "0/sword"]
    assert on(g, "T6") == ["1/crown"]
    assert refs(g.state.graveyard[0]) == ["1/shield"]
    assert g.state.graveyard[1] == []
    assert not g.state.eliminated[1]
    assert g.state.spent == ["ZHO-4"]


def test_zho4_r17_6_invasion_as_usual_when_the_attacker_wins() -> None:
    """ZHO-4, R17.6: both defenders die; all three attackers move onto Field T4."""
    g = at(AMBUSH_FIELD, ("zhojira", "khalisia"), [["ZHO-4"], []])
    act(g, "attack T3 T4")
    act(g, "magic ZHO-4", dice=[10, 8, 8, 10, 1, 1])
    assert on(g, "T4") == ["0/archer", "0/sword", "0/sword"]
    assert on(g, "T3") == []


def test_zho4_r16_8_not_offered_from_a_field() -> None:
    """ZHO-4, R16.8: the attacking tile T4 is a Field."""
    g = at(SWORDS_ON_FIELD, ("zhojira", "khalisia"), [["ZHO-4"], []])
    act(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]


# --- ZHO-5 Paths Beneath the Canopy ----------------------------------------------------------


def test_zho5_moves_units_between_non_adjacent_tiles_battle_tile_keeps_one() -> None:
    """ZHO-5, R4.6: units go from C1 to the battle tile T4 (distance 2) within its room of 2;
    T4 may send units to C1 but never its last one; the moved units fight."""
    g = at(PATHS, ("zhojira", "khalisia"), [["ZHO-5"], []])
    act(g, "attack T4 T3")
    act(g, "magic ZHO-5")
    assert pending(g) == (Decision.CARD, 0)
    texts = g.legal_texts()
    assert "relocate T4 C1 general" in texts and "relocate T4 C1 sword" in texts
    assert "relocate T4 C1 general,sword" not in texts  # T4 would be left empty
    assert "relocate C1 T4 crown,archer" in texts
    assert "relocate C1 T4 archer,sword,sword" not in texts  # T4 has room for 2
    assert all(t.split()[1:3] in (["T4", "C1"], ["C1", "T4"]) for t in texts)
    # General 1, Archer 1, Sword 1, Sword 1; Shield 10: one hit on A.
    act(g, "relocate C1 T4 archer,sword", dice=[1, 1, 1, 1, 10])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([12, 10, 8, 8], [10])
    assert on(g, "C1") == ["0/crown", "0/sword"]


def test_zho5_defender_brings_units_onto_d_but_never_empties_it() -> None:
    """ZHO-5 (either side), R26.3: the defender moves two Shields from T1 (distance 2) onto D;
    its lone Sword on D may not leave; the Shields defend."""
    board = {"C1": "0/crown", "T4": "0/sword", "T7": "1/sword", "T1": "1/shield 1/shield",
             "C2": "1/crown"}
    g = at(board, ("khalisia", "zhojira"), [[], ["ZHO-5"]])
    act(g, "attack T4 T7")
    act(g, "magic ZHO-5")
    assert pending(g) == (Decision.CARD, 1)
    texts = g.legal_texts()
    assert not [t for t in texts if t.startswith("relocate T7 ")]
    assert "relocate T1 T7 shield,shield" in texts and "relocate C2 T7 crown" in texts
    # Sword 8; Shield 10, Shield 10, Sword 1: one hit on A, the lone Sword dies.
    act(g, "relocate T1 T7 shield,shield", dice=[8, 10, 10, 1])
    assert on(g, "T7") == ["1/shield", "1/shield", "1/sword"]
    assert on(g, "T1") == [] and on(g, "T4") == []


def test_zho5_r16_8_not_offered_with_only_adjacent_tiles() -> None:
    """ZHO-5, R16.8: seat 0 holds C1 and T7, which are adjacent."""
    board = {"C1": "0/crown", "T7": "0/sword", "T4": "1/sword", "C2": "1/crown"}
    g = at(board, ("zhojira", "khalisia"), [["ZHO-5"], []])
    act(g, "attack T7 T4")
    assert g.legal_texts() == ["nomagic"]


# --- LAU-1 Volley from Afar ------------------------------------------------------------------


def test_lau1_r16_1_volley_only_at_distance_two_from_a_tile_with_an_archer() -> None:
    """LAU-1, R16.1, R4.3: T7 (distance 2) is a target; T4 (distance 1) is attacked normally
    and a volley at it is refused (rule LAU-1); C1 (distance 3) is out of range; C2 has no
    Archer."""
    g = at(VOLLEY_RANGES, ("laurielle", "khalisia"), [["LAU-1"], []], homes=["C2", "C1"])
    assert options_of(g, "volley") == ["volley T1 T7"]
    assert "attack T1 T4" in g.legal_texts()
    assert_refused(g, "volley T1 T4", "LAU-1")
    assert_refused(g, "volley T1 C1", "LAU-1")
    assert_refused(g, "volley C2 T4", "LAU-1")


@pytest.mark.parametrize("t1,hand", [("0/archer", ["LAU-2"]), ("0/sword", ["LAU-1"])])
def test_lau1_r16_9_no_volley_without_the_card_or_an_archer(t1: str, hand: list[str]) -> None:
    """LAU-1, R16.9: no volley without LAU-1 in hand, nor without an Archer."""
    board = dict(VOLLEY_RANGES, T1=t1)
    g = at(board, ("laurielle", "khalisia"), [hand, []], homes=["C2", "C1"])
    assert options_of(g, "volley") == []


def test_lau1_only_archers_shoot_and_die_crown_cannot_be_killed() -> None:
    """LAU-1, R16.9, R15.3, R15.4, R20.14: only the two Archers and the Forest D10 attack (the
    Sword stays out); the Mountain D10 defends; only Archers may be chosen as losses; the
    second hit on D could only go to the Crown and is ignored; no invasion."""
    g = at(VOLLEY, ("laurielle", "khalisia"), [["LAU-1"], []])
    # Archer 5, Archer+ 5, Forest 5; Crown 1, Shield 1, Mountain 6: 5v6 hit on A, 2 hits on D.
    act(g, "volley T3 T2", dice=[5, 5, 5, 1, 1, 6])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([10, 12, 10], [6, 10, 10])
    assert g.legal_texts() == ["casualty archer", "casualty archer+"]
    act(g, "casualty archer")
    assert on(g, "T3") == ["0/archer+", "0/sword"]
    assert on(g, "T2") == ["1/crown"]
    assert refs(g.state.graveyard[0]) == ["1/shield"]
    assert refs(g.state.graveyard[1]) == ["0/archer"]
    assert not g.state.eliminated[1]
    assert g.state.spent == ["LAU-1"] and g.state.hand[0] == []
    assert after_action_phase(g)


def test_lau1_r16_21_attacker_losses_only_the_archers() -> None:
    """LAU-1: three hits on the attacking side kill both Archers; the Sword survives."""
    g = at(VOLLEY, ("laurielle", "khalisia"), [["LAU-1"], []])
    act(g, "volley T3 T2", dice=[1, 1, 1, 6, 10, 10])
    assert on(g, "T3") == ["0/sword"]
    assert on(g, "T2") == ["1/crown", "1/shield"]
    assert refs(g.state.graveyard[1]) == ["0/archer", "0/archer"]


def test_lau1_r17_6_emptied_target_stays_empty_no_invasion() -> None:
    """LAU-1, R17.6, R16.30: the only defender dies; T2 becomes empty, nobody moves."""
    g = at(VOLLEY_LONE_SWORD, ("laurielle", "khalisia"), [["LAU-1"], []])
    act(g, "volley T3 T2", dice=[10, 10, 1, 1])  # Archer, Forest; Sword, Mountain
    assert on(g, "T2") == []
    assert on(g, "T3") == ["0/archer", "0/sword"]
    assert refs(g.state.graveyard[0]) == ["1/sword"]


def test_lau1_r16_9_r16_10_defender_sees_the_card_and_stops_it_card_returns() -> None:
    """LAU-1, R16.9, R16.10, R5.13: only the defender declares; it sees LAU-1 at once; its
    ARD-1 stops the volley and LAU-1 goes back to the attacker's hand."""
    g = at(VOLLEY, ("laurielle", "ardinor"), [["LAU-1", "LAU-2"], ["ARD-1"]])
    before = list(g.state.board)
    act(g, "volley T3 T2")
    assert pending(g) == (Decision.MAGIC, 1)
    battle = g.observe(1)["battle"]
    assert battle is not None and battle["cards"] == {"0": "LAU-1"}
    assert g.legal_texts() == ["nomagic", "magic ARD-1"]
    act(g, "magic ARD-1")
    assert list(g.state.board) == before
    assert g.state.hand == [["LAU-1", "LAU-2"], []]
    assert g.state.spent == ["ARD-1"]
    assert after_action_phase(g)


# --- LAU-2 Eagle-Eyed Archers ---------------------------------------------------------------


def test_lau2_r16_14_defending_archers_roll_one_d12_upgraded_or_not() -> None:
    """LAU-2, R16.14: the defending Archer (D6) and upgraded Archer (D8) roll one D12 each."""
    g = at(ARCHER_LINE, ("khalisia", "laurielle"), [[], ["LAU-2"]])
    act(g, "attack T4 T7")
    act(g, "magic LAU-2", dice=[12, 1, 11, 12, 1])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([12, 8], [12, 12, 8])


def test_lau2_r16_8_not_offered_without_an_archer() -> None:
    """LAU-2, R16.8: no Archer of the holder takes part."""
    g = at(SWORDS_ON_FIELD, ("khalisia", "laurielle"), [[], ["LAU-2"]])
    act(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]


# --- LAU-3 Marksman's Shot -------------------------------------------------------------------


def test_lau3_r20_10_defender_kills_an_attacker_never_the_crown() -> None:
    """LAU-3, R20.10, R17.2: the defender's choice is the upgraded Shield or the Sword on A,
    not the Crown; the Shield goes into the defender's graveyard unupgraded."""
    g = at(CROWN_LEADS, ("khalisia", "laurielle"), [[], ["LAU-3"]])
    act(g, "attack T4 T7")
    act(g, "magic LAU-3")
    assert pending(g) == (Decision.CARD, 1)
    assert sorted(options_of(g, "kill")) == ["kill shield+ T4", "kill sword T4"]
    # Crown 6, Sword 8; Archer 1, Shield 1: two hits on D; Crown and Sword invade.
    act(g, "kill shield+ T4", dice=[6, 8, 1, 1])
    assert refs(g.state.graveyard[1]) == ["0/shield"]
    assert refs(g.state.graveyard[0]) == ["1/archer", "1/shield"]
    assert on(g, "T7") == ["0/crown", "0/sword"]


def test_lau3_r16_12_killing_the_last_attacker_skips_the_dice_w2_card_returns() -> None:
    """LAU-3, R16.12, R20.6: the defender kills the lone attacking Archer before the dice; no
    dice are rolled, the defender holds, and the attacker's revealed LAU-2 returns to hand."""
    board = {"C1": "0/crown", "T4": "0/archer", "T7": "1/archer", "C2": "1/crown"}
    g = at(board, ("laurielle", "ardinor"), [["LAU-2"], ["LAU-3"]])
    act(g, "attack T4 T7")
    act(g, "magic LAU-2")
    g.play("magic LAU-3")
    step = g.steps[-1]  # one target only: no choice is asked
    assert step.chance == ()
    assert on(g, "T4") == [] and on(g, "T7") == ["1/archer"]
    assert refs(g.state.graveyard[1]) == ["0/archer"]
    assert g.state.hand == [["LAU-2"], []]
    assert g.state.spent == ["LAU-3"]
    assert after_action_phase(g)


@pytest.mark.parametrize("a_units,d_units", [("0/sword", "1/sword"),
                                             ("0/crown", "1/archer")])
def test_lau3_r16_8_not_offered_without_archer_or_target(a_units: str, d_units: str) -> None:
    """LAU-3, R16.8, R20.14: no own Archer on D, or only a Crown on the enemy tile A."""
    board = {"C1": "0/crown", "T4": a_units, "T7": d_units, "C2": "1/crown"}
    if a_units == "0/crown":
        del board["C1"]
    g = at(board, ("khalisia", "laurielle"), [[], ["LAU-3"]])
    act(g, "attack T4 T7")
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic"]


# --- LAU-4 Hail of Arrows --------------------------------------------------------------------


def test_lau4_r20_13_two_archers_lower_every_enemy_unit() -> None:
    """LAU-4, R20.13: the upgraded Shield D12 -> D10 and the Sword D8 -> D6; own dice stay."""
    g = at(ARCHER_PAIR, ("laurielle", "khalisia"), [["LAU-4"], []])
    act(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic", "magic LAU-4"]
    # Archers 10 1, Sword 1; Shield+ 10, Sword 6: tie, then one hit on A.
    act(g, "magic LAU-4", dice=[10, 1, 1, 10, 6])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([10, 10, 8], [10, 6])


def test_lau4_r16_8_not_offered_with_one_archer() -> None:
    """LAU-4, R16.8: only one Archer on the battle tile."""
    g = at(ARCHER_AND_SWORD_ATTACK, ("laurielle", "khalisia"), [["LAU-4"], []])
    act(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]


# --- LAU-5 Return of the Bow -----------------------------------------------------------------


def test_lau5_r20_12_special_unit_placed_on_battle_tile_fights() -> None:
    """LAU-5, R20.12, R14.1: the Bow of Laurielle comes from the reserve onto T4 and attacks
    with a D12."""
    board = {"C1": "0/crown", "T4": "0/sword", "T7": "1/shield 1/sword", "C2": "1/crown"}
    g = at(board, ("laurielle", "khalisia"), [["LAU-5"], []])
    assert g.state.reserve_specials[0] == [LAURIELLE]
    act(g, "attack T4 T7")
    # Sword 1, Bow 12; Shield 10, Sword 8: 12v10 hit on D, 1v8 hit on A.
    act(g, "magic LAU-5", dice=[1, 12, 10, 8])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([8, 12], [10, 8])
    assert on(g, "T4") == ["0/special:laurielle", "0/sword"]
    assert g.state.reserve_specials[0] == []


@pytest.mark.parametrize("c1,t4", [("0/crown", "0/archer 0/sword 0/sword 0/sword"),
                                   ("0/crown 0/special:laurielle", "0/sword")])
def test_lau5_r16_8_not_offered_when_full_or_special_on_board(c1: str, t4: str) -> None:
    """LAU-5, R16.8: the battle tile is full, or the special unit is not in the reserve."""
    board = {"C1": c1, "T4": t4, "T7": "1/sword", "C2": "1/crown"}
    g = at(board, ("laurielle", "khalisia"), [["LAU-5"], []])
    act(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]


# --- R18.6 / R20.16: a card bought from an eliminated player ---------------------------------


def test_r18_6_r20_16_bought_ard5_places_the_holders_own_units() -> None:
    """R18.6, R20.16, ARD-5: Khalisia buys ARD-5 from the eliminated Ardinor player; when
    attacked it places two Swords from its own (Khalisia) reserve, which fight."""
    state = build(BOUGHT_3P, players=3, realms=("khalisia", "zhojira", "ardinor"),
                  hands=[[], [], []], gold=[4, 0, 0], phase="purchase")
    state.eliminated[2] = True
    state.pool[2] = []
    state.buyable[0] = ["ARD-1", "ARD-2", "ARD-3", "ARD-4", "ARD-5"]
    state.invalidate()
    g = game_at(state)
    assert "buycard ARD-5" in g.legal_texts()
    act(g, "buycard ARD-5")
    assert g.state.hand[0] == ["ARD-5"] and g.state.gold[0] == 0
    for _ in range(10):  # to seat 1's Action phase, doing nothing on the way
        if pending(g) == (Decision.ACTION, 1):
            break
        act(g, "pass" if "pass" in g.legal_texts() else "end")
    assert pending(g) == (Decision.ACTION, 1)
    act(g, "attack T5 T4")
    assert pending(g) == (Decision.MAGIC, 0)
    assert g.legal_texts() == ["nomagic", "magic ARD-5"]
    act(g, "magic ARD-5")
    swords = g.state.reserve[0][SWORD]
    # Swords 1 1; Sword 8, Sword 8, Sword 8, Mountain 10: two hits on the attacker.
    act(g, "deploy T4 sword,sword", dice=[1, 1, 8, 8, 8, 10])
    assert on(g, "T4") == ["0/sword", "0/sword", "0/sword"]
    assert g.state.reserve[0][SWORD] == swords - 2
    assert on(g, "T5") == []
    assert refs(g.state.graveyard[0]) == ["1/sword", "1/sword"]


# --- R5.13 observation and text forms -------------------------------------------------------


def test_r5_13_r16_5_face_down_card_is_committed_until_revealed() -> None:
    """R5.13, R16.5: while the defender declares it sees only 'committed' and the hand count;
    after the reveal both card ids are public and the spent card leaves the hand count."""
    board = {"C1": "0/crown", "T4": "0/sword", "T7": "1/shield 1/sword", "C2": "1/crown"}
    g = at(board, ("zhojira", "ardinor"), [["ZHO-3"], ["ARD-3"]])
    act(g, "attack T4 T7")
    act(g, "magic ZHO-3")
    assert pending(g) == (Decision.MAGIC, 1)
    seen = g.observe(1)
    assert seen["battle"]["cards"] == {"0": "committed"}
    assert seen["players"][0]["hand_count"] == 1 and "hand" not in seen["players"][0]
    assert g.observe(0)["battle"]["cards"] == {"0": "ZHO-3"}
    act(g, "magic ARD-3")
    assert pending(g) == (Decision.CARD, 0)  # ZHO-3: Shield or Sword
    for seat in (0, 1):
        seen = g.observe(seat)
        assert seen["battle"]["cards"] == {"0": "ZHO-3", "1": "ARD-3"}
        assert seen["players"][0]["hand_count"] == 0
        assert "ZHO-3" in seen["spent"]


def test_r16_5_declining_shows_no_card_to_the_defender() -> None:
    """R16.5, R5.13: after the attacker's 'nomagic' the defender sees no committed card."""
    g = at(SWORDS_ON_FIELD, ("zhojira", "ardinor"), [["ZHO-3"], ["ARD-3"]])
    act(g, "attack T4 T7")
    act(g, "nomagic")
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.observe(1)["battle"]["cards"] == {}


def test_card_action_texts_round_trip() -> None:
    """Text forms (STYLE principle 3): evade, relocate, kill, deploy, volley and save texts
    parse to legal actions and format back to the same text (``act`` also checks every
    legal action of every decision in this file)."""
    cases = [
        (EVADE, ("laurielle", "zhojira"), [[], ["ZHO-2"]], ["attack T7 T4", "magic ZHO-2"],
         ["evade T1", "evade T5"]),
        (PATHS, ("zhojira", "khalisia"), [["ZHO-5"], []], ["attack T4 T3", "magic ZHO-5"],
         ["relocate C1 T4 archer,sword"]),
        (MOUNTAIN_GUARD, ("zhojira", "khalisia"), [["ZHO-3"], []],
         ["attack T4 T6", "magic ZHO-3"], ["kill shield+ T6", "kill sword T6"]),
        (SWORDS_ON_FIELD, ("khalisia", "ardinor"), [[], ["ARD-5"]],
         ["attack T4 T7", "magic ARD-5"], ["deploy T7 archer,sword", "deploy T7 shield"]),
        (VOLLEY_RANGES, ("laurielle", "khalisia"), [["LAU-1"], []], [], ["volley T1 T7"]),
        (WIPE_OUT, ("khalisia", "ardinor"), [[], ["ARD-4"]],
         ["attack T4 T7", "nomagic", "magic ARD-4"], ["save shield+,sword", "save archer"]),
    ]
    for board, realms, hands, steps, texts in cases:
        g = at(board, realms, hands, homes=["C2", "C1"] if board is VOLLEY_RANGES else None)
        for text in steps:
            act(g, text, dice=[12, 10, 10, 8, 8, 1, 1, 1] if text == "nomagic" else None)
        for text in texts:
            action = g.parse(text)
            assert g.format(action) == text and action in g.legal_actions()
