"""Phase 1, the Event phase (section 7), the 36-card deck (section 24) and the end-game
cards (section 25).

Card data (names, texts, counts, scope, source) is in ``data/events.json``; what each card
*does* is the small table of effects below, keyed by card id.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import actions as A
from . import flow, legal, ops
from .actionlist import ActionList
from .actions import Action
from .catalog import EVENT_CARD_BY_ID
from .state import Decision, EventContext, GameState, Pending
from .units import (
    ARCHER,
    BASIC_TYPES,
    CATAPULT,
    CROWN,
    SHIELD,
    SPECIAL,
    SWORD,
    Seat,
    code,
    type_of,
)
from .world import Terrain

END_GAME_CARD_OF_OPTION = {
    "six_gates": "EG1", "scales": "EG2", "oracles": "EG3", "gilded_silence": "EG4",
}

_GOLD = Action(A.GOLD)
_new = tuple.__new__  # builds a NamedTuple without its wrapper (hot paths only)
_ASK_EVENT = Decision.EVENT

# Cards that place one unit or give 1 gold (R7.7, R7.8).
_PLACE = {"EV01": SWORD, "EV02": SHIELD, "EV03": ARCHER, "EV04": SWORD, "EV05": SHIELD,
          "EV06": ARCHER, "EV26": CATAPULT}
# Plain gold changes: card -> delta (R7.11).
_GOLD_DELTA = {"EV10": -1, "EV11": -2, "EV27": 1}
# Conditional +1 gold (R7.5, R7.6): EV20 Catapult on the board, EV21-23 terrain occupied.
_TERRAIN_GOLD = {"EV21": Terrain.MOUNTAIN, "EV22": Terrain.FOREST, "EV23": Terrain.FIELD}


# Cards whose parts never offer a choice (until EV15's roll of 1 asks for a unit).
_AUTO_ONLY = frozenset(_GOLD_DELTA) | frozenset(_TERRAIN_GOLD) | {
    "EV13", "EV14", "EV15", "EV16", "EV17", "EV19", "EV20"}


def begin(state: GameState) -> None:
    """R7.1-R7.2: draw and resolve the top card, unless no card is drawn this turn."""
    if state.oracles or state.final_slot >= 0 or not state.deck:
        flow.next_phase(state)
        return
    card = state.deck.pop()
    state.last_event = card
    if card.startswith("EG"):
        _end_game_card(state, card)
        state.discard.append(card)
        flow.next_phase(state)
        return
    if not state.deck and state.config.end_game_card == "none":
        flow.trigger_final_round(state)  # R21.2 (b)
    info = EVENT_CARD_BY_ID[card]
    active = state.active
    if info.scope == "player":
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
    _continue(state)


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
    """Section 25: the card's effect, then the final round is triggered (R25.1)."""
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
        state.gilded = True
    flow.trigger_final_round(state)


def _continue(state: GameState) -> None:
    """Resolve players' parts in order until one needs a decision (R7.4)."""
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
        opts = options(state, seat)
        if len(opts) > 1:
            pending = _new(Pending, (_ASK_EVENT, seat))
            state.pending = pending
            state.legal_cache = (pending, opts)  # what legal_actions would compute again
            return
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
    flow.next_phase(state)


def _lose_options(state: GameState, seat: Seat) -> list[Action]:
    """R7.12: any basic unit of yours on the board."""
    seen = set()
    out = []
    for tile, c in state.basic_units_on_board(seat):
        if (tile, c) not in seen:
            seen.add((tile, c))
            out.append(_new(Action, (A.LOSE, tile, -1, (c,), (), "", "", -1)))
    return out


def options(state: GameState, seat: Seat) -> Sequence[Action]:
    """The choices of ``seat``'s part of the current card; [] when nothing is to be chosen."""
    ctx = state.event
    assert ctx is not None
    card = ctx.card
    if ctx.must_lose:
        return _lose_options(state, seat)
    realm = state.realm[seat]
    if card in _PLACE:
        utype = _PLACE[card]
        if state.reserve[seat][utype] == 0:
            return [_GOLD]
        single = (code(seat, realm, utype),)
        board = state.board
        cap = state.world.capacity
        return [_GOLD] + [_new(Action, (A.PLACE, t, -1, single, (), "", "", -1))
                          for t in state.controlled(seat) if len(board[t]) < cap[t]]
    if card == "EV25":  # special unit or gold
        tiles = [t for t in state.controlled(seat) if state.room(t) > 0]
        return [_GOLD] + [Action(A.PLACE, t, units=(code(seat, r, SPECIAL),))
                          for r in state.reserve_specials[seat] for t in tiles]
    if card in ("EV07", "EV09"):  # R7.9 free upgrade, or gold
        allowed = BASIC_TYPES if card == "EV09" else (1, 2, 3, 4, 5, SPECIAL)
        out = [_GOLD]
        for t in state.controlled(seat):
            for c in legal.distinct(state.own_units(seat, t)):
                if not c & 1 and type_of(c) in allowed:
                    out.append(_new(Action, (A.UPGRADE, t, -1, (c,), (), "", "", -1)))
        return out
    if card == "EV08":  # R7.10 free move, or gold
        moves = ActionList([_GOLD])
        legal.add_moves(moves, state, seat)
        return moves
    if card == "EV12" or (card == "EV18" and seat in ctx.marked):
        return _lose_options(state, seat)
    if card == "EV24":  # R7.14 return a fallen unit
        out = []
        for owner in range(state.n):
            for c in legal.distinct([g for g in state.graveyard[owner] if g >> 7 == seat]):
                out.append(Action(A.RETURN, units=(c,), number=owner))
        return out
    return []


def _auto(state: GameState, ctx: EventContext, seat: Seat) -> None:
    """Parts without a choice: gold changes and die rolls (section 24)."""
    card = ctx.card
    if card in _GOLD_DELTA:
        delta = _GOLD_DELTA[card]
        if delta > 0:
            ops.gain_gold(state, seat, delta)
        else:
            ops.lose_gold(state, seat, -delta)
    elif card == "EV13":
        if state.chance.roll(6) >= 4:
            ops.gain_gold(state, seat, 1)
    elif card == "EV14":
        roll = state.chance.roll(6)
        if roll <= 2:
            ops.lose_gold(state, seat, 1)
        elif roll >= 5:
            ops.gain_gold(state, seat, 1)
    elif card == "EV15":
        if state.chance.roll(6) == 1 and state.basic_units_on_board(seat):
            ctx.must_lose = True
    elif card == "EV16" and seat in ctx.marked:
        ops.lose_gold(state, seat, 2)
    elif card == "EV17" and seat not in ctx.marked:
        ops.gain_gold(state, seat, 1)
    elif card == "EV19" and seat in ctx.marked:
        ops.lose_gold(state, seat, 1)
    elif card == "EV20":
        if any(c >> 7 == seat and type_of(c) == CATAPULT for units in state.board for c in units):
            ops.gain_gold(state, seat, 1)
    elif card in _TERRAIN_GOLD:
        terrain = _TERRAIN_GOLD[card]
        if any(state.world.terrain[t] == terrain for t in state.controlled(seat)):
            ops.gain_gold(state, seat, 1)


def _apply_choice(state: GameState, seat: Seat, action: Action) -> None:
    ctx = state.event
    assert ctx is not None
    kind = action.kind
    if kind == A.GOLD:
        ops.gain_gold(state, seat, 1)
    elif kind == A.PLACE:
        ops.place_from_reserve(state, seat, action.units[0], action.tile)
    elif kind == A.UPGRADE:
        ops.upgrade(state, action.tile, action.units[0])
    elif kind == A.MOVE:
        ops.move_units(state, action.tile, action.tile2, action.units)
    elif kind == A.LOSE:
        ops.remove_from_game(state, action.tile, action.units[0])
        ctx.must_lose = False
    elif kind == A.RETURN:
        state.graveyard[action.number].remove(action.units[0])
        ops.put_in_reserve(state, seat, action.units[0])


def apply_choice(state: GameState, action: Action) -> None:
    """Apply the pending EVENT decision, then go on with the card."""
    ctx = state.event
    assert ctx is not None
    seat = ctx.queue[0]
    _apply_choice(state, seat, action)
    if not ctx.must_lose:
        ctx.queue.pop(0)
    _continue(state)
