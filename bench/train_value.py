"""Rebuild the expert bot's value network from scratch by expert iteration (docs/value.md).

    .venv/bin/python bench/train_value.py --players 2 --out runs/value-2p --ship

Resumable: run the same command again after an interruption and it goes on from the last
finished stage (or epoch). Prints the learning curve and writes curve.csv and curve.png in
the run directory; ``--ship`` copies the last generation into the package
(src/kaladan/expert/data/value-Np.npz and .json). Needs ``kaladan[train]`` (PyTorch).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from dataclasses import fields
from pathlib import Path

from kaladan.learn.value_train import Trainer, TrainError, TrainSettings, ship

DATA = Path(__file__).resolve().parents[1] / "src/kaladan/expert/data"


def cpu_seconds() -> float:
    """User and system time of this process and of its finished worker processes."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the run directory")
    parser.add_argument("--ship", action="store_true", help="copy the result into the package")
    defaults = TrainSettings()
    for f in fields(TrainSettings):
        value = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, tuple):
            parser.add_argument(flag, type=type(value[0]), nargs="+", default=list(value))
        else:
            parser.add_argument(flag, type=type(value), default=value)
    args = parser.parse_args(argv)
    values = {f.name: getattr(args, f.name) for f in fields(TrainSettings)}
    values["hidden"] = tuple(values["hidden"])
    values["modes"] = tuple(values["modes"])
    settings = TrainSettings(**values)
    started = time.perf_counter()
    try:
        trainer = Trainer(settings, args.out, log=lambda line: print(line, flush=True))
        net = trainer.run()
    except TrainError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"done in {time.perf_counter() - started:.0f} s, {cpu_seconds():.0f} s of CPU "
          f"(this process and its workers): {net}")
    for row in trainer.curve():
        if row["win_rate"]:
            print(f"generation {row['generation']}: win rate {float(row['win_rate']):.1%} "
                  f"[{float(row['low']):.1%}, {float(row['high']):.1%}] of {row['games']}")
    if args.ship:
        print(f"shipped as {ship(net, settings.players, DATA)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
