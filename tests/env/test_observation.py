"""ObservationEncoder: fixed shape, layout, hidden information (R5.13, R23.5), values."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

from kaladan.bots.base import SeatView
from kaladan.env.observation import ObservationEncoder
from kaladan.rules.actions import MOVE, Action
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.setup import new_game
from kaladan.rules.state import GameState
from kaladan.rules.units import CROWN, SWORD, code, owner_of
from positions import played

CONFIGS = [
    Config(players=2),
    Config(players=3, quick_setup=True),
    Config(players=4),
    Config(players=5, quick_setup=True),
    Config(players=6),
    Config(players=4, mode="team_2v2"),
    Config(players=6, mode="team_3v3", quick_setup=True),
]


def _states(config: Config, seed: int, every: int = 1) -> Iterator[GameState]:
    """States of one random game (copies), every ``every``-th decision."""
    state = new_game(config, seed)
    rng = random.Random(seed)
    k = 0
    while state.result is None:
        if k % every == 0:
            yield state.copy()
        k += 1
        acts = legal_actions(state)
        apply_unchecked(state, acts[rng.randrange(len(acts))])
    yield state.copy()


def _section(enc: ObservationEncoder, name: str) -> tuple[int, int]:
    for section, start, length in enc.layout:
        if section == name:
            return start, length
    raise KeyError(name)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}-{c.mode}")
def test_shape_dtype_constant_and_finite(config: Config) -> None:
    enc: ObservationEncoder | None = None
    seen = 0
    for seed in range(3):
        for state in _states(config, seed, every=3):
            if enc is None:
                enc = ObservationEncoder(config, state.world)
            for seat in (state.pending.seat if state.pending.seat >= 0 else 0, 0):
                obs = enc.encode(state, seat)
                assert obs.shape == (enc.size,)
                assert obs.dtype == np.float32
                assert np.isfinite(obs).all()
                seen += 1
            if seen >= 400:
                break
    assert seen >= 300


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}-{c.mode}")
def test_layout_covers_size_without_overlap(config: Config) -> None:
    state = new_game(config, 0)
    enc = ObservationEncoder(config, state.world)
    at = 0
    for _name, start, length in enc.layout:
        assert start == at and length > 0
        at += length
    assert at == enc.size
    table = enc.describe()
    assert table.count("\n") == len(enc.layout) + 2
    assert all(f"| {name} | {start} | {length} |" in table for name, start, length in enc.layout)


def test_encode_returns_a_fresh_array() -> None:
    state = new_game(Config(players=3, quick_setup=True), 1)
    enc = ObservationEncoder(state.config, state.world)
    a = enc.encode(state, 0)
    a[:] = -1.0
    b = enc.encode(state, 0)
    assert (b >= 0).all()


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}-{c.mode}")
def test_determinized_twin_has_the_same_observation(config: Config) -> None:
    """R5.13: what a seat may not see (others' cards, the deck order, a face-down battle card,
    R16.5) may change without changing its observation; allies' cards stay known (R23.5)."""
    enc: ObservationEncoder | None = None
    checked = 0
    for state in _states(config, 7, every=11):
        if enc is None:
            enc = ObservationEncoder(config, state.world)
        twin_enc = ObservationEncoder(config, state.world)  # no shared per-observer cache
        for seat in range(state.n):
            obs = enc.encode(state, seat)
            for k in range(3):
                twin = SeatView(state, seat).determinize(random.Random(k))
                assert np.array_equal(twin_enc.encode(twin, seat), obs), (seat, k)
                assert np.array_equal(enc.encode(twin, seat), obs), (seat, k)
                checked += 1
    assert checked > 30


def _mid_game(config: Config, seed: int = 3, steps: int = 120) -> GameState:
    return played(config, seed, steps)


def test_hidden_cards_and_deck_order_do_not_show() -> None:
    """R5.13: another seat's hand (same count) and the deck order are not visible; the
    observer's own hand is."""
    state = _mid_game(Config(players=4, quick_setup=True))
    enc = ObservationEncoder(state.config, state.world)
    obs = enc.encode(state, 0)
    other = next(p for p in range(1, 4) if state.hand[p])
    changed = state.copy()
    all_cards = sorted({c for h in state.hand + state.pool for c in h} | {"KHA-1", "ZHO-5"})
    spare = next(c for c in all_cards if c not in changed.hand[other])
    changed.hand[other] = [spare] + changed.hand[other][1:]
    changed.deck = changed.deck[::-1]
    assert np.array_equal(ObservationEncoder(state.config, state.world).encode(changed, 0), obs)
    assert np.array_equal(enc.encode(changed, 0), obs)
    mine = state.copy()
    spare = next(c for c in all_cards if c not in mine.hand[0])
    mine.hand[0] = [spare] + mine.hand[0][1:] if mine.hand[0] else [spare]
    assert not np.array_equal(enc.encode(mine, 0), obs)


def test_allies_hands_show_in_team_mode() -> None:
    """R23.5: allies see each other's hands; an opponent's hand stays hidden."""
    state = _mid_game(Config(players=4, mode="team_2v2", quick_setup=True))
    enc = ObservationEncoder(state.config, state.world)
    obs = enc.encode(state, 0)
    ally = next(p for p in state.allies(0))
    start, length = _section(enc, "ally_hand")
    assert obs[start:start + length].sum() == len(set(state.hand[ally]))
    changed = state.copy()
    changed.hand[ally] = []
    assert not np.array_equal(enc.encode(changed, 0), obs)


def test_own_gold_in_own_player_row() -> None:
    state = _mid_game(Config(players=4, quick_setup=True))
    enc = ObservationEncoder(state.config, state.world)
    start, _ = _section(enc, "players")
    state.gold[:] = [7, 8, 9, 10]
    for seat in range(4):
        obs = enc.encode(state, seat)
        assert obs[start] == pytest.approx((7 + seat) / 20)  # relative player 0: the observer
        # relative player 1 is the next seat
        assert obs[start + enc.player_len] == pytest.approx((7 + (seat + 1) % 4) / 20)


def test_opponent_unit_under_its_relative_owner() -> None:
    state = new_game(Config(players=4, quick_setup=True), 5)
    enc = ObservationEncoder(state.config, state.world)
    tile = next(t for t, units in enumerate(state.board) if not units)
    state.board[tile] = (code(2, 0, SWORD, upgraded=True),)
    state.invalidate()
    obs = enc.encode(state, 1)  # seat 2 is relative player 1 of seat 1
    row = obs[tile * enc.row_len:(tile + 1) * enc.row_len]
    units_at = 5 + 4 + 1  # terrain 4, castle spot, home one-hot 4, fortified
    assert row[units_at + 1 * 14 + SWORD * 2 + 1] == pytest.approx(0.2)
    assert row[units_at:units_at + 4 * 14].sum() == pytest.approx(0.2)
    assert row[-1] == pytest.approx((state.world.capacity[tile] - 1) / 5)
    # the same unit for seat 2 itself is relative owner 0
    row2 = enc.encode(state, 2)[tile * enc.row_len:(tile + 1) * enc.row_len]
    assert row2[units_at + SWORD * 2 + 1] == pytest.approx(0.2)


def test_crowns_counted_per_owner() -> None:
    state = new_game(Config(players=3, quick_setup=True), 2)
    enc = ObservationEncoder(state.config, state.world)
    obs = enc.encode(state, 0)
    units_at = 5 + 3 + 1
    for t, units in enumerate(state.board):
        row = obs[t * enc.row_len:(t + 1) * enc.row_len]
        for c in units:
            rel = (owner_of(c) - 0) % 3
            if (c >> 1) & 7 == CROWN:
                assert row[units_at + rel * 14 + CROWN * 2] > 0


def test_partial_action_tile_units_and_stage() -> None:
    state = _mid_game(Config(players=4, quick_setup=True))
    enc = ObservationEncoder(state.config, state.world)
    seat = state.pending.seat
    partial = Action(MOVE, tile=2, tile2=3, units=(code(seat, 0, SWORD),))
    obs = enc.encode(state, seat, partial, stage=0)
    base = enc.encode(state, seat)
    for name, index in (("partial", 0), ("partial_tile", 2), ("partial_tile2", 3),
                        ("partial_stage", 0)):
        start, length = _section(enc, name)
        assert obs[start + index] == 1.0
        assert obs[start:start + length].sum() == 1.0
        assert base[start:start + length].sum() == 0.0
    start, _ = _section(enc, "partial_units")
    assert obs[start + SWORD * 2] == pytest.approx(0.2)
    later = enc.encode(state, seat, partial, stage=1)
    start, _ = _section(enc, "partial_stage")
    assert later[start + 1] == 1.0 and later[start] == 0.0


def test_equal_observations_offer_equal_choices() -> None:
    """What a seat may do follows from what it sees: two successor states the deciding seat
    cannot tell apart offer the same legal actions (information-set search such as ISMCTS
    keys its nodes on the observation). Children of one state differ only by the action
    taken, which covers the invasion order (R17.6: who already stays behind), the units set
    aside in a battle (R16.25), the castles still to spawn (R8.1) and R11.4."""
    from kaladan.env.encoding import ActionEncoder, Choice
    from kaladan.rules.state import Decision

    battle_kinds = (Decision.INVASION, Decision.CASUALTY, Decision.CARD, Decision.SPAWN,
                    Decision.MAGIC, Decision.SPLIT)
    checked = 0
    for config in (Config(players=2), Config(players=3, quick_setup=True),
                   Config(players=4, mode="team_2v2", quick_setup=True)):
        encoder = ObservationEncoder(config, new_game(config, 0).world)
        actions = ActionEncoder(config, new_game(config, 0).world)
        states = [s for seed in range(21, 33) for s in _states(config, seed)]
        for i, state in enumerate(states):
            if state.result is not None or (state.pending.kind not in battle_kinds
                                            and i % 10):
                continue
            legal = list(legal_actions(state))
            groups: dict[tuple[int, bytes], set[int]] = {}
            for action in legal[:40]:
                child = state.copy()
                apply_unchecked(child, action)
                if child.result is not None:
                    continue
                seat = child.pending.seat
                key = (seat, encoder.encode(child, seat).tobytes())
                tokens = frozenset(Choice(actions, child, legal_actions(child)).legal_tokens())
                known = groups.setdefault(key, set(tokens))
                assert known == tokens, (config, action)
                checked += 1
    assert checked > 2000


@pytest.mark.parametrize("config", CONFIGS[::2], ids=lambda c: f"{c.players}-{c.mode}")
def test_env_observations_equal_a_fresh_encoding(config: Config) -> None:
    """The environment's observations come from per-observer caches and, while an action is
    composed, from the seat's last vector with only the partial action rewritten. At every
    token of random episodes they equal what a new encoder (no cache) makes of the same
    state: for the deciding seat, with its composition, and for another seat, without it
    (a half-composed action is not public, R5.13)."""
    from kaladan.env.core import EnvCore

    core = EnvCore(config)
    rng = random.Random(config.players)
    checked = composing = 0
    for seed in range(2):
        core.reset(seed)
        while not core.over:
            choice = core.choice
            assert choice is not None
            seat, other = core.seat, (core.seat + 1) % config.players
            fresh = ObservationEncoder(config, core.state.world)
            partial, stage = choice.partial()
            assert np.array_equal(core.observe(seat),
                                  fresh.encode(core.state, seat, partial, stage))
            assert np.array_equal(core.observe(other), fresh.encode(core.state, other))
            checked += 1
            composing += bool(choice.prefix)
            tokens = choice.legal_tokens()
            core.step(tokens[int(rng.random() * len(tokens))])
    assert checked > 200 and composing > 20


def test_same_state_partial_only_for_the_state_last_encoded() -> None:
    """The short cut applies to the very state object last encoded for that seat, at the
    same decision count; anything else gets None and is encoded in full."""
    state = _mid_game(Config(players=3, quick_setup=True))
    enc = ObservationEncoder(state.config, state.world)
    seat = state.pending.seat
    assert enc.same_state_partial(state, seat, None) is None  # nothing encoded yet
    full = enc.encode(state, seat)
    again = enc.same_state_partial(state, seat, None)
    assert again is not None and np.array_equal(again, full) and again is not full
    partial = Action(MOVE, tile=2, tile2=3, units=(code(seat, 0, SWORD),))
    composed = enc.same_state_partial(state, seat, partial, 0)
    assert composed is not None
    assert np.array_equal(composed, ObservationEncoder(state.config, state.world)
                          .encode(state, seat, partial, 0))
    assert enc.same_state_partial(state.copy(), seat, None) is None  # another object
    acts = legal_actions(state)
    apply_unchecked(state, acts[0])  # counts a decision
    assert enc.same_state_partial(state, seat, None) is None
