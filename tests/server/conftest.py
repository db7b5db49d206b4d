"""Fixtures of the server tests: the app on a fresh SQLite file, a real uvicorn server in a
thread, and a throwaway PostgreSQL cluster (initdb + pg_ctl in a temporary directory)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*starlette.testclient.*")

from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from live_support import GENEROUS, LiveServer, free_port, sqlite_url  # noqa: E402
from redis_support import RedisServer, redis_binary  # noqa: E402

from kaladan.server import create_app  # noqa: E402


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return create_app(sqlite_url(tmp_path), GENEROUS, bot_delay=0, rate_limit=1_000_000)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(create_app(sqlite_url(tmp_path), GENEROUS, bot_delay=0,
                               rate_limit=1_000_000)) as server:
        yield server


def missing(what: str) -> NoReturn:
    """A real service the test needs is not installed: skipped, but a failure under CI=true
    (.ci/run installs every one)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} not found, but CI=true: .ci/run installs it")
    pytest.skip(f"{what} not installed")


# --- PostgreSQL ---------------------------------------------------------------------------


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_postgres(args: list[str]) -> list[str]:
    """The server refuses to run as root: run the cluster as the ``postgres`` user."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *args]
    return args


class PostgresCluster:
    """A throwaway PostgreSQL cluster (initdb + pg_ctl in a temporary directory) that a test
    may stop and start again (a database outage)."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.base = Path(tempfile.mkdtemp(prefix="kaladan-pg-"))
        self.data, sockets = self.base / "data", self.base / "run"
        sockets.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres")
            shutil.chown(sockets, "postgres")
        self.port = free_port()
        self.options = (f"-p {self.port} -k {sockets} -c listen_addresses=127.0.0.1 "
                        "-c fsync=off")
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        subprocess.run(_as_postgres([str(bin_dir / "initdb"), "-D", str(self.data), "-U",
                                     "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]),
                       check=True, capture_output=True, timeout=120)
        self.start()

    def start(self) -> None:
        subprocess.run(_as_postgres([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-o",
                                     self.options, "-l", str(self.base / "log"), "-w",
                                     "start"]), check=True, capture_output=True, timeout=120)

    def stop(self) -> None:
        subprocess.run(_as_postgres([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m",
                                     "immediate", "stop"]), capture_output=True, timeout=60)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One cluster for this test session (one per xdist worker). Skipped without PostgreSQL
    binaries, except in CI (CI=true), where a missing server is a failure."""
    bin_dir = _pg_bin()
    if bin_dir is None:
        missing("PostgreSQL binaries (initdb, pg_ctl)")
    cluster = PostgresCluster(bin_dir)
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(scope="session")
def postgres_url(postgres_cluster: PostgresCluster) -> str:
    return postgres_cluster.url


@pytest.fixture
def postgres_db(postgres_url: str) -> Iterator[str]:
    """A fresh database in the session's cluster, dropped afterwards."""
    from sqlalchemy import create_engine, text

    name = f"kaladan_{os.getpid()}_{time.monotonic_ns()}"
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield postgres_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


# --- Redis --------------------------------------------------------------------------------


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A fresh Redis server for one test. Skipped without ``redis-server``, except in CI
    (CI=true), where a missing server is a failure."""
    binary = redis_binary()
    if binary is None:
        missing("redis-server")
    server = RedisServer(binary)
    try:
        yield server
    finally:
        server.remove()
