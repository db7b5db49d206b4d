"""Searching bots think in worker processes, apart from request handling.

A search (``mcts``, ``expert``, the levels playing them; advice, ``hints``) holds a CPU for
seconds; on a thread it would share the interpreter lock with the event loop and every quick
bot. Here it runs in a process of its own that gets only
the CPU nothing else wants (``bots.worker.lower_priority``: SCHED_IDLE), with a hard cap on
its thinking time whatever its parameters (``ServerSettings.bot_seconds``), and each client
may have only a few searches running at once (``bot_jobs_per_client``), waiting in line in
the order they asked. A game asks for one decision at a time, so games take turns in the
pool. With several server processes (``shared``, ``shared_limits``) the per-client count is
over all of them: a search that finds the client's slots taken elsewhere waits, asking
again every ``SHARED_POLL`` seconds (across processes the line is not first come, first
served). A finished game's analysis (``analyses``) is such a job too, in the same line.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, TypeVar

from ..bots.worker import lower_priority, think
from ..rules.actions import Action
from ..rules.state import GameState

if TYPE_CHECKING:  # the cluster extra (redis), imported only when a broker is set
    from .shared_limits import SharedLimits

T = TypeVar("T")
SHARED_POLL = 0.2  # seconds between two asks for a slot held by other processes


class BotPool:
    """The worker processes and the per-client line for them (asyncio side)."""

    def __init__(self, workers: int, per_client: int, cap: float,
                 shared: SharedLimits | None = None) -> None:
        self.workers = workers
        self.per_client = per_client
        self.cap = cap
        self.shared = shared  # None: ``per_client`` counts this process's searches only
        self._executor: ProcessPoolExecutor | None = None
        self._slots: dict[str, asyncio.Semaphore] = {}
        self.running = 0  # searches in the worker processes now

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:  # started on first use: most games have no search bot
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=lower_priority)
        return self._executor

    async def choose(self, client: str, spec: str, state: GameState, seat: int,
                     seed: int, cap: float | None = None, gifts: bool = True) -> Action:
        """The bot's decision for ``seat``, computed in a worker when the client's turn in
        line comes (the caller checks it is still legal when it applies it); ``cap``: a
        shorter limit on its seconds than the pool's, ``gifts``: whether it may give gold
        (``worker.think``)."""
        limit = self.cap if cap is None else min(cap, self.cap)
        action: Action = await self.run(client, think, spec, pickle.dumps(state), seat, seed,
                                        limit, gifts)
        return action

    async def run(self, client: str, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a worker when the client's turn in line comes: any CPU-bound
        job of a client (a bot's search, a game's analysis) waits in the same line. ``work``
        and its arguments go to another process: module-level and picklable."""
        slot = self._slots.get(client)
        if slot is None:
            slot = self._slots[client] = asyncio.Semaphore(self.per_client)
        async with slot:
            if self.shared is not None:
                while not await self.shared.acquire("bot_jobs", client, self.per_client):
                    await asyncio.sleep(SHARED_POLL)
            try:
                result = await self._in_worker(work, args)
            finally:
                if self.shared is not None:
                    await self.shared.release("bot_jobs", client)
        if not slot.locked() and len(self._slots) > 1000:
            self._slots = {k: v for k, v in self._slots.items() if v.locked()}
        return result

    async def _in_worker(self, work: Callable[..., T], args: tuple[Any, ...]) -> T:
        loop = asyncio.get_running_loop()
        self.running += 1
        try:
            return await loop.run_in_executor(self._pool(), work, *args)
        except BrokenProcessPool:
            self._executor = None  # a worker died (killed, out of memory): start afresh
            raise
        finally:
            self.running -= 1

    def pids(self) -> list[int]:
        """The worker processes' ids (for operators' tools and tests)."""
        executor = self._executor
        processes = getattr(executor, "_processes", None) or {}
        return sorted(p.pid for p in processes.values() if p.pid is not None)

    def shutdown(self) -> None:
        """Stop the workers now: a search in progress is of no use to a stopping server.
        (``ProcessPoolExecutor`` only lets running tasks finish; Python 3.14's
        ``terminate_workers`` does this, here its process table is used directly.)"""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()

