"""Where the terminal game reads and writes: a real terminal, or plain lines for programs.

On a terminal a game is one steady screen (``paint``): a frame exactly as high as the
terminal with the prompt on its last line, drawn anew for every answer, every page turned,
every click and every change of the terminal's size. With colour it lives on the terminal's
alternate screen, with mouse reports on; with ``NO_COLOR`` set not a single escape code is
written: each frame is preceded by a newline and fills the screen exactly, so the previous
one scrolls out of sight. Keys are read in cbreak mode (``keys``): the game echoes what is
typed itself. When stdin is not a terminal every prompt is one plain line, nothing is
cleared and no colour is used, so another program can drive the game.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from types import FrameType
from typing import Any, Protocol, TextIO

from rich.console import Console, RenderableType
from rich.text import Text

from . import keys
from .frame import Frame
from .keys import Key, Keyboard

PLAIN_WIDTH = 124  # wide enough for the six-player map
POLL = 0.2  # seconds between looks at the terminal's size while waiting for a key
SCROLL_KEYS = {"pgdn": 1, "pgup": -1, "down": 1, "up": -1, "wheel_down": 1, "wheel_up": -1}
_ALT_ON, _ALT_OFF = "\x1b[?1049h", "\x1b[?1049l"
_MOUSE_ON, _MOUSE_OFF = "\x1b[?1000h\x1b[?1006h", "\x1b[?1006l\x1b[?1000l"


def no_color_requested() -> bool:
    """https://no-color.org: any non-empty NO_COLOR turns colour off."""
    return bool(os.environ.get("NO_COLOR"))


class Painter(Protocol):
    """What the steady screen shows and how it answers the keyboard and the mouse."""

    def paint(self, console: Console, width: int, height: int) -> Frame:
        """The screen above the prompt line: ``height`` lines of ``width`` cells."""

    def scroll(self, pages: int) -> None:
        """Turn the page of the list shown."""

    def click(self, x: int, y: int) -> str | None:
        """A line to answer with for a click on a cell, or None (the screen is drawn again)."""


class Screen:
    """Output and line input for one session."""

    def __init__(self, interactive: bool, stdin: TextIO | None = None,
                 stdout: TextIO | None = None, size: tuple[int, int] | None = None) -> None:
        self.interactive = interactive
        self.stdin = stdin if stdin is not None else sys.stdin
        self.out = stdout if stdout is not None else sys.stdout
        self.fixed_size = size
        self.ansi = interactive and not no_color_requested()
        if interactive:
            self.console = Console(file=self.out, color_system="auto" if self.ansi else None,
                                   force_terminal=self.ansi, markup=False, highlight=False,
                                   emoji=False)
        else:
            self.console = Console(file=self.out, color_system=None, force_terminal=False,
                                   width=PLAIN_WIDTH, markup=False, highlight=False,
                                   emoji=False, soft_wrap=False)
        self.painter: Painter | None = None
        self.steady = False  # a frame is on the screen (and, with colour, the alternate one)
        self.keyboard: Keyboard | None = None
        self.resized = False
        self.signals: dict[int, Any] = {}

    # --- sizes -----------------------------------------------------------------------------

    @property
    def width(self) -> int:
        """Columns to lay the screen out in (a script always gets the narrow layout)."""
        return self.size()[0] if self.interactive else 0

    def size(self) -> tuple[int, int]:
        if self.fixed_size is not None:
            return self.fixed_size
        try:
            columns, lines = os.get_terminal_size(self.out.fileno())
        except (OSError, ValueError, AttributeError):
            return self.console.size.width, self.console.size.height
        return max(20, columns), max(8, lines)

    # --- the steady screen ---------------------------------------------------------------

    def paint(self, painter: Painter) -> None:
        """Show ``painter``'s screen now and keep it up, redrawn as needed, until ``leave``."""
        self.painter = painter
        self._draw("", "")

    def _enter(self) -> None:
        if self.steady:
            return
        self.steady = True
        if self.ansi:
            self.out.write(_ALT_ON + _MOUSE_ON)
        if self._is_tty() and not self.signals:
            for name in ("SIGWINCH", "SIGCONT"):
                number = getattr(signal, name, None)
                if number is not None:
                    self.signals[number] = signal.signal(number, self._on_resize)
            for name in ("SIGTERM", "SIGHUP"):  # leave the terminal as it was, then stop
                number = getattr(signal, name, None)
                if number is not None:
                    self.signals[number] = signal.signal(number, _interrupt)

    def _on_resize(self, signum: int, frame: FrameType | None) -> None:
        self.resized = True

    def leave(self) -> None:
        """Back to plain output: the frame stays (without colour) or the terminal's own
        screen comes back (with colour)."""
        self.painter = None
        if not self.steady:
            return
        self.steady = False
        self.out.write(_MOUSE_OFF + _ALT_OFF if self.ansi else "\n")
        self.out.flush()

    def close(self) -> None:
        """Leave the steady screen and give the terminal back as it was."""
        self.leave()
        if self.keyboard is not None:
            self.keyboard.stop()
            self.keyboard = None
        for number, handler in self.signals.items():
            signal.signal(number, handler)
        self.signals.clear()

    def _frame_text(self, frame: Frame) -> str:
        with self.console.capture() as captured:
            self.console.print(frame, end="", width=frame.width, crop=False, soft_wrap=True)
        return captured.get()

    def _draw(self, prompt: str, typed: str) -> None:
        if self.painter is None:
            return
        self._enter()
        width, height = self.size()
        frame = self.painter.paint(self.console, width, height - 1)
        text = self._frame_text(frame)
        if self.ansi:
            self.out.write("\x1b[H" + text + "\n\x1b[2K" + prompt + typed + "\x1b[J")
        else:
            self.out.write("\r\n" + text + "\n" + prompt + typed)
        self.out.flush()

    def _echo(self, prompt: str, typed: str, before: str) -> None:
        """The prompt line again after an edit, with no escape code unless colour is on."""
        if self.ansi:
            self.out.write("\r\x1b[2K" + prompt + typed)
        elif typed.startswith(before):
            self.out.write(typed[len(before):])
        elif before.startswith(typed):  # characters rubbed out
            gone = len(before) - len(typed)
            self.out.write("\b" * gone + " " * gone + "\b" * gone)
        else:
            self.out.write("\r" + prompt + " " * len(before) + "\r" + prompt + typed)
        self.out.flush()

    # --- output --------------------------------------------------------------------------

    def busy(self, message: str) -> AbstractContextManager[Any]:
        """A note while a bot thinks: a spinner, or on the steady screen its prompt line (a
        colour terminal only: it moves the cursor)."""
        if not self.ansi:
            return nullcontext()
        if self.steady:
            return self._status(message)
        return self.console.status(message)

    @contextmanager
    def _status(self, message: str) -> Iterator[None]:
        self.out.write("\r\x1b[2K" + message)
        self.out.flush()
        yield

    def show(self, renderable: RenderableType, whole_lines: bool = False) -> None:
        """Print a renderable; ``whole_lines`` keeps a script's lines unbroken."""
        self.leave()
        self.console.print(renderable, soft_wrap=whole_lines and not self.interactive)

    def say(self, message: str, style: str = "") -> None:
        # A script reads whole lines: never break a message into two.
        self.leave()
        self.console.print(Text(message, style=style), soft_wrap=True)

    def clear(self) -> None:
        """Wipe the screen (a terminal only): nothing of the previous player stays visible."""
        if not self.interactive:
            return
        self.leave()
        if self.ansi:
            self.console.clear()
        else:  # no escape codes allowed: scroll everything out of sight
            self.out.write("\n" * (self.size()[1] + 2))
            self.out.flush()

    # --- input ---------------------------------------------------------------------------

    def _is_tty(self) -> bool:
        try:
            return self.stdin.isatty() and self.out.isatty()
        except (AttributeError, ValueError):
            return False

    def ask(self, prompt: str) -> str | None:
        """One line of input without its newline; None at the end of input."""
        if not self.interactive:
            self.console.print(Text(prompt.rstrip()), soft_wrap=True)
            self.console.file.flush()
            line = self.stdin.readline()
            if not line:
                return None
            return line.rstrip("\r\n")
        if not self._is_tty() or not keys.AVAILABLE:  # fed from elsewhere, or no termios
            self._draw(prompt, "")
            if self.painter is None:
                self.out.write(prompt)
            self.out.flush()
            line = self.stdin.readline()
            return line.rstrip("\r\n") if line else None
        if self.keyboard is None:
            self.keyboard = Keyboard(self.stdin.fileno())
            self.keyboard.start()
        return self._edit(prompt, self.keyboard)

    def _edit(self, prompt: str, keyboard: Keyboard) -> str | None:
        typed = ""
        if self.painter is not None:
            self._draw(prompt, typed)
        else:
            self.out.write(prompt)
            self.out.flush()
        while True:
            if self.resized:
                self.resized = False
                keyboard.start()  # after a suspension the shell may have reset the terminal
                self._draw(prompt, typed)
            key = keyboard.read(POLL)
            if key is None:
                continue
            answer, typed = self._key(key, prompt, typed)
            if answer is not None:
                return None if answer == "\x04" else answer

    def _key(self, key: Key, prompt: str, typed: str) -> tuple[str | None, str]:
        """What one key does: ``(answer, typed)``, the answer None while the line goes on
        and ``"\\x04"`` at the end of input."""
        before = typed
        if key.name == "enter":
            if self.painter is None:
                self.out.write("\n")
            return typed, ""
        if key.name == "eof":
            if not typed:
                if self.painter is None:
                    self.out.write("\n")
                return "\x04", ""
            return None, typed
        if key.name == "text":
            typed += key.text
        elif key.name == "backspace":
            typed = typed[:-1]
        elif key.name == "clear":
            typed = ""
        elif key.name in SCROLL_KEYS and self.painter is not None:
            self.painter.scroll(SCROLL_KEYS[key.name])
            self._draw(prompt, typed)
            return None, typed
        elif key.name == "click" and self.painter is not None:
            line = self.painter.click(key.x, key.y)
            if line is not None:
                return line, ""
            self._draw(prompt, typed)
            return None, typed
        else:
            return None, typed
        self._echo(prompt, typed, before)
        return None, typed


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
