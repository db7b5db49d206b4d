"""Turns, phases and rounds (sections 6, 8, 9, 21): what happens automatically between
decisions. Every handler in ``apply`` ends by handing control back here."""

from __future__ import annotations

from typing import Final

from . import events, legal, scoring
from .gamelog import GameOver, Income, TurnStarted
from .ops import gain_gold, gold_frozen
from .state import NO_DECISION, Decision, GameState, Pending, Phase, Result
from .units import Seat
from .world import Terrain

# Enum members as module constants: a global lookup is several times cheaper than an
# attribute of the enum class, and these run at every phase of every turn.
_EVENT: Final = Phase.EVENT
_SPAWN: Final = Phase.SPAWN
_INCOME: Final = Phase.INCOME
_ACTION: Final = Phase.ACTION
_PURCHASE: Final = Phase.PURCHASE
_REINFORCE: Final = Phase.REINFORCE
_ASK_SPAWN: Final = Decision.SPAWN
_ASK_ACTION: Final = Decision.ACTION
_ASK_PURCHASE: Final = Decision.PURCHASE
_ASK_REINFORCE: Final = Decision.REINFORCE
_CASTLE: Final = Terrain.CASTLE


def start_turn(state: GameState, seat: Seat) -> None:
    state.active = seat
    state.turn += 1
    if state.specials_waiting[seat]:
        state.specials_waiting[seat] = ()  # R18.4: received specials can be placed from now on
    if state.sink is not None:
        state.sink.append(TurnStarted(seat, state.turn, state.slot // state.n + 1,
                                      state.final_slot >= 0))
    enter_phase(state, _EVENT)  # every phase order starts with the Event phase (R6.2)


def enter_phase(state: GameState, phase: Phase) -> None:
    """R6.3: every phase is gone through, in order, even when nothing happens in it."""
    state.phase = phase
    seat = state.active
    if phase is _EVENT:
        if events.begin(state):
            next_phase(state)
    elif phase is _SPAWN:
        # R8.1: castles controlled when the phase begins.
        terrain = state.world.terrain
        state.spawn_left = [t for t in state.controlled(seat) if terrain[t] is _CASTLE]
        if state.spawn_left:
            _decide_or_skip(state, _ASK_SPAWN)
        else:
            next_phase(state)
    elif phase is _INCOME:
        _income(state, seat)
        next_phase(state)
    elif phase is _ACTION:
        _decide_or_skip(state, _ASK_ACTION)
    elif phase is _PURCHASE:
        state.purchase_empty = -1
        _decide_or_skip(state, _ASK_PURCHASE)
    elif phase is _REINFORCE:
        _decide_or_skip(state, _ASK_REINFORCE)


def _decide_or_skip(state: GameState, kind: Decision) -> None:
    """Ask the active player, unless passing is the only thing they could do."""
    state.pending = Pending(kind, state.active)
    if not legal.ask_or_skip(state):
        next_phase(state)


def _income(state: GameState, seat: Seat) -> None:
    """R9.1: castles + other tiles // 2, counted when the phase begins (R9.3)."""
    terrain = state.world.terrain
    mine = state.controlled(seat)
    castles = sum(1 for t in mine if terrain[t] is _CASTLE)
    amount = castles + (len(mine) - castles) // 2
    gain_gold(state, seat, amount)
    if state.sink is not None:
        frozen = gold_frozen(state)
        state.sink.append(Income(seat, castles, len(mine) - castles, 0 if frozen else amount,
                                 state.gold[seat], frozen))


def next_phase(state: GameState) -> None:
    """R6.2: every phase order is Event, two early phases (Spawn and Income, in the order's
    order: ``state.early_phases``), Action, Purchase, Reinforce (``PHASE_ORDERS`` in
    ``rules/state.py``)."""
    phase = state.phase
    if phase is _ACTION:
        following: Phase | None = _PURCHASE
    elif phase is _PURCHASE:
        following = _REINFORCE
    elif phase is _REINFORCE:
        following = None
    elif phase is _EVENT:
        following = state.early_phases[0]
    elif phase is _SPAWN or phase is _INCOME:
        following = state.early_phases[1] if phase is state.early_phases[0] else _ACTION
    else:
        following = None  # not a phase of a turn
    if following is not None:
        enter_phase(state, following)
    else:
        end_turn(state)  # R12.4


def end_turn(state: GameState) -> None:
    """Pass play to the next player still in the game (R6.1); end after the final round."""
    state.battle = None
    state.pending = NO_DECISION
    while True:
        state.slot += 1
        if state.final_slot >= 0 and state.slot > state.final_slot:
            finish_final_round(state)
            return
        seat = (state.first + state.slot) % state.n
        if not state.eliminated[seat]:
            start_turn(state, seat)
            return


def finish_final_round(state: GameState) -> None:
    """R21.5, section 22: score the players still in the game."""
    if state.teams:
        game_over(state, scoring.team_result(state, "final_round"))
        return
    scores = scoring.scores(state)
    winner, tie_break = scoring.winner(state, scores)
    game_over(state, Result("final_round", winner, scores, tie_break))


def game_over(state: GameState, result: Result) -> None:
    if state.sink is not None:
        state.sink.append(GameOver(result.end, result.winner, result.team,
                                   scoring.score_parts(state), tuple(
                                       tuple(r) for r in result.tie_break)))
    state.result = result
    state.phase = Phase.OVER
    state.pending = NO_DECISION
    state.battle = None
    state.event = None
