"""Time controls (issue 39, docs/server.md "Time controls", docs/rules-decisions.md D44):
live and turn clocks, the timeout bot's one decision, a takeover after timeouts in a row and
taking the seat back, the clock stored with the steps (exact across a rebuild and a
restarted ``kaladan serve``). Time comes from a test clock: nothing sleeps for a timeout."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema  # type: ignore[import-untyped]
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from live_support import GENEROUS, sqlite_url
from server_support import auth, create, join_all

from kaladan.server import create_app
from kaladan.server.clocks import Clock, TimeControl
from kaladan.server.ws_schema import server_message_schema

START = 1_800_000_000.0
LIVE = {"kind": "live", "decision": 10, "reserve": 30}


class FakeClock:
    """The server's "now": moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def timed_app(tmp_path: Path, clock: FakeClock) -> FastAPI:
    return create_app(sqlite_url(tmp_path), dataclasses.replace(GENEROUS, clock=clock),
                      bot_delay=0, rate_limit=1_000_000)


@pytest.fixture
def tc(timed_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(timed_app) as c:
        yield c


def spectate(client: Any, game_id: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{game_id}/view")
    assert r.status_code == 200, r.text
    view: dict[str, Any] = r.json()
    return view


def seat_clock(view: dict[str, Any], seat: int) -> dict[str, Any]:
    found: dict[str, Any] = view["clock"]["seats"][seat]
    return found


def new_game(client: Any, control: dict[str, Any], seats: list[str] | None = None,
             ) -> tuple[str, dict[int, str]]:
    created = create(client, seats or ["human", "human"], quick=True, time_control=control)
    return created["game_id"], join_all(client, created)


def decide(client: Any, game_id: str, tokens: dict[int, str]) -> dict[str, Any]:
    """The seat to decide makes its first legal decision (in time)."""
    view = spectate(client, game_id)
    seat = view["to_move"]
    r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                    json={"index": 0, "version": view["version"]})
    assert r.status_code == 200, r.text
    return dict(r.json())


def wait_for(client: Any, game_id: str, check: Any) -> dict[str, Any]:
    """The spectator's view once ``check(view)`` holds: the timer works on its own (it
    looks at the test clock every 0.05 s); this waits for it, never for the clock."""
    deadline = time.monotonic() + 20
    while True:
        view = spectate(client, game_id)
        if check(view):
            return view
        assert time.monotonic() < deadline, view["clock"]
        time.sleep(0.02)


def time_out(client: Any, clock: Any, game_id: str) -> dict[str, Any]:
    """Move the test clock to the running deadline; returns the view after the timeout."""
    view = spectate(client, game_id)
    seat = view["to_move"]
    clock.now += seat_clock(view, seat)["remaining"]
    version = view["version"]
    return wait_for(client, game_id, lambda v: v["version"] > version)


def test_a_live_clock_gives_each_decision_its_time_then_drains_the_reserve(
        tc: TestClient, clock: FakeClock) -> None:
    game_id, tokens = new_game(tc, LIVE)
    view = spectate(tc, game_id)
    seat = view["to_move"]
    assert view["clock"]["kind"] == "live"
    assert seat_clock(view, seat) == {"seat": seat, "remaining": 40.0, "running": True,
                                      "reserve": 30.0, "timeouts": 0, "taken_over": False}
    clock.now += 4  # within the decision's own time: the reserve is untouched
    view = spectate(tc, game_id)
    assert seat_clock(view, seat)["remaining"] == 36.0
    assert seat_clock(view, seat)["reserve"] == 30.0
    clock.now += 21  # 15 s beyond the decision's 10
    view = spectate(tc, game_id)
    assert seat_clock(view, seat)["remaining"] == 15.0
    assert seat_clock(view, seat)["reserve"] == 15.0
    after = decide(tc, game_id, tokens)
    mine = seat_clock(after, seat)
    assert mine["reserve"] == 15.0 and mine["timeouts"] == 0
    if after["to_move"] != seat:
        assert not mine["running"] and mine["remaining"] == 25.0  # 10 + 15 at its next
        other = seat_clock(after, after["to_move"])
        assert other["running"] and other["remaining"] == 40.0
    else:  # its next decision: a fresh decision time on what is left of its reserve
        assert mine["running"] and mine["remaining"] == 25.0
    summary = tc.get(f"/api/games/{game_id}").json()
    assert summary["time_control"] == {**LIVE, "timeout_bot": "greedy", "takeover_after": 3}
    # a timed view is a view of the WebSocket schema (docs/ws-schema.json) too
    jsonschema.Draft202012Validator(server_message_schema()).validate(
        {"type": "view", "view": after})


def test_a_turn_clock_runs_from_when_the_seat_is_to_decide_until_another_seat_is() -> None:
    control = TimeControl.from_json({"kind": "turn", "turn": 100})
    # A bare state is enough for the arithmetic: the one the seat decides in (clocks.py).
    from live_support import live_game

    live = live_game(2, 7, quick=True)
    state = live.game.state
    seat = state.pending.seat
    clock = Clock.new(control, 2).restart(state, [True, True], True, START)
    assert clock.running == seat and clock.deadline == START + 100
    # the same seat decides and is still to decide: its turn (and deadline) go on
    same = clock.after_steps(state, [(seat, "pass")], 0, [True, True], True, START + 30)
    assert same.deadline == START + 100 and same.remaining(seat, START + 30) == 70
    # a gift (R23.11) by anyone never touches a clock
    gift = clock.after_steps(state, [(1 - seat, "gift 0 1")], 0, [True, True], True,
                             START + 50)
    assert gift.deadline == START + 100
    live_clock = Clock.new(TimeControl.from_json(LIVE), 2).restart(state, [True, True], True,
                                                                    START)
    assert live_clock.after_steps(state, [(1 - seat, "gift 0 1")], 0, [True, True], True,
                                  START + 8).deadline == START + 40  # no time granted
    # the seat's timeout: the clock restarts for whoever decides next (here: the same seat)
    timed = clock.after_steps(state, [(seat, "pass")], 4, [True, True], True, START + 100,
                              timed_out=seat)
    assert timed.deadline == START + 200 and timed.timeouts[seat] == 1
    assert timed.timed_out == ((4, seat),)
    # a bot seat, or a seat taken over, has no clock
    assert Clock.new(control, 2).restart(state, [seat == 1, seat == 0], True,
                                         START).running is None
    assert Clock.new(control, 2).restart(state, [True, True], False, START).running is None


def test_a_turn_game_over_http_has_a_deadline_a_turn_away(tc: TestClient,
                                                          clock: FakeClock) -> None:
    game_id, _ = new_game(tc, {"kind": "turn", "turn": 86400})
    view = spectate(tc, game_id)
    seat = view["to_move"]
    assert view["clock"]["deadline"] == "2027-01-16T08:00:00+00:00"  # START + a day
    assert seat_clock(view, seat)["remaining"] == 86400.0
    assert seat_clock(view, seat)["reserve"] is None
    clock.now += 3600
    assert seat_clock(spectate(tc, game_id), seat)["remaining"] == 82800.0


def test_the_clock_waits_for_every_human_seat(tc: TestClient, clock: FakeClock) -> None:
    created = create(tc, ["human", "human"], quick=True, time_control=LIVE)
    game_id = created["game_id"]
    view = spectate(tc, game_id)
    assert view["clock"]["deadline"] is None
    assert not any(s["running"] for s in view["clock"]["seats"])
    clock.now += 1000  # nobody loses time before the game starts
    join_all(tc, created)
    view = spectate(tc, game_id)
    assert seat_clock(view, view["to_move"])["remaining"] == 40.0


def test_on_timeout_the_bot_decides_once_and_the_log_says_so_also_after_a_rebuild(
        tmp_path: Path, timed_app: FastAPI, clock: FakeClock) -> None:
    with TestClient(timed_app) as client:
        game_id, tokens = new_game(client, LIVE)
        before = spectate(client, game_id)
        seat = before["to_move"]
        after = time_out(client, clock, game_id)
        # one decision by the bot, then the clock restarts for whoever decides next
        assert after["version"] == before["version"] + 1
        marks = after["clock"]["timed_out"]
        assert marks == [{"version": before["version"] + 1, "seat": seat, "bot": "greedy"}]
        assert seat_clock(after, seat)["timeouts"] == 1
        assert seat_clock(after, seat)["reserve"] == 0.0
        running = after["to_move"]
        assert seat_clock(after, running)["running"]
        assert seat_clock(after, running)["remaining"] == 10.0 + (0.0 if running == seat
                                                                  else 30.0)
        # a late decision is refused while the timer is about to apply the timeout
        late = after["version"]
        clock.now += seat_clock(after, running)["remaining"]
        r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[running]),
                        json={"index": 0, "version": late})
        assert r.status_code in (200, 409)
        if r.status_code == 409:
            assert r.json()["error"]["code"] in ("time_ran_out", "stale_version")
        final = wait_for(client, game_id, lambda v: v["version"] > late)
        kept = final["clock"]
    # A new server on the same database rebuilds the game: the same clock, the same marks.
    again = create_app(sqlite_url(tmp_path), dataclasses.replace(GENEROUS, clock=clock),
                       bot_delay=0, rate_limit=1_000_000)
    with TestClient(again) as client:
        view = spectate(client, game_id)
        assert view["clock"] == kept
        assert view["clock"]["timed_out"][0] == marks[0]
        entries = [e for e in view["log"] if e["version"] == marks[0]["version"]]
        assert entries, "the timeout bot's decision has its log entries"


def take_over(client: Any, clock: FakeClock, game_id: str, tokens: dict[int, str],
              seat: int) -> dict[str, Any]:
    """Let ``seat`` time out until the bot takes it over; the other seat decides in time."""
    for _ in range(200):
        view = spectate(client, game_id)
        if seat_clock(view, seat)["taken_over"]:
            return view
        assert view["result"] is None
        if view["to_move"] == seat:
            time_out(client, clock, game_id)
        else:
            decide(client, game_id, tokens)
    raise AssertionError("never taken over")


def test_timeouts_in_a_row_hand_the_seat_to_the_bot_until_its_player_takes_it_back(
        tc: TestClient, timed_app: FastAPI, clock: FakeClock) -> None:
    control = {"kind": "live", "decision": 5, "takeover_after": 2}
    game_id, tokens = new_game(tc, control)
    seat = spectate(tc, game_id)["to_move"]
    other = 1 - seat
    view = take_over(tc, clock, game_id, tokens, seat)
    live = timed_app.state.service.games[game_id]
    assert live.lost_on_time == {seat}
    assert [m["seat"] for m in view["clock"]["timed_out"]] == [seat, seat]
    # the bot plays the seat like a bot seat: the other seat always finds the decision
    for _ in range(6):
        view = spectate(tc, game_id)
        if view["result"] is not None:
            break
        assert view["to_move"] == other
        decide(tc, game_id, tokens)
    marks = len(spectate(tc, game_id)["clock"]["timed_out"])
    assert marks == 2  # the bot's own decisions for a taken seat are not timeouts
    stepped = {s.seat for s in live.game.steps[view["clock"]["timed_out"][-1]["version"]:]}
    assert seat in stepped
    # another seat's credentials cannot take it back; the seat's own can, once
    refused = tc.post(f"/api/games/{game_id}/seats/{seat}/takeback",
                      headers=auth(tokens[other]))
    assert refused.status_code == 403
    assert tc.post(f"/api/games/{game_id}/seats/{seat}/takeback").status_code == 401
    r = tc.post(f"/api/games/{game_id}/seats/{seat}/takeback", headers=auth(tokens[seat]))
    assert r.status_code == 200, r.text
    assert seat_clock(r.json(), seat)["taken_over"] is False
    jsonschema.Draft202012Validator(server_message_schema()).validate(
        {"type": "view", "view": r.json()})
    assert seat_clock(r.json(), seat)["timeouts"] == 0
    assert live.lost_on_time == set()
    again = tc.post(f"/api/games/{game_id}/seats/{seat}/takeback", headers=auth(tokens[seat]))
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_taken_over"
    # the player decides again: the other seat's decisions hand the game back to it
    for _ in range(50):
        view = spectate(tc, game_id)
        if view["to_move"] == seat or view["result"] is not None:
            break
        decide(tc, game_id, tokens)
    if view["result"] is None:
        mine = tc.get(f"/api/games/{game_id}/view", headers=auth(tokens[seat])).json()
        assert mine["your_turn"] and seat_clock(mine, seat)["running"]


def test_a_decision_in_time_resets_the_timeouts_in_a_row(tc: TestClient,
                                                        clock: FakeClock) -> None:
    game_id, tokens = new_game(tc, {"kind": "live", "decision": 5})
    seat = spectate(tc, game_id)["to_move"]
    time_out(tc, clock, game_id)
    for _ in range(100):
        view = spectate(tc, game_id)
        if view["to_move"] == seat:
            break
        decide(tc, game_id, tokens)
    assert seat_clock(view, seat)["timeouts"] == 1
    after = decide(tc, game_id, tokens)
    assert seat_clock(after, seat)["timeouts"] == 0


def test_untimed_games_store_no_clock(tmp_path: Path, tc: TestClient) -> None:
    game_id, tokens = new_game(tc, None)  # type: ignore[arg-type]
    for _ in range(3):
        decide(tc, game_id, tokens)
    assert spectate(tc, game_id)["clock"] is None
    assert tc.get(f"/api/games/{game_id}").json()["time_control"] is None
    with sqlite3.connect(tmp_path / "kaladan.sqlite3") as db:
        row = db.execute("SELECT clock, deadline FROM games WHERE id = ?",
                         (game_id,)).fetchone()
    assert row == (None, None)


@pytest.mark.parametrize("control", [
    {"kind": "blitz", "decision": 5},
    {"kind": "live"},
    {"kind": "live", "decision": 0},
    {"kind": "live", "decision": -3, "reserve": 10},
    {"kind": "live", "decision": "60"},
    {"kind": "live", "decision": 60, "turn": 5},
    {"kind": "turn"},
    {"kind": "turn", "turn": 86400 * 365},
    {"kind": "turn", "turn": 60, "timeout_bot": "mcts"},
    {"kind": "turn", "turn": 60, "timeout_bot": "nobody"},
    {"kind": "turn", "turn": 60, "timeout_bot": "/etc/passwd"},
    {"kind": "turn", "turn": 60, "takeover_after": 0},
    {"kind": "turn", "turn": 60, "takeover_after": 2.5},
    "fast",
])
def test_a_time_control_that_is_not_one_is_refused(tc: TestClient, control: Any) -> None:
    r = tc.post("/api/games", json={"seats": ["human", "human"], "time_control": control})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] in ("invalid_time_control", "malformed_request")
    assert r.json()["error"]["message"]


def test_bot_seats_have_no_clock(tc: TestClient) -> None:
    game_id = create(tc, ["random", "random"], time_control=LIVE)["game_id"]
    view = spectate(tc, game_id)
    assert view["clock"]["deadline"] is None
    assert not any(s["running"] for s in view["clock"]["seats"])


# --- a real ``kaladan serve`` process with a test clock file ------------------------------


def test_a_restarted_server_keeps_every_clock_exactly(tmp_path: Path) -> None:
    from test_serve_ops import Serve

    now = tmp_path / "now"
    now.write_text(f"{START}\n")
    server = Serve(tmp_path, "--test-clock", str(now))
    try:
        r = httpx.post(f"{server.url}/api/games", json={
            "seats": ["human", "human"], "quick": True,
            "time_control": {"kind": "live", "decision": 60, "reserve": 100}})
        assert r.status_code == 201, r.text
        created = r.json()
        game_id = created["game_id"]
        with httpx.Client(base_url=server.url) as client:
            tokens = join_all(client, created)
            now.write_text(f"{START + 90}\n")  # 30 s of the reserve spent
            view = spectate(client, game_id)
            seat = view["to_move"]
            assert seat_clock(view, seat)["remaining"] == 70.0
    finally:
        assert server.stop() in (0, -15)
    server = Serve(tmp_path, "--test-clock", str(now))
    try:
        with httpx.Client(base_url=server.url) as client:
            view = spectate(client, game_id)
            assert seat_clock(view, seat)["remaining"] == 70.0  # no time granted, none lost
            assert seat_clock(view, seat)["reserve"] == 70.0
            version = view["version"]
        assert server.stop() in (0, -15)
        # Restarted again, the game is not asked for: the timer finds it in storage when
        # its deadline passes and the bot decides.
        server = Serve(tmp_path, "--test-clock", str(now))
        now.write_text(f"{START + 160}\n")
        database = tmp_path / "kaladan.sqlite3"
        deadline = time.monotonic() + 20
        while True:
            with sqlite3.connect(database) as db:
                count = db.execute("SELECT count(*) FROM steps WHERE game_id = ?",
                                   (game_id,)).fetchone()[0]
                clock_text = db.execute("SELECT clock FROM games WHERE id = ?",
                                        (game_id,)).fetchone()[0]
            if '"timed_out": [[' in clock_text:
                break
            assert time.monotonic() < deadline, "the timeout never came"
            time.sleep(0.05)
        assert count == version + 1  # the timeout bot's one decision
        with httpx.Client(base_url=server.url) as client:
            view = spectate(client, game_id)
            assert view["clock"]["timed_out"] == [{"version": version + 1, "seat": seat,
                                                   "bot": "greedy"}]
            assert seat_clock(view, seat)["timeouts"] == 1
            # the seat's own credentials still work: it decides in time when its turn comes
            if view["to_move"] == seat:
                r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                                json={"index": 0, "version": view["version"]})
                assert r.status_code == 200, r.text
    finally:
        if server.process.poll() is None:
            server.stop()


# --- several processes (docs/server.md "Scaling out") -------------------------------------


def stored_clock(database: str, game_id: str) -> tuple[int, dict[str, Any]]:
    from kaladan.server.storage import Store

    store = Store(database)
    try:
        row = store.load(game_id)
        assert row is not None and row.clock is not None
        return len(row.steps), row.clock
    finally:
        store.dispose()


def test_the_process_taking_over_a_dead_owners_game_fires_its_timeout_once(
        postgres_db: str, redis_server: Any, tmp_path: Path) -> None:
    from cluster_support import Processes
    from test_cluster import join, owner_of, view

    now = tmp_path / "now"
    now.write_text(f"{START}\n")
    cluster = Processes(postgres_db, redis_server, tmp_path)
    try:
        servers = cluster.start(3, lease_seconds=1.0, bot_delay=0.0, test_clock=str(now))
        r = httpx.post(servers[0].http + "/api/games", json={
            "seats": ["human", "human"], "quick": True,
            "time_control": {"kind": "live", "decision": 60}}, timeout=30)
        assert r.status_code == 201, r.text
        game = r.json()
        game_id = game["game_id"]
        join(servers[0], game, 0)
        owner = owner_of(cluster, game_id)
        assert owner is not None
        others = [s for s in servers if s is not owner]
        # The last seat joins on another process: the owner starts the clock, and the copy
        # the join made follows it (the third process has no copy).
        join(others[0], game, 1)
        deadline = time.monotonic() + 20
        while True:
            first = view(others[0], game_id)
            if first["clock"]["deadline"] is not None:
                break
            assert time.monotonic() < deadline, (first["clock"], view(owner, game_id)["clock"],
                                                 stored_clock(postgres_db, game_id))
            time.sleep(0.02)
        seat = first["to_move"]
        assert seat_clock(first, seat)["remaining"] == 60.0
        assert seat_clock(view(owner, game_id), seat)["running"]
        steps, _ = stored_clock(postgres_db, game_id)
        owner.kill()
        now.write_text(f"{START + 61}\n")  # the deadline passes while nobody owns the game
        deadline = time.monotonic() + 30
        while True:
            count, clock = stored_clock(postgres_db, game_id)
            if clock["timed_out"]:
                break
            assert time.monotonic() < deadline, "no process fired the timeout"
            time.sleep(0.05)
        time.sleep(1.5)  # time enough for a second timeout, if any process were to fire one
        count, clock = stored_clock(postgres_db, game_id)
        assert clock["timed_out"] == [[steps, seat]]  # exactly one timeout step stored
        assert count == steps + 1
        assert clock["timeouts"][seat] == 1
        for server in others:  # every process shows it, its owner and its copies
            deadline = time.monotonic() + 20
            while True:
                seen = view(server, game_id)
                if seen["clock"]["timed_out"]:
                    break
                assert time.monotonic() < deadline, seen["clock"]
                time.sleep(0.02)
            assert seen["clock"]["timed_out"] == [{"version": steps + 1, "seat": seat,
                                                   "bot": "greedy"}]
    finally:
        cluster.close()


def test_the_websocket_sends_the_clocks_and_a_seat_taken_back(tmp_path: Path,
                                                               clock: FakeClock) -> None:
    """Every WebSocket view carries the clocks; a timeout sends a view, and so does a seat
    taken back, which makes no new version."""
    from live_support import LiveServer
    from ws_support import Socket, run_async

    app = create_app(sqlite_url(tmp_path), dataclasses.replace(GENEROUS, clock=clock),
                     bot_delay=0, rate_limit=1_000_000)
    with LiveServer(app) as server, httpx.Client(base_url=server.http) as client:
        game_id, tokens = new_game(client, {"kind": "turn", "turn": 600, "takeover_after": 1})
        seat = spectate(client, game_id)["to_move"]

        async def follow() -> None:
            socket = await Socket.open(f"{server.ws}/ws/games/{game_id}?token={tokens[seat]}")
            first = await socket.wait_for(lambda m: m["type"] == "view")
            assert seat_clock(first["view"], seat)["running"]
            assert seat_clock(first["view"], seat)["remaining"] == 600.0
            clock.now += 600
            taken = await socket.wait_for(
                lambda m: m["type"] == "view" and seat_clock(m["view"], seat)["taken_over"])
            assert taken["view"]["clock"]["timed_out"][0]["seat"] == seat
            at = len(socket.messages)
            r = await asyncio.to_thread(
                client.post, f"/api/games/{game_id}/seats/{seat}/takeback",
                headers=auth(tokens[seat]))
            assert r.status_code == 200, r.text
            back = await socket.wait_for(
                lambda m: m["type"] == "view" and not seat_clock(m["view"], seat)["taken_over"],
                at)
            assert back["view"]["clock"]["seats"][seat]["timeouts"] == 0
            await socket.close()

        run_async(follow())
