"""Team mode (RULES.md section 23, R16.4 side leader, EX8) through the checked Game facade.

Seats alternate between the teams: seats 0, 2 (, 4) are team 0 and seats 1, 3 (, 5) team 1.
Dice are forced in pool order: the attacking side first, then the defending side; within a
side the units in canonical order (owner seat first, then Crown, General, Catapult, Archer,
Shield, Sword, special; plain before upgraded), then the side's bonus dice.

4-player standard world (team_2v2): T4 Mountain, T5 Forest, T6 Forest, T7 Field, T8 Mountain,
T9 Field, T10 Mountain, T11 Forest, T13 Field; T7 is next to T4, T5, T6, T8, T10 and T11;
T8 to T5, T7, T11; T10 to T6, T7, T9, T11, T12, T13. Castle spots: C1 (seat 0's home) next to
T2 and T5, C2 (seat 1) next to T11 and T13, C3 (seat 2) next to T9 and T12, C4 (seat 3) next
to T1 and T3. Realms by seat: Khalisia, Kimbria, Nanchia, Ardinor unless a test says
otherwise. Hands are empty unless given, so no magic is declared.
"""

from __future__ import annotations

import pytest

from kaladan.game import Game
from kaladan.rules.combat import side_leader
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError, IllegalActionError
from kaladan.rules.observe import observe
from kaladan.rules.scoring import scores, team_result, team_score
from kaladan.rules.state import Decision, GameState, Phase
from kaladan.rules.units import KHALISIA, UnitType
from kaladan.rules.world import standard_world
from positions import build, game_at, on, options_of, pass_turn, pending, refs, unit

CROWNS = {"C1": "0/crown", "C2": "1/crown", "C3": "2/crown", "C4": "3/crown"}
# EX8: seat 0 (General, Sword) and its ally seat 2 (Archer) share Field T7; seat 1 holds
# Mountain T8 with two Shields.
EX8 = CROWNS | {"T7": "0/general 0/sword 2/archer", "T8": "1/shield 1/shield"}
# Attack: General D12 11, Sword D8 6, Archer D10 7; defence: Shields D10 8, 4, Mountain D10 7.
EX8_DICE = [11, 6, 7, 8, 4, 7]
# R23.25: seat 1's Crown and seat 3's two Shields on Mountain T8 (seat 3 leads the defence);
# seat 0 attacks from Field T7 with one General beside three units of its ally seat 2.
CROWN_ON_T8 = {"C1": "0/crown", "C2": "1/sword 1/special:kimbria", "C3": "2/crown", "C4": "3/crown",
               "T7": "0/general 2/archer 2/sword 2/sword", "T8": "1/crown 3/shield 3/shield"}


# --- helpers -------------------------------------------------------------------------------


def team_game(board: dict[str, str], players: int = 4, **options: object) -> Game:
    """The checked team game at ``board`` (seat 0 in its Action phase unless told)."""
    options.setdefault("mode", "team_2v2" if players == 4 else "team_3v3")
    return game_at(build(board, players=players, **options))  # type: ignore[arg-type]


def index(g: Game, name: str) -> int:
    return g.state.world.index(name)


def fallen(state: GameState, seat: int, killer: int) -> None:
    """Make ``seat``'s Crown an earlier trophy of ``killer`` (it is on no tile of the board)."""
    state.reserve[seat][UnitType.CROWN] = 0
    state.trophies[killer].append(unit(f"{seat}/crown"))
    state.invalidate()


def setup_to(g: Game, kind: Decision) -> None:
    """Play the first offered choice of every setup decision until ``kind`` is pending."""
    for _ in range(50):
        if g.state.pending.kind == kind:
            return
        g.play(g.legal_texts()[0])
    raise AssertionError(f"{kind.label} never came")


# --- format, seating and setup (R23.1-R23.7) ----------------------------------------------


@pytest.mark.parametrize(("mode", "players"), [("team_2v2", 4), ("team_3v3", 6)])
def test_r23_1_team_modes_take_exactly_their_player_count(mode: str, players: int) -> None:
    """R23.1, R3.2, R5.1: 2v2 is 4 players, 3v3 is 6; any other count names R23.1."""
    assert Config(players=players, mode=mode).mode == mode
    for wrong in {3, 4, 5, 6} - {players}:
        with pytest.raises(ConfigError) as err:
            Config(players=wrong, mode=mode)
        assert err.value.rule == "R23.1"


@pytest.mark.parametrize("players", [4, 6])
def test_r23_2_r23_3_seats_and_turn_positions_alternate_between_teams(players: int) -> None:
    """R23.2, R23.3: allies never sit side by side; odd and even turn positions are teams."""
    mode = "team_2v2" if players == 4 else "team_3v3"
    firsts = set()
    for seed in range(12):
        s = Game.new(Config(players=players, mode=mode), seed).state
        assert s.team == tuple(p % 2 for p in range(players))
        assert s.allies(0) == list(range(2, players, 2))
        order = [(s.first + k) % players for k in range(players)]
        assert [s.team[p] for p in order] == [(s.team[s.first] + k) % 2 for k in range(players)]
        firsts.add(s.first)
    assert len(firsts) > 1  # R5.3: the first player is rolled, whoever it is


def test_r23_2_turns_pass_to_the_other_team() -> None:
    """R23.2: after seat 0's turn an opponent plays, then seat 0's ally."""
    g = team_game(CROWNS | {"T7": "0/sword"})
    pass_turn(g)
    assert g.state.active == 1
    pass_turn(g)
    assert g.state.active == 2


@pytest.mark.parametrize(("mode", "players"), [("team_2v2", 4), ("team_3v3", 6)])
def test_r23_4_team_worlds_are_the_standard_4_and_6_player_worlds(mode: str,
                                                                  players: int) -> None:
    """R23.4, R4.9: 2v2 plays on the 4-player world, 3v3 on the 6-player world."""
    world = Game.new(Config(players=players, mode=mode), 0).state.world
    standard = standard_world(players)
    assert world.coords == standard.coords
    assert world.names == standard.names
    assert world.terrain == standard.terrain
    shuffled = Game.new(Config(players=players, mode=mode, world="random_terrain"), 0).state
    assert shuffled.world.coords == standard.coords  # same positions, dealt terrain


def test_r23_5_realms_are_chosen_in_turn_order_a_taken_realm_is_gone() -> None:
    """R23.5, R5.5: realm choices go round in turn order, alternating teams; no repeats."""
    g = Game.new(Config(players=4, mode="team_2v2"), 5)
    first = g.state.first
    taken: list[str] = []
    for k in range(4):
        assert pending(g) == (Decision.REALM, (first + k) % 4)
        offered = options_of(g, "realm")
        assert all(f"realm {r}" not in offered for r in taken)
        choice = offered[-1]
        taken.append(choice.split()[1])
        g.play(choice)
    assert pending(g)[0] == Decision.START_CARD


def test_r23_5_r23_12_allies_see_hands_and_pools_the_other_team_counts_only() -> None:
    """R23.5, R23.12, R5.13: an ally's hand and realm pool are visible, an enemy's are not."""
    hands = [["KHA-1"], ["KIM-1"], ["NAN-1"], ["ARD-1"]]
    g = team_game(CROWNS, hands=hands)
    for seat in range(4):
        players = observe(g.state, seat)["players"]
        ally = (seat + 2) % 4
        assert players[ally]["hand"] == hands[ally]
        assert len(players[ally]["pool"]) == 4
        for enemy in ((seat + 1) % 4, (seat + 3) % 4):
            assert "hand" not in players[enemy] and "pool" not in players[enemy]
            assert players[enemy]["hand_count"] == 1
            assert players[enemy]["pool_count"] == 4


def test_r23_5_starting_card_hidden_from_the_other_team_after_setup() -> None:
    """R23.5: after the real setup the starting card is seen by the ally, not the enemies."""
    g = Game.new(Config(players=4, mode="team_2v2"), 2)
    setup_to(g, Decision.CASTLE)
    s = g.state
    for seat in range(4):
        players = observe(s, seat)["players"]
        assert players[(seat + 2) % 4]["hand"] == s.hand[(seat + 2) % 4]
        assert "hand" not in players[(seat + 1) % 4]


@pytest.mark.parametrize(("players", "odd", "even"), [
    (4, ["castle C1", "castle C3"], ["castle C2", "castle C4"]),
    (6, ["castle C1", "castle C3", "castle C5"], ["castle C2", "castle C4", "castle C6"]),
])
def test_r23_6_alternating_castle_spots_by_turn_position(players: int, odd: list[str],
                                                         even: list[str]) -> None:
    """R23.6, R5.8: placed in reverse turn order; odd positions C1/C3/C5, even C2/C4/C6."""
    mode = "team_2v2" if players == 4 else "team_3v3"
    g = Game.new(Config(players=players, mode=mode, team_castle_spots="alternating"), 4)
    setup_to(g, Decision.CASTLE)
    first = g.state.first
    for k in reversed(range(players)):  # the last in turn order places first
        seat = (first + k) % players
        assert pending(g) == (Decision.CASTLE, seat)
        # turn position k + 1: odd positions are k = 0, 2, 4
        allowed = odd if k % 2 == 0 else even
        taken = {g.state.world.names[t] for t in g.state.home if t >= 0}
        assert options_of(g, "castle") == [c for c in allowed if c.split()[1] not in taken]
        g.play(options_of(g, "castle")[0])


def test_r23_6_free_castle_spots_offer_every_spot() -> None:
    """R23.6 (free, the default): the first to place may take any of the four spots."""
    g = Game.new(Config(players=4, mode="team_2v2"), 4)
    setup_to(g, Decision.CASTLE)
    assert options_of(g, "castle") == ["castle C1", "castle C2", "castle C3", "castle C4"]


def test_r23_7_starting_gold_by_turn_position_on_own_boards() -> None:
    """R23.7, R5.11: after setup the player in turn position k has k - 1 gold, each their own."""
    g = Game.new(Config(players=4, mode="team_2v2"), 7)
    setup_to(g, Decision.START_UNIT)
    for _ in range(3):
        g.play(options_of(g, "start")[0])
    g.state.deck = []  # no event card, so nothing changes gold before the first Free Spawn
    g.play(options_of(g, "start")[0])
    s = g.state
    assert pending(g) == (Decision.SPAWN, s.first)
    assert s.gold == [s.turn_position(p) for p in range(4)]


# --- sharing tiles and control (R23.8-R23.12) ---------------------------------------------

# Seat 0: two units on Mountain T4; its ally seat 2: three on Field T7 (room for one more)
# and one on Forest T6; the enemy seat 1 on Forest T5.
SHARE = CROWNS | {"T4": "0/sword 0/archer", "T7": "2/archer 2/archer 2/shield",
                  "T6": "2/sword", "T5": "1/sword"}


def test_r23_8_r23_16_moves_onto_friendly_tiles_within_capacity_never_onto_enemy() -> None:
    """R23.8, R23.16, R4.6: an ally's tile may be entered; every unit counts for capacity."""
    g = team_game(SHARE)
    moves = options_of(g, "move")
    assert {"move T4 T7 sword", "move T4 T7 archer"} <= set(moves)
    assert "move T4 T7 archer,sword" not in moves  # 3 + 2 > 4
    assert "move T4 T6 archer,sword" in moves  # 1 + 2 = 3 on a Forest
    assert not [m for m in moves if m.startswith("move T4 T5")]  # the other team's tile
    assert "attack T4 T5" in options_of(g, "attack")
    assert "attack T4 T7" not in options_of(g, "attack")
    g.play("move T4 T7 sword")
    assert on(g, "T7") == ["0/sword", "2/archer", "2/archer", "2/shield"]


@pytest.mark.parametrize(("board", "active", "text"), [
    (SHARE, 0, "move T4 T7 archer,sword"),  # onto the ally's T7 (3 of 4)
    (CROWNS | {"T7": "0/sword 2/archer 2/shield", "T4": "0/sword 0/archer"}, 2,
     "move T7 T4 archer,shield"),  # seat 2 from shared T7 onto seat 0's T4 (2 of 3)
])
def test_r23_8_overfull_move_between_allied_tiles_is_refused_for_capacity(
        board: dict[str, str], active: int, text: str) -> None:
    """R23.8, R4.6, R23.16: a move that overfills a friendly tile is refused for capacity,
    not because the tile were an enemy's (R10.3) or not controlled (R10.2)."""
    g = team_game(board, active=active)
    before = g.position()
    with pytest.raises(IllegalActionError) as err:
        g.play(text)
    assert err.value.rule in ("R4.6", "R23.8")
    assert g.position() == before


def test_r23_9_friendly_and_enemy_tiles_and_tiles_you_occupy() -> None:
    """R23.9: friendly = a unit of the team; 'a tile you control' = a tile you occupy."""
    g = team_game(SHARE | {"T10": "0/shield 2/sword"})
    s = g.state
    names = s.world.names
    assert [names[t] for t in s.controlled(0)] == ["T4", "T10", "C1"]
    assert [names[t] for t in s.friendly(0)] == ["T4", "T6", "T7", "T10", "C1", "C3"]
    assert [names[t] for t in s.friendly(1)] == ["T5", "C2", "C4"]
    assert "T10" in [names[t] for t in s.controlled(2)]  # shared: occupied by both


def test_r23_10_a_player_commands_only_own_units() -> None:
    """R23.10, R23.16: from a shared tile only your own units move; naming an ally's is refused."""
    g = team_game(CROWNS | {"T7": "0/sword 2/archer"})
    assert not [t for t in g.legal_texts() if "2/" in t]
    assert "move T7 T4 sword" in options_of(g, "move")
    before = g.position()
    with pytest.raises(IllegalActionError) as err:
        g.play("move T7 T4 2/archer")
    assert err.value.rule == "R23.10"
    assert g.position() == before


def test_r23_11_gifts_to_allies_in_own_turn_giver_keeps_the_decision() -> None:
    """R23.11, R6.5: any amount of your own gold to an ally; never to an opponent."""
    g = team_game(CROWNS | {"T7": "0/sword"}, gold=[3, 2, 1, 0])
    assert options_of(g, "gift") == ["gift 2 1", "gift 2 2", "gift 2 3"]
    g.play("gift 2 2")
    assert g.state.gold == [1, 2, 3, 0]
    assert pending(g) == (Decision.ACTION, 0)
    for text in ("gift 1 1", "gift 2 2", "gift 3 1"):
        before = g.position()
        with pytest.raises(IllegalActionError) as err:
            g.play(text)
        assert err.value.rule == "R23.11"
        assert g.position() == before


def test_r23_11_gift_during_an_opponents_turn_in_a_casualty_decision() -> None:
    """R23.11: in seat 1's battle seat 0 chooses a casualty, may gift first, keeps the choice."""
    board = CROWNS | {"T7": "0/general 0/sword", "T8": "1/sword 1/sword"}
    g = team_game(board, active=1, gold=[3, 0, 0, 0])
    assert options_of(g, "gift") == []  # seat 1 has no gold
    # Swords 8, 1; General 1, Sword 1: 8v1 hit D, 1v1 tie.
    g.play("attack T8 T7", dice=[8, 1, 1, 1])
    assert pending(g) == (Decision.CASUALTY, 0)
    assert options_of(g, "gift") == ["gift 2 1", "gift 2 2", "gift 2 3"]
    g.play("gift 2 3")
    assert g.state.gold == [0, 0, 3, 0]
    assert pending(g) == (Decision.CASUALTY, 0)
    assert options_of(g, "gift") == []
    g.play("casualty sword")
    assert on(g, "T7") == ["0/general"]
    assert g.state.active == 1


def test_r23_12_allies_see_a_card_committed_face_down_the_enemy_does_not() -> None:
    """R23.12, R16.5: the attacker's face-down card is known to its ally, not to the enemy."""
    g = team_game(EX8, realms=("khalisia", "ardinor", "kimbria", "nanchia"),
                  hands=[[], ["ARD-1"], ["KIM-2"], []])
    g.play("attack T7 T8")
    g.play("magic KIM-2")
    assert pending(g) == (Decision.MAGIC, 1)
    assert observe(g.state, 2)["battle"]["cards"] == {"0": "KIM-2"}
    assert observe(g.state, 1)["battle"]["cards"] == {"0": "committed"}
    assert observe(g.state, 3)["battle"]["cards"] == {"0": "committed"}


# --- phase by phase (R23.13-R23.20) --------------------------------------------------------


def test_r23_13_strongest_counts_own_units_only() -> None:
    """R23.13, R7.13 (EV19): seat 1 with 4 units is Strongest though team 0 has 6 units."""
    board = {"C1": "0/crown 0/sword", "T7": "0/archer 2/archer", "C3": "2/crown 2/sword",
             "C2": "1/crown 1/sword 1/sword 1/shield", "C4": "3/crown"}
    g = team_game(board, phase="event", deck=["EV19"], gold=[2, 2, 2, 2])
    assert pending(g) == (Decision.SPAWN, 0)  # no income yet
    assert g.state.gold == [2, 1, 2, 2]


def test_r23_13_strongest_ties_include_both_teams() -> None:
    """R23.13: seat 0 and seat 1 both have 4 units: both lose 1 gold (EV19)."""
    board = {"C1": "0/crown 0/sword 0/sword", "T7": "0/archer 2/archer", "C3": "2/crown",
             "C2": "1/crown 1/sword 1/sword 1/shield", "C4": "3/crown"}
    g = team_game(board, phase="event", deck=["EV19"], gold=[2, 2, 2, 2])
    assert g.state.gold == [1, 1, 2, 2]


def test_r23_13_richest_counts_own_gold_and_ally_gold_does_not_protect() -> None:
    """R23.13 (EV16, EV10): Richest is per player's own board; a loss never takes ally gold."""
    g = team_game(CROWNS, phase="event", deck=["EV16"], gold=[3, 4, 3, 0])
    assert g.state.gold[1:] == [2, 3, 0]
    g = team_game(CROWNS, phase="event", deck=["EV10"], gold=[0, 0, 5, 0])
    assert g.state.gold == [0, 0, 5, 0]


def test_r23_13_an_allys_catapult_is_not_yours() -> None:
    """R23.13, R7.6 (EV20): only the Catapult's owner gains; its tile-mate does not."""
    board = CROWNS | {"T7": "0/sword 2/catapult"}
    g = team_game(board, phase="event", deck=["EV20"], gold=[0, 0, 0, 0])
    assert g.state.gold[1:] == [0, 1, 0]
    assert pending(g) == (Decision.SPAWN, 0)
    assert g.state.gold[0] == 0


def test_r23_13_event_placement_goes_onto_a_tile_you_occupy() -> None:
    """R23.13, R7.8 (EV01): a shared tile or your own; never a tile only your ally holds."""
    board = CROWNS | {"T7": "0/sword 2/archer", "T10": "2/sword"}
    g = team_game(board, phase="event", deck=["EV01"])
    assert pending(g) == (Decision.EVENT, 0)
    assert sorted(options_of(g, "place")) == ["place sword C1", "place sword T7"]
    g.play("place sword T7")
    assert on(g, "T7") == ["0/sword", "0/sword", "2/archer"]


def test_r23_14_free_spawn_on_an_allys_castle_you_occupy() -> None:
    """R23.14, R8.1-R8.2: one basic unit of your own reserve per castle you occupy."""
    g = team_game(CROWNS | {"C3": "2/crown 0/sword"}, phase="spawn")
    assert pending(g) == (Decision.SPAWN, 0)
    spawns = options_of(g, "spawn")
    assert "spawn shield C3" in spawns and "spawn shield C1" in spawns
    assert not [t for t in spawns if t.endswith(("C2", "C4"))]
    shields = g.state.reserve[0][UnitType.SHIELD]
    g.play("spawn shield C3")
    assert on(g, "C3") == ["0/shield", "0/sword", "2/crown"]
    assert g.state.reserve[0][UnitType.SHIELD] == shields - 1
    assert not [t for t in options_of(g, "spawn") if t.endswith("C3")]  # one per castle


def test_r23_14_no_spawn_on_an_allys_castle_you_do_not_occupy_or_that_is_full() -> None:
    """R23.14: the ally's castle counts only if you stand on it and it has room."""
    g = team_game(CROWNS | {"T9": "0/sword"}, phase="spawn")
    assert not [t for t in options_of(g, "spawn") if t.endswith("C3")]
    full = CROWNS | {"C3": "2/crown 2/sword 2/sword 2/archer 0/sword"}
    g = team_game(full, phase="spawn")
    assert options_of(g, "spawn")
    assert not [t for t in options_of(g, "spawn") if t.endswith("C3")]


def test_r23_15_income_counts_tiles_you_occupy_shared_tiles_for_each() -> None:
    """R23.15, R9.1: castles C1 and the ally's C3 + (T7 shared, T4) // 2 = 3, own board."""
    board = CROWNS | {"C3": "2/crown 0/sword", "T7": "0/sword 2/archer", "T4": "0/sword",
                      "T9": "2/sword"}
    g = team_game(board, phase="income", gold=[0, 0, 5, 0])
    assert g.state.gold == [3, 0, 5, 0]
    g = team_game(board, phase="income", active=2, gold=[0, 0, 5, 0])
    # Seat 2: C3 + (T7, T9) // 2 = 2; T7 counts for seat 2 in its own turn too.
    assert g.state.gold == [0, 0, 7, 0]


def test_r23_16_move_destinations_empty_own_or_friendly() -> None:
    """R23.16, R10.3: from shared T7 the Sword may go anywhere but the enemy's T8."""
    board = CROWNS | {"T7": "0/sword 2/archer", "T6": "2/sword", "T10": "0/archer",
                      "T8": "1/shield"}
    g = team_game(board)
    targets = {t.split()[2] for t in options_of(g, "move") if t.startswith("move T7 ")}
    assert targets == {"T4", "T5", "T6", "T10", "T11"}


def test_r23_17_swap_only_own_units_between_tiles_you_occupy() -> None:
    """R23.17, R10.6-R10.7: T7 and T10 swap seat 0's units; the ally's Archer stays."""
    board = CROWNS | {"T7": "0/sword 2/archer", "T10": "0/archer 0/shield", "T6": "2/sword"}
    g = team_game(board)
    swaps = options_of(g, "swap")
    assert "swap T7 T10 sword archer" in swaps
    assert all(t.split()[1:3] == ["T7", "T10"] for t in swaps)  # never with T6 (ally only)
    assert not [t for t in swaps if "2/" in t]
    g.play("swap T7 T10 sword archer")
    assert on(g, "T7") == ["0/archer", "2/archer"]
    assert on(g, "T10") == ["0/shield", "0/sword"]
    assert on(g, "T6") == ["2/sword"]


# Seat 0 on C1, C3 (its ally's castle) and T7 (shared); seat 2 alone on T10; enemies on T8,
# T11. T13 is empty and next only to the ally's T10 (and C2, T11, T12).
SHOP = CROWNS | {"C3": "2/crown 0/shield", "T7": "0/sword 2/archer", "T10": "2/sword",
                 "T8": "1/shield", "T11": "3/sword"}


def test_r23_19_placement_on_friendly_tiles_or_one_empty_tile_next_to_one() -> None:
    """R23.19, R11.3-R11.5: the ally's T10, or the empty T13 next to it; never T8."""
    g = team_game(SHOP, phase="purchase", gold=[2, 0, 0, 0])
    buys = options_of(g, "buy")
    for tile in ("C1", "C3", "T7", "T10", "T13", "T4"):
        assert f"buy sword {tile}" in buys
    assert "buy sword T8" not in buys and "buy sword T11" not in buys
    g.play("buy sword T13")
    assert on(g, "T13") == ["0/sword"]
    buys = options_of(g, "buy")
    assert "buy sword T13" in buys and "buy sword T10" in buys
    assert "buy sword T4" not in buys  # R11.4: one empty tile per Purchase phase


def test_r23_19_paid_with_own_gold_first_then_allies() -> None:
    """R23.19, R23.11: a Catapult (2) with 1 own gold takes 1 from the ally, none from enemies."""
    g = team_game(SHOP, phase="purchase", gold=[1, 5, 2, 5])
    g.play("buy catapult T7")
    assert g.state.gold == [0, 5, 1, 5]
    assert on(g, "T7") == ["0/catapult", "0/sword", "2/archer"]
    g.play("buy archer T7")
    assert g.state.gold == [0, 5, 0, 5]


def test_r23_19_with_no_own_gold_the_allys_gold_buys() -> None:
    """R23.19: seat 0 has nothing, its ally 3: the Purchase phase is still offered."""
    g = team_game(SHOP, phase="purchase", gold=[0, 9, 3, 9])
    assert pending(g) == (Decision.PURCHASE, 0)
    assert "buy sword C1" in options_of(g, "buy")
    assert options_of(g, "extracard") == []  # 4 gold needed, the team has 3
    g.play("buy sword C1")
    assert g.state.gold == [0, 9, 2, 9]


def test_r23_19_3v3_allies_pay_in_turn_order() -> None:
    """R23.19 (engine order): own gold, then seat 2's, then seat 4's."""
    board = {f"C{k + 1}": f"{k}/crown" for k in range(6)}
    g = team_game(board, players=6, phase="purchase", gold=[0, 0, 1, 0, 5, 0])
    g.play("buy catapult C1")
    assert g.state.gold == [0, 0, 0, 0, 4, 0]


def test_r23_19_upgrades_own_units_castles_occupied_cards_own_pool() -> None:
    """R23.19, R11.8-R11.14: upgrade your own units only; fortify a castle you occupy;
    cards from your own realm pool only; bought units from your own reserve."""
    g = team_game(SHOP, phase="purchase", gold=[2, 0, 4, 0])
    upgrades = options_of(g, "upgrade")
    assert "upgrade sword T7" in upgrades and "upgrade shield C3" in upgrades
    assert not [t for t in upgrades if "2/" in t or t.endswith("T10")]
    assert {"fortify C1", "fortify C3"} <= set(options_of(g, "fortify"))
    cards = options_of(g, "extracard")
    assert cards and all(t.startswith("extracard KHA-") for t in cards)
    assert not [t for t in options_of(g, "buy") if "/" in t]  # only seat 0's own units
    g.play("fortify C3")
    assert g.state.fortified[index(g, "C3")]
    assert g.state.gold == [0, 0, 2, 0]


def test_r23_20_reinforcement_own_units_to_empty_or_friendly_swap_own_only() -> None:
    """R23.20, R12.1: one own unit to the ally's T10 or the empty T4; swap own with own."""
    board = CROWNS | {"T7": "0/sword 0/archer 2/archer", "T10": "2/sword", "T6": "0/shield",
                      "T8": "1/shield"}
    g = team_game(board, phase="reinforce")
    assert pending(g) == (Decision.REINFORCE, 0)
    texts = g.legal_texts()
    assert {"move T7 T10 sword", "move T7 T4 sword", "move T6 T10 shield"} <= set(texts)
    assert not [t for t in texts if "2/" in t or t.startswith("move T7 T8")]
    assert "move T7 T10 archer,sword" not in texts
    swaps = options_of(g, "swap")
    assert "swap T6 T7 shield sword" in swaps
    assert all(t.split()[1:3] == ["T6", "T7"] for t in swaps)


# --- battles with allies (R16.4, R23.18-R23.27, EX8) ---------------------------------------


def test_ex8_team_battle_all_three_invade_shields_to_leader() -> None:
    """EX8, R23.18, R23.21, R23.26, R23.25: both Shields die; all 3 move in, ally included."""
    g = team_game(EX8)
    g.play("attack T7 T8", dice=EX8_DICE)
    step = g.steps[-1]
    assert step.chance == tuple(EX8_DICE)
    assert on(g, "T8") == ["0/general", "0/sword", "2/archer"]
    assert on(g, "T7") == []
    assert refs(g.state.graveyard[0]) == ["1/shield", "1/shield"]
    assert g.state.graveyard[2] == [] and g.state.graveyard[1] == []
    assert g.state.battle is None
    assert pending(g) == (Decision.REINFORCE, 0)  # no invasion choice: min(3, 3) = 3
    assert "move T8 T7 general" in options_of(g, "move")
    assert not [t for t in g.legal_texts() if "2/" in t]


def test_r23_26_active_player_chooses_who_stays_allies_units_included() -> None:
    """R23.26, R17.6: four winners, Mountain holds 3: seat 0 may leave the ally's Shield
    behind; nobody's units change owner."""
    board = CROWNS | {"T7": "0/general 0/sword 2/archer 2/shield", "T8": "1/shield"}
    g = team_game(board)
    # General 12, Sword 1, Archer 1, Shield 1; Shield 1, Mountain 1: 12v1 hit D, 1v1 tie.
    g.play("attack T7 T8", dice=[12, 1, 1, 1, 1, 1])
    assert pending(g) == (Decision.INVASION, 0)
    assert sorted(options_of(g, "leave")) == ["leave 2/archer", "leave 2/shield",
                                              "leave general", "leave sword"]
    g.play("leave 2/shield")
    assert on(g, "T7") == ["2/shield"]
    assert on(g, "T8") == ["0/general", "0/sword", "2/archer"]


def test_r16_4_defending_side_leader_most_units_then_turn_order_after_active() -> None:
    """R16.4: most units on D leads; a tie goes to the first after the active player."""
    s = build(CROWNS | {"T8": "1/shield 3/shield 3/sword", "T7": "0/sword"}, players=4,
              mode="team_2v2")
    assert side_leader(s, s.world.index("T8")) == 3
    s = build(CROWNS | {"T8": "1/shield 3/shield", "T7": "0/sword"}, players=4,
              mode="team_2v2")
    assert side_leader(s, s.world.index("T8")) == 1
    s = build(CROWNS | {"T8": "1/shield 3/shield", "T7": "2/sword"}, players=4,
              mode="team_2v2", active=2)
    assert side_leader(s, s.world.index("T8")) == 3


def test_r23_18_r23_21_everyone_on_both_tiles_fights_bonus_once_per_side() -> None:
    """R23.18, R23.21, R15.8, R16.4: pooled dice, one Forest D10, one Mountain D10; the
    tied defenders' leader (seat 1, first after seat 0) splits the hit; nothing moves."""
    board = CROWNS | {"T5": "0/sword 2/archer 2/shield", "T8": "1/shield 3/sword"}
    g = team_game(board)
    # Sword D8 8, Archer D10 5, Shield D6 5, Forest D10 1; Shield D10 5, Sword D8 5,
    # Mountain D10 7: 8v7 hit D, 5v5 and 5v5 ties.
    g.play("attack T5 T8", dice=[8, 5, 5, 1, 5, 5, 7])
    battle = g.state.battle
    assert battle is not None
    assert battle.attacker == 0 and battle.defender == 1
    assert battle.attack_dice == [8, 10, 6, 10]
    assert battle.defence_dice == [10, 8, 10]
    assert pending(g) == (Decision.SPLIT, 1)
    assert sorted(options_of(g, "split")) == ["split 1:0,3:1", "split 1:1,3:0"]
    g.play("split 1:0,3:1")
    assert on(g, "T8") == ["1/shield"]  # R23.27: the defenders hold, nothing moves
    assert on(g, "T5") == ["0/sword", "2/archer", "2/shield"]
    assert refs(g.state.graveyard[0]) == ["3/sword"]  # R23.25: the attacking leader


# Seat 0 (General, Sword) and seat 2 (Archer) on Field T7 attack three Shields on T8.
SPLIT_BOARD = CROWNS | {"T7": "0/general 0/sword 2/archer", "T8": "1/shield 1/shield 1/shield"}
# General 10, Sword 1, Archer 1; Shields 9, 5, 2, Mountain 1: 10v9 hit D, 1v5 and 1v2 hit A.
SPLIT_DICE = [10, 1, 1, 9, 5, 2, 1]


def test_r23_22_leader_splits_hits_never_more_than_a_players_units() -> None:
    """R23.22, R16.21: 2 hits on (2 + 1) units: no split gives seat 2 two hits."""
    g = team_game(SPLIT_BOARD)
    g.play("attack T7 T8", dice=SPLIT_DICE)
    assert pending(g) == (Decision.SPLIT, 0)
    assert sorted(options_of(g, "split")) == ["split 0:1,2:1", "split 0:2,2:0"]
    before = g.position()
    with pytest.raises(IllegalActionError):
        g.play("split 0:0,2:2")
    assert g.position() == before


def test_r23_22_each_player_then_chooses_own_casualties() -> None:
    """R23.22, R16.22: after 0:1,2:1 seat 0 picks its own loss; seat 2's Archer just dies."""
    g = team_game(SPLIT_BOARD)
    g.play("attack T7 T8", dice=SPLIT_DICE)
    g.play("split 0:1,2:1")
    assert pending(g) == (Decision.CASUALTY, 0)
    assert options_of(g, "casualty") == ["casualty general", "casualty sword"]
    g.play("casualty sword")
    assert on(g, "T7") == ["0/general"]
    assert on(g, "T8") == ["1/shield", "1/shield"]
    assert refs(g.state.graveyard[1]) == ["0/sword", "2/archer"]
    assert refs(g.state.graveyard[0]) == ["1/shield"]


def test_r23_22_all_hits_to_the_leader_the_ally_is_untouched() -> None:
    """R23.22: with 0:2,2:0 both of seat 0's units die and the Archer stays on T7."""
    g = team_game(SPLIT_BOARD)
    g.play("attack T7 T8", dice=SPLIT_DICE)
    g.play("split 0:2,2:0")
    assert on(g, "T7") == ["2/archer"]


def test_r23_22_crown_last_per_player() -> None:
    """R23.22, R16.23: seat 2 takes the hit; its Archer dies, its Crown does not."""
    board = CROWNS | {"C3": "2/sword", "T7": "0/general 2/crown 2/archer",
                      "T8": "1/shield 1/shield 1/shield"}
    g = team_game(board)
    # General 10, Crown 1, Archer 1; Shields 9, 5, 1, Mountain 1: 10v9 hit D, 1v5 hit A, tie.
    g.play("attack T7 T8", dice=[10, 1, 1, 9, 5, 1, 1])
    assert sorted(options_of(g, "split")) == ["split 0:0,2:1", "split 0:1,2:0"]
    g.play("split 0:0,2:1")
    assert on(g, "T7") == ["0/general", "2/crown"]


def test_r23_23_r23_24_allys_card_offered_to_leader_raises_only_holders_units() -> None:
    """R23.23, R23.24, R20.15: seat 2's KIM-2 is chosen by the leader seat 0; the attacking
    side declares before the defending side; only seat 2's Archer rolls one size higher."""
    g = team_game(EX8, realms=("khalisia", "ardinor", "kimbria", "nanchia"),
                  hands=[[], ["ARD-1"], ["KIM-2"], []])
    g.play("attack T7 T8")
    assert pending(g) == (Decision.MAGIC, 0)
    assert g.legal_texts() == ["nomagic", "magic KIM-2"]
    g.play("magic KIM-2")
    assert pending(g) == (Decision.MAGIC, 1)
    # General 11, Sword 6, Archer (D12) 7; Shields 10, 9, Mountain 1:
    # 11v10 hit D, 7v9 hit A, 6v1 hit D.
    g.play("nomagic", dice=[11, 6, 7, 10, 9, 1])
    battle = g.state.battle
    assert battle is not None
    assert battle.attack_dice == [12, 8, 12]  # General D12 (capped), Sword D8, Archer D12
    assert battle.defence_dice == [10, 10, 10]
    assert g.state.hand[2] == [] and "KIM-2" in g.state.spent
    assert pending(g) == (Decision.SPLIT, 0)


def test_r23_25_r23_28_scalps_and_trophy_to_side_leaders_fallen_crown_player_stays() -> None:
    """R23.25, R23.22, R23.26, R23.28: the trophy and Shields go to seat 0 (attacking
    leader, with fewer units than its ally); the dead Sword to seat 3 (defending leader)."""
    g = team_game(CROWN_ON_T8, hands=[[], ["KIM-1"], [], []], gold=[0, 3, 0, 0])
    g.play("attack T7 T8")
    assert pending(g) == (Decision.MAGIC, 3)  # seat 1's card, seat 3 leads the defence
    # General 12, Archer 10, Sword 8, Sword 1; Crown 2, Shields 2, 2, Mountain 9:
    # 12v9, 10v2, 8v2 hit D; 1v2 hit A.
    g.play("nomagic", dice=[12, 10, 8, 1, 2, 2, 2, 9])
    assert pending(g) == (Decision.SPLIT, 0)
    g.play("split 0:0,2:1")
    assert pending(g) == (Decision.CASUALTY, 2)  # seat 2 picks its own casualty
    g.play("casualty sword")
    while pending(g) == (Decision.MAGIC, 3):  # the after-battle window (R16.26)
        g.play("nomagic")
    s = g.state
    assert refs(s.trophies[0]) == ["1/crown"]
    assert refs(s.graveyard[0]) == ["3/shield", "3/shield"]
    assert refs(s.graveyard[3]) == ["2/sword"]
    assert s.graveyard[1] == [] and s.graveyard[2] == []
    assert on(g, "T8") == ["0/general", "2/archer", "2/sword"]
    assert not g.is_over and s.eliminated == [False] * 4
    assert s.gold[1] == 3 and s.hand[1] == ["KIM-1"]
    assert on(g, "C2") == ["1/special:kimbria", "1/sword"]


def _after_crown_fell_on_t8() -> Game:
    g = team_game(CROWN_ON_T8, gold=[0, 3, 0, 0], hands=[[], ["KIM-1"], [], []])
    g.play("attack T7 T8")
    g.play("nomagic", dice=[12, 10, 8, 1, 2, 2, 2, 9])
    g.play("split 0:0,2:1")
    g.play("casualty sword")
    while pending(g) == (Decision.MAGIC, 3):
        g.play("nomagic")
    return g


def test_r23_28_r23_29_fallen_crown_player_takes_full_turns_home_castle_kept() -> None:
    """R23.28, R23.29: seat 1 (Crown fell on T8) spawns on its home C2, earns, acts."""
    g = _after_crown_fell_on_t8()
    pass_turn(g)
    assert g.state.active == 1
    assert pending(g) == (Decision.SPAWN, 1)
    assert "spawn sword C2" in options_of(g, "spawn")
    assert index(g, "C2") in g.state.controlled(1)
    g.play("spawn sword C2")
    assert pending(g) == (Decision.ACTION, 1)
    assert g.state.gold[1] == 4  # 3 kept + 1 for the castle
    assert "move C2 T13 sword" in options_of(g, "move")
    assert g.state.hand[1] == ["KIM-1"]


def test_r23_30_no_special_unit_or_card_changes_hands() -> None:
    """R23.30, R14.9: seat 0 gets neither seat 1's Lion nor its cards."""
    g = _after_crown_fell_on_t8()
    s = g.state
    assert s.reserve_specials[0] == [KHALISIA]  # only its own Sword of Khalis
    assert s.buyable == [[], [], [], []]
    assert on(g, "C2") == ["1/special:kimbria", "1/sword"]
    assert s.pool[1] and s.hand[1] == ["KIM-1"]
    assert sum(s.reserve[1]) > 0  # R23.28: the reserve is kept too


def test_r23_29_crown_falls_on_its_home_castle_the_winner_invades_it() -> None:
    """R23.29: seat 1's lone Crown on C2 falls; seat 0's Swords take the castle."""
    board = {"C1": "0/crown", "C3": "2/crown", "C4": "3/crown", "C2": "1/crown",
             "T13": "0/sword 0/sword", "T11": "1/sword"}
    g = team_game(board)
    g.play("attack T13 C2", dice=[8, 8, 1])  # Swords 8, 8; Crown 1
    assert not g.is_over
    assert on(g, "C2") == ["0/sword", "0/sword"]
    assert index(g, "C2") in g.state.controlled(0)
    assert not g.state.eliminated[1]
    assert on(g, "T11") == ["1/sword"]


def test_r23_29_crown_falls_on_home_castle_allies_hold_it() -> None:
    """R23.29, R23.22: the defence leader seat 3 gives the hit to seat 1's Crown; the
    Shields hold C2, which stays with seat 3."""
    board = {"C1": "0/crown", "C3": "2/crown", "C4": "3/crown",
             "C2": "1/crown 3/shield 3/shield", "T13": "0/sword 0/sword 0/sword"}
    g = team_game(board)
    # Swords 8, 8, 1; Crown 1, Shields 7, 9: 8v9 hit A, 8v7 hit D, 1v1 tie.
    g.play("attack T13 C2", dice=[8, 8, 1, 1, 7, 9])
    assert pending(g) == (Decision.SPLIT, 3)
    g.play("split 3:0,1:1")
    assert on(g, "C2") == ["3/shield", "3/shield"]
    assert on(g, "T13") == ["0/sword", "0/sword"]
    assert refs(g.state.trophies[0]) == ["1/crown"]
    assert index(g, "C2") in g.state.controlled(3)


@pytest.mark.parametrize(("d_tile", "dice", "expected"), [
    ("0/special 2/crown", [1, 1, 5, 1], [10, 6]),  # Crown fallen, an ally's Crown: D10
    ("0/crown 0/special", [1, 1, 1, 5], [6, 12]),  # contrast: its owner's Crown there: D12
])
def test_r23_31_sword_of_khalis_after_its_owners_crown_fell(d_tile: str, dice: list[int],
                                                            expected: list[int]) -> None:
    """R23.31, R14.3: once seat 0's Crown has fallen its Sword of Khalis rolls a D10."""
    board = {"C2": "1/crown", "C3": "2/sword", "C4": "3/crown", "T7": d_tile,
             "T8": "1/shield 1/sword"}
    state = build(board, players=4, mode="team_2v2", active=1)
    if "0/crown" not in d_tile:
        fallen(state, 0, 1)
    g = game_at(state)
    # Shield D6 1, Sword D8 1 against the defenders: 1 hit on the attacker, a choice.
    g.play("attack T8 T7", dice=dice)
    battle = g.state.battle
    assert battle is not None
    assert pending(g) == (Decision.CASUALTY, 1)
    assert battle.defence_dice == expected


# --- victory and team scoring (R23.32-R23.36) ---------------------------------------------


def test_r23_32_team_wins_when_every_enemy_crown_has_fallen() -> None:
    """R23.32, R16.29: seat 3's Crown fell earlier; seat 1's falls now: team 0 wins at once,
    seat 2 (whose own Crown fell) included; no invasion."""
    board = {"C1": "0/crown", "C3": "2/sword", "C4": "3/sword", "T7": "0/general 2/sword",
             "T8": "1/crown", "C2": "1/sword"}
    state = build(board, players=4, mode="team_2v2")
    fallen(state, 3, 0)
    fallen(state, 2, 1)
    g = game_at(state)
    g.play("attack T7 T8", dice=[10, 8, 1, 1])  # General 10, Sword 8; Crown 1, Mountain 1
    s = g.state
    assert g.is_over and s.phase == Phase.OVER
    assert s.result is not None
    assert s.result.end == "last_crown"
    assert s.result.team == 0 and s.result.winner is None
    assert s.result.scores == [team_score(s, p % 2) for p in range(4)]
    assert on(g, "T8") == [] and on(g, "T7") == ["0/general", "2/sword"]
    assert refs(s.trophies[0]) == ["1/crown", "3/crown"]


def test_r23_32_one_crown_of_a_team_left_the_game_goes_on() -> None:
    """R23.32: seat 1's Crown falls but seat 3's stands: no winner yet."""
    g = team_game({"C1": "0/crown", "C3": "2/crown", "C4": "3/crown", "T7": "0/general",
                   "T8": "1/crown"})
    g.play("attack T7 T8", dice=[10, 1, 1])
    assert not g.is_over and g.state.result is None
    assert on(g, "T8") == ["0/general"]


def test_r23_32_last_crowns_of_both_teams_fall_in_one_battle_draw() -> None:
    """R23.32: the last Crowns of both teams fall together: a draw, no winning team."""
    board = {"T5": "0/crown", "T8": "1/crown", "C3": "2/general", "C4": "3/general"}
    state = build(board, players=4, mode="team_2v2")
    fallen(state, 2, 1)
    fallen(state, 3, 0)
    g = game_at(state)
    g.play("attack T5 T8", dice=[6, 1, 5, 2])  # Crown 6, Forest 1; Crown 5, Mountain 2
    s = g.state
    assert g.is_over and s.result is not None
    assert s.result.end == "draw"
    assert s.result.winner is None and s.result.team is None
    # Team totals like every team result, not individual scores (R23.34, decision 32).
    totals = [team_score(s, p % 2) for p in range(4)]
    assert s.result.scores == totals
    assert totals[0] == totals[2] and totals[1] == totals[3]
    assert s.result.scores != scores(s)


def test_r23_33_final_round_then_team_totals() -> None:
    """R23.33, R21.2-R21.3: EG3 drawn by seat 0; seats 1, 2, 3, 0 play once more; team 0's
    higher total wins."""
    board = CROWNS | {"T7": "0/sword 2/sword"}
    g = team_game(board, phase="event", deck=["EG3"])
    order = []
    while not g.is_over:
        order.append(g.state.active)
        pass_turn(g)
    assert order == [0, 1, 2, 3, 0]
    s = g.state
    assert s.result is not None
    assert s.result.end == "final_round"
    # Team 0: C1, C3 6 + T7 1 + gold (2 + 1) // 2 = 8; team 1: 6 + (1 + 1) // 2 = 7.
    assert s.gold == [2, 1, 1, 1]
    assert s.result.scores == [8, 7, 8, 7]
    assert s.result.team == 0 and s.result.winner is None


def _scored_state() -> GameState:
    board = {"C1": "0/crown", "C3": "2/crown", "T7": "0/sword 2/sword", "C2": "1/crown",
             "T8": "1/shield 3/shield", "C4": "3/general"}
    state = build(board, players=4, mode="team_2v2", gold=[3, 1, 3, 2],
                  graveyards=[["1/sword"], [], ["3/archer", "1/archer"], []])
    fallen(state, 3, 0)
    return state


def test_r23_34_r23_35_team_score_table_shared_tile_once_gold_pooled() -> None:
    """R23.34, R23.35, R22.5: team 0 = trophy 5 + castles 6 + scalps 6 + T7 once 1 + 6 // 2 = 21;
    team 1 = castles 6 + T8 once 1 + 3 // 2 = 8."""
    state = _scored_state()
    assert team_score(state, 0) == 21
    assert team_score(state, 1) == 8
    result = team_result(state, "final_round")
    assert result.scores == [21, 8, 21, 8]
    assert result.team == 0 and result.winner is None


def test_r23_34_six_gates_per_friendly_tile_type() -> None:
    """R23.34, EG1: team 0 holds Castles and a Field (+4), team 1 Castles and a Mountain."""
    state = _scored_state()
    state.six_gates = True
    assert team_score(state, 0) == 25
    assert team_score(state, 1) == 12


SYMMETRIC = {"C1": "0/crown", "C3": "2/crown", "C2": "1/crown", "C4": "3/crown"}


def test_r23_36_tie_broken_by_team_units_on_board() -> None:
    """R23.36: 6 points each; team 1 has 3 units on the board, team 0 two."""
    state = build(SYMMETRIC | {"C2": "1/crown 1/sword"}, players=4, mode="team_2v2")
    assert team_score(state, 0) == team_score(state, 1) == 6
    result = team_result(state, "final_round")
    assert result.team == 1 and result.tie_break == []


def test_r23_36_then_by_team_units_in_reserves() -> None:
    """R23.36: equal on the board; team 0 has one unit fewer in its reserves."""
    state = build(SYMMETRIC, players=4, mode="team_2v2")
    state.reserve[2][UnitType.SWORD] -= 1
    result = team_result(state, "final_round")
    assert result.team == 1 and result.tie_break == []


@pytest.mark.parametrize(("dice", "team", "sums"), [
    ([6, 8, 10, 12, 1, 1, 1, 1], 0, [[36, 4]]),
    ([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2], 1, [[4, 4], [4, 5]]),
])
def test_r23_36_then_each_team_rolls_d6_d8_d10_d12_again_on_a_tie(
        dice: list[int], team: int, sums: list[list[int]]) -> None:
    """R23.36, R22.4: team 0 rolls first, then team 1; equal sums roll again."""
    state = build(SYMMETRIC, players=4, mode="team_2v2")
    state.chance.force(dice)
    result = team_result(state, "final_round")
    assert not state.chance.forced
    assert result.team == team and result.tie_break == sums
    assert result.scores == [6, 6, 6, 6]

