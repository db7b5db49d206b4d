"""The server keeps its word against hostile clients (docs/api.md "Security"): any bytes in a
body, a query or a path are a 4xx in the error shape, never a 500 nor a traceback in the log;
every response carries the security headers; a request under another host name is 400
``bad_host``; a WebSocket from another site, under another host name or past the number of
sockets one address may hold is closed with a reason; the API documentation loads nothing
from outside the server."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from live_support import GENEROUS, LiveServer, sqlite_url
from security_support import live_server_with, watch_log
from server_support import auth, create, join_all, wait_for_humans
from starlette.websockets import WebSocketDisconnect
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin
from ws_support import Socket, run_async

from kaladan.server import create_app
from kaladan.server.errors import error_body
from kaladan.server.security import UI_POLICY, JsonRefused, strict_json
from kaladan.server.settings import ServerSettings

JSON = {"content-type": "application/json"}
SHAPE = {"status", "code", "message", "rule", "input"}
DEEP = "[" * 2000 + "]" * 2000


def error_of(response: httpx.Response, status: int) -> dict[str, Any]:
    """The error of a response in the documented shape, as strict JSON."""
    assert response.status_code == status, response.text
    body = strict_json(response.content)
    assert set(body) == {"error"} and set(body["error"]) == SHAPE, body
    assert body["error"]["status"] == status
    error: dict[str, Any] = body["error"]
    return error


def raw(text: str) -> bytes:
    """JSON text as sent: escapes such as \\ud800 stay escapes, as a client would send them."""
    return text.encode("utf-8")


# --- bodies -------------------------------------------------------------------------------

SEATS = '"seats": ["human", "random"]'
CREATE_BODIES = {
    "seed NaN": f'{{{SEATS}, "seed": NaN}}',
    "seed Infinity": f'{{{SEATS}, "seed": Infinity}}',
    "seed -Infinity": f'{{{SEATS}, "seed": -Infinity}}',
    "seed 1e400": f'{{{SEATS}, "seed": 1e400}}',
    "seed 10^30": f'{{{SEATS}, "seed": {10**30}}}',
    "seed 5000 digits": f'{{{SEATS}, "seed": {"9" * 5000}}}',
    "seat lone surrogate": '{"seats": ["human", "\\ud800"]}',
    "name lone surrogate": f'{{{SEATS}, "name": "a\\udfffb"}}',
    "option key surrogate": f'{{{SEATS}, "options": {{"\\ud800": "x"}}}}',
    "option value surrogate": f'{{{SEATS}, "options": {{"mountain_defence": "\\ud800"}}}}',
    "world NaN": f'{{{SEATS}, "world": {{"terrain": [NaN]}}}}',
    "world deep": f'{{{SEATS}, "world": {DEEP}}}',
    "world 40 deep": f'{{{SEATS}, "world": {{"a": {"[" * 40 + "]" * 40}}}}}',
    "body deep": DEEP,
    "seats wrong type": '{"seats": {"human": 1}}',
    "quick wrong type": f'{{{SEATS}, "quick": "maybe"}}',
    "array": "[1, 2]",
    "string": '"human"',
    "not json": "{not json",
    "truncated": '{"seats": ["human", ',
}


def test_hostile_create_bodies_are_400(client: TestClient) -> None:
    with watch_log() as log:
        for name, body in CREATE_BODIES.items():
            r = client.post("/api/games", content=raw(body), headers=JSON)
            assert r.status_code == 400, (name, r.text)
            error_of(r, 400)
    assert log.failures() == []
    assert client.get("/api/games").json()["games"] == []  # nothing was created


def test_bodies_that_are_not_utf8_json_are_400(client: TestClient) -> None:
    error_of(client.post("/api/games", content=b'{"seats": ["\xff"]}', headers=JSON), 400)
    error_of(client.post("/api/games", content='{"seats": []}'.encode("utf-16"),
                         headers=JSON), 400)
    error_of(client.post("/api/games", content=b"seats=human", headers={
        "content-type": "application/x-www-form-urlencoded"}), 400)
    error_of(client.post("/api/games", content=b"\x00\x01"), 400)


JOIN_BODIES = {
    "code NaN": '{"code": NaN}', "code surrogate": '{"code": "\\ud800"}',
    "code number": '{"code": 1e400}', "code deep": '{"code": ' + DEEP + "}",
    "code object": '{"code": {"a": 1}}',
}


def test_hostile_join_bodies_are_400(client: TestClient) -> None:
    created = create(client, ["human", "random"], quick=True)
    with watch_log() as log:
        for name, body in JOIN_BODIES.items():
            r = client.post(f"/api/games/{created['game_id']}/seats/0/join", content=raw(body),
                            headers=JSON)
            assert r.status_code == 400, (name, r.text)
            error_of(r, 400)
    assert log.failures() == []
    assert join_all(client, created)  # the seat can still be joined with its code


ACTION_BODIES = {
    "action surrogate": '{"action": "pass \\ud800"}', "index NaN": '{"index": NaN}',
    "version Infinity": '{"index": 0, "version": Infinity}', "index 1e400": '{"index": 1e400}',
    "index huge": '{"index": ' + "9" * 30 + "}", "index float": '{"index": 0.5}',
    "action number": '{"action": 3}', "action deep": '{"action": ' + DEEP + "}",
    "both": '{"action": "pass", "index": 0}', "neither": "{}", "array": "[]",
}


def test_hostile_action_bodies_are_400_and_change_nothing(client: TestClient) -> None:
    created = create(client, ["human", "human"], quick=True, seed=4)
    tokens = join_all(client, created)
    path = f"/api/games/{created['game_id']}"
    before = client.get(path + "/view").json()
    with watch_log() as log:
        for name, body in ACTION_BODIES.items():
            for token in tokens.values():  # the seat to decide and the other one
                r = client.post(path + "/actions", content=raw(body),
                                headers={**JSON, **auth(token)})
                assert r.status_code == 400, (name, r.text)
                error_of(r, 400)
    assert log.failures() == []
    assert client.get(path + "/view").json() == before


# Digits other than ASCII: int("²") raises ValueError, which the server logged with a
# traceback; "١" read as seat 1. Odd characters elsewhere in the text are refused too.
ODD_TEXTS = ["gift ² 1", "gift 1 ³", "gift ١ 1", "return sword ²", "return ²/sword 0",
             "split ²:1", "move T1 T² sword", "move T1 T2 sword\u0000", "pass\u202e",
             "buy \U0001f5e1 T1", "\ufeffpass now", "attack T1 T2 " + "\u0301" * 300]


def test_odd_characters_in_action_texts_are_4xx_without_a_traceback(client: TestClient) -> None:
    created = create(client, ["human", "human", "human", "human"], mode="team_2v2",
                     quick=True, seed=7)
    tokens = join_all(client, created)
    path = f"/api/games/{created['game_id']}"
    before = client.get(path + "/view").json()
    with watch_log() as log:
        for text in ODD_TEXTS:
            for token in tokens.values():
                r = client.post(path + "/actions", json={"action": text}, headers=auth(token))
                assert r.status_code in (400, 409, 422), (text, r.text)
                error_of(r, r.status_code)
    assert [r for r in log.records if r.exc_info] == []
    assert log.failures() == []
    assert client.get(path + "/view").json() == before


# --- queries and paths --------------------------------------------------------------------


def test_hostile_queries_and_paths_are_4xx(client: TestClient) -> None:
    created = create(client, ["human", "random"], quick=True)
    game = f"/api/games/{created['game_id']}"
    cases = [
        (game + "/view?since=NaN", 400), (game + "/view?since=Infinity", 400),
        (game + "/view?since=1e400", 400), (game + "/view?since=-1", 400),
        (game + "/view?since=%ED%A0%80", 400), (game + "/view?since=" + "9" * 5000, 400),
        ("/api/games?status=%ED%A0%80", 400), ("/api/games?status=%00", 400),
        ("/api/games/%ED%A0%80", 404), ("/api/games/%00/view", 404),
        ("/api/games/%FF%FE/record", 404), ("/api/games/" + "x" * 300, 400),
        ("/api/games/" + "é" * 150, 404), ("/api/games/%F0%9F%98%80%2F..%2F", 404),
    ]
    with watch_log() as log:
        for url, status in cases:
            error_of(client.get(url), status)
        for seat in ("NaN", "1e400", "9" * 40, "-1", "%ED%A0%80", "1.5"):
            r = client.post(f"{game}/seats/{seat}/join", json={"code": "x"})
            assert r.status_code in (400, 404), (seat, r.text)
            error_of(r, r.status_code)
    assert log.failures() == []


def test_the_error_shape_encodes_whatever_the_input() -> None:
    """The handler itself never fails: an input or a message that JSON or UTF-8 cannot
    carry is named or escaped."""
    for value in ("\ud800", "ok\udfff", float("nan"), float("inf"), -float("inf"), 10**4000,
                  b"\xff", {"a": float("nan")}, ["\ud800"], object()):
        body = error_body(400, "code\ud800", "message \ud800", "R\ud800", value)
        text = json.dumps(body, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
        assert set(body["error"]) == SHAPE
    assert error_body(400, "c", "m", input=float("nan"))["error"]["input"] == "NaN"
    assert error_body(400, "c", "m", input="a\ud800")["error"]["input"] == "a\\ud800"


def test_strict_json_refuses_what_python_accepts() -> None:
    for text in ("NaN", "[Infinity]", '{"a": -Infinity}', "1e400", '"\\ud800"', '{"\\udc00": 1}',
                 str(2**63), str(-(2**63) - 1), "[" * 33 + "]" * 33, DEEP, "9" * 5000):
        with pytest.raises(JsonRefused):
            strict_json(text)
    assert strict_json("[" * 32 + "]" * 32) is not None
    assert strict_json('{"a": ["\\ud83d\\ude00", 1.5, -9223372036854775808]}') == {
        "a": ["\U0001f600", 1.5, -(2**63)]}


# --- headers and hosts --------------------------------------------------------------------


def assert_secured(response: httpx.Response) -> None:
    headers = response.headers
    assert "unsafe-inline" not in headers["content-security-policy"] or \
        response.url.path == "/redoc"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"


def test_every_response_carries_the_security_headers(tmp_path: Path) -> None:
    settings = replace(GENEROUS, rate=3, max_body=1000)
    with TestClient(create_app(sqlite_url(tmp_path), settings, bot_delay=0)) as client:
        responses = [client.get("/"), client.get("/play/g_x/0"), client.get("/api/games"),
                     client.get("/static/js/main.js"), client.get("/static/nothing.js"),
                     client.get("/api/games/nothing"), client.get("/openapi.json"),
                     client.get("/docs"), client.get("/redoc"),
                     client.post("/api/games", content=b"x" * 2000, headers=JSON),  # 413
                     client.post("/api/games", content=b"NaN", headers=JSON)]  # 400
        responses += [client.post("/api/games", json={}) for _ in range(4)]  # 400s, then 429
        responses.append(client.get("/", headers={"host": "evil.example"}))  # bad_host
    assert {r.status_code for r in responses} >= {200, 400, 404, 413, 429}
    for response in responses:
        assert_secured(response)
    assert responses[0].headers["content-security-policy"] == UI_POLICY


def test_a_request_under_another_host_name_is_400_bad_host(client: TestClient) -> None:
    """A DNS-rebinding page reaches a loopback server under its own host name."""
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example",
                 "localhost.evil.example", "[::2]:8000", "", "127.0.0.2"):
        error = error_of(client.get("/api/games", headers={"host": host}), 400)
        assert error["code"] == "bad_host", host
        assert error_of(client.post("/api/games", json={"seats": ["human", "random"]},
                                    headers={"host": host}), 400)["code"] == "bad_host"
    assert client.get("/api/games").json()["games"] == []  # nothing was created
    for host in ("127.0.0.1", "127.0.0.1:8000", "localhost:8000", "LOCALHOST", "[::1]:8000",
                 "[::1]"):
        assert client.get("/api/games", headers={"host": host}).status_code == 200, host


def test_allowed_hosts_are_the_operators_choice(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    public = replace(GENEROUS, allowed_hosts=("games.example.org",))
    with TestClient(create_app(url, public)) as client:
        assert client.get("/api/games", headers={"host": "games.example.org"}).status_code == 200
        assert client.get("/api/games", headers={"host": "Games.Example.Org:443"}
                          ).status_code == 200
        error_of(client.get("/api/games", headers={"host": "localhost"}), 400)
    anyone = replace(GENEROUS, allowed_hosts=("*",))
    with TestClient(create_app(url, anyone)) as client:
        assert client.get("/api/games", headers={"host": "what.ever:1"}).status_code == 200


# --- WebSockets -----------------------------------------------------------------------------


async def close_of(url: str, **options: Any) -> tuple[int, str]:
    """The close code and reason the server answers a WebSocket with before any view."""
    async with connect(url, **options) as ws:
        try:
            message = await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None, "dropped without a close frame"
            return closed.rcvd.code, closed.rcvd.reason
    raise AssertionError(f"the socket was not closed but sent {message!r}")


def new_game(server: LiveServer) -> tuple[str, dict[int, str]]:
    """A game of a human seat and a bot, once the bot has handed the decision back."""
    with httpx.Client(base_url=server.http) as http:
        created = create(http, ["human", "random"], quick=True, seed=1)  # type: ignore[arg-type]
        tokens = join_all(http, created)
        wait_for_humans(http, created["game_id"], tokens)
        return created["game_id"], tokens


def test_websockets_from_another_site_are_closed(live_server: LiveServer) -> None:
    game_id, tokens = new_game(live_server)
    url = f"{live_server.ws}/ws/games/{game_id}?token={tokens[0]}"

    async def scenario() -> None:
        for origin in ("http://evil.example", f"http://evil.example:{live_server.port}",
                       "null", "file://", f"ftp://127.0.0.1:{live_server.port}"):
            code, reason = await close_of(url, origin=Origin(origin))
            assert (code, reason) == (1008, "origin not allowed"), origin
        # The page's own origin, a loopback name (any port), and clients without Origin.
        for origin in (live_server.http, "http://localhost:3000", None):
            sock = await Socket.open(url) if origin is None else \
                Socket(await connect(url, origin=Origin(origin)))
            await sock.wait_for(lambda m: m["type"] == "view")
            await sock.close()

    run_async(scenario())


def test_websockets_under_another_host_name_are_closed(client: TestClient) -> None:
    created = create(client, ["human", "random"], quick=True)
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(
            f"/ws/games/{created['game_id']}", headers={"host": "evil.example"}) as ws:
        ws.receive_json()
    assert (refused.value.code, refused.value.reason) == (1008, "host not served")
    with client.websocket_connect(f"/ws/games/{created['game_id']}",
                                  headers={"host": "localhost:8000"}) as ws:
        assert ws.receive_json()["type"] == "view"


def test_sockets_per_address_are_capped(tmp_path: Path) -> None:
    app = create_app(sqlite_url(tmp_path), replace(GENEROUS, sockets=2), bot_delay=0,
                     rate_limit=1e6)
    with LiveServer(app) as server:
        game_id, _ = new_game(server)
        url = f"{server.ws}/ws/games/{game_id}"

        async def scenario() -> None:
            first, second = await Socket.open(url), await Socket.open(url)
            for sock in (first, second):
                await sock.wait_for(lambda m: m["type"] == "view")
            assert await close_of(url) == (1013, "more than 2 sockets from this address")
            await first.close()
            for _ in range(100):  # the server sees the close soon after
                try:
                    third = await Socket.open(url)
                    await third.wait_for(lambda m: m["type"] == "view")
                    break
                except AssertionError:
                    await asyncio.sleep(0.05)
            else:
                raise AssertionError("a freed socket was not given back")
            await second.close()
            await third.close()

        run_async(scenario())


WS_MESSAGES = {
    "deep": DEEP, "deep action": '{"type": "action", "index": ' + DEEP[:1000] + DEEP[-1000:] + "}",
    "40 deep": "[" * 40 + "]" * 40, "NaN": '{"type": "action", "index": NaN}',
    "Infinity": '{"type": "action", "index": 0, "version": Infinity}',
    "1e400": '{"type": "action", "index": 1e400}',
    "huge": '{"type": "action", "index": ' + "9" * 4000 + "}",
    "surrogate": '{"type": "action", "action": "pass \\ud800"}',
    "surrogate type": '{"type": "\\ud800"}',
    "unicode digits": '{"type": "action", "action": "gift ² 1"}',
    "too big": '{"type": "ping", "pad": "' + "é" * 3000 + '"}',
}
WS_STATUS = {"unicode digits": (400, 409), "too big": (413,)}


def test_hostile_websocket_messages_get_error_replies(live_server: LiveServer) -> None:
    game_id, tokens = new_game(live_server)
    with httpx.Client(base_url=live_server.http) as http:
        before = http.get(f"/api/games/{game_id}/view").json()

    async def scenario() -> None:
        sock = await Socket.open(f"{live_server.ws}/ws/games/{game_id}?token={tokens[0]}")
        await sock.wait_for(lambda m: m["type"] == "view")
        for name, text in WS_MESSAGES.items():
            start = len(sock.messages)
            await sock.send(text)
            reply = await sock.wait_for(lambda m: m["type"] == "error", start)
            assert reply["error"]["status"] in WS_STATUS.get(name, (400,)), (name, reply)
            assert set(reply["error"]) == SHAPE
            assert all(strict_json(m) for m in sock.raw[start:])  # what it sent is JSON
        await sock.send({"type": "ping"})  # the socket is still open and answering
        await sock.wait_for(lambda m: m["type"] == "pong")
        await sock.close()

    with watch_log() as log:
        run_async(scenario())
    assert log.failures() == []
    with httpx.Client(base_url=live_server.http) as http:
        assert http.get(f"/api/games/{game_id}/view").json() == before


def test_a_frame_over_the_size_limit_is_closed_with_1009(tmp_path: Path) -> None:
    """``kaladan serve`` caps frames at 4 x max_message; uvicorn closes bigger ones with
    1009 (message too big), a close frame rather than a dropped connection."""
    settings = ServerSettings()
    app = create_app(sqlite_url(tmp_path), GENEROUS, bot_delay=0, rate_limit=1e6)
    with live_server_with(app, ws_max_size=4 * settings.max_message) as server:
        game_id, _ = new_game(server)

        async def scenario() -> tuple[int, str]:
            async with connect(f"{server.ws}/ws/games/{game_id}", max_size=None) as ws:
                await ws.recv()  # the view
                await ws.send("x" * (4 * settings.max_message + 1))
                try:
                    while True:
                        await asyncio.wait_for(ws.recv(), 10)
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None, "dropped without a close frame"
                    return closed.rcvd.code, closed.rcvd.reason

        with watch_log() as log:
            code, _ = run_async(scenario())
    assert code == 1009
    assert log.failures() == []


# --- the API documentation ----------------------------------------------------------------


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_api_documentation_loads_nothing_from_outside(client: TestClient, page: str) -> None:
    response = client.get(page)
    assert response.status_code == 200
    html = response.text
    assert not re.search(r"(https?:)?//", html), "the page names another server"
    assert "<style" not in html and " style=" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html), "an inline script"
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(assets) >= 3
    for asset in assets:
        assert asset.startswith("/static/"), asset
        assert client.get(asset).status_code == 200, asset
    vendor = Path(__file__).resolve().parents[2] / "src/kaladan/server/static/vendor"
    for folder in ("swagger-ui", "redoc"):
        assert (vendor / folder / "LICENSE").is_file()
    assert json.loads(client.get("/openapi.json").text)["info"]["title"] == "Kaladan"
