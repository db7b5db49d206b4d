"""The story of the game (issue 15): the log panel keeps one player's story when filtered, and
dice rolled while the page is open tumble for a moment (skippable, none under
prefers-reduced-motion)."""

from __future__ import annotations

from typing import Any

from e2e_support import click_and_wait, create_game, first_or_pass, public_view, wait_for_decision
from test_e2e_table import finished_game

# The fields that make an entry part of a seat's story (docs/ui.md "Log panel").
ABOUT = ("seat", "attacker", "defender", "holder", "to", "by", "lost_by", "eliminated",
         "graveyard_of")
# Records every battle round drawn with the "rolling" class and, to test the skip control
# without racing its timer, presses "show the dice" the moment it appears.
ROLL_WATCH = """
window.__rolls = {rolled: 0, skipped: 0, settled: 0};
new MutationObserver(() => {
  for (const round of document.querySelectorAll('.battle-round.rolling:not([data-watched])')) {
    round.dataset.watched = '1';
    window.__rolls.rolled += 1;
    round.querySelector('.roll-skip').click();
    window.__rolls.skipped += 1;
    if (!round.classList.contains('rolling') && !round.querySelector('.roll-skip'))
      window.__rolls.settled += 1;
  }
}).observe(document, {subtree: true, childList: true});
"""


def story_of(log: list[dict[str, Any]], seat: int) -> set[int]:
    """The indices of the entries in ``seat``'s story: entries naming the seat, a whole battle
    (with its invasion) when any of its entries names the seat, and the end of the game."""
    names = lambda e: any(e.get(f) == seat for f in ABOUT)  # noqa: E731
    story: set[int] = set()
    i = 0
    while i < len(log):
        if log[i]["kind"] != "battle_started":
            if names(log[i]) or log[i]["kind"] == "game_over":
                story.add(log[i]["index"])
            i += 1
            continue
        end = next(j for j in range(i, len(log)) if log[j]["kind"] == "battle_ended")
        while end + 1 < len(log) and (log[end + 1]["kind"] in ("left_behind", "tile_captured")
                                      or (log[end + 1]["kind"] == "moved"
                                          and log[end + 1]["cause"] == "invasion")):
            end += 1
        battle = log[i:end + 1]
        if any(names(e) for e in battle):
            story |= {e["index"] for e in battle}
        i = end + 1
    return story


def shown(page: Any) -> list[int]:
    return [int(i) for i in page.locator("#log li").evaluate_all(
        "els => els.map(e => e.dataset.index)")]


def test_the_log_filter_keeps_one_players_story(page: Any, server: str) -> None:
    game_id = finished_game(server)
    log = public_view(server, game_id)["log"]
    page.goto(f"{server}/watch/{game_id}")
    page.locator("#end").wait_for(state="visible")
    page.click("#end-close")
    everyone = shown(page)
    assert everyone == [e["index"] for e in log][-len(everyone):]
    for seat in (0, 1):
        page.select_option("#log-filter", str(seat))
        lines = shown(page)
        story = story_of(log, seat)
        assert lines == sorted(story)[-len(lines):] and len(lines) == min(len(story), 300)
        other = 1 - seat
        assert any(e["kind"] == "turn_started" and e["seat"] == other for e in log)
        assert not any(e["index"] in lines for e in log
                       if e["kind"] == "turn_started" and e["seat"] == other)
        assert page.locator("#log li.log-game_over").count() == 1
    page.select_option("#log-filter", "")
    assert shown(page) == everyone


def test_new_dice_tumble_unless_motion_is_reduced(page: Any, server: str) -> None:
    """Three players, the human passes (seed 6: the greedy bots fight at once). Dice rolled
    while the page is open roll and are settled by "show the dice"; with reduced motion,
    dice rolled later do not roll."""
    page.add_init_script(ROLL_WATCH)
    created = create_game(server, ["human", "greedy", "greedy"], seed=6, name="dice")
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#board .tile")
    rolls = lambda: page.evaluate("() => window.__rolls")  # noqa: E731
    battles = lambda: len([e for e in public_view(server, created["game_id"])["log"]  # noqa: E731
                           if e["kind"] == "dice_rolled"])
    for _ in range(60):
        assert wait_for_decision(page), "the game ended before a battle"
        if rolls()["rolled"]:
            break
        click_and_wait(page, first_or_pass(page))
    assert rolls()["rolled"] >= 1
    assert rolls()["skipped"] == rolls()["settled"] == rolls()["rolled"]
    assert page.locator("#battle .battle-round.rolling").count() == 0
    faces = page.locator("#battle .battle-round .die-value").first
    assert faces.evaluate("e => getComputedStyle(e).color") != "rgba(0, 0, 0, 0)"

    page.emulate_media(reduced_motion="reduce")
    before, seen = rolls()["rolled"], battles()
    for _ in range(60):
        if not wait_for_decision(page) or battles() > seen + 1:
            break
        click_and_wait(page, first_or_pass(page))
    assert battles() > seen, "no battle was fought with reduced motion"
    assert rolls()["rolled"] == before
