"""The game at a glance (issue 40): the players panel shows every player's score now and its
team's, as the view's ``score`` gives them (the engine's R22.1 / R23.34), with a breakdown
that opens by keyboard; the end screen's headers say points; the log panel reaches every
entry of a long game."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from e2e_support import create_game
from playwright.sync_api import expect

PARTS = ("trophies", "castles", "scalps", "tiles", "gold")


def spectator_view(server: str, game_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/view", timeout=10) as response:
        view: dict[str, Any] = json.load(response)
    return view


def finished(page: Any, server: str, seats: list[str], **fields: Any) -> dict[str, Any]:
    """A bots' game watched to its end; the end screen closed; the spectator's last view."""
    created = create_game(server, seats, **fields)
    page.goto(server + created["spectate"])
    page.wait_for_selector("#board .tile")
    page.wait_for_function("() => document.getElementById('game')?.dataset.over === 'true'",
                           timeout=120_000)
    page.locator("#end").wait_for(state="visible")
    return spectator_view(server, created["game_id"])


def test_the_panel_shows_the_score_and_its_parts_open_by_keyboard(page: Any,
                                                                 server: str) -> None:
    view = finished(page, server, ["random"] * 4, mode="team_2v2", seed=5, name="glance teams")
    end = page.locator("#end")
    heads = end.locator(".scores thead th").all_inner_texts()
    assert heads[0] == "Player" and heads[-1] == "Points"
    assert {"Crowns (points)", "Castles (points)", "Scalps (points)", "Other tiles (points)",
            "Gold (points)"} <= set(heads)
    page.click("#end-close")
    score = view["score"]
    panel = page.locator("#players")
    for seat, parts in enumerate(score["players"]):
        row = panel.locator(f"li.player[data-seat='{seat}']")
        if parts is None:  # R22.2
            expect(row.locator("[data-score]")).to_have_text("not scored")
            continue
        expect(row.locator("details.score > summary b")).to_have_text(str(parts["total"]))
    assert score["teams"] is not None  # team mode: the teams' totals (R23.34)
    for team in score["teams"]:
        expect(panel.locator(f".team-scores li[data-team='{team['team']}'] summary b")
               ).to_have_text(str(team["total"]))
    by_team = {t["team"]: t["total"] for t in score["teams"]}
    for seat, total in enumerate(view["result"]["scores"]):  # the result: the team's (R22.5)
        assert total is None or total == by_team[view["observation"]["teams"][seat]]
    # The breakdown: closed, then open by keyboard (the summary is in the tab order; Enter).
    seat = next(s for s, p in enumerate(score["players"]) if p is not None)
    details = panel.locator(f"details.score[data-score='p{seat}']")
    expect(details.locator(".score-parts")).to_be_hidden()
    details.locator("summary").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('details')?.dataset.score") == f"p{seat}"
    page.keyboard.press("Enter")
    expect(details.locator(".score-parts")).to_be_visible()
    parts = score["players"][seat]
    rows = {r.get_attribute("data-part"): r.locator("td").inner_text()
            for r in details.locator(".score-parts tr[data-part]").all()}
    assert rows == {k: str(parts[k]) for k in (*PARTS, *(("six_gates",) if score["six_gates"]
                                                         else ()))}
    expect(details.locator(".score-total td")).to_have_text(str(parts["total"]))
    page.keyboard.press("Enter")
    expect(details.locator(".score-parts")).to_be_hidden()


def test_a_long_games_log_shows_every_entry(page: Any, server: str) -> None:
    view = finished(page, server, ["random"] * 6, seed=2, name="glance long log")
    entries = view["log"]
    assert view["log_since"] == -1 and entries[-1]["kind"] == "game_over"
    page.click("#end-close")
    lines = page.locator("#log li[data-index]")
    assert entries[0]["index"] == 0 and len(entries) > 300  # the API cuts nothing either
    if len(entries) > 300:  # paged: the newest 300, then older ones on request
        assert lines.count() == 300
        page.locator("#log-older").click()
        assert lines.count() == min(600, len(entries))
        expect(page.locator("#log-older, #log .log")).not_to_have_count(0)
        if page.locator("#log-all").count():
            page.locator("#log-all").click()
    assert lines.count() == len(entries)
    shown = [int(i) for i in lines.evaluate_all("els => els.map(e => e.dataset.index)")]
    assert shown == [e["index"] for e in entries]
    expect(page.locator("#log-older")).to_have_count(0)


def test_the_log_stands_beside_the_actions_at_desktop_width(page: Any, server: str) -> None:
    """At 1280×800 the log is under the board, in view without scrolling, beside the actions
    column; its list scrolls within the height the board leaves."""
    created = create_game(server, ["human", "greedy", "greedy"], seed=12)
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#log .log li")
    assert page.viewport_size == {"width": 1280, "height": 800}
    board = page.locator(".board-wrap").bounding_box()
    log = page.locator("#log .log").bounding_box()
    actions = page.locator("#actions").bounding_box()
    assert board and log and actions
    assert log["y"] >= board["y"] + board["height"]  # under the board
    assert log["x"] + log["width"] <= actions["x"]  # beside the actions, not under them
    assert log["y"] + 100 <= 800  # at least 100 px of it in view without scrolling
    assert page.evaluate("window.scrollY") == 0
