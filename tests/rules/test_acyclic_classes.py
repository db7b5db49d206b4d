"""The classes the compiler makes acyclic hold nothing that could lead back to them.

``@mypyc_attr(acyclic=True)`` (docs/compiled.md, rule 8) takes a compiled class out of
the garbage collector: its instances are neither tracked nor walked, so a reference cycle
through one would never be freed. That is sound only while such an instance holds ints,
strings, enum members, tuples, lists, dicts, deques and other acyclic instances, never a
state, a bot or a callback. These tests walk everything such instances hold at every
decision of random games (the legal lists with their blocks unbuilt and built, the pending
decision, a battle, an event, the generator, the tile facts), and check that the attribute
took effect in the compiled engine. A GameState stays tracked: its log sink may be a
method of something that holds the state.
"""

from __future__ import annotations

import ast
import gc
import importlib
import random
from collections import deque
from collections.abc import Iterator
from enum import Enum
from pathlib import Path

import pytest

import kaladan
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.native import mypyc_attr
from kaladan.rules.offer import offer
from kaladan.rules.setup import new_game
from kaladan.rules.state import GameState

RULES = Path(kaladan.__file__).resolve().parent / "rules"
_ATOMS = (int, str, float, type(None), Enum)  # bool is an int
_CONTAINERS = (tuple, list, deque, set, frozenset)


def _is_acyclic_attr(decorator: ast.expr) -> bool:
    return (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name)
            and decorator.func.id == "mypyc_attr"
            and any(k.arg == "acyclic" and isinstance(k.value, ast.Constant)
                    and k.value.value is True for k in decorator.keywords))


def declared_acyclic() -> set[type]:
    """The engine's classes declared acyclic, read from the sources."""
    out: set[type] = set()
    for path in sorted(RULES.rglob("*.py")):
        module = ".".join(("kaladan", *path.relative_to(RULES.parent).with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef) and any(map(_is_acyclic_attr,
                                                          node.decorator_list)):
                out.add(getattr(importlib.import_module(module), node.name))
    return out


ACYCLIC = declared_acyclic()


def attribute_names(cls: type) -> tuple[str, ...]:
    """A compiled class lists its attributes in ``__mypyc_attrs__``; a Python one in the
    ``__slots__`` of its classes."""
    compiled = getattr(cls, "__mypyc_attrs__", None)
    if compiled is not None:
        return tuple(compiled)
    return tuple(name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ()))


def held(obj: object, where: str, seen: set[int], found: dict[type, object]) -> None:
    """Walks what ``obj`` holds; fails at the first thing an acyclic instance may not hold."""
    if isinstance(obj, _ATOMS) or id(obj) in seen:
        return
    seen.add(id(obj))
    kind = type(obj)
    if kind in _CONTAINERS:
        for i, item in enumerate(obj):  # type: ignore[call-overload]
            held(item, f"{where}[{i}]", seen, found)
    elif kind is dict:
        for key, value in obj.items():  # type: ignore[attr-defined]
            held(key, f"{where} key", seen, found)
            held(value, f"{where}[{key!r}]", seen, found)
    elif kind in ACYCLIC:
        found.setdefault(kind, obj)
        for name in attribute_names(kind):
            if hasattr(obj, name):
                held(getattr(obj, name), f"{where}.{name}", seen, found)
    else:
        raise AssertionError(f"{where} is a {kind.__qualname__}, which could lead back")


def roots(state: GameState) -> Iterator[tuple[str, object]]:
    yield "legal", legal_actions(state)
    yield "pending", state.pending
    yield "battle", state.battle
    yield "event", state.event
    yield "chance", state.chance
    yield "tile_infos", state.scratch.tile_infos
    yield "offer groups", offer(state).groups


def random_games() -> Iterator[GameState]:
    """Every position of one random game for 2, 4 and 6 players each (battles, events,
    purchases and magic cards included)."""
    for players, seed in ((2, 5), (4, 6), (6, 7)):
        state = new_game(Config(players=players), seed)
        rng = random.Random(seed)
        while state.result is None:
            yield state
            legal = legal_actions(state)
            apply_unchecked(state, legal[rng.randrange(len(legal))])


def test_acyclic_instances_hold_only_values_and_other_acyclic_instances() -> None:
    found: dict[type, object] = {}
    for i, state in enumerate(random_games()):
        for name, root in roots(state):
            held(root, name, set(), found)
        if i % 5 == 0:  # the blocks built as well (a search or a membership test builds them)
            held(list(legal_actions(state)), "legal built", set(), found)
    # Not vacuous: every declared class was met, or a subclass of it (the base Block).
    unmet = {cls.__qualname__ for cls in ACYCLIC
             if not any(issubclass(kind, cls) for kind in found)}
    assert unmet == set()


def test_the_walk_fails_on_what_could_lead_back() -> None:
    state = new_game(Config(players=2), 1)
    pending = state.pending
    with pytest.raises(AssertionError, match="GameState"):
        held((pending, [state]), "probe", set(), {})


@pytest.mark.skipif(kaladan.engine_mode() != "compiled", reason="the compiled engine's GC flags")
def test_compiled_acyclic_instances_are_not_tracked_but_states_are() -> None:
    found: dict[type, object] = {}
    for state in random_games():
        for name, root in roots(state):
            held(root, name, set(), found)
        if len(found) >= len(ACYCLIC) - 1:
            break
    assert found  # the walk met instances of the declared classes
    tracked = {kind.__qualname__ for kind, obj in found.items() if gc.is_tracked(obj)}
    assert tracked == set()
    assert gc.is_tracked(new_game(Config(players=2), 1))


def test_in_pure_python_the_attribute_changes_nothing() -> None:
    class Probe:
        __slots__ = ("value",)

    assert mypyc_attr(acyclic=True, free_list_len=1)(Probe) is Probe
