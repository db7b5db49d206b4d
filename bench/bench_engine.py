"""Engine benchmark: random games, compiled engine and pure Python side by side.

Prints decisions per second (legal-action generation + apply + a uniform random choice)
and complete games per second for 2, 4 and 6 players, for the engine this process runs
(mypyc-compiled after a normal install) and for the pure-Python engine (a child process
with ``KALADAN_PURE=1``), then the ratio compiled / pure and the 4-player rate of two
processes at once (this machine's 2 cores). Targets of the compiled-engine issue:
compiled >= 5 x pure and >= 300,000 decisions/s for 4 random players. Seconds are CPU
seconds of the measuring process. Never fails on time.

The two engines play the same games in alternating chunks (``--chunk`` games each), so a
change of the machine's speed during the run (here +-20% within seconds) falls on both
alike instead of on whichever half ran in the slow minute.

    python bench/bench_engine.py [--games N] [--seed S] [--chunk K]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import kaladan
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.setup import new_game

TARGET_RATIO = 5.0
TARGET_4P = 300_000
PLAYERS = (2, 4, 6)


def run(players: int, games: int, seed: int,
        clock: Callable[[], float] = time.process_time) -> tuple[int, float]:
    """(decisions, seconds of ``clock``) of ``games`` random games from ``seed`` on."""
    decisions = 0
    start = clock()
    for g in range(games):
        state = new_game(Config(players=players), seed + g)
        uniform = random.Random(seed + g).random
        while state.result is None:
            legal = legal_actions(state)
            apply_unchecked(state, legal[int(uniform() * len(legal))])  # as the random bot
            decisions += 1
    return decisions, clock() - start


def measure(games: int, seed: int) -> dict[str, list[float]]:
    """{players: [decisions, seconds]} for this process's engine."""
    run(4, 10, 0)  # warm-up: imports, caches
    return {str(p): list(run(p, games, seed)) for p in PLAYERS}


class PureChild:
    """A child process running the pure-Python engine, asked for one chunk at a time."""

    def __init__(self) -> None:
        env = dict(os.environ, KALADAN_PURE="1")
        self.proc = subprocess.Popen([sys.executable, __file__, "--child"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.proc.stdout.readline()  # warmed up: nothing of it overlaps a measured chunk

    def run(self, players: int, games: int, seed: int) -> tuple[int, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{players} {games} {seed}\n")
        self.proc.stdin.flush()
        decisions, seconds = json.loads(self.proc.stdout.readline())
        return int(decisions), float(seconds)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def serve() -> None:
    """Child mode: warm up, then answer ``players games seed`` lines with JSON figures."""
    run(4, 10, 0)
    print("ready", flush=True)
    for line in sys.stdin:
        players, games, seed = map(int, line.split())
        print(json.dumps(run(players, games, seed)), flush=True)


def interleaved(games: int, seed: int, chunk: int
                ) -> tuple[dict[str, list[float]], dict[str, list[float]], list[float]]:
    """Figures of this process's engine and of the pure child, chunk by chunk alternately
    over the same games; and each chunk's ratio (pure seconds / compiled seconds, the same
    decisions on both)."""
    child = PureChild()
    run(4, 10, 0)  # warm-up: imports, caches
    mine = {str(p): [0.0, 0.0] for p in PLAYERS}
    pure = {str(p): [0.0, 0.0] for p in PLAYERS}
    ratios = []
    try:
        for p in PLAYERS:
            for start in range(0, games, chunk):
                n = min(chunk, games - start)
                seconds = []
                for figures, engine in ((mine, run), (pure, child.run)):
                    d, t = engine(p, n, seed + start)
                    figures[str(p)][0] += d
                    figures[str(p)][1] += t
                    seconds.append(t)
                ratios.append(seconds[1] / seconds[0])
    finally:
        child.close()
    return mine, pure, ratios


def two_processes(games: int, seed: int) -> float:
    """4-player decisions/s of two processes running at once (summed)."""
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(run, [4, 4], [2, 2], [0, 0]))  # start both and warm them up
        start = time.perf_counter()
        results = list(pool.map(run, [4, 4], [games, games], [seed, seed + games]))
        wall = time.perf_counter() - start
    return sum(d for d, _ in results) / wall


def table(label: str, figures: dict[str, list[float]], games: int) -> float:
    print(f"\n{label}")
    print(f"{'players':>7} {'games':>6} {'decisions':>10} {'dec/game':>9} {'dec/s':>9} "
          f"{'games/s':>8}")
    total_d = total_t = 0.0
    for p in PLAYERS:
        d, t = figures[str(p)]
        total_d += d
        total_t += t
        print(f"{p:>7} {games:>6} {int(d):>10} {d / games:>9.1f} {d / t:>9.0f} "
              f"{games / t:>8.1f}")
    rate = total_d / total_t
    print(f"{'all':>7} {'':>6} {int(total_d):>10} {'':>9} {rate:>9.0f}")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=20,
                        help="games per turn of each engine (default 20)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        serve()
        return
    mode = kaladan.engine_mode()
    if mode == "pure":
        table("engine: pure", measure(args.games, args.seed), args.games)
        print("\nthe compiled engine is not installed (pip install . with a C compiler)")
        return
    mine, pure, ratios = interleaved(args.games, args.seed, max(1, args.chunk))
    rate = table(f"engine: {mode}", mine, args.games)
    pure_rate = table("engine: pure (KALADAN_PURE=1)", pure, args.games)
    d4, t4 = mine["4"]
    pd4, pt4 = pure["4"]
    print(f"\ncompiled / pure: {rate / pure_rate:.2f}x all, {(d4 / t4) / (pd4 / pt4):.2f}x "
          f"4 players (target {TARGET_RATIO:.0f}x; the two played alternately, "
          f"{args.chunk} games at a time)")
    # A burst of the machine's neighbours lands on one engine's turn and moves the ratio of
    # the totals; the median of the turns' own ratios is barely moved by a few such turns.
    low, middle, high = statistics.quantiles(ratios, n=4)
    print(f"compiled / pure per turn (the same games on both): median {middle:.2f}x, "
          f"quartiles {low:.2f}-{high:.2f}x over {len(ratios)} turns")
    both = two_processes(args.games, args.seed)
    print(f"4 players, compiled: {d4 / t4:,.0f} decisions/s in one process, {both:,.0f} in two "
          f"processes at once = {both / TARGET_4P:.2f} x target {TARGET_4P:,}")


if __name__ == "__main__":
    main()
