"""Write the browser UI's screenshots, docs/ui/*.png (shown in docs/ui.md), from a real
``kaladan serve`` and Debian's Chromium, the way the browser tests start them
(tests/e2e/e2e_support.py). Games are seeded, so the pictures change only when the UI does.

    .venv/bin/python scripts/ui_screenshots.py [--out docs/ui]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from e2e_support import (  # noqa: E402
    ServeProcess,
    click_and_wait,
    create_game,
    first_or_pass,
    wait_for_decision,
)

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
FINISHED_SEED = 3  # two greedy bots: a game with battles, eliminations and a final score
PLAY_SEED = 12  # a person against a greedy bot, for the game page in each language
BATTLE_SEED = 6  # three players: the greedy bots fight (and play a card) while P1 passes


def status(server: str, game_id: str) -> str:
    with urllib.request.urlopen(f"{server}/api/games/{game_id}", timeout=10) as response:
        return str(json.load(response)["status"])


def finished_game(server: str) -> str:
    game_id = str(create_game(server, ["greedy", "greedy"], seed=FINISHED_SEED,
                              name="Greedy against greedy")["game_id"])
    deadline = time.monotonic() + 120
    while status(server, game_id) != "over":
        if time.monotonic() > deadline:
            raise RuntimeError("the bots' game did not end in 120 s")
        time.sleep(0.2)
    return game_id


def page_in(browser: Any, lang: str, viewport: dict[str, int]) -> Any:
    """A page of a fresh context whose UI language is ``lang`` (kept in localStorage)."""
    context = browser.new_context(viewport=viewport, locale="en-GB", reduced_motion="reduce")
    context.add_init_script(f"localStorage.setItem('kaladan.lang', '{lang}')")
    page = context.new_page()
    page.set_default_timeout(20_000)
    return page


def play_to_action(page: Any) -> None:
    """Play on (first action or pass) until the seat decides in its Action phase."""
    for _ in range(30):
        assert wait_for_decision(page)
        if page.locator("#phases li.current").count() and page.evaluate(
                "() => document.querySelector('#actions button[data-action^=\"move \"]') !== null"):
            return
        click_and_wait(page, first_or_pass(page))


def pick_a_mover(page: Any) -> None:
    """Play on to a decision with units to move and pick a unit of the first tile that can
    move: the compose panel offers where it may go."""
    for _ in range(30):
        assert wait_for_decision(page)
        if page.locator("#board .unit.pickable").count():
            page.locator("#board .tile:has(.unit.pickable) .tile-name").first.click()
            page.locator("#compose .unit-toggle").first.click()
            if page.locator("#compose .compose-moves button").count():
                return  # units to move (not, say, to upgrade in the Purchase phase)
            page.keyboard.press("Escape")
        click_and_wait(page, first_or_pass(page))
    raise RuntimeError("no decision with a unit to move in 30 decisions")


def shoot(page: Any, out: Path, name: str) -> None:
    page.wait_for_timeout(300)  # fonts and the last view settle
    page.screenshot(path=str(out / f"{name}.png"))
    print(f"wrote {out / name}.png")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ui")
    args = parser.parse_args(argv)
    if not CHROMIUM.is_file():
        print(f"{CHROMIUM} is missing: install Debian's chromium package", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        serve = ServeProcess(Path(folder)).start()
        server = serve.base
        try:
            over = finished_game(server)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                shots(browser, server, over, args.out)
                browser.close()
        finally:
            serve.stop()
    return 0


def shots(browser: Any, server: str, over: str, out: Path) -> None:
    create_game(server, ["human", "human", "greedy"], name="Friday game")  # waits for people
    page = page_in(browser, "en", DESKTOP)
    page.goto(server + "/")
    page.wait_for_selector("#finished .replay-link")
    shoot(page, out, "lobby")
    page.context.close()

    for lang in ("en", "nl", "de"):
        created = create_game(server, ["human", "greedy"], seed=PLAY_SEED, name=f"Game {lang}")
        page = page_in(browser, lang, DESKTOP)
        page.goto(server + created["join"][0]["url"])
        page.wait_for_selector("#board .tile")
        play_to_action(page)
        shoot(page, out, f"game-{lang}")
        page.context.close()

    # The table on a phone, and a move waiting in the confirm bar (desktop and phone).
    for name, viewport in (("game", DESKTOP), ("game-phone", PHONE)):
        created = create_game(server, ["human", "greedy"], seed=PLAY_SEED, name="Game")
        page = page_in(browser, "en", viewport)
        page.goto(server + created["join"][0]["url"])
        page.wait_for_selector("#board .tile")
        pick_a_mover(page)
        if name == "game-phone":
            shoot(page, out, name)
        page.locator("#compose .compose-moves button").first.click()
        page.locator("#safe-send").wait_for()
        shoot(page, out, f"{name}-confirm")
        page.context.close()

    created = create_game(server, ["human", "greedy", "greedy"], seed=BATTLE_SEED, name="Battle")
    page = page_in(browser, "en", DESKTOP)
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#board .tile")
    for _ in range(60):
        assert wait_for_decision(page)
        if page.locator("#log .log-card_revealed").count():
            break
        click_and_wait(page, first_or_pass(page))
    page.locator("#battle").scroll_into_view_if_needed()
    shoot(page, out, "battle")
    page.context.close()

    for name, viewport in (("end", DESKTOP), ("end-phone", PHONE)):
        page = page_in(browser, "en", viewport)
        page.goto(f"{server}/watch/{over}")
        page.locator("#end #chart svg.chart").wait_for()
        shoot(page, out, name)
        page.context.close()

    page = page_in(browser, "en", DESKTOP)
    page.goto(f"{server}/how-to-play")
    page.wait_for_selector("#howto")
    shoot(page, out, "how-to-play")
    page.context.close()

    tutorial_shot(browser, server, out)

    page = page_in(browser, "en", DESKTOP)
    page.goto(f"{server}/replay/{over}")
    page.wait_for_selector("#replay-round")
    rounds = page.locator("#replay-round option").count()
    page.select_option("#replay-round", index=max(1, rounds // 2))
    page.wait_for_function("() => document.getElementById('game').dataset.version !== '0'")
    shoot(page, out, "replay")
    page.context.close()


def tutorial_shot(browser: Any, server: str, out: Path) -> None:
    """"Learn to play": its first step, the move, with the tiles the guide points at."""
    page = page_in(browser, "en", DESKTOP)
    page.goto(f"{server}/tutorial")
    page.wait_for_selector("#tutorial-guide #tutorial-step")
    while True:  # the event and free spawn, answered as the guide suggests
        assert wait_for_decision(page)
        if not page.locator("#tutorial-aside").count():
            break
        gold = "#actions button[data-action='gold']"
        click_and_wait(page, gold if page.locator(gold).count() else first_or_pass(page))
    shoot(page, out, "tutorial")
    page.context.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
