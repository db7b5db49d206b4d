"""``kaladan serve`` in operation (docs/server.md "Operations"): a request head bounded in size
and time, the log (levels, JSON lines with the process and the game, an access line that
never shows a secret), the broker flags, and several worker processes on one port. Each test
starts a real ``kaladan serve`` process on a free port."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from live_support import free_port
from redis_support import RedisServer
from server_support import auth, create, join_all

from kaladan.cli import serve_cmd
from kaladan.cli.main import main
from kaladan.server import logs

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="/proc and POSIX signals")


class Serve:
    """A ``kaladan serve`` process on a free port; its stderr goes to a file (read any
    time, never a full pipe)."""

    def __init__(self, folder: Path, *flags: str, database: str | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"serve-{self.port}.log"
        database = database or f"sqlite:///{folder / 'kaladan.sqlite3'}"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("KALADAN_BROKER_URL", None)
        with self.log.open("w") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kaladan.cli.main", "serve", "--port", str(self.port),
                 "--database-url", database, "--bot-delay", "0", "--bot-workers", "1",
                 "--games-per-minute", "100000", "--read-rate", "100000", *flags],
                stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        assert "in your browser" in first, first + self.log.read_text()
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{self.url}/api/games", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert self.process.poll() is None, "kaladan serve exited: " + self.log.read_text()
            assert time.monotonic() < deadline, "kaladan serve did not come up"
            time.sleep(0.1)

    def rss_kib(self) -> int:
        """The server's resident memory (``VmRSS`` of /proc/<pid>/status)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM, then the exit code (SIGKILL and a failure if it does not end in time)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            raise AssertionError("kaladan serve did not stop on SIGTERM") from None
        finally:
            assert self.process.stdout is not None
            self.process.stdout.close()

    def lines(self) -> list[dict[str, Any]]:
        """The log so far, each line parsed as JSON (a line that is not fails the test)."""
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]


@pytest.fixture
def serve() -> Iterator[list[Serve]]:
    """Servers a test started, stopped at its end whatever happens."""
    started: list[Serve] = []
    yield started
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait(10)


def connect(server: Serve) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=10)


def read_until_closed(sock: socket.socket) -> bytes:
    """What the server sends before it closes the connection (a reset counts as closed)."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


# --- 1. the request head: its size and its time ------------------------------------------


def test_a_header_flood_is_refused_and_costs_no_memory(tmp_path: Path,
                                                        serve: list[Serve]) -> None:
    """Ten clients each sending 8 MiB of one unfinished header: without a bound the server
    buffers all 80 MiB; with it each gets 431 within the first few hundred KiB."""
    server = Serve(tmp_path)
    serve.append(server)
    before = server.rss_kib()
    flood = b"a" * (64 * 1024)
    socks = []
    for _ in range(10):
        sock = connect(server)
        socks.append(sock)
        try:
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Flood: ")
            for _ in range(128):  # 8 MiB
                sock.sendall(flood)
        except OSError:  # refused and closed before the flood ended: what we want
            pass
    grown = server.rss_kib() - before
    assert grown < 20 * 1024, f"the server grew by {grown} KiB"
    answers = [read_until_closed(sock) for sock in socks]
    for sock in socks:
        sock.close()
    assert all(a == b"" or a.startswith(b"HTTP/1.1 431 ") for a in answers), answers
    assert any(a.startswith(b"HTTP/1.1 431 ") for a in answers)
    # headers of an ordinary size (a 16 KiB cookie) are still served
    r = httpx.get(f"{server.url}/api/games", headers={"Cookie": "c=" + "x" * 16_000})
    assert r.status_code == 200


def test_a_stalled_request_head_is_dropped_while_others_are_served(
        tmp_path: Path, serve: list[Serve]) -> None:
    server = Serve(tmp_path, "--header-timeout", "1")
    serve.append(server)
    half = connect(server)
    half.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    silent = connect(server)  # connects and never sends a byte
    began = time.monotonic()
    # a later request on a kept-alive connection is bounded the same way
    kept = connect(server)
    kept.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    first = kept.recv(65536)
    while b'"games"' not in first:  # the head and the body may come apart
        first += kept.recv(65536)
    assert first.startswith(b"HTTP/1.1 200 "), first
    kept.sendall(b"GET /api/games HTTP/1.1\r\nHo")
    with httpx.Client(base_url=server.url) as http:  # served meanwhile
        for _ in range(5):
            assert http.get("/api/games").status_code == 200
    half.settimeout(8)
    assert read_until_closed(half).startswith(b"HTTP/1.1 408 ")
    assert time.monotonic() - began < 4
    silent.settimeout(8)
    assert read_until_closed(silent) == b""
    kept.settimeout(8)
    assert read_until_closed(kept).startswith(b"HTTP/1.1 408 ")
    assert time.monotonic() - began < 6
    for sock in (half, silent, kept):
        sock.close()
    assert httpx.get(f"{server.url}/api/games").status_code == 200


# --- 2. the log ----------------------------------------------------------------------------


def test_json_log_lines_carry_the_process_and_the_game_and_never_a_secret(
        tmp_path: Path, serve: list[Serve]) -> None:
    from websockets.sync.client import connect as ws_connect

    server = Serve(tmp_path, "--log-format", "json", "--log-level", "info")
    serve.append(server)
    with httpx.Client(base_url=server.url) as http:
        created = create(http, ["human", "human"])  # type: ignore[arg-type]
        game_id = created["game_id"]
        tokens = join_all(http, created)
        assert http.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).status_code \
            == 200
        # a query string is never logged: here it is a made-up secret
        assert http.get(f"/api/games/{game_id}/legal?token=SECRETQUERY",
                        headers=auth(tokens[1])).status_code == 200
    with ws_connect(f"ws://127.0.0.1:{server.port}/ws/games/{game_id}?token={tokens[0]}") as ws:
        json.loads(ws.recv(timeout=10))
    time.sleep(0.3)  # the socket's access line is written when the server sees it close
    assert server.stop() in (0, -signal.SIGTERM)  # uvicorn ends by the signal it caught
    text = server.log.read_text()
    lines = server.lines()
    assert lines, "nothing logged"
    for line in lines:
        assert {"time", "level", "logger", "message", "pid"} <= set(line), line
        assert line["pid"] == server.process.pid
    about = [line for line in lines if line.get("game") == game_id]
    assert {(line["method"], line["status"]) for line in about} >= {("GET", 200), ("WS", 101),
                                                                   ("POST", 200)}
    for line in about:
        assert game_id in line.get("path", game_id)
    listing = [line for line in lines if line.get("path") == "/api/games"]
    assert listing and all("game" not in line for line in listing)
    secrets = [*tokens.values(), "SECRETQUERY",
               *(link["code"] for link in created["join"])]
    for secret in secrets:
        assert secret not in text


def test_text_log_lines_have_a_time_a_level_and_the_game(tmp_path: Path,
                                                         serve: list[Serve]) -> None:
    server = Serve(tmp_path)
    serve.append(server)
    with httpx.Client(base_url=server.url) as http:
        game_id = create(http, ["human", "random"])["game_id"]  # type: ignore[arg-type]
        http.get(f"/api/games/{game_id}")
    server.stop()
    access = [line for line in server.log.read_text().splitlines()
              if f"GET /api/games/{game_id} 200" in line]
    assert len(access) == 1
    assert f" INFO kaladan.access [{server.process.pid}] [{game_id}] GET" in access[0]


def test_warning_level_leaves_out_the_access_lines(tmp_path: Path, serve: list[Serve]) -> None:
    server = Serve(tmp_path, "--log-level", "warning")
    serve.append(server)
    httpx.get(f"{server.url}/api/games")
    server.stop()
    assert "kaladan.access" not in server.log.read_text()


# --- 3. the broker flags ------------------------------------------------------------------


def test_broker_flags_reach_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(serve_cmd, "_serve_here", lambda args, settings: seen.append(settings)
                        or 0)
    monkeypatch.setattr(logs, "configure", lambda *a: None)  # pytest's logging stays
    pg = "postgresql+psycopg://u@127.0.0.1:1/db"
    assert main(["serve", "--database-url", pg, "--broker-url", "redis://r:6379/0",
                 "--lease-seconds", "7.5"]) == 0
    monkeypatch.setenv("KALADAN_BROKER_URL", "redis://env:6379/1")
    assert main(["serve", "--database-url", pg]) == 0
    monkeypatch.delenv("KALADAN_BROKER_URL")
    assert main(["serve", "--database-url", pg]) == 0
    assert [(s.broker_url, s.lease_seconds) for s in seen] == [
        ("redis://r:6379/0", 7.5), ("redis://env:6379/1", 5.0),
        (None, 5.0)]


@pytest.mark.parametrize(("flags", "says"), [
    (["--broker-url", "redis://r/0"], "--broker-url needs a PostgreSQL --database-url"),
    (["--broker-url", "redis://r/0", "--database-url", "sqlite:///x.db"],
     "--broker-url needs a PostgreSQL --database-url"),
    (["--workers", "2", "--database-url", "postgresql+psycopg://u@h/db"],
     "--workers above 1 needs --broker-url"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--lease-seconds", "0"], "--lease-seconds must be above 0"),
    (["--header-timeout", "0"], "--header-timeout must be above 0"),
    (["--test-clock", "/nonexistent/now"], "--test-clock /nonexistent/now: no such file"),
])
def test_flags_that_cannot_work_are_refused(flags: list[str], says: str,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("KALADAN_BROKER_URL", raising=False)
    monkeypatch.delenv("KALADAN_DATABASE_URL", raising=False)
    assert main(["serve", "--port", str(free_port()), *flags]) == 2
    assert f"kaladan: error: {says}" in capsys.readouterr().err


# --- 4. several worker processes ----------------------------------------------------------


def pids_serving(server: Serve, requests: int) -> set[int]:
    """The processes that wrote access lines for ``requests`` new connections."""
    for _ in range(requests):
        with httpx.Client(base_url=server.url) as http:  # a connection each
            assert http.get("/api/games").status_code == 200
    time.sleep(0.2)
    return {line["pid"] for line in server.lines() if line.get("logger") == "kaladan.access"}


def test_workers_share_one_port_and_stop_on_sigterm(tmp_path: Path, postgres_db: str,
                                                    redis_server: RedisServer,
                                                    serve: list[Serve]) -> None:
    """The parent migrates the fresh database once, two workers answer on one port, a
    worker that dies is replaced, and SIGTERM stops them all."""
    server = Serve(tmp_path, "--workers", "2", "--broker-url", redis_server.url,
                   "--log-format", "json", database=postgres_db)
    serve.append(server)
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while len(workers) < 2:
        workers = pids_serving(server, 20)
        assert time.monotonic() < deadline, f"only {workers} served"
    assert server.process.pid not in workers and len(workers) == 2
    with httpx.Client(base_url=server.url) as http:  # the app works, not only the list
        game = create(http, ["human", "random"])  # type: ignore[arg-type]
        assert http.get(f"/api/games/{game['game_id']}").status_code == 200
    dead = min(workers)
    os.kill(dead, signal.SIGKILL)
    while True:  # its replacement serves
        serving = pids_serving(server, 10)
        if serving - workers:
            break
        assert time.monotonic() < deadline + 30, "the dead worker was not replaced"
    assert any(f"[{dead}] died" in line["message"] for line in server.lines())
    everyone = serving
    assert server.stop() == 0
    for pid in everyone:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(
            f"/proc/{pid}/status").read_text(), f"worker {pid} still runs"
    stopping = [line for line in server.lines() if "Application shutdown complete" in
                line["message"]]
    assert len(stopping) >= 2  # the workers shut down, not killed


def test_workers_that_cannot_start_stop_the_parent(tmp_path: Path, postgres_db: str,
                                                   redis_server: RedisServer) -> None:
    """A worker that cannot build the app (a policy file that is no policy) fails the same
    way on every restart: the parent gives up with status 3 instead of looping."""
    policy = tmp_path / "policy.zip"
    policy.write_text("not a policy")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "kaladan.cli.main", "serve", "--port", str(free_port()),
         "--workers", "2", "--database-url", postgres_db, "--broker-url", redis_server.url,
         "--bot-workers", "1", "--ppo-policy", str(policy)],
        capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 3, done.stderr
    assert "the app cannot be built" in done.stderr
