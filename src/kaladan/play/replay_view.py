"""Stepping through a recorded game: forward, backward or to any decision.

The record is replayed once (checked against its recorded chance) and the position after every
decision kept; positions are shared-structure copies, so even a long game is cheap to hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from ..battle_report import battle_report
from ..game import Game
from ..record import replay
from ..rules.actions import parse_action
from ..rules.config import Config
from ..rules.errors import FormatError
from ..rules.state import GameState
from . import i18n
from .render import LogEntry, board_view, roll_text, seat_name
from .savefile import SAVE_FORMAT, SeatPlan
from .screen import Screen
from .style import realm_style


@dataclass(slots=True)
class Frames:
    """The position before the first decision and after each one, with who did what."""

    states: list[GameState]
    seats: list[int]
    actions: list[str]
    plan: SeatPlan


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
                  plan)


def step_line(f: Frames, k: int) -> str:
    """``step k: seat 1 (Kimbria): move T1 T2 sword``; step 0 is the start."""
    lang = f.plan.lang
    if k == 0:
        return i18n.text(lang, "replay_start")
    who = seat_name(f.states[k], f.plan, lang, f.seats[k - 1])
    return i18n.text(lang, "replay_step", k=k, who=who, action=f.actions[k - 1])


def listing(f: Frames) -> list[str]:
    return [step_line(f, k) for k in range(1, len(f.states))]


def _battle(f: Frames, k: int) -> list[Text]:
    if k == 0:
        return []
    before, after = f.states[k - 1], f.states[k]
    roll = battle_report(before, parse_action(f.actions[k - 1], before))
    out: list[Text] = []
    if roll is not None:
        out.append(roll_text(roll, after, f.plan, f.plan.lang))
    return out


def _log(f: Frames, k: int) -> list[LogEntry]:
    return [LogEntry(step_line(f, j), realm_style(f.states[j].realm[f.seats[j - 1]]))
            for j in range(max(1, k - 11), k + 1)]


def view(f: Frames, screen: Screen) -> int:
    """Interactive: n/Enter next, p previous, a number jumps there, q quits."""
    lang = f.plan.lang
    last = len(f.states) - 1
    k = 0
    message = ""
    while True:
        screen.clear()
        state = f.states[k]
        screen.show(board_view(state, f.plan, lang, None, _log(f, k), _battle(f, k),
                               screen.width))
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
        elif word.isdigit() and int(word) <= last:
            k = int(word)
        else:
            message = i18n.text(lang, "replay_bad", n=last)
