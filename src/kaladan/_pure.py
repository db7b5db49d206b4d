"""Which engine runs: the mypyc-compiled one or its pure-Python sources (docs/compiled.md).

A compiled module is a C extension next to its ``.py`` file, and Python's import system
prefers the extension. With ``KALADAN_PURE=1`` in the environment, ``kaladan`` puts a finder
in front that loads every ``kaladan.*`` module from its ``.py`` source instead, for
debugging and for checking that both engines behave the same.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import ModuleType

PURE_VARIABLE = "KALADAN_PURE"


def pure_requested() -> bool:
    return os.environ.get(PURE_VARIABLE, "") not in ("", "0")


class SourceOnlyFinder:
    """Finds ``kaladan.*`` modules as ``.py`` sources only (never a compiled extension)."""

    @classmethod
    def find_spec(cls, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not name.startswith("kaladan.") or path is None:
            return None
        for entry in path:
            finder = importlib.machinery.FileFinder(
                entry, (importlib.machinery.SourceFileLoader,
                        importlib.machinery.SOURCE_SUFFIXES))
            spec = finder.find_spec(name)
            if spec is not None:
                return spec
        return None


def install() -> None:
    if pure_requested() and SourceOnlyFinder not in sys.meta_path:
        sys.meta_path.insert(0, SourceOnlyFinder)


def engine_mode() -> str:
    """``"compiled"`` when the rules engine runs as mypyc-compiled code, else ``"pure"``."""
    from .rules import state

    return "pure" if state.__file__ is None or state.__file__.endswith(".py") else "compiled"
