"""Advice on request (issue 15): what the greedy bot would decide for a seat, and for an
attack its exact odds.

The bot decides from the seat's view (``SeatView``: the seat's observation, R5.13) and the
seat's own legal actions, with a generator seeded from public facts only (the game's id, the
version and the seat), so a hint tells nothing the seat could not know: two games that look
the same to the seat give the same hint, whatever the other hands, the deck or the seed.
"""

from __future__ import annotations

import random

from ..bots.base import SeatView
from ..bots.greedy import GreedyBot
from ..rules.actions import GIFT, Action
from ..rules.legal import legal_actions
from ..rules.state import GameState

_ADVISER = GreedyBot()  # keeps nothing between decisions


def advice(state: GameState, seat: int, salt: str) -> Action:
    """The greedy bot's choice for ``seat``'s pending decision (gifts aside: a hint is about
    the decision), from the seat's view only; ``salt`` (public) seeds its tie-breaks."""
    legal = [a for a in legal_actions(state) if a.kind != GIFT]
    choice = _ADVISER.choose(SeatView(state, seat), legal, random.Random(salt))
    return choice if choice in legal else legal[0]
