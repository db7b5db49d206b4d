"""What move and swap generation needs of a tile's units (R10.2, R10.7, R12.1), worked out
from the tuple of units; ``legal.tile_info_at`` keeps it per tile while that tuple stands.

Apart from ``legal`` (which imports it) so that ``state`` can name ``TileInfo`` in its
per-tile cache without a cycle of imports.
"""

from __future__ import annotations

from typing import Final, TypeAlias, cast, final

from .units import UnitCode

# Code that only moves unit codes from one tuple to another reads them as objects: read as
# ints, the compiled engine unboxes each code and boxes it again into a new int object
# (codes above 256 are not Python's cached small ints: an allocation per unit).
_Units: TypeAlias = tuple[UnitCode, ...]


@final
class TileInfo:
    """What move and swap generation needs of one player's units on a tile.

    Made anew for each tuple new to a tile, not looked up in a dictionary kept by the
    process: making one costs about what hashing and comparing the tuple did, and such a
    dictionary grew to tens of thousands of entries that the garbage collector walked
    (every game makes new tuples; bench_engine, callgrind)."""

    __slots__ = ("units", "size", "codes", "kinds", "subsets", "ends")

    def __init__(self, units: tuple[UnitCode, ...]) -> None:
        shape = 0  # how many of each distinct unit, as digits of _RUN_BITS bits (_pattern)
        run = 0
        last = -1
        kinds = 0
        for c in units:
            if c == last:
                run += 1
                if run > _RUN_MAX:
                    raise ValueError(f"more than {_RUN_MAX} equal units: {units}")
            else:
                if run:
                    shape = shape << _RUN_BITS | run
                last = c
                run = 1
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
        pattern = _pattern(shape << _RUN_BITS | run if run else 0)
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


# The sub-multiset patterns by their group sizes: a pure function of its key, and few (a
# tile holds at most 5 units, R4.5), so kept by the process.
_PATTERNS: Final[dict[int, _Pattern]] = {}
# A pattern's key: each group size a digit of _RUN_BITS bits, first group first (sizes are
# at least 1, so no two patterns share a key). An int, not a tuple: nothing to build, and
# cheap to hash (callgrind).
_RUN_BITS: Final = 4
_RUN_MAX: Final = (1 << _RUN_BITS) - 1


def _pattern(shape: int) -> _Pattern:
    """The ``_Pattern`` of the group sizes packed in ``shape`` (see ``_RUN_BITS``)."""
    pattern = _PATTERNS.get(shape)
    if pattern is None:
        counts: list[int] = []
        rest = shape
        while rest:
            counts.append(rest & _RUN_MAX)
            rest >>= _RUN_BITS
        counts.reverse()
        pattern = _PATTERNS[shape] = _Pattern(tuple(counts))
    return pattern
