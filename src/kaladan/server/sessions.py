"""Signed-in players over HTTP and WebSocket: the session cookie and CSRF.

``SessionMiddleware`` reads the session cookie once per request and puts the signed-in
account in the request's state (``signed_in``), so routes and ``deps.seat_of`` stay
synchronous. The cookie is ``HttpOnly`` and ``SameSite=Lax``, ``Secure`` (under the
``__Host-`` prefix) when the page was served over HTTPS.

CSRF: every write (any method but GET, HEAD and OPTIONS) whose cookie signs somebody in
must carry the session's CSRF token in ``X-CSRF-Token``, or it is refused with 403
``csrf_failed`` before any route runs, whether or not the route uses the account. The token
is an HMAC of the session's secret: a page of another site can neither read the cookie nor
compute it.
Signing in and up are the exception (there is no session yet, or one being replaced); for
those, and for a WebSocket the cookie authenticates, a browser's Origin must be this
server's own.
"""

from __future__ import annotations

import hashlib
import hmac
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from .accounts import SESSION_DAYS, Account, Accounts, secret_hash
from .errors import SESSION_CHALLENGE, ApiError
from .security import send_error

COOKIE = "kaladan_session"
SECURE_COOKIE = "__Host-kaladan_session"  # over HTTPS: Secure, Path=/, no Domain
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# signing in or up makes a new session; they check Origin instead of a token
NO_TOKEN = frozenset({("POST", "/api/session"), ("POST", "/api/accounts"),
                      ("POST", "/api/password-reset"),
                      ("POST", "/api/password-reset/confirm")})


def csrf_token(secret: str) -> str:
    return hmac.new(secret.encode("utf-8"), b"kaladan csrf", hashlib.sha256).hexdigest()


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {k: v for k, v in scope.get("headers", ())}


def cookie_secret(scope: Scope) -> str | None:
    raw = _headers(scope).get(b"cookie")
    if not raw:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw.decode("latin-1"))
    except Exception:  # a malformed Cookie header: as if there were none
        return None
    for name in (SECURE_COOKIE, COOKIE):
        if name in jar and jar[name].value:
            return jar[name].value[:200]
    return None


def same_origin(scope: Scope) -> bool:
    """No Origin (not a browser) or this server's own scheme-less host."""
    headers = _headers(scope)
    origin = headers.get(b"origin")
    if origin is None:
        return True
    host = headers.get(b"host", b"").decode("latin-1").strip().lower()
    parts = urlsplit(origin.decode("latin-1").strip().lower())
    return parts.scheme in ("http", "https") and parts.netloc == host


class SessionMiddleware:
    def __init__(self, app: ASGIApp, accounts: Accounts) -> None:
        self.app = app
        self.accounts = accounts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"].startswith("/static/"):
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state["account"] = state["session"] = state["secret"] = None
        secret = cookie_secret(scope)
        http = scope["type"] == "http"
        method = scope.get("method", "GET")
        write = http and method not in SAFE_METHODS
        if write and (method, scope["path"]) in NO_TOKEN and not same_origin(scope):
            await send_error(send, 403, "csrf_failed", "signing in is only for this "
                             "server's own pages (Origin)")
            return
        if secret is not None and (http or same_origin(scope)):
            session = secret_hash(secret)
            try:
                account = await self.accounts.session(session)
            except ApiError as exc:
                if http:
                    await send_error(send, exc.status, exc.code, exc.message)
                    return
                account = None  # a socket goes on as a spectator or with its token
            if account is not None:  # a cookie that signs somebody in
                if write and (method, scope["path"]) not in NO_TOKEN and not \
                        hmac.compare_digest(_headers(scope).get(CSRF_HEADER.lower().encode(),
                                                                b""),
                                            csrf_token(secret).encode()):
                    await send_error(send, 403, "csrf_failed", "a write signed in by the "
                                     f"session cookie needs the session's {CSRF_HEADER} "
                                     "header (GET /api/session)")
                    return
                state.update(account=account, session=session, secret=secret)
        await self.app(scope, receive, send)


def signed_in(connection: HTTPConnection) -> Account | None:
    """The signed-in player of a request or WebSocket (None: nobody)."""
    account: Account | None = connection.scope.get("state", {}).get("account")
    return account


def session_of(connection: HTTPConnection) -> str | None:
    session: str | None = connection.scope.get("state", {}).get("session")
    return session


def require_account(connection: HTTPConnection) -> Account:
    account = signed_in(connection)
    if account is None:
        raise ApiError(401, "not_signed_in", "sign in first (POST /api/session)",
                       headers=SESSION_CHALLENGE)
    return account


def set_session_cookie(response: Response, connection: HTTPConnection, secret: str) -> None:
    secure = connection.url.scheme == "https"
    response.set_cookie(SECURE_COOKIE if secure else COOKIE, secret,
                        max_age=SESSION_DAYS * 86400, path="/", secure=secure,
                        httponly=True, samesite="lax")


def clear_session_cookie(response: Response, connection: HTTPConnection) -> None:
    secure = connection.url.scheme == "https"
    response.delete_cookie(SECURE_COOKIE if secure else COOKIE, path="/", secure=secure,
                           httponly=True, samesite="lax")


def session_body(account: Account, secret: str) -> dict[str, Any]:
    return {**account.to_json(), "csrf": csrf_token(secret)}
