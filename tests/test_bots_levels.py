"""Levels for people (issue 44): five named strengths from bots/data/levels.json, each a bot
spec; the careless bot of the weakest; a level that cannot play a game is refused before it
starts, naming the strongest level that can; the search worker caps every searching bot."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path
from typing import Any

import pytest

from kaladan.bots import worker
from kaladan.bots.base import SeatView
from kaladan.bots.careless import CarelessBot
from kaladan.bots.greedy import GreedyBot
from kaladan.bots.levels import (
    default_level,
    find_level,
    level_names,
    levels,
    parse_levels,
    resolve,
    strongest,
)
from kaladan.bots.random_bot import RandomBot
from kaladan.bots.registry import bot_codes, check_config, make_bot, parse_bot_list
from kaladan.rules.apply import apply
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError
from kaladan.rules.legal import legal_actions
from kaladan.rules.setup import new_game
from kaladan.sim.runner import play_game

DATA = Path(__file__).resolve().parents[1] / "src/kaladan/bots/data/levels.json"


def served(spec: str, players: int) -> bool:
    try:
        check_config(spec, Config(players=players))
    except ConfigError:
        return False
    return True


def unserved_players() -> int:
    """A player count no shipped value network serves (the expert bot cannot play it)."""
    count = next((n for n in range(2, 7) if not served("expert", n)), None)
    if count is None:
        pytest.skip("every player count has a value network: no configuration to refuse")
    return count


def params(bot: Any) -> Any:
    """What tells two bots of one kind apart: their parameters."""
    return getattr(bot, "params", None) or getattr(bot, "p", None)


def test_levels_play_the_specs_of_the_data_file_weakest_first() -> None:
    data = json.loads(DATA.read_text("utf-8"))
    assert data["source"] and data["league"]["figures"]  # where the choice comes from
    rows = data["levels"]
    assert level_names() == [row["name"] for row in rows] and len(rows) == 5
    for rank, row in enumerate(rows, 1):
        level = find_level(row["name"].upper())  # names in any case
        assert level is not None and (level.rank, level.bot) == (rank, row["bot"])
        assert resolve(row["name"]) == row["bot"]
        bot, direct = make_bot(row["name"]), make_bot(row["bot"])
        assert type(bot) is type(direct) and params(bot) == params(direct)
    assert default_level().name == "adept" == rows[len(rows) // 2]["name"]  # the middle
    assert resolve("mcts:time=1") == "mcts:time=1"  # a bot spec plays itself


def test_level_names_are_no_bot_codes_and_take_no_parameters() -> None:
    assert not set(level_names()) & set(bot_codes())
    with pytest.raises(ConfigError, match=r"the level adept takes no parameters .*mcts"):
        make_bot("adept:time=3")
    with pytest.raises(ConfigError, match=r"unknown bot 'wizard'.*levels are beginner, casual"):
        make_bot("wizard")
    assert parse_bot_list("adept,mcts:time=1,c=0.5,master") == [
        "adept", "mcts:time=1,c=0.5", "master"]


@pytest.mark.parametrize("table,words", [
    ({}, "non-empty list"),
    ({"levels": [{"name": "Adept", "bot": "greedy"}]}, "lowercase"),
    ({"levels": [{"name": "adept"}]}, "needs a bot spec"),
    ({"levels": [{"name": "a", "bot": "greedy"}, {"name": "a", "bot": "random"}]}, "twice"),
    ({"levels": [{"name": "a", "bot": "b"}, {"name": "b", "bot": "greedy"}]}, "is a level"),
])
def test_a_broken_table_is_refused_with_its_mistake(table: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        parse_levels(table, "levels.json")


def test_the_careless_bot_is_greedy_but_for_its_random_actions() -> None:
    state = new_game(Config(players=2, quick_setup=True), 3)
    while len(legal_actions(state)) < 5:  # a decision with a real choice
        apply(state, legal_actions(state)[0])
    legal = legal_actions(state)
    view = SeatView(state, state.pending.seat)
    greedy = GreedyBot().choose(view, legal, random.Random(9))
    # p=1 draws one number, then picks as the random bot does from the same generator.
    rng, twin = random.Random(4), random.Random(4)
    twin.random()
    assert CarelessBot(1.0).choose(view, legal, rng) == RandomBot.pick(legal, twin)
    picks = [CarelessBot(0.5).choose(view, legal, random.Random(k)) for k in range(200)]
    assert picks == [CarelessBot(0.5).choose(view, legal, random.Random(k)) for k in range(200)]
    share = sum(p == greedy for p in picks) / len(picks)
    assert 0.5 <= share < 1.0  # greedy's choice at least half the time, not always
    assert make_bot("careless:p=0.25").p == 0.25  # type: ignore[attr-defined]
    for bad, words in (("careless:p=0", "above 0"), ("careless:p=2", "at most 1"),
                       ("careless:p=x", "not a number"), ("careless:q=1", "unknown")):
        with pytest.raises(ConfigError, match=words):
            make_bot(bad)


def test_beginner_games_are_the_same_for_the_same_seed() -> None:
    config = Config(players=2, quick_setup=True)
    one = play_game(config, 11, ["beginner", "casual"])
    assert one.to_json() == play_game(config, 11, ["beginner", "casual"]).to_json()


def test_a_level_that_cannot_play_a_game_is_refused_naming_one_that_can() -> None:
    players = unserved_players()
    config = Config(players=players)
    with pytest.raises(ConfigError, match=r"the master level \(expert:.*\) cannot play "
                       rf"this game: .*{players} players.*; choose veteran or a weaker level"):
        check_config("master", config)
    with pytest.raises(ConfigError, match=f"{players} players"):
        check_config("expert:time=1", config)
    for name in ("beginner", "casual", "adept", "veteran"):
        check_config(name, config)  # no network needed
    assert strongest().name == "master"


def test_every_level_plays_two_player_games() -> None:
    for name in level_names():
        check_config(name, Config(players=2))  # the shipped 2-player network serves it


@pytest.mark.parametrize("spec", ["mcts:iterations=50", "expert:iterations=50", "master"])
def test_the_search_worker_caps_every_searching_bot(spec: str) -> None:
    state = new_game(Config(players=2, quick_setup=True), 5)
    worker._bots.pop(spec, None)
    action = worker.think(spec, pickle.dumps(state), state.pending.seat, 1, 0.25)
    assert action in legal_actions(state)
    bot = worker._bots[spec]
    assert isinstance(bot, worker.Capped) and bot.max_seconds == 0.25
    greedy = "casual"
    worker.think(greedy, pickle.dumps(state), state.pending.seat, 1, 0.25)
    assert not isinstance(worker._bots[greedy], worker.Capped)  # nothing to cap


def test_a_capped_expert_stops_at_the_cap_whatever_its_budget() -> None:
    state = new_game(Config(players=2, quick_setup=True), 5)
    while len(legal_actions(state)) < 5:  # a decision the search does not answer at once
        apply(state, legal_actions(state)[0])
    spec = "expert:iterations=20000"
    worker._bots.pop(spec, None)
    worker.think(spec, pickle.dumps(state), state.pending.seat, 1, 0.2)
    done = worker._bots[spec].iterations_done  # type: ignore[attr-defined]
    assert 0 < done < 20000


def test_docs_list_the_levels_of_the_data_file() -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs/bots.md").read_text("utf-8")
    section = docs.split("## Levels", 1)[1].split("\n## ", 1)[0]
    listed = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| `")]
    assert [(name.strip(" `"), bot.strip(" `")) for name, bot in listed] == [
        (level.name, level.bot) for level in levels()]
