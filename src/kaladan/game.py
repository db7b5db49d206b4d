"""The Game facade: a state plus its history of decisions and chance outcomes.

``Game.play`` is the checked way to act: it parses text, checks the seat and legality, applies
the action to a copy and only then replaces the state, so a rejected action (or forced dice
that do not fit) changes nothing. Every step is kept for the game record, and every log entry
the engine reported (``rules.gamelog``) for ``Game.log``: what each seat may read of the game.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .rules.actions import GIFT, Action
from .rules.apply import apply
from .rules.config import Config
from .rules.errors import InvalidActionError
from .rules.gamelog import Entry, visible
from .rules.kinds import format_action, parse_action
from .rules.legal import gifts, legal_actions
from .rules.notation import position_from_json, position_to_json
from .rules.observe import Observation, observe
from .rules.setup import new_game
from .rules.state import GameState


def is_gift(text: str) -> bool:
    """A gift's text, read as ``parse_action`` reads it (any case and spacing): the one
    action a player may take out of turn (R23.11). Whether it is allowed is ``play``'s call."""
    words = text.split(None, 1)
    return bool(words) and words[0].lower() == GIFT


@dataclass(frozen=True, slots=True)
class Step:
    """One applied decision: who, what (canonical text) and the chance it caused."""

    seat: int
    action: str
    chance: tuple[int, ...] = ()


@dataclass(slots=True)
class Game:
    config: Config
    seed: int
    state: GameState
    setup_chance: tuple[int, ...] = ()
    steps: list[Step] = field(default_factory=list)
    # Every entry of the game log so far, hidden ones included (``log`` filters them).
    entries: list[Entry] = field(default_factory=list)
    # entry_starts[k]: index in ``entries`` of the first entry of step k (its decision).
    entry_starts: list[int] = field(default_factory=list)

    @classmethod
    def new(cls, config: Config, seed: int) -> Game:
        entries: list[Entry] = []
        state = new_game(config, seed, entries)
        return cls(config, seed, state, tuple(state.chance.take_log()), entries=entries)

    @classmethod
    def from_position(cls, data: dict[str, Any], seed: int = 0) -> Game:
        state = position_from_json(data)
        return cls(state.config, seed, state)

    def legal_actions(self) -> list[Action]:
        return list(legal_actions(self.state))

    def gifts(self, seat: int) -> list[Action]:
        """The gifts ``seat`` may make now, whoever holds the decision (R23.11)."""
        return gifts(self.state, seat)

    def legal_texts(self) -> list[str]:
        return [format_action(a, self.state) for a in legal_actions(self.state)]

    def parse(self, text: str) -> Action:
        return parse_action(text, self.state)

    def format(self, action: Action) -> str:
        return format_action(action, self.state)

    def play(self, action: Action | str, seat: int | None = None,
             dice: Iterable[int] = (), *, in_place: bool = False) -> list[Entry]:
        """Apply one decision, checked, and return the log entries it caused (all of them:
        filter with ``rules.gamelog.visible`` before showing them to a seat). ``dice``
        forces the next chance outcomes. The step itself is ``steps[-1]``.

        ``seat`` is the acting seat: the pending one, or any player of a team giving gold
        (R23.11: a gift at any moment leaves the pending decision where it is).

        The state before the decision stays as it was (``state`` becomes a new object),
        unless ``in_place`` (no ``dice``): then ``state`` itself changes, sparing a copy,
        for a caller who holds no other reference to it. A refused action leaves it
        unchanged either way (the engine checks before it changes anything)."""
        if isinstance(action, str):
            action = parse_action(action, self.state)
        acting = self.state.pending.seat
        if seat is not None and action.kind == GIFT:
            acting = seat
        if in_place:
            if dice:
                raise ValueError("forced dice need a copy of the state (in_place=False)")
            work = self.state
            text = self.format(action)  # before the state changes
        else:
            work = self.state.copy()
            work.chance.force(dice)
        caused: list[Entry] = []
        apply(work, action, seat, caused)
        if not in_place:
            text = self.format(action)
        if work.chance.forced:
            raise InvalidActionError(f"{len(work.chance.forced)} forced outcome(s) were not "
                                     f"used by {text!r}")
        step = Step(acting, text, tuple(work.chance.take_log()))
        self.state = work
        self.steps.append(step)
        self.entry_starts.append(len(self.entries))
        self.entries.extend(caused)
        return caused

    def log(self, seat: int | None, start: int = 0) -> list[Entry]:
        """The log entries ``seat`` may read (None: a spectator), from entry ``start`` on:
        other teams' secret cards left out (R5.13, R16.5, R23.5)."""
        return visible(self.entries[start:], self.state.team, seat)

    def observe(self, seat: int) -> Observation:
        return observe(self.state, seat)

    def position(self) -> dict[str, Any]:
        return position_to_json(self.state)

    @property
    def is_over(self) -> bool:
        return self.state.is_over
