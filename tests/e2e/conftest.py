"""Fixtures of the browser tests: a real ``kaladan serve`` subprocess on a free port with a
temporary SQLite database and no bot pause, and Debian's Chromium driven by Playwright.

Without ``/usr/bin/chromium`` the browser tests are skipped locally and fail under CI=true.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import DESKTOP, ServeProcess, checked_page

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def need_chromium() -> None:
    if CHROMIUM.is_file():
        return
    message = f"{CHROMIUM} is missing: install Debian's chromium package to run the browser tests"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a ``kaladan serve`` process shared by the browser tests."""
    need_chromium()
    serve = ServeProcess(tmp_path_factory.mktemp("serve")).start()
    yield serve.base
    serve.stop()


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Any]:
    # Module scope: Playwright's sync API keeps an event loop running on this thread while it
    # is open, which would break asyncio.run in other tests of the same xdist worker.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page at 1280x800; a JavaScript exception anywhere fails the test."""
    yield from checked_page(browser, viewport=DESKTOP)
