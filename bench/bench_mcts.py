"""MCTS benchmark: search iterations per second (CPU time), and where one iteration's time
goes (determinization, tree walk, playout), for the engine this process runs and, after a
compiled install, the same search on the pure-Python engine (a child process with
``KALADAN_PURE=1``) with the ratio (target of the compiled-engine issue: >= 3x). Prints
figures only.

Positions are the searched decisions (more than one legal action) of greedy-vs-greedy games,
2 and 4 players, quick setup.

    python bench/bench_mcts.py [--positions 40] [--iterations 200] [--horizon 24]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time

import kaladan
from kaladan.bots.base import SeatView
from kaladan.bots.greedy import GreedyBot
from kaladan.bots.mcts import MctsBot, MctsParams
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.setup import new_game
from kaladan.rules.state import GameState


def positions(players: int, count: int) -> list[GameState]:
    """Decisions with a choice, sampled from greedy games."""
    greedy = GreedyBot()
    out: list[GameState] = []
    seed = 0
    while len(out) < count:
        state = new_game(Config(players=players, quick_setup=True), seed)
        rng = random.Random(seed)
        seed += 1
        while not state.is_over and len(out) < count:
            legal = legal_actions(state)
            if len(legal) > 1 and rng.random() < 0.08:
                out.append(state.copy())
            seat = state.pending.seat
            apply_unchecked(state, greedy.choose(SeatView(state, seat), legal, rng))
    return out


def measure(states: list[GameState], params: MctsParams) -> tuple[float, int]:
    """Iterations per CPU second over the positions, and the iterations run."""
    bot = MctsBot(params)
    rng = random.Random(1)
    total = 0
    start = time.process_time()
    for state in states:
        seat = state.pending.seat
        bot.choose(SeatView(state, seat), legal_actions(state), rng)
        total += bot.iterations_done
    return total / (time.process_time() - start), total


def rates(args: argparse.Namespace) -> dict[str, float]:
    """Iterations/s per player count (full playouts) for this process's engine."""
    out = {}
    for players in (2, 4):
        states = positions(players, args.positions)
        out[str(players)] = measure(states, MctsParams(iterations=args.iterations,
                                                      horizon=args.horizon))[0]
    return out


def compare(args: argparse.Namespace, mine: dict[str, float]) -> None:
    """``mine``: this (compiled) process's rates from ``main``; the child measures pure."""
    child = subprocess.run(
        [sys.executable, __file__, "--child", "--positions", str(args.positions),
         "--iterations", str(args.iterations), "--horizon", str(args.horizon)],
        env=dict(os.environ, KALADAN_PURE="1"), check=True, capture_output=True, text=True)
    pure = json.loads(child.stdout)
    print("\ncompiled vs pure (same positions and parameters):")
    for players in ("2", "4"):
        print(f"  {players} players: {mine[players]:,.0f} vs {pure[players]:,.0f} iterations/s"
              f" = {mine[players] / pure[players]:.2f}x (target 3x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--horizon", type=int, default=24)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(rates(args)))
        return
    print(f"engine: {kaladan.engine_mode()}")
    mine = {}
    for players in (2, 4):
        states = positions(players, args.positions)
        params = MctsParams(iterations=args.iterations, horizon=args.horizon)
        rate, total = measure(states, params)
        mine[str(players)] = rate
        print(f"{players} players: {rate:,.0f} iterations/s ({total} iterations over "
              f"{len(states)} positions, horizon {args.horizon}); "
              f"{1000 / rate:.2f} ms per iteration")
        short, _ = measure(states, MctsParams(iterations=args.iterations, horizon=1))
        print(f"  with a 1-decision playout: {short:,.0f} iterations/s "
              f"(determinization + tree walk + evaluation)")
        view = SeatView(states[0], states[0].pending.seat)
        rng = random.Random(0)
        start = time.process_time()
        for _ in range(500):
            view.determinize(rng)
        print(f"  determinization: {(time.process_time() - start) / 500 * 1e6:.1f} µs")
    if kaladan.engine_mode() == "compiled":
        compare(args, mine)


if __name__ == "__main__":
    main()
