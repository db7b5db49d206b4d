"""Value classes without dataclasses (kaladan.rules.values, docs/compiled.md tenth part): they
behave as the dataclasses they replace, and the engine's native value classes name all their
fields."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from enum import Enum
from typing import Any, ClassVar

import pytest

from kaladan.rules import values
from kaladan.rules.combat import NO_MODIFIERS, Modifiers
from kaladan.rules.config import Config
from kaladan.rules.magic import EFFECTS, CardEffect
from kaladan.rules.setup import new_game
from kaladan.rules.state import Battle, BattleStep, EventContext, Result
from kaladan.rules.values import Value, field, mutable_value, value
from kaladan.rules.world import World
from kaladan.sim.runner import GameSpec, GameSummary, Summary


@value
class Point(Value):
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    note: str = field(default="", compare=False)
    ORIGIN: ClassVar[str] = "not a field"


@dataclasses.dataclass(frozen=True, slots=True)
class PointDataclass:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    note: str = dataclasses.field(default="", compare=False)


@mutable_value
class Tally(Value):
    name: str
    counts: list[int] = field(default_factory=list)


def test_a_value_class_has_the_fields_of_its_annotations_in_order() -> None:
    assert [name for name, _ in Point.FIELDS] == ["x", "y", "tags", "note"]
    assert Point.COMPARED == ("x", "y", "tags")  # compare=False leaves ``note`` out
    assert Point.__slots__ == ("x", "y", "tags", "note")
    assert Point.ORIGIN == "not a field"  # a ClassVar stays a class attribute


def test_a_frozen_value_behaves_as_the_frozen_dataclass_it_replaces() -> None:
    for args, kwargs in [((1,), {}), ((1, 2), {"tags": ("a",)}), ((), {"x": 3, "note": "n"})]:
        mine, theirs = Point(*args, **kwargs), PointDataclass(*args, **kwargs)
        assert repr(mine).replace("Point", "PointDataclass", 1) == repr(theirs)
        assert dataclasses.astuple(theirs) == mine.values()
    assert Point(1, note="a") == Point(1, note="b")  # as compare=False has it
    assert hash(Point(1, note="a")) == hash(Point(1, note="b"))
    assert Point(1) != Point(2) and Point(1) != PointDataclass(1)
    assert len({Point(1), Point(1, 0), Point(2)}) == 2


def test_a_frozen_value_cannot_change() -> None:
    point = Point(1)
    with pytest.raises(values.FrozenInstanceError, match="'x'"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(values.FrozenInstanceError):
        del point.y
    with pytest.raises(AttributeError):
        object.__setattr__(point, "other", 1)  # slots: no other attribute at all
    assert point == Point(1)


def test_a_value_checks_its_arguments_like_a_dataclass() -> None:
    with pytest.raises(TypeError, match="x"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="z"):
        Point(1, z=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, (), "", 5)  # type: ignore[call-arg]


def test_replace_and_pickling_keep_every_field() -> None:
    point = Point(1, 2, ("a",), "kept")
    assert point.replace(y=5) == Point(1, 5, ("a",)) and point.y == 2
    assert point.replace(y=5).note == "kept"
    copy = pickle.loads(pickle.dumps(point))
    assert copy == point and copy.note == "kept" and type(copy) is Point


def test_a_mutable_value_takes_assignments_and_is_unhashable() -> None:
    first, second = Tally("a"), Tally("b")
    first.counts.append(1)
    assert second.counts == []  # the factory made a list for each instance
    first.name = "c"
    assert first == Tally("c", [1]) and first != Tally("c")
    with pytest.raises(TypeError):
        hash(first)
    assert pickle.loads(pickle.dumps(first)) == first


def test_post_init_runs_after_the_fields_are_set() -> None:
    """Config coerces option text to enum members in ``__post_init__`` and checks R3.3."""
    config = Config(players=3, mountain_defence="drop_lowest")
    assert type(config.mountain_defence).__name__ == "MountainDefence"
    assert config == Config(players=3).with_options(mountain_defence="drop_lowest")
    assert pickle.loads(pickle.dumps(config)) == config


def test_a_field_without_default_after_one_with_is_refused_at_definition() -> None:
    with pytest.raises(TypeError, match="'b'"):
        @value
        class Wrong(Value):  # noqa: F841
            a: int = 0
            b: int  # type: ignore[misc]
    with pytest.raises(TypeError, match="'c'"):
        @value
        class AlsoWrong(Value):  # noqa: F841
            a: int = 0
            c: int = field(compare=False)  # a field() without a default is none either
    with pytest.raises(TypeError, match="Value"):
        value(type("Plain", (), {}))  # type: ignore[type-var]
    with pytest.raises(TypeError, match="extended"):
        @value
        class Extended(Point):  # noqa: F841 (its fields would hide Point's)
            z: int = 0


def test_the_init_is_generated_once_by_the_first_instance() -> None:
    @value
    class Fresh(Value):
        a: int

    assert Fresh.__init__ is values._first_init
    Fresh(1)
    generated = Fresh.__init__
    assert generated is not values._first_init
    Fresh(2)
    assert Fresh.__init__ is generated


def test_the_simulation_values_round_trip() -> None:
    spec = GameSpec(Config(players=4), 7, ("random",) * 4)
    assert pickle.loads(pickle.dumps(spec)) == spec  # what worker processes receive
    assert spec.replace(extra_gold=(1, 0, 0, 0)).extra_gold == (1, 0, 0, 0)
    summary = Summary()
    summary.games.append(GameSummary(1, ["random"], [None], None, "draw", 1, 2, [None]))
    assert Summary().games == []  # a new list for each summary
    assert pickle.loads(pickle.dumps(summary)) == summary


# --- the engine's native value classes ---------------------------------------------------------


def _attributes(cls: type) -> set[str]:
    """Every attribute an instance has: compiled, the compiler's list; else the slots."""
    compiled = getattr(cls, "__mypyc_attrs__", None)
    return set(compiled if compiled is not None else cls.__slots__) - {"__dict__"}


def _different(item: Any) -> Any:
    """Another value of the same type (a compiled class checks the types it is given)."""
    if isinstance(item, Enum):
        return next(member for member in type(item) if member != item)
    if isinstance(item, bool):
        return not item
    if item is None or isinstance(item, int):
        return (item or 0) + 1
    if isinstance(item, dict):
        return {**item, 99: 99}
    return item + type(item)([99] if not isinstance(item, str) else "x")


def _with(obj: Any, name: str) -> Any:
    changed = pickle.loads(pickle.dumps(obj))
    setattr(changed, name, _different(getattr(obj, name)))
    return changed


@pytest.mark.parametrize("obj", [
    EventContext("EV01", [0, 1], [1], True),
    Battle(0, 1, 2, 3, BattleStep.W1, [1], {0: "KHA-1"}, attack_units=(5,), invade_left=2),
    Result("final_round", 1, [3, 5], [[7, 2]], None),
], ids=lambda obj: type(obj).__name__)
def test_a_native_value_compares_prints_and_pickles_by_all_its_fields(obj: Any) -> None:
    """EventContext, Battle and Result name their fields once (``FIELDS``): the list must be
    every attribute, and ``==``, ``repr`` and pickling must use each."""
    cls = type(obj)
    assert set(cls.FIELDS) == _attributes(cls)
    copy = pickle.loads(pickle.dumps(obj))
    assert copy == obj and copy is not obj and copy == obj.copy()
    for name in cls.FIELDS:
        assert f"{name}={getattr(obj, name)!r}" in repr(obj)
        assert _with(obj, name) != obj, name
    assert obj.__eq__("not a value") is NotImplemented
    with pytest.raises(TypeError):
        hash(obj)  # mutable: unhashable, as an eq dataclass


def _world(kind: str = "standard") -> World:
    return new_game(Config(players=4, world=kind), 3).world


def test_the_world_compares_hashes_and_pickles_by_its_fields() -> None:
    world, same, other = _world(), _world(), _world("random_terrain")
    assert world == same and hash(world) == hash(same)
    assert world != other
    copy = pickle.loads(pickle.dumps(world))
    assert copy == world and copy.fields() == world.fields()
    assert repr(world).startswith("World(kind='standard'")
    assert {world: 1}[copy] == 1


def test_modifiers_and_card_effects_are_values() -> None:
    """Modifiers key the odds caches: equal by value, with one hash; card effects too."""
    mods = Modifiers((2,), (), -1)
    assert mods == Modifiers(d12_one=(2,), shift=-1) and hash(mods) == hash(Modifiers((2,), (), -1))
    assert mods != Modifiers((2,)) and mods != NO_MODIFIERS == Modifiers()
    assert pickle.loads(pickle.dumps(mods)) == mods
    assert repr(mods) == "Modifiers(d12_one=(2,), d12_all=(), shift=-1)"
    effect = EFFECTS["KHA-1"]
    assert effect == CardEffect(effect.condition, effect.kind, effect.options, effect.apply)
    assert effect != CardEffect(effect.condition, "other", effect.options, effect.apply)
    assert len({effect, CardEffect(effect.condition, effect.kind, effect.options,
                                   effect.apply)}) == 1


@pytest.mark.parametrize(("make", "name", "item"), [
    (_world, "kind", "custom"),
    (lambda: Modifiers((2,)), "shift", 1),
    (lambda: EFFECTS["KHA-1"], "kind", "other"),
], ids=["World", "Modifiers", "CardEffect"])
def test_a_compiled_frozen_value_cannot_change(make: Callable[[], Any], name: str,
                                               item: object) -> None:
    """Compiled, the ``Final`` fields of World, Modifiers and CardEffect are read-only (pure
    Python relies on mypy --strict, which rejects any assignment to them)."""
    obj = make()
    if not hasattr(type(obj), "__mypyc_attrs__"):
        pytest.skip("the pure engine: Final is checked by mypy --strict, not at run time")
    before = getattr(obj, name)
    with pytest.raises(AttributeError):
        setattr(obj, name, item)
    assert getattr(obj, name) == before
