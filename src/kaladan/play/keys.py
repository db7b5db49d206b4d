"""Keys from a terminal in cbreak mode: text, Enter, Backspace, Ctrl-D, Ctrl-U, the paging
keys and arrows, and the mouse (xterm's SGR reports: a click, the wheel).

cbreak mode leaves Ctrl-C to the terminal (it still interrupts) and turns echo off, so the
screen shows only what the game draws. Bytes are read as they come; an escape sequence that
arrives in pieces is completed before it is decoded, and one that is not understood is
skipped whole rather than typed.
"""

from __future__ import annotations

import codecs
import os
import re
import select
from dataclasses import dataclass
from typing import Any

try:  # POSIX terminals; elsewhere the game reads whole lines (Screen.ask)
    import termios
    import tty
except ImportError:  # pragma: no cover - Windows
    AVAILABLE = False
else:
    AVAILABLE = True

_MOUSE = re.compile(rb"\x1b\[<(\d+);(\d+);(\d+)([Mm])")
_CSI = re.compile(rb"\x1b\[[0-9;?<]*[\x40-\x7e]")
_SS3 = re.compile(rb"\x1bO[\x40-\x7e]")
_NAMED = {b"\x1b[5~": "pgup", b"\x1b[6~": "pgdn", b"\x1b[A": "up", b"\x1b[B": "down",
          b"\x1bOA": "up", b"\x1bOB": "down", b"\x1b[H": "home", b"\x1b[F": "end",
          b"\x1b[1~": "home", b"\x1b[4~": "end", b"\x1bOH": "home", b"\x1bOF": "end"}
_CONTROL = {b"\r": "enter", b"\n": "enter", b"\x7f": "backspace", b"\x08": "backspace",
            b"\x04": "eof", b"\x15": "clear"}
ESCAPE_WAIT = 0.05  # seconds to wait for the rest of an escape sequence


@dataclass(frozen=True, slots=True)
class Key:
    """One key (``name``), typed text (``text``), or a mouse event at a 0-based cell."""

    name: str
    text: str = ""
    x: int = 0
    y: int = 0


class Keyboard:
    """Reads keys from a terminal file descriptor while the terminal is in cbreak mode."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = b""
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.saved: list[Any] | None = None
        self.last_cr = False

    def start(self) -> None:
        """Enter cbreak mode (again, after the shell took the terminal back)."""
        if self.saved is None:
            self.saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)

    def stop(self) -> None:
        if self.saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)
            self.saved = None

    def _fill(self, timeout: float | None) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        data = os.read(self.fd, 1024)
        if not data:  # the terminal went away: as good as the end of input
            self.pending += b"\x04"
        self.pending += data
        return True

    def read(self, timeout: float | None = None) -> Key | None:
        """The next key, or None when ``timeout`` seconds pass without one."""
        while True:
            key = self._decode()
            if key is not None:
                return key
            if not self._fill(timeout if not self.pending else ESCAPE_WAIT):
                if self.pending.startswith(b"\x1b"):  # a lone Escape
                    self.pending = self.pending[1:]
                    return Key("escape")
                return None

    def _decode(self) -> Key | None:
        data = self.pending
        while data:
            if data.startswith(b"\x1b"):
                if len(data) == 1:
                    return None  # wait for more (or read() decides it was a lone Escape)
                mouse = _MOUSE.match(data)
                seq = mouse or _CSI.match(data) or _SS3.match(data)
                if seq is None:
                    if data[1:2] in (b"[", b"O") and len(data) < 16:
                        return None  # an incomplete sequence: the rest is on its way
                    self.pending = data = data[1:]  # Alt and a key: the key
                    continue
                self.pending = data = data[seq.end():]
                if mouse is not None:
                    return _mouse(mouse)
                name = _NAMED.get(seq.group(0))
                if name is not None:
                    return Key(name)
                continue
            head = data[:1]
            self.pending = data = data[1:]
            if head == b"\n" and self.last_cr:  # \r\n is one Enter
                self.last_cr = False
                continue
            self.last_cr = head == b"\r"
            if head in _CONTROL:
                return Key(_CONTROL[head])
            if head < b" ":
                continue
            text = self.decoder.decode(head)
            if text:
                return Key("text", text)
        return None


def _mouse(match: re.Match[bytes]) -> Key:
    button, x, y, kind = int(match.group(1)), int(match.group(2)), int(match.group(3)), \
        match.group(4)
    if button == 64:
        return Key("wheel_up", x=x - 1, y=y - 1)
    if button == 65:
        return Key("wheel_down", x=x - 1, y=y - 1)
    if button == 0 and kind == b"M":
        return Key("click", x=x - 1, y=y - 1)
    return Key("ignored")
