"""bench/bot_league.py --ladder (issue 44): the server's fixed bot ratings from the games of
bench/ladder.py's league, each level under its own name and each kind as its strongest
budget."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_ladder_league_rates_levels_by_name_and_kinds_by_their_strongest_budget(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ladder, league = load("ladder"), load("bot_league")
    games = tmp_path / "league"
    assert ladder.main(["--specs", "random,beginner,careless:p=0.9,casual", "--games", "4",
                        "--seed", "7", "--bootstrap", "20", "--out", str(games)]) == 0
    out = tmp_path / "ratings.json"
    assert league.main(["--ladder", str(games.with_suffix(".jsonl")), "--out", str(out)]) == 0
    data = json.loads(out.read_text("utf-8"))
    bots = data["bots"]
    assert data["games"] == 24  # six pairings of four games
    assert all(b["games"] == 12 for b in bots.values())  # every bot met the three others
    # a level is rated as the bot it plays, under its own name
    assert data["measured_as"]["beginner"] == "careless:p=0.5"
    assert data["measured_as"]["casual"] == "greedy"
    assert bots["casual"] == bots["greedy"]
    # the kind careless is its stronger budget of the two in the league
    careless = ("careless:p=0.5", "careless:p=0.9")
    ratings, _ = league.rate_all(league.ladder_games(games.with_suffix(".jsonl")), 39)
    strongest = max(careless, key=lambda s: ratings[s].mu)
    assert data["measured_as"]["careless"] == strongest
    assert bots["careless"]["mu"] == round(ratings[strongest].mu, 4)
    # greedy beats random almost always
    assert bots["greedy"]["mu"] > bots["random"]["mu"]
    mus = [b["mu"] for b in bots.values()]
    assert mus == sorted(mus, reverse=True)  # strongest first
    assert "casual" in capsys.readouterr().out


def test_a_missing_ladder_file_or_one_without_two_player_games_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    league = load("bot_league")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", "utf-8")
    out = tmp_path / "ratings.json"
    assert league.main(["--ladder", str(empty), "--out", str(out)]) == 2
    assert "no 2-player games" in capsys.readouterr().err and not out.exists()
    assert league.main(["--ladder", str(tmp_path / "none.jsonl"), "--out", str(out)]) == 2
    assert "no such file" in capsys.readouterr().err and not out.exists()
