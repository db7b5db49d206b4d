"""Players who come back (issue 39, points 3 and 5) in a real browser: quick match filled
from two browsers, an open game's seat taken with one click, "my games" with the player's
turn first, and the tab's title when a game becomes theirs to decide.

Two players signed up once for the module (the server allows few sign-ups a minute per
address); each test opens fresh browser contexts with their cookies."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import checked_page

PASSWORD = "correct horse battery"
PLAYERS = ("Anna", "Bert")


class Player:
    def __init__(self, name: str, state: Any, csrf: str) -> None:
        self.name = name
        self.state = state
        self.csrf = csrf


@pytest.fixture(scope="module")
def players(browser: Any, server: str) -> dict[str, Player]:
    out = {}
    suffix = secrets.token_hex(3)
    for name in PLAYERS:
        ctx = browser.new_context(locale="en-GB")
        r = ctx.request.post(server + "/api/accounts",
                             data={"name": f"{name}{suffix}", "password": PASSWORD})
        assert r.status == 201, r.text()
        out[name] = Player(f"{name}{suffix}", ctx.storage_state(), r.json()["csrf"])
        ctx.close()
    return out


@pytest.fixture
def pages(browser: Any, players: dict[str, Player]) -> Iterator[dict[str, Any]]:
    made = [checked_page(browser, storage_state=players[name].state) for name in PLAYERS]
    yield {name: next(gen) for name, gen in zip(PLAYERS, made, strict=True)}
    for gen in made:
        next(gen, None)


def call(page: Any, player: Player, method: str, server: str, path: str,
         body: Any = None) -> Any:
    r = page.request.fetch(server + path, method=method, data=body,
                           headers={"X-CSRF-Token": player.csrf})
    assert r.ok, r.text()
    return r.json()


def play_until_turn_passes(page: Any, player: Player, server: str, game_id: str) -> None:
    """The player decides (first legal action) until another seat is to decide."""
    for _ in range(60):
        view = call(page, player, "GET", server, f"/api/games/{game_id}/view")
        if view["observation"]["pending"]["seat"] != view["seat"]:
            return
        call(page, player, "POST", server, f"/api/games/{game_id}/actions",
             {"index": 0, "version": view["version"]})
    raise AssertionError("the turn never passed")


def test_quick_match_fills_from_two_browsers(pages: dict[str, Any], server: str) -> None:
    anna, bert = pages["Anna"], pages["Bert"]
    for page in (anna, bert):
        page.goto(server + "/")
    anna.click("#match-join")
    anna.wait_for_selector("#match-status")
    assert "1 of 1" in anna.inner_text("#match-status")
    bert.click("#match-join")
    bert.wait_for_url("**/play/**")
    anna.wait_for_url("**/play/**", timeout=10_000)  # its next look at the queue
    a_game, a_seat = anna.url.split("/play/")[1].split("/")
    b_game, b_seat = bert.url.split("/play/")[1].split("/")
    assert a_game == b_game and {a_seat, b_seat} == {"0", "1"}
    for page in (anna, bert):
        page.wait_for_selector("#board .tile")


def test_an_open_games_seat_is_taken_with_one_click(pages: dict[str, Any], server: str,
                                                    players: dict[str, Player]) -> None:
    anna, bert = pages["Anna"], pages["Bert"]
    a = players["Anna"]
    created = call(anna, a, "POST", server, "/api/games",
                   {"seats": ["human", "human"], "open_seats": True, "quick": True,
                    "name": "Open table"})
    game_id = created["game_id"]
    call(anna, a, "POST", server, f"/api/games/{game_id}/seats/0/join", {})
    bert.goto(server + "/")
    button = bert.locator(f"#take-{game_id}-1")
    button.wait_for()
    assert button.inner_text() == "Take seat 2"
    button.click()
    bert.wait_for_url(f"**/play/{game_id}/1")
    bert.wait_for_selector("#board .tile")


def test_my_games_and_the_title_follow_the_players_turn(
        pages: dict[str, Any], server: str, players: dict[str, Player]) -> None:
    anna, bert = pages["Anna"], pages["Bert"]
    a, b = players["Anna"], players["Bert"]
    created = call(anna, a, "POST", server, "/api/games",
                   {"seats": ["human", "human"], "open_seats": True, "quick": True,
                    "name": "Turns"})
    game_id = created["game_id"]
    call(anna, a, "POST", server, f"/api/games/{game_id}/seats/0/join", {})
    call(bert, b, "POST", server, f"/api/games/{game_id}/seats/1/join", {})
    view = call(anna, a, "GET", server, f"/api/games/{game_id}/view")
    first, second = (anna, bert) if view["observation"]["pending"]["seat"] == 0 else (bert, anna)
    mover = a if first is anna else b
    # "my games" of the player to decide: that game first, marked as their turn
    first.goto(server + "/me/games")
    row = first.locator(f'#my-games tr[data-game="{game_id}"]')
    row.wait_for()
    assert "your-turn" in (row.get_attribute("class") or "")
    assert "Your turn" in row.inner_text()
    turns = first.eval_on_selector_all(
        "#my-games tbody tr", "rows => rows.map(r => r.classList.contains('your-turn'))")
    assert turns == sorted(turns, reverse=True)  # the player's turns first
    # the other player waits on the lobby: once the first has decided, the title says so
    second.goto(server + "/")
    second.wait_for_function("() => document.body.dataset.turns !== undefined")
    before = int(second.evaluate("document.body.dataset.turns"))
    assert second.title().startswith(f"({before})") if before else \
        not second.title().startswith("(")
    play_until_turn_passes(first, mover, server, game_id)
    second.wait_for_function(f"() => document.title.startsWith('({before + 1}) ')", timeout=30_000)
    assert "Your turn" in second.title()
