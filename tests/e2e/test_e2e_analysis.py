"""A finished game's analysis in the browser (issue 44): the end screen and the replay page
draw every seat's chance to win decision by decision, one line per seat with a legend and a
text alternative, and list each seat's costliest decisions in words, as the server's
analysis says; the replay page jumps to one; axe finds nothing serious on either."""

from __future__ import annotations

from typing import Any

from e2e_support import http_json
from playwright.sync_api import expect
from test_e2e_axe import axe_source, violations  # noqa: F401  (a fixture)
from test_e2e_table import finished_game

ANALYSED = 90_000  # ms: the first analysis starts a worker and searches; later ones are kept


def check_analysis(part: Any, analysis: dict[str, Any]) -> None:
    """One line and one legend entry per seat; each seat's costly decisions as listed."""
    chart = part.locator("svg.win-chart")
    expect(chart).to_be_visible()
    assert chart.locator(".win-seat").count() == analysis["players"] == 2
    for seat in range(2):
        line = chart.locator(f".win-seat[data-seat='{seat}'] polyline")
        assert len(line.get_attribute("points").split()) == analysis["decisions"] + 1
    assert part.locator(".win-legend li").count() == 2
    label = chart.get_attribute("aria-label") or ""
    for name in part.locator(".win-legend li").all_inner_texts():
        assert name.strip() in label  # the text alternative names every player
    for seat, costly in enumerate(analysis["costly"]):
        items = part.locator(f".win-costly-seat[data-seat='{seat}'] .win-costly-item")
        assert items.count() == len(costly)
        for i, item in enumerate(costly):
            assert items.nth(i).get_attribute("data-version") == str(item["version"])
            assert f"Decision {item['version'] + 1}:" in items.nth(i).inner_text()


def test_the_end_screen_and_the_replay_show_the_analysis(page: Any, server: str,
                                                         axe_source: str) -> None:  # noqa: F811
    game_id = finished_game(server)
    page.goto(f"{server}/watch/{game_id}")
    end = page.locator("#end")
    end.wait_for(state="visible")
    end.locator("svg.win-chart").wait_for(timeout=ANALYSED)
    analysis = http_json(server, "GET", f"/api/games/{game_id}/analysis")
    assert isinstance(analysis, dict)
    check_analysis(end.locator(".end-analysis"), analysis)
    assert violations(page, axe_source) == []

    page.goto(f"{server}/replay/{game_id}")
    page.wait_for_selector("#replay-forward")
    page.click(".replay-analysis summary")
    part = page.locator(".replay-analysis")
    part.locator("svg.win-chart").wait_for()
    check_analysis(part, analysis)
    assert part.locator(".win-now").count() == 1  # where the replay stands
    costly = [item for per_seat in analysis["costly"] for item in per_seat]
    if costly:
        item = part.locator(".win-costly-item").first
        target = item.get_attribute("data-version")
        item.locator(".win-jump").click()
        page.wait_for_function(
            f"() => document.getElementById('game').dataset.version === '{target}'")
        expect(page.locator(".replay-analysis svg.win-chart")).to_be_visible()  # still open
    assert violations(page, axe_source) == []
