"""The fixed action space (kaladan.env.encoding): every legal action of every sampled state
has exactly one token sequence, which decodes back to it, and the masks are the legal set.

States come from random games of every player count and mode, with the magic-card and event
decisions they reach (R16, section 7, R23.11 gifts, R23.22 splits)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kaladan.env.encoding import ActionEncoder, Choice, kind_unit, unit_kind
from kaladan.rules import actions as A
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.errors import InvalidActionError
from kaladan.rules.legal import legal_actions
from kaladan.rules.setup import new_game
from kaladan.rules.state import GameState
from kaladan.rules.units import REALMS, SPECIAL, code

CONFIGS = [
    Config(players=2), Config(players=3), Config(players=4, quick_setup=True),
    Config(players=5), Config(players=6, quick_setup=True),
    Config(players=4, mode="team_2v2"), Config(players=6, mode="team_3v3"),
]


def sampled_states(config: Config, games: int, seed: int) -> list[GameState]:
    """Every decision of ``games`` random games (copies)."""
    out = []
    for g in range(games):
        state = new_game(config, seed + g)
        rng = random.Random(seed + g)
        while state.result is None:
            out.append(state.copy())
            legal = legal_actions(state)
            apply_unchecked(state, legal[int(rng.random() * len(legal))])
    return out


def _walk(encoder: ActionEncoder, state: GameState, tokens: list[int]) -> object:
    """Push ``tokens`` one by one into a fresh Choice, checking each is offered."""
    choice = Choice(encoder, state, legal_actions(state))
    result = None
    for i, token in enumerate(tokens):
        assert token in choice.legal_tokens(), (tokens, i)
        result = choice.push(token)
        if i < len(tokens) - 1:
            assert result is None, "a sequence completed before its end: not prefix-free"
    return result


def test_unit_kinds_round_trip() -> None:
    for owner in range(6):
        for utype in range(6):
            for up in (False, True):
                c = code(owner, 0, utype, up)
                assert kind_unit(unit_kind(c), owner) == c
        for realm in range(len(REALMS)):
            for up in (False, True):
                c = code(owner, realm, SPECIAL, up)
                assert kind_unit(unit_kind(c), owner) == c


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}-{c.mode}")
def test_every_legal_action_round_trips_and_masks_are_the_legal_set(config: Config) -> None:
    states = sampled_states(config, games=3, seed=11)
    assert len(states) >= 300
    encoder = ActionEncoder(config, states[0].world)
    seen_kinds: set[str] = set()
    for state in states:
        seat = state.pending.seat
        legal = list(legal_actions(state))
        sequences = [encoder.tokens(a, seat) for a in legal]
        assert len({tuple(s) for s in sequences}) == len(legal), "two actions share a sequence"
        for action, seq in zip(legal, sequences, strict=True):
            assert all(0 <= t < encoder.size for t in seq)
            assert encoder.decode(seq, seat) == action
            seen_kinds.add(action.kind)
        choice = Choice(encoder, state, legal_actions(state))
        heads = {s[0] for s in sequences}
        assert set(choice.legal_tokens()) == heads
        mask = choice.mask()
        assert mask.dtype == np.int8 and mask.shape == (encoder.size,)
        assert set(np.flatnonzero(mask)) == heads and set(mask.tolist()) <= {0, 1}
        # The whole trie of one compound head: every path is a legal action, and only those.
        rng = random.Random(len(legal))
        for action, seq in rng.sample(list(zip(legal, sequences, strict=True)),
                                      min(4, len(legal))):
            assert _walk(encoder, state, seq) == action
    assert {A.PASS, A.MOVE, A.ATTACK, A.END} <= seen_kinds


def test_over_two_thousand_states_with_compound_masks_checked_exhaustively() -> None:
    """Depth-first over every token path of every head: the completed actions are exactly
    the legal actions (no sequence missing, none extra)."""
    total = 0
    kinds: set[str] = set()
    for config in CONFIGS:
        states = sampled_states(config, games=2, seed=101)
        encoder = ActionEncoder(config, states[0].world)
        for state in states:
            legal = set(legal_actions(state))
            found: set[object] = set()

            def explore(prefix: list[int], state: GameState = state,
                        encoder: ActionEncoder = encoder, found: set[object] = found) -> None:
                choice = Choice(encoder, state, legal_actions(state))
                for t in prefix:
                    choice.push(t)
                assert set(np.flatnonzero(choice.mask())) == set(choice.legal_tokens())
                for token in choice.legal_tokens():
                    probe = Choice(encoder, state, legal_actions(state))
                    done = None
                    for t in [*prefix, token]:
                        done = probe.push(t)
                    if done is not None:
                        assert done not in found
                        found.add(done)
                    else:
                        explore([*prefix, token])

            explore([])
            assert found == legal
            kinds |= {a.kind for a in legal}
            total += 1
    assert total >= 2000
    # The compound kinds beyond moves and swaps were met too (gifts R23.11, splits R23.22).
    assert {A.MOVE, A.SWAP, A.GIFT, A.SPLIT} <= kinds


def test_an_illegal_token_is_refused_and_changes_nothing() -> None:
    state = sampled_states(Config(players=2, quick_setup=True), 1, 5)[20]
    encoder = ActionEncoder(state.config, state.world)
    choice = Choice(encoder, state, legal_actions(state))
    offered = set(choice.legal_tokens())
    bad = next(t for t in range(encoder.size) if t not in offered)
    with pytest.raises(InvalidActionError, match="not a legal head"):
        choice.push(bad)
    assert set(choice.legal_tokens()) == offered and choice.prefix == []


def test_malformed_sequences_do_not_decode() -> None:
    config = Config(players=2)
    encoder = ActionEncoder(config, new_game(config, 0).world)
    move = encoder.base[A.MOVE]
    with pytest.raises(InvalidActionError):
        encoder.decode([], 0)
    with pytest.raises(InvalidActionError, match="DONE"):
        encoder.decode([move, encoder.unit_base], 0)  # unit list not closed
    with pytest.raises(InvalidActionError):
        encoder.decode([encoder.base[A.PASS], encoder.done], 0)  # pass takes nothing more
    with pytest.raises(InvalidActionError, match="not a head"):
        encoder.decode([encoder.done], 0)


def test_numbers_have_one_spelling() -> None:
    """R23.11: a gift of any amount (here 0..45) has one sequence: +10s, then a digit."""
    config = Config(players=4, mode="team_2v2")
    encoder = ActionEncoder(config, new_game(config, 0).world)
    for amount in range(1, 46):
        gift = A.Action(A.GIFT, number=2, amount=amount)
        seq = encoder.tokens(gift, 0)
        assert seq.count(encoder.plus10) == amount // 10
        assert encoder.decode(seq, 0) == gift


def test_action_space_sizes_stay_small() -> None:
    """N per configuration: thousands, not the hundreds of thousands of a flat product."""
    sizes = {}
    for config in CONFIGS:
        sizes[(config.players, config.mode)] = ActionEncoder(
            config, new_game(config, 0).world).size
    assert max(sizes.values()) < 20_000
    assert sizes[(6, "free_for_all")] > sizes[(2, "free_for_all")]


CARD_KINDS = {A.KILL, A.SAVE, A.DEPLOY, A.RELOCATE, A.EVADE, A.HARMONY}


def card_choice_states(limit_games: int = 80) -> dict[str, GameState]:
    """States offering each card choice of section 26, from random games whose players play
    a magic card whenever they can (so the rarer effects come up)."""
    found: dict[str, GameState] = {}
    for g in range(limit_games):
        config = CONFIGS[g % len(CONFIGS)]
        state = new_game(config, 500 + g)
        rng = random.Random(g)
        while state.result is None and len(found) < len(CARD_KINDS):
            legal = legal_actions(state)
            for kind in CARD_KINDS & {a.kind for a in legal}:
                found.setdefault(kind, state.copy())
            magic = [a for a in legal if a.kind == A.MAGIC]
            pick = magic[0] if magic else legal[int(rng.random() * len(legal))]
            apply_unchecked(state, pick)
        if len(found) == len(CARD_KINDS):
            break
    return found


def test_card_choices_round_trip() -> None:
    """R20.9-R20.12, KHA-2, ZHO-5: the choices magic cards ask for encode like the rest."""
    states = card_choice_states()
    assert set(states) == CARD_KINDS
    for kind, state in states.items():
        encoder = ActionEncoder(state.config, state.world)
        seat = state.pending.seat
        for action in [a for a in legal_actions(state) if a.kind == kind]:
            seq = encoder.tokens(action, seat)
            assert encoder.decode(seq, seat) == action
            assert _walk(encoder, state, seq) == action


def test_mask_in_other_dtypes_is_the_same_writable_set() -> None:
    """Gymnasium's action_masks() asks for bools; other dtypes are converted."""
    state = sampled_states(Config(players=3), 1, 8)[40]
    encoder = ActionEncoder(state.config, state.world)
    choice = Choice(encoder, state, legal_actions(state))
    base = choice.mask()
    for dtype in (np.bool_, np.float32, np.int64):
        mask = choice.mask(dtype)
        assert mask.dtype == dtype and np.array_equal(mask.astype(np.int8), base)
        mask[0] = 1  # a fresh array the caller may change
    assert choice.mask()[0] == base[0]
