"""Time controls (docs/server.md "Time controls", docs/rules-decisions.md D-clocks): a game's
clock, as a value computed from the decisions stored and the time they were stored at.

The clock runs for the seat that must decide (``state.pending.seat``) when it is a human seat
no bot has taken over, once every human seat has joined and until the game ends. Two kinds:

* ``live``: every decision gets ``decision`` seconds; time beyond that is taken from the
  seat's ``reserve`` (per seat, for the whole game). Both spent: the seat times out.
* ``turn``: a seat's turn begins when it becomes the pending seat and lasts until another
  seat is; its decisions in that turn share ``turn`` seconds.

Gifts (R23.11) leave the pending decision where it is and never touch a clock. A seat that
times out has its decision made by the game's timeout bot, that once; after
``takeover_after`` timeouts in a row the bot plays the seat until its player takes it back.

Times are epoch seconds (floats) from one injectable clock (``ServerSettings.clock``); the
state is stored as JSON in ``games.clock`` with the earliest running deadline in the
indexed ``games.deadline``, in the transaction of the steps that changed it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..game import is_gift
from ..rules.state import GameState

KINDS = ("live", "turn")
DEFAULT_BOT = "greedy"
DEFAULT_TAKEOVER = 3
# Bounds of a time control (seconds): a decision of at least a second, a turn of at most a
# month; at most 100 timeouts in a row before a takeover.
MIN_SECONDS = 1.0
MAX_SECONDS = 31 * 86400.0
MAX_TAKEOVER = 100

Now = Callable[[], float]


class TimeControlError(ValueError):
    """A time control a client asked for that is not one (the route answers 400)."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """What the creator chose: public (the game's summary shows it)."""

    kind: str  # "live" | "turn"
    decision: float = 0.0  # live: seconds per decision
    reserve: float = 0.0  # live: seconds per seat for the whole game beyond ``decision``
    turn: float = 0.0  # turn: seconds per turn
    timeout_bot: str = DEFAULT_BOT  # decides for a seat whose time ran out
    takeover_after: int = DEFAULT_TAKEOVER  # timeouts in a row before the bot keeps the seat

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.kind == "live":
            data.update(decision=self.decision, reserve=self.reserve)
        else:
            data["turn"] = self.turn
        data.update(timeout_bot=self.timeout_bot, takeover_after=self.takeover_after)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        """A time control from a client's body or storage; ``TimeControlError`` says what is
        wrong. ``timeout_bot`` is checked by the caller (the server's bot registry)."""
        if not isinstance(data, Mapping):
            raise TimeControlError("time_control must be an object")
        kind = data.get("kind")
        if kind not in KINDS:
            raise TimeControlError(f"time_control.kind must be 'live' or 'turn', not {kind!r}")
        allowed = {"kind", "timeout_bot", "takeover_after",
                   *(("decision", "reserve") if kind == "live" else ("turn",))}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise TimeControlError(f"time_control of kind {kind!r} takes no {', '.join(unknown)}"
                                   f" (it takes {', '.join(sorted(allowed))})")

        def seconds(name: str, default: float | None, least: float) -> float:
            value = data.get(name, default)
            if value is None:
                raise TimeControlError(f"time_control of kind {kind!r} needs {name!r} (seconds)")
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not least <= value <= MAX_SECONDS:
                raise TimeControlError(f"time_control.{name} must be a number of seconds from "
                                       f"{least:g} to {MAX_SECONDS:g}, not {value!r}")
            return float(value)

        bot = data.get("timeout_bot", DEFAULT_BOT)
        if not isinstance(bot, str) or not bot.strip():
            raise TimeControlError(f"time_control.timeout_bot must be a bot code, not {bot!r}")
        after = data.get("takeover_after", DEFAULT_TAKEOVER)
        if isinstance(after, bool) or not isinstance(after, int) \
                or not 1 <= after <= MAX_TAKEOVER:
            raise TimeControlError(f"time_control.takeover_after must be a whole number from 1 "
                                   f"to {MAX_TAKEOVER}, not {after!r}")
        if kind == "live":
            return cls("live", decision=seconds("decision", None, MIN_SECONDS),
                       reserve=seconds("reserve", 0.0, 0.0), timeout_bot=bot.strip(),
                       takeover_after=after)
        return cls("turn", turn=seconds("turn", None, MIN_SECONDS), timeout_bot=bot.strip(),
                   takeover_after=after)

    def allowance(self, reserve: float) -> float:
        """The seconds a seat with ``reserve`` left has from the start of a decision (live)
        or of a turn (turn) until it times out."""
        return self.decision + reserve if self.kind == "live" else self.turn


@dataclass(frozen=True, slots=True)
class Clock:
    """A game's clock after its stored steps: a value (every change makes a new one, so a
    decision that could not be stored leaves the published clock as it was)."""

    control: TimeControl
    reserve: tuple[float, ...]  # live: each seat's reserve left when its clock last stopped
    timeouts: tuple[int, ...]  # each seat's timeouts in a row
    taken: frozenset[int] = frozenset()  # seats the timeout bot plays (taken over)
    running: int | None = None  # the seat whose clock runs
    started: float | None = None  # when its decision (live) or turn (turn) began
    # step indices decided by the timeout bot on a seat's timeout, with the seat
    timed_out: tuple[tuple[int, int], ...] = field(default_factory=tuple)

    @classmethod
    def new(cls, control: TimeControl, players: int) -> Clock:
        return cls(control, (control.reserve,) * players, (0,) * players)

    @property
    def deadline(self) -> float | None:
        """When the running seat times out (epoch seconds); None when no clock runs."""
        if self.running is None or self.started is None:
            return None
        return self.started + self.control.allowance(self.reserve[self.running])

    def remaining(self, seat: int, now: float) -> float:
        """Seconds ``seat`` has before it times out: the running seat's until its deadline,
        the others' as they would have at their next decision (turn)."""
        deadline = self.deadline
        if seat == self.running and deadline is not None:
            return max(0.0, deadline - now)
        return self.control.allowance(self.reserve[seat])

    def reserve_left(self, seat: int, now: float) -> float:
        """The reserve of ``seat`` now (live): the running seat's drains once its decision
        time is spent."""
        reserve = self.reserve[seat]
        if seat == self.running and self.started is not None:
            over = now - self.started - self.control.decision
            reserve = max(0.0, reserve - max(0.0, over))
        return reserve

    def runs_for(self, state: GameState, humans: Sequence[bool], all_joined: bool) -> int | None:
        """The seat whose clock runs in ``state``: the pending seat when it is a human seat
        not taken over, every human seat has joined and the game is not over."""
        if state.is_over or not all_joined:
            return None
        seat = state.pending.seat
        if 0 <= seat < len(humans) and humans[seat] and seat not in self.taken:
            return seat
        return None

    def restart(self, state: GameState, humans: Sequence[bool], all_joined: bool,
                now: float) -> Clock:
        """The clock as it runs from ``now`` for whoever must decide in ``state`` (a new
        decision or turn)."""
        seat = self.runs_for(state, humans, all_joined)
        return replace(self, running=seat, started=None if seat is None else now)

    def after_steps(self, state: GameState, steps: Sequence[tuple[int, str]], first: int,
                    humans: Sequence[bool], all_joined: bool, now: float,
                    timed_out: int | None = None) -> Clock:
        """The clock once ``steps`` ((seat, action text), numbered from ``first``) are applied
        at ``now``, leading to ``state``. The running seat's decisions stop its clock: its
        reserve pays the time beyond its decision time (live), a decision made in time
        resets its timeouts in a row. ``timed_out``: the first step is the timeout bot's
        decision for that seat (it counts as a timeout; a takeover after
        ``takeover_after`` of them in a row)."""
        control = self.control
        reserve, timeouts = list(self.reserve), list(self.timeouts)
        taken, marks = set(self.taken), list(self.timed_out)
        if all(is_gift(text) for _, text in steps):
            return self  # R23.11: the decision stays pending; no clock changes
        kept_turn = self.running is not None  # turn: every decision was the running seat's
        charged = False  # the running seat's first decision stopped its clock
        for seat, text in steps:
            if is_gift(text):
                continue
            if seat != self.running:
                kept_turn = False
                continue
            first_decision, charged = not charged, True
            if first_decision and timed_out == seat:
                reserve[seat] = 0.0 if control.kind == "live" else reserve[seat]
                timeouts[seat] += 1
                marks.append((first, seat))
                if timeouts[seat] >= control.takeover_after:
                    taken.add(seat)
                kept_turn = False  # the clock restarts for the next decision-maker
                continue
            if first_decision and self.started is not None and control.kind == "live":
                spent = now - self.started - control.decision
                reserve[seat] = max(0.0, reserve[seat] - max(0.0, spent))
            timeouts[seat] = 0
        clock = replace(self, reserve=tuple(reserve), timeouts=tuple(timeouts),
                        taken=frozenset(taken), timed_out=tuple(marks))
        runs = clock.runs_for(state, humans, all_joined)
        if control.kind == "turn" and kept_turn and runs == self.running:
            return clock  # the same turn goes on: its deadline stays
        return replace(clock, running=runs, started=None if runs is None else now)

    def take_back(self, seat: int, state: GameState, humans: Sequence[bool],
                  all_joined: bool, now: float) -> Clock:
        """The player of ``seat`` takes it back from the timeout bot: its timeouts in a row
        start again from zero, and its clock runs from ``now`` if it is to decide."""
        timeouts = list(self.timeouts)
        timeouts[seat] = 0
        clock = replace(self, taken=self.taken - {seat}, timeouts=tuple(timeouts))
        if clock.running is None:
            return clock.restart(state, humans, all_joined, now)
        return clock

    def to_json(self) -> dict[str, Any]:
        return {"control": self.control.to_json(), "reserve": list(self.reserve),
                "timeouts": list(self.timeouts), "taken": sorted(self.taken),
                "running": self.running, "started": self.started,
                "timed_out": [list(m) for m in self.timed_out]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Clock:
        """A stored clock; ValueError, TypeError or KeyError when it is not one."""
        running, started = data.get("running"), data.get("started")
        return cls(TimeControl.from_json(data["control"]),
                   tuple(float(r) for r in data["reserve"]),
                   tuple(int(t) for t in data["timeouts"]),
                   frozenset(int(s) for s in data.get("taken", ())),
                   None if running is None else int(running),
                   None if started is None else float(started),
                   tuple((int(i), int(s)) for i, s in data.get("timed_out", ())))

    def view(self, now: float, players: int) -> dict[str, Any]:
        """The ``clock`` of every view (docs/api.md)."""
        deadline = self.deadline
        live = self.control.kind == "live"
        return {
            "kind": self.control.kind, "control": self.control.to_json(),
            "deadline": None if deadline is None else moment(deadline),
            "seats": [{"seat": s, "remaining": round(self.remaining(s, now), 3),
                       "running": s == self.running,
                       "reserve": round(self.reserve_left(s, now), 3) if live else None,
                       "timeouts": self.timeouts[s], "taken_over": s in self.taken}
                      for s in range(players)],
            "timed_out": [{"version": index + 1, "seat": seat, "bot": self.control.timeout_bot}
                          for index, seat in self.timed_out],
        }


def moment(epoch: float) -> str:
    """An epoch time as ISO 8601 UTC text."""
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def stored_deadline(clock: Clock | None) -> datetime | None:
    """The value of ``games.deadline``: the running deadline as an aware UTC time."""
    deadline = None if clock is None else clock.deadline
    return None if deadline is None else datetime.fromtimestamp(deadline, UTC)


class FileClock:
    """``kaladan serve --test-clock FILE`` (tests only): "now" is the number of epoch
    seconds written in FILE, read again at every call, so a test moves time by rewriting
    the file and a restarted server reads the same time. A file being rewritten (empty or
    half written) gives the time read last."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.last = 0.0
        self()

    def __call__(self) -> float:
        with suppress(OSError, ValueError):
            self.last = float(self.path.read_text().strip())
        return self.last


def wall_clock() -> float:
    return time.time()
