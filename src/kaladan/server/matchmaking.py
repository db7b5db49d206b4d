"""Quick match (docs/server.md "Open games and quick match"): signed-in players wait in one
queue per (mode, players, time control), kept in the database so that every server process
sees the same queue.

A queue is matched when it holds enough players for a game, or when its earliest player's
wait has passed: then the waiting players take seats and that player's bots fill the empty
ones. Matching claims the rows in one transaction that locks them (``FOR UPDATE SKIP
LOCKED`` on PostgreSQL, SQLite has one writer anyway), marking them ``pending``; the game is
then made and every claimed player seated by their account, and the rows get the game and
seat. Two processes matching at once never claim one row twice, so nobody lands in two
games. Each process tries on every queue request and on a timer (``Matchmaker.run``), which
also finds the queues whose wait has passed; a process that died between claiming and
seating leaves ``pending`` rows, put back in the queue after ``STUCK`` seconds.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Table,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from .accounts import ACCOUNT_COLUMNS, Account, _account
from .errors import ApiError
from .periodic import Periodic
from .service import HUMAN, GameService, check_bot_spec, make_config
from .storage import accounts, metadata

log = logging.getLogger("kaladan.server")

match_queue = Table(
    "match_queue", metadata,
    Column("account_id", String(40), ForeignKey("accounts.id", ondelete="CASCADE"),
           primary_key=True),
    Column("queue", String(400), nullable=False, index=True),
    Column("mode", String(40), nullable=False),
    Column("players", Integer, nullable=False),
    Column("time_control", JSON, nullable=True),
    Column("bots", String(100), nullable=False),
    Column("wait", Integer, nullable=False),
    Column("joined", DateTime(timezone=True), nullable=False),
    Column("game_id", String(40), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("matched", DateTime(timezone=True), nullable=True),
)

PENDING = "pending"  # the game_id of claimed rows while their game is being made
STUCK = 120.0  # seconds a claim may stay pending before its players queue again
MAX_TIME_CONTROL = 300  # characters of a time control as JSON


def queue_key(mode: str, players: int, time_control: Mapping[str, Any] | None) -> str:
    """The queue a request waits in: its mode, player count and time control."""
    control = "-" if time_control is None else json.dumps(time_control, sort_keys=True,
                                                          separators=(",", ":"))
    return f"{mode}/{players}/{control}"


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Claim:
    """Players claimed for one game, earliest first."""

    mode: str
    players: int
    time_control: dict[str, Any] | None
    bots: str  # the earliest player's choice, for the empty seats
    accounts: list[Account]


class Matchmaker:
    def __init__(self, service: GameService, interval: float = 1.0) -> None:
        self.service = service
        self.store = service.store
        self.interval = interval  # seconds between two looks at every queue
        self.loop = Periodic("kaladan-match", "quick match: cannot look at the queues",
                             self.sweep)

    # --- life cycle ---------------------------------------------------------------------

    def start(self) -> None:
        self.loop.start(self.interval)

    async def stop(self) -> None:
        await self.loop.stop()

    async def sweep(self) -> None:
        """Look at every queue: the waits that passed, the rows another process claimed and
        never seated, the queues two processes filled at once."""
        queues = await asyncio.to_thread(self._queues, datetime.now(UTC))
        for queue in queues:
            await self.match(queue)

    # --- a player's requests ------------------------------------------------------------

    async def enqueue(self, account: Account, mode: str, players: int,
                      time_control: dict[str, Any] | None, wait: int,
                      bots: str) -> dict[str, Any]:
        """Put ``account`` in the queue of (mode, players, time control), in place of any
        earlier place or match of theirs; 400 for a game the rules refuse or an unknown
        bot, 422 for a bot that cannot play it (no value network for the expert), 409
        ``matching`` while their game is being made."""
        config = make_config(mode, players, {}, None, False)  # 400 invalid_config
        bots = check_bot_spec(bots, self.service.settings.ppo_policy)
        await self.service.check_seats([bots], config)  # 422: it cannot play this game
        if time_control is not None and len(json.dumps(time_control)) > MAX_TIME_CONTROL:
            raise ApiError(400, "invalid_config", f"a time control has at most "
                           f"{MAX_TIME_CONTROL} characters of JSON")
        key = queue_key(mode, players, time_control)
        if not await self._call(self._enqueue, account.id, key, mode, players, time_control,
                                wait, bots):
            raise ApiError(409, "matching", "your game is being made; look again in a moment "
                           "(GET /api/match)")
        await self.match(key)
        return await self.status(account)

    async def status(self, account: Account) -> dict[str, Any]:
        row, position, count = await self._call(self._status, account.id)
        if row is None:
            return {"status": "none"}
        base = {"mode": row.mode, "players": row.players, "time_control": row.time_control,
                "bots": row.bots, "wait": row.wait, "joined": _aware(row.joined).isoformat()}
        if row.game_id is None or row.game_id == PENDING:
            return {**base, "status": "waiting", "position": position, "count": count}
        return {**base, "status": "matched", "game_id": row.game_id, "seat": row.seat,
                "url": f"/play/{row.game_id}/{row.seat}"}

    async def leave(self, account: Account) -> dict[str, Any]:
        """Leave the queue (a match already made stays: the seat is the player's)."""
        await self._call(self._leave, account.id)
        return await self.status(account)

    async def _call(self, fn: Any, *args: Any) -> Any:
        try:
            return await asyncio.to_thread(fn, *args)
        except ApiError:
            raise
        except Exception as exc:
            log.error("quick match: the queue cannot be read or changed: %s", exc)
            raise ApiError(503, "storage_unavailable", "the queue cannot be reached now; "
                           "nothing changed: try again") from exc

    # --- matching -----------------------------------------------------------------------

    async def match(self, queue: str) -> str | None:
        """Make a game of ``queue`` when it is full or its earliest wait has passed; the
        game's id, or None."""
        try:
            claim = await asyncio.to_thread(self._claim, queue, datetime.now(UTC))
        except Exception as exc:
            log.warning("quick match: cannot claim players of %s: %s", queue, exc)
            return None
        if claim is None:
            return None
        try:
            return await self._seat(claim)
        except Exception as exc:
            log.error("quick match: the game of %s could not be made: %r", queue, exc)
            await asyncio.to_thread(self._unclaim, [a.id for a in claim.accounts])
            return None

    async def _seat(self, claim: Claim) -> str:
        service = self.service
        humans = len(claim.accounts)
        kinds = [HUMAN] * humans + [claim.bots] * (claim.players - humans)
        secrets.SystemRandom().shuffle(kinds)  # who starts is the draw's, not the queue's
        live, codes = await service.create(
            mode=claim.mode, seats=kinds, options={}, world=None, seed=None, quick=False,
            name="Quick match", client=f"match:{claim.accounts[0].id}",
            time_control=claim.time_control)
        seats: dict[str, int] = {}
        for (seat, code), account in zip(codes, claim.accounts, strict=True):
            await service.join(live, seat, code, account)
            seats[account.id] = seat
        await asyncio.to_thread(self._matched, live.game_id, seats)
        log.info("quick match: game %s for %d players and %d bots", live.game_id, humans,
                 claim.players - humans)
        return live.game_id

    # --- storage (worker threads) -------------------------------------------------------

    def _enqueue(self, account_id: str, key: str, mode: str, players: int,
                 time_control: dict[str, Any] | None, wait: int, bots: str) -> bool:
        with self.store.writing() as c:
            row = c.execute(select(match_queue.c.game_id)
                            .where(match_queue.c.account_id == account_id)).first()
            if row is not None and row.game_id == PENDING:
                return False
            c.execute(delete(match_queue).where(match_queue.c.account_id == account_id))
            c.execute(insert(match_queue).values(
                account_id=account_id, queue=key, mode=mode, players=players,
                time_control=time_control, bots=bots, wait=wait, joined=datetime.now(UTC)))
        return True

    def _status(self, account_id: str) -> tuple[Any, int, int]:
        with self.store.reading() as c:
            row = c.execute(select(match_queue)
                            .where(match_queue.c.account_id == account_id)).first()
            if row is None or row.game_id is not None:
                return row, 0, 0
            waiting = and_(match_queue.c.queue == row.queue, match_queue.c.game_id.is_(None))
            count = c.execute(select(func.count()).select_from(match_queue)
                              .where(waiting)).scalar_one()
            ahead = c.execute(select(func.count()).select_from(match_queue).where(
                waiting, or_(match_queue.c.joined < row.joined,
                             and_(match_queue.c.joined == row.joined,
                                  match_queue.c.account_id < account_id)))).scalar_one()
        return row, int(ahead) + 1, int(count)

    def _leave(self, account_id: str) -> None:
        with self.store.writing() as c:
            c.execute(delete(match_queue).where(match_queue.c.account_id == account_id,
                                                or_(match_queue.c.game_id.is_(None),
                                                    match_queue.c.game_id != PENDING)))

    def _queues(self, now: datetime) -> list[str]:
        """The queues with waiting players; pending claims older than ``STUCK`` queue
        again first."""
        stuck = and_(match_queue.c.game_id == PENDING,
                     match_queue.c.matched < now - timedelta(seconds=STUCK))
        with self.store.reading() as c:  # a read a second; a write only when needed
            again = c.execute(select(match_queue.c.account_id).where(stuck).limit(1)).first()
        if again is not None:
            with self.store.writing() as c:
                c.execute(update(match_queue).where(stuck).values(game_id=None, matched=None))
        with self.store.reading() as c:
            rows = c.execute(select(match_queue.c.queue).where(
                match_queue.c.game_id.is_(None)).distinct()).all()
        return [str(r.queue) for r in rows]

    def _claim(self, queue: str, now: datetime) -> Claim | None:
        """One transaction: lock the queue's waiting rows that no other process holds,
        and claim a game's worth of them when the queue is full or the earliest wait has
        passed."""
        with self.store.writing() as c:
            rows = c.execute(select(match_queue).where(
                match_queue.c.queue == queue, match_queue.c.game_id.is_(None))
                .order_by(match_queue.c.joined, match_queue.c.account_id)
                .with_for_update(skip_locked=True)).all()
            if not rows:
                return None
            first = rows[0]
            players = int(first.players)
            expired = _aware(first.joined) + timedelta(seconds=int(first.wait)) <= now
            if len(rows) < players and not expired:
                return None
            chosen = rows[:players]
            ids = [str(r.account_id) for r in chosen]
            c.execute(update(match_queue).where(match_queue.c.account_id.in_(ids))
                      .values(game_id=PENDING, matched=now))
            found = {str(r.id): _account(r) for r in c.execute(
                select(*ACCOUNT_COLUMNS).where(accounts.c.id.in_(ids)))}
        return Claim(str(first.mode), players, first.time_control, str(first.bots),
                     [found[i] for i in ids if i in found])

    def _unclaim(self, account_ids: list[str]) -> None:
        with self.store.writing() as c:
            c.execute(update(match_queue).where(match_queue.c.account_id.in_(account_ids),
                                                match_queue.c.game_id == PENDING)
                      .values(game_id=None, matched=None))

    def _matched(self, game_id: str, seats: Mapping[str, int]) -> None:
        with self.store.writing() as c:
            for account_id, seat in seats.items():
                c.execute(update(match_queue).where(match_queue.c.account_id == account_id)
                          .values(game_id=game_id, seat=seat))
