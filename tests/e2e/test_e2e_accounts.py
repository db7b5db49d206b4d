"""Accounts in the browser (issue 39, point 1): signing up and in from the pages, the
account's settings, a guest's seat claimed on signing up, and the seat played on another
device by the session alone. Real Chromium, real ``kaladan serve``."""

from __future__ import annotations

import itertools
from typing import Any

from e2e_support import checked_page, create_game, http_json, wait_for_decision

PASSWORD = "a long enough password"
_names = itertools.count(1)


def fresh_name(prefix: str) -> str:
    return f"{prefix}{next(_names)}"  # the server is shared by the module's tests


def sign_up_in_page(page: Any, server: str, name: str, path: str = "/signup") -> None:
    page.goto(server + path)
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    page.wait_for_selector("#account-links")


def test_sign_up_settings_sign_out_and_in(page: Any, server: str) -> None:
    name = fresh_name("Anna")
    sign_up_in_page(page, server, name)
    assert page.inner_text("#me-link") == name
    # the session cookie is out of the page's reach (HttpOnly)
    assert "kaladan_session" not in page.evaluate("document.cookie")
    page.reload()
    page.wait_for_selector("#account-links")
    page.click("#settings-link")
    page.wait_for_selector("#chat-on")
    assert page.is_checked("#chat-on")
    page.click("#chat-on")  # a write signed in by the cookie: the page sends the CSRF token
    page.wait_for_function("() => !document.getElementById('chat-on').checked")
    page.reload()
    page.wait_for_selector("#chat-on")
    assert not page.is_checked("#chat-on")
    page.fill("#old-password", PASSWORD)
    page.fill("#new-password", PASSWORD + "!")
    page.click("#password-save")
    page.wait_for_selector(".toast")
    page.click("#signout")
    page.wait_for_selector("#signin-link")
    page.goto(server + "/signin")
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)  # the old one
    page.click("#account-submit")
    page.wait_for_function("() => document.getElementById('account-error').textContent")
    assert "wrong name or password" in page.inner_text("#account-error")
    page.fill("#account-password", PASSWORD + "!")
    page.click("#account-submit")
    page.wait_for_selector("#account-links")


def test_a_guests_seat_is_claimed_on_sign_up_and_played_on_another_device(
        browser: Any, server: str) -> None:
    created = create_game(server, ["human", "greedy"], seed=21, name="claimed")
    game_id = created["game_id"]
    url = server + created["join"][0]["url"]
    name = fresh_name("Bert")
    pages = checked_page(browser, viewport={"width": 1280, "height": 800})
    guest = next(pages)
    guest.goto(url)  # joins as a guest: the token goes to this browser's storage
    guest.wait_for_selector("#board .tile")
    assert http_json(server, "GET", f"/api/games/{game_id}")["seats"][0]["player"] is None
    sign_up_in_page(guest, server, name, f"/signup?next=/play/{game_id}/0")
    guest.wait_for_selector("#board .tile")
    assert http_json(server, "GET", f"/api/games/{game_id}")["seats"][0]["player"] == name
    # another device: no token, only the account
    other_pages = checked_page(browser, viewport={"width": 1280, "height": 800})
    other = next(other_pages)
    other.goto(server + "/signin")
    other.fill("#account-name", name.lower())  # names are one whatever the case
    other.fill("#account-password", PASSWORD)
    other.click("#account-submit")
    other.wait_for_selector("#account-links")
    assert other.evaluate(f"localStorage.getItem('kaladan.token.{game_id}.0')") is None
    other.goto(server + f"/play/{game_id}/0")
    other.wait_for_selector("#board .tile")
    assert wait_for_decision(other)
    assert other.locator("#fatal").count() == 0
    for rest in (pages, other_pages):
        next(rest, None)  # closes the context and checks it had no error
