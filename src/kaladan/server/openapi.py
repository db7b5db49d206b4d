"""The OpenAPI description of ``/openapi.json``: FastAPI's, made to say exactly what the
server does (docs/api.md "OpenAPI").

- No FastAPI validation error (422 ``HTTPValidationError``): the server answers every
  validation error 400 in its own shape (``ErrorBody``), and 422 only for an illegal action.
- The create request as strict as the server: ruleset options and their values (R3.3) as
  enums, the number of seats per mode (R23.1), and what this server's settings refuse (games
  without a human seat, a chosen seed with two or more human seats, the length of a name,
  the ppo seat without a policy).
- The seat token as a bearer security scheme, the signed-in player's session cookie with
  its CSRF header as the other (sessions.py), and the 401 (with its ``WWW-Authenticate``
  challenge) of an operation that needs one; links from a created game to joining its seats
  and from a joined seat to its view and decisions, so a client (or stateful testing) can
  follow a game from the schema alone. A link sets no ``Authorization``: OpenAPI links fill
  an operation's parameters, and the token is a security scheme's, not a parameter.
- ``Cache-Control: no-store`` on every answer (``nostore.py``, installed by ``create_app``
  outside the limits and security checks, so their refusals say it too).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from ..rules.config import OPTIONS
from .models import ERROR_STATUSES, seat_pattern
from .service import HUMAN
from .settings import ServerSettings

TOKEN_SCHEME = "seatToken"
SESSION_SCHEME = "sessionCookie"
CSRF_SCHEME = "csrfToken"
# the signed-in player's operations (writes: with the CSRF header)
NEEDS_SESSION = ("signOut", "signOutEverywhere", "updateAccount", "changePassword",
                 "deleteAccount")
SEATS_PER_MODE = {"team_2v2": 4, "team_3v3": 6}  # R23.1; free_for_all: 2 to 6
_HUMAN = {"const": "human"}
# a seat's token or the session (the chat's writes: a seat's, or a signed-in spectator's)
NEEDS_TOKEN = ("act", "getLegal", "getOdds", "getHint", "rematch", "sendChat", "muteChat",
               "takeBack", "handOverSeat")
# with the session: its CSRF header too
WRITES = ("act", "rematch", "sendChat", "muteChat", "takeBack", "handOverSeat")
OPTIONAL_TOKEN = ("getView", "getChat", "getRematch")  # none: a spectator
NO_STORE = {"description": "no answer of the API is for a cache: codes, tokens, a seat's "
            "view", "required": True, "schema": {"type": "string", "const": "no-store"}}
CHALLENGE = {"description": "the bearer challenge (RFC 6750 section 3)", "required": True,
             "schema": {"type": "string", "pattern": "^Bearer( |$)"}}


def install_openapi(app: FastAPI, settings: ServerSettings) -> None:
    """Make ``app.openapi()`` return ``refine``d FastAPI's description, built once."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version,
                                 description=app.description, routes=app.routes)
            app.openapi_schema = refine(schema, settings)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def refine(schema: dict[str, Any], settings: ServerSettings) -> dict[str, Any]:
    """``schema`` (FastAPI's) as the server behaves with ``settings``; changed in place."""
    components = schema.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            responses = operation.get("responses", {})
            if "HTTPValidationError" in str(responses.get("422", "")):
                del responses["422"]
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    _strict_create(schemas["CreateGame"], settings)
    components["securitySchemes"] = {
        TOKEN_SCHEME: {"type": "http", "scheme": "bearer",
                       "description": "a seat's token, from joining the seat (handed out "
                       "once)"},
        SESSION_SCHEME: {"type": "apiKey", "in": "cookie", "name": "kaladan_session",
                         "description": "a signed-in player's session (POST /api/session); "
                         "named __Host-kaladan_session over HTTPS. It stands for the seat "
                         "the player sits at"},
        CSRF_SCHEME: {"type": "apiKey", "in": "header", "name": "X-CSRF-Token",
                      "description": "the session's CSRF token (GET /api/session), sent "
                      "with every write the session cookie authenticates"}}
    operations = {op["operationId"]: op for path in schema["paths"].values()
                  for op in path.values()}
    session_write: dict[str, list[str]] = {SESSION_SCHEME: [], CSRF_SCHEME: []}
    for operation_id in NEEDS_SESSION:
        operations[operation_id]["security"] = [session_write]
    operations["getSession"]["security"] = [{SESSION_SCHEME: []}]
    operations["claimSeat"]["security"] = [{TOKEN_SCHEME: [], **session_write}]
    for operation_id in NEEDS_TOKEN:
        operation = operations[operation_id]
        operation["security"] = [{TOKEN_SCHEME: []}, session_write if operation_id in WRITES
                                 else {SESSION_SCHEME: []}]
        operation["responses"]["401"] = {
            "description": ERROR_STATUSES[401], "headers": {"WWW-Authenticate": CHALLENGE},
            "content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/ErrorBody"}}}}
        operation["responses"] = dict(sorted(operation["responses"].items()))
    for operation_id in OPTIONAL_TOKEN:  # none: a spectator
        operations[operation_id]["security"] = [{}, {TOKEN_SCHEME: []}, {SESSION_SCHEME: []}]
    for item in schema["paths"].values():
        for method, operation in item.items():
            # any write may meet a session cookie without its CSRF token, or a page of
            # another site signing in (sessions.py): 403 csrf_failed
            if method in ("post", "put", "patch", "delete"):
                responses = operation["responses"]
                responses.setdefault("403", {
                    "description": ERROR_STATUSES[403], "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/ErrorBody"}}}})
                operation["responses"] = dict(sorted(responses.items()))
    for path, item in schema["paths"].items():
        for operation in item.values():
            for response in operation["responses"].values():
                if path.startswith("/api/"):
                    response.setdefault("headers", {})["Cache-Control"] = NO_STORE
    _links(operations)
    return schema


def _strict_create(create: dict[str, Any], settings: ServerSettings) -> None:
    properties = create["properties"]
    properties["options"] = {
        "type": "object", "title": "Options", "maxProperties": len(OPTIONS),
        "additionalProperties": False, "description": properties["options"]["description"],
        # world=custom is what a ``world`` object implies; without one it is refused.
        "properties": {name: {"enum": [v for v in values if (name, v) != ("world", "custom")]}
                       for name, values in OPTIONS.items()}}
    properties["name"]["maxLength"] = min(properties["name"]["maxLength"], settings.max_name)
    pattern = seat_pattern(ppo=settings.ppo_policy is not None)  # "ppo" with a policy only
    properties["seats"]["items"]["pattern"] = pattern
    rules: list[dict[str, Any]] = [{"anyOf": [
        {"properties": {"mode": {"const": "free_for_all"}}},
        *({"required": ["mode"], "properties": {
            "mode": {"const": mode}, "seats": {"minItems": count, "maxItems": count}}}
          for mode, count in SEATS_PER_MODE.items())]}]
    if not settings.bot_games:
        properties["seats"]["contains"] = _HUMAN
    if not settings.any_seed:  # a seed fixes every hand: the server's own with two people
        seeded: list[dict[str, Any]] = [
            {"properties": {"seed": {"type": "null"}}},
            {"properties": {"seats": {"contains": _HUMAN, "maxContains": 1}}}]
        if settings.bot_games:  # or no person at all
            seeded.append({"properties": {"seats": {"items": {
                "pattern": pattern.replace(f"{HUMAN}|", "")}}}})
        rules.append({"anyOf": seeded})
    # a rated game: the server's seed, no advice, a human seat (service.create)
    rules.append({"if": {"required": ["rated"], "properties": {"rated": {"const": True}}},
                  "then": {"properties": {"seed": {"type": "null"},
                                          "hints": {"not": {"const": True}},
                                          "seats": {"contains": _HUMAN}}}})
    create["allOf"] = rules


def _links(operations: dict[str, dict[str, Any]]) -> None:
    """OpenAPI links: created game -> its first human seat's join (and its summary, view and
    record); joined seat -> its view, its legal list and its decision (the client adds the
    token); a legal list -> its first action at the list's version. A link's request body
    names every field, so a follower sends exactly that decision."""
    game = "$response.body#/game_id"
    created = operations["createGame"]["responses"]["201"]
    created["links"] = {
        "JoinFirstSeat": {"operationId": "joinSeat", "parameters": {
            "game_id": game, "seat": "$response.body#/join/0/seat"},
            "requestBody": {"code": "$response.body#/join/0/code"},
            "description": "join the first human seat with its one-time code"},
        "GetGame": {"operationId": "getGame", "parameters": {"game_id": game}},
        "WatchGame": {"operationId": "getView", "parameters": {"game_id": game},
                      "description": "the spectator's view"},
        "GetRecord": {"operationId": "getRecord", "parameters": {"game_id": game}},
    }
    game_of_request = {"game_id": "$request.path.game_id"}
    with_token = "with the token as 'Authorization: Bearer <token>'"
    joined = operations["joinSeat"]["responses"]["200"]
    joined["links"] = {
        "SeatView": {"operationId": "getView", "parameters": game_of_request,
                     "description": f"the seat's view, {with_token}"},
        "SeatLegal": {"operationId": "getLegal", "parameters": game_of_request,
                      "description": f"the seat's whole legal list, {with_token}"},
        "Act": {"operationId": "act", "parameters": game_of_request,
                "description": f"the seat's decision (the first legal one: index 0), "
                f"{with_token}", "requestBody": {"index": 0, "action": None, "version": None}},
    }
    listed = operations["getLegal"]["responses"]["200"]
    listed["links"] = {
        "ActFirst": {"operationId": "act", "parameters": game_of_request,
                     "description": "the first action of the list (index 0) at the list's "
                     "version, with the same token", "requestBody": {
                         "index": 0, "action": None, "version": "$response.body#/version"}},
    }


MARK_BEGIN = "<!-- operations: generated from /openapi.json (kaladan.server.openapi) -->"
MARK_END = "<!-- end of operations -->"


def operations_table(schema: dict[str, Any]) -> str:
    """The table of operations and the statuses each answers, as docs/api.md shows it
    between ``MARK_BEGIN`` and ``MARK_END`` (a test holds the two equal)."""
    lines = [MARK_BEGIN, "", "| operation | id | token | answers |", "|---|---|---|---|"]
    meanings: dict[str, str] = {}
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if status >= "400":
                    meanings.setdefault(status, response["description"])
            security = operation.get("security")
            token = "-" if security is None else ("optional" if {} in security else "required")
            answers = ", ".join(sorted(operation["responses"]))
            lines.append(f"| `{method.upper()} {path}` | `{operation['operationId']}` | "
                         f"{token} | {answers} |")
    lines += ["", "Every error answer is an `ErrorBody`:", "", "| status | when (codes) |",
              "|---|---|"]
    lines += [f"| {status} | {meanings[status]} |" for status in sorted(meanings)]
    lines += ["", MARK_END]
    return "\n".join(lines)
