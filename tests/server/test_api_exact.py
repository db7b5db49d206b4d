"""The HTTP API as an outside audit reads it (issue "More than one server", point 7): a
missing seat token is 401 with its bearer challenge (RFC 6750), a number JSON Schema calls
an integer is one (``5023.0``), no answer of the API is for a cache (RFC 9111 ``no-store``),
and a versioned decision sent twice over the WebSocket is applied once."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi.testclient import TestClient
from live_support import LiveServer
from server_support import auth, create, join_all, join_code
from ws_support import Socket, run_async

NEEDS_TOKEN = [("GET", "legal"), ("GET", "odds"), ("GET", "hint"), ("POST", "actions")]


def error_code(response: httpx.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code


def test_a_missing_token_is_401_with_a_bearer_challenge(client: TestClient) -> None:
    created = create(client, ["human", "random"], quick=True, seed=4)
    game_id, tokens = created["game_id"], join_all(client, created)
    other = join_all(client, create(client, ["human", "random"], quick=True))
    for method, path in NEEDS_TOKEN:
        url = f"/api/games/{game_id}/{path}"
        body = {"index": 0} if method == "POST" else None
        missing = client.request(method, url, json=body)
        assert missing.status_code == 401 and error_code(missing) == "missing_token", url
        assert missing.headers["www-authenticate"] == 'Bearer realm="kaladan"'
        # a token that is there but no seat's of this game: refused, no new challenge
        for headers in (auth(other[0]), {"Authorization": "Basic abc"}):
            wrong = client.request(method, url, json=body, headers=headers)
            assert wrong.status_code == 403 and error_code(wrong) == "bad_token", url
            assert "www-authenticate" not in wrong.headers
        assert client.request(method, url, json=body,
                              headers=auth(tokens[0])).status_code != 401
    assert client.get(f"/api/games/{game_id}/view").status_code == 200  # a spectator


def test_a_number_with_a_zero_fraction_is_an_integer(client: TestClient) -> None:
    # JSON Schema (2020-12, validation 6.1.1): 5023.0 is an integer.
    made = client.post("/api/games", json={"seats": ["human", "random"], "quick": True,
                                           "seed": 7.0})
    assert made.status_code == 201, made.text
    created = made.json()
    game_id, tokens = created["game_id"], join_all(client, created)
    view = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
    assert view["seed"] == 7 and isinstance(view["seed"], int)
    url = f"/api/games/{game_id}/actions"
    for body in ({"index": 0.5}, {"index": "0"}, {"index": True}, {"index": -1.0},
                 {"index": 0, "version": 1.5}, {"index": 2.0**53}):
        refused = client.post(url, json=body, headers=auth(tokens[0]))
        assert refused.status_code == 400, (body, refused.text)
    while not view["your_turn"]:  # the bot's first decisions
        view = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[0])).json()
    done = client.post(url, json={"index": 0.0, "version": float(view["version"])},
                       headers=auth(tokens[0]))
    assert done.status_code == 200, done.text
    assert done.json()["version"] > view["version"]
    since = client.get(f"/api/games/{game_id}/view?since={view['version']}.0")
    assert since.status_code == 200 and since.json()["log_since"] == view["version"]


def test_no_answer_of_the_api_is_for_a_cache(client: TestClient) -> None:
    made = client.post("/api/games", json={"seats": ["human", "human"], "quick": True})
    created = made.json()
    game_id = created["game_id"]
    joined = client.post(f"/api/games/{game_id}/seats/0/join",
                         json={"code": join_code(created["join"][0])})
    token = joined.json()["token"]
    answers = [made, joined,  # the join codes, the token
               client.get(f"/api/games/{game_id}/view", headers=auth(token)),
               client.get(f"/api/games/{game_id}/legal", headers=auth(token)),
               client.get(f"/api/games/{game_id}/view"), client.get("/api/games"),
               client.get(f"/api/games/{game_id}"),
               client.get(f"/api/games/{game_id}/legal"),  # 401
               client.get("/api/games/g_nothing"),  # 404
               client.post("/api/games", content=b'{"seats": NaN}',  # the strict JSON's 400
                           headers={"Content-Type": "application/json"}),
               client.get("/api/games", headers={"Host": "evil.example"})]  # bad_host
    for answer in answers:
        assert answer.headers.get("cache-control") == "no-store", (
            answer.request.url, answer.status_code, answer.headers)
    assert [a.status_code for a in answers] == [201, 200, 200, 200, 200, 200, 200, 401, 404,
                                                400, 400]


def test_a_versioned_action_sent_twice_is_applied_once(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.http) as http:
        created = http.post("/api/games", json={"seats": ["human", "human"], "quick": True,
                                                "seed": 2}).json()
        game_id, tokens = created["game_id"], join_all(http, created)

        async def scenario() -> dict[str, Any]:
            socks = {s: await Socket.open(f"{live_server.ws}/ws/games/{game_id}?token={t}")
                     for s, t in tokens.items()}
            first = {s: (await sock.wait_for(lambda m: m["type"] == "view"))["view"]
                     for s, sock in socks.items()}
            mover = next(s for s, v in first.items() if v["your_turn"])
            version = first[mover]["version"]
            # written 0.0 and N.0: integers to JSON Schema, over the socket as over HTTP
            action = {"type": "action", "index": 0.0, "version": float(version)}
            await socks[mover].send(action)
            await socks[mover].send(action)  # a double click, a resend after a reconnect
            refused = await socks[mover].wait_for(lambda m: m["type"] == "error")
            assert refused["error"]["status"] == 409, refused
            assert refused["error"]["code"] == "stale_version", refused
            await asyncio.sleep(0.3)  # time for a wrongly applied second decision to show
            after = http.get(f"/api/games/{game_id}/view").json()
            errors = [m for m in socks[mover].messages if m["type"] == "error"]
            for sock in socks.values():
                await sock.close()
            assert len(errors) == 1, errors
            return {"before": version, "after": after["version"]}

        versions = run_async(scenario())
    assert versions["after"] == versions["before"] + 1, versions
