"""A real SMTP server for the tests (aiosmtpd on a free port): what the server mails is
kept as parsed messages."""

from __future__ import annotations

import email
import email.policy
import re
import time
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from live_support import free_port


class Inbox:
    """aiosmtpd's handler: every message received, parsed."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]

    def wait_for(self, address: str, count: int = 1, timeout: float = 10) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.to(address)
            if len(found) >= count:
                return found
            time.sleep(0.02)
        raise AssertionError(f"{count} mail(s) to {address} expected, got {self.to(address)}")


class SmtpServer:
    def __init__(self) -> None:
        self.inbox = Inbox()
        self.port = free_port()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}?from=kaladan@example.org"

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self.controller.stop()


def body_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def link_token(message: EmailMessage, path: str) -> str:
    """The token of the link to ``path`` in a mail's text."""
    found = re.search(re.escape(path) + r"\?token=([A-Za-z0-9_\-]+)", body_of(message))
    assert found, body_of(message)
    return found.group(1)
