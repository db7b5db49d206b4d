"""The game loop every adapter shares: one engine game driven token by token.

``EnvCore`` owns the true state (hidden parts included) and hands out only what a seat may
see: the observation tensor of ``observation.py`` and the mask of ``encoding.Choice``. The
PettingZoo, Gymnasium and OpenSpiel adapters are thin layers over it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..rules.actions import Action
from ..rules.apply import apply_unchecked
from ..rules.config import Config, Mode
from ..rules.errors import InvalidActionError
from ..rules.legal import legal_actions
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
        world = new_game(config, 0).world
        self.world = world
        self.actions = ActionEncoder(config, world)
        self.observations = ObservationEncoder(config, world)
        self.n = config.players
        self.state: GameState = new_game(config, 0)
        self.choice: Choice | None = None
        self.steps = 0  # tokens taken this episode
        self.seed = 0
        # Per seat: (decision count, vector without a composition) of the last observation,
        # reused while that seat composes an action (the state does not change meanwhile).
        self._bases: dict[Seat, tuple[int, NDArray[np.float32]]] = {}

    # --- episode -------------------------------------------------------------------------

    def reset(self, seed: int) -> None:
        self.seed = seed
        state = new_game(self.config, seed)
        if (len(state.world.names) != len(self.world.names)
                or state.world.neighbours != self.world.neighbours):
            raise ValueError("this configuration's map changes shape with the seed; the action "
                             "space needs a fixed map")
        if state.world.terrain != self.world.terrain:  # random_terrain: same shape, new map
            self.world = state.world
            self.observations = ObservationEncoder(self.config, state.world)
        self.state = state
        self.steps = 0
        self._bases = {}
        self._new_choice()

    def _new_choice(self) -> None:
        state = self.state
        if state.result is not None:
            self.choice = None
            return
        self.choice = Choice(self.actions, state, legal_actions(state))

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

    def mask(self) -> NDArray[np.int8]:
        out = np.zeros(self.actions.size, dtype=np.int8)
        if self.choice is not None:
            out[self.choice.legal_tokens()] = 1
        return out

    def observe(self, seat: Seat) -> NDArray[np.float32]:
        """The observation tensor of ``seat``: the composition under way only when it is
        that seat's own (another seat's half-composed action is not public)."""
        choice = self.choice
        decisions = self.state.decisions
        if choice is not None and choice.seat == seat and choice.prefix:
            known = self._bases.get(seat)
            if known is None or known[0] != decisions:
                known = (decisions, self.observations.encode(self.state, seat))
                self._bases[seat] = known
            return self.observations.with_partial(known[1], seat, *choice.partial())
        base = self.observations.encode(self.state, seat)
        self._bases[seat] = (decisions, base)
        return base.copy()

    def view(self, seat: Seat) -> dict[str, Any]:
        """The structured (JSON) observation of ``seat`` (``rules.observe``)."""
        from ..rules.observe import observe
        return observe(self.state, seat)

    # --- acting --------------------------------------------------------------------------

    def step(self, token: int) -> bool:
        """Take the pending seat's token; True when it completed an engine decision.

        Raises InvalidActionError, changing nothing, for a token that is not legal now."""
        choice = self.choice
        if choice is None:
            raise InvalidActionError("the game is over")
        action = choice.push(int(token))
        self.steps += 1
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
        """Per seat: +1 for a win (the winning team's members share it), -1 for a loss, 0 for
        a draw or an unfinished game; plus ``score_shaping`` x (own score - best other
        score) / 10 when scores were counted (R22.1)."""
        result = self.state.result
        if result is None:
            return [0.0] * self.n
        team = self.state.team
        out = []
        for p in range(self.n):
            if result.team is not None:
                value = 1.0 if team[p] == result.team else -1.0
            elif result.winner is not None:
                value = 1.0 if p == result.winner else -1.0
            else:
                value = 0.0
            out.append(value)
        if self.score_shaping and all(s is not None for s in result.scores):
            scores = [float(s) for s in result.scores if s is not None]
            for p in range(self.n):
                others = [scores[q] for q in range(self.n) if team[q] != team[p]]
                if others:
                    out[p] += self.score_shaping * (scores[p] - max(others)) / 10.0
        return out

    def eliminated(self, seat: Seat) -> bool:
        return self.state.eliminated[seat]


def random_token(core: EnvCore, rng: random.Random) -> int:
    """A uniformly random legal token (for tests and benchmarks)."""
    tokens = core.legal_tokens()
    return tokens[int(rng.random() * len(tokens))]
