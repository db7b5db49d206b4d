"""The analyses of finished games (``GET /api/games/{id}/analysis``, ``kaladan.analysis``).

An analysis is seconds of CPU (the value network at every decision, an expert search at each
seat's costliest ones), so it runs in the search pool's worker processes (``botpool``), in
the requesting client's line, never on the event loop. A finished game never changes, so the
answer of the last ``ANALYSES_KEPT`` games asked for is kept, and requests for a game whose
analysis is under way wait for that one. While a game runs there is none: its record holds
every hand and die (hidden information), and the analysis reads all of it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..analysis import DEFAULT_ITERATIONS
from ..expert.value import ValueNetError
from ..record import to_record
from .analysis_view import analysis_json
from .errors import ApiError
from .live import LiveGame

if TYPE_CHECKING:
    from .service import GameService

ANALYSES_KEPT = 64  # games whose analysis stays in memory (a few kB of JSON each)


class Analyses:
    """Analyses computed in ``service``'s search pool with ``iterations`` of search per costly
    decision, kept per game."""

    def __init__(self, service: GameService, iterations: int = DEFAULT_ITERATIONS,
                 kept: int = ANALYSES_KEPT) -> None:
        self.service = service
        self.iterations = iterations
        self.kept = kept
        self.items: OrderedDict[str, str] = OrderedDict()  # game id -> the analysis's JSON
        self.running: dict[str, asyncio.Task[str]] = {}

    async def text(self, live: LiveGame, client: str) -> str:
        """The JSON text of ``live``'s analysis: 409 ``game_not_over`` while it runs, 422
        ``no_network`` when no value network judges its configuration, 429 when the client
        starts more than ``load_rate`` a second (an analysis replays a game)."""
        if not live.over:  # over and stored: the record is public (routes_play.record)
            raise ApiError(409, "game_not_over", "a game is analysed once it is over: while "
                           "it runs, its record holds what the players may not see")
        game_id = live.game_id
        known = self.items.get(game_id)
        if known is not None:
            self.items.move_to_end(game_id)
            return known
        task = self.running.get(game_id)
        if task is None:
            service = self.service
            if not await service.loads.admit(client):
                raise ApiError(429, "rate_limited", "games are analysed at most "
                               f"{service.settings.load_rate:g} a second per address; "
                               "try again")
            task = asyncio.create_task(self._compute(live, client))
            self.running[game_id] = task
            task.add_done_callback(self._done(game_id))
        # shielded: a client that goes away does not stop what others wait for or will ask
        return await asyncio.shield(task)

    def _done(self, game_id: str) -> Callable[[asyncio.Task[str]], None]:
        def done(task: asyncio.Task[str]) -> None:
            self.running.pop(game_id, None)
            if not task.cancelled():
                task.exception()  # seen: every waiter may have gone (shield)
        return done

    async def _compute(self, live: LiveGame, client: str) -> str:
        record = to_record(live.game)
        try:
            text = await self.service.searches.run(client, analysis_json, record,
                                                   self.iterations)
        except ValueNetError as exc:
            raise ApiError(422, "no_network", f"this game cannot be analysed: {exc}") from exc
        self.items[live.game_id] = text
        while len(self.items) > self.kept:
            self.items.popitem(last=False)
        return text
