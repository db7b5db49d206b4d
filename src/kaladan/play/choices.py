"""The numbered choices of one decision, in words, in the order they are shown.

Every legal action but the gifts (R23.11: the ``give`` command makes them at any prompt) is a
choice, read off the engine's offer of the pending decision (``rules/offer.py``: its groups,
each action's price). Choices are grouped by kind, in the order the engine lists the kinds,
with the kinds that come in large numbers (moves, swaps and the cards' unit choices) after
the others, so ``pass`` and the attacks are never pages away. The numbers follow that order,
which is the reading order of the list: left to right, then down.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from ..game import Game
from ..odds import odds_for_attack
from ..rules.actions import ATTACK, DEPLOY, GIFT, HARMONY, MOVE, RELOCATE, SWAP, Action, Kind
from ..rules.errors import KaladanError
from ..rules.offer import offer
from . import words

_MANY = frozenset({MOVE, SWAP, HARMONY, RELOCATE, DEPLOY})  # combinatorial kinds: last
GAP = 2  # columns between two choices side by side


@dataclass(frozen=True, slots=True)
class Choice:
    number: int  # 1-based, as typed
    action: Action
    notation: str  # the action's text form, also accepted as input
    words: str  # the same in the session's language, with its price
    tiles: frozenset[str]  # the tiles it names, for a click on the map

    def label(self, digits: int) -> str:
        return f"{self.number:>{digits}}. {self.words}"


def percent(p: float) -> str:
    return f"{100 * p:.1f}%"


def win_chance(game: Game, action: Action) -> str:
    """The exact chance that an attack declared now wins (``kaladan.odds``), or ``?``."""
    try:
        odds = odds_for_attack(game.state, action.tile, action.tile2)
    except KaladanError:
        return "?"
    return percent(float(odds.attacker_wins))


def ordered(legal: Sequence[Action]) -> list[Action]:
    """The choices of a decision in the order they are numbered (see the module doc)."""
    groups: dict[Kind, list[Action]] = {}
    for action in legal:
        if action.kind is not GIFT:
            groups.setdefault(action.kind, []).append(action)
    kinds = sorted(groups, key=lambda kind: kind in _MANY)  # stable: engine order otherwise
    return [a for kind in kinds for a in groups[kind]]


def build(game: Game, lang: str) -> list[Choice]:
    """The numbered choices of the pending decision."""
    state = game.state
    pending = offer(state)
    names = state.world.names
    actions = [a for group in pending.groups if group.kind is not GIFT
               for a in pending.actions(group)]
    out = []
    for number, action in enumerate(ordered(actions), 1):
        chance = win_chance(game, action) if action.kind is ATTACK else ""
        tiles = frozenset(names[t] for t in (action.tile, action.tile2) if t >= 0)
        out.append(Choice(number, action, game.format(action),
                          words.describe(action, state, lang, chance), tiles))
    return out


def matching(choices: Sequence[Choice], text: str) -> list[Choice]:
    """The choices whose notation starts with ``text``, or whose words contain it (any case):
    ``move T2``, ``attack``, ``sword``."""
    wanted = text.lower()
    return [c for c in choices
            if c.notation.lower().startswith(wanted) or wanted in c.words.lower()]


def at_tiles(choices: Sequence[Choice], tiles: Sequence[str]) -> list[Choice]:
    """The choices that name every one of ``tiles`` (a click on the map)."""
    return [c for c in choices if all(t in c.tiles for t in tiles)]


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the list and which choice each stretch of it stands for."""

    text: Text
    spans: tuple[tuple[int, int, int], ...]  # (first column, end column, choice number)

    def number_at(self, column: int) -> int | None:
        for start, end, number in self.spans:
            if start <= column < end:
                return number
        return None


def rows(choices: Sequence[Choice], width: int, columns: int = 3) -> list[Row]:
    """The choices as lines of at most ``width`` columns: each kind starts a new line, and a
    kind whose texts are short enough fills up to ``columns`` columns, left to right."""
    if not choices:
        return []
    digits = len(str(max(c.number for c in choices)))
    out: list[Row] = []
    group: list[Choice] = []
    for choice in choices:
        if group and choice.action.kind != group[-1].action.kind:
            out += _grid(group, width, digits, columns)
            group = []
        group.append(choice)
    out += _grid(group, width, digits, columns)
    return out


def _grid(group: Sequence[Choice], width: int, digits: int, columns: int) -> list[Row]:
    labels = [c.label(digits) for c in group]
    cell = max(len(label) for label in labels) + GAP
    per_row = max(1, min(columns, (width + GAP) // cell, len(group)))
    if per_row == 1:
        return [row for choice, label in zip(group, labels, strict=True)
                for row in _wrapped(choice, label, width, digits)]
    out = []
    for k in range(0, len(group), per_row):
        text = Text()
        spans = []
        for choice, label in zip(group[k:k + per_row], labels[k:k + per_row], strict=True):
            start = len(text.plain)
            _label(text, label, digits)
            text.append(" " * (cell - len(label)))
            spans.append((start, start + cell, choice.number))
        text.rstrip()
        out.append(Row(text, tuple(spans)))
    return out


def _label(text: Text, label: str, digits: int) -> None:
    text.append(label[:digits + 1], style="bold")  # the number stands out
    text.append(label[digits + 1:])


def _wrapped(choice: Choice, label: str, width: int, digits: int) -> list[Row]:
    """One choice on as many lines as it needs, continued under its words."""
    room = max(8, width - digits - 2)
    lines: list[str] = []
    line = ""
    for word in label[digits + 2:].split(" "):
        if line and len(line) + 1 + len(word) > room:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    out = []
    for k, part in enumerate(lines):
        text = Text()
        if k == 0:
            _label(text, label[:digits + 2] + part, digits)
        else:
            text.append(" " * (digits + 2) + part)
        out.append(Row(text, ((0, width, choice.number),)))
    return out
