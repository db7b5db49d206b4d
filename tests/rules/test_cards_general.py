"""General rules of magic cards (section 20) not tied to one card: timing windows, declaration
order and commitment, whose units an effect touches, and what "a tile you control" means."""

from __future__ import annotations

from kaladan.game import Game
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.observe import observe
from kaladan.rules.state import Decision, Pending
from positions import build, game_at

# Ardinor (seat 1) holds Field T4 with two Shields; seat 0 attacks from Field T7 with Swords.
ARDINOR_FIELD = {"C1": "0/crown", "T7": "0/sword 0/sword 0/sword", "T4": "1/shield 1/shield",
                 "C2": "1/crown"}
# Khalisia (seat 0) holds T7 and C1; T4 is empty, T5 is seat 1's.
KHALISIA_SPREAD = {"C1": "0/crown", "T7": "0/sword 0/sword", "T5": "1/shield",
                   "C2": "1/crown"}


def ardinor_defends(hands: list[list[str]]) -> Game:
    return game_at(build(ARDINOR_FIELD, realms=("kimbria", "ardinor"), hands=hands))


def test_r20_3_w1_and_w2_cards_at_declaration_w3_cards_only_after_the_battle() -> None:
    """R20.3, R16.6: a W3 card (ARD-4) is not offered at step B; it is once units died."""
    g = ardinor_defends([[], ["ARD-1", "ARD-3", "ARD-4"]])
    g.play("attack T7 T4")
    assert g.state.pending == Pending(Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic", "magic ARD-1", "magic ARD-3"]
    # Swords 8, 8, 8 against Shields 2, 2: two hits, both Shields die.
    g.play("nomagic", dice=[8, 8, 8, 2, 2])
    assert g.state.pending == Pending(Decision.MAGIC, 1)
    assert g.legal_texts() == ["nomagic", "magic ARD-4"]


def test_r20_5_attacker_declares_first_and_a_selected_card_cannot_be_taken_back() -> None:
    """R20.5, R16.5: attacker first; once selected, the card stays selected until revealed."""
    g = ardinor_defends([["KIM-2"], ["ARD-3"]])
    g.play("attack T7 T4")
    assert g.state.pending == Pending(Decision.MAGIC, 0)
    g.play("magic KIM-2")
    assert g.state.pending == Pending(Decision.MAGIC, 1)
    assert observe(g.state, 1)["battle"]["cards"] == {"0": "committed"}
    try:
        g.play("nomagic", seat=0)  # the attacker cannot take it back
    except IllegalActionError as exc:
        assert exc.rule == "R6.5"
    else:
        raise AssertionError("the attacker changed its declaration")
    g.play("magic ARD-3", dice=[8, 8, 8, 2, 2])
    assert sorted(g.state.spent) == ["ARD-3", "KIM-2"]


def test_r20_15_an_effect_touches_only_its_holders_units() -> None:
    """R20.15: Golden Charge raises the attacker's dice only; the defender's stay as they are."""
    board = dict(ARDINOR_FIELD, T4="1/shield 1/sword")
    g = game_at(build(board, realms=("kimbria", "ardinor"), hands=[["KIM-2"], []]))
    g.play("attack T7 T4")
    # 10, 10, 10 against Shield 10, Sword 8: one hit, and the defender chooses which unit.
    g.play("magic KIM-2", dice=[10, 10, 10, 10, 8])
    assert g.state.pending == Pending(Decision.CASUALTY, 1)
    battle = g.state.battle
    assert battle is not None
    assert battle.attack_dice == [10, 10, 10]  # Swords D8 -> D10
    assert battle.defence_dice == [10, 8]  # Shield D10 and Sword D8 as printed


def test_r20_17_a_tile_you_control_is_one_with_a_unit_of_the_holder() -> None:
    """R20.17, R20.12: The Foundry Levies place units only on tiles where the holder stands."""
    g = game_at(build(KHALISIA_SPREAD, realms=("khalisia", "ardinor"), hands=[["KHA-4"], []]))
    g.play("attack T7 T5")
    g.play("magic KHA-4")
    tiles = {text.split()[1] for text in g.legal_texts()}
    assert tiles == {"C1", "T7"}  # never the empty T4 or the enemy's T5
