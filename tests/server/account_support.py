"""Accounts in the server tests: an app with sign-in limits out of the way, players as
cookie jars on the app's one TestClient, signing up and CSRF headers."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient
from live_support import GENEROUS

from kaladan.server import create_app
from kaladan.server.sessions import CSRF_HEADER

PASSWORD = "correct horse battery"
SETTINGS = replace(GENEROUS, sign_in_rate=1e6, sign_up_rate=1e6)


def make_app(url: str, **changes: Any) -> FastAPI:
    return create_app(url, replace(SETTINGS, **changes), bot_delay=0, rate_limit=1e6)


class Browser:
    """One player's cookies on the app's one TestClient: every TestClient runs the app on
    an event loop of its own, and one app serves one loop."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.cookies = httpx.Cookies()

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        self.client.cookies = self.cookies
        try:
            response: httpx.Response = self.client.request(method, url, **kwargs)
            return response
        finally:
            self.cookies = httpx.Cookies(self.client.cookies)
            self.client.cookies = httpx.Cookies()

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    def put(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", url, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", url, **kwargs)

    def websocket_connect(self, url: str, **kwargs: Any) -> Any:
        self.client.cookies = self.cookies
        return self.client.websocket_connect(url, **kwargs)


def sign_up(client: TestClient | Browser, name: str, password: str = PASSWORD,
            **fields: Any) -> dict[str, Any]:
    r = client.post("/api/accounts", json={"name": name, "password": password, **fields})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def csrf(body: dict[str, Any]) -> dict[str, str]:
    return {CSRF_HEADER: body["csrf"]}


def create_as(client: TestClient | Browser, me: dict[str, Any], seats: list[str],
              **fields: Any) -> dict[str, Any]:
    """``create`` by a signed-in player (a cookie write: with the CSRF token)."""
    r = client.post("/api/games", json={"seats": seats, **fields}, headers=csrf(me))
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body
