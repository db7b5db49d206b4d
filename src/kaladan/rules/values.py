"""Value classes without ``dataclasses``: what ``@dataclass(slots=True)`` makes of a class,
frozen or not, at a fraction of its cost when the class is defined (docs/compiled.md, tenth
part).

``dataclasses`` compiles up to six methods per class with ``exec`` when the class is
defined, and importing it brings ``inspect``, ``ast`` and ``tokenize``. For the nineteen
value classes that ``kaladan simulate`` imports that was about 18 ms of a 60 ms start-up. Here
``==``, ``hash``, ``repr``, pickling, ``replace`` and immutability are the ``Value`` base
class's, written once; only ``__init__`` is generated, per class, when the class's first
instance is made.

The classes made here are plain Python classes, also in compiled modules (the compiler
cannot make a natively compiled class of a decorated one): the engine's values read at
every decision (``World``, ``Battle`` ...) are native classes that write their own methods.

Never compiled (setup.py): it makes classes at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, dataclass_transform

__all__ = ["Value", "value", "mutable_value", "field", "FrozenInstanceError"]

_MISSING: Any = object()


class FrozenInstanceError(AttributeError):
    """A field of a frozen value was assigned or deleted (``dataclasses`` has its own, also
    an ``AttributeError``)."""


class Field:
    """What ``field()`` gives a class attribute: the field's default or default factory, and
    whether ``==`` and ``hash`` look at it."""

    __slots__ = ("default", "factory", "compare")

    def __init__(self, default: Any, factory: Callable[[], Any] | None, compare: bool) -> None:
        self.default = default
        self.factory = factory
        self.compare = compare


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None,
          compare: bool = True) -> Any:
    """A field's options, as ``dataclasses.field`` takes them: a default or a factory of
    defaults (a new list for each instance), and ``compare=False`` to leave the field out of
    ``==`` and ``hash``."""
    return Field(default, default_factory, compare)


_V = TypeVar("_V", bound="Value")


class Value:
    """The methods of a value class made by ``@value`` or ``@mutable_value``: they compare,
    hash, print and pickle by the fields, like a dataclass."""

    __slots__ = ()
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = ()  # (name, annotation text), in order
    COMPARED: ClassVar[tuple[str, ...]] = ()  # the fields ``==`` and ``hash`` look at
    # The fields' defaults: values, and factories called for each instance.
    DEFAULTS: ClassVar[tuple[dict[str, Any], dict[str, Callable[[], Any]]]] = ({}, {})

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def values(self) -> tuple[Any, ...]:
        """Every field's value, in declaration order."""
        return tuple([getattr(self, name) for name, _ in self.FIELDS])

    def _compared(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self.COMPARED])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Value)
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name, _ in self.FIELDS)
        return f"{type(self).__qualname__}({shown})"

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), self.values()

    def replace(self: _V, **changes: Any) -> _V:
        """A copy with some fields changed (``dataclasses.replace``)."""
        values = dict(zip([name for name, _ in self.FIELDS], self.values(), strict=True))
        values.update(changes)
        return type(self)(**values)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def value(cls: type[_V]) -> type[_V]:
    """Make ``cls`` (a ``Value`` subclass) a frozen value class of its annotated fields (not
    the ``ClassVar`` ones): what ``@dataclass(frozen=True, slots=True)`` makes of it."""
    return _make(cls, frozen=True)


@dataclass_transform(field_specifiers=(field,))
def mutable_value(cls: type[_V]) -> type[_V]:
    """``@value`` whose fields can be assigned: ``@dataclass(slots=True)``, unhashable."""
    return _make(cls, frozen=False)


def _make(cls: type[_V], frozen: bool) -> type[_V]:
    if not issubclass(cls, Value):
        raise TypeError(f"{cls.__qualname__} must subclass Value")
    if any(base.FIELDS for base in cls.__mro__[1:] if issubclass(base, Value)):
        raise TypeError(f"{cls.__qualname__}: a value class with fields cannot be extended")
    names = [(name, str(kind)) for name, kind in cls.__dict__.get("__annotations__", {}).items()
             if not str(kind).startswith("ClassVar")]
    plain: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    compared = []
    for name, _ in names:
        item = cls.__dict__.get(name, _MISSING)
        spec = item if isinstance(item, Field) else Field(item, None, True)
        if spec.factory is not None:
            factories[name] = spec.factory
        elif spec.default is not _MISSING:
            plain[name] = spec.default
        elif plain or factories:
            raise TypeError(f"{cls.__qualname__}: field {name!r} without a default follows "
                            "one with a default")
        if spec.compare:
            compared.append(name)
    slots = tuple(name for name, _ in names)
    namespace = {key: item for key, item in cls.__dict__.items()
                 if key not in ("__dict__", "__weakref__") and key not in slots}
    namespace.update(__slots__=slots, FIELDS=tuple(names),
                     COMPARED=tuple(compared), DEFAULTS=(plain, factories),
                     __init__=_first_init)
    if not frozen:
        namespace.update(__setattr__=object.__setattr__, __delattr__=object.__delattr__,
                         __hash__=None)
    return type(cls.__name__, cls.__bases__, namespace)


def _first_init(self: Value, *args: Any, **kwargs: Any) -> None:
    """The ``__init__`` of a value class until its first instance: compiles the class's own
    (named parameters, defaults, one slot store each, then ``__post_init__`` if the class
    has one), puts it on the class, and runs it."""
    cls = type(self)
    init = _make_init(cls)
    type.__setattr__(cls, "__init__", init)
    init(self, *args, **kwargs)


def _make_init(cls: type[Value]) -> Callable[..., None]:
    defaults, factories = cls.DEFAULTS
    params = ", ".join(
        f"{name}=_missing" if name in factories else
        f"{name}=_default_{name}" if name in defaults else name for name, _ in cls.FIELDS)
    body = "".join(
        f"    _set(self, {name!r}, _default_{name}() if {name} is _missing else {name})\n"
        if name in factories else f"    _set(self, {name!r}, {name})\n"
        for name, _ in cls.FIELDS)
    if hasattr(cls, "__post_init__"):
        body += "    self.__post_init__()\n"
    scope: dict[str, Any] = {"_set": object.__setattr__, "_missing": _MISSING,
                             **{f"_default_{name}": item
                                for name, item in [*defaults.items(), *factories.items()]}}
    exec(f"def __init__(self, {params}):\n{body or '    pass'}\n", scope)  # noqa: S102
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init
