"""The terminal game's parts in-process: battle probe, map, texts, saves, hidden cards."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from kaladan.battle_report import battle_report
from kaladan.bots.base import SeatView
from kaladan.bots.registry import make_bot
from kaladan.game import Game
from kaladan.play import i18n
from kaladan.play.battle import BattleWatch
from kaladan.play.hexmap import map_text
from kaladan.play.render import board_view, describe, offered_cards, options_text
from kaladan.play.savefile import (
    SetupError,
    bot_rng,
    parse_seats,
    read_save,
    write_save,
)
from kaladan.play.session import public_action_text
from kaladan.rules.actions import Action
from kaladan.rules.catalog import GLOSSARY
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError, FormatError
from kaladan.rules.state import GameState
from kaladan.rules.world import standard_world


def _plain(renderable: RenderableType, width: int = 160) -> str:
    console = Console(width=width, color_system=None, file=io.StringIO())
    console.print(renderable)
    out = console.file
    assert isinstance(out, io.StringIO)
    return out.getvalue()


def _bot_game(seed: int, players: int = 2) -> tuple[Game, list[tuple[GameState, Action]]]:
    """A greedy-bot game, keeping the position before each step."""
    game = Game.new(Config(players=players, quick_setup=True), seed)
    bots = [make_bot("greedy") for _ in range(players)]
    history = []
    while not game.is_over:
        seat = game.state.pending.seat
        action = bots[seat].choose(SeatView(game.state, seat), game.legal_actions(),
                                   bot_rng(seed, seat, len(game.steps)))
        history.append((game.state, action))
        game.play(action, seat)
    return game, history


def test_battle_probe_reads_the_dice_the_step_rolled() -> None:
    """R16.15: the probe's rolls are exactly the chance outcomes the real step recorded, and
    the losses it reports are the units that left the board (R16.25)."""
    battles = outcomes = 0
    for seed in (1, 2, 3):
        game, history = _bot_game(seed)
        watch = BattleWatch()
        for (before, action), step, after in zip(history, game.steps,
                                                 [s for s, _ in history[1:]] + [game.state],
                                                 strict=True):
            roll = battle_report(before, action)
            if roll is not None:
                battles += 1
                dice = roll.attack_rolls + roll.defence_rolls
                chance = list(step.chance)
                assert any(chance[i:i + len(dice)] == dice for i in range(len(chance)))
                for size, value in zip(roll.attack_dice + roll.defence_dice, dice, strict=True):
                    assert 1 <= value <= size
                assert roll.pairs()[0] == sorted(roll.attack_rolls, reverse=True)
            outcome = watch.step(before, action, after)
            if outcome is not None:
                outcomes += 1
                assert {c >> 7 for c in outcome.losses} <= {outcome.attacker, outcome.defender}
                holder = after.tile_owner(outcome.d_tile)
                assert outcome.taken == (holder == outcome.attacker)
                assert outcome.emptied == (holder < 0)
                if not outcome.taken and not outcome.emptied:  # the defender holds
                    assert holder == outcome.defender
    assert battles > 0 and outcomes >= battles


def test_probe_leaves_the_game_untouched() -> None:
    game, history = _bot_game(2)
    before, action = next((s, a) for s, a in history if a.kind == "attack")
    snapshot = before.copy()
    battle_report(before, action)
    assert Game(before.config, 0, before).position() == Game(snapshot.config, 0,
                                                               snapshot).position()


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_map_shows_every_tile_with_terrain_and_room(players: int) -> None:
    game = Game.new(Config(players=players, quick_setup=True), 1)
    text = map_text(game.state, "de").plain
    world = standard_world(players)
    for name in world.names:
        assert f" {name} " in text
    assert "Gebirge" in text and "Burg" in text
    assert text.count("frei ") == len(world.names)
    assert max(len(line) for line in text.splitlines()) <= 124  # fits the plain layout


def test_map_marks_owners_upgrades_and_upgraded_castles() -> None:
    game = Game.new(Config(players=2, quick_setup=True), 1)
    state = game.state.copy()
    castle = state.world.castle_spots[0]
    state.fortified[castle] = True
    text = map_text(state, "en").plain
    assert f"{state.world.names[castle]} Castle+" in text
    crown_tile = next(t for t, units in enumerate(state.board) if units)
    owner = state.board[crown_tile][0] >> 7
    assert f"│ {owner}: " in text
    upgraded = map_text(_upgraded(state, crown_tile), "en").plain
    assert "+" in upgraded.replace("Castle+", "")


def _upgraded(state: GameState, tile: int) -> GameState:
    state = state.copy()
    state.board[tile] = tuple(sorted(c | 1 for c in state.board[tile]))
    state.invalidate()
    return state


def test_private_card_actions_are_hidden_in_the_log() -> None:
    """R5.13: a face-down magic card, a chosen starting card and swapped cards stay private."""
    assert "KHA-5" not in public_action_text("magic KHA-5", "magic", "en")
    assert "face down" in public_action_text("magic KHA-5", "magic", "en")
    assert public_action_text("card KHA-1", "card", "en") == "card ?"
    assert "KHA" not in public_action_text("swapcard KHA-1 KHA-3", "swapcard", "nl")
    assert public_action_text("move T1 T2 sword", "move", "de") == "move T1 T2 sword"
    assert public_action_text("nomagic", "nomagic", "en") == "nomagic"


def test_options_name_cards_and_units_in_the_language() -> None:
    assert describe("card KHA-1", "en") == "card KHA-1 (Keep of Khalisia)"
    assert describe("move T1 T2 sword,archer+", "nl") == (
        f"move T1 T2 sword,archer+ ({GLOSSARY['sword'].nl}, {GLOSSARY['archer'].nl}+)")
    assert describe("pass", "de") == "pass"
    assert offered_cards(["card KHA-1", "card KHA-2", "swapcard KHA-1 KHA-3"],
                         ["KHA-1"]) == ["KHA-2", "KHA-3"]
    many = ["pass"] + [f"move T1 T{k} sword" for k in range(2, 60)] + ["attack T1 T2"]
    compact = options_text(many, "en", compact=True).plain
    assert "move: 58 options, type 'move'" in compact and "60. attack T1 T2" in compact
    full = options_text(many, "en", compact=False).plain
    assert " 30. move T1 T30 sword" in full


def test_the_screen_shows_only_the_viewers_hand() -> None:
    game = Game.new(Config(players=2, quick_setup=True), 4)
    state = game.state
    plan = parse_seats("human,human")
    for viewer in (0, 1):
        text = _plain(board_view(state, plan, "en", viewer, [], []))
        for card in state.hand[viewer]:
            assert card in text and i18n.card_name("en", card) in text
        for card in state.hand[1 - viewer]:
            assert card not in text and i18n.card_name("en", card) not in text


def test_r23_5_a_team_screen_shows_the_allys_hand_and_no_opponents() -> None:
    game = Game.new(Config(players=4, mode="team_2v2", quick_setup=True), 4)
    state = game.state
    text = _plain(board_view(state, parse_seats("human,human,human,human"), "en", 0, [], []))
    for ally in (0, 2):
        assert all(card in text for card in state.hand[ally])
    for enemy in (1, 3):
        assert state.hand[enemy] and not any(card in text for card in state.hand[enemy])


def test_every_interface_text_exists_in_three_languages() -> None:
    for key in i18n._TEXTS:
        values = [i18n.text(lang, key, **_dummy(key)) for lang in i18n.LANGS]
        assert all(values), key


def _dummy(key: str) -> dict[str, object]:
    import string

    en = i18n._TEXTS[key][0]
    names = [f[1] for f in string.Formatter().parse(en) if f[1]]
    return {name.split("!")[0]: "x" for name in names}


def test_save_round_trip_and_bad_saves(tmp_path: Path) -> None:
    game = Game.new(Config(players=3, quick_setup=True), 9)
    rng = random.Random(1)
    for _ in range(25):
        game.play(rng.choice(game.legal_actions()))
    plan = parse_seats("human,mcts:iterations=20,c=0.5,random", "de")
    assert plan.seats == ("human", "mcts:iterations=20,c=0.5", "random")
    path = tmp_path / "s.json"
    write_save(path, game, plan)
    loaded, again = read_save(path)
    assert again == plan
    assert loaded.position() == game.position() and len(loaded.steps) == len(game.steps)
    path.write_text(path.read_text().replace('"de"', '"fr"'))
    with pytest.raises(SetupError, match="fr"):
        read_save(path)
    path.write_text("{not json")
    with pytest.raises(FormatError, match="s.json"):
        read_save(path)
    with pytest.raises(ConfigError, match="dragon"):
        parse_seats("human,dragon")
    with pytest.raises(SetupError, match="no seats"):
        parse_seats(" , ")


def test_bot_random_source_depends_on_seed_seat_and_decision_only() -> None:
    assert bot_rng(5, 1, 30).random() == bot_rng(5, 1, 30).random()
    assert len({bot_rng(5, 1, 30).random(), bot_rng(5, 0, 30).random(),
                bot_rng(5, 1, 31).random(), bot_rng(6, 1, 30).random()}) == 4
