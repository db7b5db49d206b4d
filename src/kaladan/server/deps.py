"""Request helpers shared by the routers: the service and seat authentication."""

from __future__ import annotations

from fastapi import Request

from .errors import ApiError
from .live import LiveGame
from .service import GameService


def service_of(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def bearer_token(request: Request) -> str | None:
    """The token of ``Authorization: Bearer <token>``; None when there is no header."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(403, "bad_token", "expected 'Authorization: Bearer <token>'")
    return token.strip()


def seat_of(request: Request, live: LiveGame, required: bool) -> int | None:
    token = bearer_token(request)
    if token is None:
        if required:
            raise ApiError(403, "missing_token", "this request needs a seat token "
                           "('Authorization: Bearer <token>')")
        return None
    return GameService.seat_for_token(live, token)
