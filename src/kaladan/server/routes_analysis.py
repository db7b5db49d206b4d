"""The analysis of a finished game over HTTP (docs/api.md "Analysis", ``analyses``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import Response

from .analyses import Analyses
from .analysis_models import Analysis
from .deps import service_of
from .limits import client_address
from .models import errors
from .service import GameService

router = APIRouter(prefix="/api/games", tags=["play"])
Service = Annotated[GameService, Depends(service_of)]
GameId = Annotated[str, Path(max_length=200)]


@router.get("/{game_id}/analysis", response_model=Analysis, responses=errors(404, 409, 422),
            summary="A finished game's win-probability curve and each seat's costliest "
            "decisions with the expert bot's choice there",
            operation_id="getAnalysis")
async def analysis(game_id: GameId, request: Request, service: Service) -> Any:
    """Every seat's chance to win before each decision by the value network (the exact
    result after the last), and for each seat the three decisions that lowered its chance
    most, each with the expert bot's choice from that seat's view and what it keeps
    (docs/analysis.md). Seconds of work the first time, then kept. 409 ``game_not_over``
    while the game runs (the analysis reads every hand: hidden information), 422
    ``no_network`` when no value network of this server judges the game's configuration."""
    client = client_address(request.scope)
    live = await service.get(game_id, client)
    analyses: Analyses = request.app.state.analyses
    return Response(await analyses.text(live, client), media_type="application/json")
