"""The legal-action generator against slow, obviously-correct enumerations (R10.2-R10.8,
R12.1, R11.3-R11.4), and the block-built ActionList against its own materialised form.

Like a chess engine's perft check: thousands of positions from random games, each generated
two ways that share no code.
"""

from __future__ import annotations

import random
from collections.abc import Sequence, Sized
from itertools import combinations

import pytest

from kaladan.rules import actions as A
from kaladan.rules.actionlist import ActionList
from kaladan.rules.actions import Action, Kind
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.legal import _GENERATORS, legal_actions
from kaladan.rules.setup import new_game
from kaladan.rules.state import Decision, GameState
from kaladan.rules.units import ARCHER, type_of


def sub_multisets_slow(units: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {tuple(sorted(c)) for k in range(1, len(units) + 1)
            for c in combinations(units, k)}


def own_or_empty(state: GameState, tile: int, seat: int) -> bool:
    return not state.board[tile] or state.board[tile][0] >> 7 == seat


def slow_moves(state: GameState, seat: int) -> set[Action]:
    """R10.2-R10.4 straight from the text."""
    out = set()
    for src, units in enumerate(state.board):
        if not units or units[0] >> 7 != seat:
            continue
        for d in state.world.neighbours[src]:
            if not own_or_empty(state, d, seat):
                continue
            for subset in sub_multisets_slow(units):
                if len(state.board[d]) + len(subset) <= state.world.capacity[d]:
                    out.add(Action(A.MOVE, src, d, subset))
    return out


def slow_swaps(state: GameState, seat: int) -> set[Action]:
    """R10.6-R10.8 straight from the text (equal sets exchanged are no swap)."""
    out = set()
    cap = state.world.capacity
    for a, units_a in enumerate(state.board):
        for b in state.world.neighbours[a]:
            units_b = state.board[b]
            if b <= a or not units_a or not units_b:
                continue
            if units_a[0] >> 7 != seat or units_b[0] >> 7 != seat:
                continue
            for xa in sub_multisets_slow(units_a):
                for xb in sub_multisets_slow(units_b):
                    if len(xa) != 1 and len(xb) != 1 or xa == xb:
                        continue
                    if (len(units_a) - len(xa) + len(xb) <= cap[a]
                            and len(units_b) - len(xb) + len(xa) <= cap[b]):
                        out.add(Action(A.SWAP, a, b, xa, xb))
    return out


def slow_volleys(state: GameState, seat: int) -> set[Action]:
    """LAU-1: with the card in hand, from a tile with your Archer to an enemy tile two away."""
    if "LAU-1" not in state.hand[seat]:
        return set()
    out = set()
    for a, units in enumerate(state.board):
        if not any(c >> 7 == seat and type_of(c) == ARCHER for c in units):
            continue
        for d, target in enumerate(state.board):
            qa, ra = state.world.coords[a]
            qd, rd = state.world.coords[d]
            far = (abs(qa - qd) + abs(ra - rd) + abs(qa + ra - qd - rd)) // 2
            if target and target[0] >> 7 != seat and far == 2:
                out.add(Action(A.VOLLEY, a, d))
    return out


def slow_attacks(state: GameState, seat: int) -> set[Action]:
    return {Action(A.ATTACK, a, d) for a, units in enumerate(state.board)
            if units and units[0] >> 7 == seat
            for d in state.world.neighbours[a]
            if state.board[d] and state.board[d][0] >> 7 != seat}


def slow_reinforcements(state: GameState, seat: int) -> set[Action]:
    """R12.1 (a)-(c): one unit moves, or one unit is swapped for one unit."""
    out = {Action(A.PASS)}
    cap = state.world.capacity
    for src, units in enumerate(state.board):
        if not units or units[0] >> 7 != seat:
            continue
        for d in state.world.neighbours[src]:
            target = state.board[d]
            if not own_or_empty(state, d, seat):
                continue
            for c in set(units):
                if len(target) < cap[d]:
                    out.add(Action(A.MOVE, src, d, (c,)))
                if target and d > src:
                    out.update(Action(A.SWAP, src, d, (c,), (o,)) for o in set(target) if o != c)
    return out


def positions(games: int, seed: int) -> list[GameState]:
    """Snapshots of random games at Action and Reinforcement decisions, 2-6 players."""
    out = []
    for g in range(games):
        state = new_game(Config(players=2 + g % 5), seed + g)
        rng = random.Random(g)
        while not state.is_over:
            if state.pending.kind in (Decision.ACTION, Decision.REINFORCE, Decision.PURCHASE):
                out.append(state.copy())
            legal = legal_actions(state)
            apply_unchecked(state, legal[rng.randrange(len(legal))])
    return out


POSITIONS = positions(40, 500)


def test_action_phase_equals_the_rules_text() -> None:
    """R10.1: pass, every move, every swap, every attack; each exactly once."""
    checked = 0
    for state in POSITIONS:
        if state.pending.kind != Decision.ACTION:
            continue
        seat = state.pending.seat
        generated = list(_GENERATORS[Decision.ACTION](state, seat))
        assert len(generated) == len(set(generated)), "an action is listed twice"
        expected = ({Action(A.PASS)} | slow_moves(state, seat) | slow_swaps(state, seat)
                    | slow_attacks(state, seat) | slow_volleys(state, seat))
        assert set(generated) == expected
        checked += 1
    assert checked > 500


def test_reinforcement_equals_the_rules_text() -> None:
    checked = 0
    for state in POSITIONS:
        if state.pending.kind != Decision.REINFORCE:
            continue
        generated = list(_GENERATORS[Decision.REINFORCE](state, state.pending.seat))
        assert len(generated) == len(set(generated))
        assert set(generated) == slow_reinforcements(state, state.pending.seat)
        checked += 1
    assert checked > 300


def test_each_action_of_a_block_equals_the_built_block() -> None:
    """ActionList: indexing one action (the fast path) agrees with building the list."""
    checked = 0
    for state in POSITIONS:
        seat = state.pending.seat
        fresh = _GENERATORS[state.pending.kind](state, seat)
        if not isinstance(fresh, ActionList):
            continue
        one_by_one = [fresh[i] for i in range(len(fresh))]
        built = list(_GENERATORS[state.pending.kind](state, seat))
        assert one_by_one == built
        assert len(built) == len(fresh)
        assert fresh[-1] == built[-1] and fresh[1:3] == built[1:3]
        checked += 1
    assert checked > 1000


def test_kinds_and_of_kind_agree_with_the_built_list_and_build_only_what_they_need() -> None:
    """ActionList.kinds() and of_kind() (what the greedy bot asks in the Action phase) give
    the built list's kinds and its actions of a kind, in order; kinds() builds no block of a
    single kind (moves, swaps, buys), and of_kind(attack) none of those either."""
    checked = 0
    for state in POSITIONS:
        seat = state.pending.seat
        built = list(_GENERATORS[state.pending.kind](state, seat))
        for ask in ("kinds", "attacks"):
            fresh = _GENERATORS[state.pending.kind](state, seat)
            if not isinstance(fresh, ActionList):
                break
            single = [(i, p) for i, p in enumerate(fresh.parts)
                      if not isinstance(p, list) and p.kind()]
            if ask == "kinds":
                assert fresh.kinds() == {a.kind for a in built}
            else:
                assert list(fresh.of_kind(A.ATTACK)) == [a for a in built if a.kind == A.ATTACK]
            assert all(fresh.parts[i] is block for i, block in single)  # still unbuilt
            checked += bool(single)
        fresh = _GENERATORS[state.pending.kind](state, seat)
        if isinstance(fresh, ActionList):
            for kind in {a.kind for a in built}:
                assert list(fresh.of_kind(kind)) == [a for a in built if a.kind == kind]
    assert checked > 500


def test_an_action_list_is_a_sequence_and_a_list_is_not_an_action_list() -> None:
    """ActionList is a Sequence by registration (isinstance holds, and stays exact for the
    compiled class), with every method Sequence would mix in. It does not inherit Sized:
    that would give it CPython's generic length slot, which looks ``__len__`` up by name at
    every ``len()`` of every legal list."""
    assert isinstance([], Sequence) and isinstance((), Sequence)  # fill Sequence's caches
    assert not isinstance([], ActionList) and not isinstance((), ActionList)
    assert Sized not in ActionList.__mro__
    state = new_game(Config(players=2, quick_setup=True), 3)
    legal = legal_actions(state)
    while type(legal) is not ActionList:  # play on to the first Action phase
        apply_unchecked(state, legal[0])
        legal = legal_actions(state)
    assert isinstance(legal, ActionList) and isinstance(legal, Sequence)
    assert issubclass(ActionList, Sequence) and issubclass(ActionList, Sized)
    built = list(legal)
    assert legal == built and legal[0] == built[0] and len(legal) == len(built) > 10
    last = built[-1]
    assert legal.index(last) == built.index(last) and legal.count(last) == 1
    assert legal.index(built[3], 2, 5) == 3
    with pytest.raises(ValueError):
        legal.index(built[1], 2)
    assert list(reversed(legal)) == built[::-1]
    assert last in legal and Action(A.PASS, tile=99) not in legal


def test_actions_compare_hash_sort_and_print_by_their_fields() -> None:
    """Action is a value: equal fields give equal, same-hash actions; repr pastes back."""
    move = Action(A.MOVE, 3, 4, (10, 12))
    same = Action(Kind("move"), tile=3, tile2=4, units=(10, 12))
    assert move == same and hash(move) == hash(same) and move != move.replace(tile2=5)
    assert move != ("move", 3, 4, (10, 12))  # not a tuple any more
    assert sorted([move.replace(tile=9), move]) == [move, move.replace(tile=9)]
    assert eval(repr(move), {"Action": Action, "Kind": Kind}) == move
    assert repr(Action(A.PASS)) == "Action(Kind.PASS)"


def test_membership_builds_only_the_blocks_that_may_hold_the_action() -> None:
    """``action in legal`` (asked by every checked apply) agrees with the built list, for
    every member and for near misses: other units, other tiles, other kinds."""
    checked = 0
    rng = random.Random(5)
    for state in POSITIONS:
        seat = state.pending.seat
        built = list(_GENERATORS[state.pending.kind](state, seat))
        if not built:
            continue
        probes = rng.sample(built, min(6, len(built)))
        for a in list(probes):
            probes += [a.replace(tile2=a.tile), a.replace(units=a.units[:-1] or a.units2),
                       a.replace(units2=a.units), Action(A.BUY, a.tile, -1, a.units[:1]),
                       Action(A.MOVE, a.tile, a.tile2, a.units + a.units)]
        for probe in probes:
            fresh = _GENERATORS[state.pending.kind](state, seat)  # nothing built yet
            assert (probe in fresh) == (probe in built), probe
        checked += 1
    assert checked > 1000
