"""Self-play benchmark: ``kaladan selfplay``'s work (play, collect, write the file) for P
positions with J local processes, in positions per second and the time it projects for a
million positions (target of issue 43: under 5 minutes on 2 cores, greedy players); beside
``kaladan simulate`` playing the same games with the same processes, so the cost of keeping
the positions shows as a ratio. Prints figures only.

    python bench/bench_selfplay.py [--positions P] [--jobs J] [--players N] [--bot SPEC]
                                   [--masks] [--format npz|parquet] [--no-simulate]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import kaladan
from kaladan.rules.config import Config
from kaladan.sim.runner import simulate
from kaladan.sim.selfplay import generate

MILLION = 1_000_000
TARGET_SECONDS = 300.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bot", default="greedy")
    parser.add_argument("--masks", action="store_true", help="store the legal head tokens too")
    parser.add_argument("--format", choices=("npz", "parquet"), default="npz")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--no-simulate", action="store_true",
                        help="skip the comparison with kaladan simulate")
    args = parser.parse_args()
    config = Config(players=args.players)
    bots = [args.bot] * args.players
    print(f"engine: {kaladan.engine_mode()}; {args.players} x {args.bot}, "
          f"{args.positions:,} positions, jobs={args.jobs}, masks={args.masks}, "
          f".{args.format}")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / f"selfplay.{args.format}"
        start = time.perf_counter()
        data = generate(config, bots, args.seed, positions=args.positions, masks=args.masks,
                        jobs=args.jobs)
        played = time.perf_counter() - start
        data.save(out)
        seconds = time.perf_counter() - start
        size = out.stat().st_size
    rate = len(data) / seconds
    projected = MILLION / rate
    print(f"selfplay: {len(data):,} positions from {data.games:,} games in {seconds:.2f} s "
          f"(playing {played:.2f} s, writing {seconds - played:.2f} s): {rate:,.0f} "
          f"positions/s, file {size / 1e6:.2f} MB")
    print(f"projected for 1,000,000 positions: {projected:.0f} s "
          f"({'within' if projected < TARGET_SECONDS else 'over'} the {TARGET_SECONDS:.0f} s "
          f"target), file about {size / len(data) * MILLION / 1e6:.0f} MB")
    if args.no_simulate:
        return
    start = time.perf_counter()
    summary = simulate(config, bots, data.games, args.seed, jobs=args.jobs)
    sim_seconds = time.perf_counter() - start
    decisions = sum(g.decisions for g in summary.games)
    print(f"simulate, the same {data.games:,} games: {sim_seconds:.2f} s, "
          f"{decisions / sim_seconds:,.0f} decisions/s; selfplay takes "
          f"{seconds / sim_seconds:.2f}x its time")


if __name__ == "__main__":
    main()
