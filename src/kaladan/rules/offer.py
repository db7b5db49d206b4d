"""The pending decision as every front end reads it: who decides, what is asked, and the
legal actions in groups (``Offer``); and why an action is refused (``refusal``).

The legal list of a decision can hold thousands of moves and swaps: every sub-multiset of a
tile's units that fits the destination. The generator (``legal.py``) makes them in blocks,
one per pair of tiles, and builds a block's actions only when asked. A ``Group`` describes a
block without building it (the units to choose from and how many may go) or holds one
listed action, always with its place in the legal list, its price and the catalogue key of
its words. The server's views, the research environments' masks, the terminal's choices and
the refusal reasons are all read from these groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, final

from .actionlist import ActionList
from .actions import Action, Kind
from .kinds import DECISIONS, SPECS, Form, KindSpec, format_action, unit_words
from .legal import Why, explain, legal_actions
from .native import mypyc_attr
from .state import Decision, GameState
from .units import Seat, UnitCode

_PURCHASE: Final = Decision.PURCHASE
_EVENT: Final = Decision.EVENT


@final
@mypyc_attr(acyclic=True)
class Group:
    """Legal actions of one kind, ``start``..``stop - 1`` in the decision's legal list.

    A group of one holds its ``action``. A group of many (``action`` is None) is a block of
    moves or swaps: every set of ``low``..``high`` of ``units`` going from ``tile`` to
    ``tile2`` (sub-multisets: equal units are interchangeable), for a swap against every set
    of ``low2``..``high2`` of ``units2`` coming back, equal sets left out, in the engine's
    order (smaller sets first). ``price`` is the gold it costs (R11.1), ``label`` the
    catalogue key of its words (``act.<kind>`` and variants): both worked out when asked (the
    research environments' masks never ask)."""

    __slots__ = ("kind", "start", "stop", "tile", "tile2", "units", "units2", "low", "high",
                 "low2", "high2", "action", "decision")

    def __init__(self, kind: Kind, start: int, stop: int, tile: int, tile2: int,
                 units: tuple[UnitCode, ...], units2: tuple[UnitCode, ...], low: int, high: int,
                 low2: int, high2: int, action: Action | None, decision: Decision) -> None:
        self.kind: Final = kind
        self.start: Final = start
        self.stop: Final = stop
        self.tile: Final = tile
        self.tile2: Final = tile2
        self.units: Final = units
        self.units2: Final = units2
        self.low: Final = low
        self.high: Final = high
        self.low2: Final = low2
        self.high2: Final = high2
        self.action: Final = action
        self.decision: Final = decision

    @property
    def count(self) -> int:
        return self.stop - self.start

    @property
    def price(self) -> int:
        return 0 if self.action is None else price(self.action, self.decision)

    @property
    def label(self) -> str:
        spec = SPECS[self.kind]
        return spec.label if self.action is None else label(spec, self.action, self.decision)

    def __repr__(self) -> str:
        if self.action is not None:
            return f"Group({self.action!r}, start={self.start}, price={self.price})"
        return (f"Group(Kind.{self.kind.name}, {self.start}..{self.stop}, tile={self.tile}, "
                f"tile2={self.tile2}, units={self.units}, sizes=({self.low}, {self.high}), "
                f"units2={self.units2}, sizes2=({self.low2}, {self.high2}))")


def price(action: Action, decision: Decision) -> int:
    """The gold ``action`` costs when ``decision`` offers it: a purchase's price in the
    Purchase phase (R11.1); anything else, an event's free upgrade included (R7.9), is free."""
    spec = SPECS[action.kind]
    return spec.price(action) if spec.price is not None and decision is _PURCHASE else 0


def _one(action: Action, index: int, decision: Decision) -> Group:
    n = len(action.units)
    n2 = len(action.units2)
    return Group(action.kind, index, index + 1, action.tile, action.tile2, action.units,
                 action.units2, n, n, n2, n2, action, decision)


def label(spec: KindSpec, action: Action, decision: Decision) -> str:
    """The catalogue key of an action's words: ``act.<kind>``; ``act.<kind>_event`` for an
    event card's own terms (a free upgrade, R7.9); ``act.<kind>_plain`` when an optional
    card is left out (a card taken at random, R11.13)."""
    if decision is _EVENT and spec.event_label:
        return spec.event_label
    for slot in spec.slots:
        if slot.optional and slot.form is Form.CARD and not getattr(action, slot.field):
            return spec.label + "_plain"
    return spec.label


@final
class Offer:
    """The pending decision: its seat, what it asks (``decision``, ``rule``, ``expects``),
    its legal actions (``legal``, as ``legal_actions`` lists them: indices are theirs) and
    their ``groups`` in list order. Build it with ``offer(state)``."""

    __slots__ = ("seat", "decision", "rule", "expects", "legal", "groups")

    def __init__(self, seat: Seat, decision: Decision, legal: Sequence[Action],
                 groups: list[Group]) -> None:
        spec = DECISIONS[decision]
        self.seat: Final = seat
        self.decision: Final = decision
        self.rule: Final = spec.rule
        self.expects: Final = spec.expects
        self.legal: Final = legal
        self.groups: Final = groups

    def actions(self, group: Group) -> list[Action]:
        """The actions of ``group``, built."""
        return group_actions(self.legal, group)

    def of_kind(self, kind: Kind) -> list[Group]:
        return [g for g in self.groups if g.kind is kind]


def offer(state: GameState) -> Offer:
    """The pending decision of ``state`` with its legal actions in groups."""
    pending = state.pending
    legal = legal_actions(state)
    return Offer(pending.seat, pending.kind, legal, grouped(legal, pending.kind))


def group_actions(legal: Sequence[Action], group: Group) -> list[Action]:
    """The actions of ``group`` (one of ``grouped(legal, ...)``), built."""
    if group.action is not None:
        return [group.action]
    if isinstance(legal, ActionList):
        return legal.between(group.start, group.stop)
    return list(legal[group.start:group.stop])


def grouped(legal: Sequence[Action], decision: Decision) -> list[Group]:
    """The groups of a decision's legal actions, in list order: blocks of moves and swaps
    stay unbuilt; every other action is a group of its own."""
    groups: list[Group] = []
    if not isinstance(legal, ActionList):
        for j, action in enumerate(legal):
            groups.append(_one(action, j, decision))
        return groups
    starts = legal.starts
    size = legal.size
    for i in range(len(legal.parts)):
        start = starts[i]
        part = legal.parts[i]
        shape = None if isinstance(part, list) else part.shape()
        if shape is None:
            for j, action in enumerate(legal.part(i)):
                groups.append(_one(action, start + j, decision))
            continue
        stop = starts[i + 1] if i + 1 < len(starts) else size
        kind, tile, tile2, units, units2, low, high, low2, high2 = shape
        groups.append(Group(kind, start, stop, tile, tile2, units, units2, low, high, low2,
                            high2, None, decision))
    return groups


# --- refusals ------------------------------------------------------------------------


def refusal(state: GameState, action: Action) -> tuple[str, str]:
    """Why ``action`` is not legal now, as (rule id, reason): what the generator says of it
    (``legal.explain``) and the groups it offers, read against the kind's spec; nothing is
    worked out again (STYLE: let the generator say why).

    In order: the pending decision does not take the kind (its rule, and when the kind can
    be chosen); a tile it names does not exist; the generator turned it down with a reason
    (by its tiles and unit); the generator offers actions of the kind at its tiles, but none
    with its units, sizes or names (the bounds the groups carry); it names a tile the
    generator did not start from, or one it did not look at from there; no action of the
    kind is offered at all; otherwise the tiles that are offered."""
    pending = state.pending
    spec = SPECS[action.kind]
    if pending.kind not in spec.decisions:
        expects = DECISIONS[pending.kind]
        return expects.rule, (f"'{action.kind}' is not possible now: the seat to decide must "
                              f"{expects.expects} (phase {state.phase.label}); {spec.when}")
    size = len(state.board)
    if action.tile >= size or action.tile2 >= size:
        return "R4.4", "a tile it names does not exist"
    why = explain(state)
    kind, tile, tile2 = action.kind, action.tile, action.tile2
    unit = action.units[0] if action.units else -1
    for key in ((kind, tile, tile2, unit), (kind, tile, tile2, -1), (kind, tile, -1, -1),
                (kind, -1, -1, unit), (kind, -1, -1, -1)):
        said = why.notes.get(key)
        if said is not None:
            return said
    groups = offer(state).of_kind(kind)
    names = state.world.names
    words: dict[str, object] = {"kind": kind.value, "tile": _name(names, tile),
                               "tile2": _name(names, tile2),
             "low": "", "high": "", "choices": ""}
    here = [g for g in groups if g.tile == tile and g.tile2 == tile2]
    if here:
        blocks = [g for g in here if g.action is None]
        if blocks:
            return _block_refusal(state, spec, action, blocks, why, words)
        words["choices"] = ", ".join(sorted({_text(g, state) for g in here}))
        return _say(spec, "what", words)
    sources = why.sources.get(kind)
    if sources is not None and tile not in sources and "source" in spec.refusals:
        return _say(spec, "source", words)
    targets = why.targets.get((kind, tile))
    if (targets is not None and tile2 >= 0 and tile2 not in targets
            and "target" in spec.refusals):
        return _say(spec, "target", words)
    if not groups:
        return _say(spec, "none", words)
    words["choices"] = _tile_choices(groups, names)
    return _say(spec, "where", words)


def _say(spec: KindSpec, key: str, words: dict[str, object]) -> tuple[str, str]:
    refusal = spec.refusals[key]
    return refusal.rule, refusal.reason.format(**words)


def _name(names: Sequence[str], tile: int) -> str:
    return names[tile] if 0 <= tile < len(names) else "-"


def _tile_choices(groups: list[Group], names: Sequence[str]) -> str:
    """The tiles of the groups in words: ``T1 → T2, T3; T4 → T5`` or ``T1, T3``."""
    order: list[int] = []
    targets: dict[int, list[str]] = {}
    for g in groups:
        if g.tile not in targets:
            order.append(g.tile)
            targets[g.tile] = []
        if g.tile2 >= 0 and names[g.tile2] not in targets[g.tile]:
            targets[g.tile].append(names[g.tile2])
    if all(t < 0 for t in order):
        return "none at any tile"
    return "; ".join(f"{_name(names, t)} → {', '.join(targets[t])}" if targets[t]
                     else _name(names, t) for t in order)


def _text(group: Group, state: GameState) -> str:
    assert group.action is not None
    return format_action(group.action, state)


def _contains(pool: tuple[UnitCode, ...], wanted: tuple[UnitCode, ...]) -> bool:
    """``wanted`` is a sub-multiset of ``pool``."""
    left = list(pool)
    for c in wanted:
        if c not in left:
            return False
        left.remove(c)
    return True


def _block_refusal(state: GameState, spec: KindSpec, action: Action, blocks: list[Group],
                   why: Why, words: dict[str, object]) -> tuple[str, str]:
    """A move or swap at tiles that offer a block of them: which of the block's bounds it
    breaks: its units are not the player's there, it takes too many or too few (the
    generator's limit: capacity, R4.6 and R10.8, or one unit in reinforcement, R12.1), both
    sets of a swap are several units, or they are equal."""
    swap = action.kind is Kind.SWAP
    seat = state.pending.seat
    if not any(_contains(g.units, action.units)
               and (not swap or _contains(g.units2, action.units2)) for g in blocks):
        g = blocks[0]
        words["choices"] = unit_words(g.units, seat) + (
            f" / {unit_words(g.units2, seat)}" if swap else "")
        rule, reason = _say(spec, "units", words)
        return ("R23.10" if state.teams else rule), reason
    fits = [g for g in blocks if g.low <= len(action.units) <= g.high
            and (not swap or g.low2 <= len(action.units2) <= g.high2)]
    if fits and swap and action.units == action.units2:
        return _say(spec, "equal", words)
    if swap and len(action.units) > 1 and len(action.units2) > 1:
        return _say(spec, "single", words)
    limit = why.limits.get((action.kind, action.tile, action.tile2))
    if limit is not None:
        return limit
    words.update(low=blocks[0].low, high=blocks[0].high,
                 choices=unit_words(blocks[0].units, seat))
    return _say(spec, "what", words)
