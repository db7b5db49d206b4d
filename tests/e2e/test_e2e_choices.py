"""Informed choices and the battle's rough edges (issue 40): a realm's special unit and cards
and a starting card's text are on screen when they are chosen (no hover needed, also on a
phone); the attack dialog gives the exact odds with each card of the player's own hand (the
engine's figure) and says that a won attack must invade; an attack composed on the board reads
as an attack, each action once; the casualties wait for the dice; on a phone the battle's
result is scrolled into view.

Games of two human seats are brought to a decision over HTTP (``e2e_support.scripted_steps``)
and played in the browser for seat 0; seat 1 answers over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    checked_page,
    create_game,
    http_json,
    scripted_steps,
    version,
    wait_for_decision,
    wait_past,
)
from playwright.sync_api import expect

import kaladan.server
from kaladan import i18n
from kaladan.game import Game
from kaladan.odds import attack_card_odds
from kaladan.rules.actions import ATTACK
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.state import Decision

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
ODDS_SEED = 11  # seat 0's Action phase: attack T1 T2 with Golden Charge (KIM-2) in hand
CASUALTY_SEED = 13  # seat 0 chooses casualties after a battle (test_e2e_compose.py)
EN = i18n.strings("en")
STATIC = Path(kaladan.server.__file__).parent / "static"  # what the page reads


def cards_data() -> dict[str, Any]:
    path = STATIC / "data" / "cards.json"
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def with_cards(state: Any, legal: Any) -> bool:
    return state.pending.kind == Decision.ACTION and any(
        attack_card_odds(state, a.tile, a.tile2) for a in legal if a.kind is ATTACK)


def casualty_choice(state: Any, legal: Any) -> bool:
    return state.pending.kind == Decision.CASUALTY and len(legal) >= 2


def local_game(seed: int, steps: list[tuple[int, str]]) -> Game:
    """The game the server holds after ``steps`` (the same seed, the same decisions)."""
    game = Game.new(Config(players=2, quick_setup=True), seed)
    for _, text in steps:
        game.play(game.parse(text))
    return game


def two_humans(server: str, seed: int, quick: bool = True) -> tuple[str, dict[int, str]]:
    created = create_game(server, ["human", "human"], seed=seed, quick=quick,
                          name=f"choices {seed}")
    game_id = created["game_id"]
    tokens = {link["seat"]: http_json(server, "POST",
                                      f"/api/games/{game_id}/seats/{link['seat']}/join",
                                      {"code": link["code"]})["token"]
              for link in created["join"]}
    return game_id, tokens


def post(server: str, game_id: str, token: str, text: str) -> None:
    http_json(server, "POST", f"/api/games/{game_id}/actions", {"action": text}, token)


def post_first(server: str, game_id: str, token: str, view: dict[str, Any]) -> None:
    """Answer with the first listed action of ``view`` (by its index)."""
    http_json(server, "POST", f"/api/games/{game_id}/actions",
              {"index": view["legal"][0]["index"], "version": view["version"]}, token)


def open_seat0(page: Any, server: str, game_id: str, token: str) -> None:
    """Open seat 0's page; the page answers no forced decision by itself (the test does)."""
    page.goto(server + "/")
    page.evaluate("([key, token]) => { localStorage.setItem(key, token);"
                  " localStorage.setItem('kaladan.autoAnswer', 'off'); }",
                  [f"kaladan.token.{game_id}.0", token])
    page.goto(f"{server}/play/{game_id}/0")
    page.wait_for_selector("#game[data-version]")


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    yield from checked_page(browser, viewport=PHONE, has_touch=True, is_mobile=True,
                            reduced_motion="no-preference")


@pytest.fixture
def moving(browser: Any) -> Iterator[Any]:
    """A desktop page with motion on: dice tumble."""
    yield from checked_page(browser, viewport=DESKTOP, reduced_motion="no-preference")


@pytest.fixture
def still(browser: Any) -> Iterator[Any]:
    yield from checked_page(browser, viewport=DESKTOP, reduced_motion="reduce")


# --- set-up: realms and starting cards -------------------------------------------------------


def seat_view(server: str, game_id: str, token: str) -> dict[str, Any]:
    view: dict[str, Any] = http_json(server, "GET", f"/api/games/{game_id}/view", token=token)
    return view


def until_seat0(server: str, game_id: str, tokens: dict[int, str], kind: str) -> dict[str, Any]:
    """Answer every other decision (first listed action) until seat 0 must decide ``kind``."""
    for _ in range(40):
        views = {seat: seat_view(server, game_id, token) for seat, token in tokens.items()}
        deciding = next((s for s, v in views.items() if v["your_turn"]), None)
        assert deciding is not None
        view = views[deciding]
        if deciding == 0 and view["observation"]["pending"]["kind"] == kind:
            return view
        post_first(server, game_id, tokens[deciding], view)
    raise AssertionError(f"seat 0 never had to decide {kind}")


def in_viewport(page: Any, selector: str) -> bool:
    """Whether ``selector`` is on screen (a pixel's slack: layout works in fractions)."""
    inside: bool = page.eval_on_selector(
        selector, "el => { const r = el.getBoundingClientRect();"
        " return r.height > 0 && r.top >= -1 && r.bottom <= window.innerHeight + 1; }")
    return inside


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_setup_shows_realms_and_cards_without_hovering(browser: Any, server: str,
                                                       size: str) -> None:
    data = cards_data()
    game_id, tokens = two_humans(server, 7, quick=False)
    view = until_seat0(server, game_id, tokens, "realm")
    context = ({"viewport": PHONE, "has_touch": True, "is_mobile": True} if size == "phone"
               else {"viewport": DESKTOP})
    for page in checked_page(browser, **context):
        open_seat0(page, server, game_id, tokens[0])
        wait_for_decision(page)
        realms = [e["args"]["name"] for e in view["legal"] if e["kind"] == "realm"]
        assert realms
        for realm in realms:
            box = page.locator(f"#choices .realm-choice[data-realm='{realm}']")
            info = data["realms"][realm]
            # on screen as text, not only in a title attribute
            expect(box).to_contain_text(info["special_unit"]["en"])
            expect(box).to_contain_text(info["d12_when"]["en"])
            for card in (c for c in data["magic"].values() if c["realm"] == realm):
                expect(box).to_contain_text(card["name"]["en"])
            expect(box.locator("button[data-action]")).to_be_visible()
        first = page.locator("#choices .realm-choice").first
        first.scroll_into_view_if_needed()
        if size == "phone":  # a tap (no hover) leaves the description in view
            first.locator("header").tap()
        expect(first.locator(".realm-special")).to_be_visible()
        assert in_viewport(page, "#choices .realm-choice >> nth=0")
        before = version(page)
        chosen = first.get_attribute("data-realm")
        first.locator("button[data-action]").click()
        wait_past(page, before)
        view = until_seat0(server, game_id, tokens, "start_card")
        page.wait_for_selector("#choices .card-choice")
        offered = [e["args"]["name"] for e in view["legal"] if e["kind"] == "card"]
        assert offered and all(data["magic"][c]["realm"] == chosen for c in offered)
        for card in offered:
            box = page.locator(f"#choices .card-choice[data-card='{card}']")
            expect(box).to_contain_text(data["magic"][card]["text"]["en"])
            expect(box).to_contain_text(data["magic"][card]["condition"]["en"])
            box.scroll_into_view_if_needed()
            expect(box.locator(".card")).to_be_visible()


# --- the attack dialog -------------------------------------------------------------------------


def opened_at_attack(page: Any, server: str) -> tuple[str, dict[int, str], Game]:
    steps = scripted_steps(ODDS_SEED, with_cards)
    game_id, tokens = two_humans(server, ODDS_SEED)
    for seat, text in steps:
        post(server, game_id, tokens[seat], text)
    open_seat0(page, server, game_id, tokens[0])
    assert wait_for_decision(page)
    return game_id, tokens, local_game(ODDS_SEED, steps)


def test_the_attack_dialog_gives_the_odds_with_each_own_card(page: Any, server: str) -> None:
    _, _, game = opened_at_attack(page, server)
    state = game.state
    attack, expected = next((a, odds) for a in legal_actions(state) if a.kind is ATTACK
                            and (odds := attack_card_odds(state, a.tile, a.tile2)))
    text = game.format(attack)
    page.click(f"#listed-actions button[data-action='{text}']")
    dialog = page.locator("#confirm")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#odds-invasion")).to_have_text(EN["odds"]["invasion"])
    assert dialog.locator("[data-odds]").count() == 1  # the odds without a card, once
    rows = dialog.locator("#card-odds li[data-card]")
    assert rows.count() == len(expected)
    assert set(rows.evaluate_all("els => els.map(e => e.dataset.card)")) <= set(state.hand[0])
    data = cards_data()
    for card in expected:
        row = dialog.locator(f"#card-odds li[data-card='{card.card}']")
        wins = card.odds.attacker_wins
        shown = float(row.locator("[data-card-odds]").get_attribute("data-card-odds"))
        assert shown == float(wins)  # the engine's exact figure
        expect(row).to_contain_text(f"{100 * float(wins):.1f}%")
        expect(row).to_contain_text(f"{wins.numerator}/{wins.denominator}")
        expect(row).to_contain_text(data["magic"][card.card]["text"]["en"])
    for held in state.hand[1]:  # the defender's hand never shows
        assert dialog.locator(f"[data-card='{held}']").count() == 0
    page.click("#confirm-cancel")
    expect(dialog).to_be_hidden()


def test_an_attack_composed_on_the_board_reads_as_an_attack_once(page: Any,
                                                                server: str) -> None:
    _, _, game = opened_at_attack(page, server)
    attack = next(a for a in legal_actions(game.state) if a.kind is ATTACK)
    a_tile, d_tile = game.state.world.names[attack.tile], game.state.world.names[attack.tile2]
    page.click(f"#board .tile[data-tile='{a_tile}'] .tile-name")
    page.click(f"#board .tile[data-tile='{d_tile}'] .tile-name")
    text = game.format(attack)
    expect(page.locator(f"#tile-actions button[data-action='{text}']")).to_have_count(1)
    assert page.locator(f"#actions button[data-action='{text}']").count() == 1
    swap_words = EN["compose"]["swap_side"].split("{")[0].strip()
    expect(page.locator("#actions")).not_to_contain_text(swap_words)
    expect(page.locator("#actions")).not_to_contain_text(EN["compose"]["swap_with"])
    listed = page.eval_on_selector_all("#actions button[data-action]",
                                       "els => els.map(e => e.dataset.action)")
    assert len(listed) == len(set(listed)), "an action is offered twice"


# --- the dice and the casualties ----------------------------------------------------------------


def to_the_roll(page: Any, server: str) -> tuple[str, dict[int, str], list[tuple[int, str]]]:
    """A game shown to seat 0 just before the battle that ends in seat 0's casualty choice;
    the steps that are left (the attack and the declarations) are returned, not yet sent."""
    steps = scripted_steps(CASUALTY_SEED, casualty_choice)
    start = max(i for i, (_, text) in enumerate(steps) if text.split()[0] in ("attack", "volley"))
    game_id, tokens = two_humans(server, CASUALTY_SEED)
    for seat, text in steps[:start]:
        post(server, game_id, tokens[seat], text)
    open_seat0(page, server, game_id, tokens[0])
    return game_id, tokens, steps[start:]


def roll_shown(page: Any, server: str) -> None:
    """The battle fought up to seat 0's casualty choice, its last view shown on the page."""
    game_id, tokens, rest = to_the_roll(page, server)
    for seat, text in rest:
        post(server, game_id, tokens[seat], text)
    final = seat_view(server, game_id, tokens[0])["version"]
    page.wait_for_function("(v) => Number(document.getElementById('game').dataset.version) >= v",
                           arg=final)


def test_casualties_wait_for_the_dice(moving: Any, server: str) -> None:
    page = moving
    roll_shown(page, server)
    # the dice tumble: the decision is not offered yet
    assert page.locator("#actions button.kind-casualty").count() == 0
    assert page.locator("#board .unit.pickable").count() == 0
    expect(page.locator("#dice-wait")).to_be_visible()
    expect(page.locator("#battle .battle-round.rolling")).to_have_count(1)
    expect(page.locator("#game")).to_have_attribute("data-your-turn", "false")
    # once they have settled it is
    expect(page.locator("#battle .battle-round.rolling")).to_have_count(0)
    expect(page.locator("#actions button.kind-casualty").first).to_be_visible()
    expect(page.locator("#game")).to_have_attribute("data-your-turn", "true")
    expect(page.locator("#dice-wait")).to_have_count(0)


def test_with_reduced_motion_casualties_do_not_wait(still: Any, server: str) -> None:
    page = still
    roll_shown(page, server)
    assert page.locator("#dice-wait").count() == 0
    assert page.locator("#actions button.kind-casualty").count() >= 1


# --- a phone: the result in view ------------------------------------------------------------------


def test_on_a_phone_the_battle_result_is_in_view_after_an_attack(phone: Any,
                                                               server: str) -> None:
    page = phone
    game_id, tokens, game = opened_at_attack(page, server)
    attack = next(a for a in legal_actions(game.state) if a.kind is ATTACK)
    text = game.format(attack)
    button = page.locator(f"#listed-actions button[data-action='{text}']")
    button.scroll_into_view_if_needed()
    button.tap()
    expect(page.locator("#confirm")).to_be_visible()
    def battles_ended() -> int:
        log = http_json(server, "GET", f"/api/games/{game_id}/view")["log"]
        return sum(1 for e in log if e["kind"] == "battle_ended")

    ended = battles_ended()
    before = version(page)
    page.locator("#confirm-ok").tap()
    wait_past(page, before)
    for _ in range(20):  # both sides answer over HTTP until the battle is over
        if battles_ended() > ended:
            break
        views = {seat: seat_view(server, game_id, token) for seat, token in tokens.items()}
        deciding = next(s for s, v in views.items() if v["your_turn"])
        post_first(server, game_id, tokens[deciding], views[deciding])
    else:
        raise AssertionError("the battle did not end")
    expect(page.locator("#battle .battle-result[class*='result-']")).to_have_count(1)
    page.wait_for_function(
        "() => { const r = document.querySelector('#battle .battle-result')"
        ".getBoundingClientRect(); return r.top >= -1 && r.bottom <= window.innerHeight + 1; }")
    assert in_viewport(page, "#battle .battle-result")
