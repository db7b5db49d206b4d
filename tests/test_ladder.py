"""bench/ladder.py on tiny budgets (issue 44): the league's pairing arithmetic (paired seeds,
rotated seats, a draw a half), Wilson intervals, ratings with intervals, levels as the bots
they play, resuming from the games file, and the 4-player benchmark."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kaladan.sim.runner import game_seed
from kaladan.sim.stats import wilson

LADDER = Path(__file__).resolve().parents[1] / "bench" / "ladder.py"


@pytest.fixture(scope="module")
def ladder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ladder", LADDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ladder"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def rows(path: Path) -> dict[str, dict[int, dict[str, Any]]]:
    """The games file by match key and game index (one line a game, never two)."""
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for line in path.read_text("utf-8").splitlines():
        row = json.loads(line)
        assert row["k"] not in out.setdefault(row["key"], {}), "a game played twice"
        out[row["key"]][row["k"]] = row
    return out


def check_games(games: dict[int, dict[str, Any]], hero: str, rival: str, seats: int,
                seed: int) -> None:
    for k, row in games.items():
        assert row["seed"] == game_seed(seed, k // seats)  # each seed from every seat
        bots = [rival] * seats
        bots[k % seats] = hero
        assert row["bots"] == bots
        expected = 0.5 if row["winner"] is None else float(row["winner"] == k % seats)
        assert row["score"] == expected
        assert len(row["think"]) == seats and all(t >= 0 for t in row["think"])


def test_a_league_pairs_every_bot_with_paired_seeds_and_resumes(
        ladder: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "league"
    args = ["--specs", "random,beginner,casual,greedy", "--games", "4", "--seed", "7",
            "--bootstrap", "40", "--out", str(out)]
    assert ladder.main(args) == 0
    data = json.loads(out.with_suffix(".json").read_text("utf-8"))
    # casual is greedy: one entry with both names, which plays nobody twice
    assert data["entries"] == [{"spec": "random", "names": ["random"]},
                               {"spec": "careless:p=0.5", "names": ["beginner"]},
                               {"spec": "greedy", "names": ["casual", "greedy"]}]
    games = rows(out.with_suffix(".jsonl"))
    assert len(games) == 3 and all(len(g) == 4 for g in games.values())
    labels = {"random": "random", "careless:p=0.5": "careless:p=0.5 (beginner)",
              "greedy": "greedy (casual)"}
    by_pair = {(p["a"], p["b"]): p for p in data["pairings"]}
    scores: dict[tuple[str, str], list[float]] = {}
    for key, played in games.items():
        players, seed, quick, hero, rival = json.loads(key)
        assert (players, seed, quick) == (2, 7, False)
        check_games(played, hero, rival, 2, 7)
        pair = by_pair[(labels[hero], labels[rival])]
        scores[(labels[hero], labels[rival])] = [played[k]["score"] for k in range(4)]
        wins = sum(played[k]["score"] for k in range(4))
        assert (pair["games"], pair["wins"]) == (4, wins)
        assert (pair["low"], pair["high"]) == tuple(round(x, 4) for x in wilson(round(wins), 4))
    for standing in data["ratings"]:
        assert standing["low"] <= standing["rating"] <= standing["high"]
        assert standing["games"] == 8  # two pairings of four games
    assert sum(s["score"] for s in data["ratings"]) == 12  # every game scores one in all
    [step] = data["levels"]  # beginner and casual are in the league, each above the other
    beginner_first = scores[("careless:p=0.5 (beginner)", "greedy (casual)")]
    assert (step["level"], step["below"]) == ("casual", "beginner")
    assert step["head_to_head"]["wins"] == 4 - sum(beginner_first)
    assert "| casual | beginner: " in out.with_suffix(".md").read_text("utf-8")
    # Again with more games: the four already played are kept, two more played per pairing.
    before = out.with_suffix(".jsonl").read_text("utf-8")
    assert ladder.main([*args[:3], "6", *args[4:]]) == 0
    after = out.with_suffix(".jsonl").read_text("utf-8")
    assert after.startswith(before) and len(after.splitlines()) == 18
    for key, played in rows(out.with_suffix(".jsonl")).items():
        _, _, _, hero, rival = json.loads(key)
        assert sorted(played) == list(range(6))
        check_games(played, hero, rival, 2, 7)


def test_reach_pairs_neighbours_and_every_level_step(ladder: ModuleType,
                                                     tmp_path: Path) -> None:
    out = tmp_path / "chain"
    assert ladder.main(["--specs", "careless:p=0.5,random,careless:p=0.9,casual", "--reach", "1",
                        "--games", "2", "--seed", "5", "--bootstrap", "20",
                        "--out", str(out)]) == 0
    data = json.loads(out.with_suffix(".json").read_text("utf-8"))
    pairs = {(p["a"], p["b"]) for p in data["pairings"]}
    # the three neighbours, and beginner against casual (a level step two places apart, the
    # beginner given by the bot it plays);
    # random never meets greedy, nor careless:p=0.9 the beginner's careless:p=0.5
    assert pairs == {("careless:p=0.5 (beginner)", "random"),
                     ("random", "careless:p=0.9"),
                     ("careless:p=0.9", "greedy (casual)"),
                     ("careless:p=0.5 (beginner)", "greedy (casual)")}
    assert len(rows(out.with_suffix(".jsonl"))) == 4
    assert [s["games"] for s in data["ratings"]] == [4] * 4  # two pairings of two games each
    assert data["reach"] == 1 and "each bot against the next" in out.with_suffix(
        ".md").read_text("utf-8")


def test_four_players_rotate_the_hero_over_every_seat(ladder: ModuleType,
                                                      tmp_path: Path) -> None:
    out = tmp_path / "four"
    assert ladder.main(["--players", "4", "--hero", "casual", "--rival", "random",
                        "--games", "8", "--seed", "3", "--out", str(out)]) == 0
    data = json.loads(out.with_suffix(".json").read_text("utf-8"))
    [(key, played)] = rows(out.with_suffix(".jsonl")).items()
    assert json.loads(key) == [4, 3, False, "greedy", "random"]
    check_games(played, "greedy", "random", 4, 3)
    wins = sum(row["score"] for row in played.values())
    assert data["result"]["wins"] == wins == sum(data["wins_by_hero_seat"])
    assert data["even_share"] == 0.25 and data["hero_spec"] == "greedy"


def test_mistakes_are_refused_with_a_message(ladder: ModuleType, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "x")
    assert ladder.main(["--players", "4", "--hero", "casual", "--rival", "greedy",
                        "--out", out]) == 2
    assert "casual and greedy are the same bot (greedy)" in capsys.readouterr().err
    assert ladder.main(["--specs", "greedy,casual", "--out", out]) == 2
    assert "at least two different bots" in capsys.readouterr().err
    assert ladder.main(["--specs", "random,wizard", "--out", out]) == 2
    assert "unknown bot 'wizard'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ladder.main(["--players", "4", "--out", out])  # no hero nor rival
    with pytest.raises(SystemExit):
        ladder.main(["--specs", "random,greedy", "--reach", "-1", "--out", out])
