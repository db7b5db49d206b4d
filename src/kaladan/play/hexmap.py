"""The world drawn as offset rows of hexes: every tile a small box placed by its axial
coordinates, so neighbours (R4.2) touch diagonally or side by side.

A tile at (q, r) goes to text column ``(2q + r) * half`` and row ``r``. In the ``BOXES``
style each box shows the tile's name, terrain and castle mark (``+`` for an upgraded castle,
R19, ``⌂1`` on P1's home castle), its units grouped by owner (``P1: Ge+ Sw Sw``, the player
keeps it readable without colour) and its free room. The ``small`` styles leave the frame
out: a line with name, terrain and room (``T4 Forest  ·2``) over the units (``1:Ge+SwSw``),
for narrow screens. ``map_layout`` also says where each tile is, so a click can find it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from ..rules.state import GameState
from ..rules.units import is_upgraded, type_of
from ..rules.world import Terrain
from . import i18n
from .style import realm_style, terrain_style

MAX_UNIT_LINES = 2


@dataclass(frozen=True, slots=True)
class MapStyle:
    """How big a tile is drawn: ``half`` columns between a tile and its neighbour in the
    row below; ``box`` columns for the tile, frame included when ``framed``."""

    half: int
    box: int
    framed: bool

    @property
    def inner(self) -> int:
        return self.box - 2 if self.framed else self.box


BOXES = MapStyle(10, 19, True)


def small(half: int) -> MapStyle:
    """A frameless style, one column of space between neighbours in a row."""
    return MapStyle(half, 2 * half - 1, False)


SMALL_STYLES = tuple(small(h) for h in (8, 7, 6))


@dataclass(frozen=True, slots=True)
class MapLayout:
    """The drawn map and, per tile, its box: (column, line, width, height) in ``text``."""

    text: Text
    boxes: dict[int, tuple[int, int, int, int]]

    @property
    def width(self) -> int:
        return max((len(line) for line in self.text.plain.split("\n")), default=0)

    @property
    def height(self) -> int:
        return len(self.text.plain.split("\n"))

    def tile_at(self, column: int, line: int) -> int | None:
        for tile, (x, y, w, h) in self.boxes.items():
            if x <= column < x + w and y <= line < y + h:
                return tile
        return None


def unit_tokens(state: GameState, tile: int, lang: str,
                tight: bool = False) -> list[tuple[str, str]]:
    """(text, style) tokens for a tile's units: an owner mark (``P1:``), then its units;
    ``tight`` writes each owner's mark and units as one word (``1:CrGe+Sw``)."""
    out: list[tuple[str, str]] = []
    owner = -1
    for c in state.board[tile]:
        seat = c >> 7
        style = realm_style(state.realm[seat])
        mark = i18n.unit_abbrev(lang, type_of(c)) + ("+" if is_upgraded(c) else "")
        if seat != owner:
            out.append((f"{seat + 1}:" if tight else f"P{seat + 1}:", style))
            owner = seat
        if tight:
            out[-1] = (out[-1][0] + mark, style)
        else:
            out.append((mark, style))
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


def _bar(left: str, label: str, right: str, inner: int) -> str:
    label = label[:inner - 2]
    return left + "─" + label + "─" * (inner - 1 - len(label)) + right


def _tokens_line(row: list[tuple[str, str]], width: int) -> Text:
    line = Text()
    for i, (token, style) in enumerate(row):
        if i:
            line.append(" ")
        line.append(token, style=style)
    line.truncate(width, pad=True)
    return line


def unit_lines(state: GameState, tile: int, lang: str, style: MapStyle = BOXES) -> int:
    """How many lines the tile's units need (one, or two for a crowded castle; a small
    tile without units none)."""
    width = style.inner - 1 if style.framed else style.inner
    rows = _wrap(unit_tokens(state, tile, lang, not style.framed), width, MAX_UNIT_LINES)
    used = sum(1 for row in rows if row)
    return max(1, used) if style.framed else used


def _marks(state: GameState, tile: int) -> tuple[str, str]:
    """``+`` for an upgraded castle (R19) and ``⌂1`` on P1's home castle."""
    if state.world.terrain[tile] != Terrain.CASTLE:
        return "", ""
    home = [p for p in range(state.n) if state.home[p] == tile]
    return "+" if state.fortified[tile] else "", f"⌂{home[0] + 1}" if home else ""


def tile_box(state: GameState, tile: int, lang: str, lines_for_units: int = 1,
             style: MapStyle = BOXES) -> list[Text]:
    """The lines of one tile's box."""
    if not style.framed:
        return _small_box(state, tile, lang, lines_for_units, style)
    world = state.world
    terrain = world.terrain[tile]
    border = terrain_style(int(terrain))
    inner = style.inner
    plus, home = _marks(state, tile)
    name = f"{world.names[tile]} {i18n.terrain_name(lang, int(terrain))}{plus}"
    label = f" {name} {home} " if home else f" {name} "
    if len(label) > inner - 2:
        label = f" {name}{home} "
    lines = [Text(_bar("┌", label, "┐", inner), style=border)]
    for row in _wrap(unit_tokens(state, tile, lang), inner - 1, lines_for_units):
        line = Text("│ ", style=border)
        line.append_text(_tokens_line(row, inner - 1))
        line.append("│", style=border)
        lines.append(line)
    room = state.room(tile)
    lines.append(Text(_bar("└", f" {i18n.text(lang, 'free', n=room)} ", "┘", inner),
                      style=border))
    return lines


def _small_box(state: GameState, tile: int, lang: str, lines_for_units: int,
               style: MapStyle) -> list[Text]:
    """``T4 Forest ·2`` (the terrain cut short when it must be) over the units."""
    world = state.world
    terrain = world.terrain[tile]
    width = style.inner
    room = f"·{state.room(tile)}"
    head = world.names[tile] + " "
    rest = width - len(head) - len(room)
    marks = "".join(_marks(state, tile))  # kept whole: the terrain word is cut first
    word = i18n.terrain_name(lang, int(terrain))[:max(0, rest - len(marks))] + marks
    if len(word) < rest:  # a space before the room unless the word fills the line
        word += " "
    first = Text(head, style="bold")
    first.append(word.ljust(max(0, rest)), style=terrain_style(int(terrain)))
    first.append(room, style="dim")
    first.truncate(width, pad=True)
    lines = [first]
    if lines_for_units:
        for row in _wrap(unit_tokens(state, tile, lang, True), width, lines_for_units):
            lines.append(_tokens_line(row, width))
    return lines


def map_layout(state: GameState, lang: str, style: MapStyle = BOXES) -> MapLayout:
    """The whole world, row by row, with where each tile's box is."""
    world = state.world
    xs = [2 * q + r for q, r in world.coords]
    rs = [r for _, r in world.coords]
    x0 = min(xs)
    out = Text()
    boxes: dict[int, tuple[int, int, int, int]] = {}
    top = 0
    extra = 2 if style.framed else 1
    for r in range(min(rs), max(rs) + 1):
        tiles = sorted((xs[t] - x0, t) for t in range(len(world.coords)) if rs[t] == r)
        if not tiles:
            continue
        height = max(unit_lines(state, t, lang, style) for _, t in tiles)
        drawn = [(x * style.half, t, tile_box(state, t, lang, height, style)) for x, t in tiles]
        for col, t, _ in drawn:
            boxes[t] = (col, top, style.box, extra + height)
        for k in range(extra + height):
            line = Text()
            for col, _, box in drawn:
                line.append(" " * (col - len(line.plain)))
                line.append_text(box[k])
            out.append_text(line)
            out.append("\n")
        top += extra + height
    out.rstrip()
    return MapLayout(out, boxes)


def map_text(state: GameState, lang: str, style: MapStyle = BOXES) -> Text:
    """The whole world, row by row."""
    return map_layout(state, lang, style).text


def legend_text(lang: str) -> Text:
    """What the two-letter unit marks and the other signs on the map mean."""
    return Text(i18n.text(lang, "legend", units=i18n.unit_legend(lang)), style="dim")
