"""The FastAPI application of ``kaladan serve``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .. import __version__
from . import routes_lobby, routes_pages, routes_play, routes_ws
from .errors import install_handlers
from .limits import MAX_BODY, RATE, LimitsMiddleware
from .routes_pages import STATIC
from .service import GameService
from .storage import Store, default_database_url

BOT_DELAY = 0.8  # seconds between two bot decisions, so people can follow

DESCRIPTION = """Play *Generals of Kaladan: Age of Crowns* over HTTP and WebSocket.

Create a game in the lobby, join a human seat with its one-time code to get the seat's token,
then read views and post decisions. Every view is built from that seat's observation: other
seats' hands and pools, the deck order, seeds and tokens are never sent. Errors always have
the shape `{"error": {"status", "code", "message", "rule", "input"}}`. The WebSocket
`/ws/games/{game_id}?token=...` pushes a view after every change; see docs/api.md.
"""


def create_app(database_url: str | None = None, bot_delay: float = BOT_DELAY, *,
               rate_limit: float = RATE, max_body: int = MAX_BODY) -> FastAPI:
    """The app on the given database (default: a SQLite file in the user's data
    directory). The schema is migrated and unfinished games are resumed on startup."""
    store = Store(database_url or default_database_url())
    service = GameService(store, bot_delay)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(title="Kaladan", version=__version__, description=DESCRIPTION,
                  lifespan=lifespan)
    app.state.service = service
    app.state.rate_limit = rate_limit
    install_handlers(app)
    app.add_middleware(LimitsMiddleware, max_body=max_body, rate=rate_limit)
    app.include_router(routes_lobby.router)
    app.include_router(routes_play.router)
    app.include_router(routes_ws.router)
    app.include_router(routes_pages.router)
    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")
    return app
