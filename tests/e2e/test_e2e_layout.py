"""The UI on a phone-sized screen and in Dutch and German."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    actionable_tile,
    checked_page,
    create_game,
    entry_text,
    public_view,
    realms_of,
    wait_for_decision,
)
from playwright.sync_api import expect

DATA = Path(__file__).resolve().parents[2] / "src" / "kaladan" / "server" / "static" / "data"
PHONE = {"width": 390, "height": 844}
NO_OVERFLOW = "() => document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    yield from checked_page(browser, viewport=PHONE, is_mobile=True, has_touch=True,
                            device_scale_factor=2)


def test_phone_layout_has_no_horizontal_overflow(phone: Any, server: str) -> None:
    phone.goto(server + "/")
    phone.wait_for_selector("#create")
    assert phone.evaluate(NO_OVERFLOW)
    phone.click("#create")
    phone.wait_for_selector("#join-0")
    assert phone.evaluate(NO_OVERFLOW)  # long join links wrap

    created = create_game(server, ["human", "random", "random"], name="phone game")
    phone.goto(server + created["join"][0]["url"])
    phone.wait_for_selector("#board .tile")
    assert wait_for_decision(phone)
    assert phone.evaluate(NO_OVERFLOW)
    board = phone.locator("#board").bounding_box()
    assert board is not None and board["width"] <= PHONE["width"]
    for panel in ("#actions", "#players", "#log"):  # every panel fits the screen's width
        box = phone.locator(panel).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    # Tapping a tile where something can be done offers it: its units to pick, or its actions.
    tile = actionable_tile(phone)
    phone.tap(f"#board [data-tile='{tile}'] .tile-name")
    phone.wait_for_selector("#compose button, #tile-actions button[data-action]")
    assert phone.evaluate(NO_OVERFLOW)


def test_language_switch(page: Any, server: str) -> None:
    page.goto(server + "/")
    expect(page.locator("#create-panel h2")).to_have_text("New game")
    page.select_option("#lang", "nl")
    expect(page.locator("#create-panel h2")).to_have_text("Nieuw spel")
    expect(page.locator("#create")).to_have_text("Spel aanmaken")
    page.select_option("#lang", "de")
    expect(page.locator("#create-panel h2")).to_have_text("Neues Spiel")
    page.reload()  # the choice is remembered
    expect(page.locator("#create")).to_have_text("Spiel erstellen")
    assert page.evaluate("document.documentElement.lang") == "de"

    created = create_game(server, ["human", "random"], name="Sprachen")
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#board .tile")
    assert wait_for_decision(page)
    expect(page.locator("#phases")).to_contain_text("Ereignisphase")  # glossary names
    expect(page.locator("#phases")).to_contain_text("Kaufphase")
    expect(page.locator("#players h2")).to_have_text("Spieler")
    expect(page.locator(".legend")).to_contain_text("Ebene")
    page.select_option("#lang", "nl")  # switching in a game re-renders it at once
    expect(page.locator("#phases")).to_contain_text("Gebeurtenisfase")
    expect(page.locator(".legend")).to_contain_text("Veld")
    expect(page.locator("#actions h2")).to_have_text("Wat je kunt doen")
    card = page.locator("#cards .card").first
    card_id = card.get_attribute("data-card")
    assert card_id is not None
    dutch = json.loads((DATA / "cards.json").read_text("utf-8"))["magic"][card_id]["text"]["nl"]
    expect(card).to_contain_text(dutch)  # the hand's card text, in Dutch
    with urllib.request.urlopen(f"{server}/api/games/{created['game_id']}/view") as response:
        public = json.load(response)["log"]  # the log's sentences, in Dutch
    entry = public[-1]
    # The entry's sentence (an event card drawn is followed by the card's text).
    line = page.locator(f"#log li[data-index='{entry['index']}'] :is(.entry-text, .log-battle)")
    realms = realms_of(public_view(server, created["game_id"]))
    expect(line).to_have_text(entry_text(entry, "nl", realms))
    assert entry_text(entry, "nl", realms) != entry_text(entry, "en", realms)


def test_keyboard_selects_a_tile(page: Any, server: str) -> None:
    created = create_game(server, ["human", "random"], name="keyboard")
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#board .tile")
    assert wait_for_decision(page)
    tile = actionable_tile(page)
    page.focus(f"#board [data-tile='{tile}']")
    page.keyboard.press("Enter")
    # The tile's units to pick (the compose panel's toggles) or its other actions.
    expect(page.locator("#compose .unit-toggle, #tile-actions button[data-action]").first
           ).to_be_visible()
    assert page.evaluate("document.activeElement.dataset.tile") == tile  # focus stays put
    for text in page.eval_on_selector_all("#tile-actions button[data-action]",
                                          "els => els.map(e => e.dataset.action)"):
        assert tile in text.split()
    toggles = page.locator("#compose .unit-toggle")
    assert all(t.get_attribute("data-tile") == tile for t in toggles.all())
    if toggles.count():  # a unit is picked from the keyboard too
        toggles.first.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#compose .unit-toggle").first).to_have_attribute(
            "aria-pressed", "true")
        assert page.evaluate("document.activeElement.classList.contains('unit-toggle')")
        page.keyboard.press("Enter")  # the focus stayed on it: Enter again unpicks it
        expect(page.locator("#compose .unit-toggle").first).to_have_attribute(
            "aria-pressed", "false")
