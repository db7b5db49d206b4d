"""The broker between server processes: Redis pub/sub (docs/server.md "Scaling out").

Two kinds of message cross it, as JSON:

- **events** on each game's own channel, which the processes holding that game in memory
  listen to (``watch``; a process never hears of the games it does not hold, so a commit
  costs the same however many processes run): ``{"p": sender, "g": game, "v": version,
  "k": kind}`` after each committed change (``steps`` or ``seats``), or with a body
  ``"b"`` for what is not a change of the game (``chat``, ``mute``: chat.py); a ``steps``
  event also carries the committed decisions as stored (``"f"``: the index of the first,
  ``"s"``: ``[seat, action, chance]`` each). A receiver whose copy is at ``f`` replays them;
  any other reads what it lacks from the database, so an event that is lost (pub/sub drops
  them while a subscriber is away) costs nothing once a later one, or the resynchronisation
  after a reconnect, arrives. Events never carry a view: each process builds its own
  clients' views and filters them per seat itself.
- **requests and replies** on each process's own channel: a decision sent to a process that
  does not own the game is forwarded to its owner (``forward``), which answers on the
  sender's channel.

The listener notices a reconnection by the subscription confirmation of the process's own
channel that Redis sends again (redis-py resubscribes by itself) and calls ``on_connect`` so
that the process reloads what it may have missed; each game's first confirmation calls
``on_watch``, which reads what was committed before the subscription took effect.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as redis
from redis.exceptions import RedisError

log = logging.getLogger("kaladan.server")

GAME = "kaladan:game:"  # + game id: that game's events
PROCESS = "kaladan:process:"  # + process id: requests to it, replies to it
RETRY = 0.5  # seconds between two attempts to reach a Redis that is down
POLL = 0.1  # seconds the listener waits for a message before it (un)subscribes games

Handler = Callable[[dict[str, Any]], Awaitable[None]]
Responder = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def process_name() -> str:
    """A name no other process has, now or later: host, pid and a random part (a restarted
    process must not inherit its predecessor's leases or counts)."""
    return f"{socket.gethostname()[:40]}-{os.getpid()}-{secrets.token_hex(4)}"


class BrokerUnavailable(Exception):
    """Redis cannot be reached."""


class Broker:
    def __init__(self, url: str, process: str, *, on_event: Handler, on_request: Responder,
                 on_connect: Callable[[], Awaitable[None]],
                 on_watch: Callable[[str], Awaitable[None]]) -> None:
        self.url = url
        self.process = process
        self.on_event = on_event
        self.on_request = on_request
        self.on_connect = on_connect
        self.on_watch = on_watch
        self.watched: set[str] = set()  # games whose channels this process listens to
        self.changes: dict[str, bool] = {}  # game -> watch (True) or not, not yet sent
        self.heard: set[str] = set()  # watched games whose subscription Redis confirmed
        # A blocking pool: a burst of publishes waits for a free connection instead of
        # failing with "Too many connections".
        pool = redis.BlockingConnectionPool.from_url(url, max_connections=64, timeout=5,
                                                     socket_timeout=5,
                                                     socket_connect_timeout=5)
        self.client: redis.Redis = redis.Redis(connection_pool=pool)
        self.pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.listener: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.connected = asyncio.Event()  # subscribed now (``/readyz``)
        self.connections = 0  # times subscribed (the first, then each reconnection)

    @property
    def own_channel(self) -> str:
        return PROCESS + self.process

    async def start(self) -> None:
        self.listener = asyncio.create_task(self._listen(), name="kaladan-broker")

    async def stop(self) -> None:
        if self.listener is not None:
            self.listener.cancel()
            await asyncio.gather(self.listener, return_exceptions=True)
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self.client.aclose()

    async def ping(self) -> bool:
        try:
            return bool(await self.client.ping())
        except (RedisError, OSError):
            return False

    def watch(self, game_id: str) -> None:
        """Hear ``game_id``'s events from now on (the listener subscribes at its next turn,
        within ``POLL``)."""
        if game_id not in self.watched:
            self.watched.add(game_id)
            self.changes[game_id] = True

    def unwatch(self, game_id: str) -> None:
        if game_id in self.watched:
            self.watched.discard(game_id)
            self.heard.discard(game_id)
            self.changes[game_id] = False

    # --- sending --------------------------------------------------------------------------

    async def publish(self, game_id: str, version: int, kind: str = "steps",
                      first: int | None = None, steps: list[Any] | None = None,
                      body: dict[str, Any] | None = None) -> None:
        """Tell every process that ``game_id`` changed (at ``version``; ``steps`` from index
        ``first`` on), or of something else in it (``body``: a chat message, chat.py).
        Never raises: a process that misses it reloads when it reconnects or hears a later
        event."""
        event: dict[str, Any] = {"p": self.process, "g": game_id, "v": version, "k": kind}
        if steps is not None:
            event["f"], event["s"] = first, steps
        if body is not None:
            event["b"] = body
        message = json.dumps(event, separators=(",", ":"))
        try:
            await self.client.publish(GAME + game_id, message)
        except (RedisError, OSError) as exc:
            log.warning("cannot publish game %s at version %d: %s", game_id, version, exc)

    async def forward(self, owner: str, request: dict[str, Any],
                      timeout: float) -> dict[str, Any] | None:
        """Send ``request`` to process ``owner`` and wait for its reply; None when no
        process listens on its channel (it is gone). Raises ``BrokerUnavailable`` when
        Redis cannot be reached, TimeoutError when no reply came in time (the outcome is
        unknown)."""
        key = secrets.token_hex(8)
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[key] = reply
        try:
            message = json.dumps({"t": "request", "id": key, "from": self.process,
                                  "body": request}, separators=(",", ":"))
            try:
                heard = await self.client.publish(PROCESS + owner, message)
            except (RedisError, OSError) as exc:
                raise BrokerUnavailable(str(exc)) from exc
            if not heard:
                return None
            return await asyncio.wait_for(reply, timeout)
        finally:
            self.pending.pop(key, None)

    # --- receiving ------------------------------------------------------------------------

    async def _listen(self) -> None:
        pubsub = self.client.pubsub()
        while True:
            try:
                if not pubsub.subscribed:
                    await pubsub.subscribe(self.own_channel)
                if self.changes:
                    await self._send_changes(pubsub)
                message = await pubsub.get_message(timeout=POLL)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                raise
            except (RedisError, OSError) as exc:
                if self.connected.is_set():
                    log.warning("lost the broker (%s): retrying", exc)
                self.connected.clear()
                await asyncio.sleep(RETRY)
                continue
            if message is None:
                continue
            kind = message.get("type")
            if kind == "subscribe":
                self._subscribed(message)
                continue
            if kind != "message":
                continue
            self._received(message)

    async def _send_changes(self, pubsub: Any) -> None:
        changes, self.changes = self.changes, {}
        try:
            start = [GAME + g for g, on in changes.items() if on]
            stop = [GAME + g for g, on in changes.items() if not on]
            if start:
                await pubsub.subscribe(*start)
            if stop:
                await pubsub.unsubscribe(*stop)
        except BaseException:
            for game_id, on in changes.items():  # sent again at the next turn
                self.changes.setdefault(game_id, on)
            raise

    def _subscribed(self, message: dict[str, Any]) -> None:
        channel = message.get("channel")
        channel = channel.decode() if isinstance(channel, bytes) else str(channel)
        if channel == self.own_channel:  # subscribed, or subscribed again after a loss
            self.connections += 1
            self.connected.set()
            if self.connections > 1:
                log.warning("broker reached again: reloading the games in memory")
            self._spawn(self.on_connect())
        elif channel.startswith(GAME):
            game_id = channel[len(GAME):]
            if game_id in self.watched and game_id not in self.heard:
                # a game's first confirmation (after a reconnection ``on_connect`` reloads
                # every game): what was committed before it took effect is read now
                self.heard.add(game_id)
                self._spawn(self.on_watch(game_id))

    def _received(self, message: dict[str, Any]) -> None:
        try:
            data = json.loads(message["data"])
            channel = message["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else str(channel)
        except (ValueError, KeyError, UnicodeDecodeError) as exc:
            log.warning("unreadable broker message: %r", exc)
            return
        if not isinstance(data, dict):
            return
        if channel.startswith(GAME):
            if data.get("p") != self.process:
                self._spawn(self.on_event(data))
        elif data.get("t") == "reply":
            waiting = self.pending.get(str(data.get("id")))
            if waiting is not None and not waiting.done():
                waiting.set_result(data.get("body") or {})
        elif data.get("t") == "request":
            self._spawn(self._answer(data))

    async def _answer(self, data: dict[str, Any]) -> None:
        started = time.monotonic()
        body = await self.on_request(dict(data.get("body") or {}))
        message = json.dumps({"t": "reply", "id": data.get("id"), "body": body})
        try:
            await self.client.publish(PROCESS + str(data.get("from")), message)
        except (RedisError, OSError) as exc:
            log.warning("cannot reply to process %s after %.0f ms: %s", data.get("from"),
                        1000 * (time.monotonic() - started), exc)

    def _spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("broker message handling failed")

        task = asyncio.create_task(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
