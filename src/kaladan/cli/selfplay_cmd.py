"""``kaladan selfplay``: play bot games and write every decision as a training position
(``kaladan.sim.selfplay``; the file format is in docs/selfplay.md)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from typing import Any

from ..bots.registry import parse_bot_list
from .common import (
    ProgressLine,
    UsageError,
    add_backend_args,
    add_ruleset_args,
    build_config,
    check_backend_args,
)

SUFFIXES = (".npz", ".parquet")
DEFAULT_BOT = "greedy"


def seat_bots(players: str, bot: str | None) -> list[str]:
    """The bot of each seat: ``--players N`` with ``--bot SPEC`` (one bot for every seat),
    or ``--players BOT,BOT,...``."""
    if players.strip().isdigit():
        bots = parse_bot_list(bot or DEFAULT_BOT)
        if len(bots) != 1:
            raise UsageError("--bot takes one bot, played in every seat; for a bot per seat "
                             "give --players BOT,BOT,...")
        return bots * int(players)
    if bot is not None:
        raise UsageError("--bot goes with a number of --players (--players 4 --bot greedy); "
                         "with a list of bots in --players leave it out")
    return parse_bot_list(players)


def _check_out(path: str) -> None:
    from pathlib import Path

    suffix = Path(path).suffix
    if suffix not in SUFFIXES:
        raise UsageError(f"--out {path!r}: the name must end in .npz (numpy) or .parquet "
                         f"(pyarrow)")
    if not Path(path).resolve().parent.is_dir():
        raise UsageError(f"cannot write {path!r}: its folder does not exist")
    wanted = [("numpy", "pip install 'kaladan[rl]'")]
    if suffix == ".parquet":
        wanted.append(("pyarrow", "pip install 'kaladan[sim]'"))
    for module, hint in wanted:
        if importlib.util.find_spec(module) is None:
            raise UsageError(f"kaladan selfplay --out {path!r} needs {module}, which is not "
                             f"installed: {hint}")


class PositionsProgress(ProgressLine):
    """The progress line of a run, counted in positions (``--positions``) or games."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def __call__(self, done: int, total: int) -> None:
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = done / elapsed
        left = (total - done) / rate if rate else 0.0
        filled = int(30 * done / total) if total else 30
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} {self.unit}, "
                         f"{rate:,.0f} {self.unit}/s, {left:.0f} s left\x1b[K")
        sys.stderr.flush()
        self.drawn = True


def cmd_selfplay(args: argparse.Namespace) -> int:
    bots = seat_bots(args.players, args.bot)
    config = build_config(len(bots), args.option, args.layout, args.quick, args.mode)
    if args.positions is not None and args.positions < 1:
        raise UsageError("--positions must be at least 1")
    if args.games is not None and args.games < 1:
        raise UsageError("--games must be at least 1")
    check_backend_args(args)
    _check_out(args.out)
    from ..sim.ray_backend import RayBackendError
    from ..sim.selfplay import generate

    if args.observations:
        per = 4 * _observation_size(config)
        planned = (f": {args.positions:,} positions take {args.positions * per / 1e9:.2f} GB "
                   f"in memory" if args.positions is not None else "")
        print(f"kaladan: warning: --observations stores {per:,} bytes per position{planned}; "
              f"without it the file holds a compact form that SelfPlayData.observations() "
              f"expands by replaying the games", file=sys.stderr)
    progress = PositionsProgress("positions" if args.positions is not None else "games") \
        if sys.stderr.isatty() else None
    start = time.perf_counter()
    try:
        data = generate(config, bots, args.seed, positions=args.positions, games=args.games,
                        masks=args.masks, observations=args.observations, jobs=args.jobs,
                        backend=args.backend, ray_address=args.ray_address,
                        progress=progress)
    except RayBackendError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        if progress is not None:
            progress.finish()
    played = time.perf_counter() - start
    try:
        data.save(args.out)
    except OSError as exc:
        raise UsageError(f"cannot write {args.out!r}: {exc}") from exc
    seconds = time.perf_counter() - start
    from pathlib import Path

    size = Path(args.out).stat().st_size
    summary: dict[str, Any] = {
        "positions": len(data), "games": data.games, "seconds": round(seconds, 3),
        "play_seconds": round(played, 3), "positions_per_second": round(len(data) / seconds, 1),
        "out": args.out, "bytes": size}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{len(data):,} positions from {data.games:,} games in {seconds:.1f} s "
              f"({len(data) / seconds:,.0f} positions/s; writing {seconds - played:.1f} s); "
              f"wrote {args.out} ({_size(size)})")
    return 0


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1e6 else f"{count / 1e3:.1f} kB"


def _observation_size(config: Any) -> int:
    from ..env.observation import ObservationEncoder
    from ..rules.setup import new_game

    return ObservationEncoder(config, new_game(config, 0).world).size


def add_parser(sub: Any) -> None:
    p = sub.add_parser("selfplay",
                       help="play bot games and write every decision as training data")
    p.add_argument("--players", required=True,
                   help="the number of seats (with --bot), or comma-separated bots, one per "
                        "seat, e.g. greedy,greedy,random")
    p.add_argument("--bot", help=f"with a number of --players: the bot of every seat "
                                 f"(default {DEFAULT_BOT}), e.g. mcts:iterations=200")
    add_ruleset_args(p)
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--positions", type=int,
                      help="play games until this many positions (decisions) are collected, "
                           "then cut the data to exactly this many")
    size.add_argument("--games", type=int, help="play this many games, every decision kept")
    p.add_argument("--out", required=True, metavar="FILE.npz|FILE.parquet",
                   help="where to write the positions (docs/selfplay.md)")
    p.add_argument("--masks", action="store_true",
                   help="store each position's legal head tokens (the first-token mask)")
    p.add_argument("--observations", action="store_true",
                   help="store the observation vectors as well (large: for small runs; "
                        "without it they are rebuilt from the file by replay)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    add_backend_args(p)
    p.set_defaults(func=cmd_selfplay)
