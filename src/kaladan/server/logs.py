"""The server's log: levels, text or JSON lines, the game a line is about, an access line per
request.

``RequestLogMiddleware`` sets ``current_game`` from the request's path, so every record
logged while a request about a game runs (and in the tasks it starts: asyncio copies the
context) carries the game id; ``ContextFilter`` adds it and the process id to each record.
The access line names the method, the path without its query string (tokens and join codes
travel there or in bodies and headers, never logged), the status, the duration and the
client address.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

current_game: ContextVar[str | None] = ContextVar("current_game", default=None)

# /api/games/{id}..., /ws/games/{id}, and the pages /play/{id}/..., /watch/{id}, /replay/{id}.
# The id is checked against the shape of ids ("g_" + hex) so a made-up path puts no
# client's text into the game field.
GAME_PATH = re.compile(r"^/(?:api/games|ws/games|play|watch|replay)/(g_[0-9a-f]{1,32})(?:/|$)")
MAX_LOGGED_PATH = 200  # characters: a path may be as long as the head limit allows

access = logging.getLogger("kaladan.access")


def game_of(path: str) -> str | None:
    """The game id a request path names, if any.

    >>> game_of("/api/games/g_0123abcd/view"), game_of("/api/games"), game_of("/ws/games/x")
    ('g_0123abcd', None, None)
    """
    found = GAME_PATH.match(path)
    return found.group(1) if found else None


class ContextFilter(logging.Filter):
    """Adds ``pid`` and ``game`` (None outside a game) to every record it passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.pid = os.getpid()
        if not hasattr(record, "game"):
            record.game = current_game.get()
        return True


class UvicornWebSocketLines(logging.Filter):
    """Drops uvicorn's WebSocket access lines, which show the query string and so the seat's
    token (``"WebSocket /ws/games/g_1?token=..." [accepted]``), and the websockets library's
    "connection open/closed": ``RequestLogMiddleware`` writes one line per socket instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        return not (message.startswith('%s - "WebSocket ')
                    or message in ("connection open", "connection closed"))


class TextFormatter(logging.Formatter):
    """``2026-12-05 14:17:29,123 INFO kaladan.server [1234] [g_0123] message``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(pid)s]%(where)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        game = getattr(record, "game", None)
        record.where = f" [{game}]" if game else ""
        return super().format(record)


# Attributes every LogRecord has; whatever else a record carries was passed as ``extra``.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "color_message", "where", "taskName"}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, pid, game when
    the line is about one, the ``extra`` fields, and the traceback as ``exc``."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": getattr(record, "pid", os.getpid()),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in line and value is not None:
                line[key] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, ensure_ascii=False)


def configure(level: str = "info", form: str = "text") -> None:
    """Send every logger's records (ours, uvicorn's, SQLAlchemy's, warnings) to stderr at
    ``level`` and above, one line each in ``form``. Replaces the root's handlers, so calling
    it again (a worker process) does not double the lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter() if form == "json" else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):  # uvicorn's own config may have set these
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
        logger.setLevel(level.upper())
    uvicorn_error = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, UvicornWebSocketLines) for f in uvicorn_error.filters):
        uvicorn_error.addFilter(UvicornWebSocketLines())
    # The access line is ours (RequestLogMiddleware): uvicorn's has the query string.
    logging.getLogger("uvicorn.access").disabled = True
    # Alembic tells its dialect and DDL mode on every start: noise for an operator.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    logging.captureWarnings(True)


class RequestLogMiddleware:
    """Sets ``current_game`` for the request and logs its access line when it ends.

    A WebSocket's line is logged when the socket ends, with 101 once it was accepted and
    403 when it was refused before."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        game = game_of(scope["path"])
        token = current_game.set(game)
        began = time.perf_counter()
        status = 0  # none sent: the app failed or the client went away

        async def watch(message: Message) -> None:
            nonlocal status
            kind = message["type"]
            if kind == "http.response.start":
                status = int(message["status"])
            elif kind == "websocket.accept":
                status = 101
            elif kind == "websocket.close" and not status:
                status = 403
            elif kind == "websocket.http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            current_game.reset(token)
            _log_access(scope, status, game, time.perf_counter() - began)


def _log_access(scope: Scope, status: int, game: str | None, seconds: float) -> None:
    if not access.isEnabledFor(logging.INFO):
        return
    method = scope.get("method", "WS") if scope["type"] == "http" else "WS"
    # raw_path is the path as sent, percent-escapes kept: no newline can forge a line
    raw: bytes = scope.get("raw_path") or scope["path"].encode("utf-8")
    path = raw.split(b"?", 1)[0].decode("ascii", "backslashreplace")
    if len(path) > MAX_LOGGED_PATH:
        path = path[:MAX_LOGGED_PATH] + "..."
    client = scope.get("client")
    address = client[0] if client else "-"
    ms = round(seconds * 1000, 1)
    access.info("%s %s %s %.1f ms %s", method, path, status, ms, address,
                extra={"method": method, "path": path, "status": status, "ms": ms,
                       "client": address, "game": game})
