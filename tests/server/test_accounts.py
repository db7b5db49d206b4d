"""Accounts (issue 39, point 1): signing up and in, sessions and CSRF, seats of signed-in
players, and what a player's account never reveals.

Every test runs the real app (TestClient: cookies kept like a browser keeps them) on SQLite;
``test_accounts_on_postgres`` repeats the main path on PostgreSQL.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from account_support import PASSWORD, Browser, create_as, csrf, make_app, sign_up
from fastapi import FastAPI
from fastapi.testclient import TestClient
from live_support import sqlite_url
from security_support import watch_log
from server_support import auth, create, join_code
from sqlalchemy import select

from kaladan.server.accounts import DELETED_NAME
from kaladan.server.sessions import COOKIE, CSRF_HEADER, NO_TOKEN
from kaladan.server.storage import accounts, game_players, sessions


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return make_app(sqlite_url(tmp_path))


@pytest.fixture
def client(app: FastAPI) -> Any:
    with TestClient(app) as c:
        yield c


def stored(app: FastAPI, table: Any) -> list[Any]:
    with app.state.service.store.reading() as c:
        return list(c.execute(select(table)).all())


def test_sign_up_signs_in_with_an_httponly_lax_cookie_and_stores_only_a_hash(
        app: FastAPI, client: TestClient) -> None:
    r = client.post("/api/accounts", json={"name": "Anna", "password": PASSWORD})
    assert r.status_code == 201
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie
    assert "SameSite=lax" in cookie and "Secure" not in cookie  # plain HTTP here
    assert set(r.json()) == {"name", "email", "email_confirmed", "notify_email", "chat", "csrf"}
    me = client.get("/api/session")
    assert me.status_code == 200 and me.json()["name"] == "Anna"
    [row] = stored(app, accounts)
    assert row.password.startswith("$argon2id$") and PASSWORD not in row.password
    secret = client.cookies[COOKIE]
    [session] = stored(app, sessions)
    assert session.id != secret and secret not in str(tuple(session))  # only its SHA-256


def test_over_https_the_cookie_is_secure_and_host_prefixed(app: FastAPI) -> None:
    with TestClient(app, base_url="https://testserver") as client:
        r = client.post("/api/accounts", json={"name": "Anna", "password": PASSWORD})
        assert r.status_code == 201
        cookie = r.headers["set-cookie"]
        assert cookie.startswith("__Host-kaladan_session=") and "Secure" in cookie
        assert "Path=/" in cookie and "Domain" not in cookie
        assert client.get("/api/session").json()["name"] == "Anna"


@pytest.mark.parametrize("name", ["ab", "x" * 25, " Anna", "An  na", "a..b", "<b>x</b>",
                                  "Deleted Player", "An\u0000na"])
def test_names_outside_the_rules_are_refused_with_the_reason(client: TestClient,
                                                             name: str) -> None:
    r = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert r.status_code == 400 and r.json()["error"]["code"] in ("bad_name",
                                                                  "malformed_request")
    assert client.get("/api/session").status_code == 401


def test_a_taken_name_is_said_whatever_its_case_and_a_short_password_refused(
        client: TestClient) -> None:
    sign_up(client, "Anna")
    r = client.post("/api/accounts", json={"name": "ANNA", "password": PASSWORD})
    assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
    r = client.post("/api/accounts", json={"name": "Bert", "password": "short"})
    assert r.status_code == 400


def test_sign_in_answers_alike_for_an_unknown_name_and_a_wrong_password(
        client: TestClient) -> None:
    sign_up(Browser(client), "Anna")
    wrong = client.post("/api/session", json={"name": "Anna", "password": "nope-nope"})
    unknown = client.post("/api/session", json={"name": "Nobody", "password": "nope"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()  # the same words: no name is revealed
    assert wrong.json()["error"]["code"] == "bad_credentials"
    assert "set-cookie" not in wrong.headers
    ok = client.post("/api/session", json={"name": "anna", "password": PASSWORD})
    assert ok.status_code == 200 and ok.json()["name"] == "Anna"


def test_sign_in_takes_as_long_for_an_unknown_name_as_for_a_wrong_password(
        client: TestClient) -> None:
    """Both verify an Argon2id hash (a dummy one for an unknown name): the two
    distributions of many attempts overlap. Compared with each other, never with a clock."""
    sign_up(Browser(client), "Anna")
    wrong: list[float] = []
    unknown: list[float] = []
    for i in range(16):  # interleaved: drift of the machine hits both alike
        for name, times in (("Anna", wrong), (f"Nobody{i}", unknown)):
            start = time.perf_counter()
            r = client.post("/api/session", json={"name": name, "password": "nope-nope"})
            times.append(time.perf_counter() - start)
            assert r.status_code == 401
    ratio = statistics.median(unknown) / statistics.median(wrong)
    assert 0.75 < ratio < 1.33, (ratio, wrong, unknown)
    # the slowest quarter of one is not faster than the fastest quarter of the other
    assert sorted(unknown)[12] > sorted(wrong)[3] and sorted(wrong)[12] > sorted(unknown)[3]


def test_brute_force_meets_429_per_address_and_per_name(tmp_path: Path) -> None:
    app = make_app(sqlite_url(tmp_path), sign_in_rate=5)
    with TestClient(app) as client:
        sign_up(client, "Anna")
        answers = [client.post("/api/session", json={"name": "Anna", "password": f"guess{i}"})
                   .status_code for i in range(7)]
        assert answers[:5] == [401] * 5 and answers[5:] == [429, 429]
        # the right password too: the limit is on attempts, not on failures
        assert client.post("/api/session", json={"name": "Anna", "password": PASSWORD}
                           ).status_code == 429

    async def from_addresses() -> list[int]:  # one name guessed from many addresses
        found = []
        for i in range(12):
            try:
                await app.state.accounts.sign_in("Anna", f"guess{i}", f"10.0.0.{i}", None)
            except Exception as exc:  # ApiError
                found.append(getattr(exc, "status", 0))
        return found

    import asyncio
    statuses = asyncio.run(from_addresses())
    assert 429 in statuses and statuses.index(429) <= 10  # 10 a quarter hour per name


def test_a_new_session_at_every_sign_in_so_a_planted_cookie_is_worthless(
        client: TestClient) -> None:
    victim = Browser(client)
    sign_up(victim, "Anna")
    victim.delete("/api/session", headers=csrf(victim.get("/api/session").json()))
    planted = "attacker-chosen-session-secret"
    victim.cookies.set(COOKIE, planted, domain="testserver.local")
    r = victim.post("/api/session", json={"name": "Anna", "password": PASSWORD})
    assert r.status_code == 200
    assert victim.cookies[COOKIE] != planted
    attacker = Browser(client)
    attacker.cookies.set(COOKIE, planted, domain="testserver.local")
    assert attacker.get("/api/session").status_code == 401
    other = Browser(client)  # and a known old session ends when it is replaced
    sign_up(other, "Bert")
    old = other.cookies[COOKIE]
    other.post("/api/session", json={"name": "Bert", "password": PASSWORD})
    assert other.cookies[COOKIE] != old
    other.cookies.set(COOKIE, old, domain="testserver.local")
    assert other.get("/api/session").status_code == 401


def _writes(app: FastAPI) -> list[tuple[str, str]]:
    """Every write of the API but signing up and in (a password, not the cookie, is what
    they go by; they check the Origin instead)."""
    schema = app.openapi()
    return [(method.upper(), path) for path, item in schema["paths"].items()
            for method in item if method in ("post", "put", "patch", "delete")
            and (method.upper(), path) not in NO_TOKEN]


def test_every_cookie_authenticated_write_without_the_csrf_token_is_refused(
        app: FastAPI, client: TestClient) -> None:
    me = sign_up(client, "Anna")
    created = create_as(client, me, ["human", "human"], open_seats=True)
    game = created["game_id"]
    writes = _writes(app)
    assert len(writes) >= 9  # games: create, join, act, claim; the account's five
    for method, path in writes:
        url = path.replace("{game_id}", game).replace("{seat}", "0")
        for header in ({}, {CSRF_HEADER: "0" * 64}):
            r = client.request(method, url, json={}, headers=header)
            assert r.status_code == 403, (method, path, r.text)
            assert r.json()["error"]["code"] == "csrf_failed"
    # nothing changed: still signed in, the seats free, the account as it was
    assert client.get("/api/session").json() == client.get("/api/session").json()
    assert client.get("/api/session").json()["name"] == "Anna"
    assert not any(s["joined"] for s in client.get(f"/api/games/{game}").json()["seats"])
    # with the token the same session writes
    r = client.post(f"/api/games/{game}/seats/0/join", json={}, headers=csrf(me))
    assert r.status_code == 200


def test_signing_in_from_another_sites_page_is_refused(client: TestClient) -> None:
    sign_up(client, "Anna")
    r = client.post("/api/session", json={"name": "Anna", "password": PASSWORD},
                    headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf_failed"
    r = client.post("/api/session", json={"name": "Anna", "password": PASSWORD},
                    headers={"Origin": "http://testserver"})
    assert r.status_code == 200


def test_sign_out_and_sign_out_everywhere(app: FastAPI, client: TestClient) -> None:
    phone, laptop, tablet = Browser(client), Browser(client), Browser(client)
    me = sign_up(phone, "Anna")
    for device in (laptop, tablet):
        assert device.post("/api/session", json={"name": "Anna", "password": PASSWORD}
                           ).status_code == 200
    assert tablet.delete("/api/session", headers=csrf(
        tablet.get("/api/session").json())).status_code == 204
    assert tablet.get("/api/session").status_code == 401
    assert phone.get("/api/session").status_code == 200  # one device signed out
    assert phone.delete("/api/sessions", headers=csrf(me)).status_code == 204
    assert phone.get("/api/session").status_code == 401
    assert laptop.get("/api/session").status_code == 401
    assert len(stored(app, sessions)) == 0


def test_changing_the_password_ends_every_other_session(client: TestClient) -> None:
    phone, laptop = Browser(client), Browser(client)
    me = sign_up(phone, "Anna")
    laptop.post("/api/session", json={"name": "Anna", "password": PASSWORD})
    r = phone.put("/api/account/password", headers=csrf(me),
                  json={"password": "wrong password", "new_password": "new secret words"})
    assert r.status_code == 403 and laptop.get("/api/session").status_code == 200
    old_cookie = phone.cookies[COOKIE]
    r = phone.put("/api/account/password", headers=csrf(me),
                  json={"password": PASSWORD, "new_password": "new secret words"})
    assert r.status_code == 200 and phone.cookies[COOKIE] != old_cookie
    assert phone.get("/api/session").status_code == 200
    assert laptop.get("/api/session").status_code == 401
    assert client.post("/api/session", json={"name": "Anna", "password": PASSWORD}
                       ).status_code == 401
    assert client.post("/api/session", json={"name": "Anna", "password": "new secret words"}
                       ).status_code == 200


def test_a_deleted_account_leaves_its_games_to_a_deleted_player_and_frees_its_name(
        app: FastAPI, client: TestClient) -> None:
    me = sign_up(client, "Anna")
    created = create_as(client, me, ["human", "greedy"])
    r = client.post(f"/api/games/{created['game_id']}/seats/0/join", headers=csrf(me),
                    json={"code": join_code(created["join"][0])})
    assert r.status_code == 200
    assert client.get(f"/api/games/{created['game_id']}").json()["seats"][0]["player"] == "Anna"
    r = client.request("DELETE", "/api/account", json={"password": "wrong password"},
                       headers=csrf(me))
    assert r.status_code == 403
    r = client.request("DELETE", "/api/account", json={"password": PASSWORD},
                       headers=csrf(me))
    assert r.status_code == 204
    assert client.get("/api/session").status_code == 401
    summary = client.get(f"/api/games/{created['game_id']}").json()
    assert summary["seats"][0]["player"] == DELETED_NAME
    [row] = stored(app, accounts)
    assert row.password is None and row.name == DELETED_NAME and row.deleted is not None
    assert len(stored(app, game_players)) == 1  # the game still counts the seat as played
    sign_up(client, "anna")  # the name is free again


def test_a_signed_in_player_plays_their_seat_by_the_session_and_no_other(
        client: TestClient) -> None:
    anna, bert = Browser(client), Browser(client)
    a, b = sign_up(anna, "Anna"), sign_up(bert, "Bert")
    created = create_as(anna, a, ["human", "human"], quick=True, seed=3)
    game = created["game_id"]
    for player, me, link in ((anna, a, created["join"][0]), (bert, b, created["join"][1])):
        r = player.post(f"/api/games/{game}/seats/{link['seat']}/join", headers=csrf(me),
                        json={"code": join_code(link)})
        assert r.status_code == 200
    # no token: the session stands for the seat (a new device of the same player)
    view = anna.get(f"/api/games/{game}/view").json()
    assert view["seat"] == 0
    assert bert.get(f"/api/games/{game}/view").json()["seat"] == 1
    mover, waiter = (anna, bert) if view["to_move"] == 0 else (bert, anna)
    mover_csrf = csrf(a if mover is anna else b)
    waiter_csrf = csrf(b if mover is anna else a)
    # the waiting player cannot decide for the other seat: their session is their seat
    r = waiter.post(f"/api/games/{game}/actions", headers=waiter_csrf,
                    json={"index": 0, "version": view["version"]})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_your_turn"
    r = waiter.post(f"/api/games/{game}/seats/{view['to_move']}/join", headers=waiter_csrf,
                    json={"code": "guess"})
    assert r.status_code in (403, 409)
    r = mover.post(f"/api/games/{game}/actions", headers=mover_csrf,
                   json={"index": 0, "version": view["version"]})
    assert r.status_code == 200 and r.json()["version"] == view["version"] + 1
    carol = Browser(client)  # signed in but at no seat of this game
    c = sign_up(carol, "Carol")
    r = carol.post(f"/api/games/{game}/actions", headers=csrf(c), json={"index": 0})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_a_player"


def test_the_websocket_of_a_signed_in_player_is_their_seat(tmp_path: Path) -> None:
    # Any host allowed: the Host/Origin check of security.py lets every page through, so
    # the session's own Origin check is what keeps another site's page off the seat.
    app = make_app(sqlite_url(tmp_path), allowed_hosts=("*",))
    with TestClient(app) as anna:
        a = sign_up(anna, "Anna")
        created = create_as(anna, a, ["human", "greedy"], quick=True)
        game = created["game_id"]
        anna.post(f"/api/games/{game}/seats/0/join", headers=csrf(a),
                  json={"code": join_code(created["join"][0])})
        with anna.websocket_connect(f"/ws/games/{game}",
                                    headers={"Origin": "http://testserver"}) as ws:
            assert ws.receive_json()["view"]["seat"] == 0
        with anna.websocket_connect(f"/ws/games/{game}",
                                    headers={"Origin": "http://evil.example"}) as ws:
            assert ws.receive_json()["view"]["seat"] is None  # a spectator's view


def test_rated_games_seat_only_signed_in_players(client: TestClient) -> None:
    guest = Browser(client)
    r = guest.post("/api/games", json={"seats": ["human", "greedy"], "rated": True,
                                       "seed": 5})
    assert r.status_code == 400
    created = create(guest, ["human", "greedy"], rated=True)
    assert created and guest.get(f"/api/games/{created['game_id']}").json()["rated"]
    r = guest.post(f"/api/games/{created['game_id']}/seats/0/join",
                   json={"code": join_code(created["join"][0])})
    assert r.status_code == 401 and r.json()["error"]["code"] == "sign_in_required"
    assert r.headers["www-authenticate"].startswith("Session ")
    me = sign_up(guest, "Anna")
    r = guest.post(f"/api/games/{created['game_id']}/seats/0/join", headers=csrf(me),
                   json={"code": join_code(created["join"][0])})
    assert r.status_code == 200
    summary = guest.get(f"/api/games/{created['game_id']}").json()
    assert summary["seats"][0]["player"] == "Anna" and summary["hints"] is False


def test_open_seats_are_taken_by_signed_in_players_without_a_code(
        client: TestClient) -> None:
    host, anna = Browser(client), Browser(client)
    created = create(host, ["human", "human", "greedy"], open_seats=True)
    game = created["game_id"]
    assert host.post(f"/api/games/{game}/seats/1/join", json={}).status_code == 403
    a = sign_up(anna, "Anna")
    r = anna.post(f"/api/games/{game}/seats/1/join", headers=csrf(a), json={})
    assert r.status_code == 200 and r.json()["token"]
    r = anna.post(f"/api/games/{game}/seats/0/join", headers=csrf(a), json={})
    assert r.status_code == 409 and r.json()["error"]["code"] == "already_seated"
    closed = create(host, ["human", "greedy"])
    r = anna.post(f"/api/games/{closed['game_id']}/seats/0/join", headers=csrf(a),
                  json={})
    assert r.status_code == 403


def test_a_guest_who_signs_up_claims_the_seat_they_play(app: FastAPI,
                                                         client: TestClient) -> None:
    guest = Browser(client)
    created = create(guest, ["human", "greedy"], quick=True)
    game = created["game_id"]
    token = guest.post(f"/api/games/{game}/seats/0/join",
                       json={"code": join_code(created["join"][0])}).json()["token"]
    me = sign_up(guest, "Anna")
    # someone else's token cannot be claimed, nor a seat with a token not its own
    r = guest.post(f"/api/games/{game}/seats/1/claim", headers={**csrf(me), **auth(token)})
    assert r.status_code == 403
    r = guest.post(f"/api/games/{game}/seats/0/claim", headers={**csrf(me), **auth(token)})
    assert r.status_code == 204
    assert guest.get(f"/api/games/{game}").json()["seats"][0]["player"] == "Anna"
    assert [(p.game_id, p.seat) for p in stored(app, game_players)] == [(game, 0)]
    # the token still plays, and so does the session
    assert guest.get(f"/api/games/{game}/view", headers=auth(token)).json()["seat"] == 0
    guest.cookies = httpx.Cookies()
    guest.post("/api/session", json={"name": "Anna", "password": PASSWORD})
    assert guest.get(f"/api/games/{game}/view").json()["seat"] == 0


def test_no_password_or_session_secret_in_any_answer_or_log_line(app: FastAPI) -> None:
    secret_words = "very-secret-passphrase-42"
    with watch_log() as log, TestClient(app) as client:
        import logging
        log.setLevel(logging.DEBUG)
        for name in ("kaladan", "kaladan.server", "uvicorn.access"):
            logging.getLogger(name).setLevel(logging.DEBUG)
        answers = []
        r = client.post("/api/accounts", json={"name": "Anna", "password": secret_words})
        answers.append(r.text)
        me = r.json()
        secret = client.cookies[COOKIE]
        answers.append(client.get("/api/session").text)
        answers.append(client.post("/api/session", json={"name": "Anna",
                                                         "password": "wrong " + secret_words}).text)
        answers.append(client.put("/api/account/password", headers=csrf(me),
                                  json={"password": secret_words,
                                        "new_password": secret_words + "!"}).text)
        answers.append(client.get("/api/players/Anna").text)
        r = client.post("/api/accounts", json={"name": "Bert", "password": "x"})
        answers.append(r.text)  # a refused password is not echoed either
        lines = [record.getMessage() for record in log.records]
    for text in answers + lines:
        assert secret_words not in text and secret not in text
        assert "argon2" not in text


def test_accounts_on_postgres(postgres_db: str) -> None:
    app = make_app(postgres_db)
    with TestClient(app) as client:
        anna, other = Browser(client), Browser(client)
        a = sign_up(anna, "Anna")
        assert other.post("/api/accounts", json={"name": "anna", "password": PASSWORD}
                          ).status_code == 409
        created = create_as(anna, a, ["human", "greedy"], rated=True)
        r = anna.post(f"/api/games/{created['game_id']}/seats/0/join", headers=csrf(a),
                      json={"code": join_code(created["join"][0])})
        assert r.status_code == 200
        assert anna.get(f"/api/games/{created['game_id']}/view").json()["seat"] == 0
        assert anna.delete("/api/sessions", headers=csrf(a)).status_code == 204
        assert anna.get("/api/session").status_code == 401
