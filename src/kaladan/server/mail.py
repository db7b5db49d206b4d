"""Mail from the server (``--smtp-url``): e-mail confirmations, password resets, turn
notifications. One SMTP connection per mail, opened in a worker thread; a mail that cannot
be sent is logged and dropped (it is never a reason to refuse a player's request).

``smtp://[user:password@]host[:port]`` (plain, or STARTTLS when the server offers it),
``smtps://…`` (TLS from the start); ``?from=kaladan@example.org`` sets the sender.
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import parse_qs, unquote, urlsplit

log = logging.getLogger("kaladan.server")


class MailError(ValueError):
    """A malformed ``--smtp-url``."""


class Mailer:
    def __init__(self, url: str, timeout: float = 10.0) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise MailError(f"bad SMTP URL {url!r}: expected smtp://host[:port] or "
                            "smtps://host[:port]")
        self.tls = parts.scheme == "smtps"
        self.host = parts.hostname
        self.port = parts.port or (465 if self.tls else 25)
        self.user = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else None
        query = parse_qs(parts.query)
        self.sender = query.get("from", [f"kaladan@{self.host}"])[0]
        self.timeout = timeout
        self.sent = 0

    async def send(self, to: str, subject: str, body: str,
                   headers: dict[str, str] | None = None) -> bool:
        """Send one plain-text mail; False (and a log line without the body) when it
        cannot be sent."""
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain=self.host)
        for name, value in (headers or {}).items():
            message[name] = value
        message.set_content(body)
        try:
            await asyncio.to_thread(self._deliver, message)
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("mail to %s (%s) not sent: %s", _masked(to), subject, exc)
            return False
        self.sent += 1
        return True

    def _deliver(self, message: EmailMessage) -> None:
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if self.tls:
            smtp = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout,
                                    context=context)
        else:
            smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        with smtp:
            if not self.tls and smtp.has_extn("starttls"):
                smtp.starttls(context=context)
            if self.user is not None:
                smtp.login(self.user, self.password or "")
            smtp.send_message(message)


def _masked(address: str) -> str:
    """An address for the log: enough to tell mails apart, not the whole address."""
    local, _, domain = address.partition("@")
    return f"{local[:1]}…@{domain}"
