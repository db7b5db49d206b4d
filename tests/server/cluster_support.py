"""Real server processes on one PostgreSQL database and one Redis server (docs/server.md
"Scaling out"): each is its own Python process running uvicorn on a free port, killed,
stopped (SIGSTOP) or terminated by the tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from live_support import free_port

# The child: the app with the test's settings, served by uvicorn (what ``kaladan serve``
# runs, with settings a test may set freely).
CHILD = """
import json, os, sys, uvicorn
from kaladan.server import create_app
from kaladan.server.settings import LOOPBACK_HOSTS, ServerSettings
spec = json.loads(os.environ["KALADAN_TEST_SERVER"])
extra = {}
if spec.get("test_clock"):  # the server's "now" from a file (kaladan serve --test-clock)
    from kaladan.server.clocks import FileClock
    extra["clock"] = FileClock(spec["test_clock"])
settings = ServerSettings(**spec["settings"], allowed_hosts=LOOPBACK_HOSTS, **extra)
app = create_app(spec["database"], settings)
uvicorn.run(app, host="127.0.0.1", port=spec["port"], log_level="warning",
            ws_per_message_deflate=False, timeout_graceful_shutdown=3)
"""

GENEROUS = {"rate": 1e6, "ws_rate": 1e6, "read_rate": 1e6, "load_rate": 1e6,
            "games_per_minute": 1_000_000, "sockets": 10_000, "bot_workers": 1,
            "any_seed": True}


class ServerProcess:
    def __init__(self, database: str, broker: str | None, log: Path, **settings: Any) -> None:
        self.port = free_port()
        self.log_path = log
        test_clock = settings.pop("test_clock", None)  # a file's path: tests of clocks
        spec = {"database": database, "port": self.port, "test_clock": test_clock,
                "settings": {**GENEROUS, "broker_url": broker, **settings}}
        env = {**os.environ, "KALADAN_TEST_SERVER": json.dumps(spec)}
        self.log = open(log, "ab")  # noqa: SIM115 (closed in ``wait``)
        self.process = subprocess.Popen([sys.executable, "-c", CHILD], env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self.paused = False

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def ready(self, timeout: float = 60) -> ServerProcess:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(self.http + "/readyz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"server not ready: {self.log_path.read_text()[-3000:]}")

    def pause(self) -> None:
        self.process.send_signal(signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)
        self.paused = False

    def kill(self) -> None:
        if self.paused:
            self.resume()
        self.process.kill()
        self.wait()

    def terminate(self) -> None:
        if self.paused:
            self.resume()
        self.process.terminate()
        self.wait()

    def wait(self) -> None:
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.log.close()


class Processes:
    """The server processes of one test, on one database and one Redis server."""

    def __init__(self, database: str, redis: Any, folder: Path) -> None:
        self.database = database
        self.redis = redis
        self.folder = folder
        self.started: list[ServerProcess] = []

    def start(self, count: int, **settings: Any) -> list[ServerProcess]:
        new = [ServerProcess(self.database, self.redis.url,
                             self.folder / f"server{len(self.started) + i}.log", **settings)
               for i in range(count)]
        self.started.extend(new)
        return [s.ready() for s in new]

    def close(self) -> None:
        for server in self.started:
            if server.process.poll() is None:
                server.kill()
