"""Quick match, a player's games and turn mails over HTTP (docs/api.md "Quick match and my
games"); the pages /me/games and /unsubscribe."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from ..bots.levels import default_level
from .accounts import Account
from .matchmaking import Matchmaker
from .models import SeatKind, Strict, TimeControlBody, errors
from .notify import Notifier
from .openapi import CSRF_SCHEME, SESSION_SCHEME
from .routes_pages import index
from .sessions import require_account

router = APIRouter(prefix="/api", tags=["match"])
pages = APIRouter(include_in_schema=False)
SignedIn = Annotated[Account, Depends(require_account)]
SESSION_WRITE: dict[str, Any] = {"security": [{SESSION_SCHEME: [], CSRF_SCHEME: []}]}


def matchmaker_of(request: Request) -> Matchmaker:
    matchmaker: Matchmaker = request.app.state.matchmaker
    return matchmaker


def notifier_of(request: Request) -> Notifier:
    notifier: Notifier = request.app.state.notifier
    return notifier


MatchmakerDep = Annotated[Matchmaker, Depends(matchmaker_of)]
NotifierDep = Annotated[Notifier, Depends(notifier_of)]


class MatchRequest(Strict):
    """A place in the quick-match queue of (mode, players, time control)."""

    mode: Literal["free_for_all", "team_2v2", "team_3v3"] = "free_for_all"
    players: int = Field(2, strict=True, ge=2, le=6, description="seats of the game")
    time_control: TimeControlBody | None = Field(
        None, description="the game's time control, as the lobby's create takes it; players "
        "wait with those who chose the same one")
    wait: int = Field(60, strict=True, ge=10, le=600, description="seconds to wait for other "
                      "players before bots of ``bots`` fill the empty seats")
    bots: SeatKind = Field(default_level().name, description="the level or bot code of the "
                           "seats nobody took (as in createGame's seats; default the middle "
                           "level)")


class MatchStatus(BaseModel):
    status: Literal["none", "waiting", "matched"]
    mode: str | None = None
    players: int | None = None
    time_control: dict[str, Any] | None = None
    bots: str | None = None
    wait: int | None = None
    joined: str | None = Field(None, description="when the player joined the queue")
    position: int | None = Field(None, description="waiting: 1 for the earliest")
    count: int | None = Field(None, description="waiting: players in this queue")
    game_id: str | None = Field(None, description="matched: the game")
    seat: int | None = Field(None, description="matched: the player's seat (played with "
                             "the session, no token needed)")
    url: str | None = Field(None, description="matched: /play/<game>/<seat>")


class MyGame(BaseModel):
    game_id: str
    name: str
    seat: int = Field(description="the player's seat")
    mode: str
    status: Literal["open", "running", "over"]
    to_move: int | None = Field(description="the seat to decide (None: over or not known)")
    your_turn: bool
    since: str = Field(description="when the current turn began (or the game was made)")
    players: list[str | None] = Field(description="per seat the player's name or the bot")
    url: str


class MyGames(BaseModel):
    games: list[MyGame]


class Unsubscribed(BaseModel):
    notify_email: Literal[False]


@router.post("/match", response_model=MatchStatus, responses=errors(401, 403, 409, 422),
             summary="Join the quick-match queue", operation_id="joinMatch",
             openapi_extra=SESSION_WRITE)
async def join_match(body: MatchRequest, account: SignedIn,
                     matchmaker: MatchmakerDep) -> Any:
    """Wait for a game of ``mode`` with ``players`` seats (any earlier place of the player's
    is given up). The game starts as soon as the queue holds enough players, or when the
    earliest player's ``wait`` has passed, with that player's ``bots`` in the empty seats.
    Then GET /api/match says ``matched`` with the seat, already the player's."""
    control = (None if body.time_control is None
               else body.time_control.model_dump(exclude_none=True))
    return await matchmaker.enqueue(account, body.mode, body.players, control,
                                    body.wait, body.bots)


@router.get("/match", response_model=MatchStatus, responses=errors(401),
            summary="The player's place in the queue", operation_id="getMatch")
async def get_match(account: SignedIn, matchmaker: MatchmakerDep) -> Any:
    """The signed-in player's (session cookie; 401 ``not_signed_in`` without)."""
    return await matchmaker.status(account)


@router.delete("/match", response_model=MatchStatus, responses=errors(401, 403),
               summary="Leave the quick-match queue", operation_id="leaveMatch",
               openapi_extra=SESSION_WRITE)
async def leave_match(account: SignedIn, matchmaker: MatchmakerDep) -> Any:
    """A game already made stays the player's (the answer says ``matched``)."""
    return await matchmaker.leave(account)


@router.get("/me/games", response_model=MyGames, responses=errors(401),
            summary="The signed-in player's games", operation_id="myGames")
async def my_games(account: SignedIn, notifier: NotifierDep) -> Any:
    """The signed-in player's (session cookie; 401 ``not_signed_in`` without): theirs to
    decide first (waiting longest first), then the others running or open
    (newest first), then the finished ones (newest first); at most 100."""
    return {"games": await notifier.my_games(account.id)}


@router.post("/unsubscribe", response_model=Unsubscribed, responses=errors(403, 404),
             summary="Turn off turn mails (one-click link)", operation_id="unsubscribe")
async def unsubscribe(token: Annotated[str, Query(min_length=1, max_length=200)],
                      notifier: NotifierDep) -> Any:
    """The link of every turn mail (RFC 8058 one-click: a mail program posts
    ``List-Unsubscribe=One-Click`` here): turns ``notify_email`` off for its account without
    signing in. 404 ``unknown_link`` for a token no mail carried."""
    await notifier.unsubscribe(token)
    return {"notify_email": False}


@pages.get("/me/games")
@pages.get("/unsubscribe")
async def match_pages() -> Response:
    return index()
