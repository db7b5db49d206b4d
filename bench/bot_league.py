"""The bots' fixed ratings, measured: a league of the bot kinds the server offers.

Every pairing of kinds plays 2-player games and every kind sits in 4-player games against the
others; seats are rotated over the same seed (paired seeds: each seat order plays the same
dice), the placements are the server's (``server.ratings``), and OpenSkill's Plackett-Luce
model rates the games one after the other in a seeded shuffled order, every kind starting at
openskill's defaults. Writes ``src/kaladan/server/data/bot_ratings.json``.

The lobby's search bot thinks a second a decision (``mcts:time=1``): a league of such games
would take hours on one core, so ``mcts`` is measured at a fixed small budget
(``--mcts``), which is weaker: its rating is a floor for the lobby's budget.

    PYTHONPATH=src python bench/bot_league.py --pairs 10 --fours 3

With ``--ladder OUT.jsonl`` it plays nothing and rates the 2-player games of a league that
bench/ladder.py played (every level and budget there, at 200 games a pairing): each level by
its name, and each kind as its strongest budget there.

    PYTHONPATH=src python bench/bot_league.py --ladder bench/out/league.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path

from kaladan.bots.levels import levels
from kaladan.bots.registry import make_bot
from kaladan.rules.config import Config
from kaladan.rules.setup import new_game
from kaladan.server.ratings import Skill, bot_kind, rate, rate_game
from kaladan.sim.runner import game_seed
from kaladan.sim.seats import Seats, play_out

OUT = Path(__file__).resolve().parents[1] / "src/kaladan/server/data/bot_ratings.json"


def play(specs: list[str], seed: int) -> list[int]:
    """One game of ``specs`` (one per seat) with quick setup: every seat's place."""
    state = new_game(Config(players=len(specs), quick_setup=True), seed)
    play_out(state, Seats([make_bot(s) for s in specs], seed, None, False))
    rated = rate_game(state, [Skill()] * len(specs), [False] * len(specs))
    return [r.place for r in rated]


def schedule(kinds: list[str], pairs: int, fours: int, seed: int) -> list[tuple[list[str], int]]:
    """The games: per pairing ``pairs`` seeds, both seat orders each; per kind ``fours`` seeds
    of a 4-player table (that kind and the others, filled round-robin), four rotations each."""
    games: list[tuple[list[str], int]] = []
    run = 0
    for a, b in combinations(kinds, 2):
        for _ in range(pairs):
            s = game_seed(seed, run)
            run += 1
            games += [([a, b], s), ([b, a], s)]
    for k, kind in enumerate(kinds):
        others = [x for x in kinds if x != kind]
        table = [kind] + [others[(k + i) % len(others)] for i in range(3)]
        for _ in range(fours):
            s = game_seed(seed, run)
            run += 1
            games += [(table[r:] + table[:r], s) for r in range(4)]
    return games


def ladder_games(path: Path) -> list[tuple[list[str], list[int]]]:
    """The 2-player games bench/ladder.py recorded in ``OUT.jsonl``: each game's bots by seat
    and every seat's place (the winner first, a draw shared)."""
    games: list[tuple[list[str], list[int]]] = []
    for line in path.read_text("utf-8").splitlines():
        row = json.loads(line) if line.strip() else None
        if row is None or len(row["bots"]) != 2:
            continue
        winner = row["winner"]
        games.append((row["bots"], [1 if winner in (None, seat) else 2 for seat in range(2)]))
    return games


def rate_all(results: list[tuple[list[str], list[int]]],
             seed: int) -> tuple[dict[str, Skill], dict[str, int]]:
    """Every spec's rating after ``results`` rated one after the other in a seeded shuffled
    order, each starting at openskill's defaults; and its games."""
    order = list(results)
    random.Random(seed).shuffle(order)
    ratings: dict[str, Skill] = {}
    played: dict[str, int] = {}
    for seats, places in order:
        for spec in seats:
            ratings.setdefault(spec, Skill())
        new = rate([[ratings[s]] for s in seats], places)
        # a spec at several seats of one game moves by the mean of its seats' changes
        for spec in set(seats):
            mine = [side[0] for side, s in zip(new, seats, strict=True) if s == spec]
            old = ratings[spec]
            ratings[spec] = Skill(old.mu + sum(r.mu - old.mu for r in mine) / len(mine),
                                  min(r.sigma for r in mine))
            played[spec] = played.get(spec, 0) + 1
    return ratings, played


def by_kind(ratings: dict[str, Skill]) -> dict[str, str]:
    """The spec each kind the server rates stands for: a level (bots/data/levels.json) its
    bot's, and a kind (``mcts``) its strongest measured budget's, so a kind's rating is a
    floor for a larger budget."""
    out: dict[str, str] = {}
    for spec in sorted(ratings, key=lambda s: ratings[s].mu):
        out[bot_kind(spec)] = spec
    for level in levels():
        if level.bot in ratings:
            out[level.name] = level.bot
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--ladder", type=Path,
                        help="rate the 2-player games of bench/ladder.py's OUT.jsonl instead "
                             "of playing")
    parser.add_argument("--mcts", default="mcts:iterations=40", help="the mcts budget measured")
    parser.add_argument("--pairs", type=int, default=10, help="seeds per 2-player pairing")
    parser.add_argument("--fours", type=int, default=3, help="seeds per kind at 4 players")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    started = time.monotonic()
    if args.ladder is not None:
        if not args.ladder.is_file():
            print(f"bot_league: no such file: {args.ladder}", file=sys.stderr)
            return 2
        results = ladder_games(args.ladder)
        if not results:
            print(f"bot_league: no 2-player games in {args.ladder}", file=sys.stderr)
            return 2
    else:
        specs = ["random", "greedy", args.mcts]
        games = schedule(specs, args.pairs, args.fours, args.seed)
        results = []
        for i, (seats, s) in enumerate(games):
            results.append((seats, play(seats, s)))
            print(f"{i + 1}/{len(games)} {','.join(seats)} -> {results[-1][1]} "
                  f"({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
    ratings, played = rate_all(results, args.seed)
    kinds = by_kind(ratings)
    data = {
        "source": "measured",
        "command": "PYTHONPATH=src python bench/bot_league.py " + " ".join(
            argv if argv is not None else sys.argv[1:]),
        "date": datetime.now(UTC).date().isoformat(),
        "model": "openskill PlackettLuce, defaults (mu 25, sigma 25/3)",
        "measured_as": kinds,
        "games": len(results),
        "seconds": round(time.monotonic() - started),
        "bots": {k: {"mu": round(ratings[s].mu, 4), "sigma": round(ratings[s].sigma, 4),
                     "games": played[s], "display": ratings[s].display}
                 for k, s in sorted(kinds.items(), key=lambda ks: -ratings[ks[1]].mu)},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"{'kind':10} {'as':24} {'mu':>8} {'sigma':>7} {'display':>8} {'games':>6}")
    for k, spec in sorted(kinds.items(), key=lambda ks: -ratings[ks[1]].mu):
        r = ratings[spec]
        print(f"{k:10} {spec:24} {r.mu:8.2f} {r.sigma:7.2f} {r.display:8d} {played[spec]:6d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
