"""Advice on request (issues 15 and 44): what the strongest bot would decide for a seat, and
for an attack its exact odds.

The adviser is the bot of the strongest level (``bots/data/levels.json``: the expert bot)
with a budget of iterations rather than seconds, so that its answer depends on what it is
shown and not on the machine's speed; where no value network serves the game (``adviser``),
the greedy bot. The server asks it in the search pool (``botpool``) with a cap of
``ServerSettings.hint_seconds``: a search the cap cuts short (a loaded machine) advises what
it found by then.

The bot decides from the seat's view (``SeatView``: the seat's observation, R5.13) and the
seat's own legal actions, with a generator seeded from public facts only (the game's id, the
version and the seat: ``seed_of``) and no memory of earlier searches (``reuse=0``), so a
hint tells nothing the seat could not know: two games that look the same to the seat give
the same hint, whatever the other hands, the deck or the seed.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from collections import OrderedDict

from ..bots.base import Bot, SeatView
from ..bots.registry import check_config, make_bot
from ..rules.actions import GIFT, Action
from ..rules.config import Config
from ..rules.errors import KaladanError
from ..rules.legal import legal_actions
from ..rules.state import GameState
from .botpool import BotPool

log = logging.getLogger("kaladan.server")
GREEDY = "greedy"
_advisers: dict[str, Bot] = {}  # by spec; none keeps anything between decisions


def adviser(config: Config, iterations: int) -> str:
    """The spec of the bot that advises in games of ``config``: the expert bot searching
    ``iterations`` times, or greedy where no value network serves ``config``."""
    spec = f"expert:iterations={iterations},reuse=0"
    try:
        check_config(spec, config)
    except KaladanError:
        return GREEDY
    return spec


def seed_of(salt: str) -> int:
    """The adviser's seed: a function of ``salt`` (public facts) only."""
    return int.from_bytes(hashlib.sha256(salt.encode()).digest()[:8], "big") >> 1


def advice(state: GameState, seat: int, salt: str, spec: str = GREEDY) -> Action:
    """The choice of the bot ``spec`` for ``seat``'s pending decision (gifts aside: a hint is
    about the decision), from the seat's view only; ``salt`` (public) seeds it. Here, on the
    caller's thread and without a time cap: the search pool runs the same (``worker.think``)."""
    legal = [a for a in legal_actions(state) if a.kind != GIFT]
    bot = _advisers.get(spec)
    if bot is None:
        bot = _advisers[spec] = make_bot(spec)
    choice = bot.choose(SeatView(state, seat), legal, random.Random(seed_of(salt)))
    return choice if choice in legal else legal[0]


class Advisor:
    """The server's advice: searched in the pool (``botpool``) off the event loop, and
    remembered per game, version and seat (asking again costs nothing, answers the same)."""

    MEMO = 512  # answers kept, the oldest forgotten first

    def __init__(self, pool: BotPool, iterations: int, seconds: float) -> None:
        self.pool = pool
        self.iterations = iterations
        self.seconds = seconds
        self._memo: OrderedDict[tuple[str, int, int], tuple[Action, str]] = OrderedDict()

    async def ask(self, game_id: str, version: int, state: GameState, seat: int,
                  client: str) -> tuple[Action, str]:
        """The advice for ``seat`` in the published ``state`` of ``version`` (never changed:
        a new decision makes a new state) and the kind of bot that gave it; ``client``
        waits in the pool's line like its games' bots."""
        key = (game_id, version, seat)
        known = self._memo.get(key)
        if known is not None:
            return known
        salt = f"{game_id}:{version}:{seat}"
        spec = await asyncio.to_thread(adviser, state.config, self.iterations)
        action: Action | None = None
        if spec != GREEDY:
            try:
                action = await self.pool.choose(client, spec, state, seat, seed_of(salt),
                                                cap=self.seconds, gifts=False)
            except Exception:  # a broken pool or a failing search: greedy's advice instead
                log.exception("the %s adviser failed in game %s", spec, game_id)
                spec = GREEDY
        if action is None:
            action = await asyncio.to_thread(advice, state, seat, salt, GREEDY)
        answer = self._memo[key] = (action, spec.partition(":")[0])
        while len(self._memo) > self.MEMO:
            self._memo.popitem(last=False)
        return answer
