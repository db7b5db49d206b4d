"""Chat per game (docs/server.md "Chat"): channels, plain text, limits, mutes, chat off,
history, and several processes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import jsonschema
from fastapi.testclient import TestClient
from live_support import LiveServer
from server_support import auth, create, join_all
from websockets.asyncio.client import connect
from ws_support import Socket, run_async

from kaladan.server.chat import MAX_TEXT, clean
from kaladan.server.ws_schema import client_message_schema, server_message_schema

SERVER = jsonschema.Draft202012Validator(server_message_schema())
CLIENT = jsonschema.Draft202012Validator(client_message_schema())


def two_humans(client: Any) -> tuple[str, dict[int, str]]:
    created = create(client, ["human", "human", "human"], quick=True)
    return created["game_id"], join_all(client, created)


def is_chat(text: str) -> Any:
    return lambda m: m["type"] == "chat" and m["message"]["text"] == text


def history(client: Any, game_id: str, token: str | None = None,
            channel: str = "players", after: int = 0) -> dict[str, Any]:
    r = client.get(f"/api/games/{game_id}/chat", params={"channel": channel, "after": after},
                   headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_message_reaches_the_other_seats_but_not_a_reader_who_muted_its_author(
        live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.http) as http:
        game_id, tokens = two_humans(http)

    async def scenario() -> None:
        socks = {s: await Socket.open(f"{live_server.ws}/ws/games/{game_id}?token={t}")
                 for s, t in tokens.items()}
        spectator = await Socket.open(f"{live_server.ws}/ws/games/{game_id}")
        for sock in [*socks.values(), spectator]:
            await sock.wait_for(lambda m: m["type"] == "view")
        await socks[0].send({"type": "chat", "text": "hello table"})
        for seat in (0, 1, 2):  # the author hears its own message too
            got = await socks[seat].wait_for(is_chat("hello table"))
            assert got["message"]["seat"] == 0 and got["message"]["channel"] == "players"
        with httpx.Client(base_url=live_server.http) as http:
            first = history(http, game_id, tokens[2])["messages"][0]
            r = http.post(f"/api/games/{game_id}/chat/mutes", headers=auth(tokens[2]),
                          json={"message": first["id"]})
            assert r.status_code == 200, r.text
            assert r.json()["muted"] == [{"message": first["id"], "seat": 0, "author": ""}]
            assert http.post(f"/api/games/{game_id}/chat/mutes", headers=auth(tokens[0]),
                             json={"message": first["id"]}).status_code == 400  # oneself
        await socks[0].send({"type": "chat", "text": "second"})
        await socks[1].send({"type": "chat", "text": "third"})
        await socks[1].wait_for(is_chat("second"))
        await socks[2].wait_for(is_chat("third"))
        texts = [m["message"]["text"] for m in socks[2].messages if m["type"] == "chat"]
        assert texts == ["hello table", "third"]  # seat 0 muted by seat 2 after its first
        for message in socks[2].messages:  # the documented schemas (docs/ws-schema.json)
            SERVER.validate(message)
        CLIENT.validate({"type": "chat", "text": "hello table"})
        with httpx.Client(base_url=live_server.http) as http:  # the history as well
            assert [m["text"] for m in history(http, game_id, tokens[2])["messages"]] \
                == ["third"]
            assert len(history(http, game_id, tokens[1])["messages"]) == 3
        # the players' channel is the seats': a spectator hears none of it
        assert not [m for m in spectator.messages if m["type"] == "chat"]
        for sock in [*socks.values(), spectator]:
            await sock.close()

    run_async(scenario())


def signed_up(http: httpx.Client, name: str) -> dict[str, str]:
    """Sign ``name`` up on ``http`` (which keeps the session cookie); the CSRF header its
    writes need."""
    r = http.post("/api/accounts", json={"name": name, "password": "a long password"})
    assert r.status_code == 201, r.text
    return {"X-CSRF-Token": r.json()["csrf"]}


def test_players_chat_is_for_seats_and_spectators_chat_for_everybody(
        live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.http) as http, \
            httpx.Client(base_url=live_server.http) as watcher:
        game_id, tokens = two_humans(http)
        assert http.get(f"/api/games/{game_id}/chat").status_code == 403  # players' channel
        assert history(http, game_id, channel="spectators")["messages"] == []
        # an anonymous watcher cannot write
        r = http.post(f"/api/games/{game_id}/chat", json={"text": "hi"})
        assert r.status_code == 401
        r = http.post(f"/api/games/{game_id}/chat", json={"text": "hi"}, headers=auth(tokens[0]))
        assert r.status_code == 200 and r.json()["channel"] == "players"
        assert r.json()["author"] == ""  # a guest seat: the page names it by its seat
        csrf = signed_up(watcher, "Watcher")
        r = watcher.post(f"/api/games/{game_id}/chat", json={"text": "go red!"}, headers=csrf)
        assert r.status_code == 200, r.text
        assert r.json()["channel"] == "spectators" and r.json()["author"] == "Watcher"
        assert r.json()["seat"] is None
        # seats read the spectators' channel too; spectators never the players'
        assert [m["text"] for m in history(http, game_id, tokens[1], "spectators")["messages"]] \
            == ["go red!"]
        assert watcher.get(f"/api/games/{game_id}/chat").status_code == 403
        # a seat mutes the signed-in spectator
        message = history(http, game_id, tokens[1], "spectators")["messages"][0]
        r = http.post(f"/api/games/{game_id}/chat/mutes", headers=auth(tokens[1]),
                      json={"message": message["id"]})
        assert r.json()["muted"] == [{"message": message["id"], "seat": None,
                                      "author": "Watcher"}]
        assert history(http, game_id, tokens[1], "spectators")["messages"] == []
        assert len(history(http, game_id, tokens[0], "spectators")["messages"]) == 1


def test_an_accounts_chat_off_sends_its_sockets_no_chat(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.http) as http, \
            httpx.Client(base_url=live_server.http) as quiet, \
            httpx.Client(base_url=live_server.http) as talker:
        game_id, _ = two_humans(http)
        csrf = signed_up(quiet, "Quiet")
        assert quiet.patch("/api/account", json={"chat": False},
                           headers=csrf).json()["chat"] is False
        talk = signed_up(talker, "Talker")
        cookie = "; ".join(f"{k}={v}" for k, v in quiet.cookies.items())

    async def scenario() -> None:
        url = f"{live_server.ws}/ws/games/{game_id}"
        off = Socket(await connect(url, additional_headers={"Cookie": cookie}))
        anonymous = await Socket.open(url)
        for sock in (off, anonymous):
            await sock.wait_for(lambda m: m["type"] == "view")
        async with httpx.AsyncClient(base_url=live_server.http,
                                     cookies=talker.cookies) as http2:
            r = await http2.post(f"/api/games/{game_id}/chat", json={"text": "watch this"},
                                 headers=talk)
            assert r.status_code == 200, r.text
        await anonymous.wait_for(is_chat("watch this"))
        await off.send({"type": "ping"})
        await off.wait_for(lambda m: m["type"] == "pong")
        assert not [m for m in off.messages if m["type"] == "chat"]
        # a signed-in spectator writes over the socket as well
        await off.send({"type": "chat", "text": "from the quiet one"})
        got = await anonymous.wait_for(is_chat("from the quiet one"))
        assert got["message"]["author"] == "Quiet"
        await off.close()
        await anonymous.close()

    run_async(scenario())


def test_too_long_is_400_and_nothing_is_stored(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    r = client.post(f"/api/games/{game_id}/chat", json={"text": "x" * (MAX_TEXT + 1)},
                    headers=auth(tokens[0]))
    assert r.status_code == 400 and r.json()["error"]["code"] == "too_long"
    r = client.post(f"/api/games/{game_id}/chat", json={"text": "\x07\n "},
                    headers=auth(tokens[0]))
    assert r.status_code == 400 and r.json()["error"]["code"] == "empty_message"
    assert history(client, game_id, tokens[0])["messages"] == []
    r = client.post(f"/api/games/{game_id}/chat", json={"text": "x" * MAX_TEXT},
                    headers=auth(tokens[0]))
    assert r.status_code == 200


def test_each_author_is_rate_limited(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    codes = [client.post(f"/api/games/{game_id}/chat", json={"text": f"m{i}"},
                         headers=auth(tokens[0])).status_code for i in range(6)]
    assert codes == [200] * 5 + [429]
    assert client.post(f"/api/games/{game_id}/chat", json={"text": "other author"},
                       headers=auth(tokens[1])).status_code == 200
    assert len(history(client, game_id, tokens[1])["messages"]) == 6


def test_markup_stays_text_and_control_characters_go(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)"> &amp;'
    r = client.post(f"/api/games/{game_id}/chat", json={"text": hostile},
                    headers=auth(tokens[0]))
    assert r.status_code == 200 and r.json()["text"] == hostile
    assert r.headers["content-type"] == "application/json"
    r = client.post(f"/api/games/{game_id}/chat", json={"text": "a\x00b\x1b[31mc\u202ed\td"},
                    headers=auth(tokens[0]))
    assert r.json()["text"] == "ab[31mcd d"
    assert [m["text"] for m in history(client, game_id, tokens[1])["messages"]] \
        == [hostile, "ab[31mcd d"]
    assert clean("\r\n x \x7f") == "x"


def test_chat_off_delivers_nothing_and_history_follows_a_reconnect(
        live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.http) as http:
        game_id, tokens = two_humans(http)

    async def scenario() -> None:
        url = f"{live_server.ws}/ws/games/{game_id}?token="
        off = await Socket.open(url + tokens[1] + "&chat=off")
        on = await Socket.open(url + tokens[2])
        author = await Socket.open(url + tokens[0])
        for sock in (off, on, author):
            await sock.wait_for(lambda m: m["type"] == "view")
        await author.send({"type": "chat", "text": "one"})
        await on.wait_for(is_chat("one"))
        await author.send({"type": "chat", "text": "two"})
        await on.wait_for(is_chat("two"))
        await off.send({"type": "ping"})
        await off.wait_for(lambda m: m["type"] == "pong")
        assert not [m for m in off.messages if m["type"] == "chat"]
        await on.close()
        with httpx.Client(base_url=live_server.http) as http:  # while it was away
            r = http.post(f"/api/games/{game_id}/chat", json={"text": "three"},
                          headers=auth(tokens[0]))
            first = r.json()["id"] - 2
            back = history(http, game_id, tokens[2], after=first)
            assert [m["text"] for m in back["messages"]] == ["two", "three"]
        for sock in (off, author):
            await sock.close()

    run_async(scenario())


def test_websocket_chat_errors_keep_the_socket(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.http) as http:
        game_id, tokens = two_humans(http)

    async def scenario() -> None:
        sock = await Socket.open(f"{live_server.ws}/ws/games/{game_id}?token={tokens[0]}")
        watcher = await Socket.open(f"{live_server.ws}/ws/games/{game_id}")
        await sock.send({"type": "chat", "text": "y" * (MAX_TEXT + 5)})
        err = await sock.wait_for(lambda m: m["type"] == "error")
        assert err["error"]["code"] == "too_long"
        await sock.send({"type": "chat", "text": 5})
        await sock.wait_for(lambda m: m["type"] == "error"
                            and m["error"]["code"] == "malformed_message")
        await watcher.send({"type": "chat", "text": "hi"})
        err = await watcher.wait_for(lambda m: m["type"] == "error")
        assert err["error"]["status"] == 403
        await sock.send({"type": "chat", "text": "still here"})
        await sock.wait_for(is_chat("still here"))
        await sock.close()
        await watcher.close()

    run_async(scenario())


def test_a_message_sent_on_one_process_reaches_a_socket_on_another(
        postgres_db: str, redis_server: Any, tmp_path: Path) -> None:
    from cluster_support import Processes
    processes = Processes(postgres_db, redis_server, tmp_path)
    try:
        a, b = processes.start(2)
        with httpx.Client(base_url=a.http, timeout=30) as http:
            game_id, tokens = two_humans(http)

        async def scenario() -> None:
            on_b = await Socket.open(f"{b.ws}/ws/games/{game_id}?token={tokens[1]}")
            await on_b.wait_for(lambda m: m["type"] == "view")
            muted = await Socket.open(f"{b.ws}/ws/games/{game_id}?token={tokens[2]}")
            await muted.wait_for(lambda m: m["type"] == "view")
            async with httpx.AsyncClient(base_url=a.http, timeout=30) as http:
                r = await http.post(f"/api/games/{game_id}/chat", json={"text": "from A"},
                                    headers=auth(tokens[0]))
                assert r.status_code == 200, r.text
                await on_b.wait_for(is_chat("from A"))
                await muted.wait_for(is_chat("from A"))
                # seat 2 mutes seat 0 on process A: process B stops delivering to it
                r = await http.post(f"/api/games/{game_id}/chat/mutes",
                                    headers=auth(tokens[2]), json={"message": r.json()["id"]})
                assert r.status_code == 200, r.text
                await asyncio.sleep(0.5)  # the mute's event reaches B
                await http.post(f"/api/games/{game_id}/chat", json={"text": "again"},
                                headers=auth(tokens[0]))
            await on_b.wait_for(is_chat("again"))
            await muted.send({"type": "ping"})
            await muted.wait_for(lambda m: m["type"] == "pong")
            assert [m["message"]["text"] for m in muted.messages if m["type"] == "chat"] \
                == ["from A"]
            await on_b.close()
            await muted.close()

        run_async(scenario())
    finally:
        processes.close()
