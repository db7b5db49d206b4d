"""Game records: configuration, seed, every decision and chance outcome; and replay.

A record replays to the identical state: ``replay`` re-creates the game from the seed,
applies every decision and checks that each step's chance outcomes are the recorded ones.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .game import Game, Step
from .rules.config import Config
from .rules.errors import FormatError, KaladanError
from .rules.notation import position_to_json

RECORD_FORMAT = "kaladan-record"
RECORD_VERSION = 1


def to_record(game: Game) -> dict[str, Any]:
    state = game.state
    result = state.result
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "config": game.config.to_json(),
        "seed": game.seed,
        "setup_chance": list(game.setup_chance),
        "steps": [{"seat": s.seat, "action": s.action, "chance": list(s.chance)}
                  for s in game.steps],
        "result": None if result is None else {
            "end": result.end, "winner": result.winner, "scores": result.scores},
    }


def dumps(record: Mapping[str, Any]) -> str:
    """Canonical text of a record: one top-level field or step per line, so diffs stay short."""
    lines = [f" {json.dumps(key)}: {json.dumps(value)}" for key, value in record.items()
             if key != "steps"]
    steps = ",\n  ".join(json.dumps(step) for step in record["steps"])
    lines.append(f' "steps": [\n  {steps}\n ]')
    return "{\n" + ",\n".join(lines) + "\n}\n"


class ReplayError(KaladanError):
    """The record does not replay to what it says (wrong seat, other chance, other result)."""


def replay(record: Mapping[str, Any], use_seed: bool = True) -> Game:
    """Replay a record. With ``use_seed`` chance comes from the seed and is compared with the
    recorded outcomes; otherwise the recorded outcomes are forced."""
    if not isinstance(record, Mapping) or record.get("format") != RECORD_FORMAT:
        raise FormatError("not a kaladan game record (format must be 'kaladan-record')")
    if record.get("version") != RECORD_VERSION:
        raise FormatError(f"unsupported record version {record.get('version')!r}")
    try:
        config = Config.from_json(record["config"])
        seed = int(record["seed"])
        steps = [(int(s["seat"]), str(s["action"]), [int(x) for x in s["chance"]])
                 for s in record["steps"]]
        setup_chance = [int(x) for x in record.get("setup_chance", [])]
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(f"malformed record: {exc!r}") from exc
    game = Game.new(config, seed)
    if use_seed and list(game.setup_chance) != setup_chance:
        raise ReplayError("setup chance differs from the record")
    for i, (seat, text, chance) in enumerate(steps):
        if game.state.pending.seat != seat:
            raise ReplayError(f"step {i} ({text!r}): the record says seat {seat}, but seat "
                              f"{game.state.pending.seat} is to decide")
        step: Step = game.play(text, seat, () if use_seed else chance)
        if list(step.chance) != chance:
            raise ReplayError(f"step {i} ({text!r}): chance {list(step.chance)} differs from "
                              f"the recorded {chance}")
    expected = record.get("result")
    actual = to_record(game)["result"]
    if expected != actual:
        raise ReplayError(f"the replay ends with {actual}, the record says {expected}")
    return game


def final_position(game: Game) -> dict[str, Any]:
    return position_to_json(game.state)
