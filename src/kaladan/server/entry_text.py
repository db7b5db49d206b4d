"""Log entries as JSON text, written straight from their fields.

A view carries the entries made since the client's last view (a few per decision), each
as the text of ``entry.to_json()`` with its ``index`` and ``version``. Building that dict and
encoding it took a sixth of the server's time per action; here each entry class gets one
generated function that writes the same text from the fields, the way ``gamelog.entry``
generates ``__init__``. Fields of a plain type (ints, bools, names, unit codes and tuples of
them) are written inline; the rest go through the field's own JSON converter and the
encoder. ``tests/server/test_entry_text.py`` checks the text equals the encoder's, entry by
entry, over games of every mode.
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from ..rules.gamelog import Entry, entry_fields, json_fields
from ..rules.units import UnitCode, unit_ref
from .jsontext import dumps

Head = Callable[[Entry], str]

# How a field of each annotation is written: an expression of ``{v}``, the field's value
_INLINE = {
    "int": "str({v})", "Seat": "str({v})",
    "bool": "('true' if {v} else 'false')",
    "str": "_s({v})", "Tile": "_s({v})", "Card": "_s({v})",
    "Card | None": "('null' if {v} is None else _s({v}))",
    "Seat | None": "('null' if {v} is None else str({v}))",
    "int | None": "('null' if {v} is None else str({v}))",
    "UnitCode": "_unit({v})",
    "tuple[UnitCode, ...]": "_units({v})",
    "tuple[str, ...]": "_strings({v})",
    "tuple[Card, ...]": "_strings({v})",
}


def _unit(code: UnitCode) -> str:
    return _s(unit_ref(code)) if code >= 0 else "null"


def _units(codes: tuple[UnitCode, ...]) -> str:
    return "[" + ",".join([_s(unit_ref(c)) for c in codes]) + "]"


def _strings(texts: tuple[str, ...]) -> str:
    return "[" + ",".join([_s(t) for t in texts]) + "]"


_s: Callable[[str], str] = encode_basestring
_HEADS: dict[type[Entry], Head] = {}


def entry_head(entry: Entry) -> str:
    """The JSON text of ``entry.to_json()`` without its closing brace (what follows is the
    entry's index and version), as ``jsontext.dumps`` writes it."""
    cls = type(entry)
    head = _HEADS.get(cls)
    if head is None:
        head = _HEADS[cls] = _make_head(cls)
    return head(entry)


def _make_head(cls: type[Entry]) -> Head:
    scope: dict[str, Any] = {"_s": _s, "_unit": _unit, "_units": _units,
                             "_strings": _strings, "_dumps": dumps}
    pieces = [repr('{"kind":' + dumps(cls.KIND))]
    for (name, kind), (_, convert) in zip(entry_fields(cls), json_fields(cls), strict=True):
        pieces.append(repr("," + dumps(name) + ":"))
        inline = _INLINE.get(kind)
        if inline is None:  # nested tuples, dice, pairs, scores: the field's converter
            scope[f"_convert_{name}"] = convert
            inline = "_dumps({v})" if convert is None else f"_dumps(_convert_{name}({{v}}))"
        pieces.append(inline.format(v=f"entry.{name}"))
    source = f"def head(entry):\n    return ''.join([{', '.join(pieces)}])\n"
    exec(source, scope)  # noqa: S102 (names and kinds from the entry's annotations)
    made: Head = scope["head"]
    return made
