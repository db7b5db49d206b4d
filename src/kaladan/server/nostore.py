"""``Cache-Control: no-store`` on every answer of the HTTP API (docs/api.md "Caching").

A created game's answer holds its join codes, a joined seat's its token and a seat's view
its hand: none belongs in a shared cache or on the browser's disk (RFC 9111 section
5.2.2.5). Every ``/api`` answer says so, errors included, so no client has to know which
ones carry a secret; a spectator's view is stale with the next decision anyway.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

NO_STORE = (b"cache-control", b"no-store")


def is_api(scope: Scope) -> bool:
    """Whether an HTTP request is for the API (``/api`` and below, under any root path)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root):]
    return path == "/api" or path.startswith("/api/")


class NoStoreMiddleware:
    """Adds ``NO_STORE`` (in place of any other Cache-Control) to every API answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_api(scope):
            await self.app(scope, receive, send)
            return

        async def no_store(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(name, value) for name, value in message.get("headers", [])
                           if name.lower() != NO_STORE[0]]
                message = {**message, "headers": [*headers, NO_STORE]}
            await send(message)

        await self.app(scope, receive, no_store)
