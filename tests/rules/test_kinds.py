"""The registry of action kinds (rules/kinds.py): one spec per kind, and the text forms, the
dispatch of ``apply``, the kinds each decision accepts and the reasons of a refusal all come
from it. Actions are values nobody can change, shared or not.

Named positions: the 2-player standard world of tests/test_illegal.py (seat 0 Khalisia at
home on C1, seat 1 Kimbria on C2; T7 touches T4, T5, T6 and C1)."""

from __future__ import annotations

import ast
import random
from collections import Counter
from pathlib import Path

import pytest

import kaladan
from kaladan.game import Game
from kaladan.rules import kinds
from kaladan.rules.actions import FIELD_NAMES, Action, Kind
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.kinds import ACCEPTS, DECISIONS, HANDLERS, SPECS, format_action, parse_action
from kaladan.rules.legal import legal_actions
from kaladan.rules.state import Decision
from positions import ACTION_BOARD, build, game_at

_DEFAULTS = dict(zip(FIELD_NAMES[1:], (-1, -1, (), (), "", "", -1, 0, ()), strict=True))


def legal_by_kind() -> dict[Kind, list[tuple[Game, Action]]]:
    """Up to a few legal actions of every kind, each with the game it is legal in, from
    random games of every mode (card choices included)."""
    found: dict[Kind, list[tuple[Game, Action]]] = {}
    for players, mode, seed in ((2, "free_for_all", 11), (4, "team_2v2", 12),
                                (6, "team_3v3", 13), (3, "free_for_all", 14),
                                (5, "free_for_all", 15), (2, "free_for_all", 16)):
        game = Game.new(Config(players=players, mode=mode), seed)
        rng = random.Random(seed)
        while not game.is_over and game.state.decisions < 4000:
            legal = legal_actions(game.state)
            for action in legal:
                if len(found.setdefault(action.kind, [])) < 3:
                    found[action.kind].append((Game(game.config, 0, game.state.copy()),
                                               action))
            game.play(legal[rng.randrange(len(legal))])
    return found


LEGAL = legal_by_kind()


def test_every_kind_has_exactly_one_spec() -> None:
    assert Counter(spec.kind for spec in SPECS.values()) == Counter(Kind)
    assert all(SPECS[kind].kind is kind for kind in Kind)
    assert set(DECISIONS) == set(Decision)


def test_the_kinds_a_decision_accepts_are_the_specs() -> None:
    for decision in Decision:
        assert ACCEPTS[decision] == {k for k, s in SPECS.items() if decision in s.decisions}
    # every kind the generator lists is accepted by the decision that lists it
    for kind, found in LEGAL.items():
        for game, action in found:
            assert action.kind in ACCEPTS[game.state.pending.kind], (kind, action)


def test_text_forms_follow_the_spec_slots() -> None:
    """Word for word: the kind, then one word per slot (an optional card left out), and an
    action uses no field its kind's spec does not name."""
    assert len(LEGAL) >= 30, set(Kind) - set(LEGAL)  # nearly every kind met in play
    for kind, found in LEGAL.items():
        spec = SPECS[kind]
        for game, action in found:
            state = game.state
            text = format_action(action, state)
            words = text.split()
            assert words[0] == kind.value
            optional = [s for s in spec.slots if s.optional and s.form.value == "card"]
            assert len(spec.slots) - len(optional) <= len(words) - 1 <= len(spec.slots), text
            assert parse_action(text, state) == action
            unused = set(FIELD_NAMES[1:]) - spec.fields
            assert all(getattr(action, f) == _DEFAULTS[f] for f in unused), (action, unused)


def test_grammar_published_for_the_browser_is_the_specs() -> None:
    grammar = kinds.grammar()
    assert list(grammar["kinds"]) == [k.value for k in SPECS]
    for kind, spec in SPECS.items():
        assert [s["field"] for s in grammar["kinds"][kind.value]] == [s.field for s in spec.slots]
        assert [s["form"] for s in grammar["kinds"][kind.value]] == [s.form.value
                                                                    for s in spec.slots]


def test_apply_dispatches_to_the_handler_the_spec_names() -> None:
    assert all(HANDLERS[kind] is SPECS[kind].handler for kind in Kind)
    state = build(ACTION_BOARD, homes=["C1", "C2"])
    called: list[Action] = []
    original = HANDLERS[Kind.PASS]
    try:  # the table apply reads at run time (a dict, also when compiled)
        HANDLERS[Kind.PASS] = lambda s, a: called.append(a)  # type: ignore[index]
        apply_unchecked(state, Action(Kind.PASS))
    finally:
        HANDLERS[Kind.PASS] = original  # type: ignore[index]
    assert called == [Action(Kind.PASS)]


def test_the_fast_dispatch_calls_the_handlers_the_specs_name() -> None:
    """apply._dispatch calls the handlers of the most frequent kinds directly (the compiler
    makes those native calls): each ``kind is X`` branch calls X's spec's handler."""
    tree = ast.parse((Path(kaladan.__file__).parent / "rules" / "apply.py").read_text("utf-8"))
    (dispatch,) = [f for f in ast.walk(tree)
                   if isinstance(f, ast.FunctionDef) and f.name == "_dispatch"]
    checked = 0
    for branch in ast.walk(dispatch):
        if not isinstance(branch, ast.If):
            continue
        named = {n.id for n in ast.walk(branch.test) if isinstance(n, ast.Name)} - {"kind"}
        call = branch.body[0].value  # type: ignore[attr-defined]
        if isinstance(call.func, ast.Attribute):
            for name in named:
                assert SPECS[Kind[name]].handler.__name__ == call.func.attr, (name, call)
                checked += 1
    assert checked >= 5


def refused(game: Game, text: str) -> IllegalActionError:
    with pytest.raises(IllegalActionError) as info:
        game.play(text)
    return info.value


def test_a_kind_not_taken_now_names_the_decision_and_the_kinds_own_window() -> None:
    """R10.1 / R11.2: a buy in the Action phase says what the phase asks and when units are
    bought, both read off the specs."""
    game = game_at(build(ACTION_BOARD, homes=["C1", "C2"]))
    error = refused(game, "buy sword T7")
    assert error.rule == DECISIONS[Decision.ACTION].rule == "R10.1"
    assert SPECS[Kind.BUY].when in error.reason
    assert DECISIONS[Decision.ACTION].expects in error.reason


def test_a_swap_of_equal_sets_is_refused_for_what_it_is() -> None:
    """R10.7: T5 and T7 both hold a Sword of seat 0; swapping one for the other is no swap
    (not a capacity matter)."""
    game = game_at(build(ACTION_BOARD, homes=["C1", "C2"]))
    error = refused(game, "swap T5 T7 sword sword")
    assert (error.rule, error.reason) == (SPECS[Kind.SWAP].refusals["equal"].rule,
                                          SPECS[Kind.SWAP].refusals["equal"].reason)
    assert error.rule == "R10.7"
    # two sets of several units on both sides: R10.7's other half
    error = refused(game, "swap T7 C1 archer,shield general,sword")
    assert error.rule == "R10.7" and "single unit" in error.reason


def test_refusals_of_every_kind_name_a_rule_and_change_nothing() -> None:
    """For every kind met in play, a near miss (the action with another tile, or another
    unit) is refused with a rule id and a reason, and the state stays as it was."""
    checked = 0
    for _, found in LEGAL.items():
        game, action = found[0]
        state = game.state
        legal = legal_actions(state)
        candidates = [action.replace(tile2=t) for t in range(len(state.board))
                      if action.tile2 >= 0] + [action.replace(tile=t) for t in
                                               range(len(state.board)) if action.tile >= 0]
        for miss in candidates:
            if miss in legal:
                continue
            before = format_action(action, state), state.decisions, list(state.gold)
            with pytest.raises(IllegalActionError) as info:
                game.play(miss)
            assert info.value.rule and info.value.reason
            assert (format_action(action, state), state.decisions, list(state.gold)) == before
            checked += 1
            break
    assert checked >= 10


def test_a_shared_action_cannot_be_changed() -> None:
    """Attacks are made once per pair of tiles and shared by every game in the process
    (legal._attack): no caller may change one (compiled: read-only fields; pure Python:
    ``FrozenInstanceError``, an ``AttributeError``)."""
    state = build(ACTION_BOARD, homes=["C1", "C2"])
    attack = next(a for a in legal_actions(state) if a.kind is Kind.ATTACK)
    again = next(a for a in legal_actions(state.copy()) if a.kind is Kind.ATTACK)
    assert again is attack  # the very same value, shared
    fields = attack.fields()
    for field in FIELD_NAMES:
        with pytest.raises(AttributeError):
            setattr(attack, field, 9)
        with pytest.raises(AttributeError):
            delattr(attack, field)
    assert attack.fields() == fields
    assert attack in legal_actions(state.copy())
