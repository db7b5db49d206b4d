"""Short sentences for log entries in English, Dutch and German.

The sentences are data (``data/log_texts.json``, one template per entry kind and variant);
this module fills them in: seats as ``P1 (Kimbria)``, units and cards by their localized names
(the glossary of RULES.md section 1 and the card catalog), dice as ``D12:9``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import fields
from functools import cache
from string import Formatter
from typing import Any

from .catalog import END_GAME_CARD_BY_ID, EVENT_CARD_BY_ID, GLOSSARY, MAGIC_CARD_BY_ID, REALM_BY_ID
from .datafiles import data_text
from .units import REALMS, SPECIAL, is_upgraded, owner_of, realm_of, type_of

LANGS = ("en", "nl", "de")
_UNIT_KEYS = ("crown", "general", "catapult", "archer", "shield", "sword", "special_unit")
_SEAT_FIELDS = frozenset({"seat", "attacker", "defender", "holder", "killer", "to", "by",
                          "winner", "first", "graveyard_of", "lost_by", "eliminated"})


@cache
def _data() -> dict[str, Any]:
    text = data_text("log_texts.json")
    data: dict[str, Any] = json.loads(text)
    return data


def templates() -> dict[str, dict[str, str]]:
    """Every template: ``{"kind" or "kind.variant": {"en": ..., "nl": ..., "de": ...}}``."""
    texts: dict[str, dict[str, str]] = _data()["texts"]
    return texts


def words() -> dict[str, dict[str, str]]:
    """The small words the templates share: ``{"nobody": {"en": ..., ...}, ...}``."""
    table: dict[str, dict[str, str]] = _data()["words"]
    return table


@cache
def word(key: str, lang: str) -> str:
    """One of the small words the templates share (``a card``, ``nobody``, causes)."""
    words: dict[str, dict[str, str]] = _data()["words"]
    entry = words.get(key)
    return entry.get(lang, entry["en"]) if entry else key


def seat_name(seat: int | None, lang: str, realms: Sequence[int]) -> str:
    """``P1 (Kimbria)``; ``P1`` while the realm is unknown; a word for nobody."""
    if seat is None or seat < 0:
        return word("nobody", lang)
    return _seat_label(seat, realms[seat] if seat < len(realms) else -1, lang)


@cache
def _seat_label(seat: int, realm: int, lang: str) -> str:
    if realm >= 0:
        return f"P{seat + 1} ({REALM_BY_ID[REALMS[realm]].name.get(lang)})"
    return f"P{seat + 1}"


@cache
def unit_name(c: int, lang: str) -> str:
    t = type_of(c)
    if t == SPECIAL:
        name = REALM_BY_ID[REALMS[realm_of(c)]].special_unit_name.get(lang)
    else:
        name = GLOSSARY[_UNIT_KEYS[t]].get(lang)
    return name + ("+" if is_upgraded(c) else "")


@cache
def card_name(card: str | None, lang: str) -> str:
    if card is None:
        return word("a_card", lang)
    for table in (MAGIC_CARD_BY_ID, EVENT_CARD_BY_ID, END_GAME_CARD_BY_ID):
        info = table.get(card)
        if info is not None:
            return f"{card} {info.name.get(lang)}"
    return word(card, lang)


def _dice(dice: Sequence[Any], lang: str) -> str:
    parts = []
    for die in dice:
        what = word(die.bonus, lang) if die.bonus else ""
        parts.append(f"D{die.size}:{die.face}" + (f" ({what})" if what else ""))
    return " ".join(parts) or "-"


def _pairs(pairs: Sequence[Any], lang: str) -> str:
    return ", ".join(f"{p.attack}:{p.defence}" for p in pairs) or "-"


Format = Callable[[Any, str, Sequence[int]], str]  # (value, lang, realms) -> text


def _units(value: Any, lang: str, realms: Sequence[int]) -> str:
    return ", ".join(unit_name(c, lang) for c in value) or word("none", lang)


def _cards(value: Any, lang: str, realms: Sequence[int]) -> str:
    return ", ".join(card_name(c, lang) for c in value)


def _losses(value: Any, lang: str, realms: Sequence[int]) -> str:
    """A battle's dead by their owners, in seat order: ``P1 (Kimbria) Sword, Archer; P2 ...``."""
    owners = sorted({owner_of(c) for c in value})
    parts = (f"{seat_name(s, lang, realms)} "
             f"{_units([c for c in value if owner_of(c) == s], lang, realms)}" for s in owners)
    return "; ".join(parts) or word("none", lang)


def _shares(value: Any, lang: str, realms: Sequence[int]) -> str:
    return ", ".join(f"{seat_name(s, lang, realms)} {n}" for s, n in value)


def _rounds(value: Any, lang: str, realms: Sequence[int]) -> str:
    return "; ".join(", ".join(f"{seat_name(s, lang, realms)} {f}" for s, f in r) for r in value)


def _scores(value: Any, lang: str, realms: Sequence[int]) -> str:
    return ", ".join(f"{seat_name(s, lang, realms)} {'-' if p is None else p.total}"
                     for s, p in enumerate(value))


def _formatter(name: str, type_text: str) -> Format:
    """How a field is written in a sentence, chosen by its name and annotation."""
    if name in _SEAT_FIELDS:
        return seat_name
    if type_text.startswith("tuple[Die"):
        return lambda value, lang, realms: _dice(value, lang)
    if type_text.startswith("tuple[Pair"):
        return lambda value, lang, realms: _pairs(value, lang)
    if name == "losses":
        return _losses
    if "UnitCode" in type_text:
        if type_text.startswith("tuple"):
            return _units
        return lambda value, lang, realms: unit_name(value, lang)
    if "Card" in type_text or name == "cause":
        if type_text.startswith("tuple"):
            return _cards
        return lambda value, lang, realms: card_name(value, lang)
    special: dict[str, Format] = {
        "phase": lambda value, lang, realms: word(f"phase_{value}", lang),
        "realm": lambda value, lang, realms: REALM_BY_ID[value].name.get(lang),
        "shares": _shares, "rounds": _rounds, "scores": _scores,
        # teams are stored from 0 and numbered from 1 for players (R23.1), as the end screen
        "team": lambda value, lang, realms: str(value + 1),
    }
    return special.get(name, lambda value, lang, realms: str(value))


def _variant(entry: Any) -> str:
    kind = entry.KIND
    pick = _VARIANTS.get(kind)
    return f"{kind}.{pick(entry)}" if pick is not None else kind


_VARIANTS: dict[str, Callable[[Any], str]] = {
    "starting_card_taken": lambda e: ("drawn" if e.drawn else "chosen")
    + (".hidden" if e.card is None else ""),
    "card_committed": lambda e: "hidden" if e.card is None else "known",
    "card_traded": lambda e: e.trade + (".hidden" if e.taken is None else ""),
    "gold_changed": lambda e: "gain" if e.delta >= 0 else "loss",
    "income": lambda e: "frozen" if e.frozen else "paid",
    "final_round": lambda e: "deck" if e.card is None else "card",
    "unit_killed": lambda e: "card" if e.card else "dice",
    "battle_ended": lambda e: e.result,
    "game_over": lambda e: e.end + (".team" if e.team is not None else ""),
    "moved": lambda e: e.cause if e.cause in ("action", "reinforce", "invasion") else "card",
    "swapped": lambda e: "card" if e.cause not in ("action", "reinforce") else "plain",
    "upgraded": lambda e: "bought" if e.cost else "free",
    "eliminated": lambda e: "alone" if e.by < 0 else "by",
    "fallen_unit": lambda e: e.place,
    "no_card": lambda e: e.window,
}


Compiled = tuple[str, tuple[tuple[str, Format], ...]]
_COMPILED: dict[tuple[str, str], Compiled] = {}


def _compiled(cls: type, key: str, lang: str) -> Compiled:
    """The template for an entry class, variant and language, and how to write each field it
    names: worked out once, so a sentence costs only the values it shows."""
    known = _COMPILED.get((key, lang))
    if known is None:
        known = _COMPILED[key, lang] = _compile(cls, key, lang)
    return known


def _compile(cls: type, key: str, lang: str) -> Compiled:
    table = templates()
    template = table.get(key) or table[cls.KIND]  # type: ignore[attr-defined]
    text = template.get(lang) or template["en"]
    used = {name for _, name, _, _ in Formatter().parse(text) if name}
    named = [(f.name, str(f.type)) for f in fields(cls)]
    return text, tuple((name, _formatter(name, kind)) for name, kind in named if name in used)


def describe(entry: Any, lang: str = "en", realms: Sequence[int] = ()) -> str:
    """The sentence for ``entry`` in ``lang`` (English when the language is unknown)."""
    text, used = _compiled(type(entry), _variant(entry), lang)
    values = {name: write(getattr(entry, name), lang, realms) for name, write in used}
    if entry.KIND == "gold_changed":
        values["amount"] = str(abs(entry.delta))
    return text.format(**values)
