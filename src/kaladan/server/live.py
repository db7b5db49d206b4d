"""A game held in memory by the server: the engine's Game plus what the views need.

Besides the Game the server keeps, per game, the log of applied decisions (with the action
kind, so private ones can be shown as "committed" to other seats) and the last battle's dice.
Both are derived from the decision log alone, so a game rebuilt by replay has the same ones.
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..bots.base import Bot
from ..game import Game, Step
from ..rules.actions import (
    ATTACK,
    BUYCARD,
    CARD,
    EXTRACARD,
    MAGIC,
    SWAPCARD,
    VOLLEY,
    parse_action,
)
from ..rules.apply import apply
from ..rules.chance import Chance
from ..rules.combat import compare
from ..rules.state import Battle, GameState
from ..rules.world import Terrain

# Decisions whose card ids only the deciding seat (and its allies, R23.5) may see: the
# starting card (R5.7), a card selected face down (R16.5), cards taken from a pool (R11.12-14)
# or from an eliminated player (R18.6).
PRIVATE_KINDS = frozenset({CARD, MAGIC, SWAPCARD, EXTRACARD, BUYCARD})
QUICK_BOTS = frozenset({"random", "greedy"})


def hidden_text(kind: str) -> str:
    """What other seats read for a private decision."""
    return "magic committed" if kind == MAGIC else f"{kind} (hidden)"


@dataclass(frozen=True, slots=True)
class LogEntry:
    version: int  # the game's version after this decision
    seat: int
    text: str
    kind: str

    @property
    def private(self) -> bool:
        return self.kind in PRIVATE_KINDS and " " in self.text


@dataclass(slots=True)
class BattleRecord:
    """The dice of one battle and the units each seat lost in it (R16.13-R16.25)."""

    attacker: int
    defender: int
    a_tile: int
    d_tile: int
    attack_dice: list[int]
    defence_dice: list[int]
    attack_rolls: list[int]
    defence_rolls: list[int]
    drop_lowest: bool
    scales: bool
    before: dict[int, int]  # units per seat on both battle tiles when the dice were rolled
    losses: dict[int, int] = field(default_factory=dict)
    over: bool = False

    def update_losses(self, state: GameState) -> None:
        now = units_by_seat(state, (self.a_tile, self.d_tile))
        self.losses = {seat: n - now.get(seat, 0) for seat, n in self.before.items()}

    def pairs(self) -> tuple[list[list[int]], list[int]]:
        """Dice paired highest against highest, and the dropped lowest defence die."""
        defence = sorted(self.defence_rolls, reverse=True)
        dropped = [defence.pop()] if self.drop_lowest and defence else []
        attack = sorted(self.attack_rolls, reverse=True)
        return [[a, d] for a, d in zip(attack, defence, strict=False)], dropped

    def hits(self) -> tuple[int, int]:
        """Hits on (attacker, defender) by the dice alone, before R16.21 caps them."""
        return compare(self.attack_rolls, self.defence_rolls, self.drop_lowest, self.scales)

    def to_json(self, names: tuple[str, ...] | list[str]) -> dict[str, Any]:
        pairs, dropped = self.pairs()
        hits_a, hits_d = self.hits()
        return {
            "attacker": self.attacker, "defender": self.defender,
            "attacking_tile": names[self.a_tile], "defended_tile": names[self.d_tile],
            "attack_dice": [f"d{d}" for d in self.attack_dice],
            "defence_dice": [f"d{d}" for d in self.defence_dice],
            "attack_rolls": sorted(self.attack_rolls, reverse=True),
            "defence_rolls": sorted(self.defence_rolls, reverse=True),
            "pairs": pairs, "dropped": dropped,
            "hits": {"attacker": hits_a, "defender": hits_d},
            "losses": {str(seat): n for seat, n in sorted(self.losses.items())},
            "over": self.over,
        }


def units_by_seat(state: GameState, tiles: tuple[int, ...]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for t in tiles:
        for c in state.board[t]:
            counts[c >> 7] = counts.get(c >> 7, 0) + 1
    return counts


class _FightSpy(Chance):
    """Replays a step's recorded chance and remembers the battle whose dice are rolled: a
    battle can start, fight and end within one decision, leaving no trace in the state."""

    __slots__ = ("game_state", "seen", "before")

    def __init__(self, game_state: GameState, outcomes: tuple[int, ...]) -> None:
        super().__init__(0)
        self.force(outcomes)
        self.game_state = game_state
        self.seen: Battle | None = None
        self.before: dict[int, int] = {}

    def roll(self, sides: int) -> int:
        battle = self.game_state.battle
        if (self.seen is None and battle is not None and battle.attack_dice
                and not battle.attack_rolls):
            self.seen = battle
            self.before = units_by_seat(self.game_state, (battle.a_tile, battle.d_tile))
        return super().roll(sides)


def capture_fight(before: GameState, step: Step) -> BattleRecord | None:
    """The battle fought during ``step`` (applied to ``before``), or None."""
    fighting = before.battle is not None or step.action.split(" ", 1)[0] in (ATTACK, VOLLEY)
    if not step.chance or not fighting:
        return None
    work = before.copy()
    spy = _FightSpy(work, step.chance)
    work.chance = spy
    apply(work, parse_action(step.action, before), step.seat)
    battle = spy.seen
    if battle is None:
        return None
    drop = (before.config.mountain_defence == "drop_lowest"
            and before.world.terrain[battle.d_tile] == Terrain.MOUNTAIN)
    return BattleRecord(battle.attacker, battle.defender, battle.a_tile, battle.d_tile,
                        list(battle.attack_dice), list(battle.defence_dice),
                        list(battle.attack_rolls), list(battle.defence_rolls), drop,
                        work.scales, spy.before)


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


@dataclass(eq=False)
class LiveGame:
    game_id: str
    name: str
    created: datetime
    game: Game
    seats: list[SeatInfo]
    bots: list[Bot | None]
    log: list[LogEntry] = field(default_factory=list)
    battle: BattleRecord | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set[asyncio.Event] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    snapshot: Snapshot | None = None
    view_cache: dict[int | None, tuple[int, dict[str, Any]]] = field(default_factory=dict)
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
        version = len(self.log) + 1
        self.log.append(LogEntry(version, step.seat, step.action,
                                 step.action.split(" ", 1)[0]))
        state = self.game.state
        if self.battle is not None and not self.battle.over:
            self.battle.update_losses(state)
            self.battle.over = state.battle is None or not state.battle.attack_rolls
        fought = capture_fight(before, step)
        if fought is not None:
            fought.update_losses(state)
            fought.over = state.battle is None
            self.battle = fought

    def publish(self) -> None:
        """Let views show the recorded steps (once they are stored)."""
        state = self.game.state
        battle = None if self.battle is None else self.battle.to_json(state.world.names)
        self.snapshot = Snapshot(len(self.game.steps), state, battle)

    def bot_rng(self, seat: int) -> random.Random:
        """A bot's generator for this decision: a function of the game's seed, seat and
        version, so a restarted server's bots decide exactly as before."""
        return random.Random((self.game.seed * 1_000_003 + len(self.game.steps)) * 8 + seat)
