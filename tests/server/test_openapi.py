"""/openapi.json says exactly what the server does (issue 19).

Schemathesis's own command runs against a real uvicorn server with every check and every
phase, the stateful one included (links: create -> join -> view and act), on a fixed seed and
budget: no failure, and every game it made replays from storage to the same position. The
schema's parts are checked against the server's own rules: the seat pattern against the
registry's bot checks, the options against the ruleset, the per-mode and per-settings rules,
405 answers with ``Allow``, and docs/api.md's table against the schema.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import jsonschema  # type: ignore[import-untyped]
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from live_support import GENEROUS, LiveServer, sqlite_url
from pydantic import ValidationError
from security_support import assert_stored_games_replay, settle, watch_log

from kaladan.rules.config import OPTIONS
from kaladan.server import create_app
from kaladan.server.errors import METHODS, ApiError
from kaladan.server.models import ALWAYS, SEAT_PATTERN, CreateGame, upto
from kaladan.server.openapi import MARK_BEGIN, MARK_END, operations_table
from kaladan.server.service import BOT_LIMITS, check_bot_spec
from kaladan.server.settings import ServerSettings

HERE = Path(__file__).resolve().parent
API_MD = HERE.parents[1] / "docs" / "api.md"
SEED = 19
EXAMPLES = 15  # per operation and phase: about 25 s on a quiet core


def test_schemathesis_finds_no_failure_and_its_games_replay(tmp_path: Path) -> None:
    # As a public server: no bot games, the seeds of games with people drawn by the server.
    fuzz = replace(GENEROUS, bot_games=False, any_seed=False, bot_seconds=0.05)
    app = create_app(sqlite_url(tmp_path), fuzz, bot_delay=0, rate_limit=1e6)
    calls = tmp_path / "calls.txt"
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "schemathesis_hooks", "KALADAN_CALLS": str(calls),
           "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    # Scenarios long enough to go create -> join -> view -> act. The replay, analysis and
    # rematch endpoints answer finished games only, the chat changes no game, a hand-over's
    # code only moves a seat already played: the stateful phase leaves them to the others.
    (tmp_path / "schemathesis.toml").write_text(
        "[phases.stateful]\nmax-steps = 20\n\n[[operations]]\n"
        'include-operation-id = ["getReplay", "getRounds", "getAnalysis", "getChat", '
        '"sendChat", "muteChat", "getRematch", "rematch", "handOverSeat"]\n'
        "phases.stateful.enabled = false\n")
    with LiveServer(app) as server, watch_log() as log:
        run = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "run", f"{server.http}/openapi.json",
             "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
             "--seed", str(SEED), "--max-examples", str(EXAMPLES), "--no-color",
             "--request-timeout", "30"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
        settle(app)
        report = run.stdout + run.stderr
        assert run.returncode == 0, report[-6000:]
        assert re.search(r"✅ Stateful", report), report[-3000:]  # the phase ran and passed
        games, steps = assert_stored_games_replay(app)
    assert log.failures() == []
    assert games >= 3, report[-3000:]
    walked = Counter(calls.read_text(encoding="utf-8").splitlines())
    # The stateful phase followed the links: joined seats, read their views, made decisions.
    for call in ("stateful createGame 201", "stateful joinSeat 200", "stateful getView 200",
                 "stateful act 200"):
        assert walked[call], (call, walked)


def test_an_outside_audit_finds_only_what_no_schema_can_say(tmp_path: Path) -> None:
    """Schemathesis as anyone runs it: no hooks, no credentials, every check. What it may
    find is a custom world the rules refuse (R4.14) and an expert seat no shipped value
    network serves (docs/api.md "What no schema can say"); the 401s, integral numbers,
    links and headers it once found stay found."""
    fuzz = replace(GENEROUS, bot_games=False, any_seed=False, bot_seconds=0.05)
    app = create_app(sqlite_url(tmp_path), fuzz, bot_delay=0, rate_limit=1e6)
    report = tmp_path / "report.json"
    with LiveServer(app) as server, watch_log() as log:
        run = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "run", f"{server.http}/openapi.json",
             "--checks", "all", "--seed", str(SEED), "--max-examples", str(EXAMPLES),
             "--no-color",
             "--request-timeout", "30", "--report", "json", "--report-json-path", str(report)],
            cwd=tmp_path, env={k: v for k, v in os.environ.items()
                               if not k.startswith("SCHEMATHESIS")},
            capture_output=True, text=True, timeout=240)
        settle(app)
    text = run.stdout + run.stderr
    assert log.failures() == []
    summary = json.loads(report.read_text(encoding="utf-8"))
    assert summary["complete"] and summary["errors"] == [], text[-3000:]
    # a schema-valid request refused (in the stateful phase the operation goes unnamed) ...
    assert {f["code"] for f in summary["failures"]} <= {"ST202"}, text[-6000:]
    # ... each of them a world the rules refused or an expert seat no shipped network
    # serves, and nothing else
    assert text.count("Test Case ID") == (text.count('"rule":"R4.14"')
                                          + text.count('"code":"bot_cannot_play"')), text[-6000:]


# --- the parts of the schema ---------------------------------------------------------------


@pytest.fixture
def schema(client: TestClient) -> dict[str, Any]:
    spec: dict[str, Any] = client.get("/openapi.json").json()
    return spec


def test_every_operation_documents_its_errors_in_the_servers_shape(
        schema: dict[str, Any]) -> None:
    assert "HTTPValidationError" not in str(schema) and "ValidationError" not in str(schema)
    operations = [op for item in schema["paths"].values() for op in item.values()]
    # 14 of games (a seat's hand-over and a finished game's analysis too), 1 of clocks, 5 of
    # chat and rematch, 9 of accounts (3 more with a mail server), 2 of players, 5 of quick
    # match, my games and turn mails
    assert len(operations) == 36
    for operation in operations:
        statuses = {int(s) for s in operation["responses"]}
        assert set(ALWAYS) <= statuses, operation["operationId"]
        for status, response in operation["responses"].items():
            if int(status) >= 400:
                assert response["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/ErrorBody"}, (operation["operationId"], status)
    by_id = {op["operationId"]: op for op in operations}
    # 422 is the server's own refusal (an illegal action; a bot seat no network serves),
    # never FastAPI's validation error: an ErrorBody like every other
    assert "422" in by_id["act"]["responses"] and "422" in by_id["createGame"]["responses"]
    assert "422" not in by_id["getView"]["responses"]
    for operation in ("act", "getLegal", "getOdds", "getHint", "rematch", "sendChat",
                      "muteChat", "handOverSeat"):
        # the seat's token, or the session of the signed-in player sitting there
        session = {"sessionCookie": []}
        if operation in ("act", "rematch", "sendChat", "muteChat", "handOverSeat"):  # writes
            session["csrfToken"] = []
        assert by_id[operation]["security"] == [{"seatToken": []}, session]
        # RFC 6750 section 3: no token, 401 with the challenge
        challenge = by_id[operation]["responses"]["401"]["headers"]["WWW-Authenticate"]
        assert challenge["required"] and challenge["schema"]["pattern"] == "^Bearer( |$)"
    assert {op["operationId"] for op in operations if "401" in op["responses"]} == {
        "act", "getLegal", "getOdds", "getHint", "joinSeat", "claimSeat", "signIn",
        "getSession", "signOut", "signOutEverywhere", "updateAccount", "changePassword",
        "deleteAccount", "rematch", "sendChat", "muteChat", "takeBack", "joinMatch",
        "getMatch", "leaveMatch", "myGames", "handOverSeat"}
    for operation in ("signOut", "signOutEverywhere", "updateAccount", "changePassword",
                      "deleteAccount"):  # cookie writes need the CSRF header (403)
        assert by_id[operation]["security"] == [{"sessionCookie": [], "csrfToken": []}]
        assert "403" in by_id[operation]["responses"]
    for operation in operations:  # every answer, errors included: docs/api.md "Caching"
        for response in operation["responses"].values():
            assert response["headers"]["Cache-Control"]["schema"]["const"] == "no-store"
    assert schema["components"]["securitySchemes"]["seatToken"]["scheme"] == "bearer"
    links = by_id["createGame"]["responses"]["201"]["links"]
    assert links["JoinFirstSeat"]["requestBody"] == {"code": "$response.body#/join/0/code"}
    assert set(by_id["joinSeat"]["responses"]["200"]["links"]) == {"SeatView", "SeatLegal",
                                                                   "Act"}
    assert by_id["getLegal"]["responses"]["200"]["links"]["ActFirst"]["requestBody"] == {
        "index": 0, "action": None, "version": "$response.body#/version"}
    # A link fills parameters; the token is a security scheme's (OpenAPI 3.1, 4.8.12.1).
    for operation in operations:
        for response in operation["responses"].values():
            for link in response.get("links", {}).values():
                assert not any(name.startswith("header.") for name in link["parameters"])


def test_an_answer_the_schema_documents_is_the_one_the_server_sends(
        client: TestClient, schema: dict[str, Any]) -> None:
    error = {"$ref": "#/components/schemas/ErrorBody", "components": schema["components"]}
    validator = jsonschema.Draft202012Validator(error)
    for response in (client.get("/api/games?status=AAA"), client.get("/api/games/x" * 50),
                     client.get("/api/games/nothing/view"),
                     client.post("/api/games", json={"seats": ["", ""]}),
                     client.post("/api/games", json={"seats": ["human", "random"], "x": 1}),
                     client.get("/api/games", headers={"Host": "evil.example"})):
        assert response.status_code in (400, 404), response.text
        validator.validate(response.json())
    r = client.get("/api/games", headers={"Host": "evil.example"})
    assert r.json()["error"]["code"] == "bad_host"


def test_405_names_the_allowed_methods(client: TestClient) -> None:
    expected = {"/api/games": "GET, POST", "/api/games/g_1": "GET",
                "/api/games/g_1/actions": "POST", "/": "GET",
                "/static/favicon.svg": "GET, HEAD"}
    for path, allowed in expected.items():
        r = client.request("TRACE", path)
        assert r.status_code == 405 and r.headers["allow"] == allowed, (path, r.headers)
        assert r.json()["error"]["code"] == "method_not_allowed"
        for method in METHODS:  # exactly the methods named are answered otherwise
            answer = client.request(method, path, json={} if method == "POST" else None)
            assert (answer.status_code == 405) == (method not in allowed.split(", ")), (
                method, path, answer.status_code)


def accepted(spec: str) -> bool:
    try:
        check_bot_spec(spec)
    except ApiError:
        return False
    return True


def test_upto_is_exactly_the_numbers_up_to_its_limit() -> None:
    for limit in (1, 9, 10, 11, 50, 99, 100, 200, 999, 20_000):
        pattern = re.compile(upto(limit))
        assert [n for n in range(limit * 2 + 20) if pattern.fullmatch(str(n))] == list(
            range(1, limit + 1)), limit


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(SEAT_PATTERN, fullmatch=True))
def test_every_seat_the_schema_allows_the_server_accepts(spec: str) -> None:
    CreateGame.model_validate({"seats": [spec, "human"]})  # the model takes it
    assert spec == "human" or accepted(spec), spec


def test_the_seat_pattern_refuses_what_the_server_refuses() -> None:
    pattern = re.compile(SEAT_PATTERN)
    for spec in ("", "robot", "HUMAN", "human ", "human\n", "x.py:Bot", "mcts:time=60",
                 "mcts:time=0", "mcts:iterations=5,time=1", "mcts:iterations=20001",
                 "mcts:width=51", "mcts:horizon=201", "mcts:c=0", "mcts:depth=3",
                 "random:iterations=1",
                 f"mcts:time={BOT_LIMITS['time'] + 0.5}"):
        assert not pattern.fullmatch(spec), spec
        with pytest.raises(ValidationError):
            CreateGame.model_validate({"seats": [spec, "human"]})
    for spec in ("human", "random", "greedy", "mcts", "mcts:time=1", "mcts:time=10",
                 "mcts:iterations=400,c=0.5", "mcts:iterations=20000,horizon=200,width=50"):
        assert pattern.fullmatch(spec) and (spec == "human" or accepted(spec)), spec


def create_schema(settings_: ServerSettings) -> dict[str, Any]:
    spec = create_app("sqlite:///:memory:", settings_).openapi()
    return {"$ref": "#/components/schemas/CreateGame", "components": spec["components"]}


def test_the_create_schema_follows_the_ruleset_and_the_settings() -> None:
    strict = jsonschema.Draft202012Validator(create_schema(ServerSettings(bot_games=False)))
    loose = jsonschema.Draft202012Validator(create_schema(GENEROUS))
    options = strict.schema["components"]["schemas"]["CreateGame"]["properties"]["options"]
    assert set(options["properties"]) == set(OPTIONS) and not options["additionalProperties"]
    for name, values in OPTIONS.items():
        assert set(options["properties"][name]["enum"]) == set(values) - {
            "custom" if name == "world" else ""}
    two = {"seats": ["human", "random"]}
    assert strict.is_valid(two) and strict.is_valid({**two, "seed": 3})
    assert strict.is_valid({**two, "options": {"mountain_defence": "drop_lowest"}})
    assert not strict.is_valid({**two, "options": {"mountain_defence": "lava"}})
    assert not strict.is_valid({**two, "options": {"dice": "d6"}})
    assert not strict.is_valid({**two, "mode": "team_2v2"})  # R23.1: four seats
    assert strict.is_valid({"seats": ["human"] * 4, "mode": "team_2v2"})
    assert not strict.is_valid({"seats": ["human"] * 7})
    assert not strict.is_valid({"seats": ["random", "greedy"]})  # bot games off
    assert loose.is_valid({"seats": ["random", "greedy"]})
    assert not strict.is_valid({"seats": ["human", "human"], "seed": 3})  # the server's seed
    assert loose.is_valid({"seats": ["human", "human"], "seed": 3})  # any_seed
    default = jsonschema.Draft202012Validator(create_schema(ServerSettings()))
    assert default.is_valid({"seats": ["random", "greedy"], "seed": 3})  # bot games
    assert default.is_valid({"seats": ["human", "greedy"], "seed": 3})
    assert not default.is_valid({"seats": ["human", "greedy", "human"], "seed": 3})
    assert default.is_valid({"seats": ["human", "greedy", "human"]})
    assert not strict.is_valid({**two, "seed": 2**53}) and not strict.is_valid({**two, "x": 1})


def test_the_server_refuses_what_the_create_schema_refuses(client: TestClient) -> None:
    for body in ({"seats": ["human", "random"], "mode": "team_2v2"},
                 {"seats": ["human", "random"], "options": {"world": "custom"}},
                 {"seats": ["HUMAN", "random"]}, {"seats": ["human", "random"], "seed": False},
                 {"seats": ["human", "random"], "seed": 2**53}):
        r = client.post("/api/games", json=body)
        assert r.status_code == 400, (body, r.text)


def test_a_custom_world_is_accepted(client: TestClient) -> None:
    from kaladan.rules.world import standard_world

    layout = standard_world(2).to_json()
    r = client.post("/api/games", json={"seats": ["human", "random"], "world": layout})
    assert r.status_code == 201, r.text


def test_docs_api_md_shows_the_schemas_operations(schema: dict[str, Any]) -> None:
    text = API_MD.read_text(encoding="utf-8")
    start, end = text.index(MARK_BEGIN), text.index(MARK_END) + len(MARK_END)
    assert text[start:end] == operations_table(schema), \
        "docs/api.md is stale: paste kaladan.server.openapi.operations_table(app.openapi())"


def test_the_schema_is_served_as_it_is_built(live_server: LiveServer) -> None:
    served = httpx.get(live_server.http + "/openapi.json").json()
    assert served == live_server.app.openapi()
