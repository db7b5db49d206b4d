"""The WebSocket: views on connect and after changes, reconnects, errors and limits."""

from __future__ import annotations

import asyncio
import json
import random

import httpx
import pytest
from live_support import GENEROUS, LiveServer, sqlite_url
from server_support import auth, join_all, listed
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from ws_support import Socket, run_async

from kaladan.server import create_app


def new_game(server: LiveServer, seats: list[str], **fields: object) -> tuple[str, dict[int, str]]:
    with httpx.Client(base_url=server.http) as http:
        r = http.post("/api/games", json={"seats": seats, **fields})
        assert r.status_code == 201, r.text
        created = r.json()
        return created["game_id"], join_all(http, created)


def is_error(status: int) -> object:
    return lambda m: m["type"] == "error" and m["error"]["status"] == status


def test_view_on_connect_and_after_every_change(live_server: LiveServer) -> None:
    game_id, tokens = new_game(live_server, ["human", "human"], quick=True, seed=2)

    async def scenario() -> None:
        seats = {s: await Socket.open(f"{live_server.ws}/ws/games/{game_id}?token={t}")
                 for s, t in tokens.items()}
        spectator = await Socket.open(f"{live_server.ws}/ws/games/{game_id}")
        first = {s: (await sock.wait_for(lambda m: m["type"] == "view"))["view"]
                 for s, sock in seats.items()}
        assert {v["seat"] for v in first.values()} == {0, 1}
        with httpx.Client(base_url=live_server.http) as http:
            for s, view in first.items():  # on connect: the whole log, as over HTTP
                assert view["log_since"] == -1 and view["log"]
                whole = http.get(f"/api/games/{game_id}/view", headers=auth(tokens[s])).json()
                assert view["log"] == whole["log"] and whole["log_since"] == -1
        mover = next(s for s, v in first.items() if v["your_turn"])
        version = first[mover]["version"]
        await seats[mover].send({"type": "action", "index": 0, "version": version})
        for sock in [*seats.values(), spectator]:
            view = (await sock.wait_for(lambda m: m["type"] == "view"
                                        and m["view"]["version"] == version + 1))["view"]
            assert view["log_since"] == version  # only what the decision made
            assert view["log"] and all(e["version"] == version + 1 for e in view["log"])
            assert view["log"][0]["index"] == first[mover]["log"][-1]["index"] + 1
        await seats[mover].send({"type": "ping"})
        await seats[mover].wait_for(lambda m: m["type"] == "pong")
        for sock in [*seats.values(), spectator]:
            await sock.close()

    run_async(scenario())


def test_reconnect_gets_the_current_view_at_once(live_server: LiveServer) -> None:
    game_id, tokens = new_game(live_server, ["human", "random"], quick=True, seed=4)
    url = f"{live_server.ws}/ws/games/{game_id}?token={tokens[0]}"

    async def scenario() -> None:
        sock = await Socket.open(url)
        await sock.wait_for(lambda m: m["type"] == "view")
        await sock.close()
        with httpx.Client(base_url=live_server.http) as http:
            for _ in range(3):  # play on while disconnected
                for _ in range(500):
                    view = http.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
                    if view["your_turn"]:
                        break
                    await asyncio.sleep(0.01)
                r = http.post(f"/api/games/{game_id}/actions", headers=auth(tokens[0]),
                              json={"index": view["legal_count"] - 1})
                assert r.status_code == 200
            current = http.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
        again = await Socket.open(url)
        first = await again.wait_for(lambda m: m["type"] == "view")
        assert first["view"]["version"] >= current["version"] > 0
        assert first["view"]["seat"] == 0
        assert first["view"]["log_since"] == -1  # a reconnect gets the whole log again
        if first["view"]["version"] == current["version"]:
            assert first["view"]["log"] == current["log"]
        await again.close()

    run_async(scenario())


def test_bad_messages_get_errors_and_change_nothing(live_server: LiveServer) -> None:
    game_id, tokens = new_game(live_server, ["human", "human"], quick=True, seed=6)

    async def scenario() -> None:
        socks = {s: await Socket.open(f"{live_server.ws}/ws/games/{game_id}?token={t}")
                 for s, t in tokens.items()}
        views = {s: (await sock.wait_for(lambda m: m["type"] == "view"))["view"]
                 for s, sock in socks.items()}
        mover = next(s for s, v in views.items() if v["your_turn"])
        waiter = 1 - mover
        sock, version = socks[mover], views[mover]["version"]
        cases: list[tuple[object, int]] = [
            (b"\x00binary", 400), ("{not json", 400), ("[1, 2]", 400),
            ({"type": "dance"}, 400), ({"type": "action"}, 400),
            ({"type": "action", "index": -1}, 400), ({"type": "action", "index": True}, 400),
            ({"type": "action", "action": "teleport T1"}, 400),
            ({"type": "action", "action": "a", "extra": 1}, 400),
            ({"type": "action", "index": 0, "version": version + 5}, 409),
            ("x" * 5000, 413),
        ]
        if "pass" not in {a["text"] for a in listed(views[mover])}:
            cases.append(({"type": "action", "action": "pass"}, 422))
        for message, status in cases:
            start = len(sock.messages)
            await sock.send(message if isinstance(message, (str, bytes)) else
                            json.dumps(message))
            reply = await sock.wait_for(lambda m: m["type"] == "error", start)
            assert reply["error"]["status"] == status, (message, reply)
        start = len(socks[waiter].messages)
        await socks[waiter].send({"type": "action", "index": 0})
        wrong = await socks[waiter].wait_for(lambda m: m["type"] == "error", start)
        assert wrong["error"]["status"] == 409 and wrong["error"]["code"] == "not_your_turn"
        spectator = await Socket.open(f"{live_server.ws}/ws/games/{game_id}")
        await spectator.send({"type": "action", "index": 0})
        assert (await spectator.wait_for(lambda m: m["type"] == "error"))["error"][
            "status"] == 403
        await sock.send({"type": "ping"})  # still open and working
        await sock.wait_for(lambda m: m["type"] == "pong")
        with httpx.Client(base_url=live_server.http) as http:
            assert http.get(f"/api/games/{game_id}/view").json()["version"] == version
        for s in [*socks.values(), spectator]:
            await s.close()

    run_async(scenario())


def test_the_logs_of_a_connections_views_add_up_to_the_whole_log(
        live_server: LiveServer) -> None:
    """Bots play on in bursts and views follow each other quickly: each view still carries
    every entry made since the view sent before on that connection, once."""
    game_id, tokens = new_game(live_server, ["human", "random", "random"], quick=True, seed=8)
    rng = random.Random(8)

    async def scenario() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
        sock = await Socket.open(f"{live_server.ws}/ws/games/{game_id}?token={tokens[0]}")
        spectator = await Socket.open(f"{live_server.ws}/ws/games/{game_id}")
        acted = -1
        for _ in range(40):
            view = (await sock.wait_for(lambda m, acted=acted: m["type"] == "view" and (
                m["view"]["your_turn"] and m["view"]["version"] > acted
                or m["view"]["result"] is not None)))["view"]
            if view["result"] is not None:
                break
            acted = view["version"]
            await sock.send({"type": "action", "index": rng.randrange(view["legal_count"]),
                             "version": acted})
        await asyncio.sleep(0.2)
        await sock.close()
        await spectator.close()
        return ([m["view"] for m in sock.messages if m["type"] == "view"],
                [m["view"] for m in spectator.messages if m["type"] == "view"])

    seat_views, spectator_views = run_async(scenario())
    with httpx.Client(base_url=live_server.http) as http:
        for views, headers in ((seat_views, auth(tokens[0])), (spectator_views, {})):
            last = views[-1]["version"]
            whole = http.get(f"/api/games/{game_id}/view?since=0", headers=headers).json()
            assert whole["version"] >= last
            whole_log = [e for e in whole["log"] if e["version"] <= last]
            start = http.get(f"/api/games/{game_id}/view", headers=headers).json()["log"]
            got = [e for v in views for e in v["log"]]
            assert views[0]["log_since"] == -1
            for before, after in zip(views, views[1:], strict=False):
                assert after["log_since"] == before["version"]
            # bots' bursts: some views cover several decisions
            assert any(b["version"] - a["version"] > 1
                       for a, b in zip(views, views[1:], strict=False))
            assert got[0] == start[0] and len(got) < 500  # nothing cut
            assert got == [e for e in start if e["version"] <= last]
            assert [e for e in got if e["version"] > 0] == whole_log
    assert len(seat_views) > 5


@pytest.mark.parametrize(("query", "code"), [("?token=forged", 4403), ("", 4404)])
def test_bad_token_and_unknown_game_close_the_socket(live_server: LiveServer, query: str,
                                                     code: int) -> None:
    game_id, _ = new_game(live_server, ["human", "random"])
    target = game_id if code == 4403 else "g_ffffffffffffffff"

    async def scenario() -> int:
        async with connect(f"{live_server.ws}/ws/games/{target}{query}") as ws:
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd is not None
            return closed.value.rcvd.code

    assert run_async(scenario()) == code


def test_rate_limit_per_connection(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    with LiveServer(create_app(sqlite_url(tmp_path), GENEROUS,
                               bot_delay=0, rate_limit=20)) as server:
        game_id, tokens = new_game(server, ["human", "random"])

        async def scenario() -> list[int]:
            sock = await Socket.open(f"{server.ws}/ws/games/{game_id}?token={tokens[0]}")
            for _ in range(30):
                await sock.send({"type": "ping"})
            await sock.wait_for(lambda m: m["type"] == "error")
            await asyncio.sleep(0.2)
            await sock.close()
            return [m["error"]["status"] for m in sock.messages if m["type"] == "error"]

        errors = run_async(scenario())
    assert errors and set(errors) == {429}
    assert len(errors) <= 10  # the first 20 pings of the second were answered


def test_bots_pause_so_every_bot_decision_is_seen(tmp_path: object) -> None:
    """With a bot pause each bot decision reaches the seats as its own view."""
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    with LiveServer(create_app(sqlite_url(tmp_path), GENEROUS, bot_delay=0.25)) as server:
        game_id, tokens = new_game(server, ["human", "random", "random"], quick=True, seed=1)

        async def scenario() -> list[dict[str, object]]:
            sock = await Socket.open(f"{server.ws}/ws/games/{game_id}?token={tokens[0]}")
            bot_views: list[dict[str, object]] = []
            while len(bot_views) < 4:
                message = await sock.wait_for(lambda m: m["type"] == "view",
                                              len(sock.messages) - 1)
                view = message["view"]
                if view["your_turn"]:
                    sent = view["version"]
                    await sock.send({"type": "action", "index": 0, "version": sent})
                    await sock.wait_for(lambda m, sent=sent: m["type"] == "view"
                                        and m["view"]["version"] > sent)
                    continue
                # the view right after this one, even if more came meanwhile
                start = next(i for i, m in enumerate(sock.messages) if m is message) + 1
                nxt = (await sock.wait_for(lambda m: m["type"] == "view", start))["view"]
                if view["to_move"] != 0:  # a bot's decision
                    bot_views.append(nxt)
                    assert nxt["log_since"] == view["version"]
            await sock.close()
            return [m["view"] for m in sock.messages if m["type"] == "view"]

        views = run_async(scenario())
    versions = [int(str(v["version"])) for v in views]
    assert versions == sorted(versions)
    steps = [b - a for a, b in zip(versions, versions[1:], strict=False)]
    assert steps.count(1) >= 4 and set(steps) <= {0, 1}  # no bot decision was skipped
