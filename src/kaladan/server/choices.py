"""A decision's legal actions in the compact form views carry (docs/api.md "Legal actions").

Moves and swaps are most of an Action phase's legal actions: every sub-multiset of a tile's
units that fits the destination. The engine describes them in groups without building them
(``rules/offer.py``): a view sends the moves per source tile (its units, and per destination
how many of them may go) and the swaps per pair of tiles (how many of each tile's units may
go each way), each with where its actions lie in the whole legal list; every other action is
*listed* with its kind, the values of its fields, its price and the catalogue key of its
words (and its text). ``expand_moves`` and ``expand_swaps`` give the actions as texts: what
the form means. Units are written as the observation's board writes them (``0/sword``),
which the action parser reads too.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any

from ..rules.actions import Action, Kind
from ..rules.kinds import SPECS, Form
from ..rules.offer import Group, Offer
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


def add_block(group: Group, names: Sequence[str], tiles: dict[str, dict[str, Any]],
              swaps: list[dict[str, Any]]) -> None:
    """Add a block of moves (per source tile: its units and each destination with the most
    units that may go) or swaps (per pair of tiles: the shapes of the sets, one for several
    or several for one; each tile's units are in its moves entry)."""
    if group.kind is Kind.MOVE:
        source(tiles, names[group.tile], refs(group.units))["to"].append(
            [names[group.tile2], group.high, group.start, group.count])
        return
    a, b = names[group.tile], names[group.tile2]
    source(tiles, a, refs(group.units))
    source(tiles, b, refs(group.units2))
    pair = [a, b]
    if not swaps or swaps[-1]["tiles"] != pair:
        swaps.append({"tiles": pair, "shapes": []})
    swaps[-1]["shapes"].append([group.low, group.high, group.low2, group.high2, group.start,
                                group.count])


Split = tuple[list[Group], list[dict[str, Any]], list[dict[str, Any]]]


def split(offer: Offer, names: Sequence[str]) -> Split:
    """The listed groups (one action each), the moves and the swaps of a pending decision
    (``names``: the world's tile names). No block of moves or swaps is built."""
    tiles: dict[str, dict[str, Any]] = {}
    swaps: list[dict[str, Any]] = []
    listed: list[Group] = []
    for group in offer.groups:
        if group.action is None:
            add_block(group, names, tiles, swaps)
        else:
            listed.append(group)
    return listed, list(tiles.values()), swaps


def args(action: Action, state: GameState) -> dict[str, Any]:
    """The values of the fields an action's kind uses (``kinds.SPECS``), as JSON: tiles by
    name, units as ``seat/unit``, cards and realms by id, seats and gold as numbers, shares
    as ``[seat, hits]`` pairs. What a page describes an action with, instead of its text."""
    names = state.world.names
    out: dict[str, Any] = {}
    for slot in SPECS[action.kind].slots:
        value = getattr(action, slot.field)
        form = slot.form
        if form is Form.TILE:
            out[slot.field] = names[value]
        elif form is Form.UNIT or form is Form.UNITS:
            out[slot.field] = refs(value)
        elif form is Form.SHARES:
            out[slot.field] = [list(share) for share in value]
        elif value or not slot.optional:
            out[slot.field] = value
    return out


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
    """A listed action as a view carries it: without ``tiles``, ``units`` and ``args`` when
    they are empty, without ``price`` when it is 0 and ``label`` when it is ``act.<kind>``,
    and without ``text`` when it is the kind followed by the tiles (``attack T5 T2``,
    ``pass``); ``expand_listed`` gives it back."""
    out = {"index": listed["index"], "kind": listed["kind"]}
    tiles = listed["tiles"]
    if listed["text"] != " ".join([listed["kind"], *tiles]):
        out["text"] = listed["text"]
    for key in ("tiles", "units", "args", "price"):
        if listed[key]:
            out[key] = listed[key]
    if listed["label"] != f"act.{listed['kind']}":
        out["label"] = listed["label"]
    return out


def expand_listed(entry: dict[str, Any]) -> dict[str, Any]:
    """A view's listed action in full (as ``GET .../legal`` lists it): what the form means."""
    tiles = entry.get("tiles", [])
    return {"index": entry["index"], "text": entry.get("text", " ".join([entry["kind"], *tiles])),
            "kind": entry["kind"], "tiles": tiles, "units": entry.get("units", []),
            "args": entry.get("args", {}), "price": entry.get("price", 0),
            "label": entry.get("label", f"act.{entry['kind']}")}


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
