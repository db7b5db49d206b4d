"""apply(state, action): the one reducer, a dispatch table with one handler per action kind.

``apply`` is the checked entry point for the outside world: it refuses anything that
``legal_actions`` does not list, with the rule id and a reason, before touching the state.
``apply_unchecked`` is the fast path for search and simulation: it trusts its caller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from . import actions as A
from . import combat, events, flow, ops, setup
from .actions import Action, canonical, format_action
from .errors import IllegalActionError, InvalidActionError
from .gamelog import (
    Bought,
    CardTraded,
    Fortified,
    GoldGiven,
    Moved,
    Passed,
    Sink,
    Spawned,
    Swapped,
    Upgraded,
)
from .legal import ask_or_skip, gifts, legal_actions, spendable_gold
from .state import Decision, GameState
from .units import (
    CASTLE_UPGRADE_COST,
    ELIMINATED_CARD_COST,
    EXTRA_CARD_COST,
    PLACE_COST,
    SPECIAL,
    SWAP_CARD_COST,
    UPGRADE_COST,
    Seat,
    owner_of,
    realm_of,
    type_of,
)


def apply(state: GameState, action: Action | object, seat: Seat | None = None,
          sink: Sink | None = None) -> None:
    """Apply ``action`` for the pending seat after checking it is legal now.

    ``seat``, when given, must be the seat whose decision is pending, except for a gift:
    any player of a team may give gold at every decision point (R23.11), which leaves the
    pending decision as it is. Raises IllegalActionError (with the rule id) and leaves the
    state unchanged otherwise. ``sink``, when given, receives the log entries of what
    happened (``gamelog``).
    """
    if not isinstance(action, Action):
        raise InvalidActionError(f"not an action: {action!r}")
    action = canonical(action)
    pending = state.pending
    if pending.kind == Decision.NONE:
        raise IllegalActionError(_text(action, state), "R21.5", "the game is over")
    if action.kind == A.GIFT and seat is not None and seat != pending.seat:
        if not 0 <= seat < state.n or action not in gifts(state, seat):
            raise IllegalActionError(_text(action, state), "R23.11", _gift_refusal(state, seat))
        apply_unchecked(state, action, sink, seat)
        return
    if seat is not None and seat != pending.seat:
        raise IllegalActionError(
            _text(action, state), "R6.5",
            f"seat {seat} cannot act now: the pending decision ({pending.kind.label}) "
            f"belongs to seat {pending.seat}")
    if action not in legal_actions(state):
        rule, reason = explain(state, action)
        raise IllegalActionError(_text(action, state), rule, reason)
    apply_unchecked(state, action, sink)


def _text(action: Action, state: GameState) -> str:
    try:
        return format_action(action, state)
    except (IndexError, KeyError, ValueError):
        return repr(action)


def apply_unchecked(state: GameState, action: Action, sink: Sink | None = None,
                    giver: Seat | None = None) -> None:
    """Apply a legal action without checking it (fast path, STYLE principle 2); ``sink``
    receives the log entries (None: nothing is built). ``giver``: the seat that gives gold
    out of turn (R23.11); every other action is the pending seat's."""
    state.decisions += 1
    state.legal_for = None
    if sink is None and giver is None:
        _dispatch(state, action)
        return
    handler = _HANDLERS[action.kind] if giver is None else _gift_from(giver)
    if sink is None:
        handler(state, action)
        return
    state.sink = sink
    try:
        handler(state, action)
    finally:
        state.sink = None


# --- handlers --------------------------------------------------------------------------


def _setup(state: GameState, action: Action) -> None:
    kind = state.pending.kind
    seat = state.pending.seat
    if action.kind in (A.REALM, A.CARD):
        setup.apply_setup(state, kind, seat, action.name)
    elif action.kind == A.CASTLE:
        setup.apply_setup(state, kind, seat, action.tile)
    else:
        setup.apply_setup(state, kind, seat, action.units[0])


def _event_choice(state: GameState, action: Action) -> None:
    if events.apply_choice(state, action):
        flow.next_phase(state)


def _spawn(state: GameState, action: Action) -> None:
    ops.place_from_reserve(state, state.active, action.units[0], action.tile)  # R8.1-R8.2
    if state.sink is not None:
        state.sink.append(Spawned(state.active, action.units[0], state.world.names[action.tile]))
    state.spawn_left.remove(action.tile)
    _after_spawn(state)


def _after_spawn(state: GameState) -> None:
    if not ask_or_skip(state):
        flow.next_phase(state)


def _pass(state: GameState, action: Action) -> None:
    """`pass` and `end`: this phase is over (R6.3)."""
    if state.sink is not None:
        state.sink.append(Passed(state.active, state.phase.label))
    flow.next_phase(state)


_EVENT: Final = Decision.EVENT  # a global is cheaper than an enum attribute on hot paths


def _move(state: GameState, action: Action) -> None:
    if state.pending.kind is _EVENT:
        _event_choice(state, action)
        return
    ops.move_units(state, action.tile, action.tile2, action.units)  # R10.2 / R12.1
    if state.sink is not None:
        names = state.world.names
        cause = "reinforce" if state.pending.kind == Decision.REINFORCE else "action"
        state.sink.append(Moved(state.active, names[action.tile], names[action.tile2],
                                action.units, cause))
    flow.next_phase(state)


def _swap(state: GameState, action: Action) -> None:
    ops.swap_units(state, action.tile, action.tile2, action.units, action.units2)
    if state.sink is not None:
        names = state.world.names
        cause = "reinforce" if state.pending.kind == Decision.REINFORCE else "action"
        state.sink.append(Swapped(state.active, names[action.tile], names[action.tile2],
                                  action.units, action.units2, cause))
    flow.next_phase(state)  # R10.6 / R12.1 (c)


def _attack(state: GameState, action: Action) -> None:
    combat.declare(state, action.tile, action.tile2)


def _volley(state: GameState, action: Action) -> None:
    combat.declare(state, action.tile, action.tile2, volley=True)


def _card_choice(state: GameState, action: Action) -> None:
    combat.choose_for_card(state, action)


def _gift(state: GameState, action: Action) -> None:
    """R23.11: gold passes to the ally; the giver still holds the same decision."""
    _give(state, state.pending.seat, action)


def _gift_from(giver: Seat) -> Callable[[GameState, Action], None]:
    """R23.11: a gift by a player who does not hold the decision; the decision stays put."""
    return lambda state, action: _give(state, giver, action)


def _give(state: GameState, giver: Seat, action: Action) -> None:
    state.gold[giver] -= action.amount
    state.gold[action.number] += action.amount
    if state.sink is not None:
        state.sink.append(GoldGiven(giver, action.number, action.amount))


def _split(state: GameState, action: Action) -> None:
    combat.choose_split(state, action.shares)


def _magic(state: GameState, action: Action) -> None:
    combat.declare_magic(state, action.name)


def _nomagic(state: GameState, action: Action) -> None:
    combat.declare_magic(state, None)


def _casualty(state: GameState, action: Action) -> None:
    combat.choose_casualty(state, action.units[0])


def _leave(state: GameState, action: Action) -> None:
    combat.choose_leave(state, action.units[0])


def _upgrade(state: GameState, action: Action) -> None:
    if state.pending.kind is _EVENT:
        _event_choice(state, action)
        return
    c = action.units[0]
    cost = UPGRADE_COST[type_of(c)]
    pay(state, state.active, cost)  # R11.8
    ops.upgrade(state, action.tile, c)
    if state.sink is not None:
        state.sink.append(Upgraded(state.active, c | 1, state.world.names[action.tile], cost,
                                   "purchase"))
    _after_purchase(state)


def _buy(state: GameState, action: Action) -> None:
    seat = state.active
    c = action.units[0]
    tile = action.tile
    if not state.board[tile]:
        state.purchase_empty = tile  # R11.4
    pay(state, seat, PLACE_COST[type_of(c)])
    ops.place_from_reserve(state, seat, c, tile)
    if state.sink is not None:
        state.sink.append(Bought(seat, c, state.world.names[tile], PLACE_COST[type_of(c)]))
    _after_purchase(state)


def _fortify(state: GameState, action: Action) -> None:
    pay(state, state.active, CASTLE_UPGRADE_COST)
    state.fortified[action.tile] = True  # R11.11
    if state.sink is not None:
        state.sink.append(Fortified(state.active, state.world.names[action.tile],
                                    CASTLE_UPGRADE_COST))
    _after_purchase(state)


def _swapcard(state: GameState, action: Action) -> None:
    seat = state.active
    pool = state.pool[seat]
    pay(state, seat, SWAP_CARD_COST)  # R11.12-R11.13
    take = action.name2 if action.name2 else pool[state.chance.below(len(pool))]
    pool.remove(take)
    state.hand[seat].remove(action.name)
    pool.append(action.name)
    pool.sort()
    state.hand[seat].append(take)
    state.hand[seat].sort()
    _traded(state, seat, "swap", action.name, take, SWAP_CARD_COST)
    _after_purchase(state)


def _traded(state: GameState, seat: Seat, trade: str, given: str | None, taken: str,
            cost: int) -> None:
    if state.sink is not None:
        state.sink.append(CardTraded(seat, state.team[seat], trade, given, taken, cost))


def _extracard(state: GameState, action: Action) -> None:
    seat = state.active
    pool = state.pool[seat]
    pay(state, seat, EXTRA_CARD_COST)  # R11.14
    take = action.name if action.name else pool[state.chance.below(len(pool))]
    pool.remove(take)
    state.hand[seat].append(take)
    state.hand[seat].sort()
    _traded(state, seat, "extra", None, take, EXTRA_CARD_COST)
    _after_purchase(state)


def _buycard(state: GameState, action: Action) -> None:
    seat = state.active
    pay(state, seat, ELIMINATED_CARD_COST)  # R18.6
    state.buyable[seat].remove(action.name)
    state.hand[seat].append(action.name)
    state.hand[seat].sort()
    _traded(state, seat, "eliminated", None, action.name, ELIMINATED_CARD_COST)
    _after_purchase(state)


def pay(state: GameState, seat: Seat, cost: int) -> None:
    """R11.1: pay the bank. In team mode the player's own gold goes first, then the allies'
    in turn order (R23.11, R23.19: the active player may spend them)."""
    gold = state.gold
    if not state.teams:
        gold[seat] -= cost
        return
    for payer in [seat] + sorted(state.allies(seat), key=state.turn_position):
        part = min(cost, gold[payer])
        gold[payer] -= part
        cost -= part
        if cost == 0:
            return


def _after_purchase(state: GameState) -> None:
    if not ask_or_skip(state):
        flow.next_phase(state)


_HANDLERS: Final[dict[str, Callable[[GameState, Action], None]]] = {
    A.REALM: _setup, A.CARD: _setup, A.CASTLE: _setup, A.START: _setup,
    A.GOLD: _event_choice, A.PLACE: _event_choice, A.LOSE: _event_choice, A.RETURN: _event_choice,
    A.UPGRADE: _upgrade, A.SPAWN: _spawn, A.MOVE: _move, A.SWAP: _swap, A.ATTACK: _attack,
    A.PASS: _pass, A.END: _pass, A.MAGIC: _magic, A.NOMAGIC: _nomagic,
    A.CASUALTY: _casualty, A.LEAVE: _leave, A.BUY: _buy, A.FORTIFY: _fortify,
    A.SWAPCARD: _swapcard, A.EXTRACARD: _extracard, A.BUYCARD: _buycard, A.VOLLEY: _volley,
    A.KILL: _card_choice, A.SAVE: _card_choice, A.DEPLOY: _card_choice,
    A.RELOCATE: _card_choice, A.EVADE: _card_choice, A.HARMONY: _card_choice,
    A.GIFT: _gift, A.SPLIT: _split,
}


def _dispatch(state: GameState, action: Action) -> None:
    """``_HANDLERS[action.kind](state, action)``, the most frequent kinds by direct calls
    (native ones when compiled, without a table lookup and a Python-level call)."""
    kind = action.kind
    if kind == A.SWAP:
        _swap(state, action)
    elif kind == A.BUY:
        _buy(state, action)
    elif kind == A.MOVE:
        _move(state, action)
    elif kind == A.UPGRADE:
        _upgrade(state, action)
    elif kind == A.END or kind == A.PASS:
        _pass(state, action)
    else:
        _HANDLERS[kind](state, action)


# --- explanations for refused actions --------------------------------------------------

_EXPECTED: Final = {
    Decision.REALM: ("R5.5", "choose a realm: 'realm <name>'"),
    Decision.START_CARD: ("R5.7", "choose a starting magic card: 'card <id>'"),
    Decision.CASTLE: ("R5.8", "choose a free castle spot: 'castle C<n>'"),
    Decision.START_UNIT: ("R5.9", "choose a starting basic unit: 'start sword|archer|shield'"),
    Decision.EVENT: ("R7.1", "resolve the event card"),
    Decision.SPAWN: ("R8.1", "spawn a basic unit on a castle you control, or 'end'"),
    Decision.ACTION: ("R10.1", "move, swap, attack or pass"),
    Decision.MAGIC: ("R16.5", "declare a magic card or 'nomagic'"),
    Decision.CASUALTY: ("R16.22", "choose a unit that dies: 'casualty <unit>'"),
    Decision.INVASION: ("R17.6", "choose a unit that stays behind: 'leave <unit>'"),
    Decision.PURCHASE: ("R11.1", "buy, upgrade, fortify, trade cards, or 'end'"),
    Decision.REINFORCE: ("R12.1", "move or swap one unit, or pass"),
    Decision.CARD: ("R20.7", "make the choice the magic card being resolved asks for"),
    Decision.SPLIT: ("R23.22", "share the side's hits among its players: 'split 0:2,2:1'"),
}

_KINDS_OF: Final = {
    Decision.REALM: {A.REALM}, Decision.START_CARD: {A.CARD}, Decision.CASTLE: {A.CASTLE},
    Decision.START_UNIT: {A.START},
    Decision.EVENT: {A.GOLD, A.PLACE, A.UPGRADE, A.MOVE, A.LOSE, A.RETURN},
    Decision.SPAWN: {A.SPAWN, A.END},
    Decision.ACTION: {A.MOVE, A.SWAP, A.ATTACK, A.PASS, A.VOLLEY},
    Decision.CARD: set(A.CARD_CHOICE_KINDS),
    Decision.SPLIT: {A.SPLIT},
    Decision.MAGIC: {A.MAGIC, A.NOMAGIC}, Decision.CASUALTY: {A.CASUALTY},
    Decision.INVASION: {A.LEAVE},
    Decision.PURCHASE: {A.BUY, A.UPGRADE, A.FORTIFY, A.SWAPCARD, A.EXTRACARD, A.BUYCARD, A.END},
    Decision.REINFORCE: {A.MOVE, A.SWAP, A.PASS},
}


def explain(state: GameState, action: Action) -> tuple[str, str]:
    """Why ``action`` is not legal now: (rule id, reason)."""
    pending = state.pending
    rule, expected = _EXPECTED[pending.kind]
    if action.kind == A.GIFT:
        return "R23.11", _gift_refusal(state, pending.seat)
    if action.kind not in _KINDS_OF[pending.kind]:
        return rule, (f"'{action.kind}' is not possible now: seat {pending.seat} must "
                      f"{expected} (phase {state.phase.label})")
    seat = pending.seat
    board = state.board
    world = state.world
    n_tiles = len(board)
    for tile in (action.tile, action.tile2):
        if tile >= n_tiles:
            return "R4.4", f"tile index {tile} does not exist"
    kind = action.kind
    if kind not in (A.LEAVE, A.KILL):  # invasions move allies' units (R23.26)
        for c in action.units + action.units2:
            if owner_of(c) != seat:
                return "R23.10", "you can only command your own units"
    mine = state.team[seat]
    if kind in (A.MOVE, A.SWAP):
        src, dst = action.tile, action.tile2
        if not state.occupies(seat, src):
            return "R10.2", f"you do not control {world.names[src]}"
        if dst not in world.neighbours[src]:
            return "R4.2", f"{world.names[src]} and {world.names[dst]} are not adjacent"
        if state.tile_team(dst) not in (-1, mine):
            return "R10.3", f"{world.names[dst]} is an enemy tile"
        if not _has_units(board[src], action.units):
            return "R10.2", f"those units are not on {world.names[src]}"
        if kind == A.MOVE and len(board[dst]) + len(action.units) > world.capacity[dst]:
            return "R4.6", (f"{world.names[dst]} holds {len(board[dst])} of "
                            f"{world.capacity[dst]}: no room for {len(action.units)} more")
        if pending.kind == Decision.REINFORCE and len(action.units) != 1:
            return "R12.1", "reinforcement moves or swaps exactly one unit"
        if kind == A.SWAP:
            if not state.occupies(seat, dst):
                return "R10.6", f"you do not control {world.names[dst]}"
            if len(action.units) != 1 and len(action.units2) != 1:
                return "R10.7", "one of the two sets must be a single unit"
            return "R10.8", "after the swap a tile would be over capacity"
    if kind == A.ATTACK:
        if not state.occupies(seat, action.tile):
            return "R16.1", f"you have no unit on {world.names[action.tile]}"
        if action.tile2 not in world.neighbours[action.tile]:
            return "R16.1", "the defended tile must be adjacent to the attacking tile"
        return "R16.1", f"{world.names[action.tile2]} is not an enemy tile"
    if kind in (A.BUY, A.UPGRADE, A.FORTIFY, A.SWAPCARD, A.EXTRACARD, A.BUYCARD):
        cost = _cost(action)
        gold = spendable_gold(state, seat)
        if pending.kind == Decision.PURCHASE and cost > gold:
            return "R11.1", f"it costs {cost} gold and you have {gold}"
        if kind == A.BUY:
            tile = action.tile
            unit = action.units[0] if action.units else -1
            if (type_of(unit) == SPECIAL and owner_of(unit) == seat
                    and realm_of(unit) in state.specials_waiting[seat]):
                return "R18.4", ("a special unit received from an eliminated player can be "
                                 "placed from your next turn on")
            team = state.tile_team(tile)
            if team not in (-1, mine):
                return "R11.5", f"{world.names[tile]} is an enemy tile"
            if state.room(tile) <= 0:
                return "R4.6", f"{world.names[tile]} is full"
            if team == -1 and state.purchase_empty >= 0:
                return "R11.4", ("you already placed units on the empty tile "
                                 f"{world.names[state.purchase_empty]} this phase")
            if team == -1:
                return "R11.3", f"{world.names[tile]} is not next to a tile you control"
            return "R2.7", "that unit is not in your reserve"
        if kind == A.UPGRADE:
            return "R11.8", "that unit is not yours on that tile, is a Crown or is upgraded"
        if kind == A.FORTIFY:
            return "R11.11", "you can upgrade only a castle tile you control, once"
        return "R11.12", "that card is not in your hand, your pool or on offer to you"
    if kind == A.SPAWN:
        return "R8.2", "one basic unit from your reserve per castle you held at the start"
    if kind == A.PLACE:
        return "R7.8", "place a unit of your reserve on a tile you control with room"
    if kind == A.CASUALTY:
        return "R16.23", "that unit is not yours on the battle tile, or the Crown must be last"
    if kind == A.LEAVE:
        return "R17.6", "that unit is not among the attackers still on the attacking tile"
    if kind == A.MAGIC:
        return "R16.8", "that card is not in your hand, not usable now, or its condition fails"
    if kind == A.VOLLEY:
        return "LAU-1", ("a volley needs Volley from Afar in your hand, an Archer of yours on "
                         "the attacking tile and an enemy tile at distance exactly 2")
    if kind in A.CARD_CHOICE_KINDS:
        return "R20.7", "not one of the choices the card being resolved offers"
    return rule, f"not possible now: seat {seat} must {expected}"


def _gift_refusal(state: GameState, seat: Seat) -> str:
    if not 0 <= seat < state.n:
        return f"there is no seat {seat}"
    return ("a gift goes to an ally, in team mode, and cannot exceed your own gold "
            f"({state.gold[seat]})")


def _has_units(units: tuple[int, ...], wanted: tuple[int, ...]) -> bool:
    pool = list(units)
    for c in wanted:
        if c not in pool:
            return False
        pool.remove(c)
    return True


def _cost(action: Action) -> int:
    kind = action.kind
    if kind == A.BUY:
        return PLACE_COST[type_of(action.units[0])]
    if kind == A.UPGRADE:
        return UPGRADE_COST[type_of(action.units[0])]
    if kind == A.FORTIFY:
        return CASTLE_UPGRADE_COST
    if kind == A.SWAPCARD:
        return SWAP_CARD_COST
    if kind == A.EXTRACARD:
        return EXTRA_CARD_COST
    return ELIMINATED_CARD_COST
