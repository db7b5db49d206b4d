"""Chat and rematch over HTTP (docs/api.md "Chat" and "Rematch"); chat over the WebSocket
is routes_ws.py's."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request

from . import rematch
from .chat import author_of
from .deps import bearer_token, seat_of, service_of
from .errors import ApiError
from .limits import client_address
from .models import MAX_WHOLE, errors
from .service import GameService
from .sessions import signed_in
from .social_models import (
    ChatHistory,
    ChatMessage,
    ChatRequest,
    MuteList,
    MuteRequest,
    RematchState,
)

router = APIRouter(prefix="/api/games")
Service = Annotated[GameService, Depends(service_of)]
GameId = Annotated[str, Path(max_length=200)]


@router.get("/{game_id}/chat", response_model=ChatHistory, tags=["chat"],
            responses=errors(403, 404), summary="A game's chat messages",
            operation_id="getChat")
async def chat_history(
    game_id: GameId, request: Request, service: Service,
    channel: Annotated[Literal["players", "spectators"], Query(
        description="players: the seats' chat (a seat's token); spectators: the "
        "watchers' chat, for everybody")] = "players",
    after: Annotated[int, Query(ge=0, le=MAX_WHOLE, description="only messages with a "
                                "greater id")] = 0,
) -> Any:
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=False)
    account = signed_in(request)
    return await service.chat.history(live, seat, None if account is None else account.id,
                                      channel, after)


@router.post("/{game_id}/chat", response_model=ChatMessage, tags=["chat"],
             responses=errors(401, 403, 404), summary="Send a chat message",
             operation_id="sendChat")
async def chat_send(game_id: GameId, body: ChatRequest, request: Request,
                    service: Service) -> Any:
    """A seat writes to the players' channel, a signed-in spectator to the spectators'.
    400 ``too_long`` over 300 characters, 429 over 5 messages in 10 seconds."""
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=False)
    author = await author_of(live, seat, signed_in(request), request.app.state.accounts)
    if author is None:
        raise ApiError(401, "missing_token", "a seat writes with its token, a spectator "
                       "once signed in", headers={"WWW-Authenticate": 'Bearer realm="kaladan"'})
    return await service.chat.send(live, author, body.text)


@router.post("/{game_id}/chat/mutes", response_model=MuteList, tags=["chat"],
             responses=errors(401, 403, 404), summary="Mute or unmute a chat author",
             operation_id="muteChat")
async def chat_mute(game_id: GameId, body: MuteRequest, request: Request,
                    service: Service) -> Any:
    """For the caller only (a seat, or a signed-in spectator), in this game: the author's
    messages are not delivered to it any more."""
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=False)
    account = signed_in(request)
    if seat is None and account is None:
        raise ApiError(401, "missing_token", "a seat mutes with its token, a spectator once "
                       "signed in", headers={"WWW-Authenticate": 'Bearer realm="kaladan"'})
    muted = await service.chat.mute(live, seat, None if account is None else account.id,
                                    body.message, body.muted)
    return {"muted": muted}


@router.get("/{game_id}/rematch", response_model=RematchState, tags=["rematch"],
            responses=errors(403, 404), summary="The rematch of a finished game",
            operation_id="getRematch")
async def rematch_state(game_id: GameId, request: Request, service: Service) -> Any:
    """Who accepted; once started, the new game, and to a seat that accepted its new seat
    and (only with its old token) the new token."""
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=False)
    return await rematch.state(service, live, seat, bearer_token(request))


@router.post("/{game_id}/rematch", response_model=RematchState, tags=["rematch"],
             responses=errors(401, 403, 404, 409), summary="Offer or accept a rematch",
             operation_id="rematch")
async def rematch_accept(game_id: GameId, request: Request, service: Service) -> Any:
    """By a human seat of a finished game (409 before its end). The new game starts once
    every human seat has accepted: the same settings, a new seed, seats rotated."""
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=True)
    assert seat is not None
    return await rematch.accept(service, live, seat, bearer_token(request))

