"""Rematch (docs/server.md "Rematch"): the same players and settings again, seats rotated.

Once a game is over any human seat may offer a rematch; the others accept by the same
call. The new game starts when every human seat of the finished game has accepted: the same
configuration (mode, options, world, time control), advice and rated flag, a seed the
server draws, and the seats rotated, seat i's player (or bot) to seat i+1 (mod n), each
signed-in player's seat to the same account.

Stored in ``rematches`` (``social_store``), one row per finished game: the new game's id,
drawn at the offer, and the accepted seats, changed by compare-and-set on their text, so
that accepts on several processes at once all count. Whoever sees the last acceptance
stores the new game under the drawn id; should two try at once (or one that was cut off
be followed by a later call), the games table's primary key keeps one and the other reads
it. Each seat's new token is derived from its old one, ``HMAC(old token, new game id)``:
only the hash is stored, and only the holder of the old token can be told it again, as
often as asked (``POST`` or ``GET``), never another seat.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import secrets
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError

from ..game import Game
from . import social_store
from .errors import ApiError
from .live import LiveGame, SeatInfo
from .social_store import RematchRow

if TYPE_CHECKING:
    from .service import GameService

log = logging.getLogger("kaladan.server")

HUMAN = "human"


def new_token(old: str, new_game_id: str) -> str:
    """The new seat's token of the player holding ``old``."""
    mac = hmac.new(old.encode("utf-8"), new_game_id.encode("utf-8"), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).decode("ascii").rstrip("=")


def rotated(seat: int, players: int) -> int:
    """The seat of seat ``seat``'s player in the rematch."""
    return (seat + 1) % players


def humans(live: LiveGame) -> list[int]:
    return [i for i, s in enumerate(live.seats) if s.kind == HUMAN]


async def _read(service: GameService, live: LiveGame) -> RematchRow | None:
    try:
        return await asyncio.to_thread(social_store.rematch, service.store, live.game_id)
    except Exception as exc:
        log.error("cannot read the rematch of game %s: %s", live.game_id, exc)
        raise ApiError(503, "storage_unavailable", "the rematch cannot be read now; try "
                       "again") from exc


def _accepted(row: RematchRow) -> dict[int, str]:
    return {int(seat): str(h) for seat, h in json.loads(row.accepted).items()}


def _text(accepted: dict[int, str]) -> str:
    return json.dumps({str(seat): h for seat, h in sorted(accepted.items())},
                      separators=(",", ":"))


async def state(service: GameService, live: LiveGame, seat: int | None,
                token: str | None) -> dict[str, Any]:
    """The rematch of ``live`` as ``seat`` (None: anybody) may see it; a started one is
    brought up if its start was cut off."""
    row = await _read(service, live)
    return await _answer(service, live, row, seat, token)


async def accept(service: GameService, live: LiveGame, seat: int,
                 token: str | None) -> dict[str, Any]:
    """Offer the rematch, or accept it, for human seat ``seat`` (authenticated by ``token``,
    or by its account's session when ``token`` is None)."""
    if not live.over:
        raise ApiError(409, "game_not_over", "a rematch is offered once the game is over")
    if live.seats[seat].kind != HUMAN:
        raise ApiError(403, "not_a_player", "only the game's human seats play a rematch")
    for _ in range(20):
        row = await _read(service, live)
        new_id = row.new_game_id if row is not None else "g_" + secrets.token_hex(8)
        # a seat signed in without its token gets a token nobody knows: it plays by session
        secret = new_token(token, new_id) if token is not None else secrets.token_urlsafe(32)
        mine = hashlib.sha256(secret.encode("utf-8")).hexdigest()
        try:
            if row is None:
                done = await asyncio.to_thread(social_store.offer_rematch, service.store,
                                               live.game_id, new_id, _text({seat: mine}))
            else:
                accepted = _accepted(row)
                if seat in accepted:
                    break
                done = await asyncio.to_thread(social_store.accept_rematch, service.store,
                                               live.game_id, row.accepted,
                                               _text({**accepted, seat: mine}))
        except Exception as exc:
            log.error("cannot store the rematch of game %s: %s", live.game_id, exc)
            raise ApiError(503, "storage_unavailable", "the rematch could not be stored; "
                           "try again") from exc
        if done:
            break
    else:
        raise ApiError(503, "storage_unavailable", "the rematch keeps changing; try again")
    return await state(service, live, seat, token)


async def _answer(service: GameService, live: LiveGame, row: RematchRow | None,
                  seat: int | None, token: str | None) -> dict[str, Any]:
    wanted = humans(live)
    if row is None:
        return {"status": "none", "accepted": [], "humans": wanted, "game_id": None,
                "seat": None, "token": None}
    accepted = _accepted(row)
    answer: dict[str, Any] = {"status": "waiting", "accepted": sorted(accepted),
                              "humans": wanted, "game_id": None, "seat": None, "token": None}
    if set(wanted) <= set(accepted):
        await _start(service, live, row.new_game_id, accepted)
        answer["status"], answer["game_id"] = "started", row.new_game_id
        if seat is not None and seat in accepted:
            answer["seat"] = rotated(seat, len(live.seats))
            if token is not None:  # told only to the holder of the old seat's token
                answer["token"] = new_token(token, row.new_game_id)
    return answer


async def _start(service: GameService, live: LiveGame, new_id: str,
                 accepted: dict[int, str]) -> None:
    """Store the rematch's game unless it is (the games' primary key keeps one)."""
    if new_id in service.games:
        return
    try:
        if await asyncio.to_thread(service.store.seats_text, new_id) is not None:
            return
    except Exception as exc:
        raise ApiError(503, "storage_unavailable", "the rematch cannot be read now; try "
                       "again") from exc
    players = len(live.seats)
    infos: list[SeatInfo] = [SeatInfo(HUMAN)] * players
    for old, info in enumerate(live.seats):
        if info.kind == HUMAN:
            seat = SeatInfo(HUMAN, None, None, accepted[old], info.account, info.name)
        else:
            seat = SeatInfo("bot", info.bot)
        infos[rotated(old, players)] = seat
    config = live.game.config
    game = await asyncio.to_thread(Game.new, config, secrets.randbits(63))
    try:
        await service.open_game(new_id, live.name, game, infos, owner=live.owner,
                                hints=live.hints, rated=live.rated, open_seats=live.open_seats,
                                control=None if live.clock is None else live.clock.control)
    except IntegrityError:
        log.info("the rematch %s of game %s was started by another call", new_id,
                 live.game_id)
    else:
        log.info("game %s: its rematch %s started", live.game_id, new_id)
