"""Ratings in the browser (issue 39): a player's profile shows the rating, its chart and
replay links of the last rated games; the leaderboard lists the player and the bots' fixed
ratings. The ratings are seeded through the store (real finished bot games, rated as if a
signed-in player had sat at seat 0); no JavaScript error, no CSP violation."""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from e2e_support import ServeProcess, create_game
from sqlalchemy import insert

from kaladan.server.rating_store import finished_game, record
from kaladan.server.service import rebuild
from kaladan.server.storage import Store, accounts

GAMES = 5  # the leaderboard's least by default


def finished(server: str) -> str:
    game_id = str(create_game(server, ["random", "random"], name="rated bots")["game_id"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{server}/api/games/{game_id}", timeout=10) as response:
            if json.load(response)["status"] == "over":
                return game_id
        time.sleep(0.2)
    raise AssertionError("the bot game did not end in 60 s")


@pytest.fixture(scope="module")
def rated(server: str,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """A server of its own whose database holds Anna's ratings after five games; its URL
    and the games' ids. (``server``: the shared one's fixture skips without Chromium.)"""
    folder: Path = tmp_path_factory.mktemp("rated")
    serve = ServeProcess(folder).start()
    store = Store(f"sqlite:///{folder / 'kaladan.sqlite3'}")
    anna = uuid.uuid4().hex
    with store.engine.begin() as c:
        c.execute(insert(accounts).values(id=anna, name="Anna", name_key="anna", password="x",
                                          created=datetime(2026, 12, 1, tzinfo=UTC)))
    ids = [finished(serve.base) for _ in range(GAMES)]
    for i, game_id in enumerate(ids):
        stored = store.load(game_id)
        assert stored is not None
        live = rebuild(stored)
        live.rated = True
        live.seats[0].kind, live.seats[0].account = "human", anna
        game = finished_game(live, datetime(2026, 12, 2, tzinfo=UTC) + timedelta(hours=i))
        assert game is not None and record(store, game)
    store.dispose()
    yield serve.base, ids
    serve.stop()


def test_the_profile_shows_rating_chart_and_replay_links(page: Any,
                                                          rated: tuple[str, list[str]]) -> None:
    server, ids = rated
    with urllib.request.urlopen(f"{server}/api/players/anna", timeout=10) as response:
        profile = json.load(response)
    page.goto(server + "/players/Anna")
    page.wait_for_selector("#profile")
    assert page.locator("#profile h1").inner_text() == "Anna"
    assert page.locator("#rating-display").inner_text() == str(profile["rating"]["display"])
    assert page.locator("#rating-chart circle").count() == GAMES
    links = page.locator("#recent-games a.replay-link")
    assert links.count() == GAMES
    assert links.first.get_attribute("href") == f"/replay/{ids[-1]}"  # newest first
    links.first.click()
    page.wait_for_url(f"**/replay/{ids[-1]}")


def test_an_unknown_player_says_so(page: Any, rated: tuple[str, list[str]]) -> None:
    server, _ = rated
    page.goto(server + "/players/nobody")
    assert "no player of that name" in page.locator(".rating-page .error").inner_text()


def test_the_leaderboard_lists_the_player_and_the_bots(page: Any,
                                                       rated: tuple[str, list[str]]) -> None:
    server, _ = rated
    page.goto(server + "/leaderboard")
    page.wait_for_selector("#leaderboard-table")
    row = page.locator("#leaderboard-table tr[data-player='Anna'] td")
    cells = row.all_inner_texts()
    assert cells[0] == "1" and cells[1] == "Anna" and cells[3] == str(GAMES)
    assert page.locator("#bot-ratings tbody tr").count() >= 3
    page.select_option("#board-mode", "team_2v2")  # nobody has played a rated team game
    page.wait_for_selector("#leaderboard-table td.muted")
    page.select_option("#board-mode", "free_for_all")
    page.wait_for_selector("#board-players")
    page.select_option("#board-players", "2")
    page.wait_for_selector("#leaderboard-table tr[data-player='Anna']")
    page.locator("#leaderboard-table a", has_text="Anna").click()
    page.wait_for_selector("#profile")
