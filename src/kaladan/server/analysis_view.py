"""A finished game's analysis as the API answers it (run in a search worker, ``analyses``):
``kaladan.analysis``'s JSON, each costly decision's two moves also described as a page
describes an action (its kind, the values of its fields and the catalogue key of its words),
so the browser says them in the reader's language.

Imports the engine and the analysis only, not the web stack: a worker starts light.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..analysis import analyse, states_of
from ..record import replay
from ..rules.kinds import SPECS, parse_action
from ..rules.offer import label
from ..rules.state import GameState
from .choices import args


def described(text: str, state: GameState) -> dict[str, Any]:
    """An action of ``state``'s pending decision by its text, as a page describes it."""
    action = parse_action(text, state)
    return {"text": text, "kind": action.kind.value, "args": args(action, state),
            "label": label(SPECS[action.kind], action, state.pending.kind)}


def analysis_json(record: Mapping[str, Any], iterations: int) -> str:
    """The API's analysis of ``record``'s finished game (canonical JSON text)."""
    data = analyse(record, iterations).to_json()
    states = states_of(replay(record))
    for costly in data["costly"]:
        for item in costly:
            state = states[item["version"]]
            item["played_action"] = described(item["played"], state)
            item["better_action"] = described(item["better"], state)
    return json.dumps(data, sort_keys=True, separators=(",", ":"))
