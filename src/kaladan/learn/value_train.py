"""Expert iteration for the value network (``bench/train_value.py``; docs/value.md).

Generation 0 learns from self-play games of the greedy and mcts bots (``kaladan selfplay``
data: each game's seed and action indices); generation g > 0 from games of the expert bot
judging with generation g - 1. Every generation:

1. **games**: a ``sim.selfplay`` run, saved as ``selfplay-G-K.npz`` (its hash goes into the
   manifest);
2. **positions**: the games replayed; a seeded share of the positions with a choice (``keep``
   of the many cheap greedy games, ``keep_search`` of the searching bots') becomes feature
   rows from the deciding seat's view (``value.Features``) with every relative seat's
   result (1 win, 0 loss, 1/2 draw) as targets: ``data-G.npz``;
3. **training**: a multilayer perceptron (PyTorch, seeded, ``jobs`` threads) on the rows of
   the last ``window`` generations, warm-started from the previous generation, binary cross
   entropy per seat, 10% of the games held out for the value loss; a checkpoint after every
   epoch (``gen-G.pt``);
4. **export**: ``gen-G.npz`` (the arrays) and ``gen-G.json`` (the manifest);
5. **evaluation**: the expert with ``gen-G`` against ``mcts`` at equal time per decision,
   seats rotated over paired seeds (``sim.matches``).

Each stage writes its file atomically and is skipped when its file exists, so a run
interrupted at any point resumes where it stopped (with the same settings; a run directory
refuses others). The learning curve (per epoch the losses, per generation the win rate and
its interval) is ``curve.csv`` and ``curve.png``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import shutil
import time
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..expert.value import (
    FEATURES_VERSION,
    FORMAT,
    LAYOUTS,
    Features,
    Manifest,
    serving_key,
)
from ..rules.config import Config, Mode
from ..rules.errors import KaladanError
from ..rules.setup import new_game
from ..sim import selfplay
from ..sim.matches import play_match

SCRIPT_VERSION = 1
_DATE = (1980, 1, 1, 0, 0, 0)
Log = Callable[[str], None]


class TrainError(KaladanError):
    """A training run that cannot go on: a message for the user."""


@dataclass(frozen=True)
class TrainSettings:
    players: int = 2
    modes: tuple[str, ...] = ("free_for_all",)  # one network serves all of them
    seed: int = 1
    generations: int = 2  # generation 0 and its successors (a third did not play better)
    greedy_games: int = 20000  # generation 0: greedy against greedy (cheap: 2 ms a game)
    mcts_games: int = 300  # generation 0: mcts against itself
    mcts_iterations: int = 24
    games: int = 800  # each later generation: the expert against itself
    expert_iterations: int = 40
    keep: float = 0.1  # share of the greedy games' positions with a choice kept as rows
    keep_search: float = 1.0  # the same for games of searching bots (fewer, dearer)
    window: int = 2  # generations of rows a generation trains on
    hidden: tuple[int, ...] = (256, 128)
    epochs: int = 8
    batch: int = 512
    lr: float = 1e-3
    weight_decay: float = 1e-4
    max_steps: int = 0  # > 0: stop each generation's training after this many steps (smoke)
    # The feature layout the network reads (``value.LAYOUTS``); the newest by default. The
    # shipped 4-player network reads layout 1.
    features: int = FEATURES_VERSION
    eval_games: int = 40
    eval_time: float = 0.1
    jobs: int = 2

    def config(self) -> Config:
        """The configuration of the evaluation games: the first mode."""
        return self.configs()[0]

    def configs(self) -> list[Config]:
        return [Config(players=self.players, mode=Mode(mode)) for mode in self.modes]

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["hidden"] = list(self.hidden)
        out["modes"] = list(self.modes)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainSettings:
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {k: (tuple(v) if k in ("hidden", "modes") else v)
                                  for k, v in data.items() if k in known}
        return cls(**values)


# --- files -------------------------------------------------------------------------------


def _atomic(path: Path, write: Callable[[Path], object]) -> None:
    tmp = path.with_name(path.stem + ".part" + path.suffix)  # savers read the suffix
    write(tmp)
    os.replace(tmp, path)


def _save_arrays(path: Path, arrays: dict[str, NDArray[Any]]) -> None:
    """An ``.npz`` with fixed member dates: the same arrays give the same bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, value in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            with zf.open(info, "w") as member:
                np.lib.format.write_array(member, np.ascontiguousarray(value),
                                          allow_pickle=False)


def _saver(torch: Any, state: dict[str, Any]) -> Callable[[Path], None]:
    """``torch.save`` of ``state`` to a path given later (``_atomic``)."""
    def save(path: Path) -> None:
        torch.save(state, path)
    return save


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- positions ---------------------------------------------------------------------------


def outcome_targets(outcome: tuple[int, ...], seat: int) -> list[float]:
    """Every relative seat's result seen from ``seat``: 1 win, 0 loss, 1/2 draw."""
    n = len(outcome)
    return [(outcome[(seat + i) % n] + 1) / 2.0 for i in range(n)]


def rows_of(data: selfplay.SelfPlayData, keep: float, seed: int,
            layout: int = FEATURES_VERSION
            ) -> tuple[NDArray[np.float16], NDArray[np.float32], NDArray[np.int32]]:
    """Feature rows (of feature ``layout``), targets and game numbers of a seeded ``keep``
    share of the positions with more than one legal action."""
    config = data.config
    features = Features(config, new_game(config, 0).world, layout)
    rng = random.Random(seed)
    rows: list[NDArray[np.float32]] = []
    targets: list[list[float]] = []
    games: list[int] = []
    row = np.zeros(features.size, dtype=np.float32)
    for game in range(data.games):
        result = tuple(int(v) for v in data.outcome[game])
        for _, state, legal in data.replay(game):
            if len(legal) < 2 or rng.random() >= keep:
                continue
            seat = state.pending.seat
            features.write(state, seat, row)
            rows.append(row.astype(np.float16))
            targets.append(outcome_targets(result, seat))
            games.append(game)
    return (np.stack(rows) if rows else np.zeros((0, features.size), np.float16),
            np.asarray(targets, dtype=np.float32).reshape(-1, config.players),
            np.asarray(games, dtype=np.int32))


class Trainer:
    """One run directory: the stages of every generation (module docstring)."""

    def __init__(self, settings: TrainSettings, out: Path, log: Log = print) -> None:
        if settings.features not in LAYOUTS:
            raise TrainError(f"--features {settings.features}: this kaladan writes feature "
                             f"layouts {', '.join(map(str, LAYOUTS))}")
        self.settings = settings
        self.out = out
        self.log = log
        self.config = settings.config()
        out.mkdir(parents=True, exist_ok=True)
        stored = out / "settings.json"
        previous = (TrainSettings.from_json(json.loads(stored.read_text()))
                    if stored.exists() else None)
        if previous is not None:
            # More (or fewer) generations continue the same run: no stage before changes.
            if replace(previous, generations=settings.generations) != settings:
                raise TrainError(f"{out} holds a run with other settings ({stored}): resume it "
                                 "with the same settings (--generations may differ) or train "
                                 "into another directory")
            if previous.generations != settings.generations:
                log(f"{out}: continuing to {settings.generations} generations "
                    f"(was {previous.generations})")
        if previous != settings:
            text = json.dumps(settings.to_json(), indent=2) + "\n"
            _atomic(stored, lambda tmp: tmp.write_text(text))

    # --- stage 1 and 2 ---------------------------------------------------------------------

    def games_of(self, generation: int) -> list[tuple[Config, list[str], int]]:
        """The self-play runs of a generation: (configuration, bots, games), every mode
        sharing the generation's games evenly."""
        s = self.settings
        n = s.players
        runs = []
        modes = len(s.modes)
        for config in s.configs():
            if generation == 0:
                runs.append((config, ["greedy"] * n, s.greedy_games // modes))
                if s.mcts_games:
                    runs.append((config, [f"mcts:iterations={s.mcts_iterations}"] * n,
                                 s.mcts_games // modes))
            else:
                net = self.out / f"gen-{generation - 1}.npz"
                runs.append((config, [f"expert:iterations={s.expert_iterations},net={net}"] * n,
                             s.games // modes))
        return [run for run in runs if run[2] > 0]

    def positions(self, generation: int) -> Path:
        path = self.out / f"data-{generation}.npz"
        if path.exists():
            return path
        s = self.settings
        parts: list[tuple[NDArray[np.float16], NDArray[np.float32], NDArray[np.int32]]] = []
        hashes = []
        offset = 0
        for k, (config, bots, count) in enumerate(self.games_of(generation)):
            games_file = self.out / f"selfplay-{generation}-{k}.npz"
            seed = s.seed * 1000 + generation * 10 + k
            if not games_file.exists():
                started = time.perf_counter()
                self.log(f"generation {generation}: {count} games of {bots[0]} ...")
                data = selfplay.generate(config, bots, seed, games=count, jobs=s.jobs)
                _atomic(games_file, data.save)
                self.log(f"  {data.games} games, {len(data)} decisions in "
                         f"{time.perf_counter() - started:.0f} s")
            data = selfplay.load(games_file)
            hashes.append(_sha256(games_file))
            keep = s.keep if bots[0] == "greedy" else s.keep_search
            x, y, g = rows_of(data, keep, seed, s.features)
            parts.append((x, y, g + offset))
            offset += data.games
        x = np.concatenate([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        g = np.concatenate([p[2] for p in parts])
        self.log(f"generation {generation}: {len(x)} positions")
        _atomic(path, lambda tmp: _save_arrays(tmp, {
            "x": x, "y": y, "game": g, "hashes": np.asarray(hashes)}))
        return path

    # --- stage 3 and 4 ---------------------------------------------------------------------

    def train(self, generation: int) -> Path:
        npz = self.out / f"gen-{generation}.npz"
        if npz.exists() and npz.with_suffix(".json").exists():
            return npz
        import torch  # training only: kaladan[train]
        from torch import nn

        s = self.settings
        torch.manual_seed(s.seed * 100 + generation)
        torch.set_num_threads(max(1, s.jobs))
        xs, ys, gs, hashes = [], [], [], []
        for g in range(max(0, generation - s.window + 1), generation + 1):
            with np.load(self.positions(g)) as data:
                xs.append(data["x"])
                ys.append(data["y"])
                gs.append(data["game"].astype(np.int64) + 1_000_000 * g)
                hashes += [str(h) for h in data["hashes"]]
        x = torch.from_numpy(np.concatenate(xs))  # float16: converted a batch at a time
        y = torch.from_numpy(np.concatenate(ys))
        games = np.concatenate(gs)
        held = torch.from_numpy((games * 2654435761 % 10) == 0)  # 10% of the games
        x_train, y_train = x[~held], y[~held]
        x_val, y_val = x[held], y[held]
        sizes = [x.shape[1], *s.hidden, s.players]
        layers: list[nn.Module] = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:
                layers.append(nn.ReLU())
        model = nn.Sequential(*layers)
        previous = self.out / f"gen-{generation - 1}.pt"
        checkpoint = self.out / f"gen-{generation}.pt"
        optimizer = torch.optim.Adam(model.parameters(), lr=s.lr, weight_decay=s.weight_decay)
        first_epoch = 0
        best: tuple[float, dict[str, Any]] = (float("inf"), {})  # the held-out loss decides
        if checkpoint.exists():  # resume within the generation
            saved = torch.load(checkpoint, weights_only=False)
            model.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            first_epoch = saved["epoch"] + 1
            best = (saved["best_loss"], saved["best"])
            torch.set_rng_state(saved["rng"])
        elif previous.exists():  # warm start from the previous generation's kept epoch
            before = torch.load(previous, weights_only=False)
            model.load_state_dict(before["best"] or before["model"])
        loss_fn = nn.BCEWithLogitsLoss()
        steps = 0
        for epoch in range(first_epoch, s.epochs):
            started = time.perf_counter()
            model.train()
            order = torch.randperm(len(x_train))
            total = 0.0
            batches = 0
            for i in range(0, len(order), s.batch):
                idx = order[i:i + s.batch]
                optimizer.zero_grad()
                loss = loss_fn(model(x_train[idx].float()), y_train[idx])
                loss.backward()
                optimizer.step()
                total += loss.item()
                batches += 1
                steps += 1
                if s.max_steps and steps >= s.max_steps:
                    break
            model.eval()
            with torch.no_grad():
                val = (sum(float(loss_fn(model(x_val[i:i + 8192].float()), y_val[i:i + 8192]))
                           * len(y_val[i:i + 8192]) for i in range(0, len(x_val), 8192))
                       / len(x_val)) if len(x_val) else float("nan")
            train_loss = total / max(1, batches)
            self.log(f"generation {generation} epoch {epoch}: train loss {train_loss:.4f}, "
                     f"value loss {val:.4f} ({len(x_train)} rows, "
                     f"{time.perf_counter() - started:.0f} s)")
            self._curve({"generation": generation, "epoch": epoch, "train_loss": train_loss,
                         "value_loss": val, "rows": len(x_train)})
            if not val >= best[0]:  # a NaN (no held-out rows) keeps the last epoch
                best = (val, {k: v.clone() for k, v in model.state_dict().items()})
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "epoch": epoch, "rng": torch.get_rng_state(), "best_loss": best[0],
                     "best": best[1]}
            _atomic(checkpoint, _saver(torch, state))
            if s.max_steps and steps >= s.max_steps:
                break
        if best[1]:
            model.load_state_dict(best[1])
            self.log(f"generation {generation}: kept the epoch with value loss {best[0]:.4f}")
        linear = [m for m in model if isinstance(m, nn.Linear)]
        arrays: dict[str, NDArray[Any]] = {}
        for i, m in enumerate(linear):
            arrays[f"w{i}"] = m.weight.detach().numpy().T.astype(np.float32)
            arrays[f"b{i}"] = m.bias.detach().numpy().astype(np.float32)
        _atomic(npz, lambda tmp: _save_arrays(tmp, arrays))
        data_hash = hashlib.sha256("".join(sorted(hashes)).encode()).hexdigest()
        from .. import __version__

        manifest = Manifest(
            serves=tuple(serving_key(c) for c in s.configs()), features=s.features,
            input_size=int(x.shape[1]), weights_sha256=_sha256(npz),
            training={"script": f"train_value {SCRIPT_VERSION}", "kaladan": __version__,
                      "generation": generation, "data_sha256": data_hash,
                      "rows": int(len(x)), "settings": s.to_json(),
                      "rule_options": [c.to_json() for c in s.configs()]})
        json_path = npz.with_suffix(".json")
        _atomic(json_path, lambda tmp: tmp.write_text(
            json.dumps(manifest.to_json(), indent=2, sort_keys=True) + "\n"))
        assert manifest.to_json()["format"] == FORMAT
        return npz

    # --- stage 5 -----------------------------------------------------------------------------

    def evaluate(self, generation: int) -> None:
        s = self.settings
        if not s.eval_games or self._evaluated(generation):
            return
        net = self.out / f"gen-{generation}.npz"
        hero = f"expert:time={s.eval_time},net={net}"
        rival = f"mcts:time={s.eval_time}"
        result = play_match(self.config, hero, rival, s.eval_games, s.seed * 7 + generation,
                            jobs=s.jobs)
        self.log(f"generation {generation}: {result.line()}")
        self._curve({"generation": generation, "epoch": "", "win_rate": result.rate,
                     "low": result.low, "high": result.high, "games": result.games})

    _COLUMNS = ("generation", "epoch", "train_loss", "value_loss", "rows", "win_rate", "low",
                "high", "games")

    def _curve(self, row: dict[str, Any]) -> None:
        path = self.out / "curve.csv"
        new = not path.exists()
        with path.open("a", newline="") as f:
            writer = csv.DictWriter(f, self._COLUMNS)
            if new:
                writer.writeheader()
            writer.writerow(row)

    def curve(self) -> list[dict[str, str]]:
        path = self.out / "curve.csv"
        if not path.exists():
            return []
        with path.open(newline="") as f:
            return list(csv.DictReader(f))

    def _evaluated(self, generation: int) -> bool:
        return any(r["generation"] == str(generation) and r["win_rate"] for r in self.curve())

    def plot(self) -> Path | None:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            self.log("matplotlib is missing: no curve.png (install kaladan[train])")
            return None
        rows = self.curve()
        losses = [r for r in rows if r["value_loss"]]
        wins = [r for r in rows if r["win_rate"]]
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
        left.plot(range(len(losses)), [float(r["value_loss"]) for r in losses], label="value")
        left.plot(range(len(losses)), [float(r["train_loss"]) for r in losses], label="train")
        left.set_xlabel("epoch (all generations)")
        left.set_ylabel("binary cross entropy")
        left.legend()
        if wins:
            gens = [int(r["generation"]) for r in wins]
            rate = [float(r["win_rate"]) for r in wins]
            low = [float(r["win_rate"]) - float(r["low"]) for r in wins]
            high = [float(r["high"]) - float(r["win_rate"]) for r in wins]
            right.errorbar(gens, rate, yerr=[low, high], marker="o", capsize=4)
            right.axhline(0.5, color="grey", linewidth=0.8)
        right.set_xlabel("generation")
        right.set_ylabel(f"win rate against mcts at {self.settings.eval_time} s")
        right.set_ylim(0, 1)
        fig.tight_layout()
        path = self.out / "curve.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        return path

    def run(self) -> Path:
        last = None
        for generation in range(self.settings.generations):
            self.positions(generation)
            last = self.train(generation)
            self.evaluate(generation)
        self.plot()
        assert last is not None
        return last


def ship(net: Path, players: int, into: Path) -> Path:
    """Copy a trained network and its manifest to ``into/value-Np.*`` (the package data)."""
    into.mkdir(parents=True, exist_ok=True)
    target = into / f"value-{players}p.npz"
    shutil.copyfile(net, target)
    shutil.copyfile(net.with_suffix(".json"), target.with_suffix(".json"))
    return target
