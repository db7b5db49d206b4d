"""The expert bot's search speed: iterations per decision at a time budget (docs/value.md,
"Speed"). For positions taken from greedy games (2 and 4 players, several seeds, past the
setup) it prints the iterations per decision of ``expert`` and of ``mcts`` at the same
budget, and the expert's again with NumPy's matrix products left on OpenBLAS's default
threads instead of one (``--threads default``). ``--busy N`` keeps N other processes
spinning meanwhile, as the other game of ``--jobs 2`` does in a benchmark. ``--levels``
prints instead the CPU milliseconds each level (bots/data/levels.json) takes per searched decision
on the same positions, ``--specs A,B`` those of the given bot specs (the expert's variants:
``chance=1``, ``chance=2``). Nothing is asserted on time.

    PYTHONPATH=src python bench/bench_expert.py [--time 0.1] [--busy 1] [--levels]
    PYTHONPATH=src python bench/bench_expert.py --specs \
        expert:iterations=100,expert:iterations=100,chance=2 --players 2
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable

from kaladan.bots.base import SeatView
from kaladan.bots.greedy import GreedyBot
from kaladan.bots.levels import levels
from kaladan.bots.mcts import MctsBot, MctsParams
from kaladan.bots.registry import check_config, make_bot, split_bot_list
from kaladan.expert import bot as expert_module
from kaladan.expert.bot import ExpertBot, ExpertParams
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError
from kaladan.rules.legal import legal_actions
from kaladan.rules.setup import new_game
from kaladan.rules.state import GameState


def positions(players: int, seeds: int, every: int = 40) -> list[GameState]:
    """Every ``every``-th decision with a choice after the setup of greedy games."""
    greedy = GreedyBot()
    rng = random.Random(players)
    out = []
    for seed in range(seeds):
        state = new_game(Config(players=players), seed)
        k = 0
        while not state.is_over:
            legal = legal_actions(state)
            if len(legal) > 1 and state.decisions > 60 and k % every == 7:
                out.append(state.copy())
            k += 1
            apply_unchecked(state, legal[0] if len(legal) == 1 else greedy.choose(
                SeatView(state, state.pending.seat), legal, rng))
    return out


def iterations(make: Callable[[], ExpertBot | MctsBot], states: list[GameState]) -> list[int]:
    bot = make()
    done = []
    for k, state in enumerate(states):
        bot.choose(SeatView(state, state.pending.seat), legal_actions(state), random.Random(k))
        done.append(bot.iterations_done)
    return done


def seconds(spec: str, states: list[GameState]) -> list[float]:
    """The CPU seconds ``spec`` takes per decision of ``states`` (a kept tree never serves
    another position)."""
    bot = make_bot(spec)
    out = []
    for k, state in enumerate(states):
        start = time.process_time()
        bot.choose(SeatView(state, state.pending.seat), legal_actions(state), random.Random(k))
        out.append(time.process_time() - start)
    return out


def spec_times(named: list[tuple[str, str]], seeds: int, players: tuple[int, ...]) -> None:
    """The CPU milliseconds per decision of each (name, spec) on the same positions."""
    print("CPU milliseconds per decision (median, 90th percentile, max)")
    for n in players:
        states = positions(n, seeds)
        for name, spec in named:
            try:
                check_config(spec, Config(players=n))
            except ConfigError:
                continue
            took = sorted(1000 * s for s in seconds(spec, states))
            print(f"{n} players, {len(states)} positions, {name:9} "
                  f"{spec:24} {statistics.median(took):7.1f} "
                  f"{took[int(0.9 * (len(took) - 1))]:7.1f} {took[-1]:7.1f}", flush=True)


def spin() -> None:
    while True:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=0.1, help="seconds per decision")
    parser.add_argument("--seeds", type=int, default=4, help="greedy games per player count")
    parser.add_argument("--busy", type=int, default=0, help="spinning processes meanwhile")
    parser.add_argument("--levels", action="store_true", help="each level's seconds instead")
    parser.add_argument("--specs", help="these bot specs' seconds instead (comma-separated)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    args = parser.parse_args()
    if args.levels:
        spec_times([(level.name, level.bot) for level in levels()], args.seeds,
                   tuple(args.players))
        return
    if args.specs:
        spec_times([("", spec) for spec in split_bot_list(args.specs)], args.seeds,
                   tuple(args.players))
        return
    busy = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for process in busy:
        process.start()
    one_thread = expert_module.one_blas_thread
    try:
        print(f"iterations per decision at {args.time} s, {args.busy} busy processes "
              "(mean, median, min)")
        for players in (2, 4):
            states = positions(players, args.seeds)
            runs: list[tuple[str, Callable[[], ExpertBot | MctsBot], bool]] = [
                ("expert", lambda: ExpertBot(ExpertParams(time=args.time, reuse=0)), True),
                ("expert, default BLAS threads",
                 lambda: ExpertBot(ExpertParams(time=args.time, reuse=0)), False),
                ("mcts", lambda: MctsBot(MctsParams(time=args.time)), True)]
            for name, make, single in runs:
                expert_module.one_blas_thread = (
                    one_thread if single else contextlib.nullcontext)
                done = iterations(make, states)
                print(f"{players} players, {len(states)} positions, {name:30} "
                      f"{statistics.mean(done):7.1f} {statistics.median(done):7.1f} "
                      f"{min(done):5d}", flush=True)
    finally:
        expert_module.one_blas_thread = one_thread
        for process in busy:
            process.terminate()


if __name__ == "__main__":
    main()
