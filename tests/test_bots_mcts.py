"""The mcts bot: search wiring, budgets, parameters, determinism and hidden information."""

from __future__ import annotations

import random

import pytest

from kaladan.bots.base import SeatView
from kaladan.bots.greedy import GreedyBot
from kaladan.bots.mcts import MctsBot, MctsParams, candidates, evaluate
from kaladan.bots.registry import make_bot, parse_bot_list, split_bot_list
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError
from kaladan.rules.kinds import format_action
from kaladan.rules.legal import legal_actions
from kaladan.rules.observe import observe
from kaladan.rules.state import GameState
from kaladan.sim.runner import play_game
from positions import build, game_at


def two_targets() -> GameState:
    """Seat 0's army on T4 can attack seat 1's lone Crown on T5 or its lone Archer on T1,
    with the same exact odds (both 90.4%): only the first ends the game (R21.1)."""
    return build({"C2": "0/crown", "T4": "0/general 0/sword 0/sword", "T5": "1/crown",
                  "T1": "1/archer"})


def text(state: GameState, seat: int, bot: object, seed: int = 1) -> str:
    legal = legal_actions(state)
    action = bot.choose(SeatView(state, seat), legal, random.Random(seed))  # type: ignore[attr-defined]
    assert action in legal
    return format_action(action, state)


def last_chance() -> GameState:
    """The last turn of the final round (R21.3, R21.5): seat 1 leads on score (40 gold,
    R22.1), so seat 0 wins only by taking seat 1's lone Crown on T5 with its Shield on T4, a
    41.7% chance (R21.1). Greedy does not attack below 55%; passing loses for certain."""
    state = build({"C2": "0/crown", "T4": "0/shield", "T5": "1/crown", "C1": "1/sword",
                   "T7": "1/archer"}, gold=[0, 40])
    state.final_slot = state.slot
    return state


def test_r21_1_search_takes_the_only_winning_chance_that_greedy_declines() -> None:
    state = last_chance()
    assert text(state, 0, GreedyBot()) == "pass"
    for seed in (1, 2, 3):
        bot = MctsBot(MctsParams(iterations=60))
        assert text(state, 0, bot, seed) == "attack T4 T5"


def test_the_most_visited_candidate_is_chosen_and_the_budget_is_kept() -> None:
    state = two_targets()
    bot = MctsBot(MctsParams(iterations=60))
    chosen = text(state, 0, bot)
    assert bot.iterations_done == 60
    assert sum(bot.last_visits.values()) == 60
    best = max(bot.last_visits, key=lambda a: bot.last_visits[a])
    assert format_action(best, state) == chosen
    assert set(bot.last_visits) <= set(candidates(SeatView(state, 0), legal_actions(state), 10))


def test_a_time_budget_searches_at_least_once_and_returns_a_legal_action() -> None:
    bot = make_bot("mcts:time=0.05")
    assert isinstance(bot, MctsBot) and bot.params.time == 0.05
    text(two_targets(), 0, bot)
    assert bot.iterations_done >= 1


def test_a_single_legal_action_is_returned_without_search() -> None:
    state = two_targets()
    only = list(legal_actions(state))[-1:]
    bot = MctsBot(MctsParams(iterations=50))
    assert bot.choose(SeatView(state, 0), only, random.Random(0)) == only[0]
    assert bot.iterations_done == 0


def test_candidates_keep_greedys_choice_every_attack_and_the_quiet_actions() -> None:
    state = two_targets()
    legal = legal_actions(state)
    assert len(legal) > 10
    chosen = [format_action(a, state) for a in candidates(SeatView(state, 0), legal, 10)]
    assert chosen[0] == "attack T4 T1"  # greedy's choice first
    assert {"attack T4 T1", "attack T4 T5", "pass"} <= set(chosen)
    assert len(chosen) == len(set(chosen)) == 10
    few = list(legal)[:4]
    assert candidates(SeatView(state, 0), few, 10) == few


def test_decisions_depend_on_the_observation_only_not_on_hidden_cards_or_deck_order() -> None:
    """Bots see their seat's view only: moving the opponent's hidden cards between hand and
    pool and reordering the deck changes nothing the seat observes, so nothing it decides."""
    state = build({"C2": "0/crown", "T4": "0/general 0/sword 0/sword", "T5": "1/crown",
                   "T1": "1/archer"}, hands=[["KHA-1"], ["KIM-1"]],
                  deck=["EV01", "EV02", "EV03", "EV04"])
    other = state.copy()
    other.hand[1] = ["KIM-4"]
    other.pool[1] = sorted(c for c in state.hand[1] + state.pool[1] if c != "KIM-4")
    other.deck = list(reversed(other.deck))
    other.invalidate()
    assert observe(other, 0) == observe(state, 0)
    assert other.hand[1] != state.hand[1] and other.deck != state.deck
    first, second = MctsBot(MctsParams(iterations=40)), MctsBot(MctsParams(iterations=40))
    assert text(state, 0, first, seed=9) == text(other, 0, second, seed=9)
    assert first.last_visits == second.last_visits


def test_an_iteration_budget_is_deterministic_and_plays_whole_games() -> None:
    config = Config(players=2, quick_setup=True)
    spec = "mcts:iterations=6,horizon=6"
    one = play_game(config, 5, [spec, "random"])
    two = play_game(config, 5, [spec, "random"])
    assert one.to_json() == two.to_json()
    assert one.end in ("last_crown", "final_round", "draw")
    assert one.decisions > 20


def test_mcts_plays_a_team_game_to_the_end() -> None:
    """R23: rewards are per team; the search runs on team positions (gifts, shared tiles)."""
    config = Config(players=4, mode="team_2v2", quick_setup=True)
    game = play_game(config, 3, ["mcts:iterations=3,horizon=4", "random", "greedy", "random"])
    assert game.teams == [0, 1, 0, 1]
    assert game.end in ("last_crown", "final_round", "draw")


def test_evaluate_values_results_and_margins() -> None:
    state = two_targets()
    values = evaluate(state)
    assert all(0.0 < v < 1.0 for v in values)
    game = game_at(state)
    game.play("attack T4 T5", dice=[6, 6, 6, 1])
    assert game.state.result is not None and game.state.result.winner == 0
    assert evaluate(game.state) == [1.0, 0.0]
    state.gold[0] += 20  # ten more points (R22.1: gold // 2) raise seat 0's value
    richer = evaluate(state)
    assert richer[0] > values[0] and richer[1] < values[1]


@pytest.mark.parametrize(("spec", "message"), [
    ("mcts:depth=3", "unknown mcts parameter 'depth'"),
    ("mcts:iterations=many", "is not a number"),
    ("mcts:iterations=0", "must be positive"),
    ("mcts:time=-1", "must be positive"),
    ("mcts:time=nan", "must be positive"),
    ("mcts:iterations=10,time=1", "not both"),
    ("mcts:iterations", "expected key=value"),
])
def test_bad_mcts_parameters_are_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_bot(spec)


def test_bot_lists_keep_parameters_together() -> None:
    assert split_bot_list("greedy,mcts:iterations=400,c=0.5,random") == [
        "greedy", "mcts:iterations=400,c=0.5", "random"]
    assert split_bot_list("mcts:time=1, random") == ["mcts:time=1", "random"]
    assert parse_bot_list("mcts:horizon=8,width=4,greedy") == ["mcts:horizon=8,width=4", "greedy"]
    bot = make_bot("mcts:horizon=8,width=4")
    assert isinstance(bot, MctsBot)
    assert (bot.params.horizon, bot.params.width, bot.params.iterations) == (8, 4, 400)
    with pytest.raises(ConfigError, match="unknown bot 'c=0.5'"):
        parse_bot_list("random,c=0.5")  # random takes no parameters to continue
