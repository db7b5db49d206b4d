"""The analysis of a finished game (issue 44, docs/analysis.md): the win-probability curve by
the shipped value network, each seat's costliest decisions and the expert bot's choice there,
reproducible byte for byte; and ``kaladan replay --analyse``.

Nothing here depends on what a particular network says: only ranges, the exact result at the
end, the definition of a cost, the legality of the expert's choice and reproducibility."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kaladan.analysis import COSTLY, Analysis, AnalysisError, analyse, states_of
from kaladan.expert.value import ValueNetError
from kaladan.game import is_gift
from kaladan.record import dumps, replay
from kaladan.rules.actions import GIFT
from kaladan.rules.config import Config, WorldKind
from kaladan.rules.kinds import parse_action
from kaladan.rules.legal import legal_actions
from kaladan.rules.state import GameState
from kaladan.sim.runner import play_game

CONFIG = Config(players=2, quick_setup=True)
SEED = 7
ITERATIONS = 60  # a small search: the properties do not depend on its size


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    game = play_game(CONFIG, SEED, ["greedy", "greedy"], keep_record=True)
    assert game.record is not None
    return game.record


@pytest.fixture(scope="module")
def analysis(record: dict[str, Any]) -> Analysis:
    return analyse(record, ITERATIONS)


def test_the_same_record_and_budget_give_the_same_bytes(record: dict[str, Any],
                                                        analysis: Analysis) -> None:
    again = analyse(json.loads(json.dumps(record)), ITERATIONS)
    assert again.dumps() == analysis.dumps()
    assert json.loads(analysis.dumps()) == analysis.to_json()


def test_the_curve_has_a_point_per_decision_and_ends_in_the_result(
        record: dict[str, Any], analysis: Analysis) -> None:
    data = analysis.to_json()
    steps = record["steps"]
    assert data["decisions"] == len(steps) and data["seats"] == [s["seat"] for s in steps]
    assert len(data["curve"]) == len(steps) + 1
    for point in data["curve"]:
        assert len(point) == 2 and all(0.0 <= p <= 1.0 for p in point)
    winner = record["result"]["winner"]
    assert winner is not None  # greedy against greedy on this seed: a winner
    assert data["curve"][-1] == [1.0 if s == winner else 0.0 for s in range(2)]
    assert data["result"]["winner"] == winner


def _states(record: dict[str, Any]) -> list[GameState]:
    return states_of(replay(record))


def eligible(state: GameState, step: dict[str, Any]) -> bool:
    """A decision that was a choice of its seat: its own turn, no gift, two actions or more."""
    return (state.pending.seat == step["seat"] and not is_gift(step["action"])
            and len([a for a in legal_actions(state) if a.kind != GIFT]) > 1)


def test_the_costliest_decisions_are_the_seats_own_largest_drops(
        record: dict[str, Any], analysis: Analysis) -> None:
    data = analysis.to_json()
    curve = data["curve"]
    states = _states(record)
    for seat, costly in enumerate(data["costly"]):
        assert len(costly) <= COSTLY
        costs = [item["cost"] for item in costly]
        assert costs == sorted(costs, reverse=True) and all(c > 0 for c in costs)
        for item in costly:
            v = item["version"]
            step = record["steps"][v]
            assert item["seat"] == seat == step["seat"] and item["played"] == step["action"]
            assert eligible(states[v], step)
            assert item["before"] == curve[v][seat] and item["after"] == curve[v + 1][seat]
            assert item["cost"] == pytest.approx(item["before"] - item["after"], abs=1e-9)
        # No choice of the seat left out dropped its chance more than the last one listed.
        listed = {item["version"] for item in costly}
        floor = costs[-1] if len(costly) == COSTLY else 0.0
        for v, step in enumerate(record["steps"]):
            if step["seat"] == seat and v not in listed and eligible(states[v], step):
                assert round(curve[v][seat] - curve[v + 1][seat], 4) <= floor, v


def test_the_expert_choice_is_legal_there_and_what_it_keeps_adds_up(
        record: dict[str, Any], analysis: Analysis) -> None:
    states = _states(record)
    items = [item for costly in analysis.to_json()["costly"] for item in costly]
    assert items, "greedy lost some chance somewhere"
    for item in items:
        state = states[item["version"]]
        better = parse_action(item["better"], state)
        assert better in legal_actions(state) and better.kind != GIFT
        assert item["better_source"] in ("search", "network")
        assert item["played_source"] in ("search", "network")
        assert 0.0 <= item["better_value"] <= 1.0 and 0.0 <= item["played_value"] <= 1.0
        if item["same"]:
            assert item["better"] == item["played"] and item["kept"] == 0.0
        else:
            assert item["kept"] == pytest.approx(item["better_value"] - item["played_value"],
                                                 abs=1e-9)


def test_a_game_not_over_is_refused(record: dict[str, Any]) -> None:
    cut = {k: v for k, v in record.items() if k != "final"}
    cut["steps"] = record["steps"][:20]
    cut["result"] = None
    with pytest.raises(AnalysisError, match="not over"):
        analyse(cut)


def test_a_configuration_no_network_serves_is_refused_with_the_reason() -> None:
    # The shipped networks judge the standard world; a random one is not theirs.
    config = Config(players=2, quick_setup=True, world=WorldKind.RANDOM_TERRAIN)
    game = play_game(config, SEED, ["greedy", "greedy"], keep_record=True)
    assert game.record is not None
    with pytest.raises(ValueNetError, match="random_terrain"):
        analyse(game.record)
    with pytest.raises(ValueNetError, match="missing"):
        analyse(game.record, net="/nonexistent/kaladan/value.npz")


def test_a_bad_budget_is_refused(record: dict[str, Any]) -> None:
    with pytest.raises(AnalysisError, match="iterations"):
        analyse(record, 0)


# --- kaladan replay --analyse ---------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaladan.cli.main", *args],
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_command_prints_the_curve_and_the_costly_decisions(
        tmp_path: Path, record: dict[str, Any], analysis: Analysis) -> None:
    path = tmp_path / "game.json"
    path.write_text(dumps(record), "utf-8")
    shown = run("replay", "--analyse", str(path), "--iterations", str(ITERATIONS))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    for seat in (1, 2):
        curve = next(line for line in lines if line.startswith(f"seat {seat} "))
        assert any(bar in curve for bar in "▁▂▃▄▅▆▇█"), curve
    assert "The costliest decisions" in shown.stdout
    for costly in analysis.to_json()["costly"]:
        for item in costly:
            assert f"decision {item['version'] + 1}: {item['played']!r}" in shown.stdout
            assert repr(item["better"]) in shown.stdout or item["same"]
    as_json = run("replay", "--analyse", "--json", str(path), "--iterations", str(ITERATIONS))
    assert as_json.returncode == 0, as_json.stderr
    assert as_json.stdout.strip() == analysis.dumps()


def test_the_command_refuses_in_one_line(tmp_path: Path, record: dict[str, Any]) -> None:
    cut = {k: v for k, v in record.items() if k != "final"}
    cut["steps"], cut["result"] = record["steps"][:20], None
    unfinished = tmp_path / "unfinished.json"
    unfinished.write_text(dumps(cut), "utf-8")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", "utf-8")
    finished = tmp_path / "game.json"
    finished.write_text(dumps(record), "utf-8")
    for args, words in ((["--analyse", str(unfinished)], "not over"),
                        (["--analyse", str(garbage)], "cannot read record"),
                        (["--analyse", str(finished), "--net", "/nonexistent/v.npz"],
                         "no value network"),
                        (["--analyse", str(finished), "--iterations", "0"], "iterations"),
                        ([str(finished), "--json"], "--analyse")):
        result = run("replay", *args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr and words in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
