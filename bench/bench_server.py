"""Server load benchmark: N concurrent games, each with one WebSocket client playing a human
seat (a random legal action as soon as it is its turn, or after ``--think`` seconds) against
bots that decide on the server with no pause. Prints actions per second and the latency of
each action (sent -> the next view received) at p50/p95/p99, the CPU time the server and
the clients spent per action (a figure that does not depend on other load on the machine),
and the median size of the views that ask the client for an Action-phase decision (the
whole WebSocket message, as sent). Prints figures only.

The server is the real app on uvicorn in its own process, with a fresh SQLite database (or
``--database-url``); its per-address limits are raised so that clients answering instantly
are not throttled.

With ``--processes 1,2`` every size is run once per number of server processes (on
``--database-url`` PostgreSQL; more than one process shares ``--broker-url`` Redis, docs/server.md
"Scaling out"): each game is created on one process and its client connects to a process
drawn at random, as behind a proxy without sticky sessions, so most decisions are forwarded
to the game's owner. The CPU per action is the sum over the server processes.

With ``--flood`` every size is run twice, the second time with hostile clients alongside the
honest ones: games of searching bots at the largest budget (``mcts:time=10``) and clients
sending malformed requests without pause; the honest clients' p95 is printed for both.

    python bench/bench_server.py [--games 50,200,500] [--actions-per-game 40] [--think 0]
                                 [--flood] [--processes 1,2 --database-url URL
                                 --broker-url redis://HOST:PORT/0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

SERVER = """
import sys, uvicorn
from kaladan.server import create_app
from kaladan.server.settings import ServerSettings

GENEROUS = ServerSettings(read_rate=1e9, load_rate=1e9, games_per_minute=10**9, sockets=10**6,
                          any_seed=True, broker_url=sys.argv[3] if len(sys.argv) > 3 else None)
app = create_app(sys.argv[1], GENEROUS, bot_delay=0, rate_limit=1e9)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning",
            ws_per_message_deflate=False)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(url: str, port: int, broker: str | None = None) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", SERVER, url, str(port),
                                *([broker] if broker else [])])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=1)
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


async def create_games(base: str, n: int, bots: list[str], seed: int) -> list[tuple[str, str]]:
    """(game id, token of seat 0) for ``n`` new quick games, over a few connections."""
    out: list[tuple[str, str]] = []

    async def post(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> Any:
        while True:
            r = await http.post(path, json=body)
            if r.status_code != 429:
                r.raise_for_status()
                return r.json()
            await asyncio.sleep(0.05)

    async def worker(indices: range) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            for i in indices:
                created = await post(http, "/api/games", {
                    "seats": ["human", *bots], "quick": True, "seed": seed + i,
                    "name": f"bench {i}"})
                code = created["join"][0]["url"].split("code=")[1]
                joined = await post(http, f"/api/games/{created['game_id']}/seats/0/join",
                                    {"code": code})
                out.append((created["game_id"], joined["token"]))

    workers = 16
    await asyncio.gather(*(worker(range(w, n, workers)) for w in range(workers)))
    return out


def is_action_phase(view: dict[str, Any]) -> bool:
    """The view asks its seat for an Action-phase decision (R10.1)."""
    return bool(view["your_turn"]) and view["observation"]["pending"]["kind"] == "action"


async def play(ws_base: str, game_id: str, token: str, actions: int, think: float,
               rng: random.Random, latencies: list[float], sizes: list[int]) -> int:
    """Play up to ``actions`` decisions; returns how many were made. ``sizes`` gets the
    length of every message that asks for an Action-phase decision."""
    made = 0
    async with connect(f"{ws_base}/ws/games/{game_id}?token={token}", max_size=2**22) as ws:
        sent_at: float | None = None
        sent_version = -1
        while made < actions:
            text = await ws.recv()
            message = json.loads(text)
            if message["type"] == "error":
                raise RuntimeError(f"server refused an action: {message['error']}")
            view = message["view"]
            if is_action_phase(view):
                sizes.append(len(text.encode("utf-8") if isinstance(text, str) else text))
            if sent_at is not None and view["version"] > sent_version:
                latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            if view["result"] is not None:
                break
            if not view["your_turn"] or sent_at is not None:
                continue
            if think:  # people do not answer in lockstep: 0.5 to 1.5 times the mean
                await asyncio.sleep(think * (0.5 + rng.random()))
            choice = rng.randrange(view["legal_count"])  # any legal action
            sent_version = view["version"]
            sent_at = time.perf_counter()
            await ws.send(json.dumps({"type": "action", "index": choice,
                                      "version": sent_version}))
            made += 1
        while sent_at is not None:  # the answer to the last action
            view = json.loads(await ws.recv()).get("view")
            if view is not None and view["version"] > sent_version:
                latencies.append(time.perf_counter() - sent_at)
                sent_at = None
    return made


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def fresh_database(url: str, name: str) -> Iterator[str]:
    """A new PostgreSQL database beside ``url``'s, dropped afterwards (a run must not find
    the previous run's unfinished games); other URLs as they are."""
    if not url.startswith("postgresql"):
        yield url
        return
    from sqlalchemy import create_engine, text

    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def each_cpu(pids: list[int]) -> list[float] | None:
    """Each process's CPU time so far (None off Linux)."""
    each = [cpu_seconds(pid) for pid in pids]
    return None if any(x is None for x in each) else [x for x in each if x is not None]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


FLOOD_GAMES = 6  # games of two mcts:time=10 bots each
FLOOD_CLIENTS = 4  # clients sending malformed requests without pause


async def flood(base: str, stop: asyncio.Event) -> int:
    """Hostile clients until ``stop``: searching-bot games and a stream of bad requests;
    returns how many bad requests were answered."""
    answered = 0
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        for _ in range(FLOOD_GAMES):
            r = await http.post("/api/games", json={"seats": ["mcts:time=10"] * 2,
                                                    "quick": True})
            r.raise_for_status()

    async def spam(k: int) -> None:
        nonlocal answered
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            while not stop.is_set():
                if k % 2:
                    await http.post("/api/games", content=b'{"seats": [NaN, "\\ud800"]}',
                                    headers={"content-type": "application/json"})
                else:
                    await http.get("/api/games/g_nonexistent/view")
                answered += 1

    await asyncio.gather(*(spam(k) for k in range(FLOOD_CLIENTS)))
    return answered


async def run(ports: list[int], server_pids: list[int], n: int, args: argparse.Namespace,
              hostile: bool = False) -> None:
    port = ports[0]
    base = f"http://127.0.0.1:{port}"
    bots = args.bots.split(",")
    games = []
    for k, each in enumerate(ports):  # the games spread over the processes
        games += await create_games(f"http://127.0.0.1:{each}", n // len(ports)
                                    + (k < n % len(ports)), bots, seed=1000 * n + k)
    spread = random.Random(n)  # each client on any process
    sockets = [f"ws://127.0.0.1:{spread.choice(ports)}" for _ in games]
    stop = asyncio.Event()
    flooding = asyncio.create_task(flood(base, stop)) if hostile else None
    if flooding is not None:
        await asyncio.sleep(3.0)  # the searches are under way
    latencies: list[float] = []
    sizes: list[int] = []
    server_start = each_cpu(server_pids)
    client_cpu = time.process_time()
    start = time.perf_counter()
    made = await asyncio.gather(*(
        play(sockets[i], game_id, token, args.actions_per_game, args.think,
             random.Random(i), latencies, sizes) for i, (game_id, token) in enumerate(games)))
    seconds = time.perf_counter() - start
    client_cpu = time.process_time() - client_cpu
    server_end = each_cpu(server_pids)
    spam = ""
    if flooding is not None:
        stop.set()
        spam = f"  [flood: {await flooding} bad requests answered]"
    total = sum(made)
    cpu = ""
    if server_start is not None and server_end is not None:
        spent = [1000 * (e - b) / total for b, e in zip(server_start, server_end, strict=True)]
        cpu = f"  server CPU {sum(spent):.2f} ms/action"
        if len(spent) > 1:  # each process's share of the sum
            cpu += " (" + " + ".join(f"{x:.2f}" for x in spent) + ")"
    ms = [x * 1000 for x in latencies]
    label = ("flood" if hostile else "quiet") + (
        f" {len(ports)} processes" if args.processes != "1" else "")
    print(f"{label} {n:>4} games  {total:>6} actions in {seconds:6.1f} s  "
          f"{total / seconds:7.1f} "
          f"actions/s  latency p50 {percentile(ms, 50):6.1f} ms  p95 "
          f"{percentile(ms, 95):6.1f} ms  p99 {percentile(ms, 99):6.1f} ms  "
          f"(mean {statistics.fmean(ms):.1f} ms){cpu}  client CPU "
          f"{1000 * client_cpu / total:.2f} ms/action  Action-phase view median "
          f"{statistics.median(sizes) / 1000:.2f} kB{spam}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="50,200,500",
                        help="comma-separated numbers of concurrent games")
    parser.add_argument("--actions-per-game", type=int, default=40)
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a client waits before answering, drawn "
                             "uniformly from 0.5-1.5 times it (default 0: at once)")
    parser.add_argument("--bots", default="random,random",
                        help="the other seats (default random,random)")
    parser.add_argument("--database-url", help="default: a fresh SQLite file")
    parser.add_argument("--processes", default="1",
                        help="comma-separated numbers of server processes (default 1); "
                             "more than one needs --database-url (PostgreSQL) and "
                             "--broker-url")
    parser.add_argument("--broker-url", help="Redis for several processes "
                                             "(redis://HOST:PORT/0)")
    parser.add_argument("--flood", action="store_true",
                        help="run every size again with hostile clients alongside")
    args = parser.parse_args()
    counts = [int(x) for x in args.games.split(",") if x.strip()]
    processes = [int(x) for x in args.processes.split(",") if x.strip()]
    if max(processes) > 1 and not (args.database_url and args.broker_url):
        raise SystemExit("--processes above 1 needs --database-url (PostgreSQL) and "
                         "--broker-url")
    print(f"bench_server: 1 human seat (WebSocket client) + {args.bots} per game, "
          f"think {args.think} s, up to {args.actions_per_game} actions per client, "
          f"{os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as folder:
        for n in counts:  # fresh servers (and database) for every size and run
            for count in processes:
                for hostile in (False, True) if args.flood else (False,):
                    name = f"bench{n}{'-flood' if hostile else ''}"
                    url = args.database_url or f"sqlite:///{Path(folder) / name}.sqlite3"
                    # one process alone runs without the broker: the figure to compare to
                    broker = args.broker_url if count > 1 else None
                    with fresh_database(url, f"kaladan_{name}_{count}") as database:
                        ports = [free_port() for _ in range(count)]
                        servers = [start_server(database, port, broker) for port in ports]
                        try:
                            asyncio.run(run(ports, [s.pid for s in servers], n, args,
                                            hostile))
                        finally:
                            for server in servers:
                                server.terminate()
                                server.wait(10)


if __name__ == "__main__":
    main()
