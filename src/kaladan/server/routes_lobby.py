"""Lobby: create, list and join games."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from .deps import own_seat, service_of
from .limits import client_address
from .models import (
    Created,
    CreateGame,
    GameList,
    GameSummary,
    HandOver,
    Joined,
    JoinRequest,
    errors,
)
from .qr import qr_svg
from .service import GameService, summary
from .sessions import signed_in

router = APIRouter(prefix="/api/games", tags=["lobby"])
Service = Annotated[GameService, Depends(service_of)]
GameId = Annotated[str, Path(max_length=200, description="the id returned at creation")]


@router.post("", status_code=201, response_model=Created, responses=errors(422),
             summary="Create a game", operation_id="createGame")
async def create_game(body: CreateGame, request: Request, service: Service) -> Any:
    """Create a game; every human seat gets a one-time join link, everyone the spectator
    link. Bots start once every human seat has joined. 422 ``bot_cannot_play`` for an
    expert seat (or a level playing it) without a value network for the game's player
    count, mode and world."""
    live, codes = await service.create(
        mode=body.mode, seats=body.seats, options=body.options, world=body.world,
        seed=body.seed, quick=body.quick, name=body.name,
        client=client_address(request.scope), hints=body.hints, rated=body.rated,
        open_seats=body.open_seats,
        time_control=None if body.time_control is None
        else body.time_control.model_dump(exclude_none=True))
    return JSONResponse(status_code=201, content={
        "game_id": live.game_id,
        "join": [{"seat": seat, "url": f"/play/{live.game_id}/{seat}?code={code}",
                  "code": code} for seat, code in codes],
        "spectate": f"/watch/{live.game_id}",
    })


@router.get("", response_model=GameList, responses=errors(), summary="List games",
            operation_id="listGames")
async def list_games(
    service: Service,
    status: Annotated[str | None, Query(pattern="^(open|running|over)$",
                                        description="only games with this status")] = None,
) -> Any:
    games = await service.summaries()
    return {"games": [g for g in games if status is None or g["status"] == status]}


@router.get("/{game_id}", response_model=GameSummary, responses=errors(404),
            summary="One game's public summary", operation_id="getGame")
async def get_game(game_id: GameId, request: Request, service: Service) -> Any:
    return summary(await service.get(game_id, client_address(request.scope)))


@router.post("/{game_id}/seats/{seat}/join", response_model=Joined,
             responses=errors(401, 403, 404, 409), summary="Join a human seat",
             operation_id="joinSeat")
async def join(game_id: GameId, seat: Annotated[int, Path(description="the seat number")],
               body: JoinRequest, request: Request,
               service: Service) -> Any:
    """Exchange the seat's join code for its token. The token is handed out only once. A
    signed-in player (session cookie) joining a seat makes it theirs, and may take a free
    seat of a game with open seats without its code; a rated game's seats are only for
    signed-in players (401 ``sign_in_required``)."""
    live = await service.get(game_id, client_address(request.scope))
    token = await service.join(live, seat, body.code, signed_in(request))
    return {"seat": seat, "token": token}


@router.post("/{game_id}/seats/{seat}/handover", response_model=HandOver,
             responses=errors(401, 403, 404, 409),
             summary="Move a seat to another device: a fresh one-time join code",
             operation_id="handOverSeat")
async def hand_over(game_id: GameId, seat: Annotated[int, Path(description="the seat number")],
                    request: Request, service: Service) -> Any:
    """The seat itself (its token, or the session of the signed-in player sitting there)
    asks for a one-time code; the device that joins with it (``joinSeat``) plays the seat
    from then on, and the seat's token so far is refused (403 ``seat_moved``). Asking again
    replaces a code not used yet. 403 ``not_your_seat`` for another seat's credentials, 409
    ``not_joined`` for a seat nobody has joined."""
    live = await service.get(game_id, client_address(request.scope))
    own_seat(request, live, seat)
    code = await service.hand_over(live, seat)
    url = f"/play/{live.game_id}/{seat}?code={code}"
    public = request.app.state.settings.public_url
    link = (public or str(request.base_url)).rstrip("/") + url
    return {"seat": seat, "url": url, "code": code, "link": link, "qr": qr_svg(link)}
