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

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*starlette.testclient.*")

from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from live_support import LiveServer, free_port, sqlite_url  # noqa: E402

from kaladan.server import create_app  # noqa: E402


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return create_app(sqlite_url(tmp_path), bot_delay=0, rate_limit=1_000_000)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(create_app(sqlite_url(tmp_path), bot_delay=0,
                               rate_limit=1_000_000)) as server:
        yield server


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


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throwaway cluster for this test session (one per xdist worker). Skipped without
    PostgreSQL binaries, except in CI (CI=true), where a missing server is a failure."""
    bin_dir = _pg_bin()
    if bin_dir is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL binaries not found, but CI=true: .ci/run installs them")
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not installed")
    base = Path(tempfile.mkdtemp(prefix="kaladan-pg-"))
    data, sockets = base / "data", base / "run"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
        shutil.chown(sockets, "postgres")
    port = free_port()
    run = dict(check=True, capture_output=True, timeout=120)
    subprocess.run(_as_postgres([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres",
                                 "-A", "trust", "--no-sync", "-E", "UTF8"]), **run)
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(_as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options,
                                 "-l", str(base / "log"), "-w", "start"]), **run)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-m",
                                     "immediate", "stop"]), capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def postgres_db(postgres_url: str) -> Iterator[str]:
    """A fresh database in the session's cluster, dropped afterwards."""
    from sqlalchemy import create_engine, text

    name = f"kaladan_{os.getpid()}_{time.monotonic_ns()}"
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield postgres_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
