"""legal_actions(state): the one source of truth for what may happen next.

Every generator returns its actions in a deterministic order. Each function names the rules
it implements; ``apply`` accepts exactly what these functions list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, cast, final

from . import actions as A
from . import magic
from .actionlist import ActionList, Block, Shape
from .actions import Action, Kind
from .magic import same_side, side_players
from .native import mypyc_attr
from .state import Battle, BattleStep, Decision, GameState, Pending
from .tiles import TileInfo
from .units import (
    ARCHER,
    BASIC_TYPES,
    CASTLE_UPGRADE_COST,
    CATAPULT,
    CROWN,
    ELIMINATED_CARD_COST,
    EXTRA_CARD_COST,
    GENERAL,
    OWNER_SHIFT,
    PLACE_COST,
    PLAIN_CODES,
    REALMS,
    SHIELD,
    SPECIAL,
    SWAP_CARD_COST,
    SWORD,
    UPGRADE_COST,
    Seat,
    UnitCode,
    code,
    owner_of,
    type_of,
)
from .world import Terrain

_CASTLE: Final = Terrain.CASTLE  # a global is cheaper than an enum attribute in hot loops
_PASS: Final = Action(A.PASS)
_ASK_ACTION: Final = Decision.ACTION
_ASK_REINFORCE: Final = Decision.REINFORCE
_ASK_PURCHASE: Final = Decision.PURCHASE
_ASK_SPAWN: Final = Decision.SPAWN
_END: Final = Action(A.END)
_GOLD: Final = Action(A.GOLD)
_NOMAGIC: Final = Action(A.NOMAGIC)
# The first part of the lists of the Action, Reinforce and Purchase phases: shared, since an
# ActionList never changes a part it holds (one list fewer at most decisions).
_PASS_FIRST: Final = [_PASS]
_END_FIRST: Final = [_END]


@final
class Why:
    """What a generator says of the actions it does not offer: its explain mode, asked only
    when an action is refused (``explain``; ``offer.refusal`` reads it). ``notes`` hold the
    reason a candidate was turned down, by (kind, tile, tile2, unit), -1 for "any"; ``limits``
    the bound on how many units a block of moves or swaps takes; ``sources`` the tiles the
    generator started from, per kind; ``targets`` the tiles it looked at from each."""

    __slots__ = ("notes", "limits", "sources", "targets")

    def __init__(self) -> None:
        self.notes: dict[tuple[Kind, int, int, int], tuple[str, str]] = {}
        self.limits: dict[tuple[Kind, int, int], tuple[str, str]] = {}
        self.sources: dict[Kind, list[int]] = {}
        self.targets: dict[tuple[Kind, int], list[int]] = {}

    def note(self, kind: Kind, tile: int, tile2: int, unit: int, rule: str,
             reason: str) -> None:
        self.notes.setdefault((kind, tile, tile2, unit), (rule, reason))

    def limit(self, kind: Kind, tile: int, tile2: int, rule: str, reason: str) -> None:
        self.limits.setdefault((kind, tile, tile2), (rule, reason))

    def source(self, kinds: tuple[Kind, ...], tile: int) -> None:
        for kind in kinds:
            self.sources.setdefault(kind, []).append(tile)

    def target(self, kinds: tuple[Kind, ...], tile: int, tile2: int) -> None:
        for kind in kinds:
            self.targets.setdefault((kind, tile), []).append(tile2)


def explain(state: GameState) -> Why:
    """The pending decision's generator run in explain mode: what it says of the candidates
    it turned down (the decisions of a turn; the others list their few choices, which is
    reason enough)."""
    why = Why()
    pending = state.pending
    kind, seat = pending.kind, pending.seat
    if kind is _ASK_ACTION:
        _action(state, seat, why)
    elif kind is _ASK_REINFORCE:
        _reinforce(state, seat, why)
    elif kind is _ASK_PURCHASE:
        _purchase(state, seat, why)
    elif kind is _ASK_SPAWN:
        _spawn(state, seat, why)
    elif kind is Decision.EVENT:
        event_options(state, seat, why)
    return why


def legal_actions(state: GameState) -> Sequence[Action]:
    """Every legal action of the pending decision, in a deterministic order.

    The list may be shared with the state's cache: do not modify it.
    """
    if state.scratch.legal_for is state.pending:
        actions = state.scratch.legal_list
    else:
        actions = _generate(state, state.pending)
    if state.teams and state.pending.seat >= 0 and state.gold[state.pending.seat] > 0:
        return with_gifts(actions, gifts(state, state.pending.seat))
    return actions


def gifts(state: GameState, seat: Seat) -> list[Action]:
    """R23.11: any amount of your own gold to an ally, at every decision point of the game,
    whoever holds the decision (none in free-for-all or once the game is over)."""
    return [Action(A.GIFT, number=ally, amount=amount) for ally in gift_allies(state, seat)
            for amount in range(1, state.gold[seat] + 1)]


def gift_allies(state: GameState, seat: Seat) -> list[Seat]:
    """The allies ``seat`` may give gold to now (``gifts``: 1 up to its own gold each)."""
    if not state.teams or state.pending.seat < 0 or state.gold[seat] <= 0:
        return []
    return state.allies(seat)


def with_gifts(actions: Sequence[Action], extra: list[Action]) -> Sequence[Action]:
    if not extra:
        return actions
    if isinstance(actions, ActionList):
        # cast: isinstance narrows a Sequence to a class that is not a subclass of it, which
        # mypyc would reach through generic attribute lookups (actionlist.py says why)
        return cast("ActionList", actions).extended(extra)
    return list(actions) + extra


def ask_or_skip(state: GameState) -> bool:
    """True if the pending decision offers a real choice (more than one action).

    The engine calls this before handing a decision out; the list is kept in the state's
    cache so the caller's next ``legal_actions`` costs nothing.
    """
    pending = state.pending
    actions = _generate(state, pending)
    # An ActionList's size read directly: a native attribute, where len() of a Sequence is
    # a generic call (cast, as in with_gifts).
    if (cast("ActionList", actions).size if isinstance(actions, ActionList)
            else len(actions)) > 1:
        state.scratch.legal_for = pending
        state.scratch.legal_list = actions
        return True
    return False


def _generate(state: GameState, pending: Pending) -> Sequence[Action]:
    """The actions of ``pending``: the decisions of every turn by direct calls (native ones
    when compiled), the others through ``_GENERATORS``."""
    # An ActionList is a Sequence by registration, not by inheritance (actionlist.py says
    # why), so the type checker is told; cast costs nothing at run time.
    kind = pending.kind
    if kind is _ASK_ACTION:
        return cast("Sequence[Action]", _action(state, pending.seat))
    if kind is _ASK_REINFORCE:
        return cast("Sequence[Action]", _reinforce(state, pending.seat))
    if kind is _ASK_PURCHASE:
        return cast("Sequence[Action]", _purchase(state, pending.seat))
    if kind is _ASK_SPAWN:
        return cast("Sequence[Action]", _spawn(state, pending.seat))
    return cast("Sequence[Action]", _GENERATORS[kind](state, pending.seat))


def tile_info_at(state: GameState, tile: int, units: tuple[UnitCode, ...]) -> TileInfo:
    """``TileInfo(units)`` for ``units`` standing on ``tile`` (all of them, or one seat's):
    remembered per tile by the very tuple, which stays on the board until the tile changes,
    so most lookups compare one pointer instead of hashing and comparing the units."""
    info = state.scratch.tile_infos[tile]
    if info is not None and info.units is units:
        return info
    info = TileInfo(units)
    state.scratch.tile_infos[tile] = info
    return info


def distinct(units: Sequence[UnitCode]) -> list[UnitCode]:
    """Distinct unit codes in canonical order (equal units are interchangeable)."""
    return sorted(set(units))


# --- setup (section 5) -----------------------------------------------------------------


def _realm(state: GameState, seat: Seat) -> list[Action]:
    # R5.5: an untaken realm (roll_off: one not yet assigned).
    return [Action(A.REALM, name=r) for i, r in enumerate(REALMS) if state.seat_of_realm[i] < 0]


def _start_card(state: GameState, seat: Seat) -> list[Action]:
    return [Action(A.CARD, name=c) for c in magic.realm_cards(state.realm[seat])]  # R5.7


def _castle(state: GameState, seat: Seat) -> list[Action]:
    """R5.8; R23.6 alternating: odd turn positions take C1, C3, C5, the others C2, C4, C6."""
    taken = set(state.home)
    spots = state.world.castle_spots
    if state.teams and state.config.team_castle_spots == "alternating":
        parity = state.turn_position(seat) % 2
        spots = tuple(t for i, t in enumerate(spots) if i % 2 == parity)
    return [Action(A.CASTLE, tile=t) for t in spots if t not in taken]


def _start_unit(state: GameState, seat: Seat) -> list[Action]:
    realm = state.realm[seat]
    return [Action(A.START, units=(code(seat, realm, t),)) for t in BASIC_TYPES]  # R5.9


# --- movement shared by the Action phase and events ------------------------------------


def add_moves(out: ActionList, state: GameState, seat: Seat,
              mine: list[int] | None = None, why: Why | None = None) -> None:
    """Append the moves of R10.2-R10.5: some of your units from a tile you control to an
    adjacent empty or own tile with room for all of them (also the free move of R7.10)."""
    board = state.board
    cap = state.world.capacity
    neighbours = state.world.neighbours
    starts = out.starts
    parts = out.parts
    size = out.size
    team = state.team
    me = team[seat]
    for src in state.controlled(seat) if mine is None else mine:
        units = state.own_units(seat, src) if state.teams else board[src]
        n = len(units)
        info = tile_info_at(state, src, units)
        ends = info.ends
        if why is not None:
            why.source(_MOVING, src)
        for d in neighbours[src]:
            target = board[d]
            if why is not None:
                _why_neighbour(why, state, seat, src, d)
            if target and team[target[0] >> OWNER_SHIFT] != me:  # R10.3, R23.16: empty or friendly
                continue
            room = cap[d] - len(target)
            if room > 0:
                count = ends[room if room < n else n]
                starts.append(size)
                parts.append(_MoveBlock(src, d, units, info, count))
                size += count
    out.size = size


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class _MoveBlock(Block):
    """The moves from ``tile`` to ``tile2`` of the first ``count`` sub-multisets of ``units``
    (ordered by size, so ``count`` caps how many units fit on ``tile2``); ``info`` is their
    ``TileInfo``."""

    __slots__ = ("tile", "tile2", "units", "info", "count")

    def __init__(self, tile: int, tile2: int, units: tuple[UnitCode, ...], info: TileInfo,
                 count: int) -> None:
        self.tile = tile
        self.tile2 = tile2
        self.units = units
        self.info = info
        self.count = count

    def build(self) -> list[Action]:
        info = self.info
        tile, tile2 = self.tile, self.tile2
        return [Action(A.MOVE, tile, tile2, info.subset(j)) for j in range(self.count)]

    def get(self, j: int) -> Action:
        return Action(A.MOVE, self.tile, self.tile2, self.info.subset(j))

    def kind(self) -> Kind:
        return A.MOVE

    def shape(self) -> Shape:
        """Every sub-multiset of ``units`` of 1 up to the size of the last one."""
        return (A.MOVE, self.tile, self.tile2, self.units, (), 1,
                len(self.info.subset(self.count - 1)), 0, 0)

    def may_hold(self, action: Action) -> bool:
        return action.kind is A.MOVE and action.tile == self.tile and action.tile2 == self.tile2


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class _SingleMoveBlock(Block):
    """One unit of each kind in ``kinds`` from ``tile`` to ``tile2`` (R12.1)."""

    __slots__ = ("tile", "tile2", "kinds")

    def __init__(self, tile: int, tile2: int, kinds: tuple[UnitCode, ...]) -> None:
        self.tile = tile
        self.tile2 = tile2
        self.kinds = kinds

    def build(self) -> list[Action]:
        return [Action(A.MOVE, self.tile, self.tile2, (c,)) for c in self.kinds]

    def get(self, j: int) -> Action:
        return Action(A.MOVE, self.tile, self.tile2, (self.kinds[j],))

    def kind(self) -> Kind:
        return A.MOVE

    def shape(self) -> Shape:
        """One unit of any of ``kinds`` (distinct units)."""
        return (A.MOVE, self.tile, self.tile2, self.kinds, (), 1, 1, 0, 0)

    def may_hold(self, action: Action) -> bool:
        return action.kind is A.MOVE and action.tile == self.tile and action.tile2 == self.tile2


def _swap_counts(info_a: TileInfo, info_b: TileInfo, len_a: int, len_b: int, cap_a: int,
                 cap_b: int) -> tuple[int, int, int, int, int, int]:
    """Sizes of the two swap blocks of R10.7 between two tiles and their set-size ranges:
    one unit from a for low1..high1 units from b, and low2..high2 units (two or more) from a
    for one unit from b; within capacity after the swap (R10.8), equal one-for-one excluded.
    ``info_*`` are the swapping player's units, ``len_*`` everyone's on the tile."""
    kinds_a, ends_a = info_a.kinds, info_a.ends
    kinds_b, ends_b = info_b.kinds, info_b.ends
    # One unit from a for |xb| units from b: len_a - 1 + |xb| <= cap_a and
    # len_b - |xb| + 1 <= cap_b, i.e. |xb| in [len_b + 1 - cap_b, cap_a - len_a + 1].
    own_a, own_b = info_a.size, info_b.size
    low1 = len_b + 1 - cap_b
    if low1 < 1:
        low1 = 1
    high1 = cap_a - len_a + 1
    if high1 > own_b:
        high1 = own_b
    count1 = 0
    if low1 <= high1:
        count1 = kinds_a * (ends_b[high1] - ends_b[low1 - 1])
        if low1 == 1:
            count1 -= info_a.shared_kinds(info_b)
    low2 = len_a + 1 - cap_a
    if low2 < 2:
        low2 = 2
    high2 = cap_b - len_b + 1
    if high2 > own_a:
        high2 = own_a
    count2 = (ends_a[high2] - ends_a[low2 - 1]) * kinds_b if low2 <= high2 else 0
    return count1, low1, high1, count2, low2, high2


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class _SwapBlock(Block):
    """Swaps giving from ``tile`` a set of low..high of ``units`` and from ``tile2`` a set of
    low2..high2 of ``units2`` (R10.7), equal sets left out; ``info`` and ``info2`` are their
    ``TileInfo``."""

    __slots__ = ("tile", "tile2", "units", "units2", "info", "info2", "low", "high", "low2",
                 "high2")

    def __init__(self, tile: int, tile2: int, units: tuple[UnitCode, ...],
                 units2: tuple[UnitCode, ...], info: TileInfo, info2: TileInfo, low: int,
                 high: int, low2: int, high2: int) -> None:
        self.tile = tile
        self.tile2 = tile2
        self.units = units
        self.units2 = units2
        self.info = info
        self.info2 = info2
        self.low = low
        self.high = high
        self.low2 = low2
        self.high2 = high2

    def build(self) -> list[Action]:
        from_a = self.info.sized(self.low, self.high)
        from_b = self.info2.sized(self.low2, self.high2)
        a, b = self.tile, self.tile2
        return [Action(A.SWAP, a, b, xa, xb) for xa in from_a for xb in from_b if xa != xb]

    def get(self, j: int) -> Action:
        info_a = self.info
        info_b = self.info2
        codes_b = info_b.codes
        start_a = info_a.ends[self.low - 1]
        start_b = info_b.ends[self.low2 - 1]
        size_b = info_b.ends[self.high2] - start_b
        if self.low == 1 and self.high == 1 and self.low2 == 1:
            # One unit from a; the one-unit set of b equal to it is left out.
            for ia in range(start_a, info_a.ends[1]):
                c = info_a.codes[info_a.subsets[ia][0]]
                skip = -1  # its place among b's singles (a loop: no generic method call)
                for ib in range(len(codes_b)):
                    if codes_b[ib] == c:
                        skip = ib
                        break
                valid = size_b - (1 if skip >= 0 else 0)
                if j < valid:
                    k = j + 1 if 0 <= skip <= j else j
                    return Action(A.SWAP, self.tile, self.tile2, (c,),
                                  info_b.subset(start_b + k))
                j -= valid
            raise IndexError("swap index out of range")
        ia = j // size_b  # not divmod: no pair of boxed ints
        ib = j - ia * size_b
        return Action(A.SWAP, self.tile, self.tile2, info_a.subset(start_a + ia),
                      info_b.subset(start_b + ib))

    def kind(self) -> Kind:
        return A.SWAP

    def shape(self) -> Shape:
        return (A.SWAP, self.tile, self.tile2, self.units, self.units2, self.low, self.high,
                self.low2, self.high2)

    def may_hold(self, action: Action) -> bool:
        return action.kind is A.SWAP and action.tile == self.tile and action.tile2 == self.tile2


_MOVING: Final = (A.MOVE, A.SWAP, A.ATTACK)


def _action(state: GameState, seat: Seat, why: Why | None = None) -> ActionList:
    """R10.1: pass, then every move, every swap and every attack, in that order.

    Moves (R10.2-R10.5), swaps (R10.6-R10.8) and attacks (R10.9, R16.1) are found in one pass
    over your tiles and their neighbours, since this runs at every Action phase. In team mode
    only your own units move (R23.16, R23.17) but capacity counts everyone's (R23.8).
    """
    out = ActionList(_PASS_FIRST)
    board = state.board
    cap = state.world.capacity
    neighbours = state.world.neighbours
    teams = state.teams
    team = state.team
    me = team[seat]
    starts = out.starts
    parts = out.parts
    size = 1
    pairs: list[int] = []  # adjacent tiles you occupy, for swaps: a, b, a, b, ... (no tuples)
    attack_list: list[Action] = []
    for src in state.controlled(seat):
        units = state.own_units(seat, src) if teams else board[src]
        n = len(units)
        info = tile_info_at(state, src, units)
        ends = info.ends
        if why is not None:
            why.source(_MOVING, src)
        for d in neighbours[src]:
            target = board[d]
            if why is not None:
                _why_neighbour(why, state, seat, src, d)
            if target:
                if team[target[0] >> OWNER_SHIFT] != me:
                    attack_list.append(_attack(src, d))
                    continue
                if d > src and (not teams or state.occupies(seat, d)):
                    pairs.append(src)
                    pairs.append(d)
            room = cap[d] - len(target)
            if room > 0:
                count = ends[room if room < n else n]
                starts.append(size)
                parts.append(_MoveBlock(src, d, units, info, count))
                size += count
    for i in range(0, len(pairs), 2):
        a, b = pairs[i], pairs[i + 1]
        if teams:
            own_a, own_b = state.own_units(seat, a), state.own_units(seat, b)
        else:
            own_a, own_b = board[a], board[b]
        info_a, info_b = tile_info_at(state, a, own_a), tile_info_at(state, b, own_b)
        count1, low1, high1, count2, low2, high2 = _swap_counts(
            info_a, info_b, len(board[a]), len(board[b]), cap[a], cap[b])
        if why is not None:
            why.limit(A.SWAP, a, b, "R10.8", "after the swap a tile would be over capacity")
        if count1:
            starts.append(size)
            parts.append(_SwapBlock(a, b, own_a, own_b, info_a, info_b, 1, 1, low1, high1))
            size += count1
        if count2:
            starts.append(size)
            parts.append(_SwapBlock(a, b, own_a, own_b, info_a, info_b, low2, high2, 1, 1))
            size += count2
    out.size = size
    out.add(attack_list)
    if "LAU-1" in state.hand[seat]:
        out.add(volleys(state, seat, why))
    elif why is not None:
        why.note(A.VOLLEY, -1, -1, -1, "LAU-1", "a volley needs Volley from Afar in your hand")
    return out


def _why_neighbour(why: Why, state: GameState, seat: Seat, src: int, d: int) -> None:
    """Explain mode of the Action and Reinforcement phases: what the generator makes of the
    neighbour ``d`` of ``src`` (a tile of ``seat``) for moves, swaps and attacks."""
    names = state.world.names
    target = state.board[d]
    why.target(_MOVING, src, d)
    room = state.world.capacity[d] - len(target)
    friendly = not target or state.tile_team(d) == state.team[seat]
    if not friendly:
        enemy = f"{names[d]} is an enemy tile"
        why.note(A.MOVE, src, d, -1, "R10.3", enemy)
        why.note(A.SWAP, src, d, -1, "R10.3", enemy)
        return
    why.note(A.ATTACK, src, d, -1, "R16.1", f"{names[d]} is not an enemy tile")
    held = (f"{names[d]} holds {len(target)} of {state.world.capacity[d]}: "
            f"room for {max(room, 0)}")
    if room > 0:
        why.limit(A.MOVE, src, d, "R4.6", held)
    else:
        why.note(A.MOVE, src, d, -1, "R4.6", held)
    if not target or not state.occupies(seat, d):
        why.note(A.SWAP, src, d, -1, "R10.6", f"you have no unit on {names[d]} to swap with")


# Every Action phase lists each attack it allows and most are never chosen: an attack is
# the same value for the same two tiles, so each is made once (actions are immutable).
# Rows by attacking tile, indexed by the attacked one (lists: an int-keyed dict cost more
# than making the action, callgrind).
_ATTACKS: Final[list[list[Action | None]]] = []


def _attack(src: int, d: int) -> Action:
    """R10.9: the attack from ``src`` on ``d``."""
    if src < len(_ATTACKS):
        row = _ATTACKS[src]
        if d < len(row):
            action = row[d]
            if action is not None:
                return action
    while len(_ATTACKS) <= src:
        _ATTACKS.append([])
    row = _ATTACKS[src]
    while len(row) <= d:
        row.append(None)
    made = row[d] = Action(A.ATTACK, src, d)
    return made


def volleys(state: GameState, seat: Seat, why: Why | None = None) -> list[Action]:
    """LAU-1 (R16.1, R16.9): from a tile with your Archer, an enemy tile at distance 2."""
    if "LAU-1" not in magic.EFFECTS:
        return []
    board = state.board
    distance = state.world.distance
    out = []
    for a in state.controlled(seat):
        if not any(c >> OWNER_SHIFT == seat and type_of(c) == ARCHER for c in board[a]):
            if why is not None:
                why.note(A.VOLLEY, a, -1, -1, "LAU-1",
                         f"you have no Archer on {state.world.names[a]}")
            continue
        if why is not None:
            why.source((A.VOLLEY,), a)
        for d, units in enumerate(board):
            if (units and state.team[units[0] >> OWNER_SHIFT] != state.team[seat]
                    and distance[a][d] == 2):
                out.append(Action(A.VOLLEY, a, d))
    return out


# --- Event choices (section 7) ---------------------------------------------------------

# Cards that place one unit or give 1 gold (R7.7, R7.8).
_PLACE: Final = {"EV01": SWORD, "EV02": SHIELD, "EV03": ARCHER, "EV04": SWORD, "EV05": SHIELD,
                 "EV06": ARCHER, "EV26": CATAPULT}


def _lose_options(state: GameState, seat: Seat) -> list[Action]:
    """R7.12: any basic unit of yours on the board."""
    seen = set()
    out = []
    for tile, c in state.basic_units_on_board(seat):
        if (tile, c) not in seen:
            seen.add((tile, c))
            out.append(Action(A.LOSE, tile, -1, (c,)))
    return out


def event_options(state: GameState, seat: Seat, why: Why | None = None) -> Sequence[Action]:
    """The choices of ``seat``'s part of the current card; [] when nothing is to be chosen.
    ``why``: explain mode (``explain``)."""
    ctx = state.event
    assert ctx is not None
    card = ctx.card
    if ctx.must_lose:
        return _lose_options(state, seat)
    realm = state.realm[seat]
    if why is not None and card == "EV08":
        add_moves(ActionList(), state, seat, why=why)
    if card in _PLACE:
        utype = _PLACE[card]
        if state.reserve[seat][utype] == 0:
            if why is not None:
                why.note(A.PLACE, -1, -1, -1, "R7.8", "no such unit is left in your reserve")
            return [_GOLD]
        single = (code(seat, realm, utype),)
        board = state.board
        cap = state.world.capacity
        if why is not None:
            for t in state.controlled(seat):
                if len(board[t]) >= cap[t]:
                    why.note(A.PLACE, t, -1, -1, "R7.8",
                             f"{state.world.names[t]} is full (R4.6): the unit goes onto a "
                             "tile you control with room")
        return [_GOLD] + [Action(A.PLACE, t, -1, single)
                          for t in state.controlled(seat) if len(board[t]) < cap[t]]
    if card == "EV25":  # special unit or gold
        tiles = [t for t in state.controlled(seat) if state.room(t) > 0]
        return [_GOLD] + [Action(A.PLACE, t, units=(code(seat, r, SPECIAL),))
                          for r in state.placeable_specials(seat) for t in tiles]
    if card in ("EV07", "EV09"):  # R7.9 free upgrade, or gold
        allowed = BASIC_TYPES if card == "EV09" else (1, 2, 3, 4, 5, SPECIAL)
        out = [_GOLD]
        for t in state.controlled(seat):
            # The tile's distinct units, sorted, as its TileInfo has them (no set, no sort).
            for c in tile_info_at(state, t, state.own_units(seat, t)).codes:
                if not c & 1 and type_of(c) in allowed:
                    out.append(Action(A.UPGRADE, t, -1, (c,)))
        return out
    if card == "EV08":  # R7.10 free move, or gold
        moves = ActionList([_GOLD])
        add_moves(moves, state, seat)
        return cast("Sequence[Action]", moves)
    if card == "EV12" or (card == "EV18" and seat in ctx.marked):
        return _lose_options(state, seat)
    if card == "EV24":  # R7.14 return a fallen unit
        out = []
        for owner in range(state.n):
            for c in distinct([g for g in state.graveyard[owner] if owner_of(g) == seat]):
                out.append(Action(A.RETURN, units=(c,), number=owner))
        return out
    return []


# --- Free Spawn (section 8) ------------------------------------------------------------


def _spawn(state: GameState, seat: Seat, why: Why | None = None) -> list[Action]:
    reserve = state.reserve[seat]
    out = [_END]
    if why is not None:
        for t in BASIC_TYPES:
            if reserve[t] == 0:
                why.note(A.SPAWN, -1, -1, PLAIN_CODES[seat][t], "R8.2",
                         "no such unit is left in your reserve")
    for castle in state.spawn_left:
        if state.room(castle) <= 0:
            if why is not None:
                why.note(A.SPAWN, castle, -1, -1, "R4.6", f"{state.world.names[castle]} is full")
            continue
        for t in BASIC_TYPES:
            if reserve[t] > 0:
                out.append(Action(A.SPAWN, castle, -1, (PLAIN_CODES[seat][t],)))
    return out


# --- Purchase (section 11) -------------------------------------------------------------


def placement_tiles(state: GameState, seat: Seat, mine: list[int] | None = None,
                    why: Why | None = None) -> list[int]:
    """R11.3-R11.6: own tiles with room, and empty tiles next to one unless R11.4 used it up.

    In team mode: friendly tiles, and one empty tile next to a friendly tile (R23.19).
    """
    board = state.board
    cap = state.world.capacity
    if state.teams:
        mine = state.friendly(seat)
    elif mine is None:
        mine = state.controlled(seat)
    found = 0  # bit t: tile t is a placement tile (a set without a list per call)
    for t in mine:
        if len(board[t]) < cap[t]:
            found |= 1 << t
    if state.purchase_empty < 0:
        neighbours = state.world.neighbours
        for t in mine:
            for d in neighbours[t]:
                if not board[d]:
                    found |= 1 << d
    if why is not None:
        _why_placement(why, state, seat, mine)
    out = []
    t = 0
    while found:
        if found & 1:
            out.append(t)
        found >>= 1
        t += 1
    return out


def _why_placement(why: Why, state: GameState, seat: Seat, mine: list[int]) -> None:
    """Explain mode of ``placement_tiles``: why the tiles next to yours are not offered."""
    names = state.world.names
    board = state.board
    me = state.team[seat]
    why.sources[A.BUY] = list(mine)
    for t in mine:
        if state.room(t) <= 0:
            why.note(A.BUY, t, -1, -1, "R4.6", f"{names[t]} is full")
        for d in state.world.neighbours[t]:
            if board[d] and state.tile_team(d) != me:
                why.note(A.BUY, d, -1, -1, "R11.5", f"{names[d]} is an enemy tile")
            elif not board[d] and state.purchase_empty >= 0 and d != state.purchase_empty:
                why.note(A.BUY, d, -1, -1, "R11.4",
                         "you already placed units on the empty tile "
                         f"{names[state.purchase_empty]} this phase")


def _own_cards(realm: int, hand: list[str]) -> list[str]:
    """Distinct cards of the hand from the player's own realm (R11.12), sorted. The hand's
    few cards are looked up in the realm's set, not each realm card in the hand (a string
    comparison per pair)."""
    own = _REALM_CARD_SETS[realm]
    out: list[str] = []
    for c in hand:
        if c in own and c not in out:
            out.append(c)
    if len(out) > 1:
        out.sort()
    return out


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class _BuyBlock(Block):
    """Each of ``units`` bought onto each of ``tiles`` (R11.2-R11.6), tile by tile."""

    __slots__ = ("tiles", "units")

    def __init__(self, tiles: list[int], units: list[UnitCode]) -> None:
        self.tiles = tiles
        self.units = units

    def build(self) -> list[Action]:
        return [Action(A.BUY, tile, -1, (c,)) for tile in self.tiles for c in self.units]

    def get(self, j: int) -> Action:
        tile, k = divmod(j, len(self.units))
        return Action(A.BUY, self.tiles[tile], -1, (self.units[k],))

    def kind(self) -> Kind:
        return A.BUY

    def may_hold(self, action: Action) -> bool:
        return action.kind is A.BUY and action.tile in self.tiles


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class _UpgradeBlock(Block):
    """Upgrades (R11.8-R11.10) and castle upgrades (R11.11): the i-th action upgrades unit
    ``units[i]`` on ``tiles[i]``, or the castle there when that is -1. Listed, not built:
    a purchase decision is asked again after every purchase (R11.1)."""

    __slots__ = ("tiles", "units")

    def __init__(self, tiles: list[int], units: list[UnitCode]) -> None:
        self.tiles = tiles
        self.units = units

    def build(self) -> list[Action]:
        return [self.get(j) for j in range(len(self.tiles))]

    def get(self, j: int) -> Action:
        c = self.units[j]
        if c < 0:
            return Action(A.FORTIFY, self.tiles[j])
        return Action(A.UPGRADE, self.tiles[j], -1, (c,))

    def may_hold(self, action: Action) -> bool:
        return (action.kind is A.UPGRADE or action.kind is A.FORTIFY) and action.tile in self.tiles


def _why_purchase(why: Why, state: GameState, seat: Seat, gold: int) -> None:
    """Explain mode of the Purchase phase: what is out of reach and why (R11.1, R2.7, R18.4,
    R11.8, R11.11)."""
    short = f"and you have {gold}"
    reserve = state.reserve[seat]
    for t, cost in _PLACEABLE:
        c = PLAIN_CODES[seat][t]
        if not reserve[t]:
            why.note(A.BUY, -1, -1, c, "R2.7", "that unit is not in your reserve")
        elif cost > gold:
            why.note(A.BUY, -1, -1, c, "R11.1", f"it costs {cost} gold {short}")
    for r in state.specials_waiting[seat]:
        why.note(A.BUY, -1, -1, code(seat, r, SPECIAL), "R18.4",
                 "a special unit received from an eliminated player can be placed from your "
                 "next turn on")
    if PLACE_COST[SPECIAL] > gold:
        for r in state.placeable_specials(seat):
            why.note(A.BUY, -1, -1, code(seat, r, SPECIAL), "R11.1",
                     f"it costs {PLACE_COST[SPECIAL]} gold {short}")
    terrain = state.world.terrain
    for t in state.controlled(seat):
        for c in state.own_units(seat, t):
            cost = UPGRADE_COST[type_of(c)]
            if c & 1:
                why.note(A.UPGRADE, t, -1, c, "R11.8", "that unit is upgraded already")
            elif cost < 0:
                why.note(A.UPGRADE, t, -1, c, "R11.8", "a Crown is never upgraded")
            elif cost > gold:
                why.note(A.UPGRADE, t, -1, c, "R11.1", f"it costs {cost} gold {short}")
        if terrain[t] is _CASTLE:
            if state.fortified[t]:
                why.note(A.FORTIFY, t, -1, -1, "R11.11", "that castle is upgraded already")
            elif gold < CASTLE_UPGRADE_COST:
                why.note(A.FORTIFY, t, -1, -1, "R11.1",
                         f"it costs {CASTLE_UPGRADE_COST} gold {short}")
    for kind, cost in ((A.SWAPCARD, SWAP_CARD_COST), (A.EXTRACARD, EXTRA_CARD_COST),
                       (A.BUYCARD, ELIMINATED_CARD_COST)):
        if cost > gold:
            why.note(kind, -1, -1, -1, "R11.1", f"it costs {cost} gold {short}")


def spendable_gold(state: GameState, seat: Seat) -> int:
    """R11.1; R23.11, R23.19: in team mode the active player may spend allies' gold too."""
    if not state.teams:
        return state.gold[seat]
    return state.gold[seat] + sum(state.gold[p] for p in state.allies(seat))


def _purchase(state: GameState, seat: Seat, why: Why | None = None) -> ActionList:
    gold = spendable_gold(state, seat) if state.teams else state.gold[seat]
    realm = state.realm[seat]
    reserve = state.reserve[seat]
    result = ActionList(_END_FIRST)
    if why is not None:
        _why_purchase(why, state, seat, gold)
    if gold < _CHEAPEST_PURCHASE:
        return result
    # Place units (R11.2 first four rows; R11.7 a General only once returned by R7.14).
    plain = PLAIN_CODES[seat]
    buyable_units = [plain[t] for t, cost in _PLACEABLE if cost <= gold and reserve[t]]
    if PLACE_COST[SPECIAL] <= gold:
        buyable_units += [code(seat, r, SPECIAL) for r in state.placeable_specials(seat)]  # R18.4
    mine = state.controlled(seat)
    if buyable_units or why is not None:
        tiles = placement_tiles(state, seat, mine, why)
        result.add_block(len(tiles) * len(buyable_units), _BuyBlock(tiles, buyable_units))
    # Upgrades (R11.8-R11.10) and castle upgrades (R11.11), tile by tile.
    if gold >= _CHEAPEST_UPGRADE:
        terrain = state.world.terrain
        fortified = state.fortified
        board = state.board
        on: list[int] = []
        upgraded: list[UnitCode] = []
        for t in mine:
            last = -1  # each distinct unit once, in the tile's order (equal units are one)
            for c in state.own_units(seat, t) if state.teams else board[t]:
                if c != last:
                    last = c
                    # R11.8: a unit not yet upgraded, of a type that can be (a Crown's
                    # cost is -1: never).
                    cost = UPGRADE_COST[type_of(c)]
                    if not c & 1 and 0 <= cost <= gold:
                        on.append(t)
                        upgraded.append(c)
            if terrain[t] is _CASTLE and not fortified[t] and gold >= CASTLE_UPGRADE_COST:
                on.append(t)
                upgraded.append(-1)
        result.add_block(len(on), _UpgradeBlock(on, upgraded))
    # Magic cards (R11.12-R11.14, R18.6).
    pool = state.pool[seat]
    buyable = state.buyable[seat] if gold >= ELIMINATED_CARD_COST else []
    if (pool or buyable) and gold >= _CHEAPEST_CARD:
        choose = state.choose_magic
        own = _own_cards(realm, state.hand[seat])
        gives = own if pool and gold >= SWAP_CARD_COST else []
        extra = bool(pool) and gold >= EXTRA_CARD_COST
        count = len(gives) * (len(pool) if choose else 1) + len(buyable)
        count += (len(pool) if choose else 1) if extra else 0
        result.add_block(count, _CardBlock(gives, pool[:], extra, buyable[:], choose))
    return result


# Unit types bought from the reserve (R11.2, R11.7) with their cost, in listing order.
_PLACEABLE: Final = tuple((t, PLACE_COST[t]) for t in (GENERAL, CATAPULT, *BASIC_TYPES))
# Below these amounts of gold a whole row of R11.2 is out of reach.
_CHEAPEST_UPGRADE: Final = min(cost for cost in UPGRADE_COST if cost > 0)
_CHEAPEST_CARD: Final = min(SWAP_CARD_COST, EXTRA_CARD_COST, ELIMINATED_CARD_COST)
_CHEAPEST_PURCHASE: Final = min(_CHEAPEST_UPGRADE, _CHEAPEST_CARD, CASTLE_UPGRADE_COST,
                                min(cost for cost in PLACE_COST if cost > 0))
_REALM_CARD_SETS: Final = tuple(frozenset(magic.realm_cards(r)) for r in range(len(REALMS)))


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class _CardBlock(Block):
    """Card trades (R11.12-R11.14, R18.6): each card of ``gives`` swapped for one of the pool
    (``choose``: each of them; otherwise a random one), an extra card from the pool, and each
    card of ``buyable``."""

    __slots__ = ("gives", "pool", "extra", "buyable", "choose")

    def __init__(self, gives: list[str], pool: list[str], extra: bool, buyable: list[str],
                 choose: bool) -> None:
        self.gives = gives
        self.pool = pool
        self.extra = extra
        self.buyable = buyable
        self.choose = choose

    def build(self) -> list[Action]:
        out: list[Action] = []
        pool = self.pool
        for give in self.gives:
            if self.choose:
                out += [Action(A.SWAPCARD, name=give, name2=take) for take in pool]
            else:
                out.append(Action(A.SWAPCARD, name=give))
        if self.extra:
            if self.choose:
                out += [Action(A.EXTRACARD, name=take) for take in pool]
            else:
                out.append(Action(A.EXTRACARD))
        out += [Action(A.BUYCARD, name=c) for c in self.buyable]
        return out

    def may_hold(self, action: Action) -> bool:
        return action.kind in (A.SWAPCARD, A.EXTRACARD, A.BUYCARD)


# --- Reinforcement (section 12) --------------------------------------------------------


def _reinforce(state: GameState, seat: Seat, why: Why | None = None) -> ActionList:
    """R12.1-R12.2: one unit to an adjacent own or empty tile, or one-for-one swap."""
    board = state.board
    cap = state.world.capacity
    neighbours = state.world.neighbours
    out = ActionList(_PASS_FIRST)
    starts = out.starts
    parts = out.parts
    size = 1
    teams = state.teams
    team = state.team
    me = team[seat]
    for src in state.controlled(seat):
        units = state.own_units(seat, src) if teams else board[src]
        info = tile_info_at(state, src, units)
        kinds, n_kinds = info.codes, info.kinds
        if why is not None:
            why.source(_MOVING, src)
        for d in neighbours[src]:
            target = board[d]
            if why is not None:
                why.limit(A.MOVE, src, d, "R12.1", "reinforcement moves exactly one unit")
                why.limit(A.SWAP, src, d, "R12.1", "reinforcement swaps one unit for one")
                _why_neighbour(why, state, seat, src, d)
            if not target:
                starts.append(size)
                parts.append(_SingleMoveBlock(src, d, kinds))
                size += n_kinds
            elif team[target[0] >> OWNER_SHIFT] == me:  # R23.20: an empty or friendly tile
                if len(target) < cap[d]:
                    starts.append(size)
                    parts.append(_SingleMoveBlock(src, d, kinds))
                    size += n_kinds
                if d > src:
                    if teams:  # swap only with your own units (R12.1 c)
                        target = state.own_units(seat, d)
                        if not target:
                            continue
                    other = tile_info_at(state, d, target)
                    count = n_kinds * other.kinds - info.shared_kinds(other)
                    if count:
                        starts.append(size)
                        parts.append(_SwapBlock(src, d, units, target, info, other, 1, 1, 1, 1))
                        size += count
    out.size = size
    return out


# --- battle (sections 16-17) -----------------------------------------------------------


def split_options(state: GameState, leader: Seat) -> list[tuple[tuple[Seat, int], ...]]:
    """R23.22: every way to share the side's hits among its players, none over their units."""
    battle = state.battle
    assert battle is not None
    hits = battle.hits[leader]
    players = [p for p in side_players(state, battle, leader) if hit_candidates(state, battle, p)]
    limits = [len(hit_candidates(state, battle, p)) for p in players]
    out: list[tuple[tuple[Seat, int], ...]] = []

    def spread(i: int, left: int, shares: list[int]) -> None:
        if i == len(players):
            if left == 0:
                out.append(tuple(zip(players, shares, strict=True)))
            return
        for n in range(min(left, limits[i]) + 1):
            spread(i + 1, left - n, shares + [n])

    spread(0, hits, [])
    return out


def attacking_units(state: GameState, battle: Battle) -> list[UnitCode]:
    """R16.13: every unit on A; with LAU-1 only the attacker's Archers."""
    units = state.board[battle.a_tile]
    if battle.ranged:
        return [c for c in units if owner_of(c) == battle.attacker and type_of(c) == ARCHER]
    return list(units)


def crown_protected(battle: Battle) -> bool:
    """R20.14: under ZHO-4 and LAU-1 no Crown on the defended tile can be killed."""
    return battle.sneak or battle.ranged


def hit_candidates(state: GameState, battle: Battle, seat: Seat) -> list[UnitCode]:
    """The units of ``seat`` that hits can be assigned to (R16.21, R20.14, LAU-1, ZHO-4)."""
    if same_side(battle, seat, battle.attacker):
        if battle.sneak and seat == battle.holders.get(battle.attacker, battle.attacker):
            return []  # ZHO-4: no hit on the holder's units; allies' units take them
        units = attacking_units(state, battle) if battle.ranged else state.board[battle.a_tile]
        return [c for c in units if owner_of(c) == seat]
    mine = [c for c in state.board[battle.d_tile] if owner_of(c) == seat]
    if crown_protected(battle):
        return [c for c in mine if type_of(c) != CROWN]
    return mine


def casualty_options(state: GameState, seat: Seat) -> list[UnitCode]:
    """R16.22-R16.23: a unit of yours in the battle; the Crown only when it is the last."""
    battle = state.battle
    assert battle is not None
    mine = hit_candidates(state, battle, seat)
    others = [c for c in mine if type_of(c) != CROWN]
    return sorted(set(others if others else mine))


def invasion_candidates(state: GameState, battle: Battle) -> list[UnitCode]:
    """Units on A not yet chosen to stay behind."""
    units = list(state.board[battle.a_tile])
    for c in battle.staying:
        units.remove(c)
    return units


def _magic(state: GameState, seat: Seat) -> list[Action]:
    battle = state.battle
    assert battle is not None
    windows = ("W3",) if battle.step == BattleStep.W3 else ("W1", "W2")
    return [_NOMAGIC] + [Action(A.MAGIC, name=c)
                         for c in magic.playable(state, battle, seat, windows)]


def _casualty(state: GameState, seat: Seat) -> list[Action]:
    return [Action(A.CASUALTY, units=(c,)) for c in casualty_options(state, seat)]


def _split(state: GameState, seat: Seat) -> list[Action]:
    return [Action(A.SPLIT, shares=shares) for shares in split_options(state, seat)]


def _card(state: GameState, seat: Seat) -> Sequence[Action]:
    """The choices of the card being resolved (its options, section 26)."""
    battle = state.battle
    assert battle is not None
    effect = magic.EFFECTS[battle.choosing]
    assert effect.options is not None
    return effect.options(state, battle, seat)


def _invasion(state: GameState, seat: Seat) -> list[Action]:
    battle = state.battle
    assert battle is not None
    return [Action(A.LEAVE, units=(c,)) for c in distinct(invasion_candidates(state, battle))]


def _event(state: GameState, seat: Seat) -> Sequence[Action]:
    return event_options(state, seat)


def _none(state: GameState, seat: Seat) -> list[Action]:
    return []


_GENERATORS: Final[dict[Decision, Callable[[GameState, Seat], Sequence[Action] | ActionList]]] = {
    Decision.REALM: _realm,
    Decision.START_CARD: _start_card,
    Decision.CASTLE: _castle,
    Decision.START_UNIT: _start_unit,
    Decision.EVENT: _event,
    Decision.SPAWN: _spawn,
    Decision.ACTION: _action,
    Decision.MAGIC: _magic,
    Decision.CASUALTY: _casualty,
    Decision.INVASION: _invasion,
    Decision.PURCHASE: _purchase,
    Decision.REINFORCE: _reinforce,
    Decision.NONE: _none,
    Decision.CARD: _card,
    Decision.SPLIT: _split,
}
