"""Gold for an ally at any moment (R23.11) in the terminal game: the ``give`` command, one line
instead of numbered gifts, refusals that change nothing; and the ruleset options of R3.3
(``upgrade_loss``, ``end_game_trigger``) on the command line and on the screen.

Team game of the in-process tests: 2 against 2, seed 5, quick setup; seats 0 and 2 (Kimbria,
Khalisia) are team 0, seats 1 and 3 (Laurielle, Ardinor) team 1. The first decision a human
gets is seat 0's answer to the event card EV09, with gold 2, 3, 0, 1.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pexpect
import pytest
from play_helpers import (
    HANDOVER,
    KALADAN,
    PROMPT,
    env,
    game_args,
    last_screen,
    pane,
    plain,
    saves,
    spawn_pipe,
    spawn_tty,
)

from kaladan.game import Game, Step
from kaladan.play import i18n
from kaladan.play.choices import ordered
from kaladan.play.render import board_view
from kaladan.play.savefile import parse_seats, read_save
from kaladan.play.screen import Screen
from kaladan.play.session import Session, Turn
from kaladan.rules.config import OPTIONS, Config
from kaladan.rules.gamelog import EventCardDrawn, FinalRound, GoldGiven, UpgradesLost
from kaladan.rules.logtext import seat_name
from positions import build, game_at

TEAM = ["--mode", "team_2v2"]
ALWAYS_FIRST = "1\n" * 3000


def team_session(tmp_path: Path, seats: str = "human,human,greedy,greedy",
                 lang: str = "en") -> tuple[Session, io.StringIO]:
    """A scripted session of the team game, at the first decision a human holds."""
    game = Game.new(Config(players=4, mode="team_2v2", quick_setup=True), 5)
    out = io.StringIO()
    session = Session(game, parse_seats(seats, lang),
                      Screen(False, stdin=io.StringIO(""), stdout=out), tmp_path / "auto.json")
    while not session.plan.is_human(game.state.pending.seat):
        session.bot_turn(game.state.pending.seat)
    return session, out


def said(out: io.StringIO, start: int) -> str:
    return out.getvalue()[start:]


def p(game: Game, seat: int) -> str:
    """``P2 (Laurielle)``: a seat as the log names it."""
    return seat_name(seat, "en", game.state.realm)


def test_r23_11_give_in_turn_and_out_of_turn_moves_the_gold_and_keeps_the_decision(
        tmp_path: Path) -> None:
    session, out = team_session(tmp_path)
    game = session.game
    pending = game.state.pending
    assert pending.seat == 0 and game.state.gold == [2, 3, 0, 1]
    # Seat 1, a human at the table who is not deciding, gives its ally seat 3 two gold.
    at = len(out.getvalue())
    assert session.handle("give P2 P4 2", 0) is Turn.REDRAW
    assert game.state.gold == [2, 1, 0, 3]
    assert game.state.pending == pending
    assert game.steps[-1] == Step(1, "gift 3 2", ())
    assert game.entries[-1] == GoldGiven(1, 3, 2)
    assert f"{p(game, 1)} gives 2 gold to {p(game, 3)}." in said(out, at).splitlines()
    # The deciding seat gives with the command, with the notation, and with an alias.
    assert session.handle("give P3 1", 0) is Turn.REDRAW
    assert session.handle("gift 2 1", 0) is Turn.REDRAW
    assert session.handle("GIB p2 p4 1", 0) is Turn.REDRAW
    assert game.state.gold == [0, 0, 2, 4]
    assert game.state.pending == pending
    assert [s.seat for s in game.steps[-3:]] == [0, 0, 1]
    at = len(out.getvalue())
    assert session.handle("geef P3 1", 0) is Turn.AGAIN  # nothing left to give
    assert "(rule R23.11)" in said(out, at) and "has no gold to give now" in said(out, at)
    assert game.state.gold == [0, 0, 2, 4]


REFUSED = [
    ("give P2 1", "Not allowed now: a gift goes to an ally"),  # an opponent
    ("give P3 3", "Not allowed now: a gift goes to an ally"),  # more than the 2 gold
    ("give P2 P1 1", "Not allowed now: a gift goes to an ally"),  # seat 1 to an opponent
    ("gift 1 1", "Not allowed now: a gift goes to an ally"),  # the notation, an opponent
    ("give P3 P1 1", "P3 (Khalisia) is played by a bot (greedy)"),
    ("give P5 1", "There is no player P5 in this game: the players are P1 to P4"),
    ("give P0 P3 1", "There is no player P0 in this game"),
]


@pytest.mark.parametrize(("line", "words"), REFUSED)
def test_r23_11_a_refused_give_names_the_rule_and_changes_nothing(
        tmp_path: Path, line: str, words: str) -> None:
    session, out = team_session(tmp_path)
    game = session.game
    before, steps = game.position(), len(game.steps)
    assert session.handle(line, 0) is Turn.AGAIN
    message = out.getvalue().splitlines()[-2:]
    assert any(words in m for m in message), message
    assert any("(rule R23.11)" in m and "Nothing changed." in m for m in message), message
    assert game.position() == before and len(game.steps) == steps


@pytest.mark.parametrize("line", ["give", "give P3", "give 3 1", "give P3 0", "give P3 two",
                                  "give P1 P2 P3 1", "give P3 ²", "give P٣ 1"])
def test_a_malformed_give_shows_its_usage_and_changes_nothing(tmp_path: Path,
                                                              line: str) -> None:
    session, out = team_session(tmp_path)
    game = session.game
    before, steps = game.position(), len(game.steps)
    assert session.handle(line, 0) is Turn.AGAIN
    assert out.getvalue().splitlines()[-1].startswith("Usage: give ALLY AMOUNT")
    assert game.position() == before and len(game.steps) == steps


def test_r23_11_no_gifts_in_free_for_all(tmp_path: Path) -> None:
    game = Game.new(Config(players=2, quick_setup=True), 5)
    out = io.StringIO()
    session = Session(game, parse_seats("human,human"),
                      Screen(False, stdin=io.StringIO(""), stdout=out), tmp_path / "a.json")
    before = game.position()
    assert session.handle("give P2 1", game.state.pending.seat) is Turn.AGAIN
    assert "this game is free-for-all (rule R23.11). Nothing changed." in out.getvalue()
    assert game.position() == before
    session.draw(game.state.pending.seat)
    assert "Give gold" not in out.getvalue()


def test_the_numbered_options_hold_no_gift_but_one_line_for_them(tmp_path: Path) -> None:
    session, out = team_session(tmp_path)
    game = session.game
    assert any(t.startswith("gift ") for t in game.legal_texts())  # the engine offers them
    numbered = ordered(game.legal_actions())
    assert numbered and all(a.kind != "gift" for a in numbered)
    session.draw(0)
    lines = out.getvalue().splitlines()
    options = [line for line in lines if re.match(r"\s*\d+\. ", line)]
    assert len(options) == len(numbered) and not any("gift" in line for line in options)
    assert "  Give gold to an ally (rule R23.11): give P3 <1-2> (Khalisia); another player " \
           "at the table: give P2 P4 <1-3> (Ardinor)" in lines
    at = len(out.getvalue())
    assert session.handle(str(len(numbered) + 1), 0) is Turn.AGAIN  # a gift has no number
    assert f"choose a number from 1 to {len(numbered)}." in said(out, at)
    # Bots give only in their own decisions: with one human, no other giver is offered.
    alone, alone_out = team_session(tmp_path, seats="human,greedy,greedy,greedy", lang="nl")
    alone.draw(0)
    assert "  Goud geven aan een bondgenoot (regel R23.11): give P3 <1-2> (Khalisia)" in \
        alone_out.getvalue().splitlines()


@pytest.mark.parametrize("lang", ["en", "nl", "de"])
def test_help_lists_give(tmp_path: Path, lang: str) -> None:
    session, out = team_session(tmp_path, lang=lang)
    session.handle({"en": "help", "nl": "hulp", "de": "hilfe"}[lang], 0)
    text = out.getvalue()
    assert "  give P3 2   " in text and "  give P1 P3 2\n" in text and "R23.11" in text


def test_gold_given_during_a_battle_leaves_the_battle_panel_whole(tmp_path: Path) -> None:
    """R23.11 at the invasion (R17.7): the gift is a log line of its own; the battle printed
    when it is over still ends with its invasion, and names no gift."""
    board = {"C1": "0/crown", "T7": "0/general 0/sword 2/archer 2/shield", "T8": "1/sword",
             "C2": "1/crown", "C3": "2/crown", "C4": "3/crown"}
    game = game_at(build(board, players=4, mode="team_2v2", hands=[[]] * 4, gold=[3, 0, 2, 0]))
    out = io.StringIO()
    session = Session(game, parse_seats("human,greedy,human,greedy"),
                      Screen(False, stdin=io.StringIO(""), stdout=out), tmp_path / "a.json")
    game.state.chance.force([6, 6, 6, 6, 1, 1])  # the attackers' four 6s kill the Sword
    session.apply(game.parse("attack T7 T8"), 0)
    assert game.state.pending.kind.label == "invasion"  # four survivors, room for three
    assert session.handle("give P3 P1 2", 0) is Turn.REDRAW  # seat 2 gives, out of turn
    assert session.handle("leave general", 0) is Turn.PLAYED
    lines = out.getvalue().splitlines()
    gift = f"{p(game, 2)} gives 2 gold to {p(game, 0)}."
    head = next(k for k, line in enumerate(lines)  # the panel's head, not the log's line
                if re.match(r"P1 \(\w+\) attacks T8 from T7 \(P2", line))
    end = next(k for k, line in enumerate(lines) if "takes T8. Invasion of T8: Sword; " in line)
    assert head < end and gift not in lines[head:end + 1]
    assert lines.index(gift) < head  # the gift's own line came first, as it happened
    assert "staying on T7: General" in lines[end]
    assert game.state.gold == [5, 0, 0, 0]


# --- through a real `kaladan play` ---------------------------------------------------------


def _seat_prompt(chunk: str) -> int:
    """The seat a prompt is for: ``P2 (Laurielle): number, ...`` is seat 1."""
    found = re.findall(r"P(\d) \(\w+\): number, action or command", chunk)
    return int(found[-1]) - 1 if found else -1


def test_out_of_turn_gift_then_save_and_load_continue_identically(tmp_path: Path,
                                                                  user_data: Path) -> None:
    """Scripted stdin: at seat 1's first prompt, seat 0 (the other human) gives its ally P3
    one gold; the save made just after it loads and plays on to the same end, step by step."""
    args = game_args(*TEAM, seed=5, seats="human,human,greedy,greedy",
                     autosave=tmp_path / "whole.json")
    child = spawn_pipe(args, tmp_path)
    given = ""
    for _ in range(3000):
        i = child.expect([PROMPT, HANDOVER, pexpect.EOF])
        if i == 2:
            break
        if i == 0 and not given and _seat_prompt(child.before) == 1:
            child.sendline("save before.json")
            child.expect(PROMPT)
            child.sendline("give P1 P3 1")
            child.expect(PROMPT)
            given = child.before
            child.sendline("save mid.json")
            child.expect(PROMPT)
        child.sendline("1")  # every answer, a handover's too, is "1", here and after loading
    else:
        raise AssertionError("the game did not end")
    assert child.wait() == 0
    before, _ = read_save(saves(user_data) / "before.json")  # `save NAME`: the saves folder
    mid, _ = read_save(saves(user_data) / "mid.json")
    assert before.state.pending.seat == 1 and mid.state.pending == before.state.pending
    assert mid.steps[len(before.steps):] == [Step(0, "gift 2 1", ())]
    gold = before.state.gold
    assert mid.state.gold == [gold[0] - 1, gold[1], gold[2] + 1, gold[3]]
    assert f"{p(mid, 0)} gives 1 gold to {p(mid, 2)}." in [line.strip() for line in
                                                         given.splitlines()]
    options = [line for line in given.splitlines() if re.match(r"\s*\d+\. ", line)]
    assert options and not any("gift" in line for line in options)
    assert "Give gold to an ally (rule R23.11): give P4 " in given
    loaded = subprocess.run([*KALADAN, "play", "--load", "mid.json", "--autosave",
                             "loaded.json"], input=ALWAYS_FIRST, capture_output=True, text=True,
                            cwd=tmp_path, env=env(), timeout=120, check=False)
    assert loaded.returncode == 0, loaded.stderr
    assert "Game over" in loaded.stdout and "Traceback" not in loaded.stderr
    whole = json.loads((tmp_path / "whole.json").read_text())["record"]
    again = json.loads((tmp_path / "loaded.json").read_text())["record"]
    assert again["steps"] == whole["steps"] and again["final"] == whole["final"]


def test_out_of_turn_gift_on_a_terminal_keeps_the_screen_of_the_seat_deciding(
        tmp_path: Path) -> None:
    """Hot-seat: seat 1 decides; the other human, seat 0, gives its ally gold. The screen is
    drawn again for seat 1, with the gift in its log and nothing of seat 0's hand."""
    child = spawn_tty(game_args(*TEAM, seed=5, seats="human,human,greedy,greedy",
                                autosave=tmp_path / "t.json"), tmp_path)
    screen = ""
    for _ in range(200):
        i = child.expect([PROMPT, HANDOVER])
        if i == 0 and _seat_prompt(child.before) == 1:
            child.sendline("give P1 P3 1")
            child.expect(PROMPT)
            screen = child.before
            child.sendline("give P1 1")  # seat 1 to seat 0, an opponent
            child.expect(PROMPT)
            refused = child.before
            break
        child.sendline("" if i == 1 else "1")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    game, _ = read_save(tmp_path / "t.json")
    assert game.steps[-1] == Step(0, "gift 2 1", ()) and game.state.pending.seat == 1
    assert f"{p(game, 0)} gives 1 gold to {p(game, 2)}." in screen
    assert "Hand of P2 " in screen and "Hand of P1 " not in screen
    assert not any(card in screen for card in game.state.hand[0])
    listed = " ".join(pane(last_screen(screen, 60), "Your options"))
    assert re.search(r"\b1\. ", listed) and not re.search(r"\d+\. Give ", listed)
    assert "Give gold to an ally (rule R23.11): give P4 " in listed
    assert "another player at the table: give P1 P3 " in listed
    assert "Not allowed now: " in refused and "(rule R23.11). Nothing changed." in refused
    assert "\x1b" not in screen and "Traceback" not in screen + refused


# --- ruleset options (R3.3) ----------------------------------------------------------------


def test_the_screen_names_the_rules_options_that_are_not_the_defaults() -> None:
    plan = parse_seats("human,human")
    standard = Game.new(Config(players=2, quick_setup=True), 1)
    assert "R3.3" not in plain(board_view(standard.state, plan, "en", 0, [], []))
    variant = Game.new(Config(players=2, quick_setup=True, upgrade_loss="losing_side",
                              end_game_trigger="deck_end", end_game_card="scales"), 1)
    words = {"en": ("Rules options (R3.3): end_game_card=scales (the end-game card is "
                    "Scales of Equality); upgrade_loss=losing_side (the losing side's surviving "
                    "units lose their upgrades too); end_game_trigger=deck_end (the end-game",),
             "nl": ("Regelopties (R3.3): ", i18n.card_name("nl", "EG2"),
                    "upgrade_loss=losing_side (ook de overlevende eenheden"),
             "de": ("Regeloptionen (R3.3): ", i18n.card_name("de", "EG2"),
                    "upgrade_loss=losing_side (auch die überlebenden")}
    for lang, expected in words.items():
        text = " ".join(plain(board_view(variant.state, plan, lang, 0, [], []), 400).split())
        assert all(word in text for word in expected), (lang, text[:600])
        assert "end_game_trigger=deck_end (" in text and "end_game_card=scales (" in text
    for name, values in OPTIONS.items():  # every value but a default has its words
        for value in values[1:]:
            assert all(i18n.option_value(lang, name, value) != value for lang in i18n.LANGS), \
                (name, value)


def test_upgrade_loss_and_end_game_trigger_games_run_to_the_end(tmp_path: Path) -> None:
    """`--option upgrade_loss=losing_side --option end_game_trigger=deck_end`, scripted: the
    rules line first; every battle the losing side's upgrades went in says so in its panel;
    the end-game card drawn is not the end: event cards follow it until the deck runs out."""
    result = subprocess.run(
        [*KALADAN, *game_args("--option", "upgrade_loss=losing_side", "--option",
                              "end_game_trigger=deck_end", seed=4, seats="human,random",
                              autosave=tmp_path / "g.json")],
        input=ALWAYS_FIRST, capture_output=True, text=True, cwd=tmp_path, env=env(),
        timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    lines = out.splitlines()
    assert lines[0].startswith("Rules options (R3.3): upgrade_loss=losing_side (")
    assert "end_game_trigger=deck_end (" in lines[0] and "Game over" in out
    game, _ = read_save(tmp_path / "g.json")
    assert game.is_over and game.config.upgrade_loss == "losing_side"
    lost = [e for e in game.entries if isinstance(e, UpgradesLost)]
    panel = [line for line in lines if line.startswith("Upgrades lost by the losing side on ")]
    assert lost and len(panel) == len(lost)
    assert all(e.text("en", game.state.realm) in lines for e in lost)  # the log line too
    drawn = [e.card for e in game.entries if isinstance(e, EventCardDrawn)]
    end_card = next(k for k, card in enumerate(drawn) if card.startswith("EG"))
    assert end_card < len(drawn) - 1  # R21.2: play went on drawing after the end-game card
    assert [e.card for e in game.entries if isinstance(e, FinalRound)] == [None]


@pytest.mark.parametrize(("option", "words"), [
    ("upgrade_loss=sometimes", ["upgrade_loss", "dead_only, losing_side", "R3.3"]),
    ("end_game_trigger=never", ["end_game_trigger", "final_round, deck_end", "R3.3"]),
    ("upgrade_loss", ["expected name=value", "upgrade_loss", "end_game_trigger"]),
])
def test_a_bad_option_value_exits_2_with_a_message(tmp_path: Path, option: str,
                                                  words: list[str]) -> None:
    result = subprocess.run([*KALADAN, "play", "--seats", "human,greedy", "--option", option],
                            capture_output=True, text=True, cwd=tmp_path, env=env(),
                            timeout=60, check=False)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and not result.stdout
    for word in words:
        assert word in result.stderr
