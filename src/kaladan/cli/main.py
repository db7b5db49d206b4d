"""``kaladan``: serve the browser game, play in the terminal, simulate, record and replay
games, rate bots in a tournament, list the magic cards and compute exact battle odds.

Bad arguments print a clear message and exit with code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..bots.registry import parse_bot_list
from ..record import ReplayError, dumps, replay
from ..rules.config import Config, parse_option
from ..rules.errors import KaladanError
from ..sim.runner import Summary, play_game, simulate


class UsageError(Exception):
    """A command-line mistake: printed without a traceback, exit code 2."""


def _config(players: int, options: Sequence[str], layout: str | None,
            quick: bool = False, mode: str = "free_for_all") -> Config:
    changes: dict[str, Any] = {"quick_setup": quick, "mode": mode}
    for text in options:
        name, value = parse_option(text)
        changes[name] = value
    if layout is not None:
        try:
            changes["layout"] = json.loads(Path(layout).read_text("utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise UsageError(f"cannot read layout file {layout!r}: {exc}") from exc
        changes.setdefault("world", "custom")
    return Config(players=players, **changes)


def _add_game_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", required=True,
                   help="comma-separated bots, one per seat, e.g. random,random,random")
    p.add_argument("--seed", type=int, default=1, help="seed of the run (default 1)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a ruleset option of RULES.md R3.3 (repeatable)")
    p.add_argument("--layout", help="custom world layout file (JSON, R4.14)")
    p.add_argument("--mode", choices=("free_for_all", "team_2v2", "team_3v3"),
                   default="free_for_all",
                   help="free-for-all, or teams of alternating seats: 2 against 2 (4 players) "
                        "or 3 against 3 (6 players), RULES.md section 23")
    p.add_argument("--quick", action="store_true",
                   help="deal realms, starting cards, castle spots and starting units at "
                        "random instead of letting the bots choose them")


def _print_summary(summary: Summary, seconds: float) -> None:
    data = summary.to_json()
    n = data["count"]
    print(f"{n} games in {seconds:.2f} s ({n / seconds if seconds else 0:.1f} games/s)")
    print(f"average rounds {data['average_rounds']:.1f}, "
          f"average decisions {data['average_decisions']:.1f}")
    print("ends: " + ", ".join(f"{k} {v}" for k, v in sorted(data["ends"].items())))
    rates = summary.rates()
    width = max(12, *(len(key) for table in rates.values() for key in table))
    for group in ("bot", "seat", "realm"):
        print(f"win rate by {group} (95% Wilson interval):")
        for key, row in rates[group].items():
            print(f"  {key:<{width}} {row['wins']:>5}/{row['games']:<5} {100 * row['rate']:5.1f}% "
                  f"[{100 * row['low']:.1f}-{100 * row['high']:.1f}]")
    print("average score by seat: " + ", ".join(f"{s:.1f}" for s in data["average_scores"]))
    print("thinking per game (CPU s): " + ", ".join(
        f"{bot} mean {row['mean']:.2f} max {row['max']:.2f}"
        for bot, row in summary.thinking().items()))
    if "wins_by_team" in data:
        teams = summary.games[0].teams or []
        for team in (0, 1):
            wins = data["wins_by_team"].get(str(team), 0)
            seats_of = ", ".join(str(s) for s, t in enumerate(teams) if t == team)
            print(f"team {team} (seats {seats_of}): {wins} wins "
                  f"({100 * wins / n if n else 0:.1f}%)")



def _add_backend_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="where games run: local processes (--jobs), or a Ray cluster "
                        "(pip install 'kaladan[ray]'); the same seed gives the same games")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="with --backend ray: the cluster to join, HOST:PORT or ray://HOST:PORT "
                        "(default: a running local instance, or start one)")


def _check_backend_args(args: argparse.Namespace) -> None:
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.backend != "ray" and args.ray_address is not None:
        raise UsageError("--ray-address needs --backend ray")
    if args.backend == "ray" and args.jobs != 1:
        raise UsageError("--jobs is for the local backend; with --backend ray the cluster's "
                         "CPUs set the parallelism")


def cmd_simulate(args: argparse.Namespace) -> int:
    from ..sim.ray_backend import RayBackendError

    bots = parse_bot_list(args.players)
    config = _config(len(bots), args.option, args.layout, args.quick, args.mode)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    _check_backend_args(args)
    start = time.perf_counter()
    progress = _progress_bar(start) if sys.stderr.isatty() else None
    try:
        summary = simulate(config, bots, args.games, args.seed, keep_records=args.records,
                           jobs=args.jobs, progress=progress, backend=args.backend,
                           ray_address=args.ray_address)
    except RayBackendError as exc:
        raise UsageError(str(exc)) from exc
    seconds = time.perf_counter() - start
    if progress is not None:
        sys.stderr.write("\n")
    if args.out:
        _write(args.out, "".join(json.dumps(g.to_json()) + "\n" for g in summary.games))
    if args.csv:
        rows = ["group,key,games,wins,rate,low,high"]
        for group, table in summary.rates().items():
            rows += [f"{group},{key},{r['games']},{r['wins']},{r['rate']:.6f},{r['low']:.6f},"
                     f"{r['high']:.6f}" for key, r in table.items()]
        _write(args.csv, "\n".join(rows) + "\n")
    if args.json:
        print(json.dumps(summary.to_json()))
    else:
        _print_summary(summary, seconds)
    return 0


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, "utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {exc}") from exc


def _progress_bar(start: float) -> Callable[[int, int], None]:
    """Games done, games per second and time left, redrawn on one terminal line."""

    def show(done: int, total: int) -> None:
        elapsed = max(time.perf_counter() - start, 1e-9)
        rate = done / elapsed
        left = (total - done) / rate if rate else 0.0
        filled = int(30 * done / total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} games, "
                         f"{rate:.1f} games/s, {left:.0f} s left ")
        sys.stderr.flush()

    return show


def cmd_tournament(args: argparse.Namespace) -> int:
    from ..sim.ray_backend import RayBackendError
    from ..sim.tournament import play

    bots = parse_bot_list(args.bots)
    if len(set(bots)) < 2:
        raise UsageError("a tournament needs at least two different bots")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    _check_backend_args(args)
    try:
        result = play(list(dict.fromkeys(bots)), args.games, args.seed, args.jobs,
                      backend=args.backend, ray_address=args.ray_address)
    except RayBackendError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        print(json.dumps([{"bot": s.bot, "rating": s.rating, "low": s.low, "high": s.high,
                           "games": s.games, "score": s.score} for s in result.standings]))
        return 0
    print(f"{'bot':<24} {'rating':>7}  {'95% interval':>15}  {'games':>5}  {'score':>6}")
    for s in result.standings:
        print(f"{s.bot:<24} {s.rating:7.0f}  [{s.low:6.0f}, {s.high:6.0f}]  {s.games:5d}  "
              f"{s.score:6.1f}")
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    bots = parse_bot_list(args.players)
    config = _config(len(bots), args.option, args.layout, args.quick, args.mode)
    game = play_game(config, args.seed, bots, keep_record=True)
    assert game.record is not None
    text = dumps(game.record)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        try:
            Path(args.out).write_text(text, "utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {args.out!r}: {exc}") from exc
        print(f"wrote {args.out}: {len(game.record['steps'])} decisions, end {game.end}, "
              f"winner {game.winner}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        record = json.loads(Path(args.file).read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"cannot read record {args.file!r}: {exc}") from exc
    from ..play import replay_view

    record, seats = replay_view.unwrap(record)  # a saved game (kaladan play) holds a record
    try:
        game = replay(record, use_seed=True)
    except ReplayError as exc:
        print(f"replay diverges: {exc}", file=sys.stderr)
        return 1
    result = game.state.result
    if args.verify:
        print(f"ok: {len(game.steps)} decisions replay identically"
              + (f"; end {result.end}, winner {result.winner}" if result else ""))
    elif args.list:
        for line in replay_view.listing(replay_view.frames(record, seats, args.lang)):
            print(line)
    elif sys.stdin.isatty() and sys.stdout.isatty():
        from ..play.screen import Screen

        return replay_view.view(replay_view.frames(record, seats, args.lang), Screen(True))
    else:
        print(json.dumps({"decisions": len(game.steps),
                          "result": record.get("result")}))
    return 0


def cmd_cards(args: argparse.Namespace) -> int:
    """List the magic cards (section 26) with their texts in one language."""
    from ..rules.catalog import MAGIC_CARDS, REALM_BY_ID

    lang = args.lang
    realm = args.realm.lower() if args.realm else None
    if realm is not None and realm not in REALM_BY_ID:
        raise UsageError(f"unknown realm {args.realm!r}: choose one of "
                         f"{', '.join(REALM_BY_ID)}")
    labels = {"en": ("Who", "Window", "Condition", "Effect"),
              "nl": ("Wie", "Moment", "Voorwaarde", "Effect"),
              "de": ("Wer", "Zeitpunkt", "Bedingung", "Wirkung")}[lang]
    users = {"en": {"attacker": "attacker", "defender": "defender", "either": "either"},
             "nl": {"attacker": "aanvaller", "defender": "verdediger", "either": "beide"},
             "de": {"attacker": "Angreifer", "defender": "Verteidiger", "either": "beide"}}[lang]
    shown = [c for c in MAGIC_CARDS if realm is None or c.realm == realm]
    for card in shown:
        realm_name = REALM_BY_ID[card.realm].name.get(lang)
        print(f"{card.id}  {card.name.get(lang)}  ({realm_name}, {card.source})")
        print(f"  {labels[0]}: {users[card.usable_by]}   {labels[1]}: {card.window}")
        print(f"  {labels[2]}: {card.condition.get(lang)}")
        print(f"  {labels[3]}: {card.text.get(lang)}")
        print()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kaladan", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("simulate", help="play many games between bots and summarise them")
    _add_game_args(p)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--jobs", type=int, default=1,
                   help="local processes to play in (same results whatever the number)")
    p.add_argument("--out", help="write one JSON line per game to this file")
    p.add_argument("--records", action="store_true",
                   help="with --out: include each game's full record")
    p.add_argument("--csv", help="write the win-rate table (with 95%% intervals) as CSV")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_backend_args(p)
    p.set_defaults(func=cmd_simulate)
    p = sub.add_parser("record", help="play one game and write its record")
    _add_game_args(p)
    p.add_argument("--out", required=True, help="record file to write ('-' for stdout)")
    p.set_defaults(func=cmd_record)
    p = sub.add_parser("replay", help="replay a game record (on a terminal: step through it)")
    p.add_argument("file", help="a game record, or a game saved by kaladan play")
    p.add_argument("--verify", action="store_true",
                   help="exit non-zero if the replay diverges from the record")
    p.add_argument("--list", action="store_true", help="print one line per decision")
    p.add_argument("--lang", choices=("en", "nl", "de"), default="en",
                   help="language of the step-through view and the listing")
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("tournament",
                       help="play every pairing of bots (2 players, seats rotated), rate them")
    p.add_argument("--bots", required=True, help="comma-separated bots, e.g. random,greedy")
    p.add_argument("--games", type=int, default=100, help="games per pairing")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="local processes to play in")
    p.add_argument("--json", action="store_true")
    _add_backend_args(p)
    p.set_defaults(func=cmd_tournament)
    p = sub.add_parser("cards", help="list the magic cards with their texts")
    p.add_argument("--realm", help="only this realm's five cards")
    p.add_argument("--lang", choices=("en", "nl", "de"), default="en")
    p.set_defaults(func=cmd_cards)
    from .odds_cmd import add_parser as add_odds_parser

    add_odds_parser(sub)
    from .play_cmd import add_parser as add_play_parser

    add_play_parser(sub)
    from .serve_cmd import add_parser as add_serve_parser

    add_serve_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except (UsageError, KaladanError) as exc:
        print(f"kaladan: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`kaladan ... | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
