"""Playing over HTTP: views, decisions and the record of a finished game."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response

from ..record import to_record
from .deps import own_seat, seat_of, service_of
from .errors import ApiError
from .limits import client_address
from .models import (
    MAX_WHOLE,
    ActionRequest,
    Hint,
    LegalList,
    OddsList,
    ReplayView,
    Rounds,
    View,
    errors,
)
from .service import GameService, digest
from .views import all_odds, full_legal, hint_view, replay_view, view_text

router = APIRouter(prefix="/api/games", tags=["play"])
Service = Annotated[GameService, Depends(service_of)]
GameId = Annotated[str, Path(max_length=200)]


@router.get("/{game_id}/view", response_model=View, responses=errors(403, 404),
            summary="The current view of a seat (with its token) or of a spectator",
            operation_id="getView")
async def view(
    game_id: GameId, request: Request, service: Service,
    since: Annotated[int | None, Query(ge=0, description="only the log entries made after "
                                       "this version; absent: the whole log")] = None,
) -> Any:
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=False)
    return Response(view_text(live, seat, -1 if since is None else since),
                    media_type="application/json")


@router.get("/{game_id}/legal", response_model=LegalList, responses=errors(403, 404),
            summary="Every legal action of the seat, each with its text",
            operation_id="getLegal")
async def legal(game_id: GameId, request: Request, service: Service) -> Any:
    """The seat's whole legal list at the current version: what a view gives partly as
    groups of moves and swaps (for keyboards, screen readers and clients that want every
    text). Empty while another seat decides."""
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=True)
    assert seat is not None
    return full_legal(live, seat)


@router.get("/{game_id}/odds", response_model=OddsList, responses=errors(403, 404),
            summary="The exact odds of every attack the seat may declare now",
            operation_id="getOdds")
async def odds(game_id: GameId, request: Request, service: Service) -> Any:
    """The chance that the attacker wins and the expected losses of both sides, for each
    attack in the seat's legal list (without cards played; R16.14-R16.21), and the same with
    each magic card of the seat's own hand it may play in that battle, the defender playing
    none (R16.5-R16.8). Empty while another seat decides."""
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=True)
    assert seat is not None
    return all_odds(live, seat)


@router.get("/{game_id}/hint", response_model=Hint, responses=errors(403, 404, 409),
            summary="Advice: what the strongest bot would decide for the seat now",
            operation_id="getHint")
async def hint(game_id: GameId, request: Request, service: Service) -> Any:
    """The choice of the strongest level's bot (the expert bot, searching
    ``hint_iterations`` times within ``hint_seconds``; the greedy bot where no value network
    serves the game) for the seat's pending decision, from the seat's own view (its
    observation and legal actions, nothing hidden from it), and for an attack the exact
    odds; ``adviser`` names the bot. 403 ``hints_off`` when the game was created without
    advice, 409 when another seat decides or the game is over."""
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=True)
    assert seat is not None
    if not live.hints:
        raise ApiError(403, "hints_off", "this game gives no advice: it was created without "
                       "hints")
    snapshot = live.snapshot
    assert snapshot is not None  # a game in memory is published
    state = snapshot.state
    if state.is_over:
        raise ApiError(409, "game_over", "the game is over")
    if state.pending.seat != seat:
        raise ApiError(409, "not_your_turn", f"seat {state.pending.seat + 1} is to decide, "
                       f"not seat {seat + 1}: advice is for the seat's own decision", "R6.5")
    action, adviser = await service.advisor.ask(live.game_id, snapshot.version, state, seat,
                                                digest(client_address(request.scope)))
    return await asyncio.to_thread(hint_view, state, snapshot.version, action, adviser)


@router.post("/{game_id}/actions", response_model=View,
             responses=errors(403, 404, 409, 422),
             summary="Make the seat's decision, or give gold to an ally at any moment",
             operation_id="act")
async def act(game_id: GameId, body: ActionRequest, request: Request, service: Service) -> Any:
    """Apply one decision by text or by index into ``legal``. A team player may give gold
    (``gift <ally> <amount>``, by text) at any moment, also while another seat decides
    (R23.11); the pending decision stays where it is. 409 when it is not this seat's turn
    (for anything but a gift) or ``version`` is stale, 422 with the rule id when the rules
    forbid it. The view that follows carries the log entries made after ``version``
    (without it: the whole log)."""
    live = await service.get(game_id, client_address(request.scope))
    seat = seat_of(request, live, required=True)
    assert seat is not None
    live = await service.act(live, seat, body.action, body.index, body.version)
    since = -1 if body.version is None else body.version
    return Response(view_text(live, seat, since), media_type="application/json")


@router.post("/{game_id}/seats/{seat}/takeback", response_model=View,
             responses=errors(401, 403, 404, 409),
             summary="Take the seat back from the bot that took it over on time",
             operation_id="takeBack")
async def take_back(game_id: GameId, seat: Annotated[int, Path(ge=0, le=MAX_WHOLE)],
                    request: Request, service: Service) -> Any:
    """After ``takeover_after`` timeouts in a row the game's timeout bot plays a seat
    (docs/server.md "Time controls"); its player takes it back here, authenticated like
    every decision of the seat, and decides again from now on (its clock runs from now if
    it is to decide). 403 for another seat's credentials, 409 ``not_taken_over`` when the
    bot does not play the seat."""
    live = await service.get(game_id, client_address(request.scope))
    own_seat(request, live, seat)
    live = await service.take_back(live, seat)
    return Response(view_text(live, seat), media_type="application/json")


@router.get("/{game_id}/record", responses=errors(404, 409),
            summary="The game record (kaladan-record, docs/formats.md), once the game is over",
            operation_id="getRecord")
async def record(game_id: GameId, request: Request, service: Service) -> Any:
    live = await service.get(game_id, client_address(request.scope))
    if not live.over:  # over and stored: every step of ``live.game`` is published
        raise ApiError(409, "game_not_over", "the record is published when the game is over")
    return to_record(live.game)


@router.get("/{game_id}/replay/{version}", response_model=ReplayView,
            responses=errors(404, 409),
            summary="A finished game after some decisions, as a spectator saw it",
            operation_id="getReplay")
async def replay(
    game_id: GameId, version: Annotated[int, Path(ge=0, le=MAX_WHOLE, description="the "
                                                  "decisions applied, 0 to the game's last")],
    request: Request, service: Service,
    since: Annotated[int | None, Query(ge=0, le=MAX_WHOLE, description="only the log "
                                       "entries made after this version; absent: from the "
                                       "start")] = None,
) -> Any:
    """The board, players and public log of a finished game at any version, for stepping
    through it (public information only). 409 while the game runs, 404 for a version
    beyond its end."""
    client = client_address(request.scope)
    live = await service.get(game_id, client)
    history = await service.history(live, client)
    if version > history.last:
        raise ApiError(404, "unknown_version", f"game {game_id} ends at version "
                       f"{history.last}", input=version)
    return replay_view(live, history, version, -1 if since is None else since)


@router.get("/{game_id}/rounds", response_model=Rounds, responses=errors(404, 409),
            summary="A finished game's scores, gold and units on the board, round by round",
            operation_id="getRounds")
async def rounds(game_id: GameId, request: Request, service: Service) -> Any:
    """Every seat's score (R22.1), gold and units on the board when each round's first
    decision was asked, and at the end; worked out by replaying the game. 409 while it
    runs."""
    client = client_address(request.scope)
    history = await service.history(await service.get(game_id, client), client)
    return {"rounds": [r.to_json() for r in history.rounds]}
