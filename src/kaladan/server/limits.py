"""Size limits and rate limits per client address: a client can slow down only itself.

Counted in this process's memory; with several processes (``ServerSettings.broker_url``)
the per-address limits are counted in Redis instead (``shared_limits``), through the same
``AddressRate`` interface.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_body
from .rates import AddressRate, PerAddress
from .settings import ServerSettings

if TYPE_CHECKING:  # the cluster extra (redis), imported only when a broker is set
    from .shared_limits import SharedLimits


def client_address(scope: Scope) -> str:
    """The client's address without its port: limits are per address, not per connection
    (behind a reverse proxy uvicorn puts the forwarded address here, docs/server.md)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class _TooLarge(Exception):
    pass


class LimitsMiddleware:
    """413 for request bodies over ``max_body``; 429 when one client address sends more than
    ``rate`` write requests (POST) or ``read_rate`` reads a second (over all processes
    when ``shared`` is given)."""

    def __init__(self, app: ASGIApp, settings: ServerSettings,
                 shared: SharedLimits | None = None) -> None:
        self.app = app
        self.max_body = settings.max_body
        self.writes: AddressRate
        self.reads: AddressRate
        if shared is None:
            self.writes = PerAddress(settings.rate)
            self.reads = PerAddress(settings.read_rate)
        else:
            self.writes = shared.per_address("writes", settings.rate)
            self.reads = shared.per_address("reads", settings.read_rate)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limits = self.writes if scope["method"] == "POST" else self.reads
        if not await limits.admit(client_address(scope)):
            kind = "write requests" if limits is self.writes else "requests"
            await _reject(send, 429, "rate_limited",
                          f"more than {limits.rate:g} {kind} a second from this address")
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

async def _reject(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps(error_body(status, code, message)).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
