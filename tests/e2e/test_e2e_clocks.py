"""Game clocks in the browser (issue 39, docs/server.md "Time controls"): a timed game shows
each seat's time in the players panel, the timeout bot's decision appears in the log, and a
seat the bot took over is taken back with the page's button. Time is the server's test clock
(``kaladan serve --test-clock FILE``): the test moves it, nothing waits for a timeout."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from e2e_support import ServeProcess, checked_page, create_game, public_view
from playwright.sync_api import expect

START = 1_800_000_000.0
DESKTOP = {"width": 1280, "height": 800}


class Clocked:
    """A ``kaladan serve`` whose time is the number in a file."""

    def __init__(self, folder: Path) -> None:
        self.file = folder / "now"
        self.now = START
        self.file.write_text(f"{self.now}\n")
        self.serve = ServeProcess(folder, flags=("--test-clock", str(self.file))).start()
        self.base = self.serve.base

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.file.write_text(f"{self.now}\n")


@pytest.fixture
def clocked(browser: Any, tmp_path: Path) -> Iterator[Clocked]:
    server = Clocked(tmp_path)  # after ``browser``: skipped without Chromium
    yield server
    server.serve.stop()


def post(url: str, body: dict[str, Any] | None = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body or {}).encode(), method="POST",
                                     headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def wait_view(base: str, game_id: str, check: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        view = public_view(base, game_id)
        if check(view):
            return view
        assert time.monotonic() < deadline, view.get("clock")
        time.sleep(0.02)


def test_the_clock_the_timeout_in_the_log_and_taking_the_seat_back(browser: Any,
                                                                   clocked: Clocked) -> None:
    base = clocked.base
    created = create_game(base, ["human", "human"], name="clocks", time_control={
        "kind": "live", "decision": 30, "takeover_after": 2})
    game_id = created["game_id"]
    other = next(j for j in created["join"] if j["seat"] == 1)
    token = post(f"{base}/api/games/{game_id}/seats/1/join", {"code": other["code"]})["token"]

    def other_decides() -> None:
        view = public_view(base, game_id)
        post(f"{base}/api/games/{game_id}/actions", {"index": 0, "version": view["version"]},
             token)

    with contextmanager(checked_page)(browser, viewport=DESKTOP) as page:
        page.goto(base + next(j["url"] for j in created["join"] if j["seat"] == 0))
        page.wait_for_selector("#board .tile")
        view = wait_view(base, game_id, lambda v: v["status"] == "running")
        while view["to_move"] != 0:
            other_decides()
            view = public_view(base, game_id)
        mine = page.locator("#players li[data-seat='0'] .seat-clock")
        expect(mine).to_have_class("seat-clock running")
        # counted down by the page from the view (the test clock stands still meanwhile)
        expect(mine.locator(".clock-time")).to_have_text(re.compile(r"^0:[0-3]\d$"))
        expect(page.locator("#players li[data-seat='1'] .seat-clock .clock-time")).to_have_text(
            "0:30")
        # Seat 0's time runs out: the bot decides for it, and the log says so.
        clocked.advance(30)
        line = page.locator("#log .timeout-line")
        expect(line).to_have_count(1)
        expect(line).to_contain_text("time ran out: greedy decided")
        # Again, after seat 1 decided in time: the bot takes seat 0 over.
        for _ in range(100):
            view = public_view(base, game_id)
            if view["clock"]["seats"][0]["taken_over"]:
                break
            if view["to_move"] == 0:
                version = view["version"]
                clocked.advance(30)
                wait_view(base, game_id, lambda v, at=version: v["version"] > at)
            else:
                other_decides()
        else:
            raise AssertionError("seat 0 was never taken over")
        button = page.locator("#take-back")
        expect(button).to_be_visible()
        expect(page.locator("#players li[data-seat='0'] .badge.taken")).to_be_visible()
        button.click()
        expect(button).to_have_count(0)
        expect(page.locator("#players li[data-seat='0'] .badge.taken")).to_have_count(0)
        # The player decides again: seat 1's decisions hand the game back to it.
        for _ in range(50):
            view = public_view(base, game_id)
            if view["to_move"] == 0 or view["result"] is not None:
                break
            other_decides()
        if view["result"] is None:
            page.wait_for_function("() => document.getElementById('game').dataset.yourTurn"
                                   " === 'true'")
