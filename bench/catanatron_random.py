"""Catanatron's decisions per second with four random players, for bench_sim's comparison.

Run with the interpreter of an environment that has catanatron (it is not a kaladan
dependency): ``python bench/catanatron_random.py GAMES``. Prints one JSON object.
"""

import json
import sys
import time

from catanatron import Color, Game, RandomPlayer


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    colors = [Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE]
    decisions = 0
    start = time.process_time()
    for seed in range(games):
        game = Game([RandomPlayer(c) for c in colors], seed=seed)
        game.play()
        decisions += len(game.state.actions)
    seconds = time.process_time() - start
    print(json.dumps({"games": games, "decisions": decisions, "seconds": seconds}))


if __name__ == "__main__":
    main()
