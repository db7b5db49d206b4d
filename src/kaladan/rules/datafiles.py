"""The engine's data files (``kaladan/rules/data``: units, cards, layouts, log texts) as text.

Read from the package's directory. ``importlib.resources``, the general way, imports zipfile,
tempfile and their kin: about a tenth of the engine's import, which every command pays
(``kaladan simulate``'s start-up counts against its speed). What it adds, reading from a zip
archive, does not apply: pip installs the package as a directory, and the compiled engine's
extension modules could not be imported from an archive anyway.
"""

from __future__ import annotations

import os

_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def data_text(name: str) -> str:
    """The text of data file ``name`` (UTF-8). Raises OSError when it cannot be read."""
    with open(os.path.join(_DIR, name), encoding="utf-8") as file:
        return file.read()
