"""ActionList: the legal actions of one decision as a read-only sequence built in blocks.

Moves and swaps come in blocks (one per pair of tiles) whose size is known without building
them; an action is made only when it is indexed, and the whole list only when it is iterated
or searched. A uniform random choice (``seq[rng.randrange(len(seq))]``) therefore builds one
block, not every action, which is what keeps random playouts fast. Behaves like a tuple:
``len``, indexing, iteration, ``in`` and ``==`` with any sequence.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import overload

from .actions import Action

Builder = Callable[[], list[Action]]


class ActionList(Sequence[Action]):
    """A sequence of actions made of eager items and lazily built blocks."""

    __slots__ = ("_counts", "_parts", "_starts", "_len", "_all")

    def __init__(self) -> None:
        self._counts: list[int] = []
        self._parts: list[list[Action] | Builder] = []
        self._starts: list[int] = []
        self._len = 0
        self._all: list[Action] | None = None

    def add(self, items: list[Action]) -> None:
        """Append actions that are already built."""
        if items:
            self._starts.append(self._len)
            self._counts.append(len(items))
            self._parts.append(items)
            self._len += len(items)

    def add_block(self, count: int, build: Builder) -> None:
        """Append ``count`` actions that ``build()`` makes, in order, when first needed."""
        if count > 0:
            self._starts.append(self._len)
            self._counts.append(count)
            self._parts.append(build)
            self._len += count

    def _part(self, index: int) -> list[Action]:
        part = self._parts[index]
        if isinstance(part, list):
            return part
        built = part()
        self._parts[index] = built
        return built

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return self.as_list()[index]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("action index out of range")
        part = bisect_right(self._starts, index) - 1
        return self._part(part)[index - self._starts[part]]

    def as_list(self) -> list[Action]:
        if self._all is None:
            out: list[Action] = []
            for i in range(len(self._parts)):
                out += self._part(i)
            self._all = out
        return self._all

    def __iter__(self) -> Iterator[Action]:
        return iter(self.as_list())

    def __contains__(self, action: object) -> bool:
        return action in self.as_list()

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

