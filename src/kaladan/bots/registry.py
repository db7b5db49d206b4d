"""Bots by short code, with parameters: ``random``, ``greedy``, ``mcts:iterations=400,c=0.5``.

A level's name (``adept``, ``levels``) stands for the bot spec it plays. The built-in bots
are listed here; others register themselves as ``kaladan.bots`` entry
points (pyproject.toml): a name and a factory taking the parameters, loaded only when the
name is asked for. Kaladan's own ``ppo`` bot (``kaladan.env.policy``) and ``expert`` bot
(``kaladan.expert``, whose network reads the environments' observation vector) are two, so
that this package never imports the research environments above it.
"""

from __future__ import annotations

import importlib
import importlib.util
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..rules.actions import Action
from ..rules.config import Config
from ..rules.errors import ConfigError, KaladanError
from .base import Bot, SeatView
from .levels import find_level, level_names, levels
from .random_bot import RandomBot

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

Factory = Callable[[dict[str, str]], Bot]
_FACTORIES: dict[str, Factory] = {
    "random": lambda params: RandomBot(),
    "greedy": lambda params: _greedy_bot(),
    "careless": lambda params: _careless_bot(params),
    "mcts": lambda params: _mcts_bot(params),
}
PLUGIN_GROUP = "kaladan.bots"


# The searching bots (and the exact odds they use) are imported when first asked for, so a
# simulation of random bots starts without them.
def _greedy_bot() -> Bot:
    from .greedy import GreedyBot

    return GreedyBot()


def _careless_bot(params: dict[str, str]) -> Bot:
    from .careless import careless_bot

    return careless_bot(params)


def _mcts_bot(params: dict[str, str]) -> Bot:
    from .mcts import MctsBot, MctsParams

    return MctsBot(MctsParams.parse(params))


def _plugins() -> dict[str, EntryPoint]:
    """The bots other packages (and kaladan's own ``ppo``) register as entry points (read
    when a code is not built in: ``importlib.metadata`` brings zipfile, csv and pathlib,
    which a simulation of built-in bots does not load)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=PLUGIN_GROUP)}


def _plugin(name: str, params: dict[str, str]) -> Bot:
    """A registered bot: its factory is imported only now (the ``ppo`` bot's brings torch)."""
    entry = _plugins()[name]
    try:
        factory: Factory = entry.load()
    except ImportError as exc:
        needs = ("; the ppo bot needs torch and sb3-contrib: install kaladan[train]"
                 if name == "ppo" else "")
        raise ConfigError(f"the {name} bot cannot be loaded ({entry.value}): {exc}{needs}"
                          ) from exc
    return factory(params)


def bot_codes() -> list[str]:
    """Every bot code: the built-in ones and the registered ones."""
    return sorted({*_FACTORIES, *_plugins()})


def load_bot_file(spec: str) -> Bot:
    """A custom bot from a Python file: ``path/to/file.py:ClassName`` (see docs/bots.md)."""
    from pathlib import Path  # not at the top: every command loads this module

    path_text, _, class_name = spec.partition(".py:")
    path = Path(path_text + ".py")
    if not path.is_file():
        raise ConfigError(f"bot file {str(path)!r} not found (in {spec!r})")
    module_spec = importlib.util.spec_from_file_location(f"kaladan_bot_{path.stem}", path)
    if module_spec is None or module_spec.loader is None:
        raise ConfigError(f"cannot load bot file {str(path)!r}")
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:  # the file is the user's code: report, do not crash
        raise ConfigError(f"bot file {str(path)!r} failed to load: {exc!r}") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ConfigError(f"bot file {str(path)!r} has no class {class_name!r}")
    bot = cls()
    if not callable(getattr(bot, "choose", None)):
        raise ConfigError(f"{class_name} in {str(path)!r} has no choose(view, legal, rng)")
    return CheckedBot(bot, spec)


class CheckedBot:
    """A bot from outside the project: its answers are checked before the engine applies
    them, and its failures become clear errors instead of tracebacks."""

    def __init__(self, bot: Bot, spec: str) -> None:
        self.bot = bot
        self.spec = spec
        self.name = getattr(bot, "name", spec)

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        try:
            action = self.bot.choose(view, legal, rng)
        except Exception as exc:
            raise KaladanError(f"bot {self.spec!r} failed: {exc!r}") from exc
        if action not in legal:
            raise KaladanError(f"bot {self.spec!r} chose {action!r}, which is not legal now")
        return action


def make_bot(spec: str) -> Bot:
    """Build a bot from ``code[:key=value,...]``, a level's name or
    ``path/to/file.py:ClassName``."""
    if ".py:" in spec:
        return load_bot_file(spec.strip())
    name, _, param_text = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, param_text.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"bad bot parameter {item!r} in {spec!r}: expected key=value")
        params[key.strip()] = value.strip()
    code = name.lower()
    factory = _FACTORIES.get(code)
    if factory is None:
        level = find_level(code)
        if level is not None:
            if param_text.strip():
                raise ConfigError(f"the level {level.name} takes no parameters (it plays "
                                  f"{level.bot}; name a bot to tune it), got {param_text!r}")
            return make_bot(level.bot)
        if code in _plugins():
            return _plugin(code, params)
        raise ConfigError(f"unknown bot {name!r}: available bots are {', '.join(bot_codes())}"
                          f"; levels are {', '.join(level_names())}")
    if params and code in ("random", "greedy"):
        raise ConfigError(f"the {code} bot takes no parameters, got {param_text!r}")
    return factory(params)


def check_config(spec: str, config: Config) -> None:
    """Refuse, before a game of ``config`` starts, a bot that cannot play it (ConfigError
    saying why): a bot with a ``check_config`` method says why (the expert bot: no shipped
    network serves ``config``); for a level playing such a bot the message names the
    strongest level that can."""
    try:
        _check(spec, config)
    except ConfigError as exc:
        level = find_level(spec) if ":" not in spec else None
        if level is None:
            raise
        able = [other.name for other in levels() if other.rank < level.rank
                and _serves(other.bot, config)]
        advice = f"choose {able[-1]} or a weaker level" if able else "choose another bot"
        raise ConfigError(f"the {level.name} level ({level.bot}) cannot play this game: "
                          f"{exc}; {advice}") from exc


def check_bots(config: Config, specs: Sequence[str]) -> None:
    """Refuse, before any game starts, a bot of ``specs`` that cannot play ``config``
    (``check_config``)."""
    for spec in specs:
        check_config(spec, config)


def _check(spec: str, config: Config) -> None:
    bot = make_bot(spec)
    check: Callable[[Config], None] | None = getattr(bot, "check_config", None)
    if check is not None:
        check(config)


def _serves(spec: str, config: Config) -> bool:
    try:
        _check(spec, config)
    except ConfigError:
        return False
    return True


def split_bot_list(text: str) -> list[str]:
    """Split ``greedy,mcts:iterations=400,c=0.5,random`` into one spec per seat: a piece
    that is only ``key=value`` continues the parameters of the spec before it."""
    specs: list[str] = []
    for piece in (s.strip() for s in text.split(",")):
        if not piece:
            continue
        name, eq, _ = piece.partition("=")
        if eq and ":" not in name and specs and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def parse_bot_list(text: str) -> list[str]:
    specs = split_bot_list(text)
    if not specs:
        raise ConfigError("no bots given: use e.g. --players random,random")
    for spec in specs:
        make_bot(spec)
    return specs
