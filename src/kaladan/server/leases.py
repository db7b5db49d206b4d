"""Leases: one owner process per live game, enforced by PostgreSQL (docs/server.md
"Scaling out").

A lease row names the owner process, a fencing token and an expiry, all in the database's
clock (``clock_timestamp()``), never a process's. A process takes a game's lease only when
there is none or it has expired, and each taking raises the token. Every write of steps
renews the lease in its own transaction, and only when the row still holds the writer's
token and has not expired (``fence``): a process paused past its lease, whose game another
process took meanwhile, finds its token gone and writes nothing. The steps' primary key
(game, index) makes the append itself a compare-and-set on the game's version, so even two
writers with the same token could never store two decisions at one index.

Lease rows are locked in game-id order everywhere (the batch writer's fences, the renewal),
so the writer's and the renewal's transactions never deadlock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, text

# The table is made by migration 0005 (game_id, owner, token, expires); its statements
# are PostgreSQL's own (ON CONFLICT ... WHERE, clock_timestamp, make_interval).
LATER = "clock_timestamp() + make_interval(secs => :seconds)"

ACQUIRE = text(
    "INSERT INTO leases (game_id, owner, token, expires) "
    f"VALUES (:game, :owner, 1, {LATER}) "
    "ON CONFLICT (game_id) DO UPDATE SET owner = EXCLUDED.owner, "
    "token = leases.token + 1, expires = EXCLUDED.expires "
    "WHERE leases.expires < clock_timestamp() RETURNING token")
FENCE = text(
    f"UPDATE leases SET expires = {LATER} WHERE game_id IN (SELECT game_id FROM leases "
    "WHERE owner = :owner AND (game_id, token) IN (SELECT * FROM unnest("
    "CAST(:games AS text[]), CAST(:tokens AS bigint[]))) AND expires > clock_timestamp() "
    "ORDER BY game_id FOR UPDATE) RETURNING game_id")
RENEW = text(
    f"UPDATE leases SET expires = {LATER} WHERE game_id IN (SELECT game_id FROM leases "
    "WHERE owner = :owner AND expires > clock_timestamp() ORDER BY game_id FOR UPDATE) "
    "RETURNING game_id")
RELEASE = text("DELETE FROM leases WHERE game_id IN :games AND owner = :owner"
               ).bindparams(bindparam("games", expanding=True))
HAND_OVER = text("UPDATE leases SET expires = clock_timestamp() - interval '1 second' "
                 "WHERE owner = :owner")
HOLDER = text("SELECT owner, token, expires > clock_timestamp() AS alive FROM leases "
              "WHERE game_id = :game")
EXPIRED = text(
    "SELECT l.game_id FROM leases l JOIN games g ON g.id = l.game_id "
    "WHERE l.expires < clock_timestamp() AND g.status NOT IN ('over', 'quarantined') "
    "ORDER BY l.expires LIMIT :limit")


class LeaseLost(Exception):
    """A write was refused because the writer no longer holds the game's lease (another
    process took it, or it expired): nothing of it was stored."""


class NotOwner(Exception):
    """This process does not own the game (any longer), so it did not decide; the decision
    goes to the owner (``Cluster.act``)."""


@dataclass(frozen=True, slots=True)
class Holder:
    owner: str
    token: int
    alive: bool  # not expired, in the database's clock


def acquire(c: Connection, game_id: str, owner: str, seconds: float) -> int | None:
    """Take the lease of ``game_id`` when nobody holds it or it has expired: the new fencing
    token, or None when another process holds it."""
    row = c.execute(ACQUIRE, {"game": game_id, "owner": owner, "seconds": seconds}).first()
    return None if row is None else int(row.token)


def fence(c: Connection, tokens: dict[str, int], owner: str, seconds: float) -> set[str]:
    """Inside a write's transaction, one statement: renew each lease of ``tokens`` (game ->
    token) that ``owner`` still holds with that token and that has not expired (the rows
    stay locked until the commit). The games whose lease held."""
    if not tokens:
        return set()
    return {str(r.game_id) for r in c.execute(FENCE, {
        "owner": owner, "games": list(tokens), "tokens": list(tokens.values()),
        "seconds": seconds})}


def renew(c: Connection, owner: str, seconds: float) -> set[str]:
    """Renew every unexpired lease of ``owner``; the games it still holds."""
    return {str(r.game_id) for r in c.execute(RENEW, {"owner": owner, "seconds": seconds})}


def release(c: Connection, game_ids: Sequence[str], owner: str) -> None:
    """Give up leases (an idle game leaves memory, a game ended): the next process to need
    the game takes it at once."""
    if game_ids:
        c.execute(RELEASE, {"games": list(game_ids), "owner": owner})


def hand_over(c: Connection, owner: str) -> None:
    """A stopping process: its leases expire now, so other processes take its games (and
    their bots) at their next sweep instead of after the lease's time."""
    c.execute(HAND_OVER, {"owner": owner})


def holder(c: Connection, game_id: str) -> Holder | None:
    row = c.execute(HOLDER, {"game": game_id}).first()
    return None if row is None else Holder(str(row.owner), int(row.token), bool(row.alive))


def expired(c: Connection, limit: int = 20) -> list[str]:
    """Unfinished games whose owner stopped renewing (died, or handed them over)."""
    return [str(r.game_id) for r in c.execute(EXPIRED, {"limit": limit})]
