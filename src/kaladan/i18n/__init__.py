"""The interface's words in English, Dutch and German: one catalogue for both front ends.

One catalogue per language, in groups of dotted keys: ``catalogue/<lang>.json`` holds the
browser game's sentences and what both front ends share (unit marks, dice), served as
``/static/i18n/<lang>.json`` and read by ``static/js/i18n.js``; ``catalogue/play/<lang>.json``
is its ``play`` group, the terminal game's own sentences (the browser is not sent them),
read through ``text`` by ``kaladan.play.i18n``. Game terms (units, terrain, phases, realms,
cards) are not here: they come from the rules data (``kaladan.rules.catalog``). This package
imports nothing of ours.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Final

LANGS: Final = ("en", "nl", "de")
CATALOGUE: Final = Path(__file__).with_name("catalogue")  # what the server serves


@cache
def strings(lang: str) -> dict[str, Any]:
    """The catalogue of ``lang`` (one of ``LANGS``) as nested groups, ``play`` included."""
    if lang not in LANGS:
        raise KeyError(f"no catalogue for language {lang!r}: choose {', '.join(LANGS)}")
    data: dict[str, Any] = json.loads((CATALOGUE / f"{lang}.json").read_text("utf-8"))
    data["play"] = json.loads((CATALOGUE / "play" / f"{lang}.json").read_text("utf-8"))
    return data


def lookup(lang: str, key: str) -> str | None:
    """The text of a dotted key (``play.turn``) in ``lang``, or None when it has none (or
    there is no such language)."""
    if lang not in LANGS:
        return None
    node: Any = strings(lang)
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, str) else None


def text(lang: str, key: str, **values: object) -> str:
    """The sentence ``key`` in ``lang`` (English when ``lang`` lacks it) with ``values``
    filled into its ``{name}`` places; KeyError for a key no language has."""
    template = lookup(lang, key)
    if template is None:
        template = lookup("en", key)
    if template is None:
        raise KeyError(f"the catalogue has no text {key!r}")
    return template.format(**values) if values else template
