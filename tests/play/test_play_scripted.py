"""``kaladan play`` driven by another program: stdin is a pipe, one answer per line.

Prompts are plain lines without colour, the end of input saves the game and exits with 0,
bad input is reported and changes nothing, and a saved game continues exactly as an unbroken
one would (bots included).
"""

from __future__ import annotations

import json
import re
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from play_helpers import ANSI, KALADAN, drive, env, game_args, saves, spawn_pipe

from kaladan.bots.levels import default_level, level_names
from kaladan.bots.registry import check_config
from kaladan.odds import odds_for_attack
from kaladan.play.savefile import read_save
from kaladan.rules.catalog import MAGIC_CARDS
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError
from kaladan.rules.gamelog import Moved

ALWAYS_FIRST = "1\n" * 3000


def run(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(KALADAN + args, input=stdin, capture_output=True, text=True,
                          cwd=cwd, env=env(), timeout=90, check=False)


LANG_WORDS = {
    "en": ["Game over", "Action phase", "Purchase phase", "Sword", "Your options:"],
    "nl": ["Het spel is voorbij", "Actiefase", "Aankoopfase", "Zwaardvechter",
           "Je mogelijkheden:"],
    "de": ["Das Spiel ist vorbei", "Aktionsphase", "Kaufphase", "Schwertkämpfer",
           "Deine Möglichkeiten:"],
}


@pytest.mark.parametrize("lang", ["en", "nl", "de"])
def test_a_complete_game_answering_1_in_each_language(tmp_path: Path, user_data: Path,
                                                     lang: str) -> None:
    result = run(game_args(seed=11, seats="human,random", lang=lang), tmp_path, ALWAYS_FIRST)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Traceback" not in out + result.stderr
    assert ANSI not in out  # plain lines: no colour, no clearing
    for word in LANG_WORDS[lang]:
        assert word in out, word
    # The human's hand is shown with its cards' names and texts in the chosen language.
    assert any(card.name.get(lang) in out and card.text.get(lang)[:40] in out
               for card in MAGIC_CARDS)
    # The finished game is kept for `kaladan replay`, in the saves folder.
    [saved] = saves(user_data).iterdir()
    assert f"kaladan replay {saved}" in out
    assert not any(tmp_path.iterdir())
    finished, _ = read_save(saved)
    assert finished.is_over
    # The bot's moves are log lines in the language, naming its seat (P2) and realm.
    lines = out.splitlines()
    moves = [e for e in finished.log(0) if isinstance(e, Moved) and e.seat == 1]
    assert moves and all(e.text(lang, finished.state.realm) in lines for e in moves)
    assert re.search(r"^P2 \(\w+\) ", out, re.MULTILINE)


def test_attack_shows_the_exact_win_chance_and_the_battle(tmp_path: Path,
                                                          user_data: Path) -> None:
    """The confirmation shows odds_for_attack's chance; 'n' cancels, 'y' fights; the battle
    shows both pools, each die's roll, the sorted pairs and the hits (R16.13-R16.21)."""
    child = spawn_pipe(game_args(seed=5, autosave=tmp_path / "auto.json"), tmp_path)
    seen_attack = False
    for _ in range(400):
        i = child.expect([r"\(help\) >", r"\[y/n\]", "Game over"])
        if i == 2:
            break
        if i == 1:
            continue
        attack = re.search(r"\b\d+\. (attack [TC]\d+ [TC]\d+)", child.before)
        if attack is None or seen_attack:
            child.sendline("1")
            continue
        seen_attack = True
        child.sendline("save before.json")
        child.expect(r"\(help\) >")
        child.sendline(attack.group(1))
        child.expect(r"\[y/n\]")
        shown = re.search(r"you win (\d+\.\d)%", child.before)
        assert shown is not None, child.before
        game, _ = read_save(saves(user_data) / "before.json")
        action = game.parse(attack.group(1))
        chance = odds_for_attack(game.state, action.tile, action.tile2).attacker_wins
        assert shown.group(1) == f"{100 * float(chance):.1f}"
        child.sendline("n")
        child.expect(r"\(help\) >")
        assert "Cancelled. Nothing changed." in child.before
        child.sendline(attack.group(1))
        child.expect(r"\[y/n\]")
        child.sendline("y")
        child.expect([r"\(help\) >", "Game over"])
        battle = child.before
        assert "Attack dice: D" in battle and "Defence dice: D" in battle
        assert "Pairs (highest against highest):" in battle
        assert re.search(r"Hits: attacker loses \d+, defender loses \d+", battle)
        assert re.search(r"^Dice: P1 \(\w+\) D\d+:\d+", battle, re.MULTILINE)  # the log line
        child.sendline("1")
    child.sendeof()
    child.wait()
    assert seen_attack
    assert Fraction(0) <= chance <= 1


def test_bad_input_is_explained_and_changes_nothing(tmp_path: Path, user_data: Path) -> None:
    script = ["save first.json", "fly", "0", "999", "attack T1 T2", "move T9 T1 sword",
              "spawn", "", "save second.json"]
    result = run(game_args(seed=3, autosave=tmp_path / "auto.json"), tmp_path,
                 "\n".join(script) + "\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Traceback" not in out + result.stderr
    assert "Not understood: 'fly'" in out
    assert "There is no option 0: choose a number from 1 to" in out
    assert "There is no option 999" in out
    assert re.search(r"Not allowed now: .+ \(rule R\d+\.\d+\)\. Nothing changed\.", out)
    assert "Options matching 'spawn':" in out  # a prefix lists what matches
    first = json.loads((saves(user_data) / "first.json").read_text())
    second = json.loads((saves(user_data) / "second.json").read_text())
    assert first["record"]["steps"] == second["record"]["steps"]
    assert first["record"]["final"] == second["record"]["final"]


def test_end_of_input_saves_in_the_user_data_directory_and_exits_0(
        tmp_path: Path, user_data: Path) -> None:
    result = run(["play", "--seats", "human,greedy", "--quick", "--seed", "4"], tmp_path,
                 "1\n1\n")
    assert result.returncode == 0, result.stderr
    [saved] = saves(user_data).iterdir()
    assert f"Input ended: game saved to {saved}. Resume with: kaladan play --load {saved}" \
        in result.stdout
    assert not any(tmp_path.iterdir())  # nothing in the directory the game was started in
    game, plan = read_save(saved)
    assert plan.seats == ("human", "greedy") and plan.lang == "en"
    assert not game.is_over and any(step.seat == 0 for step in game.steps)


def test_quit_saves_to_the_autosave_file(tmp_path: Path) -> None:
    result = run(game_args(seed=4, autosave=tmp_path / "mine.json"), tmp_path, "1\nquit\n1\n")
    assert result.returncode == 0
    assert f"Game saved to {tmp_path / 'mine.json'}" in result.stdout
    assert (tmp_path / "mine.json").exists()


def _result_lines(out: str) -> list[str]:
    return [line for line in out.splitlines()
            if line.startswith(("Game over", "Winner", "Scores", "A draw"))]


def test_a_loaded_game_continues_exactly_like_an_unbroken_one(tmp_path: Path) -> None:
    """Bots draw their random numbers from seed, seat and decision number, so stopping,
    saving and loading changes nothing about how the game goes on."""
    args = game_args(seed=21, seats="human,random", autosave=tmp_path / "half.json")
    whole = run(args, tmp_path, ALWAYS_FIRST)
    assert whole.returncode == 0
    first = run(args, tmp_path, "1\n" * 40)
    assert first.returncode == 0 and "Input ended" in first.stdout
    saved = json.loads((tmp_path / "half.json").read_text())
    assert saved["format"] == "kaladan-save" and saved["seats"] == ["human", "random"]
    second = run(["play", "--load", str(tmp_path / "half.json")], tmp_path, ALWAYS_FIRST)
    assert second.returncode == 0, second.stderr
    assert "Game loaded from" in second.stdout
    assert _result_lines(whole.stdout) and _result_lines(second.stdout) == _result_lines(
        whole.stdout)


@pytest.mark.parametrize("args,words", [
    (["play", "--load", "/nonexistent/kaladan/save.json"], ["/nonexistent/kaladan/save.json"]),
    (["play", "--seats", "human,dragon"], ["dragon"]),
    (["play", "--seats", "human,greedy", "--option", "nosuch=1"], ["nosuch"]),
    (["play", "--seats", "human,greedy,greedy", "--mode", "team_2v2"], ["team_2v2"]),
    (["play", "--lang", "fr"], ["fr"]),
    (["play", "--seats", ""], ["seats"]),
], ids=["missing-save", "unknown-bot", "unknown-option", "team-count", "language",
        "no-seats"])
def test_bad_arguments_exit_2(tmp_path: Path, args: list[str], words: list[str]) -> None:
    result = run(args, tmp_path)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr


def test_the_default_opponent_is_the_middle_level(tmp_path: Path, user_data: Path) -> None:
    result = run(["play", "--quick", "--seed", "4"], tmp_path, "1\n")
    assert result.returncode == 0, result.stderr
    [saved] = saves(user_data).iterdir()
    assert read_save(saved)[1].seats == ("human", default_level().name) == ("human", "adept")
    helped = " ".join(run(["play", "--help"], tmp_path).stdout.split())
    assert f"a level ({', '.join(level_names())}: weakest first)" in helped
    assert "default human,adept" in helped


def test_a_level_that_cannot_play_the_game_exits_2_before_it_starts(tmp_path: Path) -> None:
    players = next((n for n in range(3, 7) if not _serves("master", n)), None)
    if players is None:
        pytest.skip("every player count has a value network")
    seats = ",".join(["human", "master"] + ["random"] * (players - 2))
    result = run(["play", "--seats", seats, "--quick"], tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "seat 2 (master): the master level" in result.stderr
    assert "choose veteran or a weaker level" in result.stderr


def _serves(spec: str, players: int) -> bool:
    try:
        check_config(spec, Config(players=players))
    except ConfigError:
        return False
    return True


def test_load_refuses_new_rules_and_wrong_seats(tmp_path: Path) -> None:
    saved = tmp_path / "s.json"
    assert run(game_args(autosave=saved), tmp_path, "1\n").returncode == 0
    with_seed = run(["play", "--load", str(saved), "--seed", "3"], tmp_path)
    assert with_seed.returncode == 2 and "--seed" in with_seed.stderr
    seats = run(["play", "--load", str(saved), "--seats", "human,greedy,greedy"], tmp_path)
    assert seats.returncode == 2 and "2 players" in seats.stderr
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"format": "kaladan-position"}))
    other = run(["play", "--load", str(record)], tmp_path)
    assert other.returncode == 2 and "kaladan-save" in other.stderr
    # A different language and other bots are fine when loading.
    dutch = run(["play", "--load", str(saved), "--lang", "nl", "--seats", "human,random"],
                tmp_path, "1\n")
    assert dutch.returncode == 0 and "Je mogelijkheden:" in dutch.stdout


def test_bots_only_game_needs_no_input(tmp_path: Path) -> None:
    result = run(["play", "--seats", "random,greedy", "--quick", "--seed", "2"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Game over" in result.stdout and "(help) >" not in result.stdout


def test_replay_steps_through_a_saved_game(tmp_path: Path) -> None:
    saved = tmp_path / "s.json"
    assert run(game_args(autosave=saved), tmp_path, "1\n" * 10).returncode == 0
    verify = run(["replay", str(saved), "--verify"], tmp_path)
    assert verify.returncode == 0 and verify.stdout.startswith("ok:")
    listing = run(["replay", str(saved), "--list", "--lang", "de"], tmp_path)
    assert listing.returncode == 0
    lines = listing.stdout.splitlines()
    steps = json.loads(saved.read_text())["record"]["steps"]
    assert len(lines) == len(steps)
    assert lines[0].startswith("Schritt 1: P") and lines[-1].endswith(steps[-1]["action"])


def test_scripted_session_through_the_driver(tmp_path: Path) -> None:
    """The pexpect pipe driver (used for the attack test) plays a whole game too; every log
    entry the human may read is printed as a line, once and in order (the event cards, the
    dice, the casualties...), and nothing only the bot may know."""
    transcript = drive(spawn_pipe(game_args(seed=2, autosave=tmp_path / "a.json"), tmp_path),
                       attack=True)
    assert transcript.exit_status == 0
    assert "Game over" in transcript.text
    assert set(transcript.kinds) <= {"prompt", "confirm"}
    game, _ = read_save(tmp_path / "a.json")
    realms = game.state.realm
    lines = [line.rstrip("\r") for line in transcript.text.splitlines()]
    texts = [e.text("en", realms) for e in game.log(0)]
    at = 0
    for text in texts:  # a subsequence of the output's lines
        at = lines.index(text, at) + 1
    kinds = {e.KIND for e in game.log(0)}
    assert {"event_card_drawn", "dice_rolled", "pairs_compared", "unit_killed",
            "battle_ended", "game_over"} <= kinds
    # Each battle's panel once, when it is over, with its dice.
    log = game.log(0)
    heads = [line for line in lines  # the panel's head, not the log's line
             if re.match(r"P\d \(\w+\) attacks [TC]\d+ from [TC]\d+ \(P\d", line)]
    assert transcript.attacks > 0 and len(heads) == sum(e.KIND == "battle_started" for e in log)
    assert sum(line.startswith("Attack dice: ") for line in lines) == sum(
        e.KIND == "dice_rolled" for e in log)
    secret = [e.text("en", realms) for e in game.entries if e.private_to == 1]
    assert secret and not any(text in lines for text in secret)
