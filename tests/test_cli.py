"""The ``kaladan`` command run as a separate process: simulate, record, replay, bad arguments.

Bad arguments print a clear message to stderr and exit with code 2, never a traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kaladan.record import dumps, replay

ENDS = {"last_crown", "final_round", "draw"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaladan.cli.main", *args],
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture(scope="module")
def simulated() -> subprocess.CompletedProcess[str]:
    return run("simulate", "--players", "random,random,random", "--games", "5", "--seed", "3",
               "--json")


def test_simulate_json(simulated: subprocess.CompletedProcess[str]) -> None:
    assert simulated.returncode == 0, simulated.stderr
    data = json.loads(simulated.stdout)  # one JSON object, nothing else
    assert isinstance(data, dict)
    games = data["games"]
    assert len(games) == 5
    for game in games:
        assert {"seed", "winner", "end", "rounds", "decisions", "scores"} <= set(game)
        assert isinstance(game["seed"], int)
        assert game["winner"] is None or isinstance(game["winner"], int)
        assert game["winner"] is None or 0 <= game["winner"] < 3
        assert game["end"] in ENDS
        assert isinstance(game["rounds"], int) and game["rounds"] >= 1
        assert isinstance(game["decisions"], int) and game["decisions"] > 0
        assert len(game["scores"]) == 3
        if game["end"] == "draw":
            assert game["winner"] is None
        else:
            assert game["winner"] is not None
    assert len({g["seed"] for g in games}) == 5  # every game its own seed


def test_simulate_same_seed_same_output(simulated: subprocess.CompletedProcess[str]) -> None:
    again = run("simulate", "--players", "random,random,random", "--games", "5", "--seed", "3",
                "--json")
    assert again.returncode == 0
    assert again.stdout == simulated.stdout
    other = run("simulate", "--players", "random,random,random", "--games", "5", "--seed", "4",
                "--json")
    assert other.returncode == 0
    assert json.loads(other.stdout)["games"] != json.loads(simulated.stdout)["games"]


def test_simulate_text_summary() -> None:
    result = run("simulate", "--players", "random,random", "--games", "2", "--seed", "1",
                 "--option", "phase_order=official")
    assert result.returncode == 0, result.stderr
    assert "2 games" in result.stdout
    assert "win rate by seat (95% Wilson interval):" in result.stdout
    assert "win rate by realm" in result.stdout and "average score by seat" in result.stdout


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("records") / "game.json"
    result = run("record", "--players", "random,random,random", "--seed", "7", "--out",
                 str(path))
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stdout
    return path


def test_record_then_replay_verify(record_file: Path) -> None:
    text = record_file.read_text("utf-8")
    record = json.loads(text)
    assert record["format"] == "kaladan-record"
    assert dumps(record) == text  # the file is the canonical text
    replay(record)
    result = run("replay", str(record_file), "--verify")
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout
    plain = run("replay", str(record_file))
    assert plain.returncode == 0
    assert json.loads(plain.stdout)["decisions"] == len(record["steps"])


def test_record_to_stdout_matches_file(record_file: Path) -> None:
    result = run("record", "--players", "random,random,random", "--seed", "7", "--out", "-")
    assert result.returncode == 0
    assert result.stdout == record_file.read_text("utf-8")


@pytest.mark.parametrize("tamper", ["chance", "result", "seat", "action"])
def test_tampered_record_fails_verify(record_file: Path, tmp_path: Path, tamper: str) -> None:
    record = json.loads(record_file.read_text("utf-8"))
    if tamper == "chance":
        step = next(s for s in record["steps"] if s["chance"])
        step["chance"][0] = step["chance"][0] + 1 if step["chance"][0] < 6 else 1
    elif tamper == "result":
        record["result"]["scores"][0] = 999
    elif tamper == "seat":
        record["steps"][25]["seat"] = (record["steps"][25]["seat"] + 1) % 3
    else:
        record["steps"][-1]["action"] = "realm kimbria"
    path = tmp_path / "tampered.json"
    path.write_text(dumps(record), "utf-8")
    result = run("replay", str(path), "--verify")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.strip()


@pytest.mark.parametrize("args,words", [
    (["simulate", "--players", "random,foo"], ["foo"]),
    (["simulate", "--players", "random,random", "--option", "nosuch=1"], ["nosuch"]),
    (["simulate", "--players", "random,random", "--option", "world=flat"], ["world", "flat"]),
    (["simulate", "--players", ",".join(["random"] * 7)], ["7"]),
    (["simulate", "--players", "random,random", "--games", "0"], ["--games"]),
    (["simulate"], ["--players"]),
    (["record", "--players", "random,random"], ["--out"]),
    (["replay", "/nonexistent/kaladan/record.json"], ["/nonexistent/kaladan/record.json"]),
    (["simulate", "--players", ""], ["bots"]),
    (["simulate", "--players", "random,random", "--seed", "x"], ["--seed"]),
    (["fly"], ["fly"]),
], ids=["unknown-bot", "unknown-option", "bad-option-value", "seven-players", "zero-games",
        "missing-players", "missing-out", "missing-file", "no-bots", "bad-seed", "command"])
def test_bad_arguments_exit_2(args: list[str], words: list[str]) -> None:
    result = run(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr.strip()
    for word in words:
        assert word in result.stderr
    assert result.stdout == ""


def test_replay_of_a_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "kaladan-record", ', "utf-8")
    result = run("replay", str(path), "--verify")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "broken.json" in result.stderr


def test_replay_of_a_position_file(tmp_path: Path) -> None:
    path = tmp_path / "position.json"
    path.write_text(json.dumps({"format": "kaladan-position", "version": 1}), "utf-8")
    result = run("replay", str(path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "kaladan-record" in result.stderr


def test_cards_lists_all_thirty_with_texts() -> None:
    """Section 26: `kaladan cards` lists every card with who may use it, window and texts."""
    result = run("cards")
    assert result.returncode == 0
    ids = [line.split()[0] for line in result.stdout.splitlines() if line[:1].isupper()
           and "-" in line.split()[0]]
    assert len(ids) == 30 and ids[0] == "KHA-1" and ids[-1] == "LAU-5"
    assert "Keep of Khalisia" in result.stdout and "Who: defender   Window: W3" in result.stdout


def test_cards_of_one_realm_in_german_and_dutch() -> None:
    german = run("cards", "--realm", "laurielle", "--lang", "de")
    assert german.returncode == 0
    assert german.stdout.count("LAU-") == 5 and "KHA-" not in german.stdout
    assert "Bedingung:" in german.stdout and "Wirkung:" in german.stdout
    dutch = run("cards", "--realm", "Kimbria", "--lang", "nl")
    assert dutch.returncode == 0 and "Voorwaarde:" in dutch.stdout
    assert "verdediger" in dutch.stdout  # KIM-1 is a defender's card


def test_cards_bad_arguments_exit_2() -> None:
    for args in (("cards", "--realm", "atlantis"), ("cards", "--lang", "fr")):
        result = run(*args)
        assert result.returncode == 2
        assert "Traceback" not in result.stderr and result.stderr.strip()


def test_simulate_team_mode_reports_the_winning_team() -> None:
    """Section 23: `simulate --mode team_2v2` plays team games and reports the winning team."""
    result = run("simulate", "--players", "random,random,random,random", "--mode", "team_2v2",
                 "--games", "4", "--seed", "5", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert sum(data["wins_by_team"].values()) + data["ends"].get("draw", 0) == 4
    for game in data["games"]:
        assert game["teams"] == [0, 1, 0, 1]
        assert game["winner"] is None
        assert game["winning_team"] in (0, 1) or game["end"] == "draw"
    text = run("simulate", "--players", "random,random,random,random,random,random",
               "--mode", "team_3v3", "--games", "2", "--seed", "5")
    assert text.returncode == 0 and "team 0 (seats 0, 2, 4)" in text.stdout


def test_team_mode_with_the_wrong_player_count_exits_2() -> None:
    result = run("simulate", "--players", "random,random,random", "--mode", "team_2v2")
    assert result.returncode == 2
    assert "team_2v2 needs exactly 4 players" in result.stderr and "Traceback" not in result.stderr


def test_team_record_replays(tmp_path: Path) -> None:
    out = tmp_path / "team.json"
    made = run("record", "--players", "random,random,random,random", "--mode", "team_2v2",
               "--seed", "9", "--out", str(out))
    assert made.returncode == 0, made.stderr
    record = json.loads(out.read_text())
    assert record["config"]["mode"] == "team_2v2"
    assert run("replay", str(out), "--verify").returncode == 0


# What a command imports is most of its start-up, which a short run pays in full (issue 17:
# `kaladan --help` and a short simulate import no web, database, terminal-UI or array stack).
# The engine reads its data files without importlib.resources (its zip and temp-file support
# cost a tenth of the engine's import), so a short simulate imports none of those either.
# Nor the modules only file output needs (pathlib, with urllib.parse and ipaddress; csv),
# nor shutil (with zlib, bz2 and lzma), which argparse imported for the terminal's width.
_HEAVY = ("fastapi", "sqlalchemy", "rich", "numpy", "uvicorn")
_ENGINE_AVOIDS = ("importlib.resources", "zipfile", "tempfile")
_STARTUP_AVOIDS = ("pathlib", "shutil", "csv", "urllib")


@pytest.mark.parametrize(("argv", "avoided"), [
    (["--help"], _HEAVY),
    (["simulate", "--players", "random,random", "--games", "2", "--seed", "1"],
     _HEAVY + _ENGINE_AVOIDS + _STARTUP_AVOIDS)])
def test_a_short_command_imports_nothing_heavy(argv: list[str], avoided: tuple[str, ...]
                                               ) -> None:
    code = ("import sys\nfrom kaladan.cli.main import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit:\n    pass\navoided = " + repr(avoided) + "\n"
            "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in avoided"
            " or m in avoided))\n")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stdout, done.stdout.splitlines()[-1]


def test_only_the_command_in_its_own_process_freezes_what_it_imported() -> None:
    """``kaladan`` (run(): its own process) moves what it has loaded out of the collector's
    passes (gc.freeze); main() called by another program (these tests) leaves its objects
    collectable."""
    import gc

    before = gc.get_freeze_count()
    from kaladan.cli.main import main

    assert main(["cards", "--realm", "kimbria"]) == 0
    assert gc.get_freeze_count() == before
    code = ("import gc, sys\nfrom kaladan.cli.main import run\ntry:\n    run()\n"
            "except SystemExit as done:\n    print('FROZEN', gc.get_freeze_count(), done.code)\n")
    done = subprocess.run([sys.executable, "-c", code, "cards", "--realm", "kimbria"],
                          capture_output=True, text=True, timeout=60, check=False)
    frozen, exit_code = done.stdout.split("FROZEN ")[1].split()
    assert int(frozen) > 10_000 and exit_code == "0"


@pytest.mark.parametrize("columns", [60, 200])
def test_help_is_as_wide_as_the_terminal_says(columns: int) -> None:
    """Help texts are wrapped to COLUMNS less 2, as argparse does (a usage part or an option
    longer than that stays whole); the width is found without shutil (the test above)."""
    import os

    env = dict(os.environ, COLUMNS=str(columns))
    done = subprocess.run([sys.executable, "-m", "kaladan.cli.main", "simulate", "--help"],
                          capture_output=True, text=True, timeout=60, check=False, env=env)
    assert done.returncode == 0, done.stderr
    options = done.stdout.split("\noptions:\n")[1]
    texts = [line for line in options.splitlines() if line.startswith(" " * 24)]
    assert texts
    widest = max(len(line) for line in texts)
    assert widest <= columns - 2
    if columns > 100:  # a wide terminal gets long lines: the help texts are longer than 60
        assert widest > 60
