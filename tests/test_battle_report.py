"""The shared battle capture (``kaladan.battle_report``): pools, rolls, pairs with the dropped
die, hits and losses per seat, read from a probe that leaves the position untouched."""

from __future__ import annotations

import random

from kaladan.battle_report import BattleReport, battle_report, units_by_seat
from kaladan.game import Game
from kaladan.rules.actions import parse_action
from kaladan.rules.combat import compare
from kaladan.rules.config import Config
from positions import build, game_at

# EX1 (tests/rules/test_battle.py): General, Catapult, Sword on Forest T3 attack an upgraded
# Shield and a Shield on Mountain T6. Dice in pool order: General D12, Catapult D10 D10,
# Sword D8, Forest D10; Shield D10, Shield+ D12, Mountain D10.
EX1 = {"C1": "0/crown", "T3": "0/general 0/catapult 0/sword",
       "T6": "1/shield+ 1/shield", "C2": "1/crown"}
EX1_DICE = [7, 9, 9, 2, 1, 9, 12, 2]


def ex1_report(**options: object) -> tuple[Game, BattleReport]:
    state = build(EX1, hands=[[], []], gold=[3, 0], **options)
    state.chance.force(EX1_DICE)
    report = battle_report(state, parse_action("attack T3 T6", state))
    assert report is not None
    return game_at(state), report


def test_pools_and_rolls_in_pool_order() -> None:
    """R16.14-R16.15: each unit's die, the terrain dice, and what each rolled."""
    _, report = ex1_report()
    assert (report.attacker, report.defender) == (0, 1)
    assert report.attack_dice == [12, 10, 10, 8, 10]
    assert report.defence_dice == [10, 12, 10]
    assert report.attack_rolls + report.defence_rolls == EX1_DICE
    assert report.units_before == {0: 3, 1: 2}
    assert not report.drop_lowest and not report.cards


def test_pairs_drop_the_lowest_defence_die_on_a_mountain() -> None:
    """R16.16-R16.17: sorted high to low, the defender's 2 dropped, 9 v 12 hits the attacker,
    9 v 9 is a tie (R16.18) and the unpaired attack dice do nothing."""
    _, report = ex1_report(mountain_defence="drop_lowest")
    assert report.drop_lowest
    assert report.pairs() == ([9, 9, 7, 2, 1], [12, 9], 2)
    assert report.paired() == [(9, 12), (9, 9)]
    assert report.hits == (1, 0)


def test_without_the_option_every_defence_die_pairs() -> None:
    _, report = ex1_report()
    assert report.pairs() == ([9, 9, 7, 2, 1], [12, 9, 2], None)
    assert report.paired() == [(9, 12), (9, 9), (7, 2)]
    assert report.hits == (1, 1)


def test_losses_count_the_units_that_left_the_battle_tiles() -> None:
    """R16.25: the attacker's one hit is a casualty it chooses in the next decision."""
    game, report = ex1_report(mountain_defence="drop_lowest")
    game.play("attack T3 T6")
    assert report.losses(game.state) == {0: 0, 1: 0}  # the casualty is not chosen yet
    game.play("casualty catapult")
    assert report.losses(game.state) == {0: 1, 1: 0}
    assert units_by_seat(game.state, (report.a_tile, report.d_tile)) == {0: 2, 1: 2}


def test_the_probe_leaves_the_position_untouched() -> None:
    game, _ = ex1_report()
    state = game.state
    assert list(state.chance.forced) == EX1_DICE and state.battle is None
    assert state.chance.log == []
    game.play("attack T3 T6")  # the real step still rolls the same dice
    assert game.steps[-1].chance[:len(EX1_DICE)] == tuple(EX1_DICE)


def test_no_report_without_dice() -> None:
    game, _ = ex1_report()
    state = game.state
    assert battle_report(state, parse_action("pass", state)) is None
    game.play("attack T3 T6")  # rolled: the casualty decision rolls nothing new
    after = game.state
    assert after.battle is not None and after.battle.attack_rolls
    assert battle_report(after, parse_action("casualty catapult", after)) is None


def test_reports_match_the_chance_of_seeded_random_games() -> None:
    """Over whole games: every report's rolls are a run of its step's chance outcomes, each
    die within its size, and the hits are ``combat.compare`` of them."""
    reports = 0
    for seed in range(10):
        game = Game.new(Config(players=3, quick_setup=True), seed)
        rng = random.Random(seed)
        while not game.is_over and len(game.steps) < 3000:
            before = game.state
            legal = game.legal_actions()
            action = legal[rng.randrange(len(legal))]
            step = game.play(action, before.pending.seat)
            report = battle_report(before, action)
            if report is None:
                continue
            reports += 1
            dice = report.attack_rolls + report.defence_rolls
            chance = list(step.chance)
            assert any(chance[i:i + len(dice)] == dice for i in range(len(chance)))
            sizes = report.attack_dice + report.defence_dice
            assert all(1 <= r <= s for r, s in zip(dice, sizes, strict=True))
            assert report.hits == compare(report.attack_rolls, report.defence_rolls,
                                          report.drop_lowest, report.scales)
            assert set(report.units_before) <= set(range(3))
            assert all(n >= 0 for n in report.losses(game.state).values())
    assert reports > 30
