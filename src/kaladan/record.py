"""Game records: configuration, seed, every decision and chance outcome; and replay.

A record replays to the identical state: ``replay`` re-creates the game from the seed,
applies every decision and checks that each step's chance outcomes are the recorded ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .game import Game, Step, is_gift
from .rules.config import Config
from .rules.errors import ConfigError, FormatError, KaladanError
from .rules.notation import position_to_json

RECORD_FORMAT = "kaladan-record"
RECORD_VERSION = 1


def position_digest(game: Game) -> str:
    """SHA-256 of the position (without the generator state, which forced replays do not
    advance): any divergence of a replay shows here even when the result is the same."""
    position = position_to_json(game.state)
    del position["rng"]
    text = json.dumps(position, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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
            "end": result.end, "winner": result.winner, "scores": result.scores,
            **({} if result.team is None else {"team": result.team})},
        "final": position_digest(game),
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
    except ConfigError as exc:
        raise FormatError(f"record has an invalid configuration: {exc}") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(f"malformed record: {exc!r}") from exc
    try:
        game = Game.new(config, seed)
    except ConfigError as exc:
        raise FormatError(f"record has an invalid configuration: {exc}") from exc
    if use_seed and list(game.setup_chance) != setup_chance:
        raise ReplayError("setup chance differs from the record")
    for i, (seat, text, chance) in enumerate(steps):
        if game.state.pending.seat != seat and not is_gift(text):  # gifts: R23.11
            raise ReplayError(f"step {i} ({text!r}): the record says seat {seat}, but seat "
                              f"{game.state.pending.seat} is to decide")
        try:
            game.play(text, seat, () if use_seed else chance)
            step: Step = game.steps[-1]
        except KaladanError as exc:
            raise ReplayError(f"step {i} ({text!r}) cannot be replayed: {exc}") from exc
        if list(step.chance) != chance:
            raise ReplayError(f"step {i} ({text!r}): chance {list(step.chance)} differs from "
                              f"the recorded {chance}")
    expected = record.get("result")
    actual = to_record(game)["result"]
    if expected != actual:
        raise ReplayError(f"the replay ends with {actual}, the record says {expected}")
    if "final" in record and record["final"] != position_digest(game):
        raise ReplayError("the replay ends in another position than the record "
                          "(final digest differs): some step was changed")
    return game


def final_position(game: Game) -> dict[str, Any]:
    return position_to_json(game.state)
