"""Words in the chosen language (issue 15): a game created in the lobby without a name is
named in the creator's language, not the server's English default."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect


@pytest.mark.parametrize(("lang", "prefix"), [("nl", "Spel van "), ("de", "Spiel von ")])
def test_a_game_without_a_name_is_named_in_the_creators_language(
        page: Any, server: str, lang: str, prefix: str) -> None:
    page.add_init_script(f"localStorage.setItem('kaladan.lang', '{lang}')")
    page.goto(server + "/")
    page.click("#create")
    link = page.locator("#join-0")
    link.wait_for()
    game_id = (link.get_attribute("href") or "").split("/")[2]
    expect(page.locator(f"#games tr[data-game='{game_id}'] td").first).to_have_text(
        re.compile(f"^{prefix}\\d"))
