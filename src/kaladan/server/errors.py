"""The one error shape of the HTTP and WebSocket API (docs/api.md).

Every rejection is an ``ApiError``: a status, a short code, a message for people, the rule id
when the rules forbid it, and the offending input. Handlers turn framework errors (validation,
unknown routes) into the same shape, so no client mistake becomes a 500.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

_CODES = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
          409: "conflict", 413: "too_large", 422: "illegal_action", 429: "rate_limited",
          500: "internal_error", 503: "unavailable"}


class ApiError(Exception):
    """A request or message the server refuses; nothing was changed."""

    def __init__(self, status: int, code: str, message: str, rule: str | None = None,
                 input: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.rule = rule
        self.input = input

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.code, self.message, self.rule, self.input)


def error_body(status: int, code: str, message: str, rule: str | None = None,
               input: Any = None) -> dict[str, Any]:
    return {"error": {"status": status, "code": code, "message": message, "rule": rule,
                      "input": input}}


def error_response(status: int, code: str, message: str, rule: str | None = None,
                   input: Any = None) -> JSONResponse:
    return JSONResponse(error_body(status, code, message, rule, input), status_code=status)


def _clip(value: Any) -> Any:
    """Echo only short scalar input back (a client's 4 KiB blob is not worth repeating)."""
    if isinstance(value, str):
        return value[:200]
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return None


def install_handlers(app: FastAPI) -> None:
    """Map every exception a request can raise to the API's error shape."""

    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return JSONResponse(exc.body(), status_code=exc.status)

    async def validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        problems = exc.errors()
        first = problems[0] if problems else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = f"{where}: {first.get('msg', 'invalid request')}" if where else "invalid request"
        return error_response(400, "malformed_request", message, None, _clip(first.get("input")))

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        status = exc.status_code
        return error_response(status, _CODES.get(status, "error"), str(exc.detail))

    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        return error_response(500, "internal_error", "internal server error")

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)
