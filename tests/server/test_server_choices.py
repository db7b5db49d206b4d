"""The compact form of a view's legal actions (docs/api.md "Legal actions"): listed actions
and groups of moves and swaps per pair of tiles give exactly the engine's legal list, over
many random states of every mode; composed actions are accepted; the whole list comes on
request, to the seat to decide only."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from live_support import live_game
from server_support import auth, create, join_all, wait_for_humans

from kaladan.rules.actions import Action
from kaladan.rules.kinds import format_action, parse_action
from kaladan.rules.legal import legal_actions
from kaladan.rules.state import Decision, GameState
from kaladan.server import choices
from kaladan.server.choices import (
    expand_listed,
    expand_moves,
    expand_swaps,
    move_units,
    sub_multisets,
)
from kaladan.server.views import action_json, build_view


def actions_of(texts: list[str], state: GameState) -> list[Action]:
    return [parse_action(text, state) for text in texts]


def groups(view: dict[str, Any]) -> list[tuple[str, int, int, list[str], set[str]]]:
    """The view's moves (per destination) and swaps as (kind, first index, count, the texts
    the form stands for, the tiles)."""
    out = []
    board = view["observation"]["board"]
    for moves in view["moves"]:
        for to, texts in zip(moves["to"], expand_moves(moves, board), strict=True):
            tile, _, index, count = to
            out.append(("move", index, count, texts, {moves["from"], tile}))
    for swaps in view["swaps"]:
        for shape, texts in zip(swaps["shapes"], expand_swaps(swaps, view["moves"], board),
                                strict=True):
            out.append(("swap", shape[4], shape[5], texts, set(swaps["tiles"])))
    return out


def check_view(view: dict[str, Any], state: GameState) -> int:
    """The view's listed actions, moves and swaps are the engine's legal list, index for
    index; returns how many actions its moves and swaps stand for."""
    legal = legal_actions(state)
    assert view["legal_count"] == len(legal)
    covered: list[int] = []
    for compact in view["legal"]:
        entry = expand_listed(compact)
        assert compact == choices.compact(entry)  # nothing left out that is not implied
        action = legal[entry["index"]]
        assert entry == action_json(entry["index"], action, state)  # memoised alike
        assert entry["text"] == format_action(action, state)
        assert entry["kind"] == action.kind
        assert parse_action(entry["text"], state) == action
        covered.append(entry["index"])
    grouped = 0
    for kind, first, count, texts, tiles in groups(view):
        block = [legal[i] for i in range(first, first + count)]
        composed = actions_of(texts, state)
        # every composable action is legal, every legal action of the block is composable,
        # each exactly once (R10.2-R10.8, R12.1)
        assert len(composed) == count == len(set(composed))
        assert set(composed) == set(block)
        named = {state.world.index(t) for t in tiles}
        assert all(x.kind == kind and {x.tile, x.tile2} == named for x in block)
        covered += range(first, first + count)
        grouped += count
    assert sorted(covered) == list(range(len(legal)))
    return grouped


@pytest.mark.parametrize(("players", "mode", "seed"), [
    (2, "free_for_all", 1), (3, "free_for_all", 2), (4, "team_2v2", 3), (6, "team_3v3", 4),
    (5, "free_for_all", 5), (2, "free_for_all", 8)])
def test_groups_and_listed_actions_are_the_engines_legal_list(players: int, mode: str,
                                                               seed: int) -> None:
    live = live_game(players, seed, quick=seed % 2 == 0, mode=mode)
    game = live.game
    rng = random.Random(seed)
    grouped = kinds = 0
    seen: set[str] = set()
    grouping: set[Decision] = set()
    for _ in range(500):
        if game.is_over:
            break
        state = game.state
        view = build_view(live, state.pending.seat)
        assert view["your_turn"]
        grouped += check_view(view, state)
        kinds += len(view["moves"]) + len(view["swaps"])
        seen |= {g[0] for g in groups(view)}
        if view["moves"] or view["swaps"]:
            grouping.add(state.pending.kind)
        # the other seats get no actions at all
        other = (state.pending.seat + 1) % players
        others = build_view(live, other)
        assert others["legal"] == others["moves"] == others["swaps"] == []
        legal = legal_actions(state)
        game.play(legal[rng.randrange(len(legal))], state.pending.seat)
        live.publish()
    assert grouped > 1000 and kinds > 100
    assert seen == {"move", "swap"}
    assert {Decision.ACTION, Decision.REINFORCE} <= grouping  # blocks of both phases


def test_sub_multisets_are_distinct_and_sized() -> None:
    units = ["0/sword", "0/sword", "0/archer"]
    assert sub_multisets(units, 1, 2) == [("0/archer",), ("0/archer", "0/sword"), ("0/sword",),
                                          ("0/sword", "0/sword")]
    assert sub_multisets(units, 3, 3) == [("0/archer", "0/sword", "0/sword")]


def random_composition(view: dict[str, Any], rng: random.Random) -> str:
    """An action made up as a page makes it: some units of a source tile to one of its
    destinations, or some units each way between a pair of tiles (named either way round),
    in any order."""
    board = view["observation"]["board"]
    if any(m["to"] for m in view["moves"]) and (not view["swaps"] or rng.random() < 0.7):
        moves = rng.choice([m for m in view["moves"] if m["to"]])
        tile, most, _, _ = rng.choice(moves["to"])
        units = rng.sample(move_units(moves, board), rng.randint(1, most))
        return f"move {moves['from']} {tile} {','.join(units)}"
    swaps = rng.choice(view["swaps"])
    low, high, low2, high2, _, _ = rng.choice(swaps["shapes"])
    a, b = swaps["tiles"]
    units = {m["from"]: move_units(m, board) for m in view["moves"]}
    first, second = rng.choice([(x, y) for x in sub_multisets(units[a], low, high)
                                for y in sub_multisets(units[b], low2, high2)
                                if x != y])
    if rng.random() < 0.5:
        return f"swap {b} {a} {','.join(second)} {','.join(first)}"
    return f"swap {a} {b} {','.join(first)} {','.join(second)}"


SEED = 3  # a game long enough for many compositions


def test_composed_actions_are_accepted_and_the_whole_list_comes_on_request(
        client: TestClient) -> None:
    created = create(client, ["human", "human"], quick=True, seed=SEED)
    tokens = join_all(client, created)
    game_id = created["game_id"]
    rng = random.Random(7)
    composed = 0
    for _ in range(150):
        view = wait_for_humans(client, game_id, tokens)
        if view["result"] is not None:
            break
        seat = view["seat"]
        whole = client.get(f"/api/games/{game_id}/legal", headers=auth(tokens[seat])).json()
        assert whole["version"] == view["version"]
        assert len(whole["legal"]) == view["legal_count"]
        assert [e["index"] for e in whole["legal"]] == list(range(view["legal_count"]))
        listed = {e["index"]: expand_listed(e) for e in view["legal"]}
        assert all(whole["legal"][i] == e for i, e in listed.items())
        for kind, first, count, _, _ in groups(view):
            texts = [e["text"] for e in whole["legal"][first:first + count]]
            assert len(texts) == count and all(t.split()[0] == kind for t in texts)
        other = client.get(f"/api/games/{game_id}/legal", headers=auth(tokens[1 - seat]))
        assert other.status_code == 200 and other.json()["legal"] == []
        if (view["moves"] or view["swaps"]) and rng.random() < 0.7:
            body: dict[str, Any] = {"action": random_composition(view, rng)}
            composed += 1
        else:
            body = {"index": rng.randrange(view["legal_count"])}
        r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                        json={**body, "version": view["version"]})
        assert r.status_code == 200, (body, r.text)
    assert composed > 20
    refused = client.get(f"/api/games/{game_id}/legal")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "missing_token"
    assert client.get("/api/games/g_nothing/legal",
                      headers=auth(tokens[0])).status_code == 404
