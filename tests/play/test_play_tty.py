"""``kaladan play`` and ``kaladan replay`` on a pseudo-terminal, as a person would use them."""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pexpect
import pytest
from play_helpers import ANSI, KALADAN, drive, env, game_args, saves, spawn_tty

from kaladan.play.savefile import read_save
from kaladan.record import replay
from kaladan.rules.catalog import REALM_PREFIXES, magic_cards_of
from kaladan.rules.gamelog import DiceRolled

BATTLE_WORDS = {"en": ("Attack dice", "Defence dice", "you win"),
                "nl": ("Aanvalsdobbelstenen", "Verdedigingsdobbelstenen", "je wint"),
                "de": ("Angriffswürfel", "Verteidigungswürfel", "du gewinnst")}
PHASE_WORDS = {"en": "Action phase", "nl": "Actiefase", "de": "Aktionsphase"}
OVER_WORDS = {"en": "Game over", "nl": "Het spel is voorbij", "de": "Das Spiel ist vorbei"}


@pytest.mark.parametrize("lang", ["en", "nl", "de"])
def test_a_complete_game_on_a_terminal_in_each_language(tmp_path: Path, lang: str) -> None:
    """A scripted human attacks whenever it can against the greedy bot, to the end."""
    child = spawn_tty(game_args(seed=5, lang=lang, autosave=tmp_path / "a.json"), tmp_path)
    transcript = drive(child, attack=True, lang=lang)
    text = transcript.text
    assert transcript.exit_status == 0
    assert transcript.attacks > 0
    assert OVER_WORDS[lang] in text and PHASE_WORDS[lang] in text
    for word in BATTLE_WORDS[lang]:
        assert word in text, word
    assert ANSI not in text  # NO_COLOR: not one escape code
    assert "Traceback" not in text


def _first_screen(tmp_path: Path, color: bool) -> str:
    child = spawn_tty(game_args(seed=4, autosave=tmp_path / "c.json"), tmp_path, color=color)
    log = io.StringIO()
    child.logfile_read = log
    child.expect(r"\(help\) > ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return log.getvalue()


def test_colours_on_a_terminal_and_none_with_no_color(tmp_path: Path) -> None:
    coloured = _first_screen(tmp_path, color=True)
    plain = _first_screen(tmp_path, color=False)
    assert "\x1b[" in coloured
    assert ANSI not in plain
    for screen in (coloured, plain):  # the same information either way
        assert "Your options" in screen and "T1 Field" in screen


def _seat_of_prompt(chunk: str) -> int:
    """The seat a prompt is for: ``P2 (Kimbria): number, ...`` is seat 1."""
    seats = re.findall(r"P(\d) \(\w+\): number, action or command", chunk)
    assert seats, chunk[-300:]
    return int(seats[-1]) - 1


def test_hot_seat_hands_over_and_hides_the_other_hand(tmp_path: Path) -> None:
    """Two humans at one keyboard: before each of seat 1's decisions the screen is wiped
    and seat 1 is asked to take the keyboard; nothing seat 1 sees names seat 0's cards."""
    child = spawn_tty(game_args(seed=7, seats="human,human", autosave=tmp_path / "h.json"),
                      tmp_path)
    transcript = drive(child)
    assert transcript.exit_status == 0
    realms = dict(re.findall(r"Hand of P(\d) \((\w+)\)", transcript.text))
    assert set(realms) == {"1", "2"}
    hidden = [REALM_PREFIXES[realms["1"].lower()] + "-"]
    hidden += [card.name.en for card in magic_cards_of(realms["1"].lower())]
    own = REALM_PREFIXES[realms["2"].lower()] + "-"
    handovers = [k for k, kind in enumerate(transcript.kinds) if kind == "handover"]
    assert len(handovers) > 4
    seat1_prompts = 0
    seen_own = False
    for k, (kind, chunk) in enumerate(zip(transcript.kinds, transcript.chunks, strict=False)):
        if kind == "handover":
            assert re.search(r"Pass the keyboard to P[12] \(\w+\) and $", chunk)
            if "P2" in chunk.rsplit("Pass the keyboard", 1)[1]:
                assert not any(word in chunk for word in hidden)
            continue
        if kind == "prompt" and _seat_of_prompt(chunk) == 1:
            seat1_prompts += 1
            seen_own = seen_own or own in chunk
            assert not any(word in chunk for word in hidden), (k, chunk[-2000:])
    assert seat1_prompts > 10 and seen_own  # seat 1 does see its own hand


def test_save_quit_and_load_on_a_terminal(tmp_path: Path, user_data: Path) -> None:
    """``save NAME`` writes into the saves folder of the user data directory and
    ``--load NAME`` finds it there; nothing is written where the game was started."""
    child = spawn_tty(game_args(seed=8, autosave=tmp_path / "auto.json"), tmp_path)
    transcript = drive(child, script=["1", "1", "1", "save mid.json", "quit"])
    assert transcript.exit_status == 0
    mid = saves(user_data) / "mid.json"
    assert f"Game saved to {mid}." in transcript.text
    game, plan = read_save(mid)
    saved_steps = len(game.steps)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["auto.json"]
    loaded = spawn_tty(["play", "--load", "mid.json"], tmp_path)
    rest = drive(loaded)
    assert rest.exit_status == 0
    assert f"Game loaded from {mid}" in rest.text and "Game over" in rest.text
    assert saved_steps > 0 and plan.seats == ("human", "greedy")


def test_commands_help_odds_map_log(tmp_path: Path) -> None:
    child = spawn_tty(game_args(seed=5, autosave=tmp_path / "a.json"), tmp_path)
    transcript = drive(child, script=["help", "odds", "map", "log", "hilfe"], stop_after=5)
    text = transcript.text
    assert transcript.exit_status == 0
    assert "save FILE" in text and "odds " in text  # the help text lists the commands
    assert "You cannot declare an attack now." in text or "Exact odds" in text
    # help and log take the place of the options; map brings the options back
    help_, odds, map_, log = transcript.chunks[1:5]
    assert "╭─ Help " in help_ and "╭─ Your options " not in help_
    assert "╭─ Your options " in map_ and "╭─ Log " in log and "Turn 1" in log
    assert "Input ended: game saved to" in text


def test_interactive_setup_asks_what_it_needs(tmp_path: Path, user_data: Path) -> None:
    child = pexpect.spawn(KALADAN[0], [*KALADAN[1:], "play"], cwd=str(tmp_path), env=env(),
                          dimensions=(60, 160), encoding="utf-8", timeout=30)
    child.delaybeforesend = None
    child.expect(r"Language / Taal / Sprache")
    child.sendline("de")
    child.expect(r"Wie viele Spieler")
    child.sendline("7")
    child.expect(r"Bitte noch einmal")
    child.sendline("")
    child.expect(r"P1: ")
    child.sendline("")
    child.expect(r"P2: ")
    child.sendline("dragon")
    child.expect(r"Bitte noch einmal: .*dragon")
    child.sendline("random")
    child.expect(r"Schneller Aufbau")
    child.sendline("j")
    child.expect(r"\(help\) > ")
    assert "Deine Möglichkeiten" in child.before
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert not any(tmp_path.iterdir())  # the autosave is in the saves folder, not here
    [autosave] = saves(user_data).iterdir()
    assert str(autosave) in " ".join(child.before.split())
    saved = json.loads(autosave.read_text())
    assert saved["seats"] == ["human", "random"] and saved["lang"] == "de"
    assert saved["record"]["config"]["quick_setup"] is True


def test_replay_steps_forward_and_backward(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    made = subprocess.run([*KALADAN, "record", "--players", "random,random", "--quick",
                           "--seed", "2", "--out", str(record)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert made.returncode == 0, made.stderr
    steps = json.loads(record.read_text())["steps"]
    child = pexpect.spawn(KALADAN[0], [*KALADAN[1:], "replay", str(record)], env=env(),
                          dimensions=(60, 160), encoding="utf-8", timeout=30)
    child.delaybeforesend = None
    child.expect(rf"step 0/{len(steps)} ")
    assert "start of the game" in child.before
    child.sendline("n")
    child.expect(r"step 1/")
    assert f"step 1: P{steps[0]['seat'] + 1} " in child.before
    assert steps[0]["action"] in child.before
    child.sendline("10")
    child.expect(r"step 10/")
    assert steps[9]["action"] in child.before
    child.sendline("p")
    child.expect(r"step 9/")
    child.sendline("sideways")
    child.expect(r"step 9/")
    assert "Use n, p, a step number" in child.before
    # The step that rolled a battle's dice shows them, from the replayed game's log.
    game = replay(json.loads(record.read_text()))
    at, rolled = next((k, e) for k, e in enumerate(game.entries) if isinstance(e, DiceRolled))
    step = max(j for j, start in enumerate(game.entry_starts) if start <= at) + 1
    child.sendline(str(step))
    child.expect(rf"step {step}/")
    first = rolled.attack[0]
    assert f"Attack dice: D{first.size}→{first.face}" in child.before
    shown = re.sub(r"\s*│\s*", " ", child.before)  # the panel's frame may cut a long line
    assert all(f"D{d.size}→{d.face}" in shown for d in rolled.attack + rolled.defence)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
