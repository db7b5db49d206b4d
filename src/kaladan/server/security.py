"""Web hardening against hostile pages and clients (docs/api.md "Security").

- ``SecurityMiddleware``: every HTTP response carries a Content-Security-Policy (no inline
  script or style: the UI needs none), X-Frame-Options, X-Content-Type-Options and a
  Referrer-Policy; a request whose Host is not one of ``settings.allowed_hosts`` is 400
  ``bad_host`` (a DNS-rebinding page reaches a loopback server under its own name). A
  WebSocket is refused with a close frame for a bad Host, for an Origin of another site, and
  beyond ``settings.sockets`` connections from one client address (over all processes when
  a broker is set: ``shared_limits``).
- ``StrictJsonMiddleware`` and ``strict_json``: request bodies and WebSocket messages must be
  interoperable JSON (RFC 7493): Python's parser accepts NaN, Infinity, lone surrogates and
  any depth, none of which the rest of the server can store or send back.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_body
from .limits import client_address
from .settings import ServerSettings

if TYPE_CHECKING:  # the cluster extra (redis), imported only when a broker is set
    from .shared_limits import SharedLimits

# The UI loads its scripts, styles, data and images from this server only, and sets styles
# through the CSSOM (``element.style``), which CSP allows, never by attribute.
UI_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
             "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
             "form-action 'self'; frame-ancestors 'none'")
HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # join links carry a one-time code
)

CLOSE_POLICY = 1008  # a WebSocket from another site or under a host name not served
CLOSE_TRY_LATER = 1013  # too many WebSockets from one address

MAX_DEPTH = 32  # nesting of JSON arrays and objects; real requests need 4
MAX_INT = 1 << 63  # integers beyond 64 bits are no seed, index or count


class JsonRefused(ValueError):
    """A request body or message that is not interoperable JSON."""


def _no_constant(name: str) -> Any:
    raise JsonRefused(f"{name} is not a JSON number")


# One decoder for every message (``json.loads`` with an argument makes one per call).
_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def strict_json(data: bytes | str) -> Any:
    """The JSON value of ``data``, or ``JsonRefused`` saying why not: UTF-8 text holding no
    NaN or infinity, no lone surrogate (``"\\ud800"``), no integer beyond 64 bits and nothing
    nested deeper than ``MAX_DEPTH``."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonRefused("the body is not UTF-8 text") from exc
    try:
        value = _DECODER.decode(data)
    except JsonRefused:
        raise
    except RecursionError as exc:
        raise JsonRefused(f"JSON nested deeper than {MAX_DEPTH} levels") from exc
    except json.JSONDecodeError as exc:
        raise JsonRefused(f"not JSON: {exc.msg} at position {exc.pos}") from exc
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise JsonRefused("a number with too many digits") from exc
    _check(value)
    return value


def _check(value: Any) -> None:
    stack = [(value, 0)]  # iterative: the depth is what is being checked
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if not -MAX_INT <= item < MAX_INT:
                raise JsonRefused("an integer beyond 64 bits")
        elif isinstance(item, float):
            if not math.isfinite(item):  # 1e400 parses as infinity
                raise JsonRefused("a number out of range")
        elif depth >= MAX_DEPTH:
            raise JsonRefused(f"JSON nested deeper than {MAX_DEPTH} levels")
        elif isinstance(item, dict):
            for key, member in item.items():
                _check_text(key)
                stack.append((member, depth + 1))
        else:
            stack.extend((member, depth + 1) for member in item)


def _check_text(text: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise JsonRefused("text with a lone surrogate (U+D800-U+DFFF) is not Unicode") from exc


def _is_json(scope: Scope) -> bool:
    """Whether FastAPI will read this request's body as JSON (no content type, or a JSON
    one)."""
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            kind = bytes(value).split(b";", 1)[0].strip().lower()
            return kind == b"application/json" or (kind.startswith(b"application/")
                                                   and kind.endswith(b"+json"))
    return True


class StrictJsonMiddleware:
    """400 ``malformed_request`` for a JSON request body ``strict_json`` refuses, before any
    route sees it. Installed inside ``LimitsMiddleware``, so the body read is size-limited."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH") \
                or not _is_json(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body:
            try:
                strict_json(body)
            except JsonRefused as exc:
                await send_error(send, 400, "malformed_request", f"body: {exc}")
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def host_name(host: str) -> str:
    """The host name of a Host header or an allowed-host entry, without port or IPv6
    brackets, in lower case: ``[::1]:8000`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") > 1:  # a bare IPv6 address, as in allowed_hosts
        return host
    return host.partition(":")[0]


class SecurityMiddleware:
    """Security headers on every HTTP response (a route may set its own CSP, as the API
    documentation pages do); Host, Origin and per-address socket checks (module doc)."""

    def __init__(self, app: ASGIApp, settings: ServerSettings,
                 shared: SharedLimits | None = None) -> None:
        self.app = app
        self.any_host = "*" in settings.allowed_hosts
        self.hosts = frozenset(host_name(h) for h in settings.allowed_hosts)
        self.max_sockets = settings.sockets
        self.shared = shared  # None: counted here, in ``sockets``
        self.sockets: dict[str, int] = {}  # open WebSockets per client address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._socket(scope, receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _header(self, scope: Scope, name: bytes) -> str | None:
        for key, value in scope.get("headers", ()):
            if key == name:
                return str(value.decode("latin-1"))
        return None

    def _host_allowed(self, host: str | None) -> bool:
        return self.any_host or (host is not None and host_name(host) in self.hosts)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                if b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", UI_POLICY.encode()))
                headers.extend(h for h in HEADERS if h[0] not in present)
                message = {**message, "headers": headers}
            await send(message)

        host = self._header(scope, b"host")
        if not self._host_allowed(host):
            await send_error(secured, 400, "bad_host", f"this server does not answer for "
                             f"host {host!r} (its allowed hosts, docs/server.md)")
            return
        await self.app(scope, receive, secured)

    def _origin_allowed(self, origin: str, host: str | None) -> bool:
        """Same origin as the request's Host, or an allowed host. Browsers always send
        Origin (``null`` from sandboxed pages and files, refused); other clients may not."""
        if self.any_host:
            return True
        parts = urlsplit(origin.strip().lower())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False
        if host is not None and parts.netloc == host.strip().lower():
            return True
        return (parts.hostname or "") in self.hosts

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = self._header(scope, b"host")
        origin = self._header(scope, b"origin")
        if not self._host_allowed(host):
            await refuse_socket(receive, send, CLOSE_POLICY, "host not served")
            return
        if origin is not None and not self._origin_allowed(origin, host):
            await refuse_socket(receive, send, CLOSE_POLICY, "origin not allowed")
            return
        address = client_address(scope)
        if not await self._hold(address):
            await refuse_socket(receive, send, CLOSE_TRY_LATER,
                                f"more than {self.max_sockets} sockets from this address")
            return
        try:
            await self.app(scope, receive, send)
        finally:
            await self._let_go(address)

    async def _hold(self, address: str) -> bool:
        if self.shared is not None:
            return await self.shared.acquire("sockets", address, self.max_sockets)
        if self.sockets.get(address, 0) >= self.max_sockets:
            return False
        self.sockets[address] = self.sockets.get(address, 0) + 1
        return True

    async def _let_go(self, address: str) -> None:
        if self.shared is not None:
            await self.shared.release("sockets", address)
            return
        left = self.sockets[address] - 1
        if left:
            self.sockets[address] = left
        else:
            del self.sockets[address]  # the table holds only addresses with sockets


async def refuse_socket(receive: Receive, send: Send, code: int, reason: str) -> None:
    """Accept, then close with ``code`` and ``reason``: refusing the handshake instead
    would give the browser a bare HTTP 403 and the page no reason."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": code, "reason": reason})


async def send_error(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps(error_body(status, code, message), separators=(",", ":")).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
