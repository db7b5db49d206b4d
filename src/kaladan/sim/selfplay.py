"""Self-play data: every decision of bot games as a training position, stored compactly.

A position is one engine decision: the seat to move, the index of the action taken in
``legal_actions(state)``, its tokens in the research action space (``env.encoding``) and,
per game, every seat's outcome and score. The observations are not stored by default (4
players: 2,098 float32 per position, 8 GB for a million positions): a game's seed and its
action indices replay it exactly, so ``SelfPlayData.observations`` rebuilds the vectors of
any positions by replaying their games, each once. ``masks=True`` stores each position's
legal head tokens; ``observations=True`` stores the vectors as well (small runs).

Games are played exactly as ``kaladan simulate`` plays them (``runner.play_spec``): game
``i`` from ``runner.game_seed(seed, i)``, each seat's bot deciding from its seat's view
(``seats.Seats``). A run is a list of games in game order whatever the number of processes
or the backend, and a run to ``positions`` stops at the first game at which the positions
collected reach that count, then cuts the data to exactly that many: the same arguments give
the same arrays, and the same file bytes, with any ``jobs``. docs/selfplay.md describes the
files.
"""

from __future__ import annotations

import collections
import contextlib
import json
import zipfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from ..bots.registry import make_bot
from ..env.core import episode_returns
from ..env.encoding import ActionEncoder, Choice
from ..env.observation import ObservationEncoder
from ..rules.actionlist import ActionList
from ..rules.actions import Action
from ..rules.apply import apply_unchecked
from ..rules.config import Config
from ..rules.errors import ConfigError, FormatError, KaladanError
from ..rules.legal import legal_actions
from ..rules.setup import new_game
from ..rules.state import GameState
from ..rules.world import World
from .runner import BACKENDS, game_seed
from .seats import Seats

FORMAT: Final = "kaladan-selfplay"
VERSION: Final = 1
SUFFIXES: Final = (".npz", ".parquet")
# Games per task sent to a process or a Ray worker. Which games a run keeps depends on the
# arguments only (games are taken in order); the chunk size only bounds the games played
# beyond the last one kept (at most two chunks per process) and the cost of sending tasks.
CHUNK_GAMES: Final = 4
_NPZ_DATE: Final = (1980, 1, 1, 0, 0, 0)  # every member's timestamp: same run, same bytes
Progress = Callable[[int, int], None]  # (positions or games done, the run's total)


class SelfPlayError(KaladanError):
    """A self-play run or file that cannot be made or read: a message for the user."""


# --- one game --------------------------------------------------------------------------------


@dataclass(slots=True)
class GameRows:
    """One played game's positions (``array`` columns: small to send between processes)."""

    seed: int
    decisions: int = 0
    seat: array[int] = field(default_factory=lambda: array("b"))
    action: array[int] = field(default_factory=lambda: array("i"))
    head: array[int] = field(default_factory=lambda: array("i"))
    tokens: array[int] = field(default_factory=lambda: array("i"))
    token_count: array[int] = field(default_factory=lambda: array("H"))
    mask_heads: array[int] = field(default_factory=lambda: array("i"))
    mask_count: array[int] = field(default_factory=lambda: array("H"))
    observations: list[NDArray[np.float32]] = field(default_factory=list)
    outcome: tuple[int, ...] = ()
    score: tuple[int, ...] = ()


class Encoders:
    """The action and observation encoders of one configuration. The action space needs a
    map of one shape; ``random_terrain`` gives each seed new terrain on the same shape, for
    which the observation encoder is made again (as ``env.core.EnvCore.reset`` does)."""

    def __init__(self, config: Config, world: World) -> None:
        self.config = config
        self.actions = ActionEncoder(config, world)
        self._observations: ObservationEncoder | None = None

    def action_encoder(self, world: World) -> ActionEncoder:
        known = self.actions.world
        if world is not known and (len(world.names) != len(known.names)
                                   or world.neighbours != known.neighbours):
            raise SelfPlayError("this configuration's map changes shape with the seed; the "
                                "action space needs a fixed map")
        return self.actions

    def observation_encoder(self, world: World) -> ObservationEncoder:
        encoder = self._observations
        if encoder is None or (encoder.world is not world
                               and encoder.world.terrain != world.terrain):
            encoder = self._observations = ObservationEncoder(self.config, world)
        return encoder


def action_index(legal: Sequence[Action], action: Action) -> int:
    """The index of ``action`` in ``legal``. An ActionList's parts are searched by identity
    first (a bot returns one of the list's own actions) and its lazy blocks are built only
    when no built part holds the action and the block may hold it."""
    if not isinstance(legal, ActionList):
        return list(legal).index(action)
    starts, parts = legal.starts, legal.parts
    wanted = id(action)
    for i, part in enumerate(parts):
        if isinstance(part, list):
            ids = list(map(id, part))  # identities compared in C, no __eq__ per action
            if wanted in ids:
                return starts[i] + ids.index(wanted)
    for i, part in enumerate(parts):
        if isinstance(part, list) or part.may_hold(action):
            built = legal.part(i)
            if action in built:
                return starts[i] + built.index(action)
    raise SelfPlayError(f"the bot chose {action!r}, which is not among the legal actions")


def outcomes(state: GameState) -> tuple[int, ...]:
    """Per seat: +1 win, -1 loss, 0 draw; a team's members share its result (R23.1): the
    environments' rewards (``env.core.episode_returns``, without score shaping)."""
    if state.result is None:
        raise SelfPlayError("the game is not over")
    return tuple(int(value) for value in episode_returns(state))


def play_game(config: Config, seed: int, bots: Sequence[str], encoders: Encoders,
              masks: bool = False, observations: bool = False) -> GameRows:
    """Play one game as ``runner.play_spec`` plays it (same seed, same bots, same seats: the
    same game) and keep every decision as a position."""
    state = new_game(config, seed)
    seats = Seats([make_bot(b) for b in bots], seed, None, False)
    enc = encoders.action_encoder(state.world)
    observer = encoders.observation_encoder(state.world) if observations else None
    rows = GameRows(seed)
    seat_col, action_col, head_col = rows.seat, rows.action, rows.head
    tokens_col, count_col = rows.tokens, rows.token_count
    while not state.is_over:
        seat = state.pending.seat
        legal = legal_actions(state)
        if masks:
            heads = sorted(Choice(enc, state, legal).heads)
            rows.mask_heads.extend(heads)
            rows.mask_count.append(len(heads))
        if observer is not None:
            rows.observations.append(observer.encode(state, seat))
        action = seats.choose(state, legal)
        tokens = enc.tokens(action, seat)
        seat_col.append(seat)
        action_col.append(action_index(legal, action))
        head_col.append(tokens[0])
        tokens_col.extend(tokens)
        count_col.append(len(tokens))
        apply_unchecked(state, action)
    result = state.result
    assert result is not None
    rows.decisions = len(seat_col)
    rows.outcome = outcomes(state)
    rows.score = tuple(-1 if s is None else s for s in result.scores)
    return rows


@dataclass(frozen=True, slots=True)
class Task:
    """Games ``start`` .. ``start + count - 1`` of a run: what a process or a Ray task gets."""

    config: Config
    seed: int  # the run's seed
    bots: tuple[str, ...]
    start: int
    count: int
    masks: bool = False
    observations: bool = False


def play_task(task: Task) -> list[GameRows]:
    """Play a task's games in order (in a worker process or on a Ray worker)."""
    out: list[GameRows] = []
    encoders: Encoders | None = None
    for index in range(task.start, task.start + task.count):
        seed = game_seed(task.seed, index)
        if encoders is None:
            encoders = Encoders(task.config, new_game(task.config, seed).world)
        out.append(play_game(task.config, seed, task.bots, encoders, task.masks,
                             task.observations))
    return out


# --- running tasks in order --------------------------------------------------------------------


def _tasks(config: Config, seed: int, bots: tuple[str, ...], games: int | None, masks: bool,
           observations: bool) -> Iterator[Task]:
    start = 0
    while games is None or start < games:
        count = CHUNK_GAMES if games is None else min(CHUNK_GAMES, games - start)
        yield Task(config, seed, bots, start, count, masks, observations)
        start += count


@contextlib.contextmanager
def _in_order(tasks: Iterator[Task], jobs: int, backend: str,
              ray_address: str | None) -> Iterator[Iterator[list[GameRows]]]:
    """The tasks' results in task order, computed ahead by at most two tasks per process;
    whatever is still running when the block ends is cancelled."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if backend == "ray":
        with _on_ray(tasks, ray_address) as on_ray:
            yield on_ray
        return
    if jobs <= 1:
        yield map(play_task, tasks)
        return
    from concurrent.futures import Future, ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=jobs)
    window: collections.deque[Future[list[GameRows]]] = collections.deque()

    def results() -> Iterator[list[GameRows]]:
        for task in tasks:
            window.append(pool.submit(play_task, task))
            if len(window) >= 2 * jobs:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()

    try:
        yield results()
    finally:
        for future in window:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def _on_ray(tasks: Iterator[Task], address: str | None) -> Iterator[Iterator[list[GameRows]]]:
    from .ray_backend import fetch, session

    with session(address) as ray:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(num_cpus=1)(play_task)
        window: collections.deque[Any] = collections.deque()

        def get(ref: Any) -> list[GameRows]:
            rows: list[GameRows] = fetch(ray, ref)
            return rows

        def results() -> Iterator[list[GameRows]]:
            for task in tasks:
                window.append(remote.remote(task))
                if len(window) >= 2 * cpus:
                    yield get(window.popleft())
            while window:
                yield get(window.popleft())

        try:
            yield results()
        finally:
            for ref in window:
                ray.cancel(ref)


# --- the data ----------------------------------------------------------------------------------


def _offsets(counts: NDArray[Any]) -> NDArray[np.int64]:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


@dataclass(slots=True)
class SelfPlayData:
    """Positions of self-play games; docs/selfplay.md gives every field. Position ``i`` is
    decision ``decision[i]`` of game ``game[i]``; its tokens are
    ``tokens[token_offsets[i]:token_offsets[i + 1]]`` (``tokens_of(i)``)."""

    meta: dict[str, Any]
    game: NDArray[np.int32]
    decision: NDArray[np.int32]
    seat: NDArray[np.int8]
    action: NDArray[np.int32]
    head: NDArray[np.int32]
    tokens: NDArray[np.int32]
    token_offsets: NDArray[np.int64]
    game_seed: NDArray[np.int64]
    game_decisions: NDArray[np.int32]
    outcome: NDArray[np.int8]
    score: NDArray[np.int16]
    mask_heads: NDArray[np.int32] | None = None
    mask_offsets: NDArray[np.int64] | None = None
    stored_observations: NDArray[np.float32] | None = None
    _starts: NDArray[np.int64] | None = field(default=None, repr=False, compare=False)

    # --- sizes and plain lookups ------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.game)

    @property
    def games(self) -> int:
        return len(self.game_seed)

    @property
    def config(self) -> Config:
        return Config.from_json(self.meta["config"])

    @property
    def action_size(self) -> int:
        """Tokens of the action space (the env's ``Discrete(N)``), the width of a mask."""
        size: int = self.meta["action_size"]
        return size

    @property
    def observation_size(self) -> int:
        size: int = self.meta["observation_size"]
        return size

    def tokens_of(self, i: int) -> NDArray[np.int32]:
        """The token sequence of position ``i``'s action, head first."""
        return self.tokens[self.token_offsets[i]:self.token_offsets[i + 1]]

    def value(self, indices: Any = None) -> NDArray[np.int8]:
        """The final outcome (+1, 0, -1) of the seat to move at each position."""
        idx = self._indices(indices)
        return self.outcome[self.game[idx], self.seat[idx]]

    def starts(self) -> NDArray[np.int64]:
        """The first position of each game, and the number of positions at the end."""
        if self._starts is None:
            self._starts = np.searchsorted(self.game, np.arange(self.games + 1)).astype(np.int64)
        return self._starts

    def _indices(self, indices: Any) -> NDArray[np.int64]:
        if indices is None:
            return np.arange(len(self), dtype=np.int64)
        if isinstance(indices, slice):
            return np.arange(len(self), dtype=np.int64)[indices]
        idx = np.asarray(indices)
        if idx.dtype == np.bool_:  # a boolean selection over the positions
            if idx.shape != (len(self),):
                raise IndexError(f"a boolean selection needs {len(self)} values")
            return np.flatnonzero(idx).astype(np.int64)
        idx = idx.astype(np.int64).reshape(-1)
        if idx.size and (idx.min() < -len(self) or idx.max() >= len(self)):
            raise IndexError(f"position index out of range (0..{len(self) - 1})")
        return np.where(idx < 0, idx + len(self), idx)

    # --- expanding by replay ------------------------------------------------------------------

    def replay(self, game: int) -> Iterator[tuple[int, GameState, Sequence[Action]]]:
        """Replay ``game`` from its seed through the positions the data holds of it: for each,
        its index, the state before the decision and its legal actions. The state is live:
        it changes as the iteration goes on."""
        config = self.config
        starts = self.starts()
        state = new_game(config, int(self.game_seed[game]))
        for i in range(int(starts[game]), int(starts[game + 1])):
            seat = int(self.seat[i])
            if state.is_over or state.pending.seat != seat:
                raise FormatError(
                    f"game {game} does not replay at decision {int(self.decision[i])}: the "
                    f"file says seat {seat} decides; was it written by another version of "
                    f"the rules (file: kaladan {self.meta.get('kaladan')})?")
            legal = legal_actions(state)
            index = int(self.action[i])
            if not 0 <= index < len(legal):
                raise FormatError(f"game {game} does not replay at decision "
                                  f"{int(self.decision[i])}: action {index} of {len(legal)}")
            yield i, state, legal
            apply_unchecked(state, legal[index])

    def _expand(self, indices: Any, width: int, dtype: type[np.generic],
                fill: Callable[[GameState, Sequence[Action], int, Encoders], Any]) -> Any:
        """Rows for ``indices``, made by replaying each game the indices touch once and
        calling ``fill`` at every wanted position."""
        idx = self._indices(indices)
        wanted, inverse = np.unique(idx, return_inverse=True)
        out = np.empty((len(wanted), width), dtype=dtype)
        if len(wanted):
            config = self.config
            encoders = Encoders(config, new_game(config, int(self.game_seed[0])).world)
            games = self.game[wanted]
            row = 0
            for g in np.unique(games):
                last = int(wanted[np.searchsorted(games, g, side="right") - 1])
                for i, state, legal in self.replay(int(g)):
                    if i == wanted[row]:
                        out[row] = fill(state, legal, int(self.seat[i]), encoders)
                        row += 1
                    if i == last:
                        break
        return out[inverse.reshape(-1)]

    def observations(self, indices: Any = None) -> NDArray[np.float32]:
        """The observation vectors (``env.observation.ObservationEncoder``) of the seat to
        move at ``indices`` (positions: ints, an array or a slice; None for all): the stored
        ones, or rebuilt by replaying the games, each once."""
        if self.stored_observations is not None:
            return self.stored_observations[self._indices(indices)]

        def encode(state: GameState, legal: Sequence[Action], seat: int,
                   encoders: Encoders) -> NDArray[np.float32]:
            return encoders.observation_encoder(state.world).encode(state, seat)

        result: NDArray[np.float32] = self._expand(indices, self.observation_size,
                                                   np.float32, encode)
        return result

    def masks(self, indices: Any = None) -> NDArray[np.bool_]:
        """The legal head tokens of each position as a dense bool mask of ``action_size``
        (the env's first-token mask): from the stored heads, or by replaying the games."""
        idx = self._indices(indices)
        if self.mask_heads is not None and self.mask_offsets is not None:
            out = np.zeros((len(idx), self.action_size), dtype=np.bool_)
            counts = self.mask_offsets[idx + 1] - self.mask_offsets[idx]
            rows = np.repeat(np.arange(len(idx)), counts)
            firsts = np.repeat(self.mask_offsets[idx], counts)
            within = np.arange(int(counts.sum())) - np.repeat(_offsets(counts)[:-1], counts)
            out[rows, self.mask_heads[firsts + within]] = True
            return out

        def heads(state: GameState, legal: Sequence[Action], seat: int,
                  encoders: Encoders) -> NDArray[np.bool_]:
            row = np.zeros(self.action_size, dtype=np.bool_)
            row[list(Choice(encoders.action_encoder(state.world), state, legal).heads)] = True
            return row

        result: NDArray[np.bool_] = self._expand(idx, self.action_size, np.bool_, heads)
        return result

    # --- writing ------------------------------------------------------------------------------

    def arrays(self) -> dict[str, NDArray[Any]]:
        """The stored arrays by name (the ``.npz`` members without ``meta``)."""
        out: dict[str, NDArray[Any]] = {
            "game": self.game, "decision": self.decision, "seat": self.seat,
            "action": self.action, "head": self.head, "tokens": self.tokens,
            "token_offsets": self.token_offsets, "game_seed": self.game_seed,
            "game_decisions": self.game_decisions, "outcome": self.outcome,
            "score": self.score}
        if self.mask_heads is not None and self.mask_offsets is not None:
            out["mask_heads"] = self.mask_heads
            out["mask_offsets"] = self.mask_offsets
        if self.stored_observations is not None:
            out["observations"] = self.stored_observations
        return out

    def save(self, path: str | Path) -> None:
        """Write ``.npz`` (numpy) or ``.parquet`` (pyarrow), chosen by the name."""
        target = Path(path)
        if target.suffix == ".npz":
            _write_npz(target, self)
        elif target.suffix == ".parquet":
            _write_parquet(target, self)
        else:
            raise SelfPlayError(f"cannot write {str(path)!r}: the name must end in "
                                f"{' or '.join(SUFFIXES)}")


def _assemble(games: list[GameRows], meta: dict[str, Any], players: int,
              observation_size: int, limit: int | None) -> SelfPlayData:
    """One SelfPlayData of the games in order, cut to ``limit`` positions."""

    def column(name: str, dtype: type[np.generic]) -> NDArray[Any]:
        parts = [np.frombuffer(getattr(g, name), dtype=dtype) for g in games]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

    counts = np.array([g.decisions for g in games], dtype=np.int64)
    positions = int(counts.sum())
    keep = positions if limit is None else min(limit, positions)
    game = np.repeat(np.arange(len(games), dtype=np.int32), counts)[:keep]
    starts = _offsets(counts)
    decision = (np.arange(keep, dtype=np.int64) - starts[game]).astype(np.int32)
    token_offsets = _offsets(column("token_count", np.uint16))[:keep + 1]
    data = SelfPlayData(
        meta={**meta, "positions": keep, "games": len(games)},
        game=game, decision=decision,
        seat=column("seat", np.int8)[:keep], action=column("action", np.int32)[:keep],
        head=column("head", np.int32)[:keep],
        tokens=column("tokens", np.int32)[:int(token_offsets[-1])],
        token_offsets=token_offsets,
        game_seed=np.array([g.seed for g in games], dtype=np.int64),
        game_decisions=counts.astype(np.int32),
        outcome=np.array([g.outcome for g in games], dtype=np.int8).reshape(-1, players),
        score=np.array([g.score for g in games], dtype=np.int16).reshape(-1, players),
    )
    if meta["masks"]:
        mask_offsets = _offsets(column("mask_count", np.uint16))[:keep + 1]
        data.mask_offsets = mask_offsets
        data.mask_heads = column("mask_heads", np.int32)[:int(mask_offsets[-1])]
    if meta["observations"]:
        vectors = [v for g in games for v in g.observations][:keep]
        data.stored_observations = (np.stack(vectors) if vectors
                                    else np.zeros((0, observation_size), dtype=np.float32))
    return data


def generate(config: Config, bots: Sequence[str], seed: int, *, positions: int | None = None,
             games: int | None = None, masks: bool = False, observations: bool = False,
             jobs: int = 1, backend: str = "local", ray_address: str | None = None,
             progress: Progress | None = None) -> SelfPlayData:
    """Play self-play games: ``games`` of them, or as many as it takes to collect
    ``positions`` (then cut to exactly that many). ``bots`` has one bot spec per seat. The
    data is the same whatever ``jobs`` or ``backend``."""
    if (positions is None) == (games is None):
        raise ValueError("give positions or games, not both")
    if (positions is not None and positions < 1) or (games is not None and games < 1):
        raise ValueError("positions and games must be at least 1")
    if len(bots) != config.players:
        raise ConfigError(f"{len(bots)} bots for {config.players} seats")
    for spec in bots:
        make_bot(spec)  # an unknown bot or a bad parameter fails here, before any game
    first = new_game(config, game_seed(seed, 0))
    encoders = Encoders(config, first.world)
    from .. import __version__

    meta: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "kaladan": __version__,
        "config": config.to_json(), "bots": list(bots), "seed": seed,
        "players": config.players, "action_size": encoders.actions.size,
        "head_count": encoders.actions.head_count,
        "observation_size": encoders.observation_encoder(first.world).size,
        "masks": masks, "observations": observations}
    played: list[GameRows] = []
    total = 0
    goal = positions if positions is not None else games
    assert goal is not None
    tasks = _tasks(config, seed, tuple(bots), games, masks, observations)
    with _in_order(tasks, jobs, backend, ray_address) as results:
        for chunk in results:
            for rows in chunk:
                played.append(rows)
                total += rows.decisions
                if positions is not None and total >= positions:
                    break
            if progress is not None:
                progress(min(total, goal) if positions is not None else len(played), goal)
            if (positions is not None and total >= positions) or len(played) == games:
                break
    return _assemble(played, meta, config.players, meta["observation_size"], positions)


# --- files ---------------------------------------------------------------------------------------


def _write_npz(path: Path, data: SelfPlayData) -> None:
    """An ``.npz`` that ``numpy.load`` reads, with fixed member timestamps so that the same
    data gives the same bytes (``numpy.savez_compressed`` stamps the current time)."""
    members = {"meta": np.array(json.dumps(data.meta, sort_keys=True)), **data.arrays()}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
        for name, value in members.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_NPZ_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            with zf.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, value, allow_pickle=False)


def _pyarrow() -> tuple[Any, Any]:
    import importlib

    try:
        return importlib.import_module("pyarrow"), importlib.import_module("pyarrow.parquet")
    except ImportError as exc:
        raise SelfPlayError("Parquet files need pyarrow, which is not installed: "
                            "pip install 'kaladan[sim]'") from exc


def _write_parquet(path: Path, data: SelfPlayData) -> None:
    """One row per position; the game's columns (``game_seed``, ``game_decisions``,
    ``outcome``, ``score``) repeat on each of its rows; ``meta`` is in the schema's metadata."""
    pa, pq = _pyarrow()
    g = data.game
    n = int(data.meta["players"])

    def ragged(values: NDArray[Any], offsets: NDArray[np.int64]) -> Any:
        if offsets[-1] < 2**31:
            return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pa.array(values))
        return pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(values))

    def fixed(values: NDArray[Any], width: int) -> Any:
        return pa.FixedSizeListArray.from_arrays(pa.array(values.reshape(-1)), width)

    columns: dict[str, Any] = {
        "game": pa.array(g), "decision": pa.array(data.decision), "seat": pa.array(data.seat),
        "action": pa.array(data.action), "head": pa.array(data.head),
        "tokens": ragged(data.tokens, data.token_offsets)}
    if data.mask_heads is not None and data.mask_offsets is not None:
        columns["mask_heads"] = ragged(data.mask_heads, data.mask_offsets)
    if data.stored_observations is not None:
        columns["observation"] = fixed(data.stored_observations, data.observation_size)
    columns["game_seed"] = pa.array(data.game_seed[g])
    columns["game_decisions"] = pa.array(data.game_decisions[g])
    columns["outcome"] = fixed(data.outcome[g], n)
    columns["score"] = fixed(data.score[g], n)
    table = pa.table(columns).replace_schema_metadata(
        {"kaladan_selfplay": json.dumps(data.meta, sort_keys=True)})
    pq.write_table(table, str(path), compression="zstd")


def load(path: str | Path) -> SelfPlayData:
    """Read a file written by ``SelfPlayData.save`` (``kaladan selfplay --out``)."""
    target = Path(path)
    try:
        if target.suffix == ".npz":
            data = _read_npz(target)
        elif target.suffix == ".parquet":
            data = _read_parquet(target)
        else:
            raise SelfPlayError(f"cannot read {str(path)!r}: the name must end in "
                                f"{' or '.join(SUFFIXES)}")
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise SelfPlayError(f"cannot read {str(path)!r}: {exc}") from exc
    if data.meta.get("format") != FORMAT or data.meta.get("version") != VERSION:
        raise SelfPlayError(f"{str(path)!r} is not a {FORMAT} file of version {VERSION}")
    return data


def _from_arrays(meta: dict[str, Any], arrays: dict[str, NDArray[Any]]) -> SelfPlayData:
    return SelfPlayData(
        meta=meta, game=arrays["game"], decision=arrays["decision"], seat=arrays["seat"],
        action=arrays["action"], head=arrays["head"], tokens=arrays["tokens"],
        token_offsets=arrays["token_offsets"], game_seed=arrays["game_seed"],
        game_decisions=arrays["game_decisions"], outcome=arrays["outcome"],
        score=arrays["score"], mask_heads=arrays.get("mask_heads"),
        mask_offsets=arrays.get("mask_offsets"),
        stored_observations=arrays.get("observations"))


def _read_npz(path: Path) -> SelfPlayData:
    with np.load(path, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    meta = json.loads(str(arrays.pop("meta")))
    return _from_arrays(meta, arrays)


def _read_parquet(path: Path) -> SelfPlayData:
    _, pq = _pyarrow()
    table = pq.read_table(str(path))
    raw = (table.schema.metadata or {}).get(b"kaladan_selfplay")
    if raw is None:
        raise SelfPlayError(f"{str(path)!r} is not a {FORMAT} file (no kaladan_selfplay "
                            f"metadata)")
    meta = json.loads(raw)

    def plain(name: str) -> NDArray[Any]:
        out: NDArray[Any] = table.column(name).to_numpy()
        return out

    def ragged(name: str) -> tuple[NDArray[Any], NDArray[np.int64]]:
        column = table.column(name).combine_chunks()
        offsets = column.offsets.to_numpy().astype(np.int64)
        return column.flatten().to_numpy(), offsets - offsets[0]

    def fixed(name: str, width: int) -> NDArray[Any]:
        column = table.column(name).combine_chunks()
        flat: NDArray[Any] = column.flatten().to_numpy()
        return flat.reshape(-1, width)

    game = plain("game")
    firsts = np.searchsorted(game, np.arange(int(meta["games"])))
    n = int(meta["players"])
    arrays: dict[str, NDArray[Any]] = {
        name: plain(name) for name in ("game", "decision", "seat", "action", "head")}
    arrays["tokens"], arrays["token_offsets"] = ragged("tokens")
    if "mask_heads" in table.column_names:
        arrays["mask_heads"], arrays["mask_offsets"] = ragged("mask_heads")
    if "observation" in table.column_names:
        arrays["observations"] = fixed("observation", int(meta["observation_size"]))
    arrays["game_seed"] = plain("game_seed")[firsts]
    arrays["game_decisions"] = plain("game_decisions")[firsts]
    arrays["outcome"] = fixed("outcome", n)[firsts]
    arrays["score"] = fixed("score", n)[firsts]
    return _from_arrays(meta, arrays)

