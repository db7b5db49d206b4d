"""Helpers of the server tests: create and join games, play them through the API."""

from __future__ import annotations

import random
import time
from typing import Any
from urllib.parse import parse_qs, urlparse

from fastapi.testclient import TestClient

from kaladan.server.choices import expand_listed


def create(client: TestClient, seats: list[str], **fields: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"seats": seats, **fields})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def join_code(link: dict[str, Any]) -> str:
    return parse_qs(urlparse(link["url"]).query)["code"][0]


def join_all(client: Any, created: dict[str, Any]) -> dict[int, str]:
    """Join every human seat; seat -> token."""
    tokens = {}
    for link in created["join"]:
        r = client.post(f"/api/games/{created['game_id']}/seats/{link['seat']}/join",
                        json={"code": join_code(link)})
        assert r.status_code == 200, r.text
        tokens[link["seat"]] = r.json()["token"]
    return tokens


def listed(view: dict[str, Any]) -> list[dict[str, Any]]:
    """A view's listed actions with every field (the view leaves out what is implied)."""
    return [expand_listed(e) for e in view["legal"]]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_http(client: TestClient, game_id: str, tokens: dict[int, str], rng: random.Random,
              decisions: int) -> dict[str, Any]:
    """Make up to ``decisions`` random legal decisions for the human seats (bots play on the
    server, with no delay), return the last view of the seat that moved last."""
    seat = next(iter(tokens))
    view: dict[str, Any] = client.get(f"/api/games/{game_id}/view",
                                      headers=auth(tokens[seat])).json()
    for _ in range(decisions):
        view = wait_for_humans(client, game_id, tokens)
        if view["result"] is not None:
            break
        seat = view["seat"]
        choice = rng.randrange(view["legal_count"])  # any legal action, grouped or listed
        while True:
            r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                            json={"index": choice, "version": view["version"]})
            if r.status_code != 429:  # a real server limits requests per connection
                break
            time.sleep(0.1)
        assert r.status_code == 200, r.text
        view = r.json()
    return view


def wait_for_humans(client: Any, game_id: str, tokens: dict[int, str],
                    tries: int = 2000) -> dict[str, Any]:
    """The view of the human seat to decide (or any view once the game is over)."""
    for _ in range(tries):
        spectator = client.get(f"/api/games/{game_id}/view").json()
        if spectator["result"] is not None:
            return dict(spectator)
        seat = spectator["to_move"]
        if seat in tokens:
            view: dict[str, Any] = client.get(f"/api/games/{game_id}/view",
                                              headers=auth(tokens[seat])).json()
            if view["your_turn"]:
                return view
        time.sleep(0.005)
    raise AssertionError("the bots never handed the decision back to a human seat")
