"""One screenful: panes placed on a grid of exactly ``width`` × ``height`` cells.

Each pane is rendered by Rich into its own rectangle (cropped or padded to it), then the
rectangles are joined line by line. The result knows where every pane is, so a mouse click
can be traced back to a pane, and it prints as exactly ``height`` full lines: written after a
newline it replaces the whole previous screen, even without any cursor control (NO_COLOR).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment


@dataclass(frozen=True, slots=True)
class Region:
    x: int
    y: int
    width: int
    height: int

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height


@dataclass(slots=True)
class Pane:
    """A renderable and the rectangle it fills."""

    name: str
    region: Region
    renderable: RenderableType


@dataclass(slots=True)
class Frame:
    """The rendered screen: one list of segments per line, and where each pane went."""

    width: int
    height: int
    lines: list[list[Segment]]
    regions: dict[str, Region] = field(default_factory=dict)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for k, line in enumerate(self.lines):
            yield from line
            if k < len(self.lines) - 1:
                yield Segment.line()

    def plain_lines(self) -> list[str]:
        return ["".join(s.text for s in line) for line in self.lines]

    def pane_at(self, x: int, y: int) -> tuple[str, int, int] | None:
        """The pane under a cell and the cell's place inside it."""
        for name, region in self.regions.items():
            if region.contains(x, y):
                return name, x - region.x, y - region.y
        return None


def compose(console: Console, panes: Iterable[Pane], width: int, height: int) -> Frame:
    """Render ``panes`` into a ``width`` × ``height`` frame; cells no pane covers stay blank
    and a pane reaching past the frame is cut at its edge."""
    rows: list[list[tuple[int, list[Segment]]]] = [[] for _ in range(height)]
    regions: dict[str, Region] = {}
    for pane in panes:
        r = pane.region
        w = min(r.width, width - r.x)
        h = min(r.height, height - r.y)
        if w <= 0 or h <= 0:
            continue
        regions[pane.name] = Region(r.x, r.y, w, h)
        options = console.options.update_dimensions(w, h)
        for k, rendered in enumerate(console.render_lines(pane.renderable, options, pad=True)):
            rows[r.y + k].append((r.x, rendered))
    lines: list[list[Segment]] = []
    for row in rows:
        line: list[Segment] = []
        at = 0
        for x, segments in sorted(row, key=lambda item: item[0]):
            if x < at:  # panes never overlap; were one to, it would be left out
                continue
            if x > at:
                line.append(Segment(" " * (x - at)))
            line.extend(segments)
            at = x + Segment.get_line_length(segments)
        if at < width:
            line.append(Segment(" " * (width - at)))
        lines.append(line)
    return Frame(width, height, lines, regions)
