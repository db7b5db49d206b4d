"""``kaladan``: serve the browser game, play in the terminal, simulate, study balance, record
and replay games, rate bots in a tournament, list the magic cards and compute exact battle
odds.

Bad arguments print a clear message and exit with code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from ..bots.registry import check_bots, parse_bot_list
from ..rules.errors import KaladanError
from .common import UsageError, add_ruleset_args, write_text
from .common import build_config as _config


def _add_game_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", required=True,
                   help="comma-separated bots, one per seat, e.g. random,random,random")
    add_ruleset_args(p)


def cmd_record(args: argparse.Namespace) -> int:
    from ..record import dumps  # the record and replay modules load only for these commands
    from ..sim.runner import play_game

    bots = parse_bot_list(args.players)
    config = _config(len(bots), args.option, args.layout, args.quick, args.mode)
    check_bots(config, bots)
    game = play_game(config, args.seed, bots, keep_record=True)
    assert game.record is not None
    text = dumps(game.record)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        write_text(args.out, text)
        print(f"wrote {args.out}: {len(game.record['steps'])} decisions, end {game.end}, "
              f"winner {game.winner}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    if not args.analyse and (args.iterations is not None or args.net or args.json):
        raise UsageError("--iterations, --net and --json go with --analyse")
    try:
        record = json.loads(Path(args.file).read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"cannot read record {args.file!r}: {exc}") from exc
    from ..play import replay_view
    from ..record import ReplayError, replay

    record, seats = replay_view.unwrap(record)  # a saved game (kaladan play) holds a record
    try:
        game = replay(record, use_seed=True)
    except ReplayError as exc:
        print(f"replay diverges: {exc}", file=sys.stderr)
        return 1
    result = game.state.result
    if args.analyse:
        return _analyse(record, seats, args)
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


def _analyse(record: Mapping[str, Any], seats: tuple[str, ...] | None,
             args: argparse.Namespace) -> int:
    """``replay --analyse``: the win-probability curve and the costliest decisions."""
    from ..analysis import DEFAULT_ITERATIONS, analyse
    from .analysis_text import render

    iterations = DEFAULT_ITERATIONS if args.iterations is None else args.iterations
    analysis = analyse(record, iterations, args.net)
    if args.json:
        print(analysis.dumps())
    else:
        for line in render(analysis, seats):
            print(line)
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


# Commands registered by modules of their own, which load (with what they import: the odds,
# the save files, the server's settings) only when their command runs or --help lists all.
_OWN_MODULES = {"simulate": "sim", "tournament": "sim", "balance": "balance", "odds": "odds",
                "play": "play", "serve": "serve", "selfplay": "selfplay"}


def _help_width() -> int:
    """The width argparse gives its help: the terminal's columns (``COLUMNS`` first, 80 when
    there is no terminal) less 2, as ``shutil.get_terminal_size`` finds them."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    stdout = sys.__stdout__
    if columns <= 0 and stdout is not None:
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):  # not a terminal, or no file behind it
            columns = 0
    return (columns or 80) - 2


class _Parser(argparse.ArgumentParser):
    """argparse's parser with the help width found here: argparse imports ``shutil`` for it
    (with zlib, bz2 and lzma), at every ``add_argument``; that was 5 ms of every command's
    start-up. Subcommands' parsers are of this class too (``add_subparsers``)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=_help_width())  # type: ignore[call-arg]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``kaladan`` parser; with ``command`` (one of ``_OWN_MODULES``) only that command's
    module is loaded and the other modules' subparsers are left out."""
    parser = _Parser(prog="kaladan", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    wanted = _OWN_MODULES.get(command) if command is not None else None

    def needs(module: str) -> bool:
        return wanted is None or wanted == module

    if needs("sim"):
        from .sim_cmd import add_parsers as add_sim_parsers

        add_sim_parsers(sub)
    if needs("balance"):
        from .balance_cmd import add_parser as add_balance_parser

        add_balance_parser(sub)
    if needs("selfplay"):
        from .selfplay_cmd import add_parser as add_selfplay_parser

        add_selfplay_parser(sub)
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
    p.add_argument("--analyse", "--analyze", action="store_true",
                   help="analyse a finished game: every seat's chance to win along the game "
                        "(the value network) and its three costliest decisions with the "
                        "expert bot's choice there (docs/analysis.md)")
    p.add_argument("--iterations", type=int, metavar="N",
                   help="with --analyse: the expert bot's search per costly decision "
                        "(default 200)")
    p.add_argument("--net", metavar="FILE.npz",
                   help="with --analyse: judge with this value network, not the shipped one")
    p.add_argument("--json", action="store_true",
                   help="with --analyse: print the analysis as one JSON object")
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("cards", help="list the magic cards with their texts")
    p.add_argument("--realm", help="only this realm's five cards")
    p.add_argument("--lang", choices=("en", "nl", "de"), default="en")
    p.set_defaults(func=cmd_cards)
    if needs("odds"):
        from .odds_cmd import add_parser as add_odds_parser

        add_odds_parser(sub)
    if needs("play"):
        from .play_cmd import add_parser as add_play_parser

        add_play_parser(sub)
    if needs("serve"):
        from .serve_cmd import add_parser as add_serve_parser

        add_serve_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None, own_process: bool = False) -> int:
    """Run one command; its exit code. ``own_process``: the process is the command's alone
    (the ``kaladan`` script), so what it has imported is frozen out of the collector."""
    words = list(sys.argv[1:] if argv is None else argv)
    # A command of its own module first: build its parser alone (kaladan simulate starts
    # faster); anything else (--help, a typo, this module's commands) gets the whole parser.
    first = words[0] if words else None
    parser = build_parser(first if first in _OWN_MODULES else None)
    args = parser.parse_args(words)
    args.argv = words  # reports quote the command
    if own_process:
        # What is loaded now (modules, classes, the engine's tables) lives as long as the
        # process: kept out of the collector's full passes, and the exit's, it costs no
        # traversal (4 ms of a short simulate's 47). Not when main() runs inside another
        # program (tests call it), whose objects must stay collectable.
        gc.freeze()
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


def run() -> None:
    """The ``kaladan`` command (pyproject's script and ``python -m kaladan.cli.main``)."""
    sys.exit(main(own_process=True))


if __name__ == "__main__":
    run()
