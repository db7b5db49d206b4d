"""Stepping through a recorded game: forward, backward or to any decision.

The record is replayed (checked against its recorded chance) and the position after every
decision kept, with the game log the replay produced (``Game.entries``) and where each
decision's entries begin (``Game.entry_starts``): the log panel and the battle panel of a step
are those entries. A replay looks back at a game whose record names every decision, so its log
is shown whole (face-down cards by name). Positions are shared-structure copies, so even a long
game is cheap to hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from ..game import Game
from ..record import replay
from ..rules.config import Config
from ..rules.errors import FormatError
from ..rules.gamelog import Entry
from ..rules.state import GameState
from . import i18n
from .battle_view import battle_text, last_battle
from .render import LogEntry, board_view, log_line, seat_name
from .savefile import SAVE_FORMAT, SeatPlan
from .screen import Screen

LOG_SHOWN = 10


@dataclass(slots=True)
class Frames:
    """The position before the first decision and after each one, with who did what."""

    states: list[GameState]
    seats: list[int]
    actions: list[str]
    plan: SeatPlan
    entries: list[Entry]  # the whole game log of the replay
    starts: list[int]  # starts[j]: index in ``entries`` of the first entry of decision j + 1

    def end(self, k: int) -> int:
        """The index after the last entry of step ``k`` (step 0: the setup's entries)."""
        return self.starts[k] if k < len(self.starts) else len(self.entries)


def unwrap(data: Any) -> tuple[Mapping[str, Any], tuple[str, ...] | None]:
    """A game record, from a record file or a saved game; the saved seats if any."""
    if isinstance(data, Mapping) and data.get("format") == SAVE_FORMAT:
        record = data.get("record")
        seats = data.get("seats")
        if not isinstance(record, Mapping):
            raise FormatError("the saved game holds no game record")
        if isinstance(seats, list) and all(isinstance(s, str) for s in seats):
            return record, tuple(str(s) for s in seats)
        return record, None
    return data, None


def frames(record: Mapping[str, Any], seats: tuple[str, ...] | None, lang: str) -> Frames:
    finished = replay(record, use_seed=True)  # checks the record first (ReplayError)
    game = Game.new(Config.from_json(record["config"]), int(record["seed"]))
    states = [game.state]
    for step in finished.steps:
        game.play(step.action, step.seat)
        states.append(game.state)
    plan = SeatPlan(seats if seats is not None else ("-",) * game.config.players, lang)
    return Frames(states, [s.seat for s in finished.steps], [s.action for s in finished.steps],
                  plan, game.entries, game.entry_starts)


def step_line(f: Frames, k: int) -> str:
    """``step k: P2 (Kimbria): move T1 T2 sword``; step 0 is the start."""
    lang = f.plan.lang
    if k == 0:
        return i18n.text(lang, "replay_start")
    who = seat_name(f.states[k], f.plan, lang, f.seats[k - 1])
    return i18n.text(lang, "replay_step", k=k, who=who, action=f.actions[k - 1])


def listing(f: Frames) -> list[str]:
    return [step_line(f, k) for k in range(1, len(f.states))]


def battle_at(f: Frames, k: int) -> list[Text]:
    """The battle step ``k`` took part in (declared, fought or ended it), as far as it got."""
    if k == 0:
        return []
    span = last_battle(f.entries, f.end(k))
    state = f.states[k]
    if span is None or (span[1] <= f.starts[k - 1] and state.battle is None):
        return []
    start, end = span
    return [battle_text(f.entries[start:end], state, f.plan, f.plan.lang,
                        open_=state.battle is not None)]


def log_at(f: Frames, k: int, last: int = LOG_SHOWN) -> list[LogEntry]:
    """The last lines of the log up to the end of step ``k``."""
    end = f.end(k)
    return [log_line(e, f.states[k], f.plan.lang) for e in f.entries[max(0, end - last):end]]


def screen_at(f: Frames, k: int, width: int = 0) -> RenderableType:
    """What the step-through view shows above its prompt for step ``k``."""
    return board_view(f.states[k], f.plan, f.plan.lang, None, log_at(f, k), battle_at(f, k),
                      width)


def view(f: Frames, screen: Screen) -> int:
    """Interactive: n/Enter next, p previous, a number jumps there, q quits."""
    try:
        return _view(f, screen)
    finally:
        screen.close()  # the terminal as it was (keys are read in cbreak mode)


def _view(f: Frames, screen: Screen) -> int:
    lang = f.plan.lang
    last = len(f.states) - 1
    k = 0
    message = ""
    while True:
        screen.clear()
        screen.show(screen_at(f, k, screen.width))
        screen.say(step_line(f, k), "bold")
        if message:
            screen.say(message, "yellow")
            message = ""
        answer = screen.ask(i18n.text(lang, "replay_prompt", k=k, n=last))
        if answer is None:
            return 0
        word = answer.strip().lower()
        if word in ("q", "quit", "exit"):
            return 0
        if word in ("", "n", "next"):
            k = min(last, k + 1)
        elif word in ("p", "prev", "previous", "b", "back"):
            k = max(0, k - 1)
        elif word.isascii() and word.isdigit() and int(word) <= last:
            k = int(word)
        else:
            message = i18n.text(lang, "replay_bad", n=last)
