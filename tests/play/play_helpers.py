"""Drive real ``kaladan play`` sessions: a pseudo-terminal (pexpect) or plain pipes.

The scripted human answers "1" (the first option) unless it is told to attack: then it
declares the first attack on offer and confirms it. Every prompt is answered until the game
ends, so a test sees one complete session from start to finish.
"""

from __future__ import annotations

import io
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pexpect
from pexpect.popen_spawn import PopenSpawn
from rich.console import Console, RenderableType

KALADAN = [sys.executable, "-m", "kaladan.cli.main"]
# The action prompt ends in "(help) > ", the attack confirmation in "[y/n] " or "[j/n] ", the
# hot-seat handover in "Enter ". In plain mode each prompt is a whole line.
PROMPT = r"\(help\) >"
CONFIRM = r"\[[yj]/n\]"
HANDOVER = r"Enter"
OPTION_ATTACK = re.compile(r"\b(\d+)\. (attack [TC]\d+ [TC]\d+)")
ANSI = "\x1b"


def env(color: bool = False) -> dict[str, str]:
    out = dict(os.environ, TERM="xterm-256color", COLUMNS="160", LINES="60")
    out.pop("NO_COLOR", None)
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


def spawn_tty(args: list[str], cwd: Path, color: bool = False) -> pexpect.spawn:
    child = pexpect.spawn(KALADAN[0], KALADAN[1:] + args, cwd=str(cwd), env=env(color),
                          dimensions=(60, 160), encoding="utf-8", timeout=30)
    child.delaybeforesend = None  # the game waits for its input; no need to pause
    return child


def spawn_pipe(args: list[str], cwd: Path) -> PopenSpawn:
    child = PopenSpawn(KALADAN + args, cwd=str(cwd), env=env(), encoding="utf-8", timeout=30)
    child.delaybeforesend = None
    return child


def drive(child: pexpect.spawn | PopenSpawn, attack: bool = False, limit: int = 3000,
          stop_after: int | None = None, script: list[str] | None = None) -> Transcript:
    """Answer every prompt; ``script`` lines go first (one per action prompt), then "1" (or
    the first attack on offer). ``stop_after`` prompts: end the input there (EOF)."""
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
