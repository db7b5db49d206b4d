"""``kaladan simulate`` (games between bots, a summary, data files and a report) and
``kaladan tournament`` (every pairing of bots, Bradley-Terry ratings)."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from ..bots.registry import check_bots, parse_bot_list
from ..sim.design import SEAT_DESIGNS, Design, DesignError, parse_realms
from ..sim.frames import OutputError, rows, write_games
from ..sim.ray_backend import RayBackendError
from ..sim.runner import Summary, simulate
from .common import (
    UsageError,
    add_backend_args,
    add_output_args,
    add_ruleset_args,
    build_config,
    check_backend_args,
    check_output_args,
    command_line,
    progress_line,
    write_text,
)


def _design(args: argparse.Namespace, players: int) -> Design:
    try:
        realms = parse_realms(args.realms) if args.realms else Design()
        design = Design(args.seats, realms.realms, realms.realm_list)
        design.check(players)
    except DesignError as exc:
        raise UsageError(f"bad --realms {args.realms!r}: {exc}" if args.realms
                         else str(exc)) from exc
    return design


def cmd_simulate(args: argparse.Namespace) -> int:
    bots = parse_bot_list(args.players)
    config = build_config(len(bots), args.option, args.layout, args.quick, args.mode)
    check_bots(config, bots)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    check_backend_args(args)
    check_output_args(args)
    if args.records and args.out and args.out.endswith((".parquet", ".csv")):
        raise UsageError("--records needs a JSON lines --out file (not .parquet or .csv)")
    design = _design(args, len(bots))
    start = time.perf_counter()
    progress = progress_line()
    try:
        summary = simulate(config, bots, args.games, args.seed, keep_records=args.records,
                           jobs=args.jobs, progress=progress, backend=args.backend,
                           ray_address=args.ray_address, design=design)
    except RayBackendError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        if progress is not None:
            progress.finish()
    seconds = time.perf_counter() - start
    try:
        if args.out:
            write_games(args.out, rows(summary.games, summary.ruleset),
                        [g.to_json() for g in summary.games])
        if args.report or args.plots:
            from ..sim.report import for_simulation  # matplotlib: only for a report

            report = for_simulation(summary, command_line(args.argv), seconds)
            if args.report:
                report.write(args.report)
            if args.plots:
                report.write_plots(args.plots)
    except OutputError as exc:
        raise UsageError(str(exc)) from exc
    if args.csv:
        lines = ["group,key,games,wins,rate,low,high"]
        for group, table in summary.rates().items():
            lines += [f"{group},{key},{r['games']},{r['wins']},{r['rate']:.6f},{r['low']:.6f},"
                      f"{r['high']:.6f}" for key, r in table.items()]
        write_text(args.csv, "\n".join(lines) + "\n")
    if args.json:
        print(json.dumps(summary.to_json()))
    else:
        print_summary(summary, seconds)
    return 0


def print_summary(summary: Summary, seconds: float) -> None:
    data = summary.to_json()
    n = data["count"]
    print(f"{n} games in {seconds:.2f} s ({n / seconds if seconds else 0:.1f} games/s)")
    print(f"design: {summary.design}")
    print(f"average rounds {data['average_rounds']:.1f}, "
          f"average decisions {data['average_decisions']:.1f}")
    print("ends: " + ", ".join(f"{k} {v}" for k, v in sorted(data["ends"].items())))
    rates = summary.rates()
    width = max(12, *(len(key) for table in rates.values() for key in table))
    for group in ("bot", "seat", "position", "realm"):
        title = "turn position" if group == "position" else group
        print(f"win rate by {title} (95% Wilson interval):")
        for key, row in rates[group].items():
            print(f"  {key:<{width}} {row['wins']:>5}/{row['games']:<5} {100 * row['rate']:5.1f}% "
                  f"[{100 * row['low']:.1f}-{100 * row['high']:.1f}]")
    print("average score by seat: " + ", ".join(f"{s:.1f}" for s in data["average_scores"]))
    print("thinking per game (s): " + ", ".join(
        f"{bot} mean {row['mean']:.2f} max {row['max']:.2f}"
        for bot, row in summary.thinking().items()))
    if "wins_by_team" in data:
        teams = summary.games[0].teams or []
        for team in (0, 1):
            wins = data["wins_by_team"].get(str(team), 0)
            seats_of = ", ".join(str(s) for s, t in enumerate(teams) if t == team)
            print(f"team {team} (seats {seats_of}): {wins} wins "
                  f"({100 * wins / n if n else 0:.1f}%)")


def cmd_tournament(args: argparse.Namespace) -> int:
    from ..sim.tournament import play

    bots = parse_bot_list(args.bots)
    if len(set(bots)) < 2:
        raise UsageError("a tournament needs at least two different bots")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    check_backend_args(args)
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


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("simulate", help="play many games between bots and summarise them")
    p.add_argument("--players", required=True,
                   help="comma-separated bots, one per seat, e.g. random,random,random")
    add_ruleset_args(p)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seats", choices=SEAT_DESIGNS, default="fixed",
                   help="rotate: shift the bots one seat per game, so each bot sits in each "
                        "seat equally often (default fixed: the order given)")
    p.add_argument("--realms", metavar="fixed|rotate|random|R1,R2,...",
                   help="set the realms instead of letting the ruleset give them: fixed (seat "
                        "k plays the k-th realm of R2.1), rotate (every ordered choice of "
                        "realms equally often), random (drawn per game, seeded) or one realm "
                        "per seat")
    add_output_args(p)
    p.add_argument("--records", action="store_true",
                   help="with a JSON lines --out: include each game's full record")
    p.add_argument("--csv", help="write the win-rate table (with 95%% intervals) as CSV")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_backend_args(p)
    p.set_defaults(func=cmd_simulate)
    p = sub.add_parser("tournament",
                       help="play every pairing of bots (2 players, seats rotated), rate them")
    p.add_argument("--bots", required=True, help="comma-separated bots, e.g. random,greedy")
    p.add_argument("--games", type=int, default=100, help="games per pairing")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    add_backend_args(p)
    p.set_defaults(func=cmd_tournament)
