"""Turn mails (issue 39, point 5) through a real SMTP server (aiosmtpd on a free port): to
confirmed players who opted in, at most one per game and turn (across a restart too), one
digest for several games, none while connected, and the one-click unsubscribe."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from aiosmtpd.controller import Controller
from fastapi import FastAPI
from fastapi.testclient import TestClient
from live_support import free_port, sqlite_url
from sqlalchemy import select, update
from test_accounts import PASSWORD, Browser, create_as, csrf, make_app, sign_up

from kaladan.server.notify import turn_mails
from kaladan.server.storage import accounts

PUBLIC = "https://kaladan.example.org"


class Inbox:
    def __init__(self) -> None:
        self.mails: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.mails.append(message)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.mails if m["To"] == address]


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    box = Inbox()
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()


def mail_app(url: str, port: int) -> FastAPI:
    app = make_app(url, smtp_url=f"smtp://127.0.0.1:{port}", public_url=PUBLIC)
    app.state.notifier.interval = 3600.0  # the test flushes by itself
    return app


def opt_in(app: FastAPI, name: str, *, confirmed: bool = True, notify: bool = True) -> None:
    with app.state.service.store.writing() as c:
        c.execute(update(accounts).where(accounts.c.name == name).values(
            email_confirmed=confirmed, notify_email=notify))


def flush(client: TestClient, app: FastAPI) -> int:
    sent: int = client.portal.call(app.state.notifier.flush)  # type: ignore[union-attr]
    return sent


def settle(client: TestClient, app: FastAPI) -> None:
    """Let the turn records (stored on worker threads) land."""
    async def wait() -> None:
        import asyncio

        for _ in range(200):
            if not app.state.service.tasks:
                return
            await asyncio.sleep(0.01)

    client.portal.call(wait)  # type: ignore[union-attr]


def two_player_game(app: FastAPI, first: Browser, me: dict[str, Any], second: Browser,
                    them: dict[str, Any], name: str) -> str:
    """A running game of two signed-in players, ``first`` at the seat to decide first."""
    created = create_as(first, me, ["human", "human"], open_seats=True, quick=True, name=name)
    game_id = str(created["game_id"])
    seat = app.state.service.games[game_id].game.state.pending.seat
    assert first.post(f"/api/games/{game_id}/seats/{seat}/join", json={},
                      headers=csrf(me)).status_code == 200
    assert second.post(f"/api/games/{game_id}/seats/{1 - seat}/join", json={},
                       headers=csrf(them)).status_code == 200
    return game_id


def play_until_turn_passes(player: Browser, me: dict[str, Any], game_id: str) -> None:
    """The seat to decide decides (its first legal action) until another seat is to."""
    view = player.get(f"/api/games/{game_id}/view").json()
    seat = view["seat"]
    for _ in range(50):
        mine = [g for g in player.get("/api/me/games").json()["games"]
                if g["game_id"] == game_id][0]
        if mine["to_move"] != seat:
            return
        view = player.get(f"/api/games/{game_id}/view").json()
        r = player.post(f"/api/games/{game_id}/actions", headers=csrf(me),
                        json={"index": 0, "version": view["version"]})
        assert r.status_code == 200, r.text
    raise AssertionError("the turn never passed")


@pytest.fixture
def setup(tmp_path: Path, inbox: tuple[Inbox, int]) -> Iterator[Any]:
    box, port = inbox
    app = mail_app(sqlite_url(tmp_path), port)
    with TestClient(app) as client:
        yield app, client, box


def test_a_turn_mails_a_confirmed_player_who_opted_in_once(setup: Any) -> None:
    app, client, box = setup
    anna, bert = Browser(client), Browser(client)
    a = sign_up(anna, "Anna", email="anna@example.org")
    b = sign_up(bert, "Bert", email="bert@example.org")
    box.mails.clear()  # the confirmation mails
    opt_in(app, "Anna")
    opt_in(app, "Bert", confirmed=False)  # asked for mails, never confirmed the address
    game_id = two_player_game(app, anna, a, bert, b, "First")
    settle(client, app)
    assert flush(client, app) == 1
    [mail] = box.mails
    assert mail["To"] == "anna@example.org" and "First" in mail["Subject"]
    body = mail.get_content()
    seat = anna.get(f"/api/games/{game_id}/view").json()["seat"]
    assert f"{PUBLIC}/play/{game_id}/{seat}" in body
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail["List-Unsubscribe"].startswith(f"<{PUBLIC}/api/unsubscribe?token=")
    # nothing more for that turn, however often it is looked at
    app.state.notifier.known.clear()
    live = client.portal.call(app.state.service.get, game_id)  # type: ignore[union-attr]
    client.portal.call(app.state.notifier.turn, live)  # type: ignore[union-attr]
    settle(client, app)
    assert flush(client, app) == 0
    # Bert's turn: his address is not confirmed, no mail
    play_until_turn_passes(anna, a, game_id)
    settle(client, app)
    assert flush(client, app) == 0 and len(box.mails) == 1
    # secrets never travel in a mail
    text = mail.as_string()
    for secret in (a["csrf"], b["csrf"], PASSWORD, anna.cookies.get("kaladan_session") or "-"):
        assert secret not in text


def test_no_mail_to_a_player_who_did_not_opt_in_or_is_connected(setup: Any) -> None:
    app, client, box = setup
    anna, bert, carl = Browser(client), Browser(client), Browser(client)
    a = sign_up(anna, "Anna", email="anna@example.org")
    b = sign_up(bert, "Bert", email="bert@example.org")
    c = sign_up(carl, "Carl", email="carl@example.org")
    opt_in(app, "Anna")
    opt_in(app, "Carl", notify=False)
    box.mails.clear()
    two_player_game(app, carl, c, bert, b, "Carl's")  # Carl's turn: he wants no mails
    # Anna watches her game as its turn comes to her: no mail
    created = create_as(anna, a, ["human", "human"], open_seats=True, quick=True)
    game_id = created["game_id"]
    seat = app.state.service.games[game_id].game.state.pending.seat
    anna.post(f"/api/games/{game_id}/seats/{seat}/join", json={}, headers=csrf(a))
    with anna.websocket_connect(f"/ws/games/{game_id}") as socket:
        socket.receive_json()
        bert.post(f"/api/games/{game_id}/seats/{1 - seat}/join", json={}, headers=csrf(b))
        socket.receive_json()
        settle(client, app)
        assert flush(client, app) == 0
    assert box.mails == []


def test_several_games_waiting_make_one_digest(setup: Any) -> None:
    app, client, box = setup
    anna, bert, carl = Browser(client), Browser(client), Browser(client)
    a = sign_up(anna, "Anna", email="anna@example.org")
    b, c = sign_up(bert, "Bert"), sign_up(carl, "Carl")
    opt_in(app, "Anna")
    box.mails.clear()
    first = two_player_game(app, anna, a, bert, b, "Against Bert")
    second = two_player_game(app, anna, a, carl, c, "Against Carl")
    settle(client, app)
    assert flush(client, app) == 1
    [mail] = box.to("anna@example.org")
    assert mail["Subject"] == "Kaladan: your turn in 2 games"
    body = mail.get_content()
    assert first in body and second in body and "Against Bert" in body
    with app.state.service.store.reading() as conn:
        rows = conn.execute(select(turn_mails)).all()
    assert len(rows) == 2 and all(r.sent is not None for r in rows)


def test_at_most_one_mail_per_turn_across_a_restart(tmp_path: Path,
                                                    inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    url = sqlite_url(tmp_path)
    app = mail_app(url, port)
    with TestClient(app) as client:
        anna, bert = Browser(client), Browser(client)
        a = sign_up(anna, "Anna", email="anna@example.org")
        b = sign_up(bert, "Bert")
        opt_in(app, "Anna")
        box.mails.clear()
        game_id = two_player_game(app, anna, a, bert, b, "Restarted")
        settle(client, app)
        assert flush(client, app) == 1
    again = mail_app(url, port)  # a new process on the same database
    with TestClient(again) as client:
        live = client.portal.call(again.state.service.get, game_id)  # type: ignore[union-attr]
        client.portal.call(again.state.notifier.turn, live)  # type: ignore[union-attr]
        settle(client, again)
        assert flush(client, again) == 0
    assert len(box.mails) == 1


def test_the_unsubscribe_link_turns_mails_off_by_post_only(setup: Any) -> None:
    app, client, box = setup
    anna, bert = Browser(client), Browser(client)
    a = sign_up(anna, "Anna", email="anna@example.org")
    b = sign_up(bert, "Bert")
    opt_in(app, "Anna")
    box.mails.clear()
    two_player_game(app, anna, a, bert, b, "Unsubscribed")
    settle(client, app)
    flush(client, app)
    [mail] = box.mails
    link = mail["List-Unsubscribe"].strip("<>")
    token = parse_qs(urlsplit(link).query)["token"][0]
    assert f"{PUBLIC}/unsubscribe?token={token}" in mail.get_content()
    page = client.get(f"/unsubscribe?token={token}")  # what a mail scanner opens
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert anna.get("/api/session").json()["notify_email"] is True
    r = client.post(f"/api/unsubscribe?token={token}", content=b"List-Unsubscribe=One-Click",
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 200, r.text
    assert r.json() == {"notify_email": False}
    assert anna.get("/api/session").json()["notify_email"] is False
    r = client.post("/api/unsubscribe?token=not-a-token")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_link"


def test_my_games_lists_the_players_turns_first(setup: Any) -> None:
    app, client, _ = setup
    anna, bert, carl = Browser(client), Browser(client), Browser(client)
    a, b, c = sign_up(anna, "Anna"), sign_up(bert, "Bert"), sign_up(carl, "Carl")
    waiting = two_player_game(app, bert, b, anna, a, "Bert to decide")
    mine = two_player_game(app, anna, a, carl, c, "Anna to decide")
    settle(client, app)
    assert client.get("/api/me/games").status_code == 401
    games = anna.get("/api/me/games").json()["games"]
    assert [g["game_id"] for g in games] == [mine, waiting]
    assert games[0]["your_turn"] is True and games[1]["your_turn"] is False
    assert set(games[0]["players"]) == {"Anna", "Carl"}
    assert games[0]["url"] == f"/play/{mine}/{games[0]['seat']}"
    assert games[1]["to_move"] != games[1]["seat"]


def test_turn_mails_on_postgres(postgres_db: str, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    app = mail_app(postgres_db, port)
    with TestClient(app) as client:
        anna, bert = Browser(client), Browser(client)
        a = sign_up(anna, "Anna", email="anna@example.org")
        b = sign_up(bert, "Bert", email="bert@example.org")
        opt_in(app, "Anna")
        opt_in(app, "Bert")
        box.mails.clear()
        game_id = two_player_game(app, anna, a, bert, b, "On PostgreSQL")
        settle(client, app)
        assert flush(client, app) == 1 and box.mails[0]["To"] == "anna@example.org"
        play_until_turn_passes(anna, a, game_id)
        settle(client, app)
        assert flush(client, app) == 1 and box.mails[1]["To"] == "bert@example.org"
        assert flush(client, app) == 0
        assert [g["your_turn"] for g in bert.get("/api/me/games").json()["games"]] == [True]
