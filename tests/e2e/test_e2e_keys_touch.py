"""Keys and touch (issue 40): the answers that end a step (Pass, Done, No magic card) have a key
each, shown on their button, that puts the answer in the confirm bar (Esc drops it, Enter sends
it); on a phone (390 px) a finger picks tiles, never 22 px tokens, and every control of the game
page is at least 44 px square, so a turn is played by taps on tiles and on the compose panel.

Each test brings a game of two human seats to seat 0's first Action phase (scripted over HTTP,
``e2e_support.scripted_steps``)."""

from __future__ import annotations

import re
from typing import Any

from e2e_support import checked_page, http_json, open_scripted, version, wait_past
from playwright.sync_api import expect

from kaladan.rules.state import Decision
from kaladan.server.choices import named_form

SEED = 4
PHONE = {"width": 390, "height": 844}
TOUCH_TARGET = 44  # px: the touch-target guideline the page keeps on phones


def action_phase(state: Any, legal: Any) -> bool:
    return bool(state.pending.kind == Decision.ACTION)


def server_view(server: str, game_id: str) -> dict[str, Any]:
    return http_json(server, "GET", f"/api/games/{game_id}/view")


def test_the_pass_key_asks_first_and_enter_sends(page: Any, server: str) -> None:
    game_id, _ = open_scripted(page, server, SEED, action_phase)
    button = page.locator("#actions .quick button.kind-pass")
    expect(button).to_have_attribute("aria-keyshortcuts", "p")
    expect(button.locator("kbd")).to_have_text("P")
    before = version(page)
    entries = len(server_view(server, game_id)["log"])
    page.locator("#actions h2").focus()
    page.keyboard.press("p")
    bar = page.locator("#safe-bar")
    expect(bar).to_be_visible()
    expect(page.locator("#safe-what")).to_have_text("Pass")
    page.keyboard.press("Escape")
    expect(bar).to_be_hidden()
    page.wait_for_timeout(300)  # a send would have been answered by now
    assert server_view(server, game_id)["version"] == before == version(page)
    assert len(server_view(server, game_id)["log"]) == entries
    # A key typed into a form field is text, not an answer.
    page.locator("#auto-answer").focus()
    page.keyboard.press("p")
    expect(bar).to_be_hidden()
    page.locator("#actions h2").focus()
    page.keyboard.press("p")
    expect(bar).to_be_visible()
    page.keyboard.press("Enter")
    wait_past(page, before)
    passed = [e for e in server_view(server, game_id)["log"][entries:] if e["kind"] == "passed"]
    assert passed and passed[0]["seat"] == 0


def test_keys_follow_the_language(page: Any, server: str) -> None:
    game_id, _ = open_scripted(page, server, SEED, action_phase)
    page.select_option("#lang", "de")
    button = page.locator("#actions .quick button.kind-pass")
    expect(button).to_contain_text("Passen")
    expect(button).to_have_attribute("aria-keyshortcuts", "p")
    before = version(page)
    page.locator("#actions h2").focus()
    page.keyboard.press("d")  # English "Done" is no key in German: nothing happens
    expect(page.locator("#safe-bar")).to_be_hidden()
    assert version(page) == before


def test_a_phone_turn_is_played_by_taps_on_tiles_and_large_controls(browser: Any,
                                                                     server: str) -> None:
    for page in checked_page(browser, viewport=PHONE, has_touch=True):
        game_id, token = open_scripted(page, server, SEED, action_phase)
        view = named_form(http_json(server, "GET", f"/api/games/{game_id}/view", token=token))
        source = view["moves"][0]
        tile, destination = source["from"], source["to"][0]["tile"]
        # Tiles are the touch targets, tokens are not (a tap on a token reaches its tile).
        for box in page.eval_on_selector_all(
                "#board .tile .hex", "els => els.map((e) => e.getBoundingClientRect().toJSON())"):
            assert box["width"] >= TOUCH_TARGET and box["height"] >= TOUCH_TARGET, box
        token_el = page.locator(f"#board .tile[data-tile='{tile}'] .unit.pickable").first
        assert token_el.evaluate("el => getComputedStyle(el).pointerEvents") == "none"
        box = token_el.bounding_box()
        assert box is not None
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        expect(page.locator(f"#board .tile[data-tile='{tile}']")).to_have_class(
            re.compile(r"\bselected\b"))
        toggles = page.locator("#compose .unit-toggle")
        expect(toggles.first).to_be_visible()
        small = page.eval_on_selector_all(
            "#game button, #game select, #game summary",
            f"""els => els.filter((e) => e.offsetParent !== null && !e.classList.contains('link'))
              .map((e) => [e.id || e.className || e.textContent, e.getBoundingClientRect()])
              .filter(([, r]) => r.width < {TOUCH_TARGET} || r.height < {TOUCH_TARGET})
              .map(([name, r]) => `${{name}} ${{r.width}}x${{r.height}}`)""")
        assert not small, small
        toggles.first.tap()
        expect(toggles.first).to_have_attribute("aria-pressed", "true")
        target = page.locator(f"#board .tile[data-tile='{destination}'] .hex")
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        assert box is not None
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        send = page.locator("#safe-send")
        expect(send).to_be_visible()
        assert send.bounding_box()["height"] >= TOUCH_TARGET  # type: ignore[index]
        # The bar sits at the bottom of the screen, over the board, and covers little of it.
        bar = page.locator("#safe-bar").bounding_box()
        assert bar is not None
        assert bar["y"] + bar["height"] <= PHONE["height"] and bar["height"] < PHONE["height"] / 3
        before = version(page)
        send.tap()
        wait_past(page, before)
        moved = [e for e in server_view(server, game_id)["log"] if e["kind"] == "moved"]
        assert moved and (moved[-1]["src"], moved[-1]["dst"]) == (tile, destination)
