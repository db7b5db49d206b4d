"""The steady screen of ``kaladan play`` on a terminal: one screenful that never scrolls, the
map always on it, the choices in words with their prices, numbered in reading order.

The pexpect sessions run without colour: then every frame fills the terminal exactly, so
what the terminal shows at a prompt is the output's last lines (``last_screen``). With colour
the frame is drawn in place; ``Term`` replays those codes.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pexpect
import pytest
from play_helpers import (
    ANSI,
    CONFIRM,
    PROMPT,
    Term,
    last_screen,
    pane,
    saves,
    spawn_tty,
)
from rich.console import Console

from kaladan.game import Game
from kaladan.play import i18n, steady, words
from kaladan.play.choices import Choice, build, ordered, rows
from kaladan.play.keys import Keyboard
from kaladan.play.render import header
from kaladan.play.savefile import parse_seats
from kaladan.play.screen import Screen
from kaladan.play.session import Session, Turn
from kaladan.rules.catalog import GLOSSARY
from kaladan.rules.config import Config
from kaladan.rules.state import Decision, Phase
from kaladan.rules.units import PLACE_COST, UPGRADE_COST, UnitType
from positions import build as build_position
from positions import game_at

OPTIONS = {"en": "Your options", "nl": "Je mogelijkheden", "de": "Deine Möglichkeiten"}
PURCHASE = {lang: GLOSSARY["purchase_phase"].get(lang) for lang in OPTIONS}
# "Buy a Sword on T4 — 1 gold" and the same in Dutch and German: (unit, price)
BUY = {"en": re.compile(r"Buy an? (\w+) on [TC]\d+ — (\d) gold"),
       "nl": re.compile(r"Koop (\w+) op [TC]\d+ — (\d) goud"),
       "de": re.compile(r"Kaufe (\w+) auf [TC]\d+ — (\d) Gold")}
UNIT_BY_NAME = {lang: {GLOSSARY[t.label if t.label != "special" else "special_unit"].get(lang): t
                       for t in UnitType} for lang in OPTIONS}
NUMBER = re.compile(r"(?<!\S)(\d+)\. ")
TILES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "C1", "C2")  # the two-player world


def _check_screen(screen: list[str], size: tuple[int, int]) -> None:
    """A whole screen of the steady game: its header first, every tile of the map on it,
    no line wider than the terminal."""
    width, height = size
    assert len(screen) == height - 1 and all(len(line) <= width for line in screen)
    assert screen[0].startswith("Generals of Kaladan · ")
    text = "\n".join(screen)
    for tile in TILES:
        assert f"┌─ {tile} " in text, (tile, text)


def _numbers(lines: list[str]) -> list[int]:
    return [int(n) for line in lines for n in NUMBER.findall(line)]


@pytest.mark.parametrize(("size", "lang"), [((120, 40), "en"), ((120, 40), "nl"),
                                            ((120, 40), "de"), ((80, 24), "en"),
                                            ((80, 24), "de")])
def test_a_whole_turn_on_one_steady_screen(tmp_path: Path, user_data: Path,
                                           size: tuple[int, int], lang: str) -> None:
    """From the first decision through the Purchase phase and on to the next turn: the map
    stays on the screen, the choices are numbered in reading order, a purchase shows its
    price (R11.2), ``costs`` lists the prices and the reserve, and ``quit`` saves into the
    user data directory and nothing where the game was started."""
    child = spawn_tty(["play", "--seats", "human,greedy", "--quick", "--seed", "5", "--lang",
                       lang], tmp_path, size=size)
    stage = "before"  # then "purchase" (the prices read), "costs" (the table read), "after"
    for _ in range(40):
        child.expect([PROMPT, CONFIRM])
        screen = last_screen(child.before, size[1])
        _check_screen(screen, size)
        purchase = PURCHASE[lang] in screen[0]
        if stage == "costs":  # the prices took the place of the choices
            prices = " ".join(pane(screen, i18n.text(lang, "costs_title")))
            for utype in (UnitType.SWORD, UnitType.CATAPULT):
                assert re.search(rf"{i18n.unit_name(lang, utype)} \(\w\w\)\s+"
                                 rf"{words.gold_text(PLACE_COST[utype], lang)}\s+"
                                 rf"{words.gold_text(UPGRADE_COST[utype], lang)}\s+\d",
                                 prices), prices
            stage = "after"
            child.sendline("")  # back to the choices
            continue
        inside = pane(screen, OPTIONS[lang])
        numbers = _numbers(inside)
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), inside
        if purchase and stage == "before":
            buys = BUY[lang].findall(" ".join(inside))
            assert buys, inside
            for unit, cost in buys:
                assert int(cost) == PLACE_COST[UNIT_BY_NAME[lang][unit]], unit
            stage = "costs"
            child.sendline("costs")
            continue
        if stage == "after" and not purchase:
            break  # the Purchase phase is over, and the screen never scrolled
        child.sendline("1")
    else:
        raise AssertionError(f"the turn did not get past the Purchase phase ({stage})")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and ANSI not in child.before
    [saved] = saves(user_data).iterdir()
    assert saved.name.startswith("game-") and str(saved) in "".join(child.before.split())
    assert not any(tmp_path.iterdir())  # never a stray file in the working directory


def test_colour_clicks_and_a_new_size(tmp_path: Path) -> None:
    """With colour: the frame is drawn in place; a click on a tile lists what can be done
    there, a click on a choice plays it; a smaller terminal gets the compact layout."""
    child = spawn_tty(["play", "--seats", "human,greedy", "--quick", "--seed", "5",
                       "--autosave", str(tmp_path / "a.json")], tmp_path, color=True,
                      size=(120, 40))
    term = Term(120, 40)
    child.expect(PROMPT)
    term.feed(child.before + child.after)
    screen = term.screen()
    assert "\x1b[" in child.before and screen[0].startswith("Generals of Kaladan")
    y = next(k for k, line in enumerate(screen) if "┌─ C2 " in line)
    x = screen[y].index("┌─ C2 ")
    child.send(f"\x1b[<0;{x + 4};{y + 2}M")  # SGR mouse report: 1-based column and line
    child.expect(PROMPT)
    term.feed(child.before + child.after)
    screen = term.screen()
    listed = pane(screen, "Options on C2")
    assert listed and all("C2" in line for line in listed if NUMBER.search(line))
    y = next(k for k, line in enumerate(screen) if NUMBER.search(line) and "C2" in line
             and "╭" not in line)
    x = screen[y].index(NUMBER.search(screen[y]).group(0))  # type: ignore[union-attr]
    phase = screen[0]
    child.send(f"\x1b[<0;{x + 2};{y + 1}M")
    child.expect(PROMPT)
    term.feed(child.before + child.after)
    assert term.screen()[0] != phase  # the choice was played: the next decision
    child.setwinsize(24, 80)
    term.resize(80, 24)
    child.expect(PROMPT)
    term.feed(child.before + child.after)
    small = term.screen()
    assert any(line.startswith("◀ P1 (") for line in small)  # the compact players
    assert all(f"─ {tile} " in "\n".join(small) for tile in TILES)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and (tmp_path / "a.json").exists()


# --- in-process --------------------------------------------------------------------------


def _session(game: Game, seats: str = "human,greedy", lang: str = "en",
             size: tuple[int, int] = (120, 40)) -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    return Session(game, parse_seats(seats, lang), Screen(True, stdout=out, size=size),
                   Path("unused.json")), out


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("size", [(120, 40), (80, 24), (160, 50)])
def test_every_world_fits_every_screen(players: int, size: tuple[int, int]) -> None:
    game = Game.new(Config(players=players, quick_setup=True), 2)
    session, _ = _session(game, ",".join(["human"] * players))
    width, height = size
    console = Console(width=width, height=height, color_system=None, file=io.StringIO())
    drawn = steady.draw(console, session.scene(game.state.pending.seat), steady.View(), width,
                        height - 1)
    lines = drawn.frame.plain_lines()
    assert len(lines) == height - 1 and all(len(line) == width for line in lines)
    region = drawn.frame.regions["map"]
    shown = "\n".join(line[region.x:region.x + region.width]
                      for line in lines[region.y:region.y + region.height])
    for name in game.state.world.names:
        assert re.search(rf"(?<![A-Z0-9]){name}(?!\d)", shown), (name, shown)
    assert drawn.map is not None
    tile, (x, y, _, _) = next(iter(drawn.map.boxes.items()))
    hit = drawn.click(region.x + drawn.map_at[0] + x + 1, region.y + drawn.map_at[1] + y)
    assert hit == ("tile", game.state.world.names[tile])


def test_choices_are_grouped_and_numbered_in_reading_order() -> None:
    """The Reinforcement phase lists moves and swaps mixed; on the screen each kind is one
    block, pass first, and the numbers run left to right, then down."""
    board = {"C1": "0/crown 0/sword", "T1": "0/archer 0/shield", "T2": "0/general",
             "C2": "1/crown"}
    game = game_at(build_position(board, phase="reinforce", active=0))
    legal = game.legal_actions()
    kinds = [a.kind for a in legal]
    assert "swap" in kinds and kinds.index("swap") < len(kinds) - kinds[::-1].index("move") - 1
    listed = ordered(legal)
    assert sorted(listed) == sorted(legal) and listed[0].kind == "pass"
    seen = [a.kind for a in listed]
    assert seen == sorted(seen, key=["pass", "move", "swap"].index)
    choices = build(game, "en")
    assert [c.number for c in choices] == list(range(1, len(choices) + 1))
    grid = rows(choices, 100)
    assert _numbers([row.text.plain for row in grid]) == [c.number for c in choices]
    assert max(len(row.spans) for row in grid) > 1  # short texts side by side
    for row in grid:
        for start, _, number in row.spans:
            assert row.number_at(start) == number


def _purchase(hand: list[str]) -> Game:
    board = {"C1": "0/crown 0/sword 0/archer", "T4": "0/general", "C2": "1/crown"}
    return game_at(build_position(board, realms=("nanchia", "kimbria"), phase="purchase",
                                  active=0, gold=[9, 0], hands=[hand, []]))


def test_a_purchase_names_its_price_in_every_language() -> None:
    game = _purchase(["NAN-1"])
    state = game.state
    assert state.pending.kind == Decision.PURCHASE
    texts = {lang: {c.notation: c.words for c in build(game, lang)} for lang in OPTIONS}
    assert texts["en"]["buy catapult C1"] == "Buy a Catapult on C1 — 2 gold"
    assert texts["en"]["buy archer T4"] == "Buy an Archer on T4 — 1 gold"
    assert texts["nl"]["upgrade general T4"] == "Waardeer Generaal op T4 op — 4 goud"
    assert texts["de"]["fortify C1"] == "Werte die Burg C1 auf — 4 Gold"
    assert texts["en"]["end"] == "Done: end the Purchase phase"
    for choice in build(game, "en"):
        cost = words.price(choice.action, state)
        assert (f"— {cost} gold" in choice.words) == (cost > 0)
        if choice.action.kind in ("buy", "upgrade", "fortify", "swapcard", "extracard"):
            assert cost > 0
    special = next(c for c in build(game, "en") if c.notation.startswith("buy special"))
    assert special.words.startswith("Buy the Bronze Bear of Nanchia on ")  # as the log says


def test_an_events_upgrade_is_free_and_an_attack_shows_its_odds() -> None:
    game = Game.new(Config(players=2, quick_setup=True), 5)
    while not (game.state.pending.kind == Decision.EVENT and any(
            a.kind == "upgrade" for a in game.legal_actions())):
        game.play(game.legal_actions()[0])
    upgrade = next(a for a in game.legal_actions() if a.kind == "upgrade")
    assert words.price(upgrade, game.state) == 0
    assert words.describe(upgrade, game.state, "en").endswith(" — free")
    board = {"C1": "0/crown", "T4": "0/general 0/catapult 0/sword", "T7": "1/shield",
             "C2": "1/crown"}
    battle = game_at(build_position(board))
    attack = next(c for c in build(battle, "de") if c.action.kind == "attack")
    assert re.fullmatch(r"Greife T7 von T4 an — du gewinnst \d+\.\d%", attack.words)


def test_the_terminal_names_players_and_turns_as_the_browser() -> None:
    game = Game.new(Config(players=2, quick_setup=True), 5)
    while game.state.phase == Phase.SETUP:
        game.play(game.legal_actions()[0])
    plan = parse_seats("human,greedy")
    for lang, turn in (("en", "Turn"), ("nl", "Beurt"), ("de", "Zug")):
        text = header(game.state, plan, lang).plain
        assert f" · {turn} {game.state.turn} · " in text
        assert re.search(r"P\d \(\w+\)", text) and "seat" not in text.lower()


def test_help_odds_costs_and_paging_stay_on_the_screen() -> None:
    """A text asked for takes the place of the choices, paged; Enter brings them back."""
    game = _purchase(["NAN-1", "NAN-2"])
    session, out = _session(game, size=(100, 30))
    seat = game.state.pending.seat
    session.draw(seat)
    for command, title in (("help", "Help"), ("costs", "Prices (rule R11.2)"),
                           ("hand", "Hand of P1"), ("log", "Log")):
        session.handle(command, seat)
        assert session.view.info is not None and session.view.info.title.startswith(title)
    session.handle("help", seat)
    first = session.view.page
    session.handle("+", seat)
    assert session.view.page == first + 1 and session.view.info is not None
    session.handle("", seat)
    assert session.view.info is None and session.view.page == 0
    session.handle("buy", seat)  # a prefix lists what matches
    assert session.view.shown and all(c.notation.startswith("buy") for c in session.view.shown)
    session.handle("Bear", seat)  # so does a word of the texts
    assert session.view.shown and all("Bear" in c.words for c in session.view.shown)
    session.handle("fly", seat)
    assert "Not understood: 'fly'" in session.view.messages[0][0]
    steps = len(game.steps)
    assert session.handle("²", seat) is Turn.AGAIN and len(game.steps) == steps  # no number


def _keys(*parts: bytes) -> list[tuple[str, str, int, int]]:
    """The keys read from ``parts`` written one after the other (each may end in the
    middle of a sequence); the input stays open, as a terminal's does."""
    read, write = os.pipe()
    keyboard = Keyboard(read)
    out = []
    for part in parts:
        os.write(write, part)
        while (key := keyboard.read(0.01)) is not None:
            out.append((key.name, key.text, key.x, key.y))
    os.close(write)
    os.close(read)
    return out


def test_keys_paging_mouse_and_text() -> None:
    keys = _keys("ü1\r\n\x1b[6~\x1b[5~\x1b[A\x1b[<0;12;5M\x1b[<0;12;5m\x1b[<65;3;3M"
                 "\x1b[9Zx\x7f\x15".encode(), "ä".encode()[:1], "ä".encode()[1:] + b"\x1b[B\x04",
                 b"\x1b")
    assert keys == [("text", "ü", 0, 0), ("text", "1", 0, 0), ("enter", "", 0, 0),
                    ("pgdn", "", 0, 0), ("pgup", "", 0, 0), ("up", "", 0, 0),
                    ("click", "", 11, 4), ("ignored", "", 0, 0), ("wheel_down", "", 2, 2),
                    ("text", "x", 0, 0), ("backspace", "", 0, 0), ("clear", "", 0, 0),
                    ("text", "ä", 0, 0), ("down", "", 0, 0), ("eof", "", 0, 0),
                    ("escape", "", 0, 0)]


def test_a_choice_clicked_is_its_number() -> None:
    game = _purchase([])
    session, _ = _session(game)
    console = Console(width=120, height=40, color_system=None, file=io.StringIO())
    drawn = steady.draw(console, session.scene(0), session.view, 120, 39)
    region = drawn.frame.regions["choices"]
    choice: Choice = session.options()[2]
    y = next(k for k, row in enumerate(drawn.rows) if row.number_at(0) is not None and any(
        n == choice.number for _, _, n in row.spans))
    start = next(s for s, _, n in drawn.rows[y].spans if n == choice.number)
    assert drawn.click(region.x + 2 + start, region.y + 1 + y) == ("choice", str(choice.number))
