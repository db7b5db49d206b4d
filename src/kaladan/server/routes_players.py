"""Players: a player's profile (rating, history, games per realm) and the leaderboard
(docs/api.md "Players", docs/server.md "Ratings")."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, Field

from ..rules.config import MODES, Mode
from .deps import service_of
from .errors import ApiError
from .models import errors
from .rating_store import bot_table, leaderboard, profile
from .ratings import ALL, category
from .service import GameService

router = APIRouter(tags=["players"])
Service = Annotated[GameService, Depends(service_of)]


class Rating(BaseModel):
    mu: float = Field(description="OpenSkill's estimate of the player's skill")
    sigma: float = Field(description="its uncertainty")
    display: int = Field(description="round(100 * (mu - 3 * sigma)): the rating shown")


class CategoryRating(Rating):
    games: int
    wins: int


class Count(BaseModel):
    games: int
    wins: int


class HistoryPoint(Rating):
    game_id: str
    at: str = Field(description="ISO 8601, UTC: when the game was rated")
    place: int = Field(description="1 for first; tied players share a place")


class RecentGame(BaseModel):
    game_id: str
    name: str
    at: str = Field(description="ISO 8601, UTC")
    mode: str
    players: int
    place: int
    won: bool
    replay: str = Field(description="the game's replay page")


class Profile(BaseModel):
    name: str
    created: str = Field(description="ISO 8601, UTC: when the account was made")
    rating: Rating = Field(description="over every rated game (category all)")
    games: int = Field(description="rated games played")
    wins: int
    ratings: dict[str, CategoryRating] = Field(
        description="by category: all, free_for_all, free_for_all-<players>, team_2v2, "
                    "team_3v3")
    by_realm: dict[str, Count] = Field(description="rated games and wins by the seat's realm")
    by_players: dict[str, Count] = Field(description="rated games and wins by player count")
    history: list[HistoryPoint] = Field(description="the rating after each rated game, oldest "
                                        "first (the latest 200)")
    recent: list[RecentGame] = Field(description="the last rated games, newest first")


class Standing(CategoryRating):
    rank: int
    name: str


class BotRating(Rating):
    kind: str = Field(description="a bot kind (random, greedy, mcts): its fixed rating")


class Leaderboard(BaseModel):
    category: str
    min_games: int
    players: list[Standing] = Field(description="best display rating first")
    bots: list[BotRating] = Field(description="the bots' fixed ratings, for reference")


PlayerName = Annotated[str, Path(min_length=1, max_length=40, description="an account name")]


@router.get("/api/players/{name}", response_model=Profile, responses=errors(404),
            summary="A player's profile", operation_id="getPlayer")
async def get_player(name: PlayerName, service: Service) -> Any:
    """The player's rating, its history and their last rated games; 404 ``unknown_player``
    for no such (or a deleted) account."""
    found = await asyncio.to_thread(profile, service.store, name)
    if found is None:
        raise ApiError(404, "unknown_player", "no such player", input=name)
    return found


def leaderboard_category(mode: str | None, players: int | None) -> str:
    """The category asked for: every rated game without mode nor player count; a player
    count alone is free-for-all's; free-for-all without a count is every count's; a team
    mode has its one count (R5.1, R23.1), so ``players`` does not change it."""
    if mode is None:
        return ALL if players is None else category(Mode.FREE_FOR_ALL, players)
    return category(mode, players)


@router.get("/api/leaderboard", response_model=Leaderboard, responses=errors(),
            summary="The leaderboard", operation_id="getLeaderboard")
async def get_leaderboard(
    service: Service,
    mode: Annotated[str | None, Query(pattern=f"^({'|'.join(MODES)})$",
                                      description="one mode's ratings (none: every game)")]
    = None,
    players: Annotated[int | None, Query(ge=2, le=6, description="the player count of "
                                         "free-for-all (alone: free-for-all's; the team "
                                         "modes have one)")] = None,
    min_games: Annotated[int | None, Query(ge=0, le=100_000, description="rated games a "
                                           "listed player has at least (default: the "
                                           "server's)")] = None,
) -> Any:
    """Players of a category with at least ``min_games`` rated games, best first (100 at
    most), and the bots' fixed ratings."""
    cat = leaderboard_category(mode, players)
    least = service.settings.leaderboard_min_games if min_games is None else min_games
    rows = await asyncio.to_thread(leaderboard, service.store, cat, least)
    return {"category": cat, "min_games": least, "players": rows, "bots": bot_table()}
