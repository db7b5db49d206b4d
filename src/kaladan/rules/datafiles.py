"""The engine's data files (``kaladan/rules/data``: units, cards, layouts, log texts) as text.

Read from the package's directory on disk. ``importlib.resources``, the general way, imports
zipfile, tempfile and their kin: about a tenth of the engine's import, which every command
pays (``kaladan simulate``'s start-up counts against its speed). A package that is not a
directory on disk (a zip import) still gets its files through it.
"""

from __future__ import annotations

import os

_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def data_text(name: str) -> str:
    """The text of data file ``name`` (UTF-8). Raises OSError when it cannot be read."""
    try:
        with open(os.path.join(_DIR, name), encoding="utf-8") as file:
            return file.read()
    except FileNotFoundError:
        if os.path.isdir(_DIR):  # a directory on disk without the file: truly missing
            raise
        from importlib import resources
        return resources.files("kaladan.rules.data").joinpath(name).read_text("utf-8")
