"""Many games stepped per call, straight into preallocated NumPy buffers.

``VectorGames(config, num_games, seed)`` holds K games. ``step(actions)`` takes one token
per game (for whichever seat is to decide in it) and writes, for every game, the next
observation and mask of the seat to move, that seat, the per-seat rewards and the
termination and truncation flags into the same arrays at every call: nothing is allocated
per game on the way, and the arrays are overwritten by the next call (copy what you keep).

The tokens, observations and masks are exactly those of the AEC env (``core.EnvCore``):
the same ``ActionEncoder`` and ``ObservationEncoder`` on the same states, each seat seeing
only its own view (R5.13); a game's episodes do not depend on K (game ``i``'s e-th episode
is seeded from the run's seed, ``i`` and ``e``).

Auto-reset follows Gymnasium's ``next_step`` mode: the call in which a game ends returns
its last observation (of the seat that decided last) with ``terminated`` or ``truncated``
set and the final rewards; the next call ignores that game's action, starts its next
episode and returns its first observation, rewards 0 and both flags False. The mask of that
final call offers every token (as the Gymnasium env's does once an episode is over): the
action it asks for is ignored, and a masked sampler needs something to draw.

Rewards are paid at the end only: +1 / -1 / 0 per seat (teams share theirs, R23.1), plus
``score_shaping`` as in the AEC env; a free-for-all player eliminated on the way (R18.1) gets
its -1 when its game ends. A game is truncated (rewards 0) after ``max_decisions`` engine
decisions.

Why it is faster than K AEC envs: no per-step Python objects for the caller (one call per
batch, arrays in place); each seat's observation is kept between its turns and only what
changed is rewritten (``ObservationEncoder.write``), in the game's output row itself while
the same seat decides (a quarter of the steps change seat: then the row is swapped with
that seat's kept vector); masks change token by token.

With ``opponents`` (one bot for each of the other n - 1 seats) one seat per game learns:
``learner``, or seat ``e % n`` in episode ``e``, as the Gymnasium env rotates it; the other
seats are played by the bots, in seat order, between the learner's tokens, each deciding
from its own seat's view (R5.13). The learner's game ends for it when it is eliminated
(R18.1, reward -1). This is the core of the Gymnasium vector env
(``gym_vector.KaladanVectorEnv``). With ``record=True`` each game keeps its episode's
actions, so that a finished episode can be replayed and recorded (``finished``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from ..bots.base import Bot, SeatView
from ..rules.actions import Action
from ..rules.apply import apply_unchecked
from ..rules.config import Config
from ..rules.errors import InvalidActionError
from ..rules.legal import legal_actions
from ..rules.setup import new_game
from ..rules.state import GameState
from ..sim.runner import game_seed
from .core import MAX_DECISIONS, episode_returns
from .encoding import ActionEncoder, Choice
from .observation import ObservationEncoder

__all__ = ["VectorGames"]

_NOBODY: Final = -1


class _Slot:
    """One game of the batch: its state, the pending decision and its encoders."""

    __slots__ = ("state", "choice", "encoder", "episode", "seat", "set", "reset", "rng",
                 "learner", "bots", "row", "kept", "full", "seed", "actions", "finished")

    def __init__(self, state: GameState, encoder: ObservationEncoder,
                 row: NDArray[np.float32], kept: list[NDArray[np.float32]]) -> None:
        self.state = state
        self.choice: Choice | None = None
        self.encoder = encoder
        self.episode = 0
        self.row = row  # the game's output row
        self.kept = kept  # per seat, where its vector is kept while it is not in ``row``
        self.seat = _NOBODY  # the seat whose vector the output row holds
        self.set: list[int] = []  # the tokens set in this game's mask row
        self.full = False  # the row offers every token instead (the game's final call)
        self.seed = 0  # the episode's engine seed
        self.actions: list[Action] | None = None  # the episode's actions (``record=True``)
        self.finished: tuple[int, list[Action]] | None = None  # the last ended episode
        self.reset = False  # the game ended in the last call: a new episode comes next
        self.rng = random.Random(0)  # the bots' dice (their own choices, not the game's)
        self.learner = _NOBODY
        self.bots: list[Bot | None] | None = None  # this episode's bot per seat


class VectorGames:
    """K games of one configuration stepped together (see the module docstring).

    Buffers, all overwritten in place by ``reset`` and ``step``:

    * ``observations`` float32 (K, S): the view of the seat to move (after a game's last
      decision, of the seat that took it);
    * ``masks`` bool (K, N): its legal tokens (every token in a game's final call);
    * ``to_play`` int32 (K,): that seat;
    * ``rewards`` float32 (K, n): per seat, non-zero only when a game ends;
    * ``terminated``, ``truncated`` bool (K,).

    They are read-only views: the observation rows are the encoders' own vectors.
    """

    def __init__(self, config: Config, num_games: int, seed: int = 0, *,
                 max_decisions: int = MAX_DECISIONS, score_shaping: float = 0.0,
                 opponents: Sequence[Bot] | None = None,
                 learner: int | None = None, record: bool = False) -> None:
        if num_games < 1:
            raise ValueError(f"num_games={num_games}: at least one game")
        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative whole number, not {seed!r}")
        self.config = config
        self.num_games = num_games
        self.seed = seed
        self.max_decisions = max_decisions
        self.score_shaping = score_shaping
        self.n = n = config.players
        first = new_game(config, game_seed(game_seed(seed, 0), 0))
        self.world = world = first.world
        self.actions = ActionEncoder(config, world)
        self._shared = ObservationEncoder(config, world)  # the row caches every game shares
        size = self._shared.size
        tokens = self.actions.size
        self.observation_size = size
        self.action_size = tokens
        self._obs: NDArray[np.float32] = np.zeros((num_games, size), np.float32)
        # The masks live in a bytearray (an item write costs a fifth of a memoryview's),
        # seen by NumPy as bools.
        self._mask_bytes = bytearray(num_games * tokens)
        self._all_tokens = b"\x01" * tokens
        self._no_tokens = bytes(tokens)
        self._masks: NDArray[np.bool_] = np.frombuffer(self._mask_bytes, np.bool_).reshape(
            num_games, tokens)
        self._to_play: NDArray[np.int32] = np.full(num_games, _NOBODY, np.int32)
        self._rewards: NDArray[np.float32] = np.zeros((num_games, n), np.float32)
        self._terminated: NDArray[np.bool_] = np.zeros(num_games, np.bool_)
        self._truncated: NDArray[np.bool_] = np.zeros(num_games, np.bool_)
        self.observations = _read_only(self._obs)
        self.masks = _read_only(self._masks)
        self.to_play = _read_only(self._to_play)
        self.rewards = _read_only(self._rewards)
        self.terminated = _read_only(self._terminated)
        self.truncated = _read_only(self._truncated)
        # Each seat's vector lives in a row of ``_store`` (game * n + seat) while another
        # seat of its game is to move, in the game's output row while it is.
        self._store: NDArray[np.float32] = np.zeros((num_games * n, size), np.float32)
        self._rows_index = np.arange(num_games)
        # Item writes through memoryviews cost a third of numpy's.
        self._to_play_view = _writer(self._to_play)
        self._reward_view = _writer(self._rewards.reshape(-1))
        self._term_view = _writer(self._terminated.view(np.uint8))
        self._trunc_view = _writer(self._truncated.view(np.uint8))
        self._opponents: list[Bot] | None = None
        if opponents is not None:
            if len(opponents) != n - 1:
                raise ValueError(f"{len(opponents)} opponents for a {n}-player game: give "
                                 f"{n - 1}, one for each seat but the learner's")
            self._opponents = list(opponents)
        if learner is not None and not 0 <= learner < n:
            raise ValueError(f"learner seat {learner} is not a seat of a {n}-player game")
        self._fixed_learner = learner
        self._record = record

        self._slots: list[_Slot] = []
        for i in range(num_games):
            encoder = ObservationEncoder(config, world, self._store[i * n:(i + 1) * n],
                                         self._shared)
            self._slots.append(_Slot(first, encoder, self._obs[i],
                                     [self._store[i * n + p] for p in range(n)]))
        self.reset()

    # --- episodes --------------------------------------------------------------------

    def reset(self) -> None:
        """Start every game's first episode (again) and write the buffers."""
        self._rewards.fill(0.0)
        self._terminated.fill(False)
        self._truncated.fill(False)
        for i in range(self.num_games):
            slot = self._slots[i]
            slot.episode = 0
            self._start(i, slot)

    def episode_seed(self, game: int, episode: int) -> int:
        """The engine seed of ``game``'s ``episode``-th episode (0-based)."""
        return game_seed(game_seed(self.seed, game), episode)

    def _start(self, i: int, slot: _Slot) -> None:
        seed = slot.seed = self.episode_seed(i, slot.episode)
        state = new_game(self.config, seed)
        if self._record:
            slot.actions = []
        self._fit_encoder(i, slot, state)
        slot.state = state
        slot.reset = False
        if self._opponents is not None:
            slot.rng = random.Random(seed ^ 0x5EED)
            slot.learner = (self._fixed_learner if self._fixed_learner is not None
                            else slot.episode % self.n)
            others = [p for p in range(self.n) if p != slot.learner]
            bots: list[Bot | None] = [None] * self.n
            for p, bot in zip(others, self._opponents, strict=True):
                bots[p] = bot
            slot.bots = bots
        self._decide(i, slot)

    def _fit_encoder(self, i: int, slot: _Slot, state: GameState) -> None:
        """A new encoder when ``state``'s map differs from the game's (``random_terrain``:
        same shape, other terrain): its seats' vectors start in the kept rows and the output
        row belongs to none of them yet. Otherwise the encoder goes on from its last vectors
        (whatever differs is rewritten) and the output row still holds ``slot.seat``'s."""
        if state.world.terrain != slot.encoder.world.terrain:
            n = self.n
            slot.encoder = ObservationEncoder(self.config, state.world,
                                              self._store[i * n:(i + 1) * n])
            slot.seat = _NOBODY

    # --- stepping ----------------------------------------------------------------------

    def step(self, actions: Sequence[int] | NDArray[Any]) -> None:
        """One token per game (ignored for a game that ended in the last call).

        Raises InvalidActionError, changing nothing, when a token is not legal now in its
        game (all tokens are checked before any game moves)."""
        tokens = np.asarray(actions)
        k = self.num_games
        if tokens.shape != (k,) or not np.issubdtype(tokens.dtype, np.integer):
            raise InvalidActionError(f"expected {k} integer tokens, got an array of shape "
                                     f"{tokens.shape} and dtype {tokens.dtype}")
        # A game that ended in the last call offers every token: any is taken (and ignored).
        if (int(tokens.min()) < 0 or int(tokens.max()) >= self.action_size
                or not self._masks[self._rows_index, tokens].all()):
            ok = (tokens >= 0) & (tokens < self.action_size)
            legal = np.zeros(k, np.bool_)
            legal[ok] = self._masks[np.flatnonzero(ok), tokens[ok]]
            bad = np.flatnonzero(~legal)
            i = int(bad[0])
            raise InvalidActionError(
                f"token {int(tokens[i])} is not legal in game {i} now"
                + (f" ({len(bad)} games refused)" if len(bad) > 1 else "")
                + "; nothing was applied")
        self._rewards.fill(0.0)
        self._terminated.fill(False)
        self._truncated.fill(False)
        values: list[int] = tokens.tolist()
        slots = self._slots
        for i in range(k):
            slot = slots[i]
            if slot.reset:
                slot.episode += 1
                self._start(i, slot)
            else:
                self._push(i, slot, values[i])

    def _push(self, i: int, slot: _Slot, token: int) -> None:
        choice = slot.choice
        assert choice is not None
        action = choice.push(token)
        if action is None:  # an action being composed: same state, the partial changes
            partial, stage = choice.partial()
            if slot.encoder.write_partial(slot.state, choice.seat, partial, stage) is None:
                slot.encoder.write(slot.state, choice.seat, partial, stage)
            self._set_mask(i, slot, choice.legal_tokens())
            return
        apply_unchecked(slot.state, action)
        if slot.actions is not None:
            slot.actions.append(action)
        self._decide(i, slot)

    def _decide(self, i: int, slot: _Slot) -> None:
        """After a decision (or a new game): let bots play, then write the game's row."""
        state = slot.state
        bots = slot.bots
        if bots is not None:
            learner = slot.learner
            while (state.result is None and state.decisions < self.max_decisions
                   and state.pending.seat != learner
                   and not (not state.teams and state.eliminated[learner])):
                seat = state.pending.seat
                bot = bots[seat]
                assert bot is not None
                legal = legal_actions(state)
                action = bot.choose(SeatView(state, seat), legal, slot.rng)
                apply_unchecked(state, action)
                if slot.actions is not None:
                    slot.actions.append(action)
        if state.result is not None:
            self._end(i, slot, False)
            return
        if state.decisions >= self.max_decisions:
            self._end(i, slot, True)
            return
        if bots is not None and not state.teams and state.eliminated[slot.learner]:
            self._end(i, slot, False)  # R18.1: the learner is out of a free-for-all game
            return
        choice = slot.choice = Choice(self.actions, state, legal_actions(state))
        seat = choice.seat
        self._to_row(i, slot, seat)
        slot.encoder.write(state, seat)
        self._set_mask(i, slot, choice.heads)

    def _to_row(self, i: int, slot: _Slot, seat: int) -> None:
        """Make the output row hold ``seat``'s vector."""
        if seat == slot.seat:
            return
        encoder = slot.encoder
        if slot.seat != _NOBODY:
            encoder.move(slot.seat, slot.kept[slot.seat])
        encoder.move(seat, slot.row)
        slot.seat = seat
        self._to_play_view[i] = seat

    def _set_mask(self, i: int, slot: _Slot, tokens: Any) -> None:
        size = self.action_size
        base = i * size
        masks = self._mask_bytes
        if slot.full:  # the row offered every token (the game's final call)
            masks[base:base + size] = self._no_tokens
            slot.full = False
        else:
            for t in slot.set:
                masks[base + t] = 0
        new: list[int] = []
        for t in tokens:
            masks[base + t] = 1
            new.append(t)
        slot.set = new

    def _end(self, i: int, slot: _Slot, truncated: bool) -> None:
        """The game's last call: its last decider's final view, a mask of every token, the
        rewards (``episode_returns``) unless truncated."""
        state = slot.state
        slot.choice = None
        slot.reset = True
        if slot.actions is not None:
            slot.finished = (slot.seed, slot.actions)
        self._set_mask(i, slot, ())
        size = self.action_size
        self._mask_bytes[i * size:(i + 1) * size] = self._all_tokens
        slot.full = True
        seat = slot.seat if slot.seat != _NOBODY else 0
        if slot.learner != _NOBODY:
            seat = slot.learner
        self._to_row(i, slot, seat)
        slot.encoder.write(state, seat)
        n = self.n
        if truncated:
            self._trunc_view[i] = 1
            return
        self._term_view[i] = 1
        if state.result is not None:
            returns = episode_returns(state, self.score_shaping)
        else:  # only the learner's game is over (R18.1)
            returns = [0.0] * n
            returns[slot.learner] = -1.0
        for p in range(n):
            self._reward_view[i * n + p] = returns[p]

    def load(self, game: int, state: GameState) -> None:
        """Go on in ``game`` from a copy of ``state`` (a position of this configuration's
        map, e.g. from ``rules.notation``), as if its episode had reached it; the buffers
        show it at once. Its next episode starts from the seeds again."""
        if (len(state.world.names) != len(self.world.names)
                or state.world.neighbours != self.world.neighbours
                or state.n != self.n):
            raise ValueError("the state is not of this configuration's map and players")
        slot = self._slots[game]
        self._fit_encoder(game, slot, state)
        slot.state = state.copy()
        slot.reset = False
        slot.actions = None
        self._rewards[game] = 0.0
        self._terminated[game] = False
        self._truncated[game] = False
        self._decide(game, slot)

    # --- inspection ----------------------------------------------------------------------

    def state(self, game: int) -> GameState:
        """Game ``game``'s true state (hidden parts included): for tests and tools, never for
        a seat's policy."""
        return self._slots[game].state

    def finished(self, game: int) -> tuple[int, list[Action]] | None:
        """With ``record=True``: the engine seed and every action (all seats') of ``game``'s
        last finished episode, what ``Game.new(config, seed)`` replays; None before one
        ends."""
        return self._slots[game].finished


def _read_only(array: NDArray[Any]) -> NDArray[Any]:
    view = array.view()
    view.flags.writeable = False
    return view


def _writer(array: NDArray[Any]) -> Any:
    """A memoryview of ``array`` (typeshed does not know ndarray as a buffer; typed Any as
    its items are)."""
    return memoryview(array)  # type: ignore[arg-type]
