"""The terminal game's parts in-process: map, texts, saves, hidden hands (the log and the
battle panel: test_play_log.py; the steady screen and the choices: test_play_screen.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from play_helpers import plain

from kaladan.game import Game
from kaladan.play import i18n
from kaladan.play.hexmap import map_text
from kaladan.play.render import board_view, offered_cards
from kaladan.play.savefile import (
    SetupError,
    bot_rng,
    find_save,
    new_autosave,
    parse_seats,
    read_save,
    save_dir,
    save_path,
    write_save,
)
from kaladan.rules.actions import Action, Kind
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError, FormatError
from kaladan.rules.state import GameState
from kaladan.rules.world import standard_world


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
    assert f"│ P{owner + 1}: " in text  # players as the log names them: P1 is seat 0
    assert f"⌂{owner + 1}" in text
    upgraded = map_text(_upgraded(state, crown_tile), "en").plain
    assert "+" in upgraded.replace("Castle+", "")


def _upgraded(state: GameState, tile: int) -> GameState:
    state = state.copy()
    state.board[tile] = tuple(sorted(c | 1 for c in state.board[tile]))
    state.invalidate()
    return state


def test_offered_cards_are_the_cards_the_options_name_outside_the_hand() -> None:
    assert offered_cards([Action(Kind.CARD, name="KHA-1"), Action(Kind.CARD, name="KHA-2"),
                          Action(Kind.SWAPCARD, name="KHA-1", name2="KHA-3"),
                          Action(Kind.SWAPCARD, name="KHA-1")],
                         ["KHA-1"]) == ["KHA-2", "KHA-3"]


def test_the_screen_shows_only_the_viewers_hand() -> None:
    game = Game.new(Config(players=2, quick_setup=True), 4)
    state = game.state
    plan = parse_seats("human,human")
    for viewer in (0, 1):
        text = plain(board_view(state, plan, "en", viewer, [], []))
        for card in state.hand[viewer]:
            assert card in text and i18n.card_name("en", card) in text
        for card in state.hand[1 - viewer]:
            assert card not in text and i18n.card_name("en", card) not in text


def test_r23_5_a_team_screen_shows_the_allys_hand_and_no_opponents() -> None:
    game = Game.new(Config(players=4, mode="team_2v2", quick_setup=True), 4)
    state = game.state
    text = plain(board_view(state, parse_seats("human,human,human,human"), "en", 0, [], []))
    for ally in (0, 2):
        assert all(card in text for card in state.hand[ally])
    for enemy in (1, 3):
        assert state.hand[enemy] and not any(card in text for card in state.hand[enemy])


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


def test_saves_go_to_the_user_data_directory(user_data: Path) -> None:
    """A bare name goes to the saves folder of the user data directory; a path with a
    folder in it where it says; ``--load`` finds a save by its name there too."""
    folder = user_data / "kaladan" / "saves"
    assert save_dir() == folder
    assert save_path("mid.json") == folder / "mid.json"
    assert save_path("./mid.json") == Path("./mid.json")
    assert save_path("/tmp/x/mid.json") == Path("/tmp/x/mid.json")
    first = new_autosave(0)
    assert first.parent == folder and first.name.startswith("game-")
    game = Game.new(Config(players=2, quick_setup=True), 9)
    write_save(first, game, parse_seats("human,greedy"))  # makes the folder
    assert new_autosave(0) != first and new_autosave(0).name.endswith("-2.json")
    assert find_save(first.name) == first
    assert find_save("no-such-save.json") == Path("no-such-save.json")


def test_bot_random_source_depends_on_seed_seat_and_decision_only() -> None:
    assert bot_rng(5, 1, 30).random() == bot_rng(5, 1, 30).random()
    assert len({bot_rng(5, 1, 30).random(), bot_rng(5, 0, 30).random(),
                bot_rng(5, 1, 31).random(), bot_rng(6, 1, 30).random()}) == 4
