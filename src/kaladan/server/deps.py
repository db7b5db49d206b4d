"""Request helpers shared by the routers: the service and seat authentication.

A seat is authenticated by its token (``Authorization: Bearer``), or, without one, by the
session of the signed-in player sitting at it (``sessions.py``; its writes carry the CSRF
token). A request without either where one is needed is 401 ``missing_token`` with
``WWW-Authenticate: Bearer`` (RFC 6750 section 3: no credentials, so the challenge); a
token that is there but no seat's of this game is 403 ``bad_token`` (RFC 9110 section
15.5.4: the credentials were provided and are not enough), as is a header in another scheme.
"""

from __future__ import annotations

from fastapi import Request

from .errors import ApiError
from .live import LiveGame
from .service import GameService
from .sessions import signed_in

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="kaladan"'}


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
        account = signed_in(request)
        seat = None if account is None else GameService.seat_of_account(live, account)
        if seat is not None:
            return seat
        if required and account is not None:
            raise ApiError(403, "not_a_player", f"{account.name} plays no seat of this game")
        if required:
            raise ApiError(401, "missing_token", "this request needs a seat token "
                           "('Authorization: Bearer <token>')", headers=CHALLENGE)
        return None
    return GameService.seat_for_token(live, token)


def own_seat(request: Request, live: LiveGame, seat: int) -> None:
    """The request's credentials (a seat token or a signed-in player's session) are seat
    ``seat``'s: 401/403 as ``seat_of``, 403 ``not_your_seat`` for another seat's."""
    mine = seat_of(request, live, required=True)
    assert mine is not None  # required: an answer or an error
    if mine != seat:
        raise ApiError(403, "not_your_seat", f"these credentials are seat {mine + 1}'s, not "
                       f"seat {seat + 1}'s", input=seat)
