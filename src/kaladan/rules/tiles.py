"""What move and swap generation needs of a tile's units (R10.2, R10.7, R12.1), worked out
from the tuple of units; ``legal.tile_info_at`` keeps it per tile while that tuple stands.

Apart from ``legal`` (which imports it) so that ``state`` can name ``TileInfo`` in its
per-tile cache without a cycle of imports.
"""

from __future__ import annotations

from typing import Final, TypeAlias, cast, final

from .native import mypyc_attr
from .units import UnitCode

# Code that only moves unit codes from one tuple to another reads them as objects: read as
# ints, the compiled engine unboxes each code and boxes it again into a new int object
# (codes above 256 are not Python's cached small ints: an allocation per unit).
_Units: TypeAlias = tuple[UnitCode, ...]


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class TileInfo:
    """What move and swap generation needs of one player's units on a tile.

    Made anew for each tuple new to a tile, not looked up in a dictionary kept by the
    process: making one costs about what hashing and comparing the tuple did, and such a
    dictionary grew to tens of thousands of entries that the garbage collector walked
    (every game makes new tuples; bench_engine, callgrind)."""

    __slots__ = ("units", "size", "codes", "kinds", "subsets", "ends")

    def __init__(self, units: tuple[UnitCode, ...]) -> None:
        key = 1  # the units' group sizes (_pattern): a 1 bit for each first of equal units
        last = -1
        kinds = 0
        for c in units:
            if c == last:
                key <<= 1
            else:
                key = key << 1 | 1
                last = c
                kinds += 1
        self.units = units  # the very tuple, by which ``legal.tile_info_at`` finds it again
        self.size = len(units)
        # The distinct units, sorted: the tuple itself when no two are equal (no copy).
        self.codes: tuple[UnitCode, ...] = (
            units if kinds == len(units) else tuple([c for i, c in enumerate(units)
                                                     if i == 0 or units[i - 1] != c]))
        self.kinds = kinds
        # Every non-empty sub-multiset as a tuple of indices into ``codes``, by size, and
        # how many have at most k units (``ends[k]``).
        pattern = _pattern(key)
        self.subsets: tuple[tuple[int, ...], ...] = pattern.subsets
        self.ends: tuple[int, ...] = pattern.ends

    def shared_kinds(self, other: TileInfo) -> int:
        """How many distinct units both have."""
        mine, theirs = self.codes, other.codes  # both sorted: one merge pass
        i = j = shared = 0
        while i < len(mine) and j < len(theirs):
            a, b = mine[i], theirs[j]
            if a == b:
                shared += 1
                i += 1
                j += 1
            elif a < b:
                i += 1
            else:
                j += 1
        return shared

    def subset(self, j: int) -> tuple[UnitCode, ...]:
        """The j-th sub-multiset (smallest first) as units."""
        codes: tuple[object, ...] = self.codes  # the codes' own objects (see _Units)
        return cast(_Units, tuple([codes[i] for i in self.subsets[j]]))

    def sized(self, low: int, high: int) -> list[tuple[UnitCode, ...]]:
        """The sub-multisets of low..high units, smallest first."""
        codes: tuple[object, ...] = self.codes
        return [cast(_Units, tuple([codes[i] for i in s]))
                for s in self.subsets[self.ends[low - 1]:self.ends[high]]]


@final
class _Pattern:
    """The sub-multisets of a multiset with the given group sizes (R10.2: which units may
    move together). Only the group sizes matter, so a tile's few patterns (at most 5 units)
    are computed once; mapping indices to unit codes keeps the order, since codes are
    sorted."""

    __slots__ = ("subsets", "ends")

    def __init__(self, counts: tuple[int, ...]) -> None:
        subsets: list[tuple[int, ...]] = [()]
        for group, count in enumerate(counts):
            subsets = [s + (group,) * k for s in subsets for k in range(count + 1)]
        subsets = sorted((s for s in subsets if s), key=lambda s: (len(s), s))
        ends = [0] * (sum(counts) + 1)
        for subset in subsets:
            ends[len(subset)] += 1
        for k in range(1, len(ends)):
            ends[k] += ends[k - 1]
        self.subsets: tuple[tuple[int, ...], ...] = tuple(subsets)
        self.ends: tuple[int, ...] = tuple(ends)


# The sub-multiset patterns by their units' group sizes, kept by the process: a pure function
# of the key, and few. The key: a 1 bit, then a bit per unit in order, 1 where a new group
# starts (sizes 2, 1: 0b1101), so it tells the sizes of any number of units. A tile holds
# at most 5 units (R4.5): their keys are below 64 and index a list; a dict keyed by a boxed
# int took 465 instructions a lookup in the compiled engine (callgrind).
_SMALL_KEYS: Final = 128  # up to 6 units
_SMALL_PATTERNS: Final[list[_Pattern | None]] = [None] * _SMALL_KEYS
_PATTERNS: Final[dict[int, _Pattern]] = {}


def _pattern(key: int) -> _Pattern:
    """The ``_Pattern`` of the group sizes that ``key`` encodes (``TileInfo.__init__``)."""
    if key < _SMALL_KEYS:
        known = _SMALL_PATTERNS[key]
        if known is None:
            known = _SMALL_PATTERNS[key] = _Pattern(group_sizes(key))
        return known
    pattern = _PATTERNS.get(key)
    if pattern is None:
        pattern = _PATTERNS[key] = _Pattern(group_sizes(key))
    return pattern


def group_sizes(key: int) -> tuple[int, ...]:
    """The group sizes, first group first, that a pattern key encodes."""
    counts: list[int] = []
    for bit in bin(key)[3:]:  # after "0b" and the leading 1
        if bit == "1":
            counts.append(1)
        else:
            counts[-1] += 1
    return tuple(counts)
