"""The end of a game and its replay (issue 15): the end screen's chart draws the server's
round figures; the replay page, reached from the end screen and from the lobby's finished
games, steps through the game and ends on the game's final board and log."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from e2e_support import create_game, public_view
from playwright.sync_api import expect
from test_e2e_table import finished_game


def rounds_of(server: str, game_id: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/rounds", timeout=10) as response:
        rounds: list[dict[str, Any]] = json.load(response)["rounds"]
    return rounds


def board(page: Any) -> dict[str, list[str]]:
    """Every tile's units as the page draws them."""
    tiles: dict[str, list[str]] = page.eval_on_selector_all("#board [data-tile]", """els =>
        Object.fromEntries(els.map(e => [e.dataset.tile,
          [...e.querySelectorAll('[data-unit]')].map(u => u.dataset.unit)]))""")
    return tiles


def shown_version(page: Any) -> int:
    return int(page.get_attribute("#game", "data-version") or "-1")


def go_to(page: Any, control: str, version: int) -> None:
    page.click(control)
    page.wait_for_function(
        f"() => document.getElementById('game').dataset.version === '{version}'")


def log_indices(page: Any) -> list[int]:
    return [int(i) for i in page.locator("#log li").evaluate_all(
        "els => els.map(e => e.dataset.index)")]


def test_the_end_chart_and_the_replay_tell_the_game_again(page: Any, server: str) -> None:
    game_id = finished_game(server)
    rounds = rounds_of(server, game_id)
    public = public_view(server, game_id)
    last = public["version"]
    page.goto(f"{server}/watch/{game_id}")
    end = page.locator("#end")
    end.wait_for(state="visible")
    final_board = board(page)
    final_log = log_indices(page)

    # The chart: one line group per player, a marker per round the player has a value for.
    chart = end.locator("svg.chart")
    for metric in ("gold", "units", "score"):
        end.locator(f".chart-metric[data-metric='{metric}']").click()
        expect(end.locator(f"svg.chart[data-metric='{metric}']")).to_be_visible()
        assert end.locator(f".chart-metric[data-metric='{metric}']").get_attribute(
            "aria-pressed") == "true"
        for seat in (0, 1):
            values = [r[metric][seat] for r in rounds if r[metric][seat] is not None]
            group = chart.locator(f".chart-seat[data-seat='{seat}']")
            assert group.locator("circle, path").count() == len(values)
            label = chart.get_attribute("aria-label") or ""
            assert ", ".join(str(r[metric][seat]) if r[metric][seat] is not None else "—"
                             for r in rounds) in label

    # From the end screen to the replay, which opens at the start.
    end.locator("#end-replay").click()
    page.wait_for_url(f"**/replay/{game_id}")
    page.wait_for_function("() => document.getElementById('game')?.dataset.version === '0'")
    assert page.get_attribute("#game", "data-last") == str(last)
    expect(page.locator("#replay-first")).to_be_disabled()
    at_start = log_indices(page)
    assert at_start == [e["index"] for e in public["log"] if e["version"] == 0][-len(at_start):]

    go_to(page, "#replay-forward", 1)
    assert log_indices(page) == [e["index"] for e in public["log"] if e["version"] <= 1][
        -len(log_indices(page)):]
    go_to(page, "#replay-forward", 2)
    go_to(page, "#replay-back", 1)
    assert log_indices(page) == [e["index"] for e in public["log"] if e["version"] <= 1][
        -len(log_indices(page)):]
    page.keyboard.press("ArrowRight")  # the arrow keys step too
    page.wait_for_function("() => document.getElementById('game').dataset.version === '2'")

    middle = rounds[len(rounds) // 2]
    page.select_option("#replay-round", str(middle["version"]))
    page.wait_for_function(
        f"() => document.getElementById('game').dataset.version === '{middle['version']}'")
    expect(page.locator("#replay-where")).to_contain_text(f"round {middle['round']}")
    assert board(page) != final_board

    go_to(page, "#replay-last", last)
    expect(page.locator("#replay-forward")).to_be_disabled()
    assert board(page) == final_board  # the same final board as the game's end
    assert log_indices(page) == final_log


def test_the_lobby_lists_finished_games_with_their_replay(page: Any, server: str) -> None:
    game_id = finished_game(server)
    page.goto(server + "/")
    link = page.locator(f"#finished tr[data-game='{game_id}'] a.replay-link")
    link.wait_for()
    link.click()
    page.wait_for_url(f"**/replay/{game_id}")
    page.wait_for_function("() => document.getElementById('game')?.dataset.version === '0'")
    assert page.locator("#board .tile").count() > 0


def test_a_running_game_has_no_replay_yet(page: Any, server: str) -> None:
    game_id = create_game(server, ["human", "random"])["game_id"]
    page.goto(f"{server}/replay/{game_id}")
    expect(page.locator("#fatal")).to_contain_text("not over yet")
    page.goto(f"{server}/replay/g_nosuchgame")
    expect(page.locator("#fatal")).to_contain_text("no such game")
