"""Whose turn it is, for signed-in players (docs/server.md "Notifications"): the games of a
player with the ones waiting for them first (``GET /api/me/games``), and e-mails when a game
waits for a player who asked for them.

The game's owner process tells the ``Notifier`` every time it publishes a new version
(``GameService.on_turn``). A turn is a seat becoming the one to decide after another seat
decided (gifts, taken out of turn, do not count); it is named by the version it began at.
``game_turns`` keeps each game's current turn and since when (what "my games" sorts by).

Mails: a turn of a player with a confirmed address who opted in (``notify_email``) and is
not connected to that game puts a row in ``turn_mails`` whose key is (account, game, turn),
inserted before anything is sent: a second insert of the same turn (another process, a
restart, a game read back) fails, so a turn is mailed at most once. Every ``interval``
seconds each process claims the rows nobody claimed (an UPDATE that sets ``sent``: one
process wins each row) and sends one mail per player listing every game where it became
their turn (a digest), leaving out games whose turn has passed meanwhile and games the
player is connected to on this process. Whether a player is connected is known per process:
with several processes a player connected to another process may get a mail (best effort).

Every mail carries a link that turns the mails off without signing in (RFC 8058 one-click:
``List-Unsubscribe`` and ``List-Unsubscribe-Post``); the link's secret is random, only its
hash is stored, a new one per mail.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Column,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Table,
    desc,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from ..game import is_gift
from .errors import ApiError
from .periodic import Periodic
from .storage import accounts, game_players, games, metadata

if TYPE_CHECKING:
    from .live import LiveGame
    from .mail import Mailer
    from .service import GameService

log = logging.getLogger("kaladan.server")

game_turns = Table(
    "game_turns", metadata,
    Column("game_id", String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("turn", Integer, nullable=False),
    Column("since", DateTime(timezone=True), nullable=False),
)
turn_mails = Table(
    "turn_mails", metadata,
    Column("account_id", String(40), ForeignKey("accounts.id", ondelete="CASCADE"),
           primary_key=True),
    Column("game_id", String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("turn", Integer, primary_key=True, autoincrement=False),
    Column("seat", Integer, nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("sent", DateTime(timezone=True), nullable=True, index=True),
)
unsubscribe_tokens = Table(
    "unsubscribe_tokens", metadata,
    Column("id", String(64), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("created", DateTime(timezone=True), nullable=False),
)

OVER = -1  # game_turns.seat of a finished game
MAIL_INTERVAL = 120.0  # seconds: turn mails of a player are gathered this long at most
MY_GAMES = 100  # the most games ``GET /api/me/games`` lists


def turn_of(live: LiveGame) -> tuple[int, int]:
    """(seat to decide, the version its turn began at) of what ``live`` published;
    (``OVER``, version) once the game is over."""
    snapshot = live.snapshot
    assert snapshot is not None
    if snapshot.state.is_over:
        return OVER, snapshot.version
    seat = snapshot.state.pending.seat
    steps = live.game.steps
    for index in range(snapshot.version - 1, -1, -1):
        step = steps[index]
        if step.seat != seat and not is_gift(step.action):  # R23.11: a gift is no turn
            return seat, index + 1
    return seat, 0


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Notifier:
    def __init__(self, service: GameService, mailer: Mailer | None,
                 public_url: str | None, interval: float = MAIL_INTERVAL) -> None:
        self.service = service
        self.store = service.store
        self.mailer = mailer
        self.base = (public_url or "").rstrip("/")
        self.interval = interval
        # game id -> the last turn recorded (seat, turn, the seat's account once all joined)
        self.known: dict[str, tuple[int, int, str | None]] = {}
        self.present: Counter[tuple[str, int]] = Counter()  # (game, seat) sockets here
        self.loop = Periodic("kaladan-turn-mails", "turn mails", self.flush)

    # --- life cycle ---------------------------------------------------------------------

    def start(self) -> None:
        if self.mailer is not None and not self.base:
            log.warning("turn mails without --public-url: their links are paths and they "
                        "carry no one-click unsubscribe header")
        if self.mailer is not None:
            self.loop.start(self.interval)  # a round that fails leaves its rows to the next

    async def stop(self) -> None:
        await self.loop.stop()

    @contextmanager
    def watching(self, game_id: str, seat: int | None) -> Iterator[None]:
        """A socket of ``seat`` is open on ``game_id`` (routes_ws): no mail meanwhile."""
        if seat is None:
            yield
            return
        key = (game_id, seat)
        self.present[key] += 1
        try:
            yield
        finally:
            self.present[key] -= 1
            if self.present[key] <= 0:
                del self.present[key]

    # --- turns --------------------------------------------------------------------------

    def turn(self, live: LiveGame) -> None:
        """``live`` published a version (its owner, ``GameService.on_turn``): record a new
        turn of a game with signed-in players, and queue its mail."""
        if not any(s.account is not None for s in live.seats):
            return
        seat, turn = turn_of(live)
        account = None
        if seat != OVER and live.all_joined and 0 <= seat < len(live.seats):
            account = live.seats[seat].account  # a turn begins once every seat has joined
        if self.known.get(live.game_id) == (seat, turn, account):
            return
        self.known[live.game_id] = (seat, turn, account)
        if seat == OVER:  # nothing more will happen: forget it (the row says it is over)
            del self.known[live.game_id]
        mail = (account is not None and self.mailer is not None
                and (live.game_id, seat) not in self.present)
        self.service.spawn(self._record(live.game_id, seat, turn, account if mail else None))

    async def _record(self, game_id: str, seat: int, turn: int, account: str | None) -> None:
        try:
            await asyncio.to_thread(self._store_turn, game_id, seat, turn, account,
                                    datetime.now(UTC))
        except Exception as exc:
            log.warning("game %s: cannot record the turn: %s", game_id, exc)
            self.known.pop(game_id, None)

    def _store_turn(self, game_id: str, seat: int, turn: int, account: str | None,
                    now: datetime) -> None:
        with self.store.writing() as c:
            old = c.execute(select(game_turns.c.seat, game_turns.c.turn)
                            .where(game_turns.c.game_id == game_id)).first()
            if old is not None and (old.seat, old.turn) == (seat, turn):
                pass  # recorded already (a restart, another process, the last seat joined)
            elif old is not None:
                c.execute(update(game_turns).where(game_turns.c.game_id == game_id)
                          .values(seat=seat, turn=turn, since=now))
            else:
                c.execute(insert(game_turns).values(game_id=game_id, seat=seat, turn=turn,
                                                    since=now))
        if account is None:
            return
        with self.store.reading() as c:
            wants = c.execute(select(accounts.c.id).where(
                accounts.c.id == account, accounts.c.notify_email.is_(True),
                accounts.c.email_confirmed.is_(True), accounts.c.email.is_not(None))).first()
        if wants is None:
            return
        try:
            with self.store.writing() as c:
                c.execute(insert(turn_mails).values(account_id=account, game_id=game_id,
                                                    turn=turn, seat=seat, created=now))
        except IntegrityError:
            pass  # this turn's mail is someone's already: at most one

    # --- mails --------------------------------------------------------------------------

    async def flush(self) -> int:
        """Send the turn mails waiting: one per player, listing their games. Returns the
        number of mails sent."""
        if self.mailer is None:
            return 0
        batches = await asyncio.to_thread(self._claim, datetime.now(UTC))
        sent = 0
        for (email, name), items in batches.items():
            waiting = [(g, n, s) for g, n, s, _ in items if (g, s) not in self.present]
            if not waiting:
                continue
            secret = await asyncio.to_thread(self._new_token, items[0][3])
            if await self.mailer.send(email, *self._mail(name, waiting, secret),
                                      self._headers(secret)):
                sent += 1
        return sent

    def _claim(self, now: datetime) -> dict[tuple[str, str], list[tuple[str, str, int, str]]]:
        """Claim every unsent row (one process wins each), and keep those whose turn is
        still on and whose player still wants mails: (address, name) -> [(game, game
        name, seat, account)]."""
        with self.store.writing() as c:
            claimed = c.execute(update(turn_mails).where(turn_mails.c.sent.is_(None))
                                .values(sent=now)
                                .returning(turn_mails.c.account_id, turn_mails.c.game_id,
                                           turn_mails.c.turn, turn_mails.c.seat)).all()
        out: dict[tuple[str, str], list[tuple[str, str, int, str]]] = defaultdict(list)
        if not claimed:
            return out
        with self.store.reading() as c:
            for row in claimed:
                found = c.execute(
                    select(accounts.c.email, accounts.c.name, games.c.name.label("game"))
                    .select_from(game_turns.join(games, games.c.id == game_turns.c.game_id))
                    .join(accounts, accounts.c.id == row.account_id)
                    .where(game_turns.c.game_id == row.game_id,
                           game_turns.c.seat == row.seat, game_turns.c.turn == row.turn,
                           accounts.c.notify_email.is_(True),
                           accounts.c.email_confirmed.is_(True),
                           accounts.c.email.is_not(None))).first()
                if found is not None:
                    out[(str(found.email), str(found.name))].append(
                        (str(row.game_id), str(found.game), int(row.seat),
                         str(row.account_id)))
        return out

    def _new_token(self, account_id: str) -> str:
        secret = secrets.token_urlsafe(32)
        with self.store.writing() as c:
            c.execute(insert(unsubscribe_tokens).values(id=_hash(secret), account_id=account_id,
                                                        created=datetime.now(UTC)))
        return secret

    def _mail(self, name: str, waiting: list[tuple[str, str, int]],
              secret: str) -> tuple[str, str]:
        if len(waiting) == 1:
            subject = f"Kaladan: your turn in {waiting[0][1]}"
        else:
            subject = f"Kaladan: your turn in {len(waiting)} games"
        lines = "\n".join(f"- {game_name}: {self.base}/play/{game_id}/{seat}"
                          for game_id, game_name, seat in waiting)
        body = (f"Hello {name},\n\nit is your turn in:\n{lines}\n\nAll your games: "
                f"{self.base}/me/games\n\nNo more of these mails: "
                f"{self.base}/unsubscribe?token={secret}\n")
        return subject, body

    def _headers(self, secret: str) -> dict[str, str]:
        if not self.base:  # RFC 8058 wants an absolute (https) link
            return {}
        return {"List-Unsubscribe": f"<{self.base}/api/unsubscribe?token={secret}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}

    async def unsubscribe(self, secret: str) -> None:
        """Turn the mails off for the account of an unsubscribe link; 404 when unknown."""
        try:
            done = await asyncio.to_thread(self._unsubscribe, secret)
        except Exception as exc:
            log.error("cannot unsubscribe: %s", exc)
            raise ApiError(503, "storage_unavailable", "try again") from exc
        if not done:
            raise ApiError(404, "unknown_link", "this link is unknown")

    def _unsubscribe(self, secret: str) -> bool:
        with self.store.writing() as c:
            row = c.execute(select(unsubscribe_tokens.c.account_id)
                            .where(unsubscribe_tokens.c.id == _hash(secret))).first()
            if row is None:
                return False
            c.execute(update(accounts).where(accounts.c.id == row.account_id)
                      .values(notify_email=False))
        return True

    # --- my games -----------------------------------------------------------------------

    async def my_games(self, account_id: str) -> list[dict[str, Any]]:
        """The player's games: theirs to decide first (waiting longest first), then the
        others running or open, then the finished ones (each newest first)."""
        try:
            rows = await asyncio.to_thread(self._my_games, account_id)
        except Exception as exc:
            log.error("cannot list a player's games: %s", exc)
            raise ApiError(503, "storage_unavailable", "your games cannot be listed now; "
                           "try again") from exc
        out = []
        for row in rows:
            seat = int(row.seat)
            status = str(row.status)
            to_move: int | None = None if row.turn_seat is None else int(row.turn_seat)
            since = row.since if row.since is not None else row.created
            live = self.service.games.get(str(row.game_id))
            names = [s.get("name") if isinstance(s, dict) else None for s in row.seats or []]
            kinds = [s.get("bot") or s.get("kind") if isinstance(s, dict) else None
                     for s in row.seats or []]
            if live is not None:  # memory knows best
                status = live.status
                turn_seat, _ = turn_of(live)
                to_move = None if turn_seat == OVER else turn_seat
                names = [s.name for s in live.seats]
                kinds = [s.bot or s.kind for s in live.seats]
            if status == "over" or to_move == OVER:
                to_move = None
            mine = status == "running" and to_move == seat
            out.append({
                "game_id": str(row.game_id), "name": str(row.name), "seat": seat,
                "mode": (row.config or {}).get("mode", "free_for_all"), "status": status,
                "to_move": to_move, "your_turn": mine,
                "since": _aware(since).isoformat(),
                "players": [n if n is not None else k for n, k in zip(names, kinds,
                                                                      strict=False)],
                "url": f"/play/{row.game_id}/{seat}",
            })

        def place(game: dict[str, Any]) -> tuple[int, str]:
            if game["status"] == "over":
                return 2, ""
            return (0, game["since"]) if game["your_turn"] else (1, "")

        out.sort(key=place)  # stable: the others keep the query's order, newest first
        return out

    def _my_games(self, account_id: str) -> list[Any]:
        query = (select(game_players.c.game_id, game_players.c.seat, games.c.name,
                        games.c.status, games.c.config, games.c.seats, games.c.created,
                        game_turns.c.seat.label("turn_seat"), game_turns.c.since)
                 .select_from(game_players.join(games, games.c.id == game_players.c.game_id)
                              .outerjoin(game_turns,
                                         game_turns.c.game_id == game_players.c.game_id))
                 .where(game_players.c.account_id == account_id,
                        games.c.status != "quarantined")
                 .order_by(desc(games.c.created)).limit(MY_GAMES))
        with self.store.reading() as c:
            return list(c.execute(query).all())
