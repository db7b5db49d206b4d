"""What others did (issue 40): a person plays against a greedy bot; after the person acts and
the bot moves, the bot's moves, attacks and placements are marked on the board (exactly the
tiles its log entries name, fetched over HTTP), a "since your last turn" line says what it
did, gold and spawns show as they happen, and the marks clear with the person's next
decision. since.js's pure functions are checked on crafted entries in the page."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import DESKTOP
from e2e_support import (
    checked_page,
    click_and_wait,
    create_game,
    first_or_pass,
    http_json,
    move_by_board,
)
from playwright.sync_api import expect
from test_e2e_axe import AXE, violations

SEED = 11
BOT = 1  # the greedy bot's seat; the person holds seat 0

# A decision of the person's own: not a forced answer the page is about to give by itself, no
# action on its way (or the game is over).
OWN_DECISION = """() => { const g = document.getElementById('game');
  return g && ((g.dataset.yourTurn === 'true' && g.dataset.autoAnswering !== 'true'
    && !g.classList.contains('sending')) || g.dataset.over === 'true'); }"""

MARKED = """() => Object.fromEntries([...document.querySelectorAll('#board .tile.since')]
  .map((el) => [el.dataset.tile, el.dataset.since.split(' ').sort()]))"""


@pytest.fixture
def calm_page(browser: Any) -> Iterator[Any]:
    """A page that prefers reduced motion: no arrow draws itself, the marks stay."""
    yield from checked_page(browser, viewport=DESKTOP, reduced_motion="reduce")


def bot_marks(log: list[dict[str, Any]], start: int) -> dict[str, set[str]]:
    """What the board must mark: the tiles the bot's entries from index ``start`` on name,
    with what happened there."""
    marks: dict[str, set[str]] = {}
    for e in log:
        if e["index"] < start:
            continue
        if e["kind"] == "moved" and e["seat"] == BOT:
            marks.setdefault(e["src"], set()).add("from")
            marks.setdefault(e["dst"], set()).add("to")
        elif e["kind"] == "swapped" and e["seat"] == BOT:
            for tile in (e["a"], e["b"]):
                marks.setdefault(tile, set()).update({"from", "to"})
        elif e["kind"] == "battle_started" and e["attacker"] == BOT:
            marks.setdefault(e["a_tile"], set()).add("attack_from")
            marks.setdefault(e["d_tile"], set()).add("attack_to")
        elif e["kind"] in ("bought", "spawned", "unit_placed") and e["seat"] == BOT:
            marks.setdefault(e["tile"], set()).add("placed")
    return marks


def seat_view(server: str, game_id: str, token: str) -> dict[str, Any]:
    view: dict[str, Any] = http_json(server, "GET", f"/api/games/{game_id}/view", token=token)
    return view


def open_against_bot(page: Any, server: str) -> tuple[str, str]:
    created = create_game(server, ["human", "greedy"], seed=SEED, name="since your turn")
    game_id = created["game_id"]
    code = created["join"][0]["code"]
    token = http_json(server, "POST", f"/api/games/{game_id}/seats/0/join", {"code": code})["token"]
    page.goto(server + "/")
    page.evaluate("([key, token]) => localStorage.setItem(key, token)",
                  [f"kaladan.token.{game_id}.0", token])
    page.goto(f"{server}/play/{game_id}/0")
    page.wait_for_selector("#board .tile")
    return game_id, token


def test_the_bots_moves_are_marked_told_and_cleared(calm_page: Any, server: str) -> None:
    page = calm_page
    game_id, token = open_against_bot(page, server)
    start: int | None = None  # the log index the person's last action was sent at
    shown = cleared = False
    rng = random.Random(SEED)
    for _ in range(80):
        page.wait_for_function(OWN_DECISION, timeout=20_000)
        assert page.get_attribute("#game", "data-over") != "true", "the game ended first"
        view = seat_view(server, game_id, token)
        assert view["version"] == int(page.get_attribute("#game", "data-version"))
        log = view["log"]
        if start is not None:
            expected = bot_marks(log, start)
            marked = {tile: set(kinds) for tile, kinds in page.evaluate(MARKED).items()}
            assert marked == expected
            if expected and not shown:
                check_the_summary(page, log, start, token, server, game_id)
                shown = True
            elif shown and not expected:
                cleared = True  # the person acted since: the bot's marks went with it
                expect(page.locator("#board .since-mark")).to_have_count(0)
        if shown and cleared:
            break
        start = log[-1]["index"] + 1
        # Now and then a move of the person's own: its own acts are never marked.
        if not (rng.random() < 0.5 and move_by_board(page, rng)):
            click_and_wait(page, first_or_pass(page))
    assert shown and cleared


def check_the_summary(page: Any, log: list[dict[str, Any]], start: int, token: str,
                      server: str, game_id: str) -> None:
    """The line names what the bot did; arrows run along its moves and attacks; it passes an
    axe scan; dismissed, the line goes and the marks stay."""
    since = [e for e in log if e["index"] >= start]
    line = page.locator("#since-line")
    expect(line).to_be_visible()
    text = line.inner_text()
    assert text.startswith("Since your last turn: P2 (")
    moved = [e for e in since if e["kind"] == "moved" and e["seat"] == BOT
             and e["cause"] != "invasion"]
    attacks = [e for e in since if e["kind"] == "battle_started" and e["attacker"] == BOT]
    assert moved or attacks or any(e["kind"] in ("bought", "spawned") for e in since)
    for e in moved:
        assert e["dst"] in text, (e, text)
    if moved:
        assert re.search(r"moved \d+ units? to", text), text
    for e in attacks:
        assert f"attacked {e['d_tile']} from {e['a_tile']}" in text, text
    if any(e["kind"] == "spawned" and e["seat"] == BOT for e in since):
        assert "spawned" in text, text
    # The same line reaches screen readers through a polite live region.
    live = page.locator("#since-live")
    assert live.get_attribute("aria-live") == "polite"
    assert live.text_content() == text
    arrows = page.evaluate("[...document.querySelectorAll('#board .since-mark')]"
                           ".map((el) => [el.dataset.kind, el.dataset.from, el.dataset.to])")
    want = {("move", e["src"], e["dst"]) for e in moved} | {
        ("attack", e["a_tile"], e["d_tile"]) for e in attacks}
    assert {tuple(a) for a in arrows if a[0] != "swap"} == want
    # Reduced motion: nothing draws itself.
    expect(page.locator("#board .since-new")).to_have_count(0)
    # The legend explains the mark; tiles say it in their label.
    expect(page.locator(".legend")).to_contain_text("others' moves since your last decision")
    first = page.locator("#board .tile.since").first
    assert "changed by another player" in (first.get_attribute("aria-label") or "")
    if AXE.is_file():
        assert violations(page, AXE.read_text("utf-8")) == []
    page.click("#since-dismiss")
    expect(page.locator("#since")).to_be_hidden()
    assert page.locator("#board .tile.since").count() == len(bot_marks(log, start))


def test_gold_and_spawns_show_as_they_happen(calm_page: Any, server: str) -> None:
    """Income and free spawns, the bot's and the person's own, each show a short note."""
    page = calm_page
    open_against_bot(page, server)
    notes: list[str] = []
    page.expose_function("__note", lambda text: notes.append(str(text)))
    page.evaluate("""() => new MutationObserver((changes) => { for (const c of changes)
      for (const n of c.addedNodes)
        if (n.classList?.contains('toast')) window.__note(n.textContent); })
      .observe(document.getElementById('toasts'), {childList: true})""")
    wanted = (r"P2 \(\w+\): \+\d+ gold",  # the bot's income
              r"P2 \(\w+\): \w+ on C\d",  # the bot's free spawn on its castle
              r"P1 \(\w+\): \+\d+ gold")  # the person's own income
    def seen() -> list[bool]:
        return [any(re.search(w, n) for n in notes) for w in wanted]
    for _ in range(40):
        page.wait_for_function(OWN_DECISION, timeout=20_000)
        if all(seen()):
            break
        click_and_wait(page, first_or_pass(page))
    assert all(seen()), notes


PURE = """async () => {
  const m = await import('/static/js/since.js');
  const i18n = await import('/static/js/i18n.js');
  const obs = {players: [{realm: 'khalisia'}, {realm: 'kimbria'}, {realm: 'ardinor'}]};
  const log = [
    {index: 0, kind: 'passed', seat: 0, phase: 'reinforce'},
    {index: 1, kind: 'turn_started', seat: 1, turn: 2, round: 1, final_round: false},
    {index: 2, kind: 'spawned', seat: 1, unit: '1/sword', tile: 'C3'},
    {index: 3, kind: 'income', seat: 1, castles: 1, tiles: 2, amount: 2, gold: 6, frozen: false},
    {index: 4, kind: 'moved', seat: 1, src: 'C3', dst: 'T6', units: ['1/sword', '1/archer'],
     cause: 'action'},
    {index: 5, kind: 'battle_started', attacker: 1, defender: 0, a_tile: 'T6', d_tile: 'C1',
     attackers: ['1/sword'], defenders: ['0/crown'], volley: false},
    {index: 6, kind: 'no_card', seat: 0, window: 'declare'},
    {index: 7, kind: 'unit_killed', seat: 0, unit: '0/archer', tile: 'C1', killer: 1, card: '',
     chosen: false},
    {index: 8, kind: 'battle_ended', attacker: 1, defender: 0, a_tile: 'T6', d_tile: 'C1',
     result: 'attacker_won', losses: ['0/archer']},
    {index: 9, kind: 'moved', seat: 1, src: 'T6', dst: 'C1', units: ['1/sword'], cause: 'invasion'},
    {index: 10, kind: 'bought', seat: 2, unit: '2/sword', tile: 'T9', cost: 2},
    {index: 11, kind: 'gold_changed', seat: 0, delta: 4, gold: 9, cause: 'EV01'},
    {index: 12, kind: 'moved', seat: 0, src: 'C2', dst: 'T2', units: ['0/general'], cause: 'card'},
  ];
  const from = m.sinceStart(log.slice(0, 12), 0);
  const entries = m.entriesFrom(log, from);
  const marks = m.boardMarks(entries, 0);
  const text = m.summaryText(m.summaryParts(entries, 0), obs);
  await i18n.setLang('nl');
  const dutch = m.summaryText(m.summaryParts(entries, 0), obs);
  await i18n.setLang('en');
  const now = m.sinceNow(log.slice(0, 12), {seat: 0}, true);
  return {from, text, dutch, ages: now.board.arrows.map((a) => a.age), summary: now.parts.length,
    tiles: Object.fromEntries([...marks.tiles].map(([k, v]) => [k, [...v].sort()])),
    arrows: marks.arrows.map((a) => [a.kind, a.from, a.to]),
    mine: m.summaryParts(m.entriesFrom(log, 12), 0),
    notes: m.liveNotes(log, obs),
    alone: m.summaryParts([log[11]], 0)};
}"""


def test_the_pure_functions_on_crafted_entries(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#create")
    got = page.evaluate(PURE)
    assert got["from"] == 1  # after seat 0's pass; its forced "no card" (6) starts nothing
    assert got["tiles"] == {"C3": ["from", "placed"], "T6": ["attack_from", "from", "to"],
                            "C1": ["attack_to", "to"], "T9": ["placed"]}  # not seat 0's T2
    # One arrow a move and an attack; the invasion repeats the attack's and draws none.
    assert got["arrows"] == [["move", "C3", "T6"], ["attack", "T6", "C1"]]
    assert got["text"] == ("Since your last turn: P2 (Kimbria) moved 2 units to T6, attacked C1"
                           " from T6 and won, spawned Sword; P3 (Ardinor) bought Sword;"
                           " you received 4 gold, you lost Archer.")
    # Motion allowed (this page): a new arrow draws itself, from its start.
    assert len(got["ages"]) == 2 and all(0 <= age < 700 for age in got["ages"])
    assert got["summary"] == 3  # P2, P3 and what befell seat 0
    assert got["dutch"].startswith("Sinds je vorige beurt: S2 (Kimbria) verplaatste 2 eenheden")
    assert got["mine"] == []  # only the seat's own move: nothing to tell
    assert got["alone"] == []  # gold alone is no one else's act
    assert "P2 (Kimbria): +2 gold" in got["notes"] and "P1 (Khalisia): +4 gold" in got["notes"]
    assert any(n.startswith("P2 (Kimbria): ") and n.endswith(" on C3") for n in got["notes"])
