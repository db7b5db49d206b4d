"""The value network's training script: a smoke run of a few hundred steps, its files, the
manifest it writes, resuming after an interruption (issue 44, docs/value.md)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("torch")

from kaladan.expert.value import FEATURES_VERSION, Features, ValueNet, load_for  # noqa: E402
from kaladan.learn.value_train import Trainer, TrainError, TrainSettings  # noqa: E402
from kaladan.rules.config import Config  # noqa: E402
from kaladan.rules.setup import new_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMOKE = TrainSettings(players=2, generations=2, greedy_games=16, mcts_games=2, mcts_iterations=4,
                      games=2, expert_iterations=3, keep=1.0, hidden=(32,), epochs=2, batch=16,
                      eval_games=0, jobs=1)


def rows(out: Path) -> list[dict[str, str]]:
    with (out / "curve.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def test_a_smoke_run_trains_two_generations_and_writes_a_network_that_plays(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    net_path = Trainer(SMOKE, out, log=lambda line: None).run()
    assert net_path == out / "gen-1.npz"
    curve = rows(out)
    epochs = [r for r in curve if r["epoch"]]
    assert [(r["generation"], r["epoch"]) for r in epochs] == [
        ("0", "0"), ("0", "1"), ("1", "0"), ("1", "1")]
    steps = sum(int(r["rows"]) for r in epochs) / SMOKE.batch
    assert steps >= 200  # a few hundred optimiser steps
    assert all(float(r["value_loss"]) > 0 for r in epochs)
    assert (out / "curve.png").stat().st_size > 1000
    # Generation 1 learnt from games of the expert judging with generation 0.
    manifest = json.loads(net_path.with_suffix(".json").read_text())
    assert manifest["features"] == FEATURES_VERSION
    assert manifest["serves"] == [{"players": 2, "mode": "free_for_all", "world": "standard",
                                   "layout": None}]
    assert manifest["training"]["generation"] == 1
    assert len(manifest["training"]["data_sha256"]) == 64
    meta = json.loads(subprocess.run(
        [sys.executable, "-c", "import json,sys; from kaladan.sim.selfplay import load; "
         f"print(json.dumps(load('{out / 'selfplay-1-0.npz'}').meta['bots']))"],
        capture_output=True, text=True, check=True).stdout)
    assert meta == [f"expert:iterations=3,net={out / 'gen-0.npz'}"] * 2
    net = load_for(Config(players=2), net_path)
    values = net.win_probabilities(new_game(Config(players=2), 4))
    assert len(values) == 2 and all(0.0 <= v <= 1.0 for v in values)


def test_an_interrupted_run_resumes_without_redoing_finished_stages(tmp_path: Path) -> None:
    out = tmp_path / "run"
    settings = replace(SMOKE, generations=1)
    Trainer(settings, out, log=lambda line: None).run()
    weights = (out / "gen-0.npz").read_bytes()
    games = (out / "selfplay-0-0.npz").stat().st_mtime_ns
    # Interrupted after the last epoch's checkpoint, before the export.
    (out / "gen-0.npz").unlink()
    (out / "gen-0.json").unlink()
    lines: list[str] = []
    Trainer(settings, out, log=lines.append).run()
    assert (out / "gen-0.npz").read_bytes() == weights
    assert (out / "selfplay-0-0.npz").stat().st_mtime_ns == games  # not played again
    assert not any("train loss" in line for line in lines)  # nor trained again
    assert len([r for r in rows(out) if r["epoch"]]) == settings.epochs
    ValueNet.load(out / "gen-0.npz")
    # One more generation continues the run: generation 0 is kept as it is.
    lines.clear()
    assert Trainer(replace(settings, generations=2), out, log=lines.append).run() == \
        out / "gen-1.npz"
    assert (out / "gen-0.npz").read_bytes() == weights
    assert any("continuing to 2 generations" in line for line in lines)
    assert not any(line.startswith("generation 0") for line in lines)


def test_a_run_directory_refuses_other_settings(tmp_path: Path) -> None:
    out = tmp_path / "run"
    Trainer(replace(SMOKE, generations=1, greedy_games=2, mcts_games=0, epochs=1), out,
            log=lambda line: None)
    with pytest.raises(TrainError, match="other settings"):
        Trainer(replace(SMOKE, generations=1, greedy_games=3, mcts_games=0, epochs=1), out)


def test_the_bench_script_prints_the_curve_and_ships_nothing_unasked(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench/train_value.py"), "--out", str(out),
         "--generations", "1", "--greedy-games", "4", "--mcts-games", "0", "--epochs", "1",
         "--batch", "16", "--hidden", "16", "--eval-games", "0", "--jobs", "1"],
        capture_output=True, text=True, check=True)
    assert "generation 0 epoch 0: train loss" in result.stdout
    assert "shipped" not in result.stdout
    assert (out / "gen-0.npz").exists() and (out / "curve.csv").exists()


def test_an_older_feature_layout_is_trained_on_request_and_others_are_refused(
        tmp_path: Path) -> None:
    """``--features 1`` trains the layout the shipped 4-player network reads, so the script
    rebuilds it; a layout this kaladan cannot write is refused before any work."""
    one = replace(SMOKE, generations=1, epochs=1, features=1)
    net_path = Trainer(one, tmp_path / "one", log=lambda line: None).run()
    manifest = json.loads(net_path.with_suffix(".json").read_text())
    assert manifest["features"] == 1
    world = new_game(Config(players=2), 0).world
    assert manifest["input_size"] == Features(Config(players=2), world, 1).size
    assert manifest["input_size"] < Features(Config(players=2), world).size
    net = load_for(Config(players=2), net_path)
    assert len(net.win_probabilities(new_game(Config(players=2), 4))) == 2
    with pytest.raises(TrainError, match="--features 3"):
        Trainer(replace(SMOKE, features=3), tmp_path / "three", log=lambda line: None)
    assert not (tmp_path / "three").exists()
