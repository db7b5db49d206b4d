"""mcts:time=T on the compiled engine against mcts:time=T on the pure-Python engine.

Two-player games, seats alternating game by game. Each bot thinks in a process of its own,
one started normally (the compiled engine) and one with ``KALADAN_PURE=1``; both get the
position as JSON (the position format is the same in both engines) and answer with the
action's text, which the game, played here with the checked ``apply``, parses. Both bots
therefore pay the same overhead per decision, and only one of them thinks at any moment in a
game. Prints the compiled bot's win rate with a Wilson 95% interval and the iterations each
side searched per decision. Results are appended to ``--out`` (one JSON line per game), so an
interrupted run resumes where it stopped. Never fails on time.

    python bench/ladder_compiled.py [--games 200] [--time 1.0] [--jobs 2] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

WORKER = "--worker"


def worker() -> None:
    """Answer one decision per input line: {"position", "seat", "seed"} -> {"action", "it"}."""
    from kaladan.bots.base import SeatView
    from kaladan.bots.mcts import MctsBot
    from kaladan.bots.registry import make_bot
    from kaladan.rules.kinds import format_action
    from kaladan.rules.legal import legal_actions
    from kaladan.rules.notation import position_from_json

    bot = make_bot(sys.argv[2])
    assert isinstance(bot, MctsBot)
    for line in sys.stdin:
        ask = json.loads(line)
        state = position_from_json(ask["position"])
        legal = legal_actions(state)
        bot.iterations_done = 0
        action = bot.choose(SeatView(state, ask["seat"]), legal, random.Random(ask["seed"]))
        print(json.dumps({"action": format_action(action, state),
                          "it": bot.iterations_done, "engine": _mode()}), flush=True)


def _mode() -> str:
    import kaladan

    return kaladan.engine_mode()


class Thinker:
    """A bot in a child process of its own, on the compiled or the pure engine."""

    def __init__(self, spec: str, pure: bool) -> None:
        env = dict(os.environ)
        env.pop("KALADAN_PURE", None)
        if pure:
            env["KALADAN_PURE"] = "1"
        self.proc = subprocess.Popen([sys.executable, __file__, WORKER, spec], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.expected = "pure" if pure else "compiled"

    def ask(self, position: dict[str, Any], seat: int, seed: int) -> tuple[str, int]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"position": position, "seat": seat, "seed": seed})
                              + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if answer["engine"] != self.expected:
            raise RuntimeError(f"a {self.expected} bot ran on the {answer['engine']} engine")
        return answer["action"], answer["it"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def play(index: int, seed: int, spec: str) -> dict[str, Any]:
    """Game ``index``: the compiled bot at seat index % 2."""
    from kaladan.game import Game
    from kaladan.rules.config import Config
    from kaladan.rules.notation import position_to_json

    compiled_seat = index % 2
    thinkers = [Thinker(spec, pure=seat != compiled_seat) for seat in (0, 1)]
    iterations: list[list[int]] = [[], []]
    try:
        game = Game.new(Config(players=2, quick_setup=True), seed + index)
        rng = random.Random(seed * 1000 + index)
        while not game.is_over:
            seat = game.state.pending.seat
            if len(game.legal_actions()) == 1:
                game.play(game.legal_actions()[0], seat)
                continue
            text, it = thinkers[seat].ask(position_to_json(game.state), seat,
                                          rng.getrandbits(32))
            if it:
                iterations[seat].append(it)
            game.play(text, seat)
    finally:
        for thinker in thinkers:
            thinker.close()
    result = game.state.result
    assert result is not None
    return {"index": index, "seed": seed + index, "compiled_seat": compiled_seat,
            "winner": result.winner, "scores": result.scores, "end": result.end,
            "decisions": game.state.decisions,
            "iterations": {"compiled": iterations[compiled_seat],
                           "pure": iterations[1 - compiled_seat]}}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def summary(games: list[dict[str, Any]]) -> None:
    n = len(games)
    wins = sum(1 for g in games if g["winner"] == g["compiled_seat"])
    draws = sum(1 for g in games if g["winner"] is None)
    score = wins + draws / 2
    low, high = wilson(score, n)
    its = {side: [i for g in games for i in g["iterations"][side]] for side in ("compiled",
                                                                             "pure")}
    print(f"{n} games: compiled wins {wins}, pure wins {n - wins - draws}, draws {draws}")
    print(f"compiled win rate {score / n:.3f} (draws as half), Wilson 95% "
          f"[{low:.3f}, {high:.3f}]")
    for side, values in its.items():
        if values:
            values.sort()
            print(f"{side:>8}: {sum(values) / len(values):.1f} iterations per searched "
                  f"decision (median {values[len(values) // 2]}, {len(values)} decisions)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per decision")
    parser.add_argument("--jobs", type=int, default=2, help="games played at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("ladder_compiled.jsonl"))
    args = parser.parse_args()
    spec = f"mcts:time={args.time}"
    done: list[dict[str, Any]] = []
    if args.out.exists():
        done = [json.loads(line) for line in args.out.read_text().splitlines() if line]
    todo = sorted(set(range(args.games)) - {g["index"] for g in done})
    with ThreadPoolExecutor(args.jobs) as pool, args.out.open("a") as out:
        for game in pool.map(lambda i: play(i, args.seed, spec), todo):
            done.append(game)
            out.write(json.dumps(game) + "\n")
            out.flush()
            print(f"game {game['index']}: compiled at seat {game['compiled_seat']}, winner "
                  f"{game['winner']}", flush=True)
    summary(done)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == WORKER:
        worker()
    else:
        main()
