"""The ``mcts`` bot: information-set Monte-Carlo tree search (single observer, SO-ISMCTS).

Every iteration draws a determinization — a complete state consistent with the seat's
observation (``SeatView.determinize``: opponents' hands and pools, the deck order and all
future dice redrawn) — and walks one tree shared by all determinizations: an edge is an
action, and a child's availability counts how often it was legal when its parent was
visited, so UCB compares actions fairly when hidden cards make them legal only sometimes
(Cowling, Powley and Whitehouse 2012). Chance is open loop: the dice are part of the
determinization, not nodes of the tree.

The game's branching is wide (the action phase lists every sub-multiset of units that can
move), so a node searches a small candidate set: the greedy bot's choice, every attack, the
quiet actions (pass, end, no card) and an even spread of the rest. Leaves are valued by a
playout of ``horizon`` decisions with the greedy policy (the engine's fast path on a cheap
copy), then by a score-based evaluation of the position (``evaluate``); a finished game is
worth 1 to its winner(s) and 0 to everyone else.

Budgets: ``mcts:iterations=400`` (deterministic under the bot's rng) or ``mcts:time=1.0``
(seconds of search per decision; depends on the machine, so not reproducible).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..rules import actions as A
from ..rules.actions import Action
from ..rules.apply import apply_unchecked
from ..rules.errors import ConfigError
from ..rules.legal import legal_actions
from ..rules.scoring import score, team_score
from ..rules.state import GameState
from ..rules.units import CROWN, owner_of, type_of, unit_value
from .base import SeatView
from .greedy import GreedyBot

_QUIET = (A.PASS, A.END, A.NOMAGIC)
_GREEDY = GreedyBot()


@dataclass(frozen=True, slots=True)
class MctsParams:
    iterations: int = 400
    time: float | None = None  # seconds per decision; replaces ``iterations`` when set
    c: float = 0.7  # UCB exploration constant (rewards are in [0, 1])
    horizon: int = 24  # playout length in decisions before the position is evaluated
    width: int = 10  # candidate actions searched per node

    @classmethod
    def parse(cls, params: dict[str, str]) -> MctsParams:
        """From ``key=value`` pairs of a bot spec; every mistake names the parameter."""
        known = {"iterations": int, "time": float, "c": float, "horizon": int, "width": int}
        values: dict[str, float | int] = {}
        for key, text in params.items():
            kind = known.get(key)
            if kind is None:
                raise ConfigError(f"unknown mcts parameter {key!r}: use "
                                  f"{', '.join(sorted(known))}")
            try:
                value = kind(text)
            except ValueError:
                raise ConfigError(f"mcts parameter {key}={text!r} is not a number") from None
            if value <= 0 or (kind is float and not math.isfinite(value)):
                raise ConfigError(f"mcts parameter {key}={text!r} must be positive")
            values[key] = value
        if "iterations" in values and "time" in values:
            raise ConfigError("give the mcts budget as iterations=N or time=SECONDS, not both")
        return cls(**values)  # type: ignore[arg-type]


class Node:
    """Statistics of the edge into this node, and the children by action."""

    __slots__ = ("children", "visits", "available", "value")

    def __init__(self) -> None:
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.available = 0
        self.value = 0.0  # summed value to the seat that chose the edge


def run_budget(iterations: int, seconds: float | None, cap_seconds: float | None,
               iterate: Callable[[int], None]) -> int:
    """Call ``iterate(k)`` for k = 0, 1, … ``iterations`` times, or for ``seconds`` when
    given (at least once); ``cap_seconds`` (a server's hard limit) stops either sooner.
    Returns how many iterations ran. The search loop of ``mcts`` and ``expert``."""
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    cap = None if cap_seconds is None else start + cap_seconds
    done = 0
    while True:
        if deadline is None:
            if done >= iterations:
                break
        elif done and time.perf_counter() >= deadline:
            break
        if cap is not None and done and time.perf_counter() >= cap:
            break
        iterate(done)
        done += 1
    return done


def descend(root: Node, state: GameState, root_candidates: list[Action], c: float,
            width: int) -> list[tuple[Node, int]]:
    """One walk down the tree on the determinization ``state``, played along: UCB with
    availability counts among a node's candidates, until a node has an untried candidate
    (expanded, greedy's choice first) or the game ends. Returns the edges walked, each with
    the seat that chose it; ``state`` is left at the leaf for the caller to value."""
    path: list[tuple[Node, int]] = []
    node = root
    options = root_candidates
    while True:
        seat = state.pending.seat
        for action in options:
            child = node.children.get(action)
            if child is not None:
                child.available += 1
        untried = [a for a in options if a not in node.children]
        if untried:
            action = untried[0]  # candidate order: greedy's choice first
            child = node.children[action] = Node()
            child.available = 1
            path.append((child, seat))
            apply_unchecked(state, action)
            return path
        best_score = -1.0
        best: tuple[Action, Node] | None = None
        for action in options:
            child = node.children[action]
            ucb = (child.value / child.visits
                   + c * math.sqrt(math.log(child.available) / child.visits))
            if ucb > best_score:
                best_score, best = ucb, (action, child)
        assert best is not None
        action, node = best
        path.append((node, seat))
        apply_unchecked(state, action)
        if state.is_over:
            return path
        options = candidates(SeatView(state, state.pending.seat), legal_actions(state), width)


def backup(path: list[tuple[Node, int]], values: Sequence[float]) -> None:
    """Add one visit and the choosing seat's value to every edge of ``path``."""
    for child, seat in path:
        child.visits += 1
        child.value += values[seat]


class MctsBot:
    name = "mcts"

    def __init__(self, params: MctsParams | None = None) -> None:
        self.params = params or MctsParams()
        # A hard limit on the seconds of one decision whatever the parameters (a server's
        # budget, ``ServerSettings.bot_seconds``); None: the parameters alone decide.
        self.max_seconds: float | None = None
        # Of the last searched decision, for benchmarks, tests and analysis.
        self.iterations_done = 0
        self.last_visits: dict[Action, int] = {}

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        params = self.params
        root = Node()
        root_candidates = candidates(view, legal, params.width)
        if len(root_candidates) == 1:
            return root_candidates[0]

        def iterate(_: int) -> None:
            state = view.determinize(rng)
            path = descend(root, state, root_candidates, params.c, params.width)
            backup(path, self._playout(state, rng))

        self.iterations_done = run_budget(params.iterations, params.time, self.max_seconds,
                                          iterate)
        self.last_visits = {a: child.visits for a, child in root.children.items()}
        # The most visited action; ties to the candidate order (greedy's choice first).
        return max(root_candidates,
                   key=lambda a: root.children[a].visits if a in root.children else -1)

    def _playout(self, state: GameState, rng: random.Random) -> list[float]:
        for _ in range(self.params.horizon):
            if state.is_over:
                break
            seat = state.pending.seat
            legal = legal_actions(state)
            action = legal[0] if len(legal) == 1 else _GREEDY.choose(
                SeatView(state, seat), legal, rng)
            apply_unchecked(state, action)
        return evaluate(state)


def candidates(view: SeatView, legal: Sequence[Action], width: int) -> list[Action]:
    """The actions a node searches: all when few, else greedy's choice, every attack, the
    quiet actions and an even spread of the rest, in that order and without repeats."""
    if len(legal) <= width:
        return list(legal)
    chosen: dict[Action, None] = {_GREEDY.choose(view, legal, random.Random(0)): None}
    for action in legal:
        if action.kind in (A.ATTACK, A.VOLLEY) or action.kind in _QUIET:
            chosen[action] = None
    rest = [a for a in legal if a not in chosen]
    room = width - len(chosen)
    if room > 0 and rest:
        step = len(rest) / room
        for i in range(min(room, len(rest))):
            chosen[rest[int(i * step)]] = None
    return list(chosen)


def evaluate(state: GameState) -> list[float]:
    """Each seat's value of a position in [0, 1]: the result when the game is over, else a
    logistic of its margin over the best opponent in score (R22.1, team score in team mode)
    plus the worth of its units, with an eliminated player at 0."""
    n = state.n
    result = state.result
    if result is not None:
        if result.team is not None:
            return [1.0 if state.team[p] == result.team else 0.0 for p in range(n)]
        if result.winner is None:
            return [0.5] * n
        return [1.0 if p == result.winner else 0.0 for p in range(n)]
    strength = [0.0] * n
    for units in state.board:
        for c in units:
            if type_of(c) != CROWN:
                strength[owner_of(c)] += unit_value(c)[0]
    if state.teams:
        teams = sorted(set(state.team))
        by_team = {t: team_score(state, t) + 0.25 * sum(
            strength[p] for p in range(n) if state.team[p] == t) for t in teams}
        values = [by_team[state.team[p]] for p in range(n)]
    else:
        values = [-1e9 if state.eliminated[p] else score(state, p) + 0.25 * strength[p]
                  for p in range(n)]
    out = []
    for p in range(n):
        if state.eliminated[p] and not state.teams:
            out.append(0.0)
            continue
        rival = max((values[q] for q in range(n) if state.team[q] != state.team[p]),
                    default=values[p])
        out.append(1.0 / (1.0 + math.exp(-(values[p] - rival) / 4.0)))
    return out
