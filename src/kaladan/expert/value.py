"""The learned evaluator: every seat's chance that its side wins, from a small network in NumPy.

A position is described from one seat's view (``features``): the observation vector of the
research environments (``env.observation``, R5.13: nothing the seat may not see), then a
few figures per player that a strong player reads off the board but the vector holds only
implicitly — the score (R22.1), the worth of its units, the exact chance of its best attack
and of the worst attack on its Crown (R16, exact dice odds), attacks it wins more often than
not, castles held, and the old hand-made evaluation (``mcts.evaluate``); layout 2 adds the
worth under attack, the held cards playable in those two battles, and the chance that the
final round begins within one or two rounds (R5.10, R21.2). Players are relative to the
observer, as in the observation.

The network (``ValueNet``) is a multilayer perceptron with one sigmoid output per relative
seat: the probability that that seat's side wins (team-mates share the target, R23.1). It is
trained with PyTorch (``kaladan.learn``), exported to plain arrays in a ``.npz`` with a
JSON manifest beside it, and evaluated here with NumPy only, so playing needs no torch. The
manifest names the configurations the network serves; ``load_for`` refuses any other with
a message that says which (docs/value.md).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from ..bots.mcts import evaluate
from ..env.observation import ObservationEncoder
from ..rules.config import Config
from ..rules.errors import ConfigError
from ..rules.state import GameState
from ..rules.world import World
from .figures import (
    FIGURES,
    FIGURES_V2,
    GLOBALS_V2,
    ChanceMemo,
    player_figures,
)

FORMAT: Final = "kaladan-value"
FEATURES_VERSION: Final = 2  # the layout ``Features`` writes for a network trained now
LAYOUTS: Final = (1, 2)  # the layouts this kaladan can write: a network on another refuses
SHIPPED: Final = Path(__file__).parent / "data"


class ValueNetError(ConfigError):
    """A network that cannot serve: missing, damaged, or trained for another configuration."""

    def __init__(self, message: str) -> None:
        # ConfigError's compiled __init__ refuses an interpreted subclass's instance.
        Exception.__init__(self, message)
        self.rule = ""


def serving_key(config: Config) -> dict[str, Any]:
    """What a network must have been trained on to judge games of ``config``: the player
    count, the mode and the world (the features' shape and meaning depend on them). Other
    rule options change the game but not the features; they are recorded in the manifest."""
    layout = None if config.layout is None else hashlib.sha256(
        json.dumps(config.layout, sort_keys=True).encode()).hexdigest()[:16]
    return {"players": config.players, "mode": str(config.mode), "world": str(config.world),
            "layout": layout}


# --- features --------------------------------------------------------------------------------


class Features:
    """Writes the feature vector of a state from one seat's view (module docstring), in
    feature layout ``version`` (one of ``LAYOUTS``; a network's manifest names its own)."""

    def __init__(self, config: Config, world: World, version: int = FEATURES_VERSION) -> None:
        if version not in LAYOUTS:
            raise ValueNetError(f"feature layout {version} is unknown to this kaladan "
                                f"(it writes {', '.join(map(str, LAYOUTS))})")
        self.config = config
        self.world = world
        self.n = config.players
        self.version = version
        self.observation = ObservationEncoder(config, world)
        self._per_player = FIGURES if version == 1 else FIGURES_V2
        self._globals: tuple[str, ...] = () if version == 1 else GLOBALS_V2
        self.size = (self.observation.size + self.n * len(self._per_player)
                     + len(self._globals))
        self._memo: ChanceMemo = {}
        self._drop_on = (config.mountain_defence == "drop_lowest")

    def names(self) -> list[str]:
        """One name per figure after the observation (documentation and tests)."""
        return [f"player {i}: {name}" for i in range(self.n)
                for name in self._per_player] + list(self._globals)

    def write(self, state: GameState, seat: int, out: NDArray[np.float32]) -> None:
        """The features of ``state`` seen by ``seat`` into ``out`` (length ``size``)."""
        size = self.observation.size
        out[:size] = self.observation.write(state, seat)
        out[size:] = self.extras(state, seat)

    def extras(self, state: GameState, seat: int) -> list[float]:
        """The figures after the observation (``figures.player_figures``)."""
        return player_figures(state, seat, self._drop_on, self._memo, self.version)


# --- the network -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Manifest:
    """What a shipped network is and was trained on (the ``.json`` beside the ``.npz``)."""

    serves: tuple[dict[str, Any], ...]
    features: int
    input_size: int
    weights_sha256: str
    training: dict[str, Any]

    @classmethod
    def read(cls, path: Path) -> Manifest:
        try:
            data = json.loads(path.read_text())
            if data.get("format") != FORMAT:
                raise ValueNetError(f"{path} is not a kaladan value-network manifest")
            return cls(tuple(data["serves"]), int(data["features"]), int(data["input_size"]),
                       str(data["weights_sha256"]), dict(data.get("training", {})))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueNetError(f"cannot read the value-network manifest {path}: {exc}") from exc

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "serves": list(self.serves), "features": self.features,
                "input_size": self.input_size, "weights_sha256": self.weights_sha256,
                "training": self.training}

    def check(self, config: Config) -> None:
        """Refuse ``config`` unless the network was trained for it (ValueNetError says so)."""
        key = serving_key(config)
        if self.features not in LAYOUTS:
            raise ValueNetError(f"the value network was trained on feature layout "
                                f"{self.features}; this kaladan writes layouts "
                                f"{', '.join(map(str, LAYOUTS))}: retrain it "
                                "(bench/train_value.py)")
        if key not in self.serves:
            served = "; ".join(describe_key(k) for k in self.serves) or "nothing"
            raise ValueNetError(f"the value network serves {served}, not "
                                f"{describe_key(key)}")


def describe_key(key: dict[str, Any]) -> str:
    layout = f" (custom layout {key['layout']})" if key.get("layout") else ""
    return f"{key['players']} players {key['mode']} on the {key['world']} world{layout}"


class ValueNet:
    """A trained evaluator: ``predict`` maps feature rows to win probabilities per relative
    seat; ``win_probabilities`` judges a state for every seat at once."""

    def __init__(self, weights: Sequence[tuple[NDArray[np.float32], NDArray[np.float32]]],
                 manifest: Manifest) -> None:
        self.layers = [(np.ascontiguousarray(w, dtype=np.float32),
                        np.ascontiguousarray(b, dtype=np.float32)) for w, b in weights]
        self.manifest = manifest
        if self.layers[0][0].shape[0] != manifest.input_size:
            raise ValueNetError(f"the network takes {self.layers[0][0].shape[0]} inputs, its "
                                f"manifest says {manifest.input_size}")
        self._features: dict[int, Features] = {}  # by id(world): one encoder per world
        self._row = np.zeros(manifest.input_size, dtype=np.float32)
        self._hidden = [(w, b, np.zeros(w.shape[1], dtype=np.float32))
                        for w, b in self.layers[:-1]]

    @classmethod
    def load(cls, path: str | Path) -> ValueNet:
        """From ``name.npz`` and ``name.json`` (the manifest); the arrays are checked
        against the manifest's hash."""
        npz = Path(path).with_suffix(".npz")
        manifest = Manifest.read(npz.with_suffix(".json"))
        try:
            raw = npz.read_bytes()
        except OSError as exc:
            raise ValueNetError(f"cannot read the value network {npz}: {exc}") from exc
        if hashlib.sha256(raw).hexdigest() != manifest.weights_sha256:
            raise ValueNetError(f"{npz} does not match its manifest (hash differs): the file "
                                "is damaged or was replaced without its manifest")
        with np.load(npz) as arrays:
            count = sum(1 for name in arrays.files if name.startswith("w"))
            weights = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(count)]
        return cls(weights, manifest)

    def features_for(self, state: GameState) -> Features:
        features = self._features.get(id(state.world))
        if features is None or features.world is not state.world:
            self.manifest.check(state.config)
            features = self._features[id(state.world)] = Features(
                state.config, state.world, self.manifest.features)
        return features

    def predict(self, rows: NDArray[np.float32]) -> NDArray[np.float32]:
        """Win probabilities per relative seat for a batch of feature rows."""
        h = rows
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        out: NDArray[np.float32] = (1.0 / (1.0 + np.exp(-h))).astype(np.float32)
        return out

    def win_probabilities(self, state: GameState, seat: int | None = None) -> list[float]:
        """Every seat's chance that its side wins, judged from ``seat``'s view (default: the
        seat to decide); exact once the game is over."""
        if state.result is not None:
            return evaluate(state)  # the result itself: 1 / 0, 1/2 each for a draw
        n = state.n
        observer = state.pending.seat if seat is None else seat
        features = self.features_for(state)
        row = self._row
        features.write(state, observer, row)
        h = row
        for w, b, buf in self._hidden:  # one row at a time: into buffers, no allocation
            np.dot(h, w, out=buf)
            buf += b
            np.maximum(buf, 0.0, out=buf)
            h = buf
        w, b = self.layers[-1]
        relative = (h @ w + b).tolist()
        out = [0.0] * n
        for i, logit in enumerate(relative):
            out[(observer + i) % n] = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))
        return out


_LOADED: dict[str, ValueNet] = {}
_THREADPOOLS: list[Any] = []  # threadpoolctl's controller, made at the first search


def one_blas_thread() -> AbstractContextManager[Any]:
    """Within it, NumPy's matrix products run on one thread. A leaf is one feature row, too
    small to share out, and OpenBLAS's threads (one per core by default) fight the other
    games and bots on the same cores: on a busy 2-core machine a first-layer product took
    150 us threaded and 46 us on one thread, and whole searches ran 2-3 times fewer
    iterations (docs/value.md, "Speed")."""
    if not _THREADPOOLS:
        from threadpoolctl import ThreadpoolController

        _THREADPOOLS.append(ThreadpoolController())
    limit: AbstractContextManager[Any] = _THREADPOOLS[0].limit(limits=1, user_api="blas")
    return limit


def shipped_path(players: int) -> Path:
    return SHIPPED / f"value-{players}p.npz"


def load_for(config: Config, path: str | Path | None = None) -> ValueNet:
    """The network that judges games of ``config``: ``path`` or the shipped one for its
    player count, loaded once per process; ValueNetError when none serves ``config``."""
    file = Path(path) if path is not None else shipped_path(config.players)
    key = str(file.resolve())
    net = _LOADED.get(key)
    if net is None:
        if not file.with_suffix(".json").is_file():
            shipped = sorted(p.stem for p in SHIPPED.glob("value-*.json"))
            raise ValueNetError(f"no value network for {config.players} players ({file.name} "
                                f"is missing; shipped: {', '.join(shipped) or 'none'})")
        net = _LOADED[key] = ValueNet.load(file)
    net.manifest.check(config)
    return net
