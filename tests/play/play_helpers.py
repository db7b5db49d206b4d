"""Drive real ``kaladan play`` sessions: a pseudo-terminal (pexpect) or plain pipes.

The scripted human answers "1" (the first option) unless it is told to attack: then it
declares the first attack on offer and confirms it. Every prompt is answered until the game
ends, so a test sees one complete session from start to finish.

Saves go to the user data directory, which ``conftest.user_data`` points at a folder of the
test's own (``XDG_DATA_HOME``, inherited by every child process).
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pexpect
from pexpect.popen_spawn import PopenSpawn
from rich.console import Console, RenderableType

KALADAN = [sys.executable, "-m", "kaladan.cli.main"]
# The action prompt ends in "(help) > ", the attack confirmation in "[y/n] " or "[j/n] ", the
# hot-seat handover in "press Enter " (or Dutch, German). In plain mode each prompt is a
# whole line.
PROMPT = r"\(help\) >"
CONFIRM = r"\[[yj]/n\]"
HANDOVER = r"(?:press|druk op|drücke) Enter"
OPTION_ATTACK = re.compile(r"\b(\d+)\. (attack [TC]\d+ [TC]\d+)")  # a script's options
# An attack on the terminal's steady screen, in words: its number is the answer.
ATTACK_WORDS = {"en": re.compile(r"\b(\d+)\. Attack [TC]\d+ from [TC]\d+"),
                "nl": re.compile(r"\b(\d+)\. Val [TC]\d+ aan vanaf [TC]\d+"),
                "de": re.compile(r"\b(\d+)\. Greife [TC]\d+ von [TC]\d+ an")}
ANSI = "\x1b"


def saves(data: Path) -> Path:
    """The saves folder of the user data directory ``data`` (``XDG_DATA_HOME``)."""
    return data / "kaladan" / "saves"


def env(color: bool = False) -> dict[str, str]:
    out = dict(os.environ, TERM="xterm-256color")
    for name in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES"):
        out.pop(name, None)
    out.pop("FORCE_COLOR", None)
    if not color:
        out["NO_COLOR"] = "1"
    return out


def game_args(*extra: str, seed: int = 5, seats: str = "human,greedy",
              lang: str = "en", autosave: Path | None = None) -> list[str]:
    args = ["play", "--seats", seats, "--quick", "--seed", str(seed), "--lang", lang, *extra]
    if autosave is not None:
        args += ["--autosave", str(autosave)]
    return args


@dataclass
class Transcript:
    """What a driven session printed, cut at each prompt, and how it ended."""

    chunks: list[str] = field(default_factory=list)  # output before each prompt
    kinds: list[str] = field(default_factory=list)  # prompt, confirm or handover
    answers: list[str] = field(default_factory=list)
    tail: str = ""
    exit_status: int | None = None
    attacks: int = 0

    @property
    def text(self) -> str:
        return "".join(self.chunks) + self.tail


def spawn_tty(args: list[str], cwd: Path, color: bool = False,
              size: tuple[int, int] = (160, 60)) -> pexpect.spawn:
    """``kaladan`` on a pseudo-terminal of ``size`` (columns, lines)."""
    child = pexpect.spawn(KALADAN[0], KALADAN[1:] + args, cwd=str(cwd), env=env(color),
                          dimensions=(size[1], size[0]), encoding="utf-8", timeout=30)
    child.delaybeforesend = None  # the game waits for its input; no need to pause
    return child


def spawn_pipe(args: list[str], cwd: Path) -> PopenSpawn:
    child = PopenSpawn(KALADAN + args, cwd=str(cwd), env=env(), encoding="utf-8", timeout=30)
    child.delaybeforesend = None
    return child


def drive(child: pexpect.spawn | PopenSpawn, attack: bool = False, limit: int = 3000,
          stop_after: int | None = None, script: list[str] | None = None,
          lang: str = "en") -> Transcript:
    """Answer every prompt; ``script`` lines go first (one per action prompt), then "1" (or
    the first attack on offer: its notation in a script, its number on a terminal, where
    the options are words in ``lang``). ``stop_after`` prompts: end the input there."""
    pending = list(script or [])
    out = Transcript()
    for _ in range(limit):
        i = child.expect([PROMPT, CONFIRM, HANDOVER, pexpect.EOF])
        out.chunks.append(child.before)
        if i == 3:
            break
        kind = ("prompt", "confirm", "handover")[i]
        out.kinds.append(kind)
        if stop_after is not None and len(out.kinds) > stop_after:
            child.sendeof()
            continue
        if kind == "handover":
            answer = ""
        elif kind == "confirm":
            answer = "y"
            out.attacks += 1
        elif pending:
            answer = pending.pop(0)
        elif attack and isinstance(child, pexpect.spawn):
            found = ATTACK_WORDS[lang].search(child.before)  # the frame since the last prompt
            answer = found.group(1) if found else "1"
        else:
            found = OPTION_ATTACK.search(child.before) if attack else None
            answer = found.group(2) if found else "1"
        out.answers.append(answer)
        child.sendline(answer)
    else:
        raise AssertionError("the game did not end within the prompt limit")
    out.tail = ""
    if isinstance(child, pexpect.spawn):
        child.close()
        out.exit_status = child.exitstatus
    else:
        out.exit_status = child.wait()
    return out


def plain(renderable: RenderableType, width: int = 160) -> str:
    """A renderable as the text a terminal without colours shows."""
    console = Console(width=width, color_system=None, file=io.StringIO())
    console.print(renderable)
    out = console.file
    assert isinstance(out, io.StringIO)
    return out.getvalue()


def last_screen(chunk: str, lines: int) -> list[str]:
    """The screen a terminal of ``lines`` lines shows at a prompt of the steady screen
    without colour: each frame fills it exactly, so it is the last ``lines - 1`` lines
    before the prompt (``chunk`` is the output up to the prompt)."""
    rows = chunk.split("\r\n")
    assert len(rows) >= lines, chunk[-500:]
    return rows[-lines:-1]


def pane(screen: Sequence[str], title: str) -> list[str]:
    """The lines inside the framed pane whose title starts with ``title``."""
    for y, row in enumerate(screen):
        x = row.find("╭─ " + title)
        if x < 0:
            continue
        end = row.index("╮", x)
        inside = []
        for below in screen[y + 1:]:
            if below[x:x + 1] == "╰":
                return inside
            inside.append(below[x + 1:end].strip())
        return inside
    raise AssertionError(f"no pane {title!r} on the screen:\n" + "\n".join(screen))


class Term:
    """A small terminal emulator for the codes the steady screen writes with colour on:
    cursor home, erase line, erase below, colours and modes (ignored), CR, LF, backspace."""

    CSI = re.compile(r"\x1b\[([?<]?)([0-9;]*)([A-Za-z~])")

    def __init__(self, columns: int, lines: int) -> None:
        self.columns, self.lines = columns, lines
        self.rows = [[" "] * columns for _ in range(lines)]
        self.x = self.y = 0

    def resize(self, columns: int, lines: int) -> None:
        self.__init__(columns, lines)  # type: ignore[misc]

    def feed(self, text: str) -> None:
        k = 0
        while k < len(text):
            match = self.CSI.match(text, k)
            if match is not None:
                self._csi(match.group(1), match.group(2), match.group(3))
                k = match.end()
                continue
            ch = text[k]
            k += 1
            if ch == "\r":
                self.x = 0
            elif ch == "\n":
                self._down()
            elif ch == "\b":
                self.x = max(0, self.x - 1)
            elif ch >= " ":
                if self.x >= self.columns:
                    self.x = 0
                    self._down()
                self.rows[self.y][self.x] = ch
                self.x += 1

    def _down(self) -> None:
        if self.y == self.lines - 1:
            self.rows = self.rows[1:] + [[" "] * self.columns]
        else:
            self.y += 1

    def _csi(self, private: str, args: str, final: str) -> None:
        if private:
            return
        if final == "H":
            self.x = self.y = 0
        elif final == "K":
            self.rows[self.y] = [" "] * self.columns
        elif final == "J":
            self.rows[self.y][self.x:] = [" "] * (self.columns - self.x)
            for y in range(self.y + 1, self.lines):
                self.rows[y] = [" "] * self.columns

    def screen(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.rows]
