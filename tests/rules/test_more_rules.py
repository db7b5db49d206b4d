"""Rules of RULES.md sections 4-24 that no other test file covered, from small named positions.

Played through the checked ``Game`` facade with forced dice in pool order (docs/formats.md,
"Chance outcomes": the attacker's dice first, then the defender's; within a side the units in
canonical order Crown, General, Catapult, Archer, Shield, Sword, special, plain before
upgraded, then the bonus dice).

2-player standard world (R4.9): T1 Field, T2 Mountain, T3 Forest, T4 Field, T5 Forest,
T6 Mountain, T7 Field; C1 touches T5 and T7, C2 touches T1 and T3. Homes by default: seat 0
C1, seat 1 C2. 3-player world: T1 Field, T2 Forest, T3 Forest, T4 Mountain, T5 Field,
T6 Field, T7 Forest; C1 touches T1, T2; C2 touches T5, T7; C3 touches T3, T6. Realms by seat:
Khalisia, Kimbria, Nanchia, Ardinor.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kaladan.game import Game
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.catalog import EVENT_CARD_BY_ID, EVENT_CARDS
from kaladan.rules.config import Config
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.legal import legal_actions
from kaladan.rules.magic import realm_cards
from kaladan.rules.observe import unit_ref
from kaladan.rules.scoring import score, scores, winner
from kaladan.rules.setup import new_game
from kaladan.rules.state import Decision, GameState, Pending, Phase
from kaladan.rules.units import (
    KHALISIA,
    KIMBRIA,
    NANCHIA,
    REALM_INDEX,
    REALMS,
    UnitType,
    owner_of,
    realm_of,
    type_of,
)
from kaladan.rules.world import Terrain
from positions import advance_to, build, decline, game_at, on, pass_turn, refs

# --- named positions ----------------------------------------------------------------------------

# R4.8: seat 0's lone Sword on T4 may walk off to T1; seat 1's Sword on T5 is next to T4.
WALK_OFF = {"C1": "0/crown", "T4": "0/sword", "T5": "1/sword", "C2": "1/crown"}
# R4.8: seat 0's lone Sword on Forest T3 attacks two Swords on Mountain T6 and dies.
DIES_ON_A = {"C1": "0/crown", "T3": "0/sword", "T6": "1/sword 1/sword", "C2": "1/crown"}
# R6.3: seat 0 holds its castle C2 (not its home; R19.5) and T1, T3; the deck holds EV01.
QUIET_TURN = {"C2": "0/crown", "T1": "0/sword", "T3": "0/archer", "C1": "1/crown"}
# R8.3: seat 0 holds two castles, C2 and C1, and the Field T4.
TWO_CASTLES = {"C2": "0/crown", "C1": "0/sword", "T4": "0/archer", "T6": "1/crown"}
# R9.3: seat 0 has its castle C2 and a Sword and an Archer on Mountain T2.
SPLIT_ARMY = {"C2": "0/crown", "T2": "0/sword 0/archer", "C1": "1/crown"}
# R11.10: every unit of seat 0 on the board is a Crown or upgraded; its reserve is full.
ALL_UPGRADED = {"C1": "0/crown 0/general+", "T7": "0/sword+", "C2": "1/crown"}
# R11.16, R18.9: 4 players; seat 0's lone Crown on Forest T1 attacks seat 1's on Mountain T4.
CROWNS_CLASH_4P = {"T1": "0/crown", "T4": "1/crown", "C3": "2/crown", "C4": "3/crown"}
CROWNS_CLASH_DICE = [6, 2, 3, 5]  # Crown 6, Forest 2; Crown 3, Mountain 5: one hit each
# R13.5: seat 0's General lies in seat 1's graveyard.
DEAD_GENERAL = {"C2": "0/crown", "C1": "1/crown"}
# EX1 (R16.25, R13.5, R17.1): General, Catapult, Sword on Forest T3 against an upgraded
# Shield and a Shield on Mountain T6.
EX1 = {"C1": "0/crown", "T3": "0/general 0/catapult 0/sword", "T6": "1/shield+ 1/shield",
       "C2": "1/crown"}
EX1_DICE = [7, 9, 9, 2, 1, 9, 12, 2]  # one hit on each side
# R13.6, R14.9: 3 players; seat 1's Crown alone on its home C2 (its Lion in the reserve),
# attacked from the Field T5 by two Swords of seat 0.
CROWN_ALONE_3P = {"C1": "0/crown", "T5": "0/sword 0/sword", "C2": "1/crown", "T7": "1/archer",
                  "C3": "2/crown"}
# R13.7: seat 0 has one unit of every type on the board.
EVERY_TYPE = {"C1": "0/crown 0/general 0/catapult 0/special:khalisia 0/sword",
              "T7": "0/archer 0/shield", "C2": "1/crown"}
# R15.7: two Swords on Field T4 attack a lone Sword on Mountain T6.
TWO_AGAINST_MOUNTAIN = {"C1": "0/crown", "T4": "0/sword 0/sword", "T6": "1/sword",
                        "C2": "1/crown"}
# R15.7: a lone Sword on Forest T3 attacks Field T4.
FROM_FOREST = {"C1": "0/crown", "T3": "0/sword", "T4": "1/sword", "C2": "1/crown"}
# R16.3, R16.13: Field T4 against Field T7; T5 (seat 0) and T6 (seat 1) touch both.
FULL_BATTLE = {"C1": "0/sword", "T4": "0/crown 0/general+ 0/catapult 0/special:khalisia",
               "T5": "0/sword", "T7": "1/crown 1/archer 1/shield+ 1/sword", "T6": "1/sword",
               "C2": "1/shield"}
# R16.4: 3 players; seat 0 on Field T1 attacks seat 2 on Forest T3; seat 1 on T4 touches both.
THIRD_SEAT_DEFENDS = {"C1": "0/crown", "T1": "0/archer 0/sword", "T4": "1/sword",
                      "C2": "1/crown", "T3": "2/shield 2/sword", "C3": "2/crown"}
# R16.15: a lone Catapult on Field T4 attacks a lone Shield on Field T7.
CATAPULT_VS_SHIELD = {"C1": "0/crown", "T4": "0/catapult", "T7": "1/shield", "C2": "1/crown"}
# R17.1: all four of seat 0's Swords on Field T4 attack a Sword on Field T7.
FOUR_SWORDS = {"C1": "0/crown", "T4": "0/sword 0/sword 0/sword 0/sword", "T7": "1/sword",
               "C2": "1/crown"}
# R22.3: seat 0 scores more with fewer units on the board than seat 1.
FEW_BUT_RICH = {"C2": "0/crown", "C1": "1/crown 1/general 1/sword", "T7": "1/archer"}

# --- helpers ------------------------------------------------------------------------------------


def at(board: dict[str, str], players: int = 2, **options: object) -> Game:
    """The checked game at ``board``, seat 0 in its Action phase unless told, hands empty."""
    options.setdefault("hands", [[] for _ in range(players)])
    return game_at(build(board, players=players, **options))  # type: ignore[arg-type]


def index(g: Game, name: str) -> int:
    return g.state.world.index(name)


def of_kind(g: Game, kind: str) -> list[str]:
    return [t for t in g.legal_texts() if t.split()[0] == kind]


def phase(g: Game) -> Phase:
    return g.state.phase


def kinds(g: Game) -> set[str]:
    return {t.split()[0] for t in g.legal_texts()}


def play_out(g: Game) -> None:
    for _ in range(500):
        if g.is_over:
            return
        decline(g)
    raise AssertionError("the game did not end")


# --- section 4: the world -----------------------------------------------------------------------

# R4.9: terrain positions per player count.
TERRAIN_COUNT = {2: 7, 3: 7, 4: 13, 5: 14, 6: 19}


@pytest.mark.parametrize("world", ["standard", "random_terrain"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_r4_4_r5_4_world_has_n_terrain_positions_and_one_castle_spot_per_player(
        players: int, world: str) -> None:
    """R4.4, R5.4: N terrain positions plus P castle spots, one tile each; castle tiles are
    a type of their own, terrain tiles are Field, Forest or Mountain."""
    w = new_game(Config(players=players, world=world, quick_setup=True), 3).world
    assert w.terrain_count == TERRAIN_COUNT[players]
    assert len(w.castle_spots) == players
    assert len(w.coords) == len(set(w.coords)) == TERRAIN_COUNT[players] + players
    assert len(w.terrain) == len(w.coords)
    for t in range(len(w.coords)):
        if t in w.castle_spots:
            assert w.terrain[t] == Terrain.CASTLE
            assert w.names[t].startswith("C")
        else:
            assert w.terrain[t] in (Terrain.FIELD, Terrain.FOREST, Terrain.MOUNTAIN)
            assert w.names[t].startswith("T")


def test_r4_8_tile_left_by_its_last_unit_is_empty_and_the_enemy_may_move_in() -> None:
    """R4.8: the Sword walks off T4: T4 is empty, nobody controls it, seat 1 then enters."""
    g = at(WALK_OFF)
    t4 = index(g, "T4")
    assert t4 in g.state.controlled(0)
    g.play("move T4 T1 sword")
    assert on(g, "T4") == []
    assert g.state.tile_owner(t4) == -1
    assert t4 not in g.state.controlled(0) and t4 not in g.state.controlled(1)
    advance_to(g, Pending(Decision.ACTION, 1))
    assert "move T5 T4 sword" in g.legal_texts()
    g.play("move T5 T4 sword")
    assert on(g, "T4") == ["1/sword"]
    assert g.state.controlled(1) == [t4, index(g, "C2")]


def test_r4_8_tile_whose_last_unit_dies_is_empty_and_the_enemy_may_place_on_it() -> None:
    """R4.8, R11.4: the attacking Sword dies on T3; seat 1 may place a bought unit there."""
    g = at(DIES_ON_A, gold=[0, 3])
    g.play("attack T3 T6", dice=[1, 1, 8, 8, 10])  # Sword, Forest; Swords, Mountain
    t3 = index(g, "T3")
    assert on(g, "T3") == []
    assert g.state.tile_owner(t3) == -1
    assert t3 not in g.state.controlled(0)
    advance_to(g, Pending(Decision.PURCHASE, 1))
    assert "buy sword T3" in g.legal_texts()
    g.play("buy sword T3")
    assert on(g, "T3") == ["1/sword"]
    assert t3 in g.state.controlled(1)


def castle_tiles(state: GameState) -> list[int]:
    w = state.world
    return [t for t in range(len(w.coords)) if w.terrain[t] == Terrain.CASTLE]


@pytest.mark.parametrize(("players", "world", "seed"), [
    (2, "standard", 1), (3, "random_terrain", 2), (4, "standard", 3), (5, "standard", 4),
    (6, "random_terrain", 5),
])
def test_r4_16_castle_tiles_only_on_castle_spots_and_never_more_or_fewer(
        players: int, world: str, seed: int) -> None:
    """R4.16: a whole random game, setup decisions included: castles are placed only on free
    castle spots, and the castle tiles are the same P positions after every decision."""
    state = new_game(Config(players=players, world=world), seed)
    spots = list(state.world.castle_spots)
    assert castle_tiles(state) == spots
    rng = random.Random(seed)
    placed: list[int] = []
    for _ in range(20_000):
        if state.is_over:
            break
        legal = list(legal_actions(state))
        if state.pending.kind == Decision.CASTLE:
            offered = sorted(a.tile for a in legal)
            assert offered == sorted(set(spots) - set(placed))
        action = rng.choice(legal)
        if state.pending.kind == Decision.CASTLE:
            placed.append(action.tile)
        apply_unchecked(state, action)
        assert castle_tiles(state) == spots
        assert all(t in spots for t, up in enumerate(state.fortified) if up)
    assert state.is_over
    assert sorted(placed) == spots
    assert sorted(state.home) == spots


# --- section 5: setup ---------------------------------------------------------------------------


def test_r5_6_each_player_takes_the_kit_of_their_realm() -> None:
    """R5.6, R2.2: after choosing, the seat owns its realm's whole kit and five cards; after
    setup every kit unit is on the board or in the reserve."""
    g = Game.new(Config(players=3), 11)
    seat = g.state.pending.seat
    assert g.state.pending.kind == Decision.REALM
    g.play("realm ardinor")
    assert g.state.reserve[seat][:6] == [1, 1, 2, 4, 4, 4]  # Crown ... Sword (R2.2)
    assert g.state.reserve_specials[seat] == [REALM_INDEX["ardinor"]]
    assert sorted(g.state.pool[seat] + g.state.hand[seat]) == [f"ARD-{k}" for k in range(1, 6)]
    while g.state.phase == Phase.SETUP:
        g.play(g.legal_texts()[0])
    s = g.state
    for p in range(3):
        kit = Counter(UnitType(t).label for t, n in enumerate(s.reserve[p]) for _ in range(n))
        for units in s.board:
            kit.update(UnitType(type_of(c)).label for c in units
                       if owner_of(c) == p and type_of(c) != UnitType.SPECIAL)
        assert kit == Counter(crown=1, general=1, catapult=2, sword=4, archer=4, shield=4)
        specials = [realm_of(c) for units in s.board for c in units
                    if owner_of(c) == p and type_of(c) == UnitType.SPECIAL]
        assert specials + s.reserve_specials[p] == [s.realm[p]]
        assert sorted(s.hand[p] + s.pool[p]) == realm_cards(s.realm[p])
        assert len(s.hand[p]) == 1


# --- section 6: turns and phases ----------------------------------------------------------------


def quiet_turn(order: str) -> tuple[Game, list[tuple[Phase, Decision, int]]]:
    """Seat 0 declines everything in a turn; returns (phase, decision, gold) at each ask."""
    g = game_at(build(QUIET_TURN, phase="event", deck=["EV01"], gold=[2, 0], phase_order=order,
                      hands=[[], []]))
    seen = []
    while g.state.active == 0:
        seen.append((g.state.phase, g.state.pending.kind, g.state.gold[0]))
        decline(g)
    return g, seen


def test_r6_3_every_phase_in_order_even_when_nothing_is_done() -> None:
    """R6.3, R6.2: seat 0 declines every decision; each phase still comes, in order, and the
    Income phase pays (castle C2 + 2 other tiles: 2 gold) between Free Spawn and Action."""
    g, seen = quiet_turn("seeds")
    assert seen == [
        (Phase.EVENT, Decision.EVENT, 2),  # EV01: Sword or 1 gold; "gold" taken
        (Phase.SPAWN, Decision.SPAWN, 3),
        (Phase.ACTION, Decision.ACTION, 5),  # Income came between
        (Phase.PURCHASE, Decision.PURCHASE, 5),
        (Phase.REINFORCE, Decision.REINFORCE, 5),
    ]
    assert g.state.discard == ["EV01"]
    assert g.state.active == 1
    assert g.state.pending == Pending(Decision.SPAWN, 1)  # the next turn starts afresh


def test_r6_3_nothing_of_an_earlier_phase_can_be_done_later() -> None:
    """R6.3: after Free Spawn no spawn, after Action no move/attack, after Purchase no buy."""
    g = game_at(build(QUIET_TURN, phase="spawn", gold=[5, 0], hands=[[], []]))
    assert g.state.pending == Pending(Decision.SPAWN, 0)
    g.play("end")
    assert phase(g) == Phase.ACTION
    assert "spawn" not in kinds(g)
    with pytest.raises(IllegalActionError):
        g.play("spawn sword C2")
    g.play("pass")
    assert phase(g) == Phase.PURCHASE
    assert kinds(g) & {"spawn", "move", "swap", "attack"} == set()
    with pytest.raises(IllegalActionError):
        g.play("move T1 T4 sword")
    g.play("end")
    assert phase(g) == Phase.REINFORCE
    assert kinds(g) & {"spawn", "buy", "upgrade", "attack"} == set()
    with pytest.raises(IllegalActionError):
        g.play("buy sword T1")


def test_r8_3_official_order_pays_income_before_free_spawn_rule_unchanged() -> None:
    """R8.3, R6.3: with phase_order=official the same quiet turn is paid before Free Spawn."""
    _, seen = quiet_turn("official")
    assert seen == [
        (Phase.EVENT, Decision.EVENT, 2),
        (Phase.SPAWN, Decision.SPAWN, 5),  # Income already paid
        (Phase.ACTION, Decision.ACTION, 5),
        (Phase.PURCHASE, Decision.PURCHASE, 5),
        (Phase.REINFORCE, Decision.REINFORCE, 5),
    ]


@pytest.mark.parametrize("order", ["seeds", "official"])
def test_r8_3_free_spawn_offers_the_same_under_both_phase_orders(order: str) -> None:
    """R8.3, R8.1: one basic unit per castle held, whichever order; Income is paid once."""
    g = game_at(build(TWO_CASTLES, phase="event", phase_order=order))
    assert g.state.pending == Pending(Decision.SPAWN, 0)
    assert set(of_kind(g, "spawn")) == {f"spawn {u} {c}" for u in ("sword", "archer", "shield")
                                        for c in ("C1", "C2")}
    g.play("spawn shield C1")
    g.play("spawn sword C2")
    assert g.state.pending == Pending(Decision.ACTION, 0)
    assert g.state.gold[0] == 2  # two castles + T4 // 2, paid exactly once


# --- section 9: income --------------------------------------------------------------------------


@pytest.mark.parametrize(("board", "income"), [
    ({"C2": "0/crown", "T2": "0/sword"}, 1),  # castle and a Mountain
    ({"C2": "0/crown", "T2": "0/sword", "T3": "0/archer"}, 2),  # castle, Mountain, Forest
    ({"C2": "0/crown", "C1": "0/general", "T1": "0/sword", "T2": "0/archer",
      "T3": "0/shield", "T4": "0/sword", "T5": "0/archer"}, 4),  # two castles, five others
])
def test_r9_2_ex3_income_examples_through_a_whole_turn(board: dict[str, str],
                                                       income: int) -> None:
    """R9.2, EX3: the examples' income, paid in the Income phase of a turn."""
    g = game_at(build({**board, "T7": "1/crown"}, phase="event", gold=[0, 0], hands=[[], []]))
    advance_to(g, Pending(Decision.ACTION, 0))
    assert g.state.gold == [income, 0]


@pytest.mark.parametrize(("choice", "income"), [("move T2 T4 archer", 2), ("gold", 1)])
def test_r9_3_income_counts_the_tiles_held_when_the_phase_begins(choice: str,
                                                                 income: int) -> None:
    """R9.3: a Forced March (EV08) that splits the army before Income raises the income; a
    move in the Action phase, after Income, does not change the gold of this turn."""
    g = game_at(build(SPLIT_ARMY, phase="event", deck=["EV08"], gold=[0, 4], hands=[[], []]))
    g.play(choice)
    advance_to(g, Pending(Decision.SPAWN, 0))
    before = g.state.gold[0]
    g.play("end")
    assert g.state.pending == Pending(Decision.ACTION, 0)
    assert g.state.gold == [before + income, 4]  # only onto the active player's board
    if choice == "gold":
        g.play("move T2 T4 archer")  # now three tiles, but Income is over
        assert len(g.state.controlled(0)) == 3
        while g.state.active == 0:
            decline(g)
        assert g.state.gold[0] == before + income


# --- section 11: purchase -----------------------------------------------------------------------


def test_r11_10_units_in_the_reserve_are_never_offered_for_upgrade() -> None:
    """R11.10, R7.9: a full reserve and only a Crown and upgraded units on the board: no
    upgrade is offered, neither bought nor by Training (EV07)."""
    g = game_at(build(ALL_UPGRADED, phase="purchase", gold=[20, 0], hands=[[], []]))
    assert sum(g.state.reserve[0]) == 13 and g.state.reserve_specials[0] == [KHALISIA]
    assert of_kind(g, "upgrade") == []
    for text in ("upgrade catapult C1", "upgrade sword C1", "upgrade special T7"):
        with pytest.raises(IllegalActionError):
            g.play(text)
    g.play("buy catapult C1")  # once on the board it can be upgraded
    assert of_kind(g, "upgrade") == ["upgrade catapult C1"]
    event = game_at(build(ALL_UPGRADED, phase="event", deck=["EV07"], hands=[[], []]))
    assert event.state.discard == ["EV07"]  # only "gold" was possible: resolved at once
    assert event.state.gold[0] == 1
    assert event.state.pending == Pending(Decision.SPAWN, 0)


def test_r11_16_r18_9_spent_cards_never_return_to_any_pool() -> None:
    """R11.16, R18.9: both Crowns fall; both players' ten cards are spent, in nobody's pool,
    hand or buyable list, and no later purchase can take them."""
    g = game_at(build(CROWNS_CLASH_4P, players=4, gold=[0, 0, 30, 0]))
    lost = realm_cards(KHALISIA) + realm_cards(KIMBRIA)
    g.play("attack T1 T4", dice=CROWNS_CLASH_DICE)
    s = g.state
    assert s.eliminated == [True, True, False, False]
    assert not g.is_over
    assert sorted(c for c in s.spent if c in lost) == sorted(lost)
    for p in range(4):
        assert not set(lost) & set(s.pool[p] + s.hand[p] + s.buyable[p])
    assert s.active == 2  # R6.4: the attacker's turn ended
    advance_to(g, Pending(Decision.PURCHASE, 2))
    named = {w for t in g.legal_texts() for w in t.split()[1:]}
    assert not set(lost) & named
    assert of_kind(g, "buycard") == []


# --- section 13: units --------------------------------------------------------------------------


def test_r13_5_dead_general_is_not_buyable() -> None:
    """R13.5, R17.1: the General killed in EX1 is gone: with 10 gold it cannot be bought."""
    g = at(EX1, gold=[10, 0])
    g.play("attack T3 T6", dice=EX1_DICE)
    g.play("casualty general")
    g.play("casualty shield")
    assert g.state.pending == Pending(Decision.PURCHASE, 0)
    assert refs(g.state.graveyard[1]) == ["0/general"]
    assert not [t for t in g.legal_texts() if t.startswith("buy general")]
    assert "buy catapult T3" in g.legal_texts()


def test_r13_5_general_returned_by_ev24_can_be_bought_again() -> None:
    """R13.5, R7.14: Return of the Fallen (EV24) brings the General back to the reserve; then
    it is bought for 2 gold, and seat 1 loses the scalp."""
    g = game_at(build(DEAD_GENERAL, phase="event", deck=["EV24"], gold=[5, 0],
                      graveyards=[[], ["0/general"]], hands=[[], []]))
    assert g.state.graveyard[1] == []
    assert g.state.reserve[0][UnitType.GENERAL] == 1
    advance_to(g, Pending(Decision.PURCHASE, 0))
    gold = g.state.gold[0]
    assert "buy general C2" in g.legal_texts()
    g.play("buy general C2")
    assert on(g, "C2") == ["0/crown", "0/general"]
    assert g.state.gold[0] == gold - 2


def test_r13_6_defeated_crown_eliminates_its_player_in_free_for_all() -> None:
    """R13.6, R18.1: seat 1's Crown falls; seat 1 is out and takes no more turns."""
    g = at(CROWN_ALONE_3P, players=3)
    g.play("attack T5 C2", dice=[8, 8, 1])  # Swords 8, 8; Crown 1
    assert g.state.eliminated == [False, True, False]
    assert on(g, "T7") == []
    assert not g.is_over
    seats: list[int] = []
    for _ in range(3):
        while not g.is_over and g.state.active == (seats[-1] if seats else 0):
            decline(g)
        seats.append(g.state.active)
    assert seats == [2, 0, 2]


def test_r13_7_basic_units_are_sword_archer_shield_only() -> None:
    """R13.7, R7.12, R8.2: Desertion (EV12) and Free Spawn deal in basic units only; the Crown,
    General, Catapult and special unit are never among them."""
    g = game_at(build(EVERY_TYPE, phase="event", deck=["EV12"], hands=[[], []]))
    assert g.state.pending == Pending(Decision.EVENT, 0)
    assert sorted(g.legal_texts()) == ["lose archer T7", "lose shield T7", "lose sword C1"]
    g.play("lose sword C1")
    assert g.state.pending == Pending(Decision.SPAWN, 0)
    assert {t.split()[1] for t in of_kind(g, "spawn")} == {"sword", "archer", "shield"}


# --- section 14: special units ------------------------------------------------------------------


@pytest.mark.parametrize("realm", REALMS)
def test_r14_8_upgrading_a_special_unit_costs_2_gold(realm: str) -> None:
    """R14.8, R11.2: for every realm the special unit upgrades for 2 gold, not with 1."""
    other = "kimbria" if realm == "khalisia" else "khalisia"
    board = {"C1": f"0/crown 0/special:{realm}", "C2": "1/crown"}
    poor = game_at(build(board, realms=(realm, other), phase="purchase", gold=[1, 0]))
    assert not [t for t in poor.legal_texts() if t.startswith("upgrade special")]
    g = game_at(build(board, realms=(realm, other), phase="purchase", gold=[2, 0]))
    (text,) = [t for t in g.legal_texts() if t.startswith("upgrade special")]
    g.play(text)
    assert on(g, "C1") == ["0/crown", f"0/special:{realm}+"]
    assert g.state.gold[0] == 0


def test_r14_9_special_unit_of_an_eliminated_player_changes_hands() -> None:
    """R14.9, R18.4: the Lion waiting in eliminated seat 1's reserve goes to seat 0, who
    places it as its own unit; seat 2 gets nothing."""
    g = at(CROWN_ALONE_3P, players=3, gold=[2, 0, 0])
    assert g.state.reserve_specials[1] == [KIMBRIA]
    g.play("attack T5 C2", dice=[8, 8, 1])
    s = g.state
    assert s.reserve_specials == [[KHALISIA, KIMBRIA], [], [NANCHIA]]
    assert g.state.pending == Pending(Decision.PURCHASE, 0)
    pass_turn(g)
    pass_turn(g)  # R18.4: placeable from seat 0's next turn on
    while g.state.pending != Pending(Decision.PURCHASE, 0):
        g.play("pass" if "pass" in g.legal_texts() else "end")
    g.play("buy special:kimbria C2")
    (lion,) = [c for c in g.state.board[index(g, "C2")] if type_of(c) == UnitType.SPECIAL]
    assert owner_of(lion) == 0 and realm_of(lion) == KIMBRIA


# --- section 15: bonus dice ---------------------------------------------------------------------


def test_r15_7_extra_hits_are_ignored_bonus_die_is_no_unit() -> None:
    """R15.7, R16.21: both pairs go to the attacker (one against the Mountain die); the
    defender has one unit, loses it, and nothing else (its Crown elsewhere is untouched)."""
    g = at(TWO_AGAINST_MOUNTAIN)
    g.play("attack T4 T6", dice=[8, 8, 1, 7])
    step = g.steps[-1]  # Swords 8, 8; Sword 1, Mountain 7
    assert len(step.chance) == 4
    assert refs(g.state.graveyard[0]) == ["1/sword"]
    assert g.state.graveyard[1] == []
    assert on(g, "C2") == ["1/crown"]
    assert on(g, "T6") == ["0/sword", "0/sword"]
    assert not g.state.eliminated[1]


def test_r15_7_bonus_die_can_win_a_pair() -> None:
    """R15.7: the Forest D10 (9) beats the defender's 5 although the Sword rolled 1."""
    g = at(FROM_FOREST)
    g.play("attack T3 T4", dice=[1, 9, 5])  # Sword 1, Forest 9; Sword 5
    assert refs(g.state.graveyard[0]) == ["1/sword"]
    assert on(g, "T4") == ["0/sword"]
    assert on(g, "T3") == []


def test_r15_7_pair_lost_by_the_bonus_die_costs_a_unit() -> None:
    """R15.7: the Forest D10 (1) loses its pair; the hit is taken by the attacking Sword."""
    g = at(FROM_FOREST | {"T4": "1/sword 1/sword"})
    g.play("attack T3 T4", dice=[8, 1, 5, 5])  # Sword 8, Forest 1; Swords 5, 5
    assert on(g, "T3") == []
    assert refs(g.state.graveyard[1]) == ["0/sword"]
    assert refs(g.state.graveyard[0]) == ["1/sword"]
    assert on(g, "T4") == ["1/sword"]


# --- section 16: battle -------------------------------------------------------------------------


def full_battle() -> Game:
    """FULL_BATTLE attacked T4 -> T7; the defender must choose 2 casualties among 4 units."""
    g = at(FULL_BATTLE)
    # Crown 1, General+ 12 10, Catapult 1 1, Sword of Khalis 1; Crown 1, Archer 1, Shield+
    # 11, Sword 1. Sorted 12 10 1 1 1 1 against 11 1 1 1: two hits on D, two ties.
    g.play("attack T4 T7", dice=[1, 12, 10, 1, 1, 1, 1, 1, 11, 1])
    step = g.steps[-1]
    assert len(step.chance) == 10
    return g


def test_r16_3_every_unit_on_both_tiles_takes_part() -> None:
    """R16.3, R13.2: the pools hold the dice of every unit on A and on D: Crown D6, General+
    D12+D10, Catapult D10+D10, the Sword of Khalis D12 (enemy Crown on D); Crown D6, Archer
    D6, Shield+ D12, Sword D8. Every defender but the Crown may be chosen as a casualty."""
    g = full_battle()
    battle = g.state.battle
    assert battle is not None
    assert battle.attack_dice == [6, 12, 10, 10, 10, 12]
    assert battle.defence_dice == [6, 6, 12, 8]
    assert g.state.pending == Pending(Decision.CASUALTY, 1)
    assert of_kind(g, "casualty") == ["casualty archer", "casualty shield+", "casualty sword"]


def test_r16_13_only_units_on_a_and_d_fight() -> None:
    """R16.13: units on T5 and T6, next to both battle tiles, add no dice and stay put."""
    g = full_battle()
    battle = g.state.battle
    assert battle is not None
    assert len(battle.attack_rolls) == 6 and len(battle.defence_rolls) == 4
    g.play("casualty archer")
    g.play("casualty sword")
    assert on(g, "T5") == ["0/sword"] and on(g, "T6") == ["1/sword"]
    assert on(g, "T7") == ["1/crown", "1/shield+"]


def test_r16_13_r16_15_attacker_dice_are_drawn_first_then_the_defender_dice() -> None:
    """R16.13, R16.15, docs/formats.md: with unforced dice the seeded source gives the
    attacker's pool its first outcomes, the defender's pool the next ones."""
    found = 0
    for seed in range(40):
        state = build(EX1, hands=[[], []], seed=seed)
        g = game_at(state)
        sizes_a, sizes_d = [12, 10, 10, 8, 10], [10, 12, 10]
        probe = g.state.chance.copy()
        expected_a = [probe.roll(s) for s in sizes_a]
        expected_d = [probe.roll(s) for s in sizes_d]
        g.play("attack T3 T6")
        step = g.steps[-1]
        assert step.chance == tuple(expected_a + expected_d)
        battle = g.state.battle
        if battle is not None and battle.attack_rolls:
            assert battle.attack_dice == sizes_a and battle.defence_dice == sizes_d
            assert battle.attack_rolls == expected_a
            assert battle.defence_rolls == expected_d
            found += 1
    assert found > 0


def test_r16_15_dice_are_never_added_up() -> None:
    """R16.15: the Catapult's 5 and 5 are two results, not a 10: both lose to the Shield's 9
    in the one pair compared (a sum of 10 would have won)."""
    g = at(CATAPULT_VS_SHIELD)
    g.play("attack T4 T7", dice=[5, 5, 9])
    assert on(g, "T4") == []
    assert on(g, "T7") == ["1/shield"]
    assert refs(g.state.graveyard[1]) == ["0/catapult"]


def test_r16_4_defending_leader_is_the_owner_of_d() -> None:
    """R16.4, R17.2: seat 2 owns D; seat 1, next in turn order, has nothing to do with it:
    seat 2 chooses the defending casualty and gets the attacker's dead."""
    g = at(THIRD_SEAT_DEFENDS, players=3)
    # Archer 10, Sword 1; Shield 9, Sword 8: 10v9 hit D, 1v8 hit A.
    g.play("attack T1 T3", dice=[10, 1, 9, 8])
    battle = g.state.battle
    assert battle is not None
    assert (battle.attacker, battle.defender) == (0, 2)
    assert g.state.pending == Pending(Decision.CASUALTY, 0)  # the attacking leader first
    g.play("casualty sword")
    assert g.state.pending == Pending(Decision.CASUALTY, 2)
    g.play("casualty sword")
    assert refs(g.state.graveyard[2]) == ["0/sword"]
    assert refs(g.state.graveyard[0]) == ["2/sword"]
    assert g.state.graveyard[1] == []


def test_r16_25_killed_units_are_off_the_board_and_set_aside_until_step_g() -> None:
    """R16.25, R16.28: after the attacker's choice its Sword is off T3, set aside, and in no
    graveyard yet; at step G the set-aside units reach the graveyards."""
    g = at(EX1)
    g.play("attack T3 T6", dice=EX1_DICE)
    g.play("casualty sword")
    battle = g.state.battle
    assert battle is not None
    assert g.state.pending == Pending(Decision.CASUALTY, 1)
    assert on(g, "T3") == ["0/catapult", "0/general"]
    assert [(unit_ref(c), g.state.world.names[t], k) for c, t, k in battle.set_aside] == [
        ("0/sword", "T3", 1)]
    assert g.state.graveyard == [[], []]
    g.play("casualty shield")
    assert g.state.battle is None
    assert refs(g.state.graveyard[1]) == ["0/sword"]
    assert refs(g.state.graveyard[0]) == ["1/shield"]


# --- section 17: graveyards ---------------------------------------------------------------------


def test_r17_1_killed_units_do_not_return_to_the_reserve() -> None:
    """R17.1: seat 0 had all four Swords on T4; one dies: the reserve still holds no Sword,
    so none can be bought, and the dead Sword is a scalp of seat 1."""
    g = at(FOUR_SWORDS, gold=[5, 0])
    assert g.state.reserve[0][UnitType.SWORD] == 0
    g.play("attack T4 T7", dice=[1, 1, 1, 1, 8])  # Swords 1 1 1 1; Sword 8: one hit on A
    assert on(g, "T4") == ["0/sword"] * 3
    assert g.state.reserve[0][UnitType.SWORD] == 0
    assert refs(g.state.graveyard[1]) == ["0/sword"]
    assert g.state.pending == Pending(Decision.PURCHASE, 0)
    assert not [t for t in g.legal_texts() if t.startswith("buy sword")]
    assert [t for t in g.legal_texts() if t.startswith("buy archer")]


# --- section 19: castles ------------------------------------------------------------------------


def test_r19_5_any_castle_you_control_is_your_castle() -> None:
    """R19.5, R8.1, R9.1, R22.1: seat 0 holds seat 1's home C2, not its own home C1: C2
    spawns, pays and scores as seat 0's castle; C1 does the same for seat 1."""
    board = {"C2": "0/crown", "T4": "0/sword", "C1": "1/crown"}
    s = build(board, phase="event", hands=[[], []])
    assert s.home == [s.world.index("C1"), s.world.index("C2")]
    g = game_at(s)
    assert set(of_kind(g, "spawn")) == {f"spawn {u} C2" for u in ("sword", "archer", "shield")}
    g.play("end")
    assert g.state.gold[0] == 1  # castle C2 + T4 // 2
    assert score(g.state, 0) == 3 + 1
    assert score(g.state, 1) == 3


# --- section 22: scoring ------------------------------------------------------------------------


def test_r22_3_highest_total_wins_without_tie_breaks() -> None:
    """R22.3: seat 0 has the higher score but fewer units on the board and wins; no dice."""
    s = build(FEW_BUT_RICH, graveyards=[["1/sword", "1/shield"], []])
    totals = scores(s)
    assert totals == [3 + 2 * 2, 3 + 1]
    assert s.units_on_board(0) < s.units_on_board(1)
    log = len(s.chance.log)
    assert winner(s, totals) == (0, [])
    assert len(s.chance.log) == log


def test_r22_3_final_round_winner_is_the_highest_score() -> None:
    """R22.3, R21.5: The Oracles (EG3) starts the final round; the higher total wins."""
    g = game_at(build(FEW_BUT_RICH, phase="event", deck=["EG3"], hands=[[], []],
                      graveyards=[["1/sword", "1/shield"], []]))
    play_out(g)
    result = g.state.result
    assert result is not None and result.end == "final_round"
    s0, s1 = result.scores
    assert s0 is not None and s1 is not None and s0 > s1
    assert result.winner == 0
    assert result.tie_break == []


# --- section 24: the event deck -----------------------------------------------------------------

HURTING = ("EV10", "EV11", "EV12", "EV15", "EV16", "EV18", "EV19")  # R24.3
NEUTRAL = ("EV14",)


def test_r24_3_deck_balance_26_helping_1_neutral_9_hurting() -> None:
    """R24.3: counted from the card data: 9 hurting cards, 1 neutral, the other 26 help."""
    count = {info.id: info.count for info in EVENT_CARDS}
    assert sum(count.values()) == 36
    hurting = sum(count[c] for c in HURTING)
    neutral = sum(count[c] for c in NEUTRAL)
    assert (sum(count.values()) - hurting - neutral, neutral, hurting) == (26, 1, 9)
    assert EVENT_CARD_BY_ID["EV14"].scope == "global"


@pytest.mark.parametrize(("card", "loss"), [("EV10", 1), ("EV11", 2)])
def test_r24_3_no_event_costs_more_than_2_gold(card: str, loss: int) -> None:
    """R24.3, R7.11: Bandit Raid and Burned Granary take 1 and 2 gold of 9; no unit."""
    g = game_at(build(QUIET_TURN, phase="event", deck=[card], gold=[9, 0], hands=[[], []]))
    assert g.state.gold[0] == 9 - loss
    assert g.state.units_on_board(0) == 3


def test_r3_1_options_are_fixed_before_setup_and_recorded() -> None:
    """R3.1: a Config cannot change once made, and a game's record carries every option."""
    from dataclasses import FrozenInstanceError

    from kaladan.game import Game
    from kaladan.record import to_record
    from kaladan.rules.config import OPTIONS, Config

    config = Config(players=3, mountain_defence="drop_lowest", wolf_d12="attack_from_forest")
    with pytest.raises(FrozenInstanceError):
        config.mountain_defence = "keep_all"  # type: ignore[misc]
    recorded = to_record(Game.new(config, 5))["config"]
    assert all(name in recorded for name in OPTIONS)
    assert recorded["mountain_defence"] == "drop_lowest"
    assert recorded["wolf_d12"] == "attack_from_forest"


def test_r2_8_exactly_seven_unit_types() -> None:
    """R2.8: Crown, General, Catapult, Archer, Shield, Sword and the special unit."""
    from kaladan.rules.units import UnitType

    assert [t.label for t in UnitType] == ["crown", "general", "catapult", "archer", "shield",
                                          "sword", "special"]


def test_r2_6_dice_are_unlimited_a_battle_rolls_every_die_it_needs() -> None:
    """R2.6: no shortage of dice; eleven dice on one side are all rolled (R16.15)."""
    from kaladan.rules.combat import compare

    hits_a, hits_d = compare([12] * 11, [1] * 11, False, False)
    assert (hits_a, hits_d) == (0, 11)  # eleven pairs: every die of both pools took part
