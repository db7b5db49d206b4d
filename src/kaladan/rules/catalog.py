"""The printed game's cards, realms and localized names, loaded once from ``kaladan.rules.data``.

Data is data: the event deck (R24), the end-game cards (R25), the magic cards (R26), the realms
with their special units (R2.1, R14.1) and the localized names of section 1 live in JSON files
next to this module, so a group owning the physical game can correct a text or a count without
touching code. Every card carries ``source`` ("official" or "reconstructed") as RULES.md tags it.

The files are checked when this module is imported; a broken file raises
:class:`~kaladan.rules.errors.FormatError` naming the file, the entry and the problem.

>>> EVENT_CARD_BY_ID["EV01"].count
2
>>> GLOSSARY["crown"].get("nl")
'Kroon'
>>> [card.id for card in magic_cards_of("ardinor")][:2]
['ARD-1', 'ARD-2']
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal, NoReturn, TypeAlias

from kaladan.rules.datafiles import data_text
from kaladan.rules.errors import FormatError

__all__ = [
    "END_GAME_CARDS",
    "END_GAME_CARD_BY_ID",
    "EVENT_CARDS",
    "EVENT_CARD_BY_ID",
    "GLOSSARY",
    "LANGS",
    "MAGIC_CARDS",
    "MAGIC_CARD_BY_ID",
    "REALMS",
    "REALM_BY_ID",
    "EndGameCardInfo",
    "EventCardInfo",
    "Lang",
    "MagicCardInfo",
    "RealmInfo",
    "Text",
    "magic_cards_of",
    "validate_catalog_data",
    "validate_events",
    "validate_glossary",
    "validate_magic_cards",
    "validate_realms",
]

Lang: TypeAlias = Literal["en", "nl", "de"]
LANGS: tuple[str, ...] = ("en", "nl", "de")

EVENTS_FILE: Final = "events.json"
MAGIC_FILE: Final = "magic_cards.json"
REALMS_FILE: Final = "realms.json"
GLOSSARY_FILE: Final = "glossary.json"

SOURCES: Final = ("official", "reconstructed")
SCOPES: Final = ("player", "global")  # R7.3
USABLE_BY: Final = ("attacker", "defender", "either")  # R26.1
WINDOWS: Final = ("W1", "W2", "W3")  # R20.3
# R2.1: the six realms in this order; the prefix is the one of their magic card ids (R26).
REALM_PREFIXES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "khalisia": "KHA",
        "kimbria": "KIM",
        "nanchia": "NAN",
        "ardinor": "ARD",
        "zhojira": "ZHO",
        "laurielle": "LAU",
    }
)
EVENT_DECK_SIZE: Final = 36  # R2.4, R24.1
END_GAME_CARD_COUNT: Final = 4  # R2.4
CARDS_PER_REALM: Final = 5  # R20.1
GLOSSARY_KEYS: Final = (
    "crown", "general", "catapult", "archer", "shield", "sword", "special_unit", "basic_unit",
    "field", "forest", "mountain", "castle", "terrain_tile", "event_phase", "free_spawn_phase",
    "income_phase", "action_phase", "purchase_phase", "reinforcement_phase", "move", "swap",
    "battle", "mandatory_invasion", "reserve", "graveyard", "scalp", "event_card",
    "end_game_card", "magic_card", "realm_card", "player_board", "richest_player",
    "strongest_player", "first_player", "team_mode",
)  # fmt: skip

_EVENT_ID = re.compile(r"EV\d{2}")
_END_GAME_ID = re.compile(r"EG\d+")
_MAGIC_ID = re.compile(r"([A-Z]{3})-([1-9]\d*)")
_GLOSSARY_KEY = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class Text:
    """One phrase in the three languages of the game (English, Dutch, German)."""

    en: str
    nl: str
    de: str

    def get(self, lang: str) -> str:
        """The phrase in ``lang`` ("en", "nl" or "de"); any other value is a ValueError."""
        if lang == "en":
            return self.en
        if lang == "nl":
            return self.nl
        if lang == "de":
            return self.de
        raise ValueError(f"unknown language {lang!r}: expected one of {', '.join(LANGS)}")


@dataclass(frozen=True, slots=True)
class EventCardInfo:
    """One kind of event card (R24.2): ``count`` copies of it are in the deck."""

    id: str
    count: int
    scope: str
    source: str
    name: Text
    text: Text


@dataclass(frozen=True, slots=True)
class EndGameCardInfo:
    """One End Game Event card (R25.1)."""

    id: str
    source: str
    name: Text
    text: Text


@dataclass(frozen=True, slots=True)
class MagicCardInfo:
    """One realm magic card (R26): who may play it, its timing window, condition and effect."""

    id: str
    realm: str
    usable_by: str
    window: str
    source: str
    name: Text
    condition: Text
    text: Text


@dataclass(frozen=True, slots=True)
class RealmInfo:
    """One realm (R2.1) and its special unit (R14.1)."""

    id: str
    name: Text
    motto: str
    special_unit_name: Text
    special_unit_d12_when: Text


# --- validation -------------------------------------------------------------------------------


def _fail(file: str, entry: str, problem: str) -> NoReturn:
    raise FormatError(f"{file}: {entry}: {problem}")


def _object(value: object, file: str, entry: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        _fail(file, entry, f"expected a JSON object, got {type(value).__name__}")
    return value


def _array(value: object, file: str, entry: str) -> list[object]:
    if not isinstance(value, list):
        _fail(file, entry, f"expected a JSON array, got {type(value).__name__}")
    return value


def _check_keys(
    obj: Mapping[str, object],
    required: Iterable[str],
    optional: Iterable[str],
    file: str,
    entry: str,
) -> None:
    required = tuple(required)
    for key in required:
        if key not in obj:
            _fail(file, entry, f"missing key {key!r}")
    allowed = set(required) | set(optional)
    for key in obj:
        if key not in allowed:
            _fail(file, entry, f"unknown key {key!r}")


def _string(
    obj: Mapping[str, object],
    key: str,
    file: str,
    entry: str,
    *,
    allowed: tuple[str, ...] = (),
    may_be_empty: bool = False,
) -> str:
    value = obj[key]
    if not isinstance(value, str):
        _fail(file, entry, f"{key!r} must be a string, got {type(value).__name__}")
    if not may_be_empty and not value.strip():
        _fail(file, entry, f"{key!r} is empty")
    if allowed and value not in allowed:
        _fail(file, entry, f"{key!r} is {value!r}, expected one of {', '.join(allowed)}")
    return value


def _text_value(raw: object, file: str, where: str) -> Text:
    value = _object(raw, file, where)
    _check_keys(value, LANGS, (), file, where)
    en, nl, de = (_string(value, lang, file, where) for lang in LANGS)
    return Text(en=en, nl=nl, de=de)


def _text(obj: Mapping[str, object], key: str, file: str, entry: str) -> Text:
    return _text_value(obj[key], file, f"{entry}.{key}")


def _entry_name(value: object, index: int) -> str:
    """The id of an entry when it has one, for error messages; else its position."""
    if isinstance(value, dict):
        entry_id = value.get("id")
        if isinstance(entry_id, str) and entry_id:
            return entry_id
    return f"entry #{index}"


def _check_unique(entry_id: str, seen: set[str], file: str) -> None:
    if entry_id in seen:
        _fail(file, entry_id, "duplicate id")
    seen.add(entry_id)


def _parse_events(
    data: object,
) -> tuple[tuple[EventCardInfo, ...], tuple[EndGameCardInfo, ...]]:
    file = EVENTS_FILE
    top = _object(data, file, "top level")
    _check_keys(top, ("events", "end_game"), (), file, "top level")

    events: list[EventCardInfo] = []
    seen: set[str] = set()
    for index, raw in enumerate(_array(top["events"], file, "events")):
        entry = _entry_name(raw, index)
        obj = _object(raw, file, entry)
        _check_keys(
            obj, ("id", "count", "scope", "source", "name", "text"), ("source_note",), file, entry
        )
        card_id = _string(obj, "id", file, entry)
        if not _EVENT_ID.fullmatch(card_id):
            _fail(file, entry, "id must look like EV01")
        _check_unique(card_id, seen, file)
        count = obj["count"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            _fail(file, entry, f"'count' must be a whole number of at least 1, got {count!r}")
        if "source_note" in obj:
            _string(obj, "source_note", file, entry)
        events.append(
            EventCardInfo(
                id=card_id,
                count=count,
                scope=_string(obj, "scope", file, entry, allowed=SCOPES),
                source=_string(obj, "source", file, entry, allowed=SOURCES),
                name=_text(obj, "name", file, entry),
                text=_text(obj, "text", file, entry),
            )
        )
    total = sum(card.count for card in events)
    if total != EVENT_DECK_SIZE:  # R24.1
        _fail(file, "events", f"counts total {total} cards, expected {EVENT_DECK_SIZE} (R24.1)")

    end_game: list[EndGameCardInfo] = []
    seen_end: set[str] = set()
    for index, raw in enumerate(_array(top["end_game"], file, "end_game")):
        entry = _entry_name(raw, index)
        obj = _object(raw, file, entry)
        _check_keys(obj, ("id", "source", "name", "text"), ("source_note",), file, entry)
        card_id = _string(obj, "id", file, entry)
        if not _END_GAME_ID.fullmatch(card_id):
            _fail(file, entry, "id must look like EG1")
        _check_unique(card_id, seen_end, file)
        if "source_note" in obj:
            _string(obj, "source_note", file, entry)
        end_game.append(
            EndGameCardInfo(
                id=card_id,
                source=_string(obj, "source", file, entry, allowed=SOURCES),
                name=_text(obj, "name", file, entry),
                text=_text(obj, "text", file, entry),
            )
        )
    if len(end_game) != END_GAME_CARD_COUNT:  # R2.4
        _fail(
            file,
            "end_game",
            f"{len(end_game)} cards, expected {END_GAME_CARD_COUNT} (R2.4)",
        )
    return (
        tuple(sorted(events, key=lambda card: card.id)),
        tuple(sorted(end_game, key=lambda card: int(card.id[2:]))),
    )


def _parse_magic(data: object) -> tuple[MagicCardInfo, ...]:
    file = MAGIC_FILE
    realm_order = tuple(REALM_PREFIXES)
    cards: list[tuple[int, int, MagicCardInfo]] = []
    seen: set[str] = set()
    for index, raw in enumerate(_array(data, file, "top level")):
        entry = _entry_name(raw, index)
        obj = _object(raw, file, entry)
        _check_keys(
            obj,
            ("id", "realm", "usable_by", "window", "source", "name", "condition", "text"),
            (),
            file,
            entry,
        )
        card_id = _string(obj, "id", file, entry)
        _check_unique(card_id, seen, file)
        realm = _string(obj, "realm", file, entry, allowed=realm_order)
        match = _MAGIC_ID.fullmatch(card_id)
        if match is None or match.group(1) != REALM_PREFIXES[realm]:
            _fail(file, entry, f"id must look like {REALM_PREFIXES[realm]}-1 for realm {realm!r}")
        card = MagicCardInfo(
            id=card_id,
            realm=realm,
            usable_by=_string(obj, "usable_by", file, entry, allowed=USABLE_BY),
            window=_string(obj, "window", file, entry, allowed=WINDOWS),
            source=_string(obj, "source", file, entry, allowed=SOURCES),
            name=_text(obj, "name", file, entry),
            condition=_text(obj, "condition", file, entry),
            text=_text(obj, "text", file, entry),
        )
        cards.append((realm_order.index(realm), int(match.group(2)), card))
    for realm in realm_order:  # R20.1
        count = sum(1 for _, _, card in cards if card.realm == realm)
        if count != CARDS_PER_REALM:
            _fail(file, realm, f"{count} cards, expected {CARDS_PER_REALM} (R20.1)")
    return tuple(card for _, _, card in sorted(cards, key=lambda item: item[:2]))


def _parse_realms(data: object) -> tuple[RealmInfo, ...]:
    file = REALMS_FILE
    realm_order = tuple(REALM_PREFIXES)
    realms: list[RealmInfo] = []
    seen: set[str] = set()
    for index, raw in enumerate(_array(data, file, "top level")):
        entry = _entry_name(raw, index)
        obj = _object(raw, file, entry)
        _check_keys(obj, ("id", "name", "motto", "special_unit"), (), file, entry)
        realm_id = _string(obj, "id", file, entry, allowed=realm_order)
        _check_unique(realm_id, seen, file)
        unit_entry = f"{entry}.special_unit"
        unit = _object(obj["special_unit"], file, unit_entry)
        _check_keys(unit, ("name", "d12_when"), (), file, unit_entry)
        realms.append(
            RealmInfo(
                id=realm_id,
                name=_text(obj, "name", file, entry),
                motto=_string(obj, "motto", file, entry, may_be_empty=True),
                special_unit_name=_text(unit, "name", file, unit_entry),
                special_unit_d12_when=_text(unit, "d12_when", file, unit_entry),
            )
        )
    found = tuple(realm.id for realm in realms)
    if found != realm_order:  # R2.1
        _fail(file, "top level", f"realms are {list(found)}, expected {list(realm_order)} (R2.1)")
    return tuple(realms)


def _parse_glossary(data: object) -> Mapping[str, Text]:
    file = GLOSSARY_FILE
    top = _object(data, file, "top level")
    terms: dict[str, Text] = {}
    for key in top:
        if not _GLOSSARY_KEY.fullmatch(key):
            _fail(file, key, "key must be snake_case")
        terms[key] = _text_value(top[key], file, key)
    for key in GLOSSARY_KEYS:  # section 1, localized names
        if key not in terms:
            _fail(file, key, "missing term")
    return MappingProxyType(terms)


def validate_events(data: object) -> None:
    """Check the parsed JSON of events.json; raise FormatError naming the entry at fault."""
    _parse_events(data)


def validate_magic_cards(data: object) -> None:
    """Check the parsed JSON of magic_cards.json; raise FormatError naming the entry at fault."""
    _parse_magic(data)


def validate_realms(data: object) -> None:
    """Check the parsed JSON of realms.json; raise FormatError naming the entry at fault."""
    _parse_realms(data)


def validate_glossary(data: object) -> None:
    """Check the parsed JSON of glossary.json; raise FormatError naming the entry at fault."""
    _parse_glossary(data)


def validate_catalog_data(events: object, magic: object, realms: object, glossary: object) -> None:
    """Check the parsed JSON of all four catalog files; raise FormatError on the first fault."""
    _parse_events(events)
    _parse_magic(magic)
    _parse_realms(realms)
    _parse_glossary(glossary)


# --- loading ----------------------------------------------------------------------------------


def _read_json(file: str) -> object:
    try:
        raw = data_text(file)
    except OSError as exc:
        raise FormatError(f"{file}: cannot be read: {exc}") from exc
    try:
        result: object = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{file}: invalid JSON: {exc}") from exc
    return result


EVENT_CARDS: tuple[EventCardInfo, ...]
END_GAME_CARDS: tuple[EndGameCardInfo, ...]
EVENT_CARDS, END_GAME_CARDS = _parse_events(_read_json(EVENTS_FILE))
EVENT_CARD_BY_ID: Mapping[str, EventCardInfo] = MappingProxyType(
    {card.id: card for card in EVENT_CARDS}
)
END_GAME_CARD_BY_ID: Mapping[str, EndGameCardInfo] = MappingProxyType(
    {card.id: card for card in END_GAME_CARDS}
)
MAGIC_CARDS: tuple[MagicCardInfo, ...] = _parse_magic(_read_json(MAGIC_FILE))
MAGIC_CARD_BY_ID: Mapping[str, MagicCardInfo] = MappingProxyType(
    {card.id: card for card in MAGIC_CARDS}
)
REALMS: tuple[RealmInfo, ...] = _parse_realms(_read_json(REALMS_FILE))
REALM_BY_ID: Mapping[str, RealmInfo] = MappingProxyType({realm.id: realm for realm in REALMS})
GLOSSARY: Mapping[str, Text] = _parse_glossary(_read_json(GLOSSARY_FILE))

_MAGIC_BY_REALM: Mapping[str, tuple[MagicCardInfo, ...]] = MappingProxyType(
    {realm.id: tuple(card for card in MAGIC_CARDS if card.realm == realm.id) for realm in REALMS}
)


def magic_cards_of(realm: str) -> tuple[MagicCardInfo, ...]:
    """The five magic cards of ``realm`` (a realm id such as "khalisia"), in number order."""
    try:
        return _MAGIC_BY_REALM[realm]
    except KeyError:
        known = ", ".join(_MAGIC_BY_REALM)
        raise ValueError(f"unknown realm {realm!r}: expected one of {known}") from None
