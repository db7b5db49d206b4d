"""The FastAPI application of ``kaladan serve``."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .. import __version__, i18n
from . import (
    routes_accounts,
    routes_analysis,
    routes_docs,
    routes_health,
    routes_lobby,
    routes_match,
    routes_pages,
    routes_play,
    routes_players,
    routes_social,
    routes_ws,
)
from .accounts import Accounts
from .analyses import Analyses
from .errors import install_handlers
from .limits import LimitsMiddleware
from .logs import RequestLogMiddleware
from .matchmaking import Matchmaker
from .nostore import NoStoreMiddleware
from .notify import Notifier
from .openapi import install_openapi
from .routes_pages import STATIC
from .security import SecurityMiddleware, StrictJsonMiddleware
from .service import GameService
from .sessions import SessionMiddleware
from .settings import ServerSettings
from .storage import Store, default_database_url

if TYPE_CHECKING:
    from .shared_limits import SharedLimits

DESCRIPTION = """Play *Generals of Kaladan: Age of Crowns* over HTTP and WebSocket.

Create a game in the lobby, join a human seat with its one-time code to get the seat's token,
then read views and post decisions. Every view is built from that seat's observation: other
seats' hands and pools, the deck order, seeds and tokens are never sent. Errors always have
the shape `{"error": {"status", "code", "message", "rule", "input"}}`. The WebSocket
`/ws/games/{game_id}?token=...` pushes a view after every change; see docs/api.md.
"""


def create_app(database_url: str | None = None, settings: ServerSettings | None = None, *,
               bot_delay: float | None = None, rate_limit: float | None = None,
               max_body: int | None = None) -> FastAPI:
    """The app on the given database (default: a SQLite file in the user's data
    directory) with ``settings`` (docs/server.md). The schema is migrated on startup; games
    are loaded when first asked for. ``bot_delay``, ``rate_limit`` (requests and WebSocket
    messages a second) and ``max_body`` override the settings."""
    settings = settings or ServerSettings()
    changes: dict[str, float | int] = {}
    if bot_delay is not None:
        changes["bot_delay"] = bot_delay
    if rate_limit is not None:
        changes["rate"] = changes["ws_rate"] = rate_limit
    if max_body is not None:
        changes["max_body"] = max_body
    settings = replace(settings, **changes)  # type: ignore[arg-type]
    store = Store(database_url or default_database_url(), settings.db_timeout,
                  settings.lease_seconds)
    service = GameService(store, settings)
    mailer = None
    if settings.smtp_url is not None:
        from .mail import Mailer
        mailer = Mailer(settings.smtp_url)
    accounts = Accounts(store, sign_in_rate=settings.sign_in_rate,
                        name_rate=2 * settings.sign_in_rate,
                        sign_up_rate=settings.sign_up_rate, mailer=mailer,
                        base_url=settings.public_url)
    shared: SharedLimits | None = None  # per-address limits over all processes (Redis)
    if settings.broker_url is not None:
        from . import shared_limits  # the cluster extra (redis): only with a broker
        from .broker import process_name
        shared = shared_limits.SharedLimits(settings.broker_url, process_name(),
                                            settings.lease_seconds)
        service.share_limits(shared)
        accounts.share_limits(shared)
    matchmaker = Matchmaker(service)
    notifier = Notifier(service, mailer, settings.public_url)
    service.on_turn = notifier.turn

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        collector = gc.get_threshold()  # the process's own, given back when the app stops
        if settings.gc_threshold:
            gc.set_threshold(settings.gc_threshold, *collector[1:])
        try:
            await service.start()
            if shared is not None:
                await shared.start()
            matchmaker.start()
            notifier.start()
            try:
                yield
            finally:
                try:
                    await matchmaker.stop()
                    await notifier.stop()
                    await service.stop()
                finally:
                    if shared is not None:
                        await shared.close()
        finally:
            gc.set_threshold(*collector)

    app = FastAPI(title="Kaladan", version=__version__, description=DESCRIPTION,
                  lifespan=lifespan, docs_url=None, redoc_url=None)  # routes_docs: no CDN
    app.state.service = service
    app.state.accounts = accounts
    app.state.mailer = mailer
    app.state.settings = settings
    app.state.shared_limits = shared
    app.state.matchmaker = matchmaker
    app.state.notifier = notifier
    app.state.analyses = Analyses(service)  # finished games' analyses, kept (analyses.py)
    install_handlers(app)
    app.add_middleware(StrictJsonMiddleware)  # inside the limits: reads capped bodies
    app.add_middleware(SessionMiddleware, accounts=accounts)  # the signed-in player, CSRF
    app.add_middleware(LimitsMiddleware, settings=settings, shared=shared)
    app.add_middleware(SecurityMiddleware, settings=settings,  # every response
                       shared=shared)
    app.add_middleware(NoStoreMiddleware)  # around the refusals too: no answer is cached
    app.add_middleware(RequestLogMiddleware)  # outermost: the game id, the access line
    app.include_router(routes_lobby.router)
    app.include_router(routes_accounts.router)
    if mailer is not None:
        app.include_router(routes_accounts.mail_router)
    app.include_router(routes_match.router)
    app.include_router(routes_match.pages)
    app.include_router(routes_play.router)
    app.include_router(routes_analysis.router)
    app.include_router(routes_social.router)
    app.include_router(routes_ws.router)
    app.include_router(routes_players.router)
    app.include_router(routes_pages.router)
    app.include_router(routes_docs.router)
    app.include_router(routes_health.router)
    # The UI's words are the catalogue the terminal game reads too (kaladan.i18n).
    app.mount("/static/i18n", StaticFiles(directory=i18n.CATALOGUE), name="i18n")
    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")
    install_openapi(app, settings)  # the schema as strict as the server (openapi.py)
    return app
