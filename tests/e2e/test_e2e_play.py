"""Play in the browser by clicking: create a game against a bot in the lobby, join it, make
moves on the board, buy a unit, attack after seeing the exact odds, watch the battle view,
reload and play on; finish a short game to the end screen; watch as a spectator."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from e2e_support import (
    ServeProcess,
    actions,
    click_and_wait,
    create_game,
    first_or_pass,
    move_by_board,
    version,
    wait_for_decision,
    wait_past,
)

MAX_DECISIONS = 250


def attack_by_board(page: Any, text: str) -> float:
    """Attack by clicking both tiles and the offered attack, check the odds dialog, confirm.
    Returns the win chance the dialog showed."""
    _, a, d = text.split()
    page.click(f"#board [data-tile='{a}']")
    page.click(f"#board [data-tile='{d}']")
    page.click(f"#tile-actions button[data-action='{text}']")
    dialog = page.locator("#confirm")
    dialog.wait_for(state="visible")
    chance = float(dialog.locator("[data-odds]").get_attribute("data-odds"))
    shown = dialog.locator(".win-chance").inner_text()
    assert re.search(rf"{100 * chance:.1f}%", shown), shown  # the exact odds, as a percentage
    before = version(page)
    page.click("#confirm-ok")
    wait_past(page, before)
    return chance


def test_lobby_battle_purchase_reload(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.select_option("#seat-1", "random")
    assert page.is_checked("#quick")
    page.click("#create")
    join = page.locator("#join-0")
    assert "code=" in (join.get_attribute("href") or "")
    assert page.locator("#spectate-link").is_visible()
    join.click()
    page.wait_for_selector("#board [data-tile='C1']")
    assert "code=" not in page.url  # the one-time code is stripped from the address bar
    game_url = page.url
    assert re.search(r"/play/g_[\w]+/0$", game_url)

    rng = random.Random(8)
    attacked: list[str] = []  # the tiles of our last attack
    bought = None
    saw_pairs = False
    for _ in range(MAX_DECISIONS):
        if not wait_for_decision(page):
            break
        battle = page.locator("#battle")
        if attacked and battle.locator(".pairs .pair").count():
            sides = battle.locator(".sides").inner_text()
            if f"({attacked[0]})" in sides and f"({attacked[1]})" in sides:  # our battle
                saw_pairs = True
                assert battle.locator(".hits").is_visible()
        if saw_pairs and bought:
            break
        legal = actions(page)
        attacks = [a for a in legal if a.startswith("attack ")]
        buys = actions(page, "#purchase button[data-action^='buy ']")
        if attacks and not saw_pairs:
            chance = attack_by_board(page, attacks[0])
            assert 0.0 <= chance <= 1.0
            attacked = attacks[0].split()[1:]
            assert page.locator("#battle").is_visible()  # the battle view opens at once
        elif buys and not bought:
            gold_before = page.locator("#players .player.me .player-stats b").first.inner_text()
            bought = buys[0]
            click_and_wait(page, f"#purchase button[data-action='{bought}']")
            assert page.locator("#log .log-bought").count() >= 1  # the engine's entry
            assert " buys " in page.locator("#log .log-bought").last.inner_text()
            gold_after = page.locator("#players .player.me .player-stats b").first.inner_text()
            assert int(gold_after) < int(gold_before)
        elif rng.random() < 0.8 and move_by_board(page, rng):
            pass
        else:
            click_and_wait(page, first_or_pass(page))
    assert saw_pairs, "no battle with rolled dice was seen"
    assert bought, "no unit was bought"
    pairs = page.locator("#battle .pairs .pair:not(.unpaired)")
    assert pairs.count() >= 1 and page.locator("#battle .die.attack").count() >= 1

    # Reload: the stored seat token reconnects and the view comes back where it was.
    if page.get_attribute("#game", "data-over") == "true":
        return
    before = version(page)
    page.reload()
    page.wait_for_selector("#board [data-tile='C1']")
    page.wait_for_function(
        f"() => Number(document.getElementById('game')?.dataset.version) >= {before}")
    assert page.url == game_url
    assert page.locator("#players .player.me").count() == 1
    assert page.locator("#conn[data-status='online']").count() == 1
    for _ in range(3):  # and play on
        if not wait_for_decision(page):
            break
        click_and_wait(page, first_or_pass(page))
    assert version(page) > before


def test_finish_short_game(page: Any, server: str) -> None:
    created = create_game(server, ["human", "greedy"], name="short game")
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#board .tile")
    for _ in range(MAX_DECISIONS):
        if not wait_for_decision(page):
            break
        click_and_wait(page, first_or_pass(page))
    assert page.get_attribute("#game", "data-over") == "true", "the game did not end"
    end = page.locator("#end")
    end.wait_for(state="visible")
    assert end.locator(".scores tbody tr").count() == 2
    assert end.locator(".scores tr.winner").count() >= 1
    # the tie-break rules are stated, in words (rule ids stay off player pages)
    assert "Ties: most units on the board" in end.inner_text()
    assert "R22" not in end.inner_text()
    assert end.locator("a[href$='/record']").count() == 1


def test_spectator_sees_the_board_and_no_actions(page: Any, server: str) -> None:
    created = create_game(server, ["greedy", "random"], name="bots only")
    page.goto(server + created["spectate"])
    page.wait_for_selector("#board .tile")
    page.wait_for_function("() => Number(document.getElementById('game').dataset.version) > 3")
    assert page.locator("#actions button[data-action]").count() == 0
    assert page.locator("#cards").is_hidden()  # a spectator has no hand
    assert page.locator("#players .player").count() == 2
    assert "spectator" in page.locator("#game-title").inner_text()


def test_reconnects_after_a_server_restart(browser: Any, tmp_path: Path) -> None:
    serve = ServeProcess(tmp_path).start()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        created = create_game(serve.base, ["human", "random"], name="restart")
        page.goto(serve.base + created["join"][0]["url"])
        page.wait_for_selector("#conn[data-status='online']")
        assert wait_for_decision(page)
        click_and_wait(page, first_or_pass(page))
        assert wait_for_decision(page)
        before = version(page)
        serve.stop()
        page.wait_for_selector("#conn[data-status='offline']")
        serve.start()  # same port, same database: the game is rebuilt by replay
        page.wait_for_selector("#conn[data-status='online']", timeout=20_000)
        assert version(page) == before
        assert wait_for_decision(page)
        click_and_wait(page, first_or_pass(page))  # and the seat plays on with its token
    finally:
        context.close()
        serve.stop()
