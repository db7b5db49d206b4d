"""A finished game told again: the state after every decision (the replay page) and each
player's figures round by round (the end screen's chart), made by replaying the game's steps
with the engine. Only public information leaves here: a replay shows the spectator's view.

Replaying is cheap (well under a millisecond a decision) but not free, so the histories of
the last few games asked for are kept (``HistoryCache``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..game import Game
from ..rules.gamelog import Entry, TurnStarted
from ..rules.scoring import score_parts
from ..rules.state import GameState

HISTORIES_KEPT = 8  # games whose histories stay in memory (a long game's is a few MB)


@dataclass(frozen=True, slots=True)
class RoundFigures:
    """Every seat's score (None once eliminated, R22.2; the team's in team mode, R23.34),
    gold and units on the board at one moment, with the version it was taken at."""

    round: int | None  # None: the end of the game
    version: int
    score: tuple[int | None, ...]
    gold: tuple[int, ...]
    units: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "version": self.version, "score": list(self.score),
                "gold": list(self.gold), "units": list(self.units)}


def figures(state: GameState, round_: int | None, version: int) -> RoundFigures:
    parts = score_parts(state)
    return RoundFigures(round_, version, tuple(None if p is None else p.total for p in parts),
                        tuple(state.gold), tuple(state.units_on_board(p) for p in range(state.n)))


def rounds_started(entries: Sequence[Entry], known: int) -> list[int]:
    """The rounds above ``known`` whose first turn starts among ``entries``."""
    return [e.round for e in entries if isinstance(e, TurnStarted) and e.round > known]


@dataclass(frozen=True, slots=True)
class History:
    """``states[v]``: the game after ``v`` decisions (``states[0]`` after the set-up);
    ``rounds``: each seat's figures when the first decision of each round is asked, then
    at the end of the game."""

    states: tuple[GameState, ...]
    rounds: tuple[RoundFigures, ...]

    @property
    def last(self) -> int:
        return len(self.states) - 1


def build_history(game: Game) -> History:
    """Replay ``game``'s steps from its seed, forcing each step's recorded chance (so the
    states are exactly the game's), and take the figures at every round's start."""
    again = Game.new(game.config, game.seed)
    states = [again.state]
    started = rounds_started(again.entries, 0)
    marks: list[tuple[int, int]] = [(r, 0) for r in started]  # (round, version)
    known = max(started, default=0)
    for step in game.steps:
        caused = again.play(step.action, step.seat, step.chance)
        states.append(again.state)
        for round_ in rounds_started(caused, known):
            marks.append((round_, len(states) - 1))
            known = round_
    rounds = [figures(states[version], round_, version) for round_, version in marks]
    rounds.append(figures(states[-1], None, len(states) - 1))
    return History(tuple(states), tuple(rounds))


class HistoryCache:
    """The histories of the last ``HISTORIES_KEPT`` games asked for (finished games only:
    their steps never change). Safe to use from several threads."""

    def __init__(self, kept: int = HISTORIES_KEPT) -> None:
        self.kept = kept
        self.items: OrderedDict[str, History] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, game_id: str) -> History | None:
        with self.lock:
            history = self.items.get(game_id)
            if history is not None:
                self.items.move_to_end(game_id)
            return history

    def put(self, game_id: str, history: History) -> None:
        with self.lock:
            self.items[game_id] = history
            self.items.move_to_end(game_id)
            while len(self.items) > self.kept:
                self.items.popitem(last=False)
