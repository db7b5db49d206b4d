"""The terminal game's words in English, Dutch and German.

Game terms (units, terrain, phases, realms, cards) come from the rules data: the glossary of
RULES.md section 1 and the card texts. The interface's own sentences are the ``play`` group
of the catalogue both front ends share (``kaladan.i18n``); unit marks are its ``abbr``.
"""

from __future__ import annotations

from typing import Final

from .. import i18n as catalogue
from ..rules.catalog import (
    END_GAME_CARD_BY_ID,
    EVENT_CARD_BY_ID,
    GLOSSARY,
    MAGIC_CARD_BY_ID,
    REALM_BY_ID,
)
from ..rules.events import END_GAME_CARD_OF_OPTION
from ..rules.units import REALMS, UnitType

LANGS: Final = catalogue.LANGS

_UNIT_KEYS: Final = ("crown", "general", "catapult", "archer", "shield", "sword", "special_unit")
_ABBREV_KEYS: Final = ("crown", "general", "catapult", "archer", "shield", "sword", "special")
_PHASE_KEYS: Final = {
    "event": "event_phase", "spawn": "free_spawn_phase", "income": "income_phase",
    "action": "action_phase", "purchase": "purchase_phase", "reinforce": "reinforcement_phase",
}
_TERRAIN_KEYS: Final = ("field", "forest", "mountain", "castle")


def text(lang: str, key: str, **values: object) -> str:
    """The interface sentence ``key`` (of the catalogue's ``play`` group) in ``lang``, with
    ``values`` filled in."""
    return catalogue.text(lang, f"play.{key}", **values)


def option_value(lang: str, name: str, value: str) -> str:
    """What ``name=value`` (a ruleset option of R3.3, not its default) means, in words."""
    card = END_GAME_CARD_OF_OPTION.get(value) if name == "end_game_card" else None
    if card is not None:
        return text(lang, "end_game_card_is", card=card_name(lang, card))
    words = catalogue.lookup(lang, f"play.option.{name}.{value}")
    return value if words is None else words


def decision_name(lang: str, kind: str) -> str:
    """What a pending decision asks (``Decision.label``), in words."""
    return catalogue.lookup(lang, f"play.decision.{kind}") or kind


def glossary(lang: str, key: str) -> str:
    """A term of RULES.md section 1 in ``lang``, capitalised for a heading."""
    word = GLOSSARY[key].get(lang)
    return word[:1].upper() + word[1:]


def unit_name(lang: str, utype: int) -> str:
    return GLOSSARY[_UNIT_KEYS[utype]].get(lang)


def unit_abbrev(lang: str, utype: int) -> str:
    """A unit's two-letter mark on the map, as the browser's board writes it."""
    return catalogue.text(lang, f"abbr.{_ABBREV_KEYS[utype]}")


def unit_legend(lang: str) -> str:
    return ", ".join(f"{unit_abbrev(lang, t)} {unit_name(lang, t)}" for t in UnitType)


def terrain_name(lang: str, terrain: int) -> str:
    return GLOSSARY[_TERRAIN_KEYS[terrain]].get(lang)


def phase_name(lang: str, phase: str) -> str:
    """A phase of section 6 by its engine label (``action``), or setup / game over."""
    if phase in _PHASE_KEYS:
        return GLOSSARY[_PHASE_KEYS[phase]].get(lang)
    return text(lang, "setup_phase" if phase == "setup" else "over_phase")


def realm_name(lang: str, realm: int) -> str:
    if realm < 0:
        return "?"
    return REALM_BY_ID[REALMS[realm]].name.get(lang)


def card_name(lang: str, card: str) -> str:
    """The name of a magic, event or end-game card by id; the id itself if unknown."""
    for table in (MAGIC_CARD_BY_ID, EVENT_CARD_BY_ID, END_GAME_CARD_BY_ID):
        info = table.get(card)
        if info is not None:
            return info.name.get(lang)
    return card


def card_text(lang: str, card: str) -> str:
    for table in (MAGIC_CARD_BY_ID, EVENT_CARD_BY_ID, END_GAME_CARD_BY_ID):
        info = table.get(card)
        if info is not None:
            return info.text.get(lang)
    return ""


def card_condition(lang: str, card: str) -> str:
    info = MAGIC_CARD_BY_ID.get(card)
    return info.condition.get(lang) if info is not None else ""
