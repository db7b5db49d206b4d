"""Property-based fuzzing of the whole HTTP API from its OpenAPI description (schemathesis on
Hypothesis) against a real uvicorn server, seeded and with a fixed number of examples.

Requests are drawn from the schema (valid and invalid ones), then some are steered into real
games, seats, tokens and decisions so that the fuzzing gets past the 404s, and some bodies
get a value Python's JSON parser accepts but JSON cannot carry (NaN, a lone surrogate, an
integer of 30 digits, deep nesting). Whatever the request: no 5xx, errors in the documented
shape, the security headers, ``Cache-Control: no-store``, a 401 with its bearer challenge,
statuses and headers as the schema documents them, nothing logged as an error or with a
traceback, and afterwards every stored game replays to the game in memory.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from http.cookiejar import DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from live_support import GENEROUS, LiveServer, sqlite_url
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from security_support import assert_stored_games_replay, settle, watch_log
from server_support import auth, create, join_all, join_code

from kaladan.rules.config import OPTIONS
from kaladan.server import create_app
from kaladan.server.security import strict_json

EXAMPLES = 600  # about 25 s on a quiet core (28 operations)
SEED = 14_000
SHAPE = {"status", "code", "message", "rule", "input"}
WORDS = ["pass", "end", "gift 2 1", "gift 1 3", "gift ² 1", "move T1 T2 sword", "buy sword T1",
         "attack T3 T4", "realm kimbria", "take", "return sword 1", "split 0:1,1:1", "T1",
         "castle C1", "kill T2 1/sword", "no", ""]
HOSTILE = ["NaN", "Infinity", "-Infinity", "1e400", '"\\ud800"', '"a\\udfffb"', "9" * 30,
           "[" * 40 + "]" * 40, '{"a": ' * 40 + "1" + "}" * 40]
SEATS = ["human", "random", "greedy", "mcts:iterations=5", "robot", "human ", "HUMAN",
         "mcts:time=60", "x.py:Bot"]


@pytest.fixture
def fuzz_server(tmp_path: Path) -> Iterator[LiveServer]:
    # Bots think briefly and only in games with people, so the fuzzing stays the load.
    fuzz = replace(GENEROUS, bot_games=False, bot_seconds=0.05)
    with LiveServer(create_app(sqlite_url(tmp_path), fuzz, bot_delay=0,
                               rate_limit=1e6)) as server:
        yield server


class Known:
    """Games to steer requests into: an open one (seat 1 not joined, its code kept), one of a
    person and a bot, and a team game (gifts at any moment), with their seats' tokens."""

    def __init__(self, http: httpx.Client) -> None:
        opened = create(http, ["human", "human"], quick=True, seed=2)  # type: ignore[arg-type]
        first = http.post(f"/api/games/{opened['game_id']}/seats/0/join",
                          json={"code": join_code(opened["join"][0])}).json()["token"]
        duel = create(http, ["human", "random"], quick=True, seed=3)  # type: ignore[arg-type]
        team = create(http, ["human", "random", "human", "random"],  # type: ignore[arg-type]
                      mode="team_2v2", quick=True, seed=5)
        self.http = http
        self.games = [(opened["game_id"], {0: first}, [join_code(opened["join"][1])]),
                      (duel["game_id"], join_all(http, duel), []),
                      (team["game_id"], join_all(http, team), [])]
        self.tokens = [t for _, tokens, _ in self.games for t in tokens.values()]

    def mover(self, game_id: str, tokens: dict[int, str]) -> tuple[str, list[str]] | None:
        """The token of the person to decide now and the texts of their legal decisions;
        None while a bot decides or the game is over."""
        seat = self.http.get(f"/api/games/{game_id}/view").json()["to_move"]
        if seat not in tokens:
            return None
        whole = self.http.get(f"/api/games/{game_id}/legal", headers=auth(tokens[seat])).json()
        return tokens[seat], [a["text"] for a in whole["legal"]]


# What Hypothesis draws for a steered request besides the case, drawn for every example (its
# replays must draw the same way, whatever the steering chose): a text and a game request.
EXTRAS = st.tuples(st.sampled_from(WORDS) | st.text(max_size=30), st.fixed_dictionaries(
    {"seats": st.lists(st.sampled_from(SEATS), max_size=7)}, optional={
        "mode": st.sampled_from(["free_for_all", "team_2v2", "team_3v3", "chaos"]),
        "quick": st.booleans(), "seed": st.integers(-1, 2**64), "name": st.text(max_size=120),
        "options": st.dictionaries(st.sampled_from([*OPTIONS, "dice"]), st.sampled_from(
            ["official", "drop_lowest", "x", ""]), max_size=2)}))


def steer(rng: random.Random, case: Any, known: Known, extras: tuple[str, Any]) -> None:
    """Point the request at a real game, and mostly its seat's token and a real decision."""
    game_id, tokens, codes = rng.choice(known.games)
    params = case.path_parameters or {}
    if "game_id" in params and rng.random() < 0.8:
        params["game_id"] = game_id
    if "seat" in params and rng.random() < 0.5:
        params["seat"] = rng.randrange(4)
    path = case.operation.path
    acting = path.endswith("/actions") and rng.random() < 0.8
    mover = known.mover(game_id, tokens) if acting and rng.random() < 0.8 else None
    token, legal = mover or (rng.choice(list(tokens.values()) if rng.random() < 0.8
                                        else known.tokens), [])
    if rng.random() < 0.9:
        case.headers = {**(case.headers or {}), **auth(token)}
    if acting:
        roll = rng.random()
        if legal and roll < 0.8:  # a real decision, by index or text, some with a word changed
            text = rng.choice(legal)
            body: dict[str, Any] = {"index": rng.randrange(len(legal))} if roll < 0.4 else {
                "action": text if roll < 0.7 else text.rsplit(" ", 1)[0] + " "
                + rng.choice(WORDS)}
        elif roll < 0.4:
            body = {"index": rng.randrange(4 if rng.random() < 0.8 else 40)}
        else:
            body = {"action": extras[0]}
        if rng.random() < 0.2:
            body["version"] = rng.randrange(300)
        case.body = body
    elif path.endswith("/join") and rng.random() < 0.5:
        case.body = {"code": rng.choice(codes) if codes and rng.random() < 0.5 else extras[0]}
    elif path == "/api/games" and case.method.upper() == "POST" and rng.random() < 0.5:
        if rng.random() < 0.5:  # a game that can be made: people and quick bots
            case.body = {"seats": ["human", *rng.choices(SEATS[:3], k=rng.randrange(1, 5))],
                         "quick": rng.random() < 0.7, "seed": rng.randrange(2**53)}
            return
        case.body = extras[1]  # one that almost can


def hostile_body(rng: random.Random, body: Any) -> bytes:
    """``body`` as JSON text with one value (or the whole body) replaced by a hostile one."""
    marker = "\u0000hostile\u0000"
    leaves: list[tuple[Any, Any]] = []  # (container, key) of every value
    stack = [body]
    while stack:
        item = stack.pop()
        pairs = item.items() if isinstance(item, dict) else (
            enumerate(item) if isinstance(item, list) else ())
        for key, value in pairs:
            leaves.append((item, key))
            stack.append(value)
    token = rng.choice(HOSTILE)
    if not leaves:
        return token.encode()
    container, key = rng.choice(leaves)
    container[key] = marker
    return json.dumps(body).replace(json.dumps(marker), token).encode()


def sendable(headers: dict[str, str]) -> dict[str, str]:
    """The headers httpx sends as they are: a drawn token may end in a space (``Bearer ``),
    which requests sends and httpx refuses."""
    return {name: value.strip() for name, value in headers.items()
            if value.strip().isprintable() and value.strip().isascii()}


def check_answer(response: httpx.Response | Any, seen: Counter[int]) -> None:
    status = response.status_code
    seen[status] += 1
    assert status < 500, response.text
    headers = {k.lower(): v[0] if isinstance(v, list) else v  # schemathesis: lists
               for k, v in response.headers.items()}
    assert "content-security-policy" in headers and headers["x-frame-options"] == "DENY"
    assert headers["cache-control"] == "no-store"  # every answer of the API: docs/api.md
    if status == 401:  # RFC 9110 11.6.1: a challenge; RFC 6750 3 for a seat's token
        challenge = headers["www-authenticate"]
        assert challenge.startswith(("Bearer ", "Session ")), headers
        if strict_json(response.content)["error"]["code"] == "missing_token":
            assert challenge.startswith("Bearer "), headers
    if status >= 400:
        body = strict_json(response.content)
        assert set(body) == {"error"} and set(body["error"]) == SHAPE, body
        assert body["error"]["status"] == status


def test_the_http_api_answers_every_request_in_its_own_words(fuzz_server: LiveServer) -> None:
    base = fuzz_server.http
    schema = schemathesis.openapi.from_url(base + "/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    # 14 of games (a seat's hand-over and a finished game's analysis too), 1 of clocks, 5 of
    # chat and rematch, 9 of accounts, 2 of players, 5 of quick match, my games and turn mails
    assert len(operations) == 36
    strategies = [(op, mode, op.as_strategy(generation_mode=mode)) for op in operations
                  for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)]
    # Decisions and views four times as often as the rest: they are where the games go on.
    strategies += [entry for entry in strategies
                   if entry[0].path.endswith(("/actions", "/view"))] * 3
    known = Known(httpx.Client(base_url=base))
    seen: Counter[int] = Counter()
    by_operation: Counter[str] = Counter()
    # The steering's odds come from a plain seeded rng, one seed per example: Hypothesis's
    # draws lean to the simplest values and repeat earlier ones.
    seeds = itertools.count(SEED)
    session, http = requests.Session(), httpx.Client(timeout=30)  # connections kept open
    # no cookie is kept between requests: a session cookie is what a case sends itself
    session.cookies.set_policy(DefaultCookiePolicy(allowed_domains=[]))

    def fuzzer(pool: list[Any], budget: int) -> Any:
        """Hypothesis's run of ``budget`` requests, each of an operation drawn from
        ``pool``."""

        @settings(max_examples=budget, deadline=None, derandomize=True, database=None,
                  phases=[Phase.explicit, Phase.generate],  # a fixed budget: no shrinking
                  suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow, HealthCheck.filter_too_much,
                                         HealthCheck.data_too_large])
        @given(data=st.data())
        def fuzz(data: st.DataObject) -> None:
            operation, mode, cases = data.draw(st.sampled_from(pool))
            call(data, operation, cases)

        return fuzz

    def call(data: st.DataObject, operation: Any, cases: Any) -> None:
        case = data.draw(cases)
        extras = data.draw(EXTRAS)
        rng = random.Random(next(seeds))
        steered = rng.random() < 0.6
        if steered:
            steer(rng, case, known, extras)
        by_operation[operation.label] += 1
        if case.method.upper() == "POST" and rng.random() < 0.2:
            request = case.as_transport_kwargs(base_url=base)
            content = hostile_body(rng, request.pop("json", None))
            response = http.request(request["method"], request["url"],
                                    headers=sendable(request["headers"]),
                                    params=request["params"], content=content)
            check_answer(response, seen)
            assert response.status_code == 400, (content[:200], response.text)
            return
        response = case.call(base_url=base, session=session, timeout=30)
        check_answer(response, seen)
        checks = [not_a_server_error, status_code_conformance, content_type_conformance,
                  response_headers_conformance, response_schema_conformance]
        if not steered:  # a steered request is no longer the one schemathesis drew
            checks.append(negative_data_rejection)
        case.validate_response(response, checks=checks)

    with watch_log() as log, session, http, closing(known.http):
        fuzz = fuzzer(strategies, EXAMPLES)
        fuzz()
        # Hypothesis's picks from a list this long lean to some entries: an operation it
        # drew fewer than 3 times gets a run of its own
        for op in operations:
            if by_operation[op.label] < 3:
                fuzzer([entry for entry in strategies if entry[0] is op], 6)()
        settle(fuzz_server.app)
    assert log.failures() == []
    assert set(by_operation) == {op.label for op in operations}
    # The fuzzing got past the front door: games created, joined and played on.
    assert seen[200] >= 10 and seen[201] >= 1 and seen[400] >= 30 and seen[404] >= 10, seen
    games, steps = assert_stored_games_replay(fuzz_server.app)
    assert games >= 4 and steps >= 5, (games, steps)
