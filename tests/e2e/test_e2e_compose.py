"""Composing decisions on the board as at the table (issue 15, item 1): pick units by clicking
them (or "Select all"; a long press shows a unit's dice instead), then click the tile they go
to; drag them with a mouse or a finger; swap by dropping onto a unit; pick a casualty on the
board; take an event card's free upgrade from the event panel; and the whole list on request
for keyboards.

Each test brings a game of two human seats to a known decision (scripted over HTTP, see
``e2e_support.scripted_steps``) and plays seat 0's decision in the browser."""

from __future__ import annotations

import re
from typing import Any

from e2e_support import (
    centre,
    drag,
    http_json,
    last_entry,
    open_scripted,
    send_if_asked,
    version,
    wait_past,
)
from playwright.sync_api import expect

from kaladan.rules.actionlist import ActionList
from kaladan.rules.actions import SWAP
from kaladan.rules.state import Decision
from kaladan.server.choices import named_form

# Seeds whose scripted game reaches the decision soon (tests/e2e: found by scripted_steps).
MOVE_SEED = 4  # seat 0's first Action phase: a tile of two units or more with moves
SWAP_SEED = 4
CASUALTY_SEED = 13
UPGRADE_SEED = 8  # Veterans' Drill (EV09) or Training (EV07) in seat 0's first turns
INVASION_SEED = 38


def action_with_big_tile(state: Any, legal: Any) -> bool:
    return state.pending.kind == Decision.ACTION and any(
        a.kind == "move" and len(a.units) >= 2 for a in legal)


def action_with_swap(state: Any, legal: Any) -> bool:
    return state.pending.kind == Decision.ACTION and isinstance(legal, ActionList) and any(
        a.kind == SWAP for a in legal)


def casualty_choice(state: Any, legal: Any) -> bool:
    return state.pending.kind == Decision.CASUALTY and len(legal) >= 2


def who_stays(state: Any, legal: Any) -> bool:
    return state.pending.kind == Decision.INVASION


def free_upgrade(state: Any, legal: Any) -> bool:
    return (state.pending.kind == Decision.EVENT and state.event.card in ("EV07", "EV09")
            and any(a.kind == "upgrade" for a in legal))


def seat_view(server: str, game_id: str, token: str) -> dict[str, Any]:
    """The seat's view, its legal actions in the named form (as the page reads them)."""
    return named_form(http_json(server, "GET", f"/api/games/{game_id}/view", token=token))



def targets(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("#board .tile.target",
                                         "els => els.map(e => e.dataset.tile)"))


def pressed(page: Any) -> int:
    return int(page.locator("#compose .unit-toggle[aria-pressed='true']").count())



def test_a_move_is_composed_by_clicking_units_then_a_tile(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, MOVE_SEED, action_with_big_tile)
    view = seat_view(server, game_id, token)
    assert view["legal"] and len(view["legal"]) < view["legal_count"]  # moves come grouped
    source = next(m for m in view["moves"] if len(m["units"]) >= 2
                  and any(to["most"] >= 2 for to in m["to"]))
    tile = source["from"]
    units = page.locator(f"#board .tile[data-tile='{tile}'] .unit.pickable")
    assert units.count() == len(source["units"])
    # A finger held still on a unit shows its dice (dice.js) and picks nothing (drag.js).
    dice = (units.nth(0).locator("title").text_content() or "").split("\n")[-1]
    units.nth(0).dispatch_event("pointerdown", {"pointerType": "touch", "bubbles": True})
    expect(page.locator("#toasts")).to_contain_text(dice)
    page.evaluate("window.dispatchEvent(new PointerEvent('pointerup', {pointerType: 'touch'}))")
    assert pressed(page) == 0 and page.locator("#board .unit.picked").count() == 0
    units.nth(0).click()
    assert pressed(page) == 1
    assert targets(page) == {to["tile"] for to in source["to"]}  # R10.2-R10.5 as sent
    units.nth(1).click()
    assert pressed(page) == 2 and page.locator("#board .unit.picked").count() == 2
    assert targets(page) == {to["tile"] for to in source["to"] if to["most"] >= 2}
    page.click("#select-all")
    picked = len(source["units"])
    assert pressed(page) == picked
    assert targets(page) == {to["tile"] for to in source["to"] if to["most"] >= picked}
    page.locator("#compose .unit-toggle").first.click()  # unpick one again
    assert pressed(page) == picked - 1
    page.click("#clear-pick")
    assert pressed(page) == 0 and not targets(page)
    units.nth(0).click()
    units.nth(1).click()
    chosen = page.eval_on_selector_all(f"#board .tile[data-tile='{tile}'] .unit.picked",
                                       "els => els.map(e => e.dataset.unit)")
    destination = next(to["tile"] for to in source["to"] if to["most"] >= 2)
    before = version(page)
    page.click(f"#board .tile[data-tile='{destination}'] .tile-name")
    expect(page.locator("#safe-what")).to_have_text(re.compile(f"{tile}.*{destination}"))
    assert version(page) == before  # nothing sent before "Send"
    page.click("#safe-send")
    wait_past(page, before)
    moved = last_entry(server, game_id, "moved")
    assert (moved["src"], moved["dst"]) == (tile, destination)
    assert sorted(moved["units"]) == sorted(chosen)
    board = http_json(server, "GET", f"/api/games/{game_id}/view")["observation"]["board"]
    assert all(board[destination].count(u) >= chosen.count(u) for u in chosen)


def test_a_move_is_composed_from_the_keyboard(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, MOVE_SEED, action_with_big_tile)
    source = seat_view(server, game_id, token)["moves"][0]
    tile = source["from"]
    page.focus(f"#board [data-tile='{tile}']")
    page.keyboard.press("Enter")  # the tile: its units as toggle buttons
    toggles = page.locator("#compose .unit-toggle")
    assert toggles.count() == len(source["units"])
    toggles.first.focus()
    page.keyboard.press("Enter")
    assert pressed(page) == 1
    assert page.evaluate("document.activeElement.dataset.slot") == "0"  # focus stays put
    moves = page.locator("#compose .compose-moves button")
    assert {b.get_attribute("data-action").split()[2] for b in moves.all()} == {
        to["tile"] for to in source["to"]}
    moves.first.focus()
    text = moves.first.get_attribute("data-action")
    before = version(page)
    page.keyboard.press("Enter")  # the move: to the confirm bar, its "Send" focused
    assert page.evaluate("document.activeElement.id") == "safe-send"
    page.keyboard.press("Enter")
    wait_past(page, before)
    moved = last_entry(server, game_id, "moved")
    assert (moved["src"], moved["dst"]) == tuple(text.split()[1:3])



def touch_drag(page: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A finger drag, as the touch screen sends it (Chromium makes pointer events of it)."""
    cdp = page.context.new_cdp_session(page)
    point = lambda x, y: [{"x": x, "y": y, "id": 1}]  # noqa: E731
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point(*start)})
    for i in range(1, 9):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": point(
            start[0] + (end[0] - start[0]) * i / 8, start[1] + (end[1] - start[1]) * i / 8)})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_a_move_is_made_by_dragging_with_a_mouse_and_with_a_finger(browser: Any,
                                                                   server: str) -> None:
    from e2e_support import checked_page

    for touch in (False, True):
        context = {"viewport": {"width": 1280, "height": 800}, "has_touch": touch}
        for page in checked_page(browser, **context):
            game_id, token = open_scripted(page, server, MOVE_SEED, action_with_big_tile)
            source = seat_view(server, game_id, token)["moves"][0]
            tile, destination = source["from"], source["to"][0]["tile"]
            unit = f"#board .tile[data-tile='{tile}'] .unit.pickable"
            dragged = page.locator(unit).first.get_attribute("data-unit")
            start = centre(page, unit)
            end = centre(page, f"#board .tile[data-tile='{destination}'] .hex")
            before = version(page)
            (touch_drag if touch else drag)(page, start, end)
            # dropped on the tile (or on a unit there: then "Move or swap?" offers the move)
            page.locator("#safe-send, #safe-move").first.click()
            wait_past(page, before)
            moved = last_entry(server, game_id, "moved")
            assert (moved["src"], moved["dst"], moved["units"]) == (tile, destination,
                                                                    [dragged])
            assert page.locator(".drag-ghost").count() == 0


def test_a_swap_is_made_by_dropping_units_onto_a_unit(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, SWAP_SEED, action_with_swap)
    pair = seat_view(server, game_id, token)["swaps"][0]
    a, b = pair["tiles"]
    shape = pair["shapes"][0]
    # One unit of a for one of b's when the shape allows it, else the other way round.
    one_for_one = shape["sizes"][0] == 1 and shape["sizes2"][0] == 1
    assert one_for_one or shape["sizes2"] == [1, 1] or shape["sizes"] == [1, 1]
    source, other = (a, b) if shape["sizes"][0] == 1 else (b, a)
    mine = page.locator(f"#board .tile[data-tile='{source}'] .unit.pickable")
    theirs = page.locator(f"#board .tile[data-tile='{other}'] .unit")
    pick = next(i for i in range(mine.count()) for j in range(theirs.count())
                if mine.nth(i).get_attribute("data-unit")
                != theirs.nth(j).get_attribute("data-unit"))
    given = mine.nth(pick).get_attribute("data-unit")
    target = next(j for j in range(theirs.count())
                  if theirs.nth(j).get_attribute("data-unit") != given)
    taken = theirs.nth(target).get_attribute("data-unit")
    start = centre(page, f"#board .tile[data-tile='{source}'] .unit.pickable >> nth={pick}")
    end = centre(page, f"#board .tile[data-tile='{other}'] .unit >> nth={target}")
    before = version(page)
    drag(page, start, end)
    # onto a unit: "Move or swap?" when a move there is legal too, else the swap to send
    page.locator("#safe-swap, #safe-send").first.click()
    wait_past(page, before)
    swapped = last_entry(server, game_id, "swapped")
    sent = {swapped["a"]: swapped["from_a"], swapped["b"]: swapped["from_b"]}
    assert sent == {source: [given], other: [taken]}  # R10.6-R10.7: one for one


def test_a_casualty_is_picked_on_the_board(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, CASUALTY_SEED, casualty_choice)
    view = seat_view(server, game_id, token)
    choices = [e for e in view["legal"] if e["kind"] == "casualty"]
    assert len(choices) >= 2 and not view["moves"]
    help_text = page.locator("#decision-help").inner_text()
    assert "dies" in help_text and "board" in help_text  # R16.22: says what and how
    tile = choices[0]["tiles"][0]
    candidates = page.locator(f"#board .tile[data-tile='{tile}'] .unit.pickable")
    assert candidates.count() >= 2
    assert {candidates.nth(i).get_attribute("data-unit") for i in range(candidates.count())} \
        == {e["units"][0] for e in choices}
    candidates.nth(0).click()
    chosen = candidates.nth(0).get_attribute("data-unit")
    candidates.nth(1).click()  # a casualty is one unit: the second click picks the other
    chosen = candidates.nth(1).get_attribute("data-unit")
    assert page.locator("#board .unit.picked").count() == 1
    button = page.locator("#compose button.kind-casualty")
    assert button.count() == 1
    before = version(page)
    button.click()
    wait_past(page, before)
    killed = [e for e in http_json(server, "GET", f"/api/games/{game_id}/view")["log"]
              if e["kind"] == "unit_killed" and e["chosen"]]
    assert killed[-1]["unit"] == chosen and killed[-1]["tile"] == tile


def test_battle_texts_say_who_takes_what(browser: Any, server: str) -> None:
    """R16.19-R16.21 in words: who takes the hits and who loses units; the German pool
    names sit on their own line above the dice chips, at a phone's width too."""
    from e2e_support import checked_page

    for page in checked_page(browser, viewport={"width": 390, "height": 844}):
        open_scripted(page, server, CASUALTY_SEED, casualty_choice)
        hits = page.locator("#battle .hits").first.inner_text()
        assert re.match(r"Hits on the attacker: \d+, on the defender: \d+ · units lost: "
                        r"attacker \d+, defender \d+$", hits), hits
        page.select_option("#lang", "de")
        page.wait_for_selector("text=Angriffswürfel")
        for pool in page.locator("#battle .dice").all():
            label = pool.locator(".muted").first.bounding_box()
            die = pool.locator(".die").first.bounding_box()
            assert label["y"] + label["height"] <= die["y"] + 1  # above, never beside
        assert page.locator("#battle .hits").first.inner_text().startswith("Treffer beim Angreifer")


def test_who_stays_behind_is_picked_on_the_board(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, INVASION_SEED, who_stays)
    view = seat_view(server, game_id, token)
    battle = view["observation"]["battle"]
    help_text = page.locator("#decision-help").inner_text()
    assert battle["defended_tile"] in help_text and battle["attacking_tile"] in help_text
    assert "stays behind" in help_text  # R17.6-R17.7: why the choice is asked
    staying = [e for e in view["legal"] if e["kind"] == "leave"]
    assert {e["tiles"][0] for e in staying} == {battle["attacking_tile"]}
    unit = page.locator(f"#board .tile[data-tile='{battle['attacking_tile']}'] .unit.pickable")
    assert unit.count() >= 2
    unit.nth(0).click()
    chosen = unit.nth(0).get_attribute("data-unit")
    button = page.locator("#compose button.kind-leave")
    assert button.inner_text().endswith("stays behind")
    before = version(page)
    button.click()
    wait_past(page, before)
    left = last_entry(server, game_id, "left_behind")  # one stays: the rest invade
    assert left["tile"] == battle["attacking_tile"] and chosen in left["units"]


def test_an_event_upgrade_is_taken_from_the_event_panel(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, UPGRADE_SEED, free_upgrade)
    view = seat_view(server, game_id, token)
    card = view["observation"]["event"]["card"]
    panel = page.locator("#event-options")
    assert panel.get_attribute("data-event") == card
    assert page.locator("#purchase").count() == 0  # R7.9: not a purchase, no price
    text = panel.inner_text()
    assert "gold instead" in text and "Free upgrade" in text and " gold)" not in text
    if card == "EV09":  # every player's part in turn: the others are named in full
        queue = page.locator("#event-queue").inner_text()
        assert re.fullmatch(r"Still to resolve: P\d(, P\d)*", queue), queue
    upgrades = [e for e in view["legal"] if e["kind"] == "upgrade"]
    assert panel.locator("button.kind-upgrade").count() == len(upgrades)
    assert panel.locator("button.kind-gold").count() == 1
    # The same free upgrade is offered on the unit itself.
    first = upgrades[0]
    unit = page.locator(f"#board .tile[data-tile='{first['tiles'][0]}'] "
                        f".unit.pickable[data-unit='{first['units'][0]}']").first
    unit.click()
    assert page.locator(f"#compose button[data-action='{first['text']}']").inner_text() \
        .startswith("Free upgrade")
    before = version(page)
    panel.locator(f"button[data-action='{first['text']}']").click()
    send_if_asked(page)  # a free upgrade cannot be taken back: the confirm bar
    wait_past(page, before)
    upgraded = last_entry(server, game_id, "upgraded")
    assert upgraded["cost"] == 0 and upgraded["cause"] == card
    assert upgraded["tile"] == first["tiles"][0]


def test_the_whole_list_is_fetched_when_opened(page: Any, server: str) -> None:
    game_id, token = open_scripted(page, server, MOVE_SEED, action_with_big_tile)
    view = seat_view(server, game_id, token)
    assert page.locator("#all-actions button[data-action]").count() == 0  # not in the view
    page.click("#all-actions > summary")
    buttons = page.locator("#all-actions button[data-action]")
    buttons.first.wait_for()
    assert buttons.count() == view["legal_count"]
    texts = page.eval_on_selector_all("#all-actions button[data-action]",
                                      "els => els.map(e => e.dataset.action)")
    move = next(t for t in texts if t.startswith("move "))
    group = page.locator("#all-actions details.group", has=page.locator("button.kind-move"))
    if group.get_attribute("open") is None:  # a long group is folded
        group.locator("summary").click()
    before = version(page)
    page.click(f"#all-actions button[data-action='{move}']")
    send_if_asked(page)
    wait_past(page, before)
    moved = last_entry(server, game_id, "moved")
    assert (moved["src"], moved["dst"]) == tuple(move.split()[1:3])
