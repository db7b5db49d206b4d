"""The engine's caches give what a fresh computation gives (R1.9, R10.2, R12.1).

``state.scratch.tile_infos`` remembers, per tile, the move/swap facts of the very tuple of units
last looked up there, and is shared by every copy of a state; ``state.scratch.mine_cache`` (the
tiles a seat controls, R1.9) is kept while the seat neither comes onto a tile nor leaves
one. The random-game invariants (test_invariants.py) check the controlled tiles after every
decision; these tests pin what each cache may and may not keep.
"""

from __future__ import annotations

import gc
import itertools
import random

from kaladan.rules import ops
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.kinds import format_action
from kaladan.rules.legal import legal_actions, tile_info_at
from kaladan.rules.state import GameState, Phase
from kaladan.rules.tiles import TileInfo
from kaladan.rules.units import PLAIN_CODES, SWORD
from positions import played


def texts(state: GameState) -> list[str]:
    return [format_action(a, state) for a in legal_actions(state)]


def test_tile_info_is_remembered_by_the_very_tuple_on_the_tile() -> None:
    state = played(Config(players=2), 3, 40)
    t = next(t for t, units in enumerate(state.board) if units)
    units = state.board[t]
    info = tile_info_at(state, t, units)
    assert tile_info_at(state, t, units) is info
    assert (info.size, info.codes) == (len(units), tuple(sorted(set(units))))
    # An equal tuple that is another object is looked up again, with the same facts.
    again = tile_info_at(state, t, tuple(list(units)))
    assert again.codes == info.codes and again.ends == info.ends
    # R10.2: a tile whose units changed has the facts of its new units.
    seat = units[0] >> 7
    ops.add_unit(state, t, PLAIN_CODES[seat][SWORD])
    grown = tile_info_at(state, t, state.board[t])
    assert grown.size == len(units) + 1
    assert grown.ends == TileInfo(state.board[t]).ends


def test_tile_info_lists_every_group_of_units_that_may_move_together() -> None:
    """R10.2: the sub-multisets of a tile's units, smallest first, each once (equal units
    are interchangeable), and how many have at most k units; against all index subsets,
    for every way up to 7 units fall into groups of equal units (the patterns of up to 6
    units come from a list, larger ones from a dict)."""
    for n in range(8):
        for cuts in itertools.product((False, True), repeat=max(n - 1, 0)):
            units, code = [], 10
            for i in range(n):
                if i and cuts[i - 1]:
                    code += 2  # a new kind of unit (an even code: not upgraded)
                units.append(code)
            info = TileInfo(tuple(units))
            distinct = sorted(set(units))
            assert (info.size, info.codes, info.kinds) == (n, tuple(distinct), len(distinct))
            expected = sorted({tuple(sorted(units[i] for i in chosen))
                               for k in range(1, n + 1)
                               for chosen in itertools.combinations(range(n), k)},
                              key=lambda s: (len(s), s))
            assert [info.subset(j) for j in range(len(info.subsets))] == expected
            assert list(info.ends) == [sum(len(s) <= k for s in expected) for k in range(n + 1)]


def live_tile_infos() -> int:
    """The TileInfo objects that anything the collector tracks holds (the per-tile lists,
    or a table if the process kept one). A compiled TileInfo is acyclic and not tracked
    itself (docs/compiled.md), so it is found through its holders; exact: asks nothing of
    the objects but their type."""
    gc.collect()
    return len({id(r) for o in gc.get_objects() for r in gc.get_referents(o)
                if type(r) is TileInfo})


def test_tile_facts_live_only_as_long_as_the_states_that_hold_them() -> None:
    """R10.2: tile facts are a function of the units, made per tile; the process keeps none
    of them once the games are gone (every game makes new tuples of units, so a process-wide
    table only grew). Other tests' states may be alive too: only the change is counted."""
    before = live_tile_infos()
    states = [played(Config(players=p), seed, 400) for p in (2, 4, 6) for seed in range(3)]
    held = [info for state in states for info in state.scratch.tile_infos if info is not None]
    assert len(held) > 20  # the states hold some, each true of its own units
    assert all(info.codes == tuple(sorted(set(info.units))) for info in held)
    assert live_tile_infos() >= before + len(held)
    del held, states
    assert live_tile_infos() <= before


def test_copies_share_tile_infos_without_changing_each_others_actions() -> None:
    """R10.1, R12.1: a copy played on (as a search does) leaves the original's actions as
    they were, though both remember tiles in one shared list."""
    rng = random.Random(11)
    for seed in range(4):
        state = played(Config(players=4), seed, 0)
        while state.result is None:
            before = texts(state)
            probe = state.copy()
            assert probe.scratch.tile_infos is state.scratch.tile_infos
            for _ in range(8):
                if probe.result is not None:
                    break
                legal = legal_actions(probe)
                apply_unchecked(probe, legal[rng.randrange(len(legal))])
            state.scratch.legal_for = None  # generate again, from the shared tile list
            assert texts(state) == before
            legal = legal_actions(state)
            apply_unchecked(state, legal[rng.randrange(len(legal))])


def test_controlled_tiles_are_kept_while_no_seat_comes_or_goes() -> None:
    """R1.9: a unit added to a tile you already control changes nothing you control; a
    unit on an empty tile, or the last one leaving, does."""
    state = played(Config(players=4), 5, 40)  # 17 tiles, 12 of them held
    assert state.phase is not Phase.OVER
    seat = state.active
    mine = state.controlled(seat)
    own = next(t for t in mine if len(state.board[t]) < state.world.capacity[t])
    sword = PLAIN_CODES[seat][SWORD]
    ops.add_unit(state, own, sword)
    assert state.controlled(seat) is mine  # kept: nothing to recompute
    empty = next(t for t, units in enumerate(state.board) if not units)
    ops.add_unit(state, empty, sword)
    assert empty in state.controlled(seat) and empty not in mine
    ops.take_unit(state, empty, sword)
    assert state.controlled(seat) == mine
    fresh = [t for t, units in enumerate(state.board) if any(c >> 7 == seat for c in units)]
    assert state.controlled(seat) == fresh
