"""Battle rolls as chance nodes of the search (``descend(..., chance=True)``; the expert's
``chance=1``): the outcome of each roll gets its own node with its exact probability, and
the attack's value weighs the outcomes by those probabilities (R16.14-R16.20). With
``chance=2`` a new chance node is judged over all its outcomes at once."""

from __future__ import annotations

import random

import pytest

from kaladan.bots.base import SeatView
from kaladan.bots.mcts import Node, after_roll, backup, descend, outcome_states
from kaladan.expert.bot import ExpertBot, ExpertParams
from kaladan.odds import hit_distribution, odds_for_attack
from kaladan.rules import actions as A
from kaladan.rules.actions import Action
from kaladan.rules.combat import compare
from kaladan.rules.kinds import format_action
from kaladan.rules.legal import legal_actions
from kaladan.rules.state import Decision, GameState
from kaladan.rules.units import owner_of
from positions import build, game_at


def army_on_archer() -> GameState:
    """Seat 0's General and two Swords on T4 may attack seat 1's Archer and Shield on T1.
    Nobody holds a card, so the attack goes straight to the dice (R16.5, R16.15) and seat 0,
    with two kinds of unit, chooses its casualties after them (R16.22)."""
    return build({"C2": "0/crown", "T4": "0/general 0/sword 0/sword", "T5": "1/crown",
                  "T1": "1/archer 1/shield"})


def attack(state: GameState) -> Action:
    return next(a for a in legal_actions(state)
                if format_action(a, state) == "attack T4 T1")


def rolled(state: GameState) -> tuple[int, int]:
    """The hits of the roll the battle in ``state`` shows (plain field tiles: no dropped die)."""
    battle = state.battle
    assert battle is not None and battle.attack_rolls
    return compare(battle.attack_rolls, battle.defence_rolls, False, state.scales)


def test_r16_15_each_outcome_of_hits_is_a_node_with_its_exact_probability() -> None:
    state = army_on_archer()
    action = attack(state)
    names = state.world.names
    odds = odds_for_attack(state, names.index("T4"), names.index("T1"))
    exact = hit_distribution(odds.attack_dice, odds.defence_dice).probabilities()
    n_attack = len(odds.attack_dice)
    root = Node()
    rng = random.Random(4)
    seen: dict[tuple[int, int], list[float]] = {}
    for _ in range(400):
        walk = SeatView(state, 0).determinize(rng)  # its own future dice
        logged = len(walk.chance.log)
        path = descend(root, walk, [action], 0.5, 10, chance=True)
        # The attack's roll comes first: nothing before it is random (R16.15). The walk may
        # go on past it and roll again.
        faces = walk.chance.log[logged:logged + n_attack + len(odds.defence_dice)]
        key = compare(faces[:n_attack], faces[n_attack:], False, False)
        value = float(key[1])  # a value that depends on the outcome: hits on the defender
        seen.setdefault(key, []).append(value)
        backup(path, [value, 1.0 - value])
    node = root.children[action]
    assert node.outcomes is not None and set(node.outcomes) == set(seen)
    for key, after in node.outcomes.items():
        assert after.weight == float(exact[key])
        assert after.visits == len(seen[key])
    assert node.visits == 400 == sum(after.visits for after in node.outcomes.values())
    # The attack's value weighs each outcome seen by its exact chance, not by its count.
    weighted = sum(float(exact[k]) * sum(v) / len(v) for k, v in seen.items())
    expected = weighted / sum(float(exact[k]) for k in seen)
    sampled = sum(sum(v) for v in seen.values()) / 400
    assert node.value / node.visits == pytest.approx(expected)
    assert abs(expected - sampled) > 1e-9  # the samples' frequencies are not the odds


def test_without_chance_nodes_the_search_averages_the_samples() -> None:
    """The mcts bot's open loop: the decisions after every outcome share the attack's node
    (a casualty choice after a mixed roll, the next move after a clean win)."""
    state = army_on_archer()
    action = attack(state)
    root = Node()
    rng = random.Random(4)
    total = 0.0
    for k in range(50):
        walk = SeatView(state, 0).determinize(rng)
        path = descend(root, walk, [action], 0.5, 10)
        value = (k % 3) / 2
        total += value
        backup(path, [value, 1.0 - value])
    node = root.children[action]
    assert node.outcomes is None
    kinds = {a.kind for a in node.children}
    assert A.CASUALTY in kinds and len(kinds) > 1
    assert node.value == pytest.approx(total)


def test_a_kept_attack_goes_on_from_the_outcome_the_real_dice_rolled() -> None:
    """After the real roll, the seat's casualty choice (R16.22) is searched from the node of
    the outcome the dice gave; a search that never saw that outcome starts afresh."""
    state = army_on_archer()
    action = attack(state)
    root = Node()
    rng = random.Random(9)
    for _ in range(200):
        walk = SeatView(state, 0).determinize(rng)
        backup(descend(root, walk, [action], 0.5, 10, chance=True), [0.5, 0.5])
    node = root.children[action]
    assert node.outcomes is not None
    # Faces of at most 6 fit every die. The attacker's 1s against 6s: two hits on it and a
    # casualty to choose (R16.22), so the battle shows its dice.
    game = game_at(state)
    game.play("attack T4 T1", dice=[1, 1, 1, 6, 6])
    assert rolled(game.state) == (2, 0)
    after = after_roll(node, game.state)
    assert (2, 0) in node.outcomes and after is node.outcomes[(2, 0)] and after.visits > 0
    # 6s against 1s: the defenders fall and the battle ends within the attack; what it
    # rolled is no longer to be seen, so the search starts afresh.
    game = game_at(state)
    game.play("attack T4 T1", dice=[6, 6, 6, 1, 1])
    assert game.state.battle is None
    after = after_roll(node, game.state)
    assert after.visits == 0 and after not in node.outcomes.values()
    # Before the roll (no battle yet) a node without outcomes is itself.
    plain = Node()
    assert after_roll(plain, state) is plain


def kept_crown_attack(chance: int) -> tuple[GameState, Node]:
    """Seat 0's attack on the lone Crown on T5 ends the game when it wins (R21.1): the
    expert takes it and keeps its subtree for the next decision."""
    state = build({"C2": "0/crown", "T4": "0/general 0/sword 0/sword", "T5": "1/crown",
                   "T1": "1/archer"})
    bot = ExpertBot(ExpertParams(iterations=150, chance=chance))
    action = bot.choose(SeatView(state, 0), legal_actions(state), random.Random(2))
    assert format_action(action, state) == "attack T4 T5"
    assert bot._kept is not None
    return state, bot._kept[1]


def test_the_expert_searches_an_attack_through_its_outcomes() -> None:
    """Every visit of the attack rolled (nobody holds a card) and went on through the node
    of its outcome, each with the exact chance of that outcome."""
    _, node = kept_crown_attack(1)
    assert node.outcomes is not None and node.outcomes
    assert sum(after.visits for after in node.outcomes.values()) == node.visits
    assert 0.0 < sum(after.weight for after in node.outcomes.values()) <= 1.0 + 1e-12


def test_r16_20_every_outcome_of_a_roll_is_made_with_its_exact_chance() -> None:
    """``outcome_states`` forces faces that give each (hits on the attacker, hits on the
    defender) of the exact distribution: two hits on the defender take T1 (R16.21, R17.1),
    two on the attacker leave it a casualty to choose (R16.22)."""
    state = army_on_archer()
    names = state.world.names
    odds = odds_for_attack(state, names.index("T4"), names.index("T1"))
    exact = hit_distribution(odds.attack_dice, odds.defence_dice).probabilities()
    made = outcome_states(state, attack(state))
    assert {key for key, _, _ in made} == set(exact)
    assert sum(weight for _, weight, _ in made) == pytest.approx(1.0)
    for key, weight, after in made:
        assert weight == float(exact[key])
        assert after.decisions == state.decisions + 1
        t1 = after.board[names.index("T1")]
        if key == (0, 2):
            assert t1 and {owner_of(c) for c in t1} == {0}
        if key == (2, 0):
            assert after.battle is not None and after.pending.kind == Decision.CASUALTY
    assert state.board[names.index("T1")] and state.battle is None  # ``state`` untouched
    quiet = next(a for a in legal_actions(state) if a.kind == A.PASS)
    assert outcome_states(state, quiet) == []


def test_the_expert_judges_a_new_attack_over_all_its_outcomes() -> None:
    """With ``chance=2`` the first visit of an attack judges the position after every
    outcome of its roll, so each outcome's node has a visit of its own."""
    state, node = kept_crown_attack(2)
    names = state.world.names
    odds = odds_for_attack(state, names.index("T4"), names.index("T5"))
    assert node.outcomes is not None
    assert set(node.outcomes) == set(hit_distribution(odds.attack_dice,
                                                      odds.defence_dice).probabilities())
    assert all(after.visits >= 1 for after in node.outcomes.values())
    assert 0.0 <= node.value / node.visits <= 1.0
