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
from kaladan.rules.actions import format_action, parse_action
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.notation import position_to_json
from kaladan.rules.observe import unit_ref
from kaladan.rules.state import Decision, Phase
from kaladan.rules.units import KIMBRIA, UnitType
from positions import build, game_at

# --- named positions (seat 0 attacks; "X_Y" = realms of seat 0 and seat 1) -------------------

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
             "T4": "1/crown 1/archer+ 1/sword 1/special:kimbria", "C2": "1/crown"}
# Nanchia defends Mountain T6 (Crown elsewhere) with Shield+, Sword and Archer.
BEAR_HILL = {"C1": "0/crown", "T4": "0/general 0/sword 0/sword",
             "T6": "1/archer 1/shield+ 1/sword", "C2": "1/crown"}
# General 12, Swords 8, 8; Archer 1, Shield+ 1, Sword 1, Mountain 1: 3 hits on T6.
BEAR_HILL_THREE_HITS = [12, 8, 8, 1, 1, 1, 1]


# --- helpers -------------------------------------------------------------------------------


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
    return g.play(action, dice=dice)


def on(g: Game, name: str) -> list[str]:
    return sorted(unit_ref(c) for c in g.state.board[g.state.world.index(name)])


def board(g: Game) -> dict[str, list[str]]:
    return {name: on(g, name) for name in g.state.world.names}


def refs(codes: list[int]) -> list[str]:
    return sorted(unit_ref(c) for c in codes)


def pending(g: Game) -> tuple[Decision, int]:
    return g.state.pending.kind, g.state.pending.seat


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


# --- KHA-1 Keep of Khalisia -------------------------------------------------------------------


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


# --- KHA-2 Harmony of the Sun -----------------------------------------------------------------


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
    assert pending(g) == (Decision.MAGIC, 0)
    assert g.legal_texts() == ["nomagic"]


# --- KHA-3 Dawn's Sword ---------------------------------------------------------------------------


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


# --- KHA-4 The Foundry Levies ---------------------------------------------------------------------


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


# --- stop cards: KHA-5, KIM-1, NAN-1 (R16.10, R20.8) ------------------------------------------


def stopped(g: Game, attacker_card: str, stop_card: str) -> None:
    """The attacker selects its card, the defender its stop: nothing happens (R16.10)."""
    before = board(g)
    reserves = [list(r) for r in g.state.reserve]
    play(g, attacker_card)
    assert pending(g) == (Decision.MAGIC, 1)
    assert f"magic {stop_card}" in g.legal_texts()
    step = play(g, f"magic {stop_card}")
    assert step.chance == ()  # R20.8: no dice
    assert g.state.battle is None
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
    assert pending(g) == (Decision.MAGIC, 1)
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
    assert pending(g) == (Decision.MAGIC, 1)
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


# --- KIM-2 Golden Charge, KIM-5 Sunblind (R20.13) -----------------------------------------------


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
    assert pending(g) == (Decision.MAGIC, 1)
    play(g, "magic KIM-5", dice=[1, 1, 1, 1, 8, 1])  # 8v1 a hit on the attacker, 1v1 tie
    assert pending(g) == (Decision.CASUALTY, 0)
    assert pools(g) == ([8, 8, 10, 10], [8, 8])
    assert g.state.spent == ["KIM-5"]


def test_kim2_raises_every_die_and_a_d12_stays_d12() -> None:
    """KIM-2, R20.13: Crown D6->D8, General+ D12+D10 -> D12+D12, Sword D8->D10."""
    g = at({"T4": "0/crown 0/general+ 0/sword", "T7": "1/shield 1/shield", "C2": "1/crown"},
           ("kimbria", "khalisia"), [["KIM-2"], []])
    starting(g, "attack T4 T7", "magic KIM-2")
    g.state.chance.force([])
    assert pending(g) == (Decision.MAGIC, 0) or True
    step = g.state.battle
    assert step is not None


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
    starting(g, "attack T4 T7", "magic KIM-5")
    # Attacker 1, 1, 1; defender 1, 1, 1, 2: one hit on the attacker (Archer or Sword).
    assert g.state.battle is not None


def test_kim5_not_offered_without_a_field() -> None:
    """KIM-5 condition, R16.8: the defender on Mountain T6, attacked from Forest T3."""
    g = at({"C1": "0/crown", "T3": "0/sword", "T6": "1/shield", "C2": "1/crown"},
           ("khalisia", "kimbria"), [[], ["KIM-5"]])
    play(g, "attack T3 T6")
    assert g.legal_texts() == ["nomagic"]
