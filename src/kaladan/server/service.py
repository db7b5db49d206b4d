"""The game service: live games in memory, one asyncio lock per game, bots on their own.

Every change is made while the game's lock is held: the engine checks the decision against
what the client was shown (the published snapshot) and applies it in memory, on the event loop
(microseconds); the step is stored by the storage's own thread (committed together with the
steps other games are storing at that moment, ``storage.StepWriter``), and only then do views
move on. When the database refuses, the game goes back to its published (= stored) state and
the client hears 503 "nothing changed"; bots try again with a growing pause. Random bots
decide on the event loop too; the other quick bots (greedy, ppo) on worker threads; searching
bots in worker processes (``botpool``), never holding the game's lock while they think.

Why so few threads: a worker thread per decision ran on the other core, and the hand-offs
and the game's objects moving between the cores' caches cost more than the work itself
(bench/bench_server.py, docs/server.md).

Games are loaded when first asked for (start-up does not grow with the number of stored
games), kept in memory up to ``ServerSettings.live_games`` (finished and idle games leave
first) and set aside (quarantined) when their stored rows cannot be rebuilt.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError

from ..bots.base import Bot, SeatView
from ..bots.levels import find_level, level_names, resolve
from ..bots.registry import bot_codes, check_config, make_bot
from ..game import Game, is_gift
from ..record import ReplayError
from ..rules.actions import Action
from ..rules.config import MODES, OPTIONS, Config, Mode, seat_teams
from ..rules.errors import IllegalActionError, InvalidActionError, KaladanError
from ..rules.legal import legal_actions
from ..rules.state import GameState
from ..rules.world import World
from .botpool import BotPool
from .chat import Chat
from .clocks import Clock, TimeControl, TimeControlError, stored_deadline, wall_clock
from .errors import SESSION_CHALLENGE, ApiError
from .hints import Advisor
from .history import History, HistoryCache, build_history
from .leases import LeaseLost, NotOwner
from .live import QUICK_BOTS, LiveGame, SeatInfo
from .rates import AddressRate, PerAddress
from .rating_store import record_finished
from .settings import ServerSettings
from .storage import (
    CommitUnknown,
    DamagedGame,
    StepWriter,
    StorageError,
    Store,
    StoredClock,
    StoredGame,
)

if TYPE_CHECKING:
    from ..env.policy import PpoBot
    from .accounts import Account
    from .cluster import Cluster
    from .shared_limits import SharedLimits

log = logging.getLogger("kaladan.server")

MAX_SEED = (1 << 63) - 1
GAME_ID_LENGTH = 40
HUMAN = "human"
# The largest bot parameters a client may ask for; every search is also stopped after
# ``ServerSettings.bot_seconds`` whatever its parameters (botpool).
BOT_LIMITS = {"time": 10.0, "iterations": 20_000, "horizon": 200, "width": 50}
FILE_PARAMETERS = frozenset({"net", "path"})  # bot parameters that name a file on the server
BOT_BURST = 100  # quick bot decisions per worker call when bots do not pause
INSTANT_BOTS = frozenset({"random"})  # decide in microseconds: on the event loop
RETRY_MAX = 30.0  # seconds: the longest pause of a bot waiting for storage to come back
LOCAL = "local"  # the client address of calls made without one (tests, tools)
PPO = "ppo"  # the seat kind of the operator's trained policy (``ServerSettings.ppo_policy``)
UNKNOWN_CODE = "storage_unavailable"
UNKNOWN_OUTCOME = ("the database failed while storing the decision and cannot tell yet "
                   "whether it was stored; the game is read back from storage before the "
                   "next decision: look at the game again, then decide")
NO_POLICY = "this server offers no ppo policy (its operator starts it with --ppo-policy FILE)"
TIMEOUT_BOTS = ("greedy", "random")  # decide for a seat whose time ran out: at once
CLOCK_SCAN = 1.0  # seconds between two looks for due games in storage (``_clock_timer``)
MOVED_KEPT = 8  # ended tokens a seat remembers (an old device is told the seat moved)
TEST_CLOCK_POLL = 0.05  # seconds between two looks at an injected (test) clock


class BotUnavailable(KaladanError):
    """A stored game's bot seat this server cannot play now (a ppo seat, and the server was
    started without a policy or with one for another player count)."""


def digest(secret: str) -> str:
    """Only hashes of join codes and tokens are stored (they are long random strings)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def check_time_control(data: Mapping[str, Any] | None) -> TimeControl | None:
    """A client's ``time_control`` (clocks.py), or 400 ``invalid_time_control`` saying what
    is wrong. Its timeout bot decides on the game's lock, at once: greedy or random."""
    if data is None:
        return None
    try:
        control = TimeControl.from_json(data)
    except TimeControlError as exc:
        raise ApiError(400, "invalid_time_control", str(exc)) from exc
    if control.timeout_bot not in TIMEOUT_BOTS:
        raise ApiError(400, "invalid_time_control", f"time_control.timeout_bot must be one of "
                       f"{', '.join(TIMEOUT_BOTS)}, not {control.timeout_bot!r}",
                       input=control.timeout_bot)
    return control


def check_bot_spec(spec: str, ppo_policy: str | None = None) -> str:
    """A level (``adept``) or a bot of the registry (``random``, ``greedy``, ``mcts:...``):
    never a file path, which would let a client run code on the server. ``ppo`` (exactly
    that) is the operator's policy (``ServerSettings.ppo_policy``), refused when the server
    has none. Returns the seat kind as stored (a level by its name); ``PolicyBots.make``
    makes its bot."""
    name = spec.strip().partition(":")[0].lower()
    if (name not in bot_codes() and find_level(name) is None) or ".py" in spec or "/" in spec:
        raise ApiError(400, "unknown_bot", f"unknown seat kind {spec!r}: use 'human', a level "
                       f"({', '.join(level_names())}) or a bot "
                       f"({', '.join(bot_codes())})", input=spec)
    if name == PPO:
        if spec.strip() != PPO:  # a client never names a file, nor tunes the policy
            raise ApiError(400, "unknown_bot", f"seat kind {spec!r}: the ppo seat takes no "
                           "parameters, it plays the policy this server was started with",
                           input=spec)
        if ppo_policy is None:
            raise ApiError(400, "unknown_bot", NO_POLICY, input=spec)
        return PPO
    try:
        make_bot(spec)
    except KaladanError as exc:
        raise ApiError(400, "unknown_bot", str(exc), input=spec) from exc
    for item in filter(None, spec.partition(":")[2].split(",")):
        key, _, value = item.partition("=")
        if key.strip() in FILE_PARAMETERS:
            raise ApiError(400, "unknown_bot", f"seat kind {spec!r}: a client never names a "
                           f"file ({key.strip()}=); the server plays its shipped ones",
                           input=spec)
        limit = BOT_LIMITS.get(key.strip())
        if limit is not None and float(value) > limit:  # make_bot checked it is a number
            raise ApiError(400, "bot_too_slow", f"{key.strip()}={value.strip()} is over this "
                           f"server's limit of {limit:g} per decision", input=spec)
    return spec.strip()


def check_serves(kind: str, config: Config) -> None:
    """422 ``bot_cannot_play`` when the bot of a seat of ``kind`` cannot play games of
    ``config``: the expert bot, or a level playing it, without a value network for the
    player count and mode (refused before the game, never at the bot's first decision).
    The first call for a network reads it (milliseconds): callers on the event loop call
    ``GameService.check_seats`` first, which reads it on a thread."""
    try:
        check_config(kind, config)
    except KaladanError as exc:
        raise ApiError(422, "bot_cannot_play", str(exc), input=kind) from exc


class PolicyBots:
    """The bots of a server's seats: the ppo policy is loaded once (seconds: torch) and
    shared by every game (it keeps nothing of a game), the other bots made per seat."""

    def __init__(self, ppo_policy: str | None) -> None:
        self.ppo_policy = ppo_policy
        self.ppo: PpoBot | None = None
        if ppo_policy is not None:
            from ..env.policy import PpoBot  # only here: a server without a policy needs no torch

            # ConfigError when the file is missing or no policy (``kaladan serve`` says so)
            bot = make_bot(f"{PPO}:path={ppo_policy}")
            assert isinstance(bot, PpoBot)
            self.ppo = bot

    def make(self, kind: str, config: Config, world: World) -> Bot:
        """The bot of a seat of ``kind`` (as ``check_bot_spec`` returned it) in a game of
        ``config`` on ``world``; ApiError 400 ``unknown_bot`` when it cannot play there (no
        policy, or a policy trained for another player count), 422 ``bot_cannot_play`` for
        an expert seat no value network serves (``check_serves``)."""
        if kind != PPO:
            check_serves(kind, config)
            return make_bot(kind)
        if self.ppo is None:
            raise ApiError(400, "unknown_bot", NO_POLICY, input=kind)
        try:
            self.ppo.encoders(config, world)  # its sizes fit this game's, or ConfigError
        except KaladanError as exc:
            raise ApiError(400, "unknown_bot", f"this server's ppo policy cannot play this "
                           f"game: {exc}", input=kind) from exc
        return self.ppo


def make_config(mode: str, players: int, options: Mapping[str, str],
                world: Mapping[str, Any] | None, quick: bool) -> Config:
    if mode not in MODES:
        raise ApiError(400, "invalid_config", f"unknown mode {mode!r}: choose "
                       f"{', '.join(MODES)}", "R3.2", mode)
    changes: dict[str, Any] = {}
    for name, value in options.items():
        if name not in OPTIONS:
            raise ApiError(400, "invalid_config", f"unknown option {name!r}: choose from "
                           f"{', '.join(OPTIONS)}", "R3.3", name)
        changes[name] = value
    if world is not None:
        changes["layout"] = dict(world)
        changes.setdefault("world", "custom")
    try:
        return Config(players=players, mode=Mode(mode), quick_setup=quick, **changes)
    except KaladanError as exc:
        raise ApiError(400, "invalid_config", str(exc),
                       getattr(exc, "rule", None) or None) from exc


def rebuild(stored: StoredGame, bots: PolicyBots | None = None) -> LiveGame:
    """Replay a stored game: every step must be legal and cause the recorded chance. Raises
    (ReplayError, ConfigError, KeyError, ...) when the stored rows are not a game, and
    ``BotUnavailable`` when a bot seat needs a ppo policy ``bots`` (the server's) cannot
    give (none, or one for another player count): the game is sound, the server is not
    set up for it."""
    bots = bots or PolicyBots(None)
    game = Game.new(Config.from_json(stored.config), stored.seed)
    seats = [SeatInfo.from_json(s) for s in stored.seats]
    if len(seats) != game.config.players or any(s.kind not in (HUMAN, "bot") for s in seats):
        raise ReplayError(f"{len(seats)} stored seats for {game.config.players} players")
    made: list[Bot | None] = []
    for s in seats:
        if s.bot is None:
            made.append(None)
            continue
        kind = s.bot.strip()
        if kind != PPO:  # a stored spec is checked as a client's was
            kind = check_bot_spec(kind)
        try:
            made.append(bots.make(kind, game.config, game.state.world))
        except ApiError as exc:
            raise BotUnavailable(exc.message) from exc
    live = LiveGame(stored.id, stored.name, stored.created, game, seats, made,
                    owner=stored.creator or stored.id, seed_public=stored.seed_public,
                    hints=stored.hints, rated=stored.rated, open_seats=stored.open_seats,
                    finished=stored.finished)
    if stored.clock is not None:  # a timed game (clocks.py): as stored with its last steps
        clock = Clock.from_json(stored.clock)
        try:
            live.timeout_bot = bots.make(check_bot_spec(clock.control.timeout_bot),
                                         game.config, game.state.world)
        except ApiError as exc:
            raise BotUnavailable(exc.message) from exc
        live.set_clock(clock)
    for i, (seat, text, chance) in enumerate(stored.steps):
        if game.state.pending.seat != seat and not is_gift(text):  # R23.11
            raise ReplayError(f"step {i} ({text!r}): seat {seat + 1} stored, seat "
                              f"{game.state.pending.seat + 1} to decide")
        game.play(text, seat)  # the log entries too: the same decisions make the same log
        step = game.steps[-1]
        if list(step.chance) != chance:
            raise ReplayError(f"step {i} ({text!r}): chance {list(step.chance)} differs "
                              f"from the stored {chance}")
    live.publish()
    return live


class GameService:
    def __init__(self, store: Store, settings: ServerSettings) -> None:
        self.store = store
        self.writer = StepWriter(store)  # new steps: stored on a thread of its own
        self.settings = settings
        self.bot_delay = settings.bot_delay
        self.bots = PolicyBots(settings.ppo_policy)  # ConfigError: the policy does not load
        # Live games, least recently used first (``_remember`` keeps at most live_games).
        self.games: OrderedDict[str, LiveGame] = OrderedDict()
        self._loading = asyncio.Lock()
        # Quick bots (random, greedy) decide on these threads, never on the event loop;
        # searching bots in worker processes.
        self.bot_pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2),
                                           thread_name_prefix="kaladan-bot")
        self.searches = BotPool(settings.bot_workers, settings.bot_jobs_per_client,
                                settings.bot_seconds)
        self.advisor = Advisor(self.searches, settings.hint_iterations, settings.hint_seconds)
        self.creations: AddressRate = PerAddress(settings.games_per_minute, per=60.0)
        self.loads: AddressRate = PerAddress(settings.load_rate)
        self.histories = HistoryCache()
        self.tasks: set[asyncio.Task[None]] = set()  # ``spawn``
        self.chat = Chat(store)  # each game's chat (chat.py)
        # Time controls: "now" (epoch seconds) and the timer that applies timeouts.
        self.now = settings.clock or wall_clock
        self.clock_changed = asyncio.Event()
        self.clock_timer: asyncio.Task[None] | None = None
        self.clock_retry: dict[str, float] = {}  # game id -> monotonic time to try again
        # told every version this process publishes as the game's owner, and every change
        # of seats (notify.py: whose turn it is, turn mails)
        self.on_turn: Callable[[LiveGame], None] | None = None
        # Several processes (--broker-url): leases, forwarding and events (cluster.py).
        self.cluster: Cluster | None = None
        if settings.broker_url is not None:
            if store.is_sqlite:  # its leases and fences are PostgreSQL's (leases.py)
                raise StorageError("several processes (a broker URL) need a PostgreSQL "
                                   "database, not SQLite")
            from .cluster import Cluster  # only here: one process needs no Redis client

            self.cluster = Cluster(self, settings.broker_url)
            self.chat.publish = self.cluster.send  # messages reach every process

    # --- life cycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Migrate the database. Games are loaded when first asked for."""
        await asyncio.to_thread(self.store.upgrade)
        if self.cluster is not None:
            await self.cluster.start()
        self.clock_timer = asyncio.create_task(self._clock_timer(), name="kaladan-clocks")

    async def stop(self) -> None:
        if self.clock_timer is not None:
            self.clock_timer.cancel()
            await asyncio.gather(self.clock_timer, return_exceptions=True)
        tasks = [g.bot_task for g in self.games.values() if g.bot_task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
        self.searches.shutdown()
        await asyncio.to_thread(self.writer.close)
        if self.cluster is not None:  # after the last steps are stored: hand the games over
            await self.cluster.stop()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.store.dispose()

    def share_limits(self, shared: SharedLimits) -> None:
        """Count games created, games loaded and searches per address over every process
        (shared_limits.py), not in this one only."""
        settings = self.settings
        self.creations = shared.per_address("creations", settings.games_per_minute, per=60.0)
        self.loads = shared.per_address("loads", settings.load_rate)
        self.searches.shared = shared
        self.chat.share_limits(shared)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` on its own; the service keeps it until it ends (and cancels it on
        stopping)."""
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _load(self, game_id: str) -> LiveGame:
        """Worker thread: rebuild a stored game. 404 when there is none, 503 when the
        database cannot be read; a game whose rows cannot be rebuilt is set aside (it would
        fail again on every request) and is a 404 from then on."""
        try:
            stored = self.store.load(game_id)
        except DamagedGame as exc:
            self._quarantine(game_id, str(exc))
            raise ApiError(404, "unknown_game", f"game {game_id} is damaged and was set "
                           "aside", input=game_id) from exc
        except Exception as exc:
            log.error("cannot read game %s: %s", game_id, exc)
            raise ApiError(503, "storage_unavailable", "the game cannot be read now; try "
                           "again") from exc
        if stored is None:
            raise ApiError(404, "unknown_game", f"no game {game_id!r}", input=game_id)
        try:
            return rebuild(stored, self.bots)
        except BotUnavailable as exc:  # sound rows: the game is back once the server has
            log.warning("game %s cannot be loaded: %s", game_id, exc)  # the policy it needs
            raise ApiError(503, "bot_unavailable", f"game {game_id} has a seat this server "
                           f"cannot play now: {exc}", input=game_id) from exc
        except Exception as exc:  # any damage: one bad game must not stop the others
            self._quarantine(game_id, f"cannot be rebuilt: {exc!r}")
            raise ApiError(404, "unknown_game", f"game {game_id} is damaged and was set "
                           "aside", input=game_id) from exc

    def _quarantine(self, game_id: str, problem: str) -> None:
        log.error("game %s set aside: %s", game_id, problem)
        try:
            self.store.quarantine(game_id, problem)
        except Exception as exc:  # the database is down as well: it is tried again next time
            log.error("cannot mark game %s as set aside: %s", game_id, exc)

    async def get(self, game_id: str, client: str | None = None,
                  adopt: bool = True) -> LiveGame:
        """A game by id, brought back from storage when it is not in memory (at most
        ``load_rate`` a second per client address); 404 when unknown. With several
        processes, a game brought back is owned by this process when nobody owns it
        (unless not ``adopt``), and the seats of a game still open are read again (a seat
        may have joined through another process)."""
        live = self.games.get(game_id)
        if live is not None:
            self.games.move_to_end(game_id)
            if self.cluster is not None and not live.all_joined:
                await self.reload_seats(live)
            return live
        if len(game_id) > GAME_ID_LENGTH:
            raise ApiError(404, "unknown_game", "no such game", input=game_id[:GAME_ID_LENGTH])
        if client is not None and not await self.loads.admit(client):
            raise ApiError(429, "rate_limited", "games are brought back from storage at most "
                           f"{self.settings.load_rate:g} a second per address; try again")
        async with self._loading:
            live = self.games.get(game_id)
            if live is None:
                live = await asyncio.to_thread(self._load, game_id)
                self._remember(live)
                if live.over and live.rated:  # rated once: this retries a failed recording
                    self.spawn(record_finished(self.store, live))
                if self.cluster is not None and adopt:
                    await self.cluster.adopt(live)
                self.kick_bots(live)
        return live

    def current(self, live: LiveGame) -> LiveGame:
        """The game object to act on: a request may hold a game that left memory since it
        was looked up; acting on it would make a second copy diverge from a fresh load.
        Put it back, or take the copy loaded since (which holds everything stored)."""
        known = self.games.get(live.game_id)
        if known is None:
            self._remember(live)
            return live
        return known

    def _remember(self, live: LiveGame) -> None:
        """Keep ``live`` in memory; games beyond ``live_games`` leave it, finished ones
        first, then idle ones (nobody connected, no bot at work, nothing being applied)."""
        if self.cluster is not None and live.game_id not in self.games:
            self.cluster.watch(live)
        live.clock_now = self.now
        self.games[live.game_id] = live
        self.games.move_to_end(live.game_id)
        excess = len(self.games) - self.settings.live_games
        for finished_first in (True, False):
            for game_id, game in list(self.games.items()):
                if excess <= 0:
                    return
                if game is not live and game.idle and (game.game.is_over or not finished_first):
                    del self.games[game_id]
                    excess -= 1
                    self._let_go(game)

    def _let_go(self, live: LiveGame) -> None:
        """A game left memory or ended: its lease goes too (several processes); one that
        left memory is no longer heard of."""
        if self.cluster is None:
            return
        if live.game_id not in self.games:
            self.cluster.unwatch(live.game_id)
        if live.lease is not None:
            live.lease = None
            self.spawn(self.cluster.released([live.game_id]))

    # --- lobby --------------------------------------------------------------------------

    async def create(self, *, mode: str, seats: Sequence[str], options: Mapping[str, str],
                     world: Mapping[str, Any] | None, seed: int | None, quick: bool,
                     name: str, client: str = LOCAL, hints: bool | None = None,
                     rated: bool = False, open_seats: bool = False,
                     time_control: Mapping[str, Any] | None = None,
                     ) -> tuple[LiveGame, list[tuple[int, str]]]:
        """A new game; returns it with the one-time join code of every human seat. ``hints``
        (advice on request) is on by default when a bot plays, off when every seat is
        human. Only signed-in players sit at a ``rated`` game's human seats (its seed is
        the server's and it gives no advice); any signed-in player may take a free seat of
        a game with ``open_seats`` without its code; ``time_control`` (clocks.py) times its
        human seats."""
        settings = self.settings
        if rated and (seed is not None or hints):
            raise ApiError(400, "invalid_config", "a rated game has the server's seed and "
                           "gives no advice (no 'seed', no 'hints')")
        if rated and HUMAN not in [s.strip().lower() for s in seats]:
            raise ApiError(400, "invalid_config", "a rated game has at least one human seat")
        kinds = [HUMAN if s.strip().lower() == HUMAN else check_bot_spec(s, settings.ppo_policy)
                 for s in seats]
        humans = kinds.count(HUMAN)
        if humans == 0 and not settings.bot_games:
            raise ApiError(400, "bot_games_off", "this server plays games with at least one "
                           "human seat")
        if seed is not None and humans > 1 and not settings.any_seed:  # it fixes every hand
            raise ApiError(400, "seed_not_allowed", "a game with two or more human seats "
                           "gets its seed from the server", input=seed)
        control = check_time_control(time_control)
        if len(name) > settings.max_name:
            raise ApiError(400, "invalid_config", f"a name has at most {settings.max_name} "
                           "characters")
        if world is not None and len(json.dumps(world, default=str)) > settings.max_world:
            raise ApiError(413, "too_large", f"a world has at most {settings.max_world} bytes "
                           "of JSON")
        if not await self.creations.admit(client):
            raise ApiError(429, "rate_limited", f"at most {settings.games_per_minute} new "
                           "games a minute per address")
        config = make_config(mode, len(kinds), options, world, quick)
        await self.check_seats(kinds, config)
        seed_public = seed is not None
        if seed is None:
            seed = secrets.randbits(63)
        try:
            game = await asyncio.to_thread(Game.new, config, seed)
        except KaladanError as exc:
            raise ApiError(400, "invalid_config", str(exc),
                           getattr(exc, "rule", None) or None) from exc
        except (ValueError, TypeError, KeyError, IndexError) as exc:  # a malformed world
            raise ApiError(400, "invalid_config", f"cannot build this world: {exc!r}",
                           "R4.14") from exc
        codes: list[tuple[int, str]] = []
        infos: list[SeatInfo] = []
        for seat, kind in enumerate(kinds):
            if kind == HUMAN:
                code = secrets.token_urlsafe(16)
                codes.append((seat, code))
                infos.append(SeatInfo(HUMAN, None, digest(code)))
            else:
                infos.append(SeatInfo("bot", kind))
        game_id = "g_" + secrets.token_hex(8)
        if hints is None:
            hints = humans < len(kinds) and not rated
        live = await self.open_game(game_id, name or f"Game {game_id[2:8]}", game, infos,
                                    owner=digest(client), seed_public=seed_public,
                                    hints=hints, rated=rated, open_seats=open_seats,
                                    control=control)
        return live, codes

    async def check_seats(self, kinds: Sequence[str], config: Config) -> None:
        """422 ``bot_cannot_play`` for a bot seat that cannot play games of ``config``
        (``check_serves``), checked on a thread: the first look reads a network."""
        bots = sorted({kind for kind in kinds if kind not in (HUMAN, PPO)})

        def check() -> None:
            for kind in bots:
                check_serves(kind, config)

        if bots:
            await asyncio.to_thread(check)

    async def open_game(self, game_id: str, name: str, game: Game, infos: list[SeatInfo], *,
                        owner: str, seed_public: bool = False, hints: bool = False,
                        rated: bool = False, open_seats: bool = False,
                        control: TimeControl | None = None) -> LiveGame:
        """Store a new game (``game`` at its start, with seats ``infos``, timed by
        ``control``) and hold it in memory: the end of ``create``, and a rematch's start
        (rematch.py).
        ``IntegrityError`` when a game ``game_id`` is stored already."""
        config = game.config
        # a ppo policy for another player count is refused here (400), not at its turn
        bots = [None if s.bot is None else self.bots.make(s.bot, config, game.state.world)
                for s in infos]
        live = LiveGame(game_id, name, datetime.now(UTC), game, infos, bots, owner=owner,
                        seed_public=seed_public, hints=hints, rated=rated,
                        open_seats=open_seats)
        timed: StoredClock | None = None
        if control is not None:
            live.timeout_bot = self.bots.make(control.timeout_bot, config, game.state.world)
            live.set_clock(Clock.new(control, len(infos)).restart(
                game.state, live.humans, live.all_joined, self.now()))
            timed = stored_clock(live.clock)
        try:
            await asyncio.to_thread(self.store.create_game, game_id, live.name, live.created,
                                    config.to_json(), game.seed, live.status,
                                    [s.to_json() for s in infos], owner, seed_public, hints,
                                    rated, open_seats, timed)
        except IntegrityError:
            raise
        except Exception as exc:
            log.error("cannot store new game %s: %s", game_id, exc)
            raise ApiError(503, "storage_unavailable", "the game could not be stored and "
                           "was not created; try again") from exc
        self._remember(live)
        if self.cluster is not None:
            await self.cluster.adopt(live)  # a game it created: nobody owns it yet
        self.kick_bots(live)
        return live

    async def summaries(self, limit: int = 200) -> list[dict[str, Any]]:
        """The newest games, newest first; live ones from memory, the rest as stored (rows
        that do not read as a game are left out)."""
        try:
            rows, damaged = await asyncio.to_thread(self.store.recent, limit)
        except Exception as exc:
            log.error("cannot list games: %s", exc)
            raise ApiError(503, "storage_unavailable", "the games cannot be listed now; "
                           "try again") from exc
        for game_id in damaged:  # set aside like on loading: it could never be played
            await asyncio.to_thread(self._quarantine, game_id, "its row cannot be read")
        out = []
        for row in rows:
            live = self.games.get(row.id)
            if live is not None:
                out.append(summary(live, row.finished))
                continue
            try:
                out.append(stored_summary(row))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                log.error("game %s is left out of the list: %r", row.id, exc)
        return out

    async def _record_end(self, live: LiveGame, at: datetime) -> None:
        """Store when the game ended and who won (the lobby's finished list). Never raises:
        a failure leaves the game listed without them."""
        try:
            await asyncio.to_thread(self.store.set_finished, live.game_id, at,
                                    stored_result(live.game.state))
        except Exception as exc:
            log.warning("cannot store the end of game %s: %s", live.game_id, exc)

    async def history(self, live: LiveGame, client: str = LOCAL) -> History:
        """The replayed history of a finished game (409 ``game_not_over`` before its end).
        Replaying counts as bringing a game back from storage (``load_rate`` per address)."""
        if not live.over:  # over and stored (``LiveGame.over``)
            raise ApiError(409, "game_not_over", "a game is replayed once it is over")
        known = self.histories.get(live.game_id)
        if known is not None:
            return known
        if not await self.loads.admit(client):
            raise ApiError(429, "rate_limited", "games are replayed at most "
                           f"{self.settings.load_rate:g} a second per address; try again")
        history = await asyncio.to_thread(build_history, live.game)
        self.histories.put(live.game_id, history)
        return history

    async def join(self, live: LiveGame, seat: int, code: str | None,
                   account: Account | None = None) -> str:
        """Exchange a seat's one-time join code for its token (handed out once). A
        signed-in player's seat is theirs (``SeatInfo.account``); a rated game's seats are
        only for them, and a game with open seats lets them sit without the code. The seats
        are checked and changed in the database by one compare-and-set on their stored
        text, never from memory: two joins of one seat, on one process or on two, get one
        token; joins of different seats at once both succeed (the loser of the race reads
        the seats again)."""
        live = self.current(live)
        self._human_seat(live, seat)  # seat kinds never change: memory may answer 404
        if account is None and live.rated:
            raise ApiError(401, "sign_in_required", "a rated game's seats are for signed-in "
                           "players: sign in first", headers=SESSION_CHALLENGE)
        if code is None and (account is None or not live.open_seats):
            raise ApiError(403, "bad_code", f"seat {seat + 1} is joined with its code")
        token = secrets.token_urlsafe(32)

        def change(seats: list[dict[str, Any]]) -> SeatInfo:
            info = SeatInfo.from_json(seats[seat])
            right = code is not None and info.code_hash is not None and hmac.compare_digest(
                digest(code), info.code_hash)
            if info.token_hash is not None:
                if not right:  # the first join link again, or a hand-over's used code
                    raise ApiError(409, "already_joined", already_joined(seat, info))
                return self._moved(seats, seat, info, token, account)
            if code is not None and not right:
                raise ApiError(403, "bad_code", f"wrong join code for seat {seat + 1}")
            if account is not None:
                _sits_once(seats, seat, account)
            return SeatInfo(HUMAN, None, None, digest(token),
                            None if account is None else account.id,
                            None if account is None else account.name)

        await self._change_seat(live, seat, change, account)
        return token

    @staticmethod
    def _moved(seats: list[dict[str, Any]], seat: int, info: SeatInfo, token: str,
               account: Account | None) -> SeatInfo:
        """A seat handed over (``hand_over``) joined on its new device: the new token, the
        old one ended (kept as moved). A signed-in player's seat stays theirs whoever joins
        with its code; a guest's seat becomes the joining player's if they are signed in."""
        if info.account is not None:
            if account is not None and account.id != info.account:
                raise ApiError(409, "seat_taken", f"seat {seat + 1} belongs to another "
                               "player")
            account_id, name = info.account, info.name
        elif account is not None:
            _sits_once(seats, seat, account)
            account_id, name = account.id, account.name
        else:
            account_id, name = None, None
        ended = () if info.token_hash is None else (info.token_hash,)
        return SeatInfo(HUMAN, None, None, digest(token), account_id, name,
                        (info.moved + ended)[-MOVED_KEPT:])

    async def hand_over(self, live: LiveGame, seat: int) -> str:
        """A fresh one-time code for a joined seat, asked for by the seat itself: the device
        that joins with it plays the seat from then on and the seat's token so far ends
        (``join``). Asking again replaces the code not used yet. Kept in the database like
        every seat change, so any server process honours it."""
        live = self.current(live)
        self._human_seat(live, seat)
        code = secrets.token_urlsafe(16)

        def change(seats: list[dict[str, Any]]) -> SeatInfo:
            info = SeatInfo.from_json(seats[seat])
            if info.token_hash is None:
                raise ApiError(409, "not_joined", f"seat {seat + 1} has not joined yet: its "
                               "join link takes it")
            return replace(info, code_hash=digest(code))

        await self._change_seat(live, seat, change, None)
        return code

    async def claim(self, live: LiveGame, seat: int, account: Account) -> None:
        """A guest who signed up (or in) takes the seat they play with its token as their
        own: the seat's record and rating count for the account from now on."""
        live = self.current(live)

        def change(seats: list[dict[str, Any]]) -> SeatInfo:
            info = SeatInfo.from_json(seats[seat])
            if info.account is not None and info.account != account.id:
                raise ApiError(409, "seat_taken", f"seat {seat + 1} belongs to another player")
            _sits_once(seats, seat, account)
            return replace(info, account=account.id, name=account.name)

        await self._change_seat(live, seat, change, account)

    async def rename_player(self, game_ids: list[str], account_id: str, name: str) -> None:
        """Show ``name`` at an account's seats (a deleted account's games)."""
        await asyncio.to_thread(self.store.rename_player, game_ids, account_id, name)
        for game_id in game_ids:
            live = self.games.get(game_id)
            if live is not None:
                await self.reload_seats(live)
                if self.cluster is not None:
                    self.cluster.changed(live, "seats")

    async def _change_seat(self, live: LiveGame, seat: int,
                           change: Callable[[list[dict[str, Any]]], SeatInfo],
                           account: Account | None) -> None:
        """Change one seat by compare-and-set on the stored seats (``join``)."""
        for _ in range(20):
            try:
                old = await asyncio.to_thread(self.store.seats_text, live.game_id)
            except Exception as exc:
                log.error("cannot read the seats of game %s: %s", live.game_id, exc)
                raise ApiError(503, "storage_unavailable", "the seats cannot be read now; "
                               "nothing changed: try again") from exc
            if old is None:
                raise ApiError(404, "unknown_game", f"game {live.game_id} is no longer "
                               "stored", input=live.game_id)
            try:
                seats = json.loads(old)
                SeatInfo.from_json(seats[seat])
            except (ValueError, TypeError, KeyError, IndexError) as exc:  # a damaged row
                log.error("the seats of game %s cannot be read: %r", live.game_id, exc)
                raise ApiError(503, "storage_unavailable", "the seats cannot be read now; "
                               "nothing changed") from exc
            seats[seat] = change(seats).to_json()
            infos = [SeatInfo.from_json(s) for s in seats]
            status = "over" if live.game.is_over else (
                "running" if all(s.joined for s in infos) else "open")
            player = None if account is None else (seat, account.id)
            try:
                done = await asyncio.to_thread(self.store.replace_seats, live.game_id, old,
                                               seats, status, player)
            except Exception as exc:
                log.error("cannot store the seats of game %s: %s", live.game_id, exc)
                raise ApiError(503, "storage_unavailable", "the seat could not be stored "
                               "and nothing changed; try again") from exc
            if done:
                break
        else:
            raise ApiError(503, "storage_unavailable", "the seats keep changing; nothing "
                           "changed: try again")
        self._set_seats(live, infos)
        self._turned(live)
        if self.cluster is not None:
            self.cluster.changed(live, "seats")
        await self.start_clock(live)  # the last seat joined: the clock starts (the owner)

    async def reload_seats(self, live: LiveGame) -> None:
        """Read a game's seats again (a seat joined through another process)."""
        try:
            text = await asyncio.to_thread(self.store.seats_text, live.game_id)
        except Exception as exc:
            log.warning("cannot read the seats of game %s: %s", live.game_id, exc)
            return
        if text is not None:
            try:
                infos = [SeatInfo.from_json(s) for s in json.loads(text)]
            except (ValueError, TypeError, KeyError) as exc:  # a damaged row: keep memory's
                log.error("the seats of game %s cannot be read: %r", live.game_id, exc)
                return
            if infos != live.seats:
                self._set_seats(live, infos)
                await self.start_clock(live)

    def _set_seats(self, live: LiveGame, infos: list[SeatInfo]) -> None:
        live.seats = infos
        live.forget_views()
        self.notify(live)
        self.kick_bots(live)

    @staticmethod
    def _human_seat(live: LiveGame, seat: int) -> SeatInfo:
        if not 0 <= seat < len(live.seats):
            raise ApiError(404, "unknown_seat", f"game {live.game_id} has no seat {seat + 1}",
                           input=seat)
        info = live.seats[seat]
        if info.kind != HUMAN:
            raise ApiError(404, "unknown_seat", f"seat {seat + 1} is a bot, not a human seat",
                           input=seat)
        return info

    @staticmethod
    def seat_of_account(live: LiveGame, account: Account) -> int | None:
        """The seat a signed-in player sits at in this game (None: none)."""
        for seat, info in enumerate(live.seats):
            if info.account == account.id and info.token_hash is not None:
                return seat
        return None

    @staticmethod
    def seat_for_token(live: LiveGame, token: str) -> int:
        hashed = digest(token)
        for seat, info in enumerate(live.seats):
            if info.token_hash is not None and hmac.compare_digest(hashed, info.token_hash):
                return seat
        for seat, info in enumerate(live.seats):
            if any(hmac.compare_digest(hashed, old) for old in info.moved):
                raise ApiError(403, "seat_moved", f"seat {seat + 1} was moved to another "
                               "device: this device no longer plays it")
        raise ApiError(403, "bad_token", "this token belongs to no seat of this game")

    # --- playing ------------------------------------------------------------------------

    async def act(self, live: LiveGame, seat: int, text: str | None, index: int | None,
                  version: int | None) -> LiveGame:
        """Apply a seat's decision (by text or by index into its legal actions), or a gift
        of gold by any seat at any moment (R23.11, by text): a gift leaves the pending
        decision where it is, and it waits for the game's lock like every decision, so it
        never lands in the middle of a bot's. Everything is checked against the published
        snapshot: what the client was shown. Returns the game object acted on. With
        several processes a game this process does not own is decided by its owner
        (``Cluster.act``)."""
        live = self.current(live)
        if self.cluster is None:
            return await self.act_here(live, seat, text, index, version)
        for _ in range(3):
            try:
                return await self.cluster.act(live, seat, text, index, version)
            except NotOwner:
                continue  # lost the game on the way: ask again who owns it
        raise ApiError(503, "storage_unavailable", "the game keeps moving between servers; "
                       "nothing changed: try again")

    async def act_here(self, live: LiveGame, seat: int, text: str | None, index: int | None,
                       version: int | None) -> LiveGame:
        """``act`` in this process (its only one, or the owner of the game)."""
        async with live.lock:
            if self.cluster is not None and live.lease is None:
                raise NotOwner(live.game_id)
            await self._clear_doubt(live)
            snapshot = live.snapshot
            assert snapshot is not None
            state = snapshot.state
            if state.is_over:
                raise ApiError(409, "game_over", "the game is over", input=text)
            if version is not None and version != snapshot.version:
                raise ApiError(409, "stale_version", f"the game is at version "
                               f"{snapshot.version}, not {version}", input=version)
            if state.pending.seat != seat and not (text is not None and is_gift(text)):
                # R23.11: a gift is the one action taken out of turn, by its text (an index
                # points into the legal list of the seat to decide).
                hint = (" (out of turn a gift is sent as its text, 'gift <ally> <amount>')"
                        if index is not None and live.game.gifts(seat) else "")
                raise ApiError(409, "not_your_turn", f"seat {state.pending.seat + 1} is "
                               f"to decide, not seat {seat + 1}{hint}", "R6.5",
                               text if index is None else index)
            clock = live.clock
            if clock is not None and not (text is not None and is_gift(text)):
                deadline = clock.deadline
                if clock.running == seat and deadline is not None and deadline <= self.now():
                    self.wake_clock()  # the timer applies the timeout decision
                    raise ApiError(409, "time_ran_out", f"seat {seat + 1}'s time ran out: "
                                   f"{clock.control.timeout_bot} decides for it",
                                   input=text if index is None else index)
            action: Action | str
            if index is not None:
                legal = legal_actions(state)
                if not 0 <= index < len(legal):
                    raise ApiError(400, "bad_index", f"index {index} is not one of the "
                                   f"{len(legal)} legal actions", input=index)
                action = legal[index]
            else:
                assert text is not None
                action = text
            await self._apply(live, action, seat)
        self.notify(live)
        self.kick_bots(live)
        return live

    async def _apply(self, live: LiveGame, action: Action | str, seat: int) -> None:
        """Game lock held: check and apply a decision, let quick bots answer it when they do
        not pause, and store the run (one transaction, one view)."""
        stored = live.version
        self._play(live, action, seat)
        if self.bot_delay <= 0:
            await self._quick_bots(live, BOT_BURST)
        await self._store(live, stored)

    async def _quick_bots(self, live: LiveGame, limit: int) -> None:
        """Game lock held: up to ``limit`` quick bot decisions in place, not stored yet:
        random bots here, the others on a worker thread. Should that fail (a bug of ours: a
        bot's own failure is caught), the game goes back to its published version before
        the error goes on, so memory keeps to what is stored."""
        try:
            left = self._bot_run(live, limit, here=True)
            seat = self._bot_seat(live)
            if left and seat is not None and quick(bot_spec(live, seat)):
                await asyncio.get_running_loop().run_in_executor(self.bot_pool, self._bot_run,
                                                                 live, left)
        except Exception:
            live.roll_back()
            raise

    def _play(self, live: LiveGame, action: Action | str, seat: int) -> None:
        """Check and apply one decision in memory (not yet stored nor shown). The published
        state is never changed; a state made since (by this run of decisions) is changed in
        place."""
        shown = action if isinstance(action, str) else None
        snapshot = live.snapshot
        in_place = snapshot is not None and live.game.state is not snapshot.state
        try:
            try:
                live.game.play(action, seat, in_place=in_place)
            except Exception as exc:
                if in_place and not isinstance(exc, IllegalActionError | InvalidActionError):
                    # Not a refusal (the engine refuses before it changes anything): a bug
                    # of ours part-way through a change. Back to what is stored.
                    live.roll_back()
                raise
        except IllegalActionError as exc:
            raise ApiError(422, "illegal_action", exc.reason, exc.rule, shown) from exc
        except InvalidActionError as exc:
            raise ApiError(400, "invalid_action", str(exc), None, shown) from exc
        except KaladanError as exc:
            raise ApiError(422, "illegal_action", str(exc), getattr(exc, "rule", None),
                           shown) from exc
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            # The parser owes an InvalidActionError here: a line to find it by, but a
            # client's text never writes a traceback (a bot's action is our own bug).
            if shown is None:
                log.exception("action in game %s could not be applied", live.game_id)
            else:
                log.warning("action %r in game %s could not be read: %r", shown,
                            live.game_id, exc)
            raise ApiError(400, "invalid_action", f"cannot read action {shown!r}", None,
                           shown) from exc

    async def _store(self, live: LiveGame, stored: int, timed_out: int | None = None) -> None:
        """Game lock held: store the steps after version ``stored`` in one transaction (by
        the storage's thread), then publish them. If the database refuses, the game goes back to
        its published state, which is what the database holds, and nobody saw the lost
        steps: 503, nothing changed. When the database may hold them all the same (the
        reply to COMMIT was lost, or a step of that index is stored already),
        ``_read_back`` settles it from what is stored. Once begun, storing and publishing
        end before the lock is given up, even if the caller is cancelled meanwhile. A timed
        game's clock goes with them (``Clock.after_steps``; ``timed_out``: the first step is
        the timeout bot's decision for that seat); an untimed game writes nothing more."""
        game = live.game
        new = [(s.seat, s.action, s.chance) for s in game.steps[stored:]]
        status = "over" if game.is_over else None
        fence = None if self.cluster is None else self.cluster.fence(live)
        clock = live.clock
        if clock is not None and new:
            clock = clock.after_steps(game.state, [(s[0], s[1]) for s in new], stored,
                                      live.humans, live.all_joined, self.now(), timed_out)
        writing = self.writer.add_steps(live.game_id, stored, new, status, fence,
                                        None if clock is None else stored_clock(clock))
        try:
            await asyncio.shield(writing)
        except asyncio.CancelledError:
            await asyncio.wait([writing])
            await self._stored(live, writing, stored, new, clock)
            raise
        except Exception:
            pass  # the database refused: ``_stored`` says so
        await self._stored(live, writing, stored, new, clock)

    async def _stored(self, live: LiveGame, writing: asyncio.Future[None], stored: int,
                      new: Sequence[tuple[int, str, Sequence[int]]],
                      clock: Clock | None = None) -> None:
        exc = writing.exception()
        if exc is None:
            if clock is not None:
                live.set_clock(clock)
                self.wake_clock()
            live.publish()
            if live.over and live.finished is None:
                live.finished = datetime.now(UTC)
                self.spawn(self._record_end(live, live.finished))
            if live.over and live.rated:
                self.spawn(record_finished(self.store, live))
            self._turned(live)
            if self.cluster is not None:
                self.cluster.changed(live, first=stored)
                if live.over:
                    self._let_go(live)
            return
        if isinstance(exc, LeaseLost) and self.cluster is not None:
            # Another process owns the game now: nothing was stored, memory goes back to
            # what is; the copy follows the new owner, the decision goes to it.
            live.roll_back()
            self.cluster.demote(live)
            self.spawn(self.cluster.follow(live))
            raise NotOwner(live.game_id) from exc
        if isinstance(exc, CommitUnknown | IntegrityError):
            await self._read_back(live, exc, stored, new, clock)
            return
        log.error("cannot store steps of game %s: %s", live.game_id, exc)
        live.roll_back()
        raise ApiError(503, "storage_unavailable", "the decision could not be stored and "
                       "nothing changed; try again") from exc

    async def _read_back(self, live: LiveGame, exc: Exception, stored: int,
                         new: Sequence[tuple[int, str, Sequence[int]]],
                         clock: Clock | None = None) -> None:
        """Game lock held; the outcome of storing ``new`` (from version ``stored``) is
        unknown: read the game back. Its steps stored as ours: published, a success. Not
        stored: 503, nothing changed. Other steps stored (another writer): the game is
        rebuilt from storage and the client hears 409 ``stale_version``. The database
        cannot be read: the game goes back to its published state and is marked ``doubt``
        (read back before its next decision, ``_clear_doubt``), and the client hears 503
        that the outcome is unknown, never "nothing changed"."""
        log.error("storing steps of game %s may have failed: %s", live.game_id, exc)
        try:
            row = await asyncio.to_thread(self.store.load, live.game_id)
        except Exception as again:
            log.error("cannot read game %s back: %s", live.game_id, again)
            live.roll_back()
            live.doubt = True  # the next decision reads it back first (``_clear_doubt``)
            raise ApiError(503, UNKNOWN_CODE, UNKNOWN_OUTCOME) from exc
        mine = [(seat, text, list(chance)) for seat, text, chance in new]
        if row is not None and row.steps[:stored] == [
                (s.seat, s.action, list(s.chance)) for s in live.game.steps[:stored]]:
            if row.steps[stored:] == mine:
                log.warning("game %s: the steps were stored after all", live.game_id)
                if clock is not None:  # stored in the same transaction as the steps
                    live.set_clock(clock)
                    self.wake_clock()
                live.publish()
                self._turned(live)
                if self.cluster is not None:
                    self.cluster.changed(live, first=stored)
                return
            if len(row.steps) == stored:
                live.roll_back()
                raise ApiError(503, "storage_unavailable", "the decision could not be "
                               "stored and nothing changed; try again") from exc
        live.roll_back()
        if row is None:  # set aside or deleted meanwhile
            self.forget(live)
            raise ApiError(404, "unknown_game", f"game {live.game_id} is no longer stored",
                           input=live.game_id) from exc
        try:
            fresh = await asyncio.to_thread(rebuild, row, self.bots)
        except Exception as damage:
            live.doubt = True
            raise ApiError(503, "storage_unavailable", "the game changed in storage and "
                           "cannot be loaded now; try again") from damage
        live.take(fresh)
        self.notify(live)
        raise ApiError(409, "stale_version", f"the game moved on in storage meanwhile; it "
                       f"is at version {live.version}", input=stored) from exc

    async def _clear_doubt(self, live: LiveGame) -> None:
        """Game lock held: a game whose last store ended in doubt (``_read_back`` could not
        read it back) is rebuilt from storage before anything else is decided in it, so
        memory never builds on a version storage may not hold. 503 while it cannot be."""
        if not live.doubt:
            return
        try:
            row = await asyncio.to_thread(self.store.load, live.game_id)
            if row is None:
                raise ApiError(404, "unknown_game", f"game {live.game_id} is no longer "
                               "stored", input=live.game_id)
            fresh = await asyncio.to_thread(rebuild, row, self.bots)
        except ApiError:
            raise
        except Exception as exc:
            log.error("cannot read game %s back: %s", live.game_id, exc)
            raise ApiError(503, UNKNOWN_CODE, UNKNOWN_OUTCOME) from exc
        live.take(fresh)
        live.doubt = False
        self.notify(live)

    def rebuild_stored(self, row: StoredGame) -> LiveGame:
        """``rebuild`` with this server's bots (worker threads)."""
        return rebuild(row, self.bots)

    def forget(self, live: LiveGame) -> None:
        """Let a game whose memory may differ from storage leave memory: the next request
        loads it afresh (``get``)."""
        if self.games.get(live.game_id) is live:
            del self.games[live.game_id]
            self._let_go(live)

    # --- clocks (clocks.py, docs/server.md "Time controls") -------------------------------

    def wake_clock(self) -> None:
        """A clock changed: the timer looks at the deadlines again."""
        self.clock_changed.set()

    def _clock_owner(self, live: LiveGame) -> bool:
        """This process applies the game's timeouts (its only one, or its lease owner)."""
        return self.cluster is None or live.lease is not None

    async def _clock_timer(self) -> None:
        """Wake at the earliest deadline of the games this process owns and let the timeout
        bot decide there; look in storage for due games that are not in memory (found by
        the index on ``games.deadline``) every ``CLOCK_SCAN`` seconds, and whenever an
        injected (test) clock moved."""
        poll = TEST_CLOCK_POLL if self.settings.clock is not None else None
        scanned, seen = -CLOCK_SCAN, None
        while True:
            try:
                now = self.now()
                if time.monotonic() - scanned >= CLOCK_SCAN or (poll and now != seen):
                    scanned, seen = time.monotonic(), now
                    await self._load_due(now)
                wake = CLOCK_SCAN
                for live in list(self.games.values()):
                    clock = live.clock
                    if clock is None or not self._clock_owner(live):
                        continue
                    if self._clock_due_to_start(live):  # e.g. a game taken over meanwhile
                        await self.start_clock(live)
                    deadline = live.clock.deadline if live.clock is not None else None
                    if deadline is None:
                        continue
                    if deadline <= now:
                        if self.clock_retry.get(live.game_id, 0.0) <= time.monotonic():
                            await self._time_out(live)
                        continue
                    wake = min(wake, deadline - now)
            except asyncio.CancelledError:
                raise
            except Exception:  # the timer must outlive any one game's failure
                log.exception("the clocks' timer failed; it goes on")
                wake = CLOCK_SCAN
            self.clock_changed.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self.clock_changed.wait(), poll or max(0.001, wake))

    async def _load_due(self, now: float) -> None:
        """Bring the stored games whose deadline has passed into memory (this process takes
        their lease when nobody holds it): their timeouts come even if nobody opens them."""
        moment = datetime.fromtimestamp(now, UTC)
        try:
            due = await asyncio.to_thread(self.store.due_games, moment)
        except Exception as exc:
            log.warning("cannot look for games whose time ran out: %s", exc)
            return
        for game_id in due:
            if game_id in self.games or self.clock_retry.get(game_id, 0.0) > time.monotonic():
                continue
            try:
                await self.get(game_id)
            except ApiError as exc:
                log.warning("game %s, whose time ran out, cannot be loaded: %s", game_id,
                            exc.message)
                self.clock_retry[game_id] = time.monotonic() + RETRY_MAX

    async def _time_out(self, live: LiveGame) -> None:
        """The running seat's time ran out: the game's timeout bot makes that one decision
        for it, through the normal path (lock, store with the clock, notify, cluster
        events); after ``takeover_after`` timeouts in a row the bot keeps the seat. A
        failure is tried again after a pause; a process that lost the game lets it go."""
        try:
            async with live.lock:
                if not self._clock_owner(live):
                    return
                await self._clear_doubt(live)
                clock, now = live.clock, self.now()
                deadline = None if clock is None else clock.deadline
                if clock is None or clock.running is None or deadline is None \
                        or deadline > now or live.timeout_bot is None:
                    return  # decided meanwhile, or already timed out
                seat, stored = clock.running, live.version
                log.info("game %s: seat %d's time ran out; %s decides", live.game_id, seat,
                         clock.control.timeout_bot)
                try:
                    await asyncio.get_running_loop().run_in_executor(
                        self.bot_pool, self._bot_step, live, seat, live.timeout_bot)
                    if self.bot_delay <= 0:
                        await self._quick_bots(live, BOT_BURST)
                except Exception:
                    live.roll_back()
                    raise
                await self._store(live, stored, timed_out=seat)
            self.clock_retry.pop(live.game_id, None)
        except NotOwner:
            return  # the new owner's timer fires it
        except ApiError as exc:
            log.warning("game %s: the timeout could not be stored: %s", live.game_id,
                        exc.message)
            self.clock_retry[live.game_id] = time.monotonic() + 1.0
            return
        self.notify(live)
        self.kick_bots(live)

    @staticmethod
    def _clock_due_to_start(live: LiveGame) -> bool:
        """Every human seat has joined and a human seat is to decide, but its clock has not
        started (it starts when the last seat joins, whichever process that joined on)."""
        clock, snapshot = live.clock, live.snapshot
        return (clock is not None and snapshot is not None and clock.running is None
                and clock.runs_for(snapshot.state, live.humans, live.all_joined) is not None)

    async def start_clock(self, live: LiveGame) -> None:
        """Start a timed game's clock once its last seat has joined, on the process that
        owns the game (it stores the clock, fenced like steps, so a clock started on one
        process is never overwritten by the owner's older one). Nothing when the clock runs
        or a bot is to decide (its steps start it); a failure to store is tried again by
        the timer."""
        if not self._clock_owner(live) or not self._clock_due_to_start(live):
            return
        async with live.lock:
            if not self._clock_owner(live) or not self._clock_due_to_start(live):
                return
            clock, snapshot = live.clock, live.snapshot
            assert clock is not None and snapshot is not None
            fresh = clock.restart(snapshot.state, live.humans, live.all_joined, self.now())
            fence = None if self.cluster is None else self.cluster.fence(live)
            try:
                await asyncio.shield(self.writer.add_steps(
                    live.game_id, live.version, [], None, fence, stored_clock(fresh)))
            except Exception as exc:
                log.warning("cannot start the clock of game %s: %s", live.game_id, exc)
                return
            live.set_clock(fresh)
            live.forget_views()
        if self.cluster is not None:
            self.cluster.changed(live, "clock")
        self.wake_clock()
        self.notify(live)

    async def reload_clock(self, live: LiveGame) -> None:
        """Read a timed game's clock again (a copy following its owner, several
        processes)."""
        try:
            data = await asyncio.to_thread(self.store.clock_of, live.game_id)
        except Exception as exc:
            log.warning("cannot read the clock of game %s: %s", live.game_id, exc)
            return
        if data is None:
            return
        try:
            clock = Clock.from_json(data)
        except (ValueError, TypeError, KeyError) as exc:
            log.error("the clock of game %s cannot be read: %r", live.game_id, exc)
            return
        if clock != live.clock:
            live.set_clock(clock)
            live.forget_views()
            self.notify(live)

    async def take_back(self, live: LiveGame, seat: int) -> LiveGame:
        """The player of ``seat`` takes it back from the timeout bot (409 ``not_taken_over``
        when the bot does not play it). With several processes the game's owner does it."""
        live = self.current(live)
        if self.cluster is None:
            return await self.take_back_here(live, seat)
        for _ in range(3):
            try:
                return await self.cluster.act(live, seat, None, None, None, op="takeback")
            except NotOwner:
                continue
        raise ApiError(503, "storage_unavailable", "the game keeps moving between servers; "
                       "nothing changed: try again")

    async def take_back_here(self, live: LiveGame, seat: int) -> LiveGame:
        """``take_back`` in this process (its only one, or the owner of the game): the clock
        is stored (fenced, like steps) before anyone sees it."""
        async with live.lock:
            if self.cluster is not None and live.lease is None:
                raise NotOwner(live.game_id)
            await self._clear_doubt(live)
            clock, snapshot = live.clock, live.snapshot
            assert snapshot is not None
            if clock is None or seat not in clock.taken:
                raise ApiError(409, "not_taken_over", f"seat {seat + 1} is played by its "
                               "player, not by the timeout bot", input=seat)
            if snapshot.state.is_over:
                raise ApiError(409, "game_over", "the game is over")
            fresh = clock.take_back(seat, snapshot.state, live.humans, live.all_joined,
                                    self.now())
            fence = None if self.cluster is None else self.cluster.fence(live)
            writing = self.writer.add_steps(live.game_id, live.version, [], None, fence,
                                            stored_clock(fresh))
            try:
                await asyncio.shield(writing)
            except LeaseLost as exc:
                if self.cluster is not None:
                    self.cluster.demote(live)
                    self.spawn(self.cluster.follow(live))
                raise NotOwner(live.game_id) from exc
            except Exception as exc:
                log.error("cannot store the clock of game %s: %s", live.game_id, exc)
                raise ApiError(503, "storage_unavailable", "the seat could not be taken "
                               "back; try again") from exc
            live.set_clock(fresh)
            live.forget_views()
        if self.cluster is not None:
            self.cluster.changed(live, "clock")
        self.wake_clock()
        self.notify(live)
        return live

    # --- bots and listeners -------------------------------------------------------------

    def _turned(self, live: LiveGame) -> None:
        """A version or the seats were stored here: tell ``on_turn`` (notify.py)."""
        if self.on_turn is not None:
            self.on_turn(live)

    def notify(self, live: LiveGame) -> None:
        for event in live.listeners:
            event.set()

    @staticmethod
    def _bot_seat(live: LiveGame) -> int | None:
        """The bot seat to decide now; bots wait until every human seat has joined."""
        state = live.game.state
        if state.is_over or not live.all_joined:
            return None
        seat = state.pending.seat
        return seat if 0 <= seat < len(live.bots) and live.bot_of(seat) is not None else None

    def kick_bots(self, live: LiveGame) -> None:
        if self.cluster is not None and live.lease is None:
            return  # a game's bots play on its owner only
        if (live.bot_task is None or live.bot_task.done()) and self._bot_seat(live) is not None:
            live.bot_task = asyncio.create_task(self._run_bots(live))

    async def _run_bots(self, live: LiveGame) -> None:
        """Bot decisions until a human is to decide. A storage failure is waited out with a
        growing pause (the game is as stored meanwhile); a bot that fails decides its first
        legal action."""
        failures = 0
        while True:
            if self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)  # a visible pause between decisions
            try:
                if not await self._bot_turn(live):
                    return
                failures = 0
            except NotOwner:
                return  # the new owner's bots play on
            except (ApiError, BrokenProcessPool) as exc:
                if isinstance(exc, ApiError) and exc.status != 503:
                    log.error("bot stopped in game %s: %s", live.game_id, exc.message)
                    return
                failures += 1
                pause = min(RETRY_MAX, 0.25 * 2 ** failures)
                log.warning("bots of game %s wait %.1f s: %s", live.game_id, pause, exc)
                await asyncio.sleep(pause)

    async def _bot_turn(self, live: LiveGame) -> bool:
        """One bot decision, or a burst of quick ones without a pause; False when no bot is
        to decide. A search runs without the game's lock, so people can still give gold;
        its choice is applied only if the decision is still the one it searched."""
        async with live.lock:
            if self.cluster is not None and live.lease is None:
                return False
            await self._clear_doubt(live)
            seat = self._bot_seat(live)
            if seat is None:
                return False
            spec = bot_spec(live, seat)
            if quick(spec):
                # Without a pause nobody can follow single bot decisions: the bots play
                # on in one run and the seats get one view afterwards.
                stored = live.version
                await self._quick_bots(live, 1 if self.bot_delay > 0 else BOT_BURST)
                await self._store(live, stored)
                self.notify(live)
                return True
            state, pending = live.game.state, live.game.state.pending
            seed = live.bot_seed(seat)
        try:
            action = await self.searches.choose(live.owner, spec, state, seat, seed)
        except BrokenProcessPool:
            raise
        except Exception:  # a failing bot must not stall the game
            log.exception("bot %r failed in game %s", spec, live.game_id)
            action = legal_actions(state)[0]
        async with live.lock:
            if self.cluster is not None and live.lease is None:
                return False
            await self._clear_doubt(live)
            now = live.game.state
            if now.pending != pending or action not in legal_actions(now):
                return True  # the game moved on meanwhile: think again
            await self._apply(live, action, seat)
        self.notify(live)
        return True

    def _bot_run(self, live: LiveGame, limit: int, here: bool = False) -> int:
        """Up to ``limit`` quick bot decisions in place (not stored yet); a searching bot's
        turn ends the run, and ``here`` (on the event loop) any bot's but a random one's.
        Returns how many of ``limit`` are left."""
        for done in range(limit):
            seat = self._bot_seat(live)
            if seat is None:
                return limit - done
            spec = bot_spec(live, seat)
            if not (instant(spec) if here else quick(spec)):
                return limit - done
            self._bot_step(live, seat)
        return 0

    def _bot_step(self, live: LiveGame, seat: int, bot: Bot | None = None) -> None:
        """One decision of the bot playing ``seat`` (``bot``: the timeout bot deciding for
        a seat whose time ran out), applied in place."""
        state: GameState = live.game.state
        if bot is None:
            played = live.bot_of(seat)
            assert played is not None
            bot = played[1]
        legal = legal_actions(state)
        try:
            action = bot.choose(SeatView(state, seat), legal, live.bot_rng(seat))
        except Exception:  # a failing bot must not stall the game
            log.exception("bot %r failed in game %s", bot_spec(live, seat), live.game_id)
            action = legal[0]
        try:  # checked by the engine (asking ``action in legal`` here would build the list)
            self._play(live, action, seat)
        except ApiError:
            log.error("bot %r chose %r, which is not legal, in game %s",
                      bot_spec(live, seat), action, live.game_id)
            self._play(live, legal[0], seat)


def already_joined(seat: int, info: SeatInfo) -> str:
    """The refusal of a join link whose seat is taken (numbered as the lobby numbers seats)."""
    who = "" if info.account is None else f" ({info.name})"
    return (f"seat {seat + 1}{who} has already joined — ask the seat's player to hand it "
            "over from their game page")


def _sits_once(seats: list[dict[str, Any]], seat: int, account: Account) -> None:
    """One player, one seat per game: 409 when the account sits at another seat."""
    for other, data in enumerate(seats):
        if other != seat and data.get("account") == account.id:
            raise ApiError(409, "already_seated", f"you already play seat {other + 1} of "
                           "this game")


def bot_spec(live: LiveGame, seat: int) -> str:
    """The spec of the bot playing ``seat`` (its own, or the timeout bot of a seat taken
    over); "" when its player plays it."""
    played = live.bot_of(seat)
    return "" if played is None else played[0]


def stored_clock(clock: Clock | None) -> StoredClock:
    """A clock as ``games.clock`` and ``games.deadline`` hold it."""
    assert clock is not None
    return clock.to_json(), stored_deadline(clock)


def bot_name(spec: str) -> str:
    """The registry name of a bot spec: ``"mcts"`` of ``"MCTS: time=1"``."""
    return spec.partition(":")[0].strip().lower()


def quick(spec: str) -> bool:
    """A bot that decides in a few milliseconds at most (no search): random, greedy and
    careless, and ppo (a few passes of a small network, on the policy the server loaded
    once); a level as the bot it plays. The others search in the worker processes."""
    return bot_name(resolve(spec)) in QUICK_BOTS


def instant(spec: str) -> bool:
    """A bot that decides in microseconds (random): it plays on the event loop."""
    return bot_name(resolve(spec)) in INSTANT_BOTS


def stored_summary(row: StoredGame) -> dict[str, Any]:
    """The lobby's summary of a game that is not in memory; raises when the row is not one."""
    seats = [SeatInfo.from_json(s) for s in row.seats]
    mode = row.config.get("mode", "free_for_all")
    if mode not in MODES or row.status not in ("open", "running", "over") \
            or len(seats) != row.config.get("players", 2):
        raise ValueError(f"not a game: mode {mode!r}, status {row.status!r}, "
                         f"{len(seats)} seats")
    control = None if row.clock is None else row.clock.get("control")
    result = row.result if row.status == "over" else None
    winners = None if result is None else [int(s) for s in result.get("winners", [])]
    team = None if result is None or result.get("team") is None else int(result["team"])
    return _summary(row.id, str(row.name), mode, row.config, seats, row.status, row.created,
                    row.hints, row.rated, row.open_seats,
                    control if isinstance(control, dict) else None,
                    row.finished if row.status == "over" else None, winners, team)


def stored_result(state: GameState) -> dict[str, Any]:
    """Who won a finished game, as ``games.result`` keeps it: the winning seats (every
    member of the winning team, R23.34; none in a draw) and the winning team."""
    result = state.result
    if result is None:
        return {"winners": [], "team": None}
    if result.team is not None:
        return {"winners": [s for s in range(state.n) if state.team[s] == result.team],
                "team": result.team}
    return {"winners": [] if result.winner is None else [result.winner], "team": None}


def public_options(config: Mapping[str, Any]) -> dict[str, Any]:
    """The game's ruleset options of R3.3 (public: every player knows the rules played)."""
    return {name: config[name] for name in OPTIONS if name in config}


def summary(live: LiveGame, finished: datetime | None = None) -> dict[str, Any]:
    """The public summary of a game (no codes, tokens or seed); ``finished``: when a
    finished game ended as stored, for a game this process did not see end."""
    over = live.status == "over"
    result = stored_result(live.game.state) if over else None
    return _summary(live.game_id, live.name, live.game.config.mode,
                    live.game.config.to_json(), live.seats, live.status, live.created,
                    live.hints, live.rated, live.open_seats,
                    None if live.clock is None else live.clock.control.to_json(),
                    (live.finished or finished) if over else None,
                    None if result is None else result["winners"],
                    None if result is None else result["team"])


def _summary(game_id: str, name: str, mode: str, config: Mapping[str, Any],
             seats: Sequence[SeatInfo], status: str, created: datetime,
             hints: bool, rated: bool, open_seats: bool,
             time_control: dict[str, Any] | None = None, finished: datetime | None = None,
             winners: list[int] | None = None, team: int | None = None) -> dict[str, Any]:
    teams = seat_teams(mode, len(seats))
    return {
        "game_id": game_id, "name": name, "mode": mode, "players": len(seats),
        "options": public_options(config), "hints": hints,
        "seats": [{"seat": i, "kind": s.kind, "bot": s.bot, "joined": s.joined,
                   "player": s.name, "team": None if teams is None else teams[i]}
                  for i, s in enumerate(seats)],
        "status": status, "created": created.isoformat(), "rated": rated,
        "open_seats": open_seats, "time_control": time_control,
        "finished_at": None if finished is None else finished.isoformat(),
        "winners": winners, "winning_team": team,
    }
