"""The magic cards of Khalisia, Kimbria and Nanchia (RULES.md sections 20 and 26), played in
battles (section 16) through the checked ``Game`` facade with forced dice.

2-player standard world: T1 Field, T2 Mountain, T3 Forest, T4 Field, T5 Forest, T6 Mountain,
T7 Field; C1 (seat 0's home) touches T5/T7, C2 (seat 1's home) touches T1/T3; T4 touches
T1-T3 and T5-T7, T6 touches T3/T4/T7. Realms are given per test (``realms=``).

Dice are forced in pool order: the attacker's units in canonical order (Crown, General,
Catapult, Archer, Shield, Sword, special; plain before upgraded), then the Forest D10; then the
defender's, then the Mountain D10 and the upgraded-castle D8. Pools are read from
``battle.attack_dice`` / ``defence_dice`` while the battle is still open: a side that holds a
card it has not used is asked again after the battle (R16.26), and a loser with a real choice
of casualties is asked (R16.22); the dice are chosen so that one of these happens.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kaladan.game import Game, Step
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.kinds import format_action, parse_action
from kaladan.rules.notation import position_to_json
from kaladan.rules.state import Decision, Phase
from kaladan.rules.units import KIMBRIA, UnitType
from positions import build, game_at, on, pending, refs

# --- named positions (seat 0 is active and attacks) ---------------------------------------------

# EX6: Khalisia's Crown, Shield and Archer on its castle C2, attacked from Field T1.
EX6 = {"C1": "0/crown", "T1": "0/general 0/sword 0/sword", "C2": "1/crown 1/shield 1/archer"}
# General 12, Sword 8, Sword 8; Crown 1, Archer 1, Shield 9: 12v9, 8v1, 8v1 = 3 hits on C2.
EX6_THREE_HITS = [12, 8, 8, 1, 1, 9]
# Khalisia defends Field T4 (not a castle) and loses both its units.
FIELD_DEFENCE = {"C1": "0/crown", "T7": "0/sword 0/sword", "T4": "1/shield 1/sword",
                 "C2": "1/crown"}
# The castle C2 of Khalisia with an upgraded Archer, attacked by two Swords from T1.
CASTLE_ARCHER_UP = {"C1": "0/crown", "T1": "0/sword 0/sword",
                    "C2": "1/crown 1/archer+ 1/shield"}
# KHA-2: seat 0 has an Archer on T4, three Swords on T7 (both Fields) and its Crown on C1.
HARMONY = {"C1": "0/crown", "T7": "0/sword 0/sword 0/sword", "T4": "0/archer",
           "T6": "1/shield", "C2": "1/crown"}
# KHA-2: Field T4 (capacity 4) next to Forest T5 (capacity 3).
HARMONY_CAP = {"T4": "0/sword 0/sword 0/sword", "T5": "0/archer 0/archer", "C1": "0/crown",
               "T7": "1/shield", "C2": "1/crown"}
# Seat 0 holds C1 and T4 only: not adjacent to each other.
APART = {"C1": "0/crown", "T4": "0/sword 0/sword", "T7": "1/shield", "C2": "1/crown"}
# Swords (plain and upgraded) with an Archer on Field T4 attack two Shields on Field T7.
SWORDS = {"C1": "0/crown", "T4": "0/archer 0/sword 0/sword+", "T7": "1/shield 1/shield",
          "C2": "1/crown"}
# Two Swords on Field T4 (room 2) attack a Shield on Field T7.
TWO_SWORDS = {"C1": "0/crown", "T4": "0/sword 0/sword", "T7": "1/shield", "C2": "1/crown"}
# EX7: General, Catapult, Sword on Field T4 attack two Shields on Field T7.
EX7_CHARGE = {"C1": "0/crown", "T4": "0/general 0/catapult 0/sword", "T7": "1/shield 1/shield",
              "C2": "1/crown"}
# EX7: Laurielle's Catapult and Bow on Forest T3 attack two Swords on Field T4.
EX7_SUNBLIND = {"C1": "0/crown", "T3": "0/catapult 0/special:laurielle",
                "T4": "1/sword 1/sword", "C2": "1/crown"}
# Seat 1 (Khalisia) holds its castle C2 with Crown and Shield; seat 0 attacks from Field T1.
CASTLE = {"C1": "0/crown", "T1": "0/sword 0/archer", "C2": "1/crown 1/shield"}
# Seat 0 on Mountain T6 attacks a lone Sword on Field T4.
MOUNTAIN_VS_SWORD = {"C1": "0/crown", "T6": "0/sword 0/archer", "T4": "1/sword",
                     "C2": "1/crown"}
# Seat 0 on Field T4 attacks a Shield on Mountain T6.
SWORD_VS_MOUNTAIN = {"C1": "0/crown", "T4": "0/sword", "T6": "1/shield", "C2": "1/crown"}
# Seat 0 from Mountain T6 attacks Kimbria's Crown, Sword, Archer+ and Lion on Field T4.
AVALANCHE = {"C1": "0/crown", "T6": "0/sword 0/sword",
             "T4": "1/crown 1/archer+ 1/sword 1/special:kimbria", "C2": "1/sword"}
# Nanchia defends Mountain T6 (Crown elsewhere) with Shield+, Sword and Archer.
BEAR_HILL = {"C1": "0/crown", "T4": "0/general 0/sword 0/sword",
             "T6": "1/archer 1/shield+ 1/sword", "C2": "1/crown"}
# General 12, Swords 8, 8; Archer 1, Shield+ 1, Sword 1, Mountain 1: 3 hits on T6.
BEAR_HILL_THREE_HITS = [12, 8, 8, 1, 1, 1, 1]


# --- helpers -------------------------------------------------------------------------------------


def at(board: dict[str, str], realms: Sequence[str], hands: Sequence[Sequence[str]],
       **options: object) -> Game:
    """The checked game at ``board``, seat 0 in its Action phase."""
    return game_at(build(board, realms=realms, hands=hands, **options))  # type: ignore[arg-type]


def play(g: Game, text: str, dice: Sequence[int] = ()) -> Step:
    """Play a legal action given as canonical text whose parse/format round-trips."""
    legal = g.legal_texts()
    assert text in legal, (text, legal)
    action = g.parse(text)
    assert parse_action(format_action(action, g.state), g.state) == action
    assert g.format(action) == text
    g.play(action, dice=dice)
    return g.steps[-1]



def board(g: Game) -> dict[str, list[str]]:
    return {name: on(g, name) for name in g.state.world.names}




def pools(g: Game) -> tuple[list[int], list[int]]:
    battle = g.state.battle
    assert battle is not None, "the battle is over: no pools to read"
    return battle.attack_dice, battle.defence_dice


def starting(g: Game, attack: str, *declared: str) -> None:
    """Declare ``attack`` and then the given declarations (``nomagic`` or ``magic X``)."""
    play(g, attack)
    for text in declared:
        assert pending(g)[0] == Decision.MAGIC
        play(g, text)


# --- KHA-1 Keep of Khalisia ----------------------------------------------------------------------


def test_ex6_kha1_keep_saves_crown_and_two_more_defender_holds() -> None:
    """EX6, KHA-1, R16.26, R20.11, R18.1, R16.27: 3 hits kill all three; Keep saves them all."""
    g = at(EX6, ("kimbria", "khalisia"), [[], ["KHA-1"]], gold=[1, 0])
    play(g, "attack T1 C2")
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic"]  # R16.6: a W3 card is not selected at step B
    step = play(g, "nomagic", dice=EX6_THREE_HITS)
    assert step.chance == tuple(EX6_THREE_HITS)
    assert on(g, "C2") == []  # R16.25: set aside until step G
    assert pending(g) == (Decision.MAGIC, 1)  # R16.26: the after-battle window
    assert g.legal_texts() == ["nomagic", "magic KHA-1"]
    play(g, "magic KHA-1")
    assert pending(g) == (Decision.CARD, 1)
    saves = [t for t in g.legal_texts() if t.startswith("save")]
    assert len(saves) == 7 and "save crown,archer,shield" in saves  # any 1-3 of the fallen
    play(g, "save crown,archer,shield")
    assert on(g, "C2") == ["1/archer", "1/crown", "1/shield"]
    assert on(g, "T1") == ["0/general", "0/sword", "0/sword"]  # R17.10: nobody moves
    assert not g.state.eliminated[1] and not g.is_over
    assert g.state.graveyard[0] == [] and g.state.trophies[0] == []  # no scalps
    assert g.state.spent == ["KHA-1"] and g.state.hand == [[], []]
    assert g.state.phase == Phase.PURCHASE


def test_ex6_without_kha1_crown_falls_and_defender_is_eliminated() -> None:
    """EX6, R16.26, R18.1: holding Keep but answering nomagic twice, Khalisia is eliminated."""
    g = at(EX6, ("kimbria", "khalisia"), [[], ["KHA-1"]])
    starting(g, "attack T1 C2")
    play(g, "nomagic", dice=EX6_THREE_HITS)
    assert g.legal_texts() == ["nomagic", "magic KHA-1"]
    play(g, "nomagic")
    assert g.state.eliminated[1] and g.is_over
    assert refs(g.state.trophies[0]) == ["1/crown"]
    assert refs(g.state.graveyard[0]) == ["1/archer", "1/shield"]
    assert g.state.spent == []


def test_kha1_saving_only_the_crown_leaves_the_others_as_scalps() -> None:
    """KHA-1, R20.11, R16.28: "up to 3": the Crown alone is saved, the dead are scalps."""
    g = at(EX6, ("kimbria", "khalisia"), [[], ["KHA-1"]])
    starting(g, "attack T1 C2")
    play(g, "nomagic", dice=EX6_THREE_HITS)
    play(g, "magic KHA-1")
    play(g, "save crown")
    assert on(g, "C2") == ["1/crown"]
    assert refs(g.state.graveyard[0]) == ["1/archer", "1/shield"]
    assert not g.state.eliminated[1]


def test_kha1_saves_a_unit_killed_by_a_card_earlier_with_its_upgrade() -> None:
    """KHA-1, R20.10, R20.11: ZHO-3 kills the Archer+ at W1; Keep brings it back upgraded."""
    g = at(CASTLE_ARCHER_UP, ("zhojira", "khalisia"), [["ZHO-3"], ["KHA-1"]])
    starting(g, "attack T1 C2", "magic ZHO-3", "nomagic")
    assert pending(g) == (Decision.CARD, 0)
    assert g.legal_texts() == ["kill archer+ C2", "kill shield C2"]  # never the Crown
    # Swords 8, 8; Crown 1, Shield 1: the two units left on C2 both die.
    play(g, "kill archer+ C2", dice=[8, 8, 1, 1])
    assert on(g, "C2") == []
    play(g, "magic KHA-1")
    play(g, "save crown,archer+,shield")
    assert on(g, "C2") == ["1/archer+", "1/crown", "1/shield"]
    assert g.state.graveyard[0] == [] and not g.state.eliminated[1]
    assert g.state.spent == ["ZHO-3", "KHA-1"]


def test_kha1_not_offered_when_the_defended_tile_is_not_a_castle() -> None:
    """KHA-1 condition, R16.8, R20.7: Khalisia loses both units on Field T4: no Keep."""
    g = at(FIELD_DEFENCE, ("kimbria", "khalisia"), [[], ["KHA-1"]])
    starting(g, "attack T7 T4")
    play(g, "nomagic", dice=[8, 8, 1, 1])  # Swords 8, 8; Shield 1, Sword 1
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic"]
    play(g, "nomagic")
    assert on(g, "T4") == ["0/sword", "0/sword"]
    assert g.state.hand[1] == ["KHA-1"]


# --- KHA-2 Harmony of the Sun --------------------------------------------------------------------


def test_kha2_moves_two_swords_onto_the_battle_tile_and_they_fight() -> None:
    """KHA-2, R16.11, R16.13: two Swords move from T7 to T4 at W1; three dice attack."""
    g = at(HARMONY, ("khalisia", "kimbria"), [["KHA-2"], ["KIM-1"]])
    starting(g, "attack T4 T6", "magic KHA-2")
    assert g.legal_texts() == ["nomagic"]  # KIM-1: T6 is a Mountain, not a Field
    play(g, "nomagic")
    assert pending(g) == (Decision.CARD, 0)
    # Archer 5, Sword 5, Sword 1; Shield 5, Mountain 5: two ties, no hit.
    play(g, "harmony T4 T7 - sword,sword", dice=[5, 5, 1, 5, 5])
    assert on(g, "T4") == ["0/archer", "0/sword", "0/sword"]
    assert on(g, "T7") == ["0/sword"]
    assert pools(g) == ([10, 8, 8], [10, 10])
    assert g.state.spent == ["KHA-2"]


def test_kha2_every_redistribution_keeps_both_tiles_held_and_within_capacity() -> None:
    """KHA-2, R4.6: each tile keeps one of your units and stays within capacity."""
    g = at(HARMONY_CAP, ("khalisia", "kimbria"), [["KHA-2"], []])
    starting(g, "attack T4 T7", "magic KHA-2")
    texts = g.legal_texts()
    s = g.state
    for text in texts:
        a = g.parse(text)
        assert a.tile2 in s.world.neighbours[a.tile]
        moved = len(a.units2) - len(a.units)
        for tile, after in ((a.tile, len(s.board[a.tile]) + moved),
                            (a.tile2, len(s.board[a.tile2]) - moved)):
            assert 1 <= after <= s.world.capacity[tile], text
    assert "harmony T4 T5 sword -" in texts
    assert "harmony T4 T5 sword,sword,sword archer,archer" in texts
    assert "harmony T4 T5 sword,sword -" not in texts  # Forest T5 would hold 4
    assert "harmony T4 T5 - archer,archer" not in texts  # T5 would be left empty
    assert "harmony T5 C1 archer,archer -" not in texts


def test_kha2_not_offered_without_two_adjacent_tiles() -> None:
    """KHA-2 condition, R16.8: C1 and T4 are not adjacent."""
    g = at(APART, ("khalisia", "kimbria"), [["KHA-2"], []])
    play(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]


# --- KHA-3 Dawn's Sword --------------------------------------------------------------------------


def test_kha3_each_sword_rolls_one_d12_instead() -> None:
    """KHA-3, R16.14 step 2: Sword and Sword+ each roll one D12 (not an extra die)."""
    g = at(SWORDS, ("khalisia", "kimbria"), [["KHA-3"], ["KIM-4"]])
    starting(g, "attack T4 T7", "magic KHA-3")
    play(g, "nomagic", dice=[5, 5, 5, 5, 5])  # all ties
    assert pools(g) == ([10, 12, 12], [10, 10])
    assert g.state.spent == ["KHA-3"] and g.state.hand == [[], ["KIM-4"]]


def test_kha3_d12_instead_then_sunblind_lowers_it_to_d10() -> None:
    """KHA-3, KIM-5, R16.14 steps 2-3, R20.13: the D12 replaces the die, then the shift."""
    g = at(SWORDS, ("khalisia", "kimbria"), [["KHA-3"], ["KIM-5"]])
    starting(g, "attack T4 T7", "magic KHA-3")
    play(g, "magic KIM-5", dice=[1, 1, 1, 10, 10])  # 2 hits on the attacker: a choice
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([8, 10, 10], [10, 10])
    assert g.state.spent == ["KHA-3", "KIM-5"]


def test_kha3_not_offered_without_a_sword_on_the_battle_tile() -> None:
    """KHA-3 condition, R26.3: a Sword on C1 does not take part."""
    g = at({"C1": "0/crown 0/sword", "T7": "0/archer", "T4": "1/shield", "C2": "1/crown"},
           ("khalisia", "kimbria"), [["KHA-3"], []])
    play(g, "attack T7 T4")
    assert g.legal_texts() == ["nomagic"]


# --- KHA-4 The Foundry Levies --------------------------------------------------------------------


def test_kha4_places_two_basics_from_the_reserve_on_the_battle_tile_they_fight() -> None:
    """KHA-4, R20.12: an Archer and a Shield from the reserve join T4 and roll dice."""
    g = at(TWO_SWORDS, ("khalisia", "kimbria"), [["KHA-4"], ["KIM-3"]])
    starting(g, "attack T4 T7", "magic KHA-4", "nomagic")
    assert pending(g) == (Decision.CARD, 0)
    texts = g.legal_texts()
    assert "deploy C1 sword,sword" in texts  # any tile you control with room
    assert not [t for t in texts if t.split()[1] not in ("T4", "C1")]
    play(g, "deploy T4 archer,shield", dice=[1, 1, 1, 1, 1])  # all ties with the Shield
    assert on(g, "T4") == ["0/archer", "0/shield", "0/sword", "0/sword"]
    assert pools(g) == ([10, 6, 8, 8], [10])
    reserve = g.state.reserve[0]
    assert (reserve[UnitType.ARCHER], reserve[UnitType.SHIELD], reserve[UnitType.SWORD]) == (
        3, 3, 2)
    assert g.state.spent == ["KHA-4"]


def test_kha4_places_only_as_many_as_fit() -> None:
    """KHA-4, R4.6, R20.12: T4 has room for one: only single units are offered there."""
    g = at({"C1": "0/crown", "T4": "0/sword 0/sword 0/archer", "T7": "1/shield",
            "C2": "1/crown"}, ("khalisia", "kimbria"), [["KHA-4"], []])
    starting(g, "attack T4 T7", "magic KHA-4")
    on_t4 = [t for t in g.legal_texts() if t.startswith("deploy T4 ")]
    assert on_t4 == ["deploy T4 archer", "deploy T4 shield", "deploy T4 sword"]


def test_kha4_not_offered_when_basics_are_only_in_a_graveyard() -> None:
    """KHA-4 condition, R20.12: the other ten basics are scalps of seat 1, not in reserve."""
    dead = ["0/sword"] * 2 + ["0/archer"] * 4 + ["0/shield"] * 4
    g = at(TWO_SWORDS, ("khalisia", "kimbria"), [["KHA-4"], []], graveyards=[[], dead])
    play(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]


# --- stop cards: KHA-5, KIM-1, NAN-1 (R16.10, R20.8) ---------------------------------------------


def stopped(g: Game, attacker_card: str, stop_card: str) -> None:
    """The attacker selects its card, the defender its stop: nothing happens (R16.10)."""
    before = board(g)
    reserves = [list(r) for r in g.state.reserve]
    play(g, attacker_card)
    assert pending(g) == (Decision.MAGIC, 1)
    step = play(g, f"magic {stop_card}")
    assert step.chance == () and g.state.battle is None  # R20.8: no dice
    assert board(g) == before and g.state.reserve == reserves  # nothing moves or dies
    assert g.state.graveyard == [[], []]
    assert g.state.spent == [stop_card]  # R20.6
    assert g.state.hand == [[attacker_card.split()[1]], []]  # back to the attacker's hand
    assert g.state.phase == Phase.PURCHASE  # R16.2: the battle was the action
    assert pending(g) == (Decision.PURCHASE, 0)
    assert not [t for t in g.legal_texts() if t.startswith("attack")]


def test_kha5_sealed_gates_stop_the_attack_on_a_castle() -> None:
    """KHA-5, R16.10, R20.8, R20.6, R16.2, R26.2: Golden Charge goes back unspent."""
    g = at(CASTLE, ("kimbria", "khalisia"), [["KIM-2"], ["KHA-5"]], gold=[1, 0])
    play(g, "attack T1 C2")
    stopped(g, "magic KIM-2", "KHA-5")


def test_kha5_not_offered_off_a_castle() -> None:
    """KHA-5 condition, R16.8: Khalisia defends Field T4."""
    g = at(FIELD_DEFENCE, ("kimbria", "khalisia"), [[], ["KHA-5"]])
    play(g, "attack T7 T4")
    assert g.legal_texts() == ["nomagic"]


def test_kim1_stops_the_attack_on_a_field_before_avalanche_kills() -> None:
    """KIM-1, NAN-3, R16.10, R20.8: the stop resolves first; Avalanche kills nobody."""
    g = at(MOUNTAIN_VS_SWORD, ("nanchia", "kimbria"), [["NAN-3"], ["KIM-1"]], gold=[1, 0])
    play(g, "attack T6 T4")
    stopped(g, "magic NAN-3", "KIM-1")
    assert on(g, "T4") == ["1/sword"]


def test_kim1_not_offered_off_a_field_nor_to_the_attacker() -> None:
    """KIM-1 condition, R16.8, R26.2: a Mountain is not a Field; only a defender stops."""
    g = at(SWORD_VS_MOUNTAIN, ("khalisia", "kimbria"), [[], ["KIM-1"]])
    play(g, "attack T4 T6")
    assert g.legal_texts() == ["nomagic"]
    g = at(TWO_SWORDS, ("kimbria", "khalisia"), [["KIM-1"], []])
    play(g, "attack T4 T7")  # T7 is a Field, but seat 0 attacks
    assert pending(g) == (Decision.MAGIC, 0)
    assert g.legal_texts() == ["nomagic"]


def test_nan1_stops_the_attack_on_a_mountain_before_the_levies_arrive() -> None:
    """NAN-1, KHA-4, R16.10, R20.8, R20.6: nothing is placed; KHA-4 goes back unspent."""
    g = at(SWORD_VS_MOUNTAIN, ("khalisia", "nanchia"), [["KHA-4"], ["NAN-1"]], gold=[1, 0])
    play(g, "attack T4 T6")
    stopped(g, "magic KHA-4", "NAN-1")


def test_nan1_not_offered_off_a_mountain() -> None:
    """NAN-1 condition, R16.8: Nanchia defends Field T4."""
    g = at(MOUNTAIN_VS_SWORD, ("khalisia", "nanchia"), [[], ["NAN-1"]])
    play(g, "attack T6 T4")
    assert g.legal_texts() == ["nomagic"]


@pytest.mark.parametrize("card", ["NAN-1", "NAN-3", "KHA-5"])
def test_r16_8_unusable_card_is_refused_and_changes_nothing(card: str) -> None:
    """R16.8, R20.7: NAN-1 off a Mountain, NAN-3 not in hand, KHA-5 off a castle."""
    g = at(MOUNTAIN_VS_SWORD, ("khalisia", "nanchia"), [[], ["NAN-1", "KHA-5"]])
    play(g, "attack T6 T4")
    assert pending(g) == (Decision.MAGIC, 1)
    before = position_to_json(g.state)
    with pytest.raises(IllegalActionError) as err:
        g.play(f"magic {card}")
    assert err.value.rule == "R16.8"
    assert position_to_json(g.state) == before


# --- KIM-2 Golden Charge, KIM-5 Sunblind (R20.13) ------------------------------------------------


def test_ex7_golden_charge_against_steadfast_line_nets_zero() -> None:
    """EX7, KIM-2, ARD-3, R20.13: +1 and -1: General D12, Catapult D10+D10, Sword D8."""
    g = at(EX7_CHARGE, ("kimbria", "ardinor"), [["KIM-2"], ["ARD-3"]])
    starting(g, "attack T4 T7", "magic KIM-2")
    play(g, "magic ARD-3", dice=[1, 1, 1, 1, 10, 10])  # 2 hits on 3 attackers: a choice
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([12, 10, 10, 8], [10, 10])
    assert g.state.spent == ["KIM-2", "ARD-3"] and g.state.hand == [[], []]


def test_ex7_sunblind_alone_catapult_d8_bow_d10_forest_bonus_stays_d10() -> None:
    """EX7, KIM-5, R20.13, R15.6, R14.5: each enemy unit one size lower, bonus dice never."""
    g = at(EX7_SUNBLIND, ("laurielle", "kimbria"), [[], ["KIM-5"]])
    starting(g, "attack T3 T4")
    play(g, "magic KIM-5", dice=[1, 1, 1, 1, 8, 1])  # 8v1 a hit on the attacker, 1v1 tie
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([8, 8, 10, 10], [8, 8])
    assert g.state.spent == ["KIM-5"]


def test_kim2_raises_every_die_and_a_d12_stays_d12() -> None:
    """KIM-2, R20.13: Crown D6->D8, General+ D12+D10 -> D12+D12, Sword D8->D10."""
    g = at({"T4": "0/crown 0/general+ 0/sword", "T7": "1/shield 1/shield", "C2": "1/crown"},
           ("kimbria", "khalisia"), [["KIM-2"], []])
    play(g, "attack T4 T7")
    play(g, "magic KIM-2", dice=[1, 1, 1, 1, 10, 10])  # 2 hits on the attacker: a choice
    assert pending(g) == (Decision.CASUALTY, 0)
    assert g.legal_texts() == ["casualty general+", "casualty sword"]
    assert pools(g) == ([8, 12, 12, 10], [10, 10])


def test_kim2_not_offered_without_a_field_nor_to_the_defender() -> None:
    """KIM-2 condition, R16.8: Forest T3 against Mountain T6; a defender never charges."""
    g = at({"C1": "0/crown", "T3": "0/sword", "T6": "1/shield", "C2": "1/crown"},
           ("kimbria", "khalisia"), [["KIM-2", "KIM-5"], []])
    play(g, "attack T3 T6")
    assert g.legal_texts() == ["nomagic"]
    g = at(TWO_SWORDS, ("khalisia", "kimbria"), [[], ["KIM-2"]])
    play(g, "attack T4 T7")
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic"]


def test_kim5_lowers_every_enemy_die_a_d6_stays_d6() -> None:
    """KIM-5, R20.13: Crown D6 stays D6, General+ D12+D10 -> D10+D8, Shield D10 -> D8."""
    g = at({"C1": "0/crown", "T4": "0/archer 0/sword 0/sword",
            "T7": "1/crown 1/general+ 1/shield"}, ("kimbria", "khalisia"), [["KIM-5"], []])
    play(g, "attack T4 T7")
    # Attacker 1, 1, 1; defender 1, 1, 1, 2: one hit on the attacker (Archer or Sword).
    play(g, "magic KIM-5", dice=[1, 1, 1, 1, 1, 1, 2])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([10, 8, 8], [6, 10, 8, 8])


def test_kim5_not_offered_without_a_field() -> None:
    """KIM-5 condition, R16.8: the defender on Mountain T6, attacked from Forest T3."""
    g = at({"C1": "0/crown", "T3": "0/sword", "T6": "1/shield", "C2": "1/crown"},
           ("khalisia", "kimbria"), [[], ["KIM-5"]])
    play(g, "attack T3 T6")
    assert g.legal_texts() == ["nomagic"]


# --- KIM-3 Roar of the Luminous Lion, KIM-4 Muster of the Pride ----------------------------------


def test_kim3_places_the_lion_from_the_reserve_on_the_battle_tile_it_fights() -> None:
    """KIM-3, R20.12, R14.2: the Lion joins the Sword on Field T4 and rolls a D12."""
    g = at(TWO_SWORDS | {"T4": "0/sword"}, ("kimbria", "khalisia"), [["KIM-3"], ["KHA-1"]])
    assert g.state.reserve_specials[0] == [KIMBRIA]
    starting(g, "attack T4 T7", "magic KIM-3")
    assert g.legal_texts() == ["nomagic"]
    # One option only: no choice is asked. Sword 1, Lion 1; Shield 1: a tie.
    play(g, "nomagic", dice=[1, 1, 1])
    assert pending(g) == (Decision.MAGIC, 1)  # R16.26: seat 1 still holds a card
    assert on(g, "T4") == ["0/special:kimbria", "0/sword"]
    assert g.state.reserve_specials[0] == []
    assert pools(g) == ([8, 12], [10])
    assert g.state.spent == ["KIM-3"]


def test_kim3_not_offered_with_the_lion_on_the_board_or_a_full_battle_tile() -> None:
    """KIM-3 condition, R16.8: no special unit in the reserve; no room on T4."""
    g = at(TWO_SWORDS | {"C1": "0/crown 0/special:kimbria"}, ("kimbria", "khalisia"),
           [["KIM-3"], []])
    play(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]
    g = at(TWO_SWORDS | {"T4": "0/sword 0/sword 0/archer 0/shield"}, ("kimbria", "khalisia"),
           [["KIM-3"], []])
    play(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]


def test_kim4_defender_musters_two_basics_on_its_field_and_they_fight() -> None:
    """KIM-4, R20.12: onto a Field you control only; an Archer and a Shield join T4."""
    g = at({"C1": "0/crown", "T7": "0/archer 0/sword 0/sword", "T4": "1/sword",
            "T1": "1/sword 1/sword 1/archer 1/archer", "C2": "1/crown"},
           ("khalisia", "kimbria"), [[], ["KIM-4"]])
    starting(g, "attack T7 T4", "magic KIM-4")
    assert pending(g) == (Decision.CARD, 1)
    texts = g.legal_texts()
    assert {t.split()[1] for t in texts} == {"T4"}  # T1 is full, C2 is not a Field
    assert "deploy T4 archer,shield" in texts and "deploy T4 shield,shield" in texts
    assert "deploy T4 sword,sword" not in texts  # one Sword is left in the reserve
    # Archer 1, Sword 1, Sword 1; Archer 6, Shield 1, Sword 1: one hit on the attacker.
    play(g, "deploy T4 archer,shield", dice=[1, 1, 1, 6, 1, 1])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert on(g, "T4") == ["1/archer", "1/shield", "1/sword"]
    assert pools(g) == ([10, 8, 8], [6, 10, 8])


def test_kim4_not_offered_without_a_field_of_your_own() -> None:
    """KIM-4 condition, R16.8: Kimbria holds Mountain T6 and castle C2 only."""
    g = at(SWORD_VS_MOUNTAIN, ("khalisia", "kimbria"), [[], ["KIM-4"]])
    play(g, "attack T4 T6")
    assert g.legal_texts() == ["nomagic"]


# --- NAN-2 Bronze Hide ---------------------------------------------------------------------------


def test_nan2_defender_saves_two_to_its_mountain_with_their_upgrades() -> None:
    """NAN-2, R20.11, R16.27: Shield+ and Sword return to T6; only the Archer is a scalp."""
    g = at(BEAR_HILL, ("khalisia", "nanchia"), [[], ["NAN-2"]])
    starting(g, "attack T4 T6")
    play(g, "nomagic", dice=BEAR_HILL_THREE_HITS)
    assert on(g, "T6") == []
    play(g, "magic NAN-2")
    texts = g.legal_texts()
    assert max(len(t.split()[1].split(",")) for t in texts) == 2  # up to 2
    play(g, "save shield+,sword")
    assert on(g, "T6") == ["1/shield+", "1/sword"]
    assert on(g, "T4") == ["0/general", "0/sword", "0/sword"]  # the defender holds
    assert refs(g.state.graveyard[0]) == ["1/archer"]
    assert g.state.spent == ["NAN-2"]


def test_nan2_never_saves_the_crown() -> None:
    """NAN-2, R20.11: the Crown fell with the others on T6 but is never offered."""
    g = at(BEAR_HILL | {"T6": "1/crown 1/shield+ 1/sword", "C2": "1/sword"},
           ("khalisia", "nanchia"), [[], ["NAN-2"]])
    starting(g, "attack T4 T6")
    play(g, "nomagic", dice=[12, 8, 8, 1, 1, 1, 1])  # Crown, Shield+, Sword, Mountain
    play(g, "magic NAN-2")
    assert g.legal_texts() == ["save shield+", "save sword", "save shield+,sword"]


def test_nan2_attacker_saves_onto_its_own_mountain() -> None:
    """NAN-2, R26.3, R20.11: "your battle tile" is A for the attacker."""
    g = at({"C1": "0/crown", "T6": "0/archer 0/sword+", "T7": "1/shield 1/shield 1/shield",
            "C2": "1/crown"}, ("nanchia", "kimbria"), [["NAN-2"], []])
    play(g, "attack T6 T7")
    assert g.legal_texts() == ["nomagic"]
    play(g, "nomagic", dice=[1, 1, 10, 10, 1])  # 2 hits on the attacker: both die
    assert on(g, "T6") == []
    assert pending(g) == (Decision.MAGIC, 0)
    play(g, "magic NAN-2")
    play(g, "save archer,sword+")
    assert on(g, "T6") == ["0/archer", "0/sword+"]
    assert on(g, "T7") == ["1/shield", "1/shield", "1/shield"]
    assert g.state.graveyard == [[], []]


def test_nan2_not_offered_off_a_mountain() -> None:
    """NAN-2 condition, R16.8: Nanchia loses both units on Field T4."""
    g = at(FIELD_DEFENCE, ("kimbria", "nanchia"), [[], ["NAN-2"]])
    starting(g, "attack T7 T4")
    play(g, "nomagic", dice=[8, 8, 1, 1])
    assert pending(g) == (Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic"]


# --- NAN-3 Avalanche -----------------------------------------------------------------------------


def test_nan3_kills_an_enemy_of_your_choice_never_the_crown() -> None:
    """NAN-3, R20.10, R20.14, R17.2: the Archer+ dies into the holder's graveyard, plain."""
    g = at(AVALANCHE, ("nanchia", "kimbria"), [["NAN-3"], []])
    play(g, "attack T6 T4")
    play(g, "magic NAN-3")
    assert pending(g) == (Decision.CARD, 0)
    assert g.legal_texts() == ["kill archer+ T4", "kill sword T4", "kill special:kimbria T4"]
    # Swords 1, 1; Crown 1, Sword 1, Lion 1: ties only.
    step = play(g, "kill archer+ T4", dice=[1, 1, 1, 1, 1])
    assert step.chance == (1, 1, 1, 1, 1)  # the Archer rolls no die
    assert on(g, "T4") == ["1/crown", "1/special:kimbria", "1/sword"]
    assert refs(g.state.graveyard[0]) == ["1/archer"]
    assert g.state.spent == ["NAN-3"]


def test_nan3_killed_special_unit_goes_to_its_owners_reserve() -> None:
    """NAN-3, R20.10, R14.7: the Lion returns to Kimbria's reserve; no scalp."""
    g = at(AVALANCHE, ("nanchia", "kimbria"), [["NAN-3"], []])
    play(g, "attack T6 T4")
    play(g, "magic NAN-3")
    play(g, "kill special:kimbria T4", dice=[1, 1, 1, 1, 1])  # Crown, Archer+, Sword
    assert g.state.reserve_specials[1] == [KIMBRIA]
    assert g.state.graveyard[0] == []
    assert on(g, "T4") == ["1/archer+", "1/crown", "1/sword"]


def test_nan3_kill_empties_d_no_dice_attacker_invades_w2_card_returns() -> None:
    """NAN-3, R16.12, R20.6, R17.6: no dice; the attacker wins; Sunblind back in hand."""
    g = at(MOUNTAIN_VS_SWORD, ("nanchia", "kimbria"), [["NAN-3"], ["KIM-5"]], gold=[1, 0])
    play(g, "attack T6 T4")
    play(g, "magic NAN-3")
    assert g.legal_texts() == ["nomagic", "magic KIM-5"]
    step = play(g, "magic KIM-5")  # a single target: no choice is asked
    assert step.chance == ()
    assert on(g, "T4") == ["0/archer", "0/sword"]
    assert on(g, "T6") == []
    assert refs(g.state.graveyard[0]) == ["1/sword"]
    assert g.state.spent == ["NAN-3"]
    assert g.state.hand == [[], ["KIM-5"]]
    assert g.state.phase == Phase.PURCHASE


def test_nan3_defender_kills_an_attacker_into_its_own_graveyard() -> None:
    """NAN-3 (either), R20.10, R17.2: Nanchia on Mountain T6 kills the attacking Sword."""
    g = at({"C1": "0/crown", "T4": "0/archer 0/sword", "T6": "1/shield", "C2": "1/crown"},
           ("khalisia", "nanchia"), [[], ["NAN-3"]])
    starting(g, "attack T4 T6", "magic NAN-3")
    assert g.legal_texts() == ["kill archer T4", "kill sword T4"]
    step = play(g, "kill sword T4", dice=[1, 1, 1])  # Archer 1; Shield 1, Mountain 1
    assert step.chance == (1, 1, 1)
    assert on(g, "T4") == ["0/archer"]
    assert refs(g.state.graveyard[1]) == ["0/sword"]


def test_nan3_not_offered_off_a_mountain_or_against_a_lone_crown() -> None:
    """NAN-3 condition, R16.8, R20.14: a Field battle tile; only a Crown on the enemy tile."""
    g = at(TWO_SWORDS, ("nanchia", "kimbria"), [["NAN-3"], []])
    play(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]
    g = at({"C1": "0/crown", "T6": "0/sword", "T7": "1/crown", "C2": "1/sword"},
           ("nanchia", "kimbria"), [["NAN-3"], []])
    play(g, "attack T6 T7")
    assert g.legal_texts() == ["nomagic"]



def test_r16_12_avalanche_kills_the_lone_attacker_defender_holds_w2_returns() -> None:
    """NAN-3, R16.12, R20.6: no attacker left after W1: no dice, Dawn's Sword back in hand."""
    g = at(SWORD_VS_MOUNTAIN, ("khalisia", "nanchia"), [["KHA-3"], ["NAN-3"]], gold=[1, 0])
    starting(g, "attack T4 T6", "magic KHA-3")
    step = play(g, "magic NAN-3")
    assert step.chance == ()
    assert on(g, "T4") == [] and on(g, "T6") == ["1/shield"]
    assert refs(g.state.graveyard[1]) == ["0/sword"]
    assert g.state.spent == ["NAN-3"] and g.state.hand == [["KHA-3"], []]
    assert g.state.phase == Phase.PURCHASE

# --- NAN-4 Strength of the Mountain, NAN-5 Bronze Engines ----------------------------------------


def test_nan4_raises_the_defenders_dice_not_the_mountain_bonus() -> None:
    """NAN-4, R20.13, R15.6: Crown D8, General+ D12+D12, Catapult D8; bonus D10 stays."""
    g = at({"C1": "0/crown", "T4": "0/sword", "T6": "1/crown 1/general+ 1/catapult"},
           ("khalisia", "nanchia"), [["KHA-5"], ["NAN-4"]])
    starting(g, "attack T4 T6", "nomagic")
    play(g, "magic NAN-4", dice=[1, 1, 1, 1, 1, 1])  # ties only
    assert pending(g) == (Decision.MAGIC, 0)  # R16.26: seat 0 still holds a card
    assert pools(g) == ([8], [8, 12, 12, 8, 10])


def test_nan4_not_offered_off_a_mountain() -> None:
    """NAN-4 condition, R16.8: the attacker's battle tile T4 is a Field."""
    g = at(TWO_SWORDS, ("nanchia", "kimbria"), [["NAN-4"], []])
    play(g, "attack T4 T7")
    assert g.legal_texts() == ["nomagic"]


def test_nan5_every_catapult_die_is_a_d12() -> None:
    """NAN-5, R16.14 step 2: Catapult D10+D10 and Catapult+ D12+D10 all become D12."""
    g = at({"C1": "0/crown", "T4": "0/catapult 0/catapult+ 0/sword", "T7": "1/shield",
            "C2": "1/crown"}, ("nanchia", "kimbria"), [["NAN-5"], ["KIM-1"]])
    starting(g, "attack T4 T7", "magic NAN-5")
    play(g, "nomagic", dice=[1, 1, 1, 1, 1, 1])  # ties only
    assert pending(g) == (Decision.MAGIC, 1)
    assert pools(g) == ([12, 12, 12, 12, 8], [10])


def test_nan5_defending_catapults_roll_d12() -> None:
    """NAN-5: a defending Catapult (D6) and Catapult+ (D8) each roll a D12."""
    g = at({"C1": "0/crown", "T4": "0/sword", "T7": "1/catapult 1/catapult+", "C2": "1/crown"},
           ("khalisia", "nanchia"), [["KHA-5"], ["NAN-5"]])
    starting(g, "attack T4 T7", "nomagic")
    play(g, "magic NAN-5", dice=[1, 1, 1])
    assert pools(g) == ([8], [12, 12])


def test_nan5_d12_then_sunblind_lowers_both_catapult_dice() -> None:
    """NAN-5, KIM-5, R16.14, R20.13: D12+D12 first, then one size lower: D10+D10."""
    g = at({"C1": "0/crown", "T4": "0/catapult 0/sword", "T7": "1/shield 1/sword",
            "C2": "1/crown"}, ("nanchia", "kimbria"), [["NAN-5"], ["KIM-5"]])
    starting(g, "attack T4 T7", "magic NAN-5")
    play(g, "magic KIM-5", dice=[1, 1, 1, 10, 1])  # 10v1 a hit on the attacker, 1v1 tie
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([10, 10, 6], [10, 8])


def test_nan5_not_offered_without_a_catapult_taking_part() -> None:
    """NAN-5 condition, R26.3: the Catapult on C1 is not on the battle tile."""
    g = at({"C1": "0/crown 0/catapult", "T7": "0/sword", "T4": "1/shield", "C2": "1/crown"},
           ("nanchia", "kimbria"), [["NAN-5"], []])
    play(g, "attack T7 T4")
    assert g.legal_texts() == ["nomagic"]


# --- text forms ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("position", "realms", "hands", "steps"), [
    (HARMONY, ("khalisia", "kimbria"), [["KHA-2"], []], ["attack T4 T6", "magic KHA-2"]),
    (TWO_SWORDS, ("khalisia", "kimbria"), [["KHA-4"], []], ["attack T4 T7", "magic KHA-4"]),
    (AVALANCHE, ("nanchia", "kimbria"), [["NAN-3"], []], ["attack T6 T4", "magic NAN-3"]),
    (EX6, ("kimbria", "khalisia"), [[], ["KHA-1"]], ["attack T1 C2", "nomagic", "magic KHA-1"]),
])
def test_every_offered_card_action_text_round_trips(
        position: dict[str, str], realms: list[str], hands: list[list[str]],
        steps: list[str]) -> None:
    """Text forms: magic, nomagic and each card choice (harmony, deploy, kill, save) offered
    on the way parse back to the same action."""
    g = at(position, realms, hands)
    for text in steps:
        for a in g.legal_actions():
            assert parse_action(format_action(a, g.state), g.state) == a
        play(g, text, dice=EX6_THREE_HITS if text == "nomagic" else ())
    assert pending(g)[0] == Decision.CARD
    for a in g.legal_actions():
        assert parse_action(format_action(a, g.state), g.state) == a


# --- general rules of section 20 -----------------------------------------------------------------


def test_r16_7_a_side_that_used_a_card_is_not_asked_after_the_battle() -> None:
    """R16.7, R20.4, R16.26: Khalisia used Dawn's Sword, so Keep cannot follow."""
    g = at(EX6 | {"C2": "1/crown 1/shield 1/sword"}, ("kimbria", "khalisia"),
           [[], ["KHA-3", "KHA-1"]])
    play(g, "attack T1 C2")
    assert g.legal_texts() == ["nomagic", "magic KHA-3"]
    # General 12, Swords 8, 8; Crown 1, Shield 9, Sword (D12) 1: 3 hits, all three die.
    play(g, "magic KHA-3", dice=[12, 8, 8, 1, 9, 1])
    assert g.state.eliminated[1] and g.is_over  # no after-battle window for seat 1
    assert g.state.spent == ["KHA-3"]
    assert refs(g.state.trophies[0]) == ["1/crown"]


def test_r20_2_only_players_in_the_battle_declare() -> None:
    """R20.2, R16.5, R16.26 (3 players): seat 2 holds a card but is never asked."""
    g = at({"C1": "0/crown", "T5": "0/sword", "C2": "1/crown 1/shield", "C3": "2/crown"},
           ("khalisia", "kimbria", "nanchia"), [["KHA-4"], ["KIM-1"], ["NAN-4"]], players=3)
    play(g, "attack T5 C2")
    asked = [pending(g)]
    play(g, "nomagic")
    asked.append(pending(g))
    play(g, "nomagic", dice=[1, 1, 1])  # Sword 1; Crown 1, Shield 1: a tie
    while g.state.battle is not None:
        asked.append(pending(g))
        play(g, "nomagic")
    assert asked == [(Decision.MAGIC, 0), (Decision.MAGIC, 1), (Decision.MAGIC, 0),
                     (Decision.MAGIC, 1)]
    assert g.state.hand == [["KHA-4"], ["KIM-1"], ["NAN-4"]] and g.state.spent == []


def test_r16_11_attackers_levies_resolve_before_the_defenders_avalanche() -> None:
    """R16.11, KHA-4, NAN-3: the units placed at W1 are already there for the defender's kill."""
    g = at(SWORD_VS_MOUNTAIN, ("khalisia", "nanchia"), [["KHA-4"], ["NAN-3"]])
    starting(g, "attack T4 T6", "magic KHA-4", "magic NAN-3")
    assert pending(g) == (Decision.CARD, 0)
    play(g, "deploy T4 archer,shield")
    assert pending(g) == (Decision.CARD, 1)
    assert g.legal_texts() == ["kill archer T4", "kill shield T4", "kill sword T4"]
    play(g, "kill archer T4", dice=[1, 1, 1, 1])  # Shield 1, Sword 1; Shield 1, Mountain 1
    assert on(g, "T4") == ["0/shield", "0/sword"]
    assert refs(g.state.graveyard[1]) == ["0/archer"]
    assert g.state.spent == ["KHA-4", "NAN-3"]


@pytest.mark.parametrize(("realms", "hands", "attacker_offers", "defender_offers"), [
    (("kimbria", "nanchia"), [[f"KIM-{n}" for n in range(1, 6)],
                              [f"NAN-{n}" for n in range(1, 6)]],
     ["KIM-2", "KIM-3", "KIM-4", "KIM-5"], ["NAN-1", "NAN-3", "NAN-4", "NAN-5"]),
    (("khalisia", "nanchia"), [[f"KHA-{n}" for n in range(1, 6)], ["KIM-1", "KHA-5"]],
     ["KHA-2", "KHA-3", "KHA-4"], []),
])
def test_r16_8_whole_hands_offer_exactly_the_usable_w1_w2_cards(
        realms: tuple[str, str], hands: list[list[str]], attacker_offers: list[str],
        defender_offers: list[str]) -> None:
    """R16.6, R16.8, R26.1: Field T4 (with C1 next to T7) attacks a Catapult on Mountain T6;
    W3 cards and cards of the other side are never offered at step B."""
    g = at({"C1": "0/crown", "T7": "0/archer", "T4": "0/sword 0/sword", "T6": "1/catapult",
            "C2": "1/crown"}, realms, hands)
    play(g, "attack T4 T6")
    assert g.legal_texts() == ["nomagic"] + [f"magic {c}" for c in attacker_offers]
    play(g, "nomagic")
    assert g.legal_texts() == ["nomagic"] + [f"magic {c}" for c in defender_offers]
