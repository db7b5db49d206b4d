"""bench/train_ppo.py end to end, and its policy as a registry bot (``ppo:path=FILE``)."""

from __future__ import annotations

import csv
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from kaladan.bots.base import SeatView  # noqa: E402
from kaladan.bots.registry import make_bot  # noqa: E402
from kaladan.env.policy import UntrainedDecisionWarning, load_model  # noqa: E402
from kaladan.game import Game  # noqa: E402
from kaladan.rules.config import Config  # noqa: E402
from kaladan.rules.errors import ConfigError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A tiny training run: its output directory and what it printed."""
    out = tmp_path_factory.mktemp("ppo")
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "train_ppo.py"), "--steps", "512",
         "--eval-every", "256", "--eval-games", "4", "--n-envs", "1", "--n-steps", "256",
         "--net", "64,64", "--out", str(out)],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return out, run.stdout


def test_training_writes_the_curve_chart_and_policy(trained: tuple[Path, str]) -> None:
    out, stdout = trained
    with open(out / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) >= 2  # before training, then at least once more
    assert [int(r["timesteps"]) for r in rows] == sorted(int(r["timesteps"]) for r in rows)
    for row in rows:
        for opponent in ("random", "greedy"):
            lo, rate, hi = (float(row[k]) for k in (f"{opponent}_lo", f"win_vs_{opponent}",
                                                   f"{opponent}_hi"))
            assert 0 <= lo <= rate <= hi <= 1
    assert (out / "curve.png").stat().st_size > 0
    assert (out / "policy.zip").stat().st_size > 0
    assert "quick setup on" in stdout
    assert "final win rate vs random" in stdout and "final win rate vs greedy" in stdout


@pytest.mark.parametrize("quick_setup", [True, False])
def test_the_policy_plays_a_whole_game_as_a_registry_bot(trained: tuple[Path, str],
                                                         quick_setup: bool) -> None:
    policy = trained[0] / "policy.zip"
    bots = [make_bot(f"ppo:path={policy}"), make_bot("random")]
    game = Game.new(Config(players=2, quick_setup=quick_setup), 7)
    rng = random.Random(7)
    decisions = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        while not game.is_over:
            seat = game.state.pending.seat
            legal = game.legal_actions()
            action = bots[seat].choose(SeatView(game.state, seat), legal, rng)
            assert action in legal
            game.play(action, seat)
            decisions += 1
            assert decisions < 5_000
    assert game.state.result is not None
    # trained with quick setup (the script's default): the setup decisions are new to it
    untrained = {str(w.message).split("'")[3] for w in caught
                 if w.category is UntrainedDecisionWarning}
    assert ("realm" in untrained) is not quick_setup
    assert load_model(str(policy)).kaladan_training["quick_setup"] is True


def test_sampling_follows_the_rng_it_is_handed(trained: tuple[Path, str]) -> None:
    policy = trained[0] / "policy.zip"
    game = Game.new(Config(players=2, quick_setup=True), 3)
    seat = game.state.pending.seat
    legal = game.legal_actions()
    picks = [make_bot(f"ppo:path={policy},deterministic=0").choose(
        SeatView(game.state, seat), legal, random.Random(5)) for _ in range(2)]
    assert picks[0] == picks[1] and picks[0] in legal


def test_a_two_player_policy_is_refused_for_three_players(trained: tuple[Path, str]) -> None:
    bot = make_bot(f"ppo:path={trained[0] / 'policy.zip'}")
    game = Game.new(Config(players=3, quick_setup=True), 1)
    seat = game.state.pending.seat
    with pytest.raises(ConfigError, match=r"trained for \d+ actions, this game has \d+: "
                                          r"train for this player count and mode"):
        bot.choose(SeatView(game.state, seat), game.legal_actions(), random.Random(0))


def test_bad_ppo_specs_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="path="):
        make_bot("ppo")
    with pytest.raises(ConfigError, match="not found"):
        make_bot(f"ppo:path={tmp_path / 'missing.zip'}")
    with pytest.raises(ConfigError, match="unknown ppo parameter"):
        make_bot(f"ppo:path={tmp_path / 'missing.zip'},temperature=2")
    with pytest.raises(ConfigError, match="deterministic"):
        make_bot(f"ppo:path={tmp_path / 'missing.zip'},deterministic=maybe")


def test_the_registry_imports_torch_only_for_a_ppo_bot() -> None:
    code = ("import sys, kaladan.bots.registry as r; r.make_bot('random'); "
            "print('torch' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert run.stdout.strip() == "False"
