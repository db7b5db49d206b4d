"""How to play (issue 15): the rules in short in en, nl and de, every number from the
engine's data; reachable from every screen; a unit on the board shows its dice on hover and
on a long press."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from e2e_support import create_game
from playwright.sync_api import expect
from test_e2e_table import finished_game

from kaladan.rules.catalog import GLOSSARY
from kaladan.rules.combat import bonus_dice
from kaladan.rules.world import CAPACITY, Terrain

STATIC = Path(__file__).parents[2] / "src" / "kaladan" / "server" / "static"
UNITS = json.loads((STATIC / "data" / "units.json").read_text("utf-8"))["units"]
DIE = {"en": "D", "nl": "W", "de": "W"}  # the seeds' W12 in Dutch and German
PHASES = {"event": "event_phase", "spawn": "free_spawn_phase", "income": "income_phase",
          "action": "action_phase", "purchase": "purchase_phase",
          "reinforce": "reinforcement_phase"}


def dice(sizes: list[int] | None, lang: str) -> str:
    return " + ".join(f"{DIE[lang]}{n}" for n in sizes) if sizes else "—"


def in_language(page: Any, lang: str) -> None:
    page.add_init_script(f"localStorage.setItem('kaladan.lang', '{lang}')")


@pytest.mark.parametrize("lang", ["en", "nl", "de"])
def test_how_to_play_shows_the_engines_numbers(page: Any, server: str, lang: str) -> None:
    in_language(page, lang)
    page.goto(server + "/how-to-play")
    page.wait_for_selector("#howto")
    for unit, data in UNITS.items():  # R13.1
        cells = page.locator(f".howto-units tr[data-unit='{unit}'] td").all_inner_texts()
        assert cells[:4] == [dice(data[k], lang) for k in ("attack", "defence", "attack_up",
                                                          "defence_up")], (unit, cells)
        if data["place_cost"] is not None:
            assert cells[4].startswith(str(data["place_cost"]))
    for kind in (Terrain.FIELD, Terrain.FOREST, Terrain.MOUNTAIN, Terrain.CASTLE):  # R4.5, 15
        row = page.locator(f".howto-terrain tr[data-terrain='{kind.label}'] td")
        assert row.nth(0).inner_text() == str(CAPACITY[kind])
        for size in bonus_dice(kind, Terrain.FIELD, False)[0] + bonus_dice(
                Terrain.FIELD, kind, False)[1]:
            assert f"{DIE[lang]}{size}" in row.nth(1).inner_text()
    upgraded = page.locator(".howto-terrain tr[data-terrain='upgraded_castle'] td").nth(1)
    assert f"{DIE[lang]}{bonus_dice(Terrain.FIELD, Terrain.CASTLE, True)[1][0]}" in \
        upgraded.inner_text()  # R15.5
    phases = page.locator(".howto-phases li b").all_inner_texts()  # R6.2, the default order
    assert phases == [getattr(GLOSSARY[PHASES[p]], lang) for p in PHASES]
    formula = page.locator("#howto-formula").inner_text()  # R22.1
    numbers = [int(n) for n in re.findall(r"\d+", formula.split("(R22")[0])]
    assert numbers == [5, 3, 2, 1, 1, 2]  # Crown 5, castle 3, scalp 2, tile 1, 1 per 2 gold
    if lang == "nl":
        assert "scalp" in formula
    text = page.locator("#howto").inner_text()
    assert f"{DIE[lang]}12" in text and ("D12" not in text or lang == "en")


def test_every_screen_links_to_how_to_play(page: Any, server: str) -> None:
    game_id = finished_game(server)
    created = create_game(server, ["human", "random"])
    for path in ("/", created["join"][0]["url"], f"/watch/{game_id}", f"/replay/{game_id}"):
        page.goto(server + path)
        link = page.locator("#howto-link")
        expect(link).to_have_attribute("href", "/how-to-play")
    with page.context.expect_page() as opened:
        page.click("#howto-link")  # from the replay: a new tab, the replay stays
    rules = opened.value
    rules.wait_for_selector("#howto")
    assert "/replay/" in page.url
    rules.close()


def test_a_unit_shows_its_dice_on_hover_and_long_press(page: Any, server: str) -> None:
    game_id = create_game(server, ["random", "random"], seed=5)["game_id"]
    page.goto(f"{server}/watch/{game_id}")
    unit = page.locator("#board .unit[data-unit$='/archer'], #board .unit[data-unit$='/sword'],"
                        " #board .unit[data-unit$='/shield']").first
    unit.wait_for()
    kind = (unit.get_attribute("data-unit") or "").split("/")[1]
    want = f"attack {dice(UNITS[kind]['attack'], 'en')} · defence " \
           f"{dice(UNITS[kind]['defence'], 'en')}"
    assert want in unit.locator("title").text_content()
    page.evaluate("""(ref) => {
      const el = document.querySelector(`#board .unit[data-unit='${ref}']`);
      el.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true, pointerType: 'touch',
                                                        clientX: 5, clientY: 5}));
    }""", unit.get_attribute("data-unit"))
    expect(page.locator("#toasts")).to_contain_text(want)
