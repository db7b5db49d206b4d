"""Simulation benchmark: the time of a state copy, and `simulate` and `balance` throughput
with 1 and 2 local processes (the speed-up should be close to 2 on 2 cores). Prints figures
only.

    python bench/bench_sim.py [--games N] [--balance-games N]
"""

from __future__ import annotations

import argparse
import random
import time

from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.setup import new_game
from kaladan.sim.balance import Ruleset, block_size, run
from kaladan.sim.runner import simulate


def copy_time(samples: int = 2000) -> float:
    """Microseconds per GameState.copy() over states taken from random 4-player games."""
    states = []
    for g in range(20):
        state = new_game(Config(players=4), g)
        rng = random.Random(g)
        while not state.is_over:
            if rng.random() < 0.05:
                states.append(state.copy())
            legal = legal_actions(state)
            apply_unchecked(state, legal[rng.randrange(len(legal))])
    start = time.perf_counter()
    for i in range(samples):
        states[i % len(states)].copy()
    return (time.perf_counter() - start) / samples * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--balance-games", type=int, default=block_size(4),
                        help="games of the balance study (default: one design block)")
    args = parser.parse_args()
    print(f"state copy: {copy_time():.1f} us")
    config = Config(players=4)
    rates = {}
    for jobs in (1, 2):
        start = time.perf_counter()
        simulate(config, ["random"] * 4, args.games, seed=1, jobs=jobs)
        seconds = time.perf_counter() - start
        rates[jobs] = args.games / seconds
        print(f"simulate, 4 random players, {args.games} games, jobs={jobs}: {seconds:.2f} s, "
              f"{rates[jobs]:.1f} games/s (wall clock)")
    print(f"speed-up with 2 jobs: {rates[2] / rates[1]:.2f}x")
    balance(args.balance_games)


def balance(games: int) -> None:
    """A balance study of the default ruleset: 4 players, greedy in every seat, realms
    rotated (its tables are the same whatever the number of processes)."""
    rates = {}
    tables = []
    for jobs in (1, 2):
        study = run([Ruleset("default", Config(players=4))], "greedy", games, seed=1, jobs=jobs)
        rates[jobs] = study.count / study.seconds
        tables.append(study.tables())
        print(f"balance, 4 players, greedy, {study.count} games, jobs={jobs}: "
              f"{study.seconds:.2f} s, {rates[jobs]:.1f} games/s (wall clock)")
    print(f"speed-up with 2 jobs: {rates[2] / rates[1]:.2f}x; "
          f"tables identical: {tables[0] == tables[1]}")


if __name__ == "__main__":
    main()
