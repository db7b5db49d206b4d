"""A real uvicorn server in a thread on a free port, and the SQLite URL of a test folder.
Kept out of conftest.py so that test modules import it by a name no other test folder uses."""

from __future__ import annotations

import socket
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI
from ws_support import run_async

from kaladan.game import Game
from kaladan.rules.config import Config
from kaladan.server.live import LiveGame, SeatInfo
from kaladan.server.settings import LOOPBACK_HOSTS, ServerSettings

# Tests make many games and requests from one address: per-address limits out of the way
# (the tests of those limits set their own). Starlette's TestClient sends Host: testserver.
GENEROUS = ServerSettings(rate=1e6, ws_rate=1e6, read_rate=1e6, load_rate=1e6,
                          games_per_minute=1_000_000,
                          sockets=10_000, bot_workers=1, any_seed=True,
                          allowed_hosts=(*LOOPBACK_HOSTS, "testserver"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def sqlite_url(folder: Path) -> str:
    return f"sqlite:///{folder / 'kaladan.sqlite3'}"


def live_game(players: int, seed: int, quick: bool = False, **config: Any) -> LiveGame:
    """A server-side game of human seats, outside any app (steps are applied by the test,
    then ``live.publish()``)."""
    async def make() -> LiveGame:  # the game's asyncio.Lock wants a running loop
        game = Game.new(Config(players=players, quick_setup=quick, **config), seed)
        return LiveGame("g_test", "test", datetime.now(UTC), game,
                        [SeatInfo("human") for _ in range(players)], [None] * players)
    return run_async(make())


class LiveServer:
    """uvicorn serving an app in a thread, on a free port."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                                    log_level="warning", lifespan="on",
                                                    ws_per_message_deflate=False))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(10)
