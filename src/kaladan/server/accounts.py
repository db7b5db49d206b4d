"""Accounts: players with a name and a password, their sessions, e-mail links.

A session is a random secret in an ``HttpOnly`` cookie; the database keeps only its SHA-256,
so a copy of the table signs nobody in. Passwords are hashed with Argon2id (argon2-cffi's
defaults, RFC 9106's second recommendation). Signing in with an unknown name verifies the
password against a dummy hash, so an unknown name and a wrong password cost the same time
and get the same answer (401 ``bad_credentials``). Attempts are limited per address and per
name. A deleted account keeps its row (its games refer to it) under the name "deleted
player", without password, e-mail or sessions; its name is free again.

The HTTP side (cookies, CSRF, the routes) is in ``sessions.py`` and ``routes_accounts.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import secrets
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import Enum
from typing import TYPE_CHECKING, Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from .errors import SESSION_CHALLENGE, ApiError
from .rates import AddressRate, PerAddress
from .storage import Store, accounts, email_tokens, game_players, sessions

if TYPE_CHECKING:
    from .mail import Mailer
    from .shared_limits import SharedLimits

log = logging.getLogger("kaladan.server")

DELETED_NAME = "deleted player"
NAME_MIN, NAME_MAX = 3, 24
PASSWORD_MIN, PASSWORD_MAX = 8, 256  # NIST SP 800-63B: at least 8, long ones allowed
SESSION_DAYS = 30
LINK_HOURS = 24  # how long an e-mail link (confirmation, password reset) works
# Latin letters (accented too) and digits, with single spaces, dots, dashes or underscores
# between them; the same pattern is the API schema's (account_models.py).
LETTER = "A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
NAME_PATTERN = (f"^(?![Dd][Ee][Ll][Ee][Tt][Ee][Dd] [Pp][Ll][Aa][Yy][Ee][Rr]$)(?!.*[ ._-]{{2}})"
                f"[{LETTER}](?:[{LETTER} ._-]{{1,{NAME_MAX - 2}}}[{LETTER}])$")
NAME_RE = re.compile(NAME_PATTERN)


def name_key(name: str) -> str:
    """The form under which names are unique: "Anna", "ANNA" and "Ａｎｎａ" are one name."""
    return unicodedata.normalize("NFKC", name).casefold()[:100]


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def check_name(name: str) -> str:
    """The name as it will be shown; 400 ``bad_name`` with the reason otherwise."""
    name = unicodedata.normalize("NFC", name)
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise ApiError(400, "bad_name", f"a name has {NAME_MIN} to {NAME_MAX} characters")
    if NAME_RE.match(name) is None or name_key(name) == DELETED_NAME:
        raise ApiError(400, "bad_name", "a name is letters and digits, with single spaces, "
                       "dots, dashes or underscores between them", input=name)
    return name


def check_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ApiError(400, "bad_password", f"a password has {PASSWORD_MIN} to "
                       f"{PASSWORD_MAX} characters")


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str
    email: str | None = None
    email_confirmed: bool = False
    notify_email: bool = False
    chat: bool = True
    created: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "email": self.email,
                "email_confirmed": self.email_confirmed, "notify_email": self.notify_email,
                "chat": self.chat}


ACCOUNT_COLUMNS = (accounts.c.id, accounts.c.name, accounts.c.email,
                   accounts.c.email_confirmed, accounts.c.notify_email, accounts.c.chat,
                   accounts.c.created)


def _account(row: Any) -> Account:
    return Account(str(row.id), str(row.name), row.email, bool(row.email_confirmed),
                   bool(row.notify_email), bool(row.chat), row.created)


class Keep(Enum):
    """A setting left as it is (``Accounts.update``), where None has a meaning of its own."""

    KEEP = "keep"


class NameTaken(Exception):
    pass


class AccountStore:
    """The accounts' statements (synchronous: called from worker threads)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.store.reading() as c:
            yield c

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self.store.writing() as c:
            yield c

    def create(self, name: str, password_hash: str, email: str | None,
               now: datetime) -> Account:
        account_id = "a_" + secrets.token_hex(8)
        try:
            with self._write() as c:
                c.execute(insert(accounts).values(
                    id=account_id, name=name, name_key=name_key(name), password=password_hash,
                    email=email, created=now))
        except IntegrityError as exc:
            raise NameTaken(name) from exc
        return Account(account_id, name, email, created=now)

    def by_name(self, name: str) -> tuple[Account, str] | None:
        """The account of a name with its password hash (None: no such account)."""
        with self._read() as c:
            row = c.execute(select(*ACCOUNT_COLUMNS, accounts.c.password)
                            .where(accounts.c.name_key == name_key(name))).first()
        if row is None or row.password is None:
            return None
        return _account(row), str(row.password)

    def by_id(self, account_id: str) -> tuple[Account, str | None] | None:
        with self._read() as c:
            row = c.execute(select(*ACCOUNT_COLUMNS, accounts.c.password)
                            .where(accounts.c.id == account_id)).first()
        return None if row is None else (_account(row), row.password)

    def by_email(self, email: str) -> list[Account]:
        with self._read() as c:
            rows = c.execute(select(*ACCOUNT_COLUMNS).where(
                accounts.c.email == email, accounts.c.email_confirmed.is_(True),
                accounts.c.deleted.is_(None))).all()
        return [_account(r) for r in rows]

    def add_session(self, account_id: str, now: datetime, replaces: str | None) -> str:
        """A new session (its secret, for the cookie); ``replaces`` (a session id) ends."""
        secret = secrets.token_urlsafe(32)
        with self._write() as c:
            if replaces is not None:
                c.execute(delete(sessions).where(sessions.c.id == replaces))
            c.execute(insert(sessions).values(
                id=secret_hash(secret), account_id=account_id, created=now,
                expires=now + timedelta(days=SESSION_DAYS)))
        return secret

    def session(self, session_id: str, now: datetime) -> Account | None:
        with self._read() as c:
            row = c.execute(select(*ACCOUNT_COLUMNS)
                            .join(sessions, sessions.c.account_id == accounts.c.id)
                            .where(sessions.c.id == session_id, sessions.c.expires > now,
                                   accounts.c.deleted.is_(None))).first()
        return None if row is None else _account(row)

    def end_session(self, session_id: str) -> None:
        with self._write() as c:
            c.execute(delete(sessions).where(sessions.c.id == session_id))

    def end_sessions(self, account_id: str, keep: str | None = None) -> None:
        with self._write() as c:
            query = delete(sessions).where(sessions.c.account_id == account_id)
            if keep is not None:
                query = query.where(sessions.c.id != keep)
            c.execute(query)

    def set_password(self, account_id: str, password_hash: str) -> None:
        with self._write() as c:
            c.execute(update(accounts).where(accounts.c.id == account_id)
                      .values(password=password_hash))

    def update(self, account_id: str, **values: Any) -> None:
        with self._write() as c:
            c.execute(update(accounts).where(accounts.c.id == account_id).values(**values))

    def delete(self, account_id: str, now: datetime) -> list[str]:
        """Delete an account: its games stay, under "deleted player". Returns its games."""
        with self._write() as c:
            c.execute(delete(sessions).where(sessions.c.account_id == account_id))
            c.execute(delete(email_tokens).where(email_tokens.c.account_id == account_id))
            c.execute(update(accounts).where(accounts.c.id == account_id).values(
                name=DELETED_NAME, name_key=None, password=None, email=None,
                email_confirmed=False, notify_email=False, deleted=now))
            rows = c.execute(select(game_players.c.game_id)
                             .where(game_players.c.account_id == account_id)).all()
        return [str(r.game_id) for r in rows]

    def add_link(self, account_id: str, purpose: str, email: str | None,
                 now: datetime) -> str:
        secret = secrets.token_urlsafe(32)
        with self._write() as c:
            c.execute(delete(email_tokens).where(email_tokens.c.account_id == account_id,
                                                 email_tokens.c.purpose == purpose))
            c.execute(insert(email_tokens).values(
                id=secret_hash(secret), account_id=account_id, purpose=purpose, email=email,
                expires=now + timedelta(hours=LINK_HOURS)))
        return secret

    def use_link(self, secret: str, purpose: str, now: datetime) -> tuple[str, str | None]:
        """The (account id, e-mail) of a link, which is used up; 400 when it is unknown,
        used or expired."""
        with self._write() as c:
            row = c.execute(select(email_tokens).where(
                email_tokens.c.id == secret_hash(secret),
                email_tokens.c.purpose == purpose)).first()
            if row is not None:
                c.execute(delete(email_tokens).where(email_tokens.c.id == row.id))
        if row is None or _aware(row.expires) <= now:
            raise ApiError(404, "unknown_link", "this link is unknown, used or expired; ask "
                           "for a new one")
        return str(row.account_id), row.email

    def names(self, account_ids: list[str]) -> dict[str, str]:
        with self._read() as c:
            rows = c.execute(select(accounts.c.id, accounts.c.name)
                             .where(accounts.c.id.in_(account_ids))).all()
        return {str(r.id): str(r.name) for r in rows}


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Accounts:
    """Signing up and in, sessions and the account's settings, as the routes use them."""

    def __init__(self, store: Store, *, sign_in_rate: float = 5.0, name_rate: float = 10.0,
                 sign_up_rate: float = 3.0, mailer: Mailer | None = None,
                 base_url: str | None = None, hasher: PasswordHasher | None = None) -> None:
        self.table = AccountStore(store)
        self.hasher = hasher or PasswordHasher()  # Argon2id
        # an unknown name is checked against this, so it takes a wrong password's time
        self.dummy = self.hasher.hash(secrets.token_urlsafe(16))
        # per address a minute; per name a quarter of an hour (a slow guesser of one
        # player's password from many addresses)
        self.sign_ins: AddressRate = PerAddress(sign_in_rate, 60.0)
        self.per_name: AddressRate = PerAddress(name_rate, 900.0)
        self.sign_ups: AddressRate = PerAddress(sign_up_rate, 60.0)
        self.mailer = mailer
        self.base_url = base_url

    def share_limits(self, shared: SharedLimits) -> None:
        """Count the limits over every process (Redis)."""
        self.sign_ins = shared.per_address("sign-in", self.sign_ins.rate, 60.0)
        self.per_name = shared.per_address("sign-in-name", self.per_name.rate, 900.0)
        self.sign_ups = shared.per_address("sign-up", self.sign_ups.rate, 60.0)

    @staticmethod
    def now() -> datetime:
        return datetime.now(UTC)

    async def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await asyncio.to_thread(fn, *args, **kwargs)
        except (ApiError, NameTaken):
            raise
        except Exception as exc:
            log.error("accounts: %s failed: %s", getattr(fn, "__name__", fn), exc)
            raise ApiError(503, "storage_unavailable", "accounts cannot be reached now; "
                           "nothing changed: try again") from exc

    async def sign_up(self, name: str, password: str, email: str | None, client: str,
                      replaces: str | None) -> tuple[Account, str]:
        """A new account and its first session (the secret)."""
        name = check_name(name)
        check_password(password)
        email = check_email(email)
        if not await self.sign_ups.admit(client):
            raise ApiError(429, "rate_limited", "too many new accounts from this address; "
                           "try again in a minute")
        hashed = await asyncio.to_thread(self.hasher.hash, password)
        try:
            account = await self._call(self.table.create, name, hashed, email, self.now())
        except NameTaken as exc:
            raise ApiError(409, "name_taken", f"the name {name!r} is taken",
                           input=name) from exc
        secret = await self._call(self.table.add_session, account.id, self.now(), replaces)
        if email is not None:
            await self.send_confirmation(account, email)
        return account, secret

    async def sign_in(self, name: str, password: str, client: str,
                      replaces: str | None) -> tuple[Account, str]:
        """A new session for the right name and password; 401 ``bad_credentials`` for
        either wrong, alike in message and time."""
        if not await self.sign_ins.admit(client) or not await self.per_name.admit(
                name_key(name)[:NAME_MAX * 4]):
            raise ApiError(429, "rate_limited", "too many sign-in attempts; wait a minute",
                           headers={"Retry-After": "60"})
        found = await self._call(self.table.by_name, name) if len(name) <= 100 else None
        ok = await asyncio.to_thread(self._verify, found[1] if found else self.dummy,
                                     password[:PASSWORD_MAX * 4])
        if found is None or not ok:
            raise ApiError(401, "bad_credentials", "wrong name or password",
                           headers=SESSION_CHALLENGE)
        account, hashed = found
        if self.hasher.check_needs_rehash(hashed):
            await self._call(self.table.set_password, account.id,
                             await asyncio.to_thread(self.hasher.hash, password))
        secret = await self._call(self.table.add_session, account.id, self.now(), replaces)
        return account, secret

    def _verify(self, hashed: str, password: str) -> bool:
        try:
            return bool(self.hasher.verify(hashed, password))
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    async def session(self, session_id: str) -> Account | None:
        account: Account | None = await self._call(self.table.session, session_id,
                                                   self.now())
        return account

    async def sign_out(self, session_id: str) -> None:
        await self._call(self.table.end_session, session_id)

    async def sign_out_everywhere(self, account: Account) -> None:
        await self._call(self.table.end_sessions, account.id)

    async def check_own_password(self, account: Account, password: str) -> None:
        found = await self._call(self.table.by_id, account.id)
        hashed = found[1] if found is not None and found[1] is not None else self.dummy
        if not await asyncio.to_thread(self._verify, hashed, password[:PASSWORD_MAX * 4]):
            raise ApiError(403, "bad_credentials", "wrong password")

    async def change_password(self, account: Account, password: str, new: str,
                              session_id: str) -> str:
        """Change the password: every session ends, this one is replaced by a new one."""
        check_password(new)
        await self.check_own_password(account, password)
        hashed = await asyncio.to_thread(self.hasher.hash, new)
        await self._call(self.table.set_password, account.id, hashed)
        await self._call(self.table.end_sessions, account.id)
        secret: str = await self._call(self.table.add_session, account.id, self.now(),
                                       session_id)
        return secret

    async def delete(self, account: Account, password: str) -> list[str]:
        await self.check_own_password(account, password)
        games: list[str] = await self._call(self.table.delete, account.id, self.now())
        return games

    async def update(self, account: Account, *, email: str | None | Keep = Keep.KEEP,
                     notify_email: bool | None = None, chat: bool | None = None) -> Account:
        """Change settings; a new e-mail address is unconfirmed until its link is opened
        (``email``: left out or ``Keep.KEEP`` unchanged, None removed)."""
        values: dict[str, Any] = {}
        if notify_email is not None:
            values["notify_email"] = notify_email
        if chat is not None:
            values["chat"] = chat
        new_email: str | None = None
        if email is not Keep.KEEP:
            new_email = check_email(email)
            if new_email != account.email:
                values.update(email=new_email, email_confirmed=False)
        if values:
            await self._call(self.table.update, account.id, **values)
        if new_email is not None and new_email != account.email:
            await self.send_confirmation(account, new_email)
        found = await self._call(self.table.by_id, account.id)
        assert found is not None
        updated: Account = found[0]
        return updated

    def _link(self, path: str, secret: str) -> str:
        base = (self.base_url or "").rstrip("/")
        return f"{base}{path}?token={secret}"

    async def send_confirmation(self, account: Account, email: str) -> None:
        if self.mailer is None:
            return  # no SMTP server given: the address stays unconfirmed (docs/server.md)
        secret = await self._call(self.table.add_link, account.id, "confirm", email,
                                  self.now())
        await self.mailer.send(email, "Kaladan: confirm your e-mail address",
                               f"Hello {account.name},\n\nopen this link to confirm that "
                               f"{email} is yours:\n{self._link('/account/confirm', secret)}"
                               f"\n\nThe link works for {LINK_HOURS} hours.\n")

    async def confirm_email(self, secret: str) -> Account:
        account_id, email = await self._call(self.table.use_link, secret, "confirm",
                                             self.now())
        found = await self._call(self.table.by_id, account_id)
        if found is None or found[0].email != email:
            raise ApiError(404, "unknown_link", "this link is for an address the account "
                           "no longer has")
        await self._call(self.table.update, account_id, email_confirmed=True)
        confirmed: Account = (await self._call(self.table.by_id, account_id))[0]
        return confirmed

    async def request_reset(self, name_or_email: str, client: str) -> None:
        """Mail a reset link to the confirmed address of the account; says nothing about
        whether there is one (202 either way)."""
        if not await self.sign_ins.admit(client):
            raise ApiError(429, "rate_limited", "too many attempts; wait a minute")
        if self.mailer is None:
            return  # the route is not served without a mail server
        if "@" in name_or_email:
            targets = await self._call(self.table.by_email, name_or_email.strip())
        else:
            found = await self._call(self.table.by_name, name_or_email)
            targets = [found[0]] if found and found[0].email_confirmed else []
        for account in targets:
            assert account.email is not None
            secret = await self._call(self.table.add_link, account.id, "reset", None,
                                      self.now())
            await self.mailer.send(account.email, "Kaladan: reset your password",
                                   f"Hello {account.name},\n\nopen this link to choose a "
                                   f"new password:\n{self._link('/account/reset', secret)}\n\n"
                                   "If you did not ask for it, ignore this mail.\n")

    async def reset_password(self, secret: str, password: str) -> None:
        check_password(password)
        account_id, _ = await self._call(self.table.use_link, secret, "reset", self.now())
        hashed = await asyncio.to_thread(self.hasher.hash, password)
        await self._call(self.table.set_password, account_id, hashed)
        await self._call(self.table.end_sessions, account_id)

    async def names(self, account_ids: list[str]) -> dict[str, str]:
        if not account_ids:
            return {}
        found: dict[str, str] = await self._call(self.table.names, account_ids)
        return found


# the schema's too: no spaces or control characters, one @, a dot in the domain
EMAIL_PATTERN = (r"^[^@\x00-\x20\x7f]{1,64}@[^@\x00-\x20\x7f.]+"
                 r"(\.[^@\x00-\x20\x7f.]+)+$")


def check_email(email: str | None) -> str | None:
    if email is None or not email:
        return None
    if len(email) > 254 or re.fullmatch(EMAIL_PATTERN, email) is None:
        raise ApiError(400, "bad_email", "not an e-mail address", input=email[:100])
    return email
