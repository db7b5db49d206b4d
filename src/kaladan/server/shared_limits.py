"""Per-address limits counted in Redis, so that they hold across server processes.

With ``ServerSettings.broker_url`` set, several processes serve one site and a client may
reach any of them; a limit counted in each process would let a client through once per
process. ``SharedLimits`` counts two things in the broker's Redis server:

- Rates (requests, games created, games loaded): a sliding log per (kind, address), a
  sorted set of the times of the events of the last ``per`` seconds, checked and added to by
  one Lua script (atomic), timed by Redis's own clock (one clock for all processes). It
  behaves as ``limits.RateLimiter`` does: at most ``rate`` events in any window of ``per``
  seconds, refused events not counted. It holds at most ``rate`` entries per address and
  expires with the window.
- Things held open (WebSockets, bot searches): a hash per (kind, address) of counts per
  process, summed over the live processes. A process is alive while its heartbeat
  (``start``) renews its entry in one sorted set of expiry times; a process that dies
  without releasing is no longer counted after ``ttl`` seconds (``lease_seconds``, as its
  games), and its counts are dropped by the next acquire for that address.

A broker outage must not refuse every client nor crash a request: when Redis cannot be
reached the call is decided by this process's own in-memory count (today's limits, per
process), a warning is logged at most every ``WARN_EVERY`` seconds, and Redis is not asked
again for ``RETRY_AFTER`` seconds. Counts held meanwhile are written to Redis by the next
heartbeat that reaches it; the heartbeat also writes them all when it finds this process
missing from the live set (Redis restarted and lost them).

A rate limit is used through ``limits.AddressRate``: ``per_address(kind, rate, per)`` gives
an object whose ``await admit(address)`` is that of ``limits.PerAddress``, so a caller holds
either. Each limited call costs one round trip to Redis (a script of a few commands).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import time

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from .rates import PerAddress

log = logging.getLogger("kaladan.server")

PREFIX = "kaladan:limits"
ALIVE = f"{PREFIX}:processes"  # sorted set: process id -> expiry (ms, Redis clock)
TIMEOUT = 0.5  # seconds a call may wait for Redis before its limit is decided locally
RETRY_AFTER = 1.0  # seconds after a failure during which Redis is not asked
WARN_EVERY = 5.0  # seconds between two warnings of an outage

# KEYS: the log. ARGV: window (microseconds), rate, a unique member.
_RATE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + 1)
return 1
"""

# KEYS: the held hash, ALIVE. ARGV: process, limit, ttl (ms). Counts of dead processes go.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
local total = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local expiry = redis.call('ZSCORE', KEYS[2], fields[i])
  if expiry and tonumber(expiry) > now then
    total = total + tonumber(fields[i + 1])
  else
    redis.call('HDEL', KEYS[1], fields[i])
  end
end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
"""

# KEYS: the held hash. ARGV: process.
_RELEASE = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 1
"""

# KEYS: ALIVE, then the held hashes. ARGV: process, ttl (ms), then each hash's count when
# rewriting them, nothing when only renewing. Returns whether the process was still alive.
_BEAT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
local alive = score and tonumber(score) > now
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 2, #KEYS do
  local count = ARGV[i + 1]
  if count == nil then
    redis.call('PEXPIRE', KEYS[i], ttl)
  elseif tonumber(count) > 0 then
    redis.call('HSET', KEYS[i], ARGV[1], count)
    redis.call('PEXPIRE', KEYS[i], ttl)
  else
    redis.call('HDEL', KEYS[i], ARGV[1])
  end
end
if alive then return 1 end
return 0
"""

Held = tuple[str, str]  # (kind, address)


class SharedLimits:
    """This process's view of the limits counted in Redis at ``url`` (module doc);
    ``process`` names this process uniquely among those sharing the server."""

    def __init__(self, url: str, process: str, ttl: float = 5.0) -> None:
        self.process = process
        self.ttl = ttl
        # No retry: a refused connection is an outage to decide locally, not to wait out.
        # A blocking pool: at a burst of requests a call waits (at most TIMEOUT) for a free
        # connection instead of failing with "Too many connections" (an outage it is not).
        pool = BlockingConnectionPool.from_url(url, max_connections=64, timeout=TIMEOUT,
                                               socket_timeout=TIMEOUT,
                                               socket_connect_timeout=TIMEOUT,
                                               retry=Retry(NoBackoff(), 1))
        self.redis = Redis(connection_pool=pool)
        self._rate = self.redis.register_script(_RATE)
        self._acquire = self.redis.register_script(_ACQUIRE)
        self._release = self.redis.register_script(_RELEASE)
        self._beat = self.redis.register_script(_BEAT)
        self._members = itertools.count()
        self._local: dict[str, PerAddress] = {}  # rates per kind during an outage
        self.held: dict[Held, int] = {}  # this process's counts, only those above 0
        self._unsynced: set[Held] = set()  # counts Redis may have wrong (failed calls)
        self._down_until = 0.0
        self._warned = -math.inf
        self._heartbeat: asyncio.Task[None] | None = None

    # --- rates ------------------------------------------------------------------------

    def per_address(self, kind: str, rate: float, per: float = 1.0) -> SharedRate:
        """A rate limit per address named ``kind``, shared by every process using the same
        kind (they must agree on ``rate`` and ``per``)."""
        return SharedRate(self, kind, rate, per)

    async def allow(self, kind: str, address: str, rate: float, per: float = 1.0) -> bool:
        """Whether one more ``kind`` event from ``address`` stays within ``rate`` events a
        ``per`` seconds over all processes (and count it)."""
        if not self._down():
            member = f"{self.process}:{next(self._members)}"
            try:
                done = await self._rate(keys=[f"{PREFIX}:rate:{kind}:{address}"],
                                        args=[round(per * 1_000_000), rate, member])
            except (RedisError, OSError) as exc:
                self._failed(exc)
            else:
                return bool(done)
        local = self._local.get(kind)
        if local is None or (local.rate, local.per) != (rate, per):
            local = self._local[kind] = PerAddress(rate, per)
        return local.allow(address)

    # --- things held open -------------------------------------------------------------

    async def acquire(self, kind: str, address: str, limit: int) -> bool:
        """Hold one more ``kind`` for ``address`` if all processes together hold fewer
        than ``limit``; each ``True`` wants one ``release``."""
        key = (kind, address)
        if not self._down():
            try:
                done = await self._acquire(keys=[_held_key(key), ALIVE],
                                           args=[self.process, limit, self._ttl_ms()])
            except (RedisError, OSError) as exc:
                self._failed(exc)
            else:
                if done:
                    self.held[key] = self.held.get(key, 0) + 1
                return bool(done)
        if self.held.get(key, 0) >= limit:
            return False
        self.held[key] = self.held.get(key, 0) + 1
        self._unsynced.add(key)  # held without Redis knowing: the heartbeat tells it
        return True

    async def release(self, kind: str, address: str) -> None:
        """Give back one ``kind`` held for ``address``."""
        key = (kind, address)
        left = self.held.get(key, 0) - 1
        if left > 0:
            self.held[key] = left
        else:
            self.held.pop(key, None)
        if self._down():
            self._unsynced.add(key)
            return
        try:
            await self._release(keys=[_held_key(key)], args=[self.process])
        except BaseException as exc:  # cancelled too: the heartbeat puts Redis right
            self._unsynced.add(key)
            if not isinstance(exc, (RedisError, OSError)):
                raise
            self._failed(exc)

    # --- life ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the heartbeat that keeps this process's held counts alive."""
        if self._heartbeat is None:
            self._heartbeat = asyncio.create_task(self._beating(), name="shared-limits")

    async def close(self) -> None:
        """Stop the heartbeat and leave the live set: other processes stop counting this
        one's holds at once, as they would ``ttl`` seconds after it died."""
        task, self._heartbeat = self._heartbeat, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        try:
            await self.redis.zrem(ALIVE, self.process)
        except (RedisError, OSError) as exc:
            self._failed(exc)
        await self.redis.aclose()

    async def beat(self) -> None:
        """Renew this process's entry and its held counts (the heartbeat, once); rewrite the
        counts when Redis may have them wrong."""
        keys = sorted(self.held.keys() | self._unsynced)
        rewrite = bool(self._unsynced)
        unsynced, self._unsynced = self._unsynced, set()
        try:
            alive = await self._send_beat(keys, rewrite)
            if not alive and not rewrite and self.held:  # Redis lost them (restarted)
                await self._send_beat(keys, rewrite=True)
        except BaseException:
            self._unsynced |= unsynced
            raise

    async def _send_beat(self, keys: list[Held], rewrite: bool) -> bool:
        args: list[str | int | float] = [self.process, self._ttl_ms()]
        if rewrite:
            args += [self.held.get(key, 0) for key in keys]
        return bool(await self._beat(keys=[ALIVE, *map(_held_key, keys)], args=args))

    async def _beating(self) -> None:
        while True:
            if not self._down():
                try:
                    await self.beat()
                except (RedisError, OSError) as exc:
                    self._failed(exc)
            await asyncio.sleep(self.ttl / 3)

    # --- outages ----------------------------------------------------------------------

    def _down(self) -> bool:
        return time.monotonic() < self._down_until

    def _failed(self, exc: BaseException) -> None:
        now = time.monotonic()
        self._down_until = now + RETRY_AFTER
        if now - self._warned >= WARN_EVERY:
            self._warned = now
            log.warning("shared limits: Redis cannot be reached (%s); limits are counted by "
                        "each process until it can", exc)

    def _ttl_ms(self) -> int:
        return math.ceil(self.ttl * 1000)


class SharedRate:
    """``limits.PerAddress`` counted over all processes (``SharedLimits.per_address``)."""

    __slots__ = ("kind", "limits", "per", "rate")

    def __init__(self, limits: SharedLimits, kind: str, rate: float, per: float) -> None:
        self.limits = limits
        self.kind = kind
        self.rate = rate
        self.per = per

    async def admit(self, address: str) -> bool:
        """Whether one more event from ``address`` is within the limit (and count it)."""
        return await self.limits.allow(self.kind, address, self.rate, self.per)


def _held_key(key: Held) -> str:
    return f"{PREFIX}:held:{key[0]}:{key[1]}"
