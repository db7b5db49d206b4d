"""bench/bench_env.py: its floor env replays the real env's steps, and the script runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bench_env  # noqa: E402


def test_the_floor_env_hands_the_agent_what_the_real_env_gave() -> None:
    recorded = bench_env.record_steps(3, seed=7)
    env = bench_env.FloorEnv(3, recorded)
    env.reset()
    seen = []
    for agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        seat, vector, mask = recorded[len(seen)]
        assert agent == f"player_{seat}"
        assert np.array_equal(obs["observation"], vector)
        assert obs["observation"] is not vector  # a copy, as the real env hands out
        assert obs["action_mask"].tobytes() == mask
        seen.append(agent)
        env.step(int(obs["action_mask"].nonzero()[0][0]))
    assert len(seen) == len(recorded) > 50  # a whole game, every step once
    assert env.agents == []  # all terminated and stepped out with None


def test_the_bench_prints_the_floor_beside_the_env() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_env.py"), "--games", "2", "--rounds",
         "1", "--players", "2"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    line = re.search(r"a step of the env ([\d.]+) us = floor ([\d.]+) \+ raw engine ([\d.]+)"
                     r" \+ the adapter's own work (-?[\d.]+); 50% of the raw engine allows"
                     r" ([\d.]+) us a step", run.stdout)
    assert line is not None, run.stdout
    env_us, floor_us, engine_us, _, budget_us = map(float, line.groups())
    assert min(env_us, floor_us, engine_us, budget_us) > 0
