"""What performing each kind of action does: one handler per kind (``kinds.py`` names each
kind's handler; ``apply.py`` calls it), and what each purchase costs (the same functions
price the offer, ``offer.price``). Handlers trust their caller: the action is legal now.
"""

from __future__ import annotations

from typing import Final

from . import combat, events, flow, ops, setup
from .actions import Action
from .gamelog import (
    Bought,
    CardTraded,
    Fortified,
    GoldGiven,
    Moved,
    Passed,
    Spawned,
    Swapped,
    Upgraded,
)
from .legal import ask_or_skip
from .state import Decision, GameState
from .units import (
    CASTLE_UPGRADE_COST,
    ELIMINATED_CARD_COST,
    EXTRA_CARD_COST,
    PLACE_COST,
    SWAP_CARD_COST,
    UPGRADE_COST,
    Seat,
    type_of,
)

_EVENT: Final = Decision.EVENT  # a global is cheaper than an enum attribute on hot paths
_REINFORCE: Final = Decision.REINFORCE


# --- prices (R11.2, R11.8, R11.11-R11.14, R18.6): what a purchase of each kind costs -----


def buy_price(action: Action) -> int:
    """R11.2: a unit from the reserve."""
    return PLACE_COST[type_of(action.units[0])]


def upgrade_price(action: Action) -> int:
    """R11.8: an upgrade bought in the Purchase phase (an event's upgrade is free, R7.9)."""
    return UPGRADE_COST[type_of(action.units[0])]


def fortify_price(action: Action) -> int:
    return CASTLE_UPGRADE_COST  # R11.11


def swapcard_price(action: Action) -> int:
    return SWAP_CARD_COST  # R11.12


def extracard_price(action: Action) -> int:
    return EXTRA_CARD_COST  # R11.14


def buycard_price(action: Action) -> int:
    return ELIMINATED_CARD_COST  # R18.6


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


# --- setup (section 5) -----------------------------------------------------------------


def setup_choice(state: GameState, action: Action) -> None:
    """A realm, a starting card, a castle spot or a starting unit (R5.5-R5.9)."""
    kind = state.pending.kind
    seat = state.pending.seat
    if action.name:
        setup.apply_setup(state, kind, seat, action.name)
    elif action.tile >= 0:
        setup.apply_setup(state, kind, seat, action.tile)
    else:
        setup.apply_setup(state, kind, seat, action.units[0])


# --- the turn --------------------------------------------------------------------------


def event_choice(state: GameState, action: Action) -> None:
    """A choice of the event card being resolved (section 7)."""
    if events.apply_choice(state, action):
        flow.next_phase(state)


def spawn(state: GameState, action: Action) -> None:
    ops.place_from_reserve(state, state.active, action.units[0], action.tile)  # R8.1-R8.2
    if state.sink is not None:
        state.sink.append(Spawned(state.active, action.units[0], state.world.names[action.tile]))
    state.spawn_left.remove(action.tile)
    if not ask_or_skip(state):
        flow.next_phase(state)


def end_phase(state: GameState, action: Action) -> None:
    """`pass` and `end`: this phase is over (R6.3)."""
    if state.sink is not None:
        state.sink.append(Passed(state.active, state.phase.label))
    flow.next_phase(state)


def move(state: GameState, action: Action) -> None:
    if state.pending.kind is _EVENT:  # R7.10: an event card's free move
        event_choice(state, action)
        return
    ops.move_units(state, action.tile, action.tile2, action.units)  # R10.2 / R12.1
    if state.sink is not None:
        names = state.world.names
        cause = "reinforce" if state.pending.kind is _REINFORCE else "action"
        state.sink.append(Moved(state.active, names[action.tile], names[action.tile2],
                                action.units, cause))
    flow.next_phase(state)


def swap(state: GameState, action: Action) -> None:
    ops.swap_units(state, action.tile, action.tile2, action.units, action.units2)
    if state.sink is not None:
        names = state.world.names
        cause = "reinforce" if state.pending.kind is _REINFORCE else "action"
        state.sink.append(Swapped(state.active, names[action.tile], names[action.tile2],
                                  action.units, action.units2, cause))
    flow.next_phase(state)  # R10.6 / R12.1 (c)


def attack(state: GameState, action: Action) -> None:
    combat.declare(state, action.tile, action.tile2)


def volley(state: GameState, action: Action) -> None:
    combat.declare(state, action.tile, action.tile2, volley=True)


# --- battles (sections 16-17, 20, 23) ---------------------------------------------------


def magic(state: GameState, action: Action) -> None:
    combat.declare_magic(state, action.name)


def nomagic(state: GameState, action: Action) -> None:
    combat.declare_magic(state, None)


def casualty(state: GameState, action: Action) -> None:
    combat.choose_casualty(state, action.units[0])


def leave(state: GameState, action: Action) -> None:
    combat.choose_leave(state, action.units[0])


def card_choice(state: GameState, action: Action) -> None:
    """A choice the magic card being resolved asks of its holder (R20.7)."""
    combat.choose_for_card(state, action)


def split(state: GameState, action: Action) -> None:
    combat.choose_split(state, action.shares)


def gift(state: GameState, action: Action) -> None:
    """R23.11: gold passes to the ally; the giver still holds the same decision."""
    give(state, state.pending.seat, action)


def give(state: GameState, giver: Seat, action: Action) -> None:
    """R23.11: ``giver`` (who may not hold the decision) gives gold to an ally."""
    state.gold[giver] -= action.amount
    state.gold[action.number] += action.amount
    if state.sink is not None:
        state.sink.append(GoldGiven(giver, action.number, action.amount))


# --- purchases (section 11) -------------------------------------------------------------


def upgrade(state: GameState, action: Action) -> None:
    if state.pending.kind is _EVENT:  # R7.9: an event card's free upgrade
        event_choice(state, action)
        return
    c = action.units[0]
    cost = upgrade_price(action)
    pay(state, state.active, cost)  # R11.8
    ops.upgrade(state, action.tile, c)
    if state.sink is not None:
        state.sink.append(Upgraded(state.active, c | 1, state.world.names[action.tile], cost,
                                   "purchase"))
    _after_purchase(state)


def buy(state: GameState, action: Action) -> None:
    seat = state.active
    c = action.units[0]
    tile = action.tile
    if not state.board[tile]:
        state.purchase_empty = tile  # R11.4
    cost = buy_price(action)
    pay(state, seat, cost)
    ops.place_from_reserve(state, seat, c, tile)
    if state.sink is not None:
        state.sink.append(Bought(seat, c, state.world.names[tile], cost))
    _after_purchase(state)


def fortify(state: GameState, action: Action) -> None:
    cost = fortify_price(action)
    pay(state, state.active, cost)
    state.fortified[action.tile] = True  # R11.11
    if state.sink is not None:
        state.sink.append(Fortified(state.active, state.world.names[action.tile], cost))
    _after_purchase(state)


def swapcard(state: GameState, action: Action) -> None:
    seat = state.active
    pool = state.pool[seat]
    pay(state, seat, swapcard_price(action))  # R11.12-R11.13
    take = action.name2 if action.name2 else pool[state.chance.below(len(pool))]
    pool.remove(take)
    state.hand[seat].remove(action.name)
    pool.append(action.name)
    pool.sort()
    state.hand[seat].append(take)
    state.hand[seat].sort()
    _traded(state, seat, "swap", action.name, take, swapcard_price(action))
    _after_purchase(state)


def extracard(state: GameState, action: Action) -> None:
    seat = state.active
    pool = state.pool[seat]
    pay(state, seat, extracard_price(action))  # R11.14
    take = action.name if action.name else pool[state.chance.below(len(pool))]
    pool.remove(take)
    state.hand[seat].append(take)
    state.hand[seat].sort()
    _traded(state, seat, "extra", None, take, extracard_price(action))
    _after_purchase(state)


def buycard(state: GameState, action: Action) -> None:
    seat = state.active
    pay(state, seat, buycard_price(action))  # R18.6
    state.buyable[seat].remove(action.name)
    state.hand[seat].append(action.name)
    state.hand[seat].sort()
    _traded(state, seat, "eliminated", None, action.name, buycard_price(action))
    _after_purchase(state)


def _traded(state: GameState, seat: Seat, trade: str, given: str | None, taken: str,
            cost: int) -> None:
    if state.sink is not None:
        state.sink.append(CardTraded(seat, state.team[seat], trade, given, taken, cost))


def _after_purchase(state: GameState) -> None:
    if not ask_or_skip(state):
        flow.next_phase(state)
