"""The odds of an attack with each card of the attacker's hand (``odds.attack_card_odds``,
issue 40): exact, from named positions, checked against an independent count over every roll
of the dice (R16.15-R16.21) with the card's effect worked out by hand from section 26."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import product

import pytest

from kaladan.odds import CardOdds, OddsError, attack_card_odds, odds_for_attack
from kaladan.rules.actions import KILL
from kaladan.rules.state import GameState
from kaladan.rules.units import SHIELD, code
from positions import build

# Seat 0 (Laurielle) attacks from T7 (Field) onto T4 (Field) with an Archer and a Sword; seat 1
# (Kimbria) holds T4 with a Shield and a Sword. Seat 0 holds five Laurielle cards: LAU-2 (W2,
# its Archers roll D12), LAU-3 (W1, kill one enemy unit), LAU-5 (W1, its special unit comes
# from the reserve), LAU-4 (needs two Archers: not playable) and LAU-1 (a volley is its own
# attack, never a card of step B).
ARCHERS = {
    "C1": "0/crown 0/general",
    "T7": "0/archer 0/sword",
    "C2": "1/crown 1/general",
    "T4": "1/shield 1/sword",
}
HAND = ["LAU-1", "LAU-2", "LAU-3", "LAU-4", "LAU-5"]


def laurielle(defender_hand: Sequence[str] = ()) -> GameState:
    return build(ARCHERS, homes=["C1", "C2"], realms=("laurielle", "kimbria"),
                 hands=[HAND, list(defender_hand)])


def counted(attack: Sequence[int], defence: Sequence[int], defenders: int, *,
            cap_a: int, cap_d: int, killed: int = 0) -> tuple[Fraction, Fraction, Fraction]:
    """(chance to win, expected attacker losses, expected defender losses) by going through
    every roll: each side sorts its dice, pairs by rank, the lower die of a pair takes a hit
    (R16.17-R16.19), losses capped (R16.21); the attacker wins when no defender is left."""
    sizes = list(attack) + list(defence)
    wins = lost_a = lost_d = 0
    rolls = 0
    for faces in product(*(range(1, s + 1) for s in sizes)):
        a = sorted(faces[:len(attack)], reverse=True)
        d = sorted(faces[len(attack):], reverse=True)
        hits_a = sum(1 for x, y in zip(a, d, strict=False) if y > x)
        hits_d = sum(1 for x, y in zip(a, d, strict=False) if x > y)
        la, ld = min(hits_a, cap_a), killed + min(hits_d, cap_d)
        rolls += 1
        wins += ld == defenders
        lost_a += la
        lost_d += ld
    return Fraction(wins, rolls), Fraction(lost_a, rolls), Fraction(lost_d, rolls)


def by_card(state: GameState, a: str, d: str) -> dict[str, CardOdds]:
    w = state.world
    return {c.card: c for c in attack_card_odds(state, w.index(a), w.index(d))}


def figures(card: CardOdds) -> tuple[Fraction, Fraction, Fraction]:
    o = card.odds
    return o.attacker_wins, o.expected_attacker_losses, o.expected_defender_losses


def test_only_the_cards_the_attacker_may_select_now_are_given() -> None:
    # R16.6-R16.8: W1/W2 cards whose condition holds; LAU-4 wants two Archers, LAU-1 is a
    # volley (R16.9).
    assert sorted(by_card(laurielle(), "T7", "T4")) == ["LAU-2", "LAU-3", "LAU-5"]


def test_a_dice_card_changes_the_pools_as_counted_by_hand() -> None:
    # LAU-2: the Archer rolls D12 instead of D10; the Sword D8; defence Shield D10, Sword D8.
    card = by_card(laurielle(), "T7", "T4")["LAU-2"]
    assert card.choice is None
    assert figures(card) == counted([12, 8], [10, 8], 2, cap_a=2, cap_d=2)
    # the same figure as the standalone W2 query of the engine's odds
    state = laurielle()
    w = state.world
    assert card.odds.attacker_wins == odds_for_attack(state, w.index("T7"), w.index("T4"),
                                                      "LAU-2").attacker_wins


def test_a_kill_card_gives_its_best_target() -> None:
    # LAU-3 (R20.10): one enemy unit dies before the dice; killing the Shield leaves a Sword
    # (D8), killing the Sword leaves a Shield (D10): the Shield is the better target.
    card = by_card(laurielle(), "T7", "T4")["LAU-3"]
    assert card.choice is not None and card.choice.kind is KILL
    assert card.choice.units == (code(1, 1, SHIELD),)
    expected = counted([10, 8], [8], 2, cap_a=2, cap_d=1, killed=1)
    assert figures(card) == expected
    worse = counted([10, 8], [10], 2, cap_a=2, cap_d=1, killed=1)
    assert worse[0] < expected[0]
    assert expected[0] == Fraction(109, 160)  # the figure docs/api.md shows


def test_a_placement_card_adds_the_special_unit_to_the_attack() -> None:
    # LAU-5 (R20.12): the Bow of Laurielle comes onto T7 and attacks with a D12 (R14.1).
    card = by_card(laurielle(), "T7", "T4")["LAU-5"]
    assert figures(card) == counted([12, 10, 8], [10, 8], 2, cap_a=3, cap_d=2)
    assert card.odds.attacker_units == 3


def test_the_defenders_hand_changes_nothing() -> None:
    # The defender is taken to play no card; what it holds is never read into the figures.
    plain = {k: figures(v) for k, v in by_card(laurielle(), "T7", "T4").items()}
    holding = {k: figures(v) for k, v in
               by_card(laurielle(["KIM-1", "KIM-5"]), "T7", "T4").items()}
    assert plain == holding


def sneak(board: dict[str, str]) -> CardOdds:
    state = build(board, homes=["C1", "C2"], realms=("zhojira", "kimbria"), hands=[["ZHO-4"], []])
    return by_card(state, "T5", "T4")["ZHO-4"]


def test_a_sneak_attack_loses_nothing_and_cannot_take_a_crown() -> None:
    # ZHO-4 from a Forest (T5, +D10 bonus, R15.3): no hit on the attacker's units; a Crown on
    # the defended tile cannot be killed (R20.14), so the attacker cannot win there.
    base = {"C1": "0/crown 0/general", "T5": "0/sword", "C2": "1/crown 1/general"}
    card = sneak({**base, "T4": "1/sword"})
    assert figures(card) == counted([8, 10], [8], 1, cap_a=0, cap_d=1)
    assert card.odds.expected_attacker_losses == 0
    crowned = sneak({"C1": "0/crown 0/general", "T5": "0/sword", "C2": "1/general",
                     "T4": "1/crown 1/sword"})
    assert crowned.odds.attacker_wins == 0
    assert figures(crowned) == counted([8, 10], [6, 8], 2, cap_a=0, cap_d=1)


def test_a_kill_that_leaves_no_defender_wins_without_dice() -> None:
    # R16.12: LAU-3 kills the only defender; the battle is won without a roll.
    state = build({"C1": "0/crown 0/general", "T7": "0/archer", "C2": "1/crown 1/general",
                   "T4": "1/sword"}, homes=["C1", "C2"], realms=("laurielle", "kimbria"),
                  hands=[["LAU-3"], []])
    card = by_card(state, "T7", "T4")["LAU-3"]
    assert card.odds.attacker_wins == 1
    assert card.odds.expected_defender_losses == 1 and card.odds.expected_attacker_losses == 0
    assert card.choice is None  # one target: the engine asks nothing


def test_no_attack_no_odds() -> None:
    state = laurielle()
    w = state.world
    with pytest.raises(OddsError):
        attack_card_odds(state, w.index("T7"), w.index("C2"))  # not adjacent
