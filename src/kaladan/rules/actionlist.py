"""ActionList: the legal actions of one decision as a read-only sequence built in blocks.

Moves and swaps come in blocks (one per pair of tiles) whose size is known without building
them; an action is made only when it is indexed, and the whole list only when it is iterated
or searched. A uniform random choice (``seq[rng.randrange(len(seq))]``) therefore builds one
action, not every action, which is what keeps random playouts fast. Behaves like a tuple:
``len``, indexing, iteration, ``in`` and ``==`` with any sequence.

A block is a ``Block``: ``build()`` returns its actions in order and ``get(j)`` makes just the
j-th of them; ``shape()`` describes a block of moves or swaps without building it (what
``offer.Group`` carries). The kinds of block are private to ``legal``; tests check that
``get``, ``build`` and ``shape`` always agree.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import final, overload

from .actions import Action, Kind
from .native import mypyc_attr
from .units import UnitCode

# A block of moves or swaps, described: its kind, the two tiles, the units of each tile that
# its actions choose from and the sizes of the sets taken from each (low, high, low2, high2).
Shape = tuple[Kind, int, int, tuple[UnitCode, ...], tuple[UnitCode, ...], int, int, int, int]


@mypyc_attr(acyclic=True)
class Block:
    """A run of actions of one kind made when first needed (subclasses in ``legal``)."""

    __slots__ = ()

    def build(self) -> list[Action]:
        """Every action of the block, in order."""
        raise NotImplementedError

    def get(self, j: int) -> Action:
        """The j-th action of ``build()``; subclasses make it without building the others."""
        return self.build()[j]

    def may_hold(self, action: Action) -> bool:
        """False when ``action`` is certainly not in the block (its kind or tiles differ), so
        a membership test builds only the blocks that may hold it."""
        return True

    def kind(self) -> Kind | None:
        """The kind of every action of the block, or None when they may differ."""
        return None

    def shape(self) -> Shape | None:
        """For a block of moves or swaps, what it holds (``offer.Group`` says how to read
        it); None for a block whose actions are listed one by one."""
        return None


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class ActionList:
    """A sequence of actions made of built parts and lazily built blocks.

    A ``Sequence`` by registration (``Sequence.register``, the ABC's documented way to
    declare a virtual subclass), not by inheritance: compiled, a subclass of ``Sequence``
    cannot be acyclic, gets CPython's generic length slot (``len()`` looks ``__len__`` up by
    name) and, made without ``ABCMeta.__new__``, shares ``Sequence``'s ABC registry, so that
    ``isinstance([], ActionList)`` turns true; together 2% of a random game's instructions
    (callgrind) besides. The type checker does not know of the registration, so the few
    places that hand an ActionList out as a Sequence say so with ``cast``. ``index``,
    ``count`` and ``reversed`` are written out, as ``Sequence`` would mix them in.
    """

    __slots__ = ("starts", "parts", "size", "_all")

    def __init__(self, first: list[Action] | None = None) -> None:
        self._all: list[Action] | None = None
        if first:
            self.starts: list[int] = [0]  # index of each part's first action
            self.parts: list[list[Action] | Block] = [first]
            self.size = len(first)
        else:
            self.starts = []
            self.parts = []
            self.size = 0

    def add(self, items: list[Action]) -> None:
        """Append actions that are already built. The list is held, not copied, and never
        changed (``legal`` shares some first parts between lists)."""
        if items:
            self.starts.append(self.size)
            self.parts.append(items)
            self.size += len(items)

    def add_block(self, count: int, block: Block) -> None:
        """Append ``count`` actions that the block makes, in order, when first needed."""
        if count > 0:
            self.starts.append(self.size)
            self.parts.append(block)
            self.size += count

    def extended(self, items: list[Action]) -> ActionList:
        """A new list: these actions and then ``items`` (the blocks are shared, not built)."""
        out = ActionList()
        out.starts = self.starts[:]
        out.parts = self.parts[:]
        out.size = self.size
        out.add(items)
        return out

    def part(self, index: int) -> list[Action]:
        """The actions of part ``index``, built (and kept) if it is a block."""
        part = self.parts[index]
        if isinstance(part, list):
            return part
        built = part.build()
        self.parts[index] = built
        return built

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if not isinstance(index, int):  # the compiled form checks int without a lookup
            return self.as_list()[index]
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError("action index out of range")
        starts = self.starts
        lo, hi = 0, len(starts)  # the last part starting at or before index (bisect_right - 1)
        while hi - lo > 1:
            mid = (lo + hi) >> 1
            if starts[mid] <= index:
                lo = mid
            else:
                hi = mid
        i = lo
        part = self.parts[i]
        offset = index - self.starts[i]
        if isinstance(part, list):
            return part[offset]
        return part.get(offset)

    def between(self, start: int, stop: int) -> list[Action]:
        """The actions ``start``..``stop - 1``, building only the parts they lie in."""
        out: list[Action] = []
        starts = self.starts
        for i in range(len(self.parts)):
            first = starts[i]
            end = starts[i + 1] if i + 1 < len(starts) else self.size
            if end <= start or first >= stop:
                continue
            part = self.part(i)
            out += part[max(start - first, 0):min(stop, end) - first]
        return out

    def as_list(self) -> list[Action]:
        if self._all is None:
            out: list[Action] = []
            for i in range(len(self.parts)):
                out += self.part(i)
            self._all = out
        return self._all

    def __iter__(self) -> Iterator[Action]:
        return iter(self.as_list())

    def __reversed__(self) -> Iterator[Action]:
        return reversed(self.as_list())

    def index(self, value: object, start: int = 0, stop: int | None = None) -> int:
        """The first index of ``value`` (between ``start`` and ``stop``), as a list says it."""
        actions = self.as_list()
        return actions.index(value, start, len(actions) if stop is None else stop)  # type: ignore[arg-type]

    def count(self, value: object) -> int:
        return self.as_list().count(value)  # type: ignore[arg-type]

    def kinds(self) -> set[Kind]:
        """The kinds of action in the list, building only the blocks of mixed kinds (a bot
        that looks for attacks need not build the hundreds of moves and swaps)."""
        if self._all is not None:
            return {a.kind for a in self._all}
        out: set[Kind] = set()
        for i in range(len(self.parts)):
            part = self.parts[i]
            kind = None if isinstance(part, list) else part.kind()
            if kind is not None:
                out.add(kind)  # a block is added only when it has actions
            else:
                for action in self.part(i):
                    out.add(action.kind)
        return out

    def of_kind(self, kind: Kind) -> Iterator[Action]:
        """The actions of ``kind`` in list order, building a block only when reached and only
        if it may hold that kind."""
        for i in range(len(self.parts)):
            part = self.parts[i]
            if not isinstance(part, list):
                block_kind = part.kind()
                if block_kind is not None and block_kind is not kind:
                    continue
            for action in self.part(i):
                if action.kind is kind:
                    yield action

    def __contains__(self, action: object) -> bool:
        """Builds only the blocks that may hold ``action`` (a checked ``apply`` asks this of
        every decision: the Action phase has hundreds of moves)."""
        if self._all is not None:
            return action in self._all
        if not isinstance(action, Action):
            return False
        for part in self.parts:
            if isinstance(part, list):
                if action in part:
                    return True
            elif part.may_hold(action) and action in part.build():
                return True
        return False

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActionList):
            return self.as_list() == other.as_list()
        if isinstance(other, (list, tuple)):
            return self.as_list() == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'ActionList'")

    def __repr__(self) -> str:
        return f"ActionList({self.as_list()!r})"


Sequence.register(ActionList)
