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

Then the batched core (``kaladan.env.vector.VectorGames``) at K = 1, 64 and 256 games,
4 players, beside the AEC env and the raw engine in the same process, rounds interleaved:
per call K tokens, each drawn uniformly from its game's mask in NumPy (one ``nonzero`` over
the flat K x N mask, the rows told apart by ``bincount``); observations and masks are
written by the core at every step. Targets of the batched issue at K = 256: 150,000 steps/s
and 3 times the AEC env.

Last, the floor of the AEC API itself: a do-nothing AEC env (``FloorEnv``) that hands the
same agent copies of the observations and masks the real env gave, with no engine and no
encoding behind them. Its time per step, plus the raw engine's time per token, is what any
adapter of this API pays before it encodes anything; set against the time per step that 50%
of the raw engine allows, it shows what is left for the adapter's own work.

    python bench/bench_env.py [--games N] [--players 2,4,6] [--rounds R] [--batch-steps S]
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
from pettingzoo import AECEnv  # noqa: E402

from kaladan.env import kaladan_v0  # noqa: E402

TARGET_STEPS = 25_000
TARGET_RATIO = 0.5
TARGET_BATCH_STEPS = 150_000  # the batched core at K = 256, 4 players
TARGET_BATCH_RATIO = 3.0  # ... against the AEC env in the same run
BATCH_SIZES = (1, 64, 256)
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


class FloorEnv(AECEnv):  # type: ignore[type-arg]
    """An AEC env that does only what PettingZoo's API asks of every env: agents, rewards,
    terminations, ``last()`` with a fresh observation and mask, ``step`` moving the
    selection on. It replays recorded (seat, observation, mask) steps of the real env."""

    metadata = {"name": "floor_v0"}

    def __init__(self, players: int, steps: list[tuple[int, np.ndarray, bytes]]) -> None:
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.recorded = steps

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.at = 0
        self.agent_selection = self.possible_agents[self.recorded[0][0]]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        _, obs, mask = self.recorded[min(self.at, len(self.recorded) - 1)]
        # what the real env returns: a vector the agent may keep, a mask of its own
        return {"observation": obs.copy(),
                "action_mask": np.frombuffer(bytearray(mask), dtype=np.int8)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.at += 1
        if self.at == len(self.recorded):
            for a in self.agents:
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[self.recorded[self.at][0]]
        self._deads_step_first()


def record_steps(players: int, seed: int) -> list[tuple[int, np.ndarray, bytes]]:
    """The (seat, observation, mask) of every step of one random game of the real env."""
    env = kaladan_v0.raw_env(players=players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = []
    for _agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        steps.append((env.core.seat, obs["observation"], obs["action_mask"].tobytes()))
        legal = obs["action_mask"].view(np.bool_).nonzero()[0]
        env.step(int(legal[int(rng.random() * len(legal))]))
    return steps


def run_floor(players: int, games: int, seed: int) -> tuple[int, float]:
    """(steps, CPU seconds) of the bench's agent on ``FloorEnv``: ``games`` replays of
    recorded games, the same agent loop as ``run_env``."""
    recorded = [record_steps(players, seed + g) for g in range(min(games, 10))]
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    for g in range(games):
        env = FloorEnv(players, recorded[g % len(recorded)])
        env.reset(seed=seed + g)
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = obs["action_mask"].view(np.bool_).nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
    return steps, time.process_time() - start


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


def run_batch(players: int, k: int, steps: int, seed: int) -> tuple[int, float]:
    """(steps, CPU seconds) of the batched core with ``k`` games and a masked random agent
    in NumPy, for at least ``steps`` steps (construction not counted)."""
    from kaladan.env.core import make_config
    from kaladan.env.vector import VectorGames

    games = VectorGames(make_config(players), k, seed)
    rng = np.random.default_rng(seed)
    n = games.action_size
    flat = games.masks.reshape(-1)
    row_base = np.arange(k) * n
    calls = max(1, steps // k)
    start = time.process_time()
    for _ in range(calls):
        legal = flat.nonzero()[0]  # every row has a legal token (all of them once over)
        counts = np.bincount(legal // n, minlength=k)
        first = np.cumsum(counts) - counts
        chosen = legal[first + (rng.random(k) * counts).astype(np.int64)] - row_base
        games.step(chosen)
    return calls * k, time.process_time() - start


def batch_table(games: int, rounds: int, seed: int, steps: int) -> None:
    """The batched core at each K beside the AEC env and the raw engine, 4 players."""
    totals = {k: [0, 0.0] for k in BATCH_SIZES}
    aec = [0, 0.0]
    engine = [0, 0.0]
    for r in range(rounds):
        for k in BATCH_SIZES:
            s, t = run_batch(4, k, steps, seed + r)
            totals[k][0] += s
            totals[k][1] += t
        s, d, t = run_env(4, games, seed + r * games)
        aec[0] += s
        aec[1] += t
        d, t = run_engine(4, games, seed + r * games)
        engine[0] += d
        engine[1] += t
    aec_rate = aec[0] / aec[1]
    engine_rate = engine[0] / engine[1]
    print(f"\nbatched core, 4 players ({steps} steps per K and round, {rounds} rounds; "
          f"AEC env {aec_rate:.0f} steps/s, raw engine {engine_rate:.0f} decisions/s):")
    print(f"{'K':>5} {'steps/s':>9} {'x AEC env':>9} {'/ engine dec/s':>14}")
    for k in BATCH_SIZES:
        rate = totals[k][0] / totals[k][1]
        print(f"{k:>5} {rate:>9.0f} {rate / aec_rate:>9.2f} {rate / engine_rate:>14.2f}")
    best = totals[BATCH_SIZES[-1]][0] / totals[BATCH_SIZES[-1]][1]
    print(f"K = {BATCH_SIZES[-1]}: {best / TARGET_BATCH_STEPS:.2f} x the target "
          f"{TARGET_BATCH_STEPS} steps/s; {best / aec_rate:.2f} x the AEC env (target "
          f"{TARGET_BATCH_RATIO:.0f} x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", default="2,4,6")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved repetitions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch-steps", type=int, default=60_000,
                        help="steps of the batched core per K and round")
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
    batch_table(args.games, args.rounds, args.seed, args.batch_steps)
    legal_t, mask_t = mask_cost(4, args.games, args.seed)
    print(f"mask from legal_actions (4 players, every decision of {args.games} games): "
          f"{mask_t / legal_t:.2f} x the cost of legal_actions itself (target at most 2)")
    floor_steps, floor_t = run_floor(4, args.games, args.seed)
    e_steps, e_dec, e_t = run_env(4, args.games, args.seed)
    r_dec, r_t = run_engine(4, args.games, args.seed)
    us = 1e6
    floor_us, env_us = floor_t / floor_steps * us, e_t / e_steps * us
    engine_us = r_t / r_dec * us * e_dec / e_steps  # the raw engine's time per env step
    budget_us = 1 / (TARGET_RATIO * r_dec / r_t) * us
    print(f"\nfloor of the AEC API (4 players, {args.games} games): a do-nothing env with the "
          f"same agent, {floor_steps / floor_t:.0f} steps/s = {floor_us:.2f} us a step")
    print(f"a step of the env {env_us:.2f} us = floor {floor_us:.2f} + raw engine "
          f"{engine_us:.2f} + the adapter's own work {env_us - floor_us - engine_us:.2f}; "
          f"{TARGET_RATIO:.0%} of the raw engine allows {budget_us:.2f} us a step, leaving "
          f"{budget_us - floor_us - engine_us:.2f} us for the adapter's own work")


if __name__ == "__main__":
    main()
