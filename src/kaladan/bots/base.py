"""The Bot protocol and the seat view a bot decides from."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

from ..rules.actions import Action, format_action
from ..rules.chance import Chance
from ..rules.config import Config
from ..rules.observe import Observation, observe
from ..rules.state import GameState
from ..rules.world import World


class SeatView:
    """What one seat may see: its observation (R5.13) and helpers to name actions.

    The true state stays private; bots must decide from ``observation`` only.
    """

    __slots__ = ("seat", "_state", "__dict__")

    def __init__(self, state: GameState, seat: int) -> None:
        self.seat = seat
        self._state = state

    @cached_property
    def observation(self) -> Observation:
        return observe(self._state, self.seat)

    def determinize(self, rng: random.Random) -> GameState:
        """A complete state consistent with this seat's observation, for search (MCTS).

        What the seat cannot know is drawn at random: the cards in each opponent's hand and
        realm pool (counts kept; a card an opponent revealed or committed in this battle stays
        in its hand), the order of the event deck (the end-game card stays among the bottom
        nine, R5.10, and under ``end_game_card=random`` which of the four it is), and every
        future die. ``observe(result, seat)`` equals this seat's observation.
        """
        state = self._state.copy()
        state.chance = Chance(rng.getrandbits(63))
        me = state.team[self.seat]
        battle = state.battle
        selected = {} if battle is None else {
            battle.holders.get(leader, leader): card for leader, card in battle.cards.items()}
        for seat in range(state.n):
            if state.team[seat] == me:
                continue  # own and allies' cards are known (R23.5)
            fixed = [c for c in state.hand[seat] if selected.get(seat) == c][:1]
            # Sorted before shuffling: the draw must depend on the observation only, not on
            # where the hidden cards really are.
            cards = sorted(state.hand[seat] + state.pool[seat])
            for card in fixed:
                cards.remove(card)
            rng.shuffle(cards)
            free = len(state.hand[seat]) - len(fixed)
            state.hand[seat] = sorted(fixed + cards[:free])
            state.pool[seat] = sorted(cards[free:])
        deck = state.deck  # the last element is the top
        end = state.end_card if state.end_card in deck else None
        others = sorted(c for c in deck if c != end)
        rng.shuffle(others)
        if end is not None:
            if state.config.end_game_card == "random":
                end = ("EG1", "EG2", "EG3", "EG4")[rng.randrange(4)]
                state.end_card = end
            window = min(9, len(deck))
            others.insert(rng.randrange(window), end)  # among the bottom nine
        state.deck = others
        state.invalidate()
        return state

    @property
    def board(self) -> Sequence[Sequence[int]]:
        """The units on each tile as unit codes (public, R5.13): the same facts as the
        observation's ``board``, without building text, for bots that decide often."""
        return self._state.board

    @property
    def fortified(self) -> Sequence[bool]:
        """Whether each tile is fortified (public)."""
        return self._state.fortified

    @property
    def team(self) -> Sequence[int]:
        """The team of each seat (public: the seat itself in free-for-all, R23.1)."""
        return self._state.team

    @property
    def scales(self) -> bool:
        """Whether Scales of Equality is in force (public)."""
        return self._state.scales

    @property
    def world(self) -> World:
        """The map (public: R5.13)."""
        return self._state.world

    @property
    def config(self) -> Config:
        """The game's configuration and ruleset options (public)."""
        return self._state.config

    def format(self, action: Action) -> str:
        return format_action(action, self._state)


class Bot(Protocol):
    name: str

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        """Pick one of ``legal`` (never empty)."""
        ...
