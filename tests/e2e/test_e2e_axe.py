"""An accessibility scan with axe-core 4 (issue 15): no serious or critical violation on the
lobby, a seat's game page, the end screen, the replay page and "How to play", each of the
lobby, "How to play", a game page and the end screen on a phone too (390 px); and, of any
impact, no page without an h1 and no empty table header (issue 40).

axe-core comes from npm (``npm install --prefix DIR axe-core@4``; scripts/test.sh does it);
the tests read ``$KALADAN_AXE_DIR/node_modules/axe-core/axe.min.js`` (default
``~/.cache/kaladan/axe``). Without it they skip, and fail under CI=true.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from e2e_support import checked_page, create_game, wait_for_decision
from test_e2e_table import finished_game

AXE_DIR = Path(os.environ.get("KALADAN_AXE_DIR")
               or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kaladan"
               / "axe")
AXE = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")
ALWAYS = ("page-has-heading-one", "empty-table-header")  # moderate and minor, checked too
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        message = (f"{AXE} is missing: npm install --prefix {AXE_DIR} axe-core@4 "
                   "(scripts/test.sh does it)")
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return AXE.read_text("utf-8")


def violations(page: Any, axe_source: str) -> list[str]:
    """axe-core's serious and critical violations of the page as it is now. The script goes
    in through the DevTools protocol, which the page's Content-Security-Policy does not
    govern (the page itself loads only its own files)."""
    page.evaluate(f"() => {{ {axe_source}\n window.__axe = axe; }}")
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await window.__axe.run(document, {resultTypes: ['violations']}))"
        ".violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 5).map(n => `${n.target.join(' ')}: ${n.failureSummary}`)}))")
    return [f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in found
            if v["impact"] in SERIOUS or v["id"] in ALWAYS]


def test_lobby_and_how_to_play(page: Any, server: str, axe_source: str) -> None:
    finished_game(server)  # the lobby lists a finished game too
    create_game(server, ["human", "greedy"], name="open game")
    page.goto(server + "/")
    page.wait_for_selector("#finished .replay-link")
    page.click(".options summary")  # the rules options open as well
    assert violations(page, axe_source) == []
    page.goto(server + "/how-to-play")
    page.wait_for_selector("#howto")
    assert violations(page, axe_source) == []


def test_lobby_and_how_to_play_on_a_phone(browser: Any, server: str, axe_source: str) -> None:
    """At 390 px the rules' tables scroll sideways: a keyboard reaches them (a region by Tab)."""
    finished_game(server)
    for page in checked_page(browser, viewport=PHONE):
        page.goto(server + "/")
        page.wait_for_selector("#finished .replay-link")
        assert violations(page, axe_source) == []
        page.goto(server + "/how-to-play")
        page.wait_for_selector("#howto .table-scroll")
        assert page.evaluate("[...document.querySelectorAll('#howto .table-scroll')]"
                             ".some((el) => el.scrollWidth > el.clientWidth)")  # it scrolls
        assert violations(page, axe_source) == []


def test_a_seats_game_page(page: Any, server: str, axe_source: str) -> None:
    created = create_game(server, ["human", "greedy", "greedy"], seed=6)
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#board .tile")
    assert wait_for_decision(page)
    page.click("#board .tile.actionable >> nth=0")  # a tile selected: its actions listed
    page.click("#players details.score summary >> nth=0")  # a score's breakdown open
    assert violations(page, axe_source) == []


def test_the_end_screen_and_the_replay(page: Any, server: str, axe_source: str) -> None:
    game_id = finished_game(server)
    page.goto(f"{server}/watch/{game_id}")
    page.locator("#end svg.chart").wait_for()
    assert violations(page, axe_source) == []
    page.goto(f"{server}/replay/{game_id}")
    page.wait_for_selector("#replay-forward")
    page.select_option("#replay-round", index=2)
    page.wait_for_function("() => document.getElementById('game').dataset.version !== '0'")
    page.click(".replay-chart summary")
    assert violations(page, axe_source) == []


def test_a_game_page_and_the_end_screen_on_a_phone(browser: Any, server: str,
                                                   axe_source: str) -> None:
    """At 390 px: a seat's game page with a tile selected (its actions listed), and the end
    screen of a finished game."""
    game_id = finished_game(server)
    created = create_game(server, ["human", "greedy", "greedy"], seed=6)
    for page in checked_page(browser, viewport=PHONE, has_touch=True):
        page.goto(server + created["join"][0]["url"])
        page.wait_for_selector("#board .tile")
        assert wait_for_decision(page)
        page.locator("#board .tile.actionable >> nth=0").click()
        assert violations(page, axe_source) == []
        page.goto(f"{server}/watch/{game_id}")
        page.locator("#end svg.chart").wait_for()
        assert violations(page, axe_source) == []
