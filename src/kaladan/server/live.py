"""A game held in memory by the server: the engine's Game plus what the views need.

The log the views show is the engine's (``live.game.entries``, ``rules.gamelog``): each entry
goes to clients as JSON, made once per entry and per form a reader may see
(``gamelog.visible``), when first needed. The log lives in the Game, so a game rebuilt by
replaying its stored decisions has the same log.
"""

from __future__ import annotations

import asyncio
import json
import random
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..bots.base import Bot
from ..game import Game
from ..rules.gamelog import Entry
from ..rules.state import GameState
from .clocks import Clock, wall_clock
from .decision_random import DecisionRandom
from .entry_text import entry_head

# No search: not in worker processes (a level counts as the bot it plays).
QUICK_BOTS = frozenset({"random", "greedy", "careless", "ppo"})


@dataclass(slots=True)
class SeatInfo:
    """One seat of a game as stored: a human (join code, then token) or a bot. A joined
    seat holds a code again while its player hands it over to another device
    (``GameService.hand_over``); ``moved`` keeps the hashes of the tokens it ended, so an
    old device hears that the seat moved rather than that its token is unknown."""

    kind: str  # "human" | "bot"
    bot: str | None = None
    code_hash: str | None = None
    token_hash: str | None = None
    account: str | None = None  # the signed-in player's account id (server/accounts.py)
    name: str | None = None  # that player's name ("deleted player" once deleted)
    moved: tuple[str, ...] = ()  # hashes of the tokens ended by hand-overs, newest last

    @property
    def joined(self) -> bool:
        return self.kind == "bot" or self.token_hash is not None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "bot": self.bot, "code_hash": self.code_hash,
                "token_hash": self.token_hash}
        if self.account is not None:  # guests' seats keep the stored form they always had
            data["account"] = self.account
            data["name"] = self.name
        if self.moved:  # only seats handed over carry it
            data["moved"] = list(self.moved)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatInfo:
        return cls(str(data["kind"]), data.get("bot"), data.get("code_hash"),
                   data.get("token_hash"), data.get("account"), data.get("name"),
                   tuple(str(h) for h in data.get("moved") or ()))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A consistent (version, state, log) for views. States are never changed in place and
    the game's entry lists only grow, so a view can be built while the next decision is
    being applied: it reads the first ``count`` entries of ``entries`` only."""

    version: int
    state: GameState
    entries: Sequence[Entry]  # the Game's list (shared, appended to by later decisions)
    starts: Sequence[int]  # the Game's ``entry_starts``: where each step's entries begin
    count: int  # how many entries are published

    def first_after(self, since: int) -> int:
        """The index of the first entry made after version ``since`` (step ``since``'s
        entries have version ``since + 1``; -1: the first entry of all)."""
        if since < 0:
            return 0
        return self.starts[since] if since < self.version else self.count


class ShownEntry:
    """One form of a log entry as it goes to clients: the JSON text of ``to_json()`` with its
    ``index`` in the game's log and its ``version`` (written by ``entry_text``), and that JSON
    as a dict (``data``, read back from the text when first asked: views send the text).
    Sentences are made by the browser from the engine's templates
    (static/data/log_texts.json), not sent."""

    __slots__ = ("text", "_data")

    def __init__(self, text: str) -> None:
        self.text = text
        self._data: dict[str, Any] | None = None

    @property
    def data(self) -> dict[str, Any]:
        data = self._data
        if data is None:
            data = self._data = json.loads(self.text)
        return data


@dataclass(frozen=True, slots=True)
class LoggedEntry:
    """One entry of the log as each reader sees it: per seat, then for spectators, the form
    ``gamelog.visible`` gives (None: the entry is left out). Readers who see the same form
    share one ``ShownEntry``."""

    version: int
    forms: tuple[ShownEntry | None, ...]

    def for_reader(self, seat: int | None) -> ShownEntry | None:
        return self.forms[-1 if seat is None else seat]


def entry_json(entry: Entry, index: int, version: int) -> ShownEntry:
    """The JSON of one entry form (docs/api.md "The log")."""
    return ShownEntry(f'{entry_head(entry)},"index":{index},"version":{version}}}')


def logged_entry(entry: Entry, index: int, version: int, teams: Sequence[int]) -> LoggedEntry:
    """The forms of ``entry`` for every seat and a spectator, as ``gamelog.visible`` gives
    them: a private entry as it is for its team, its redacted form (or nothing) for the
    other teams and spectators."""
    owner = entry.private_to
    if owner is None:  # public: one form for every reader (most entries)
        public = entry_json(entry, index, version)
        return LoggedEntry(version, (public,) * (len(teams) + 1))
    own = entry_json(entry, index, version)
    redacted = entry.redacted()
    other = None if redacted is None else entry_json(redacted, index, version)
    return LoggedEntry(version, (*(own if team == owner else other for team in teams), other))


class LogJson:
    """The JSON of one game's log entries, each made when a view first needs it (a rebuilt
    game's old entries only if someone reads them). Used on the event loop only."""

    def __init__(self) -> None:
        self.items: list[LoggedEntry | None] = []
        self.source: Sequence[Entry] | None = None

    def entry(self, snapshot: Snapshot, index: int) -> LoggedEntry:
        """Entry ``index`` (below ``snapshot.count``) of the snapshot's game."""
        if snapshot.entries is not self.source:  # another Game (rebuilt after a failure)
            self.items, self.source = [], snapshot.entries
        if index >= len(self.items):
            self.items.extend([None] * (snapshot.count - len(self.items)))
        item = self.items[index]
        if item is None:
            version = bisect_right(snapshot.starts, index, 0, snapshot.version)
            item = self.items[index] = logged_entry(snapshot.entries[index], index, version,
                                                    snapshot.state.team)
        return item


@dataclass(slots=True)
class CachedView:
    """One seat's view at one version, shared by every request and connection of that seat.
    ``view`` holds everything but the log; its JSON text is made once (with and without the
    world), and the log part of a message (the entries after some version) is put together
    from the entries' own JSON texts, once per ``since``."""

    snapshot: Snapshot
    view: dict[str, Any]
    # the JSON text of ``view`` without its closing brace, with the world (views with the
    # whole log) and without it (views that follow on)
    heads: dict[bool, str] = field(default_factory=dict)
    logs: dict[int, tuple[list[ShownEntry], str]] = field(default_factory=dict)

    @property
    def version(self) -> int:
        return self.snapshot.version


@dataclass(eq=False)
class LiveGame:
    game_id: str
    name: str
    created: datetime
    game: Game
    seats: list[SeatInfo]
    bots: list[Bot | None]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set[asyncio.Event] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    snapshot: Snapshot | None = None
    log_json: LogJson = field(default_factory=LogJson)
    view_cache: dict[int | None, CachedView] = field(default_factory=dict)
    recent_errors: deque[str] = field(default_factory=lambda: deque(maxlen=20))
    owner: str = ""  # hash of the creating client's address: its bots share its quota
    seed_public: bool = False  # the creator chose the seed (R3.1): every seat may know it
    hints: bool = False  # advice on request (hints.py), chosen when the game was created
    rated: bool = False  # only signed-in players sit at its human seats (ratings.py)
    open_seats: bool = False  # a signed-in player may take a free seat without its code
    # seats a bot took over after too many timeouts in a row: lost on time in a rated game
    # (kept equal to ``clock.taken``: a seat taken back is no longer lost, ``set_clock``)
    lost_on_time: set[int] = field(default_factory=set)
    # a timed game's clock as stored (clocks.py; None: untimed) and the bot that decides for
    # a seat whose time ran out and plays the seats taken over
    clock: Clock | None = None
    timeout_bot: Bot | None = None
    clock_now: Callable[[], float] = wall_clock  # the server's "now" (ServerSettings.clock)
    # storing the last decisions ended in doubt: read back before the next one
    # (``GameService._clear_doubt``)
    doubt: bool = False
    # several processes (cluster.py): this process's fencing token while it owns the game
    # (None: a copy following the owner); one process on its own never uses it
    lease: int | None = None
    # a finished game: when its last decision was stored (None: not over, or not known)
    finished: datetime | None = None
    # every seat has joined (asked at every bot decision): kept up to date by ``forget_views``
    all_joined: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.all_joined = all(s.joined for s in self.seats)
        self.publish()

    @property
    def idle(self) -> bool:
        """Nobody is connected, no bot is at work and nothing is being applied: the game
        may leave memory (it is stored; ``GameService.get`` brings it back)."""
        return (not self.listeners and not self.lock.locked()
                and (self.bot_task is None or self.bot_task.done()))

    def roll_back(self) -> None:
        """Back to the published snapshot, which is what storage holds (a decision that
        could not be stored is forgotten; nobody saw it). States are never changed in
        place and the log only grows, so cutting the lists back is enough."""
        snapshot = self.snapshot
        assert snapshot is not None
        game = self.game
        game.state = snapshot.state
        del game.steps[snapshot.version:]
        del game.entry_starts[snapshot.version:]
        del game.entries[snapshot.count:]

    def take(self, fresh: LiveGame) -> None:
        """Become ``fresh``, the same game rebuilt from storage (storage moved on behind
        this copy's back, ``GameService._read_back``); the object, its lock and its
        listeners stay, so connected clients follow on."""
        self.game, self.seats, self.bots = fresh.game, fresh.seats, fresh.bots
        self.timeout_bot = fresh.timeout_bot
        self.set_clock(fresh.clock)
        self.log_json = LogJson()
        self.forget_views()
        self.publish()

    def forget_views(self) -> None:
        """Seats joined: the cached views' status is out of date."""
        self.all_joined = all(s.joined for s in self.seats)
        self.view_cache.clear()

    def set_clock(self, clock: Clock | None) -> None:
        """The clock as stored now; the seats taken over are the seats lost on time."""
        self.clock = clock
        if clock is not None:
            self.lost_on_time = set(clock.taken)

    @property
    def humans(self) -> list[bool]:
        """Which seats are human seats (the clock runs for those only)."""
        return [s.kind == "human" for s in self.seats]

    def bot_of(self, seat: int) -> tuple[str, Bot] | None:
        """The bot that plays ``seat`` (its spec and the bot): the seat's own, or the timeout
        bot for a seat taken over; None for a seat its player plays."""
        bot = self.bots[seat]
        if bot is not None:
            return self.seats[seat].bot or "", bot
        clock = self.clock
        if clock is not None and seat in clock.taken and self.timeout_bot is not None:
            return clock.control.timeout_bot, self.timeout_bot
        return None

    @property
    def version(self) -> int:
        assert self.snapshot is not None
        return self.snapshot.version

    @property
    def over(self) -> bool:
        """The game is over in what is published. Decisions applied but not yet stored are
        nobody's to see (``publish``): until they are, the game is not over for clients,
        however far the bots have played."""
        assert self.snapshot is not None
        return self.snapshot.state.is_over

    @property
    def status(self) -> str:
        """As clients are told it: from the published snapshot, like every view."""
        if self.over:
            return "over"
        return "running" if self.all_joined else "open"

    def publish(self) -> None:
        """Let views show the decisions applied so far and their log entries (once they
        are stored)."""
        game = self.game
        self.snapshot = Snapshot(len(game.steps), game.state, game.entries, game.entry_starts,
                                 len(game.entries))

    def bot_rng(self, seat: int) -> random.Random:
        """A bot's generator for this decision: a function of the game's seed, seat and
        version, so a restarted server's bots decide exactly as before."""
        return DecisionRandom(self.bot_seed(seat))

    def bot_seed(self, seat: int) -> int:
        return (self.game.seed * 1_000_003 + len(self.game.steps)) * 8 + seat
