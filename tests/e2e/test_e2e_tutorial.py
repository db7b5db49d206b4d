"""The tutorial, "Learn to play" (issue 40): the first game played to its end in the browser
through the real table, clicking what the guide points at (the board's tiles and units, the
confirm bar's Send, the attack and its odds dialog, the magic card, the purchase), each step's
guide text shown and left behind in turn; the guide in Dutch and German; and an axe-core scan
of the tutorial's game page on a desktop and a phone."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from e2e_support import checked_page, click_and_wait, version, wait_for_decision, wait_past
from playwright.sync_api import expect
from test_e2e_axe import PHONE, axe_source, violations

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = json.loads((ROOT / "src" / "kaladan" / "server" / "static" / "data"
                       / "tutorial.json").read_text("utf-8"))
STEPS = {step["id"]: step for step in TUTORIAL["steps"]}
__all__ = ["axe_source"]  # the fixture, imported for the scan below


def strings(lang: str) -> dict[str, str]:
    catalogue = json.loads((ROOT / "src" / "kaladan" / "i18n" / "catalogue" / f"{lang}.json")
                           .read_text("utf-8"))
    found: dict[str, str] = catalogue["tutorial"]
    return found


EN = strings("en")


def step_text(step: str, lang_strings: dict[str, str] = EN, card: str = "",
              result: str = "") -> str:
    tiles = STEPS[step]["tiles"] + ["", ""]
    return lang_strings[f"step_{step}"].format(**{"from": tiles[0], "to": tiles[1], "card": card,
                                                  "result": result})


def open_tutorial(page: Any, server: str) -> None:
    page.goto(server + "/tutorial")
    page.wait_for_url(re.compile(r"/play/g_\w+/0$"))
    page.wait_for_selector("#tutorial-guide #tutorial-step")


def guide_at(page: Any, step: str) -> None:
    """Wait until the guide shows ``step`` (``done``: its last words)."""
    page.wait_for_selector(f"#tutorial-guide[data-step='{step}']")


def answer(page: Any, text: str) -> None:
    """An answer the guide suggests to a decision it does not teach (take the gold, done,
    pass), given when the seat is asked it."""
    assert wait_for_decision(page)
    expect(page.locator("#tutorial-aside")).to_be_visible()
    click_and_wait(page, f"#actions button[data-action='{text}']")


def test_the_tutorial_is_played_to_its_end(page: Any, server: str) -> None:
    open_tutorial(page, server)
    guide = page.locator("#tutorial-guide")
    assert page.title()
    learner = TUTORIAL["learner"]
    ours = [text for seat, text in TUTORIAL["line"] if seat == learner]
    taught = {step["action"]: step["id"] for step in TUTORIAL["steps"] if step["action"]}
    for text in ours:
        if text not in taught:
            answer(page, text)
            continue
        step = taught[text]
        assert wait_for_decision(page)
        guide_at(page, step)
        expect(page.locator("#tutorial-step")).to_have_text(
            step_text(step, card="Dawn's Sword"))
        expect(page.locator("#tutorial-aside")).to_have_count(0)  # the step's own decision
        if step == "move":
            for tile in STEPS["move"]["tiles"]:
                marked = page.locator(f"#board .tile.tutorial-mark[data-tile='{tile}']")
                expect(marked).to_have_count(1)
            source, target = STEPS["move"]["tiles"]
            for unit in ("general", "sword"):
                page.click(f"#board .tile[data-tile='{source}'] "
                           f".unit.pickable[data-unit$='{unit}']")
            page.click(f"#board .tile[data-tile='{target}'] .tile-name")
            send = page.locator("#safe-send")
            expect(send).to_have_class(re.compile("tutorial-mark"))
            before = version(page)
            send.click()
            wait_past(page, before)
        elif step == "attack":
            a, d = STEPS["attack"]["tiles"]
            page.click(f"#board [data-tile='{a}']")
            page.click(f"#board [data-tile='{d}']")
            button = page.locator(f"#tile-actions button[data-action='{text}']")
            expect(button).to_have_class(re.compile("tutorial-mark"))
            button.click()
            dialog = page.locator("#confirm")
            dialog.wait_for(state="visible")
            chance = float(dialog.locator("[data-odds]").get_attribute("data-odds"))
            assert chance > 0.5  # a sensible attack
            said = f"{EN['odds_open']} {EN['odds_good']}"
            expect(page.locator("#tutorial-aside")).to_have_text(said)
            expect(dialog.locator("#tutorial-odds")).to_have_text(said)  # in the modal too
            before = version(page)
            page.click("#confirm-ok")
            wait_past(page, before)
        elif step == "magic":
            click_and_wait(page, f"#actions button[data-action='{text}']")
            guide_at(page, "battle")
            expect(page.locator("#tutorial-step")).to_have_text(
                step_text("battle", result=EN["battle_taken"]))  # the attack was won
            page.click("#tutorial-show-battle")
            expect(page.locator("#battle")).to_be_in_viewport()
            page.click("#tutorial-next")
        elif step == "purchase":
            tile = STEPS["purchase"]["tiles"][0]
            page.click(f"#board [data-tile='{tile}'] .tile-name")
            page.click(f"#actions button[data-action='{text}']")
            before = version(page)
            page.click("#safe-send")
            wait_past(page, before)
    guide_at(page, "done")
    expect(guide.locator("h2")).to_have_text(EN["done_title"])
    expect(guide).to_contain_text(EN["done"])
    expect(page.locator("#tutorial-new")).to_have_attribute("href", "/")
    page.click("#tutorial-close")
    expect(guide).to_have_count(0)


def test_the_lobby_and_how_to_play_link_to_the_tutorial(page: Any, server: str) -> None:
    for path in ("/", "/how-to-play"):
        page.goto(server + path)
        expect(page.locator("#tutorial-link")).to_have_attribute("href", "/tutorial")
    page.click("#tutorial-link")
    page.wait_for_selector("#tutorial-guide #tutorial-step")


@pytest.mark.parametrize("lang", ["nl", "de"])
def test_the_tutorial_starts_in_dutch_and_german(browser: Any, server: str, lang: str) -> None:
    words = strings(lang)
    for page in checked_page(browser, viewport={"width": 1280, "height": 800}):
        page.add_init_script(f"localStorage.setItem('kaladan.lang', '{lang}')")
        open_tutorial(page, server)
        expect(page.locator("#tutorial-step")).to_have_text(step_text("move", words))
        expect(page.locator("#tutorial-title")).to_contain_text(words["title"])


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, PHONE],
                         ids=["desktop", "phone"])
def test_the_tutorial_page_passes_axe(browser: Any, server: str, axe_source: str,
                                      viewport: dict[str, int]) -> None:
    for page in checked_page(browser, viewport=viewport):
        open_tutorial(page, server)
        assert wait_for_decision(page)
        expect(page.locator("#tutorial-aside")).to_be_visible()
        assert violations(page, axe_source) == []


def test_a_learner_who_goes_another_way_is_told_so_and_led_on(page: Any, server: str) -> None:
    """A move other than the suggested one completes the move step too: the guide says the
    learner went their own way and goes on to the attack."""
    open_tutorial(page, server)
    for text in ("gold", "end"):  # the event and free spawn, as the guide suggests
        answer(page, text)
    assert wait_for_decision(page)
    guide_at(page, "move")
    source, suggested = STEPS["move"]["tiles"]
    page.click(f"#board .tile[data-tile='{source}'] .unit.pickable[data-unit$='crown']")
    other = page.locator(f"#board .tile.target:not([data-tile='{suggested}'])").first
    other.locator(".tile-name").click()
    before = version(page)
    page.click("#safe-send")
    wait_past(page, before)
    guide_at(page, "attack")
    expect(page.locator("#tutorial-off-plan")).to_have_text(EN["off_plan"])


def test_the_first_step_is_taken_on_a_phone(browser: Any, server: str) -> None:
    """On a phone the units are picked in the tile's list (a finger picks tiles, not tokens):
    the move step's words say so, and that way completes it."""
    for page in checked_page(browser, viewport=PHONE):
        open_tutorial(page, server)
        for text in ("gold", "end"):
            answer(page, text)
        assert wait_for_decision(page)
        guide_at(page, "move")
        source, target = STEPS["move"]["tiles"]
        page.click(f"#board .tile[data-tile='{source}'] .tile-name")
        for unit in ("general", "sword"):
            token = f"#board .tile[data-tile='{source}'] .unit[data-unit$='{unit}']"
            slot = page.get_attribute(token, "data-slot")
            page.click(f"#compose .unit-toggle[data-tile='{source}'][data-slot='{slot}']")
        page.click(f"#board .tile[data-tile='{target}'] .tile-name")
        before = version(page)
        page.click("#safe-send")
        wait_past(page, before)
        guide_at(page, "attack")
        expect(page.locator("#tutorial-off-plan")).to_have_count(0)  # the suggested move
