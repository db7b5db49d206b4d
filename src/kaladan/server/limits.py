"""Size limits and rate limits: a client can slow down only itself."""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_body

MAX_BODY = 16 * 1024  # bytes of an HTTP request body
MAX_MESSAGE = 4 * 1024  # bytes of a WebSocket message
RATE = 20  # messages (WebSocket) or write requests (HTTP) per second per connection


class RateLimiter:
    """At most ``rate`` events in any one-second window."""

    __slots__ = ("rate", "times")

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.times: deque[float] = deque()

    def allow(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        while self.times and now - self.times[0] >= 1.0:
            self.times.popleft()
        if len(self.times) >= self.rate:
            return False
        self.times.append(now)
        return True


class _TooLarge(Exception):
    pass


class LimitsMiddleware:
    """413 for request bodies over ``max_body``; 429 when one connection (client address
    and port) sends more than ``rate`` write requests (POST) a second."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY, rate: float = RATE) -> None:
        self.app = app
        self.max_body = max_body
        self.rate = rate
        self.limiters: dict[Any, RateLimiter] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "POST" and not self._allow(scope.get("client")):
            await _reject(send, 429, "rate_limited",
                          f"more than {self.rate:g} requests a second on this connection")
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_large = int(value) > self.max_body
                except ValueError:
                    too_large = False
                if too_large:
                    await _reject(send, 413, "too_large",
                                  f"request body over {self.max_body} bytes")
                    return
        seen = 0
        started = overflow = False

        async def counting_receive() -> Message:
            nonlocal seen, overflow
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    overflow = True
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if overflow:  # the app answered a body it could not read: the answer is 413
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await _reject(send, 413, "too_large",
                                  f"request body over {self.max_body} bytes")
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _reject(send, 413, "too_large", f"request body over {self.max_body} bytes")

    def _allow(self, client: Any) -> bool:
        key = tuple(client) if client else None
        limiter = self.limiters.get(key)
        if limiter is None:
            if len(self.limiters) > 10_000:  # forget idle connections
                now = time.monotonic()
                self.limiters = {k: v for k, v in self.limiters.items()
                                 if v.times and now - v.times[-1] < 1.0}
            limiter = self.limiters[key] = RateLimiter(self.rate)
        return limiter.allow()


async def _reject(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps(error_body(status, code, message)).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
