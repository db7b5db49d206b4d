"""apply(state, action): the one reducer, dispatching each kind to the handler its spec names
(``kinds.py``).

``apply`` is the checked entry point for the outside world: it refuses anything that
``legal_actions`` does not list, with the rule id and a reason (``offer.refusal``), before
touching the state. ``apply_unchecked`` is the fast path for search and simulation: it
trusts its caller.
"""

from __future__ import annotations

from typing import Final

from . import handlers
from .actions import BUY, END, GIFT, MOVE, PASS, SWAP, UPGRADE, Action, canonical
from .errors import IllegalActionError, InvalidActionError
from .gamelog import Sink
from .kinds import HANDLERS, SPECS, format_action
from .legal import gifts, legal_actions
from .offer import refusal
from .state import Decision, GameState
from .units import Seat

_NONE: Final = Decision.NONE


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
    if pending.kind is _NONE:
        raise IllegalActionError(_text(action, state), "R21.5", "the game is over")
    if action.kind is GIFT and seat is not None and seat != pending.seat:
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
        rule, reason = refusal(state, action)
        raise IllegalActionError(_text(action, state), rule, reason)
    apply_unchecked(state, action, sink)


def _dispatch(state: GameState, action: Action) -> None:
    """``HANDLERS[action.kind](state, action)``, the kinds of most decisions by direct calls
    (native ones when compiled: no table lookup and no Python-level call; about 1% of a
    random game's instructions, callgrind). tests/rules/test_kinds.py checks that each names
    its spec's handler."""
    kind = action.kind
    if kind is SWAP:
        handlers.swap(state, action)
    elif kind is BUY:
        handlers.buy(state, action)
    elif kind is MOVE:
        handlers.move(state, action)
    elif kind is UPGRADE:
        handlers.upgrade(state, action)
    elif kind is END or kind is PASS:
        handlers.end_phase(state, action)
    else:
        HANDLERS[kind](state, action)


def _text(action: Action, state: GameState) -> str:
    try:
        return format_action(action, state)
    except (IndexError, KeyError, ValueError):
        return repr(action)


def _gift_refusal(state: GameState, seat: Seat) -> str:
    if not 0 <= seat < state.n:
        return f"there is no seat {seat}"
    return f"{SPECS[GIFT].refusals['none'].reason} ({state.gold[seat]})"


def apply_unchecked(state: GameState, action: Action, sink: Sink | None = None,
                    giver: Seat | None = None) -> None:
    """Apply a legal action without checking it (fast path, STYLE principle 2); ``sink``
    receives the log entries (None: nothing is built). ``giver``: the seat that gives gold
    out of turn (R23.11); every other action is the pending seat's."""
    state.decisions += 1
    state.scratch.legal_for = None
    if sink is None and giver is None:
        HANDLERS[action.kind](state, action)
        return
    state.sink = sink
    try:
        if giver is None:
            HANDLERS[action.kind](state, action)
        else:
            handlers.give(state, giver, action)
    finally:
        state.sink = None
