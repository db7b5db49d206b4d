"""The terminal game's parts in-process: map, texts, saves, hidden hands (the log and the
battle panel: test_play_log.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from play_helpers import plain

from kaladan.game import Game
from kaladan.play import i18n
from kaladan.play.hexmap import map_text
from kaladan.play.render import board_view, describe, offered_cards, options_text
from kaladan.play.savefile import (
    SetupError,
    bot_rng,
    parse_seats,
    read_save,
    write_save,
)
from kaladan.rules.catalog import GLOSSARY
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
    assert f"│ {owner}: " in text
    upgraded = map_text(_upgraded(state, crown_tile), "en").plain
    assert "+" in upgraded.replace("Castle+", "")


def _upgraded(state: GameState, tile: int) -> GameState:
    state = state.copy()
    state.board[tile] = tuple(sorted(c | 1 for c in state.board[tile]))
    state.invalidate()
    return state


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
