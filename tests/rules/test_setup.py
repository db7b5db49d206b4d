"""Tests of configuration and setup (RULES.md sections 3 and 5)."""

from __future__ import annotations

from collections import Counter

import pytest

from kaladan.game import Game
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError, IllegalActionError
from kaladan.rules.setup import new_game
from kaladan.rules.state import Decision, GameState, Pending, Phase
from kaladan.rules.units import (
    ARCHER,
    CATAPULT,
    CROWN,
    GENERAL,
    REALM_INDEX,
    SHIELD,
    SPECIAL,
    SWORD,
    owner_of,
    realm_of,
    type_of,
)

# R3.3, typed from the table: option -> allowed values, the default first.
OPTIONS: dict[str, tuple[str, ...]] = {
    "turn_order_die": ("d12", "d10"),
    "phase_order": ("seeds", "official"),
    "starting_magic": ("choose", "random"),
    "realm_conflict": ("turn_order", "roll_off"),
    "mountain_defence": ("keep_all", "drop_lowest"),
    "crown_defence_in_castle": ("d6", "d8"),
    "wolf_d12": ("forest_either", "attack_from_forest"),
    "world": ("standard", "random_terrain", "custom"),
    "end_game_card": ("random", "six_gates", "scales", "oracles", "gilded_silence", "none"),
    "team_castle_spots": ("free", "alternating"),
}

# R24.2: the 36 event cards by id and copy count.
EVENT_COUNTS = {
    "EV01": 2, "EV02": 2, "EV03": 2, "EV04": 1, "EV05": 1, "EV06": 1, "EV07": 2, "EV08": 2,
    "EV09": 1, "EV10": 2, "EV11": 1, "EV12": 2, "EV13": 2, "EV14": 1, "EV15": 1, "EV16": 1,
    "EV17": 1, "EV18": 1, "EV19": 1, "EV20": 1, "EV21": 1, "EV22": 1, "EV23": 1, "EV24": 2,
    "EV25": 1, "EV26": 1, "EV27": 1,
}
END_CARD_OF_OPTION = {"six_gates": "EG1", "scales": "EG2", "oracles": "EG3",
                      "gilded_silence": "EG4"}
SIX_REALMS = ("khalisia", "kimbria", "nanchia", "ardinor", "zhojira", "laurielle")  # R2.1
REALM_CARDS = {"khalisia": "KHA", "kimbria": "KIM", "nanchia": "NAN", "ardinor": "ARD",
               "zhojira": "ZHO", "laurielle": "LAU"}  # section 26


# --- named positions and helpers ----------------------------------------------------------------


def tiny_custom_layout() -> dict[str, object]:
    """A legal 2-player custom world (R4.14): four terrain hexes in a row, a castle at each end."""
    return {
        "terrain": [
            {"q": 0, "r": 0, "terrain": "field"},
            {"q": 1, "r": 0, "terrain": "forest"},
            {"q": 2, "r": 0, "terrain": "mountain"},
            {"q": 3, "r": 0, "terrain": "field"},
        ],
        "castle_spots": [{"q": -1, "r": 0}, {"q": 4, "r": 0}],
    }


def turn_order(state: GameState) -> list[int]:
    """R5.2: seating order starting with the first player."""
    return [(state.first + k) % state.n for k in range(state.n)]


def five_cards(realm: str) -> set[str]:
    return {f"{REALM_CARDS[realm]}-{k}" for k in range(1, 6)}


def fresh_game(players: int, seed: int = 1, **options: object) -> Game:
    """A new game at its first setup decision."""
    return Game.new(Config(players=players, **options), seed)  # type: ignore[arg-type]


def play_setup(game: Game, realms: list[str], basics: list[str] | None = None,
               quiet_deck: bool = False) -> None:
    """Play every setup decision: realms[k] / basics[k] for the k-th player in turn order,
    the first offered card and castle spot. ``quiet_deck`` empties the event deck before the
    last decision so the first turn draws no card (R7.2) and gold stays as dealt."""
    order = turn_order(game.state)
    basics = basics or ["sword"] * len(order)
    for seat, realm in zip(order, realms, strict=True):
        game.play(f"realm {realm}", seat=seat)
    while game.state.phase == Phase.SETUP:
        pending = game.state.pending
        if pending.kind == Decision.START_UNIT:
            if quiet_deck and pending.seat == order[-1]:
                game.state.deck.clear()
            game.play(f"start {basics[order.index(pending.seat)]}", seat=pending.seat)
        else:
            game.play(game.legal_texts()[0], seat=pending.seat)


# --- configuration (R3.3, R5.1) -----------------------------------------------------------------


@pytest.mark.parametrize(("name", "value"),
                         [(n, v) for n, values in OPTIONS.items() for v in values])
def test_r3_3_every_allowed_option_value_is_accepted(name: str, value: str) -> None:
    extra: dict[str, object] = {"layout": tiny_custom_layout()} if value == "custom" else {}
    config = Config(players=2, **{name: value}, **extra)  # type: ignore[arg-type]
    assert getattr(config, name) == value


def test_r3_3_defaults_are_the_first_values() -> None:
    config = Config()
    for name, values in OPTIONS.items():
        assert getattr(config, name) == values[0], name


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_r3_3_bad_option_value_is_rejected_naming_the_option(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        Config(players=2, **{name: "bogus"})  # type: ignore[arg-type]
    assert name in str(info.value)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_r5_1_free_for_all_accepts_two_to_six_players(players: int) -> None:
    state = new_game(Config(players=players), 3)
    assert state.n == players


@pytest.mark.parametrize("players", [-1, 0, 1, 7, 12])
def test_r5_1_player_count_outside_two_to_six_is_rejected(players: int) -> None:
    with pytest.raises(ConfigError) as info:
        Config(players=players)
    assert "player" in str(info.value)


@pytest.mark.parametrize(("mode", "players"), [("team_2v2", 4), ("team_3v3", 6)])
def test_r3_2_team_modes_are_accepted_with_alternating_teams(mode: str, players: int) -> None:
    """R3.2, R23.2: a team game starts with seats alternating between the two teams."""
    state = new_game(Config(players=players, mode=mode), 1)
    assert state.teams and state.team == tuple(seat % 2 for seat in range(players))


@pytest.mark.parametrize(("mode", "players"), [("team_2v2", 6), ("team_3v3", 4)])
def test_r5_1_team_modes_with_the_wrong_player_count_are_rejected(mode: str,
                                                                  players: int) -> None:
    with pytest.raises(ConfigError):
        Config(players=players, mode=mode)


def test_r3_2_unknown_mode_is_rejected() -> None:
    with pytest.raises(ConfigError) as info:
        Config(players=2, mode="everyone_for_themselves")
    assert "mode" in str(info.value)


def test_r4_14_world_custom_needs_a_layout() -> None:
    with pytest.raises(ConfigError) as info:
        Config(players=2, world="custom")
    assert "layout" in str(info.value)


def test_r4_14_world_custom_with_a_layout_builds_that_world() -> None:
    state = new_game(Config(players=2, world="custom", layout=tiny_custom_layout()), 4)
    assert state.world.terrain_count == 4
    assert len(state.world.castle_spots) == 2


# --- R5.3 turn-order roll -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_r5_3_highest_roll_starts_and_only_tied_players_reroll(players: int) -> None:
    rerolls = 0
    for seed in range(60):
        state = fresh_game(players, seed).state
        contenders = list(range(players))
        for k, rolls in enumerate(state.turn_rolls):
            assert len(rolls) == len(contenders)  # only the tied players roll again
            assert all(1 <= r <= 12 for r in rolls)
            best = max(rolls)
            tied = [p for p, r in zip(contenders, rolls, strict=True) if r == best]
            if k < len(state.turn_rolls) - 1:
                assert len(tied) > 1  # a re-roll happens only after a tie for highest
            contenders = tied
        rerolls += len(state.turn_rolls) > 1
        assert contenders == [state.first]  # the unique highest of the last round
    assert rerolls > 0  # the seeds above do exercise re-rolls


def test_r5_3_d10_variant_never_rolls_above_ten() -> None:
    d10 = [r for seed in range(120)
           for rolls in fresh_game(6, seed, turn_order_die="d10").state.turn_rolls
           for r in rolls]
    d12 = [r for seed in range(120)
           for rolls in fresh_game(6, seed).state.turn_rolls for r in rolls]
    assert max(d10) == 10
    assert max(d12) == 12


# --- R5.5 realms ---------------------------------------------------------------------------------


def test_r5_5_realms_are_chosen_in_turn_order_and_a_taken_realm_is_not_offered() -> None:
    game = fresh_game(3, seed=5)
    order = turn_order(game.state)
    assert game.state.pending == Pending(Decision.REALM, order[0])
    game.play("realm kimbria", seat=order[0])
    assert game.state.pending == Pending(Decision.REALM, order[1])
    assert "realm kimbria" not in game.legal_texts()
    assert len(game.legal_texts()) == 5
    with pytest.raises(IllegalActionError):
        game.play("realm kimbria", seat=order[1])
    game.play("realm nanchia", seat=order[1])
    assert game.state.pending == Pending(Decision.REALM, order[2])
    assert sorted(game.legal_texts()) == sorted(
        f"realm {r}" for r in SIX_REALMS if r not in ("kimbria", "nanchia"))
    game.play("realm laurielle", seat=order[2])
    assert [game.state.realm[s] for s in order] == [
        REALM_INDEX["kimbria"], REALM_INDEX["nanchia"], REALM_INDEX["laurielle"]]


def test_r5_5_roll_off_gives_a_contested_realm_to_the_highest_d12() -> None:
    game = fresh_game(3, seed=5, realm_conflict="roll_off")
    a, b, c = turn_order(game.state)
    game.play("realm kimbria", seat=a)
    assert "realm kimbria" in game.legal_texts()  # naming, not taking: still offered
    game.play("realm kimbria", seat=b)
    # a rolls 3, b rolls 9: b gets Kimbria; c's uncontested Nanchia is c's.
    game.play("realm nanchia", seat=c, dice=[3, 9])
    assert game.state.realm[b] == REALM_INDEX["kimbria"]
    assert game.state.realm[c] == REALM_INDEX["nanchia"]
    assert game.state.realm[a] == -1
    # The loser names again, among the untaken realms only.
    assert game.state.pending == Pending(Decision.REALM, a)
    assert sorted(game.legal_texts()) == sorted(
        f"realm {r}" for r in SIX_REALMS if r not in ("kimbria", "nanchia"))
    game.play("realm ardinor", seat=a)
    assert game.state.realm[a] == REALM_INDEX["ardinor"]
    assert game.state.pending.kind == Decision.START_CARD


def test_r5_5_roll_off_ties_are_rerolled_by_the_tied_players() -> None:
    game = fresh_game(2, seed=8, realm_conflict="roll_off")
    a, b = turn_order(game.state)
    game.play("realm zhojira", seat=a)
    game.play("realm zhojira", seat=b, dice=[7, 7, 11, 2])  # tie, then a wins
    assert game.state.realm[a] == REALM_INDEX["zhojira"]
    assert game.state.pending == Pending(Decision.REALM, b)
    assert "realm zhojira" not in game.legal_texts()


# --- R5.7 starting magic card -------------------------------------------------------------------


def test_r5_7_starting_card_is_chosen_from_the_realms_five_and_the_pool_keeps_four() -> None:
    game = fresh_game(2, seed=2)
    a, b = turn_order(game.state)
    game.play("realm khalisia", seat=a)
    game.play("realm ardinor", seat=b)
    assert game.state.pending == Pending(Decision.START_CARD, a)
    assert {t.split()[1] for t in game.legal_texts()} == five_cards("khalisia")
    game.play("card KHA-3", seat=a)
    assert game.state.pending == Pending(Decision.START_CARD, b)
    assert {t.split()[1] for t in game.legal_texts()} == five_cards("ardinor")
    game.play("card ARD-5", seat=b)
    state = game.state
    assert state.hand[a] == ["KHA-3"]
    assert set(state.pool[a]) == five_cards("khalisia") - {"KHA-3"}
    assert len(state.pool[a]) == 4
    assert state.hand[b] == ["ARD-5"]
    assert set(state.pool[b]) == five_cards("ardinor") - {"ARD-5"}


def test_r5_7_random_variant_draws_the_starting_card() -> None:
    drawn: set[str] = set()
    for seed in range(30):
        game = fresh_game(2, seed=seed, starting_magic="random")
        a, b = turn_order(game.state)
        game.play("realm nanchia", seat=a)
        game.play("realm zhojira", seat=b)
        state = game.state
        assert state.pending.kind == Decision.CASTLE  # nobody is asked for a card
        assert len(state.hand[a]) == 1 and len(state.hand[b]) == 1
        assert set(state.hand[a]) | set(state.pool[a]) == five_cards("nanchia")
        assert set(state.hand[b]) | set(state.pool[b]) == five_cards("zhojira")
        assert len(state.pool[a]) == 4
        drawn.add(state.hand[a][0])
    assert drawn == five_cards("nanchia")  # any of the five can be drawn


# --- R5.8, R5.9 castles and starting units ------------------------------------------------------


def test_r5_8_castles_are_placed_in_reverse_turn_order_on_free_spots() -> None:
    game = fresh_game(3, seed=11)
    order = turn_order(game.state)
    for seat, realm in zip(order, ("khalisia", "kimbria", "nanchia"), strict=True):
        game.play(f"realm {realm}", seat=seat)
    for seat in order:
        game.play(game.legal_texts()[0], seat=seat)
    assert game.state.pending == Pending(Decision.CASTLE, order[2])
    assert game.legal_texts() == ["castle C1", "castle C2", "castle C3"]
    game.play("castle C2", seat=order[2])
    assert game.state.pending == Pending(Decision.CASTLE, order[1])
    assert game.legal_texts() == ["castle C1", "castle C3"]
    with pytest.raises(IllegalActionError):
        game.play("castle C2", seat=order[1])
    game.play("castle C3", seat=order[1])
    assert game.state.pending == Pending(Decision.CASTLE, order[0])
    assert game.legal_texts() == ["castle C1"]
    game.play("castle C1", seat=order[0])
    names = game.state.world.names
    assert [names[game.state.home[s]] for s in order] == ["C1", "C3", "C2"]


def test_r5_9_home_castle_gets_crown_special_general_and_the_chosen_basic() -> None:
    game = fresh_game(3, seed=12)
    play_setup(game, ["ardinor", "laurielle", "kimbria"], ["archer", "shield", "sword"])
    state = game.state
    order = turn_order(state)
    for seat, realm, basic in zip(order, ("ardinor", "laurielle", "kimbria"),
                                  (ARCHER, SHIELD, SWORD), strict=True):
        units = state.board[state.home[seat]]
        assert sorted(type_of(c) for c in units) == sorted([CROWN, GENERAL, basic, SPECIAL])
        assert all(owner_of(c) == seat and not c & 1 for c in units)
        special = next(c for c in units if type_of(c) == SPECIAL)
        assert realm_of(special) == REALM_INDEX[realm]
    on_board = [t for t, units in enumerate(state.board) if units]
    assert sorted(on_board) == sorted(state.home)  # nothing anywhere else


def test_r5_12_reserve_is_the_kit_minus_what_is_on_the_castle() -> None:
    game = fresh_game(2, seed=13)
    play_setup(game, ["khalisia", "zhojira"], ["shield", "archer"])
    state = game.state
    a, b = turn_order(state)
    expected = {CROWN: 0, GENERAL: 0, CATAPULT: 2, ARCHER: 4, SHIELD: 3, SWORD: 4}
    assert {t: state.reserve[a][t] for t in expected} == expected
    expected_b = {**expected, ARCHER: 3, SHIELD: 4}
    assert {t: state.reserve[b][t] for t in expected_b} == expected_b
    assert state.reserve_specials[a] == [] and state.reserve_specials[b] == []


# --- R5.10 the event deck -----------------------------------------------------------------------


def test_r5_10_end_game_card_is_29th_to_37th_and_each_such_position_occurs() -> None:
    positions: Counter[int] = Counter()
    cards: Counter[str] = Counter()
    for seed in range(300):
        state = new_game(Config(players=2), seed)
        assert len(state.deck) == 37
        end = [i for i, c in enumerate(state.deck) if c.startswith("EG")]
        assert len(end) == 1
        positions[len(state.deck) - end[0]] += 1  # the deck's last element is its top
        cards[state.deck[end[0]]] += 1
        assert state.deck[end[0]] == state.end_card
    assert set(positions) == set(range(29, 38))
    assert set(cards) == {"EG1", "EG2", "EG3", "EG4"}  # end_game_card=random picks any


def test_r5_10_deck_holds_the_36_event_cards() -> None:
    state = new_game(Config(players=2), 7)
    assert Counter(c for c in state.deck if not c.startswith("EG")) == Counter(EVENT_COUNTS)


@pytest.mark.parametrize("option", sorted(END_CARD_OF_OPTION))
def test_r5_10_named_end_game_card_is_the_one_in_the_deck(option: str) -> None:
    state = new_game(Config(players=2, end_game_card=option), 9)
    assert [c for c in state.deck if c.startswith("EG")] == [END_CARD_OF_OPTION[option]]


def test_r5_10_end_game_card_none_leaves_36_cards() -> None:
    state = new_game(Config(players=2, end_game_card="none"), 9)
    assert len(state.deck) == 36
    assert not any(c.startswith("EG") for c in state.deck)
    assert state.end_card is None


# --- R5.11, R5.14 starting gold and the first turn ---------------------------------------------


@pytest.mark.parametrize("players", [2, 4, 6])
def test_r5_11_starting_gold_is_the_turn_position(players: int) -> None:
    game = fresh_game(players, seed=21)
    play_setup(game, list(SIX_REALMS[:players]), quiet_deck=True)
    state = game.state
    assert state.pending.kind == Decision.SPAWN  # before Income (R6.2): gold as dealt
    for k, seat in enumerate(turn_order(state)):
        assert state.gold[seat] == k


def test_r5_14_first_player_takes_the_first_turn() -> None:
    for seed in (1, 2, 3):
        game = fresh_game(4, seed=seed)
        play_setup(game, ["khalisia", "kimbria", "nanchia", "ardinor"])
        state = game.state
        assert state.phase not in (Phase.SETUP, Phase.OVER)
        assert state.active == state.first
        assert state.pending.seat == state.first
        assert state.turn == 1


# --- quick setup --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 6])
def test_r5_14_quick_setup_gives_a_playable_position_at_the_first_turn(players: int) -> None:
    game = Game.new(Config(players=players, quick_setup=True), 31)
    state = game.state
    assert state.phase not in (Phase.SETUP, Phase.OVER)
    assert state.active == state.first and state.pending.seat == state.first
    assert len(set(state.realm)) == players and min(state.realm) >= 0
    assert sorted(state.home) == sorted(state.world.castle_spots)  # one castle per spot
    for seat in range(players):
        assert len(state.board[state.home[seat]]) >= 4  # Crown, special, General, a basic
        assert len(state.hand[seat]) == 1 and len(state.pool[seat]) == 4
    legal = game.legal_texts()
    assert legal
    game.play(legal[0], seat=state.first)  # the position accepts a decision
