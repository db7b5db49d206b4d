"""Online edges (issue 40): a seat moves to another device from its own page (the link and
its QR code), the old device is told and can no longer act, and the used join link says the
seat is taken, numbered from 1; team games name who is allied with whom in the lobby and the
players panel, and the end screen's chart draws one score line per team; the lobby's
finished games show the winner and the date."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    checked_page,
    click_and_wait,
    create_game,
    first_or_pass,
    http_json,
    wait_for_decision,
)


@pytest.fixture
def second(browser: Any) -> Iterator[Any]:
    """A page of a second browser context: another device (its own localStorage)."""
    yield from checked_page(browser, viewport=DESKTOP)


@pytest.fixture
def third(browser: Any) -> Iterator[Any]:
    yield from checked_page(browser, viewport=DESKTOP)


def test_a_seat_moves_to_another_device(page: Any, second: Any, third: Any,
                                        server: str) -> None:
    created = create_game(server, ["human", "random"], seed=7)
    game_id = created["game_id"]
    join_link = server + created["join"][0]["url"]
    page.goto(join_link)  # device A takes seat 1 and plays a decision
    assert wait_for_decision(page)
    click_and_wait(page, first_or_pass(page))
    page.click("#handover-button")
    link = page.locator("#handover-url")
    link.wait_for()
    href = link.get_attribute("href")
    assert href.startswith(f"/play/{game_id}/0?code=")
    assert link.inner_text().endswith(href)  # the whole link, with the server's address
    qr = page.locator("#handover-qr")
    assert qr.get_attribute("viewBox").startswith("0 0 ")
    assert qr.locator("path").count() >= 1
    # device B opens the link and plays on as the seat
    second.goto(server + href)
    assert wait_for_decision(second)
    assert "seat 1" in second.inner_text("#game-title")
    assert f"/play/{game_id}/0" in second.url and "code=" not in second.url
    # device A is told, and offers nothing to act with any more
    page.locator("#fatal[data-reason='seat_moved']").wait_for()
    assert "Seat 1 is now played on another device" in page.inner_text("#fatal")
    assert page.locator("#actions").count() == 0
    token = page.evaluate(f"localStorage.getItem('kaladan.token.{game_id}.0')")
    refused = page.evaluate("""async ([gameId, token]) => {
      const headers = {Authorization: `Bearer ${token}`};
      const r = await fetch(`/api/games/${gameId}/legal`, {headers});
      return [r.status, (await r.json()).error.code];
    }""", [game_id, token])
    assert refused == [403, "seat_moved"]
    before = int(second.get_attribute("#game", "data-version"))
    click_and_wait(second, first_or_pass(second))  # B still plays
    assert int(second.get_attribute("#game", "data-version")) > before
    # the first join link again, on a third device: the seat is taken, numbered from 1
    third.goto(join_link)
    third.locator("#fatal").wait_for()
    text = third.inner_text("#fatal")
    assert "Seat 1 has already joined" in text and "hand it over" in text
    # on device A (which kept the old token): the seat moved
    page.goto(join_link)
    page.locator("#fatal[data-reason='seat_moved']").wait_for()


def finished_team_game(server: str) -> dict[str, Any]:
    created = create_game(server, ["random"] * 4, mode="team_2v2", seed=3)
    game_id = created["game_id"]
    for _ in range(600):
        summary: dict[str, Any] = http_json(server, "GET", f"/api/games/{game_id}")
        if summary["status"] == "over":
            return summary
        time.sleep(0.1)
    raise AssertionError("the bots did not finish the team game")


def test_teams_are_named_and_their_chart_has_a_line_per_team(page: Any,
                                                              server: str) -> None:
    # the lobby: creating a team game names the teams over the join links
    page.goto(server + "/")
    page.wait_for_selector("#create")
    page.select_option("#mode", "team_2v2")
    for seat in range(4):
        page.select_option(f"#seat-{seat}", "human" if seat in (0, 2) else "random")
    page.click("#create")
    teams = page.locator("#created-teams li")
    teams.first.wait_for()
    assert teams.count() == 2
    assert teams.nth(0).inner_text().startswith("Team 1: P1 (")
    assert "P3 (" in teams.nth(0).inner_text() and "P2 (" in teams.nth(1).inner_text()
    assert "Seat 1 · Team 1" in page.inner_text("#created")
    # a finished team game: the players panel names the allies, the chart a line per team
    summary = finished_team_game(server)
    game_id = summary["game_id"]
    page.goto(f"{server}/watch/{game_id}")
    end = page.locator("#end")
    end.wait_for(state="visible")
    allies = page.locator("#allies li")
    assert allies.count() == 2
    assert allies.nth(0).inner_text().startswith("Team 1: P1 ")
    assert "P3 " in allies.nth(0).inner_text() and "P4 " in allies.nth(1).inner_text()
    chart = end.locator("#chart svg.chart")
    chart.wait_for()
    assert chart.locator(".chart-team").count() == 2  # the score: one line per team
    assert chart.locator(".chart-seat").count() == 0
    legend = end.locator(".chart-legend li")
    assert legend.count() == 2 and "P1" in legend.nth(0).inner_text() \
        and "P3" in legend.nth(0).inner_text()
    end.locator(".chart-metric[data-metric='gold']").click()  # per player: dashed allies
    chart = end.locator("#chart svg.chart")
    assert chart.locator(".chart-seat").count() == 4
    dashes = [chart.locator(f".chart-seat[data-seat='{seat}'] polyline").first
              .get_attribute("stroke-dasharray") for seat in range(4)]
    assert dashes[0] is None and dashes[1] is None and dashes[2] and dashes[3]
    # the lobby's finished games: the winner and the date
    page.goto(server + "/")
    row = page.locator(f"#finished tr[data-game='{game_id}']")
    row.wait_for()
    winner = row.locator("td.winner").inner_text()
    if summary["winning_team"] is None:
        assert winner == "Draw"
    else:
        n = summary["winning_team"]
        assert winner.startswith(f"Team {n + 1}: P{n + 1} ")
    stamp = row.locator("td.finished-at time")
    assert stamp.get_attribute("datetime") == summary["finished_at"]
    assert stamp.inner_text().strip()
    assert "Team 1: P1 (" in row.inner_text()  # the seats by team there too
