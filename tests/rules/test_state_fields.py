"""GameState's fields are declared once (rules/state.py): the game's facts (``FACTS``), what
the config derives (``DERIVED``) and the scratch. Every fact survives a copy, a pickle and a
position round trip, and a copy shares none of its mutable parts with the original; the
scratch (caches, the log sink) is no fact. A field added to the class without being declared
is refused at run time; a fact added without a way to copy, pickle or write it fails here (or
at import, in notation.py)."""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterator
from copy import deepcopy
from typing import Any

import pytest

from kaladan.rules.apply import apply_unchecked
from kaladan.rules.chance import Chance
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.notation import position_from_json, position_to_json
from kaladan.rules.setup import new_game
from kaladan.rules.state import DERIVED, FACTS, GameState, Scratch, declared_fields

# Facts that hold only immutable values or values shared on purpose (the world, the config).
_SHARED = {"config", "world"}


def varied_states() -> Iterator[GameState]:
    """States from random games of 2, 4 (teams) and 6 players with something in every
    optional part at some point: an event being resolved, a battle, a result."""
    seen = {"event": False, "battle": False, "result": False}
    for players, mode, seed in ((2, "free_for_all", 3), (4, "team_2v2", 4),
                                (6, "free_for_all", 5)):
        state = new_game(Config(players=players, mode=mode), seed)
        rng = random.Random(seed)
        step = 0
        while True:
            if state.event is not None and not seen["event"] or state.battle is not None and (
                    not seen["battle"] or step % 97 == 0) or step % 151 == 0:
                seen["event"] |= state.event is not None
                seen["battle"] |= state.battle is not None
                yield state
            if state.result is not None:
                seen["result"] = True
                yield state
                break
            legal = legal_actions(state)
            apply_unchecked(state, legal[rng.randrange(len(legal))])
            step += 1
    assert all(seen.values()), seen


STATES = list(varied_states())


def comparable(value: Any) -> Any:
    """A value as equality should see it: a Chance by its generator and forced values (it
    has no ``==``; its log of outcomes used is a record's, which a copy starts anew), anything
    else as it is."""
    if isinstance(value, Chance):
        return (value.state, list(value.forced))
    return value


def test_the_facts_are_the_declared_fields_but_the_derived_ones_and_the_scratch() -> None:
    declared = declared_fields(GameState)
    assert set(declared) == set(FACTS) | set(DERIVED) | {"scratch"}
    assert len(declared) == len(FACTS) + len(DERIVED) + 1
    assert [name for name in declared if name in FACTS] == list(FACTS)  # declaration order
    assert "sink" not in declared and "legal_for" not in declared  # the scratch's


def test_an_undeclared_field_is_refused() -> None:
    state = new_game(Config(players=2), 1)
    with pytest.raises(AttributeError):
        state.undeclared = 1  # type: ignore[attr-defined]


def _mutate(value: Any) -> bool:
    """Change a mutable part of ``value`` in place; False when it has none."""
    if isinstance(value, list):
        if value and isinstance(value[0], list):
            value[0].append(-99)
        else:
            value.append(-99)
        return True
    if isinstance(value, Chance):
        value.below(1000)
        return True
    for name in ("queue", "magic_queue", "scores"):  # EventContext, Battle, Result
        if isinstance(getattr(value, name, None), list):
            getattr(value, name).append(-99)
            return True
    return False


@pytest.mark.parametrize("fact", FACTS)
def test_every_fact_survives_a_copy_and_is_not_shared(fact: str) -> None:
    mutated = 0
    for state in STATES:
        before = deepcopy(comparable(getattr(state, fact)))
        copy = state.copy()
        assert comparable(getattr(copy, fact)) == before, fact
        if fact not in _SHARED and _mutate(getattr(copy, fact)):
            mutated += 1
            assert comparable(getattr(state, fact)) == before, f"{fact} is shared by a copy"
    mutable = isinstance(getattr(STATES[0], fact), (list, Chance)) or any(
        getattr(s, fact) is not None for s in STATES) and fact in ("event", "battle", "result")
    assert mutated or not mutable, f"{fact}: never checked for sharing"


@pytest.mark.parametrize("fact", FACTS)
def test_every_fact_survives_pickling_and_a_position(fact: str) -> None:
    for state in STATES:
        pickled = pickle.loads(pickle.dumps(state))
        assert comparable(getattr(pickled, fact)) == comparable(getattr(state, fact)), fact
        again = position_from_json(position_to_json(state))
        if fact == "chance":  # a position carries the generator, not its log
            assert again.chance.state == state.chance.state
        else:
            assert getattr(again, fact) == getattr(state, fact), fact


def test_derived_fields_and_a_fresh_scratch_come_back_with_every_state() -> None:
    for state in STATES:
        state.sink = []
        for other in (state.copy(), pickle.loads(pickle.dumps(state)),
                      position_from_json(position_to_json(state))):
            assert [getattr(other, name) for name in DERIVED] == [
                getattr(state, name) for name in DERIVED]
            assert isinstance(other.scratch, Scratch) and other.scratch is not state.scratch
            assert other.sink is None and other.scratch.legal_for is None
        state.sink = None
