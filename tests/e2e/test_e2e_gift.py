"""Giving gold in the browser (R23.11): in a team game a player who does not hold the decision
gives gold to an ally with the "Give gold" control; both players see the gold move and the
log line, the ally's decision stays theirs, refused gifts show as errors, and gift actions
are never listed among the actions."""

from __future__ import annotations

import json
import time
import urllib.request
from contextlib import contextmanager
from typing import Any

from e2e_support import (
    checked_page,
    create_game,
    entry_text,
    public_view,
    realms_of,
    version,
    wait_past,
)
from playwright.sync_api import expect

from kaladan.server.choices import named_form

# Seats 0 and 2 (team 0) are human, 1 and 3 greedy bots; with this seed the bots hand the
# first decision to a human while both humans have gold.
GIFT_SEED = 11
DESKTOP = {"width": 1280, "height": 800}


def gold_of(page: Any, seat: int) -> int:
    return int(page.inner_text(f"#players li[data-seat='{seat}'] .stat[title='Gold'] b"))


def seat_view(server: str, game_id: str, token: str) -> dict[str, Any]:
    request = urllib.request.Request(f"{server}/api/games/{game_id}/view",
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return named_form(json.load(response))  # as the page reads it


def test_a_player_gives_gold_while_the_ally_decides(browser: Any, server: str) -> None:
    created = create_game(server, ["human", "greedy", "human", "greedy"], mode="team_2v2",
                          seed=GIFT_SEED, name="gift")
    game_id = created["game_id"]
    page_for = contextmanager(checked_page)
    with page_for(browser, viewport=DESKTOP) as first, \
            page_for(browser, viewport=DESKTOP) as second:
        pages = {0: first, 2: second}
        for seat, page in pages.items():
            page.goto(server + next(j["url"] for j in created["join"] if j["seat"] == seat))
            page.wait_for_selector("#board .tile")
        deadline = time.monotonic() + 20
        view = public_view(server, game_id)
        while view["status"] != "running" or view["to_move"] not in pages:  # bots play first
            assert time.monotonic() < deadline, "the bots never handed the decision over"
            time.sleep(0.05)
            view = public_view(server, game_id)
        decider = view["to_move"]
        waiter = 2 - decider
        giver, taker = pages[waiter], pages[decider]
        expect(taker.locator("#game")).to_have_attribute("data-your-turn", "true")
        expect(giver.locator("#game")).to_have_attribute("data-your-turn", "false")
        start = view["version"]
        for p in pages.values():
            p.wait_for_function(f"() => Number(document.getElementById('game').dataset.version)"
                                f" >= {start}")
        before = [gold_of(giver, s) for s in range(4)]
        assert before[waiter] >= 2 and before[decider] >= 1, before

        # The decider's legal list holds gifts, but the page lists none: the control does.
        token = taker.evaluate(f"localStorage.getItem('kaladan.token.{game_id}.{decider}')")
        legal = [a["text"] for a in seat_view(server, game_id, token)["legal"]]
        assert f"gift {waiter} 1" in legal
        assert taker.locator("#actions button[data-action]").count() > 0
        assert taker.locator("#actions button[data-action^='gift']").count() == 0
        expect(taker.locator("#gift-form")).to_be_visible()
        tile = taker.eval_on_selector("#board .tile.actionable", "el => el.dataset.tile")
        taker.click(f"#board [data-tile='{tile}']")
        expect(taker.locator("#tile-actions")).to_contain_text(tile)

        # The waiting player gives 2 gold to the ally who decides.
        control = giver.locator("#gift")
        expect(control).to_be_visible()
        expect(giver.locator("#actions .waiting")).to_be_visible()
        assert giver.locator("#actions button[data-action]").count() == 0
        ally = giver.locator("#gift-ally")
        assert ally.input_value() == str(decider)
        assert ally.locator("option").all_inner_texts() == [
            giver.inner_text(f"#players li[data-seat='{decider}'] .player-head b")]
        expect(giver.get_by_label("Amount (1–" + str(before[waiter]) + ")")).to_be_visible()
        giver.fill("#gift-amount", "2")
        giver.click("#gift-send")
        wait_past(giver, start)
        wait_past(taker, start)
        after = list(before)
        after[waiter] -= 2
        after[decider] += 2
        for p in pages.values():
            assert [gold_of(p, s) for s in range(4)] == after
        assert version(giver) == start + 1  # the gift, and nothing else happened
        view = public_view(server, game_id)
        assert view["to_move"] == decider and view["version"] == start + 1
        entry = view["log"][-1]
        assert (entry["kind"], entry["seat"], entry["to"], entry["amount"]) == (
            "gold_given", waiter, decider, 2)
        sentence = entry_text(entry, "en", realms_of(view))
        for p in pages.values():
            expect(p.locator(f"#log li[data-index='{entry['index']}']")).to_have_text(sentence)
            expect(p.locator("#log .log-gold_given")).to_have_count(1)
        # The decision is still the ally's, with the tile it picked still selected.
        expect(taker.locator("#game")).to_have_attribute("data-your-turn", "true")
        assert taker.locator("#actions button[data-action^='gift']").count() == 0
        expect(taker.locator("#tile-actions")).to_contain_text(tile)  # the selection stays
        # The control now offers at most the gold left.
        expect(giver.locator("#gift-amount")).to_have_attribute("max", str(after[waiter]))

        # A gift the rules refuse (more than one's gold) is an error like any action's.
        giver.evaluate("document.getElementById('gift-amount').max = 99")
        giver.fill("#gift-amount", str(after[waiter] + 1))
        giver.click("#gift-send")
        expect(giver.locator(".toast-error")).to_contain_text("R23.11")
        assert public_view(server, game_id)["version"] == start + 1
        assert [gold_of(giver, s) for s in range(4)] == after


def test_the_lobby_creates_a_game_with_the_new_rules_options(page: Any, server: str) -> None:
    """R3.3 upgrade_loss and end_game_trigger, chosen in the lobby by their labels."""
    page.goto(server + "/")
    page.click("#create-form details.options summary")
    page.get_by_label("Upgrades after a lost battle").select_option(
        label="the losing side loses them all")
    page.get_by_label("Final round starts").select_option(label="when the event deck runs out")
    page.click("#create")
    link = page.locator("#spectate-link").get_attribute("href") or ""
    game_id = link.rsplit("/", 1)[-1]
    with urllib.request.urlopen(f"{server}/api/games/{game_id}", timeout=10) as response:
        options = json.load(response)["options"]
    assert (options["upgrade_loss"], options["end_game_trigger"]) == ("losing_side", "deck_end")
