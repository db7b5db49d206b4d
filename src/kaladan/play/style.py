"""Colours of the terminal game: one per realm (R2.1 order) and one per terrain.

Colour only repeats what the text already says (seat numbers, names), so the screen stays
readable with ``NO_COLOR``.
"""

from __future__ import annotations

from typing import Final

REALM_COLOURS: Final = ("bold bright_red", "bold bright_blue", "bold bright_yellow",
                        "bold bright_green", "bold bright_magenta", "bold bright_cyan")
TERRAIN_COLOURS: Final = ("yellow", "green", "white", "magenta")  # field forest mountain castle


def realm_style(realm: int) -> str:
    return REALM_COLOURS[realm] if 0 <= realm < len(REALM_COLOURS) else "bold"


def terrain_style(terrain: int) -> str:
    return TERRAIN_COLOURS[terrain]
