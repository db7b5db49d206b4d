"""The UI and the API documentation run under the server's Content-Security-Policy: the lobby,
a seat's game page and a spectator's page raise no violation, styles set by the UI still
apply, and /docs and /redoc load nothing from outside the server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import click_and_wait, create_game, first_or_pass, wait_for_decision, watch_csp

from kaladan.server.routes_docs import REDOC_POLICY, SWAGGER_POLICY
from kaladan.server.security import UI_POLICY


@pytest.fixture
def watched(browser: Any) -> Iterator[tuple[Any, list[str], list[str]]]:
    """A page, its CSP violations, and the URLs it fetched from anywhere but the server."""
    ctx = browser.new_context(locale="en-GB")
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    violations = watch_csp(page)
    outside: list[str] = []
    yield page, violations, outside
    ctx.close()
    assert not errors, f"JavaScript errors: {errors}"


def fetched_outside(page: Any, server: str, outside: list[str]) -> None:
    """Record every request that reached the network and was not to ``server`` (CSP-blocked
    requests fail before that and are not ``requestfinished``)."""
    page.on("requestfinished", lambda r: None if r.url.startswith((server, "blob:", "data:"))
            else outside.append(r.url))


def test_lobby_game_and_spectator_pages_raise_no_csp_violation(
        watched: tuple[Any, list[str], list[str]], server: str) -> None:
    page, violations, outside = watched
    fetched_outside(page, server, outside)
    response = page.goto(server + "/")
    headers = response.headers
    assert headers["content-security-policy"] == UI_POLICY
    assert "unsafe-inline" not in UI_POLICY and "unsafe-eval" not in UI_POLICY
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    page.select_option("#seat-1", "random")
    page.click("#create")
    page.locator("#join-0").click()
    page.wait_for_selector("#board [data-tile='C1']")
    # The log's seat colour swatches are styled from JavaScript (element.style, which CSP
    # allows; a style attribute would be blocked and leave them transparent).
    page.wait_for_selector("#log .swatch")
    colour = page.eval_on_selector("#log .swatch",
                                   "el => getComputedStyle(el).backgroundColor")
    assert colour not in ("", "rgba(0, 0, 0, 0)", "transparent"), colour
    for _ in range(15):  # the live view, the WebSocket, the log and battle panels
        if not wait_for_decision(page):
            break
        click_and_wait(page, first_or_pass(page))
    created = create_game(server, ["greedy", "random"], name="watched")
    page.goto(server + created["spectate"])
    page.wait_for_selector("#board .tile")
    page.wait_for_function("() => Number(document.getElementById('game').dataset.version) > 3")
    assert violations == []
    assert outside == []


def test_swagger_ui_loads_only_from_this_server(
        watched: tuple[Any, list[str], list[str]], server: str) -> None:
    page, violations, outside = watched
    fetched_outside(page, server, outside)
    response = page.goto(server + "/docs")
    assert response.headers["content-security-policy"] == SWAGGER_POLICY
    assert "unsafe-inline" not in SWAGGER_POLICY and "unsafe-eval" not in SWAGGER_POLICY
    page.wait_for_selector(".swagger-ui .info .title")
    assert "Kaladan" in page.inner_text(".swagger-ui .info .title")
    page.wait_for_selector(".opblock")
    assert page.locator(".opblock").count() >= 7  # every operation of the API
    assert violations == []
    assert outside == []


def test_redoc_loads_only_from_this_server(
        watched: tuple[Any, list[str], list[str]], server: str) -> None:
    page, violations, outside = watched
    fetched_outside(page, server, outside)
    response = page.goto(server + "/redoc")
    assert response.headers["content-security-policy"] == REDOC_POLICY
    assert "'unsafe-inline'" not in REDOC_POLICY.split("script-src")[1].split(";")[0]
    page.wait_for_selector("h1")
    assert "Kaladan" in page.inner_text("h1")
    page.wait_for_timeout(500)  # the side menu, with its footer, renders after the title
    # ReDoc's side menu always asks for Redocly's logo from their CDN: CSP blocks it (and
    # ReDoc then leaves it out); nothing else is refused and nothing leaves this server.
    assert all("cdn.redoc.ly" in v for v in violations), violations
    assert outside == []
