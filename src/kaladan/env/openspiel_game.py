"""OpenSpiel game ``python_kaladan``: importing this module registers it with ``pyspiel``.

``pyspiel.load_game("python_kaladan", {"players": 3})`` gives a sequential, imperfect-
information game whose actions are the tokens of ``encoding`` (a compound action is one
OpenSpiel action per token; the same player stays to move until it is complete). There are
no chance nodes: the engine draws dice and cards from the state's own generator, seeded by
the deal (the ``seed`` parameter), so a state is a function of the game and its history,
which is what OpenSpiel calls a deterministic chance mode (its sampled-stochastic mode is for
games whose chance nodes draw from the game's generator, a generator a Python game cannot
hand OpenSpiel's serializer). A clone replays the same future. What a player cannot see
(the deck order, others' cards, the dice to come) is hidden information of the state, which
``resample_from_infostate`` redraws. Returns come at the end: +1 win, -1 loss, 0 draw or
truncation after ``max_decisions`` engine decisions (a team's members share its result,
R23.1).

Observations are the float32 vectors of ``observation`` from one seat's view (R5.13). The
observation string is a digest of that vector plus the seat's own token prefix; the
information-state string is the same string, so it is **not** perfect recall: it is a key
for search (ISMCTS) that is equal for states the seat cannot tell apart, not a history.
``resample_from_infostate`` redraws everything the seat cannot see (``SeatView.determinize``).

Serialization (``state.serialize()``, ``game.deserialize_state``, ``pickle``,
``pyspiel.random_sim_test(..., serialize=True)``): a state is written as its record, the
game's parameters, the deal's seed and the tokens applied since (with the seat and
generator seed of each ``resample_from_infostate`` redraw), and read back by replaying it,
so the copy has the same observations, legal actions and history. The record holds the
whole state, hidden information included (the seed fixes the deck and the dice, as a
serialized OpenSpiel card game holds its deal): a serialized state is not a player's view.

Cheap copies: OpenSpiel clones a Python state by making a new initial state and deep-copying
its attributes. A state here holds one ``_Play`` whose deep copy shares the engine game with
its source until either of them takes an action (copy on write); the game's initial state is
shared the same way, so ``new_initial_state`` and ``clone`` cost almost nothing.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found, unused-ignore]  # no stubs
from numpy.typing import NDArray

from ..bots.base import SeatView
from ..rules.errors import KaladanError
from ..rules.kinds import format_action
from ..rules.state import GameState
from .core import MAX_DECISIONS, EnvCore, make_config
from .encoding import COMPOUND

__all__ = ["GAME_TYPE", "KaladanGame", "KaladanObserver", "KaladanState"]

SHORT_NAME = "python_kaladan"

# A bound on the tokens of one engine decision, for ``max_game_length``: the longest
# sequences are a swap or harmony of two full castles (head + 2 x (5 units + DONE) = 13) and
# gifts or splits of large amounts (one ``+10`` per ten gold); 16 covers them in practice.
TOKENS_PER_DECISION = 16

_SEED_SPAN = 1 << 53  # a float in [0, 1) carries 53 bits

DEFAULTS: dict[str, Any] = {"players": 2, "mode": "free_for_all", "seed": 0,
                            "quick_setup": False, "max_decisions": MAX_DECISIONS}

_Type = pyspiel.GameType

GAME_TYPE = _Type(
    short_name=SHORT_NAME,
    long_name="Kaladan (Python)",
    dynamics=_Type.Dynamics.SEQUENTIAL,
    chance_mode=_Type.ChanceMode.DETERMINISTIC,
    information=_Type.Information.IMPERFECT_INFORMATION,
    utility=_Type.Utility.GENERAL_SUM,
    reward_model=_Type.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(DEFAULTS),
)


def _game_type(players: int, mode: str) -> Any:
    """The registered type, zero-sum for two players in free-for-all (+1 / -1 / 0 / 0)."""
    if players != 2 or mode != "free_for_all":
        return GAME_TYPE
    return _Type(
        short_name=SHORT_NAME, long_name=GAME_TYPE.long_name, dynamics=GAME_TYPE.dynamics,
        chance_mode=GAME_TYPE.chance_mode, information=GAME_TYPE.information,
        utility=_Type.Utility.ZERO_SUM, reward_model=GAME_TYPE.reward_model,
        max_num_players=6, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=dict(DEFAULTS))


# --- the engine game behind a state --------------------------------------------------------

def _fork(core: EnvCore, state: GameState | None = None) -> EnvCore:
    """A core of its own over a copy of ``core.state`` (or over ``state``, a determinization),
    with the token prefix composed so far replayed. A plain copy reuses the legal actions
    already generated (their lazy blocks hold tiles and units, never the state); another
    state gets them afresh, since hidden cards may change what the deciding seat may do."""
    if state is None:
        return core.fork(core.state.copy(),
                         core.choice.legal if core.choice is not None else None)
    return core.fork(state)


# A state's record since its initial state: a linked list, newest first, of the tokens
# applied and the redraws of ``resample_from_infostate`` (seat, generator seed), so that a
# clone shares its source's record and an action adds one cell.
_Event = int | tuple[int, int]
_Log = tuple["_Log", _Event] | None


class _Play:
    """The core of one OpenSpiel state; ``owned`` False while it may be shared. ``origin``
    (the game's parameters and the deal's seed) and ``log`` are the state's record: what a
    serialized state holds and is rebuilt from."""

    __slots__ = ("core", "owned", "origin", "log")

    def __init__(self, core: EnvCore, owned: bool, origin: tuple[Any, ...],
                 log: _Log = None) -> None:
        self.core = core
        self.owned = owned
        self.origin = origin
        self.log = log

    def writable(self) -> EnvCore:
        if not self.owned:
            self.core = _fork(self.core)
            self.owned = True
        return self.core

    def __deepcopy__(self, memo: dict[int, Any]) -> _Play:
        # Both sides now share the core: whichever acts first copies it.
        self.owned = False
        return _Play(self.core, False, self.origin, self.log)

    def events(self) -> list[_Event]:
        """The record's tokens and redraws, oldest first."""
        out: list[_Event] = []
        cell = self.log
        while cell is not None:
            cell, event = cell
            out.append(event)
        out.reverse()
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        # The record, not the engine state: OpenSpiel pickles a Python state's attributes
        # when it serializes the state (``state.serialize()``, ``pickle``).
        return _replay, (self.origin, self.events())


def _replay(origin: tuple[Any, ...], events: list[_Event]) -> _Play:
    """The play of a record: the deal of ``origin`` with ``events`` applied in order."""
    players, mode, quick_setup, max_decisions, seed = origin
    core = EnvCore(make_config(players, mode, None, quick_setup), max_decisions=max_decisions)
    core.reset(seed)
    log: _Log = None
    for event in events:
        if isinstance(event, int):
            core.step(event)
        else:
            core = _redraw(core, *event)
        log = (log, event)
    return _Play(core, True, origin, log)


def _redraw(core: EnvCore, player: int, seed: int) -> EnvCore:
    """``core`` with what ``player`` cannot see redrawn by a generator seeded with ``seed``."""
    return _fork(core, SeatView(core.state, player).determinize(random.Random(seed)))


# --- game ------------------------------------------------------------------------------------

class KaladanGame(pyspiel.Game):  # type: ignore[misc, unused-ignore]
    """One configuration of Kaladan as an OpenSpiel game (parameters: ``DEFAULTS``)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        values = {**DEFAULTS, **dict(params or {})}
        unknown = set(values) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"{SHORT_NAME}: unknown parameters {sorted(unknown)}; "
                             f"expected {sorted(DEFAULTS)}")
        players = int(values["players"])
        mode = str(values["mode"])
        self.seed = int(values["seed"])
        self.max_decisions = int(values["max_decisions"])
        core = EnvCore(make_config(players, mode, None, bool(values["quick_setup"])),
                       max_decisions=self.max_decisions)
        core.reset(self.seed)
        self._initial = core  # shared by every initial state, never stepped
        self._origin = (players, mode, bool(values["quick_setup"]), self.max_decisions)
        info = pyspiel.GameInfo(
            num_distinct_actions=core.actions.size,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if players == 2 and mode == "free_for_all" else None,
            max_game_length=self.max_decisions * TOKENS_PER_DECISION)
        super().__init__(_game_type(players, mode), info, values)

    def new_initial_state(self, seed: int | None = None) -> KaladanState:
        """The game of the ``seed`` parameter, or of ``seed`` when given (another deal)."""
        if seed is None or isinstance(seed, str):  # a str comes from C++ overloads: ignored
            return KaladanState(self, _Play(self._initial, False, (*self._origin, self.seed)))
        core = copy.copy(self._initial)
        core.reset(int(seed))  # rebinds the core's state and choice, shares the encoders
        return KaladanState(self, _Play(core, True, (*self._origin, int(seed))))

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Mapping[str, Any] | None = None) -> KaladanObserver:
        """The observer for observations and information states (the same vector)."""
        if isinstance(iig_obs_type, Mapping):  # C++ passes only the parameters when no type
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"{SHORT_NAME}: observer parameters not supported: {params}")
        return KaladanObserver(self._initial.observations.size)


# --- state -----------------------------------------------------------------------------------

class KaladanState(pyspiel.State):  # type: ignore[misc, unused-ignore]
    """One game in progress; the pending seat gives one token per action."""

    def __init__(self, game: KaladanGame, play: _Play) -> None:
        super().__init__(game)
        self._play = play

    @property
    def core(self) -> EnvCore:
        """The engine game (read only: acting goes through ``apply_action``)."""
        return self._play.core

    def current_player(self) -> int:
        core = self._play.core
        if core.choice is None or core.truncated:
            return int(pyspiel.PlayerId.TERMINAL)
        return core.seat

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._play.core.legal_tokens())

    def _apply_action(self, action: int) -> None:
        play = self._play
        token = int(action)
        play.writable().step(token)
        play.log = (play.log, token)

    def _action_to_string(self, player: int, action: int) -> str:
        core = self._play.core
        text = core.actions.describe(action)
        if action < core.actions.head_count:
            try:
                head = core.actions.head_action(action, player)
                text += f" ({format_action(head, core.state)}"
                text += " ...)" if head.kind in COMPOUND else ")"
            except (KaladanError, LookupError, ValueError):
                pass  # a head that names no action for this seat
        return text

    def is_terminal(self) -> bool:
        core = self._play.core
        return core.choice is None or core.truncated

    def returns(self) -> list[float]:
        return self._play.core.returns()

    def __str__(self) -> str:
        core = self._play.core
        s = core.state
        gold = " ".join(f"P{p + 1}:{g}" for p, g in enumerate(s.gold))
        head = f"turn {s.turn}, {s.phase.label}, decision {s.decisions}, gold {gold}"
        if s.result is not None:
            return f"{head}; game over: {s.result.end}, scores {s.result.scores}"
        if core.truncated:
            return f"{head}; truncated after {core.max_decisions} decisions"
        prefix = core.choice.prefix if core.choice is not None else []
        return f"{head}; {s.pending.kind.label} for P{s.pending.seat + 1}, tokens {prefix}"

    def __deepcopy__(self, memo: dict[int, Any]) -> KaladanState:
        return self.clone()  # type: ignore[no-any-return, unused-ignore]

    def resample_from_infostate(self, player_id: int,
                                probability_sampler: Callable[[], float]) -> KaladanState:
        """A state ``player_id`` cannot tell from this one, its hidden parts redrawn.

        Hidden cards, the deck order and every future die are drawn by
        ``SeatView.determinize`` with a generator seeded from ``probability_sampler`` (ISMCTS
        passes a uniform [0, 1) sampler). The history and the token prefix are kept: the
        prefix of the seat composing an action names public things only (tiles, units on
        the board, gold amounts), so it stays legal in the redrawn state, and keeping it
        leaves the result a state reachable by this very history, also when the composing
        seat is not ``player_id`` (whose observation does not show that prefix)."""
        seed = int(probability_sampler() * _SEED_SPAN)
        play = self._play
        sample: KaladanState = self.clone()
        sample._play = _Play(_redraw(play.core, player_id, seed), True, play.origin,
                             (play.log, (player_id, seed)))
        return sample


# --- observer --------------------------------------------------------------------------------

class KaladanObserver:
    """OpenSpiel's Python observer: ``tensor`` and ``dict`` after ``set_from``."""

    def __init__(self, size: int) -> None:
        self.tensor: NDArray[np.float32] = np.zeros(size, np.float32)
        self.dict: dict[str, NDArray[np.float32]] = {"observation": self.tensor}

    def set_from(self, state: KaladanState, player: int) -> None:
        self.tensor[:] = state.core.observe(player)

    def string_from(self, state: KaladanState, player: int) -> str:
        """``p<seat> <sha1 of the vector> <own token prefix>``: equal exactly when the seat
        sees the same (the prefix is spelt out because the vector shows a split's shares
        only in part)."""
        core = state.core
        digest = hashlib.sha1(core.observe(player).tobytes()).hexdigest()
        choice = core.choice
        prefix = choice.prefix if choice is not None and choice.seat == player else []
        return f"p{player} {digest} {','.join(map(str, prefix))}"


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, KaladanGame)
