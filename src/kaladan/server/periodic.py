"""A piece of work a server process repeats in the background every few seconds (the quick
match's queues, the turn mails): started with the app, stopped with it, and never ended by a
failure of one round (the database may be down for a moment; the next round tries again)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("kaladan.server")


class Periodic:
    """Run ``work`` every ``interval`` seconds (given to ``start``) until ``stop``; a round
    that raises is logged as "``what``: the error" and the next one comes as usual."""

    def __init__(self, name: str, what: str, work: Callable[[], Awaitable[object]]) -> None:
        self.name = name  # the asyncio task's name
        self.what = what
        self.work = work
        self.interval = 1.0
        self.task: asyncio.Task[None] | None = None

    def start(self, interval: float) -> None:
        self.interval = interval
        self.task = asyncio.create_task(self.run(), name=self.name)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
            self.task = None

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.work()
            except Exception as exc:
                log.warning("%s: %s", self.what, exc)
