"""Several real server processes on one PostgreSQL database and one Redis server
(docs/server.md "Scaling out"): any process serves any client, one writer per game,
events fanned out and resynced, a dead owner's games taken over."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_support import Processes, ServerProcess
from redis_support import RedisServer
from server_support import auth, join_code
from test_server_hidden import (
    check_log_entry,
    entry_versions,
    hidden_cards,
    named_in_public,
    published,
    states_by_version,
    undrawn,
)
from ws_support import Socket, run_async

from kaladan.server.service import rebuild
from kaladan.server.storage import Store


@pytest.fixture
def cluster(postgres_db: str, redis_server: RedisServer, tmp_path: Path) -> Iterator[Processes]:
    processes = Processes(postgres_db, redis_server, tmp_path)
    try:
        yield processes
    finally:
        processes.close()


def new_game(server: ServerProcess, seats: list[str], seed: int = 7) -> dict[str, Any]:
    r = httpx.post(server.http + "/api/games", json={"seats": seats, "seed": seed,
                                                      "quick": True}, timeout=30)
    assert r.status_code == 201, r.text
    return dict(r.json())


def join(server: ServerProcess, game: dict[str, Any], seat: int) -> str:
    link = next(link for link in game["join"] if link["seat"] == seat)
    r = httpx.post(f"{server.http}/api/games/{game['game_id']}/seats/{seat}/join",
                   json={"code": join_code(link)}, timeout=30)
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def view(server: ServerProcess, game_id: str, token: str | None = None) -> dict[str, Any]:
    r = httpx.get(f"{server.http}/api/games/{game_id}/view",
                  headers=auth(token) if token else {}, timeout=30)
    assert r.status_code == 200, r.text
    return dict(r.json())


def view_at(server: ServerProcess, game_id: str, version: int,
            token: str | None = None) -> dict[str, Any]:
    """The view once the server's copy has reached ``version`` (events take a moment)."""
    deadline = time.monotonic() + 20
    while True:
        seen = view(server, game_id, token)
        if seen["version"] >= version or time.monotonic() > deadline:
            assert seen["version"] == version, (seen["version"], version)
            return seen
        time.sleep(0.01)


def at_once(*calls: Callable[[], int]) -> list[int]:
    """Run ``calls`` on threads released together; their results in order."""
    results = [0] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(i: int) -> None:
        barrier.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def post(url: str, body: dict[str, Any], token: str | None = None) -> int:
    return httpx.post(url, json=body, headers=auth(token) if token else {},
                      timeout=30).status_code


def stored_steps(database: str, game_id: str) -> list[tuple[int, str, list[int]]]:
    store = Store(database)
    try:
        row = store.load(game_id)
        assert row is not None
        rebuild(row)  # every stored step is legal and causes its recorded chance
        return row.steps
    finally:
        store.dispose()


def test_any_process_serves_any_client(cluster: Processes) -> None:
    """A game created on one process, its seats joined on two others, decisions sent to
    whichever process: every process shows each seat the same view at every version."""
    a, b, c = cluster.start(3)
    game = new_game(a, ["human", "human"])
    game_id = game["game_id"]
    tokens = {0: join(b, game, 0), 1: join(c, game, 1)}
    rng = random.Random(5)
    servers = [a, b, c]
    for _ in range(40):
        spectator = view(rng.choice(servers), game_id)
        if spectator["result"] is not None:
            break
        seat = spectator["to_move"]
        shown = view_at(rng.choice(servers), game_id, spectator["version"], tokens[seat])
        r = httpx.post(f"{rng.choice(servers).http}/api/games/{game_id}/actions",
                       headers=auth(tokens[seat]), timeout=30,
                       json={"index": rng.randrange(shown["legal_count"]),
                             "version": shown["version"]})
        assert r.status_code == 200, r.text
        version = r.json()["version"]
        for s in (0, 1):
            views = [json.dumps(view_at(server, game_id, version, tokens[s]), sort_keys=True)
                     for server in servers]
            assert views[0] == views[1] == views[2]
    assert len(stored_steps(cluster.database, game_id)) == view(a, game_id)["version"]


def test_the_same_decision_at_once_on_two_processes_is_applied_once(cluster: Processes) -> None:
    a, b = cluster.start(2)
    game = new_game(a, ["human", "human"], seed=11)
    game_id = game["game_id"]
    tokens = {0: join(a, game, 0), 1: join(b, game, 1)}
    for round_ in range(120):
        spectator = view(a, game_id)
        if spectator["result"] is not None:
            game = new_game(a if round_ % 2 else b, ["human", "human"], seed=round_)
            game_id = game["game_id"]
            tokens = {0: join(a, game, 0), 1: join(b, game, 1)}
            continue
        seat = spectator["to_move"]
        shown = view_at(a, game_id, spectator["version"], tokens[seat])
        body = {"index": random.Random(round_).randrange(shown["legal_count"]),
                "version": shown["version"]}
        url = f"/api/games/{game_id}/actions"
        answers = at_once(partial(post, a.http + url, body, tokens[seat]),
                          partial(post, b.http + url, body, tokens[seat]))
        assert sorted(answers) == [200, 409], answers
        assert len(stored_steps(cluster.database, game_id)) == shown["version"] + 1


def test_a_seat_joined_on_two_processes_at_once_gets_one_token(cluster: Processes) -> None:
    a, b = cluster.start(2)
    for seed in range(10):
        game = new_game(a, ["human", "human", "human"], seed=seed)
        url = f"/api/games/{game['game_id']}/seats/{{}}/join"
        code = {link["seat"]: {"code": join_code(link)} for link in game["join"]}
        results = at_once(partial(post, a.http + url.format(0), code[0]),
                          partial(post, b.http + url.format(0), code[0]),
                          partial(post, b.http + url.format(1), code[1]))
        # one of the two claims of seat 0 wins; the other seat's join is not lost
        assert sorted(results[:2]) == [200, 409] and results[2] == 200, results
        seats = httpx.get(f"{a.http}/api/games/{game['game_id']}", timeout=30).json()["seats"]
        assert [s["joined"] for s in seats] == [True, True, False]


def owner_of(cluster: Processes, game_id: str) -> ServerProcess | None:
    """The live process holding the game's lease (by the pid in its name)."""
    store = Store(cluster.database)
    try:
        holder = store.lease_holder(game_id)
    finally:
        store.dispose()
    if holder is None or not holder.alive:
        return None
    pid = int(holder.owner.split("-")[-2])
    return next((s for s in cluster.started if s.process.pid == pid), None)


def test_seats_on_different_processes_see_no_hidden_card_and_redis_may_restart(
        cluster: Processes) -> None:
    """A 2v2 game with each seat's socket on another process and a spectator on a third;
    Redis is restarted mid-game. Every socket follows the game to its end, each view
    complete, and no message shows a card another team holds or the deck hides."""
    servers = cluster.start(3, db_timeout=5.0)
    r = httpx.post(servers[0].http + "/api/games", timeout=30,
                   json={"mode": "team_2v2", "seats": ["human"] * 4})
    assert r.status_code == 201, r.text
    game = r.json()
    game_id = game["game_id"]
    tokens = {seat: join(servers[seat % 3], game, seat) for seat in range(4)}
    socks = run_async(play_across(cluster, servers, game_id, tokens, random.Random(3)))
    store = Store(cluster.database)
    try:
        row = store.load(game_id)
    finally:
        store.dispose()
    assert row is not None
    played = rebuild(row).game
    assert played.is_over
    states = states_by_version(played)
    versions = entry_versions(played)
    for viewer, raws in socks.items():
        views = [json.loads(raw)["view"] for raw in raws if raw.startswith('{"type":"view"')]
        assert views[-1]["result"] is not None, f"seat {viewer} did not see the end"
        for raw, view in zip((r for r in raws if r.startswith('{"type":"view"')), views,
                             strict=True):
            state = states[view["version"]]
            known = named_in_public(played, published(played, view["version"]))
            for card in hidden_cards(state, viewer) - known:
                assert card not in raw, f"seat {viewer} saw {card} at {view['version']}"
            for card in undrawn(state):
                assert card not in raw, f"seat {viewer} saw deck card {card}"
            for item in view["log"]:
                check_log_entry(played, viewer, item, versions)


async def play_across(cluster: Processes, servers: list[ServerProcess], game_id: str,
                      tokens: dict[int, str], rng: random.Random) -> dict[int | None, list[str]]:
    socks: dict[int | None, Socket] = {
        seat: await Socket.open(f"{servers[seat % 3].ws}/ws/games/{game_id}?token={token}")
        for seat, token in tokens.items()}
    socks[None] = await Socket.open(f"{servers[2].ws}/ws/games/{game_id}")
    decisions = 0
    restarted = False
    while True:
        views = [v for s in tokens if (v := socks[s].last_view()) is not None]
        if any(v["result"] is not None for v in views):
            break
        turn = [v for v in views if v["your_turn"]]
        if not turn:
            await asyncio.sleep(0.005)
            continue
        view = max(turn, key=lambda v: v["version"])
        if decisions == 40 and not restarted:  # Redis goes away and comes back
            restarted = True
            cluster.redis.stop()
            await asyncio.sleep(1.0)
            cluster.redis.start()
        sock = socks[view["seat"]]
        start = len(sock.messages)
        await sock.send({"type": "action", "index": rng.randrange(view["legal_count"]),
                         "version": view["version"]})
        answer = await sock.wait_for(
            lambda m, v=view["version"]: m["type"] == "error" or (
                m["type"] == "view" and m["view"]["version"] > v), start)
        if answer["type"] == "error":  # the broker was away: nothing changed, try again
            assert answer["error"]["status"] in (409, 503), answer
            await asyncio.sleep(0.2)
            continue
        decisions += 1
    # every socket reaches the end (the spectator's process followed through the restart)
    for sock in socks.values():
        await sock.wait_for(lambda m: m["type"] == "view" and m["view"]["result"] is not None)
    assert restarted and decisions > 40
    out = {seat: list(sock.raw) for seat, sock in socks.items()}
    for sock in socks.values():
        await sock.close()
    return out


def wait_until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.05)


def test_owners_killed_a_dozen_times_every_game_finishes(cluster: Processes) -> None:
    """SIGKILL of the owner of a bots' game or of a people's game, twelve times, with a new
    process started each time: another process takes the game over within a few seconds,
    its bots carry on, decisions sent to any survivor are applied once, and every game
    ends with its stored steps a legal game that every process shows alike."""
    settings = {"lease_seconds": 1.5, "bot_delay": 0.02, "db_timeout": 5.0}
    cluster.start(3, **settings)
    rng = random.Random(9)

    def alive() -> list[ServerProcess]:
        return [s for s in cluster.started if s.process.poll() is None]

    def new(seats: list[str]) -> dict[str, Any]:
        return new_game(rng.choice(alive()), seats, seed=rng.randrange(1 << 30))

    bots = new(["random"] * 3)
    people = new(["human", "human", "random"])
    tokens = {seat: join(rng.choice(alive()), people, seat) for seat in (0, 1)}
    games = [bots["game_id"], people["game_id"]]
    seen: list[tuple[int, dict[str, Any]]] = []  # every view a seat of the people's game got

    def decide(count: int) -> None:
        """Human decisions through any live process (forwarded or taken over)."""
        for _ in range(count):
            server = rng.choice(alive())
            spectator = view(server, people["game_id"])
            if spectator["result"] is not None:
                return
            seat = spectator["to_move"]
            if seat not in tokens:  # the bot's turn: it moves on its owner
                time.sleep(0.05)
                continue
            shown = view(server, people["game_id"], tokens[seat])
            seen.append((seat, shown))
            if not shown["your_turn"]:  # the game moved on between the two views
                continue
            r = httpx.post(f"{server.http}/api/games/{people['game_id']}/actions",
                           headers=auth(tokens[seat]), timeout=60,
                           json={"index": rng.randrange(shown["legal_count"]),
                                 "version": shown["version"]})
            # 409: the bot moved meanwhile; 503 "nothing changed": the takeover outlasted
            # the wait (a loaded machine), the client asks again
            assert r.status_code in (200, 409, 503), r.text
            if r.status_code == 503:
                assert r.json()["error"]["code"] == "storage_unavailable", r.text
                time.sleep(0.5)

    for kill in range(12):
        decide(3)
        target = bots["game_id"] if kill % 2 == 0 else people["game_id"]
        # the target's owner; a bots' game may end at any moment (then a new one is started)
        victim: ServerProcess | None = None
        deadline = time.monotonic() + 10
        while victim is None:
            if view(alive()[0], target)["result"] is not None:
                if target == people["game_id"]:
                    break
                bots = new(["random"] * 3)
                target = bots["game_id"]
                games.append(target)
            victim = owner_of(cluster, target)
            if victim is None:
                assert time.monotonic() < deadline, "no owner within 10 s"
                time.sleep(0.05)
        if victim is None:
            continue
        before = view(victim, target)["version"]
        victim.kill()
        cluster.start(1, **settings)
        # another process owns the game within a few seconds, and (bots) plays on; a bots'
        # game may have ended between the look at its result and the kill: nothing to own
        wait_until(lambda t=target: owner_of(cluster, t) is not None
                   or view(alive()[0], t)["result"] is not None, 10, "a new owner")
        if target == bots["game_id"]:
            wait_until(lambda t=target, b=before: view(alive()[0], t)["version"] > b
                       or view(alive()[0], t)["result"] is not None, 10, "bots play on")
    # play the people's game to its end; the bots end theirs
    while view(alive()[0], people["game_id"])["result"] is None:
        decide(20)
    for game_id in games:
        wait_until(lambda g=game_id: view(alive()[0], g)["result"] is not None, 300,
                   f"game {game_id} ends")
        steps = stored_steps(cluster.database, game_id)  # a legal game, replayed
        final = [json.dumps(view_at(s, game_id, len(steps)), sort_keys=True)
                 for s in alive()]
        assert len(set(final)) == 1
    # no view a seat received, from whichever process, showed another seat's hidden card
    store = Store(cluster.database)
    try:
        row = store.load(people["game_id"])
    finally:
        store.dispose()
    assert row is not None
    played = rebuild(row).game
    states = states_by_version(played)
    for seat, shown in seen:
        text = json.dumps(shown)
        known = named_in_public(played, published(played, shown["version"]))
        for card in hidden_cards(states[shown["version"]], seat) - known:
            assert card not in text, f"seat {seat} saw {card} at {shown['version']}"
    assert len(seen) > 40


def test_an_owner_paused_past_its_lease_cannot_commit(cluster: Processes) -> None:
    """SIGSTOP the owner past its lease: another process takes the game at the next
    decision; the old owner, resumed, stores nothing of its own (its token is fenced off)
    and passes decisions on to the new owner."""
    a, b = cluster.start(2, lease_seconds=1.0, db_timeout=5.0)
    game = new_game(a, ["human", "human"], seed=21)
    game_id = game["game_id"]
    tokens = {0: join(a, game, 0), 1: join(a, game, 1)}

    def decide(server: ServerProcess, expect: int) -> None:
        spectator = view(b, game_id)
        seat = spectator["to_move"]
        shown = view_at(b, game_id, spectator["version"], tokens[seat])
        r = httpx.post(f"{server.http}/api/games/{game_id}/actions", timeout=60,
                       headers=auth(tokens[seat]), json={"index": 0, "version": shown["version"]})
        assert r.status_code == 200, r.text
        assert r.json()["version"] == expect

    decide(a, 1)
    assert owner_of(cluster, game_id) is a
    a.pause()
    time.sleep(2.0)  # a's lease expires while it sleeps
    decide(b, 2)  # b finds no live owner: it takes the game and decides
    assert owner_of(cluster, game_id) is b
    a.resume()
    for version in (3, 4, 5):
        decide(a, version)  # a, woken, owns nothing: forwarded to b
    assert owner_of(cluster, game_id) is b
    assert len(stored_steps(cluster.database, game_id)) == 5
    assert view_at(a, game_id, 5) == view_at(b, game_id, 5)
    wait_until(lambda: "no longer owns" in a.log_path.read_text(), 10, "a let the game go")


def test_sigterm_hands_the_games_over_and_asks_sockets_to_reconnect(
        cluster: Processes) -> None:
    """SIGTERM: the stopping owner closes its sockets with 1012 (service restart: the page
    reconnects) and expires its leases at once, so another process takes its bots' game at
    its next sweep, well before the lease would have run out."""
    a, b = cluster.start(2, lease_seconds=10.0, bot_delay=0.05)
    game = new_game(a, ["random"] * 3, seed=5)
    game_id = game["game_id"]
    assert owner_of(cluster, game_id) is a

    async def watch() -> int | None:
        sock = await Socket.open(f"{a.ws}/ws/games/{game_id}")
        await sock.wait_for(lambda m: m["type"] == "view")
        a.process.terminate()
        await sock.reader
        return sock.connection.close_code

    assert run_async(watch()) == 1012
    a.wait()
    stopped = time.monotonic()
    wait_until(lambda: owner_of(cluster, game_id) is b, 9, "b takes the game over")
    assert time.monotonic() - stopped < 8  # a sweep (every 3.3 s), not the lease's 10 s
    version = view(b, game_id)["version"]
    wait_until(lambda: view(b, game_id)["version"] > version
               or view(b, game_id)["result"] is not None, 10, "the bots play on at b")


def test_readyz_follows_the_broker_and_healthz_the_process(cluster: Processes) -> None:
    (a,) = cluster.start(1)
    assert httpx.get(a.http + "/readyz", timeout=10).json()["checks"] == {
        "database": True, "broker": True}
    cluster.redis.stop()
    wait_until(lambda: httpx.get(a.http + "/readyz", timeout=10).status_code == 503, 10,
               "not ready without Redis")
    assert httpx.get(a.http + "/readyz", timeout=10).json()["checks"]["broker"] is False
    assert httpx.get(a.http + "/healthz", timeout=10).status_code == 200
    cluster.redis.start()
    wait_until(lambda: httpx.get(a.http + "/readyz", timeout=10).status_code == 200, 10,
               "ready again")


def test_a_game_moves_to_the_process_its_players_are_on(cluster: Processes) -> None:
    """A game created on a, played from sockets on b: at the first forwarded decision a
    hands the game over and b owns it, so later decisions are not forwarded."""
    a, b = cluster.start(2)
    game = new_game(a, ["human", "random"], seed=13)
    game_id = game["game_id"]
    token = join(a, game, 0)
    assert owner_of(cluster, game_id) is a

    async def play() -> int:
        sock = await Socket.open(f"{b.ws}/ws/games/{game_id}?token={token}")
        made = 0
        while made < 5:
            shown = (await sock.wait_for(lambda m: m["type"] == "view"
                                         and m["view"]["your_turn"], len(sock.messages)
                                         - 1))["view"]
            await sock.send({"type": "action", "index": 0, "version": shown["version"]})
            await sock.wait_for(lambda m, v=shown["version"]: m["type"] == "view"
                                and m["view"]["version"] > v)
            made += 1
        await sock.close()
        return made

    assert run_async(play()) == 5
    assert owner_of(cluster, game_id) is b
    steps = stored_steps(cluster.database, game_id)
    assert view_at(a, game_id, len(steps)) == view_at(b, game_id, len(steps))
