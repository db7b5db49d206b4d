"""A bot decision in a worker process (the server's search pool, ``server.botpool``).

Kept apart from the server package so a worker imports the engine and the bots only, not the
web stack, and starts in a fraction of a second.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import random
from typing import Protocol, runtime_checkable

from ..rules.actions import GIFT, Action
from ..rules.legal import legal_actions
from ..rules.state import GameState
from .base import Bot, SeatView
from .registry import make_bot

_bots: dict[str, Bot] = {}  # per worker process: one bot object per spec


@runtime_checkable
class Capped(Protocol):
    """A searching bot (mcts, expert, the levels playing them): a hard limit on its seconds
    per decision, whatever its own budget."""

    max_seconds: float | None


def lower_priority() -> None:
    """Searches take only the CPU nothing else wants: people's requests and quick bots wake
    up ahead of them (SCHED_IDLE where the system has it, else the highest nice value)."""
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        with contextlib.suppress(OSError):
            if os.sched_getscheduler(0) != idle:
                os.sched_setscheduler(0, idle, os.sched_param(0))
            return
    with contextlib.suppress(OSError):
        os.nice(19 - os.nice(0))


def think(spec: str, state_bytes: bytes, seat: int, seed: int, cap: float,
          gifts: bool = True) -> Action:
    """The bot's choice for ``seat`` (one of ``legal_actions(state)``, a gift only with
    ``gifts``: advice is about the decision); a search stops after ``cap`` seconds whatever
    its parameters."""
    lower_priority()
    state: GameState = pickle.loads(state_bytes)
    bot = _bots.get(spec)
    if bot is None:
        bot = _bots[spec] = make_bot(spec)
    if isinstance(bot, Capped):
        bot.max_seconds = cap
    legal = legal_actions(state)
    if not gifts:
        legal = [a for a in legal if a.kind != GIFT]
    action = bot.choose(SeatView(state, seat), legal, random.Random(seed))
    return action if action in legal else legal[0]
