"""Hidden information over whole games played through the WebSocket (R5.13, R16.5, R23.5).

Two human seats play random legal decisions against each other (and bots); every message any
socket received is then checked against the true state at that message's version: no card of
another (non-allied) seat's hand, realm pool or buyable cards, no card still in the event deck,
no seed, no token or join code. The spectator sees no card of any hand or pool.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest
from live_support import LiveServer
from server_support import join_all
from ws_support import Socket, run_async

from kaladan.game import Game
from kaladan.rules.state import GameState
from kaladan.server.views import public_observation

SEED = 7_364_512_908_117_433_221  # long enough never to appear by accident


def hidden_cards(state: GameState, viewer: int | None) -> set[str]:
    """Cards ``viewer`` (None: a spectator) must not see in ``state``."""
    battle = public_observation(state)["battle"]
    revealed = set(battle["cards"].values()) if battle else set()
    hidden: set[str] = set()
    for seat in range(state.n):
        if viewer is not None and state.team[seat] == state.team[viewer]:
            continue
        hidden |= set(state.hand[seat]) | set(state.pool[seat]) | set(state.buyable[seat])
    if viewer is not None:  # what the viewer and its allies hold, it may name
        for seat in range(state.n):
            if state.team[seat] == state.team[viewer]:
                hidden -= set(state.hand[seat]) | set(state.pool[seat]) | set(
                    state.buyable[seat])
    return hidden - revealed


def undrawn(state: GameState) -> set[str]:
    """Event cards only in the deck (the deck holds some cards twice: a drawn copy is
    public, R5.13)."""
    drawn = set(state.discard) | {state.last_event}
    if state.event is not None:
        drawn.add(state.event.card)
    return set(state.deck) - drawn


def states_by_version(game: Game) -> list[GameState]:
    replay = Game.new(game.config, game.seed)
    states = [replay.state]
    for step in game.steps:
        replay.play(step.action, step.seat)
        states.append(replay.state)
    return states


async def play(server: LiveServer, game_id: str, tokens: dict[int, str],
               rng: random.Random) -> tuple[dict[int | None, Socket], int]:
    socks: dict[int | None, Socket] = {
        seat: await Socket.open(f"{server.ws}/ws/games/{game_id}?token={token}")
        for seat, token in tokens.items()}
    socks[None] = await Socket.open(f"{server.ws}/ws/games/{game_id}")
    acted = -1
    decisions = 0
    while True:
        views = {s: socks[s].last_view() for s in tokens}
        over = any(v is not None and v["result"] is not None for v in views.values())
        if over:
            break
        turn = [v for v in views.values() if v and v["your_turn"] and v["version"] > acted]
        if not turn:
            await asyncio.sleep(0.002)
            continue
        view = turn[0]
        choice = rng.choice(view["legal"])
        acted = view["version"]
        decisions += 1
        await socks[view["seat"]].send({"type": "action", "index": choice["index"],
                                        "version": view["version"]})
        if decisions % 25 == 0:  # now and then a message that must be refused
            await socks[view["seat"]].send({"type": "action", "action": "magic XYZ-9"})
    await asyncio.sleep(0.05)
    for sock in socks.values():
        await sock.close()
    return socks, decisions


@pytest.mark.parametrize(("mode", "seats", "options"), [
    ("free_for_all", ["human", "human", "random"], {}),
    ("team_2v2", ["human", "human", "random", "random"], {}),
    ("free_for_all", ["human", "human"], {"starting_magic": "random"}),
])
def test_no_message_reveals_hidden_information(live_server: LiveServer, mode: str,
                                               seats: list[str],
                                               options: dict[str, str]) -> None:
    with httpx.Client(base_url=live_server.http) as http:
        r = http.post("/api/games", json={"mode": mode, "seats": seats, "seed": SEED,
                                          "options": options})
        assert r.status_code == 201
        created = r.json()
        codes = [link["url"].split("code=")[1] for link in created["join"]]
        tokens = join_all(http, created)
    game_id = created["game_id"]
    socks, decisions = run_async(play(live_server, game_id, tokens,
                                        random.Random(len(seats))))
    live = live_server.app.state.service.games[game_id]
    assert live.game.is_over and decisions > 20
    states = states_by_version(live.game)
    secrets_ = [str(SEED), *tokens.values(), *codes]
    checked = 0
    for viewer, sock in socks.items():
        assert sock.raw, f"seat {viewer} got no message"
        version = 0
        for raw, message in zip(sock.raw, sock.messages, strict=True):
            if message["type"] == "view":
                version = message["view"]["version"]
            state = states[version]
            for secret in secrets_:
                assert secret not in raw
            for card in hidden_cards(state, viewer):
                assert card not in raw, f"seat {viewer} saw {card} at version {version}"
            for card in undrawn(state):
                assert card not in raw, f"seat {viewer} saw deck card {card}"
            checked += 1
        views = [m["view"] for m in sock.messages if m["type"] == "view"]
        assert views[-1]["result"] is not None
        if viewer is None:
            assert all("hand" not in p for v in views for p in v["observation"]["players"])
    assert checked > 3 * decisions // 2
    seen = {e["version"]: e for m in socks[0].messages if m["type"] == "view"
            for e in m["view"]["log"]}
    teams = live.game.state.team
    others_private = [e for e in live.log if e.private and teams[e.seat] != teams[0]]
    if options.get("starting_magic") != "random":  # R5.7: chosen cards are private
        assert others_private
    for entry in others_private:
        if entry.version in seen:
            shown = seen[entry.version]
            assert shown["text"] != entry.text and shown["public"] is False


def test_private_decisions_show_as_committed_to_others(live_server: LiveServer) -> None:
    """The setup's card choices (R5.7) are hidden from the other seat and the spectator."""
    with httpx.Client(base_url=live_server.http) as http:
        r = http.post("/api/games", json={"seats": ["human", "human"], "seed": 5})
        created = r.json()
        tokens = join_all(http, created)
        game_id = created["game_id"]
        hidden_seen = 0
        for _ in range(40):  # play the setup by always choosing the first legal action
            spectator = http.get(f"/api/games/{game_id}/view").json()
            seat = spectator["to_move"]
            view = http.get(f"/api/games/{game_id}/view",
                            headers={"Authorization": f"Bearer {tokens[seat]}"}).json()
            action = view["legal"][0]
            r = http.post(f"/api/games/{game_id}/actions", json={"index": 0},
                          headers={"Authorization": f"Bearer {tokens[seat]}"})
            assert r.status_code == 200
            if action["kind"] == "card":
                mine = r.json()["log"][-1]
                assert mine["text"] == action["text"] and mine["public"] is False
                other = http.get(f"/api/games/{game_id}/view",
                                 headers={"Authorization": f"Bearer {tokens[1 - seat]}"})
                theirs = other.json()["log"][-1]
                assert theirs["text"] == "card (hidden)" and theirs["public"] is False
                public = http.get(f"/api/games/{game_id}/view").json()["log"][-1]
                assert public["text"] == "card (hidden)"
                hidden_seen += 1
    assert hidden_seen == 2


def test_public_observation_drops_every_private_field() -> None:
    from kaladan.rules.config import Config

    game = Game.new(Config(players=3, quick_setup=True), 3)
    obs: dict[str, Any] = public_observation(game.state)
    assert obs["seat"] is None
    for player in obs["players"]:
        assert not {"hand", "pool", "buyable"} & set(player)
        assert player["hand_count"] == 1  # counts stay public (R5.13)
    for seat in range(3):
        assert game.state.hand[seat][0] not in str(obs)
