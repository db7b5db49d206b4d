"""Saved terminal games: the game record plus who sits where and the language.

A save is the game record of ``kaladan.record`` (seed and every decision, which replays to the
identical position) wrapped with the seat setup, so ``--load`` restores exactly. Bots keep no
memory between decisions that matters here: each decision's random source is derived from the
seed, the seat and the decision number (``bot_rng``), so a loaded game plays on as it would have.

Saves go to the ``saves`` folder of the user data directory (``platformdirs``, as the
server's database: ``~/.local/share/kaladan/saves`` on Linux) unless a path with a folder in
it is given, so a game never leaves a file in the directory it was started from.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from ..bots.registry import make_bot
from ..game import Game
from ..record import dumps, replay, to_record
from ..rules.errors import FormatError, KaladanError
from .i18n import LANGS

SAVE_FORMAT = "kaladan-save"
SAVE_VERSION = 1
HUMAN = "human"


class SetupError(KaladanError):
    """A seat list or language that cannot be played (unknown bot, wrong number of seats)."""


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Who plays each seat (``human`` or a bot spec) and the interface language."""

    seats: tuple[str, ...]
    lang: str = "en"

    def humans(self) -> list[int]:
        return [s for s, spec in enumerate(self.seats) if spec == HUMAN]

    def is_human(self, seat: int) -> bool:
        return self.seats[seat] == HUMAN


def parse_seats(text: str, lang: str = "en") -> SeatPlan:
    """``human,greedy,mcts:time=1`` -> a checked plan. A bot's parameters may hold commas
    (``mcts:time=1,iterations=50``): a part with ``=`` but no ``:`` continues the previous seat."""
    parts = [p.strip() for p in text.split(",")]
    seats: list[str] = []
    for part in parts:
        if not part:
            continue
        if "=" in part and ":" not in part and seats and ":" in seats[-1]:
            seats[-1] += "," + part
        else:
            seats.append(part)
    return make_plan(seats, lang)


def make_plan(seats: Sequence[str], lang: str) -> SeatPlan:
    if lang not in LANGS:
        raise SetupError(f"unknown language {lang!r}: choose one of {', '.join(LANGS)}")
    if not seats:
        raise SetupError("no seats given: use e.g. --seats human,greedy")
    out: list[str] = []
    for spec in seats:
        if spec.lower() in (HUMAN, "h"):
            out.append(HUMAN)
            continue
        make_bot(spec)  # raises ConfigError naming the unknown bot or bad parameter
        out.append(spec)
    return SeatPlan(tuple(out), lang)


def bot_rng(seed: int, seat: int, decision: int) -> random.Random:
    """The random source of a bot's decision: fixed by the game's seed, the seat and the number
    of decisions made so far, so a loaded game continues exactly as an unbroken one."""
    return random.Random(f"kaladan-bot:{seed}:{seat}:{decision}")


def save_dir() -> Path:
    """Where saves go by default: ``saves`` in the user data directory."""
    return Path(platformdirs.user_data_dir("kaladan")) / "saves"


def new_autosave(now: float | None = None) -> Path:
    """A fresh autosave file for a new session, named after the time it started (never the
    seed, which the screen keeps secret): ``.../saves/game-20250101-120000.json``."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    folder = save_dir()
    path = folder / f"game-{stamp}.json"
    k = 2
    while path.exists():
        path = folder / f"game-{stamp}-{k}.json"
        k += 1
    return path


def save_path(name: str | Path) -> Path:
    """Where ``save NAME`` writes: a bare file name into the saves folder, a path with a
    folder in it (``./game.json``, ``/tmp/game.json``, ``~/game.json``) where it says."""
    text = str(name)
    if os.sep in text or (os.altsep and os.altsep in text) or text.startswith("~"):
        return Path(text).expanduser()
    return save_dir() / text


def find_save(name: str | Path) -> Path:
    """The file ``--load NAME`` means: the path as given when it exists, else a save of that
    name in the saves folder."""
    given = Path(name).expanduser()
    if given.exists():
        return given
    saved = save_path(name)
    return saved if saved.exists() else given


def save_data(game: Game, plan: SeatPlan) -> dict[str, Any]:
    return {"format": SAVE_FORMAT, "version": SAVE_VERSION, "seats": list(plan.seats),
            "lang": plan.lang, "record": to_record(game)}


def write_save(path: str | Path, game: Game, plan: SeatPlan) -> None:
    """Write the save file atomically (a half-written save never replaces a good one)."""
    data = save_data(game, plan)
    record_text = dumps(data["record"]).rstrip("\n").replace("\n", "\n ")
    head = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items()
                      if k != "record")
    text = "{\n" + head + f',\n "record": {record_text}\n}}\n'
    target = Path(path)
    if target.parent == save_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(target.name + ".tmp")
    temp.write_text(text, "utf-8")
    os.replace(temp, target)


def read_save(path: str | Path) -> tuple[Game, SeatPlan]:
    """Load a save (or a bare game record, whose seats then must be given) and replay it."""
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FormatError(f"cannot read saved game {str(path)!r}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise FormatError(f"{str(path)!r} is not a kaladan saved game (format must be "
                          f"{SAVE_FORMAT!r})")
    if data.get("version") != SAVE_VERSION:
        raise FormatError(f"{str(path)!r}: unsupported save version {data.get('version')!r}")
    seats = data.get("seats")
    lang = data.get("lang", "en")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise FormatError(f"{str(path)!r}: 'seats' must be a list of texts")
    if not isinstance(lang, str):
        raise FormatError(f"{str(path)!r}: 'lang' must be a text")
    record = data.get("record")
    if not isinstance(record, dict):
        raise FormatError(f"{str(path)!r}: 'record' must be a game record object")
    game = replay(record, use_seed=True)
    plan = make_plan(seats, lang)
    check_plan(plan, game.config.players)
    return game, plan


def check_plan(plan: SeatPlan, players: int) -> None:
    if len(plan.seats) != players:
        raise SetupError(f"the game has {players} players but {len(plan.seats)} seats are "
                         f"given ({', '.join(plan.seats)})")
