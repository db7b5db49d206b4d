"""The game service: live games in memory, one asyncio lock per game, bots on worker threads.

Every change goes through ``_apply`` on a worker thread while the game's lock is held: the
engine checks the decision, the step is stored (committed together with the steps other games
are storing at that moment, see ``Store.add_steps``), and only then do views move on. A decision
the database refuses is taken back, so memory and storage never disagree. Bots decide from
their seat's view on worker threads, with a short pause so people can follow.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
import secrets
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from ..bots.base import SeatView
from ..bots.registry import bot_codes, make_bot
from ..game import Game, is_gift
from ..record import ReplayError
from ..rules.actions import Action
from ..rules.config import MODES, OPTIONS, Config, Mode
from ..rules.errors import IllegalActionError, InvalidActionError, KaladanError
from ..rules.legal import legal_actions
from ..rules.state import GameState
from .errors import ApiError
from .live import LiveGame, SeatInfo
from .storage import Store, StoredGame

log = logging.getLogger("kaladan.server")

MAX_SEED = (1 << 63) - 1
GAME_ID_LENGTH = 40
HUMAN = "human"
# A bot's thinking budget per decision: a client must not be able to tie up the server.
BOT_LIMITS = {"time": 10.0, "iterations": 20_000, "horizon": 200, "width": 50}
BOT_BURST = 100  # bot decisions per worker call when bots do not pause


def digest(secret: str) -> str:
    """Only hashes of join codes and tokens are stored (they are long random strings)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def check_bot_spec(spec: str) -> str:
    """A bot of the registry (``random``, ``greedy``, ``mcts:...``): never a file path, which
    would let a client run code on the server."""
    name = spec.strip().partition(":")[0].lower()
    if name not in bot_codes() or ".py" in spec or "/" in spec:
        raise ApiError(400, "unknown_bot", f"unknown seat kind {spec!r}: use 'human' or one "
                       f"of {', '.join(bot_codes())}", input=spec)
    try:
        make_bot(spec)
    except KaladanError as exc:
        raise ApiError(400, "unknown_bot", str(exc), input=spec) from exc
    for item in filter(None, spec.partition(":")[2].split(",")):
        key, _, value = item.partition("=")
        limit = BOT_LIMITS.get(key.strip())
        if limit is not None and float(value) > limit:  # make_bot checked it is a number
            raise ApiError(400, "bot_too_slow", f"{key.strip()}={value.strip()} is over this "
                           f"server's limit of {limit:g} per decision", input=spec)
    return spec.strip()


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


def rebuild(stored: StoredGame) -> LiveGame:
    """Replay a stored game: every step must be legal and cause the recorded chance."""
    game = Game.new(Config.from_json(stored.config), stored.seed)
    seats = [SeatInfo.from_json(s) for s in stored.seats]
    live = LiveGame(stored.id, stored.name, stored.created, game, seats,
                    [None if s.bot is None else make_bot(s.bot) for s in seats])
    for i, (seat, text, chance) in enumerate(stored.steps):
        if game.state.pending.seat != seat and not is_gift(text):  # R23.11
            raise ReplayError(f"step {i} ({text!r}): seat {seat} stored, seat "
                              f"{game.state.pending.seat} to decide")
        game.play(text, seat)  # the log entries too: the same decisions make the same log
        step = game.steps[-1]
        if list(step.chance) != chance:
            raise ReplayError(f"step {i} ({text!r}): chance {list(step.chance)} differs "
                              f"from the stored {chance}")
    live.publish()
    return live


class GameService:
    def __init__(self, store: Store, bot_delay: float) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.games: dict[str, LiveGame] = {}
        self._loading = asyncio.Lock()
        # Bots think on their own threads: a slow search never holds up people's decisions,
        # which run on asyncio's default pool.
        self.bot_pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2),
                                           thread_name_prefix="kaladan-bot")

    # --- life cycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Migrate the database and resume every unfinished game where it was."""
        await asyncio.to_thread(self.store.upgrade)
        for game_id in await asyncio.to_thread(self.store.game_ids, True):
            live = await asyncio.to_thread(self._load, game_id)
            if live is not None:
                self.games[game_id] = live
                self._kick_bots(live)

    async def stop(self) -> None:
        tasks = [g.bot_task for g in self.games.values() if g.bot_task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
        self.store.dispose()

    def _load(self, game_id: str) -> LiveGame | None:
        stored = self.store.load(game_id)
        if stored is None:
            return None
        try:
            return rebuild(stored)
        except KaladanError as exc:  # a damaged or incompatible game must not stop the server
            log.error("game %s cannot be rebuilt: %s", game_id, exc)
            return None

    async def get(self, game_id: str) -> LiveGame:
        """A game by id (finished games are rebuilt on first use); 404 when unknown."""
        live = self.games.get(game_id)
        if live is not None:
            return live
        if len(game_id) > GAME_ID_LENGTH:
            raise ApiError(404, "unknown_game", "no such game", input=game_id[:GAME_ID_LENGTH])
        async with self._loading:
            live = self.games.get(game_id)
            if live is None:
                live = await asyncio.to_thread(self._load, game_id)
                if live is None:
                    raise ApiError(404, "unknown_game", f"no game {game_id!r}", input=game_id)
                self.games[game_id] = live
        return live

    # --- lobby --------------------------------------------------------------------------

    async def create(self, *, mode: str, seats: Sequence[str], options: Mapping[str, str],
                     world: Mapping[str, Any] | None, seed: int | None, quick: bool,
                     name: str) -> tuple[LiveGame, list[tuple[int, str]]]:
        """A new game; returns it with the one-time join code of every human seat."""
        kinds = [HUMAN if s.strip().lower() == HUMAN else check_bot_spec(s) for s in seats]
        config = make_config(mode, len(kinds), options, world, quick)
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
        live = LiveGame(game_id, name or f"Game {game_id[2:8]}", datetime.now(UTC), game,
                        infos, [None if s.bot is None else make_bot(s.bot) for s in infos])
        await asyncio.to_thread(self.store.create_game, game_id, live.name, live.created,
                                config.to_json(), seed, live.status,
                                [s.to_json() for s in infos])
        self.games[game_id] = live
        self._kick_bots(live)
        return live, codes

    async def summaries(self, limit: int = 200) -> list[dict[str, Any]]:
        """The newest games, newest first; live ones from memory, the rest as stored."""
        rows = await asyncio.to_thread(self.store.recent, limit)
        out = []
        for row in rows:
            live = self.games.get(row.id)
            if live is not None:
                out.append(summary(live))
                continue
            seats = [SeatInfo.from_json(s) for s in row.seats]
            out.append({
                "game_id": row.id, "name": row.name, "mode": row.config.get("mode"),
                "players": len(seats), "options": public_options(row.config),
                "seats": [{"seat": i, "kind": s.kind, "bot": s.bot, "joined": s.joined}
                          for i, s in enumerate(seats)],
                "status": row.status, "created": row.created.isoformat()})
        return out

    async def join(self, live: LiveGame, seat: int, code: str) -> str:
        """Exchange a seat's one-time join code for its token (handed out once)."""
        async with live.lock:
            info = self._human_seat(live, seat)
            if info.token_hash is not None:
                raise ApiError(409, "already_joined", f"seat {seat} has already joined")
            if info.code_hash is None or not hmac.compare_digest(digest(code), info.code_hash):
                raise ApiError(403, "bad_code", f"wrong join code for seat {seat}")
            token = secrets.token_urlsafe(32)
            seats = [s.to_json() for s in live.seats]
            seats[seat] = SeatInfo(HUMAN, None, None, digest(token)).to_json()
            status = "over" if live.game.is_over else (
                "running" if all(s.joined for i, s in enumerate(live.seats) if i != seat)
                else "open")
            await asyncio.to_thread(self.store.update_game, live.game_id, status=status,
                                    seats=seats)
            live.seats[seat] = SeatInfo.from_json(seats[seat])
            live.forget_views()
        self._notify(live)
        self._kick_bots(live)
        return token

    @staticmethod
    def _human_seat(live: LiveGame, seat: int) -> SeatInfo:
        if not 0 <= seat < len(live.seats):
            raise ApiError(404, "unknown_seat", f"game {live.game_id} has no seat {seat}",
                           input=seat)
        info = live.seats[seat]
        if info.kind != HUMAN:
            raise ApiError(404, "unknown_seat", f"seat {seat} is a bot, not a human seat",
                           input=seat)
        return info

    @staticmethod
    def seat_for_token(live: LiveGame, token: str) -> int:
        hashed = digest(token)
        for seat, info in enumerate(live.seats):
            if info.token_hash is not None and hmac.compare_digest(hashed, info.token_hash):
                return seat
        raise ApiError(403, "bad_token", "this token belongs to no seat of this game")

    # --- playing ------------------------------------------------------------------------

    async def act(self, live: LiveGame, seat: int, text: str | None, index: int | None,
                  version: int | None) -> None:
        """Apply a seat's decision (by text or by index into its legal actions), or a gift
        of gold by any seat at any moment (R23.11, by text): a gift leaves the pending
        decision where it is, and it waits for the game's lock like every decision, so it
        never lands in the middle of a bot's."""
        async with live.lock:
            state = live.game.state
            if state.is_over:
                raise ApiError(409, "game_over", "the game is over", input=text)
            if version is not None and version != live.version:
                raise ApiError(409, "stale_version", f"the game is at version {live.version}, "
                               f"not {version}", input=version)
            if state.pending.seat != seat and not (text is not None and is_gift(text)):
                # R23.11: a gift is the one action taken out of turn, by its text (an index
                # points into the legal list of the seat to decide).
                hint = (" (out of turn a gift is sent as its text, 'gift <ally> <amount>')"
                        if index is not None and live.game.gifts(seat) else "")
                raise ApiError(409, "not_your_turn", f"seat {state.pending.seat} is to "
                               f"decide, not seat {seat}{hint}", "R6.5",
                               text if index is None else index)
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
            await asyncio.to_thread(self._apply, live, action, seat)
        self._notify(live)
        self._kick_bots(live)

    def _apply(self, live: LiveGame, action: Action | str, seat: int) -> None:
        """Worker thread, game lock held: check, apply, store, then publish. Quick bots
        without a pause answer in the same call: one transaction and one view for the run."""
        stored = live.version
        self._play(live, action, seat)
        if self.bot_delay <= 0 and live.quick_bots:
            try:
                self._bot_run(live, BOT_BURST)
            except ApiError as exc:  # the seat's own decision stands
                log.error("bot stopped in game %s: %s", live.game_id, exc.message)
        self._store(live, stored)

    def _play(self, live: LiveGame, action: Action | str, seat: int) -> None:
        """Check and apply one decision in memory (not yet stored nor shown)."""
        shown = action if isinstance(action, str) else None
        try:
            live.game.play(action, seat)
        except IllegalActionError as exc:
            raise ApiError(422, "illegal_action", exc.reason, exc.rule, shown) from exc
        except InvalidActionError as exc:
            raise ApiError(400, "invalid_action", str(exc), None, shown) from exc
        except KaladanError as exc:
            raise ApiError(422, "illegal_action", str(exc), getattr(exc, "rule", None),
                           shown) from exc
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            log.exception("action %r in game %s could not be read", shown, live.game_id)
            raise ApiError(400, "invalid_action", f"cannot read action {shown!r}", None,
                           shown) from exc

    def _store(self, live: LiveGame, stored: int) -> None:
        """Store the steps after version ``stored`` in one transaction, then publish them.
        If the database refuses, the game goes back to what it holds: storage is the truth,
        and nobody saw the lost steps. The log lives in the Game, so it goes back with it."""
        game = live.game
        new = [(s.seat, s.action, s.chance) for s in game.steps[stored:]]
        try:
            self.store.add_steps(live.game_id, stored, new, "over" if game.is_over else None)
        except Exception as exc:
            log.exception("cannot store steps of game %s", live.game_id)
            live.game = self._stored_game(live, stored)
            live.publish()
            raise ApiError(503, "storage_unavailable", "the decision could not be stored; "
                           "try again") from exc
        live.publish()

    def _stored_game(self, live: LiveGame, stored: int) -> Game:
        """The game as the database holds it; when it cannot be read either, the game's
        own first ``stored`` steps replayed (they were stored before)."""
        try:
            restored = self._load(live.game_id)
        except Exception:
            log.exception("cannot read game %s back", live.game_id)
            restored = None
        if restored is not None:
            return restored.game
        game = Game.new(live.game.config, live.game.seed)
        for step in live.game.steps[:stored]:
            game.play(step.action, step.seat)
        return game

    # --- bots and listeners -------------------------------------------------------------

    def _notify(self, live: LiveGame) -> None:
        for event in live.listeners:
            event.set()

    @staticmethod
    def _bot_seat(live: LiveGame) -> int | None:
        """The bot seat to decide now; bots wait until every human seat has joined."""
        state = live.game.state
        if state.is_over or live.status == "open":
            return None
        seat = state.pending.seat
        return seat if 0 <= seat < len(live.bots) and live.bots[seat] is not None else None

    def _kick_bots(self, live: LiveGame) -> None:
        if (live.bot_task is None or live.bot_task.done()) and self._bot_seat(live) is not None:
            live.bot_task = asyncio.create_task(self._run_bots(live))

    async def _run_bots(self, live: LiveGame) -> None:
        try:
            while True:
                if self.bot_delay > 0:
                    await asyncio.sleep(self.bot_delay)  # a visible pause between decisions
                async with live.lock:
                    if self._bot_seat(live) is None:
                        return
                    # Without a pause nobody can follow single bot decisions: the bots play
                    # on in one worker call and the seats get one view afterwards.
                    limit = 1 if self.bot_delay > 0 else BOT_BURST
                    await asyncio.get_running_loop().run_in_executor(
                        self.bot_pool, self._bot_steps, live, limit)
                self._notify(live)
        except ApiError as exc:
            log.error("bot stopped in game %s: %s", live.game_id, exc.message)

    def _bot_steps(self, live: LiveGame, limit: int) -> None:
        """Up to ``limit`` bot decisions, stored together."""
        stored = live.version
        try:
            self._bot_run(live, limit)
        finally:
            self._store(live, stored)

    def _bot_run(self, live: LiveGame, limit: int) -> None:
        for _ in range(limit):
            seat = self._bot_seat(live)
            if seat is None:
                return
            self._bot_step(live, seat)

    def _bot_step(self, live: LiveGame, seat: int) -> None:
        state: GameState = live.game.state
        bot = live.bots[seat]
        assert bot is not None
        legal = legal_actions(state)
        try:
            action = bot.choose(SeatView(state, seat), legal, live.bot_rng(seat))
        except Exception:  # a failing bot must not stall the game
            log.exception("bot %r failed in game %s", live.seats[seat].bot, live.game_id)
            action = legal[0]
        if action not in legal:
            action = legal[0]
        self._play(live, action, seat)


def public_options(config: Mapping[str, Any]) -> dict[str, Any]:
    """The game's ruleset options of R3.3 (public: every player knows the rules played)."""
    return {name: config[name] for name in OPTIONS if name in config}


def summary(live: LiveGame) -> dict[str, Any]:
    """The public summary of a game (no codes, tokens or seed)."""
    return {
        "game_id": live.game_id, "name": live.name, "mode": live.game.config.mode,
        "players": len(live.seats), "options": public_options(live.game.config.to_json()),
        "seats": [{"seat": i, "kind": s.kind, "bot": s.bot, "joined": s.joined}
                  for i, s in enumerate(live.seats)],
        "status": live.status, "created": live.created.isoformat(),
    }
