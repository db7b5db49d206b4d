"""Games as data for notebooks: one row per game and seat, as CSV, Parquet or a data frame.

The columns are ``COLUMNS`` (documented in docs/simulation.md); rows are built with the
standard library, so CSV needs nothing more. Parquet and data frames need the ``[sim]``
extra (``pip install 'kaladan[sim]'``: pyarrow, and pandas; polars works when installed).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # frames are built of the runner's summaries: the import points one way
    from pathlib import Path

    from .runner import GameSummary, Summary

INSTALL_HINT = "pip install 'kaladan[sim]'"
SCHEMA_VERSION = "kaladan-games-1"
PARTS = ("trophies", "castles", "scalps", "tiles", "gold", "six_gates")  # R22.1, in points

# (name, Arrow type, nullable, meaning): the one place the schema is written down.
COLUMNS: tuple[tuple[str, str, bool, str], ...] = (
    ("ruleset", "string", False, "the ruleset's label: 'default' or its options name=value,..."),
    ("game", "int32", False, "the game's number in the run"),
    ("seed", "int64", False, "the game's seed: game_seed(run seed, game)"),
    ("players", "int8", False, "seats in the game"),
    ("mode", "string", False, "free_for_all, team_2v2 or team_3v3"),
    ("seat", "int8", False, "the seat, from 0"),
    ("position", "int8", False, "turn position, 1 for the first player (R5.3, R5.11)"),
    ("bot", "string", False, "the seat's bot as given"),
    ("realm", "string", True, "the seat's realm (R2.1)"),
    ("team", "int8", True, "the seat's team in team modes; null in free-for-all"),
    ("won", "bool", False, "the seat won (or its team did); false for everyone in a draw"),
    ("winner", "int8", True, "the winning seat; null for a draw and in team modes"),
    ("winning_team", "int8", True, "the winning team in team modes; null otherwise"),
    ("end", "string", False, "last_crown, final_round or draw (section 21)"),
    ("rounds", "int16", False, "rounds played"),
    ("decisions", "int32", False, "decisions taken in the game"),
    ("margin", "int16", True, "winner's score minus the best other; null if nobody else scored"),
    ("score", "int16", True, "the seat's score (R22.1; team modes: the team's); null when "
                             "eliminated (R22.2)"),
    *((part, "int16", True, f"points of the score from {part.replace('_', ' ')} (R22.1)")
      for part in PARTS),
)
NAMES = tuple(c[0] for c in COLUMNS)


class OutputError(Exception):
    """A missing library or an unwritable file: a message for the user."""


def _mode(game: GameSummary) -> str:
    if game.teams is None:
        return "free_for_all"
    return "team_2v2" if len(game.bots) == 4 else "team_3v3"


def rows(games: Sequence[GameSummary], ruleset: str = "default") -> list[dict[str, Any]]:
    """One dict per game and seat, keyed by ``NAMES``."""
    out = []
    for number, g in enumerate(games):
        margin, mode = g.margin(), _mode(g)
        for seat, bot in enumerate(g.bots):
            parts = g.parts[seat] if seat < len(g.parts) else None
            row: dict[str, Any] = {
                "ruleset": ruleset, "game": number, "seed": g.seed, "players": len(g.bots),
                "mode": mode, "seat": seat, "position": g.position(seat), "bot": bot,
                "realm": g.realms[seat], "team": None if g.teams is None else g.teams[seat],
                "won": g.won(seat), "winner": g.winner, "winning_team": g.team,
                "end": g.end, "rounds": g.rounds, "decisions": g.decisions, "margin": margin,
                "score": g.scores[seat],
            }
            for k, part in enumerate(PARTS):
                row[part] = None if parts is None else parts[k]
            out.append(row)
    return out


def write_csv(path: str | Path, table: Sequence[dict[str, Any]]) -> None:
    """The rows as CSV with a header; nulls are empty fields."""
    import csv  # loads only when a CSV file is written: simulate starts sooner

    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=NAMES)
        writer.writeheader()
        for row in table:
            writer.writerow({k: "" if v is None else v for k, v in row.items()})


def _load(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise OutputError(f"{name} is not installed: {INSTALL_HINT}") from exc


def schema() -> Any:
    """The Arrow schema of ``COLUMNS``, with the schema version in its metadata."""
    pa = _load("pyarrow")
    return pa.schema([pa.field(name, getattr(pa, "bool_" if kind == "bool" else kind)(),
                               nullable=nullable)
                      for name, kind, nullable, _ in COLUMNS],
                     metadata={"kaladan_schema": SCHEMA_VERSION})


def arrow_table(table: Sequence[dict[str, Any]]) -> Any:
    pa = _load("pyarrow")
    return pa.Table.from_pylist(list(table), schema=schema())


def write_parquet(path: str | Path, table: Sequence[dict[str, Any]]) -> None:
    parquet = _load("pyarrow.parquet")
    parquet.write_table(arrow_table(table), str(path))


def read_parquet(path: str | Path) -> Any:
    """A games file as an Arrow table (``.to_pandas()``, ``polars.from_arrow``)."""
    return _load("pyarrow.parquet").read_table(str(path))


def frame(table: Any, library: str = "pandas") -> Any:
    """An Arrow table as a pandas (nullable integer columns stay integers) or polars frame."""
    if library == "polars":
        return _load("polars").from_arrow(table)
    if library != "pandas":
        raise ValueError(f"unknown frame library {library!r}: choose pandas or polars")
    pd = _load("pandas")
    return table.to_pandas(types_mapper=_pandas_types(pd))


def _pandas_types(pd: Any) -> Any:
    pa = _load("pyarrow")
    mapping = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(),
               pa.int32(): pd.Int32Dtype(), pa.int64(): pd.Int64Dtype(),
               pa.bool_(): pd.BooleanDtype(), pa.string(): pd.StringDtype()}
    return mapping.get


def to_frame(games: Summary | Sequence[GameSummary], library: str = "pandas",
             ruleset: str = "default") -> Any:
    """A simulation's games (a ``Summary``, or a list of its games) as a pandas or polars
    data frame, one row per game and seat; a summary's own ruleset name is used."""
    if isinstance(games, Sequence):
        return frame(arrow_table(rows(games, ruleset)), library)
    return frame(arrow_table(rows(games.games, games.ruleset)), library)


def write_games(path: str, table: Sequence[dict[str, Any]],
                games_json: Sequence[dict[str, Any]]) -> None:
    """``--out``: Parquet for ``.parquet``, CSV rows for ``.csv``, else one JSON line per game
    (``games_json``, the format kept from before)."""
    from pathlib import Path

    target = Path(path)
    try:
        if target.suffix == ".parquet":
            write_parquet(target, table)
        elif target.suffix == ".csv":
            write_csv(target, table)
        else:
            target.write_text("".join(json.dumps(g) + "\n" for g in games_json), "utf-8")
    except OSError as exc:
        raise OutputError(f"cannot write {path!r}: {exc}") from exc
