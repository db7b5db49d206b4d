"""Helpers of the security and fuzz tests: the server's log records that show a failure, an
event loop kept on a thread (WebSockets that live across Hypothesis examples), a LiveServer
with uvicorn options, and the check that stored games replay to what is in memory."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import uvicorn
from fastapi import FastAPI
from live_support import LiveServer

from kaladan.record import position_digest, replay, to_record
from kaladan.server.service import rebuild

T = TypeVar("T")
# Where a failure would be told: ours, uvicorn's "Exception in ASGI application" (its
# loggers do not propagate to the root), asyncio's "Task exception was never retrieved".
LOGGERS = ("", "kaladan", "uvicorn", "uvicorn.error", "asyncio")


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def failures(self) -> list[str]:
        """Records that report an error or carry a traceback: never caused by a client."""
        return [f"{r.name} {r.levelname}: {r.getMessage()}" + (" [traceback]" if r.exc_info
                                                                else "")
                for r in self.records if r.levelno >= logging.ERROR or r.exc_info]


@contextmanager
def watch_log() -> Iterator[Records]:
    handler = Records()
    loggers = [logging.getLogger(name) for name in LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


class ThreadLoop:
    """An event loop on a thread of its own: coroutines run there one call at a time from
    synchronous test code, and what they open (sockets, reader tasks) stays open."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 30) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


def live_server_with(app: FastAPI, **options: Any) -> LiveServer:
    """A LiveServer whose uvicorn has ``options`` (``ws_max_size`` as ``kaladan serve``)."""
    server = LiveServer(app)
    server.server = uvicorn.Server(uvicorn.Config(
        app, host="127.0.0.1", port=server.port, log_level="warning", lifespan="on",
        ws_per_message_deflate=False, **options))
    server.thread = threading.Thread(target=server.server.run, daemon=True)
    return server


def settle(app: FastAPI, seconds: float = 0.3, timeout: float = 20) -> None:
    """Wait until no game in memory has changed for ``seconds`` (bots have stopped)."""
    games = app.state.service.games
    deadline = time.monotonic() + timeout
    before: dict[str, int] = {}
    while time.monotonic() < deadline:
        now = {game_id: live.version for game_id, live in list(games.items())}
        if now == before:
            return
        before = now
        time.sleep(seconds)
    raise AssertionError("the games never settled")


def assert_stored_games_replay(app: FastAPI) -> tuple[int, int]:
    """Every stored game rebuilds from its stored steps to the game in memory (same steps,
    same position), and its record replays to the same position. Returns how many games
    and steps were checked."""
    service = app.state.service
    checked = steps_checked = 0
    for game_id in service.store.game_ids():
        stored = service.store.load(game_id)
        assert stored is not None, game_id
        rebuilt = rebuild(stored).game
        live = service.games.get(game_id)
        if live is not None:
            steps = [(s.seat, s.action, list(s.chance)) for s in live.game.steps]
            assert [(s.seat, s.action, list(s.chance)) for s in rebuilt.steps] == steps
            assert position_digest(rebuilt) == position_digest(live.game), game_id
        assert position_digest(replay(to_record(rebuilt))) == position_digest(rebuilt)
        checked += 1
        steps_checked += len(rebuilt.steps)
    return checked, steps_checked
