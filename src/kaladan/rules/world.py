"""The world of section 4: hex grid, tiles, standard layouts, random terrain, custom layouts.

A :class:`World` is the static map of a game: which positions exist, what lies on them, who is
next to whom and how far apart everything is. It is immutable and built once; game states share
it and never copy it. Layout data lives in ``data/layouts.json`` (R4.9), not in code.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import astuple, dataclass

from kaladan.rules.datafiles import data_text
from kaladan.rules.errors import ConfigError, InvalidActionError, LayoutError

__all__ = [
    "CAPACITY",
    "Coord",
    "Terrain",
    "World",
    "custom_world",
    "hex_distance",
    "hex_neighbours",
    "random_terrain_world",
    "standard_world",
    "world_from_json",
]


class Terrain(enum.IntEnum):
    """Tile types of R4.5; a castle spot holds a castle tile of its own type (R4.4)."""

    FIELD = 0
    FOREST = 1
    MOUNTAIN = 2
    CASTLE = 3

    @property
    def label(self) -> str:
        """Lower-case name used in JSON: ``"field"``, ``"forest"``, ``"mountain"``, ``"castle"``."""
        return self.name.lower()


_TERRAIN_LABELS = {t: t.label for t in Terrain}  # looked up by ``World.to_json`` (every view)

Coord = tuple[int, int]
"""Axial coordinates (q, r) of a position (R1.3, R4.1)."""

# R4.5
CAPACITY: dict[Terrain, int] = {
    Terrain.FIELD: 4,
    Terrain.FOREST: 3,
    Terrain.MOUNTAIN: 3,
    Terrain.CASTLE: 5,
}

# R4.2: the order of the six directions is part of the rule text, so callers may rely on it.
_DIRECTIONS: tuple[Coord, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

_TERRAIN_BY_LABEL: dict[str, Terrain] = {
    t.label: t for t in (Terrain.FIELD, Terrain.FOREST, Terrain.MOUNTAIN)
}

_KINDS = ("standard", "random_terrain", "custom")
_MIN_PLAYERS = 2  # R1.1
_MAX_PLAYERS = 6  # R1.1
_MIN_CASTLE_DISTANCE = 3  # R4.14


def hex_distance(a: Coord, b: Coord) -> int:
    """Grid distance between two positions (R4.3), whether or not the hexes between exist."""
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def hex_neighbours(c: Coord) -> tuple[Coord, ...]:
    """The six neighbouring positions of ``c`` in the order of R4.2."""
    q, r = c
    return tuple((q + dq, r + dr) for dq, dr in _DIRECTIONS)


@dataclass(frozen=True, repr=False)
class World:
    """An immutable world: terrain positions T1..TN (indices 0..N-1), then castle spots
    C1..CP. Read at every decision: a native class when compiled."""

    kind: str
    coords: tuple[Coord, ...]
    terrain: tuple[Terrain, ...]
    names: tuple[str, ...]
    capacity: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]
    distance: tuple[tuple[int, ...], ...]
    castle_spots: tuple[int, ...]
    terrain_count: int

    def __repr__(self) -> str:  # not every distance
        return (f"World(kind={self.kind!r}, {self.terrain_count} terrain positions, "
                f"{len(self.castle_spots)} castle spots)")

    def __reduce__(self) -> tuple[type[World], tuple[object, ...]]:
        # Pickled by its fields, rebuilt through __init__ (bot worker processes receive
        # states with their world): a compiled frozen dataclass cannot be unpickled by
        # assigning its fields.
        return World, astuple(self)

    def index(self, name: str) -> int:
        """Tile index of a name such as ``"T3"`` or ``"c1"`` (case-insensitive)."""
        key = name.strip().upper() if isinstance(name, str) else ""
        number = key[1:]
        # Reject "T03" and "T+3": a tile has exactly one spelling besides its case.
        if number.isdigit() and number.isascii() and not number.startswith("0"):
            n = int(number)
            if key[0] == "T" and n <= self.terrain_count:
                return n - 1
            if key[0] == "C" and n <= len(self.castle_spots):
                return self.castle_spots[n - 1]
        raise InvalidActionError(
            f"unknown tile {name!r}: this world has T1..T{self.terrain_count}"
            f" and C1..C{len(self.castle_spots)}"
        )

    def to_json(self) -> dict[str, object]:
        """JSON form that :func:`world_from_json` rebuilds exactly (same order, same kind)."""
        n = self.terrain_count
        return {
            "kind": self.kind,
            "terrain": [
                {"q": q, "r": r, "terrain": _TERRAIN_LABELS[t]}
                for (q, r), t in zip(self.coords[:n], self.terrain[:n], strict=True)
            ],
            "castle_spots": [{"q": q, "r": r} for q, r in self.coords[n:]],
        }


# --- building -------------------------------------------------------------------------------


def _build(
    kind: str, terrain_tiles: Sequence[tuple[Coord, Terrain]], spots: Sequence[Coord]
) -> World:
    """Assemble a World from tiles already in index order; no rule checks here."""
    coords = tuple(c for c, _ in terrain_tiles) + tuple(spots)
    terrain = tuple(t for _, t in terrain_tiles) + (Terrain.CASTLE,) * len(spots)
    n = len(terrain_tiles)
    at = {c: i for i, c in enumerate(coords)}
    neighbours = tuple(
        tuple(sorted(at[nb] for nb in hex_neighbours(c) if nb in at)) for c in coords
    )
    distance = tuple(tuple(hex_distance(a, b) for b in coords) for a in coords)
    return World(
        kind=kind,
        coords=coords,
        terrain=terrain,
        names=tuple(f"T{i + 1}" for i in range(n)) + tuple(f"C{i + 1}" for i in range(len(spots))),
        capacity=tuple(CAPACITY[t] for t in terrain),
        neighbours=neighbours,
        distance=distance,
        castle_spots=tuple(range(n, n + len(spots))),
        terrain_count=n,
    )


def _with_terrain(base: World, kind: str, terrain: Sequence[Terrain]) -> World:
    """Same positions as ``base`` with new terrain on T1..TN; adjacency tables are shared."""
    full = tuple(terrain) + (Terrain.CASTLE,) * len(base.castle_spots)
    return World(
        kind=kind,
        coords=base.coords,
        terrain=full,
        names=base.names,
        capacity=tuple(CAPACITY[t] for t in full),
        neighbours=base.neighbours,
        distance=base.distance,
        castle_spots=base.castle_spots,
        terrain_count=base.terrain_count,
    )


def _check_players(players: int) -> None:
    # R1.1: the game is for 2 to 6 players; a bool is not a player count.
    if (
        not isinstance(players, int)
        or isinstance(players, bool)
        or not _MIN_PLAYERS <= players <= _MAX_PLAYERS
    ):
        raise ConfigError(
            f"player count must be an integer from {_MIN_PLAYERS} to {_MAX_PLAYERS},"
            f" got {players!r}",
            rule="R1.1",
        )


# --- custom layouts: shape ------------------------------------------------------------------


def _layout_error(message: str) -> LayoutError:
    return LayoutError(message, rule="R4.14")


def _get_list(data: Mapping[str, object], key: str) -> list[object]:
    if key not in data:
        raise _layout_error(f"layout has no {key!r} list")
    value = data[key]
    if not isinstance(value, list | tuple):
        raise _layout_error(f"layout {key!r} must be a list, got {type(value).__name__}")
    return list(value)


def _get_int(entry: Mapping[str, object], key: str, where: str) -> int:
    if key not in entry:
        raise _layout_error(f"{where} has no {key!r} coordinate")
    value = entry[key]
    # bool is an int subclass, but true/false is never a coordinate.
    if not isinstance(value, int) or isinstance(value, bool):
        raise _layout_error(f"{where} coordinate {key!r} must be an integer, got {value!r}")
    return value


def _parse(
    data: Mapping[str, object],
) -> tuple[list[tuple[Coord, Terrain]], list[Coord]]:
    """Read the to_json() shape; R4.14 terrain-type check happens here since it needs parsing."""
    if not isinstance(data, Mapping):
        raise _layout_error(f"layout must be a JSON object, got {type(data).__name__}")
    terrain_tiles: list[tuple[Coord, Terrain]] = []
    for i, entry in enumerate(_get_list(data, "terrain")):
        where = f"terrain position {i + 1}"
        if not isinstance(entry, Mapping):
            raise _layout_error(f"{where} must be an object with q, r, terrain")
        coord = (_get_int(entry, "q", where), _get_int(entry, "r", where))
        if "terrain" not in entry:
            raise _layout_error(f"{where} {coord} has no 'terrain'")
        label = entry["terrain"]
        kind = _TERRAIN_BY_LABEL.get(label.strip().lower()) if isinstance(label, str) else None
        if kind is None:
            raise _layout_error(
                f"{where} {coord} has terrain {label!r}; terrain must be field, forest or mountain"
            )
        terrain_tiles.append((coord, kind))
    spots: list[Coord] = []
    for i, entry in enumerate(_get_list(data, "castle_spots")):
        where = f"castle spot {i + 1}"
        if not isinstance(entry, Mapping):
            raise _layout_error(f"{where} must be an object with q, r")
        spots.append((_get_int(entry, "q", where), _get_int(entry, "r", where)))
    return terrain_tiles, spots


# --- custom layouts: the conditions of R4.14 --------------------------------------------------


def _validate(world: World, players: int) -> None:
    """Raise LayoutError naming the first broken condition of R4.14."""
    n = world.terrain_count
    coords = world.coords
    names = world.names

    seen: dict[Coord, str] = {}
    for name, c in zip(names, coords, strict=True):
        if c in seen:
            other = seen[c]
            if other.startswith("T") and name.startswith("C"):
                raise _layout_error(
                    f"castle spot {name} {c} is also terrain position {other};"
                    " a castle spot cannot be a terrain position"
                )
            raise _layout_error(
                f"position {c} is given twice ({other} and {name}); every position must be unique"
            )
        seen[c] = name

    spots = world.castle_spots
    if len(spots) != players:
        raise _layout_error(
            f"layout has {len(spots)} castle spots for {players} players;"
            " the number of castle spots must equal the number of players"
        )

    terrain_coords = set(coords[:n])
    for s in spots:
        if not any(nb in terrain_coords for nb in hex_neighbours(coords[s])):
            raise _layout_error(
                f"castle spot {names[s]} {coords[s]} is not adjacent to any terrain position;"
                " every castle spot must touch at least one"
            )

    for i, a in enumerate(spots):
        for b in spots[i + 1 :]:
            d = world.distance[a][b]
            if d < _MIN_CASTLE_DISTANCE:
                raise _layout_error(
                    f"castle spots {names[a]} {coords[a]} and {names[b]} {coords[b]} are at"
                    f" distance {d}; R4.14 requires at least {_MIN_CASTLE_DISTANCE}"
                )

    reached = _reachable(world.neighbours, 0) if coords else set()
    if len(reached) != len(coords):
        cut = [f"{names[i]} {coords[i]}" for i in range(len(coords)) if i not in reached]
        raise _layout_error(
            "the world is not connected: "
            + ", ".join(cut)
            + f" cannot be reached from {names[0]} {coords[0]}"
        )


def _reachable(neighbours: Sequence[Sequence[int]], start: int) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        for nb in neighbours[stack.pop()]:
            if nb not in seen:
                seen.add(nb)
                stack.append(nb)
    return seen


# --- custom layouts: numbering (R4.10) --------------------------------------------------------


def _clockwise_order(spots: Sequence[Coord]) -> list[Coord]:
    """Castle spots clockwise around their centre, starting from straight up (R4.10).

    Pixel centres are x = sqrt(3)(q + r/2), y = 1.5 r with y down (R4.1). Scaling x by a positive
    factor keeps the cyclic order of directions and keeps "up" fixed, so the comparison runs on
    exact integers X = P(2q + r) - sum(2q + r), Y = P*r - sum(r); no float decides a tie.
    """
    p = len(spots)
    sx = sum(2 * q + r for q, r in spots)
    sy = sum(r for _, r in spots)
    vec = {c: (p * (2 * c[0] + c[1]) - sx, p * c[1] - sy) for c in spots}

    def half(v: tuple[int, int]) -> int:
        # 0: from straight up (inclusive) clockwise to straight down (exclusive); 1: the rest.
        x, y = v
        return 0 if x > 0 or (x == 0 and y < 0) else 1

    def compare(a: Coord, b: Coord) -> int:
        va, vb = vec[a], vec[b]
        if va == (0, 0) or vb == (0, 0):  # a spot at the centre has no direction; put it first
            return (vb == (0, 0)) - (va == (0, 0))
        ha, hb = half(va), half(vb)
        if ha != hb:
            return ha - hb
        # With y down, b lies clockwise of a exactly when the cross product is positive.
        cross = va[0] * vb[1] - va[1] * vb[0]
        if cross:
            return -1 if cross > 0 else 1
        # Same direction: the nearer spot first (true squared length is 3x^2 + y^2 up to scale).
        la = 3 * va[0] ** 2 + va[1] ** 2
        lb = 3 * vb[0] ** 2 + vb[1] ** 2
        return (la > lb) - (la < lb)

    return sorted(spots, key=functools.cmp_to_key(compare))


# --- public constructors ----------------------------------------------------------------------


def _renumbered(
    kind: str, terrain_tiles: Sequence[tuple[Coord, Terrain]], spots: Sequence[Coord]
) -> World:
    """Build with R4.10 numbering: terrain in reading order (by r, then q), spots clockwise."""
    ordered = sorted(terrain_tiles, key=lambda tile: (tile[0][1], tile[0][0]))
    return _build(kind, ordered, _clockwise_order(spots))


def _load_layouts() -> tuple[dict[int, World], dict[Terrain, int]]:
    raw = json.loads(data_text("layouts.json"))
    box = {t: int(raw["box"][t.label]) for t in (Terrain.FIELD, Terrain.FOREST, Terrain.MOUNTAIN)}
    worlds: dict[int, World] = {}
    for key, layout in raw["layouts"].items():
        players = int(key)
        terrain_tiles, spots = _parse(layout)
        world = _build("standard", terrain_tiles, spots)
        _validate(world, players)
        # The file lists tiles in id order; guard against an edit that breaks R4.10 numbering.
        ids = tuple(str(e["id"]) for e in [*layout["terrain"], *layout["castle_spots"]])
        if ids != world.names or _renumbered("standard", terrain_tiles, spots) != world:
            raise LayoutError(f"layouts.json world for {players} players is not numbered", "R4.10")
        worlds[players] = world
    return worlds, box


_STANDARD, _BOX = _load_layouts()

# R4.13: the box tiles in a fixed starting order, so a given `below` sequence gives one deal.
_BOX_TILES: tuple[Terrain, ...] = tuple(t for t, count in _BOX.items() for _ in range(count))


def standard_world(players: int) -> World:
    """The standard world for 2..6 players (R4.9); team modes use the 4p and 6p worlds."""
    _check_players(players)
    return _STANDARD[players]


def random_terrain_world(players: int, below: Callable[[int], int]) -> World:
    """Standard positions with the box tiles shuffled and dealt onto T1..TN (R4.13).

    ``below(n)`` must return a uniform integer in ``[0, n)``; the game's seeded random source
    supplies it so the deal replays from the seed.
    """
    base = standard_world(players)
    tiles = list(_BOX_TILES)
    # Fisher-Yates, exactly this loop order, so recorded games replay bit for bit.
    for i in range(len(tiles) - 1, 0, -1):
        j = below(i + 1)
        if not 0 <= j <= i:
            raise ValueError(f"below({i + 1}) returned {j!r}, outside [0, {i + 1})")
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return _with_terrain(base, "random_terrain", tiles[: base.terrain_count])


def custom_world(data: Mapping[str, object], players: int) -> World:
    """A validated custom world (R4.14, R4.15); any ``kind`` in ``data`` is ignored.

    Terrain positions are renumbered in reading order (R4.10: by r, then q) and castle spots
    clockwise from straight up; box terrain counts are not enforced (R4.15).
    """
    _check_players(players)
    terrain_tiles, spots = _parse(data)
    # Validate in the given order first, so a duplicate is reported before renumbering hides it.
    _validate(_build("custom", terrain_tiles, spots), players)
    return _renumbered("custom", terrain_tiles, spots)


def world_from_json(data: Mapping[str, object], players: int) -> World:
    """Rebuild a world saved with :meth:`World.to_json`, keeping its kind and order exactly."""
    _check_players(players)
    if not isinstance(data, Mapping):
        raise _layout_error(f"world must be a JSON object, got {type(data).__name__}")
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _KINDS:
        raise _layout_error(f"world kind must be one of {', '.join(_KINDS)}, got {kind!r}")
    terrain_tiles, spots = _parse(data)
    world = _build(kind, terrain_tiles, spots)
    # Any world the engine builds meets R4.14, so a saved one must too.
    _validate(world, players)
    return world
