"""Every message of whole games, HTTP and WebSocket, for each seat and a spectator, against
the documented schemas: /openapi.json for HTTP answers, docs/ws-schema.json
(``kaladan.server.ws_schema``) for WebSocket messages."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import httpx
import jsonschema  # type: ignore[import-untyped]
import pytest
from live_support import LiveServer
from server_support import auth
from ws_support import Socket, run_async

from kaladan.server.ws_schema import client_message_schema, document, server_message_schema

DOC = Path(__file__).resolve().parents[2] / "docs" / "ws-schema.json"


class Checker:
    """Validates HTTP answers by operation and status against the served OpenAPI, and
    WebSocket messages against the WebSocket schema; counts what it checked."""

    def __init__(self, openapi: dict[str, Any]) -> None:
        self.openapi = openapi
        self.ws = jsonschema.Draft202012Validator(server_message_schema())
        self.counts: dict[str, int] = {}

    def http(self, operation: str, response: httpx.Response) -> Any:
        path, method = next((p, m) for p, item in self.openapi["paths"].items()
                            for m, op in item.items() if op["operationId"] == operation)
        documented = self.openapi["paths"][path][method]["responses"]
        status = str(response.status_code)
        assert status in documented, (operation, status, response.text)
        schema = documented[status]["content"]["application/json"]["schema"]
        body = response.json()
        jsonschema.Draft202012Validator(
            {**schema, "components": self.openapi["components"]}).validate(body)
        key = f"{operation} {status}"
        self.counts[key] = self.counts.get(key, 0) + 1
        return body

    def socket(self, raw: str) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(raw)
        self.ws.validate(message)
        key = f"ws {message['type']}"
        self.counts[key] = self.counts.get(key, 0) + 1
        return message


async def play(server: LiveServer, check: Checker, rng: random.Random) -> dict[int | None, Socket]:
    """A team game of two people and two bots to its end: seat 0 decides over its socket,
    seat 2 over HTTP; every view of every seat and of a spectator is read now and then over
    HTTP, and some refused messages and pings are sent."""
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        created = check.http("createGame", await http.post("/api/games", json={
            "mode": "team_2v2", "seats": ["human", "random", "human", "random"],
            "quick": True, "seed": 11, "name": "schema"}))
        game_id = created["game_id"]
        check.http("getGame", await http.get(f"/api/games/{game_id}"))
        check.http("getView", await http.get(f"/api/games/{game_id}/view"))
        tokens: dict[int, str] = {}
        for link in created["join"]:
            joined = check.http("joinSeat", await http.post(
                f"/api/games/{game_id}/seats/{link['seat']}/join", json={"code": link["code"]}))
            tokens[link["seat"]] = joined["token"]
        check.http("joinSeat", await http.post(  # refused: joined already
            f"/api/games/{game_id}/seats/0/join", json={"code": created["join"][0]["code"]}))
        check.http("getRecord", await http.get(f"/api/games/{game_id}/record"))  # 409
        socks: dict[int | None, Socket] = {
            seat: await Socket.open(f"{server.ws}/ws/games/{game_id}?token={token}")
            for seat, token in tokens.items()}
        socks[None] = await Socket.open(f"{server.ws}/ws/games/{game_id}")
        await socks[None].send({"type": "ping"})
        await socks[None].send({"type": "action", "index": 0})  # a spectator: 403
        acted, decisions = -1, 0
        while True:
            spectator = check.http("getView", await http.get(f"/api/games/{game_id}/view"))
            if spectator["result"] is not None:
                break
            seat = spectator["to_move"]
            if seat not in tokens or spectator["version"] <= acted:
                await asyncio.sleep(0.002)
                continue
            view = check.http("getView", await http.get(f"/api/games/{game_id}/view",
                                                        headers=auth(tokens[seat])))
            if not view["your_turn"]:
                continue
            choice = rng.randrange(view["legal_count"])
            acted, decisions = view["version"], decisions + 1
            if decisions % 7 == 0:  # the whole list, for the seat to decide and another
                whole = check.http("getLegal", await http.get(
                    f"/api/games/{game_id}/legal", headers=auth(tokens[seat])))
                assert len(whole["legal"]) == view["legal_count"]
                check.http("getLegal", await http.get(
                    f"/api/games/{game_id}/legal", headers=auth(tokens[2 - seat])))
                check.http("getOdds", await http.get(
                    f"/api/games/{game_id}/odds", headers=auth(tokens[seat])))
            if decisions % 20 == 0:  # refused: stale version, text that does not parse
                for other in tokens:
                    check.http("getView", await http.get(f"/api/games/{game_id}/view",
                                                         headers=auth(tokens[other])))
                check.http("act", await http.post(
                    f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                    json={"index": 0, "version": view["version"] + 5}))
                await socks[seat].send({"type": "action", "action": "magic XYZ-9"})
                await socks[seat].send({"type": "ping"})
            if seat == 0:
                await socks[0].send({"type": "action", "index": choice,
                                     "version": view["version"]})
            else:
                check.http("act", await http.post(
                    f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                    json={"index": choice, "version": view["version"]}))
        check.http("getRecord", await http.get(f"/api/games/{game_id}/record"))
        check.http("listGames", await http.get("/api/games"))
        check.http("act", await http.post(f"/api/games/{game_id}/actions",
                                          headers=auth(tokens[0]), json={"index": 0}))
        await asyncio.sleep(0.1)
        for sock in socks.values():
            await sock.close()
        assert decisions > 20
        return socks


def test_every_message_of_a_game_fits_the_documented_schemas(live_server: LiveServer) -> None:
    openapi = httpx.get(live_server.http + "/openapi.json").json()
    check = Checker(openapi)
    socks = run_async(play(live_server, check, random.Random(4)))
    for seat, sock in socks.items():
        kinds = [check.socket(raw)["type"] for raw in sock.raw]
        assert kinds.count("view") > 10, (seat, kinds[:5])
        last = sock.last_view()
        assert last is not None and last["result"] is not None
    assert {"error", "pong"} <= {m["type"] for m in socks[None].messages}
    assert {"error", "pong"} <= {m["type"] for m in socks[0].messages}
    for key in ("createGame 201", "joinSeat 200", "joinSeat 409", "getView 200", "act 200",
                "getLegal 200", "getOdds 200",
                "act 409", "getRecord 200", "getRecord 409", "listGames 200"):
        assert check.counts.get(key), (key, check.counts)


def test_the_schema_refuses_what_the_server_would_not_send() -> None:
    server = jsonschema.Draft202012Validator(server_message_schema())
    client = jsonschema.Draft202012Validator(client_message_schema())
    assert server.is_valid({"type": "pong"})
    assert not server.is_valid({"type": "pong", "extra": 1})
    assert not server.is_valid({"type": "view", "view": {"game_id": "g"}})
    assert not server.is_valid({"type": "error", "error": {"status": 400}})
    for good in ({"type": "ping"}, {"type": "action", "index": 3},
                 {"type": "action", "action": "gift 2 3", "version": 4},
                 {"type": "action", "action": None, "index": 0}):
        assert client.is_valid(good), good
    for bad in ({"type": "action"}, {"type": "action", "index": 1, "action": "pass"},
                {"type": "action", "index": -1}, {"type": "action", "action": "  "},
                {"type": "action", "index": 1, "token": "x"}, {"type": "hello"}):
        assert not client.is_valid(bad), bad


def test_the_shipped_schema_file_is_the_generated_one() -> None:
    assert DOC.read_text(encoding="utf-8") == document(), \
        "docs/ws-schema.json is stale: regenerate it from kaladan.server.ws_schema.document()"


@pytest.mark.parametrize("message", [{"type": "ping"}, {"type": "action", "action": "pass"}])
def test_client_messages_the_docs_show_are_valid(message: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(client_message_schema()).validate(message)
