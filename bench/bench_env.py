"""Environment benchmark: the PettingZoo AEC env with masks, random agents, one process.

Each agent reads ``last()`` (observation tensor + action mask) and picks a uniformly random
legal token from the mask, as a masked random policy would (the int8 mask viewed as bool:
numpy finds the nonzero entries of bools ~15x faster, and ``ndarray.nonzero`` skips
``np.flatnonzero``'s Python layer). Printed beside the raw engine
loop of ``bench_engine.py`` (same games, same process, interleaved): env steps/s (tokens),
engine decisions/s through the env, and the ratio to the engine; then the cost of a mask
against that of ``legal_actions``. Targets of the environment issue: 25,000 steps/s, 50% of
the engine's decisions/s, a mask at most twice ``legal_actions``. CPU seconds of this
process.

    python bench/bench_env.py [--games N] [--players 2,4,6] [--rounds R]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import run as run_engine  # noqa: E402

from kaladan.env import kaladan_v0  # noqa: E402

TARGET_STEPS = 25_000
TARGET_RATIO = 0.5
CATANATRON_STEPS = 4_500  # catanatron's Gymnasium env, agent steps/s, measured here earlier


def run_env(players: int, games: int, seed: int) -> tuple[int, int, float]:
    """(env steps, engine decisions, CPU seconds) of ``games`` random games."""
    env = kaladan_v0.raw_env(players=players)  # the games of bench_engine.run: full setup
    rng = random.Random(seed)
    steps = decisions = 0
    start = time.process_time()
    for g in range(games):
        env.reset(seed=seed + g)
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            # int8 (PettingZoo's mask dtype) viewed as bool: numpy finds bools ~15x faster
            legal = obs["action_mask"].view(np.bool_).nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        decisions += env.core.state.decisions
    return steps, decisions, time.process_time() - start


def mask_cost(players: int, games: int, seed: int) -> tuple[float, float]:
    """CPU seconds of ``legal_actions`` alone and of the mask built from it (heads from the
    lazy ActionList, then the int8 array), over every decision of random games, each on a
    fresh copy so nothing is cached."""
    from kaladan.env.encoding import ActionEncoder, Choice
    from kaladan.rules.apply import apply_unchecked
    from kaladan.rules.config import Config
    from kaladan.rules.legal import legal_actions
    from kaladan.rules.setup import new_game

    config = Config(players=players)
    encoder = ActionEncoder(config, new_game(config, 0).world)
    states = []
    for g in range(games):
        state = new_game(config, seed + g)
        rng = random.Random(seed + g)
        while state.result is None:
            states.append(state.copy())
            legal = legal_actions(state)
            apply_unchecked(state, legal[int(rng.random() * len(legal))])
    copies = [s.copy() for s in states]
    start = time.process_time()
    for s in copies:
        legal_actions(s)
    legal_t = time.process_time() - start
    copies = [s.copy() for s in states]
    start = time.process_time()
    for s in copies:
        Choice(encoder, s, legal_actions(s)).mask()
    return legal_t, time.process_time() - start - legal_t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", default="2,4,6")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved repetitions")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    counts = [int(p) for p in args.players.split(",")]
    run_env(2, 3, 0)  # warm-up: imports, caches
    run_engine(2, 3, 0)
    print(f"{'players':>7} {'env steps/s':>12} {'env dec/s':>10} {'tokens/dec':>10} "
          f"{'engine dec/s':>12} {'env/engine':>10}")
    all_steps = all_dec = 0
    all_t = all_engine_d = 0.0
    all_engine_t = 0.0
    for players in counts:
        steps = dec = 0
        t = engine_t = 0.0
        engine_d = 0
        for r in range(args.rounds):  # interleaved, so machine load hits both alike
            s, d, secs = run_env(players, args.games, args.seed + r * args.games)
            steps, dec, t = steps + s, dec + d, t + secs
            ed, esecs = run_engine(players, args.games, args.seed + r * args.games)
            engine_d, engine_t = engine_d + ed, engine_t + esecs
        all_steps, all_dec, all_t = all_steps + steps, all_dec + dec, all_t + t
        all_engine_d, all_engine_t = all_engine_d + engine_d, all_engine_t + engine_t
        print(f"{players:>7} {steps / t:>12.0f} {dec / t:>10.0f} {steps / dec:>10.2f} "
              f"{engine_d / engine_t:>12.0f} {(dec / t) / (engine_d / engine_t):>10.2f}")
    steps_s = all_steps / all_t
    ratio = (all_dec / all_t) / (all_engine_d / all_engine_t)
    print(f"\nall: {steps_s:.0f} env steps/s = {steps_s / TARGET_STEPS:.2f} x target "
          f"{TARGET_STEPS}; {steps_s / CATANATRON_STEPS:.1f} x catanatron's {CATANATRON_STEPS}")
    print(f"env steps/s = {steps_s / (all_engine_d / all_engine_t):.0%} of the raw engine's "
          f"decisions/s (target {TARGET_RATIO:.0%}); engine decisions through the env: "
          f"{ratio:.0%}; {all_steps / all_dec:.2f} tokens per decision")
    legal_t, mask_t = mask_cost(4, args.games, args.seed)
    print(f"mask from legal_actions (4 players, every decision of {args.games} games): "
          f"{mask_t / legal_t:.2f} x the cost of legal_actions itself (target at most 2)")


if __name__ == "__main__":
    main()
