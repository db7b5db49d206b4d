"""The odds list with the seat's own cards (issue 40): ``GET .../odds`` gives each attack's
exact odds with every card of the asking seat's hand that it may play in that battle, the
same figures as ``odds.attack_card_odds``, and nothing that depends on a hidden hand (R5.13)."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient
from server_support import auth, create, join_all

from kaladan.bots.base import SeatView
from kaladan.bots.greedy import GreedyBot
from kaladan.game import Game
from kaladan.odds import attack_card_odds, odds_for_attack
from kaladan.rules.actions import ATTACK
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.state import Decision, GameState
from kaladan.server.views import hint_view

# A quick two-player game of this seed, greedy bots on both seats, reaches seat 0's Action
# phase with an attack and Golden Charge (KIM-2) in hand, the defender holding a card too.
SEED = 11


def with_cards(state: GameState) -> bool:
    return state.pending.seat == 0 and state.pending.kind == Decision.ACTION and any(
        attack_card_odds(state, a.tile, a.tile2) for a in legal_actions(state)
        if a.kind is ATTACK)


def scripted(seed: int) -> tuple[Game, list[tuple[int, str]]]:
    """The local game at the wanted decision and the (seat, text) steps that lead there."""
    game = Game.new(Config(players=2, quick_setup=True), seed)
    bot = GreedyBot()
    steps: list[tuple[int, str]] = []
    for step in range(300):
        state = game.state
        if with_cards(state):
            return game, steps
        seat = state.pending.seat
        legal = legal_actions(state)
        action = bot.choose(SeatView(state, seat), legal, random.Random(seed * 1000 + step))
        steps.append((seat, game.format(action)))
        game.play(action)
    raise AssertionError("no attack with a card")


def test_the_odds_list_gives_the_seats_own_cards_exactly(client: TestClient) -> None:
    game, steps = scripted(SEED)
    state = game.state
    assert state.hand[0] and state.hand[1]  # both hold a card; only seat 0's may show
    created = create(client, ["human", "human"], quick=True, seed=SEED)
    tokens = join_all(client, created)
    game_id = created["game_id"]
    for seat, text in steps:
        r = client.post(f"/api/games/{game_id}/actions", headers=auth(tokens[seat]),
                        json={"action": text})
        assert r.status_code == 200, r.text
    asked: dict[str, Any] = client.get(f"/api/games/{game_id}/odds",
                                       headers=auth(tokens[0])).json()
    shown = 0
    for action in legal_actions(state):
        if action.kind is not ATTACK:
            continue
        cards = asked["odds"][game.format(action)]["cards"]
        expected = attack_card_odds(state, action.tile, action.tile2)
        assert [c["card"] for c in cards] == [c.card for c in expected]
        for got, want in zip(cards, expected, strict=True):
            wins = want.odds.attacker_wins
            assert got["attacker_wins_exact"] == f"{wins.numerator}/{wins.denominator}"
            assert got["attacker_wins"] == float(wins)
            assert got["expected_attacker_losses"] == float(want.odds.expected_attacker_losses)
            assert got["expected_defender_losses"] == float(want.odds.expected_defender_losses)
            assert got["card"] in state.hand[0] and got["card"] not in state.hand[1]
            assert (got["choice"] is None) == (want.choice is None)
            shown += 1
    assert shown >= 1
    # The other seat does not decide: it is told nothing (and never about seat 0's hand).
    other = client.get(f"/api/games/{game_id}/odds", headers=auth(tokens[1])).json()
    assert other["odds"] == {} and other["by_index"] == {}
    # Without a seat token nobody is told anything.
    assert client.get(f"/api/games/{game_id}/odds").status_code == 401


def test_the_card_odds_read_no_hidden_hand() -> None:
    """R5.13: every state that looks the same to the attacker (the defender's hand and pool,
    the deck redrawn from its observation) gives the same odds with the same cards."""
    game, _ = scripted(SEED)
    state = game.state
    attacks = [a for a in legal_actions(state) if a.kind is ATTACK]
    shown = [attack_card_odds(state, a.tile, a.tile2) for a in attacks]
    for k in range(4):
        other = SeatView(state, 0).determinize(random.Random(k))
        assert [attack_card_odds(other, a.tile, a.tile2) for a in attacks] == shown


def test_a_hint_for_an_attack_gives_the_odds_list_entry_with_its_cards() -> None:
    """An advised attack carries the odds the odds list shows for it, the seat's own cards
    included (R16.5-R16.8): the same figures whichever way the player asks."""
    game, _ = scripted(SEED)
    state = game.state
    with_card = 0
    for action in legal_actions(state):
        if action.kind is not ATTACK:
            continue
        hinted = hint_view(state, 7, action, "expert")["odds"]
        plain = odds_for_attack(state, action.tile, action.tile2).attacker_wins
        assert hinted["attacker_wins_exact"] == f"{plain.numerator}/{plain.denominator}"
        want = [(c.card, f"{c.odds.attacker_wins.numerator}/{c.odds.attacker_wins.denominator}")
                for c in attack_card_odds(state, action.tile, action.tile2)]
        assert [(c["card"], c["attacker_wins_exact"]) for c in hinted["cards"]] == want
        with_card += bool(want)
    assert with_card >= 1  # the position has an attack with a card, so the check can fail
