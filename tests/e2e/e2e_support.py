"""Helpers of the browser tests: run ``kaladan serve``, create games over HTTP, wait for the
seat's turn, click an action and wait for the view that follows it."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

# Reports every Content-Security-Policy violation of the page to the test (Playwright's init
# scripts are not subject to the page's CSP).
CSP_LISTENER = """document.addEventListener("securitypolicyviolation", (e) =>
  window.__cspViolation(
    `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));"""


def watch_csp(page: Any) -> list[str]:
    """The CSP violations of ``page`` (events and console errors), collected as they come."""
    violations: list[str] = []
    page.expose_function("__cspViolation", lambda text: violations.append(str(text)))
    page.add_init_script(CSP_LISTENER)
    page.on("console", lambda m: violations.append(m.text) if m.type == "error"
            and "Content Security Policy" in m.text else None)
    return violations


def checked_page(browser: Any, **context: Any) -> Iterator[Any]:
    """A page in a fresh browser context (its own localStorage), English UI locale; a
    JavaScript exception or a Content-Security-Policy violation anywhere fails the test that
    used it."""
    ctx = browser.new_context(locale="en-GB", **context)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    violations = watch_csp(page)
    yield page
    ctx.close()
    assert not errors, f"JavaScript errors: {errors}"
    assert not violations, f"Content-Security-Policy violations: {violations}"


DESKTOP = {"width": 1280, "height": 800}  # the browser tests' page size (fixture ``page``)
TURN_TIMEOUT = 20_000  # ms: bots act without a pause, so this only guards against a hang


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# The tests create many games from one address: lift the per-address limits.
GENEROUS_FLAGS = ("--rate", "1000", "--read-rate", "100000", "--load-rate", "1000",
                  "--games-per-minute", "100000", "--sockets", "1000", "--any-seed",
                  "--sign-in-rate", "100000", "--sign-up-rate", "100000")


class ServeProcess:
    """``kaladan serve`` as a subprocess on a SQLite file in ``folder``; bots decide without
    the visible pause. Can be stopped and started again on the same port and database."""

    def __init__(self, folder: Path, port: int | None = None, flags: tuple[str, ...] = ()) -> None:
        self.folder = folder
        self.flags = flags  # more ``kaladan serve`` flags (e.g. --test-clock FILE)
        self.port = port or _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> ServeProcess:
        with (self.folder / "server.log").open("a") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kaladan.cli.main", "serve", "--port", str(self.port),
                 "--database-url", f"sqlite:///{self.folder / 'kaladan.sqlite3'}",
                 "--bot-delay", "0", *GENEROUS_FLAGS, *self.flags], stdout=log,
                stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.base + "/api/games", timeout=2):
                    return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("kaladan serve did not start:\n"
                                       + (self.folder / "server.log").read_text()) from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


def create_game(server: str, seats: list[str], **fields: Any) -> dict[str, Any]:
    body = json.dumps({"mode": "free_for_all", "seats": seats, "options": {}, "quick": True,
                       **fields}).encode()
    request = urllib.request.Request(server + "/api/games", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        created: dict[str, Any] = json.load(response)
    return created


def version(page: Any) -> int:
    return int(page.get_attribute("#game", "data-version"))


def wait_for_decision(page: Any) -> bool:
    """Wait until this seat must decide (True) or the game is over (False)."""
    page.wait_for_function(
        "() => { const g = document.getElementById('game');"
        " return g && (g.dataset.yourTurn === 'true' || g.dataset.over === 'true'); }",
        timeout=TURN_TIMEOUT)
    return page.get_attribute("#game", "data-over") != "true"


def wait_past(page: Any, before: int) -> None:
    """Wait for a view newer than ``before`` (the server accepted the action)."""
    page.wait_for_function(
        f"() => Number(document.getElementById('game').dataset.version) > {before}",
        timeout=TURN_TIMEOUT)


# The view's version, and whether an answer is already on its way without a click: the page
# is about to answer a forced decision itself (data-auto-answering) or is sending one
# (.sending). Read in one call, so that no answer slips between the two.
_VERSION_AND_ANSWERING = ("() => { const g = document.getElementById('game');"
                          " return [Number(g.dataset.version),"
                          " g.dataset.autoAnswering === 'true'"
                          " || g.classList.contains('sending')]; }")


def send_if_asked(page: Any) -> None:
    """Press the confirm bar's "Send" when the click before it composed an action that waits
    for it (a move, a swap, a placement, a purchase: js/safe.js)."""
    send = page.locator("#safe-bar:not([hidden]) #safe-send")
    if send.count():
        send.click()


def click_and_wait(page: Any, selector: str) -> None:
    """Click ``selector`` and wait for the view that follows. A forced "no magic card" or
    "pass" is left to the page when it is answering it by itself (its auto-answer, on by
    default, 0.7 s after the view). A click would race it: under CI's load one once came
    after the button was gone and waited for it until its timeout."""
    before, answering = page.evaluate(_VERSION_AND_ANSWERING)
    if not answering:
        page.click(selector)
        send_if_asked(page)
    wait_past(page, before)


def actions(page: Any, selector: str = "#actions button[data-action]") -> list[str]:
    texts: list[str] = page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.action)")
    return texts


def first_or_pass(page: Any) -> str:
    """The selector of a pass/end/no-magic button if there is one, else the first action."""
    if page.locator("#actions .buttons.quick button").count():
        return "#actions .buttons.quick button >> nth=0"
    return "#actions button[data-action] >> nth=0"


def move_by_board(page: Any, rng: random.Random) -> bool:
    """Make a random move as a player does: click one of your units on the board, then a
    tile it may go to (highlighted). False when no picked unit has a tile to go to."""
    units = page.locator("#board .unit.pickable")
    for _ in range(6):
        if not units.count():
            return False
        unit = units.nth(rng.randrange(units.count()))
        unit.click()
        targets = page.locator("#board .tile.target")
        if targets.count():
            tile = targets.nth(rng.randrange(targets.count())).get_attribute("data-tile")
            click_and_wait(page, f"#board .tile[data-tile='{tile}'] .tile-name")
            return True
        page.click("#clear-pick")
    return False


def actionable_tile(page: Any) -> str:
    """Play on (first action or pass) until some legal action names a board tile; that tile.
    Some decisions (take gold, pass) name no tile."""
    for _ in range(20):
        if page.locator("#board .tile.actionable").count():
            break
        click_and_wait(page, first_or_pass(page))
        assert wait_for_decision(page)
    tile: str = page.eval_on_selector("#board .tile.actionable", "el => el.dataset.tile")
    return tile


def entry_text(entry: dict[str, Any], lang: str, realms: list[str | None]) -> str:
    """The engine's sentence for a log entry as the API sends it (``realms``: each seat's
    realm id, as in the view's observation): what the browser must show."""
    from kaladan.rules.gamelog import entry_from_json
    from kaladan.rules.units import REALM_INDEX

    return entry_from_json(entry).text(lang, [REALM_INDEX[r] if r else -1 for r in realms])


def public_view(server: str, game_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/view", timeout=10) as response:
        view: dict[str, Any] = json.load(response)
    return view


def realms_of(view: dict[str, Any]) -> list[str | None]:
    return [p["realm"] for p in view["observation"]["players"]]


def http_json(server: str, method: str, path: str, body: dict[str, Any] | None = None,
              token: str | None = None) -> Any:
    """A call of the HTTP API; the JSON answer (an error status raises)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def scripted_steps(seed: int, wanted: Callable[[Any, Sequence[Any]], bool],
                   limit: int = 400) -> list[tuple[int, str]]:
    """The decisions (seat, text) of a two-player quick game of ``seed`` played by greedy bots
    on both seats until seat 0 meets a decision ``wanted(state, legal)`` accepts: a game of two
    human seats with that seed, played the same way, reaches the same decision (the server
    draws nothing of its own for human seats)."""
    from kaladan.bots.base import SeatView
    from kaladan.bots.greedy import GreedyBot
    from kaladan.game import Game
    from kaladan.rules.config import Config
    from kaladan.rules.legal import legal_actions

    game = Game.new(Config(players=2, quick_setup=True), seed)
    bot = GreedyBot()
    steps: list[tuple[int, str]] = []
    for step in range(limit):
        state = game.state
        legal = legal_actions(state)
        if state.pending.seat == 0 and wanted(state, legal):
            return steps
        seat = state.pending.seat
        action = bot.choose(SeatView(state, seat), legal, random.Random(seed * 1000 + step))
        steps.append((seat, game.format(action)))
        game.play(action)
    raise AssertionError(f"seed {seed}: no wanted decision of seat 0 in {limit} steps")


def open_scripted(page: Any, server: str, seed: int,
                  wanted: Callable[[Any, Sequence[Any]], bool]) -> tuple[str, str]:
    """A game of two human seats (``seed``, quick set-up) brought over HTTP to the decision
    of ``scripted_steps``, then opened for seat 0 in ``page``; (game id, seat 0's token)."""
    created = create_game(server, ["human", "human"], seed=seed, name=f"scripted {seed}")
    game_id = created["game_id"]
    tokens = {}
    for link in created["join"]:
        tokens[link["seat"]] = http_json(server, "POST",
                                         f"/api/games/{game_id}/seats/{link['seat']}/join",
                                         {"code": link["code"]})["token"]
    for seat, text in scripted_steps(seed, wanted):
        http_json(server, "POST", f"/api/games/{game_id}/actions", {"action": text},
                  tokens[seat])
    page.goto(server + "/")
    page.evaluate("([key, token]) => localStorage.setItem(key, token)",
                  [f"kaladan.token.{game_id}.0", tokens[0]])
    page.goto(f"{server}/play/{game_id}/0")
    assert wait_for_decision(page)
    return game_id, tokens[0]


def last_entry(server: str, game_id: str, kind: str) -> dict[str, Any]:
    """The newest public log entry of ``kind`` of the game."""
    entries = [e for e in http_json(server, "GET", f"/api/games/{game_id}/view")["log"]
               if e["kind"] == kind]
    assert entries, kind
    entry: dict[str, Any] = entries[-1]
    return entry


def centre(page: Any, selector: str) -> tuple[float, float]:
    """The centre of ``selector``'s first element, asked again while a view arriving redraws
    the board (an element replaced mid-call has no box)."""
    for _ in range(20):
        box = page.locator(selector).first.bounding_box()
        if box:
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.wait_for_timeout(100)
    raise AssertionError(f"{selector} is not on the page")


def drag(page: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A mouse drag from ``start`` to ``end`` in eight steps (drag.js sees it move)."""
    page.mouse.move(*start)
    page.mouse.down()
    for i in range(1, 9):
        page.mouse.move(start[0] + (end[0] - start[0]) * i / 8,
                        start[1] + (end[1] - start[1]) * i / 8)
    page.mouse.up()
