"""Bots see only what their seat sees (issue 12 item 5; R5.13, R16.5, R18.6, R23.5).

Twin states whose observations are equal for a seat (``observe(a, seat) == observe(b, seat)``)
but whose hidden information differs must get the same decision from every bot: the
opponents' cards moved between hand and realm pool (R5.13), an opponent's card selected face
down at step B (R16.5), the deck order with the end-game card still in the bottom nine
(R5.10), the future dice, and the cards another player may buy (R18.6). The seat's own and
its allies' cards are known (R23.5) and are never perturbed. The mcts bot searches
determinizations, so ``SeatView.determinize`` must give the same state for both twins.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest

from kaladan.bots.base import SeatView
from kaladan.bots.mcts import MctsBot
from kaladan.bots.registry import make_bot
from kaladan.expert.bot import ExpertBot
from kaladan.expert.value import Features, ValueNetError, load_for
from kaladan.rules import actions as A
from kaladan.rules import magic
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.chance import Chance
from kaladan.rules.config import Config
from kaladan.rules.kinds import format_action
from kaladan.rules.legal import legal_actions
from kaladan.rules.notation import position_to_json
from kaladan.rules.observe import observe
from kaladan.rules.setup import new_game
from kaladan.rules.state import Decision, GameState, Pending
from kaladan.rules.units import REALM_INDEX, REALMS
from positions import build, game_at, unit

CONFIGS = (Config(players=2, quick_setup=True), Config(players=4, quick_setup=True),
           Config(players=4, mode="team_2v2", quick_setup=True))
SEEDS = range(6)
MCTS = "mcts:iterations=30"
EXPERT = "expert:iterations=30"

# (what differs, state a, state b, the deciding seat)
Twin = tuple[str, GameState, GameState, int]


# --- twins ------------------------------------------------------------------------------------


def _edited(state: GameState, edit: Callable[[GameState], None]) -> GameState:
    twin = state.copy()
    edit(twin)
    twin.invalidate()  # edited by hand
    return twin


def _battle_cards(state: GameState) -> set[str]:
    return set() if state.battle is None else set(state.battle.cards.values())


def _hand_pool_twin(state: GameState, seat: int, rng: random.Random) -> GameState | None:
    """R5.13: an opponent's own-realm hand card swapped with one of its realm pool."""
    for p in range(state.n):
        if state.team[p] == state.team[seat]:
            continue  # R23.5: own team's cards are known
        realm = REALMS[state.realm[p]]
        hand = [c for c in state.hand[p]
                if c not in _battle_cards(state) and magic.card_realm(c) == realm]
        if hand and state.pool[p]:
            give, take = rng.choice(hand), rng.choice(state.pool[p])

            def swap(s: GameState, p: int = p, give: str = give, take: str = take) -> None:
                s.hand[p] = sorted([c for c in s.hand[p] if c != give] + [take])
                s.pool[p] = sorted([c for c in s.pool[p] if c != take] + [give])

            return _edited(state, swap)
    return None


def _deck_twin(state: GameState, rng: random.Random) -> GameState | None:
    """R5.10: the deck reshuffled, the end-game card still among the bottom nine."""
    deck = state.deck  # the last element is the top
    end = state.end_card if state.end_card in deck else None
    for _ in range(5):
        order = [c for c in deck if c != end]
        rng.shuffle(order)
        if end is not None:
            order.insert(rng.randrange(min(9, len(deck))), end)
        if order != deck:
            def reorder(s: GameState, order: list[str] = order) -> None:
                s.deck = order

            return _edited(state, reorder)
    return None


def _dice_twin(state: GameState, rng: random.Random) -> GameState:
    """Future dice differ: the seeded source is reseeded."""
    seed = rng.getrandbits(63)

    def reseed(s: GameState) -> None:
        s.chance = Chance(seed)

    return _edited(state, reseed)


def _committed_twins(state: GameState) -> tuple[GameState, GameState] | None:
    """R16.5: the attacking side selects one of two different cards face down; the state
    after each, where the defending side declares, is the same to the defender."""
    battle = state.battle
    if (state.pending.kind != Decision.MAGIC or battle is None or battle.step != "declare"
            or state.pending.seat != battle.attacker):
        return None
    cards = [a for a in legal_actions(state) if a.kind == A.MAGIC]
    if len(cards) < 2:
        return None
    a, b = state.copy(), state.copy()
    apply_unchecked(a, cards[0])
    apply_unchecked(b, cards[-1])
    asked = Pending(Decision.MAGIC, battle.defender)
    return (a, b) if a.pending == asked and b.pending == asked else None


@cache
def sampled_twins() -> tuple[list[Twin], set[tuple[str, Decision]]]:
    """Twins at decision points of seeded random games (2 and 4 players, free-for-all and
    team_2v2): the first decision of every kind in each mode, else at most two per kind and
    game; and every decision kind that arose."""
    twins: list[Twin] = []
    arose: set[tuple[str, Decision]] = set()
    sampled: set[tuple[str, Decision]] = set()
    for config in CONFIGS:
        for seed in SEEDS:
            state = new_game(config, seed)
            rng = random.Random(seed)
            taken: dict[Decision, int] = {}
            steps = 0
            while not state.is_over and steps < 1500:
                kind, seat = state.pending.kind, state.pending.seat
                arose.add((config.mode, kind))
                committed = _committed_twins(state)
                if committed is not None:
                    a, b = committed
                    twins.append(("committed", a, b, a.pending.seat))
                first = (config.mode, kind) not in sampled
                if first or (taken.get(kind, 0) < 2 and rng.random() < 0.3):
                    sampled.add((config.mode, kind))
                    taken[kind] = taken.get(kind, 0) + 1
                    original = state.copy()
                    for label, twin in (("hand_pool", _hand_pool_twin(original, seat, rng)),
                                        ("deck", _deck_twin(original, rng)),
                                        ("dice", _dice_twin(original, rng))):
                        if twin is not None:
                            twins.append((label, original, twin, seat))
                legal = legal_actions(state)
                apply_unchecked(state, legal[rng.randrange(len(legal))])
                steps += 1
    return twins, arose


# --- named positions --------------------------------------------------------------------------

# Khalisia (seat 0) attacks from Field T7 with three Swords; Kimbria (seat 1) holds Field T4.
FIELD_BATTLE = {"C1": "0/crown", "T7": "0/sword 0/sword 0/sword", "T4": "1/shield 1/shield",
                "C2": "1/crown"}


def committed(card: str) -> GameState:
    """R16.5: the attacker selected ``card`` (KHA-3 or KHA-4) face down; the defender, holding
    KIM-1 (stop) and KIM-5 (lower the enemy's dice), declares next."""
    g = game_at(build(FIELD_BATTLE, hands=[["KHA-3", "KHA-4"], ["KIM-1", "KIM-5"]]))
    g.play("attack T7 T4")
    g.play(f"magic {card}")
    assert g.state.pending == Pending(Decision.MAGIC, 1)
    return g.state


# Team mode (R23.23): seat 0 leads the attack from Field T7 beside its ally seat 2's Archer.
TEAM_BATTLE = {"C1": "0/crown", "C2": "1/crown", "C3": "2/crown", "C4": "3/crown",
               "T7": "0/general 0/sword 2/archer", "T8": "1/shield 1/shield"}


def team_committed(card: str) -> GameState:
    """R23.23, R16.5: the attacking team selected ``card`` face down, KHA-3 from seat 0's
    hand or KIM-2 from its ally seat 2's; seat 1 (ARD-2 in hand) declares for the defence."""
    g = game_at(build(TEAM_BATTLE, players=4, mode="team_2v2",
                      realms=("khalisia", "ardinor", "kimbria", "nanchia"),
                      hands=[["KHA-3"], ["ARD-2"], ["KIM-2"], []]))
    g.play("attack T7 T8")
    g.play(f"magic {card}")
    assert g.state.pending == Pending(Decision.MAGIC, 1)
    return g.state


def selectable_by_attacker() -> set[str]:
    """The Khalisia cards the attacker could have selected here (R16.6-R16.8): the same
    battle with all five of its cards in hand."""
    g = game_at(build(FIELD_BATTLE, hands=[magic.realm_cards(REALM_INDEX["khalisia"]),
                                           ["KIM-1", "KIM-5"]]))
    g.play("attack T7 T4")
    return {a.name for a in legal_actions(g.state) if a.kind == A.MAGIC}


def after_elimination(bought: str) -> GameState:
    """R18.6: Kimbria (seat 1) eliminated Nanchia (seat 2) and bought ``bought`` of its
    cards, the rest it may still buy; seat 0 (Khalisia) is to act, next to seat 1."""
    state = build({"C2": "0/crown", "T5": "0/sword 0/sword 0/archer", "C1": "1/crown",
                   "T2": "1/shield 1/shield"}, players=3, hands=[["KHA-3"], ["KIM-5"], []],
                  homes=["C2", "C1", "C3"])
    nanchia = magic.realm_cards(REALM_INDEX["nanchia"])

    def eliminated(s: GameState) -> None:
        s.eliminated[2] = True
        s.reserve[2] = [0] * len(s.reserve[2])
        s.reserve_specials[2] = []
        s.trophies[1] = [unit("2/crown")]  # R18.5
        s.hand[2], s.pool[2] = [], []
        s.hand[1] = sorted(["KIM-5", bought])
        s.buyable[1] = [c for c in nanchia if c != bought]

    return _edited(state, eliminated)


def after_two_eliminations(bought: str) -> GameState:
    """R18.6 twice: Nanchia (seat 2) eliminated Ardinor (seat 3) and bought ``bought``; then
    Kimbria (seat 1) eliminated Nanchia and got its hand and pool to buy; the Ardinor cards
    Nanchia never bought stay apart with it. Seat 0 is to act, next to seat 1."""
    state = build({"C1": "0/crown", "T5": "0/sword 0/sword 0/archer", "C2": "1/crown",
                   "T8": "1/shield 1/shield"}, players=4, hands=[["KHA-3"], ["KIM-5"], [], []],
                  homes=["C1", "C2", "C3", "C4"])
    nanchia = magic.realm_cards(REALM_INDEX["nanchia"])
    ardinor = magic.realm_cards(REALM_INDEX["ardinor"])

    def eliminated(s: GameState) -> None:
        for p in (2, 3):
            s.eliminated[p] = True
            s.reserve[p] = [0] * len(s.reserve[p])
            s.reserve_specials[p] = []
            s.hand[p], s.pool[p] = [], []
        s.trophies[2] = [unit("3/crown")]
        s.trophies[1] = [unit("2/crown")]
        s.buyable[2] = [c for c in ardinor if c != bought]
        s.buyable[1] = sorted(nanchia + [bought])

    return _edited(state, eliminated)


def named_twins() -> list[Twin]:
    return [("committed", committed("KHA-3"), committed("KHA-4"), 1),
            ("committed", team_committed("KHA-3"), team_committed("KIM-2"), 1),
            ("buyable", after_elimination("NAN-3"), after_elimination("NAN-4"), 0),
            ("buyable", after_two_eliminations("ARD-2"), after_two_eliminations("ARD-5"), 0)]


# --- helpers ----------------------------------------------------------------------------------


def decide(spec: str, state: GameState, seat: int, k: int) -> tuple[str, dict[str, int]]:
    """The bot's choice as text, and for the searching bots the visits of the root's
    actions."""
    bot = make_bot(spec)
    action = bot.choose(SeatView(state, seat), legal_actions(state), random.Random(k))
    visits = {format_action(a, state): n for a, n in bot.last_visits.items()} if isinstance(
        bot, (MctsBot, ExpertBot)) else {}
    return format_action(action, state), visits


def determinized(state: GameState, seat: int, k: int) -> dict[str, object]:
    det = SeatView(state, seat).determinize(random.Random(k))
    assert observe(det, seat) == observe(state, seat)
    return position_to_json(det)


def all_twins() -> list[Twin]:
    return sampled_twins()[0] + named_twins()


# --- tests ------------------------------------------------------------------------------------


def test_twins_look_the_same_and_cover_every_decision_kind() -> None:
    """R5.13: each pair is seen alike by the deciding seat (same observation, same legal
    actions) yet differs; the sampled pairs cover every decision kind of the games and every
    kind of hidden information."""
    twins, arose = sampled_twins()
    for label, a, b, seat in all_twins():
        assert observe(a, seat) == observe(b, seat), label
        assert list(legal_actions(a)) == list(legal_actions(b)), label
        assert position_to_json(a) != position_to_json(b), label
    covered = {(a.config.mode, a.pending.kind) for _, a, _, _ in twins}
    assert covered == arose
    assert {label for label, *_ in twins} == {"hand_pool", "deck", "dice", "committed"}
    assert any(a.teams for label, a, *_ in all_twins() if label == "committed")


def test_determinize_is_the_same_for_twins() -> None:
    """What the seat cannot see is redrawn from the observation alone: both twins give the
    same determinization (R5.13, R16.5, R18.6), and it looks like the original (R23.5)."""
    for label, a, b, seat in all_twins():
        for k in range(2):
            assert determinized(a, seat, k) == determinized(b, seat, k), (label, k)


@pytest.mark.parametrize("spec", ["random", "greedy"])
def test_random_and_greedy_decide_the_same_for_twins(spec: str) -> None:
    for label, a, b, seat in all_twins():
        for k in range(2):
            assert decide(spec, a, seat, k) == decide(spec, b, seat, k), (label, k)


def _mcts_twins() -> list[Twin]:
    """One sampled pair of each kind with a real choice (mcts searches only then), and the
    named positions."""
    chosen: dict[str, Twin] = {}
    for twin in sampled_twins()[0]:
        label, a, _, _ = twin
        if label not in chosen and len(legal_actions(a)) >= 3:
            chosen[label] = twin
    return list(chosen.values()) + named_twins()


def test_mcts_decides_and_searches_the_same_for_twins() -> None:
    """The search (decision and visit counts) depends on the observation only."""
    twins = _mcts_twins()
    assert {label for label, *_ in twins} == {"hand_pool", "deck", "dice", "committed",
                                              "buyable"}
    for label, a, b, seat in twins:
        assert decide(MCTS, a, seat, 3) == decide(MCTS, b, seat, 3), label


@pytest.mark.parametrize("spec", [EXPERT, "expert:iterations=150,per=turn"])
def test_the_expert_decides_and_searches_the_same_for_twins(spec: str) -> None:
    """The expert's search and its network's judgement depend on the observation only (in
    the games a shipped network serves; it refuses the others, docs/value.md); so does the
    share of a turn's budget a decision gets (per=turn)."""
    served = [twin for twin in _mcts_twins() if serves(twin[1].config)]
    assert {label for label, *_ in served} == {"hand_pool", "deck", "dice", "committed",
                                               "buyable"}
    for label, a, b, seat in served:
        assert decide(spec, a, seat, 3) == decide(spec, b, seat, 3), label


def serves(config: Config) -> bool:
    try:
        load_for(config)
    except ValueNetError:
        return False
    return True


def test_the_value_features_of_twins_are_equal() -> None:
    """What the network reads of a position from a seat's view (the observation and the
    figures computed from the public board) is the same for both twins (R5.13)."""
    for label, a, b, seat in all_twins():
        features = Features(a.config, a.world)
        row_a = np.zeros(features.size, dtype=np.float32)
        row_b = np.zeros(features.size, dtype=np.float32)
        features.write(a, seat, row_a)
        Features(b.config, b.world).write(b, seat, row_b)
        assert np.array_equal(row_a, row_b), label


def test_r16_5_a_face_down_card_is_redrawn_from_the_cards_the_attacker_could_select() -> None:
    """R16.5, R16.8: the defender does not know which card the attacker committed. A
    determinization draws it from the attacker's hand and pool, among the cards it could
    select here, keeps it in the attacker's hand, and the defender decides alike."""
    a, b = committed("KHA-3"), committed("KHA-4")
    assert observe(a, 1)["battle"]["cards"] == {"0": "committed"}
    could = selectable_by_attacker()
    assert {"KHA-3", "KHA-4"} <= could and not could & {"KHA-1", "KHA-5"}  # W3; defender only
    drawn = set()
    for k in range(60):
        det = SeatView(a, 1).determinize(random.Random(k))
        assert det.battle is not None
        card = det.battle.cards[0]
        assert card in det.hand[0] and len(det.hand[0]) == 2
        assert det.battle.holders.get(0, 0) == 0
        assert det.hand[1] == a.hand[1]  # the defender's own cards are known
        drawn.add(card)
    assert drawn == could
    for spec in ("random", "greedy", MCTS, EXPERT):
        assert decide(spec, a, 1, 5) == decide(spec, b, 1, 5), spec


def test_r23_23_a_face_down_card_may_be_any_attacking_players() -> None:
    """R23.23, R23.5: the enemy team does not know which attacking player provides the card;
    the determinization draws the holder too and puts the card in that player's hand."""
    a = team_committed("KHA-3")
    holders = set()
    for k in range(40):
        det = SeatView(a, 1).determinize(random.Random(k))
        assert det.battle is not None
        card, holder = det.battle.cards[0], det.battle.holders[0]
        assert card in det.hand[holder] and holder in (0, 2)
        assert magic.card_realm(card) == REALMS[det.realm[holder]]
        assert det.hand[3] == a.hand[3] and det.pool[3] == a.pool[3]  # the ally's: R23.5
        holders.add(holder)
    assert holders == {0, 2}


def test_r18_6_cards_another_player_may_buy_are_redrawn() -> None:
    """R18.6: only the killer sees the eliminated player's cards. Which of them it bought is
    hidden from the others, also through a second elimination; the own realm's cards stay
    with their alive owner, in hand or pool (R11.12)."""
    for _, a, b, seat in named_twins()[2:]:
        for k in range(4):
            det = SeatView(a, seat).determinize(random.Random(k))
            assert det.hand[seat] == a.hand[seat]
            for p in range(det.n):
                realm = REALMS[det.realm[p]]
                assert all(magic.card_realm(c) == realm for c in det.pool[p])
                assert all(magic.card_realm(c) != realm for c in det.buyable[p])
                assert len(det.buyable[p]) == len(a.buyable[p])
            hidden = sorted(c for p in range(det.n) if p != seat
                            for c in det.hand[p] + det.pool[p] + det.buyable[p])
            assert hidden == sorted(c for p in range(a.n) if p != seat
                                    for c in a.hand[p] + a.pool[p] + a.buyable[p])
            assert determinized(a, seat, k) == determinized(b, seat, k)
