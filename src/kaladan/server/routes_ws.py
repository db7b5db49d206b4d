"""Real-time play: one WebSocket per seat (with its token) or spectator.

The server sends the current view on connect (with the whole log) and after every change
(with the log entries made since the view sent before); several changes in a row are sent as
one view of the newest version. A rejected message gets an error and changes
nothing; the connection stays open. Whatever a client sends ends in an error reply or, for a
frame over uvicorn's size limit, a close frame (1009): never a dropped socket nor a traceback
in the log. Host, Origin and the number of sockets per address are checked before this
(``security.SecurityMiddleware``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import MutableMapping
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from .accounts import Account
from .chat import Reader, author_of
from .errors import ApiError
from .limits import client_address
from .live import LiveGame
from .notify import Notifier
from .rates import RateLimiter
from .security import JsonRefused, strict_json
from .service import GameService
from .sessions import signed_in
from .settings import ServerSettings
from .views import cached_text, cached_view

router = APIRouter()
log = logging.getLogger("kaladan.server")

CLOSE_INTERNAL = 1011  # the server failed; a refusal is 4000 + its HTTP status (4403, 4404)


@router.websocket("/ws/games/{game_id}")
async def play_socket(websocket: WebSocket, game_id: str, token: str | None = None,
                      chat: str | None = None) -> None:
    service: GameService = websocket.app.state.service
    settings: ServerSettings = websocket.app.state.settings
    await websocket.accept()
    try:
        live = await service.get(game_id, client_address(websocket.scope))
        account = signed_in(websocket)
        if token is not None:
            seat: int | None = service.seat_for_token(live, token)
        else:  # a signed-in player's own seat (sessions.py checked the Origin), else watch
            seat = None if account is None else service.seat_of_account(live, account)
    except ApiError as exc:  # 4403 bad token, 4404 unknown game, 4429 loading too fast
        await websocket.close(4000 + exc.status if 400 <= exc.status < 500 else CLOSE_INTERNAL,
                              close_reason(exc.body()["error"]["message"]))
        return
    # ``chat=off``: the player turned the chat off (a guest's choice, kept by the page; a
    # signed-in player's is the account's)
    off = chat == "off" or (account is not None and not account.chat)
    reader = Reader(seat, None if account is None else account.id, off=off)
    await Connection(websocket, service, live, seat, RateLimiter(settings.ws_rate),
                     settings.max_message, reader, account, token).run()


def close_reason(text: str) -> str:
    """``text`` cut to the 123 bytes of UTF-8 a close frame's reason may hold."""
    return text.encode("utf-8")[:123].decode("utf-8", "ignore")


class Connection:
    def __init__(self, websocket: WebSocket, service: GameService, live: LiveGame,
                 seat: int | None, limiter: RateLimiter, max_message: int,
                 reader: Reader | None = None, account: Account | None = None,
                 token: str | None = None) -> None:
        self.websocket = websocket
        self.service = service
        self.live = live
        self.seat = seat
        self.limiter = limiter
        self.max_message = max_message
        self.changed = asyncio.Event()
        self.send_lock = asyncio.Lock()
        self.reader = reader or Reader(seat, None, off=False)
        self.account = account  # the signed-in player (names a chat author)
        self.token = token  # the seat's token: checked again when the seats change
        self.checked = live.seats  # the seats it was checked against (replaced on a change)

    def still_seated(self) -> ApiError | None:
        """Why this connection's token no longer plays its seat (the seat was handed over
        to another device: 403 ``seat_moved``), or None while it does. Checked again only
        when the game's seats changed (``GameService._set_seats`` replaces the list), not
        at every view."""
        if self.token is None or self.seat is None or self.live.seats is self.checked:
            return None
        try:
            self.service.seat_for_token(self.live, self.token)
        except ApiError as exc:
            return exc
        self.checked = self.live.seats
        return None

    async def run(self) -> None:
        chat = self.service.chat
        try:  # before the first view: once the client has it, it hears the chat too
            await chat.join(self.live, self.reader)
        except ApiError as exc:
            await self.websocket.close(CLOSE_INTERNAL, close_reason(exc.message))
            return
        self.changed.set()  # the current view at once: a reconnect restores the seat
        self.live.listeners.add(self.changed)
        writer = asyncio.create_task(self._write_views())
        talker = asyncio.create_task(self._write_chat())
        notifier: Notifier = self.websocket.app.state.notifier  # no turn mail meanwhile
        try:
            with notifier.watching(self.live.game_id, self.seat):
                await self._read()
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass  # the client went away, possibly while we answered
        finally:
            chat.leave(self.live, self.reader)
            self.live.listeners.discard(self.changed)
            writer.cancel()
            talker.cancel()
            await asyncio.gather(writer, talker, return_exceptions=True)

    async def _send(self, message: dict[str, Any]) -> None:
        await self._send_text(json.dumps(message, separators=(",", ":")))

    async def _send_text(self, text: str) -> None:
        async with self.send_lock:
            await self.websocket.send_text(text)

    async def _write_views(self) -> None:
        """Send the view whenever it changed: the first with the whole log, every later one
        with the log entries made after the version this connection was sent last."""
        last: object = None
        sent = -1
        try:
            while True:
                await self.changed.wait()
                self.changed.clear()
                ended = self.still_seated()
                if ended is not None:  # the seat moved on: say why, then close (4403)
                    await self._send({"type": "error", "error": ended.body()["error"]})
                    await self.websocket.close(4000 + ended.status,
                                               close_reason(ended.message))
                    return
                cached = cached_view(self.live, self.seat)
                if cached is not last:  # the view's parts are shared by the seat's connections
                    text = cached_text(self.live, cached, self.seat, sent)
                    await self._send_text('{"type":"view","view":' + text + "}")
                    last, sent = cached, cached.version
        except (WebSocketDisconnect, RuntimeError):
            return  # the socket closed while sending

    async def _write_chat(self) -> None:
        """Send the chat messages this connection may read as they come (chat.py)."""
        try:
            while True:
                await self._send_text(await self.reader.queue.get())
        except (WebSocketDisconnect, RuntimeError):
            return

    async def _read(self) -> None:
        while True:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            try:
                reply = await self._handle(message)
            except ApiError as exc:
                reply = {"type": "error", "error": exc.body()["error"]}
            except Exception:  # a bug of ours, not the client's: say so and close cleanly
                log.exception("websocket message in game %s failed", self.live.game_id)
                await self.websocket.close(CLOSE_INTERNAL, "internal error")
                return
            if reply is not None:
                await self._send(reply)

    async def _handle(self, message: MutableMapping[str, Any]) -> dict[str, Any] | None:
        if not self.limiter.allow():
            raise ApiError(429, "rate_limited",
                           f"more than {self.limiter.rate:g} messages a second")
        text = message.get("text")
        if text is None:
            raise ApiError(400, "malformed_message", "messages are JSON text, not binary")
        if len(text) > self.max_message or len(text.encode("utf-8")) > self.max_message:
            raise ApiError(413, "too_large", f"message over {self.max_message} bytes")
        try:
            data = strict_json(text)
        except JsonRefused as exc:
            raise ApiError(400, "malformed_message", str(exc)) from exc
        if not isinstance(data, dict):
            raise ApiError(400, "malformed_message", "a message is a JSON object")
        kind = data.get("type")
        if kind == "ping":
            return {"type": "pong"}
        if kind == "chat":
            ended = self.still_seated()
            if ended is not None:
                raise ended
            await self._chat(data)
            return None
        if kind != "action":
            raise ApiError(400, "malformed_message", "type must be 'action', 'chat' or "
                           "'ping'", input=kind if isinstance(kind, str) else None)
        action, index, version = _action_fields(data)
        if self.seat is None:
            raise ApiError(403, "spectator", "spectators cannot act; join a seat to play")
        ended = self.still_seated()
        if ended is not None:
            raise ended
        await self.service.act(self.live, self.seat, action, index, version)
        return None


    async def _chat(self, data: dict[str, Any]) -> None:
        """A chat message: a seat's to the players' channel, a signed-in spectator's to
        the spectators' (chat.py)."""
        text = data.get("text")
        if sorted(set(data) - {"type", "text"}):
            raise ApiError(400, "malformed_message", "a chat message has 'text' only")
        if not isinstance(text, str):
            raise ApiError(400, "malformed_message", "'text' must be text")
        author = await author_of(self.live, self.seat, self.account,
                                 self.websocket.app.state.accounts)
        if author is None:
            raise ApiError(403, "sign_in_to_chat", "spectators chat once signed in")
        await self.service.chat.send(self.live, author, text)


def _action_fields(data: dict[str, Any]) -> tuple[str | None, int | None, int | None]:
    action, index, version = data.get("action"), data.get("index"), data.get("version")
    unknown = sorted(set(data) - {"type", "action", "index", "version"})
    if unknown:
        raise ApiError(400, "malformed_message", f"unknown field(s): {', '.join(unknown)}")
    if (action is None) == (index is None):
        raise ApiError(400, "malformed_message", "give exactly one of 'action' and 'index'")
    if action is not None and (not isinstance(action, str) or not action.strip()):
        raise ApiError(400, "malformed_message", "'action' must be non-empty text")
    index, version = _whole(index, "index"), _whole(version, "version")
    return action, index, version


def _whole(value: Any, name: str) -> int | None:
    """A whole number >= 0, written ``5`` or ``5.0`` (JSON Schema's integers, as over
    HTTP); None stays None."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                              or value < 0):
        raise ApiError(400, "malformed_message", f"'{name}' must be a whole number >= 0")
    return value
