"""Hidden information over whole games played through the WebSocket (R5.13, R16.5, R23.5).

Two human seats play random legal decisions against each other (and bots); every message any
socket received is then checked against the true state at that message's version: no card of
another (non-allied) seat's hand, realm pool or buyable cards or still face down in a battle
(unless an entry has revealed it), no card still in the event deck, no seed, no token or join
code. Every log entry received is the form the seat may read of the engine's entry at its index:
another team's starting card, face-down battle card or traded card reads as no card. The
spectator sees no card of any hand or pool.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Any

import httpx
import pytest
from live_support import LiveServer
from server_support import join_all
from ws_support import Socket, run_async

from kaladan.game import Game
from kaladan.rules.catalog import MAGIC_CARDS
from kaladan.rules.config import Config
from kaladan.rules.gamelog import visible
from kaladan.rules.observe import observe
from kaladan.rules.state import GameState

MAGIC = frozenset(card.id for card in MAGIC_CARDS)
CARD_ID = re.compile(r"[A-Z]{3}-\d")
# Entry kinds that name a card only its team may know (R5.7, R16.5, R11.12-R11.14, R18.6); any
# other kind names a card only once it is shown to all.
PRIVATE_KINDS = {"starting_card_taken": ("card",), "card_committed": ("card",),
                 "card_traded": ("given", "taken"), "cards_offered": ("cards",)}


def hidden_cards(state: GameState, viewer: int | None) -> set[str]:
    """Cards ``viewer`` (None: a spectator) must not see in ``state``: other teams' hands,
    pools and buyable cards and their battle cards still face down."""
    battle = observe(state, None)["battle"]
    shown = set(battle["cards"].values()) if battle else set()
    hidden: set[str] = set()
    for seat in range(state.n):
        if viewer is not None and state.team[seat] == state.team[viewer]:
            continue
        hidden |= set(state.hand[seat]) | set(state.pool[seat]) | set(state.buyable[seat])
        if state.battle is not None and seat in state.battle.cards:
            hidden.add(state.battle.cards[seat])
    if viewer is not None:  # what the viewer and its allies hold, it may name
        for seat in range(state.n):
            if state.team[seat] == state.team[viewer]:
                hidden -= set(state.hand[seat]) | set(state.pool[seat]) | set(
                    state.buyable[seat])
    return hidden - shown


def named_in_public(game: Game, count: int) -> set[str]:
    """Magic cards named by the first ``count`` entries of kinds that show a card to all
    (a card revealed, spent, returned, or killing, saving or placing a unit)."""
    named: set[str] = set()
    for entry in game.entries[:count]:
        if entry.KIND not in PRIVATE_KINDS:
            named |= set(CARD_ID.findall(json.dumps(entry.to_json()))) & MAGIC
    return named


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


def entry_versions(game: Game) -> list[int]:
    bounds = [*game.entry_starts, len(game.entries)]
    out = [0] * bounds[0]
    for k in range(len(game.entry_starts)):
        out += [k + 1] * (bounds[k + 1] - bounds[k])
    return out


def published(game: Game, version: int) -> int:
    """How many entries the game had at ``version``."""
    return game.entry_starts[version] if version < len(game.steps) else len(game.entries)


def check_log_entry(game: Game, viewer: int | None, item: dict[str, Any],
                    versions: list[int]) -> None:
    """A received entry is the form ``viewer`` may read of the engine's entry at its index;
    another team's private kinds carry no card."""
    index = item["index"]
    entry = game.entries[index]
    forms = visible([entry], game.state.team, viewer)
    assert forms, f"seat {viewer} got entry {index} ({entry.KIND}), hidden from it"
    expected = {**forms[0].to_json(), "index": index, "version": versions[index]}
    assert item == expected
    fields = PRIVATE_KINDS.get(item["kind"])
    team = item.get("team")
    if fields and (viewer is None or team != game.state.team[viewer]):
        for name in fields:
            assert not item[name], f"seat {viewer} read {name} of entry {index}: {item}"
        if item["kind"] == "cards_offered":
            raise AssertionError(f"seat {viewer} got another team's offered cards {item}")


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
        choice = rng.randrange(view["legal_count"])
        acted = view["version"]
        decisions += 1
        await socks[view["seat"]].send({"type": "action", "index": choice,
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
        # No chosen seed: the server draws it, and then it must never be sent.
        r = http.post("/api/games", json={"mode": mode, "seats": seats, "options": options})
        assert r.status_code == 201
        created = r.json()
        codes = [link["url"].split("code=")[1] for link in created["join"]]
        tokens = join_all(http, created)
    game_id = created["game_id"]
    socks, decisions = run_async(play(live_server, game_id, tokens,
                                        random.Random(len(seats))))
    live = live_server.app.state.service.games[game_id]
    game = live.game
    assert game.is_over and decisions > 20
    states = states_by_version(game)
    versions = entry_versions(game)
    secrets_ = [str(game.seed), *tokens.values(), *codes]
    checked = 0
    private_seen = 0  # entries of another team's private kind this seat received
    for viewer, sock in socks.items():
        assert sock.raw, f"seat {viewer} got no message"
        received: list[int] = []
        for raw, message in zip(sock.raw, sock.messages, strict=True):
            if message["type"] != "view":
                continue
            view = message["view"]
            version = view["version"]
            state = states[version]
            for secret in secrets_:
                assert secret not in raw
            known = named_in_public(game, published(game, version))
            for card in hidden_cards(state, viewer) - known:
                assert card not in raw, f"seat {viewer} saw {card} at version {version}"
            for card in undrawn(state):
                assert card not in raw, f"seat {viewer} saw deck card {card}"
            for item in view["log"]:
                assert item["version"] <= version
                check_log_entry(game, viewer, item, versions)
                kind = item["kind"]
                if kind in PRIVATE_KINDS and viewer is not None and item.get(
                        "team") != game.state.team[viewer]:
                    private_seen += 1
            received += [item["index"] for item in view["log"]]
            checked += 1
        # one connection: the whole log first, then each entry once, in order, none missing
        assert received == sorted(set(received))
        assert received == [i for i, e in enumerate(game.entries)
                            if visible([e], game.state.team, viewer)][-len(received):]
        assert received[0] == 0 or len(sock.messages[0]["view"]["log"]) == 500
        views = [m["view"] for m in sock.messages if m["type"] == "view"]
        assert views[-1]["result"] is not None
        if viewer is None:
            assert all("hand" not in p for v in views for p in v["observation"]["players"])
    assert checked > 3 * decisions // 2
    assert private_seen  # the starting cards at least (R5.7), chosen or drawn


def test_starting_cards_are_named_to_their_seat_only(live_server: LiveServer) -> None:
    """The setup's card choices (R5.7) read as a card chosen face down to the other seat and
    the spectator, and name the card to the seat that chose it."""
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
            r = http.post(f"/api/games/{game_id}/actions",
                          json={"index": 0, "version": view["version"]},
                          headers={"Authorization": f"Bearer {tokens[seat]}"})
            assert r.status_code == 200
            if action["kind"] != "card":
                continue
            card = action["text"].split()[1]
            mine = r.json()
            assert mine["log_since"] == view["version"]  # the entries of this decision
            [taken] = [e for e in mine["log"] if e["kind"] == "starting_card_taken"]
            assert taken["card"] == card
            assert taken["version"] == view["version"] + 1
            other = http.get(f"/api/games/{game_id}/view",
                             headers={"Authorization": f"Bearer {tokens[1 - seat]}"}).json()
            public = http.get(f"/api/games/{game_id}/view").json()
            for log in (other["log"], public["log"]):
                [theirs] = [e for e in log if e["index"] == taken["index"]]
                assert theirs["kind"] == "starting_card_taken" and theirs["card"] is None
                assert card not in json.dumps(theirs)
            hidden_seen += 1
    assert hidden_seen == 2


def test_the_spectators_observation_drops_every_private_field() -> None:
    game = Game.new(Config(players=3, quick_setup=True), 3)
    obs: dict[str, Any] = observe(game.state, None)
    assert obs["seat"] is None
    for player in obs["players"]:
        assert not {"hand", "pool", "buyable"} & set(player)
        assert player["hand_count"] == 1  # counts stay public (R5.13)
    for seat in range(3):
        assert game.state.hand[seat][0] not in str(obs)
