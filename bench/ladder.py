"""The league of bots and levels (issue 44): who beats whom, by how much, and a rating each.

Every pairing of the specs plays ``--games`` 2-player games with paired seeds and rotated
seats (``sim.matches.specs``: game ``k`` is seed ``k // 2`` with the first spec at seat
``k % 2``, so each seed is played from both seats with the same dice and deck). A level
(bots/data/levels.json) is played as the bot it stands for: two names of one bot (``casual``
and ``greedy``) are one entry and play no game against each other. Prints per pairing the
first spec's wins (a draw counts a half) with a Wilson 95% interval, a Bradley-Terry rating
per entry on the Elo scale (``sim.tournament``: 1500 the mean, 400 points = 10:1 odds) with
a seeded bootstrap 95% interval over the games, and how each level fares against the level
below it. Writes ``OUT.json`` and ``OUT.md`` (the table docs/bots.md shows).

Every game is appended to ``OUT.jsonl`` as it ends, with each seat's seconds of choosing
(``think``, measured: it tells whether two budgets cost the same); run the same command again
and the games already there are not played again (change ``--seed``, ``--players`` or
``--quick`` and they are other games).

``--reach K`` pairs each entry only with the K entries after it in the order given (list them
weakest first): a chain of neighbours, which the ratings join into one scale, instead of
every pairing. The level steps are always played, so a step is measured head to head.

``--players 4 --hero X --rival Y`` is the 4-player benchmark instead: one hero against three
rivals, the hero's seat rotated over each seed (``k % 4``).

Time budgets (``mcts:time=…``, ``expert:time=…``) depend on the machine and its load: run
with ``--jobs`` at most the number of idle cores. Never fails on time.

    PYTHONPATH=src python bench/ladder.py --reach 1 --games 200 --jobs 2 --out bench/out/league
    PYTHONPATH=src python bench/ladder.py --players 4 --hero master --rival adept \\
        --games 200 --out bench/out/four
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from typing import Any

from kaladan.bots.levels import find_level, levels
from kaladan.bots.registry import check_config, split_bot_list
from kaladan.rules.config import Config
from kaladan.rules.errors import KaladanError
from kaladan.sim.matches import score, specs
from kaladan.sim.runner import GameSpec, GameSummary, Player, player
from kaladan.sim.stats import wilson
from kaladan.sim.tournament import Match, standings

# The published league (docs/bots.md), weakest first: every level and the bot kinds at
# budgets of iterations, whose strength does not depend on the machine's speed or load.
BOTS = ["random", "careless:p=0.5", "greedy", "mcts:iterations=25", "mcts:iterations=250",
        "expert:iterations=100", "expert:iterations=400"]


def default_specs() -> list[str]:
    return BOTS + [level.name for level in levels()]


@dataclass(slots=True)
class Entry:
    """One bot of the league: its spec and every name it was given (a level's too)."""

    spec: str
    names: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        others = [n for n in self.names if n != self.spec]
        return f"{self.spec} ({', '.join(others)})" if others else self.spec


def entries(given: Sequence[str]) -> list[Entry]:
    """The league's entries in the order first given; a level joins its bot's entry, named
    or not (``greedy`` is ``casual`` too)."""
    out: dict[str, Entry] = {}
    for name in given:
        level = find_level(name) if ":" not in name else None
        spec = level.bot if level is not None else name
        entry = out.setdefault(spec, Entry(spec))
        if name not in entry.names:
            entry.names.append(name)
    for level in levels():
        entry = out.get(level.bot)
        if entry is not None and level.name not in entry.names:
            entry.names.append(level.name)
    return list(out.values())


def level_entries(league: list[Entry]) -> list[tuple[str, Entry]]:
    """The levels (weakest first) that are in the league, each with its entry."""
    entry_of = {name: e for e in league for name in e.names}
    return [(lv.name, entry_of[lv.name]) for lv in levels() if lv.name in entry_of]


def pairings_of(league: list[Entry], reach: int) -> list[tuple[Entry, Entry]]:
    """The pairings a league plays, each in the order given: every one (``reach`` 0), or
    each entry with the ``reach`` entries after it and each level with the level below."""
    if reach == 0:
        return list(combinations(league, 2))
    index = {id(e): i for i, e in enumerate(league)}
    ranked = [entry for _, entry in level_entries(league)]
    steps = {frozenset((index[id(a)], index[id(b)]))
             for a, b in zip(ranked, ranked[1:], strict=False) if a is not b}
    return [(a, b) for (i, a), (j, b) in combinations(enumerate(league), 2)
            if j - i <= reach or frozenset((i, j)) in steps]


# --- the games, kept in a JSON-lines file ----------------------------------------------------


def key_of(players: int, seed: int, quick: bool, hero: str, rival: str) -> str:
    return json.dumps([players, seed, quick, hero, rival])


def read_done(path: Path) -> dict[str, dict[int, float]]:
    """The hero's score of every game already played, by match key and game index."""
    done: dict[str, dict[int, float]] = {}
    if path.is_file():
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done.setdefault(row["key"], {})[int(row["k"])] = float(row["score"])
    return done


def play_match(play: Player, config: Config, hero: str, rival: str, games: int, seed: int,
               done: dict[int, float], results: Path, chunk: int,
               progress: Callable[[str], None]) -> list[float]:
    """The hero's score in each of the match's ``games`` games (1, a half, 0), playing only
    those ``done`` lacks, ``chunk`` at a time, each appended to ``results`` when played."""
    planned = specs(config, hero, rival, games, seed)
    key = key_of(config.players, seed, config.quick_setup, hero, rival)
    todo = [k for k in range(games) if k not in done]
    for start in range(0, len(todo), chunk):
        part = todo[start:start + chunk]
        played = play([planned[k] for k in part], None)
        with results.open("a", encoding="utf-8") as out:
            for k, game in zip(part, played, strict=True):
                done[k] = score([planned[k]], [game], hero)
                out.write(json.dumps(row(key, k, planned[k], game, done[k])) + "\n")
        progress(f"{hero} vs {rival}: {len(done)}/{games}")
    return [done[k] for k in range(games)]


def row(key: str, k: int, spec: GameSpec, game: GameSummary, hero_score: float) -> dict[str, Any]:
    # ``think``: each seat's seconds of choosing, measured (so it differs run to run).
    return {"key": key, "k": k, "seed": spec.seed, "bots": list(spec.bots), "score": hero_score,
            "end": game.end, "rounds": game.rounds, "winner": game.winner,
            "think": [round(t, 3) for t in game.think]}


# --- figures ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pairing:
    a: str
    b: str
    games: int
    wins: float  # a's; a draw counts a half
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "games": self.games, "wins": self.wins,
                "rate": round(self.rate, 4), "low": round(self.low, 4),
                "high": round(self.high, 4)}


def pairing(a: str, b: str, scores: Sequence[float]) -> Pairing:
    wins = sum(scores)
    low, high = wilson(round(wins), len(scores))
    return Pairing(a, b, len(scores), wins, low, high)


def level_steps(league: list[Entry], scores: dict[tuple[str, str], list[float]],
                rating: dict[str, float]) -> list[dict[str, Any]]:
    """Each level against the level below it: head to head and by rating, as far as both
    are in the league."""
    ranked = level_entries(league)
    steps = []
    for (lower, low_e), (upper, up_e) in zip(ranked, ranked[1:], strict=False):
        step: dict[str, Any] = {"level": upper, "below": lower}
        if low_e is up_e:
            step["same_bot"] = up_e.spec
        else:
            mine = scores.get((up_e.label, low_e.label))
            if mine is None:  # the league paired them the other way round
                mine = [1 - x for x in scores[(low_e.label, up_e.label)]]
            step |= {"head_to_head": pairing(up_e.label, low_e.label, mine).to_json(),
                     "rating_gap": round(rating[up_e.label] - rating[low_e.label], 1)}
        steps.append(step)
    return steps


def reach_text(reach: int) -> str:
    if reach == 0:
        return "every pairing"
    return (f"each bot against the {reach} after it" if reach > 1
            else "each bot against the next") + " and each level against the one below"


def markdown(data: dict[str, Any]) -> str:
    lines = [f"League of {data['games_per_pairing']} 2-player games per pairing "
             f"({'quick setup' if data['quick'] else 'standard setup'}, seed {data['seed']}, "
             f"{data['date']}; {reach_text(data.get('reach', 0))}): `{data['command']}`", "",
             "| bot | rating | 95% interval | games | score |", "|---|---|---|---|---|"]
    for s in data["ratings"]:
        lines.append(f"| {s['bot']} | {s['rating']:.0f} | {s['low']:.0f}–{s['high']:.0f} | "
                     f"{s['games']} | {s['score']:g} |")
    lines += ["", "| pairing | wins of the first | rate | Wilson 95% |", "|---|---|---|---|"]
    for p in data["pairings"]:
        lines.append(f"| {p['a']} vs {p['b']} | {p['wins']:g}/{p['games']} | "
                     f"{p['rate']:.1%} | {p['low']:.1%}–{p['high']:.1%} |")
    if data["levels"]:
        lines += ["", "| level | against the level below | rate | Wilson 95% | rating gap |",
                  "|---|---|---|---|---|"]
        for s in data["levels"]:
            if "same_bot" in s:
                lines.append(f"| {s['level']} | {s['below']}: the same bot ({s['same_bot']}) "
                             "| | | |")
                continue
            h = s["head_to_head"]
            lines.append(f"| {s['level']} | {s['below']}: {h['wins']:g}/{h['games']} | "
                         f"{h['rate']:.1%} | {h['low']:.1%}–{h['high']:.1%} | "
                         f"{s['rating_gap']:+.0f} |")
    return "\n".join(lines) + "\n"


# --- the two runs ----------------------------------------------------------------------------


def league(args: argparse.Namespace, config: Config, play: Player, done: dict[str, Any],
           progress: Callable[[str], None]) -> dict[str, Any]:
    given = split_bot_list(args.specs) if args.specs else default_specs()
    league_entries = entries(given)
    if len(league_entries) < 2:
        raise KaladanError("a league needs at least two different bots")
    for entry in league_entries:
        check_config(entry.spec, config)
    scores: dict[tuple[str, str], list[float]] = {}
    matches: list[Match] = []
    for a, b in pairings_of(league_entries, args.reach):
        key = key_of(2, args.seed, args.quick, a.spec, b.spec)
        mine = scores[(a.label, b.label)] = play_match(
            play, config, a.spec, b.spec, args.games, args.seed, done.setdefault(key, {}),
            args.results, args.chunk, progress)
        matches += [(a.label, b.label, x) for x in mine]
    labels = [e.label for e in league_entries]
    rated = standings(labels, matches, args.seed, args.bootstrap)
    rating = {s.bot: s.rating for s in rated}
    return {"pairings": [pairing(a, b, x).to_json() for (a, b), x in scores.items()],
            "ratings": [{"bot": s.bot, "rating": round(s.rating, 1), "low": round(s.low, 1),
                         "high": round(s.high, 1), "games": s.games, "score": s.score}
                        for s in rated],
            "levels": level_steps(league_entries, scores, rating),
            "entries": [{"spec": e.spec, "names": e.names} for e in league_entries]}


def four(args: argparse.Namespace, config: Config, play: Player, done: dict[str, Any],
         progress: Callable[[str], None]) -> dict[str, Any]:
    hero, rival = (entries([args.hero])[0].spec, entries([args.rival])[0].spec)
    if hero == rival:
        raise KaladanError(f"{args.hero} and {args.rival} are the same bot ({hero})")
    for spec in (hero, rival):
        check_config(spec, config)
    key = key_of(config.players, args.seed, args.quick, hero, rival)
    scores = play_match(play, config, hero, rival, args.games, args.seed,
                        done.setdefault(key, {}), args.results, args.chunk, progress)
    n = config.players
    by_seat = [sum(scores[k] for k in range(seat, len(scores), n)) for seat in range(n)]
    return {"hero": args.hero, "rival": args.rival, "hero_spec": hero, "rival_spec": rival,
            "players": n, "result": pairing(args.hero, args.rival, scores).to_json(),
            "even_share": round(1 / n, 4), "wins_by_hero_seat": by_seat}


def four_markdown(data: dict[str, Any]) -> str:
    r = data["result"]

    def named(name: str, spec: str) -> str:
        return name if name == spec else f"{name} ({spec})"

    return (f"One {named(data['hero'], data['hero_spec'])} against {data['players'] - 1} "
            f"{named(data['rival'], data['rival_spec'])}, {r['games']} games, seats rotated "
            f"(seed {data['seed']}, {data['date']}): `{data['command']}`\n\n"
            "| hero | wins | rate | Wilson 95% | an even share | wins by hero seat |\n"
            "|---|---|---|---|---|---|\n"
            f"| {data['hero']} | {r['wins']:g}/{r['games']} | {r['rate']:.1%} | "
            f"{r['low']:.1%}–{r['high']:.1%} | {data['even_share']:.0%} | "
            f"{', '.join(f'{w:g}' for w in data['wins_by_hero_seat'])} |\n")


def parse(argv: Iterable[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--specs", help="comma-separated bot specs and levels (default: "
                        f"{','.join(BOTS)} and the levels)")
    parser.add_argument("--games", type=int, default=200,
                        help="games per pairing (an even number plays every seed both ways)")
    parser.add_argument("--reach", type=int, default=0,
                        help="pair each entry with the next REACH only (0: every pairing)")
    parser.add_argument("--players", type=int, default=2, choices=(2, 4))
    parser.add_argument("--hero", help="4 players: the bot in one seat")
    parser.add_argument("--rival", help="4 players: the bot in the other seats")
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--quick", action="store_true", help="quick setup (realms dealt)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once")
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples")
    parser.add_argument("--out", type=Path, default=Path("ladder"),
                        help="writes OUT.json, OUT.md and the games to OUT.jsonl")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.reach < 0:
        parser.error("--reach must be 0 (every pairing) or more")
    if args.players == 4 and not (args.hero and args.rival):
        parser.error("--players 4 needs --hero and --rival")
    if args.players == 2 and (args.hero or args.rival):
        parser.error("--hero and --rival are for --players 4; a 2-player league takes --specs")
    args.results = args.out.with_suffix(".jsonl")
    args.chunk = max(2, 4 * args.jobs)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    config = Config(players=args.players, quick_setup=args.quick)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done: dict[str, Any] = read_done(args.results)
    started = time.monotonic()

    def progress(text: str) -> None:
        print(f"{text} ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)

    command = "PYTHONPATH=src python bench/ladder.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    try:
        with player(args.jobs) as play:
            run = four if args.players == 4 else league
            data = run(args, config, play, done, progress)
    except KaladanError as exc:
        print(f"ladder: {exc}", file=sys.stderr)
        return 2
    data |= {"command": command, "date": datetime.now(UTC).date().isoformat(),
             "seed": args.seed, "quick": args.quick, "games_per_pairing": args.games,
             "reach": args.reach,
             "seconds": round(time.monotonic() - started)}
    text = four_markdown(data) if args.players == 4 else markdown(data)
    args.out.with_suffix(".json").write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    args.out.with_suffix(".md").write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
