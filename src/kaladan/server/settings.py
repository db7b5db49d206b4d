"""Everything an operator may tune about ``kaladan serve``: limits, bots, memory, hosts.

One frozen value built by ``kaladan serve`` from its flags (``--help`` lists them) and passed
to ``create_app``; docs/server.md explains each. The defaults suit a server on loopback for
a few friends; a public server tightens them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def _cpus() -> int:
    return os.cpu_count() or 2


@dataclass(frozen=True, slots=True)
class ServerSettings:
    # Bots.
    bot_delay: float = 0.8  # seconds between two bot decisions, so people can follow
    bot_workers: int = field(default_factory=lambda: max(1, _cpus() - 1))  # search processes
    bot_seconds: float = 10.0  # the most a bot may think per decision, whatever its settings
    bot_jobs_per_client: int = 1  # searches of one client's games running at the same time
    # Advice (hints.py): the expert bot searches this many iterations for a hint (the same
    # answer on every machine), and stops at this many seconds whatever it has done by then.
    hint_iterations: int = 400
    hint_seconds: float = 1.0
    bot_games: bool = True  # games without a human seat (bots only, for spectators)
    # A trained policy file (bench/train_ppo.py) played by the seat kind "ppo"; chosen by
    # the operator, never by a client. None: the server offers no ppo seat.
    ppo_policy: str | None = None
    # Seeds: the server draws them for games with two or more humans (a known seed reveals
    # every hand and the deck); ``any_seed`` lets a creator choose one anyway (tests only).
    any_seed: bool = False
    # Requests per client address (behind a proxy: the forwarded address, docs/server.md).
    rate: float = 20.0  # write requests (POST) a second
    read_rate: float = 100.0  # read requests (GET) a second
    load_rate: float = 2.0  # games brought back from storage into memory a second
    games_per_minute: int = 10  # games created a minute
    sockets: int = 32  # WebSocket connections at the same time
    ws_rate: float = 20.0  # WebSocket messages a second per connection
    # Accounts (accounts.py): sign-in attempts a minute per address (and ten a quarter of
    # an hour per name, from anywhere), new accounts a minute per address.
    sign_in_rate: float = 5.0
    sign_up_rate: float = 3.0
    # Sizes.
    max_body: int = 16 * 1024  # bytes of an HTTP request body
    max_message: int = 4 * 1024  # bytes of a WebSocket message
    max_world: int = 4 * 1024  # bytes of a custom world (R4.14) as JSON
    max_name: int = 100  # characters of a game's name
    # Storage: how long a write may wait for the database (SQLite's busy timeout) before
    # the decision is refused with 503.
    db_timeout: float = 30.0
    # Memory: games kept in memory at most (finished and idle ones leave first).
    live_games: int = 200
    # The cyclic garbage collector's first threshold while the app runs (0: the
    # interpreter's, 700). A decision makes thousands of short-lived containers (states,
    # observations, views); at 700 a collection ran every few actions and took a quarter of
    # the server's CPU, most of it going over the live games again (docs/server.md).
    gc_threshold: int = 20_000
    # Hosts the server answers for (DNS rebinding); "*" allows any.
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    # Several processes (docs/server.md "Scaling out"): the Redis server that carries their
    # events, forwarded decisions and shared limits (None: one process, as on a laptop), and
    # how long a process owns a game it stops renewing (a dead owner's games are taken
    # over after at most this long).
    broker_url: str | None = None
    lease_seconds: float = 5.0
    # Mail (mail.py): the SMTP server for e-mail confirmations, password resets and turn
    # mails (None: the server sends none), and the address players reach the server at,
    # for the links in those mails (None: links are relative paths).
    smtp_url: str | None = None
    public_url: str | None = None
    # The leaderboard lists players with at least this many rated games (docs/server.md
    # "Ratings"); a request may ask for more or fewer.
    leaderboard_min_games: int = 5
    # Time controls (docs/server.md "Time controls"): where "now" comes from, as epoch
    # seconds. None: the wall clock. Only tests give another (``kaladan serve --test-clock
    # FILE``, clocks.FileClock); the timer then looks at it 20 times a second.
    clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        for name in ("bot_workers", "bot_jobs_per_client", "hint_iterations", "games_per_minute",
                     "sockets",
                     "max_body", "max_message", "max_world", "max_name", "live_games"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.gc_threshold < 0:
            raise ValueError("gc_threshold must be >= 0")
        for name in ("bot_seconds", "hint_seconds", "rate", "read_rate", "load_rate", "ws_rate",
                     "db_timeout", "lease_seconds", "sign_in_rate", "sign_up_rate"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be above 0")
        if self.bot_delay < 0:
            raise ValueError("bot_delay must be >= 0")
