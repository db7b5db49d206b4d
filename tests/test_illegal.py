"""Illegal and malformed input: the exact error, the rule id, a message naming the problem, and
a state that is unchanged afterwards (STYLE principle 9: a rejected action changes nothing).

Named positions (2 players, standard world; seat 0 Khalisia at home on C1, seat 1 Kimbria
on C2). T7 touches T4, T5, T6 and C1; T1 touches T2, T3, T4 and C2.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from kaladan.game import Game
from kaladan.record import dumps, replay, to_record
from kaladan.rules.actions import Action
from kaladan.rules.combat import attack_pool, defence_pool
from kaladan.rules.config import Config
from kaladan.rules.errors import (
    FormatError,
    IllegalActionError,
    InvalidActionError,
    KaladanError,
)
from kaladan.rules.notation import position_from_json, position_to_json
from kaladan.rules.state import Decision, GameState
from positions import ACTION_BOARD, build, game_at


def action_game() -> Game:
    return game_at(build(ACTION_BOARD, homes=["C1", "C2"]))


def purchase_game(gold: int) -> Game:
    return game_at(build(ACTION_BOARD, phase="purchase", gold=[gold, 0], homes=["C1", "C2"]))


def rejected(game: Game, action: str | Action, error: type[KaladanError], *,
             rule: str | None = None, words: Iterable[str] = (), seat: int | None = None,
             dice: Sequence[int] = ()) -> KaladanError:
    """Play ``action``, expect ``error``; check rule, message and that nothing changed."""
    before = position_to_json(game.state)
    steps = list(game.steps)
    legal = game.legal_texts()
    with pytest.raises(error) as info:
        game.play(action, seat=seat, dice=dice)
    exc = info.value
    assert type(exc) is error
    message = str(exc)
    if rule is not None:
        assert isinstance(exc, IllegalActionError)
        assert exc.rule == rule, (exc.rule, exc.reason)
        assert rule in message
    for word in words:
        assert word in message, (word, message)
    assert position_to_json(game.state) == before
    assert game.steps == steps
    assert game.legal_texts() == legal
    return exc


def winning_dice(state: GameState, a_tile: str, d_tile: str) -> list[int]:
    a, d = state.world.index(a_tile), state.world.index(d_tile)
    return attack_pool(state, a, d) + [1] * len(defence_pool(state, d))


# --- seat and decision kind ---------------------------------------------------------------------


def test_wrong_seat() -> None:
    game = action_game()
    assert game.state.pending.seat == 0
    exc = rejected(game, "pass", IllegalActionError, rule="R6.5", seat=1,
                   words=["seat 1", "seat 0"])
    assert isinstance(exc, IllegalActionError)
    assert "action" in exc.reason  # names the pending decision
    game.play("pass", seat=0)  # the right seat may


def test_attack_during_purchase() -> None:
    game = purchase_game(gold=2)
    assert game.state.pending.kind == Decision.PURCHASE
    exc = rejected(game, "attack T7 T4", IllegalActionError, rule="R11.1",
                   words=["'attack' is not possible now", "purchase"])
    assert isinstance(exc, IllegalActionError)
    assert exc.action == "attack T7 T4"


def test_buy_during_action_phase() -> None:
    rejected(action_game(), "buy sword T7", IllegalActionError, rule="R10.1",
             words=["'buy' is not possible now", "action"])


def test_setup_decision_refuses_play_actions() -> None:
    game = Game.new(Config(players=2), 5)
    assert game.state.pending.kind == Decision.REALM
    rejected(game, "pass", IllegalActionError, rule="R5.5", words=["realm"])
    rejected(game, "realm atlantis", InvalidActionError, words=["atlantis", "kimbria"])


# --- tiles, capacity, adjacency -----------------------------------------------------------------


@pytest.mark.parametrize("text,name", [("move T99 T1 sword", "T99"), ("attack T7 C9", "C9"),
                                       ("move T0 T1 sword", "T0"), ("move T07 T6 sword", "T07"),
                                       ("move X7 T6 sword", "X7")])
def test_unknown_tile(text: str, name: str) -> None:
    rejected(action_game(), text, InvalidActionError, words=[f"unknown tile {name!r}"])


def test_over_capacity() -> None:
    # R4.6: C1 holds 3 of 5, three more do not fit.
    rejected(action_game(), "move T7 C1 archer,shield,sword", IllegalActionError, rule="R4.6",
             words=["C1", "3 of 5"])


def test_move_onto_enemy_tile() -> None:
    rejected(action_game(), "move T7 T4 archer", IllegalActionError, rule="R10.3",
             words=["T4", "enemy"])


def test_move_from_a_tile_you_do_not_control() -> None:
    rejected(action_game(), "move T4 T2 shield", IllegalActionError, rule="R10.2",
             words=["T4"])


def test_move_to_a_tile_that_is_not_adjacent() -> None:
    rejected(action_game(), "move T7 T2 archer", IllegalActionError, rule="R4.2",
             words=["T7", "T2", "adjacent"])


def test_attack_a_tile_that_is_not_adjacent() -> None:
    # R16.1: T1 is an enemy tile, but not next to T7.
    rejected(action_game(), "attack T7 T1", IllegalActionError, rule="R16.1",
             words=["adjacent"])


def test_attack_an_own_or_empty_tile() -> None:
    game = action_game()
    rejected(game, "attack T7 T6", IllegalActionError, rule="R16.1", words=["T6"])
    rejected(game, "attack T7 C1", IllegalActionError, rule="R16.1", words=["C1"])


# --- purchases ----------------------------------------------------------------------------------


def test_unaffordable_purchase() -> None:
    game = purchase_game(gold=1)
    rejected(game, "fortify C1", IllegalActionError, rule="R11.1",
             words=["costs 4 gold", "you have 1"])
    rejected(game, "buy catapult T7", IllegalActionError, rule="R11.1",
             words=["costs 2 gold", "you have 1"])
    rejected(game, "upgrade general C1", IllegalActionError, rule="R11.1",
             words=["costs 4 gold", "you have 1"])


def test_second_empty_tile_in_one_purchase_phase() -> None:
    game = purchase_game(gold=3)
    game.play("buy sword T6")  # T6 is empty, next to T7
    rejected(game, "buy sword T2", IllegalActionError, rule="R11.4",
             words=["empty tile", "T6"])
    game.play("buy shield T6")  # the same empty tile again is fine


def test_buy_on_enemy_tile() -> None:
    rejected(purchase_game(gold=3), "buy sword T4", IllegalActionError, rule="R11.5",
             words=["T4", "enemy"])


# --- malformed text -----------------------------------------------------------------------------


@pytest.mark.parametrize("text,words", [
    ("", ["empty"]),
    ("   ", ["empty"]),
    ("fly T7 T6", ["unknown action", "'fly'"]),
    ("move T7", ["malformed", "move"]),
    ("move", ["malformed", "move"]),
    ("attack T7", ["malformed", "attack"]),
    ("pass now", ["malformed", "pass"]),
    ("move T7 T6 sword sword", ["malformed"]),
    ("move T7 T6 dragon", ["unknown unit", "dragon"]),
    ("move T7 T6 sword,+", ["unknown unit"]),
    ("move T7 T6 special:atlantis", ["atlantis"]),
    ("move T7 T6 ,", ["empty unit list"]),
    ("return sword x", ["not a seat", "'x'"]),
    # Digits are ASCII: int() refuses "²" (isdigit() does not), and "١" would be a second
    # spelling of seat 1.
    ("return sword ²", ["not a seat"]),
    ("return sword ١", ["not a seat"]),
    ("gift ² 1", ["not a seat"]),
    ("gift 1 ³", ["amount of gold"]),
], ids=["empty", "blank", "verb", "missing-args", "no-args", "attack-one-tile", "extra-arg",
        "too-many", "unit", "bare-plus", "realm", "no-units", "seat", "superscript-seat",
        "arabic-seat", "superscript-gift", "superscript-amount"])
def test_malformed_text(text: str, words: list[str]) -> None:
    rejected(action_game(), text, InvalidActionError, words=words)


def test_non_text_non_action() -> None:
    game = action_game()
    rejected(game, 42, InvalidActionError)  # type: ignore[arg-type]


# --- forced dice --------------------------------------------------------------------------------


def battle_game(players: int = 2) -> Game:
    board = {"C1": "0/crown 0/sword", "T4": "0/general", "T5": "1/crown"}
    if players == 3:
        board["C3"] = "2/crown"
    return game_at(build(board, players=players, homes=["C1", "C2", "C3"][:players]))


def test_forced_die_outside_the_die() -> None:
    # A General attacks with one D12 (R13.1); 13 is not a face of it.
    game = battle_game()
    assert attack_pool(game.state, game.state.world.index("T4"),
                       game.state.world.index("T5")) == [12]
    rejected(game, "attack T4 T5", InvalidActionError, dice=[13], words=["13", "D12"])
    rejected(game, "attack T4 T5", InvalidActionError, dice=[0], words=["D12"])
    rejected(game, "attack T4 T5", InvalidActionError, dice=[12, 7], words=["7", "D6"])


def test_forced_dice_left_over() -> None:
    game = battle_game()
    rejected(game, "attack T4 T5", InvalidActionError, dice=[12, 1, 4], words=["not used"])
    rejected(game, "pass", InvalidActionError, dice=[3], words=["not used"])


# --- after the game -----------------------------------------------------------------------------


def test_acting_after_the_game_is_over() -> None:
    game = battle_game()
    game.play("attack T4 T5", dice=winning_dice(game.state, "T4", "T5"))
    assert game.is_over
    result = game.state.result
    assert result is not None and result.end == "last_crown" and result.winner == 0
    assert game.legal_actions() == []
    for text in ("pass", "end", "attack T4 T5"):
        rejected(game, text, IllegalActionError, rule="R21.5", words=["game is over"])
    rejected(game, "pass", IllegalActionError, rule="R21.5", seat=0)


def test_acting_after_a_random_game_is_over() -> None:
    game = Game.new(Config(players=3), 9)
    rng = random.Random(9)
    while not game.is_over:
        legal = game.legal_actions()
        game.play(legal[rng.randrange(len(legal))])
    rejected(game, "pass", IllegalActionError, rule="R21.5", words=["game is over"])


# --- malformed positions and records ------------------------------------------------------------


def _position() -> dict[str, Any]:
    return position_to_json(action_game().state)


@pytest.mark.parametrize("data,words", [
    ("kaladan-position", ["JSON object"]),
    (None, ["JSON object"]),
    ({}, ["not a kaladan position"]),
    ({"format": "kaladan-position"}, ["version"]),
    ({"format": "kaladan-position", "version": 1}, ["bad position"]),
], ids=["text", "null", "empty", "no-version", "no-fields"])
def test_malformed_position(data: Any, words: list[str]) -> None:
    with pytest.raises(FormatError) as info:
        position_from_json(data)
    for word in words:
        assert word.lower() in str(info.value).lower()


@pytest.mark.parametrize("field,value,words", [
    ("phase", "lunch", ["lunch"]),
    ("rng", "seven", ["seven"]),
    ("fortified", ["Q1"], ["Q1"]),
    ("removed", ["x/sword"], ["x/sword"]),
    ("config", {"players": 2, "colour": "red"}, ["colour"]),
    ("config", {"players": 9}, ["9"]),
], ids=["phase", "rng", "tile", "unit", "config-key", "config-players"])
def test_malformed_position_field(field: str, value: Any, words: list[str]) -> None:
    data = _position()
    data[field] = value
    with pytest.raises(FormatError) as info:
        position_from_json(data)
    for word in words:
        assert word.lower() in str(info.value).lower()


def test_malformed_json_text_is_not_a_position() -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads('{"format": "kaladan-position", ')


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    game = Game.new(Config(players=2), 4)
    rng = random.Random(4)
    while not game.is_over:
        legal = game.legal_actions()
        game.play(legal[rng.randrange(len(legal))])
    data: dict[str, Any] = json.loads(dumps(to_record(game)))
    return data


@pytest.mark.parametrize("change,words", [
    (lambda r: r.update(format="kaladan-position"), ["kaladan-record"]),
    (lambda r: r.update(version=2), ["version", "2"]),
    (lambda r: r.pop("steps"), ["steps"]),
    (lambda r: r.pop("config"), ["config"]),
    (lambda r: r.update(seed="abc"), ["abc"]),
    (lambda r: r["steps"][0].update(seat="first"), ["first"]),
    (lambda r: r["steps"][0].pop("chance"), ["chance"]),
], ids=["format", "version", "no-steps", "no-config", "seed", "seat", "no-chance"])
def test_malformed_record(record: dict[str, Any], change: Any, words: list[str]) -> None:
    data = json.loads(json.dumps(record))
    change(data)
    with pytest.raises(FormatError) as info:
        replay(data)
    for word in words:
        assert word in str(info.value)


def test_record_with_invalid_config_is_a_format_error(record: dict[str, Any]) -> None:
    # As for positions (notation.position_from_json wraps a ConfigError), a record whose
    # configuration is invalid cannot be read: FormatError naming the problem.
    data = json.loads(json.dumps(record))
    data["config"]["players"] = 1
    with pytest.raises(FormatError, match="2 to 6 players"):
        replay(data)


def test_record_must_be_an_object() -> None:
    with pytest.raises(FormatError, match="kaladan-record"):
        replay(["kaladan-record"])  # type: ignore[arg-type]


def test_record_with_malformed_action_text(record: dict[str, Any]) -> None:
    data = json.loads(json.dumps(record))
    data["steps"][0]["action"] = "realm"
    with pytest.raises(KaladanError, match="malformed"):
        replay(data)


# --- Game.play(in_place=True): the server's bots change the state they made without a copy ---


def test_a_refusal_in_place_changes_nothing() -> None:
    """STYLE principle 9 holds in place too: the engine refuses before it changes anything
    (R6.5 wrong seat, R10.5 a move onto an enemy tile)."""
    game = action_game()
    state = game.state
    for text, seat in (("pass", 1), ("move T7 T4 0/sword", None)):
        before = position_to_json(state)
        with pytest.raises(IllegalActionError):
            game.play(text, seat, in_place=True)
        assert game.state is state and position_to_json(state) == before
        assert game.steps == [] and game.entries == []
    with pytest.raises(ValueError, match="forced dice"):
        game.play("pass", in_place=True, dice=[3])
    assert game.steps == []


@pytest.mark.parametrize(("mode", "players"), [("free_for_all", 3), ("team_2v2", 4)])
def test_in_place_and_copying_play_make_the_same_game(mode: str, players: int) -> None:
    for seed in range(3):
        config = Config(players=players, mode=mode, quick_setup=seed == 0)
        copying, changing = Game.new(config, seed), Game.new(config, seed)
        rng = random.Random(seed)
        while not copying.is_over:
            action = rng.choice(copying.legal_actions())
            caused = copying.play(action)
            assert changing.play(action, in_place=True) == caused
            assert position_to_json(changing.state) == position_to_json(copying.state)
        assert changing.steps == copying.steps and changing.entries == copying.entries
        assert dumps(to_record(changing)) == dumps(to_record(copying))
