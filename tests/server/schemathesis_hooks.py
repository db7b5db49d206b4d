"""Schemathesis hooks of ``test_openapi.py``'s run of the CLI (``SCHEMATHESIS_HOOKS``).

- The seat tokens the run gets by joining seats are its credentials from then on: a request
  about that game carries its token as explicit auth (``ignored_auth`` then checks that the
  server refuses the same request without it or with another).
- A custom world (R4.14) is playable or not by the rules (connected tiles, castle spots for
  the players), which no JSON Schema says: the run sends no world (``world`` null); custom
  worlds are tested with real layouts in test_server_lobby.py and test_openapi.py.
"""

from __future__ import annotations

import os
from typing import Any

import schemathesis

TOKENS: dict[str, str] = {}  # game id -> the token of a seat the run joined
CALLS = os.environ.get("KALADAN_CALLS")  # a file to note each call's operation and status in


@schemathesis.hook
def before_load_schema(context: Any, raw_schema: dict[str, Any]) -> None:
    create = raw_schema["components"]["schemas"]["CreateGame"]
    create["properties"]["world"] = {"type": "null"}


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    operation = case.operation.definition.raw.get("operationId")
    if operation == "joinSeat" and response.status_code == 200:
        TOKENS[str(case.path_parameters["game_id"])] = response.json()["token"]
    if CALLS:
        phase = str(case.meta.phase.name) if case.meta is not None else "?"
        with open(CALLS, "a", encoding="utf-8") as calls:
            calls.write(f"{phase} {operation} {response.status_code}\n")


@schemathesis.auth(refresh_interval=None)
class SeatToken:
    def get(self, case: Any, context: Any) -> str | None:
        return TOKENS.get(str((case.path_parameters or {}).get("game_id")))

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


# What a valid request may still be refused for, by what no schema can know: an action's
# text names this game's tiles and units and an index points into this moment's legal list
# (400 invalid_action, bad_index), and the rules decide what is allowed now (422).
STATE_REFUSALS = {"invalid_action", "bad_index", "illegal_action"}
# The value networks the server ships decide which games an expert seat (or a level playing
# it) can play: the player count, mode and world of the whole request (422).
BOT_REFUSALS = {"bot_cannot_play"}


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Keep every failure but a decision the game's state refuses (``STATE_REFUSALS``) and
    a bot seat no shipped network serves (``BOT_REFUSALS``; docs/api.md "OpenAPI")."""
    try:
        code = response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return True
    if failure.code == "ST202":
        operation = case.operation.definition.raw.get("operationId")
        return not ((operation == "act" and code in STATE_REFUSALS)
                    or (operation in ("createGame", "joinMatch") and code in BOT_REFUSALS))
    return True
