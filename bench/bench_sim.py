"""Simulation benchmark: the time of a state copy; what users run (``kaladan simulate``,
four random players) in decisions/s beside the raw engine loop of bench_engine.py (target of
the compiled-engine issue: within 15%) and, with ``--catanatron PYTHON`` (an interpreter that
has catanatron 3.2.1), beside catanatron's random players in the same run (target >= 5x);
``kaladan tournament`` (random against greedy) beside its own games played in a loop (its
start-up and ratings are what it adds: within 15% as well); then `simulate` and `balance`
throughput with 1 and 2 local processes (the speed-up should be close to 2 on 2 cores).
Prints figures only.

    python bench/bench_sim.py [--games N] [--tournament-games N] [--balance-games N]
                              [--catanatron PYTHON]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

# bench/ is on the path when this runs as a script: the engine loop is bench_engine's own.
from bench_engine import run as engine_run

from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.setup import new_game
from kaladan.sim.balance import Ruleset, block_size, run
from kaladan.sim.runner import plan, play_spec, simulate


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
                        help="games of the balance study (default: one design block; 0: none)")
    parser.add_argument("--catanatron", metavar="PYTHON",
                        help="an interpreter with catanatron installed, for the comparison")
    parser.add_argument("--tournament-games", type=int, default=600,
                        help="games of the timed tournament (random against greedy)")
    args = parser.parse_args()
    print(f"state copy: {copy_time():.1f} us")
    user_path(1000, args.catanatron)
    tournament_path(args.tournament_games)
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
    if args.balance_games > 0:
        balance(args.balance_games)


def _decisions(out: str, games: int) -> float:
    """All the decisions of a ``kaladan simulate`` run, from its printed average."""
    return float(out.split("average decisions ")[1].split()[0]) * games


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def user_path(games: int, catanatron: str | None, chunk: int = 50) -> None:
    """``kaladan simulate``, four random players, against the raw engine loop, on CPU time
    as bench_engine.py counts it. This machine's speed drifts by a fifth within a minute, so
    one run of each is no comparison: the per-decision cost is measured in-process, the
    same ``games`` games of ``simulate``'s own loop and of the raw loop alternating every
    ``chunk`` games; the command's start-up is measured apart (a 1-game run's CPU time less
    that game's) and added. A single timed run of the command is printed beside it."""
    config = Config(players=4)
    specs = plan(config, ["random"] * 4, games, 1)
    for spec in specs[:10]:  # warm-up
        play_spec(spec)
    engine_run(4, 10, 0)
    sim_d = engine_d = 0
    sim_t = engine_t = 0.0
    for first in range(0, games, chunk):
        start = time.process_time()
        played = [play_spec(spec) for spec in specs[first:first + chunk]]
        sim_t += time.process_time() - start
        sim_d += sum(g.decisions for g in played)
        d, seconds = engine_run(4, min(chunk, games - first), 1 + first)
        engine_d, engine_t = engine_d + d, engine_t + seconds
    engine = engine_d / engine_t
    per_decision = sim_t / sim_d
    cli = [sys.executable, "-m", "kaladan.cli.main", "simulate", "--players",
           "random,random,random,random", "--seed", "1", "--games"]
    # As installed kaladan starts: from cached bytecode (pip writes it on install, Python on
    # first import), which PYTHONDONTWRITEBYTECODE in the caller's environment would prevent.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    starts = []
    for _ in range(5):
        cpu = _children_cpu()
        out = subprocess.run([*cli, "1"], check=True, capture_output=True, text=True,
                             env=env).stdout
        one_game = _decisions(out, 1) * per_decision
        starts.append(_children_cpu() - cpu - one_game)
    start_up = statistics.median(starts)
    projected = sim_d / (sim_t + start_up)
    print(f"raw engine loop: {engine:,.0f} decisions/s; simulate's loop: "
          f"{sim_d / sim_t:,.0f} ({sim_d / sim_t / engine:.2f}x), {games} games alternating "
          f"every {chunk} (CPU time)")
    print(f"kaladan simulate start-up: {start_up * 1000:.0f} ms CPU (median of 5); "
          f"kaladan simulate, 4 random players, {games} games, start-up included: "
          f"{projected:,.0f} decisions/s = {projected / engine:.2f}x the raw engine "
          f"(target >= 0.85)")
    cpu, wall = _children_cpu(), time.perf_counter()
    out = subprocess.run([*cli, str(games)], check=True, capture_output=True, text=True,
                         env=env).stdout
    wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    done = _decisions(out, games)
    direct = done / wall  # what catanatron's figure is set against
    print(f"one run of the command alone: {done / cpu:,.0f} decisions per CPU second, "
          f"{direct:,.0f} by the wall clock (drifts with the machine)")
    if catanatron:
        script = Path(__file__).parent / "catanatron_random.py"
        theirs_run = json.loads(subprocess.run([catanatron, str(script), str(games // 5)],
                                               check=True, capture_output=True,
                                               text=True).stdout)
        theirs = theirs_run["decisions"] / theirs_run["seconds"]
        print(f"catanatron 3.2.1, 4 random players, {theirs_run['games']} games: "
              f"{theirs:,.0f} decisions/s; kaladan simulate = {direct / theirs:.2f}x "
              f"(target >= 5x)")


# The games of a tournament played by simulate's loop alone, in a process of its own: the
# greedy bot's caches fill as they would in the command's process (in this process a second
# pass over the same games would find them full).
_TOURNAMENT_LOOP = """
import json, sys, time
from kaladan.rules.config import Config
from kaladan.sim.runner import plan, play_spec
from kaladan.sim.tournament import pairings
bots, games = sys.argv[1].split(","), int(sys.argv[2])
specs = [spec for _, order, count, seed in pairings(bots, games, 1)
         for spec in plan(Config(players=2), list(order), count, seed)]
start = time.process_time()
decisions = sum(play_spec(spec).decisions for spec in specs)
print(json.dumps([decisions, time.process_time() - start]))
"""


def tournament_path(games: int, rounds: int = 5) -> None:
    """``kaladan tournament --bots random,greedy`` (CPU time of the command, start-up and
    ratings included) against the same games played by ``simulate``'s loop alone (CPU time
    of the loop, in a fresh process too): the bots' thinking is in both, so the ratio is
    what the command adds (its start-up, bookkeeping and the ratings' bootstrap). The two
    alternate ``rounds`` times."""
    bots = "random,greedy"
    cli = [sys.executable, "-m", "kaladan.cli.main", "tournament", "--bots", bots,
           "--games", str(games), "--seed", "1", "--json"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    ratios = []
    for _ in range(rounds):
        decisions, loop = json.loads(subprocess.run(
            [sys.executable, "-c", _TOURNAMENT_LOOP, bots, str(games)], check=True,
            capture_output=True, text=True, env=env).stdout)
        cpu = _children_cpu()
        subprocess.run(cli, check=True, capture_output=True, env=env)
        ratios.append(loop / (_children_cpu() - cpu))
    print(f"kaladan tournament, random against greedy, {games} games, {decisions:,} decisions: "
          f"{statistics.median(ratios):.2f}x the decisions/s of its games in the loop alone "
          f"(median of {rounds}, {min(ratios):.2f}-{max(ratios):.2f}x; target >= 0.85; CPU "
          f"time, start-up and ratings included)")


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
