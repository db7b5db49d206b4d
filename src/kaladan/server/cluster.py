"""Several server processes on one PostgreSQL database and one Redis server
(docs/server.md "Scaling out"; ``kaladan serve --broker-url``).

Any process serves any client. Each live game has one owner at a time, the holder of its
lease (leases.py): only the owner applies decisions and runs the game's bots, and each of
its writes is fenced by the lease's token in the database, so a process that lost the lease
(paused, cut off) stores nothing. The other processes that hold the game in memory keep a
copy that follows the stored steps: an event on the broker (broker.py) says a game moved
on, and the copy reads the new steps from the database and replays them, so each of its
clients gets its own seat's view from its own process, built exactly as on the owner.

A decision that reaches a process that does not own the game is forwarded to the owner
through the broker and answered as the owner answers; when the game has no live owner
(none yet, or the owner died and its lease expired) the process takes the lease, catches up
from storage and decides itself. Leases are renewed by every write and by a timer; a sweep
takes over the expired leases of unfinished games, so a dead owner's bots carry on within
about a lease's time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Coroutine
from typing import Any, Protocol

from .broker import Broker, BrokerUnavailable, process_name
from .chat import CHAT_EVENT, MUTE_EVENT, Chat
from .errors import ApiError
from .leases import Holder, NotOwner
from .live import LiveGame
from .settings import ServerSettings
from .storage import Store, StoredGame


class Host(Protocol):
    """What the cluster needs of the ``GameService`` it serves (which imports this module:
    the service depends on the cluster, not the other way round)."""

    games: OrderedDict[str, LiveGame]
    store: Store
    settings: ServerSettings
    chat: Chat

    async def get(self, game_id: str, client: str | None = None,
                  adopt: bool = True) -> LiveGame: ...

    async def act_here(self, live: LiveGame, seat: int, text: str | None, index: int | None,
                       version: int | None) -> LiveGame: ...

    async def reload_seats(self, live: LiveGame) -> None: ...

    async def take_back_here(self, live: LiveGame, seat: int) -> LiveGame: ...

    async def reload_clock(self, live: LiveGame) -> None: ...

    def rebuild_stored(self, row: StoredGame) -> LiveGame: ...

    def spawn(self, work: Coroutine[Any, Any, None]) -> None: ...

    def notify(self, live: LiveGame) -> None: ...

    def kick_bots(self, live: LiveGame) -> None: ...

    def forget(self, live: LiveGame) -> None: ...


log = logging.getLogger("kaladan.server")

MAX_STEPS = 500  # the most steps an event or a reply carries (else: read from storage)
MOVED = ("the game's server cannot be reached and its lease has not yet expired; nothing "
         "changed: try again in a few seconds")


class Cluster:
    def __init__(self, service: Host, broker_url: str) -> None:
        self.service = service
        self.store = service.store
        self.name = process_name()
        self.lease_seconds = service.settings.lease_seconds
        self.broker = Broker(broker_url, self.name, on_event=self._on_event,
                             on_request=self._on_request, on_connect=self._resync_all,
                             on_watch=self._on_watch)
        self.timer: asyncio.Task[None] | None = None
        self.stopping = False

    # --- life cycle -----------------------------------------------------------------------

    async def start(self) -> None:
        await self.broker.start()
        self.timer = asyncio.create_task(self._keep_leases(), name="kaladan-leases")

    async def stop(self) -> None:
        """Hand the games over: every lease of this process expires now, so the other
        processes' sweeps take them (and their bots) at once."""
        self.stopping = True
        if self.timer is not None:
            self.timer.cancel()
            await asyncio.gather(self.timer, return_exceptions=True)
        for live in self.service.games.values():
            live.lease = None
        try:
            await asyncio.to_thread(self.store.hand_over_leases, self.name)
        except Exception as exc:
            log.warning("cannot hand over the leases (they expire by themselves): %s", exc)
        await self.broker.stop()

    async def ready(self) -> bool:
        return self.broker.connected.is_set() and await self.broker.ping()

    # --- ownership ------------------------------------------------------------------------

    async def adopt(self, live: LiveGame) -> None:
        """A game this process holds and nobody owns (just loaded, or handed over to it by
        its owner): take its lease, so the process that first needs a game owns it
        (``_own`` catches the copy up first)."""
        if live.over or self.stopping:
            return
        try:
            token = await asyncio.to_thread(self.store.acquire_lease, live.game_id, self.name)
        except Exception as exc:
            log.warning("cannot take the lease of game %s: %s", live.game_id, exc)
            return
        if token is not None:
            await self._own(live, token)

    async def _own(self, live: LiveGame, token: int) -> None:
        """Become the owner with ``token``: first catch up with what is stored (the previous
        owner's last steps), then take decisions and run the bots."""
        async with live.lock:
            await self._catch_up(live)
            if live.clock is not None:  # a seat taken back stores a clock without steps
                await self.service.reload_clock(live)
            live.lease = token
        log.info("game %s: this process owns it (token %d)", live.game_id, token)
        self.service.kick_bots(live)

    def demote(self, live: LiveGame) -> None:
        """This process no longer owns ``live``: its bots stop, its copy follows storage."""
        if live.lease is None:
            return
        live.lease = None
        log.warning("game %s: this process no longer owns it", live.game_id)
        task = live.bot_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    def fence(self, live: LiveGame) -> tuple[str, int] | None:
        return None if live.lease is None else (self.name, live.lease)

    async def released(self, game_ids: list[str]) -> None:
        """Games that left memory or ended: their leases go, the next process to need them
        takes them."""
        try:
            await asyncio.to_thread(self.store.release_leases, game_ids, self.name)
        except Exception as exc:
            log.warning("cannot release leases of %s (they expire by themselves): %s",
                        ", ".join(game_ids), exc)

    async def _keep_leases(self) -> None:
        """Renew this process's leases a few times per lease, let go of the games it lost,
        and take over unfinished games whose owner stopped renewing."""
        pause = self.lease_seconds / 3
        while True:
            await asyncio.sleep(pause)
            # only games owned before the renewal began: one taken meanwhile is not in
            # its answer, and is not lost
            owned = [(live, live.lease) for live in self.service.games.values()
                     if live.lease is not None]
            try:
                renewed = await asyncio.to_thread(self.store.renew_leases, self.name)
            except Exception as exc:
                log.warning("cannot renew the leases: %s", exc)
                continue
            for live, token in owned:
                if live.lease == token and live.game_id not in renewed:
                    self.demote(live)
            try:
                await self._sweep()
            except Exception as exc:
                log.warning("cannot take over expired games: %s", exc)

    async def _sweep(self) -> None:
        for game_id in await asyncio.to_thread(self.store.expired_leases):
            if self.stopping:
                return
            token = await asyncio.to_thread(self.store.acquire_lease, game_id, self.name)
            if token is None:
                continue  # another process was quicker
            log.warning("game %s: its owner stopped renewing its lease; taken over",
                        game_id)
            live = self.service.games.get(game_id)
            if live is None:
                try:
                    live = await self.service.get(game_id, adopt=False)
                except ApiError as exc:
                    log.error("cannot take over game %s: %s", game_id, exc.message)
                    await self.released([game_id])
                    continue
            await self._own(live, token)

    # --- decisions ------------------------------------------------------------------------

    async def act(self, live: LiveGame, seat: int, text: str | None, index: int | None,
                  version: int | None, op: str = "act") -> LiveGame:
        """A decision on a game this process does not own: forwarded to its owner, or taken
        here when the game has no live owner. ``op`` "takeback": a seat taken back from
        the timeout bot (``GameService.take_back``) instead."""
        deadline = time.monotonic() + 2 * self.lease_seconds + 2
        while True:
            if live.lease is not None:
                if op == "takeback":
                    return await self.service.take_back_here(live, seat)
                return await self.service.act_here(live, seat, text, index, version)
            holder = await self._holder(live.game_id)
            if holder is None or not holder.alive or holder.owner == self.name:
                if holder is not None and holder.owner == self.name and holder.alive:
                    token: int | None = holder.token
                else:
                    token = await asyncio.to_thread(self.store.acquire_lease, live.game_id,
                                                    self.name)
                if token is not None:
                    await self._own(live, token)
                continue
            request = {"op": op, "g": live.game_id, "seat": seat, "text": text,
                       "index": index, "version": version, "have": live.version,
                       "watching": bool(live.listeners)}
            try:
                reply = await self.broker.forward(holder.owner, request,
                                                  self.service.settings.db_timeout + 5)
            except BrokerUnavailable as exc:
                raise ApiError(503, "storage_unavailable", "the game's server cannot be "
                               "reached now; nothing changed: try again") from exc
            except TimeoutError as exc:
                self.service.spawn(self.follow(live))
                raise ApiError(503, "storage_unavailable", "the game's server did not "
                               "answer in time and may have stored the decision: look at "
                               "the game again, then decide") from exc
            if reply is None or reply.get("moved"):
                if time.monotonic() > deadline:
                    raise ApiError(503, "storage_unavailable", MOVED)
                await asyncio.sleep(0.1)
                continue
            error = reply.get("error")
            if isinstance(error, dict):
                await self.follow(live)
                raise ApiError(int(error.get("status", 503)), str(error.get("code")),
                               str(error.get("message")), error.get("rule"),
                               error.get("input"))
            if not await self._take_steps(live, reply):
                await self.follow(live, int(reply.get("version", 0)))
            if reply.get("handover"):  # the owner let the game go: it is played here
                await self.adopt(live)
            return live

    async def _holder(self, game_id: str) -> Holder | None:
        try:
            return await asyncio.to_thread(self.store.lease_holder, game_id)
        except Exception as exc:
            raise ApiError(503, "storage_unavailable", "the game cannot be read now; "
                           "nothing changed: try again") from exc

    async def _on_request(self, body: dict[str, Any]) -> dict[str, Any]:
        """A decision forwarded by another process: applied if this process owns the game,
        else ``moved`` (the sender looks for the owner again)."""
        live = self.service.games.get(str(body.get("g")))
        op = body.get("op")
        if op not in ("act", "takeback") or live is None or live.lease is None \
                or self.stopping:
            return {"moved": True}
        try:
            if op == "takeback":
                live = await self.service.take_back_here(live, int(body["seat"]))
            else:
                live = await self.service.act_here(live, int(body["seat"]), body.get("text"),
                                                   body.get("index"), body.get("version"))
        except ApiError as exc:
            return dict(exc.body())
        except NotOwner:
            return {"moved": True}
        except Exception:
            log.exception("forwarded decision in game %s failed", live.game_id)
            return dict(ApiError(503, "storage_unavailable", "the decision failed; look at "
                                 "the game again, then decide").body())
        reply: dict[str, Any] = {"version": live.version}
        have = body.get("have")
        if isinstance(have, int) and 0 <= have <= live.version <= have + MAX_STEPS:
            # the sender's copy catches up from the reply, without reading the database
            reply["f"], reply["s"] = have, self._stored_steps(live, have)
        if body.get("watching") and not live.listeners:
            reply["handover"] = await self._hand_over(live)
        return reply

    async def _hand_over(self, live: LiveGame) -> bool:
        """The game's players are connected to another process and none to this one: let
        the game go (its lease, its copy), so that the process they are on takes it at
        this reply and decides without forwarding from then on. A game played over HTTP
        alone never moves (nobody watches it anywhere), so it does not bounce."""
        async with live.lock:
            if live.lease is None or live.listeners or self.stopping:
                return False
            live.lease = None
            task = live.bot_task
            if task is not None and not task.done():
                task.cancel()
        try:
            await asyncio.to_thread(self.store.release_leases, [live.game_id], self.name)
        except Exception as exc:  # it expires by itself; the other process waits that long
            log.warning("cannot hand game %s over: %s", live.game_id, exc)
            return False
        self.service.forget(live)
        log.info("game %s handed over to the process its players are on", live.game_id)
        return True

    @staticmethod
    def _stored_steps(live: LiveGame, first: int) -> list[list[Any]]:
        """The published (stored) steps from index ``first`` on, as events carry them."""
        return [[s.seat, s.action, list(s.chance)]
                for s in live.game.steps[first:live.version]]

    async def _take_steps(self, live: LiveGame, data: dict[str, Any]) -> bool:
        """Replay the steps an event or a reply carries (``f``, ``s``) if the copy is at
        their first index; whether it did."""
        steps, first = data.get("s"), data.get("f")
        if not isinstance(steps, list) or not isinstance(first, int):
            return False
        async with live.lock:
            if live.lease is not None or live.version != first:
                return live.version >= first + len(steps)  # already there
            moved = self._replay(live, [(int(a), str(b), [int(x) for x in c])
                                        for a, b, c in steps])
        if moved:
            self.service.notify(live)
        return moved

    # --- following the owner --------------------------------------------------------------

    def changed(self, live: LiveGame, kind: str = "steps", first: int | None = None) -> None:
        """Tell the other processes that ``live`` changed (after it is stored): its seats,
        or its steps from index ``first`` on, which go with the event."""
        steps = None
        if first is not None and live.version - first <= MAX_STEPS:
            steps = self._stored_steps(live, first)
        self.service.spawn(self.broker.publish(live.game_id, live.version, kind, first,
                                               steps))

    def send(self, live: LiveGame, kind: str, body: dict[str, Any]) -> None:
        """Tell the processes holding ``live`` what is not a change of the game: a chat
        message or a mute (chat.py), as the event's body."""
        self.service.spawn(self.broker.publish(live.game_id, live.version, kind, body=body))

    async def _on_event(self, data: dict[str, Any]) -> None:
        live = self.service.games.get(str(data.get("g")))
        if live is None:
            return
        kind, body = data.get("k"), data.get("b")
        if kind in (CHAT_EVENT, MUTE_EVENT) and isinstance(body, dict):
            self.service.chat.heard(live, str(kind), body)
            return
        version = data.get("v")
        if data.get("k") == "seats":
            await self.service.reload_seats(live)
            return
        if data.get("k") == "clock":  # a seat taken back (no steps)
            if live.lease is None:
                await self.service.reload_clock(live)
            return
        if isinstance(version, int) and version <= live.version:
            return  # already known (a late event)
        if live.lease is not None:  # another process stored steps: this one lost the game
            self.demote(live)
        if not await self._take_steps(live, data):
            await self.follow(live)
        elif live.clock is not None:  # the steps came with the event, the clock did not
            await self.service.reload_clock(live)

    def watch(self, live: LiveGame) -> None:
        """A game entered this process's memory: hear its events."""
        self.broker.watch(live.game_id)

    def unwatch(self, game_id: str) -> None:
        self.broker.unwatch(game_id)

    async def _on_watch(self, game_id: str) -> None:
        """Events of ``game_id`` reach this process from now on: a copy reads what was
        committed before (between its load and the subscription)."""
        live = self.service.games.get(game_id)
        if live is not None and live.lease is None:
            await self.follow(live)
            if live.clock is not None:  # a clock stored without steps (started, taken back)
                await self.service.reload_clock(live)
        await self.service.chat.catch_up(game_id)  # messages no event brought

    async def _resync_all(self) -> None:
        """The broker was reached (again): events may have been missed meanwhile."""
        for live in list(self.service.games.values()):
            if live.lease is None:
                await self.follow(live)
                await self.service.reload_seats(live)
                if live.clock is not None:
                    await self.service.reload_clock(live)
            await self.service.chat.catch_up(live.game_id)

    async def follow(self, live: LiveGame, version: int = 0) -> None:
        """Bring a copy up to what is stored (at least ``version``) and tell its clients."""
        async with live.lock:
            if live.lease is not None and version <= live.version:
                return
            moved = await self._catch_up(live)
        if moved:
            self.service.notify(live)

    async def _catch_up(self, live: LiveGame) -> bool:
        """Game lock held: replay the stored steps after the copy's version (or rebuild the
        game when they do not follow from it). Whether anything changed."""
        try:
            new = await asyncio.to_thread(self.store.steps_after, live.game_id, live.version)
        except Exception as exc:
            log.warning("cannot read game %s's new steps: %s", live.game_id, exc)
            return False
        if not new:
            return False
        moved = self._replay(live, new) or await self._reload(live)
        if moved and live.clock is not None:
            await self.service.reload_clock(live)
        return moved

    @staticmethod
    def _replay(live: LiveGame, new: list[tuple[int, str, list[int]]]) -> bool:
        """Game lock held: play stored steps onto the copy and publish them; False (the copy
        unchanged) when they do not follow from it (the caller reloads the game)."""
        game = live.game
        try:
            for seat, text, chance in new:
                game.play(text, seat)
                if list(game.steps[-1].chance) != chance:
                    raise ValueError(f"chance {list(game.steps[-1].chance)} differs from the "
                                     f"stored {chance}")
        except Exception as exc:
            log.warning("game %s: stored steps do not follow this copy (%r): reloading",
                        live.game_id, exc)
            live.roll_back()
            return False
        live.publish()
        live.forget_views()
        return True

    async def _reload(self, live: LiveGame) -> bool:
        try:
            row: StoredGame | None = await asyncio.to_thread(self.store.load, live.game_id)
            if row is None:
                return False
            fresh = await asyncio.to_thread(self.service.rebuild_stored, row)
        except Exception as exc:
            log.error("cannot reload game %s: %s", live.game_id, exc)
            return False
        live.take(fresh)
        return True

