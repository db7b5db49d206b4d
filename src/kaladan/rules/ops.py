"""Small state mutations shared by phases, events and battles. No legality checks here:
callers apply only actions that ``legal_actions`` listed."""

from __future__ import annotations

from bisect import insort
from typing import cast

from .gamelog import FinalRound
from .state import GameState
from .units import OWNER_SHIFT, SPECIAL, Seat, UnitCode, plain, realm_of, type_of


def gold_frozen(state: GameState) -> bool:
    """EG4 / R9.4: once The Gilded Silence is drawn, nobody gains gold during the final
    round: the turns after the one in which it was triggered (R21.3). By default drawing the
    card triggers it; with ``end_game_trigger = deck_end`` the empty deck does, and gold is
    gained as usual until then (R21.2, R25.1)."""
    return (state.gilded_slot >= 0 and state.final_slot >= 0
            and state.slot > state.final_slot - state.n)


def gain_gold(state: GameState, seat: Seat, amount: int) -> None:
    if amount > 0 and not gold_frozen(state):
        state.gold[seat] += amount


def lose_gold(state: GameState, seat: Seat, amount: int) -> None:
    """R7.11, R2.5: never more than the player has."""
    state.gold[seat] = max(0, state.gold[seat] - amount)


def _first(units: tuple[UnitCode, ...], c: UnitCode) -> int:
    """The index of the first ``c`` in ``units``, which holds one (a native loop: a tuple's
    ``index`` is a method call by name when compiled)."""
    i = 0
    while units[i] != c:
        i += 1
    return i


def _last(units: tuple[UnitCode, ...], c: UnitCode) -> int:
    """The index of the last ``c`` in ``units``, which holds one."""
    i = len(units) - 1
    while units[i] != c:
        i -= 1
    return i


def _without(units: tuple[UnitCode, ...], c: UnitCode) -> tuple[UnitCode, ...]:
    i = _first(units, c)
    return units[:i] + units[i + 1:]


def _less(units: tuple[UnitCode, ...], gone: tuple[UnitCode, ...]) -> list[UnitCode]:
    """``units`` without ``gone``, as a new list. The codes are handled as objects: read as
    ints, the compiled engine would unbox each and box it again into a new int object
    (codes above 256 are not Python's cached small ints)."""
    left: list[object] = list(units)
    leaving: tuple[object, ...] = gone
    for x in leaving:
        left.remove(x)
    return cast(list[UnitCode], left)


def _with(units: tuple[UnitCode, ...], c: UnitCode) -> tuple[UnitCode, ...]:
    """``units`` (sorted) with ``c`` in its place. Found by a loop of native comparisons:
    ``bisect.insort`` was a call through the module's globals comparing boxed ints."""
    i = len(units)
    while i and units[i - 1] > c:
        i -= 1
    out = list(units)  # one list, not two slices and two concatenations
    out.insert(i, c)
    return tuple(out)


# ``state.scratch.mine_cache`` (the tiles each seat controls, R1.9) is forgotten only for a seat
# that comes onto a tile or leaves one: a unit bought onto your own tile, or a move that
# leaves units behind, keeps the list (callgrind: recomputing it was 4% of the engine).


def _has(units: tuple[UnitCode, ...], seat: Seat) -> bool:
    """R1.9: ``seat`` has a unit among ``units``."""
    return any(c >> OWNER_SHIFT == seat for c in units)


def add_unit(state: GameState, tile: int, c: UnitCode) -> None:
    board = state.board
    before = board[tile]
    board[tile] = _with(before, c)
    seat = c >> OWNER_SHIFT
    if not _has(before, seat):
        state.scratch.mine_cache[seat] = None


def take_unit(state: GameState, tile: int, c: UnitCode) -> None:
    """Take one unit off the board (it goes wherever the caller puts it)."""
    board = state.board
    after = _without(board[tile], c)
    board[tile] = after
    seat = c >> OWNER_SHIFT
    if not _has(after, seat):
        state.scratch.mine_cache[seat] = None


def take_from_reserve(state: GameState, seat: Seat, c: UnitCode) -> None:
    """Remove one unit from ``seat``'s reserve (R2.7)."""
    if type_of(c) == SPECIAL:
        state.reserve_specials[seat].remove(realm_of(c))
    else:
        state.reserve[seat][type_of(c)] -= 1


def put_in_reserve(state: GameState, seat: Seat, c: UnitCode) -> None:
    """A unit goes to a reserve unupgraded (R7.14, R14.7)."""
    if type_of(c) == SPECIAL:
        insort(state.reserve_specials[seat], realm_of(c))
    else:
        state.reserve[seat][type_of(c)] += 1


def place_from_reserve(state: GameState, seat: Seat, c: UnitCode, tile: int) -> None:
    take_from_reserve(state, seat, c)
    add_unit(state, tile, plain(c))


def move_units(state: GameState, src: int, dst: int, units: tuple[UnitCode, ...]) -> None:
    board = state.board
    after_src = tuple(_less(board[src], units))
    before_dst = board[dst]
    board[src] = after_src
    arrived = list(before_dst)
    arrived.extend(units)
    arrived.sort()
    board[dst] = tuple(arrived)
    cache = state.scratch.mine_cache
    for c in units:  # an invasion may move allies' units too (R23.26)
        seat = c >> OWNER_SHIFT
        if not _has(after_src, seat) or not _has(before_dst, seat):
            cache[seat] = None


def swap_units(state: GameState, a: int, b: int, from_a: tuple[UnitCode, ...],
               from_b: tuple[UnitCode, ...]) -> None:
    board = state.board
    before_a, before_b = board[a], board[b]
    left_a = _less(before_a, from_a)  # one list each, sorted in place: no concatenations
    left_b = _less(before_b, from_b)
    left_a.extend(from_b)
    left_a.sort()
    left_b.extend(from_a)
    left_b.sort()
    after_a = tuple(left_a)
    after_b = tuple(left_b)
    board[a] = after_a
    board[b] = after_b
    seat_a, seat_b = from_a[0] >> OWNER_SHIFT, from_b[0] >> OWNER_SHIFT
    if seat_a == seat_b:
        return  # one seat's units both ways (R10.6, R12.1): it stays on both tiles
    for seat in (seat_a, seat_b):
        if (_has(before_a, seat) != _has(after_a, seat)
                or _has(before_b, seat) != _has(after_b, seat)):
            state.scratch.mine_cache[seat] = None


def upgrade(state: GameState, tile: int, c: UnitCode) -> None:
    """The last of the tile's units ``c`` becomes ``c | 1`` (R11.8). Codes sort with the
    upgrade bit last, so the upgraded code sorts right after ``c``: the tuple stays sorted."""
    units = state.board[tile]
    state.board[tile] = _replaced(units, _last(units, c), c | 1)


def downgrade(state: GameState, tile: int, c: UnitCode) -> None:
    """An upgraded unit flips back (R13.4, R17.4 ``losing_side``): the first of the tile's
    units ``c`` becomes ``c & ~1``, which sorts right before it."""
    units = state.board[tile]
    state.board[tile] = _replaced(units, _first(units, c), c & ~1)


def _replaced(units: tuple[UnitCode, ...], i: int, c: UnitCode) -> tuple[UnitCode, ...]:
    out = list(units)
    out[i] = c
    return tuple(out)


def remove_from_game(state: GameState, tile: int, c: UnitCode) -> None:
    """R1.16, R7.12: a unit leaves play for good; nobody's scalp."""
    take_unit(state, tile, c)
    insort(state.removed, plain(c))



def trigger_final_round(state: GameState, card: str | None = None) -> None:
    """R21.2-R21.3: after this turn everyone plays once more, ending with the drawer;
    ``card`` is the end-game card that triggered it (None: the deck ran out)."""
    if state.final_slot < 0:
        state.final_slot = state.slot + state.n
        if state.sink is not None:
            state.sink.append(FinalRound(state.active, card, state.n))
