"""``kaladan balance``: a balance study of one ruleset, or two side by side (``--compare``):
realm against realm with realms rotated over the seats, one bot in every seat; win rates
per realm, seat and turn position with Wilson intervals, Holm-adjusted verdicts against the
fair share and, for two rulesets, the change per realm on paired games."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from ..bots.registry import parse_bot_list
from ..rules.config import parse_option
from ..sim.frames import OutputError, write_games
from ..sim.frames import rows as game_rows
from ..sim.ray_backend import RayBackendError
from ..sim.runner import options_label
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

if TYPE_CHECKING:  # the study and its tables load when a study runs: other commands start faster
    from ..sim.balance import Ruleset, Study
    from ..sim.tables import Change, Row

CSV_COLUMNS = ("ruleset", "group", "key", "games", "wins", "rate", "low", "high", "difference",
               "p", "p_holm", "verdict", "score", "eliminated", "rounds", "decisions")


def _rulesets(args: argparse.Namespace) -> list[Ruleset]:
    from ..sim.balance import Ruleset

    base = build_config(args.players, args.option, args.layout, args.quick, args.mode)
    first = Ruleset(options_label(base), base)
    if not args.compare:
        return [first]
    changed: dict[str, Any] = {}
    for text in args.compare:
        name, value = parse_option(text)
        changed[name] = value
    other = base.with_options(**changed)
    if other == base:
        raise UsageError(f"--compare {' '.join(args.compare)} does not change the ruleset")
    return [first, Ruleset(options_label(other), other)]


def cmd_balance(args: argparse.Namespace) -> int:
    bots = parse_bot_list(args.bot)
    if len(bots) != 1:
        raise UsageError("--bot takes one bot, played in every seat")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.until_ci is not None and not 0 < args.until_ci < 1:
        raise UsageError("--until-ci is an interval width between 0 and 1, e.g. 0.05 for "
                         "5 points")
    from ..sim.balance import run

    rulesets = _rulesets(args)
    check_backend_args(args)
    check_output_args(args)
    progress = progress_line()
    if progress is not None:
        progress.at_most = args.until_ci is not None

    def batch_done(study: Study) -> None:
        if progress is not None and args.until_ci is not None:
            progress.note = f"widest interval {study.widest():.3f} (target {args.until_ci:g})"

    try:
        study = run(rulesets, bots[0], args.games, args.seed, args.until_ci, args.jobs,
                    args.backend, args.ray_address, progress, batch_done)
    except RayBackendError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        if progress is not None:
            progress.finish()
    _write_outputs(args, study)
    if args.json:
        print(json.dumps({**study.tables(), "seconds": study.seconds}))
    else:
        print_study(study)
    return 0


def _write_outputs(args: argparse.Namespace, study: Study) -> None:
    try:
        if args.out:
            table, lines = [], []
            for rs in study.rulesets:
                games = study.games[rs.label]
                table += game_rows(games, rs.label)
                lines += [{"ruleset": rs.label, **g.to_json()} for g in games]
            write_games(args.out, table, lines)
        if args.report or args.plots:
            from ..sim.report import for_study  # matplotlib: only for a report

            report = for_study(study, command_line(args.argv))
            if args.report:
                report.write(args.report)
            if args.plots:
                report.write_plots(args.plots)
    except OutputError as exc:
        raise UsageError(str(exc)) from exc
    if args.csv:
        write_text(args.csv, csv_text(study))


def csv_text(study: Study) -> str:
    """Every table as CSV. Change rows (group ``change``) hold the second ruleset's rate and
    the change with its interval in difference, low and high."""
    from ..sim.tables import GROUPS, changes, rows

    lines = [",".join(CSV_COLUMNS)]
    for rs in study.rulesets:
        for group in GROUPS:
            for r in rows(study.games[rs.label], group):
                lines.append(",".join(str(v) for v in (
                    rs.label, group, r.key, r.games, r.wins, f"{r.rate:.6f}", f"{r.low:.6f}",
                    f"{r.high:.6f}", f"{r.difference:.6f}", f"{r.p:.6g}", f"{r.p_holm:.6g}",
                    r.verdict, "" if r.score is None else f"{r.score:.4f}",
                    f"{r.eliminated:.6f}", f"{r.rounds:.4f}", f"{r.decisions:.4f}")))
    if len(study.rulesets) == 2:
        a, b = study.rulesets
        for c in changes(study.games[a.label], study.games[b.label]):
            lines.append(",".join(str(v) for v in (
                f"{b.label} minus {a.label}", "change", c.key, c.games, "",
                f"{c.rate_second:.6f}", f"{c.low:.6f}", f"{c.high:.6f}",
                f"{c.difference:.6f}", f"{c.p:.6g}", f"{c.p_holm:.6g}", c.verdict,
                "", "", "", "")))
    return "\n".join(lines) + "\n"


def _row_line(r: Row) -> str:
    score = "-" if r.score is None else f"{r.score:.1f}"
    return (f"  {r.key:<10} {r.games:>6} {r.wins:>6} {100 * r.rate:6.1f}%  "
            f"[{100 * r.low:4.1f}-{100 * r.high:4.1f}] {100 * r.difference:+6.1f}  "
            f"{r.p_holm:7.4f}  {str(r.verdict) or '-':<7} {score:>6} "
            f"{100 * r.eliminated:5.1f}% {r.rounds:6.1f}")


def _change_line(c: Change) -> str:
    return (f"  {c.key:<10} {c.games:>6} {100 * c.rate_first:6.1f}% {100 * c.rate_second:6.1f}% "
            f"{100 * c.difference:+6.1f} [{100 * c.low:+5.1f} to {100 * c.high:+5.1f}]  "
            f"{c.p_holm:7.4f}  {str(c.verdict) or '-'}")


def print_study(study: Study, out: Any = None) -> None:
    from ..sim.tables import GROUPS, changes, fair_share, rows

    config = study.rulesets[0].config
    say = print if out is None else (lambda text="": print(text, file=out))
    n = study.count
    say(f"balance study: {config.players} players ({config.mode}), bot {study.bot}, "
        f"seed {study.seed}")
    say(f"design: {study.design}")
    say(f"{n} games per ruleset ({n / study.block:.2f} blocks of {study.block}) in "
        f"{study.seconds:.1f} s; {study.stopped}")
    for rs in study.rulesets:
        games = study.games[rs.label]
        fair = fair_share(games)
        ends = sorted({g.end for g in games})
        say()
        say(f"ruleset {rs.label}: fair share {100 * fair:.1f}%, ends "
            + ", ".join(f"{e} {sum(g.end == e for g in games)}" for e in ends)
            + f", average rounds {sum(g.rounds for g in games) / n:.1f}")
        for group in GROUPS:
            say(f"  {group:<10} {'games':>6} {'wins':>6} {'rate':>7}  "
                f"{'95% interval':<11} {'vs fair':>6}  {'Holm p':>7}  {'verdict':<7} "
                f"{'score':>6} {'elim.':>6} {'rounds':>6}")
            for r in rows(games, group):
                say(_row_line(r))
    if len(study.rulesets) == 2:
        a, b = study.rulesets
        say()
        say(f"change per realm, {b.label} minus {a.label} (paired games, Newcombe 95% "
            f"interval, McNemar test, Holm):")
        for c in changes(study.games[a.label], study.games[b.label]):
            say(_change_line(c))
    say()
    say("verdicts: strong/weak (or up/down) where Holm's adjusted p is below 0.05; "
        "'-' means no evidence of a difference")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "balance", help="a balance study: realm against realm, seats rotated, one bot",
        description="A balance study: realm against realm with the realms rotated over the "
                    "seats and one bot in every seat; win rates per realm, seat and turn "
                    "position with Wilson intervals and Holm-adjusted verdicts against the "
                    "fair share, and with --compare the change per realm on paired games.")
    p.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    p.add_argument("--bot", default="greedy", help="the bot in every seat (default greedy)")
    p.add_argument("--games", type=int, default=1000,
                   help="games per ruleset, rounded up to a multiple of the players; with "
                        "--until-ci the most to play (default 1000). A multiple of the "
                        "design block (perm(6, players): 360 for 4 players) is exactly "
                        "balanced")
    add_ruleset_args(p, "deal starting cards, castle spots and starting units at random "
                        "instead of letting the bots choose them (the design sets the realms)")
    p.add_argument("--compare", action="append", default=[], metavar="NAME=VALUE",
                   help="study a second ruleset, the first with this option changed "
                        "(repeatable), on the same seeds and realms")
    p.add_argument("--until-ci", type=float, metavar="W",
                   help="stop after the first design block at which every per-realm and "
                        "per-seat 95%% interval is narrower than W (e.g. 0.05)")
    add_output_args(p)
    p.add_argument("--csv", metavar="FILE", help="write every table as CSV")
    p.add_argument("--json", action="store_true", help="print the tables as one JSON object")
    add_backend_args(p)
    p.set_defaults(func=cmd_balance)
