"""The one error shape of the HTTP and WebSocket API (docs/api.md).

Every rejection is an ``ApiError``: a status, a short code, a message for people, the rule id
when the rules forbid it, and the offending input. Handlers turn framework errors (validation,
unknown routes) into the same shape, so no client mistake becomes a 500.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.applications import Starlette
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount
from starlette.types import Scope

_CODES = {400: "malformed_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
          409: "conflict", 413: "too_large", 422: "illegal_action", 429: "rate_limited",
          500: "internal_error", 503: "unavailable"}


METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
# A 401 names how to authenticate (RFC 9110 section 11.6.1): a seat's bearer token, or a
# signed-in player's session (sign in with POST /api/session; docs/api.md "Accounts").
BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="kaladan"'}
SESSION_CHALLENGE = {"WWW-Authenticate": 'Session realm="kaladan", sign-in="/api/session"'}


class ApiError(Exception):
    """A request or message the server refuses; nothing was changed."""

    def __init__(self, status: int, code: str, message: str, rule: str | None = None,
                 input: Any = None, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.rule = rule
        self.input = input
        self.headers = headers  # HTTP only (a 401's WWW-Authenticate); a WebSocket has none

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.code, self.message, self.rule, self.input)


def error_body(status: int, code: str, message: str, rule: str | None = None,
               input: Any = None) -> dict[str, Any]:
    """The error shape, encodable as UTF-8 JSON whatever the client sent: the input is
    echoed only as a short scalar, lone surrogates escaped, NaN and infinities named."""
    return {"error": {"status": status, "code": _text(code), "message": _text(message, 1000),
                      "rule": None if rule is None else _text(rule),
                      "input": _clip(input)}}


def error_response(status: int, code: str, message: str, rule: str | None = None,
                   input: Any = None, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(status, code, message, rule, input), status_code=status,
                        headers=headers)


def allowed_methods(app: Starlette, scope: Scope) -> list[str]:
    """The methods some route answers on the request's path, for a 405's ``Allow`` (RFC
    9110 section 15.5.6): Starlette names only the first matching route's, and one path may
    have several routes (``GET`` and ``POST /api/games``)."""
    methods: set[str] = set()
    # the whole path, also from inside a mount (which moves its prefix into root_path)
    root = scope.get("app_root_path", scope.get("root_path", ""))
    for method in METHODS:
        probe = {"type": "http", "path": scope["path"], "root_path": root, "method": method,
                 "headers": []}
        for route in app.router.routes:
            if route.matches(probe)[0] == Match.FULL:
                # a mount is the static files, which answer GET and HEAD only
                methods |= {"GET", "HEAD"} if isinstance(route, Mount) else {method}
                break
    return sorted(methods)


def _text(value: object, limit: int = 200) -> str:
    """``value`` as text that encodes as UTF-8: a lone surrogate (``"\\ud800"`` in JSON, which
    Python's parser accepts) would make the response itself fail, so it is shown escaped."""
    text = str(value)[:limit]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _clip(value: Any) -> Any:
    """Echo only short scalar input back (a client's 4 KiB blob is not worth repeating);
    NaN and infinities, which JSON cannot carry, as their names, integers past 64 bits as
    text."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, int) and abs(value) >= 1 << 63:  # past what clients read exactly
        return str(value) if abs(value) < 10**100 else None  # str refuses 4,300 digits
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return None


def install_handlers(app: FastAPI) -> None:
    """Map every exception a request can raise to the API's error shape."""

    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    async def validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        problems = exc.errors()
        first = problems[0] if problems else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = f"{where}: {first.get('msg', 'invalid request')}" if where else "invalid request"
        return error_response(400, "malformed_request", message, None, first.get("input"))

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        status = exc.status_code
        headers = dict(exc.headers or {})
        if status == 405:
            headers["Allow"] = ", ".join(allowed_methods(request.app, request.scope))
        return error_response(status, _CODES.get(status, "error"), str(exc.detail),
                              headers=headers)

    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        return error_response(500, "internal_error", "internal server error")

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)
