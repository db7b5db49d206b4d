"""``kaladan serve``: the browser game's server (FastAPI), storage and static UI."""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
