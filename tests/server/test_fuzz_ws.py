"""Property-based fuzzing of the WebSocket (Hypothesis) against a real uvicorn server: random
JSON values, random text and bytes, deep nesting, big numbers, NaN, lone surrogates and odd
unicode, from a seat to decide, a seat waiting and a spectator. Every message gets at most
one error reply in the documented shape, the socket stays open, what the server sends is
strict JSON, a refused message changes nothing, and the server logs no error. Every so many
messages the seat to decide makes a real decision, which is accepted: the game moves on."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import httpx
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from live_support import LiveServer
from security_support import ThreadLoop, assert_stored_games_replay, settle, watch_log
from server_support import create, join_all
from ws_support import Socket

from kaladan.server.security import strict_json

EXAMPLES = 300  # a few seconds
ADVANCE_EVERY = 25  # the game moves on by a decision of its own after this many messages
SHAPE = {"status", "code", "message", "rule", "input"}
WORDS = ["pass", "end", "gift 1 1", "gift ² 1", "take", "move T1 T2 sword", "attack T3 T4",
         "buy sword T1", "return sword ١"]
# Letters, digits of other scripts, marks, controls, symbols, spaces and lone surrogates
# (sent as \ud800 escapes: a WebSocket text frame is UTF-8, Python's JSON parser lets
# the escape through).
ODD = st.text(st.characters(categories=["Lu", "Ll", "Nd", "No", "Mn", "Cc", "Cf", "Zs", "So",
                                        "Cs"]), max_size=30)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | ODD,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ODD, inner, max_size=4),
    max_leaves=12)
ACTIONS = st.fixed_dictionaries({"type": st.just("action")}, optional={
    "action": st.sampled_from(WORDS) | ODD | VALUES,
    "index": st.integers(0, 6) | st.integers() | st.floats() | VALUES,
    "version": st.integers(0, 400) | VALUES, "extra": VALUES})
OTHERS = st.fixed_dictionaries({"type": st.sampled_from(["Action", "", "view", "error"]) | ODD
                                | VALUES}, optional={"action": VALUES, "index": VALUES})
DEPTHS = st.sampled_from([2, 32, 33, 100, 990, 1000, 1500, 2040])
# Well-formed actions: a decision by index (often a real one) or by text (odd ones too).
DECISIONS = st.fixed_dictionaries({"type": st.just("action"), "index": st.integers(0, 8)},
                                  optional={"version": st.integers(0, 400)}) | \
    st.fixed_dictionaries({"type": st.just("action"), "action": st.sampled_from(WORDS) | ODD})
MESSAGES: st.SearchStrategy[str | bytes] = st.one_of(
    DECISIONS.map(json.dumps), DECISIONS.map(json.dumps),
    st.one_of(ACTIONS, OTHERS, VALUES).map(json.dumps),  # NaN as NaN, surrogates as escapes
    st.text(max_size=200),
    st.binary(max_size=100),
    # Depths and lengths around the limits (Hypothesis's integers lean to small ones).
    DEPTHS.map(lambda n: "[" * n + "]" * n),
    DEPTHS.filter(lambda n: n < 2000).map(
        lambda n: '{"type": "action", "index": ' + "[" * n + "]" * n + "}"),
    st.sampled_from([19, 20, 300, 4000]).map(
        lambda n: '{"type": "action", "index": ' + "9" * n + "}"),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", '"\\ud800"',
                     '{"type": "action", "index": NaN}', '{"type": "action", "index": 1e999}',
                     '{"type": "action", "action": "pass\\udfff"}', '{"type": "\\ud83d"}']),
    st.integers(4097, 6000).map(lambda n: '"' + "x" * n + '"'),  # over the 4 KiB limit
)


def is_ping(message: str | bytes) -> bool:
    """Whether the message would be a ping: those are left out, so that each message is
    followed by exactly one pong, the one of the ping sent after it."""
    try:
        data = json.loads(message)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("type") == "ping"


def test_websocket_messages_get_an_error_or_a_view_and_never_break(
        live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.http) as http:
        created = create(http, ["human", "human"], quick=True, seed=6)  # type: ignore[arg-type]
        game_id = created["game_id"]
        tokens = join_all(http, created)
    url = f"{live_server.ws}/ws/games/{game_id}"
    loop = ThreadLoop()
    sockets = {seat: loop.run(Socket.open(f"{url}?token={token}"))
               for seat, token in tokens.items()}
    sockets[None] = loop.run(Socket.open(url))  # a spectator
    pongs = Counter[int | None]()  # pings sent per socket, each answered by one pong
    outcomes = Counter[str]()
    http = httpx.Client(base_url=live_server.http)

    def spectator_view() -> dict[str, Any]:
        view: dict[str, Any] = http.get(f"/api/games/{game_id}/view").json()
        return view

    async def exchange(sock: Socket, message: str | bytes, pings: int) -> list[dict[str, Any]]:
        """Send the message and a ping; the messages up to that ping's pong."""
        start = len(sock.messages)
        await sock.send(message)
        await sock.send({"type": "ping"})
        await sock.wait_for(lambda _: sum(m["type"] == "pong" for m in sock.messages) >= pings,
                            start)
        return sock.messages[start:]

    def advance() -> None:
        """The seat to decide sends its first legal action (index 0: there always is one),
        which is accepted and moves the game on."""
        before = spectator_view()
        seat = before["to_move"]
        if seat is None:
            return
        pongs[seat] += 1
        replies = loop.run(exchange(sockets[seat], json.dumps({"type": "action", "index": 0}),
                                    pongs[seat]))
        assert [m for m in replies if m["type"] == "error"] == [], replies
        assert spectator_view()["version"] > before["version"]
        outcomes["advanced"] += 1

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              phases=[Phase.explicit, Phase.generate],  # a fixed budget: no shrinking
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow, HealthCheck.filter_too_much,
                                     HealthCheck.data_too_large, HealthCheck.large_base_example])
    @given(message=MESSAGES, who=st.sampled_from(["to move", "waiting", "spectator"]))
    def fuzz(message: str | bytes, who: str) -> None:
        assume(not is_ping(message))
        # The fuzzed messages meet the game in many states whatever Hypothesis draws: its
        # draws change with the project modules a process has loaded (it mixes in their
        # literals), so how many of them are accepted decisions is no fixed number.
        sent = sum(outcomes.values()) - outcomes["advanced"]
        if sent % ADVANCE_EVERY == ADVANCE_EVERY - 1:
            advance()
        before = spectator_view()
        to_move = before["to_move"]
        seat = None if who == "spectator" or to_move is None else (
            to_move if who == "to move" else 1 - to_move)
        sock = sockets[seat]
        pongs[seat] += 1
        replies = loop.run(exchange(sock, message, pongs[seat]))
        assert not sock.reader.done(), "the socket was closed"
        start = len(sock.raw) - len(replies)
        for text in sock.raw[start:]:
            strict_json(text)  # what the server sends is JSON, whatever it was sent
        errors = [m["error"] for m in replies if m["type"] == "error"]
        assert len(errors) <= 1, errors
        if errors:
            error = errors[0]
            assert set(error) == SHAPE and 400 <= error["status"] < 500, error
            assert spectator_view() == before, "a refused message changed the game"
            outcomes[f"{error['status']} {error['code']}"] += 1
        else:
            outcomes["accepted"] += 1

    try:
        with watch_log() as log:
            fuzz()
            settle(live_server.app)
    finally:
        for sock in sockets.values():
            loop.run(sock.close())
        loop.close()
        http.close()
    assert log.failures() == []
    assert outcomes["advanced"] >= 5 and outcomes["400 malformed_message"] >= 50, outcomes
    assert outcomes["413 too_large"] >= 1 and outcomes["403 spectator"] >= 1, outcomes
    assert assert_stored_games_replay(live_server.app)[1] >= 5
