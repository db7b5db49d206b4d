"""Ratings in the database: recording a finished rated game once, profiles, the leaderboard.

Two tables (migration 0007, docs/server.md "Ratings"): ``ratings`` holds every account's
current OpenSkill rating per category (``all`` and the game's own, ``ratings.categories``),
``rating_history`` one row per account, category and rated game: the rating after it, the
place, whether it won, and the game's mode, player count and the seat's realm (so a profile
counts games per realm and per player count from the history alone).

A game is rated exactly once whatever the number of processes and retries: its history rows
(primary key account, category, game) are inserted in the transaction that updates the
ratings; a second try finds them (or collides with them) and changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    desc,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from ..bots.levels import levels
from ..rules.state import GameState
from ..rules.units import REALMS
from .accounts import name_key
from .live import LiveGame
from .ratings import ALL, Skill, bot_kind, bot_skill, categories, display, rate_game
from .storage import Store, accounts, games, metadata, stored_time

log = logging.getLogger("kaladan.server")

ratings = Table(
    "ratings", metadata,
    Column("account_id", String(40), ForeignKey("accounts.id", ondelete="CASCADE"),
           primary_key=True),
    Column("category", String(32), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False),
    Index("ratings_category", "category"),
)
rating_history = Table(
    "rating_history", metadata,
    Column("account_id", String(40), ForeignKey("accounts.id", ondelete="CASCADE"),
           primary_key=True),
    Column("category", String(32), primary_key=True),
    Column("game_id", String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("place", Integer, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("mode", String(16), nullable=False),
    Column("players", Integer, nullable=False),
    Column("realm", String(16), nullable=True),
    Index("rating_history_game", "game_id"),
    Index("rating_history_account_at", "account_id", "at"),
)

ATTEMPTS = 3  # tries of one recording (a collision with another game's first rating row)
HISTORY_SHOWN = 200  # rating points a profile's chart shows (the latest)
RECENT_SHOWN = 20  # last games listed on a profile
LEADERBOARD_SHOWN = 100


@cache
def bot_ratings() -> dict[str, Skill]:
    """The bots' fixed ratings by kind, as the league measured them (data/bot_ratings.json,
    bench/bot_league.py)."""
    text = resources.files("kaladan.server").joinpath("data/bot_ratings.json").read_text(
        encoding="utf-8")
    return {kind: Skill(float(v["mu"]), float(v["sigma"]))
            for kind, v in json.loads(text)["bots"].items()}


@cache
def seat_ratings() -> dict[str, Skill]:
    """The fixed rating of every kind a bot seat may be: the measured ones, and a level the
    league has not measured as the bot it plays (``adept`` as ``mcts``)."""
    table = bot_ratings()
    out = dict(table)
    for level in levels():
        kind = bot_kind(level.bot)
        if level.name not in out and kind in table:
            out[level.name] = table[kind]
    return out


@dataclass(frozen=True, slots=True)
class SeatSubject:
    """Who sat at a seat, as ratings see it: an account, or a bot of a kind."""

    account: str | None = None
    bot: str | None = None  # the bot spec (``mcts:time=1``)
    realm: str | None = None  # the seat's realm (R2.1), None before one was chosen


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What rating a finished game needs; made on the event loop (``finished_game``)."""

    game_id: str
    at: datetime
    mode: str
    players: int
    state: GameState
    seats: tuple[SeatSubject, ...]
    lost_on_time: frozenset[int] = field(default_factory=frozenset)


def finished_game(live: LiveGame, at: datetime | None = None) -> FinishedGame | None:
    """The game to rate, or None when it is not rated: not a rated game, not over, a human
    seat without an account, no account at all, or one account at two seats."""
    state = live.game.state
    if not live.rated or not state.is_over or state.result is None:
        return None
    subjects: list[SeatSubject] = []
    for seat, info in enumerate(live.seats):
        realm = REALMS[state.realm[seat]] if state.realm[seat] >= 0 else None
        if info.kind == "bot":
            subjects.append(SeatSubject(bot=info.bot or "random", realm=realm))
        elif info.account is None:
            return None  # a guest at a human seat: nobody's rating changes
        else:
            subjects.append(SeatSubject(account=info.account, realm=realm))
    people = [s.account for s in subjects if s.account is not None]
    if not people or len(set(people)) < len(people):
        return None
    config = live.game.config
    return FinishedGame(live.game_id, at or datetime.now(UTC), str(config.mode.value),
                        config.players, state, tuple(subjects), frozenset(live.lost_on_time))


def record(store: Store, game: FinishedGame) -> bool:
    """Rate ``game`` once: True when this call rated it, False when it was rated already
    (by this process or another). Raises the database's error when it cannot be reached."""
    for attempt in range(ATTEMPTS):
        try:
            with store.writing() as c:  # the store's transaction (its SQLite write lock)
                return _record(c, game)
        except IntegrityError:
            with store.reading() as c:
                if _is_rated(c, game.game_id):
                    return False
            if attempt == ATTEMPTS - 1:
                raise
    return False


def _is_rated(c: Connection, game_id: str) -> bool:
    return c.execute(select(rating_history.c.game_id)
                     .where(rating_history.c.game_id == game_id).limit(1)).first() is not None


def _record(c: Connection, game: FinishedGame) -> bool:
    if _is_rated(c, game.game_id):
        return False
    people = [s.account for s in game.seats if s.account is not None]
    bots = seat_ratings()
    for cat in categories(game.mode, game.players):
        rows = {r.account_id: r for r in c.execute(
            select(ratings).where(ratings.c.category == cat, ratings.c.account_id.in_(people))
            .with_for_update())}
        skills = [bot_skill(s.bot or "", bots) if s.account is None else
                  Skill(rows[s.account].mu, rows[s.account].sigma) if s.account in rows else
                  Skill() for s in game.seats]
        fixed = [s.account is None for s in game.seats]
        for r in rate_game(game.state, skills, fixed, game.lost_on_time):
            subject = game.seats[r.seat]
            account = subject.account
            if account is None:
                continue  # a bot's rating is fixed
            c.execute(insert(rating_history).values(
                account_id=account, category=cat, game_id=game.game_id, at=game.at,
                mu=r.after.mu, sigma=r.after.sigma, place=r.place, won=r.won, mode=game.mode,
                players=game.players, realm=subject.realm))
            old = rows.get(account)
            if old is None:
                c.execute(insert(ratings).values(
                    account_id=account, category=cat, mu=r.after.mu, sigma=r.after.sigma,
                    games=1, wins=int(r.won), updated=game.at))
            else:
                c.execute(update(ratings).where(ratings.c.account_id == account,
                                                ratings.c.category == cat)
                          .values(mu=r.after.mu, sigma=r.after.sigma, games=old.games + 1,
                                  wins=old.wins + int(r.won), updated=game.at))
    return True


async def record_finished(store: Store, live: LiveGame) -> None:
    """The service's hook once a game's last step is stored (and when a finished game is
    loaded again, which retries a recording that failed): rate it if it is a rated game, off
    the event loop. Never raises: a failure is logged, and the next load tries again."""
    game = finished_game(live)
    if game is None:
        return
    started = time.monotonic()
    try:
        if await asyncio.to_thread(record, store, game):
            log.info("rated game %s in %.3f s", game.game_id, time.monotonic() - started)
    except Exception:
        log.exception("cannot rate game %s (tried again when it is next loaded)",
                      game.game_id)


# --- reading -----------------------------------------------------------------------------


def _iso(value: Any) -> str:
    return stored_time(value).astimezone(UTC).isoformat()


def _skill_json(mu: float, sigma: float) -> dict[str, Any]:
    return {"mu": mu, "sigma": sigma, "display": display(mu, sigma)}


def profile(store: Store, name: str) -> dict[str, Any] | None:
    """A player's profile (docs/api.md "Players"); None for no such (or a deleted) account."""
    with store.reading() as c:
        account = c.execute(select(accounts.c.id, accounts.c.name, accounts.c.created)
                            .where(accounts.c.name_key == name_key(name),
                                   accounts.c.deleted.is_(None))).first()
        if account is None:
            return None
        rows = c.execute(select(ratings).where(ratings.c.account_id == account.id)).all()
        history = c.execute(
            select(rating_history.c.game_id, rating_history.c.at, rating_history.c.mu,
                   rating_history.c.sigma, rating_history.c.place, rating_history.c.won,
                   rating_history.c.mode, rating_history.c.players, rating_history.c.realm,
                   games.c.name)
            .join(games, games.c.id == rating_history.c.game_id)
            .where(rating_history.c.account_id == account.id, rating_history.c.category == ALL)
            .order_by(desc(rating_history.c.at), desc(rating_history.c.game_id))).all()
    by_category = {r.category: {**_skill_json(r.mu, r.sigma), "games": r.games, "wins": r.wins}
                   for r in rows}
    overall = by_category.get(ALL, {**_skill_json(Skill().mu, Skill().sigma), "games": 0,
                                    "wins": 0})
    by_realm: dict[str, dict[str, int]] = {}
    by_players: dict[str, dict[str, int]] = {}
    for h in history:
        for table, key in ((by_realm, h.realm), (by_players, str(h.players))):
            if key is None:
                continue
            count = table.setdefault(key, {"games": 0, "wins": 0})
            count["games"] += 1
            count["wins"] += int(h.won)
    return {
        "name": account.name,
        "created": _iso(account.created),
        "rating": {k: overall[k] for k in ("mu", "sigma", "display")},
        "games": overall["games"],
        "wins": overall["wins"],
        "ratings": by_category,
        "by_realm": by_realm,
        "by_players": by_players,
        "history": [{"game_id": h.game_id, "at": _iso(h.at),
                     **_skill_json(h.mu, h.sigma), "place": h.place}
                    for h in reversed(history[:HISTORY_SHOWN])],
        "recent": [{"game_id": h.game_id, "name": h.name, "at": _iso(h.at),
                    "mode": h.mode, "players": h.players, "place": h.place, "won": h.won,
                    "replay": f"/replay/{h.game_id}"} for h in history[:RECENT_SHOWN]],
    }


def leaderboard(store: Store, cat: str, min_games: int,
                limit: int = LEADERBOARD_SHOWN) -> list[dict[str, Any]]:
    """The accounts of category ``cat`` with at least ``min_games`` rated games, best
    display rating first (then more games, then the name)."""
    shown = ratings.c.mu - 3 * ratings.c.sigma
    with store.reading() as c:
        rows = c.execute(
            select(accounts.c.name, ratings.c.mu, ratings.c.sigma, ratings.c.games,
                   ratings.c.wins)
            .join(accounts, accounts.c.id == ratings.c.account_id)
            .where(ratings.c.category == cat, ratings.c.games >= min_games,
                   accounts.c.deleted.is_(None))
            .order_by(desc(shown), desc(ratings.c.games), func.lower(accounts.c.name))
            .limit(limit)).all()
    return [{"rank": i + 1, "name": r.name, **_skill_json(r.mu, r.sigma), "games": r.games,
             "wins": r.wins} for i, r in enumerate(rows)]


def bot_table() -> list[dict[str, Any]]:
    """The bots' fixed ratings, best first: the leaderboard's reference."""
    return [{"kind": kind, **_skill_json(s.mu, s.sigma)}
            for kind, s in sorted(bot_ratings().items(), key=lambda kv: -display(
                kv[1].mu, kv[1].sigma))]
