"""R5.13 hidden information: what ``observe(state, seat)`` shows one seat, and what it never shows.

Public: the board, reserves, graveyards, gold, the number of cards in every hand and realm
pool, the event discard pile, spent magic cards. Hidden: other seats' hands and pools (and the
cards a killer may buy, R18.6), the order of the event deck.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from kaladan.bots.base import SeatView
from kaladan.rules import magic
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.combat import attack_pool, defence_pool
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.observe import observe
from kaladan.rules.setup import new_game
from kaladan.rules.state import Decision, GameState
from positions import build, game_at

MAGIC_ID = re.compile(r"\b[A-Z]{3}-\d+\b")
EVENT_ID = re.compile(r"\bE[VG]\d+\b")

VARIANTS: tuple[dict[str, str], ...] = (
    {}, {"starting_magic": "random"}, {"realm_conflict": "roll_off"},
    {"phase_order": "official"}, {"world": "random_terrain"}, {"end_game_card": "oracles"},
    {"end_game_card": "none"},
)


def random_states(players: int, options: dict[str, str], seed: int) -> Iterator[GameState]:
    state = new_game(Config(players=players, **options), seed)
    rng = random.Random(seed)
    while True:
        yield state
        if state.is_over:
            return
        legal = legal_actions(state)
        apply_unchecked(state, legal[rng.randrange(len(legal))])


def keys(data: Any) -> Iterator[str]:
    """Every key of nested dicts."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from keys(value)
    elif isinstance(data, list):
        for item in data:
            yield from keys(item)


def check_observation(state: GameState, seat: int) -> dict[str, Any]:
    obs = observe(state, seat)
    text = json.dumps(obs)  # JSON-serialisable
    assert json.loads(text) == obs
    assert obs["seat"] == seat
    # Own private cards are present.
    me = obs["players"][seat]
    assert me["hand"] == list(state.hand[seat])
    assert me["pool"] == list(state.pool[seat])
    assert me["buyable"] == list(state.buyable[seat])
    # Counts are public and right; other seats' contents are not given.
    assert len(obs["players"]) == state.n
    for p, player in enumerate(obs["players"]):
        assert player["hand_count"] == len(state.hand[p])
        assert player["pool_count"] == len(state.pool[p])
        assert player["buyable_count"] == len(state.buyable[p])
        assert player["gold"] == state.gold[p]
        if p != seat:
            assert not {"hand", "pool", "buyable"} & set(player), (p, sorted(player))
    # No magic card id of another seat's hand, pool or buyable cards, unless public (spent).
    public = set(state.spent) | set(state.discard)
    own = set(state.hand[seat]) | set(state.pool[seat]) | set(state.buyable[seat])
    hidden = set()
    for p in range(state.n):
        if p != seat:
            hidden |= set(state.hand[p]) | set(state.pool[p]) | set(state.buyable[p])
    battle_cards = set()
    if state.battle is not None:  # revealed in this battle (R16.5, R16.9): public
        battle_cards = {c for c in obs["battle"]["cards"].values() if c != "committed"}
        for p in state.battle.cards:
            selected_face_down = state.battle.step == "declare" and not (
                state.battle.ranged and p == state.battle.attacker)
            if p != seat and selected_face_down:
                assert obs["battle"]["cards"][str(p)] == "committed"
    hidden -= public | own | battle_cards
    shown = set(MAGIC_ID.findall(text))
    assert not shown & hidden, (seat, shown & hidden)
    assert shown <= own | public | battle_cards, (seat, shown - own - public)
    # The deck: only its size; no event card id beyond the discard pile and the card drawn.
    assert "deck" not in set(keys(obs))
    assert "end_card" not in set(keys(obs))
    assert obs["deck_count"] == len(state.deck)
    revealed = set(state.discard)
    if state.last_event is not None:
        revealed.add(state.last_event)
    if state.event is not None:
        revealed.add(state.event.card)
    assert set(EVENT_ID.findall(text)) <= revealed
    assert obs["discard"] == list(state.discard)
    # The bots' view is the same observation.
    assert SeatView(state, seat).observation == obs
    return obs


def test_observations_hide_hands_pools_and_deck_in_random_games() -> None:
    checked = 0
    saw_hand_elsewhere = saw_buyable = 0
    for seed in range(21):
        players = 2 + seed % 5
        options = VARIANTS[seed % len(VARIANTS)]
        for i, state in enumerate(random_states(players, options, seed)):
            if i % 4 and not state.is_over and state.pending.kind != Decision.EVENT:
                continue
            for seat in range(players):
                check_observation(state, seat)
                checked += 1
            saw_hand_elsewhere += any(state.hand[p] for p in range(1, players))
            saw_buyable += any(state.buyable)
    assert checked > 2000
    # The checks had something to hide: hands of other seats, cards a killer may buy.
    assert saw_hand_elsewhere and saw_buyable


def test_observation_of_the_pending_seat_in_every_decision_kind() -> None:
    kinds = set()
    for seed in range(10):
        for state in random_states(3, {}, 100 + seed):
            seat = state.pending.seat
            if seat >= 0:
                check_observation(state, seat)
            kinds.add(state.pending.kind)
    assert {Decision.REALM, Decision.START_CARD, Decision.CASTLE, Decision.START_UNIT,
            Decision.SPAWN, Decision.ACTION, Decision.PURCHASE, Decision.REINFORCE,
            Decision.NONE} <= kinds


def test_other_seats_cards_never_appear_even_by_count_only() -> None:
    state = build({"C1": "0/crown", "C2": "1/crown"}, hands=[["KHA-1", "KHA-2"], ["KIM-3"]],
                  homes=["C1", "C2"])
    obs = check_observation(state, 0)
    text = json.dumps(obs)
    assert "KIM-3" not in text and "KIM-1" not in text
    assert "KHA-1" in text and "KHA-3" in text  # own hand and own pool
    assert obs["players"][1]["hand_count"] == 1
    assert obs["players"][1]["pool_count"] == 4
    other = json.dumps(observe(state, 1))
    assert "KHA-" not in other
    assert "KIM-3" in other


def test_cards_a_killer_may_buy_are_shown_to_the_killer_only() -> None:
    # R18.6: the defeated player's cards are kept apart; only the killer may look at them.
    state = build({"C1": "0/crown", "T4": "0/general 0/sword", "T5": "1/crown",
                   "C3": "2/crown"}, players=3, gold=[4, 0, 0], homes=["C1", "C2", "C3"])
    game = game_at(state)
    a, d = state.world.index("T4"), state.world.index("T5")
    game.play("attack T4 T5", dice=attack_pool(state, a, d) + [1] * len(defence_pool(state, d)))
    assert game.state.eliminated[1]
    kimbria = set(magic.realm_cards(1))
    assert set(game.state.buyable[0]) == kimbria
    killer = check_observation(game.state, 0)
    assert set(killer["players"][0]["buyable"]) == kimbria
    bystander = json.dumps(check_observation(game.state, 2))
    assert not set(MAGIC_ID.findall(bystander)) & kimbria
    assert check_observation(game.state, 2)["players"][0]["buyable_count"] == 5


def test_deck_order_is_not_observable() -> None:
    # Two positions that differ only in the order of the deck look the same to every seat.
    deck = ["EV13", "EV14", "EV27", "EV01", "EG2"]
    a = build({"C1": "0/crown", "C2": "1/crown"}, deck=deck, homes=["C1", "C2"])
    b = build({"C1": "0/crown", "C2": "1/crown"}, deck=list(reversed(deck)),
              homes=["C1", "C2"])
    assert a.deck != b.deck
    for seat in (0, 1):
        assert observe(a, seat) == observe(b, seat)
        assert observe(a, seat)["deck_count"] == 5


def test_committed_battle_card_is_hidden_until_revealed(monkeypatch: pytest.MonkeyPatch) -> None:
    # R16.5: a card selected face down shows only as "committed" to the other side.
    effect = magic.CardEffect(lambda s, b, p: True)
    monkeypatch.setitem(magic.EFFECTS, "KHA-2", effect)
    monkeypatch.setitem(magic.EFFECTS, "KIM-3", effect)
    state = build({"C1": "0/crown", "T4": "0/general", "T5": "1/sword", "C2": "1/crown"},
                  hands=[["KHA-2"], ["KIM-3"]], homes=["C1", "C2"])
    game = game_at(state)
    game.play("attack T4 T5")
    game.play("magic KHA-2")
    assert game.state.pending == type(game.state.pending)(Decision.MAGIC, 1)
    defender = check_observation(game.state, 1)
    assert defender["battle"]["cards"] == {"0": "committed"}
    assert "KHA-2" not in json.dumps(defender)
    attacker = check_observation(game.state, 0)
    assert attacker["battle"]["cards"] == {"0": "KHA-2"}
