"""The greedy bot's judgement from named positions: when a magic card pays off, and what is a
front line in team mode."""

from __future__ import annotations

import random

from kaladan.bots.base import SeatView
from kaladan.bots.greedy import GreedyBot
from kaladan.game import Game
from kaladan.odds import odds_for_attack
from positions import build, game_at

HANDS = [["KIM-1", "KIM-2", "KIM-3", "KIM-4", "KIM-5"], ["ARD-1", "ARD-2", "ARD-3", "ARD-5"]]


def attack(attackers: str, defenders: str, extra: dict[str, str] | None = None) -> Game:
    """Kimbria (seat 0) attacks Ardinor's Field T4 from Field T7; both hold magic cards."""
    rest = {"C2": "1/crown"} if extra is None else extra
    board = {"C1": "0/crown", "T7": attackers, "T4": defenders, **rest}
    game = game_at(build(board, realms=("kimbria", "ardinor"), hands=HANDS))
    game.play("attack T7 T4")
    return game


def greedy_choice(game: Game) -> str:
    seat = game.state.pending.seat
    legal = game.legal_actions()
    return game.format(GreedyBot().choose(SeatView(game.state, seat), legal, random.Random(0)))


def win_chance(game: Game) -> float:
    world = game.state.world
    return float(odds_for_attack(game.state, world.index("T7"), world.index("T4")).attacker_wins)


def test_r20_6_a_sure_attack_keeps_its_card_the_defender_spends_one() -> None:
    """R20.6: a spent card is out of the game, so greedy keeps it when the exact odds already
    give the attack more than 85%; the defender facing that attack plays one."""
    game = attack("0/general 0/catapult 0/catapult 0/sword", "1/sword")
    assert win_chance(game) > 0.85
    assert greedy_choice(game) == "nomagic"
    game.play("nomagic")
    assert game.state.pending.seat == 1
    assert greedy_choice(game).startswith("magic ARD-")


def test_a_doubtful_attack_spends_a_card() -> None:
    game = attack("0/general 0/catapult 0/sword 0/sword", "1/shield")
    assert 0.25 < win_chance(game) < 0.85
    assert greedy_choice(game).startswith("magic KIM-")


def test_a_defender_keeps_its_card_against_a_hopeless_attack() -> None:
    game = attack("0/sword", "1/shield 1/shield")
    assert win_chance(game) < 0.25
    game.play("nomagic")
    assert greedy_choice(game) == "nomagic"


def test_a_crown_at_stake_is_always_worth_a_card() -> None:
    """A lone Crown on T4: losing it ends the game for seat 1 (R18.1), so both sides play."""
    game = attack("0/general 0/catapult 0/catapult 0/sword", "1/crown", extra={})
    assert win_chance(game) > 0.85
    assert greedy_choice(game).startswith("magic KIM-")


def test_r23_an_allys_tile_is_no_front_line() -> None:
    """Seat 0's T8 borders only its ally's T7 and empty tiles; its T2 borders the enemy's T1.
    Greedy buys at the front (R11), which in team mode is the enemy team's border only."""
    state = build({"C1": "0/crown", "T8": "0/sword", "T2": "0/sword",
                   "T7": "2/crown 2/sword", "C2": "1/crown", "T1": "1/sword",
                   "C3": "3/crown"}, players=4, mode="team_2v2")
    front = GreedyBot()._frontline(SeatView(state, 0))
    assert {state.world.names[t] for t in front} == {"T2"}


def test_greedy_chooses_the_same_from_a_lazy_action_list_and_from_a_plain_list() -> None:
    """The greedy bot asks an ActionList for kinds instead of building it (mcts playouts run
    it at every decision); from the same actions as a plain list it must choose the same,
    at every decision of seeded games of each mode."""
    from kaladan.rules.actionlist import ActionList
    from kaladan.rules.apply import apply_unchecked
    from kaladan.rules.config import Config
    from kaladan.rules.legal import legal_actions
    from kaladan.rules.setup import new_game

    bot = GreedyBot()
    lazy_lists = 0
    for players, mode in ((2, "free_for_all"), (4, "team_2v2"), (6, "free_for_all")):
        state = new_game(Config(players=players, mode=mode), 40 + players)
        rng = random.Random(players)
        while not state.is_over:
            seat = state.pending.seat
            legal = legal_actions(state)
            lazy_lists += isinstance(legal, ActionList)
            from_lazy = bot.choose(SeatView(state, seat), legal, random.Random(1))
            from_plain = bot.choose(SeatView(state, seat), list(legal_actions(state)),
                                    random.Random(1))
            assert from_lazy == from_plain
            apply_unchecked(state, from_lazy if rng.random() < 0.5
                            else legal[rng.randrange(len(legal))])
    assert lazy_lists > 100
