"""Safe turns (issue 40): a move composed on the board waits in the confirm bar, in words, until
"Send" or Enter; Esc or "Cancel" drops it and nothing reaches the server. A drop onto a unit of
a tile the picked unit may both move to and swap with asks "Move or swap?", and each answer
sends the action chosen. Dragging selects no text. After an action, focus lands on the next
decision: at most three Tabs reach its first control.

Each test brings a game of two human seats to seat 0's first Action phase (scripted over HTTP,
``e2e_support.scripted_steps``) and plays it in the browser."""

from __future__ import annotations

import re
from typing import Any

import pytest
from e2e_support import centre, drag, http_json, last_entry, open_scripted, version, wait_past
from playwright.sync_api import expect

from kaladan.rules.actionlist import ActionList
from kaladan.rules.state import Decision
from kaladan.server.choices import named_form

SEED = 4  # seat 0's first Action phase: moves, and a one-for-one swap onto a tile it may move to


def move_and_swap(state: Any, legal: Any) -> bool:
    """An Action phase where one unit may both move to a tile and swap with a unit there."""
    if state.pending.kind != Decision.ACTION or not isinstance(legal, ActionList):
        return False
    moves = {(a.tile, a.tile2, a.units) for a in legal if a.kind == "move" and len(a.units) == 1}
    return any(a.kind == "swap" and len(a.units) == 1 and len(a.units2) == 1
               and a.units != a.units2 and (a.tile, a.tile2, a.units) in moves for a in legal)


def server_version(server: str, game_id: str) -> int:
    return int(http_json(server, "GET", f"/api/games/{game_id}/view")["version"])


def log_kinds(server: str, game_id: str) -> list[str]:
    return [e["kind"] for e in http_json(server, "GET", f"/api/games/{game_id}/view")["log"]]





def compose_move(page: Any, server: str, game_id: str, token: str) -> tuple[str, str, str]:
    """Pick one unit (unless one is picked: a cancelled move keeps its pick) and click a tile
    it may go to; (source, destination, unit)."""
    view = named_form(http_json(server, "GET", f"/api/games/{game_id}/view", token=token))
    source = view["moves"][0]
    tile, destination = source["from"], source["to"][0]["tile"]
    unit = page.locator(f"#board .tile[data-tile='{tile}'] .unit.pickable").first
    if not page.locator("#board .unit.picked").count():
        unit.click()
    ref = unit.get_attribute("data-unit")
    page.click(f"#board .tile[data-tile='{destination}'] .tile-name")
    return tile, destination, ref


def test_a_misclicked_move_is_cancelled_with_esc_and_enter_sends_it(page: Any,
                                                                    server: str) -> None:
    game_id, token = open_scripted(page, server, SEED, move_and_swap)
    before = server_version(server, game_id)
    kinds = log_kinds(server, game_id)
    tile, destination, _ = compose_move(page, server, game_id, token)
    bar = page.locator("#safe-bar")
    expect(bar).to_be_visible()
    expect(page.locator("#safe-what")).to_have_text(re.compile(f"{tile}.*{destination}"))
    assert page.evaluate("document.activeElement.id") == "safe-send"
    page.keyboard.press("Escape")
    expect(bar).to_be_hidden()
    page.wait_for_timeout(300)  # a send would have been answered by now
    assert server_version(server, game_id) == before == version(page)  # nothing was sent
    assert log_kinds(server, game_id) == kinds
    # "Cancel" drops it as well.
    compose_move(page, server, game_id, token)
    page.click("#safe-cancel")
    expect(bar).to_be_hidden()
    assert server_version(server, game_id) == before
    # Enter sends it, also with focus on the board.
    tile, destination, ref = compose_move(page, server, game_id, token)
    page.focus(f"#board [data-tile='{destination}']")
    page.keyboard.press("Enter")
    wait_past(page, before)
    assert server_version(server, game_id) > before
    moved = last_entry(server, game_id, "moved")
    assert (moved["src"], moved["dst"], moved["units"]) == (tile, destination, [ref])


def move_or_swap_drop(page: Any, server: str, game_id: str,
                      token: str) -> tuple[str, str, str, str]:
    """Drag one unit onto a unit of a tile it may both move to and swap with; (source, other,
    given, taken)."""
    view = named_form(http_json(server, "GET", f"/api/games/{game_id}/view", token=token))
    goes = {m["from"]: m for m in view["moves"]}
    for pair in view["swaps"]:
        if not any(s["sizes"][0] <= 1 <= s["sizes"][1] and s["sizes2"][0] <= 1 <= s["sizes2"][1]
                   for s in pair["shapes"]):
            continue
        for source, other in (pair["tiles"], pair["tiles"][::-1]):
            if other not in {to["tile"] for to in goes[source]["to"]}:
                continue
            for given in goes[source]["units"]:
                taken = next((u for u in goes[other]["units"] if u != given), None)
                if taken is None:
                    continue
                start = centre(page, f"#board .tile[data-tile='{source}'] "
                                     f".unit.pickable[data-unit='{given}']")
                end = centre(page, f"#board .tile[data-tile='{other}'] .unit[data-unit='{taken}']")
                drag(page, start, end)
                return source, other, given, taken
    raise AssertionError("no tile to both move to and swap with")


def test_a_drop_on_an_own_unit_asks_move_or_swap(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, SEED, move_and_swap)
    before = server_version(server, game_id)
    move_or_swap_drop(page, server, game_id, token)
    expect(page.locator("#safe-title")).to_have_text("Move or swap?")
    expect(page.locator("#safe-move")).to_be_visible()
    expect(page.locator("#safe-swap")).to_be_visible()
    page.keyboard.press("Escape")  # neither: nothing is sent
    expect(page.locator("#safe-bar")).to_be_hidden()
    page.wait_for_timeout(300)
    assert server_version(server, game_id) == before
    source, other, given, _ = move_or_swap_drop(page, server, game_id, token)
    page.click("#safe-move")
    wait_past(page, before)
    moved = last_entry(server, game_id, "moved")
    assert (moved["src"], moved["dst"], moved["units"]) == (source, other, [given])


def test_the_swap_answer_sends_the_swap(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, SEED, move_and_swap)
    before = server_version(server, game_id)
    source, other, given, taken = move_or_swap_drop(page, server, game_id, token)
    page.click("#safe-swap")
    wait_past(page, before)
    swapped = last_entry(server, game_id, "swapped")
    sent = {swapped["a"]: swapped["from_a"], swapped["b"]: swapped["from_b"]}
    assert sent == {source: [given], other: [taken]}


def test_no_text_is_selected_by_a_drag(page: Any, server: str) -> None:
    game_id, _ = open_scripted(page, server, SEED, move_and_swap)
    before = server_version(server, game_id)
    start = centre(page, "#board .unit.pickable")
    end = centre(page, "#phases")  # across the board and the panels' text, dropped on no tile
    page.mouse.move(*start)
    page.mouse.down()
    for i in range(1, 13):
        page.mouse.move(start[0] + (end[0] - start[0]) * i / 12,
                        start[1] + (end[1] - start[1]) * i / 12)
    assert page.evaluate("document.documentElement.classList.contains('dragging')")
    assert page.evaluate("getComputedStyle(document.body).userSelect") == "none"
    page.mouse.up()
    assert page.evaluate("window.getSelection().toString()") == ""
    assert not page.evaluate("document.documentElement.classList.contains('dragging')")
    expect(page.locator("#safe-bar")).to_be_hidden()  # dropped on nothing: nothing to send
    assert server_version(server, game_id) == before


FIRST_CONTROL = """() => {
  const panel = document.getElementById('actions');
  const first = panel.querySelector('button, a[href], input, select, summary');
  return Boolean(first) && document.activeElement === first;
}"""


def test_focus_lands_on_the_next_decision(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, SEED, move_and_swap)
    before = version(page)
    compose_move(page, server, game_id, token)
    page.keyboard.press("Enter")  # "Send", focused
    wait_past(page, before)
    page.wait_for_function("() => document.activeElement.closest('#actions') !== null")
    assert page.evaluate("document.activeElement.tagName") == "H2"  # the decision's title
    tabs = 0
    while not page.evaluate(FIRST_CONTROL):
        tabs += 1
        assert tabs <= 3, "three Tabs did not reach the next decision's first control"
        page.keyboard.press("Tab")


def test_the_bar_passes_the_accessibility_scan(page: Any, server: str) -> None:
    """axe-core finds no serious or critical violation with the bar open, in either form; and
    on a phone the bar stays on screen over the board."""
    from test_e2e_axe import AXE, violations

    if not AXE.is_file():
        pytest.skip(f"{AXE} is missing (tests/e2e/test_e2e_axe.py)")
    source = AXE.read_text("utf-8")
    game_id, token = open_scripted(page, server, SEED, move_and_swap)
    compose_move(page, server, game_id, token)
    expect(page.locator("#safe-send")).to_be_visible()
    assert violations(page, source) == []
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")  # and the pick
    move_or_swap_drop(page, server, game_id, token)
    expect(page.locator("#safe-swap")).to_be_visible()
    assert violations(page, source) == []
    page.set_viewport_size({"width": 390, "height": 844})
    box = page.locator("#safe-bar").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 844


def test_esc_gives_the_keyboard_its_tile_back(page: Any, server: str) -> None:
    """A move composed from the keyboard and cancelled: focus returns to the tile it was
    composed on, and nothing was sent."""
    game_id, token = open_scripted(page, server, SEED, move_and_swap)
    before = server_version(server, game_id)
    view = named_form(http_json(server, "GET", f"/api/games/{game_id}/view", token=token))
    source = view["moves"][0]
    page.locator(f"#board .tile[data-tile='{source['from']}'] .unit.pickable").first.click()
    destination = source["to"][0]["tile"]
    page.focus(f"#board [data-tile='{destination}']")
    page.keyboard.press("Enter")  # the picked unit goes there: to the bar
    assert page.evaluate("document.activeElement.id") == "safe-send"
    page.keyboard.press("Escape")
    expect(page.locator("#safe-bar")).to_be_hidden()
    assert page.evaluate("document.activeElement.dataset.tile") == destination
    assert server_version(server, game_id) == before
