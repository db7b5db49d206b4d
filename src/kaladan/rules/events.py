"""Phase 1, the Event phase (section 7), the 36-card deck (section 24) and the end-game
cards (section 25).

Card data (names, texts, counts, scope, source) is in ``data/events.json``; what each card
*does* is the small table of effects below, keyed by card id.
"""

from __future__ import annotations

from typing import Final

from . import actions as A
from . import ops
from .actions import Action
from .catalog import EVENT_CARD_BY_ID
from .gamelog import (
    EventCardDrawn,
    EventRoll,
    GoldChanged,
    Moved,
    UnitPlaced,
    UnitRemoved,
    UnitReturned,
    Upgraded,
)
from .legal import event_options
from .state import Decision, EventContext, GameState, Pending
from .units import (
    CATAPULT,
    CROWN,
    OWNER_SHIFT,
    Seat,
    type_of,
)
from .world import Terrain

END_GAME_CARD_OF_OPTION: Final = {
    "six_gates": "EG1", "scales": "EG2", "oracles": "EG3", "gilded_silence": "EG4",
}

_ASK_EVENT: Final = Decision.EVENT
# Who resolves each card (R7.4): its catalog scope, as a table compiled code reads fast.
_SCOPE: Final = {card: info.scope for card, info in EVENT_CARD_BY_ID.items()}

# Plain gold changes: card -> delta (R7.11).
_GOLD_DELTA: Final = {"EV10": -1, "EV11": -2, "EV27": 1}
# Conditional +1 gold (R7.5, R7.6): EV20 Catapult on the board, EV21-23 terrain occupied.
_TERRAIN_GOLD: Final = {"EV21": Terrain.MOUNTAIN, "EV22": Terrain.FOREST, "EV23": Terrain.FIELD}


# Cards whose parts never offer a choice (until EV15's roll of 1 asks for a unit).
_AUTO_ONLY: Final = frozenset(_GOLD_DELTA) | frozenset(_TERRAIN_GOLD) | {
    "EV13", "EV14", "EV15", "EV16", "EV17", "EV19", "EV20"}


def begin(state: GameState) -> bool:
    """R7.1-R7.2: draw and resolve the top card, unless no card is drawn this turn. True when
    the Event phase is over; False when a player must decide (``Decision.EVENT``)."""
    if state.oracles or state.final_slot >= 0 or not state.deck:
        return True
    card = state.deck.pop()
    state.last_event = card
    if state.sink is not None:
        state.sink.append(EventCardDrawn(state.active, card, len(state.deck)))
    if card.startswith("EG"):
        _end_game_card(state, card)
        state.discard.append(card)
        return True
    if not state.deck and (state.config.end_game_card == "none"
                           or state.config.end_game_trigger == "deck_end"):
        ops.trigger_final_round(state)  # R21.2 (b)
    active = state.active
    if _SCOPE[card] == "player":
        queue = [active]
    else:
        queue = [(active + k) % state.n for k in range(state.n)
                 if not state.eliminated[(active + k) % state.n]]  # R7.4
    ctx = EventContext(card, queue)
    if card in ("EV16", "EV17"):
        ctx.marked = _richest(state)
    elif card in ("EV18", "EV19"):
        ctx.marked = _strongest(state)
    state.event = ctx
    return _continue(state)


def _richest(state: GameState) -> list[Seat]:
    """R7.13: most gold; nobody when the most is 0."""
    alive = state.alive()
    top = max(state.gold[p] for p in alive)
    return [] if top == 0 else [p for p in alive if state.gold[p] == top]


def _strongest(state: GameState) -> list[Seat]:
    alive = state.alive()
    counts = {p: state.units_on_board(p) for p in alive}
    top = max(counts.values())
    return [] if top == 0 else [p for p in alive if counts[p] == top]


def _end_game_card(state: GameState, card: str) -> None:
    """Section 25: the card's effect, then the final round is triggered (R25.1). With
    ``end_game_trigger = deck_end`` only the empty deck triggers it (R21.2 (b)): EG3 empties
    it at once, the other cards change the rules and play goes on drawing."""
    if card == "EG1":
        state.six_gates = True
    elif card == "EG2":
        state.scales = True
        board = state.board  # every unit but Crowns upgraded at once
        for t, units in enumerate(board):
            board[t] = tuple(sorted(c | 1 if type_of(c) != CROWN else c for c in units))
    elif card == "EG3":
        state.oracles = True
    elif card == "EG4":
        state.gilded_slot = state.slot
    if state.config.end_game_trigger == "final_round" or card == "EG3":
        ops.trigger_final_round(state, card)
    elif not state.deck:
        ops.trigger_final_round(state)  # R21.2 (b): it was the last card


def _continue(state: GameState) -> bool:
    """Resolve players' parts in order until one needs a decision (R7.4); True when the card
    is resolved (R7.15)."""
    ctx = state.event
    assert ctx is not None
    auto_only = ctx.card in _AUTO_ONLY
    while ctx.queue:
        seat = ctx.queue[0]
        if auto_only and not ctx.must_lose:
            _auto(state, ctx, seat)
            if not ctx.must_lose:
                ctx.queue.pop(0)
            continue
        opts = event_options(state, seat)
        if len(opts) > 1:
            pending = Pending(_ASK_EVENT, seat)
            state.pending = pending
            state.scratch.legal_for = pending  # what legal_actions would compute again
            state.scratch.legal_list = opts
            return False
        if len(opts) == 1:
            _apply_choice(state, seat, opts[0])
            if ctx.must_lose:
                continue
        else:
            _auto(state, ctx, seat)
            if ctx.must_lose:
                continue
        ctx.queue.pop(0)
    state.discard.append(ctx.card)  # R7.15
    state.event = None
    return True


def _gold(state: GameState, seat: Seat, delta: int, card: str) -> None:
    """An event card's gold: gained (never under EG4, R9.4) or lost (never below 0, R7.11)."""
    before = state.gold[seat]
    if delta > 0:
        ops.gain_gold(state, seat, delta)
    else:
        ops.lose_gold(state, seat, -delta)
    if state.sink is not None and state.gold[seat] != before:
        state.sink.append(GoldChanged(seat, state.gold[seat] - before, state.gold[seat], card))


def _roll(state: GameState, seat: Seat, card: str) -> int:
    face = state.chance.roll(6)
    if state.sink is not None:
        state.sink.append(EventRoll(seat, card, face))
    return face


def _auto(state: GameState, ctx: EventContext, seat: Seat) -> None:
    """Parts without a choice: gold changes and die rolls (section 24)."""
    card = ctx.card
    if card in _GOLD_DELTA:
        _gold(state, seat, _GOLD_DELTA[card], card)
    elif card == "EV13":
        if _roll(state, seat, card) >= 4:
            _gold(state, seat, 1, card)
    elif card == "EV14":
        roll = _roll(state, seat, card)
        if roll <= 2:
            _gold(state, seat, -1, card)
        elif roll >= 5:
            _gold(state, seat, 1, card)
    elif card == "EV15":
        if _roll(state, seat, card) == 1 and state.basic_units_on_board(seat):
            ctx.must_lose = True
    elif card == "EV16" and seat in ctx.marked:
        _gold(state, seat, -2, card)
    elif card == "EV17" and seat not in ctx.marked:
        _gold(state, seat, 1, card)
    elif card == "EV19" and seat in ctx.marked:
        _gold(state, seat, -1, card)
    elif card == "EV20":
        if any(c >> OWNER_SHIFT == seat and type_of(c) == CATAPULT
               for units in state.board for c in units):
            _gold(state, seat, 1, card)
    elif card in _TERRAIN_GOLD:
        terrain = _TERRAIN_GOLD[card]
        if any(state.world.terrain[t] == terrain for t in state.controlled(seat)):
            _gold(state, seat, 1, card)


def _apply_choice(state: GameState, seat: Seat, action: Action) -> None:
    ctx = state.event
    assert ctx is not None
    kind = action.kind
    card = ctx.card
    sink = state.sink
    names = state.world.names
    if kind == A.GOLD:
        _gold(state, seat, 1, card)
    elif kind == A.PLACE:
        ops.place_from_reserve(state, seat, action.units[0], action.tile)
        if sink is not None:
            sink.append(UnitPlaced(seat, action.units[0], names[action.tile], card))
    elif kind == A.UPGRADE:
        ops.upgrade(state, action.tile, action.units[0])
        if sink is not None:
            sink.append(Upgraded(seat, action.units[0] | 1, names[action.tile], 0, card))
    elif kind == A.MOVE:
        ops.move_units(state, action.tile, action.tile2, action.units)
        if sink is not None:
            sink.append(Moved(seat, names[action.tile], names[action.tile2], action.units, card))
    elif kind == A.LOSE:
        ops.remove_from_game(state, action.tile, action.units[0])
        ctx.must_lose = False
        if sink is not None:
            sink.append(UnitRemoved(seat, action.units[0], names[action.tile], card))
    elif kind == A.RETURN:
        state.graveyard[action.number].remove(action.units[0])
        ops.put_in_reserve(state, seat, action.units[0])
        if sink is not None:
            sink.append(UnitReturned(seat, action.units[0], action.number, card))


def apply_choice(state: GameState, action: Action) -> bool:
    """Apply the pending EVENT decision, then go on with the card; True when it is resolved
    and the Event phase is over."""
    ctx = state.event
    assert ctx is not None
    seat = ctx.queue[0]
    _apply_choice(state, seat, action)
    if not ctx.must_lose:
        ctx.queue.pop(0)
    return _continue(state)
