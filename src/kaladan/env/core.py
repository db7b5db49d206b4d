"""The game loop every adapter shares: one engine game driven token by token.

``EnvCore`` owns the true state (hidden parts included) and hands out only what a seat may
see: the observation tensor of ``observation.py`` and the mask of ``encoding.Choice``. The
PettingZoo, Gymnasium and OpenSpiel adapters are thin layers over it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..rules.actions import Action
from ..rules.apply import apply_unchecked
from ..rules.config import Config, Mode
from ..rules.errors import InvalidActionError
from ..rules.legal import legal_actions
from ..rules.observe import Observation, observe
from ..rules.setup import new_game
from ..rules.state import GameState
from ..rules.units import Seat
from .encoding import ActionEncoder, Choice
from .observation import ObservationEncoder

# An episode is cut (truncated, reward 0) after this many engine decisions: random players
# finish in ~140 (2 players) to ~250 (6 players), greedy ones in fewer than 1,000.
MAX_DECISIONS = 5_000

# Bounds of every observation value: counts and flags are scaled to about 0..1; gold (/20)
# has no rule bound, so the box is wide rather than infinite (Gymnasium's checker).
OBS_LOW = 0.0
OBS_HIGH = 1_000.0


def make_config(players: int = 2, mode: str = "free_for_all",
                options: Mapping[str, str] | None = None, quick_setup: bool = False) -> Config:
    """A ``Config`` from the adapters' keyword arguments (ruleset options of R3.3)."""
    config = Config(players=players, mode=Mode(mode), quick_setup=quick_setup)
    return config.with_options(**dict(options or {})) if options else config


class EnvCore:
    """One game played one token at a time; see ``encoding`` for the tokens."""

    def __init__(self, config: Config, *, max_decisions: int = MAX_DECISIONS,
                 score_shaping: float = 0.0) -> None:
        self.config = config
        self.max_decisions = max_decisions
        self.score_shaping = score_shaping
        self.state: GameState = new_game(config, 0)
        self.world = world = self.state.world
        self.actions = ActionEncoder(config, world)
        self.observations = ObservationEncoder(config, world)
        self.n = config.players
        self.choice: Choice | None = None

    # --- episode -------------------------------------------------------------------------

    def reset(self, seed: int) -> None:
        state = new_game(self.config, seed)
        if (len(state.world.names) != len(self.world.names)
                or state.world.neighbours != self.world.neighbours):
            raise ValueError("this configuration's map changes shape with the seed; the action "
                             "space needs a fixed map")
        if state.world.terrain != self.world.terrain:  # random_terrain: same shape, new map
            self.world = state.world
            self.observations = ObservationEncoder(self.config, state.world)
        self.state = state
        self._new_choice()

    def fork(self, state: GameState, legal: Sequence[Action] | None = None) -> EnvCore:
        """A core over ``state`` (a copy or a determinization of this one's) that shares the
        configuration and encoders, has caches of its own and replays this core's token
        prefix; ``legal`` are the decision's actions when already known."""
        new = copy.copy(self)
        new.state = state
        new._new_choice(legal)
        old = self.choice
        if old is not None and new.choice is not None:
            for token in old.prefix:
                if new.choice.push(token) is not None:  # a prefix is never a whole action
                    raise AssertionError(f"token prefix {old.prefix} completed an action")
        return new

    # --- copies and pickles -----------------------------------------------------------------
    # The encoders hold memoryviews and caches, so neither pickles nor needs to: a copy
    # shares them (``fork``: their caches check which state they last saw) and an unpickled
    # core builds its own. A pickle is for moving a running game between processes
    # (subprocess vector envs) and short-lived checkpoints; the record of a game (seed and
    # actions) remains its persistent form.

    def __copy__(self) -> EnvCore:
        # Attribute by attribute, as without ``__getstate__`` (which builds new encoders).
        new = EnvCore.__new__(EnvCore)
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> EnvCore:
        """An independent copy mid-game: its own state (``GameState.copy``, the generator of
        dice and cards included) with the same token prefix, the encoders shared."""
        return self.fork(self.state.copy(),
                         self.choice.legal if self.choice is not None else None)

    def __getstate__(self) -> dict[str, Any]:
        choice = self.choice
        return {"config": self.config, "max_decisions": self.max_decisions,
                "score_shaping": self.score_shaping, "state": self.state,
                "prefix": list(choice.prefix) if choice is not None else []}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.config = config = saved["config"]
        self.max_decisions = saved["max_decisions"]
        self.score_shaping = saved["score_shaping"]
        self.state = state = saved["state"]
        self.world = state.world
        self.actions = ActionEncoder(config, state.world)
        self.observations = ObservationEncoder(config, state.world)
        self.n = config.players
        self._new_choice()
        for token in saved["prefix"]:
            assert self.choice is not None
            self.choice.push(token)

    def _new_choice(self, legal: Sequence[Action] | None = None) -> None:
        state = self.state
        if state.result is not None:
            self.choice = None
            return
        self.choice = Choice(self.actions, state,
                             legal if legal is not None else legal_actions(state))

    @property
    def over(self) -> bool:
        return self.state.result is not None

    @property
    def truncated(self) -> bool:
        return self.state.result is None and self.state.decisions >= self.max_decisions

    @property
    def seat(self) -> Seat:
        """The seat whose token is expected (-1 once the game is over)."""
        return self.state.pending.seat if self.choice is not None else -1

    # --- what a seat sees ----------------------------------------------------------------

    def legal_tokens(self) -> list[int]:
        return self.choice.legal_tokens() if self.choice is not None else []

    def mask(self, dtype: type[np.generic] = np.int8) -> NDArray[Any]:
        if self.choice is None:
            return np.zeros(self.actions.size, dtype=dtype)
        return self.choice.mask(dtype)

    def observe(self, seat: Seat) -> NDArray[np.float32]:
        """The observation tensor of ``seat``: the composition under way only when it is
        that seat's own (another seat's half-composed action is not public)."""
        choice = self.choice
        partial: Action | None = None
        stage = 0
        if choice is not None and choice.seat == seat and choice.prefix:
            partial, stage = choice.partial()
        # This core changes its state only through apply, which counts decisions: while
        # they stand still (an action being composed, other seats looking), only the
        # partial action can differ from the seat's last vector.
        same = self.observations.same_state_partial(self.state, seat, partial, stage)
        if same is not None:
            return same
        return self.observations.encode(self.state, seat, partial, stage)

    def view(self, seat: Seat) -> Observation:
        """The structured (JSON) observation of ``seat`` (``rules.observe``)."""
        return observe(self.state, seat)

    def render(self) -> str:
        """The terminal board and one status line (the adapters' ``render_mode="ansi"``)."""
        from ..play.hexmap import map_text  # Rich: only for a render
        state = self.state
        status = (f"turn {state.turn}, {state.phase.label}, "
                  f"{state.pending.kind.label} for P{state.pending.seat + 1}; gold "
                  + " ".join(f"P{p + 1}:{g}" for p, g in enumerate(state.gold)))
        if state.result is not None:
            status = f"game over: {state.result.end}, scores {state.result.scores}"
        return f"{map_text(state, 'en').plain}\n{status}"

    # --- acting --------------------------------------------------------------------------

    def step(self, token: int) -> bool:
        """Take the pending seat's token; True when it completed an engine decision.

        Raises InvalidActionError, changing nothing, for a token that is not legal now."""
        choice = self.choice
        if choice is None:
            raise InvalidActionError("the game is over")
        action = choice.push(int(token))
        if action is None:
            return False
        apply_unchecked(self.state, action)
        self._new_choice()
        return True

    def play(self, action: Action) -> None:
        """Apply a whole engine action of the pending seat (an opponent bot's choice); it
        must be one of the decision's legal actions and no composition may be under way."""
        choice = self.choice
        if choice is None:
            raise InvalidActionError("the game is over")
        if choice.prefix:
            raise InvalidActionError("a composition is under way; finish it token by token")
        if action not in choice.legal:
            raise InvalidActionError(f"{action!r} is not legal now")
        apply_unchecked(self.state, action)
        self._new_choice()

    def returns(self) -> list[float]:
        """Per seat: the episode's rewards (``episode_returns``)."""
        return episode_returns(self.state, self.score_shaping)

    def out(self, seat: Seat) -> bool:
        """``seat`` is out of the game for good: eliminated in free-for-all (R18.1). In team
        mode an eliminated player shares its team's result and stays to the end."""
        return not self.state.teams and self.state.eliminated[seat]


def episode_returns(state: GameState, score_shaping: float = 0.0) -> list[float]:
    """Per seat: +1 for a win (the winning team's members share it, R23.1), -1 for a loss, 0
    for a draw or an unfinished game; plus ``score_shaping`` x (own score - best other
    score) / 10 when scores were counted (R22.1)."""
    result = state.result
    n = state.n
    if result is None:
        return [0.0] * n
    team = state.team
    out = []
    for p in range(n):
        if result.team is not None:
            value = 1.0 if team[p] == result.team else -1.0
        elif result.winner is not None:
            value = 1.0 if p == result.winner else -1.0
        else:
            value = 0.0
        out.append(value)
    if score_shaping and all(s is not None for s in result.scores):
        scores = [float(s) for s in result.scores if s is not None]
        for p in range(n):
            others = [scores[q] for q in range(n) if team[q] != team[p]]
            if others:
                out[p] += score_shaping * (scores[p] - max(others)) / 10.0
    return out
