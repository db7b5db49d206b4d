"""The page's decisions carry the version of the view they were made from (docs/api.md
"WebSocket"): every ``action`` message it sends on the WebSocket, by index (a button) or by
text (a move composed on the board), names the version the page showed, so that a second
send of it (a double click, a resend after a reconnect) is refused as 409 stale_version
instead of being applied as the next decision."""

from __future__ import annotations

import json
import random
import time
from typing import Any

from e2e_support import (
    click_and_wait,
    create_game,
    first_or_pass,
    move_by_board,
    version,
    wait_for_decision,
)

SEED = 7
DECISIONS = 40  # at most; the test stops once both forms were checked a few times


def test_every_action_message_carries_the_views_version(page: Any, server: str) -> None:
    sent: list[dict[str, Any]] = []

    def watch(socket: Any) -> None:
        if "/ws/games/" in socket.url:
            socket.on("framesent", lambda payload: sent.append(json.loads(payload)))

    page.on("websocket", watch)
    # No answer the page gives by itself: every action sent follows a click of the test's.
    page.add_init_script("localStorage.setItem('kaladan.autoAnswer', 'off')")
    created = create_game(server, ["human", "random"], seed=SEED, name="versions")
    page.goto(server + created["join"][0]["url"])
    rng = random.Random(SEED)
    checked = {"index": 0, "action": 0}
    for _ in range(DECISIONS):
        if not wait_for_decision(page) or min(checked.values()) >= 2:
            break
        before, seen = version(page), len(actions(sent))
        if not (rng.random() < 0.7 and move_by_board(page, rng)):
            click_and_wait(page, first_or_pass(page))
        deadline = time.monotonic() + 5
        while len(actions(sent)) == seen:  # the frame's event may trail the view's
            assert time.monotonic() < deadline, "no action message was sent"
            page.wait_for_timeout(20)
        new = actions(sent)[seen:]
        assert len(new) == 1, new  # one click, one message
        message = new[0]
        assert type(message.get("version")) is int and message["version"] == before, (
            message, before)
        checked["index" if "index" in message else "action"] += 1
    assert min(checked.values()) >= 1, checked  # by index and by text, both checked


def actions(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in sent if m.get("type") == "action"]
