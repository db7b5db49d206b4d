"""Tests of turns and phases (RULES.md sections 6, 8-12) and the end of the game (21, 22).

Unless a docstring says otherwise, positions use the 2-player standard world: T1 Field,
T2 Mountain, T3 Forest, T4 Field, T5 Forest, T6 Mountain, T7 Field; C2 touches T1 and T3,
C1 touches T5 and T7 (R4.9). Seat 0 plays Khalisia, seat 1 Kimbria.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kaladan.game import Game
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.observe import unit_ref
from kaladan.rules.scoring import score, scores, winner
from kaladan.rules.state import Decision, GameState, Pending, Phase
from kaladan.rules.units import SWORD
from positions import advance_to, build, finish_turn, game_at, play_out, unit

# --- named positions ----------------------------------------------------------------------------


def castle_and_spare_tiles(phase: str = "event", **options: object) -> GameState:
    """Seat 0: its castle C2 and a Sword on the Mountain T2."""
    return build({"C2": "0/crown", "T2": "0/sword", "C1": "1/crown"}, phase=phase,
                 **options)


def home_and_captured_castle(c2: str = "0/crown") -> GameState:
    """Seat 0 holds its home C2 and the captured C1; General and special wait in the reserve."""
    return build({"C2": c2, "C1": "0/sword", "T4": "0/archer", "T6": "1/crown"}, phase="event")


def army_at_home() -> GameState:
    """Seat 0: C2 Crown, General, Sword; T1 Archer. Seat 1: a Sword on T4, its Crown on C1."""
    return build({"C2": "0/crown 0/general 0/sword", "T1": "0/archer", "T4": "1/sword",
                  "C1": "1/crown"})


def crowded_forest() -> GameState:
    """Seat 0: two Swords on the Forest T3 (capacity 3) next to C2 (Crown, General, Archer)."""
    return build({"C2": "0/crown 0/general 0/archer", "T3": "0/sword 0/sword", "C1": "1/crown"})


def king_walks_to_free_castle() -> GameState:
    """Seat 0: Crown and Sword on T5, next to the free castle C1. Seat 1 sits on C2."""
    return build({"T5": "0/crown 0/sword", "C2": "1/crown"})


def two_camps() -> GameState:
    """Seat 0: T1 Sword, Archer, Shield; T4 General, Catapult; T3 (Forest, full) Crown,
    Shield, Archer. T1, T3 and T4 are pairwise adjacent."""
    return build({"T1": "0/sword 0/archer 0/shield", "T4": "0/general 0/catapult",
                  "T3": "0/crown 0/shield 0/archer", "C1": "1/crown"})


def shop(*, general: bool = True, special: bool = True, gold: int = 10) -> GameState:
    """Purchase: seat 0 on C2 (Crown, Catapult, Sword, Shield [, General]) and T1 (Archer
    [, special]). A General or special not on the board waits in the reserve."""
    c2 = "0/crown 0/catapult 0/sword 0/shield" + (" 0/general" if general else "")
    t1 = "0/archer" + (" 0/special" if special else "")
    return build({"C2": c2, "T1": t1, "C1": "1/crown"}, phase="purchase", gold=[gold, 0],
                 hands=[["KHA-1"], ["KIM-1"]])


def ex10_frontier(gold: int = 6) -> GameState:
    """EX10: seat 0 controls T1 and T2. Empty: T3 (next to T1), T4 (next to both), T5 (next
    to T2 only) and the free castle C2 (next to T1). Seat 1 holds C1, T6, T7."""
    return build({"T1": "0/crown", "T2": "0/sword", "C1": "1/crown", "T6": "1/sword",
                  "T7": "1/archer"}, phase="purchase", gold=[gold, 0])


def hemmed_in() -> GameState:
    """Purchase: seat 0's Crown on T4, the Mountain T2 full of its units; seat 1 on T5, T7."""
    return build({"T4": "0/crown", "T2": "0/sword 0/archer 0/shield", "T5": "1/crown",
                  "T7": "1/sword"}, phase="purchase", gold=[5, 0])


def dead_general() -> GameState:
    """Purchase: seat 0's General lies in seat 1's graveyard (a scalp of seat 1)."""
    return build({"C2": "0/crown", "C1": "1/crown"}, phase="purchase", gold=[10, 0],
                 graveyards=[[], ["0/general"]])


def swords_at_home(gold: int = 10, **kw: object) -> GameState:
    """Purchase: seat 0 on C2 with its Crown, a Sword and an upgraded Sword; seat 0 holds
    KHA-1 and seat 1 KIM-1 unless ``hands`` says otherwise."""
    kw.setdefault("hands", [["KHA-1"], ["KIM-1"]])
    return build({"C2": "0/crown 0/sword 0/sword+", "C1": "1/crown"}, phase="purchase",
                 gold=[gold, 0], **kw)


def two_castles(fortified: tuple[str, ...] = ("C1",)) -> GameState:
    """Purchase: seat 0 holds C2 and the captured C1, upgraded by its former owner."""
    return build({"C2": "0/crown", "C1": "0/sword", "T6": "1/crown"}, phase="purchase",
                 gold=[10, 0], fortified=fortified)


def reinforce_position() -> GameState:
    """Reinforcement: seat 0 T4 Crown, Sword, Archer; T1 full (4 of 4); seat 1 on T5 and C1."""
    return build({"T4": "0/crown 0/sword 0/archer", "T1": "0/shield 0/shield 0/sword 0/archer",
                  "T5": "1/sword", "C1": "1/crown"}, phase="reinforce")


def mountain_raid() -> GameState:
    """EX4: three units on the Mountain T2 attack a lone Shield on the Field T4."""
    return build({"T2": "0/sword 0/sword 0/archer", "C2": "0/crown", "T4": "1/shield",
                  "C1": "1/crown"})


def three_castles(deck: list[str], **options: object) -> GameState:
    """3-player world: every Crown alone on its castle; seat 1 is about to draw ``deck``."""
    return build({"C1": "0/crown", "C2": "1/crown", "C3": "2/crown"}, players=3, active=1,
                 phase="event", deck=deck, **options)


def four_castles(deck: list[str], crown0: str = "C1") -> GameState:
    """EX9 in the 4-player world: P1..P4 are seats 0..3; P3 (seat 2) is about to draw.
    Seat 3 also has a General on the Forest T1, next to the Field T2."""
    return build({crown0: "0/crown", "C2": "1/crown", "C3": "2/crown", "C4": "3/crown",
                  "T1": "3/general"}, players=4, active=2, phase="event", deck=deck)


def crowns_face_off(players: int = 2) -> GameState:
    """Seat 0: Crown and General on T4; seat 1's lone Crown on the adjacent Forest T5."""
    extra = {"C3": "2/crown"} if players == 3 else {}
    return build({"T4": "0/crown 0/general", "T5": "1/crown", **extra}, players=players)


def scoring_table() -> GameState:
    """3-player world, seat 2 eliminated by seat 0. Seat 0: castles C1 (home) and C2
    (captured), T1 Field, T2 Forest, T4 Mountain, 3 scalps, 1 Crown trophy, 7 gold.
    Seat 1: T6 Field, T7 Forest, 3 gold. Seat 2 kept 2 scalps and 9 gold."""
    s = build({"C1": "0/crown", "C2": "0/sword", "T1": "0/archer", "T2": "0/shield",
               "T4": "0/sword", "T6": "1/crown", "T7": "1/sword"}, players=3,
              graveyards=[["1/sword", "1/archer", "1/shield"], [], ["0/archer", "1/archer"]])
    s.trophies[0] = [unit("2/crown")]
    s.eliminated[2] = True
    s.gold = [7, 3, 9]
    return s


def even_kingdoms(extra0: str = "", extra1: str = "") -> GameState:
    """Two players with one castle each and no gold: equal scores (3 each)."""
    return build({"C2": ("0/crown " + extra0).strip(), "C1": ("1/crown " + extra1).strip()})


# --- helpers ------------------------------------------------------------------------------------


def on(state: GameState, name: str) -> list[str]:
    """The units on a tile as sorted ``seat/token`` strings."""
    return sorted(unit_ref(c) for c in state.board[state.world.index(name)])


def owner(state: GameState, name: str) -> int:
    return state.tile_owner(state.world.index(name))


def of_kind(game: Game, kind: str) -> list[str]:
    return [t for t in game.legal_texts() if t.split()[0] == kind]


def buy_tiles(game: Game, token: str = "sword") -> set[str]:
    return {t.split()[2] for t in game.legal_texts() if t.startswith(f"buy {token} ")}


# --- R6.2 phase order ---------------------------------------------------------------------------


@pytest.mark.parametrize(("order", "paid_before_spawn", "spawn"),
                         [("seeds", 0, "spawn sword C2"), ("official", 1, "end")])
def test_r6_2_phase_order_seeds_spawn_then_income_official_income_then_spawn(
        order: str, paid_before_spawn: int, spawn: str) -> None:
    game = game_at(castle_and_spare_tiles(phase_order=order))
    assert game.state.pending == Pending(Decision.SPAWN, 0)
    assert game.state.gold[0] == paid_before_spawn
    game.play(spawn)
    assert game.state.phase == Phase.ACTION
    assert game.state.gold[0] == 1  # exactly one Income phase either way


# --- R8 Free Spawn ------------------------------------------------------------------------------


def test_r8_1_one_basic_unit_per_castle_held_captured_castles_included() -> None:
    game = game_at(home_and_captured_castle())
    # General, Catapults and the special unit are in the reserve but never offered (R8.2).
    assert set(of_kind(game, "spawn")) == {f"spawn {u} {c}" for u in ("sword", "archer", "shield")
                                           for c in ("C1", "C2")}
    game.play("spawn shield C2")
    assert set(of_kind(game, "spawn")) == {f"spawn {u} C1" for u in ("sword", "archer", "shield")}
    with pytest.raises(IllegalActionError):
        game.play("spawn sword C2")  # at most one unit per castle
    game.play("spawn archer C1")
    state = game.state
    assert state.phase == Phase.ACTION
    assert on(state, "C2") == ["0/crown", "0/shield"]
    assert on(state, "C1") == ["0/archer", "0/sword"]
    assert state.gold[0] == 2  # free: only the income of 2 castles + T4 (1 other tile)


def test_r8_2_spawned_unit_goes_only_onto_the_castle_and_only_with_room() -> None:
    full = "0/crown 0/general 0/special 0/catapult 0/archer"
    game = game_at(home_and_captured_castle(c2=full))
    assert set(of_kind(game, "spawn")) == {f"spawn {u} C1" for u in ("sword", "archer", "shield")}
    with pytest.raises(IllegalActionError):
        game.play("spawn sword C2")
    with pytest.raises(IllegalActionError):
        game.play("spawn sword T4")
    with pytest.raises(IllegalActionError):
        game.play("spawn general C1")


def test_r8_1_empty_castle_gives_no_spawn_and_spawning_is_optional() -> None:
    game = game_at(build({"C2": "0/crown", "T5": "0/sword", "T6": "1/crown"}, phase="event"))
    assert set(of_kind(game, "spawn")) == {f"spawn {u} C2" for u in ("sword", "archer", "shield")}
    reserve = list(game.state.reserve[0])
    game.play("end")
    assert game.state.reserve[0] == reserve
    assert on(game.state, "C2") == ["0/crown"]


# --- R9 Income ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("board", "income"), [
    ({"C2": "0/crown", "T2": "0/sword"}, 1),  # EX3: castle + Mountain
    ({"C2": "0/crown", "T2": "0/sword", "T3": "0/archer"}, 2),  # EX3: + Forest
    ({"C2": "0/crown", "C1": "0/general", "T1": "0/sword", "T2": "0/archer", "T3": "0/shield",
      "T4": "0/sword", "T5": "0/archer"}, 4),  # EX3: two castles and five other tiles
    ({"T4": "0/crown 0/sword 0/archer"}, 0),  # one tile, however many units: 1 // 2
    ({"C2": "0/crown 0/general 0/sword 0/archer 0/shield"}, 1),
])
def test_r9_1_ex3_income_is_castles_plus_half_the_other_tiles(board: dict[str, str],
                                                               income: int) -> None:
    state = build({**board, "T6": "1/crown", "T7": "1/sword"}, phase="income", gold=[3, 2])
    assert state.phase == Phase.ACTION
    assert state.gold == [3 + income, 2]  # only the active player is paid


# --- R10 Move and Swap --------------------------------------------------------------------------


def move_parts(text: str) -> tuple[str, str, tuple[str, ...]]:
    _, src, dst, units = text.split()
    return src, dst, tuple(sorted(units.split(",")))


def test_r10_2_any_non_empty_subset_moves_to_an_adjacent_own_or_empty_tile() -> None:
    game = game_at(army_at_home())
    moves = [move_parts(t) for t in of_kind(game, "move")]
    assert {(s, d) for s, d, _ in moves} == {("C2", "T1"), ("C2", "T3"), ("T1", "T2"),
                                             ("T1", "T3"), ("T1", "C2")}
    to_t3 = {u for s, d, u in moves if (s, d) == ("C2", "T3")}
    assert to_t3 == {("crown",), ("general",), ("sword",), ("crown", "general"),
                     ("crown", "sword"), ("general", "sword"), ("crown", "general", "sword")}
    game.play("move C2 T3 general,sword")  # R10.1: the chosen units go together, one action
    assert on(game.state, "C2") == ["0/crown"]
    assert on(game.state, "T3") == ["0/general", "0/sword"]
    assert game.state.phase > Phase.ACTION


@pytest.mark.parametrize("text", [
    "move C2 T4 sword",  # R10.2: not adjacent
    "move T1 T5 archer",  # R10.2: not adjacent
    "move T1 T4 archer",  # R10.3: enemy tile
])
def test_r10_3_no_move_to_a_distant_or_enemy_tile(text: str) -> None:
    game = game_at(army_at_home())
    before = game.position()
    with pytest.raises(IllegalActionError):
        game.play(text)
    assert game.position() == before


def test_r10_4_destination_must_hold_all_moving_units() -> None:
    game = game_at(crowded_forest())
    to_t3 = [u for s, d, u in map(move_parts, of_kind(game, "move")) if d == "T3"]
    assert to_t3 and all(len(u) == 1 for u in to_t3)
    with pytest.raises(IllegalActionError):
        game.play("move C2 T3 archer,general")
    game.play("move C2 T3 general")
    assert on(game.state, "T3") == ["0/general", "0/sword", "0/sword"]


def test_r10_5_crown_may_move_leaving_the_source_empty_and_takes_a_free_castle() -> None:
    game = game_at(king_walks_to_free_castle())
    assert owner(game.state, "C1") == -1
    game.play("move T5 C1 crown,sword")
    assert owner(game.state, "C1") == 0
    assert on(game.state, "T5") == []
    assert game.state.controlled(0) == [game.state.world.index("C1")]


def test_r10_7_one_for_several_swap() -> None:
    game = game_at(two_camps())
    game.play("swap T1 T4 sword catapult,general")
    assert on(game.state, "T1") == ["0/archer", "0/catapult", "0/general", "0/shield"]
    assert on(game.state, "T4") == ["0/sword"]
    assert game.state.phase > Phase.ACTION


def test_r10_7_several_for_several_is_never_listed() -> None:
    game = game_at(two_camps())
    swaps = [t.split() for t in of_kind(game, "swap")]
    assert swaps
    assert all(len(a.split(",")) == 1 or len(b.split(",")) == 1 for _, _, _, a, b in swaps)
    assert all(owner(game.state, x) == 0 and owner(game.state, y) == 0
               for _, x, y, _, _ in swaps)  # R10.6: both tiles yours
    with pytest.raises(IllegalActionError):
        game.play("swap T1 T4 sword,archer general,catapult")


def test_r10_8_both_tiles_within_capacity_after_the_swap() -> None:
    game = game_at(two_camps())
    texts = of_kind(game, "swap")
    # T3 (Forest, 3 of 3) cannot give one unit and receive two.
    assert "swap T3 T4 archer catapult,general" not in texts
    with pytest.raises(IllegalActionError):
        game.play("swap T3 T4 archer catapult,general")
    assert "swap T3 T4 catapult,general archer" not in texts  # 2 + 2 over capacity too
    game.play("swap T3 T4 archer general")  # one for one keeps 3
    assert on(game.state, "T3") == ["0/crown", "0/general", "0/shield"]
    assert on(game.state, "T4") == ["0/archer", "0/catapult"]


def test_r10_6_either_tile_may_be_named_first_in_a_swap() -> None:
    """R10.6 lets the player choose which of the two tiles is "the first"; naming T4 first
    describes the same legal swap as test_r10_7_one_for_several_swap."""
    game = game_at(two_camps())
    game.play("swap T4 T1 catapult,general sword")
    assert on(game.state, "T1") == ["0/archer", "0/catapult", "0/general", "0/shield"]
    assert on(game.state, "T4") == ["0/sword"]


# --- R11 Purchase -------------------------------------------------------------------------------

Check = Callable[[GameState], bool]
COST_ROWS: list[tuple[str, dict[str, bool], int, Check]] = [
    ("buy sword T1", {}, 1, lambda s: "0/sword" in on(s, "T1")),
    ("buy archer T1", {}, 1, lambda s: on(s, "T1").count("0/archer") == 2),
    ("buy shield T1", {}, 1, lambda s: "0/shield" in on(s, "T1")),
    ("buy catapult T1", {}, 2, lambda s: "0/catapult" in on(s, "T1")),
    ("buy general T1", {"general": False}, 2, lambda s: "0/general" in on(s, "T1")),
    ("buy special T1", {"special": False}, 2, lambda s: "0/special:khalisia" in on(s, "T1")),
    ("upgrade sword C2", {}, 2, lambda s: "0/sword+" in on(s, "C2")),
    ("upgrade shield C2", {}, 2, lambda s: "0/shield+" in on(s, "C2")),
    ("upgrade archer T1", {}, 2, lambda s: "0/archer+" in on(s, "T1")),
    ("upgrade catapult C2", {}, 3, lambda s: "0/catapult+" in on(s, "C2")),
    ("upgrade general C2", {}, 4, lambda s: "0/general+" in on(s, "C2")),
    ("upgrade special T1", {}, 2, lambda s: "0/special:khalisia+" in on(s, "T1")),
    ("fortify C2", {}, 4, lambda s: s.fortified[s.world.index("C2")]),
    ("swapcard KHA-1 KHA-2", {}, 2, lambda s: s.hand[0] == ["KHA-2"]),
    ("extracard KHA-2", {}, 4, lambda s: s.hand[0] == ["KHA-1", "KHA-2"]),
    ("buycard NAN-1", {}, 4, lambda s: "NAN-1" in s.hand[0]),  # R18.6
]


@pytest.mark.parametrize(("text", "kw", "cost", "check"), COST_ROWS,
                         ids=[row[0] for row in COST_ROWS])
def test_r11_2_each_purchase_costs_exactly_its_price(text: str, kw: dict[str, bool], cost: int,
                                                      check: Check) -> None:
    state = shop(**kw)
    state.buyable[0] = ["NAN-1"]  # as if seat 0 had eliminated Nanchia (R18.6)
    game = game_at(state.copy())  # a fresh copy: nothing computed before the edit is reused
    game.play(text)
    assert game.state.gold[0] == 10 - cost
    assert check(game.state)


def test_r11_4_ex10_only_one_empty_tile_per_purchase_phase() -> None:
    """EX10 with this world's names: EX10's T3 (empty, next to T2) is T5 here, and EX10's T4
    (empty, next to T1) is T3 here."""
    game = game_at(ex10_frontier())
    assert buy_tiles(game) == {"T1", "T2", "T3", "T4", "T5", "C2"}
    game.play("buy sword T1")
    game.play("buy shield T5")
    assert buy_tiles(game, "archer") == {"T1", "T2", "T5"}
    with pytest.raises(IllegalActionError) as info:
        game.play("buy archer T3")
    assert info.value.rule == "R11.4"
    game.play("buy archer T5")
    assert on(game.state, "T5") == ["0/archer", "0/shield"]
    assert on(game.state, "T1") == ["0/crown", "0/sword"]
    assert game.state.gold[0] == 3


def test_r11_4_the_next_purchase_phase_may_use_another_empty_tile() -> None:
    game = game_at(ex10_frontier())
    game.play("buy shield T5")
    finish_turn(game)  # seat 0 ends its turn
    finish_turn(game)  # seat 1 plays a quiet turn
    advance_to(game, Pending(Decision.PURCHASE, 0))
    assert "T3" in buy_tiles(game)
    game.play("buy sword T3")
    assert owner(game.state, "T3") == 0


def test_r11_4_the_empty_tile_may_be_a_free_castle() -> None:
    game = game_at(ex10_frontier())
    game.play("buy sword C2")
    assert owner(game.state, "C2") == 0
    assert buy_tiles(game) == {"T1", "T2", "C2"}


def test_r11_5_never_on_an_enemy_tile_or_beyond_capacity() -> None:
    game = game_at(hemmed_in())
    tiles = buy_tiles(game)
    assert "T5" not in tiles and "T7" not in tiles  # enemy tiles next to T4
    assert "T2" not in tiles  # full Mountain
    assert {"T4", "T1", "T3", "T6"} <= tiles
    with pytest.raises(IllegalActionError) as info:
        game.play("buy sword T5")
    assert info.value.rule == "R11.5"
    with pytest.raises(IllegalActionError):
        game.play("buy sword T2")


def test_r11_6_adjacency_is_judged_with_the_tiles_controlled_at_placement() -> None:
    game = game_at(build({"C2": "0/crown", "T1": "0/sword", "C1": "1/crown"}, gold=[3, 0]))
    game.play("move T1 T4 sword")  # the Action phase moved seat 0 from T1 to T4
    assert game.state.pending == Pending(Decision.PURCHASE, 0)
    # T5 and T6 touch none of the tiles seat 0 held at the start of its turn, only T4.
    assert {"T1", "T2", "T3", "T5", "T6", "T7", "T4", "C2"} == buy_tiles(game)


def test_r11_7_a_dead_general_cannot_be_bought_and_a_crown_never() -> None:
    game = game_at(dead_general())
    assert not [t for t in game.legal_texts() if t.startswith(("buy general", "buy crown"))]
    with pytest.raises(IllegalActionError):
        game.play("buy general C2")
    with pytest.raises(IllegalActionError):
        game.play("buy crown C2")


def test_r11_8_upgrade_once_never_a_crown_never_in_the_reserve() -> None:
    game = game_at(swords_at_home())
    assert of_kind(game, "upgrade") == ["upgrade sword C2"]  # not sword+, Crown, reserve units
    for text in ("upgrade crown C2", "upgrade sword+ C2", "upgrade catapult C2"):
        with pytest.raises(IllegalActionError):
            game.play(text)
    game.play("upgrade sword C2")
    assert on(game.state, "C2") == ["0/crown", "0/sword+", "0/sword+"]
    assert game.state.gold[0] == 8
    assert of_kind(game, "upgrade") == []


def test_r11_9_a_unit_placed_this_phase_may_be_upgraded() -> None:
    game = game_at(swords_at_home())
    game.play("buy catapult C2")
    game.play("upgrade catapult C2")
    assert "0/catapult+" in on(game.state, "C2")
    assert game.state.gold[0] == 10 - 2 - 3


def test_r11_11_castle_upgrade_once_per_castle_tile_home_or_captured() -> None:
    assert set(of_kind(game_at(two_castles(())), "fortify")) == {"fortify C1", "fortify C2"}
    game = game_at(two_castles())
    assert of_kind(game, "fortify") == ["fortify C2"]  # C1 was upgraded by its old owner
    with pytest.raises(IllegalActionError):
        game.play("fortify C1")
    game.play("fortify C2")
    assert of_kind(game, "fortify") == []
    assert game.state.gold[0] == 6


def test_r11_12_swap_choose_any_pool_card_never_the_one_returned() -> None:
    game = game_at(swords_at_home())
    assert set(of_kind(game, "swapcard")) == {f"swapcard KHA-1 KHA-{k}" for k in (2, 3, 4, 5)}
    with pytest.raises(IllegalActionError):
        game.play("swapcard KHA-1 KHA-1")
    game.play("swapcard KHA-1 KHA-4")
    assert game.state.hand[0] == ["KHA-4"]
    assert sorted(game.state.pool[0]) == ["KHA-1", "KHA-2", "KHA-3", "KHA-5"]
    assert game.state.gold[0] == 8


def test_r11_13_random_swap_draws_from_the_pool_but_not_the_card_just_returned() -> None:
    taken = set()
    for seed in range(40):
        game = game_at(swords_at_home(seed=seed, starting_magic="random"))
        assert of_kind(game, "swapcard") == ["swapcard KHA-1"]  # no card to name
        game.play("swapcard KHA-1")
        (card,) = game.state.hand[0]
        taken.add(card)
        assert sorted(game.state.pool[0] + [card]) == [f"KHA-{k}" for k in range(1, 6)]
    assert taken == {"KHA-2", "KHA-3", "KHA-4", "KHA-5"}


def test_r11_12_only_own_realm_cards_can_be_swapped_and_only_with_a_pool() -> None:
    game = game_at(swords_at_home(hands=[["KHA-1", "NAN-2"], ["KIM-1"]]))
    assert {t.split()[1] for t in of_kind(game, "swapcard")} == {"KHA-1"}
    with pytest.raises(IllegalActionError):
        game.play("swapcard NAN-2 KHA-2")
    game = game_at(swords_at_home(hands=[[f"KHA-{k}" for k in range(1, 6)], ["KIM-1"]]))
    assert of_kind(game, "swapcard") == [] and of_kind(game, "extracard") == []


def test_r11_14_extra_card_choose_and_random() -> None:
    game = game_at(swords_at_home())
    assert set(of_kind(game, "extracard")) == {f"extracard KHA-{k}" for k in (2, 3, 4, 5)}
    game.play("extracard KHA-3")
    game.play("extracard KHA-5")  # R11.15: no limit
    assert game.state.hand[0] == ["KHA-1", "KHA-3", "KHA-5"]
    assert game.state.gold[0] == 2
    rnd = game_at(swords_at_home(starting_magic="random"))
    assert of_kind(rnd, "extracard") == ["extracard"]
    rnd.play("extracard")
    assert len(rnd.state.hand[0]) == 2 and len(rnd.state.pool[0]) == 3
    assert set(rnd.state.hand[0]) | set(rnd.state.pool[0]) == {f"KHA-{k}" for k in range(1, 6)}


@pytest.mark.parametrize(("gold", "absent", "present"), [
    (1, ["buy catapult", "buy special", "upgrade", "fortify", "swapcard", "extracard"],
     ["buy sword", "buy archer", "buy shield"]),
    (3, ["upgrade general", "fortify", "extracard"],
     ["upgrade catapult", "upgrade sword", "swapcard", "buy catapult", "buy special"]),
])
def test_r11_1_unaffordable_purchases_are_not_offered(gold: int, absent: list[str],
                                                      present: list[str]) -> None:
    game = game_at(shop(gold=gold, special=False))
    texts = game.legal_texts()
    for prefix in absent:
        assert not [t for t in texts if t.startswith(prefix)], prefix
    for prefix in present:
        assert [t for t in texts if t.startswith(prefix)], prefix
    if gold < 2:
        with pytest.raises(IllegalActionError) as info:
            game.play("buy catapult T1")
        assert info.value.rule == "R11.1"


# --- R12 Reinforcement --------------------------------------------------------------------------


def test_r12_1_one_unit_to_an_adjacent_own_or_empty_tile_within_capacity() -> None:
    game = game_at(reinforce_position())
    moves = [move_parts(t) for t in of_kind(game, "move")]
    assert moves and all(len(u) == 1 for _, _, u in moves)
    assert all(owner(game.state, d) in (-1, 0) for _, d, _ in moves)  # R12.2
    assert not [m for m in moves if m[1] == "T1"]  # T1 is full
    assert not [m for m in moves if m[1] == "T5"]  # enemy
    with pytest.raises(IllegalActionError):
        game.play("move T4 T2 sword,archer")
    game.play("move T4 T2 sword")
    assert on(game.state, "T2") == ["0/sword"]
    assert game.state.active == 1  # R12.4 the turn is over


def test_r12_1_swaps_are_one_for_one_even_with_a_full_tile() -> None:
    game = game_at(reinforce_position())
    swaps = [t.split() for t in of_kind(game, "swap")]
    assert swaps and all("," not in a and "," not in b for _, _, _, a, b in swaps)
    with pytest.raises(IllegalActionError):
        game.play("swap T1 T4 shield archer,sword")
    game.play("swap T1 T4 shield crown")
    assert on(game.state, "T1") == ["0/archer", "0/crown", "0/shield", "0/sword"]
    assert on(game.state, "T4") == ["0/archer", "0/shield", "0/sword"]


def test_r12_1_either_tile_may_be_named_first_in_a_reinforcement_swap() -> None:
    game = game_at(reinforce_position())
    game.play("swap T4 T1 crown shield")  # the same swap as "swap T1 T4 shield crown"
    assert on(game.state, "T1") == ["0/archer", "0/crown", "0/shield", "0/sword"]
    assert on(game.state, "T4") == ["0/archer", "0/shield", "0/sword"]


def test_r12_3_ex4_a_unit_moves_back_onto_the_tile_the_invasion_left() -> None:
    game = game_at(mountain_raid())
    game.play("attack T2 T4", dice=[8, 8, 8, 1])  # three attack dice beat the Shield's D10
    state = game.state
    assert on(state, "T4") == ["0/archer", "0/sword", "0/sword"]  # all three moved in
    assert on(state, "T2") == []
    assert state.pending == Pending(Decision.REINFORCE, 0)
    game.play("move T4 T2 sword")
    assert owner(game.state, "T2") == 0 and owner(game.state, "T4") == 0


# --- R21 the end of the game --------------------------------------------------------------------


def test_r21_3_r22_1_final_round_every_player_once_more_ending_with_the_drawer() -> None:
    game = game_at(three_castles(["EG1", "EV27", "EV10", "EV13"]))
    assert game.state.discard == ["EG1"]
    assert play_out(game) == [2, 0, 1]
    state = game.state
    assert len(state.deck) == 3  # R7.2, R21.4: no event card drawn in the final round
    assert state.discard == ["EG1"]
    assert state.result is not None and state.result.end == "final_round"
    # Income 1 per turn: the drawer (seat 1) had two turns, the others one. Each scores its
    # castle (3), gold // 2 and The Six Gates Open for one tile type (2).
    assert state.gold == [1, 2, 1]
    assert state.result.scores == [5, 6, 5]
    assert state.result.winner == 1


def test_r21_2_with_no_end_game_card_the_last_event_card_starts_the_final_round() -> None:
    game = game_at(build({"C2": "0/crown", "C1": "1/crown"}, phase="event", deck=["EV27"],
                         end_game_card="none"))
    assert game.state.discard == ["EV27"]
    assert play_out(game) == [1, 0]
    assert game.state.result is not None and game.state.result.end == "final_round"


@pytest.mark.parametrize(("card", "gold"), [("EG4", [0, 0, 1, 0]), ("EG3", [1, 1, 2, 1])])
def test_ex9_gilded_silence_no_income_in_the_final_round_but_the_drawers_turn(
        card: str, gold: list[int]) -> None:
    """EX9, R9.4, EG4: P3 (seat 2) draws The Gilded Silence (EG3: income as usual)."""
    game = game_at(four_castles([card, "EV27", "EV27"]))
    advance_to(game, Pending(Decision.ACTION, 2))
    assert game.state.gold[2] == 1  # the drawer's current turn still gets income
    assert play_out(game) == [3, 0, 1, 2]
    assert game.state.gold == gold
    assert len(game.state.deck) == 2


def test_ex9_r21_3_player_eliminated_before_their_final_turn_is_skipped() -> None:
    """EX9: P1 (seat 0, its Crown alone on the Field T2) falls in P4's final turn."""
    game = game_at(four_castles(["EG4"], crown0="T2"))
    seats = []
    finish_turn(game)
    seats.append(game.state.active)
    advance_to(game, Pending(Decision.ACTION, 3))
    game.play("attack T1 T2", dice=[5, 5, 1])  # General D12 + Forest D10 against a D6
    assert game.state.eliminated[0]
    assert not game.is_over
    seats += play_out(game)
    assert seats == [3, 1, 2]
    result = game.state.result
    assert result is not None and result.end == "final_round"
    assert result.scores[0] is None


def test_r21_1_last_crown_wins_at_once() -> None:
    game = game_at(crowns_face_off())
    game.play("attack T4 T5", dice=[6, 6, 1])
    state = game.state
    assert state.is_over and state.pending.kind == Decision.NONE
    assert state.result is not None
    assert state.result.end == "last_crown" and state.result.winner == 0


def test_r21_1_the_game_goes_on_while_two_crowns_remain() -> None:
    game = game_at(crowns_face_off(players=3))
    game.play("attack T4 T5", dice=[6, 6, 1])
    assert game.state.eliminated[1]
    assert not game.is_over
    assert on(game.state, "T5") == ["0/crown", "0/general"]  # the invasion happened


# --- R22 scoring --------------------------------------------------------------------------------


def test_r22_1_scoring_table() -> None:
    state = scoring_table()
    # Seat 0: trophy 5 + castles 2*3 + scalps 3*2 + other tiles 3 + gold 7 // 2.
    assert score(state, 0) == 5 + 6 + 6 + 3 + 3
    assert score(state, 1) == 2 + 1
    state.six_gates = True  # EG1: 2 per distinct tile type
    assert score(state, 0) == 23 + 2 * 4  # Castle, Field, Forest, Mountain
    assert score(state, 1) == 3 + 2 * 2  # Field, Forest


def test_r22_2_eliminated_players_are_not_scored_and_cannot_win() -> None:
    state = scoring_table()
    state.gold[2] = 100
    assert scores(state) == [23, 3, None]
    assert winner(state, scores(state))[0] == 0


def test_r22_4_tie_broken_by_units_on_the_board() -> None:
    state = even_kingdoms(extra1="1/general 1/sword")
    assert scores(state) == [3, 3]
    assert winner(state, scores(state)) == (1, [])


def test_r22_4_then_by_units_in_the_reserve() -> None:
    state = even_kingdoms(extra0="0/sword", extra1="1/sword")
    state.reserve[1][SWORD] -= 2  # two of seat 1's Swords were removed from the game
    state.removed += [unit("1/sword")] * 2
    assert scores(state) == [3, 3]
    assert winner(state, scores(state)) == (0, [])


def test_r22_4_then_by_the_sum_of_d6_d8_d10_d12_rerolling_ties() -> None:
    state = even_kingdoms()
    state.chance.force([1, 1, 1, 1, 6, 8, 10, 12])
    assert winner(state, scores(state)) == (1, [[4, 36]])
    state.chance.force([2, 2, 2, 2, 2, 2, 2, 2, 6, 8, 10, 12, 1, 1, 1, 1])
    assert winner(state, scores(state)) == (0, [[8, 8], [36, 4]])


def test_r22_4_only_the_tied_players_roll() -> None:
    state = build({"C1": "0/crown", "C2": "1/crown", "C3": "2/crown"}, players=3)
    state.gold = [0, 2, 2]  # seats 1 and 2 score 4, seat 0 scores 3
    state.chance.force([6, 8, 10, 12, 1, 2, 3, 4])
    assert winner(state, scores(state)) == (1, [[36, 10]])
