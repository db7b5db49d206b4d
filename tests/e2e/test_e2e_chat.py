"""Chat and rematch in two browsers (docs/ui.md "Chat" and "Rematch"): a message reaches the
other player, markup stays text under the page's Content-Security-Policy, a muted author's
messages go, and a rematch offered and accepted on the end screen opens both new seats."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import checked_page, create_game, http_json

DESKTOP = {"width": 1280, "height": 800}
HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> & <b>bold</b>'


@pytest.fixture
def two(browser: Any) -> Iterator[tuple[Any, Any]]:
    """Two players' pages, each in its own browser context (its own localStorage)."""
    first = checked_page(browser, viewport=DESKTOP)
    second = checked_page(browser, viewport=DESKTOP)
    yield next(first), next(second)
    for pages in (first, second):
        for _ in pages:  # closes the context and checks its errors and CSP violations
            pass


def joined(server: str, seats: list[str], **fields: Any) -> tuple[str, dict[int, str]]:
    created = create_game(server, seats, **fields)
    game_id = created["game_id"]
    tokens = {link["seat"]: http_json(server, "POST",
                                      f"/api/games/{game_id}/seats/{link['seat']}/join",
                                      {"code": link["code"]})["token"]
              for link in created["join"]}
    return game_id, tokens


def open_seat(page: Any, server: str, game_id: str, seat: int, token: str) -> None:
    page.goto(server + "/")
    page.evaluate("([key, token]) => localStorage.setItem(key, token)",
                  [f"kaladan.token.{game_id}.{seat}", token])
    page.goto(f"{server}/play/{game_id}/{seat}")
    page.wait_for_selector("#board .tile")


def say(page: Any, text: str) -> None:
    page.fill("#chat-text", text)
    page.click("#chat-send")


def chat_texts(page: Any) -> list[str]:
    texts: list[str] = page.eval_on_selector_all("#chat-messages .chat-text",
                                                 "els => els.map(e => e.textContent)")
    return texts


def play_to_the_end(server: str, game_id: str, tokens: dict[int, str]) -> None:
    """Random legal decisions of the human seats over HTTP until the game is over."""
    rng = random.Random(5)
    for _ in range(20_000):
        public = http_json(server, "GET", f"/api/games/{game_id}/view")
        if public["result"] is not None:
            return
        seat = public["to_move"]
        view = http_json(server, "GET", f"/api/games/{game_id}/view", token=tokens[seat])
        if not view["your_turn"]:
            continue
        http_json(server, "POST", f"/api/games/{game_id}/actions",
                  {"index": rng.randrange(view["legal_count"]), "version": view["version"]},
                  tokens[seat])
    raise AssertionError("the game did not end")


def test_chat_between_two_players_with_markup_as_text_and_mute(
        two: tuple[Any, Any], server: str) -> None:
    alice, bob = two
    game_id, tokens = joined(server, ["human", "human"], name="chat")
    open_seat(alice, server, game_id, 0, tokens[0])
    open_seat(bob, server, game_id, 1, tokens[1])
    for page in (alice, bob):
        page.wait_for_selector("#conn[data-status='online']")
    say(alice, "hello Bob")
    bob.wait_for_selector("#chat-messages .chat-text:text-is('hello Bob')")
    say(bob, "hi Alice")
    alice.wait_for_selector("#chat-messages .chat-text:text-is('hi Alice')")
    say(alice, HOSTILE)
    bob.wait_for_function("(text) => [...document.querySelectorAll('#chat-messages .chat-text')]"
                          ".some((e) => e.textContent === text)", arg=HOSTILE)
    for page in (alice, bob):  # text, not markup: no element made, nothing run
        assert page.locator("#chat-messages img, #chat-messages script, "
                            "#chat-messages .chat-text b").count() == 0
        assert page.evaluate("() => window.__pwned") is None
    assert chat_texts(bob) == ["hello Bob", "hi Alice", HOSTILE]
    # Bob mutes Alice: her messages leave his page, and new ones never come
    bob.click("#chat-messages .chat-message:first-child .chat-mute")
    bob.wait_for_function("() => document.querySelectorAll('#chat-messages .chat-text')"
                          ".length === 1")
    assert chat_texts(bob) == ["hi Alice"]
    assert bob.locator("#chat-muted .chat-unmute").count() == 1
    say(alice, "can you hear me?")
    alice.wait_for_selector("#chat-messages .chat-text:text-is('can you hear me?')")
    say(bob, "still here")
    bob.wait_for_selector("#chat-messages .chat-text:text-is('still here')")
    alice.wait_for_selector("#chat-messages .chat-text:text-is('still here')")
    assert chat_texts(bob) == ["hi Alice", "still here"]
    # unmuted, her messages are back
    bob.click("#chat-muted .chat-unmute")
    bob.wait_for_selector("#chat-messages .chat-text:text-is('can you hear me?')")


def test_a_rematch_from_the_end_screen_seats_both_players_in_the_new_game(
        two: tuple[Any, Any], server: str) -> None:
    alice, bob = two
    game_id, tokens = joined(server, ["human", "human"], name="rematch")
    play_to_the_end(server, game_id, tokens)
    open_seat(alice, server, game_id, 0, tokens[0])
    open_seat(bob, server, game_id, 1, tokens[1])
    for page in (alice, bob):
        page.wait_for_selector("#end[open] #rematch-button")
    alice.click("#rematch-button")
    alice.wait_for_selector("#rematch-state")
    assert alice.is_disabled("#rematch-button")
    # Bob's end screen hears of the offer (it asks every few seconds), then he accepts
    bob.wait_for_selector("#rematch-state", timeout=10_000)
    bob.click("#rematch-button")
    for page, seat in ((alice, 1), (bob, 0)):  # seats rotate
        page.wait_for_url(f"**/play/*/{seat}", timeout=15_000)
        page.wait_for_selector("#board .tile")
        assert page.get_attribute("#game", "data-over") == "false"
    new_id = alice.url.split("/")[-2]
    assert new_id != game_id and bob.url.split("/")[-2] == new_id
    assert "seat 2" in alice.inner_text("#game-title").lower()


def test_a_signed_in_spectator_writes_the_spectators_chat_and_a_guest_turns_it_off(
        two: tuple[Any, Any], server: str) -> None:
    player, watcher = two
    frames: list[str] = []  # what the server sends the player's sockets
    player.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(
        payload if isinstance(payload, str) else payload.decode("utf-8", "replace"))))
    game_id, tokens = joined(server, ["human", "random"], name="watched chat")
    open_seat(player, server, game_id, 0, tokens[0])
    watcher.goto(server + "/")
    status = watcher.evaluate("""async () => (await fetch("/api/accounts", {method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({name: "Watcher", password: "a long password"})})).status""")
    assert status == 201
    watcher.goto(f"{server}/watch/{game_id}")
    watcher.wait_for_selector("#chat-form")  # signed in: the spectators' chat is theirs
    say(watcher, "nice move")
    watcher.wait_for_selector("#chat-messages .chat-author:text-is('Watcher')")
    player.wait_for_selector("#chat-tab-spectators.unread")
    player.click("#chat-tab-spectators")
    player.wait_for_selector("#chat-messages .chat-text:text-is('nice move')")
    assert player.locator("#chat-form").count() == 0  # players write at their own table
    # the guest turns the chat off: the panel goes, and the server sends it nothing more
    player.uncheck("#chat-on")
    player.wait_for_selector("#chat-messages", state="detached")
    player.wait_for_selector("#conn[data-status='online']")
    say(watcher, "anyone?")
    watcher.wait_for_selector("#chat-messages .chat-text:text-is('anyone?')")
    assert not [f for f in frames if "anyone?" in f]  # not even sent
    player.check("#chat-on")
    player.click("#chat-tab-spectators")
    player.wait_for_selector("#chat-messages .chat-text:text-is('anyone?')")  # the history
    assert player.evaluate("() => localStorage.getItem('kaladan.chat')") == "on"
