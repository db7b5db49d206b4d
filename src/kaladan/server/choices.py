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
from ..rules.actionlist import ActionList, Block
from ..rules.actions import Action
from ..rules.state import GameState
from ..rules.units import UnitCode, unit_ref


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


def add_block(block: Block, index: int, count: int, names: Sequence[str],
              tiles: dict[str, dict[str, Any]], swaps: list[dict[str, Any]]) -> bool:
    """Add one lazy block of the legal list to the moves (per source tile: its units and
    each destination) or the swaps (per pair of tiles: the shapes of the sets, one for
    several or several for one; each tile's units are in its moves entry); False for a
    block of another kind. The engine's block kinds are read the way env/encoding.py reads
    them: a ``MoveBlock`` holds the sub-multisets of its units, smallest first, up to the
    size of its last action; a ``SingleMoveBlock`` one unit of any of its kinds; a
    ``SwapBlock`` a set of units from each tile, sized within its bounds, never equal."""
    if isinstance(block, (L.MoveBlock, L.SingleMoveBlock)):
        units = block.units if isinstance(block, L.MoveBlock) else block.kinds
        most = len(block.get(count - 1).units)  # a block's sets grow in size
        source(tiles, names[block.tile], refs(units))["to"].append(
            [names[block.tile2], most, index, count])
        return True
    if isinstance(block, L.SwapBlock):
        a, b = block.tile, block.tile2
        source(tiles, names[a], refs(block.units))
        source(tiles, names[b], refs(block.units2))
        pair = [names[a], names[b]]
        if not swaps or swaps[-1]["tiles"] != pair:
            swaps.append({"tiles": pair, "shapes": []})
        swaps[-1]["shapes"].append([block.low, block.high, block.low2, block.high2, index,
                                    count])
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
            part = legal.part(i)  # units to buy or card trades: listed with their texts
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


def compact(listed: dict[str, Any]) -> dict[str, Any]:
    """A listed action as a view carries it: without ``tiles`` and ``units`` when they are
    empty, and without ``text`` when it is the kind followed by the tiles (``attack T5
    T2``, ``pass``); ``expand_listed`` gives it back."""
    out = {"index": listed["index"], "kind": listed["kind"]}
    tiles = listed["tiles"]
    if listed["text"] != " ".join([listed["kind"], *tiles]):
        out["text"] = listed["text"]
    if tiles:
        out["tiles"] = tiles
    if listed["units"]:
        out["units"] = listed["units"]
    return out


def expand_listed(entry: dict[str, Any]) -> dict[str, Any]:
    """A view's listed action in full (as ``GET .../legal`` lists it): what the form means."""
    tiles = entry.get("tiles", [])
    return {"index": entry["index"], "text": entry.get("text", " ".join([entry["kind"], *tiles])),
            "kind": entry["kind"], "tiles": tiles, "units": entry.get("units", [])}


def move_units(moves: dict[str, Any], board: dict[str, list[str]]) -> list[str]:
    """The units of a source tile's moves: its own ``units``, or when it has none, the
    board's units of that tile (the observation's ``board``)."""
    units: list[str] = moves.get("units", board.get(moves["from"], []))
    return units


def expand_moves(moves: dict[str, Any], board: dict[str, list[str]]) -> list[list[str]]:
    """The texts of a source tile's moves, per destination (``board``: the view's
    observation's): what the form means."""
    src, units = moves["from"], move_units(moves, board)
    return [[f"move {src} {tile} {','.join(x)}" for x in sub_multisets(units, 1, most)]
            for tile, most, _, _ in moves["to"]]


def expand_swaps(swaps: dict[str, Any], moves: list[dict[str, Any]],
                 board: dict[str, list[str]]) -> list[list[str]]:
    """The texts of a pair of tiles' swaps, per shape (``moves``: the view's, which hold each
    tile's units, ``board``: its observation's): what the form means."""
    units = {entry["from"]: move_units(entry, board) for entry in moves}
    a, b = swaps["tiles"]
    out = []
    for low, high, low2, high2, _, _ in swaps["shapes"]:
        seconds = sub_multisets(units[b], low2, high2)
        out.append([f"swap {a} {b} {','.join(x)} {','.join(y)}"
                    for x in sub_multisets(units[a], low, high) for y in seconds if x != y])
    return out


def named_form(view: dict[str, Any]) -> dict[str, Any]:
    """A copy of a view with its ``legal``, ``moves`` and ``swaps`` in the named form (every
    listed action with its text, tiles and units; ``{"tile", "most", "index", "count"}`` per
    destination; ``{"sizes", "sizes2", "index", "count"}`` per shape): what the compact form
    means, as the browser reads it (static/js/viewform.js)."""
    board = view["observation"].get("board", {})
    moves = [{"from": m["from"], "units": move_units(m, board),
              "to": [{"tile": tile, "most": most, "index": index, "count": count}
                     for tile, most, index, count in m["to"]]} for m in view["moves"]]
    swaps = [{"tiles": p["tiles"],
              "shapes": [{"sizes": [low, high], "sizes2": [low2, high2], "index": index,
                          "count": count}
                         for low, high, low2, high2, index, count in p["shapes"]]}
             for p in view["swaps"]]
    return {**view, "legal": [expand_listed(e) for e in view["legal"]], "moves": moves,
            "swaps": swaps}
