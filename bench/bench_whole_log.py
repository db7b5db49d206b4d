"""The whole log in a view (issue 40): what a view with ``log_since`` -1 costs now that the
log is never cut. For whole games of random decisions (2, 4 and 6 players, several seeds)
this prints, without asserting anything on time: the entries a spectator reads, the JSON
text's size and its size deflated (as a WebSocket with permessage-deflate sends it), the time
to make the first view at the game's last version (cold: every entry's JSON form made) and
again (taken from the view's cache).

    PYTHONPATH=src python bench/bench_whole_log.py [--seeds N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
import zlib
from datetime import UTC, datetime

from kaladan.game import Game
from kaladan.rules.config import Config
from kaladan.server.live import LiveGame, SeatInfo
from kaladan.server.views import view_text


async def played(players: int, seed: int) -> LiveGame:
    """A game of random decisions to its end, published as the server does."""
    game = Game.new(Config(players=players), seed)
    live = LiveGame("g_bench", "bench", datetime.now(UTC), game,
                    [SeatInfo("human") for _ in range(players)], [None] * players)
    rng = random.Random(seed)
    while not game.is_over:
        legal = game.legal_actions()
        game.play(legal[rng.randrange(len(legal))], game.state.pending.seat)
    live.publish()
    return live


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    print("players seed entries    kB  deflated kB  cold ms  cached ms")
    for players in (2, 4, 6):
        for seed in range(args.seeds):
            live = asyncio.run(played(players, seed))
            start = time.perf_counter()
            text = view_text(live, None)
            cold = time.perf_counter() - start
            start = time.perf_counter()
            view_text(live, None)
            cached = time.perf_counter() - start
            entries = text.count('"index":')
            print(f"{players:7} {seed:4} {entries:7} {len(text) / 1e3:5.0f} "
                  f"{len(zlib.compress(text.encode())) / 1e3:12.1f} {cold * 1e3:8.1f} "
                  f"{cached * 1e3:10.2f}")


if __name__ == "__main__":
    main()
