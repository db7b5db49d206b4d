"""The board's tuples of units stay sorted, with the right units, through every change of
``ops`` (R1.9: the canonical order that equal positions, tile facts and records rely on).

Each change is checked against the plain multiset computation on every sorted tuple of a
few unit codes, duplicates and upgrades included."""

from __future__ import annotations

import itertools

from kaladan.rules import ops
from kaladan.rules.config import Config
from kaladan.rules.setup import new_game
from kaladan.rules.units import ARCHER, SWORD, code

# One seat's swords and archers, plain and upgraded: codes that sort next to each other.
_CODES = (code(0, 0, SWORD), code(0, 0, SWORD) | 1, code(0, 0, ARCHER), code(0, 0, ARCHER) | 1)


def tiles() -> list[tuple[int, ...]]:
    """Every sorted tuple of 1 to 4 of the codes (repeats allowed)."""
    return [tuple(sorted(t)) for n in range(1, 5)
            for t in itertools.combinations_with_replacement(_CODES, n)]


def _changed(units: tuple[int, ...], gone: int, new: int) -> tuple[int, ...]:
    rest = list(units)
    rest.remove(gone)
    return tuple(sorted([*rest, new]))


def test_upgrade_and_downgrade_keep_the_tile_sorted() -> None:
    """R11.8, R13.4: one unit changes its upgrade bit; the others stay as they are."""
    state = new_game(Config(players=2), 1)
    for units in tiles():
        for c in set(units):
            state.board[0] = units
            if not c & 1:
                ops.upgrade(state, 0, c)
                assert state.board[0] == _changed(units, c, c | 1), (units, c)
            else:
                ops.downgrade(state, 0, c)
                assert state.board[0] == _changed(units, c, c & ~1), (units, c)


def test_adding_and_taking_a_unit_keep_the_tile_sorted() -> None:
    state = new_game(Config(players=2), 1)
    for units in tiles():
        for c in _CODES:
            state.board[0] = units
            ops.add_unit(state, 0, c)
            assert state.board[0] == tuple(sorted([*units, c])), (units, c)
        for c in set(units):
            state.board[0] = units
            ops.take_unit(state, 0, c)
            rest = list(units)
            rest.remove(c)
            assert state.board[0] == tuple(rest), (units, c)
