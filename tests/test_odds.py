"""Exact battle odds (``kaladan.odds``, ``kaladan odds``): sections 13-16, 20, EX1, EX2, EX5, EX7.

The exact distribution is checked three ways: against brute-force enumeration of every roll
through the engine's own ``combat.compare`` for small pools, against a seeded Monte-Carlo run
of the engine's real battle procedure for big pools, and against the worked examples.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
import sys
from fractions import Fraction

import pytest

from kaladan.odds import (
    BattleSpec,
    DiceOptions,
    Odds,
    OddsError,
    card_modifiers,
    dice_pools,
    hit_distribution,
    odds,
    odds_for_attack,
)
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.chance import Chance
from kaladan.rules.combat import Modifiers, compare
from kaladan.rules.kinds import parse_action
from kaladan.rules.legal import legal_actions
from kaladan.rules.state import Decision, GameState
from kaladan.rules.units import (
    ARCHER,
    CATAPULT,
    CROWN,
    GENERAL,
    KHALISIA,
    LAURIELLE,
    SHIELD,
    SPECIAL,
    SWORD,
    ZHOJIRA,
    code,
)
from kaladan.rules.world import Terrain
from positions import build

FIELD, FOREST, MOUNTAIN, CASTLE = Terrain.FIELD, Terrain.FOREST, Terrain.MOUNTAIN, Terrain.CASTLE


def att(utype: int, up: bool = False, realm: int = 0) -> int:
    return code(0, realm, utype, up)


def dfd(utype: int, up: bool = False, realm: int = 0) -> int:
    return code(1, realm, utype, up)


def brute_hits(attack: list[int], defence: list[int], drop: bool,
               scales: bool) -> dict[tuple[int, int], Fraction]:
    """Every roll of every die, through the engine's ``compare`` (R16.15-R16.20)."""
    counts: dict[tuple[int, int], int] = {}
    faces = [range(1, s + 1) for s in attack + defence]
    n = len(attack)
    for roll in itertools.product(*faces):
        hits = compare(list(roll[:n]), list(roll[n:]), drop, scales)
        counts[hits] = counts.get(hits, 0) + 1
    total = math.prod(attack + defence)
    return {k: Fraction(v, total) for k, v in counts.items()}


def brute_losses(spec: BattleSpec) -> dict[tuple[int, int], Fraction]:
    """R16.21 on top of the brute-force hits: a side loses min(hits, its units)."""
    attack, defence, drop = dice_pools(spec)
    out: dict[tuple[int, int], Fraction] = {}
    for (ha, hd), p in brute_hits(attack, defence, drop, spec.scales).items():
        key = (min(ha, len(spec.attackers)), min(hd, len(spec.defenders)))
        out[key] = out.get(key, Fraction(0)) + p
    return out


def as_dict(result: Odds) -> dict[tuple[int, int], Fraction]:
    return {(la, ld): p for la, ld, p in result.outcomes}


# --- exactness against brute force -------------------------------------------------------


def small_pools() -> list[tuple[list[int], list[int]]]:
    """Hand-picked and seeded random pools of up to 6 dice (at most 50,000 rolls each)."""
    rng = random.Random(20240611)
    pools = [([6], [6]), ([12], [6]), ([6, 6], [6]), ([8], [10, 10]), ([12, 10, 8], [6, 6, 6]),
             ([8, 8, 6], [8, 8, 6]), ([6, 6, 6, 6, 6], [12]), ([12], [6, 6, 6, 6, 6]),
             ([6, 6, 6], [6, 6, 6]), ([12, 12], [12, 12])]
    while len(pools) < 36:
        na = rng.randint(1, 4)
        nd = rng.randint(1, 6 - na)
        pool = ([rng.choice((6, 8, 10, 12)) for _ in range(na)],
                [rng.choice((6, 8, 10, 12)) for _ in range(nd)])
        if math.prod(pool[0] + pool[1]) <= 50_000:
            pools.append(pool)
    return pools


def brute_all(attack: list[int], defence: list[int]) -> dict[tuple[bool, bool], dict[
        tuple[int, int], Fraction]]:
    """``brute_hits`` for the four (drop_lowest, scales) variants in one pass over the rolls."""
    variants = [(drop, scales) for drop in (False, True) for scales in (False, True)]
    counts: dict[tuple[bool, bool], dict[tuple[int, int], int]] = {v: {} for v in variants}
    n = len(attack)
    for roll in itertools.product(*[range(1, s + 1) for s in attack + defence]):
        a, d = list(roll[:n]), list(roll[n:])
        for v in variants:
            hits = compare(a, d, *v)
            counts[v][hits] = counts[v].get(hits, 0) + 1
    total = math.prod(attack + defence)
    return {v: {k: Fraction(c, total) for k, c in counts[v].items()} for v in variants}


@pytest.mark.parametrize(("attack", "defence"), small_pools())
def test_hit_distribution_equals_brute_force(attack: list[int], defence: list[int]) -> None:
    """R16.15-R16.20, R15.4, EG2: every roll enumerated, compared by the engine's ``compare``."""
    for (drop, scales), expected in brute_all(attack, defence).items():
        exact = hit_distribution(attack, defence, drop, scales)
        assert exact.total == math.prod(attack + defence)
        assert exact.probabilities() == expected


UNIT_BATTLES = [
    # EX5: a lone Catapult on a Forest against three Swords: losses capped at one unit.
    BattleSpec((att(CATAPULT),), (dfd(SWORD),) * 3, FOREST, FIELD),
    BattleSpec((att(GENERAL),), (dfd(SHIELD, True), dfd(SWORD)), FIELD, MOUNTAIN,
               options=DiceOptions(mountain_defence="drop_lowest")),
    BattleSpec((att(ARCHER), att(SWORD)), (dfd(CROWN),), FIELD, CASTLE, fortified=True,
               options=DiceOptions(crown_defence_in_castle="d8")),
    BattleSpec((att(SPECIAL, realm=KHALISIA), att(SWORD)), (dfd(CROWN), dfd(SWORD)),
               MOUNTAIN, FIELD, scales=True),
    BattleSpec((att(SPECIAL, realm=ZHOJIRA),), (dfd(SPECIAL, realm=ZHOJIRA), dfd(ARCHER)),
               FOREST, FOREST, options=DiceOptions(wolf_d12="attack_from_forest")),
    BattleSpec((att(CATAPULT, True),), (dfd(SWORD), dfd(SWORD)), FIELD, MOUNTAIN,
               attacker_mods=Modifiers(shift=-1), scales=True),
]


@pytest.mark.parametrize("spec", UNIT_BATTLES)
def test_losses_equal_brute_force_with_caps(spec: BattleSpec) -> None:
    """R16.21: losses are min(hits, units) of the exact hits, for unit compositions."""
    from kaladan.odds import battle_odds

    result = battle_odds(spec)
    assert as_dict(result) == brute_losses(spec)
    assert sum(as_dict(result).values()) == 1


def test_win_chance_is_the_float_of_the_exact_chance_of_winning() -> None:
    """win_chance (what the greedy bot weighs attacks by) is float(attacker_wins) exactly,
    over random battles of every unit type, terrain, option and Scales; and it refuses the
    same impossible battles."""
    from kaladan.odds import battle_odds, win_chance

    rng = random.Random(7)
    types = [SWORD, ARCHER, SHIELD, GENERAL, CATAPULT, CROWN]
    terrains = [FIELD, FOREST, MOUNTAIN, CASTLE]
    for spec in UNIT_BATTLES:
        assert win_chance(spec) == float(battle_odds(spec).attacker_wins)
    compared = 0
    while compared < 150:
        attackers = tuple(att(rng.choice(types[:-1]), rng.random() < 0.3)
                          for _ in range(rng.randint(1, 3)))
        defenders = tuple(sorted({dfd(rng.choice(types), rng.random() < 0.3)
                                  for _ in range(rng.randint(1, 3))}))
        d_terrain = rng.choice(terrains)
        spec = BattleSpec(attackers, defenders, rng.choice(terrains), d_terrain,
                          fortified=d_terrain == CASTLE and rng.random() < 0.5,
                          options=DiceOptions(mountain_defence=rng.choice(
                              ("keep_all", "drop_lowest"))), scales=rng.random() < 0.3)
        try:
            expected = float(battle_odds(spec).attacker_wins)
        except OddsError:
            with pytest.raises(OddsError):
                win_chance(spec)
            continue
        assert win_chance(spec) == expected
        compared += 1


def test_ex5_hits_beyond_the_units_present_are_ignored() -> None:
    """EX5: D10 D10 + Forest D10 against D8 D8 D8; the attacker loses at most its one unit."""
    result = odds([att(CATAPULT)], [dfd(SWORD)] * 3, FOREST, FIELD)
    assert sorted(result.attack_dice) == [10, 10, 10]
    assert sorted(result.defence_dice) == [8, 8, 8]
    assert max(la for la, _, _ in result.outcomes) == 1
    # EX5's rolls (6, 4, 3 against 8, 7, 5) give three hits on the attacker: losses (1, 0).
    assert compare([6, 4, 3], [8, 7, 5], False, False) == (3, 0)
    assert result.probability(1, 0) > 0
    assert result.expected_attacker_losses <= 1


# --- worked examples ---------------------------------------------------------------------

EX1_ATTACK = [att(GENERAL), att(CATAPULT), att(SWORD)]
EX1_DEFENCE = [dfd(SHIELD, True), dfd(SHIELD)]
EX1_ROLLS = ([7, 9, 9, 2, 1], [12, 9, 2])


def test_ex1_pools_and_outcome() -> None:
    """EX1: 5 attack dice (D12 D10 D10 D8 + Forest D10) against 3 (D12 D10 + Mountain D10)."""
    result = odds(EX1_ATTACK, EX1_DEFENCE, FOREST, MOUNTAIN)
    assert sorted(result.attack_dice) == [8, 10, 10, 10, 12]
    assert sorted(result.defence_dice) == [10, 10, 12]
    assert compare(*EX1_ROLLS, False, False) == (1, 1)
    assert result.probability(1, 1) > 0  # EX1: each side loses one unit, the defender holds
    assert sum(p for _, _, p in result.outcomes) == 1
    assert 0 < result.attacker_wins < 1
    assert result.attacker_wins + result.defender_holds == 1
    # Five dice with a General against three: the attacker is the favourite.
    assert result.attacker_wins > Fraction(1, 2)
    assert result.expected_defender_losses > result.expected_attacker_losses
    assert all(la <= 3 and ld <= 2 for la, ld, _ in result.outcomes)


def test_ex2_drop_lowest_and_scales() -> None:
    """EX2 (a): drop_lowest leaves two pairs; (b): under Scales a tie hits the defender."""
    plain = odds(EX1_ATTACK, EX1_DEFENCE, FOREST, MOUNTAIN)
    drop = odds(EX1_ATTACK, EX1_DEFENCE, FOREST, MOUNTAIN,
                options={"mountain_defence": "drop_lowest"})
    assert compare(*EX1_ROLLS, True, False) == (1, 0)
    assert drop.probability(1, 0) > 0
    assert drop.drop_lowest and not plain.drop_lowest
    assert all(la + ld <= 2 for la, ld, _ in drop.outcomes)  # only two pairs
    # Only the defender's two best dice pair: the attacker must win both pairs to take D.
    assert drop.attacker_wins < plain.attacker_wins
    scales = odds(EX1_ATTACK, EX1_DEFENCE, FOREST, MOUNTAIN, scales=True)
    assert compare(*EX1_ROLLS, False, True) == (1, 2)
    assert scales.probability(1, 2) > 0
    assert scales.attacker_wins > plain.attacker_wins
    assert scales.expected_defender_losses > plain.expected_defender_losses
    assert all(la + ld == 3 for la, ld, _ in scales.outcomes if ld < 2 and la < 3)


# --- magic cards (R16.14, R20.13) ---------------------------------------------------------


def test_ex7_golden_charge_and_steadfast_line_cancel() -> None:
    """EX7: +1 (KIM-2) and -1 (ARD-3) net to nothing: General D12, Sword D8, Catapult 2xD10."""
    mods_a, mods_d = card_modifiers("KIM-2", "ARD-3")
    assert mods_a.shift == 0 and mods_d == Modifiers()
    units = (att(GENERAL), att(SWORD), att(CATAPULT))
    with_cards = BattleSpec(units, (dfd(SHIELD),), FOREST, FIELD, attacker_mods=mods_a,
                            defender_mods=mods_d)
    without = BattleSpec(units, (dfd(SHIELD),), FOREST, FIELD)
    assert sorted(dice_pools(with_cards)[0]) == sorted(dice_pools(without)[0]) \
        == [8, 10, 10, 10, 12]
    assert odds(units, [dfd(SHIELD)], FOREST, FIELD, attacker_card="KIM-2",
                defender_card="ARD-3") == odds(units, [dfd(SHIELD)], FOREST, FIELD)


def test_ex7_sunblind_lowers_units_but_not_the_forest_die() -> None:
    """EX7: under Sunblind (KIM-5, defender) the Catapult rolls D8 D8, the Bow D10, Forest D10."""
    units = [att(CATAPULT), att(SPECIAL, realm=LAURIELLE)]
    lowered = odds(units, [dfd(SWORD)], FOREST, FIELD, defender_card="KIM-5")
    assert sorted(lowered.attack_dice) == [8, 8, 10, 10]
    plain = odds(units, [dfd(SWORD)], FOREST, FIELD)
    assert sorted(plain.attack_dice) == [10, 10, 10, 12]
    assert lowered.attacker_wins < plain.attacker_wins


def test_lau2_archers_roll_a_d12_instead() -> None:
    """LAU-2: a plain Archer attacks with a D12 instead of a D10, like an upgraded one."""
    defence = [dfd(SHIELD), dfd(SWORD, True)]
    card = odds([att(ARCHER), att(ARCHER)], defence, attacker_card="LAU-2")
    upgraded = odds([att(ARCHER, True), att(ARCHER, True)], defence)
    plain = odds([att(ARCHER), att(ARCHER)], defence)
    assert card.attack_dice == upgraded.attack_dice == (12, 12)
    assert card.outcomes == upgraded.outcomes
    assert card.attacker_wins > plain.attacker_wins
    # ARD-2 on defence: a Shield rolls one D12 instead of its D10.
    wall = odds([att(ARCHER)], defence, defender_card="ARD-2")
    assert sorted(wall.defence_dice) == [10, 12]


def test_cards_shift_the_pools_as_the_engine_does() -> None:
    """KIM-2 raises the attacker's units, ARD-3 lowers them; NAN-5 makes Catapults roll D12s."""
    units = [att(GENERAL, True), att(SWORD), att(CATAPULT)]
    assert sorted(odds(units, [dfd(SWORD)], attacker_card="KIM-2").attack_dice) \
        == [10, 12, 12, 12, 12]
    assert sorted(odds(units, [dfd(SWORD)], defender_card="ARD-3").attack_dice) \
        == [6, 8, 8, 8, 10]
    assert sorted(odds(units, [dfd(SWORD)], attacker_card="NAN-5").attack_dice) \
        == [8, 10, 12, 12, 12]


@pytest.mark.parametrize(("attacker_card", "defender_card"),
                         [("KIM-1", None), ("ZHO-4", None), ("LAU-1", None), ("NOPE-1", None),
                          (None, "KIM-2"), (None, "ARD-4")])
def test_a_card_without_a_dice_effect_is_an_error(attacker_card: str | None,
                                                  defender_card: str | None) -> None:
    with pytest.raises(OddsError):
        card_modifiers(attacker_card, defender_card)


@pytest.mark.parametrize(("attackers", "defenders", "a_terrain"), [
    ([att(SWORD)] * 4, [dfd(SWORD)], FOREST),  # R4.5: a Forest holds 3
    ([att(CROWN), att(CROWN)], [dfd(SWORD)], FIELD),
    ([], [dfd(SWORD)], FIELD),
    ([att(CATAPULT)] * 3, [dfd(SWORD)], FIELD),  # a kit has two Catapults
])
def test_impossible_battles_are_errors(attackers: list[int], defenders: list[int],
                                       a_terrain: Terrain) -> None:
    with pytest.raises(OddsError):
        odds(attackers, defenders, a_terrain, FIELD)


# --- the engine's real battle procedure, many seeds ----------------------------------------

# 2-player standard world: T1 Field, T2 Mountain, T3 Forest, T4 Field, T6 Mountain, C2 castle;
# T3-T6, T4-T6, T4-T2 and T1-C2 are adjacent. Crowns stay out of the battle (no elimination).
MONTE_CARLO = [
    ("forest_vs_mountain", {"C1": "0/crown", "T3": "0/general+ 0/catapult+ 0/sword+",
                            "T6": "1/shield+ 1/shield 1/special:nanchia", "C2": "1/crown"},
     ("khalisia", "nanchia"), "T3", "T6", [], [], {}),
    ("field_vs_upgraded_castle",
     {"C1": "0/crown", "T1": "0/general+ 0/catapult 0/catapult+ 0/archer",
      "C2": "1/shield+ 1/sword+ 1/archer 1/general+ 1/shield", "T6": "1/crown"},
     ("khalisia", "kimbria"), "T1", "C2", [], [], {}),
    ("cards_drop_lowest",
     {"C1": "0/crown", "T4": "0/archer 0/archer 0/sword 0/catapult",
      "T6": "1/shield+ 1/sword 1/archer", "C2": "1/crown"},
     ("laurielle", "ardinor"), "T4", "T6", ["LAU-2"], ["ARD-3"],
     {"mountain_defence": "drop_lowest"}),
    ("scales_golden_charge",
     {"C1": "0/crown", "T4": "0/sword+ 0/shield 0/archer+ 0/special:kimbria",
      "T2": "1/sword+ 1/sword 1/shield+", "C2": "1/crown"},
     ("kimbria", "nanchia"), "T4", "T2", ["KIM-2"], [], {}),
]
TRIALS = 8000


def engine_battle(base: GameState, a: int, d: int, seed: int,
                  cards: dict[int, str]) -> tuple[int, int]:
    """Play one attack with the engine (unforced dice); return (attacker, defender) losses."""
    s = base.copy()
    s.chance = Chance(seed)
    n_a, n_d = len(s.board[a]), len(s.board[d])
    apply_unchecked(s, parse_action(f"attack {s.world.names[a]} {s.world.names[d]}", s))
    while s.battle is not None:
        seat = s.pending.seat
        if s.pending.kind == Decision.MAGIC and seat in cards and cards[seat] in s.hand[seat]:
            action = parse_action(f"magic {cards[seat]}", s)
        else:
            action = legal_actions(s)[0]
        apply_unchecked(s, action)
    left_a = sum(1 for t in (a, d) for c in s.board[t] if c >> 7 == 0)
    left_d = sum(1 for c in s.board[d] if c >> 7 == 1)
    return n_a - left_a, n_d - left_d


@pytest.mark.parametrize(("name", "board", "realms", "a_name", "d_name", "hand_a", "hand_d",
                          "options"), MONTE_CARLO, ids=[m[0] for m in MONTE_CARLO])
def test_monte_carlo_of_the_engine_agrees(name: str, board: dict[str, str],
                                          realms: tuple[str, str], a_name: str, d_name: str,
                                          hand_a: list[str], hand_d: list[str],
                                          options: dict[str, str]) -> None:
    """The exact P(attacker wins) and expected losses lie within 4 standard errors of a
    seeded Monte-Carlo run of the engine's own battle procedure; every outcome seen is
    possible."""
    fortified = [t for t in ("C2",) if name == "field_vs_upgraded_castle"]
    base = build(board, realms=realms, hands=[hand_a, hand_d], fortified=fortified, **options)
    if name.startswith("scales"):
        base.scales = True
    a, d = base.world.index(a_name), base.world.index(d_name)
    exact = odds_for_attack(base, a, d, hand_a[0] if hand_a else None,
                            hand_d[0] if hand_d else None)
    cards = {seat: hand[0] for seat, hand in enumerate((hand_a, hand_d)) if hand}
    seen = [engine_battle(base, a, d, 1000 * i + 7, cards) for i in range(TRIALS)]
    support = as_dict(exact)
    assert all(outcome in support for outcome in seen)
    wins = sum(1 for _, ld in seen if ld == exact.defender_units) / TRIALS
    p = float(exact.attacker_wins)
    assert abs(wins - p) <= 4 * math.sqrt(p * (1 - p) / TRIALS) + 1e-12
    for index, mean in ((0, exact.expected_attacker_losses), (1, exact.expected_defender_losses)):
        var = sum(float(q) * (o[index] - float(mean)) ** 2
                  for o, q in ((o[:2], o[2]) for o in exact.outcomes))
        observed = sum(o[index] for o in seen) / TRIALS
        assert abs(observed - float(mean)) <= 4 * math.sqrt(var / TRIALS) + 1e-12


def test_odds_for_attack_matches_the_standalone_query() -> None:
    """A built position (EX1's units, cards in nobody's hand) gives the standalone odds."""
    board = {"C1": "0/crown", "T3": "0/general 0/catapult 0/sword",
             "T6": "1/shield+ 1/shield", "C2": "1/crown"}
    state = build(board, realms=("kimbria", "ardinor"))
    t3, t6 = state.world.index("T3"), state.world.index("T6")
    assert odds_for_attack(state, t3, t6) == odds(EX1_ATTACK, EX1_DEFENCE, FOREST, MOUNTAIN)
    assert odds_for_attack(state, t3, t6, None, "ARD-3") \
        == odds(EX1_ATTACK, EX1_DEFENCE, FOREST, MOUNTAIN, defender_card="ARD-3")
    with pytest.raises(OddsError):  # KIM-2 needs a Field as A or D
        odds_for_attack(state, t3, t6, "KIM-2")
    with pytest.raises(OddsError):  # seat 1's tile is not the active player's
        odds_for_attack(state, t6, t3)
    castle = build({"C1": "0/crown", "T1": "0/sword 0/archer", "C2": "1/crown 1/shield"},
                   fortified=["C2"], crown_defence_in_castle="d8")
    castle.scales = True
    t1, c2 = castle.world.index("T1"), castle.world.index("C2")
    assert odds_for_attack(castle, t1, c2) == odds(
        [att(SWORD), att(ARCHER)], [dfd(CROWN), dfd(SHIELD)], FIELD, CASTLE, fortified=True,
        options={"crown_defence_in_castle": "d8"}, scales=True)


# --- the command line ------------------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaladan.cli.main", "odds", *args],
                          capture_output=True, text=True, timeout=60, check=False)


EXAMPLE = ("--attacker", "General+ Catapult Sword", "--from", "forest",
           "--defender", "Shield+ Shield", "--on", "mountain")


def test_cli_prints_a_table() -> None:
    result = run(*EXAMPLE)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Attacker wins" in out and "Expected losses" in out
    assert "D12 D10 D10 D10 D10 D8" in out
    expected = odds([att(GENERAL, True), att(CATAPULT), att(SWORD)], EX1_DEFENCE, FOREST,
                    MOUNTAIN)
    assert f"{float(expected.attacker_wins):.2%}" in out
    assert len([line for line in out.splitlines() if " / " in line]) == len(expected.outcomes)


def test_cli_json() -> None:
    result = run(*EXAMPLE, "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"attacker_wins", "defender_holds", "expected_attacker_losses",
                         "expected_defender_losses", "outcomes"}
    outcomes = data["outcomes"]
    assert all(set(o) == {"attacker_losses", "defender_losses", "probability", "exact"}
               for o in outcomes)
    assert sum(Fraction(o["exact"]) for o in outcomes) == 1
    assert all("/" in o["exact"] for o in outcomes)
    assert math.isclose(sum(o["probability"] for o in outcomes), 1.0)
    assert math.isclose(data["attacker_wins"] + data["defender_holds"], 1.0)
    expected = odds([att(GENERAL, True), att(CATAPULT), att(SWORD)], EX1_DEFENCE, FOREST,
                    MOUNTAIN)
    assert data == json.loads(json.dumps(expected.to_json()))


def test_cli_dutch_and_german_names() -> None:
    dutch = run("--attacker", "Generaal+ Katapult Zwaardvechter", "--from", "bos",
                "--defender", "Schilddrager+ Schildträger", "--on", "Berg", "--json")
    english = run(*EXAMPLE, "--json")
    assert dutch.returncode == 0, dutch.stderr
    assert json.loads(dutch.stdout) == json.loads(english.stdout)
    special = run("--attacker", "Spezialeinheit+ Bogenschütze", "--attacker-realm", "laurielle",
                  "--defender", "Kroon", "--on", "castle", "--castle-upgraded",
                  "--attacker-card", "lau-2", "--scales", "--option",
                  "crown_defence_in_castle=d8", "--json")
    assert special.returncode == 0, special.stderr


@pytest.mark.parametrize("args", [
    ("--attacker", "Dragon", "--defender", "Sword"),
    ("--attacker", "Sword Sword Sword Sword", "--from", "forest", "--defender", "Sword"),
    ("--attacker", "Sword", "--defender", "Crown Crown Sword"),
    ("--attacker", "Sword", "--defender", "Sword", "--option", "colour=blue"),
    ("--attacker", "Sword", "--defender", "Sword", "--option", "mountain_defence=maybe"),
    ("--attacker", "Sword", "--defender", "Sword", "--attacker-card", "XYZ-1"),
    ("--attacker", "Sword", "--defender", "Sword", "--attacker-card", "ZHO-3"),
    ("--attacker", "Special", "--defender", "Sword"),
    ("--attacker", "Sword", "--defender", "Sword", "--on", "swamp"),
    ("--attacker", "Sword", "--defender", "Sword", "--castle-upgraded"),
    ("--attacker", "Sword", "--defender", "Sword", "--attacker-realm", "atlantis"),
])
def test_cli_bad_input_exits_2_without_traceback(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("kaladan: error: ")
    assert result.stdout == ""
