"""ActionList: the legal actions of one decision as a read-only sequence built in blocks.

Moves and swaps come in blocks (one per pair of tiles) whose size is known without building
them; an action is made only when it is indexed, and the whole list only when it is iterated
or searched. A uniform random choice (``seq[rng.randrange(len(seq))]``) therefore builds one
block, not every action, which is what keeps random playouts fast. Behaves like a tuple:
``len``, indexing, iteration, ``in`` and ``==`` with any sequence.

A block is ``(build, get, arg, ...)``: ``build(*args)`` returns its actions in order and
``get(j, *args)``, when not None, makes just the j-th of them (so a random choice builds one
action). Tests check that ``get`` and ``build`` always agree.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from .actions import Action

Block = tuple[Any, ...]  # (builder, getter or None, *arguments)
Builder = Callable[..., list[Action]]


class ActionList(Sequence[Action]):
    """A sequence of actions made of built parts and lazily built blocks."""

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
        """Append actions that are already built."""
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

    def _part(self, index: int) -> list[Action]:
        part = self.parts[index]
        if isinstance(part, list):
            return part
        built: list[Action] = part[0](*part[2:])
        self.parts[index] = built
        return built

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return self.as_list()[index]
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError("action index out of range")
        i = bisect_right(self.starts, index) - 1
        part = self.parts[i]
        offset = index - self.starts[i]
        if isinstance(part, list):
            return part[offset]
        if part[1] is not None:
            action: Action = part[1](offset, *part[2:])
            return action
        return self._part(i)[offset]

    def as_list(self) -> list[Action]:
        if self._all is None:
            out: list[Action] = []
            for i in range(len(self.parts)):
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
