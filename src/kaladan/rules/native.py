"""Class attributes for the compiler that mean nothing to the interpreter (docs/compiled.md,
rules 8 and 9).

The engine's values made at every decision (actions, legal lists and their blocks, tile
facts, the pending decision, an event or battle, the generator) are declared
``@mypyc_attr(acyclic=True)``: compiled, they carry no garbage-collector header and are
neither tracked nor walked by the collector. That is sound while such a value holds only
ints, strings, enum members, tuples, lists, dicts, deques and other acyclic values, never a
state, a bot or a callback (tests/rules/test_acyclic_classes.py walks them over random
games). The ones made and freed in turn also keep one freed instance for the next
(``free_list_len=1``). ``GameState`` is not acyclic: its log sink may hold the state.

mypyc reads the decorator by its name in ``mypy_extensions``, which the type checker and
the compiler have but the engine (stdlib only) does not import at run time. This module is
never compiled (setup.py): to the type checker and the compiler its ``mypyc_attr`` is
mypy_extensions' own, to the interpreter a decorator that returns the class unchanged. A
compiled class's decorators are applied by the compiler, not at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import i64 as i64
    from mypy_extensions import mypyc_attr as mypyc_attr
else:
    i64 = int  # a machine integer to the compiler, an int to the interpreter

    def mypyc_attr(*flags, **attrs):
        """The class unchanged: in pure Python the compiler's attributes have no effect."""
        return lambda cls: cls
