"""Invariants over thousands of seeded random games (STYLE principle 13).

Across 2-6 players and every ruleset option of R3.3, after every decision:
- every unit of every kit is in exactly one place (board, reserve, graveyard, removed,
  trophy, or set aside during a battle) (R2.7, R1.13-R1.16);
- no tile is over capacity (R4.6) and no tile holds units of two players (R4.7);
- gold is never negative (R2.5);
- the pending decision belongs to a seat still in the game and has a legal action;
and every game ends. Observations never show another seat's hand or pool, nor the deck order
(R5.13).
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from kaladan.rules.apply import apply, apply_unchecked
from kaladan.rules.config import OPTIONS, Config
from kaladan.rules.legal import gifts, legal_actions
from kaladan.rules.magic import realm_cards
from kaladan.rules.observe import observe
from kaladan.rules.setup import new_game
from kaladan.rules.state import Decision, GameState, Phase
from kaladan.rules.units import CROWN, KIT_COUNT, SPECIAL, owner_of, realm_of, type_of
from kaladan.rules.world import random_terrain_world

GAMES = 2000
CHUNKS = 20
MAX_DECISIONS = 20_000


def random_config(index: int) -> Config:
    """Player count cycles 2..6; every option value is drawn so that all of them occur."""
    rng = random.Random(index)
    players = 2 + index % 5
    options = {name: rng.choice(values) for name, values in OPTIONS.items()
               if name not in ("world", "team_castle_spots")}
    options["world"] = rng.choice(OPTIONS["world"])
    options["team_castle_spots"] = rng.choice(OPTIONS["team_castle_spots"])
    layout = None
    if options["world"] == "custom":  # R4.14: a layout file; here a random terrain deal
        layout = random_terrain_world(players, random.Random(index).randrange).to_json()
    return Config(players=players, layout=layout, **options)  # type: ignore[arg-type]


def check_units(state: GameState) -> None:
    """R2.7: each kit's units are each in exactly one place."""
    seen: Counter[tuple[int, int]] = Counter()  # (owner, type) for kit units
    specials: Counter[int] = Counter()  # realm
    places = [c for units in state.board for c in units]
    places += [c for g in state.graveyard for c in g]
    places += [c for t in state.trophies for c in t]
    places += state.removed
    if state.battle is not None:
        places += [c for c, _, _ in state.battle.set_aside]
    for c, count in Counter(places).items():
        if type_of(c) == SPECIAL:
            specials[realm_of(c)] += count
        else:
            seen[(owner_of(c), type_of(c))] += count
    for seat in range(state.n):
        for t in range(7):
            if t != SPECIAL:
                seen[(seat, t)] += state.reserve[seat][t]
        for realm in state.reserve_specials[seat]:
            specials[realm] += 1
        # R18.4: a special received this turn waits in its new owner's reserve
        assert set(state.specials_waiting[seat]) <= set(state.reserve_specials[seat])
    for seat in range(state.n):
        if state.realm[seat] < 0:
            continue
        for t in range(7):
            if t != SPECIAL:
                assert seen[(seat, t)] == KIT_COUNT[t], (seat, t, seen[(seat, t)])
        assert specials[state.realm[seat]] == 1, (seat, specials)


def check_cards(state: GameState) -> None:
    """R20.1, R11.16, R18.6: every card of every realm in play is in exactly one place: a hand,
    its realm pool, on offer to a killer, or spent."""
    places = [c for h in state.hand for c in h] + [c for p in state.pool for c in p]
    places += [c for b in state.buyable for c in b] + state.spent
    expected = [c for seat in range(state.n) if state.realm[seat] >= 0
                for c in realm_cards(state.realm[seat])]
    assert sorted(places) == sorted(expected)


def check_state(state: GameState) -> None:
    check_units(state)
    check_cards(state)
    for t, units in enumerate(state.board):
        assert len(units) <= state.world.capacity[t], f"{state.world.names[t]} over capacity"
        # R4.7, R23.8: never two players (team mode: two teams) on one tile
        assert len({state.team[c >> 7] for c in units}) <= 1, (
            f"two sides on {state.world.names[t]}")
        assert list(units) == sorted(units)
    assert min(state.gold) >= 0
    fresh: list[list[int]] = [[] for _ in range(state.n)]  # one pass over the board
    for t, units in enumerate(state.board):
        for seat in sorted({c >> 7 for c in units}):
            fresh[seat].append(t)
    for seat in range(state.n):  # the engine's cache of controlled tiles is never stale
        assert state.controlled(seat) == fresh[seat], seat
    if not state.is_over:
        assert state.pending.kind != Decision.NONE
        assert not state.eliminated[state.pending.seat]
        assert legal_actions(state), f"no legal action for {state.pending}"


def check_observations(state: GameState) -> None:
    """R5.13: hands and pools of other seats and the deck order never appear."""
    for seat in range(state.n):
        obs = observe(state, seat)
        text = json.dumps(obs)
        assert "deck" not in obs or not isinstance(obs.get("deck"), list)
        for other in range(state.n):
            if other == seat:
                continue
            player = obs["players"][other]
            if state.team[other] == state.team[seat]:  # R23.5: allies see everything
                assert player["hand"] == state.hand[other]
                continue
            assert "hand" not in player and "pool" not in player
            secret = set(state.hand[other]) | set(state.pool[other])
            public = set(state.spent) | set(state.hand[seat]) | set(state.pool[seat])
            public |= set(state.buyable[seat])
            for ally in state.allies(seat):
                public |= set(state.hand[ally]) | set(state.pool[ally])
            battle = obs["battle"]
            if battle is not None:  # cards revealed in this battle are public
                public |= {c for c in battle["cards"].values() if c != "committed"}
            for card in secret - public:
                assert card not in text, f"seat {seat} sees {card} of seat {other}"


def crowns_standing(state: GameState) -> set[int]:
    return {c >> 7 for units in state.board for c in units if type_of(c) == CROWN}


def give_out_of_turn(state: GameState, rng: random.Random) -> None:
    """R23.11: a player who does not hold the decision gives an ally gold (checked apply);
    the pending decision and every seat's team gold stay as they were."""
    givers = [p for p in range(state.n) if p != state.pending.seat and state.gold[p] > 0]
    if not givers:
        return
    seat = rng.choice(givers)
    options = gifts(state, seat)
    assert options, f"seat {seat} has gold but no gift to make"
    pending, team_gold = state.pending, sum(state.gold[p] for p in state.allies(seat))
    apply(state, rng.choice(options), seat)
    assert state.pending == pending
    assert sum(state.gold[p] for p in state.allies(seat)) > team_gold


def play_checked(index: int, config: Config | None = None) -> GameState:
    config = random_config(index) if config is None else config
    state = new_game(config, 10_000 + index)
    rng = random.Random(index)
    steps = 0
    fallen_at: dict[int, int] = {}  # team mode: seat -> turn its Crown fell
    played_after: set[int] = set()
    while not state.is_over:
        check_state(state)
        if steps % 25 == 0:
            check_observations(state)
        if state.teams and state.turn > 0:
            standing = crowns_standing(state)
            for seat in range(state.n):
                if seat not in standing and state.realm[seat] >= 0:
                    fallen_at.setdefault(seat, state.turn)
            if state.active in fallen_at and state.turn > fallen_at[state.active]:
                played_after.add(state.active)  # R23.28: a fallen Crown fights on
                assert state.phase != Phase.OVER
        if state.teams and rng.random() < 0.05:
            give_out_of_turn(state, rng)
        legal = legal_actions(state)
        apply_unchecked(state, legal[rng.randrange(len(legal))])
        steps += 1
        assert steps < MAX_DECISIONS, "game does not end"
    check_state(state)
    assert state.result is not None
    if state.teams:
        assert not any(state.eliminated)  # R23.28: nobody is eliminated
        # Every player whose Crown fell at least a round before the end took later turns.
        for seat, turn in fallen_at.items():
            if state.turn - turn > state.n:
                assert seat in played_after, f"seat {seat} took no turn after its Crown fell"
    return state


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_keep_invariants(chunk: int) -> None:
    ends: Counter[str] = Counter()
    spent = 0
    for index in range(chunk, GAMES, CHUNKS):
        state = play_checked(index)
        assert state.result is not None
        ends[state.result.end] += 1
        spent += len(state.spent)
        if state.result.end != "draw":
            assert state.result.winner is not None
            assert not state.eliminated[state.result.winner]
    assert sum(ends.values()) == GAMES // CHUNKS
    assert spent >= 20, "the random bot should play magic cards (section 26) in these games"


def test_every_option_value_occurs_in_the_suite() -> None:
    seen: dict[str, set[str]] = {name: set() for name in OPTIONS}
    players: set[int] = set()
    for index in range(GAMES):
        config = random_config(index)
        players.add(config.players)
        for name in OPTIONS:
            seen[name].add(getattr(config, name))
    assert players == {2, 3, 4, 5, 6}
    for name, values in OPTIONS.items():
        assert seen[name] == set(values), name


TEAM_GAMES = 1000  # per team mode
TEAM_CHUNKS = 10


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["team_2v2", "team_3v3"])
@pytest.mark.parametrize("chunk", range(TEAM_CHUNKS))
def test_random_team_games_keep_invariants(mode: str, chunk: int) -> None:
    """Section 23: the invariants above, in team games, with every option drawn at random."""
    players = 4 if mode == "team_2v2" else 6
    ends: Counter[str] = Counter()
    for index in range(chunk, TEAM_GAMES, TEAM_CHUNKS):
        base = random_config(index * 5 + (players - 2))  # a config drawn for this player count
        assert base.players == players
        config = base.with_options(mode=mode)
        state = play_checked(50_000 + index, config)
        assert state.result is not None
        ends[state.result.end] += 1
        if state.result.end != "draw":
            assert state.result.team in (0, 1) and state.result.winner is None
        for team in (0, 1):  # every player scores the team total (R23.34), draws too
            team_scores = {state.result.scores[p] for p in range(players)
                           if state.team[p] == team}
            assert len(team_scores) == 1
    assert sum(ends.values()) == TEAM_GAMES // TEAM_CHUNKS
