"""``kaladan serve``: the browser game (FastAPI on uvicorn) with its lobby and storage."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_parser(sub: Any) -> None:
    """Register ``kaladan serve`` on the subcommand parsers of ``main.build_parser``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "serve", help="play in the browser: start the server and open the printed URL")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 for all)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port to listen on (default {DEFAULT_PORT})")
    p.add_argument("--database-url", default=os.environ.get("KALADAN_DATABASE_URL"),
                   metavar="URL",
                   help="SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db (default: "
                        "$KALADAN_DATABASE_URL, else a SQLite file in the user data directory)")
    p.add_argument("--bot-delay", type=float, default=None, metavar="SECONDS",
                   help="pause between two bot decisions (default 0.8)")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn  # imported here: the other commands do not need the web stack

    from ..server.app import BOT_DELAY, create_app
    from ..server.limits import MAX_MESSAGE
    from ..server.storage import StorageError

    if not 0 < args.port < 65536:
        return _fail(f"--port must be 1-65535, not {args.port}")
    delay = BOT_DELAY if args.bot_delay is None else args.bot_delay
    if delay < 0:
        return _fail("--bot-delay must be >= 0")
    try:
        app = create_app(args.database_url, bot_delay=delay)
        app.state.service.store.upgrade()  # a bad database fails here, clearly, not in uvicorn
    except StorageError as exc:
        return _fail(str(exc))
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    if ":" in shown:
        shown = f"[{shown}]"
    print(f"Open http://{shown}:{args.port}/ in your browser (Ctrl+C stops the server)",
          flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                ws_max_size=4 * MAX_MESSAGE, ws_per_message_deflate=False,
                timeout_graceful_shutdown=3)
    return 0


def _fail(message: str) -> int:
    print(f"kaladan: error: {message}", file=sys.stderr)
    return 2
