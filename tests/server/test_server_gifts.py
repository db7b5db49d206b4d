"""Gifts of gold at any moment (R23.11, docs/rules-decisions.md decision 34): a team player
gives from its own connection while another seat holds the decision, over HTTP and the
WebSocket; the pending decision stays put, every view says what a seat may give, refused
gifts change nothing, and a rebuilt game holds the gifts in order."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from live_support import GENEROUS, LiveServer, sqlite_url
from server_support import auth, create, join_all, listed
from ws_support import Socket, run_async

from kaladan.game import Game, is_gift
from kaladan.server import create_app

# Four human seats, teams 0/2 and 1/3, quick setup: seat 3 decides first, every seat has gold.
TEAM_SEED = 1


def gold(view: dict[str, Any]) -> list[int]:
    return [p["gold"] for p in view["observation"]["players"]]


def non_gift(view: dict[str, Any]) -> list[str]:
    return [a["text"] for a in listed(view) if a["kind"] != "gift"]


def views(http: Any, game_id: str, tokens: dict[int, str]) -> dict[int | None, Any]:
    out: dict[int | None, Any] = {
        s: http.get(f"/api/games/{game_id}/view", headers=auth(t)).json()
        for s, t in tokens.items()}
    out[None] = http.get(f"/api/games/{game_id}/view").json()
    return out


def team_game(http: Any) -> tuple[str, dict[int, str], dict[int | None, Any]]:
    created = create(http, ["human"] * 4, mode="team_2v2", quick=True, seed=TEAM_SEED)
    tokens = join_all(http, created)
    before = views(http, created["game_id"], tokens)
    return created["game_id"], tokens, before


def error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()["error"]
    assert body["status"] == status
    return body


def test_views_say_what_each_seat_may_give(client: TestClient) -> None:
    game_id, tokens, before = team_game(client)
    to_move = before[None]["to_move"]
    for seat in range(4):
        view = before[seat]
        ally = (seat + 2) % 4  # R23.2: alternating seats
        assert view["gift"] == {"allies": [ally], "max": gold(view)[seat]}, seat
        gifts = [a["text"] for a in listed(view) if a["kind"] == "gift"]
        # Only the seat to decide has a legal list, gifts included; the others give by text.
        assert gifts == ([f"gift {ally} {n}" for n in range(1, gold(view)[seat] + 1)]
                         if seat == to_move else [])
    assert before[None]["gift"] is None  # spectators give nothing
    ffa = create(client, ["human", "human"], quick=True, seed=3)
    ffa_tokens = join_all(client, ffa)
    assert all(v["gift"] is None for v in views(client, ffa["game_id"], ffa_tokens).values())
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert "gift" in schema["View"]["properties"] and "GiftOffer" in schema


def test_a_gift_out_of_turn_is_applied_and_the_decision_stays(client: TestClient) -> None:
    game_id, tokens, before = team_game(client)
    to_move, version = before[None]["to_move"], before[None]["version"]
    giver = next(s for s in range(4) if s != to_move and gold(before[s])[s] >= 2)
    ally = (giver + 2) % 4
    r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[giver]),
                    json={"action": f"gift {ally} 2", "version": version})
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["version"] == version + 1 and view["to_move"] == to_move
    assert not view["your_turn"] and view["legal"] == []
    expected = gold(before[None])
    expected[giver] -= 2
    expected[ally] += 2
    assert gold(view) == expected
    assert view["log_since"] == version
    assert [(e["kind"], e["seat"], e["to"], e["amount"], e["version"]) for e in view["log"]] \
        == [("gold_given", giver, ally, 2, version + 1)]
    after = views(client, game_id, tokens)
    # The seat to decide still decides the same decision; only its view moved on.
    assert after[to_move]["your_turn"] and non_gift(after[to_move]) == non_gift(before[to_move])
    assert after[to_move]["observation"]["pending"] == before[to_move]["observation"]["pending"]
    assert all(gold(v) == expected for v in after.values())
    assert after[giver]["gift"] == (None if expected[giver] == 0 else
                                    {"allies": [ally], "max": expected[giver]})
    assert after[None]["log"][-1]["kind"] == "gold_given"
    steps = client.app.state.service.games[game_id].game.steps  # type: ignore[attr-defined]
    assert steps[-1].seat == giver and steps[-1].action == f"gift {ally} 2"
    # The other team gives too, in any spelling the engine reads.
    other = next(s for s in range(4) if s % 2 != giver % 2 and s != to_move
                 and expected[s] > 0)
    r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[other]),
                    json={"action": f"  GIFT {(other + 2) % 4} 1 "})
    assert r.status_code == 200, r.text
    assert r.json()["to_move"] == to_move and r.json()["version"] == version + 2


def test_out_of_turn_only_a_gift_by_text_and_refused_gifts_change_nothing(
        client: TestClient) -> None:
    game_id, tokens, before = team_game(client)
    path = f"/api/games/{game_id}/actions"
    to_move = before[None]["to_move"]
    waiter = (to_move + 1) % 4  # the other team
    own = gold(before[waiter])[waiter]
    assert own > 0
    # R6.5: anything but a gift out of turn; a gift by index neither (an index points into
    # the list of the seat to decide).
    for body in ({"action": "end"}, {"action": non_gift(before[to_move])[0]}):
        wrong = error(client.post(path, headers=auth(tokens[waiter]), json=body), 409)
        assert wrong["code"] == "not_your_turn" and wrong["rule"] == "R6.5"
    by_index = error(client.post(path, headers=auth(tokens[waiter]), json={"index": 0}), 409)
    assert by_index["code"] == "not_your_turn" and "as its text" in by_index["message"]
    assert by_index["input"] == 0
    # R23.11: to an opponent, above one's own gold, to oneself, to no seat.
    for text in (f"gift {to_move} 1", f"gift {(waiter + 2) % 4} {own + 1}",
                 f"gift {waiter} 1", "gift 9 1"):
        refused = error(client.post(path, headers=auth(tokens[waiter]),
                                    json={"action": text}), 422)
        assert refused["code"] == "illegal_action" and refused["rule"] == "R23.11", text
        assert refused["input"] == text
    # The seat to decide is refused the same way, and by index a gift beyond the list is 400.
    refused = error(client.post(path, headers=auth(tokens[to_move]),
                                json={"action": f"gift {waiter} 1"}), 422)
    assert refused["rule"] == "R23.11"
    error(client.post(path, headers=auth(tokens[waiter]), json={"action": "gift 2"}), 400)
    assert views(client, game_id, tokens) == before


def test_the_seat_to_decide_gives_by_index_and_keeps_the_decision(client: TestClient) -> None:
    game_id, tokens, before = team_game(client)
    to_move = before[None]["to_move"]
    view = before[to_move]
    gift = next(a for a in listed(view) if a["kind"] == "gift")
    r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[to_move]),
                    json={"index": gift["index"], "version": view["version"]})
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["your_turn"] and after["to_move"] == to_move
    assert non_gift(after) == non_gift(view)
    assert after["log"][-1]["kind"] == "gold_given" and after["log"][-1]["seat"] == to_move


def test_a_free_for_all_gift_is_refused(client: TestClient) -> None:
    created = create(client, ["human", "human"], quick=True, seed=3)
    tokens = join_all(client, created)
    before = views(client, created["game_id"], tokens)
    waiter = 1 - before[None]["to_move"]
    refused = error(client.post(f"/api/games/{created['game_id']}/actions",
                                headers=auth(tokens[waiter]), json={"action": "gift 0 1"}),
                    422)
    assert refused["rule"] == "R23.11"
    assert views(client, created["game_id"], tokens) == before


def test_gifts_out_of_turn_survive_a_restart(tmp_path: Path) -> None:
    """Gifts by seats that do not decide are stored with the giver's seat, in order; a new
    app rebuilds the same game (gold, version, log) and play goes on."""
    url = sqlite_url(tmp_path)
    rng = random.Random(5)
    with TestClient(create_app(url, GENEROUS, bot_delay=0, rate_limit=1e6)) as client:
        game_id, tokens, _ = team_game(client)
        gifts = 0
        for _ in range(40):
            spectator = client.get(f"/api/games/{game_id}/view").json()
            to_move = spectator["to_move"]
            for seat in rng.sample([s for s in range(4) if s != to_move], 3):
                offer = views(client, game_id, {seat: tokens[seat]})[seat]["gift"]
                if offer is not None and rng.random() < 0.5:
                    r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                                    json={"action": f"gift {offer['allies'][0]} "
                                          f"{rng.randint(1, offer['max'])}"})
                    assert r.status_code == 200, r.text
                    assert r.json()["to_move"] == to_move
                    gifts += 1
            view = client.get(f"/api/games/{game_id}/view", headers=auth(tokens[to_move])).json()
            choices = [a for a in listed(view) if a["kind"] != "gift"]
            r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[to_move]),
                            json={"index": rng.choice(choices)["index"]})
            assert r.status_code == 200, r.text
        before = views(client, game_id, tokens)
    assert gifts >= 5
    assert sum(e["kind"] == "gold_given" for e in before[None]["log"]) == gifts
    with TestClient(create_app(url, GENEROUS, bot_delay=0, rate_limit=1e6)) as client:
        after = views(client, game_id, tokens)
        assert after == before  # gold, version, log: the stored steps replayed
        steps = client.app.state.service.games[game_id].game.steps  # type: ignore[attr-defined]
        assert sum(s.action.startswith("gift ") for s in steps) == gifts
        to_move = after[None]["to_move"]
        giver = next((s for s in range(4) if s != to_move and after[s]["gift"]), None)
        if giver is not None:  # and gifts go on after the restart
            offer = after[giver]["gift"]
            r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[giver]),
                            json={"action": f"gift {offer['allies'][0]} 1"})
            assert r.status_code == 200 and r.json()["version"] == after[None]["version"] + 1


def test_gifts_over_the_websocket(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.http) as http:
        game_id, tokens, before = team_game(http)
    to_move, version = before[None]["to_move"], before[None]["version"]
    giver = next(s for s in range(4) if s != to_move and gold(before[s])[s] > 0)
    ally = (giver + 2) % 4

    async def scenario() -> None:
        socks = {s: await Socket.open(f"{live_server.ws}/ws/games/{game_id}?token={t}")
                 for s, t in tokens.items()}
        for sock in socks.values():
            await sock.wait_for(lambda m: m["type"] == "view")
        sock = socks[giver]
        for message, status, code in (
                ({"type": "action", "action": "end"}, 409, "not_your_turn"),
                ({"type": "action", "index": 0}, 409, "not_your_turn"),
                ({"type": "action", "action": f"gift {(giver + 1) % 4} 1"}, 422,
                 "illegal_action")):
            start = len(sock.messages)
            await sock.send(message)
            reply = await sock.wait_for(lambda m: m["type"] == "error", start)
            assert (reply["error"]["status"], reply["error"]["code"]) == (status, code)
        assert sock.last_view()["version"] == version  # type: ignore[index]
        await sock.send({"type": "action", "action": f"gift {ally} 1", "version": version})
        expected = gold(before[None])
        expected[giver] -= 1
        expected[ally] += 1
        for s, other in socks.items():  # every seat sees the gift; the decision stays
            view = (await other.wait_for(lambda m: m["type"] == "view"
                                         and m["view"]["version"] == version + 1))["view"]
            assert gold(view) == expected and view["to_move"] == to_move
            assert view["your_turn"] == (s == to_move)
            assert [e["kind"] for e in view["log"]] == ["gold_given"]
        for other in socks.values():
            await other.close()

    run_async(scenario())


def test_a_gift_waits_for_a_thinking_bot_and_the_bot_plays_on(tmp_path: Path) -> None:
    """Bots and gifts take turns on the game's lock: a gift made while a bot is to decide
    (with a visible pause) is applied, and the bot still makes its decision afterwards."""
    with TestClient(create_app(sqlite_url(tmp_path), GENEROUS,
                               bot_delay=0.05, rate_limit=1e6)) as client:
        created = create(client, ["human", "greedy", "human", "greedy"], mode="team_2v2",
                         quick=True, seed=TEAM_SEED)
        tokens = join_all(client, created)
        game_id = created["game_id"]
        live = client.app.state.service.games[game_id]  # type: ignore[attr-defined]
        given = 0
        deadline = time.monotonic() + 20
        while given < 3 and time.monotonic() < deadline:
            spectator = client.get(f"/api/games/{game_id}/view").json()
            to_move = spectator["to_move"]
            if to_move in tokens:  # a human decides: play on
                view = client.get(f"/api/games/{game_id}/view",
                                  headers=auth(tokens[to_move])).json()
                choice = next(a for a in listed(view) if a["kind"] != "gift")
                client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[to_move]),
                            json={"index": choice["index"]})
                continue
            for seat in tokens:  # a bot decides: the humans give meanwhile
                offer = views(client, game_id, {seat: tokens[seat]})[seat]["gift"]
                if offer is None:
                    continue
                r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                                json={"action": f"gift {offer['allies'][0]} 1"})
                assert r.status_code == 200, r.text
                given += 1
            time.sleep(0.01)
        assert given >= 3
        while live.bot_task is not None and not live.bot_task.done():
            assert time.monotonic() < deadline + 20, "the bots never finished"
            time.sleep(0.01)
        steps = list(live.game.steps)
    # Replay the stored order to see who held the decision at each gift.
    replay = Game.new(live.game.config, live.game.seed)
    while_bot: list[tuple[int, int]] = []  # (step, bot seat) of the gifts made meanwhile
    for i, step in enumerate(steps):
        if is_gift(step.action) and step.seat in tokens and replay.state.pending.seat in (1, 3):
            while_bot.append((i, replay.state.pending.seat))  # stored with the giver's seat
        replay.play(step.action, step.seat)
    assert while_bot, "no gift was made while a bot was to decide"
    for i, bot in while_bot:  # that bot still made its decision afterwards
        assert any(s.seat == bot and not is_gift(s.action) for s in steps[i + 1:]), i
