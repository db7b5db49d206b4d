"""Who decides each decision of a simulated game, and the loop that plays it out.

Compiled with the engine (setup.py's ALSO_COMPILED): this loop runs once per decision, so
in interpreted Python its calls (the bot, the seat view, the clock) cost a tenth of what the
compiled engine spends deciding what is legal and applying it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Final

from ..bots.base import Bot, SeatView
from ..bots.random_bot import RandomBot
from ..rules.actions import REALM, Action
from ..rules.apply import apply_unchecked
from ..rules.legal import legal_actions
from ..rules.state import Decision, GameState, Phase
from ..rules.units import SWORD, type_of

# perf_counter, not process_time: a CPU clock is a system call, which would cost a random
# bot several times its own thinking. Held here: the compiled loop then calls it without
# looking it up in ``time`` twice a decision.
_CLOCK: Final = time.perf_counter


class Seats:
    """Who decides each decision of one game: the design's realm for a realm decision, a
    seeded deal for the rest of setup when quick setup was asked with fixed realms, otherwise
    the seat's bot (timed, from its seat's view only)."""

    def __init__(self, bots: list[Bot], seed: int, realms: Sequence[str] | None,
                 deal: bool) -> None:
        self.bots = bots
        self.rngs = [random.Random(seed * 7 + seat) for seat in range(len(bots))]
        self.think = [0.0] * len(bots)  # seconds each seat's bot spent choosing
        self.realms = realms
        self.deal = random.Random(f"kaladan-setup-{seed}") if deal else None

    def choose(self, state: GameState, legal: Sequence[Action]) -> Action:
        seat = state.pending.seat
        realms = self.realms
        if realms is not None and state.phase == Phase.SETUP:
            kind = state.pending.kind
            if kind == Decision.REALM:  # R5.5: the design's realm for this seat
                wanted = realms[seat]
                for action in legal:
                    if action.kind == REALM and action.name == wanted:
                        return action
                raise ValueError(f"realm {wanted!r} is not on offer to seat {seat}")
            if self.deal is not None:  # quick setup's deal: a random card and spot, a Sword
                if kind == Decision.START_UNIT:
                    swords = [a for a in legal if type_of(a.units[0]) == SWORD]
                    if swords:
                        return swords[0]
                return legal[self.deal.randrange(len(legal))]
        bot = self.bots[seat]
        if type(bot) is RandomBot:
            # What RandomBot.choose does, called natively when compiled (a Bot is a
            # Protocol, called by method name with its arguments parsed: 300 instructions,
            # 1.5% of a random player's decision in simulate, callgrind) and without the
            # seat's view, which the random bot never looks at.
            start = _CLOCK()
            action = RandomBot.pick(legal, self.rngs[seat])
        else:
            view = SeatView(state, seat)
            start = _CLOCK()
            action = bot.choose(view, legal, self.rngs[seat])
        self.think[seat] += _CLOCK() - start
        return action


def play_out(state: GameState, seats: Seats, setup_only: bool = False) -> None:
    """Play ``state`` on, in place, until the game is over (``setup_only``: until setup is
    over, or the game)."""
    while not state.is_over:
        if setup_only and state.phase != Phase.SETUP:
            return
        apply_unchecked(state, seats.choose(state, legal_actions(state)))
