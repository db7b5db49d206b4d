"""What several ``kaladan`` commands share: the usage error, ruleset and backend flags, the
progress line and the output files of simulations."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from ..rules.config import Config, parse_option
from ..sim.frames import INSTALL_HINT


class UsageError(Exception):
    """A command-line mistake: printed without a traceback, exit code 2."""


def build_config(players: int, options: Sequence[str], layout: str | None,
                 quick: bool = False, mode: str = "free_for_all") -> Config:
    changes: dict[str, Any] = {"quick_setup": quick, "mode": mode}
    for text in options:
        name, value = parse_option(text)
        changes[name] = value
    if layout is not None:
        from pathlib import Path  # pathlib loads only where a path is used (see check_output_args)

        try:
            changes["layout"] = json.loads(Path(layout).read_text("utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise UsageError(f"cannot read layout file {layout!r}: {exc}") from exc
        changes.setdefault("world", "custom")
    return Config(players=players, **changes)


QUICK_HELP = ("deal realms, starting cards, castle spots and starting units at random instead "
              "of letting the bots choose them")


def add_ruleset_args(p: argparse.ArgumentParser, quick_help: str = QUICK_HELP) -> None:
    p.add_argument("--seed", type=int, default=1, help="seed of the run (default 1)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a ruleset option of RULES.md R3.3 (repeatable)")
    p.add_argument("--layout", help="custom world layout file (JSON, R4.14)")
    p.add_argument("--mode", choices=("free_for_all", "team_2v2", "team_3v3"),
                   default="free_for_all",
                   help="free-for-all, or teams of alternating seats: 2 against 2 (4 players) "
                        "or 3 against 3 (6 players), RULES.md section 23")
    p.add_argument("--quick", action="store_true", help=quick_help)


def add_backend_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", type=int, default=1,
                   help="local processes to play in (same results whatever the number)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="where games run: local processes (--jobs), or a Ray cluster "
                        "(pip install 'kaladan[ray]'); the same seed gives the same games")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="with --backend ray: the cluster to join, HOST:PORT or ray://HOST:PORT "
                        "(default: a running local instance, or start one)")


def check_backend_args(args: argparse.Namespace) -> None:
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.backend != "ray" and args.ray_address is not None:
        raise UsageError("--ray-address needs --backend ray")
    if args.backend == "ray" and args.jobs != 1:
        raise UsageError("--jobs is for the local backend; with --backend ray the cluster's "
                         "CPUs set the parallelism")


def add_output_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", metavar="FILE",
                   help="write the games: .parquet and .csv one row per game and seat "
                        "(docs/simulation.md), any other name one JSON line per game")
    p.add_argument("--report", metavar="FILE.html",
                   help="write a self-contained HTML report with charts and tables")
    p.add_argument("--plots", metavar="DIR", help="write the report's charts as PNG and SVG")


def check_output_args(args: argparse.Namespace) -> None:
    """Before any game is played: the libraries the outputs need, and folders that exist."""
    if not (args.out or args.report or args.plots or getattr(args, "csv", None)):
        return
    # pathlib loads only where a path is used: with the urllib.parse and ipaddress it
    # imports it was 7 ms of every command's start-up, a tenth of a short simulate's.
    from pathlib import Path

    wanted = []
    if args.out and Path(args.out).suffix == ".parquet":
        wanted.append(("pyarrow", "--out FILE.parquet"))
    if args.report or args.plots:
        wanted.append(("matplotlib", "--report and --plots"))
    for module, flag in wanted:
        if importlib.util.find_spec(module) is None:
            raise UsageError(f"{flag} needs {module}, which is not installed: {INSTALL_HINT}")
    for path in (args.out, args.report, getattr(args, "csv", None)):
        if path and not Path(path).resolve().parent.is_dir():
            raise UsageError(f"cannot write {path!r}: its folder does not exist")
    if args.plots and Path(args.plots).exists() and not Path(args.plots).is_dir():
        raise UsageError(f"--plots {args.plots!r} is a file, not a folder")


def write_text(path: str, text: str) -> None:
    from pathlib import Path

    try:
        Path(path).write_text(text, "utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {exc}") from exc


def command_line(argv: Sequence[str] | None) -> str:
    """The command as typed, for reports."""
    import shlex

    words = list(sys.argv[1:] if argv is None else argv)
    return " ".join(shlex.quote(w) for w in ["kaladan", *words])


class ProgressLine:
    """Games done, games per second and the time left, redrawn on one terminal line of
    stderr; ``note`` adds a word about the run (the widest interval of a study), and
    ``at_most`` says the run may stop before ``total`` (``--until-ci``)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.note = ""
        self.at_most = False
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = done / elapsed
        left = (total - done) / rate if rate else 0.0
        filled = int(30 * done / total) if total else 30
        note = f", {self.note}" if self.note else ""
        bound = "at most " if self.at_most else ""
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} games, "
                         f"{rate:.1f} games/s, {bound}{_duration(left)} left{note}\x1b[K")
        sys.stderr.flush()
        self.drawn = True

    def finish(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")


def _duration(seconds: float) -> str:
    if seconds < 100:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes < 60 else f"{minutes // 60} h " \
        f"{minutes % 60:02d} min"


def progress_line() -> ProgressLine | None:
    """A progress line on a terminal; nothing when stderr is not one (pipes, files, CI)."""
    return ProgressLine() if sys.stderr.isatty() else None
