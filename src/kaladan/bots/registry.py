"""Bots by short code, with parameters: ``random``, later ``greedy``, ``mcts:iterations=400``."""

from __future__ import annotations

from collections.abc import Callable

from ..rules.errors import ConfigError
from .base import Bot
from .random_bot import RandomBot

_FACTORIES: dict[str, Callable[[dict[str, str]], Bot]] = {
    "random": lambda params: RandomBot(),
}


def bot_codes() -> list[str]:
    return sorted(_FACTORIES)


def make_bot(spec: str) -> Bot:
    """Build a bot from ``code[:key=value,...]``."""
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
    if params and name.lower() == "random":
        raise ConfigError(f"the random bot takes no parameters, got {param_text!r}")
    return factory(params)


def parse_bot_list(text: str) -> list[str]:
    specs = [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        raise ConfigError("no bots given: use e.g. --players random,random")
    for spec in specs:
        make_bot(spec)
    return specs
