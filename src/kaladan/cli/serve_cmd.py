"""``kaladan serve``: the browser game (FastAPI on uvicorn) with its lobby and storage."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
LOOPBACK = ("127.0.0.1", "localhost", "::1")
# ServerSettings fields with a flag each (--bot-workers ...): name, metavar, help.
LIMIT_FLAGS = (
    ("bot_workers", "N", "processes for searching bots"),
    ("bot_seconds", "SECONDS", "the most a bot may think per decision, whatever its "
                               "parameters"),
    ("bot_jobs_per_client", "N", "searches of one client's games running at once"),
    ("rate", "N", "write requests a second per client address"),
    ("read_rate", "N", "read requests a second per client address"),
    ("load_rate", "N", "stored games brought back into memory a second per client address"),
    ("games_per_minute", "N", "games created a minute per client address"),
    ("sockets", "N", "WebSocket connections at once per client address"),
    ("live_games", "N", "games kept in memory at most; finished and idle games leave first "
                        "and come back when asked for"),
    ("max_body", "BYTES", "largest HTTP request body"),
    ("max_world", "BYTES", "largest custom world as JSON"),
    ("max_name", "CHARS", "longest game name"),
    ("db_timeout", "SECONDS", "how long a database call waits before it is refused with 503 "
                              "(SQLite: the write lock; PostgreSQL: connecting, a statement, "
                              "a row lock, a pooled connection)"),
)


def add_parser(sub: Any) -> None:
    """Register ``kaladan serve`` on the subcommand parsers of ``main.build_parser``."""
    from ..server.settings import ServerSettings  # light: no web stack

    d = ServerSettings()
    p: argparse.ArgumentParser = sub.add_parser(
        "serve", help="play in the browser: start the server and open the printed URL",
        description="Start the browser game. Limits are per client address; behind a "
                    "reverse proxy give --forwarded-allow-ips (docs/server.md).")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 for all)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port to listen on (default {DEFAULT_PORT})")
    p.add_argument("--database-url", default=os.environ.get("KALADAN_DATABASE_URL"),
                   metavar="URL",
                   help="SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db (default: "
                        "$KALADAN_DATABASE_URL, else a SQLite file in the user data directory)")
    p.add_argument("--bot-delay", type=float, default=None, metavar="SECONDS",
                   help=f"pause between two bot decisions (default {d.bot_delay:g})")
    p.add_argument("--allowed-hosts", default=None, metavar="NAMES",
                   help="comma-separated host names the server answers for, '*' for any "
                        "(default: loopback names; with --host set to a public address, "
                        "name it here)")
    p.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                   help="addresses of reverse proxies whose X-Forwarded-For is trusted, so "
                        "limits apply to the real client address (default: none)")
    for name, metavar, text in LIMIT_FLAGS:
        default = getattr(d, name)
        p.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default,
                       metavar=metavar, help=f"{text} (default {default:g})")
    p.add_argument("--ppo-policy", default=None, metavar="FILE",
                   help="a trained policy (bench/train_ppo.py, needs kaladan[train]) offered "
                        "as the seat kind 'ppo' (default: none, no ppo seat)")
    p.add_argument("--bot-games", choices=("on", "off"), default=None,
                   help="allow games without a human seat (default: on when listening on "
                        "loopback, off otherwise)")
    p.add_argument("--any-seed", action="store_true",
                   help="let creators choose the seed of games with two or more humans too "
                        "(for tests: a known seed reveals every hand and the event deck)")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn  # imported here: the other commands do not need the web stack

    from ..rules.errors import ConfigError
    from ..server.app import create_app
    from ..server.settings import ServerSettings
    from ..server.storage import StorageError

    if not 0 < args.port < 65536:
        return _fail(f"--port must be 1-65535, not {args.port}")
    loopback = args.host in LOOPBACK
    hosts = (tuple(h.strip() for h in args.allowed_hosts.split(",") if h.strip())
             if args.allowed_hosts else ServerSettings().allowed_hosts)
    changes: dict[str, Any] = {name: getattr(args, name) for name, _, _ in LIMIT_FLAGS}
    changes.update(
        bot_games=loopback if args.bot_games is None else args.bot_games == "on",
        allowed_hosts=hosts, any_seed=args.any_seed, ppo_policy=args.ppo_policy)
    if args.bot_delay is not None:
        changes["bot_delay"] = args.bot_delay
    try:
        settings = ServerSettings(**changes)
    except ValueError as exc:  # "rate must be above 0": name the flag
        name, _, rest = str(exc).partition(" ")
        return _fail(f"--{name.replace('_', '-')} {rest}")
    try:  # the policy loads here (seconds, torch), once for every game
        app = create_app(args.database_url, settings)
    except ConfigError as exc:  # "ppo policy '/x.zip' not found"
        return _fail(f"--ppo-policy: {exc}")
    try:
        app.state.service.store.upgrade()  # a bad database fails here, clearly, not in uvicorn
    except StorageError as exc:
        return _fail(str(exc))
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    if ":" in shown:
        shown = f"[{shown}]"
    print(f"Open http://{shown}:{args.port}/ in your browser (Ctrl+C stops the server)",
          flush=True)
    proxy: dict[str, Any] = {"proxy_headers": False}
    if args.forwarded_allow_ips:
        proxy = {"proxy_headers": True, "forwarded_allow_ips": args.forwarded_allow_ips}
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                ws_max_size=4 * settings.max_message, ws_per_message_deflate=False,
                timeout_graceful_shutdown=3, **proxy)
    return 0


def _fail(message: str) -> int:
    print(f"kaladan: error: {message}", file=sys.stderr)
    return 2
