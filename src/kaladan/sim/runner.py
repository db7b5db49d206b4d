"""Play complete games between bots and summarise them.

Each game gets its own seed derived from the run's seed and the game's number, so a game can
be re-played alone and results do not depend on the order games are run in. A design
(``design.py``) says which bot and which realm each seat has in each game; the list of
``GameSpec`` is built before any game is played, so every backend plays the same games.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final

from ..bots.registry import make_bot
from ..rules.config import Config
from ..rules.notation import position_from_json, position_to_json
from ..rules.scoring import score_parts
from ..rules.setup import new_game
from ..rules.state import GameState
from ..rules.units import REALMS
from .design import Design
from .seats import Seats, play_out
from .stats import wilson

_MASK = (1 << 64) - 1
# Where games can be played besides here ("local": this process or a pool of local ones): a
# backend's module depends on this one and is imported by name when it is chosen (Ray is an
# optional extra). It provides ``player(address)``, a context manager giving a ``Player``.
BACKEND_MODULES: Final = {"ray": "kaladan.sim.ray_backend"}
BACKENDS: Final = ("local", *BACKEND_MODULES)
Progress = Callable[[int, int], None]  # (games done, games in all)


def game_seed(run_seed: int, index: int) -> int:
    """A well-mixed 63-bit seed for game ``index`` of a run (SplitMix64 finaliser)."""
    z = (run_seed * 0x9E3779B97F4A7C15 + (index + 1) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return (z ^ (z >> 31)) >> 1


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game to play, complete: what a worker process or a Ray task receives."""

    config: Config
    seed: int
    bots: tuple[str, ...]
    realms: tuple[str, ...] | None = None  # the realm of each seat; None: the ruleset decides
    keep_record: bool = False
    # Test rulesets (balance studies): gold added to each seat when play begins.
    extra_gold: tuple[int, ...] = ()


@dataclass(slots=True)
class GameSummary:
    seed: int
    bots: list[str]
    realms: list[str | None]
    winner: int | None
    end: str
    rounds: int
    decisions: int
    scores: list[int | None]
    record: dict[str, Any] | None = None
    team: int | None = None  # team mode: the winning team (winner is then None)
    teams: list[int] | None = None  # team mode: the team of each seat
    # Seconds each seat's bot spent choosing (elapsed time in the process playing the game,
    # which plays one game at a time; as bots' time budgets count it). Measured, so not part
    # of to_json(): the games list stays identical for the same seed whatever the machine,
    # jobs or backend.
    think: list[float] = field(default_factory=list)
    first: int = 0  # the first player's seat (R5.3): turn position k is seat first + k - 1
    # Each seat's score by the rows of R22.1 (trophies, castles, scalps, tiles, gold, six
    # gates); None for an eliminated player (team mode: the team's parts).
    parts: list[tuple[int, ...] | None] = field(default_factory=list)

    def won(self, seat: int) -> bool:
        """The seat won: it is the winner or, in team mode, on the winning team."""
        if self.teams is None:
            return self.winner == seat
        return self.team is not None and self.teams[seat] == self.team

    def position(self, seat: int) -> int:
        """The seat's turn position, 1 for the first player (R5.11)."""
        return (seat - self.first) % len(self.bots) + 1

    def margin(self) -> int | None:
        """Winner's score minus the best other score (team mode: the other team's); None for
        a draw or when nobody else was scored (the last Crown standing)."""
        if self.teams is not None:
            if self.team is None:
                return None
            mine = [s for s, t in zip(self.scores, self.teams, strict=True) if t == self.team]
            other = [s for s, t in zip(self.scores, self.teams, strict=True) if t != self.team]
            if not mine or not other or mine[0] is None or other[0] is None:
                return None
            return mine[0] - other[0]
        if self.winner is None or self.scores[self.winner] is None:
            return None
        rest = [s for seat, s in enumerate(self.scores) if seat != self.winner and s is not None]
        top = self.scores[self.winner]
        return top - max(rest) if rest and top is not None else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seed": self.seed, "seats": len(self.bots), "bots": self.bots, "realms": self.realms,
            "winner": self.winner,
            "end": self.end, "rounds": self.rounds, "decisions": self.decisions,
            "scores": self.scores, "first": self.first,
            "parts": [None if p is None else list(p) for p in self.parts],
        }
        if self.teams is not None:
            out["teams"] = self.teams
            out["winning_team"] = self.team
        if self.record is not None:
            out["record"] = self.record
        return out


def options_label(config: Config) -> str:
    """The ruleset options that differ from the defaults, ``name=value,...``, or ``default``."""
    default = Config(players=config.players, mode=config.mode)
    changed = [f"{name}={getattr(config, name)}" for name in (f.name for f in fields(config))
               if name not in ("players", "mode", "layout", "quick_setup")
               and getattr(config, name) != getattr(default, name)]
    return ",".join(changed) or "default"


def rounds_played(state: GameState) -> int:
    return state.slot // state.n + 1


def _with_extra_gold(state: GameState, extra: tuple[int, ...]) -> GameState:
    """The same position with ``extra`` gold per seat, through the position format."""
    position = position_to_json(state)
    for seat, gold in enumerate(extra):
        position["players"][seat]["gold"] += gold
    return position_from_json(position)


def play_spec(spec: GameSpec) -> GameSummary:
    """Play one complete game. Bots decide from their seat's view only."""
    config = spec.config
    if spec.realms is not None:
        if len(spec.realms) != config.players:
            raise ValueError(f"{len(spec.realms)} realms for {config.players} seats")
        config = config.with_options(quick_setup=False)  # realms are asked, so they can be set
    if spec.extra_gold and spec.keep_record:
        raise ValueError("extra gold changes the position: such games have no record")
    seats = Seats([make_bot(b) for b in spec.bots], spec.seed, spec.realms,
                  spec.realms is not None and spec.config.quick_setup)
    record: dict[str, Any] | None = None
    if spec.keep_record:
        from ..game import Game  # imported when needed: kaladan simulate starts faster
        from ..record import to_record

        game = Game.new(config, spec.seed)
        while not game.is_over:
            seat = game.state.pending.seat
            game.play(seats.choose(game.state, game.legal_actions()), seat)
        state = game.state
        record = to_record(game)
    else:
        state = new_game(config, spec.seed)
        if spec.extra_gold:
            play_out(state, seats, setup_only=True)
            if not state.is_over:
                state = _with_extra_gold(state, spec.extra_gold)
        play_out(state, seats)
    result = state.result
    assert result is not None
    return GameSummary(
        seed=spec.seed, bots=list(spec.bots),
        realms=[REALMS[r] if r >= 0 else None for r in state.realm],
        winner=result.winner, end=result.end, rounds=rounds_played(state),
        decisions=state.decisions, scores=list(result.scores), record=record,
        team=result.team, teams=list(state.team) if state.teams else None, think=seats.think,
        first=state.first,
        parts=[None if p is None else (p.trophies, p.castles, p.scalps, p.tiles, p.gold,
                                       p.six_gates) for p in score_parts(state)],
    )


def play_game(config: Config, seed: int, bot_specs: list[str],
              keep_record: bool = False) -> GameSummary:
    """Play one complete game with the realms the ruleset gives."""
    return play_spec(GameSpec(config, seed, tuple(bot_specs), keep_record=keep_record))


def plan(config: Config, bots: Sequence[str], games: int, seed: int,
         design: Design | None = None, keep_records: bool = False,
         start: int = 0) -> list[GameSpec]:
    """Games ``start`` to ``start + games - 1`` of a run: a pure function of the arguments."""
    design = design or Design()
    design.check(config.players)
    order = tuple(bots)
    return [GameSpec(config, game_seed(seed, i), design.bots(order, i),
                     design.realms_of(config.players, i, seed), keep_records)
            for i in range(start, start + games)]


Player = Callable[[Sequence[GameSpec], Progress | None], list[GameSummary]]


@contextlib.contextmanager
def player(jobs: int = 1, backend: str = "local",
           ray_address: str | None = None) -> Iterator[Player]:
    """A function that plays lists of games, on one backend for the whole block: one process
    pool, or one Ray connection. Results always come back in the order of the list."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if backend != "local":
        module = importlib.import_module(BACKEND_MODULES[backend])
        with module.player(ray_address) as play:
            yield play
        return
    if jobs <= 1:
        yield _play_here
        return
    from concurrent.futures import ProcessPoolExecutor  # only with jobs > 1: faster start-up

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        def play_in_pool(specs: Sequence[GameSpec], progress: Progress | None) -> list[GameSummary]:
            chunk = max(1, min(32, len(specs) // (4 * jobs)))
            out = []
            for game in pool.map(play_spec, specs, chunksize=chunk):
                out.append(game)
                if progress is not None:
                    progress(len(out), len(specs))
            return out

        yield play_in_pool


def _play_here(specs: Sequence[GameSpec], progress: Progress | None) -> list[GameSummary]:
    out = []
    for spec in specs:
        out.append(play_spec(spec))
        if progress is not None:
            progress(len(out), len(specs))
    return out


RATE_GROUPS = ("bot", "seat", "position", "realm")


@dataclass(slots=True)
class Summary:
    games: list[GameSummary] = field(default_factory=list)
    design: str = ""  # Design.describe(): how bots and realms were put in the seats
    ruleset: str = "default"  # options_label() of the configuration played

    def to_json(self) -> dict[str, Any]:
        n = len(self.games)
        wins: dict[str, int] = {}
        seats: dict[str, int] = {}
        realms: dict[str, int] = {}
        ends: dict[str, int] = {}
        teams: dict[str, int] = {}
        for g in self.games:
            ends[g.end] = ends.get(g.end, 0) + 1
            if g.team is not None:
                teams[str(g.team)] = teams.get(str(g.team), 0) + 1
            if g.winner is not None:
                seats[str(g.winner)] = seats.get(str(g.winner), 0) + 1
                bot = g.bots[g.winner]
                wins[bot] = wins.get(bot, 0) + 1
                realm = g.realms[g.winner] or "?"
                realms[realm] = realms.get(realm, 0) + 1
        return {
            "games": [g.to_json() for g in self.games],
            "count": n,
            "design": self.design,
            "ruleset": self.ruleset,
            "wins_by_seat": seats,
            "wins_by_bot": wins,
            "wins_by_realm": realms,
            **({"wins_by_team": teams} if any(g.teams for g in self.games) else {}),
            "ends": ends,
            "average_rounds": sum(g.rounds for g in self.games) / n if n else 0.0,
            "average_decisions": sum(g.decisions for g in self.games) / n if n else 0.0,
            "average_scores": self.average_scores(),
            "rates": {group: {key: row for key, row in rows.items()}
                      for group, rows in self.rates().items()},
        }

    def rates(self) -> dict[str, dict[str, dict[str, float | int]]]:
        """Win rates per bot, seat, turn position (1 = first player) and realm with Wilson 95%
        intervals. A seat wins when it is the winner or, in team mode, on the winning team;
        draws are no win."""
        counts: dict[str, dict[str, list[int]]] = {group: {} for group in RATE_GROUPS}
        for g in self.games:
            for seat, bot in enumerate(g.bots):
                won = g.won(seat)
                for group, key in (("bot", bot), ("seat", str(seat)),
                                   ("position", str(g.position(seat))),
                                   ("realm", g.realms[seat] or "?")):
                    row = counts[group].setdefault(key, [0, 0])
                    row[0] += 1
                    row[1] += int(won)
        out: dict[str, dict[str, dict[str, float | int]]] = {}
        for group, rows in counts.items():
            out[group] = {}
            for key in sorted(rows):
                played, wins = rows[key]
                low, high = wilson(wins, played)
                out[group][key] = {"games": played, "wins": wins, "rate": wins / played,
                                   "low": low, "high": high}
        return out

    def thinking(self) -> dict[str, dict[str, float]]:
        """Per bot: mean and maximum seconds of thinking per game (measured, varies)."""
        per_bot: dict[str, list[float]] = {}
        for g in self.games:
            for bot, seconds in zip(g.bots, g.think, strict=False):
                per_bot.setdefault(bot, []).append(seconds)
        return {bot: {"mean": sum(v) / len(v), "max": max(v)}
                for bot, v in sorted(per_bot.items())}

    def average_scores(self) -> list[float]:
        seats = len(self.games[0].bots) if self.games else 0
        out = []
        for seat in range(seats):
            scores = [g.scores[seat] for g in self.games if g.scores[seat] is not None]
            out.append(sum(s for s in scores if s is not None) / len(scores) if scores else 0.0)
        return out

def simulate(config: Config, bot_specs: list[str], games: int, seed: int,
             keep_records: bool = False, jobs: int = 1,
             progress: Progress | None = None,
             backend: str = "local", ray_address: str | None = None,
             design: Design | None = None) -> Summary:
    """Play ``games`` games. With ``jobs`` > 1 they run in that many local processes; with
    ``backend="ray"`` on a Ray cluster (``ray_address``, or a local instance when None; ``jobs``
    is then unused). Every game has its own seed (``game_seed``) and results keep their order,
    so the summary is the same whatever the number of jobs or the backend. ``design`` rotates
    seats and sets realms (``kaladan.sim.design``); by default bots keep their seats and the
    ruleset gives the realms."""
    design = design or Design()
    specs = plan(config, bot_specs, games, seed, design, keep_records)
    with player(jobs, backend, ray_address) as play:
        return Summary(play(specs, progress), design.describe(config.players),
                       options_label(config))
