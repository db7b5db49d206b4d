"""Engine benchmark: random games, single process.

Prints decisions per second (legal-action generation + apply + a uniform random choice)
and complete games per second for 2, 4 and 6 players, with the ratio to the targets of the
engine issue (60,000 decisions/s; 50 complete 4-player games/s). Seconds are CPU seconds of
this process, so other load on the machine disturbs the figures less. Never fails on time.

    python bench/bench_engine.py [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.setup import new_game

TARGET_DECISIONS = 60_000
TARGET_GAMES_4P = 50


def run(players: int, games: int, seed: int) -> tuple[int, float]:
    decisions = 0
    start = time.process_time()
    for g in range(games):
        state = new_game(Config(players=players), seed + g)
        uniform = random.Random(seed + g).random
        while state.result is None:
            legal = legal_actions(state)
            apply_unchecked(state, legal[int(uniform() * len(legal))])  # as the random bot
            decisions += 1
    return decisions, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    run(4, 10, 0)  # warm-up: imports, caches
    total_d = 0
    total_t = 0.0
    print(f"{'players':>7} {'games':>6} {'decisions':>10} {'dec/game':>9} {'dec/s':>9} "
          f"{'games/s':>8}")
    games_per_s = {}
    for players in (2, 4, 6):
        d, t = run(players, args.games, args.seed)
        total_d += d
        total_t += t
        games_per_s[players] = args.games / t
        print(f"{players:>7} {args.games:>6} {d:>10} {d / args.games:>9.1f} {d / t:>9.0f} "
              f"{args.games / t:>8.1f}")
    rate = total_d / total_t
    print(f"\nall: {rate:.0f} decisions/s = {rate / TARGET_DECISIONS:.2f} x target "
          f"{TARGET_DECISIONS}")
    print(f"4 players: {games_per_s[4]:.1f} games/s = {games_per_s[4] / TARGET_GAMES_4P:.2f} x "
          f"target {TARGET_GAMES_4P}")


if __name__ == "__main__":
    main()
