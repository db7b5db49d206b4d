"""``kaladan serve``: the browser game (FastAPI on uvicorn) with its lobby and storage."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

    from ..server.settings import ServerSettings

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
LOOPBACK = ("127.0.0.1", "localhost", "::1")
# ServerSettings fields with a flag each (--bot-workers ...): name, metavar, help.
LIMIT_FLAGS = (
    ("bot_workers", "N", "processes for searching bots"),
    ("bot_seconds", "SECONDS", "the most a bot may think per decision, whatever its "
                               "parameters"),
    ("bot_jobs_per_client", "N", "searches of one client's games running at once"),
    ("hint_iterations", "N", "iterations of the expert bot's search for a hint"),
    ("hint_seconds", "SECONDS", "the most a hint's search may take"),
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
    ("sign_in_rate", "N", "sign-in attempts a minute per client address (and twice that a "
                          "quarter of an hour per account name)"),
    ("sign_up_rate", "N", "new accounts a minute per client address"),
    ("leaderboard_min_games", "N", "rated games a player needs to be on the leaderboard"),
    ("lease_seconds", "SECONDS", "several processes: how long a process owns a game it "
                                 "stops renewing (a dead process's games move after this)"),
)
# A request's line and headers (server/http_limits.py): browsers send a few KiB (nginx's
# default allows 4 x 8 KiB); a slow phone sends them in well under a second.
MAX_HEAD = 64 * 1024
HEAD_TIMEOUT = 10.0
LEVELS = ("debug", "info", "warning", "error")
FORMATS = ("text", "json")
STARTUP_FAILURE = 3  # uvicorn's exit code for a worker that cannot start: not restarted


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
    p.add_argument("--broker-url", default=os.environ.get("KALADAN_BROKER_URL"),
                   metavar="URL",
                   help="Redis URL, e.g. redis://host:6379/0, that several server processes "
                        "share (default: $KALADAN_BROKER_URL, else none: one process); needs "
                        "PostgreSQL")
    p.add_argument("--smtp-url", default=os.environ.get("KALADAN_SMTP_URL"), metavar="URL",
                   help="mail server for e-mail confirmations, password resets and turn "
                        "mails: smtp://[user:password@]host[:port][?from=address] or "
                        "smtps://... (default: $KALADAN_SMTP_URL, else none: no mail)")
    p.add_argument("--public-url", default=None, metavar="URL",
                   help="the address players reach the server at, e.g. "
                        "https://kaladan.example.org, for the links in mails (needed by "
                        "the one-click unsubscribe of turn mails)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="server processes on this host and port (default 1; more need "
                        "--broker-url and PostgreSQL)")
    p.add_argument("--log-level", choices=LEVELS, default="info",
                   help="least severe log lines written to stderr (default info: one access "
                        "line per request)")
    p.add_argument("--log-format", choices=FORMATS, default="text",
                   help="text lines, or one JSON object a line (default text)")
    p.add_argument("--header-timeout", type=float, default=HEAD_TIMEOUT, metavar="SECONDS",
                   help="drop a connection whose request line and headers are not complete "
                        f"this long after they began (default {HEAD_TIMEOUT:g})")
    p.add_argument("--max-header", type=int, default=MAX_HEAD, metavar="BYTES",
                   help="largest request line and headers; bigger ones get 431 (default "
                        f"{MAX_HEAD})")
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
    p.add_argument("--test-clock", default=None, metavar="FILE",
                   help="FOR TESTS ONLY: the server's time (game clocks) is the number of "
                        "epoch seconds written in FILE, read again whenever needed; never "
                        "on a real server")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Check the flags, migrate the database once, then serve in this process or in
    ``--workers`` processes sharing one listening socket."""
    from ..server import logs
    from ..server.settings import ServerSettings

    if not 0 < args.port < 65536:
        return _fail(f"--port must be 1-65535, not {args.port}")
    for flag, value in (("--workers", args.workers), ("--max-header", args.max_header)):
        if value < 1:
            return _fail(f"{flag} must be at least 1")
    if not args.header_timeout > 0:
        return _fail("--header-timeout must be above 0")
    shared = _is_sqlite(args.database_url)
    if args.broker_url and shared:
        return _fail("--broker-url needs a PostgreSQL --database-url: several processes "
                     "cannot share a SQLite file")
    if args.workers > 1 and (not args.broker_url or shared):
        return _fail("--workers above 1 needs --broker-url and a PostgreSQL --database-url")
    if args.smtp_url:
        from ..server.mail import Mailer, MailError

        try:
            Mailer(args.smtp_url)
        except MailError as exc:
            return _fail(str(exc))
    if args.public_url and not args.public_url.startswith(("https://", "http://")):
        return _fail("--public-url must start with https:// (or http://)")
    loopback = args.host in LOOPBACK
    hosts = (tuple(h.strip() for h in args.allowed_hosts.split(",") if h.strip())
             if args.allowed_hosts else ServerSettings().allowed_hosts)
    changes: dict[str, Any] = {name: getattr(args, name) for name, _, _ in LIMIT_FLAGS}
    changes.update(
        bot_games=loopback if args.bot_games is None else args.bot_games == "on",
        allowed_hosts=hosts, any_seed=args.any_seed, ppo_policy=args.ppo_policy,
        broker_url=args.broker_url or None, smtp_url=args.smtp_url or None,
        public_url=args.public_url or None)
    if args.bot_delay is not None:
        changes["bot_delay"] = args.bot_delay
    if args.test_clock is not None:  # tests only (docs/server.md "Time controls")
        from ..server.clocks import FileClock

        if not os.path.isfile(args.test_clock):
            return _fail(f"--test-clock {args.test_clock}: no such file")
        changes["clock"] = FileClock(args.test_clock)
    try:
        settings = ServerSettings(**changes)
    except ValueError as exc:  # "rate must be above 0": name the flag
        name, _, rest = str(exc).partition(" ")
        return _fail(f"--{name.replace('_', '-')} {rest}")
    logs.configure(args.log_level, args.log_format)
    if args.workers == 1:
        return _serve_here(args, settings)
    return _serve_in_workers(args, settings)


def _serve_here(args: argparse.Namespace, settings: ServerSettings) -> int:
    import uvicorn  # imported here: the other commands do not need the web stack

    from ..rules.errors import ConfigError
    from ..server.app import create_app
    from ..server.storage import StorageError

    try:  # the policy loads here (seconds, torch), once for every game
        app = create_app(args.database_url, settings)
    except ConfigError as exc:  # "ppo policy '/x.zip' not found"
        return _fail(f"--ppo-policy: {exc}")
    try:
        app.state.service.store.upgrade()  # a bad database fails here, clearly, not in uvicorn
    except StorageError as exc:
        return _fail(str(exc))
    _print_url(args)
    server = uvicorn.Server(_uvicorn_config(args, settings, app))
    server.run()
    return 0 if server.started else 1


def _serve_in_workers(args: argparse.Namespace, settings: ServerSettings) -> int:
    from uvicorn.supervisors import Multiprocess

    from ..server.storage import StorageError, Store

    if settings.ppo_policy and not os.path.isfile(settings.ppo_policy):  # before N failures
        return _fail(f"--ppo-policy: ppo policy {settings.ppo_policy!r} not found")
    try:  # once, here: workers migrating at the same time race each other
        store = Store(args.database_url, settings.db_timeout)
        try:
            store.upgrade()
        finally:
            store.dispose()
    except StorageError as exc:
        return _fail(str(exc))
    config = _uvicorn_config(args, settings,
                             AppFactory(args.database_url, settings, args.log_level,
                                        args.log_format))
    sockets = [config.bind_socket()]
    _print_url(args)
    # uvicorn's supervisor: restarts a worker that dies, SIGTERM/SIGINT stop them all
    supervisor = Multiprocess(config, sockets=sockets)
    supervisor.run()
    if any(p.exitcode == STARTUP_FAILURE for p in supervisor.processes):
        return STARTUP_FAILURE  # a worker could not start: the supervisor gave up
    return 0


class AppFactory:
    """Builds the app in a worker process (``uvicorn.Config(factory=True)``): a value, not a
    closure, so the spawned worker receives it pickled. The worker's logging is configured
    first, as the parent's was."""

    def __init__(self, database_url: str | None, settings: ServerSettings, log_level: str,
                 log_format: str) -> None:
        self.database_url = database_url
        self.settings = settings
        self.log_level = log_level
        self.log_format = log_format

    def __call__(self) -> FastAPI:
        import logging

        from ..server import logs
        from ..server.app import create_app

        logs.configure(self.log_level, self.log_format)
        try:
            return create_app(self.database_url, self.settings)
        except Exception:  # the same in every restart: uvicorn's supervisor then stops
            logging.getLogger("kaladan.server").exception("the app cannot be built")
            sys.exit(STARTUP_FAILURE)


def _uvicorn_config(args: argparse.Namespace, settings: ServerSettings, app: Any) -> Any:
    from ..server.http_limits import ServeConfig

    proxy: dict[str, Any] = {"proxy_headers": False}
    if args.forwarded_allow_ips:
        proxy = {"proxy_headers": True, "forwarded_allow_ips": args.forwarded_allow_ips}
    return ServeConfig(app, factory=isinstance(app, AppFactory), host=args.host,
                       port=args.port, workers=args.workers, log_config=None,
                       log_level=args.log_level, access_log=False,
                       head_timeout=args.header_timeout, max_head=args.max_header,
                       ws_max_size=4 * settings.max_message, ws_per_message_deflate=False,
                       timeout_graceful_shutdown=3, **proxy)


def _print_url(args: argparse.Namespace) -> None:
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    if ":" in shown:
        shown = f"[{shown}]"
    print(f"Open http://{shown}:{args.port}/ in your browser (Ctrl+C stops the server)",
          flush=True)


def _is_sqlite(url: str | None) -> bool:
    """Whether ``url`` names SQLite (None: the default SQLite file). A URL that does not
    parse is left for the store to refuse, with its own message."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    if url is None:
        return True
    try:
        return make_url(url).get_backend_name() == "sqlite"
    except ArgumentError:
        return False


def _fail(message: str) -> int:
    print(f"kaladan: error: {message}", file=sys.stderr)
    return 2
