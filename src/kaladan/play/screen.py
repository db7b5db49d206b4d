"""Where the terminal game reads and writes: a real terminal, or plain lines for programs.

On a terminal the screen is cleared and redrawn for every decision, in colour unless
``NO_COLOR`` is set (then no escape code at all is written: the screen is "cleared" by
scrolling it away with blank lines). When stdin is not a terminal every prompt is one plain
line, nothing is cleared and no colour is used, so another program can drive the game.
"""

from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TextIO

from rich.console import Console, RenderableType
from rich.text import Text

PLAIN_WIDTH = 124  # wide enough for the six-player map


def no_color_requested() -> bool:
    """https://no-color.org: any non-empty NO_COLOR turns colour off."""
    return bool(os.environ.get("NO_COLOR"))


class Screen:
    """Output and line input for one session."""

    def __init__(self, interactive: bool, stdin: TextIO | None = None,
                 stdout: TextIO | None = None) -> None:
        self.interactive = interactive
        self.stdin = stdin if stdin is not None else sys.stdin
        out = stdout if stdout is not None else sys.stdout
        self.ansi = interactive and not no_color_requested()
        if interactive:
            self.console = Console(file=out, color_system="auto" if self.ansi else None,
                                   force_terminal=self.ansi, markup=False, highlight=False,
                                   emoji=False)
        else:
            self.console = Console(file=out, color_system=None, force_terminal=False,
                                   width=PLAIN_WIDTH, markup=False, highlight=False,
                                   emoji=False, soft_wrap=False)

    @property
    def width(self) -> int:
        """Columns to lay the screen out in (a script always gets the narrow layout)."""
        return self.console.width if self.interactive else 0

    def busy(self, message: str) -> AbstractContextManager[Any]:
        """A spinner while a bot thinks (a colour terminal only: it moves the cursor)."""
        if self.ansi:
            return self.console.status(message)
        return nullcontext()

    def show(self, renderable: RenderableType, whole_lines: bool = False) -> None:
        """Print a renderable; ``whole_lines`` keeps a script's lines unbroken."""
        self.console.print(renderable, soft_wrap=whole_lines and not self.interactive)

    def say(self, message: str, style: str = "") -> None:
        # A script reads whole lines: never break a message into two.
        self.console.print(Text(message, style=style), soft_wrap=not self.interactive)

    def clear(self) -> None:
        """Wipe the screen (a terminal only): nothing of the previous player stays visible."""
        if not self.interactive:
            return
        if self.ansi:
            self.console.clear()
        else:  # no escape codes allowed: scroll everything out of sight
            self.console.file.write("\n" * (self.console.height + 2))
            self.console.file.flush()

    def ask(self, prompt: str) -> str | None:
        """One line of input without its newline; None at the end of input."""
        if self.interactive:
            self.console.file.flush()
            try:
                return input(prompt)
            except EOFError:
                return None
        self.console.print(Text(prompt.rstrip()), soft_wrap=True)
        self.console.file.flush()
        line = self.stdin.readline()
        if not line:
            return None
        return line.rstrip("\r\n")
