"""The ``mcts`` bot: information-set Monte-Carlo tree search (single observer, SO-ISMCTS).

Every iteration draws a determinization — a complete state consistent with the seat's
observation (``SeatView.determinize``: opponents' hands and pools, the deck order and all
future dice redrawn) — and walks one tree shared by all determinizations: an edge is an
action, and a child's availability counts how often it was legal when its parent was
visited, so UCB compares actions fairly when hidden cards make them legal only sometimes
(Cowling, Powley and Whitehouse 2012). Chance is open loop: the dice are part of the
determinization, not nodes of the tree (the expert's ``chance`` option makes a battle's roll
a chance node: ``descend(..., chance=True)``).

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

from ..odds import hit_distribution
from ..rules import actions as A
from ..rules.actions import Action
from ..rules.apply import apply_unchecked
from ..rules.combat import compare, drops_lowest
from ..rules.errors import ConfigError
from ..rules.gamelog import DiceRolled, Entry, PairsCompared
from ..rules.legal import legal_actions
from ..rules.scoring import score, team_score
from ..rules.state import BattleStep, GameState
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
    """Statistics of the edge into this node, and the children by action.

    With chance nodes (``descend(..., chance=True)``), an edge whose action rolled a battle's
    dice is a chance node: the decisions after the roll hang under one outcome node per
    outcome of hits, each with its exact probability, and the edge's value is the outcomes'
    mean values weighted by those probabilities, not by how often the samples rolled them.
    """

    __slots__ = ("children", "visits", "available", "value", "outcomes", "weight", "raw",
                 "rolled", "rolled_value")

    def __init__(self, weight: float = 0.0) -> None:
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.available = 0
        # Summed value to the seat that chose the edge; of a chance node, its estimate of
        # the mean value times its visits.
        self.value = 0.0
        # Of a chance node: the node after each outcome, keyed by (hits on the attacker,
        # hits on the defender) as rolled (R16.16-R16.20).
        self.outcomes: dict[tuple[int, int], Node] | None = None
        self.weight = weight  # of an outcome node: the outcome's exact probability
        # Of a chance node: the summed values as backed up, and the visits that went on
        # through an outcome node with their summed values.
        self.raw = 0.0
        self.rolled = 0
        self.rolled_value = 0.0


def run_budget(iterations: int, seconds: float | None, cap_seconds: float | None,
               iterate: Callable[[int], None], root: Node | None = None,
               among: Sequence[Action] = ()) -> int:
    """Call ``iterate(k)`` for k = 0, 1, … ``iterations`` times, or for ``seconds`` when
    given (at least once); ``cap_seconds`` (a server's hard limit) stops either sooner.
    With ``root``, stop as soon as the search is settled (``settled``): the rest of the
    budget could not change which of the root actions ``among`` is the most visited.
    Returns how many iterations ran. The search loop of ``mcts`` and ``expert``."""
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    cap = None if cap_seconds is None else start + cap_seconds
    done = 0
    while True:
        left = math.inf  # iterations the budget still allows
        if deadline is None and done >= iterations:
            break
        if deadline is None:
            left = float(iterations - done)
        if done and (deadline is not None or cap is not None):
            now = time.perf_counter()
            rate = done / max(now - start, 1e-9)  # iterations per second so far
            for end in (deadline, cap):
                if end is not None:
                    if now >= end:
                        return done
                    left = min(left, rate * (end - now))
        if root is not None and done >= _SETTLE_FROM and done % _SETTLE_EVERY == 0 and settled(
                root, among, left):
            break
        iterate(done)
        done += 1
    return done


_SETTLE_FROM = 16  # iterations before the settled test is first made
_SETTLE_EVERY = 4


def settled(root: Node, among: Sequence[Action], left: float) -> bool:
    """No action of ``among`` can overtake the most visited one in ``left`` more iterations
    at the root: its lead in visits is larger than that (the decision is the same however
    the rest of the budget would go)."""
    first = second = 0
    for action in among:
        child = root.children.get(action)
        visits = 0 if child is None else child.visits
        if visits > first:
            first, second = visits, first
        elif visits > second:
            second = visits
    return first - second > left


def descend(root: Node, state: GameState, root_candidates: list[Action], c: float,
            width: int, chance: bool = False,
            before: list[tuple[GameState, Action]] | None = None) -> list[tuple[Node, int]]:
    """One walk down the tree on the determinization ``state``, played along: UCB with
    availability counts among a node's candidates, until a node has an untried candidate
    (expanded, greedy's choice first) or the game ends. Returns the edges walked, each with
    the seat that chose it; ``state`` is left at the leaf for the caller to value.

    ``chance``: an action that rolls a battle's dice leads on through the node of the
    outcome this determinization rolled; the dice stay sampled, and ``backup`` weighs the
    outcomes by their exact probabilities (``odds.hit_distribution``). ``before`` receives
    the state before the expanded action and the action when that action can roll, so the
    caller can judge the new chance node over every outcome (``outcome_states``)."""
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
            if before is not None and chance and _may_roll(state, action):
                before.append((state.copy(), action))
            _play(child, state, action, chance, path, seat)
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
        node = _play(node, state, action, chance, path, seat)
        if state.is_over:
            return path
        options = candidates(SeatView(state, state.pending.seat), legal_actions(state), width)


def _play(node: Node, state: GameState, action: Action, chance: bool,
          path: list[tuple[Node, int]], seat: int) -> Node:
    """Apply the action of the edge into ``node``; returns the node the walk goes on from:
    with ``chance``, the outcome's node when the action rolled a battle's dice (added to
    ``path`` with the same seat, so it gathers the values of the visits that rolled it)."""
    if not chance or not _may_roll(state, action):
        apply_unchecked(state, action)
        return node
    sink: list[Entry] = []
    apply_unchecked(state, action, sink)
    rolled = _rolled(state, sink)
    if rolled is None:
        return node
    key, weight = rolled
    if node.outcomes is None:
        node.outcomes = {}
        node.raw = node.value  # the sampled sum so far: no estimate has replaced it yet
    after = node.outcomes.get(key)
    if after is None:
        after = node.outcomes[key] = Node(weight)
    path.append((after, seat))
    return after


def _may_roll(state: GameState, action: Action) -> bool:
    """Whether applying ``action`` can reach a battle's roll (R16.15): an attack, or any
    decision of a battle before its dice (declarations, W1 choices, an evasion). Only such
    an apply is logged, which costs time."""
    if action.kind == A.ATTACK or action.kind == A.VOLLEY:
        return True
    battle = state.battle
    return battle is not None and battle.step in _BEFORE_ROLL


_BEFORE_ROLL = (BattleStep.DECLARE, BattleStep.W1, BattleStep.EVADE)
# A battle's pools: the die sizes of each side, the mountain's dropped die, EG2's scales.
Pools = tuple[tuple[int, ...], tuple[int, ...], bool, bool]
# The exact probability of each (hits on the attacker, hits on the defender) by sorted
# pools: a float per outcome, made once per pools from the memoised ``hit_distribution``.
_OUTCOME_ODDS: dict[Pools, dict[tuple[int, int], float]] = {}


def _outcome_odds(attack: tuple[int, ...], defence: tuple[int, ...], drop: bool,
                  scales: bool) -> dict[tuple[int, int], float]:
    pools = (tuple(sorted(attack, reverse=True)), tuple(sorted(defence, reverse=True)), drop,
             scales)
    odds = _OUTCOME_ODDS.get(pools)
    if odds is None:
        hits = hit_distribution(pools[0], pools[1], drop, scales)
        odds = _OUTCOME_ODDS[pools] = {(ha, hd): n / hits.total for ha, hd, n in hits.counts}
    return odds


def _logged_roll(state: GameState, sink: list[Entry]) -> tuple[Pools, tuple[int, int]] | None:
    """The pools (sizes in the order rolled) and the hits (R16.16-R16.20) of the one battle
    roll an apply logged in ``sink``; None when it rolled none (or more than one: never
    seen)."""
    dice: DiceRolled | None = None
    pairs: PairsCompared | None = None
    for entry in sink:
        if isinstance(entry, DiceRolled):
            if dice is not None:
                return None
            dice = entry
        elif isinstance(entry, PairsCompared):
            pairs = entry
    if dice is None or pairs is None:
        return None
    pools = (tuple([d.size for d in dice.attack]), tuple([d.size for d in dice.defence]),
             pairs.dropped != -1, state.scales)
    return pools, (pairs.attacker_hits, pairs.defender_hits)


def _rolled(state: GameState, sink: list[Entry]) -> tuple[tuple[int, int], float] | None:
    """The outcome of the roll an apply logged in ``sink`` and its exact probability."""
    logged = _logged_roll(state, sink)
    if logged is None:
        return None
    (attack, defence, drop, scales), key = logged
    return key, _outcome_odds(attack, defence, drop, scales)[key]


def backup(path: list[tuple[Node, int]], values: Sequence[float]) -> None:
    """Add one visit and the choosing seat's value to every edge of ``path``; a chance
    node's value becomes its outcomes' means weighted by their exact probabilities."""
    chance = False
    last = len(path) - 1
    for i, (child, seat) in enumerate(path):
        value = values[seat]
        child.visits += 1
        child.value += value
        if child.outcomes is not None:
            chance = True
            child.raw += value
            if i < last and path[i + 1][0].weight > 0.0:  # went on through an outcome
                child.rolled += 1
                child.rolled_value += value
    if chance:
        for child, _ in path:
            if child.outcomes is not None:
                _estimate(child)


def _estimate(node: Node) -> None:
    """A chance node's value: the visits that rolled no dice (an opponent's hidden card can
    put the roll off in some determinizations; a visit judged over every outcome) as backed
    up, the others as the probability-weighted mean of the outcomes' values, renormalised
    over the outcomes seen."""
    assert node.outcomes is not None
    weights = 0.0
    weighted = 0.0
    for after in node.outcomes.values():
        if after.visits:
            weights += after.weight
            weighted += after.weight * after.value / after.visits
    if not node.rolled or weights <= 0.0:
        node.value = node.raw
        return
    node.value = node.raw - node.rolled_value + node.rolled * (weighted / weights)


def outcome_states(before: GameState, action: Action
                   ) -> list[tuple[tuple[int, int], float, GameState]]:
    """Every outcome of the roll ``action`` makes from ``before`` (R16.15-R16.20): its hits,
    its exact probability and the state after it (the action applied with dice forced to
    give those hits). Empty when the action rolls no battle dice from ``before``; an outcome
    whose dice the forced faces do not reach (a draw before the roll) is left out."""
    probe = before.copy()
    sink: list[Entry] = []
    apply_unchecked(probe, action, sink)
    logged = _logged_roll(probe, sink)
    if logged is None:
        return []
    out: list[tuple[tuple[int, int], float, GameState]] = []
    for key, weight, faces in _faces(logged[0]):
        after = before.copy()
        after.chance.force(faces)
        sink = []
        apply_unchecked(after, action, sink)
        rolled = _logged_roll(after, sink)
        if not after.chance.forced and rolled is not None and rolled[1] == key:
            out.append((key, weight, after))
    return out


# By pools in the order rolled: each outcome of hits, its exact probability and faces that
# roll it.
_FACES: dict[Pools, list[tuple[tuple[int, int], float, list[int]]]] = {}


def _faces(pools: Pools) -> list[tuple[tuple[int, int], float, list[int]]]:
    """Faces for every outcome of ``pools``, found by rolling them with a fixed seed (an
    outcome rarer than the tries can find is left out: its weight is renormalised away)."""
    known = _FACES.get(pools)
    if known is not None:
        return known
    attack, defence, drop, scales = pools
    wanted = _outcome_odds(attack, defence, drop, scales)
    found: dict[tuple[int, int], list[int]] = {}
    rng = random.Random(0)
    for _ in range(4000):
        a = [rng.randint(1, size) for size in attack]
        d = [rng.randint(1, size) for size in defence]
        key = compare(a, d, drop, scales)
        if key not in found:
            found[key] = a + d
            if len(found) == len(wanted):
                break
    known = _FACES[pools] = [(key, wanted[key], found[key]) for key in sorted(found)]
    return known


def after_roll(node: Node, state: GameState) -> Node:
    """Where a search goes on from a kept node whose edge can roll a battle's dice, now that
    the real game is at ``state``: the node itself while the roll is still to come, the node
    of the outcome the battle rolled (R16.16-R16.20), or a new node when the roll is no
    longer to be seen (the battle ended within the apply that rolled it)."""
    if node.outcomes is None:
        return node
    battle = state.battle
    if battle is not None and battle.step in _BEFORE_ROLL:
        return node
    if battle is None or not battle.attack_rolls:
        return Node()
    key = compare(battle.attack_rolls, battle.defence_rolls, drops_lowest(state, battle.d_tile),
                  state.scales)
    return node.outcomes.get(key) or Node()


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
