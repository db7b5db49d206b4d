"""Rate limits in memory: ``RateLimiter`` (one window) and ``PerAddress`` (one per client
address), and ``AddressRate``, what a per-address limit offers whether it is counted here or
in Redis (``shared_limits``)."""

from __future__ import annotations

import time
from collections import deque
from typing import Protocol


class RateLimiter:
    """At most ``rate`` events in any window of ``per`` seconds."""

    __slots__ = ("per", "rate", "times")

    def __init__(self, rate: float, per: float = 1.0) -> None:
        self.rate = rate
        self.per = per
        self.times: deque[float] = deque()

    def allow(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        while self.times and now - self.times[0] >= self.per:
            self.times.popleft()
        if len(self.times) >= self.rate:
            return False
        self.times.append(now)
        return True

    def idle(self, now: float) -> bool:
        return not self.times or now - self.times[-1] >= self.per


class PerAddress:
    """One ``RateLimiter`` per client address; idle ones are forgotten so a flood of
    addresses cannot grow the table without bound."""

    __slots__ = ("limiters", "per", "rate")

    def __init__(self, rate: float, per: float = 1.0) -> None:
        self.rate = rate
        self.per = per
        self.limiters: dict[str, RateLimiter] = {}

    def allow(self, address: str) -> bool:
        limiter = self.limiters.get(address)
        if limiter is None:
            if len(self.limiters) >= 10_000:
                now = time.monotonic()
                self.limiters = {k: v for k, v in self.limiters.items() if not v.idle(now)}
            limiter = self.limiters[address] = RateLimiter(self.rate, self.per)
        return limiter.allow()

    async def admit(self, address: str) -> bool:
        """``allow`` as ``AddressRate`` has it."""
        return self.allow(address)


class AddressRate(Protocol):
    """A rate limit per client address: ``PerAddress`` in memory, or
    ``shared_limits.SharedRate`` counted over all processes."""

    @property
    def rate(self) -> float: ...

    async def admit(self, address: str) -> bool:
        """Whether one more event from ``address`` is within the limit (and count it)."""
        ...
