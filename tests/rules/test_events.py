"""The Event phase (RULES.md section 7), the event deck (section 24) and the end-game cards
(section 25), played through the checked ``Game`` facade from small named positions.

Worlds (R4.9). 2 players: T1 Field, T2 Mountain, T3 Forest, T4 Field, T5 Forest, T6 Mountain,
T7 Field; C1 touches T5/T7, C2 touches T1/T3. 3 players: T1 Field, T2 Forest, T3 Forest,
T4 Mountain, T5 Field, T6 Field, T7 Forest; C1 touches T1/T2, C2 T5/T7, C3 T3/T6.
Seat 0 is the first player; realms are Khalisia, Kimbria, Nanchia in seat order.

A card is revealed by building the position in the Reinforcement phase of the player before
the drawer, who passes with the event's dice forced; the engine then starts the drawer's turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from kaladan.game import Game
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.observe import unit_ref
from kaladan.rules.scoring import score
from kaladan.rules.state import Decision, GameState, Pending, Phase
from kaladan.rules.units import CATAPULT, GENERAL, SWORD
from positions import build, game_at

# --- named positions ------------------------------------------------------------------------

# 2 players. Seat 0: C1 (room 1) and T7 (room 3); seat 1: C2 (room 1) and T1 (room 3).
CAMP = {"C1": "0/crown 0/special:khalisia 0/general 0/sword", "T7": "0/archer",
        "C2": "1/crown 1/special:kimbria 1/general 1/shield", "T1": "1/sword"}
# Seat 0's castle is full; only T7 has room.
CROWDED = {"C1": "0/crown 0/special:khalisia 0/general 0/sword 0/shield", "T7": "0/archer",
           "C2": "1/crown", "T1": "1/sword"}
# Seat 0's only tile, the Forest T5, is full (3); no castle, so no income (R9.1) either.
NO_ROOM = {"T5": "0/crown 0/sword 0/archer", "C2": "1/crown", "T1": "1/sword"}
# All four of seat 0's Swords and both Catapults are on the board: none left in the reserve.
NO_SWORDS = {"C1": "0/crown 0/sword 0/sword 0/catapult", "T7": "0/sword 0/sword 0/catapult",
             "C2": "1/crown", "T1": "1/sword"}
# Every kind of unit for the free upgrades: the Sword is already upgraded.
VETERANS = {"C1": "0/crown 0/special:khalisia 0/general 0/catapult",
            "T7": "0/sword+ 0/archer 0/shield", "C2": "1/crown 1/general", "T1": "1/sword"}
# Seat 0 has nothing it may upgrade: a Crown and an upgraded Sword (EV07), no plain basic
# unit (EV09: the General does not count).
NOTHING_TO_TRAIN = {"C1": "0/crown 0/general+ 0/sword+", "C2": "1/crown", "T1": "1/sword"}
NO_BASIC_TO_DRILL = {"C1": "0/crown 0/general 0/catapult 0/sword+", "C2": "1/crown",
                     "T1": "1/sword"}
# Seat 1 holds T4 next to seat 0's Sword on T7.
MARCH = {"C1": "0/crown", "T7": "0/sword", "C2": "1/crown", "T4": "1/sword"}
# Seat 0's only tile C1 is hemmed in by seat 1 on T5 and T7: no move is possible.
BOXED_IN = {"C1": "0/crown", "C2": "1/crown", "T5": "1/sword", "T7": "1/shield"}
# Seat 0: basic units on C1 and T7 next to a General, Catapult and special unit; seat 1 has
# exactly one basic unit.
LOSSES = {"C1": "0/crown 0/general 0/catapult 0/sword", "T7": "0/archer 0/special:khalisia",
          "C2": "1/crown 1/general", "T1": "1/shield"}
# Each seat has exactly one basic unit on the board.
ONE_BASIC_EACH = {"C1": "0/crown 0/general", "T7": "0/archer", "C2": "1/crown",
                  "T1": "1/shield"}
NO_BASICS = {"C1": "0/crown 0/special:khalisia 0/general 0/catapult",
             "C2": "1/crown 1/special:kimbria 1/catapult+"}
# Seat 0 occupies a Mountain (T6) and a Forest (T5), seat 1 a Field (T1); both a castle.
TERRAIN = {"C1": "0/crown", "T6": "0/sword", "T5": "0/archer", "C2": "1/crown", "T1": "1/sword"}
# Seat 0: special unit in the reserve; seat 0 controls C1 (room 3) and T7 (room 3).
HEROES = {"C1": "0/crown 0/general", "T7": "0/sword", "C2": "1/crown", "T1": "1/sword"}
# Seat 0 has 3 units on the board but 2 of its Swords lie in seat 1's graveyard (used with
# STRENGTH_GRAVES); seat 1 has 2 units on the board and the bigger reserve.
STRONG_BOARD = {"C1": "0/crown 0/general", "T7": "0/archer", "C2": "1/crown", "T1": "1/sword"}
STRENGTH_GRAVES = [[], ["0/sword", "0/sword"]]
# A sword on each side of a Field-to-Field border (no terrain bonus), for EG2's ties.
DUEL = {"C1": "0/crown", "T7": "0/sword", "C2": "1/crown", "T4": "1/sword"}
# Income: seat 0 castle + 2 tiles = 2 gold, seat 1 castle + 1 tile = 1 gold (R9.1).
INCOME = {"C1": "0/crown", "T7": "0/sword", "T5": "0/archer", "C2": "1/crown", "T1": "1/sword"}
# Six Gates: seat 0 holds Castle, Field, Forest and Mountain; seat 1 Castle and Field.
GATES = {"C1": "0/crown", "T7": "0/sword", "T5": "0/archer", "T6": "0/shield",
         "C2": "1/crown", "T1": "1/sword", "T4": "1/archer"}

# 3 players, one Crown on each home castle.
THREE = {"C1": "0/crown", "C2": "1/crown", "C3": "2/crown"}
# 3 players, seat 1 eliminated (no units, no reserve, no gold).
THREE_WITHOUT_1 = {"C1": "0/crown", "C3": "2/crown"}
# 3 players: seats 0 and 1 have 3 units on the board (two basic units each), seat 2 has 2.
STRENGTH = {"C1": "0/crown 0/sword 0/archer", "C2": "1/crown 1/shield", "T5": "1/sword",
            "C3": "2/crown 2/archer"}
# 3 players: Catapults on the board for seats 0 (plain) and 2 (upgraded); seat 1 has its two
# Catapults in the reserve only.
SIEGE = {"C1": "0/crown 0/catapult", "C2": "1/crown 1/general", "C3": "2/crown 2/catapult+"}
# 3 players, seat 2 eliminated. Seat 0's Sword lies in seat 1's graveyard and its General in
# eliminated seat 2's; seat 1's Shield lies in seat 0's graveyard.
GRAVES = {"C1": "0/crown", "T1": "0/archer", "C2": "1/crown", "T5": "1/sword"}
GRAVES_YARDS = [["1/shield"], ["0/sword", "2/archer"], ["0/general"]]
NOBODY_FELL_YARDS = [["1/shield"], [], []]

# --- helpers --------------------------------------------------------------------------------


def reveal(
    board: Mapping[str, str],
    deck: Sequence[str],
    *,
    dice: Sequence[int] = (),
    active: int = 0,
    eliminated: Sequence[int] = (),
    **options: object,
) -> Game:
    """``board`` with ``deck`` (top first) at the end of the turn before ``active``'s; that
    player passes its Reinforcement with ``dice`` forced, so ``active`` draws the top card.

    Gold read right after an event is read before the drawer's Income: every position gives the
    drawer a Free Spawn choice (a castle with room) or no income at all (R9.1)."""
    players = int(options.get("players", 2))  # type: ignore[call-overload]
    before = (active - 1) % players
    while before in eliminated:
        before = (before - 1) % players
    s = build(board, phase="reinforce", active=before, deck=list(deck),
              **options)  # type: ignore[arg-type]
    assert s.pending == Pending(Decision.REINFORCE, before), "the position left its phase"
    for p in eliminated:
        s.eliminated[p] = True
        s.reserve[p] = [0] * len(s.reserve[p])
        s.reserve_specials[p] = []
        s.gold[p] = 0
    game = game_at(s)
    game.play("pass", dice=dice)
    assert game.state.active == active
    return game


def units(state: GameState, name: str) -> list[str]:
    return sorted(unit_ref(c) for c in state.board[state.world.index(name)])


def event_seat(game: Game) -> int | None:
    """The seat whose part of an event is pending, or None."""
    pending = game.state.pending
    return pending.seat if pending.kind == Decision.EVENT else None


def default_step(game: Game) -> None:
    kind = game.state.pending.kind
    game.play("end" if kind in (Decision.SPAWN, Decision.PURCHASE) else "pass")


def skip_to(game: Game, phase: Phase) -> None:
    """Do nothing in every phase until ``phase`` of the current turn begins."""
    while game.state.phase != phase:
        assert not game.is_over and game.state.pending.kind != Decision.EVENT
        default_step(game)


def finish_turn(game: Game) -> None:
    """Do nothing for the rest of the active player's turn."""
    turn = game.state.turn
    while game.state.turn == turn and not game.is_over:
        default_step(game)


def answer_events(game: Game, choice: str = "gold") -> list[int]:
    """Answer every pending event part with ``choice``; the seats asked, in order."""
    seats = []
    while (seat := event_seat(game)) is not None:
        seats.append(seat)
        game.play(choice)
    return seats


# --- R7.1, R7.15, R7.2: drawing ------------------------------------------------------------


def test_r7_1_r7_15_the_top_card_is_drawn_resolved_and_discarded() -> None:
    """R7.1: the top card is drawn; R7.15: once resolved it lies on the discard pile."""
    g = reveal(CAMP, ["EV27", "EV10"], gold=[0, 0])
    assert g.state.deck == ["EV10"] and g.state.discard == ["EV27"]
    assert g.state.gold == [1, 1]
    assert g.state.event is None and g.state.phase > Phase.EVENT


def test_r7_15_a_card_waiting_for_a_choice_is_discarded_only_when_resolved() -> None:
    """R7.15: EV04 lies on the discard pile after the last player's part, not before."""
    g = reveal(CAMP, ["EV04", "EV10"])
    assert event_seat(g) == 0 and g.state.discard == [] and g.state.deck == ["EV10"]
    g.play("gold")
    assert event_seat(g) == 1 and g.state.discard == []
    g.play("gold")
    assert g.state.discard == ["EV04"] and g.state.event is None


def test_r7_2_no_card_when_the_deck_is_empty() -> None:
    """R7.2: with an empty deck the Event phase passes without effect."""
    g = reveal(CAMP, [], gold=[3, 3])
    assert g.state.event is None and g.state.discard == []
    assert g.state.pending.kind == Decision.SPAWN and g.state.gold == [3, 3]
    assert g.state.final_slot == -1


# --- R7.3, R7.4: player-only and global cards ----------------------------------------------


@pytest.mark.parametrize(("card", "utype"), [("EV01", "sword"), ("EV02", "shield"),
                                             ("EV03", "archer"), ("EV26", "catapult")])
def test_ev01_ev02_ev03_ev26_place_one_unit_on_a_tile_you_control(card: str, utype: str) -> None:
    """EV01-EV03, EV26, R7.8: the active player places one unit from the reserve, free."""
    g = reveal(CAMP, [card], gold=[2, 2])
    assert set(g.legal_texts()) == {"gold", f"place {utype} C1", f"place {utype} T7"}
    before = g.state.reserve[0][:]
    g.play(f"place {utype} T7")
    assert units(g.state, "T7") == sorted(["0/archer", f"0/{utype}"])
    after = g.state.reserve[0]
    assert sum(before) - sum(after) == 1
    assert g.state.gold == [2, 2]  # free, and no gold on top (R7.7: one or the other)
    assert g.state.discard == [card]


@pytest.mark.parametrize("card", ["EV01", "EV02", "EV03", "EV26"])
def test_r7_3_player_only_cards_ask_only_the_active_player(card: str) -> None:
    """R7.3: a player-only card affects the active player only (here seat 1)."""
    g = reveal(CAMP, [card], active=1, gold=[0, 0])
    assert answer_events(g) == [1]
    assert g.state.gold == [0, 1]


@pytest.mark.parametrize(("card", "utype"), [("EV04", "sword"), ("EV05", "shield"),
                                             ("EV06", "archer")])
def test_r7_4_ev04_ev05_ev06_every_player_in_turn_order_from_the_active(
        card: str, utype: str) -> None:
    """EV04-EV06, R7.4: seats 1, 2, 0 resolve in turn; each places the unit or takes gold."""
    g = reveal(THREE, [card], active=1, players=3, gold=[0, 0, 0])
    seats = []
    for choice in (f"place {utype} C2", "gold", f"place {utype} C1"):
        seats.append(event_seat(g))
        g.play(choice)
    assert seats == [1, 2, 0]
    assert units(g.state, "C2") == sorted(["1/crown", f"1/{utype}"])
    assert units(g.state, "C1") == sorted(["0/crown", f"0/{utype}"])
    assert units(g.state, "C3") == ["2/crown"]
    assert g.state.gold == [0, 0, 1]
    assert g.state.discard == [card]


def test_r7_4_an_eliminated_player_is_skipped() -> None:
    """R7.3, R7.4: a global card asks only players still in the game (seat 1 is out)."""
    g = reveal(THREE_WITHOUT_1, ["EV05"], players=3, eliminated=[1])
    assert answer_events(g) == [0, 2]
    assert g.state.gold == [1, 0, 1]


def test_r7_4_ev27_gives_nothing_to_an_eliminated_player() -> None:
    """EV27, R7.3: every player still in the game gains 1 gold; the eliminated seat 1 nothing."""
    g = reveal(THREE_WITHOUT_1, ["EV27"], players=3, eliminated=[1], gold=[2, 0, 0])
    assert g.state.gold == [3, 0, 1]


def test_r7_4_a_player_without_a_choice_is_resolved_between_the_others() -> None:
    """R7.4, R7.7: seat 1 has no Sword left, takes the gold automatically, seat 2 is asked next."""
    board = {"C1": "0/crown", "C2": "1/crown 1/sword 1/sword", "T5": "1/sword 1/sword",
             "C3": "2/crown"}
    g = reveal(board, ["EV04"], players=3, gold=[0, 0, 0])
    assert event_seat(g) == 0
    g.play("gold")
    assert event_seat(g) == 2 and g.state.gold == [1, 1, 0]
    g.play("place sword C3")
    assert g.state.gold == [1, 1, 0] and units(g.state, "C3") == ["2/crown", "2/sword"]


# --- R7.7, R7.8: place a unit or take 1 gold -----------------------------------------------


def test_r7_7_gold_is_allowed_even_when_the_placement_is_possible() -> None:
    """R7.7: taking the gold is always allowed; it places nothing."""
    g = reveal(CAMP, ["EV01"], gold=[0, 0])
    assert "gold" in g.legal_texts() and "place sword T7" in g.legal_texts()
    g.play("gold")
    assert g.state.gold == [1, 0]
    assert units(g.state, "T7") == ["0/archer"] and g.state.reserve[0][SWORD] == 3


def test_r7_8_placement_only_on_own_tiles_with_room() -> None:
    """R7.8: not on the full castle C1, not on empty T4/T5/T6, not on enemy T1/C2."""
    g = reveal(CROWDED, ["EV02"])
    assert g.legal_texts() == ["gold", "place shield T7"]
    before = [t[:] for t in g.state.board]
    for tile in ("C1", "T4", "T5", "T6", "T1", "C2"):
        with pytest.raises(IllegalActionError, match="R7.8"):
            g.play(f"place shield {tile}")
    assert g.state.board == before and event_seat(g) == 0  # refusals changed nothing


@pytest.mark.parametrize(("card", "board"), [
    pytest.param("EV01", NO_SWORDS, id="EV01-no-sword-in-reserve"),
    pytest.param("EV03", NO_ROOM, id="EV03-no-tile-with-room"),
    pytest.param("EV05", NO_ROOM, id="EV05-no-tile-with-room"),
    pytest.param("EV26", NO_SWORDS, id="EV26-no-catapult-in-reserve"),
    pytest.param("EV26", NO_ROOM, id="EV26-no-tile-with-room"),
    pytest.param("EV25", CAMP, id="EV25-special-on-the-board"),
    pytest.param("EV07", NOTHING_TO_TRAIN, id="EV07-nothing-to-upgrade"),
    pytest.param("EV09", NO_BASIC_TO_DRILL, id="EV09-no-plain-basic-unit"),
])
def test_r7_7_only_gold_when_x_cannot_be_carried_out(card: str, board: dict[str, str]) -> None:
    """R7.7-R7.9: when X is impossible only the gold remains, taken without asking seat 0."""
    g = reveal(board, [card], gold=[0, 0])
    assert event_seat(g) != 0
    assert g.state.gold == [1, 0]
    assert g.state.board == build(board, phase="reinforce").board  # nothing placed or upgraded


def test_r7_10_ev08_only_gold_when_no_move_is_possible() -> None:
    """R7.7, R7.10, EV08: a player who cannot move takes the gold automatically."""
    g = reveal(BOXED_IN, ["EV08"], gold=[0, 0])
    assert event_seat(g) is None and g.state.gold == [1, 0]
    assert units(g.state, "C1") == ["0/crown"] and g.state.discard == ["EV08"]


# --- R7.9: free upgrades (EV07, EV09) --------------------------------------------------------


def test_ev07_upgrade_any_unit_on_the_board_but_a_crown_or_an_upgraded_one() -> None:
    """EV07, R7.9: General, Catapult, special unit and plain basic units; never the Crown."""
    g = reveal(VETERANS, ["EV07"], gold=[0, 0])
    assert set(g.legal_texts()) == {
        "gold", "upgrade general C1", "upgrade catapult C1", "upgrade special:khalisia C1",
        "upgrade archer T7", "upgrade shield T7"}
    g.play("upgrade catapult C1")
    assert "0/catapult+" in units(g.state, "C1") and "0/catapult" not in units(g.state, "C1")
    assert g.state.gold == [0, 0]  # free
    assert g.state.reserve[0][CATAPULT] == 1  # the one in the reserve stays as it was
    assert g.state.discard == ["EV07"]


def test_ev09_every_player_upgrades_a_basic_unit_only() -> None:
    """EV09, R7.9, R7.4: basic units only (no General, Catapult or special unit), all players."""
    g = reveal(VETERANS, ["EV09"], gold=[0, 0])
    assert set(g.legal_texts()) == {"gold", "upgrade archer T7", "upgrade shield T7"}
    g.play("upgrade shield T7")
    assert event_seat(g) == 1
    assert g.legal_texts() == ["gold", "upgrade sword T1"]  # not its General
    g.play("upgrade sword T1")
    assert units(g.state, "T7") == ["0/archer", "0/shield+", "0/sword+"]
    assert units(g.state, "T1") == ["1/sword+"]
    assert g.state.gold == [0, 0] and g.state.discard == ["EV09"]


# --- R7.10: free move (EV08) -----------------------------------------------------------------


def test_ev08_free_move_never_attacks_nor_enters_an_enemy_tile() -> None:
    """EV08, R7.10, R10.3: moves to own or empty tiles only; no attack is offered."""
    g = reveal(MARCH, ["EV08"])
    texts = g.legal_texts()
    assert "gold" in texts
    assert not any(t.startswith("attack") for t in texts)
    moves = {t for t in texts if t.startswith("move")}
    assert moves == {"move C1 T5 crown", "move C1 T7 crown", "move T7 T5 sword",
                     "move T7 T6 sword", "move T7 C1 sword"}
    assert "move T7 T4 sword" not in texts


def test_ev08_free_move_does_not_use_the_action() -> None:
    """EV08, R7.10: after the free move the Action phase still offers a battle."""
    g = reveal(MARCH, ["EV08"], gold=[0, 0])
    g.play("move T7 T6 sword")
    assert units(g.state, "T6") == ["0/sword"] and units(g.state, "T7") == []
    assert g.state.gold == [0, 0] and g.state.discard == ["EV08"]
    skip_to(g, Phase.ACTION)
    assert "attack T6 T4" in g.legal_texts()


# --- R7.11: losing gold (EV10, EV11) ---------------------------------------------------------


@pytest.mark.parametrize(("card", "before", "after"), [
    ("EV10", 3, 2), ("EV10", 0, 0), ("EV11", 5, 3), ("EV11", 1, 0), ("EV11", 0, 0)])
def test_ev10_ev11_lose_gold_never_below_zero(card: str, before: int, after: int) -> None:
    """EV10 (1 gold), EV11 (2 gold), R7.11: never more than you have; seat 1 untouched."""
    g = reveal(CAMP, [card], gold=[before, 4])
    assert g.state.gold == [after, 4] and event_seat(g) is None
    assert g.state.discard == [card]


# --- R7.12: losing a basic unit (EV12) -------------------------------------------------------


def test_ev12_choose_a_basic_unit_it_is_removed_from_the_game() -> None:
    """EV12, R7.12: only basic units are offered; the loss is nobody's scalp, not in a reserve."""
    g = reveal(LOSSES, ["EV12"])
    assert set(g.legal_texts()) == {"lose sword C1", "lose archer T7"}  # no gold alternative
    reserve = [r[:] for r in g.state.reserve]
    g.play("lose archer T7")
    assert units(g.state, "T7") == ["0/special:khalisia"]
    assert [unit_ref(c) for c in g.state.removed] == ["0/archer"]
    assert g.state.graveyard == [[], []]
    assert g.state.reserve == reserve
    assert units(g.state, "C1") == sorted(["0/crown", "0/general", "0/catapult", "0/sword"])
    assert g.state.discard == ["EV12"]


def test_ev12_an_upgraded_basic_unit_can_be_lost() -> None:
    """EV12, R7.12: an upgraded Sword is still a basic unit; a single choice is made for you."""
    g = reveal({"C1": "0/crown 0/general 0/sword+", "C2": "1/crown"}, ["EV12"])
    assert event_seat(g) is None
    assert units(g.state, "C1") == ["0/crown", "0/general"]
    assert [unit_ref(c).rstrip("+") for c in g.state.removed] == ["0/sword"]


def test_ev12_without_basic_units_nothing_happens() -> None:
    """EV12, R7.12, R24.4: no basic unit on the board: nothing, and no gold either."""
    g = reveal(NO_BASICS, ["EV12"], gold=[1, 1])
    assert event_seat(g) is None and g.state.removed == []
    assert g.state.gold == [1, 1] and g.state.discard == ["EV12"]
    assert units(g.state, "C1") == sorted(
        ["0/crown", "0/special:khalisia", "0/general", "0/catapult"])


# --- EV13, EV14, EV15: dice ------------------------------------------------------------------


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_ev13_bountiful_harvest_gains_on_4_to_6(face: int) -> None:
    """EV13: each player rolls a D6; 4-6 gain 1 gold, 1-3 nothing."""
    g = reveal(CAMP, ["EV13"], dice=[face, 7 - face], gold=[1, 1])
    assert g.state.gold == [1 + (face >= 4), 1 + (7 - face >= 4)]


def test_r7_4_ev13_dice_are_rolled_in_turn_order_from_the_active_player() -> None:
    """R7.4, EV13: seat 1 is active, so the first die (4) is seat 1's and the second (3)
    seat 0's."""
    g = reveal(CAMP, ["EV13"], dice=[4, 3], active=1, gold=[0, 0])
    assert g.state.gold == [0, 1]


def test_r7_4_ev13_an_eliminated_player_does_not_roll() -> None:
    """R7.4, EV13: seat 1 is out; the dice 1 and 4 belong to seats 0 and 2."""
    g = reveal(THREE_WITHOUT_1, ["EV13"], dice=[1, 4], players=3, eliminated=[1])
    assert g.state.gold == [0, 0, 1]


@pytest.mark.parametrize(("face", "delta"), [(1, -1), (2, -1), (3, 0), (4, 0), (5, 1), (6, 1)])
def test_ev14_fortunes_of_the_road(face: int, delta: int) -> None:
    """EV14: 1-2 lose 1 gold, 3-4 nothing, 5-6 gain 1 gold."""
    g = reveal(CAMP, ["EV14"], dice=[face, face], gold=[2, 2])
    assert g.state.gold == [2 + delta, 2 + delta]


def test_ev14_a_low_roll_never_takes_gold_below_zero() -> None:
    """EV14, R7.11: a player with no gold who rolls 1 stays at 0."""
    g = reveal(CAMP, ["EV14"], dice=[1, 6], gold=[0, 0])
    assert g.state.gold == [0, 1]


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_ev15_camp_fever_loses_a_basic_unit_on_a_1(face: int) -> None:
    """EV15: on a 1 the player loses a basic unit (its only one: no choice), on 2-6 nothing."""
    g = reveal(ONE_BASIC_EACH, ["EV15"], dice=[face, 6])
    assert event_seat(g) is None
    if face == 1:
        assert units(g.state, "T7") == [] and [unit_ref(c) for c in g.state.removed] == [
            "0/archer"]
    else:
        assert units(g.state, "T7") == ["0/archer"] and g.state.removed == []
    assert units(g.state, "T1") == ["1/shield"] and g.state.discard == ["EV15"]


def test_ev15_each_player_chooses_then_the_next_one_rolls() -> None:
    """EV15, R7.4, R7.12: seat 0 chooses its loss before seat 1's die is rolled."""
    g = reveal(LOSSES, ["EV15"], dice=[1])
    assert event_seat(g) == 0
    assert set(g.legal_texts()) == {"lose sword C1", "lose archer T7"}
    g.play("lose sword C1", dice=[1])  # seat 1 rolls during this step, then loses its Shield
    assert sorted(unit_ref(c) for c in g.state.removed) == ["0/sword", "1/shield"]
    assert g.state.graveyard == [[], []] and g.state.discard == ["EV15"]


def test_ev15_a_1_without_basic_units_does_nothing() -> None:
    """EV15, R24.4: a 1 costs nothing to a player with no basic unit on the board."""
    g = reveal(NO_BASICS, ["EV15"], dice=[1, 1], gold=[1, 1])
    assert event_seat(g) is None and g.state.removed == [] and g.state.gold == [1, 1]


# --- R7.13: Richest and Strongest (EV16-EV19) ------------------------------------------------


def test_ev16_tied_richest_players_both_pay_fixed_when_revealed() -> None:
    """EV16, R7.13, R24.5: seats 0 and 1 (3 gold) pay 2; seat 2 (2 gold) was not richest
    when the card was revealed, so it does not pay although it has the most gold by its turn."""
    g = reveal(THREE, ["EV16"], players=3, gold=[3, 3, 2])
    assert g.state.gold == [1, 1, 2]


def test_ev16_richest_pays_only_what_it_has() -> None:
    """EV16, R7.11: a richest player with 1 gold ends at 0; the poorer player is untouched."""
    g = reveal(CAMP, ["EV16"], gold=[0, 1])
    assert g.state.gold == [0, 0]


def test_ev17_players_who_are_not_richest_gain() -> None:
    """EV17, R7.5, R7.13: the richest (seat 0) gains nothing, everyone else 1 gold."""
    g = reveal(THREE, ["EV17"], players=3, gold=[2, 1, 0])
    assert g.state.gold == [2, 2, 1]


def test_ev17_nobody_is_richest_when_the_most_is_zero() -> None:
    """EV17, R7.13: with 0 gold all round nobody is Richest, so everyone gains 1."""
    g = reveal(THREE, ["EV17"], players=3, gold=[0, 0, 0])
    assert g.state.gold == [1, 1, 1]


def test_ev17_tied_richest_players_all_count() -> None:
    """EV17, R7.13: seats 0 and 2 tie for the most gold; only seat 1 gains."""
    g = reveal(THREE, ["EV17"], players=3, gold=[4, 1, 4])
    assert g.state.gold == [4, 2, 4]


def test_ev18_strongest_players_lose_a_basic_unit_fixed_when_revealed() -> None:
    """EV18, R7.13: seats 0 and 1 (3 units each) each choose a basic unit to lose; seat 2
    (2 units) is not touched even though all have 2 units by its turn."""
    g = reveal(STRENGTH, ["EV18"], players=3)
    assert event_seat(g) == 0
    assert set(g.legal_texts()) == {"lose sword C1", "lose archer C1"}
    g.play("lose archer C1")
    assert event_seat(g) == 1
    assert set(g.legal_texts()) == {"lose shield C2", "lose sword T5"}
    g.play("lose sword T5")
    assert event_seat(g) is None
    assert units(g.state, "C3") == ["2/archer", "2/crown"]
    assert sorted(unit_ref(c) for c in g.state.removed) == ["0/archer", "1/sword"]
    assert g.state.discard == ["EV18"]


def test_ev18_a_strongest_player_without_basic_units_loses_nothing() -> None:
    """EV18, R24.4: the strongest player (seat 0, 4 units) has no basic unit: nothing happens."""
    g = reveal(NO_BASICS, ["EV18"])
    assert event_seat(g) is None and g.state.removed == []


def test_ev19_strongest_players_lose_one_gold() -> None:
    """EV19, R7.13: seats 0 and 1 tie with 3 units on the board and lose 1 gold; seat 2 not."""
    g = reveal(STRENGTH, ["EV19"], players=3, gold=[2, 0, 2])
    assert g.state.gold == [1, 0, 2]


def test_r7_6_ev19_units_in_the_reserve_do_not_count() -> None:
    """R7.6, R7.13: seat 0 has 3 units on the board, seat 1 only 2 but a bigger reserve."""
    g = reveal(STRONG_BOARD, ["EV19"], graveyards=STRENGTH_GRAVES, gold=[2, 2])
    assert sum(g.state.reserve[1]) > sum(g.state.reserve[0])
    assert g.state.gold == [1, 2]


# --- R7.5, R7.6: conditions (EV20-EV23) ------------------------------------------------------


def test_ev20_only_players_with_a_catapult_on_the_board_gain() -> None:
    """EV20, R7.5, R7.6: seat 1's Catapults are in its reserve: it gains nothing."""
    g = reveal(SIEGE, ["EV20"], players=3, gold=[0, 0, 0])
    assert g.state.reserve[1][CATAPULT] == 2
    assert g.state.gold == [1, 0, 1]
    assert g.state.discard == ["EV20"]


@pytest.mark.parametrize(("card", "gold"), [
    pytest.param("EV21", [1, 0], id="EV21-mountain"),
    pytest.param("EV22", [1, 0], id="EV22-forest"),
    pytest.param("EV23", [0, 1], id="EV23-field-not-castle"),
])
def test_ev21_ev22_ev23_occupying_a_terrain_pays(card: str, gold: list[int]) -> None:
    """EV21-EV23, R7.5: seat 0 occupies T6 Mountain and T5 Forest, seat 1 a Field (T1); a
    castle is not a Field (R14.4, R19.1)."""
    g = reveal(TERRAIN, [card], gold=[0, 0])
    assert g.state.gold == gold and g.state.discard == [card]


def test_ev23_active_player_without_the_terrain_gets_nothing_later_players_still_do() -> None:
    """EV23, R7.4, R7.5: the condition is checked for each player; seat 1 is active here."""
    g = reveal(TERRAIN, ["EV23"], active=1, gold=[5, 5])
    assert g.state.gold == [5, 6]


# --- R7.14: return a fallen unit (EV24) ------------------------------------------------------


def test_ev24_choose_a_fallen_unit_from_any_graveyard() -> None:
    """EV24, R7.14: seat 0's Sword (in seat 1's graveyard) or General (in eliminated seat 2's
    graveyard); never seat 1's Shield; no gold alternative."""
    g = reveal(GRAVES, ["EV24"], players=3, eliminated=[2], graveyards=GRAVES_YARDS)
    assert event_seat(g) == 0
    assert set(g.legal_texts()) == {"return sword 1", "return general 2"}


def test_ev24_a_unit_from_an_eliminated_players_graveyard_returns_to_the_reserve() -> None:
    """EV24, R7.14, R18.7: the General leaves seat 2's graveyard and enters seat 0's reserve."""
    g = reveal(GRAVES, ["EV24"], players=3, eliminated=[2], graveyards=GRAVES_YARDS, gold=[0, 0, 0])
    assert g.state.reserve[0][GENERAL] == 0
    g.play("return general 2")
    assert g.state.reserve[0][GENERAL] == 1
    assert g.state.graveyard[2] == []
    assert [unit_ref(c) for c in g.state.graveyard[1]] == ["0/sword", "2/archer"]
    assert g.state.gold == [0, 0, 0] and g.state.discard == ["EV24"]


def test_ev24_the_scalp_leaves_an_opponents_graveyard() -> None:
    """EV24, R7.14, R22.1: the Sword leaves seat 1's graveyard, which loses a 2-point scalp."""
    g = reveal(GRAVES, ["EV24"], players=3, eliminated=[2], graveyards=GRAVES_YARDS)
    before = score(g.state, 1)
    g.play("return sword 1")
    assert [unit_ref(c) for c in g.state.graveyard[1]] == ["2/archer"]
    assert g.state.reserve[0][SWORD] == 4  # the full kit again, unupgraded
    assert score(g.state, 1) == before - 2


def test_ev24_nothing_when_no_unit_of_yours_lies_in_a_graveyard() -> None:
    """EV24, R7.14, R24.4: nothing at all, not even gold; other players' scalps stay."""
    g = reveal(GRAVES, ["EV24"], players=3, eliminated=[2], graveyards=NOBODY_FELL_YARDS,
               gold=[0, 0, 0])
    assert event_seat(g) is None and g.state.gold == [0, 0, 0]
    assert [unit_ref(c) for c in g.state.graveyard[0]] == ["1/shield"]
    assert g.state.discard == ["EV24"]


# --- EV25: a special unit ------------------------------------------------------------------


def test_ev25_place_the_special_unit_free_and_unupgraded() -> None:
    """EV25, R7.8: the special unit comes from the reserve onto a tile you control with room."""
    g = reveal(HEROES, ["EV25"], gold=[0, 0])
    assert set(g.legal_texts()) == {"gold", "place special:khalisia C1",
                                    "place special:khalisia T7"}
    g.play("place special:khalisia T7")
    assert units(g.state, "T7") == ["0/special:khalisia", "0/sword"]
    assert g.state.reserve_specials[0] == [] and g.state.gold == [0, 0]


# --- EV27 ----------------------------------------------------------------------------------


def test_ev27_every_player_gains_one_gold() -> None:
    """EV27, R7.4: a global card without choice: every player gains 1 gold."""
    g = reveal(THREE, ["EV27"], players=3, active=2, gold=[0, 3, 1])
    assert g.state.gold == [1, 4, 2] and event_seat(g) is None


# --- section 25 and R21.2-R21.4: end-game cards ----------------------------------------------


@pytest.mark.parametrize("card", ["EG1", "EG2", "EG3", "EG4"])
def test_r21_2_every_end_game_card_starts_the_final_round(card: str) -> None:
    """R7.16, R21.2-R21.4, R25.1: the drawer's turn ends, every player takes one more turn
    starting after the drawer and ending with the drawer, with no event card, then scoring."""
    g = reveal(THREE, [card, "EV27", "EV27"], players=3, active=1)
    s = g.state
    assert s.final_slot == s.slot + 3
    assert s.discard == [card] and s.deck == ["EV27", "EV27"] and s.last_event == card
    turns = []
    finish_turn(g)
    while not g.is_over:
        turns.append(g.state.active)
        assert g.state.deck == ["EV27", "EV27"] and g.state.discard == [card]  # R7.2, R21.4
        finish_turn(g)
    assert turns == [2, 0, 1]
    assert g.state.result is not None and g.state.result.end == "final_round"


def test_r21_3_the_drawers_turn_goes_on_after_the_card() -> None:
    """R21.2, R25.1: the card is the drawer's event; the rest of the turn is played."""
    g = reveal(CAMP, ["EG3", "EV27"])
    assert g.state.active == 0 and g.state.pending.kind == Decision.SPAWN


def test_eg1_six_gates_scores_two_per_tile_type() -> None:
    """EG1, R22.1: seat 0 controls Castle, Field, Forest, Mountain (+8), seat 1 Castle and
    Field (+4): castles 3, other tiles 1, gold // 2, plus the gates."""
    g = reveal(GATES, ["EG1"], gold=[0, 0])
    assert g.state.pending.kind == Decision.SPAWN  # before any income
    assert [score(g.state, 0), score(g.state, 1)] == [3 + 3 + 8, 3 + 2 + 4]


def test_eg1_six_gates_counts_in_the_final_scores() -> None:
    """EG1, R21.5, R22.1: the same game ended by EG3 instead scores exactly 8 and 4 less."""
    final: dict[str, list[int]] = {}
    for card in ("EG1", "EG3"):
        g = reveal(GATES, [card], gold=[0, 0])
        while not g.is_over:
            finish_turn(g)
        assert g.state.result is not None
        final[card] = [p or 0 for p in g.state.result.scores]
    assert final["EG1"] == [final["EG3"][0] + 8, final["EG3"][1] + 4]


def test_eg2_upgrades_every_unit_on_the_board_except_crowns() -> None:
    """EG2: every unit of every player on the board is upgraded at once (special units too);
    Crowns are not; upgraded units stay; the reserve is untouched."""
    g = reveal(VETERANS, ["EG2"])
    assert units(g.state, "C1") == sorted(["0/crown", "0/special:khalisia+", "0/general+",
                                           "0/catapult+"])
    assert units(g.state, "T7") == ["0/archer+", "0/shield+", "0/sword+"]
    assert units(g.state, "C2") == ["1/crown", "1/general+"]
    assert units(g.state, "T1") == ["1/sword+"]
    assert g.state.scales and g.state.discard == ["EG2"]


def test_eg2_units_placed_later_are_not_upgraded() -> None:
    """EG2: a Sword bought in the same turn, after the card, stays plain."""
    g = reveal(CAMP, ["EG2"], gold=[2, 0])
    skip_to(g, Phase.PURCHASE)
    g.play("buy sword T7")
    assert units(g.state, "T7") == ["0/archer+", "0/sword"]


@pytest.mark.parametrize(("card", "t4"), [("EG2", ["0/sword+"]), ("EG3", ["1/sword"])])
def test_eg2_later_ties_hit_the_defender(card: str, t4: list[str]) -> None:
    """EG2, R16.19, EX2(b): after Scales of Equality a tied pair is a hit on the defender;
    without it (EG3) a tie hits nobody."""
    g = reveal(DUEL, [card], hands=[[], []])
    skip_to(g, Phase.ACTION)
    g.play("attack T7 T4", dice=[6, 6])
    assert units(g.state, "T4") == t4
    assert len(g.state.graveyard[0]) == (1 if card == "EG2" else 0)


@pytest.mark.parametrize(("card", "gold"), [
    pytest.param("EG4", [[2, 0], [2, 0], [2, 0]], id="EG4"),
    pytest.param("EG3", [[2, 0], [2, 1], [4, 1]], id="EG3-control"),
])
def test_eg4_no_income_in_the_final_round_but_the_drawers_turn_is_unaffected(
        card: str, gold: list[list[int]]) -> None:
    """EG4, R9.4, EX9: the drawer still collects income this turn (2 gold); in the final
    round nobody does. EG3 shows the same turns with income."""
    g = reveal(INCOME, [card, "EV27"], gold=[0, 0])
    seen = []
    while not g.is_over:
        finish_turn(g)
        seen.append(g.state.gold[:])
    assert seen == gold


# --- R21.2 (b): end_game_card = none ---------------------------------------------------------


def test_r21_2_without_end_game_card_the_last_card_starts_the_final_round() -> None:
    """R21.2(b): with end_game_card=none drawing the last card triggers the final round, and
    the card itself is still resolved first."""
    g = reveal(CAMP, ["EV27"], gold=[0, 0], end_game_card="none")
    assert g.state.final_slot == g.state.slot + 2
    assert g.state.gold == [1, 1] and g.state.discard == ["EV27"]
    finish_turn(g)
    finish_turn(g)
    assert g.state.active == 0 and not g.is_over
    finish_turn(g)
    assert g.is_over


def test_r21_2_without_end_game_card_an_earlier_card_does_not() -> None:
    """R21.2(b): only the last card of the deck triggers the final round."""
    g = reveal(CAMP, ["EV27", "EV27"], end_game_card="none")
    assert g.state.final_slot == -1 and g.state.deck == ["EV27"]
    finish_turn(g)  # seat 1 draws the last card
    assert g.state.deck == [] and g.state.final_slot == g.state.slot + 2
