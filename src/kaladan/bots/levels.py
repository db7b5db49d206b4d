"""Levels for people: five named strengths, weakest first, each playing one bot spec.

The table is data (``data/levels.json``, with the figures it was picked from), so the league
(``bench/ladder.py``) can move a level to another bot without touching code. A level's name
is accepted wherever a bot code is (``kaladan play --seats human,adept``,
``make_bot("master")``, a server's seat); it takes no parameters. The middle level is the
default opponent.

This module only reads the table; ``registry`` builds a level's bot and checks that it can
play a game (the expert bot needs a network for the player count).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..rules.errors import ConfigError

FILE = "data/levels.json"
# os.path, not pathlib or importlib.resources: every command loads the registry, and so this.
_PATH = os.path.join(os.path.dirname(__file__), "data", "levels.json")
_NAME = re.compile(r"^[a-z]+$")


@dataclass(frozen=True, slots=True)
class Level:
    name: str  # a lowercase word, never a bot code
    bot: str  # the bot spec it plays
    rank: int  # 1 for the weakest


def parse_levels(data: Any, where: str = FILE) -> tuple[Level, ...]:
    """The levels of a table as ``levels.json`` holds it; ConfigError naming the mistake."""
    rows = data.get("levels") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ConfigError(f"{where}: 'levels' must be a non-empty list")
    out: list[Level] = []
    for i, row in enumerate(rows):
        name = row.get("name") if isinstance(row, dict) else None
        bot = row.get("bot") if isinstance(row, dict) else None
        if not isinstance(name, str) or not _NAME.match(name):
            raise ConfigError(f"{where}: level {i + 1} needs a name of lowercase letters, "
                              f"not {name!r}")
        if not isinstance(bot, str) or not bot.strip():
            raise ConfigError(f"{where}: level {name!r} needs a bot spec")
        if any(level.name == name for level in out):
            raise ConfigError(f"{where}: level {name!r} is listed twice")
        out.append(Level(name, bot.strip(), i + 1))
    names = {level.name for level in out}
    for level in out:  # a level plays a bot, never another level (no chains, no loops)
        if level.bot.partition(":")[0].strip().lower() in names:
            raise ConfigError(f"{where}: level {level.name!r} plays {level.bot!r}, which is "
                              "a level: name a bot spec")
    return tuple(out)


@cache
def levels() -> tuple[Level, ...]:
    """The shipped levels, weakest first (read once)."""
    with open(_PATH, encoding="utf-8") as file:
        return parse_levels(json.load(file))


def level_names() -> list[str]:
    return [level.name for level in levels()]


def find_level(name: str) -> Level | None:
    """The level called ``name`` (any case), or None."""
    wanted = name.strip().lower()
    return next((level for level in levels() if level.name == wanted), None)


def default_level() -> Level:
    """The middle level (the upper middle of an even count): the default opponent."""
    table = levels()
    return table[len(table) // 2]


def strongest() -> Level:
    return levels()[-1]


def resolve(spec: str) -> str:
    """The bot spec a seat of ``spec`` plays: a level's bot, any other spec unchanged."""
    found = find_level(spec) if ":" not in spec else None
    return spec.strip() if found is None else found.bot
