"""The request and answer bodies of the accounts API (routes_accounts.py); lengths are
checked again, with reasons, by accounts.py."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from .accounts import EMAIL_PATTERN, NAME_MAX, NAME_MIN, NAME_PATTERN, PASSWORD_MAX, PASSWORD_MIN
from .models import Strict


class Credentials(Strict):
    name: str = Field(min_length=1, max_length=100)
    password: str = Field(min_length=1, max_length=1024)


class NewAccount(Strict):
    # the name's pattern looks ahead (no "deleted player", no two separators in a row)
    model_config = ConfigDict(extra="forbid", regex_engine="python-re")

    name: str = Field(min_length=NAME_MIN, max_length=NAME_MAX, pattern=NAME_PATTERN,
                      description="3 to 24 Latin letters or digits, with single spaces, dots, "
                      "dashes or underscores between them; unique whatever the case")
    password: str = Field(min_length=PASSWORD_MIN, max_length=PASSWORD_MAX)
    email: str | None = Field(None, max_length=254, pattern=EMAIL_PATTERN,
                              description="optional: for turn mails and password resets, "
                              "once confirmed by the mailed link")


class SessionInfo(Strict):
    name: str
    email: str | None
    email_confirmed: bool
    notify_email: bool = Field(description="mail when it is the player's turn")
    chat: bool = Field(description="whether the player sees and writes game chats")
    csrf: str | None = Field(description="send as 'X-CSRF-Token' with every write the "
                             "session cookie authenticates")


class AccountSettings(Strict):
    email: str | None = Field(None, max_length=254, pattern=EMAIL_PATTERN)
    notify_email: bool | None = Field(None, strict=True)
    chat: bool | None = Field(None, strict=True)


class ChangePassword(Strict):
    password: str = Field(min_length=1, max_length=1024, description="the current one")
    new_password: str = Field(min_length=PASSWORD_MIN, max_length=PASSWORD_MAX)


class DeleteAccount(Strict):
    password: str = Field(min_length=1, max_length=1024)


class LinkToken(Strict):
    token: str = Field(min_length=1, max_length=200)


class ResetRequest(Strict):
    name: str = Field(min_length=1, max_length=254, description="the account's name or "
                      "its confirmed e-mail address")


class ResetPassword(Strict):
    token: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=PASSWORD_MIN, max_length=PASSWORD_MAX)
