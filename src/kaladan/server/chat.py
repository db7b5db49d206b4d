"""Chat per game (docs/server.md "Chat"): two channels, plain text, muting per reader.

- ``players``: the seats' table chat (one for the whole table, also in team games), read and
  written by the seats only.
- ``spectators``: the watchers' chat, written by signed-in spectators (an anonymous watcher
  could be neither muted nor held to a name) and read by everybody: spectators and players,
  as on Board Game Arena. Spectators see public information only, so their chat cannot
  pass a player anything hidden.

A message is plain text: control characters (and the bidirectional overrides that let a
text pose as another) are taken out, then it must hold 1 to ``MAX_TEXT`` characters. It is
never markup: the page puts it into the document as a text node. Each author may send
``RATE`` messages every ``PER`` seconds (counted over every process with a broker).

Messages are stored (``social_store``) before anyone hears them; then each connection of
the game on this process gets it unless its reader cannot read the channel, turned chat
off, or muted the author; with a broker the message goes to the game's other processes
on the game's channel (``cluster.Cluster.send``), which deliver it to their own
connections alike. Mutes are kept per game and reader (a seat, or a signed-in spectator's
account) in the database and in memory while the game is.
"""

from __future__ import annotations

import asyncio
import json
import logging
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import social_store
from .errors import ApiError
from .live import LiveGame
from .rates import AddressRate, PerAddress
from .social_store import ChatRow, author_key

if TYPE_CHECKING:
    from .accounts import Account, Accounts
    from .shared_limits import SharedLimits
    from .storage import Store

log = logging.getLogger("kaladan.server")

PLAYERS = "players"
SPECTATORS = "spectators"
CHANNELS = (PLAYERS, SPECTATORS)
MAX_TEXT = 300  # characters of a message, after cleaning
RATE, PER = 5, 10.0  # messages per author in any window of PER seconds
HISTORY = 200  # the most messages one history answer carries
CHAT_EVENT = "chat"  # broker events (cluster.py): a message, a mute
MUTE_EVENT = "mute"
# Bidirectional embeddings, overrides and isolates: a text could show itself reversed.
BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean(text: str) -> str:
    """``text`` without control characters (Unicode category Cc: newlines and tabs become
    spaces) and bidirectional controls, spaces at the ends taken off.

    >>> clean("  hi\\tthere\\x07\\u202e ")
    'hi there'
    """
    out = []
    for ch in text:
        if ch in "\n\r\t":
            out.append(" ")
        elif ch not in BIDI and unicodedata.category(ch) != "Cc":
            out.append(ch)
    return "".join(out).strip()


@dataclass(frozen=True, slots=True)
class Author:
    """Who writes: a seat of the game (its players' channel) or a signed-in spectator."""

    seat: int | None
    account: str | None
    name: str  # shown with the message; "" for a guest seat (the page names the seat)

    @property
    def key(self) -> str:
        return author_key(self.seat, self.account)

    @property
    def channel(self) -> str:
        return PLAYERS if self.seat is not None else SPECTATORS


async def author_of(live: LiveGame, seat: int | None, account: Account | None,
                    accounts: Accounts) -> Author | None:
    """Who writes: the seat (named by its player's account when signed in, else by its
    number on the page), or a signed-in spectator; None: an anonymous spectator."""
    if seat is not None:
        owner = live.seats[seat].account
        if owner is None:
            return Author(seat, None, "")
        if account is not None and account.id == owner:
            return Author(seat, owner, account.name)
        names = await accounts.names([owner])
        return Author(seat, owner, names.get(owner, ""))
    return None if account is None else Author(None, account.id, account.name)


def reader_key(seat: int | None, account: str | None) -> str | None:
    """How mutes name a reader: its seat, else its account; None (an anonymous spectator)
    cannot mute."""
    if seat is not None:
        return f"seat:{seat}"
    return None if account is None else f"account:{account}"


def channels_for(seat: int | None) -> tuple[str, ...]:
    """The channels a reader may read: a seat both, a spectator the spectators' only."""
    return CHANNELS if seat is not None else (SPECTATORS,)


class Reader:
    """One connection's chat: what it may read, and a queue of the messages for it."""

    def __init__(self, seat: int | None, account: str | None, off: bool) -> None:
        self.seat = seat
        self.key = reader_key(seat, account)
        self.off = off
        self.queue: asyncio.Queue[str] = asyncio.Queue(maxsize=256)
        self.recent: deque[int] = deque(maxlen=64)  # ids sent: an event and a catch-up
        # around a subscription may bring one message twice

    def offer(self, message_id: int, text: str) -> None:
        if message_id in self.recent:
            return
        self.recent.append(message_id)
        if not self.queue.full():  # a reader that does not keep up misses messages
            self.queue.put_nowait(text)


class Chat:
    """The chat of a server's games (one per ``GameService``)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.rates: AddressRate = PerAddress(RATE, per=PER)
        self.rooms: dict[str, set[Reader]] = {}
        # per game with readers here: the newest message id delivered or known when its
        # first reader came (``catch_up`` delivers what is newer)
        self.last: dict[str, int] = {}
        self.muted: dict[str, dict[str, set[str]]] = {}  # game -> reader -> authors
        # with a broker (cluster.py): sends a chat or mute event to the game's processes
        self.publish: Callable[[LiveGame, str, dict[str, Any]], None] | None = None

    def share_limits(self, shared: SharedLimits) -> None:
        self.rates = shared.per_address("chat", RATE, per=PER)

    # --- readers ---------------------------------------------------------------------

    async def join(self, live: LiveGame, reader: Reader) -> None:
        game_id = live.game_id
        if not reader.off:
            await self._mutes(game_id)
        if game_id not in self.rooms:
            try:
                newest = await asyncio.to_thread(social_store.newest, self.store, game_id)
            except Exception as exc:
                log.error("cannot read the chat of game %s: %s", game_id, exc)
                raise ApiError(503, "storage_unavailable", "the chat cannot be read now; "
                               "try again") from exc
            self.last.setdefault(game_id, newest)
        self.rooms.setdefault(game_id, set()).add(reader)

    def leave(self, live: LiveGame, reader: Reader) -> None:
        room = self.rooms.get(live.game_id)
        if room is not None:
            room.discard(reader)
            if not room:
                del self.rooms[live.game_id]
                self.muted.pop(live.game_id, None)
                self.last.pop(live.game_id, None)

    async def _mutes(self, game_id: str) -> dict[str, set[str]]:
        known = self.muted.get(game_id)
        if known is None:
            try:
                known = await asyncio.to_thread(social_store.mutes, self.store, game_id)
            except Exception as exc:
                log.error("cannot read the mutes of game %s: %s", game_id, exc)
                raise ApiError(503, "storage_unavailable", "the chat cannot be read now; "
                               "try again") from exc
            known = self.muted.setdefault(game_id, known)
        return known

    def deliver(self, game_id: str, data: dict[str, Any], author: str) -> None:
        """A stored message (``data`` as clients get it, by ``author``'s key) to this
        process's connections of the game that may read it."""
        room = self.rooms.get(game_id)
        if not room:
            return
        self.last[game_id] = max(self.last.get(game_id, 0), int(data["id"]))
        text = json.dumps({"type": "chat", "message": data}, separators=(",", ":"))
        channel = data["channel"]
        muted = self.muted.get(game_id, {})
        for reader in room:
            if reader.off or channel not in channels_for(reader.seat):
                continue
            if reader.key is not None and author in muted.get(reader.key, ()):
                continue
            reader.offer(int(data["id"]), text)

    # --- writing -----------------------------------------------------------------------

    async def send(self, live: LiveGame, author: Author, text: str) -> dict[str, Any]:
        """Store a message and deliver it; the message as clients get it."""
        cleaned = clean(text)
        if not cleaned:
            raise ApiError(400, "empty_message", "a chat message needs some text")
        if len(cleaned) > MAX_TEXT:
            raise ApiError(400, "too_long", f"a chat message has at most {MAX_TEXT} "
                           "characters", input=len(cleaned))
        if not await self.rates.admit(f"{live.game_id}:{author.key}"):
            raise ApiError(429, "rate_limited", f"at most {RATE} chat messages every "
                           f"{PER:g} seconds")
        try:
            row = await asyncio.to_thread(
                social_store.add_message, self.store, live.game_id, author.channel,
                author.seat, author.account, author.name, cleaned)
        except Exception as exc:
            log.error("cannot store a chat message of game %s: %s", live.game_id, exc)
            raise ApiError(503, "storage_unavailable", "the message could not be stored "
                           "and was not sent; try again") from exc
        data = row.to_json()
        self.deliver(live.game_id, data, author.key)
        if self.publish is not None:
            self.publish(live, CHAT_EVENT, {"m": data, "a": author.key})
        return data

    async def catch_up(self, game_id: str) -> None:
        """The broker now brings this game's events (a first subscription, or again after
        an outage): deliver what was stored meanwhile, which no event brought (each
        reader skips the ids it was sent already)."""
        if game_id not in self.rooms:
            return
        try:
            rows = await asyncio.to_thread(social_store.messages, self.store, game_id,
                                           CHANNELS, self.last.get(game_id, 0), HISTORY)
        except Exception as exc:
            log.warning("cannot read the chat of game %s: %s", game_id, exc)
            return
        for row in rows:
            self.deliver(game_id, row.to_json(), row.author_key)

    def heard(self, live: LiveGame, kind: str, body: dict[str, Any]) -> None:
        """A chat or mute event of another process (cluster.py)."""
        message = body.get("m")
        if kind == CHAT_EVENT and isinstance(message, dict):
            self.deliver(live.game_id, message, str(body.get("a")))
        elif kind == MUTE_EVENT:
            known = self.muted.get(live.game_id)
            if known is not None:
                self._apply_mute(known, str(body.get("reader")), str(body.get("author")),
                                 bool(body.get("muted")))

    # --- reading and muting ------------------------------------------------------------

    async def history(self, live: LiveGame, seat: int | None, account: str | None,
                      channel: str, after: int) -> dict[str, Any]:
        """A channel's messages after id ``after`` as one reader may read them (without
        the authors it muted), and the authors it muted."""
        if channel not in channels_for(seat):
            raise ApiError(403, "players_only", "the players' chat is for the game's seats")
        key = reader_key(seat, account)
        try:
            rows = await asyncio.to_thread(social_store.messages, self.store, live.game_id,
                                           [channel], after, HISTORY)
            muted = await asyncio.to_thread(social_store.mutes, self.store, live.game_id)
        except Exception as exc:
            log.error("cannot read the chat of game %s: %s", live.game_id, exc)
            raise ApiError(503, "storage_unavailable", "the chat cannot be read now; try "
                           "again") from exc
        mine = muted.get(key, set()) if key is not None else set()
        return {"messages": [r.to_json() for r in rows if r.author_key not in mine],
                "muted": await self._named(live.game_id, mine)}

    async def _named(self, game_id: str, keys: set[str]) -> list[dict[str, Any]]:
        """Muted authors as the page lists them: by one of their messages (what mute and
        unmute name), with the seat and name of that message."""
        if not keys:
            return []
        found = await asyncio.to_thread(social_store.authors, self.store, game_id,
                                        sorted(keys))
        return [{"message": mid, "seat": row.seat, "author": row.author}
                for mid, row in sorted(found.values(), key=lambda item: item[0])]

    async def mute(self, live: LiveGame, seat: int | None, account: str | None,
                   message_id: int, muted: bool) -> list[dict[str, Any]]:
        """Mute (or unmute) the author of message ``message_id`` for one reader; the
        authors that reader has muted now."""
        key = reader_key(seat, account)
        if key is None:
            raise ApiError(403, "sign_in_to_mute", "a spectator mutes authors once signed "
                           "in; the page can also turn the chat off")
        try:
            row: ChatRow | None = await asyncio.to_thread(social_store.message, self.store,
                                                          live.game_id, message_id)
            if row is None:
                raise ApiError(404, "unknown_message", f"game {live.game_id} has no chat "
                               f"message {message_id}", input=message_id)
            if row.author_key == key:
                raise ApiError(400, "mute_self", "one cannot mute oneself")
            await asyncio.to_thread(social_store.set_mute, self.store, live.game_id, key,
                                    row.author_key, muted)
            everyone = await asyncio.to_thread(social_store.mutes, self.store, live.game_id)
        except ApiError:
            raise
        except Exception as exc:
            log.error("cannot store a mute in game %s: %s", live.game_id, exc)
            raise ApiError(503, "storage_unavailable", "the mute could not be stored; try "
                           "again") from exc
        known = self.muted.get(live.game_id)
        if known is not None:
            self._apply_mute(known, key, row.author_key, muted)
        if self.publish is not None:
            self.publish(live, MUTE_EVENT, {"reader": key, "author": row.author_key,
                                            "muted": muted})
        return await self._named(live.game_id, everyone.get(key, set()))

    @staticmethod
    def _apply_mute(known: dict[str, set[str]], reader: str, author: str,
                    muted: bool) -> None:
        authors = known.setdefault(reader, set())
        if muted:
            authors.add(author)
        else:
            authors.discard(author)
