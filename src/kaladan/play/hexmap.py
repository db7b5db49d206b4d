"""The world drawn as offset rows of hexes: every tile a small box placed by its axial
coordinates, so neighbours (R4.2) touch diagonally or side by side.

A tile at (q, r) goes to text column ``(2q + r) * HALF`` and row ``r``; each box shows the
tile's name, terrain and castle mark (``+`` for an upgraded castle, R19), its units grouped by
owner (``1: Ge+ Sw Sw`` — the seat number keeps it readable without colour) and its free room.
"""

from __future__ import annotations

from rich.text import Text

from ..rules.state import GameState
from ..rules.units import is_upgraded, type_of
from ..rules.world import Terrain
from . import i18n
from .style import realm_style, terrain_style

BOX = 19  # width of one tile's box, borders included
HALF = 10  # half the distance between two tiles side by side
INNER = BOX - 2
MAX_UNIT_LINES = 2


def unit_tokens(state: GameState, tile: int, lang: str) -> list[tuple[str, str]]:
    """(text, style) tokens for a tile's units: an owner mark, then its units."""
    out: list[tuple[str, str]] = []
    owner = -1
    for c in state.board[tile]:
        seat = c >> 7
        style = realm_style(state.realm[seat])
        if seat != owner:
            out.append((f"{seat}:", style))
            owner = seat
        out.append((i18n.unit_abbrev(lang, type_of(c)) + ("+" if is_upgraded(c) else ""), style))
    return out


def _wrap(tokens: list[tuple[str, str]], width: int, lines: int) -> list[list[tuple[str, str]]]:
    rows: list[list[tuple[str, str]]] = [[] for _ in range(lines)]
    row = used = 0
    for token, style in tokens:
        need = len(token) + (1 if rows[row] else 0)
        if used + need > width and rows[row] and row + 1 < lines:
            row, used = row + 1, 0
            need = len(token)
        rows[row].append((token, style))
        used += need
    return rows


def _bar(left: str, label: str, right: str) -> str:
    label = label[:INNER - 2]
    return left + "─" + label + "─" * (INNER - 1 - len(label)) + right


def unit_lines(state: GameState, tile: int, lang: str) -> int:
    """How many lines the tile's units need (one, or two for a crowded castle)."""
    rows = _wrap(unit_tokens(state, tile, lang), INNER - 1, MAX_UNIT_LINES)
    return max(1, sum(1 for row in rows if row))


def tile_box(state: GameState, tile: int, lang: str, lines_for_units: int = 1) -> list[Text]:
    """The lines of one tile's box."""
    world = state.world
    terrain = world.terrain[tile]
    border = terrain_style(int(terrain))
    mark = ""
    if terrain == Terrain.CASTLE:
        mark = "+" if state.fortified[tile] else ""
        home = [p for p in range(state.n) if state.home[p] == tile]
        if home:
            mark += f" ⌂{home[0]}"
    label = f" {world.names[tile]} {i18n.terrain_name(lang, int(terrain))}{mark} "
    lines = [Text(_bar("┌", label, "┐"), style=border)]
    for row in _wrap(unit_tokens(state, tile, lang), INNER - 1, lines_for_units):
        line = Text("│ ", style=border)
        used = 1
        for i, (token, style) in enumerate(row):
            if i:
                line.append(" ")
                used += 1
            line.append(token, style=style)
            used += len(token)
        line.append(" " * max(0, INNER - used))
        line.append("│", style=border)
        lines.append(line)
    room = state.room(tile)
    lines.append(Text(_bar("└", f" {i18n.text(lang, 'free', n=room)} ", "┘"), style=border))
    return lines


def map_text(state: GameState, lang: str) -> Text:
    """The whole world, row by row."""
    world = state.world
    xs = [2 * q + r for q, r in world.coords]
    rs = [r for _, r in world.coords]
    x0 = min(xs)
    out = Text()
    for r in range(min(rs), max(rs) + 1):
        tiles = sorted((xs[t] - x0, t) for t in range(len(world.coords)) if rs[t] == r)
        height = max(unit_lines(state, t, lang) for _, t in tiles)
        boxes = [(x * HALF, tile_box(state, t, lang, height)) for x, t in tiles]
        for k in range(2 + height):
            line = Text()
            for col, box in boxes:
                line.append(" " * (col - len(line.plain)))
                line.append_text(box[k])
            out.append_text(line)
            out.append("\n")
    out.rstrip()
    return out


def legend_text(lang: str) -> Text:
    """What the two-letter unit marks and the other signs on the map mean."""
    return Text(i18n.text(lang, "legend", units=i18n.unit_legend(lang)), style="dim")
