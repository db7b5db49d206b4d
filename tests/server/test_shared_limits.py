"""The per-address limits hold across processes (counted in Redis) when a broker is set:
rates, WebSockets and bot searches; a process that dies stops counting within its lease;
with Redis down every process falls back to its own counts and nothing fails."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import Any

import httpx
import pytest
from live_support import GENEROUS, LiveServer
from redis_support import RedisServer
from security_support import watch_log
from server_support import create, join_all, wait_for_humans
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from ws_support import Socket, run_async

from kaladan.rules.actions import Action
from kaladan.server import create_app
from kaladan.server.botpool import BotPool
from kaladan.server.shared_limits import ALIVE, SharedLimits

TTL = 1.0  # lease_seconds: how long a dead process's holds are still counted


async def both(*made: SharedLimits) -> None:
    for one in made:
        await one.start()


async def closed(*made: SharedLimits) -> None:
    for one in made:
        await one.close()


# --- SharedLimits alone ---------------------------------------------------------------------


def test_a_rate_is_counted_over_all_processes_in_a_sliding_window(
        redis_server: RedisServer) -> None:
    async def scenario() -> None:
        a, b = SharedLimits(redis_server.url, "a"), SharedLimits(redis_server.url, "b")
        writes_a, writes_b = a.per_address("writes", 5), b.per_address("writes", 5)
        started = time.monotonic()
        answers = [await (writes_a if i % 2 else writes_b).admit("10.0.0.1") for i in range(7)]
        assert time.monotonic() - started < 0.9, "too slow for the window"
        assert answers == [True] * 5 + [False] * 2
        assert await writes_a.admit("10.0.0.2"), "another address has its own count"
        await asyncio.sleep(1.05)  # the window slid past the first five
        assert await writes_b.admit("10.0.0.1")
        await closed(a, b)

    run_async(scenario())


def test_held_counts_are_summed_over_processes_and_given_back(
        redis_server: RedisServer) -> None:
    async def scenario() -> None:
        a, b = SharedLimits(redis_server.url, "a"), SharedLimits(redis_server.url, "b")
        await both(a, b)
        assert [await a.acquire("sockets", "x", 3), await b.acquire("sockets", "x", 3),
                await a.acquire("sockets", "x", 3)] == [True] * 3
        assert not await b.acquire("sockets", "x", 3)
        assert await b.acquire("sockets", "y", 3), "another address has its own count"
        await a.release("sockets", "x")
        assert await b.acquire("sockets", "x", 3)
        assert not await a.acquire("sockets", "x", 3)
        await a.close()  # a graceful stop: a's hold is not counted from now on
        assert await b.acquire("sockets", "x", 3)
        await b.close()

    run_async(scenario())


def test_a_dead_process_stops_counting_within_its_lease(redis_server: RedisServer) -> None:
    async def scenario() -> None:
        a, b = SharedLimits(redis_server.url, "a", TTL), SharedLimits(redis_server.url, "b", TTL)
        await both(a, b)
        assert await a.acquire("bot_jobs", "x", 2) and await a.acquire("bot_jobs", "x", 2)
        await asyncio.sleep(TTL * 1.5)  # a's heartbeat keeps its holds beyond one lease
        assert not await b.acquire("bot_jobs", "x", 2)
        assert a._heartbeat is not None
        a._heartbeat.cancel()  # a dies without releasing anything
        died = time.monotonic()
        assert not await b.acquire("bot_jobs", "x", 2), "counted until the lease runs out"
        while not await b.acquire("bot_jobs", "x", 2):
            assert time.monotonic() - died < TTL + 0.5, "a dead process is still counted"
            await asyncio.sleep(0.05)
        assert await b.redis.hkeys("kaladan:limits:held:bot_jobs:x") == [b"b"]
        await b.beat()  # b's heartbeat forgets the dead process
        assert await b.redis.zrange(ALIVE, 0, -1) == [b"b"]
        await closed(a, b)

    run_async(scenario())


def test_with_redis_down_limits_are_counted_locally_and_put_right_after(
        redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        a = SharedLimits(redis_server.url, "a", TTL)
        await a.start()
        assert await a.acquire("sockets", "x", 2)
        redis_server.stop()
        writes = a.per_address("writes", 3)
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, "kaladan.server"):
            answers = [await writes.admit("x") for _ in range(4)]
            assert answers == [True] * 3 + [False], "this process's own count"
            assert await a.acquire("sockets", "x", 2)
            assert not await a.acquire("sockets", "x", 2)
            await a.release("sockets", "x")
        assert time.monotonic() - started < 2, "an outage must not make every call wait"
        warnings = [r for r in caplog.records if "Redis cannot be reached" in r.getMessage()]
        assert len(warnings) == 1, "one warning, not one per call"
        # Redis comes back empty: the heartbeat writes this process's holds again.
        redis_server.start()
        deadline = time.monotonic() + 5
        while await _held(redis_server, "sockets", "x") != {b"a": b"1"}:
            assert time.monotonic() < deadline, "the holds were not written back"
            await asyncio.sleep(0.1)
        await a.close()

    run_async(scenario())


async def _held(redis: RedisServer, kind: str, address: str) -> object:
    """The held counts per process in Redis, None while it cannot be read."""
    probe = SharedLimits(redis.url, "probe")
    try:
        return await probe.redis.hgetall(f"kaladan:limits:held:{kind}:{address}")
    except Exception:
        return None
    finally:
        await probe.redis.aclose()


def test_bot_searches_per_client_are_counted_over_processes(redis_server: RedisServer) -> None:
    running = 0
    most = 0

    async def in_worker(work: Any, args: tuple[Any, ...]) -> Action:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.3)
        running -= 1
        return "pass"  # type: ignore[return-value]  # the pool passes it through

    async def scenario() -> None:
        a, b = SharedLimits(redis_server.url, "a"), SharedLimits(redis_server.url, "b")
        await both(a, b)
        pools = [BotPool(1, 1, 1.0, shared) for shared in (a, b)]
        for pool in pools:
            pool._in_worker = in_worker  # type: ignore[method-assign,assignment]  # no workers
        state: Any = None
        chosen = await asyncio.gather(*(pools[i % 2].choose("owner", "mcts", state, 0, i)
                                        for i in range(4)))
        assert chosen == ["pass"] * 4
        assert most == 1, "two searches of one client ran at once in two processes"
        await pools[0].choose("other", "mcts", state, 0, 0)
        await closed(a, b)

    run_async(scenario())


# --- two servers sharing one Redis ----------------------------------------------------------


@contextmanager
def two_servers(database: str, redis: RedisServer, **limits: Any) -> Iterator[
        tuple[LiveServer, LiveServer]]:
    """Two servers on one PostgreSQL database and one Redis (several processes need both)."""
    settings = replace(GENEROUS, broker_url=redis.url, lease_seconds=TTL, **limits)
    with ExitStack() as stack:
        servers = [stack.enter_context(LiveServer(create_app(database, settings, bot_delay=0)))
                   for _ in range(2)]
        yield servers[0], servers[1]


def post_alternately(a: LiveServer, b: LiveServer, count: int) -> list[int]:
    """Statuses of ``count`` write requests (refused bodies: cheap), a, b, a, ..."""
    with httpx.Client() as http:
        return [http.post(f"{(a, b)[i % 2].http}/api/games", json={"seats": []}).status_code
                for i in range(count)]


def test_the_limits_are_per_address_across_processes(
        postgres_db: str, redis_server: RedisServer) -> None:
    with two_servers(postgres_db, redis_server, rate=5, read_rate=6) as (a, b):
        statuses = post_alternately(a, b, 7)
        assert 429 not in statuses[:5] and statuses[5:] == [429, 429], statuses
        with httpx.Client() as http:
            reads = [http.get(f"{(a, b)[i % 2].http}/api/games").status_code for i in range(7)]
        assert reads == [200] * 6 + [429]
        time.sleep(1.05)
        assert post_alternately(b, a, 1) != [429], "the window slides"


def new_game(server: LiveServer) -> str:
    with httpx.Client(base_url=server.http) as http:
        created = create(http, ["human", "random"], quick=True, seed=1)  # type: ignore[arg-type]
        wait_for_humans(http, created["game_id"], join_all(http, created))
        return str(created["game_id"])


async def close_code(url: str) -> int:
    async with connect(url) as ws:
        try:
            message = await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None
            return closed.rcvd.code
    raise AssertionError(f"the socket was not closed but sent {message!r}")


def test_sockets_per_address_count_across_processes(
        postgres_db: str, redis_server: RedisServer) -> None:
    with two_servers(postgres_db, redis_server, sockets=3) as (a, b):
        url_a = f"{a.ws}/ws/games/{new_game(a)}"
        url_b = f"{b.ws}/ws/games/{new_game(b)}"

        async def scenario() -> None:
            held = [await Socket.open(url) for url in (url_a, url_b, url_a)]
            for sock in held:
                await sock.wait_for(lambda m: m["type"] == "view")
            assert await close_code(url_b) == 1013
            assert await close_code(url_a) == 1013
            await held[0].close()
            for _ in range(100):  # the server sees the close soon after
                try:
                    again = await Socket.open(url_b)
                    await again.wait_for(lambda m: m["type"] == "view")
                    break
                except AssertionError:
                    await asyncio.sleep(0.05)
            else:
                raise AssertionError("a freed socket was not given back")
            for sock in (*held[1:], again):
                await sock.close()

        run_async(scenario())


def test_with_redis_down_requests_are_still_served(
        postgres_db: str, redis_server: RedisServer) -> None:
    with watch_log() as log, two_servers(postgres_db, redis_server, rate=5, sockets=2) as (a, b):
        game_id = new_game(a)
        redis_server.stop()
        with httpx.Client() as http:
            for server in (a, b, a, b):
                assert http.get(f"{server.http}/api/games").status_code == 200
            # Each process counts alone: 5 writes each, the 6th to one process is refused.
            statuses = post_alternately(a, b, 10) + post_alternately(a, a, 1)
            assert statuses[:10].count(429) == 0 and statuses[10] == 429, statuses

        async def sockets() -> None:
            sock = await Socket.open(f"{a.ws}/ws/games/{game_id}")
            await sock.wait_for(lambda m: m["type"] == "view")
            await sock.close()

        run_async(sockets())
        redis_server.start()
        time.sleep(1.1)  # past the pause after a failure: Redis is asked again
        statuses = post_alternately(b, a, 7)
        assert 429 not in statuses[:5] and statuses[5:] == [429, 429], statuses
    assert [f for f in log.failures() if "Redis" not in f] == []
    assert all(r.levelno < logging.ERROR for r in log.records), log.failures()
