"""The lobby and advice on request (issues 15 and 44): the seats offer the levels by their
names, weakest first, the middle one by default; the hints option follows the seats (on with
a bot, off when every seat is human) until chosen; a one-person game opens with "Play now";
the Hint button shows the strongest bot's choice from the seat's view and can be followed;
no gap under "Game created"; the rules options' values are not cut off (default names in the
chosen language: test_e2e_words.py)."""

from __future__ import annotations

from typing import Any

from e2e_support import (
    http_json,
    open_scripted,
    send_if_asked,
    version,
    wait_for_decision,
    wait_past,
)


def test_hints_follow_the_seats_and_a_one_person_game_plays_now(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#create")
    assert page.is_checked("#hints")  # a bot at seat 2 by default
    page.select_option("#seat-1", "human")
    assert not page.is_checked("#hints")  # every seat human: off
    page.select_option("#seat-1", "random")
    assert page.is_checked("#hints")
    page.click("#create")
    created = page.locator("#created")
    created.wait_for()
    gap = page.evaluate("""() => document.getElementById('games').getBoundingClientRect().top
      - document.getElementById('created').getBoundingClientRect().bottom""")
    assert gap <= 25, gap  # a panel's margin and the grid's gap, no stretched row
    play = page.locator("#play-now")
    assert play.inner_text() == "Play now"
    play.click()
    page.wait_for_selector("#board .tile")
    game_id = page.url.split("/play/")[1].split("/")[0]
    assert http_json(server, "GET", f"/api/games/{game_id}")["hints"] is True
    token = page.evaluate(f"localStorage.getItem('kaladan.token.{game_id}.0')")
    for _ in range(3):  # ask, check against the seat's own list, follow the advice
        assert wait_for_decision(page)
        page.click("#hint-button")
        advice = page.locator("#hint .hint-advice")
        # The expert answers from the search pool: the first hint starts a worker process,
        # loads the network and searches up to hint_seconds, slow on a loaded CI machine.
        advice.wait_for(timeout=60_000)
        text = advice.get_attribute("data-hint")
        whole = http_json(server, "GET", f"/api/games/{game_id}/legal", token=token)["legal"]
        assert text in {e["text"] for e in whole}
        assert "the strongest bot would" in advice.inner_text()  # the expert: 2 players
        before = version(page)
        page.click("#hint-do")
        if page.locator("#confirm").is_visible():  # an attack: its odds first
            page.click("#confirm-ok")
        send_if_asked(page)  # a move or a purchase: the confirm bar
        wait_past(page, before)


def test_the_seats_offer_the_levels_by_name_the_middle_one_by_default(
        page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#create")
    assert page.eval_on_selector("#seat-1", "s => s.value") == "adept"
    assert page.eval_on_selector("#seat-0", "s => s.value") == "human"
    groups = page.eval_on_selector_all("#seat-1 optgroup", """groups => groups.map((g) =>
      [g.label, [...g.children].map((o) => [o.value, o.textContent])])""")
    assert groups == [
        ["Levels (weakest first)", [["beginner", "Beginner"], ["casual", "Casual"],
                                    ["adept", "Adept"], ["veteran", "Veteran"],
                                    ["master", "Master"]]],
        ["Other bots", [["random", "Random bot"], ["greedy", "Greedy bot"],
                        ["mcts:time=1", "MCTS bot (time=1)"]]]]
    page.select_option("#players", "3")
    assert page.eval_on_selector("#seat-2", "s => s.value") == "adept"
    page.click("#create")
    page.locator("#created").wait_for()
    game_id = (page.locator("#spectate-link").get_attribute("href") or "").rsplit("/", 1)[-1]
    seats = http_json(server, "GET", f"/api/games/{game_id}")["seats"]
    assert [s["bot"] for s in seats] == [None, "adept", "adept"]
    row = page.locator(f"#games tr[data-game='{game_id}']")
    row.wait_for()
    assert "Human, Adept, Adept" in row.inner_text()
    # In Dutch the levels carry their Dutch names.
    page.evaluate("localStorage.setItem('kaladan.lang', 'nl')")
    page.reload()
    page.wait_for_selector("#create")
    names = page.eval_on_selector_all("#seat-1 optgroup:first-of-type option",
                                      "options => options.map((o) => o.textContent)")
    assert names == ["Beginner", "Liefhebber", "Gevorderd", "Veteraan", "Meester"]


def test_no_hint_button_when_every_seat_is_human(page: Any, server: str) -> None:
    game_id, _ = open_scripted(page, server, 4, lambda state, legal: True)  # seat 0 decides
    assert http_json(server, "GET", f"/api/games/{game_id}")["hints"] is False
    assert page.locator("#actions .your-turn").count() == 1
    assert page.locator("#hint-button").count() == 0


def test_rules_option_values_are_not_cut_off(page: Any, server: str) -> None:
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 844})
        page.goto(server + "/")
        page.click("#create-form .options summary")
        cut = page.evaluate("""() => {
          const canvas = document.createElement("canvas").getContext("2d");
          const out = [];
          for (const select of document.querySelectorAll("#create-form .options select")) {
            canvas.font = getComputedStyle(select).font;
            const widths = [...select.options].map((o) => canvas.measureText(o.text).width);
            const widest = Math.max(...widths);
            if (widest + 12 > select.clientWidth) out.push([select.id, widest, select.clientWidth]);
          }
          return out;
        }""")
        assert cut == [], (width, cut)


def test_a_clock_chosen_in_the_lobby_times_the_game(page: Any, server: str) -> None:
    """Issue 39, point 4: the create form offers time controls; the game gets the chosen
    one (the clock's behaviour: tests/server/test_clocks.py, test_e2e_clocks.py)."""
    page.goto(server + "/")
    page.wait_for_selector("#create")
    assert page.eval_on_selector("#time-control", "s => s.value") == "none"
    page.select_option("#time-control", "live")
    page.click("#create")
    page.locator("#created").wait_for()
    page.click("#play-now")
    page.wait_for_selector("#board .tile")
    game_id = page.url.split("/play/")[1].split("/")[0]
    control = http_json(server, "GET", f"/api/games/{game_id}")["time_control"]
    assert control["kind"] == "live" and control["decision"] == 60 and control["reserve"] == 300
