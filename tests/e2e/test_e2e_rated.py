"""A rated game from sign-up to the leaderboard (issue 39, "Must hold"): two players sign up in
two browser contexts, one creates a rated 4-player game with two bots, both take their
seats from the lobby's join links, the game is played to its end from the two contexts (each
decision sent with that context's session and CSRF token), and both players' ratings have
moved on their profile pages and on the leaderboard. Real Chromium, real ``kaladan
serve``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import ServeProcess, checked_page

PASSWORD = "a long enough password"
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def rated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    serve = ServeProcess(tmp_path_factory.mktemp("rated"),
                         extra=("--leaderboard-min-games", "1")).start()
    yield serve.base
    serve.stop()


def sign_up(page: Any, server: str, name: str) -> None:
    page.goto(server + "/signup")
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    page.wait_for_selector("#account-links")


class Player:
    """A signed-in browser context: its page, and API calls with its cookies and CSRF
    token (what its page's script sends)."""

    def __init__(self, page: Any, server: str) -> None:
        self.page = page
        self.server = server
        self.csrf = page.evaluate("fetch('/api/session').then((r) => r.json())"
                                  ".then((s) => s.csrf)")

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        response = self.page.request.fetch(
            self.server + path, method=method, data=body,
            headers={"X-CSRF-Token": self.csrf, "Content-Type": "application/json"})
        return response.status, (response.json() if response.body() else None)


def test_a_rated_game_moves_both_ratings(browser: Any, rated_server: str) -> None:
    server = rated_server
    contexts = [checked_page(browser, viewport=DESKTOP) for _ in range(2)]
    pages = [next(c) for c in contexts]
    sign_up(pages[0], server, "Anna")
    sign_up(pages[1], server, "Bert")
    anna, bert = Player(pages[0], server), Player(pages[1], server)
    status, created = anna.api("POST", "/api/games", {
        "mode": "free_for_all", "seats": ["human", "greedy", "human", "greedy"],
        "quick": True, "rated": True, "name": "rated four"})
    assert status == 201, created
    game_id = created["game_id"]
    links = {link["seat"]: link["url"] for link in created["join"]}
    # each opens their join link: the seat becomes the signed-in player's
    for player, seat in ((anna, 0), (bert, 2)):
        player.page.goto(server + links[seat])
        player.page.wait_for_selector("#board .tile")
    status, summary = anna.api("GET", f"/api/games/{game_id}")
    assert [s["player"] for s in summary["seats"]] == ["Anna", None, "Bert", None]
    assert summary["rated"] and not summary["hints"]
    rng = random.Random(5)
    players = {0: anna, 2: bert}
    for _ in range(3000):  # the humans' decisions, each from its own browser context
        status, view = anna.api("GET", f"/api/games/{game_id}/view?since=0")
        if view["result"] is not None:
            break
        seat = view["to_move"]
        if seat not in players:
            anna.page.wait_for_timeout(20)  # a bot thinks
            continue
        status, mine = players[seat].api("GET", f"/api/games/{game_id}/view?since=0")
        if mine["to_move"] != seat or mine["legal_count"] == 0:
            continue
        status, _ = players[seat].api("POST", f"/api/games/{game_id}/actions",
                        {"index": rng.randrange(mine["legal_count"]),
                         "version": mine["version"]})
        assert status in (200, 409, 422), status  # 409: a bot moved since the view
    else:
        raise AssertionError("the game did not end")
    # the end screen in both contexts, then the profiles and the leaderboard
    for player in (anna, bert):
        player.page.wait_for_selector("#game[data-over='true']")
    for player, name in ((anna, "Anna"), (bert, "Bert")):
        page = player.page
        status, profile = player.api("GET", f"/api/players/{name}")
        assert status == 200 and profile["games"] == 1
        assert profile["rating"]["mu"] != 25.0 and profile["rating"]["sigma"] < 25 / 3
        page.goto(f"{server}/players/{name}")
        page.wait_for_selector("#rating-chart")
        assert page.inner_text("#rating-display") == str(profile["rating"]["display"])
        assert page.locator(f"#recent-games a[href='/replay/{game_id}']").count() == 1
    page = anna.page
    page.goto(f"{server}/leaderboard")
    page.select_option("#board-mode", "free_for_all")
    page.select_option("#board-players", "4")
    table = page.locator("#leaderboard-table")
    table.wait_for()
    page.wait_for_function("() => document.getElementById('leaderboard-table')"
                           ".innerText.includes('Bert')")
    text = table.inner_text()
    assert "Anna" in text and "Bert" in text
    for context in contexts:
        next(context, None)  # close, and fail on a JavaScript error or CSP violation


