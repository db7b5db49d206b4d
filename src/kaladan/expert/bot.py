"""The ``expert`` bot: information-set tree search judged by the learned evaluator.

The search is the ``mcts`` bot's (single-observer ISMCTS: a determinization drawn from the
seat's view per iteration, one tree of actions shared by all of them, availability-counted
UCB, the greedy bot's choice first among a node's candidates), with two changes where the
old bot loses games:

* a new leaf is judged by the value network (``value.ValueNet``: every seat's chance that
  its side wins, from the view of the seat to decide there) instead of a greedy playout of
  24 decisions and a score margin, so a position is worth what wins games from it — cards
  in hand, the reserve, gold to spend, a threatened Crown, rounds left — not what it scores
  now; ``horizon=N`` plays N greedy decisions before judging (default 0);
* the tree is kept across the seat's consecutive decisions (the sub-decisions of one
  action: attack, card, casualties, invasion…), so the search of a step starts with what
  the step before learnt about it.

``chance=1`` makes a battle's roll a chance node (one node per outcome of hits, weighted by
its exact probability, ``mcts.descend``); ``chance=2`` also judges a new one over all its
outcomes at once (``_judge_outcomes``). Neither is the default: they measured no stronger
at equal iterations (docs/value.md "The search").

The network's matrix products run on one BLAS thread while the bot searches
(``value.one_blas_thread``): OpenBLAS's threads would fight the machine's other games.

Budgets as for ``mcts``: ``expert:iterations=N`` (deterministic under the bot's rng) or
``expert:time=SECONDS`` per decision. ``per=turn`` makes either the budget of the seat's
whole turn instead (``_share``): each decision of the turn gets a part of what is left, and
stops as soon as the rest of its part could not change its choice (``mcts.settled``), so
what a clear decision does not use goes to the turn's harder ones.

``net=PATH`` judges with another network (training uses it); by default the shipped one
for the game's player count. A configuration no network serves is refused with the reason
(``value.ValueNetError``), before the game when the caller checks (``check_config``) and at
the first decision otherwise.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..bots.base import SeatView
from ..bots.greedy import GreedyBot
from ..bots.mcts import (
    Node,
    after_roll,
    backup,
    candidates,
    descend,
    outcome_states,
    run_budget,
)
from ..rules.actions import Action
from ..rules.apply import apply_unchecked
from ..rules.config import Config
from ..rules.errors import ConfigError
from ..rules.legal import legal_actions
from ..rules.state import PHASE_ORDERS, GameState, Phase
from .value import ValueNet, load_for, one_blas_thread

_GREEDY = GreedyBot()


@dataclass(frozen=True, slots=True)
class ExpertParams:
    iterations: int = 400
    time: float | None = None  # seconds per decision; replaces ``iterations`` when set
    c: float = 0.5  # UCB exploration constant (values are probabilities)
    width: int = 10  # candidate actions searched per node
    horizon: int = 0  # greedy decisions played before a leaf is judged
    reuse: int = 1  # keep the tree across the seat's consecutive decisions
    # Battle rolls as chance nodes weighted by their exact odds (1), and a new one judged
    # over all its outcomes (2).
    chance: int = 0
    per: str = "decision"  # the budget is for each decision, or for the seat's whole turn
    net: str | None = None  # a network file instead of the shipped one

    @classmethod
    def parse(cls, params: dict[str, str]) -> ExpertParams:
        """From ``key=value`` pairs of a bot spec; every mistake names the parameter."""
        known: dict[str, Any] = {"iterations": int, "time": float, "c": float, "width": int,
                                 "horizon": int, "reuse": int, "chance": int, "per": str,
                                 "net": str}
        values: dict[str, Any] = {}
        for key, text in params.items():
            kind = known.get(key)
            if kind is None:
                raise ConfigError(f"unknown expert parameter {key!r}: use "
                                  f"{', '.join(sorted(known))}")
            if key == "per" and text not in ("decision", "turn"):
                raise ConfigError(f"expert parameter per={text!r}: use per=decision (the "
                                  "budget is each decision's) or per=turn (the whole turn's)")
            if kind is str:
                values[key] = text
                continue
            try:
                value = kind(text)
            except ValueError:
                raise ConfigError(f"expert parameter {key}={text!r} is not a number") from None
            if value < 0 or (value == 0 and key not in ("horizon", "reuse", "chance")) or (
                    kind is float and not math.isfinite(value)):
                raise ConfigError(f"expert parameter {key}={text!r} must be positive")
            if key == "chance" and value > 2:
                raise ConfigError(f"expert parameter chance={text!r}: use 0 (sampled dice), 1 "
                                  "(chance nodes) or 2 (judged over every outcome)")
            values[key] = value
        if "iterations" in values and "time" in values:
            raise ConfigError("give the expert budget as iterations=N or time=SECONDS, not both")
        return cls(**values)


class ExpertBot:
    name = "expert"

    def __init__(self, params: ExpertParams | None = None) -> None:
        self.params = params or ExpertParams()
        # A hard limit on the seconds of one decision (a server's budget), as for mcts.
        self.max_seconds: float | None = None
        self.iterations_done = 0
        self.last_visits: dict[Action, int] = {}
        # Mean value to the deciding seat of each searched root action (analysis, hints).
        self.last_values: dict[Action, float] = {}
        self.last_value = 0.5  # the chosen edge's mean value: the search's own estimate
        self._kept: tuple[tuple[Any, ...], Node] | None = None
        # per=turn: the turn being played; the seat's turns before it and their decisions
        # per phase, over all its games.
        self._turn: _Turn | None = None
        self._turns_seen = 0
        self._asked: dict[Phase, int] = {}
        self._nets: dict[Config, ValueNet] = {}

    def network(self, config: Config) -> ValueNet:
        """The network that judges games of ``config`` (ValueNetError if none); looked up
        once per configuration, not at every decision (``load_for`` resolves a path)."""
        known = self._nets.get(config)
        if known is None:
            known = self._nets[config] = load_for(config, self.params.net)
        return known

    def check_config(self, config: Config) -> None:
        """Refuse, before a game starts, a configuration no network serves."""
        self.network(config)

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        params = self.params
        net = self.network(view.config)
        root_candidates = candidates(view, legal, params.width)
        if len(root_candidates) == 1:
            return root_candidates[0]
        first = view.determinize(rng)
        # A kept tree is used only for the decision it was kept for.
        moment = (view.seat, first.decisions, *_game_of(first))
        root = Node()
        kept = self._kept
        self._kept = None
        if kept is not None and kept[0] == moment:
            root = after_roll(kept[1], first)

        def iterate(k: int) -> None:
            state = first if k == 0 else view.determinize(rng)
            before: list[tuple[GameState, Action]] | None = [] if params.chance >= 2 else None
            path = descend(root, state, root_candidates, params.c, params.width,
                           bool(params.chance), before)
            if before and path[-1][0].weight > 0.0 and _judge_outcomes(path, before[0], net):
                return
            for _ in range(params.horizon):
                if state.is_over:
                    break
                legal = legal_actions(state)
                apply_unchecked(state, legal[0] if len(legal) == 1 else _GREEDY.choose(
                    SeatView(state, state.pending.seat), legal, rng))
            backup(path, net.win_probabilities(state))

        iterations, seconds = params.iterations, params.time
        by_turn = params.per == "turn"
        turn: _Turn | None = None  # the turn this decision is charged to (per=turn)
        if by_turn:
            share, turn = self._share(view.seat, first)
            if seconds is None:
                iterations = max(1, int(share))
            else:
                seconds = share
        start = time.perf_counter()
        with one_blas_thread():
            self.iterations_done = run_budget(iterations, seconds, self.max_seconds, iterate,
                                              root if by_turn else None, root_candidates)
        if turn is not None:
            turn.spent += (self.iterations_done if params.time is None
                           else time.perf_counter() - start)
        searched = [a for a in root_candidates if a in root.children and root.children[a].visits]
        self.last_visits = {a: root.children[a].visits for a in searched}
        self.last_values = {a: root.children[a].value / root.children[a].visits
                            for a in searched}
        # The most visited action; ties to the candidate order (greedy's choice first).
        best = max(root_candidates,
                   key=lambda a: root.children[a].visits if a in root.children else -1)
        child = root.children.get(best)
        if child is not None and child.visits:
            self.last_value = child.value / child.visits
            if params.reuse:
                self._kept = ((view.seat, first.decisions + 1, *_game_of(first)), child)
        return best

    def _share(self, seat: int, state: GameState) -> tuple[float, _Turn | None]:
        """Under ``per=turn``, the part of the budget this decision may use.

        In the seat's own turn: what the turn has left over the decisions it expects still to
        make in the turn, this one included. It expects, of each phase of the turn that can
        ask it something (R6.2; income asks nothing), as many as it made on average in its
        turns before (one each before its first turn), and at least this one; a decision
        past the expected ones still gets ``_FLOOR`` of the budget. A decision outside the
        seat's turn (setup, a defence, another seat's event) gets the budget over the
        expected decisions of a whole turn, and is not counted in any turn. Returns the share
        and the turn to charge (None outside the seat's turn).
        """
        budget = float(self.params.iterations if self.params.time is None
                       else self.params.time)
        asking = [p for p in PHASE_ORDERS[state.config.phase_order] if p is not Phase.INCOME]
        if state.active != seat or state.phase not in asking:
            return budget / sum(self._expected(p) for p in asking), None
        key = (seat, state.turn, state.slot, *_game_of(state))
        turn = self._turn
        if turn is None or turn.key != key:
            if turn is not None:  # the seat's last turn is over: learn from it
                self._turns_seen += 1
                for phase, count in turn.asked.items():
                    self._asked[phase] = self._asked.get(phase, 0) + count
            turn = self._turn = _Turn(key)
        now = asking.index(state.phase)
        ahead = max(1.0, self._expected(state.phase) - turn.asked.get(state.phase, 0)) + sum(
            self._expected(p) for p in asking[now + 1:])
        turn.asked[state.phase] = turn.asked.get(state.phase, 0) + 1
        return max((budget - turn.spent) / ahead, budget * _FLOOR), turn

    def _expected(self, phase: Phase) -> float:
        """The decisions the seat expects to make in ``phase`` of a turn: the mean of its
        turns before, counting one turn with one decision in every phase as a prior."""
        return (self._asked.get(phase, 0) + 1) / (self._turns_seen + 1)


_FLOOR = 1 / 20  # the least part of a turn's budget a decision of the turn gets


class _Turn:
    """A turn of the seat under ``per=turn``: the public facts that name it, the budget it
    has spent (in the budget's unit: iterations or seconds) and its decisions per phase."""

    __slots__ = ("key", "spent", "asked")

    def __init__(self, key: tuple[Any, ...]) -> None:
        self.key = key
        self.spent = 0.0
        self.asked: dict[Phase, int] = {}


def _game_of(state: GameState) -> tuple[Any, ...]:
    """Public facts that tell one game from another (a worker's bot object serves many
    games; the world is shared by every state of a game): keys of a kept tree and a turn."""
    return (id(state.world), tuple(state.realm), tuple(state.home))


def _judge_outcomes(path: list[tuple[Node, int]], before: tuple[GameState, Action],
                    net: ValueNet) -> bool:
    """A walk that ended on a new chance node (the leaf's action rolled a battle's dice):
    judge the position after every outcome of the roll, give each outcome's node that
    judgement as its first visit, and back up their mean weighted by the exact odds (the
    chance node's visit is its exact expectation, not one sample). False when the outcomes
    cannot be made: the caller judges the rolled leaf as usual."""
    chance_node, seat = path[-2]
    outcomes = chance_node.outcomes
    if outcomes is None or chance_node.visits:
        return False
    made = outcome_states(*before)
    if not made:
        return False
    weights = 0.0
    mean = [0.0] * before[0].n
    for key, weight, after in made:
        values = net.win_probabilities(after)
        node = outcomes.get(key)
        if node is None:
            node = outcomes[key] = Node(weight)
        node.visits += 1
        node.value += values[seat]
        for i, value in enumerate(values):
            mean[i] += weight * value
        weights += weight
    backup(path[:-1], [value / weights for value in mean])
    return True


def expert_bot(params: dict[str, str]) -> ExpertBot:
    return ExpertBot(ExpertParams.parse(params))
