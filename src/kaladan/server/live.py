"""A game held in memory by the server: the engine's Game plus what the views need.

Besides the Game the server keeps, per game, the log of applied decisions (private ones are
shown as hidden to other teams, ``kaladan.public_log``) and the last battle's dice
(``kaladan.battle_report``).
Both are derived from the decision log alone, so a game rebuilt by replay has the same ones.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..battle_report import BattleReport, battle_report
from ..bots.base import Bot
from ..game import Game, Step
from ..public_log import action_kind, is_private
from ..rules.actions import parse_action
from ..rules.state import GameState

QUICK_BOTS = frozenset({"random", "greedy"})


@dataclass(slots=True)
class LogEntry:
    """One applied decision as the log shows it; its JSON (for readers who may and may not see
    its cards) is made once, by ``views.log_item``."""

    version: int  # the game's version after this decision
    seat: int
    text: str
    private: bool = field(init=False)  # names a card only the seat's team may read
    json_cache: dict[bool, tuple[dict[str, Any], str]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.private = is_private(self.text)
        self.json_cache = {}

    @property
    def kind(self) -> str:
        return action_kind(self.text)


@dataclass(slots=True)
class LastBattle:
    """The game's latest battle whose dice rolled, and the units each seat has lost in it so
    far (R16.13-R16.25): a loser may choose casualties in later decisions."""

    report: BattleReport
    losses: dict[int, int]
    over: bool

    def follow(self, state: GameState) -> None:
        """Update the losses after a later decision of the same battle."""
        self.losses = self.report.losses(state)
        self.over = state.battle is None or not state.battle.attack_rolls

    def to_json(self, names: tuple[str, ...] | list[str]) -> dict[str, Any]:
        report = self.report
        attack, defence, dropped = report.pairs()
        hits_a, hits_d = report.hits
        return {
            "attacker": report.attacker, "defender": report.defender,
            "attacking_tile": names[report.a_tile], "defended_tile": names[report.d_tile],
            "attack_dice": [f"d{d}" for d in report.attack_dice],
            "defence_dice": [f"d{d}" for d in report.defence_dice],
            "attack_rolls": attack,
            "defence_rolls": sorted(report.defence_rolls, reverse=True),
            "pairs": [list(pair) for pair in report.paired()],
            "dropped": [] if dropped is None else [dropped],
            "hits": {"attacker": hits_a, "defender": hits_d},
            "losses": {str(seat): n for seat, n in sorted(self.losses.items())},
            "over": self.over,
        }


@dataclass(slots=True)
class SeatInfo:
    """One seat of a game as stored: a human (join code, then token) or a bot."""

    kind: str  # "human" | "bot"
    bot: str | None = None
    code_hash: str | None = None
    token_hash: str | None = None

    @property
    def joined(self) -> bool:
        return self.kind == "bot" or self.token_hash is not None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "bot": self.bot, "code_hash": self.code_hash,
                "token_hash": self.token_hash}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatInfo:
        return cls(str(data["kind"]), data.get("bot"), data.get("code_hash"),
                   data.get("token_hash"))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A consistent (version, state, last battle) for views; states are never changed in
    place, so a view can be built while the next decision is being applied."""

    version: int
    state: GameState
    battle: dict[str, Any] | None = None


@dataclass(slots=True)
class CachedView:
    """One seat's view at one version, shared by every request and connection of that seat;
    its JSON text is made once, when first sent, from the log entries' own JSON texts."""

    version: int
    view: dict[str, Any]
    log_texts: list[str]  # the JSON of each item of ``view["log"]``
    text: str | None = None

    def json_text(self) -> str:
        if self.text is None:
            rest = {key: value for key, value in self.view.items() if key != "log"}
            self.text = (dumps(rest)[:-1] + ',"log":[' + ",".join(self.log_texts) + "]}")
        return self.text


def dumps(value: Any) -> str:
    """Compact JSON text, as sent to clients."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


@dataclass(eq=False)
class LiveGame:
    game_id: str
    name: str
    created: datetime
    game: Game
    seats: list[SeatInfo]
    bots: list[Bot | None]
    log: list[LogEntry] = field(default_factory=list)
    battle: LastBattle | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set[asyncio.Event] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    snapshot: Snapshot | None = None
    view_cache: dict[int | None, CachedView] = field(default_factory=dict)
    recent_errors: deque[str] = field(default_factory=lambda: deque(maxlen=20))

    def __post_init__(self) -> None:
        self.snapshot = Snapshot(len(self.game.steps), self.game.state)

    @property
    def quick_bots(self) -> bool:
        """Every bot of the game decides in well under a millisecond (no search)."""
        return all(s.bot is None or s.bot.partition(":")[0] in QUICK_BOTS for s in self.seats)

    def forget_views(self) -> None:
        """Seats joined: the cached views' status is out of date."""
        self.view_cache.clear()

    @property
    def version(self) -> int:
        assert self.snapshot is not None
        return self.snapshot.version

    @property
    def status(self) -> str:
        if self.game.is_over:
            return "over"
        return "running" if all(s.joined for s in self.seats) else "open"

    def record(self, before: GameState, step: Step) -> None:
        """Note an applied step: its log entry, battle dice and losses. Views see it only
        after ``publish``."""
        self.log.append(LogEntry(len(self.log) + 1, step.seat, step.action))
        state = self.game.state
        if self.battle is not None and not self.battle.over:
            self.battle.follow(state)
        if not step.chance:  # no die was rolled
            return
        report = battle_report(before, parse_action(step.action, before))
        if report is not None:
            self.battle = LastBattle(report, report.losses(state), state.battle is None)

    def publish(self) -> None:
        """Let views show the recorded steps (once they are stored)."""
        state = self.game.state
        battle = None if self.battle is None else self.battle.to_json(state.world.names)
        self.snapshot = Snapshot(len(self.game.steps), state, battle)

    def bot_rng(self, seat: int) -> random.Random:
        """A bot's generator for this decision: a function of the game's seed, seat and
        version, so a restarted server's bots decide exactly as before."""
        return random.Random((self.game.seed * 1_000_003 + len(self.game.steps)) * 8 + seat)
