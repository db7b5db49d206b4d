"""Bots by short code, with parameters: ``random``, ``greedy``, ``mcts:iterations=400,c=0.5``."""

from __future__ import annotations

import importlib
import importlib.util
import random
from collections.abc import Callable, Sequence

from ..rules.actions import Action
from ..rules.errors import ConfigError, KaladanError
from .base import Bot, SeatView
from .random_bot import RandomBot

_FACTORIES: dict[str, Callable[[dict[str, str]], Bot]] = {
    "random": lambda params: RandomBot(),
    "greedy": lambda params: _greedy_bot(),
    "mcts": lambda params: _mcts_bot(params),
    "ppo": lambda params: _ppo_bot(params),
}


# The searching bots (and the exact odds they use) are imported when first asked for, so a
# simulation of random bots starts without them.
def _greedy_bot() -> Bot:
    from .greedy import GreedyBot

    return GreedyBot()


def _mcts_bot(params: dict[str, str]) -> Bot:
    from .mcts import MctsBot, MctsParams

    return MctsBot(MctsParams.parse(params))


def _ppo_bot(params: dict[str, str]) -> Bot:
    """``ppo:path=FILE.zip``: imported only when asked for, so torch loads only then."""
    if not params.get("path"):
        raise ConfigError("the ppo bot needs a policy: ppo:path=FILE.zip "
                          "(trained with bench/train_ppo.py)")
    try:
        # By name, so the type checker (and the compiled build, which type-checks what it
        # imports) does not follow into torch.
        ppo = importlib.import_module("kaladan.bots.ppo")
    except ImportError as exc:
        raise ConfigError(f"the ppo bot needs torch and sb3-contrib: install kaladan[train] "
                          f"({exc})") from exc
    bot: Bot = ppo.from_params(params)
    return bot


def bot_codes() -> list[str]:
    return sorted(_FACTORIES)


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
    """Build a bot from ``code[:key=value,...]`` or ``path/to/file.py:ClassName``."""
    if ".py:" in spec:
        return load_bot_file(spec.strip())
    name, _, param_text = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, param_text.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"bad bot parameter {item!r} in {spec!r}: expected key=value")
        params[key.strip()] = value.strip()
    factory = _FACTORIES.get(name.lower())
    if factory is None:
        raise ConfigError(f"unknown bot {name!r}: available bots are {', '.join(bot_codes())}")
    if params and name.lower() in ("random", "greedy"):
        raise ConfigError(f"the {name.lower()} bot takes no parameters, got {param_text!r}")
    return factory(params)


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
