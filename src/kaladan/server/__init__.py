"""``kaladan serve``: the browser game's server (FastAPI), storage and static UI.

``create_app`` is imported on first use, so that the command line (which reads the server's
settings to describe ``kaladan serve --help``) does not load the web stack for every command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
