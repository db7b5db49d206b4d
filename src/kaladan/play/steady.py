"""The steady screen of a terminal game: everything on one screenful that never scrolls.

From top to bottom: the header (turn, phase, who decides), the map, the players, and the
choices beside the last battle and the log; the event card and the hand sit next to the map
when it leaves room, else in the column of the log. What the player asks to read (help, odds,
costs, the whole log, the hand) takes the place of the choices until the next answer, and a
list longer than its pane is paged (``+``/``-``, PgDn/PgUp, the mouse wheel). The layout is
worked out anew for every size: 120 × 40 holds every pane, below 100 columns a compact layout
keeps the map, the players, the choices and the last log lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from ..rules.state import GameState
from . import i18n
from .choices import Choice, Row, at_tiles, rows
from .frame import Frame, Pane, Region, compose
from .hexmap import BOXES, SMALL_STYLES, MapLayout, legend_text, map_layout
from .render import (
    LogEntry,
    event_body,
    hand_body,
    header,
    players_table,
    reserve_text,
    rules_text,
    seat_name,
)
from .savefile import SeatPlan
from .style import realm_style

WIDE = 100  # from this many columns on, the panes stand side by side
SIDE = 32  # the narrowest column beside the map worth having
MIN_CHOICES = 9  # lines the choices keep at least (their frame included)
TIGHT_CHOICES = 6  # ... when a big world is shown on a small screen
MIN_BOTTOM = 14  # lines the choices and the log keep at least on a wide screen
MESSAGE_LINES = 4  # at most this many lines of messages above the prompt


@dataclass(slots=True)
class Info:
    """A text the player asked to read, shown in place of the choices."""

    title: str
    lines: list[Text]


@dataclass(slots=True)
class View:
    """What the player has asked to see besides the game, kept between answers."""

    messages: list[tuple[str, str]] = field(default_factory=list)  # (text, style)
    info: Info | None = None
    shown: list[Choice] | None = None  # a filtered list of choices, or all
    title: str = ""  # the filtered list's title
    tiles: list[str] = field(default_factory=list)  # tiles clicked on the map
    page: int = 0
    last_page: bool = False  # open the info at its end (the log)

    def reset(self, messages: bool = True) -> None:
        """Back to the choices, page one; ``messages`` False keeps the messages."""
        if messages:
            self.messages.clear()
        self.info = None
        self.shown = None
        self.title = ""
        self.tiles.clear()
        self.page = 0
        self.last_page = False


@dataclass(frozen=True, slots=True)
class Scene:
    """The game as the screen shows it to ``viewer`` (None: nobody's hand)."""

    state: GameState
    plan: SeatPlan
    lang: str
    viewer: int | None
    log: Sequence[LogEntry]
    battles: Sequence[Text]
    choices: Sequence[Choice]
    offered: Sequence[str] = ()
    give: str = ""


@dataclass(slots=True)
class Drawn:
    """A drawn screen and what a click on it means."""

    frame: Frame
    map: MapLayout | None = None
    map_at: tuple[int, int] = (0, 0)  # where the map's first cell is inside its pane
    rows: list[Row] = field(default_factory=list)  # the choice rows on the page shown
    pages: int = 1
    map_names: Sequence[str] = ()

    def click(self, x: int, y: int) -> tuple[str, str] | None:
        """``("tile", "T4")``, ``("choice", "12")`` or None for a cell of the screen."""
        hit = self.frame.pane_at(x, y)
        if hit is None:
            return None
        pane, px, py = hit
        if pane == "map" and self.map is not None:
            tile = self.map.tile_at(px - self.map_at[0], py - self.map_at[1])
            if tile is not None:
                return "tile", self.map_names[tile]
        if pane == "choices" and 1 <= py <= len(self.rows):
            number = self.rows[py - 1].number_at(px - 2)
            if number is not None:
                return "choice", str(number)
        return None


def _wrap(console: Console, text: Text, width: int) -> list[Text]:
    return list(text.wrap(console, max(1, width)))


def _boxed(title: str, lines: Sequence[Text], style: str = "", subtitle: str = "") -> Panel:
    body = Text("\n").join(lines) if lines else Text()
    return Panel(body, title=title, title_align="left", subtitle=subtitle or None,
                 subtitle_align="right", border_style=style, box=box.ROUNDED)


def _fit(console: Console, text: Text, width: int, height: int, tail: bool = False,
         more: str = "") -> tuple[list[Text], bool]:
    """The lines of ``text`` wrapped to ``width`` that fit ``height``: its start (or its end,
    ``tail``), and whether some were left out."""
    lines = _wrap(console, text, width)
    if len(lines) <= height:
        return lines, False
    if tail:
        return lines[len(lines) - height:], True
    kept = lines[:max(0, height - 1)] if more else lines[:height]
    if more:
        kept.append(Text(more, style="dim"))
    return kept, True


def _stack(items: Sequence[tuple[str, int, int]], total: int) -> dict[str, int]:
    """Heights for panes one above the other: each gets its minimum, then in order what it
    wants, and the last one whatever is left."""
    heights = {name: low for name, low, _ in items}
    spare = total - sum(heights.values())
    for name, low, want in items:
        extra = max(0, min(spare, want - low))
        heights[name] += extra
        spare -= extra
    if items and spare > 0:
        heights[items[-1][0]] += spare
    return heights


class _Builder:
    """Lays one scene out on a screen of a given size."""

    def __init__(self, console: Console, scene: Scene, view: View, width: int,
                 height: int) -> None:
        self.console, self.scene, self.view = console, scene, view
        self.width, self.height = width, height
        self.panes: list[Pane] = []
        self.drawn = Drawn(Frame(width, height, []))

    def t(self, key: str, **values: object) -> str:
        return i18n.text(self.scene.lang, key, **values)

    # --- panes ---------------------------------------------------------------------------

    def add(self, name: str, x: int, y: int, w: int, h: int, renderable: RenderableType) -> None:
        if w > 0 and h > 0:
            self.panes.append(Pane(name, Region(x, y, w, h), renderable))

    def header_lines(self) -> list[Text]:
        s = self.scene
        out = [header(s.state, s.plan, s.lang)]
        rules = rules_text(s.state, s.lang)
        if rules is not None:
            out.append(rules)
        for line in out:
            line.no_wrap = True
            line.overflow = "ellipsis"
        return out

    def message_lines(self) -> list[Text]:
        lines: list[Text] = []
        for message, style in self.view.messages:
            lines += _wrap(self.console, Text(message, style=style), self.width)
        if len(lines) > MESSAGE_LINES:
            lines = lines[:MESSAGE_LINES - 1] + [Text("…", style="dim")]
        if lines:
            return lines
        shown = self.scene.choices
        example = shown[min(1, len(shown) - 1)].notation if shown else "help"
        hint = Text(self.t("options_hint", example=example), style="dim")
        hint.truncate(self.width, overflow="ellipsis")
        return [hint]

    def choose_map(self, width: int, height: int, framed: bool) -> MapLayout:
        """The largest map style that fits; the smallest one when none does."""
        state, lang = self.scene.state, self.scene.lang
        pad = 4 if framed else 0
        layout = map_layout(state, lang, SMALL_STYLES[-1])
        for style in (BOXES, *SMALL_STYLES):
            candidate = map_layout(state, lang, style)
            if candidate.width + pad <= width and candidate.height + (2 if framed else 0) \
                    <= height:
                return candidate
        return layout

    def map_pane(self, layout: MapLayout, x: int, y: int, w: int, h: int) -> None:
        body = Text()
        body.append_text(layout.text)
        legend = legend_text(self.scene.lang)
        room = h - 2 - layout.height
        legend_lines = _wrap(self.console, legend, w - 4)
        if room >= len(legend_lines) + 1:
            body.append("\n\n" if room > len(legend_lines) + 1 else "\n")
            body.append_text(legend)
        self.add("map", x, y, w, h, Panel(body, title=self.t("map"), title_align="left",
                                          box=box.ROUNDED))
        self.drawn.map, self.drawn.map_at = layout, (2, 1)

    def text_pane(self, name: str, title: str, body: Text, x: int, y: int, w: int, h: int,
                  tail: bool = False, style: str = "", more: str = "") -> None:
        lines, _ = _fit(self.console, body, w - 4, h - 2, tail, more)
        self.add(name, x, y, w, h, _boxed(title, lines, style))

    def battle_pane(self, body: Text, x: int, y: int, w: int, h: int) -> None:
        """The last battle; cut short, its first line (who attacks whom) and its end (the
        hits, the dead, the result), the middle for ``battle``."""
        lines = _wrap(self.console, body, w - 4)
        room = h - 2
        if len(lines) > room >= 3:
            lines = [lines[0], Text(self.t("battle_more"), style="dim"),
                     *lines[len(lines) - room + 2:]]
        self.add("battle", x, y, w, h, _boxed(self.t("last_battle"), lines[:max(0, room)],
                                              "red"))

    def log_pane(self, x: int, y: int, w: int, h: int) -> None:
        """The last log entries that fit whole, the newest at the bottom."""
        lines: list[Text] = []
        for entry in reversed(self.scene.log):
            wrapped = _wrap(self.console, Text(entry.text, style=entry.style), w - 4)
            if len(lines) + len(wrapped) > h - 2:
                if not lines:  # not even the newest fits whole: its start, cut short
                    lines = wrapped[:max(1, h - 2)]
                    lines[-1] = lines[-1].copy()
                    lines[-1].append("…", style="dim")
                break
            lines = wrapped + lines
        if not self.scene.log:
            lines = [Text(self.t("log_empty"), style="dim")]
        self.add("log", x, y, w, h, _boxed(self.t("log"), lines))

    def want(self, body: Text, width: int) -> int:
        return len(_wrap(self.console, body, width - 4)) + 2

    def log_body(self) -> Text:
        out = Text()
        for i, entry in enumerate(self.scene.log):
            if i:
                out.append("\n")
            out.append(entry.text, style=entry.style)
        return out or Text(self.t("log_empty"), style="dim")

    def battle_body(self) -> Text:
        return Text("\n\n").join(self.scene.battles[-1:])

    def hand_text(self) -> Text:
        s = self.scene
        if s.viewer is None or s.state.is_over:
            return Text()
        body = hand_body(s.state, s.lang, s.viewer, s.offered)
        for ally in s.state.allies(s.viewer):  # R23.5: allies show each other their cards
            body.append("\n")
            body.append(seat_name(s.state, s.plan, s.lang, ally) + ":", style="bold underline")
            body.append("\n")
            body.append_text(hand_body(s.state, s.lang, ally))
        return body

    def hand_names(self) -> Text:
        """The cards of the hand (and the allies' and those the options name) by name
        only, for a pane too small for their texts."""
        s = self.scene
        if s.viewer is None:
            return Text()
        state = s.state
        groups = [("", state.hand[s.viewer])]
        groups += [(seat_name(state, s.plan, s.lang, ally) + ":", state.hand[ally])
                   for ally in state.allies(s.viewer)]
        if s.offered:
            groups.append((self.t("offered"), list(s.offered)))
        lines = []
        for head, cards in groups:
            if head:
                lines.append(Text(head, style="underline"))
            lines += [Text(f"{card}  {i18n.card_name(s.lang, card)}") for card in cards]
        if not lines:
            return Text(self.t("no_cards"), style="dim")
        lines.append(Text(self.t("hand_more"), style="dim"))  # the texts are a command away
        return Text("\n").join(lines)

    def hand_title(self) -> str:
        s = self.scene
        if s.viewer is None:
            return ""
        return self.t("hand_of", who=seat_name(s.state, s.plan, s.lang, s.viewer))

    def column(self, x: int, y: int, w: int, h: int, names: Sequence[str]) -> None:
        """Panes one above the other: the event card, the hand, the last battle, the log."""
        s = self.scene
        bodies = {"event": self.event_text(), "hand": self.hand_text(),
                  "battle": self.battle_body(), "log": self.log_body()}
        present = [n for n in names if n != "hand" or s.viewer is not None]
        present = [n for n in present if n != "battle" or s.battles]
        if not present:
            return
        lows = {"event": 3, "hand": 3, "battle": 4, "log": 3}
        wants = {n: self.want(bodies[n], w) for n in present}
        if "log" in present:  # the log keeps a third of the column
            wants["log"] = max(lows["log"], h // 3)
            if "battle" in present:
                wants["battle"] = min(wants["battle"], h - wants["log"])
        heights = _stack([(n, min(lows[n], wants[n]), wants[n]) for n in present], h)
        at = y
        titles = {"event": self.t("event_drawn"), "hand": self.hand_title(),
                  "battle": self.t("last_battle"), "log": self.t("log")}
        styles = {"hand": realm_style(s.state.realm[s.viewer]) if s.viewer is not None
                  else "", "battle": "red"}
        state = s.state
        if "hand" in present and heights["hand"] < wants["hand"] and s.viewer is not None and (
                len(state.hand[s.viewer]) > 1 or s.offered or state.allies(s.viewer)):
            bodies["hand"] = self.hand_names()  # no room for every text: the names
        for n in present:
            if n == "log":
                self.log_pane(x, at, w, heights[n])
            elif n == "battle":
                self.battle_pane(bodies[n], x, at, w, heights[n])
            else:
                self.text_pane(n, titles[n], bodies[n], x, at, w, heights[n],
                               style=styles.get(n, ""),
                               more=self.t("hand_more") if n == "hand" else "")
            at += heights[n]

    def event_text(self) -> Text:
        return event_body(self.scene.state, self.scene.lang)

    def choices_pane(self, x: int, y: int, w: int, h: int) -> None:
        """The choices (or the text asked for), paged to fit."""
        view, s = self.view, self.scene
        body_h = max(1, h - 2)
        if view.info is not None:
            lines = [line for text in view.info.lines
                     for line in _wrap(self.console, text, w - 4)]
            title, rows_ = view.info.title, [Row(line, ()) for line in lines]
        else:
            shown = s.choices if view.shown is None else view.shown
            rows_ = rows(shown, w - 4)
            if s.give and view.shown is None:
                rows_ += [Row(line, ()) for line in
                          _wrap(self.console, Text(s.give, style="dim"), w - 4)]
            title = view.title or self.t("actions")
        pages = max(1, -(-len(rows_) // body_h))
        if view.last_page:
            view.page, view.last_page = pages - 1, False
        view.page = max(0, min(view.page, pages - 1))
        page = rows_[view.page * body_h:(view.page + 1) * body_h]
        hint = self.t("page", k=view.page + 1, n=pages) if pages > 1 else ""
        if view.info is not None or view.shown is not None:
            hint = (hint + " · " if hint else "") + self.t("back_hint")
        self.add("choices", x, y, w, h, _boxed(title, [r.text for r in page], "bold", hint))
        self.drawn.rows, self.drawn.pages = page, pages

    def players_lines(self, width: int) -> list[Text]:
        """One short line per player, for the compact layout."""
        s = self.scene
        out = []
        for seat in range(s.state.n):
            state = s.state
            line = Text("◀ " if seat == state.pending.seat else "  ")
            line.append(seat_name(state, s.plan, s.lang, seat),
                        style=realm_style(state.realm[seat]))
            if seat == s.viewer:
                line.append(" (" + self.t("you") + ")")
            line.append(f" · {self.t('col_gold')} {state.gold[seat]}"
                        f" · {self.t('col_hand')} {len(state.hand[seat])}"
                        f" · {reserve_text(state, seat, s.lang)}")
            line.truncate(width, overflow="ellipsis")
            out.append(line)
        return out

    # --- layouts -------------------------------------------------------------------------

    def wide(self) -> bool:
        """The panes side by side; False (nothing laid out) when the map would not fit."""
        s, w = self.scene, self.width
        head = self.header_lines()
        self.add("header", 0, 0, w, len(head), Group(*head))
        messages = self.message_lines()
        end = self.height - len(messages)
        self.add("messages", 0, end, w, len(messages), Group(*messages))
        players = players_table(s.state, s.plan, s.lang, s.viewer, titled=False)
        players_h = len(self.console.render_lines(
            players, self.console.options.update(width=w), pad=False))
        top = len(head)
        room = end - top - players_h - min(MIN_BOTTOM, max(MIN_CHOICES, self.height // 3))
        layout = self.choose_map(w - SIDE, room, framed=True)
        map_w = layout.width + 4
        side = w - map_w >= SIDE and layout.height + 2 <= room
        if not side:
            layout = self.choose_map(w, room, framed=True)
            if layout.height + 2 > room:  # a crowded map: the choices give up some lines
                room = end - top - players_h - MIN_CHOICES
                layout = self.choose_map(w, room, framed=True)
            map_w = min(w, layout.width + 4)
        if layout.height + 2 > room or map_w < layout.width + 4:
            self.panes.clear()
            return False
        map_h = layout.height + 2
        band = map_h
        if side:
            wants = self.want(self.event_text(), w - map_w) + self.want(self.hand_text(),
                                                                         w - map_w)
            band = max(map_h, min(wants, map_h + 3, room))  # the hand is cut, not the choices
            self.column(map_w, top, w - map_w, band, ("event", "hand"))
            self.map_pane(layout, 0, top, map_w, band)
        else:
            self.map_pane(layout, max(0, (w - map_w) // 2), top, map_w, band)
        self.add("players", 0, top + band, w, players_h, players)
        y = top + band + players_h
        h = end - y
        if self.view.info is not None:  # a text asked for: the whole width to read it
            self.choices_pane(0, y, w, h)
            return True
        right = max(36, min(64, w * 2 // 5))
        self.choices_pane(0, y, w - right, h)
        names = ("battle", "log") if side else ("event", "hand", "battle", "log")
        self.column(w - right, y, right, h, names)
        return True

    def compact(self) -> None:
        w = self.width
        head = self.header_lines()[:1]
        self.add("header", 0, 0, w, 1, Group(*head))
        messages = self.message_lines()[:2]
        end = self.height - len(messages)
        self.add("messages", 0, end, w, len(messages), Group(*messages))
        players = self.players_lines(w)
        room = end - 1 - MIN_CHOICES - min(len(players), 2)
        layout = self.choose_map(w, room, framed=False)
        if layout.height > room:  # a big world: fewer choices and players at a time
            room = end - 1 - TIGHT_CHOICES - 1
            layout = self.choose_map(w, room, framed=False)
        map_h = min(layout.height, max(1, room))
        self.add("map", 0, 1, w, map_h, layout.text)
        self.drawn.map, self.drawn.map_at = layout, (0, 0)
        y = 1 + map_h
        spare = end - y - MIN_CHOICES
        if spare < len(players):  # the player deciding, then the others that fit
            mover = self.scene.state.pending.seat
            keep = max(1, spare)
            players = ([players[mover]] if 0 <= mover < len(players) else []) + [
                line for k, line in enumerate(players) if k != mover][:keep - 1]
        self.add("players", 0, y, w, len(players), Group(*players))
        y += len(players)
        log_h = 2 if end - y - MIN_CHOICES >= 3 else 0
        self.choices_pane(0, y, w, end - y - log_h)
        if log_h:
            lines, _ = _fit(self.console, self.log_body(), w, log_h, tail=True)
            self.add("log", 0, end - log_h, w, log_h, Group(*lines))

    def build(self) -> Drawn:
        if self.width < WIDE or not self.wide():
            self.drawn = Drawn(Frame(self.width, self.height, []))
            self.compact()
        self.drawn.frame = compose(self.console, self.panes, self.width, self.height)
        self.drawn.map_names = self.scene.state.world.names
        return self.drawn


def draw(console: Console, scene: Scene, view: View, width: int, height: int) -> Drawn:
    """The screen for ``scene`` on ``width`` × ``height`` cells (the prompt's line not
    included)."""
    return _Builder(console, scene, view, max(20, width), max(8, height)).build()


def notice(console: Console, message: str, width: int, height: int) -> Frame:
    """A screen with nothing but ``message`` in its middle (the hot-seat handover)."""
    lines = _wrap(console, Text(message, style="bold"), width)
    top = max(0, (height - len(lines)) // 2)
    return compose(console, [Pane("notice", Region(0, top, width, len(lines)), Group(*lines))],
                   width, height)


class Source(Protocol):
    """What the steady screen of a decision reads of its session."""

    view: View

    def scene(self, seat: int | None) -> Scene: ...

    def options(self) -> list[Choice]: ...

    def tell(self, message: str, style: str = "") -> None: ...

    def t(self, key: str, **values: object) -> str: ...


class DecisionPainter:
    """The steady screen of one human decision (a ``screen.Painter``)."""

    def __init__(self, source: Source, seat: int) -> None:
        self.source, self.seat = source, seat
        self.drawn: Drawn | None = None

    def paint(self, console: Console, width: int, height: int) -> Frame:
        s = self.source
        self.drawn = draw(console, s.scene(self.seat), s.view, width, height)
        return self.drawn.frame

    def scroll(self, pages: int) -> None:
        self.source.view.page += pages

    def click(self, x: int, y: int) -> str | None:
        """A choice clicked is answered with its number; a tile clicked lists the choices
        that name it (two tiles: those that name both), once more: no longer."""
        hit = self.drawn.click(x, y) if self.drawn is not None else None
        if hit is None:
            return None
        what, value = hit
        if what == "choice":
            return value
        s, view = self.source, self.source.view
        view.messages.clear()
        view.info = None
        tiles = view.tiles
        if value in tiles:
            tiles.remove(value)
        else:
            tiles[:] = [*tiles[-1:], value]
        found = at_tiles(s.options(), tiles) if tiles else None
        if found == []:
            s.tell(s.t("none_here", tiles=" + ".join(tiles)))
            tiles[:] = tiles[-1:] if len(tiles) > 1 else []
            found = at_tiles(s.options(), tiles) if tiles else None
        view.shown = found
        view.title = s.t("at_tiles", tiles=" + ".join(tiles)) if tiles else ""
        view.page = 0
        return None


class Notice:
    """A screen with one message (the hot-seat handover): nothing of the last player's."""

    def __init__(self, message: str) -> None:
        self.message = message

    def paint(self, console: Console, width: int, height: int) -> Frame:
        return notice(console, self.message, width, height)

    def scroll(self, pages: int) -> None:
        pass

    def click(self, x: int, y: int) -> str | None:
        return None
