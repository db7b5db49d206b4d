"""``kaladan play``: a game in the terminal against bots, or hot-seat with friends.

Every mistake in the arguments is a ``KaladanError``, which ``main`` prints with exit code 2.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..bots.levels import default_level, level_names
from ..bots.registry import check_config
from ..game import Game
from ..play.i18n import LANGS
from ..play.savefile import (
    SeatPlan,
    check_plan,
    find_save,
    new_autosave,
    parse_seats,
    read_save,
    save_dir,
)
from ..rules.config import MODES, Config, parse_option
from ..rules.errors import ConfigError

if TYPE_CHECKING:  # the screen and session (Rich) load only when a game is played
    from ..play.screen import Screen



def default_seats() -> str:
    """You against the middle level (bots/data/levels.json)."""
    return f"human,{default_level().name}"


def add_parser(sub: Any) -> None:
    """Register ``play`` on the ``kaladan`` command's subparsers."""
    p = sub.add_parser("play", help="play a game in the terminal (against bots or hot-seat)",
                       description="Play Generals of Kaladan in the terminal: against bots, "
                                   "or hot-seat with friends (docs/play.md).")
    p.add_argument("--seats", help="who plays each seat, comma-separated: human, a level "
                                   f"({', '.join(level_names())}: weakest first) or a bot "
                                   "(random, greedy, mcts:time=1 ...; docs/bots.md); default "
                                   f"{default_seats()}")
    p.add_argument("--mode", choices=MODES, help="free_for_all (default), team_2v2 or team_3v3")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a ruleset option of RULES.md R3.3 (repeatable)")
    p.add_argument("--layout", help="custom world layout file (JSON, R4.14)")
    p.add_argument("--seed", type=int, help="seed of the game (default: a random one)")
    p.add_argument("--quick", action="store_true",
                   help="deal realms, starting cards, castle spots and units at random")
    p.add_argument("--lang", choices=LANGS, help="language of the game: en, nl or de")
    p.add_argument("--load", metavar="FILE",
                   help="resume a saved game: a file, or the name of a save in "
                        f"{save_dir()}")
    p.add_argument("--autosave", metavar="FILE",
                   help="where the game is saved when input ends, on quit and at the end "
                        f"(default: a new file in {save_dir()})")
    p.set_defaults(func=cmd_play)


def _config(players: int, args: argparse.Namespace, quick: bool, mode: str) -> Config:
    changes: dict[str, Any] = {"quick_setup": quick, "mode": mode}
    for text in args.option:
        name, value = parse_option(text)
        changes[name] = value
    if args.layout is not None:
        try:
            changes["layout"] = json.loads(Path(args.layout).read_text("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read layout file {args.layout!r}: {exc}") from exc
        changes.setdefault("world", "custom")
    return Config(players=players, **changes)


def _game_flags(args: argparse.Namespace) -> list[str]:
    given = [("--mode", args.mode is not None), ("--option", bool(args.option)),
             ("--layout", args.layout is not None), ("--seed", args.seed is not None),
             ("--quick", args.quick)]
    return [flag for flag, present in given if present]


def _loaded(args: argparse.Namespace) -> tuple[Game, SeatPlan]:
    flags = _game_flags(args)
    if flags:
        raise ConfigError(f"{', '.join(flags)} cannot be combined with --load: the saved game "
                          "keeps its own rules, world and seed")
    game, plan = read_save(find_save(args.load))
    lang = args.lang or plan.lang
    plan = parse_seats(args.seats, lang) if args.seats else SeatPlan(plan.seats, lang)
    check_plan(plan, game.config.players)
    _check_bots(plan, game.config)
    return game, plan


def _check_bots(plan: SeatPlan, config: Config) -> None:
    """Refuse a bot that cannot play this game before it starts (the expert bot, and the
    levels playing it, without a value network for the player count)."""
    for seat, spec in enumerate(plan.seats):
        if not plan.is_human(seat):
            try:
                check_config(spec, config)
            except ConfigError as exc:
                raise ConfigError(f"seat {seat + 1} ({spec}): {exc}") from exc


def _new(args: argparse.Namespace, screen: Screen) -> tuple[Game, SeatPlan] | None:
    from ..play.setup_dialog import SetupAborted, ask_setup

    seats, mode, quick, lang = args.seats, args.mode, args.quick, args.lang
    if seats is None and screen.interactive and not _game_flags(args):
        try:
            answers = ask_setup(screen, lang)
        except SetupAborted:
            return None
        seats, mode, quick, lang = (",".join(answers.seats), answers.mode, answers.quick,
                                    answers.lang)
    plan = parse_seats(default_seats() if seats is None else seats, lang or "en")
    config = _config(len(plan.seats), args, quick, mode or "free_for_all")
    _check_bots(plan, config)
    seed = args.seed if args.seed is not None else secrets.randbits(62)
    return Game.new(config, seed), plan


def cmd_play(args: argparse.Namespace) -> int:
    from ..play.screen import Screen

    screen = Screen(sys.stdin.isatty() and sys.stdout.isatty())
    try:
        return _play(args, screen)
    finally:
        screen.close()  # the terminal as it was: its own screen, echo, no mouse reports


def _play(args: argparse.Namespace, screen: Screen) -> int:
    from ..play.session import Session

    autosave = Path(args.autosave) if args.autosave else new_autosave()
    if args.load:
        game, plan = _loaded(args)
    else:
        try:
            made = _new(args, screen)
        except KeyboardInterrupt:
            return 130
        if made is None:
            return 0
        game, plan = made
    session = Session(game, plan, screen, autosave)
    if args.load:
        session.add_log(session.t("loaded", path=find_save(args.load), n=len(game.steps)))
    try:
        return session.run()
    except KeyboardInterrupt:  # Ctrl-C: keep the game, like quit, then stop as interrupted
        if session.save(autosave, final=True):
            screen.say("\n" + session.t("quit_saved", path=autosave))
        return 130
