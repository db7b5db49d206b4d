"""E-mail of accounts through a real SMTP server (aiosmtpd): confirming an address, resetting
a forgotten password, and what a server without a mail server offers (issue 39, point 1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from account_support import PASSWORD, Browser, csrf, make_app, sign_up
from fastapi.testclient import TestClient
from live_support import sqlite_url
from mail_support import SmtpServer, body_of, link_token


@pytest.fixture
def smtp() -> Any:
    with SmtpServer() as server:
        yield server


def test_an_address_is_confirmed_by_the_mailed_link(tmp_path: Path, smtp: SmtpServer) -> None:
    app = make_app(sqlite_url(tmp_path), smtp_url=smtp.url,
                   public_url="https://kaladan.example")
    with TestClient(app) as client:
        anna = Browser(client)
        me = sign_up(anna, "Anna", email="anna@example.org")
        assert me["email"] == "anna@example.org" and not me["email_confirmed"]
        [mail] = smtp.inbox.wait_for("anna@example.org")
        assert mail["From"] == "kaladan@example.org" and "confirm" in mail["Subject"]
        assert "https://kaladan.example/account/confirm?token=" in body_of(mail)
        token = link_token(mail, "/account/confirm")
        # opting in to turn mails is possible only once the address is confirmed? the
        # page disables it; the API stores it, and mails go to confirmed addresses only
        r = Browser(client).post("/api/account/email/confirm", json={"token": "not-the-token"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_link"
        r = Browser(client).post("/api/account/email/confirm", json={"token": token})
        assert r.status_code == 200 and r.json()["email_confirmed"]
        assert anna.get("/api/session").json()["email_confirmed"]
        # a link works once
        r = Browser(client).post("/api/account/email/confirm", json={"token": token})
        assert r.status_code == 404
        # a new address is unconfirmed again, with a new mail
        r = anna.request("PATCH", "/api/account", json={"email": "anna@other.example"},
                         headers=csrf(me))
        assert r.status_code == 200 and not r.json()["email_confirmed"]
        smtp.inbox.wait_for("anna@other.example")
        for mail in smtp.inbox.messages:
            assert PASSWORD not in body_of(mail)


def test_a_forgotten_password_is_reset_by_the_mailed_link(tmp_path: Path,
                                                          smtp: SmtpServer) -> None:
    app = make_app(sqlite_url(tmp_path), smtp_url=smtp.url)
    with TestClient(app) as client:
        anna = Browser(client)
        sign_up(anna, "Anna", email="anna@example.org")
        token = link_token(smtp.inbox.wait_for("anna@example.org")[0], "/account/confirm")
        client.post("/api/account/email/confirm", json={"token": token})
        sign_up(Browser(client), "Bert")  # no address
        before = len(smtp.inbox.messages)
        for name in ("Anna", "Bert", "Nobody", "anna@example.org"):
            r = client.post("/api/password-reset", json={"name": name})
            assert r.status_code == 202  # the same answer whoever asks
            assert r.json() == {"status": "sent if the account has a confirmed address"}
        mails = smtp.inbox.wait_for("anna@example.org", 3)[1:]
        assert len(smtp.inbox.messages) == before + 2  # Anna, by name and by address
        token = link_token(mails[-1], "/account/reset")
        r = client.post("/api/password-reset/confirm",
                        json={"token": token, "password": "a brand new password"})
        assert r.status_code == 204
        assert anna.get("/api/session").status_code == 401  # every session ended
        assert client.post("/api/session", json={"name": "Anna", "password": PASSWORD}
                           ).status_code == 401
        assert client.post("/api/session", json={"name": "Anna",
                                                 "password": "a brand new password"}
                           ).status_code == 200
        # the older link was replaced by the newer one, and the newer one is used up
        for used in (link_token(mails[0], "/account/reset"), token):
            r = client.post("/api/password-reset/confirm",
                            json={"token": used, "password": "yet another password"})
            assert r.status_code == 404


def test_without_a_mail_server_there_are_no_mail_links(tmp_path: Path) -> None:
    app = make_app(sqlite_url(tmp_path))
    paths = app.openapi()["paths"]
    assert "/api/password-reset" not in paths and "/api/account/email/confirm" not in paths
    with TestClient(app) as client:
        me = sign_up(Browser(client), "Anna", email="anna@example.org")
        assert me["email"] == "anna@example.org" and not me["email_confirmed"]
        r = client.post("/api/password-reset", json={"name": "Anna"})
        assert r.status_code in (404, 405)
