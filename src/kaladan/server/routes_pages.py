"""The browser UI: one page for the lobby, a seat, a spectator, a replay, "How to play" and the
tutorial (it reads the path)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

STATIC = Path(__file__).with_name("static")

PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Kaladan</title></head>
<body><h1>Generals of Kaladan</h1>
<p>The browser UI is not installed; the API is at <a href="/docs">/docs</a>.</p>
</body></html>
"""

router = APIRouter(include_in_schema=False)


def index() -> Response:
    page = STATIC / "index.html"
    if page.is_file():
        return FileResponse(page, media_type="text/html")
    return HTMLResponse(PLACEHOLDER)


@router.get("/")
async def lobby_page() -> Response:
    return index()


@router.get("/play/{game_id}/{seat}")
async def seat_page(game_id: str, seat: str) -> Response:
    return index()


@router.get("/watch/{game_id}")
async def watch_page(game_id: str) -> Response:
    return index()


@router.get("/replay/{game_id}")
async def replay_page(game_id: str) -> Response:
    return index()


@router.get("/signin")
@router.get("/signup")
@router.get("/account")
@router.get("/account/confirm")
@router.get("/account/reset")
async def account_page() -> Response:
    return index()


@router.get("/how-to-play")
async def how_to_play_page() -> Response:
    return index()


@router.get("/tutorial")
async def tutorial_page() -> Response:
    return index()


@router.get("/players/{name}")
async def player_page(name: str) -> Response:
    return index()


@router.get("/leaderboard")
async def leaderboard_page() -> Response:
    return index()
