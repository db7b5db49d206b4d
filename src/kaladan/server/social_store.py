"""Storage of chat messages, mutes and rematches (migration 0009, docs/server.md "Chat"
and "Rematch"): plain functions over a ``storage.Store``, called from worker threads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from .storage import Store, aware, metadata

chat_messages = Table(
    "chat_messages", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(40), ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("channel", String(16), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=True),
    Column("author", String(60), nullable=False),
    Column("text", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Index("chat_messages_game", "game_id", "id"),
)
chat_mutes = Table(
    "chat_mutes", metadata,
    Column("game_id", String(40), ForeignKey("games.id", ondelete="CASCADE"),
           primary_key=True),
    Column("reader", String(60), primary_key=True),
    Column("author", String(60), primary_key=True),
)
rematches = Table(
    "rematches", metadata,
    Column("game_id", String(40), ForeignKey("games.id", ondelete="CASCADE"),
           primary_key=True),
    Column("new_game_id", String(40), nullable=False, unique=True),
    Column("accepted", Text, nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True, slots=True)
class ChatRow:
    """One stored chat message."""

    id: int
    channel: str
    seat: int | None
    account: str | None
    author: str
    text: str
    at: datetime

    @property
    def author_key(self) -> str:
        """Who wrote it, as mutes name authors: ``seat:N`` (a seat of this game) or
        ``account:ID`` (a signed-in spectator)."""
        return author_key(self.seat, self.account)

    def to_json(self) -> dict[str, Any]:
        """As clients get it (docs/api.md "Chat"): the account's id is not sent."""
        return {"id": self.id, "channel": self.channel, "seat": self.seat,
                "author": self.author, "text": self.text, "at": self.at.isoformat()}


def author_key(seat: int | None, account: str | None) -> str:
    return f"seat:{seat}" if seat is not None else f"account:{account}"


def _row(r: Any) -> ChatRow:
    return ChatRow(int(r.id), str(r.channel), r.seat, r.account_id, str(r.author),
                   str(r.text), aware(r.at))


def add_message(store: Store, game_id: str, channel: str, seat: int | None,
                account: str | None, author: str, text: str) -> ChatRow:
    at = datetime.now(UTC)
    with store.writing() as c:
        done = c.execute(insert(chat_messages).values(
            game_id=game_id, channel=channel, seat=seat, account_id=account, author=author,
            text=text, at=at))
        key = done.inserted_primary_key
        assert key is not None
    return ChatRow(int(key[0]), channel, seat, account, author, text, at)


def messages(store: Store, game_id: str, channels: Sequence[str], after: int,
             limit: int) -> list[ChatRow]:
    """A game's messages of ``channels`` with an id above ``after``, the oldest first (at
    most ``limit``, the newest of them)."""
    query = (select(chat_messages).where(chat_messages.c.game_id == game_id,
                                         chat_messages.c.channel.in_(list(channels)),
                                         chat_messages.c.id > after)
             .order_by(chat_messages.c.id.desc()).limit(limit))
    with store.reading() as c:
        rows = [_row(r) for r in c.execute(query)]
    return rows[::-1]


def newest(store: Store, game_id: str) -> int:
    """The id of the game's newest message (0: none)."""
    with store.reading() as c:
        value = c.execute(select(func.max(chat_messages.c.id))
                          .where(chat_messages.c.game_id == game_id)).scalar()
    return int(value or 0)


def message(store: Store, game_id: str, message_id: int) -> ChatRow | None:
    with store.reading() as c:
        r = c.execute(select(chat_messages).where(chat_messages.c.game_id == game_id,
                                                  chat_messages.c.id == message_id)).first()
    return None if r is None else _row(r)


def set_mute(store: Store, game_id: str, reader: str, author: str, muted: bool) -> None:
    with store.writing() as c:
        c.execute(delete(chat_mutes).where(chat_mutes.c.game_id == game_id,
                                           chat_mutes.c.reader == reader,
                                           chat_mutes.c.author == author))
        if muted:
            c.execute(insert(chat_mutes).values(game_id=game_id, reader=reader,
                                                author=author))


def mutes(store: Store, game_id: str) -> dict[str, set[str]]:
    """Per reader, the authors it muted in ``game_id``."""
    out: dict[str, set[str]] = {}
    with store.reading() as c:
        for r in c.execute(select(chat_mutes.c.reader, chat_mutes.c.author)
                           .where(chat_mutes.c.game_id == game_id)):
            out.setdefault(str(r.reader), set()).add(str(r.author))
    return out


def authors(store: Store, game_id: str, keys: Sequence[str]) -> dict[str, tuple[int, ChatRow]]:
    """For each author key, its newest message in the game (to name a muted author)."""
    out: dict[str, tuple[int, ChatRow]] = {}
    with store.reading() as c:
        for key in keys:
            kind, _, who = key.partition(":")
            column = chat_messages.c.seat if kind == "seat" else chat_messages.c.account_id
            value: Any = int(who) if kind == "seat" else who
            query = (select(chat_messages).where(chat_messages.c.game_id == game_id,
                                                 column == value)
                     .order_by(chat_messages.c.id.desc()).limit(1))
            if kind == "account":
                query = query.where(chat_messages.c.seat.is_(None))
            r = c.execute(query).first()
            if r is not None:
                out[key] = (int(r.id), _row(r))
    return out


@dataclass(frozen=True, slots=True)
class RematchRow:
    new_game_id: str
    accepted: str  # JSON text: {old seat: hash of the new seat's token}


def rematch(store: Store, game_id: str) -> RematchRow | None:
    with store.reading() as c:
        r = c.execute(select(rematches.c.new_game_id, rematches.c.accepted)
                      .where(rematches.c.game_id == game_id)).first()
    return None if r is None else RematchRow(str(r.new_game_id), str(r.accepted))


def offer_rematch(store: Store, game_id: str, new_game_id: str, accepted: str) -> bool:
    """The first offer; False when another was stored first."""
    try:
        with store.writing() as c:
            c.execute(insert(rematches).values(game_id=game_id, new_game_id=new_game_id,
                                               accepted=accepted, created=datetime.now(UTC)))
    except IntegrityError:
        return False
    return True


def accept_rematch(store: Store, game_id: str, old: str, new: str) -> bool:
    """Compare-and-set of the accepted seats: False when another accept changed them
    first (the caller reads them again)."""
    with store.writing() as c:
        done = c.execute(update(rematches).where(rematches.c.game_id == game_id,
                                                 rematches.c.accepted == old)
                         .values(accepted=new))
        return bool(done.rowcount == 1)
