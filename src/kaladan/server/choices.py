"""A decision's legal actions in the compact form views carry (docs/api.md "Legal actions").

Moves and swaps are most of an Action phase's legal actions: every sub-multiset of a tile's
units that fits the destination. The engine's ``ActionList`` already makes them in blocks, one
per pair of tiles, and builds a block's actions only when asked (``rules/actionlist.py``). A
view sends the moves per source tile (its units, and per destination how many of them may
go) and the swaps per pair of tiles (how many of each tile's units may go each way), each
with where its actions lie in the whole legal list; every other action is *listed* with its
text. ``expand_moves`` and ``expand_swaps`` give the actions as texts: what the form means.
Units are written as the observation's board writes them (``0/sword``), which the action
parser reads too.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any

from ..rules import legal as L
from ..rules.actionlist import ActionList
from ..rules.actions import Action
from ..rules.state import GameState
from ..rules.units import UnitCode, unit_ref

# The engine's block builders (env/encoding.py reads them the same way), by their arguments:
# (build, get, src, dst, units, count): the sub-multisets of ``units``, smallest first, up to
# the size of the block's last action; (build, get, src, dst, kinds): one unit of any kind;
# (build, get, a, b, units_a, units_b, low_a, high_a, low_b, high_b): a set of units from each
# tile, sized within the bounds, the two sets never equal.
_MOVES = L._build_moves
_SINGLE_MOVES = L._build_single_moves
_SWAPS = L._build_swaps

@lru_cache(maxsize=1 << 14)
def refs(units: tuple[UnitCode, ...]) -> list[str]:
    """Each unit as ``seat/unit`` (shared: do not change the list)."""
    return [unit_ref(c) for c in units]


def source(tiles: dict[str, dict[str, Any]], name: str, units: list[str]) -> dict[str, Any]:
    """The moves entry of tile ``name``, made when first needed. A Reinforcement phase's
    one-unit moves name each kind once and its swaps every unit: the longer list is kept
    (for moves of one unit they mean the same)."""
    entry = tiles.get(name)
    if entry is None:
        entry = tiles[name] = {"from": name, "units": units, "to": []}
    elif len(units) > len(entry["units"]):
        entry["units"] = units
    return entry


def add_block(part: tuple[Any, ...], index: int, count: int, names: Sequence[str],
              tiles: dict[str, dict[str, Any]], swaps: list[dict[str, Any]]) -> bool:
    """Add one lazy block of the legal list to the moves (per source tile: its units and
    each destination) or the swaps (per pair of tiles: the shapes of the sets, one for
    several or several for one; each tile's units are in its moves entry); False for a
    block of another kind."""
    build = part[0]
    if build is _MOVES or build is _SINGLE_MOVES:
        src, dst, units = part[2], part[3], part[4]
        most = len(part[1](count - 1, *part[2:]).units)  # a block's sets grow in size
        source(tiles, names[src], refs(units))["to"].append(
            {"tile": names[dst], "most": most, "index": index, "count": count})
        return True
    if build is _SWAPS:
        a, b, units_a, units_b, low_a, high_a, low_b, high_b = part[2:10]
        source(tiles, names[a], refs(units_a))
        source(tiles, names[b], refs(units_b))
        pair = [names[a], names[b]]
        if not swaps or swaps[-1]["tiles"] != pair:
            swaps.append({"tiles": pair, "shapes": []})
        swaps[-1]["shapes"].append({"sizes": [low_a, high_a], "sizes2": [low_b, high_b],
                                    "index": index, "count": count})
        return True
    return False


Split = tuple[list[tuple[int, Action]], list[dict[str, Any]], list[dict[str, Any]]]


def split(legal: Sequence[Action], names: Sequence[str]) -> Split:
    """The listed actions (index, action), the moves and the swaps of ``legal`` (a pending
    decision's legal actions; ``names``: the world's tile names). Only blocks are grouped,
    and none of them is built."""
    tiles: dict[str, dict[str, Any]] = {}
    swaps: list[dict[str, Any]] = []
    if not isinstance(legal, ActionList):
        return list(enumerate(legal)), [], swaps
    listed: list[tuple[int, Action]] = []
    starts = legal.starts
    ends = [*starts[1:], len(legal)]
    for i, part in enumerate(legal.parts):
        start = starts[i]
        if not isinstance(part, list):
            if add_block(part, start, ends[i] - start, names, tiles, swaps):
                continue
            part = legal._part(i)  # a block of another kind (cards to buy): a few actions
        listed += enumerate(part, start)
    return listed, list(tiles.values()), swaps


def action_tiles(action: Action, state: GameState) -> list[int]:
    """The tiles an action concerns: those it names, or for a casualty or a unit staying
    behind after an invasion the battle tile its unit stands on (so that a page can offer
    the action on the unit)."""
    named = [t for t in (action.tile, action.tile2) if t >= 0]
    battle = state.battle
    if named or not action.units or battle is None:
        return named
    return [t for t in (battle.a_tile, battle.d_tile) if action.units[0] in state.board[t]][:1]


def sub_multisets(units: Sequence[str], low: int, high: int) -> list[tuple[str, ...]]:
    """Every distinct sub-multiset of ``units`` with ``low`` to ``high`` units, sorted."""
    return sorted({tuple(sorted(c)) for k in range(low, high + 1)
                   for c in combinations(units, k)})


def expand_moves(moves: dict[str, Any]) -> list[list[str]]:
    """The texts of a source tile's moves, per destination: what the form means."""
    src = moves["from"]
    return [[f"move {src} {to['tile']} {','.join(x)}"
             for x in sub_multisets(moves["units"], 1, to["most"])] for to in moves["to"]]


def expand_swaps(swaps: dict[str, Any], moves: list[dict[str, Any]]) -> list[list[str]]:
    """The texts of a pair of tiles' swaps, per shape (``moves``: the view's, which hold each
    tile's units): what the form means."""
    units = {entry["from"]: entry["units"] for entry in moves}
    a, b = swaps["tiles"]
    out = []
    for shape in swaps["shapes"]:
        seconds = sub_multisets(units[b], *shape["sizes2"])
        out.append([f"swap {a} {b} {','.join(x)} {','.join(y)}"
                    for x in sub_multisets(units[a], *shape["sizes"]) for y in seconds
                    if x != y])
    return out
