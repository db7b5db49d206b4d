"""Analysis of a finished game: every seat's chance to win along the game, and the decisions
that cost each seat the most, with what the expert bot would have done there (docs/analysis.md).

The game is replayed from its record. Before each decision the value network
(``expert.value``) judges every seat's chance that its side wins, from the view of the seat to
decide; after the last decision the point is the exact result (1, 0, or 0.5 each for a draw).
A decision's cost to its seat is the drop of that seat's chance from the point before it to
the point after it (the next decision's, or the result). For each seat the three costliest of
its own choices (gifts and decisions with one legal action are no choice) are searched again
by the expert bot from the seat's view only (``SeatView``: nothing the seat could not see),
with a fixed number of iterations and a generator seeded from the game's seed and the
decision, so the same record and budget give the same analysis, byte for byte
(``Analysis.dumps``). What the expert's choice *keeps* is the search's value of that choice
less its value of the move played; a move played that the search did not try is judged by
the network instead, after the move, averaged over positions drawn from the seat's view.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from .bots.base import SeatView
from .expert.bot import ExpertBot, ExpertParams
from .expert.value import ValueNet, load_for, one_blas_thread
from .game import Game
from .record import replay
from .rules.actions import GIFT, Action
from .rules.apply import apply_unchecked
from .rules.errors import KaladanError
from .rules.kinds import parse_action
from .rules.legal import legal_actions
from .rules.state import GameState

FORMAT: Final = "kaladan-analysis"
VERSION: Final = 1
DEFAULT_ITERATIONS: Final = 200
MAX_ITERATIONS: Final = 100_000
COSTLY: Final = 3  # decisions reported per seat
SAMPLES: Final = 16  # positions drawn from the seat's view to judge a move the search skipped
DIGITS: Final = 4  # probabilities are rounded: the JSON must not depend on the last float bit

Source = Literal["search", "network"]


class AnalysisError(KaladanError):
    """A record that cannot be analysed: the game is not over, or a bad budget."""


@dataclass(frozen=True, slots=True)
class CostlyDecision:
    """One of a seat's costliest decisions and the expert's choice in its place."""

    version: int  # decisions made before it: the replay's position where it was asked
    seat: int
    played: str  # the move played, in notation
    before: float  # the seat's chance to win before it
    after: float  # ... at the next decision (the exact result after the last one)
    better: str  # the expert bot's choice from the seat's view
    better_value: float  # the seat's chance after ``better``, by ``better_source``
    better_source: Source
    played_value: float  # the seat's chance after the move played, by ``played_source``
    played_source: Source

    @property
    def cost(self) -> float:
        return round(self.before - self.after, DIGITS)

    @property
    def kept(self) -> float:
        """What the expert's choice keeps of the seat's chance, compared with the move played
        (0 when the expert chose that move too)."""
        return 0.0 if self.better == self.played else round(
            self.better_value - self.played_value, DIGITS)

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "seat": self.seat, "played": self.played,
                "before": self.before, "after": self.after, "cost": self.cost,
                "better": self.better, "same": self.better == self.played,
                "better_value": self.better_value, "better_source": self.better_source,
                "played_value": self.played_value, "played_source": self.played_source,
                "kept": self.kept}


@dataclass(frozen=True, slots=True)
class Analysis:
    """A finished game's win-probability curve and each seat's costliest decisions."""

    players: int
    iterations: int
    network: str  # the judging network's weights hash (its manifest's)
    seats: tuple[int, ...]  # seats[v]: who made decision v
    curve: tuple[tuple[float, ...], ...]  # curve[v]: every seat's chance before decision v
    result: Mapping[str, Any]
    costly: tuple[tuple[CostlyDecision, ...], ...]  # per seat, costliest first

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "players": self.players,
                "iterations": self.iterations, "network": self.network,
                "decisions": len(self.seats), "seats": list(self.seats),
                "curve": [list(point) for point in self.curve], "result": dict(self.result),
                "costly": [[c.to_json() for c in per_seat] for per_seat in self.costly]}

    def dumps(self) -> str:
        """The canonical JSON text: the same record and budget give the same bytes."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))


def analyse(record: Mapping[str, Any], iterations: int = DEFAULT_ITERATIONS,
            net: str | None = None) -> Analysis:
    """Analyse the finished game of ``record`` with ``iterations`` of expert search per
    costly decision and the network ``net`` (default: the shipped one for the game).
    FormatError / ReplayError for a bad record, AnalysisError for a game not over,
    ValueNetError when no network judges the game's configuration."""
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise AnalysisError(f"iterations must be between 1 and {MAX_ITERATIONS}, "
                            f"not {iterations}")
    game = replay(record)  # checks the record step by step
    if game.state.result is None:
        raise AnalysisError(f"the game is not over after its {len(game.steps)} recorded "
                            "decisions: only a finished game is analysed")
    value_net = load_for(game.config, net)
    with one_blas_thread():  # the same figures on any machine, and no threads fighting
        return analyse_states(states_of(game), game, iterations, value_net, net)


def analysis_text(record: Mapping[str, Any], iterations: int = DEFAULT_ITERATIONS) -> str:
    """``analyse(record, iterations).dumps()``: what a server's worker process computes."""
    return analyse(record, iterations).dumps()


def states_of(game: Game) -> list[GameState]:
    """The game after each number of its decisions, replayed with the recorded chance."""
    again = Game.new(game.config, game.seed)
    states = [again.state]
    for step in game.steps:
        again.play(step.action, step.seat, step.chance)
        states.append(again.state)
    return states


def analyse_states(states: Sequence[GameState], game: Game, iterations: int, value_net: ValueNet,
                   net: str | None = None) -> Analysis:
    """The analysis of ``game`` (finished) given its ``states`` (``states_of``)."""
    steps = game.steps
    curve = tuple(tuple(round(p, DIGITS) for p in value_net.win_probabilities(state))
                  for state in states)
    n = game.config.players
    drops = sorted(((curve[v][step.seat] - curve[v + 1][step.seat], v)
                    for v, step in enumerate(steps)), key=lambda d: (-d[0], d[1]))
    costly: list[list[CostlyDecision]] = [[] for _ in range(n)]
    for drop, v in drops:
        seat = steps[v].seat
        if drop <= 0:
            break
        if len(costly[seat]) >= COSTLY:
            continue
        state = states[v]
        if state.pending.seat != seat:
            continue  # a gift out of turn (R23.11): not the seat's decision
        played = parse_action(steps[v].action, state)
        legal = [a for a in legal_actions(state) if a.kind != GIFT]
        if played.kind == GIFT or len(legal) < 2:
            continue  # no choice to weigh: a gift, or the one action there was
        costly[seat].append(_second_opinion(state, v, seat, played, legal, curve, game.seed,
                                            iterations, value_net, net))
    result = game.state.result
    assert result is not None
    return Analysis(n, iterations, value_net.manifest.weights_sha256,
                    tuple(s.seat for s in steps), curve,
                    {"end": result.end, "winner": result.winner, "scores": list(result.scores),
                     "team": result.team},
                    tuple(tuple(per_seat) for per_seat in costly))


def _second_opinion(state: GameState, v: int, seat: int, played: Action, legal: list[Action],
                    curve: Sequence[Sequence[float]], seed: int, iterations: int,
                    value_net: ValueNet, net: str | None) -> CostlyDecision:
    """The expert's choice at decision ``v`` from ``seat``'s view, and both moves' values."""
    view = SeatView(state, seat)
    bot = ExpertBot(ExpertParams(iterations=iterations, net=net))  # fresh: no kept tree
    better = bot.choose(view, legal, random.Random(f"kaladan-analysis:{seed}:{v}"))
    searched = bot.last_values

    def value(action: Action) -> tuple[float, Source]:
        if action in searched:
            return round(searched[action], DIGITS), "search"
        return _judged(view, action, value_net, random.Random(
            f"kaladan-analysis:{seed}:{v}:{view.format(action)}")), "network"

    better_value, better_source = value(better)
    played_value, played_source = value(played)
    return CostlyDecision(v, seat, view.format(played), curve[v][seat], curve[v + 1][seat],
                          view.format(better), better_value, better_source, played_value,
                          played_source)


def _judged(view: SeatView, action: Action, value_net: ValueNet, rng: random.Random) -> float:
    """The seat's mean chance after ``action`` by the network, over positions drawn from its
    view (as the search judges its leaves: the dice to come are drawn, not the game's)."""
    total = 0.0
    for _ in range(SAMPLES):
        state = view.determinize(rng)
        apply_unchecked(state, action)
        total += value_net.win_probabilities(state)[view.seat]
    return round(total / SAMPLES, DIGITS)
