"""Units, realms and the compact integer code a unit has on the board.

A unit on the board, in a graveyard or among the removed is one ``int``:
``((owner * 8 + realm) * 8 + type) * 2 + upgraded``. ``realm`` is set for special units only
(0 for every other unit, whose kit is always its owner's); owner and realm of a special unit
differ after R18.4. Codes sort by owner, realm, type and upgrade, which gives every tile
a canonical order. Dice and costs come from ``data/units.json`` (R13.1, R11.2).
"""

from __future__ import annotations

import json
from enum import IntEnum
from functools import cache
from typing import Final, TypeAlias

from .datafiles import data_text
from .errors import FormatError, InvalidActionError, KaladanError

UnitCode: TypeAlias = int
Seat: TypeAlias = int


class UnitType(IntEnum):
    """The seven unit types of R2.8."""

    CROWN = 0
    GENERAL = 1
    CATAPULT = 2
    ARCHER = 3
    SHIELD = 4
    SWORD = 5
    SPECIAL = 6

    @property
    def label(self) -> str:
        return self.name.lower()


REALMS: Final = ("khalisia", "kimbria", "nanchia", "ardinor", "zhojira", "laurielle")  # R2.1
REALM_INDEX: Final = {name: i for i, name in enumerate(REALMS)}
# Plain Final ints: the compiled engine reads them as constants, not module attributes.
KHALISIA: Final = 0
KIMBRIA: Final = 1
NANCHIA: Final = 2
ARDINOR: Final = 3
ZHOJIRA: Final = 4
LAURIELLE: Final = 5

CROWN: Final = 0
GENERAL: Final = 1
CATAPULT: Final = 2
ARCHER: Final = 3
SHIELD: Final = 4
SWORD: Final = 5
SPECIAL: Final = 6
assert tuple(UnitType) == (CROWN, GENERAL, CATAPULT, ARCHER, SHIELD, SWORD, SPECIAL)
BASIC_TYPES: Final = (SWORD, ARCHER, SHIELD)  # R1.7, in the order of R16.24
UNIT_TYPE_BY_LABEL: Final = {t.label: int(t) for t in UnitType}


def _load() -> dict[str, object]:
    text = data_text("units.json")
    data: dict[str, object] = json.loads(text)
    return data


_DATA = _load()
_UNITS: dict[str, dict[str, object]] = _DATA["units"]  # type: ignore[assignment]
_COSTS: dict[str, int] = _DATA["costs"]  # type: ignore[assignment]


def _dice(label: str, key: str) -> tuple[int, ...]:
    value = _UNITS[label][key]
    return tuple(value) if isinstance(value, list) else ()


def _cost(label: str, key: str) -> int:
    value = _UNITS[label][key]
    return value if isinstance(value, int) else -1


# Indexed by unit type, then by upgraded (0/1). Crowns cannot be upgraded: empty tuple.
ATTACK_DICE: Final = tuple(
    (_dice(t.label, "attack"), _dice(t.label, "attack_up")) for t in UnitType
)
DEFENCE_DICE: Final = tuple(
    (_dice(t.label, "defence"), _dice(t.label, "defence_up")) for t in UnitType
)
KIT_COUNT: Final = tuple(int(_UNITS[t.label]["kit"]) for t in UnitType)  # type: ignore[call-overload]
PLACE_COST: Final = tuple(_cost(t.label, "place_cost") for t in UnitType)  # -1: never bought
UPGRADE_COST: Final = tuple(_cost(t.label, "upgrade_cost") for t in UnitType)  # -1: never
CASTLE_UPGRADE_COST: Final = _COSTS["upgrade_castle"]
SWAP_CARD_COST: Final = _COSTS["swap_card"]
EXTRA_CARD_COST: Final = _COSTS["extra_card"]
ELIMINATED_CARD_COST: Final = _COSTS["eliminated_card"]


def code(owner: Seat, realm: int, utype: int, upgraded: bool = False) -> UnitCode:
    """The code of a unit; ``realm`` only matters for a special unit."""
    if utype != SPECIAL:
        realm = 0
    return ((owner * 8 + realm) * 8 + utype) * 2 + (1 if upgraded else 0)


# owner_of(c) is c >> OWNER_SHIFT. Loops that run at every decision (controlled tiles, move
# and attack generation, board changes) write the shift itself: a call there costs ~7% of the
# engine's speed (bench/bench_engine.py, callgrind).
OWNER_SHIFT: Final = 7


def owner_of(c: UnitCode) -> Seat:
    """The seat that owns the unit (R18.4: a special unit may change hands)."""
    return c >> OWNER_SHIFT


# PLAIN_CODES[seat][type]: ``code(seat, 0, type)`` (a unit of the seat's own kit, not upgraded),
# looked up where legal actions are made for every decision.
PLAIN_CODES: Final = tuple(tuple(code(seat, 0, t) for t in range(len(UnitType)))
                           for seat in range(6))


def with_owner(c: UnitCode, seat: Seat) -> UnitCode:
    """The same unit owned by ``seat`` (R18.4: a special unit changes hands)."""
    return (seat << 7) | (c & 127)


def realm_of(c: UnitCode) -> int:
    return (c >> 4) & 7


def type_of(c: UnitCode) -> int:
    return (c >> 1) & 7


def is_upgraded(c: UnitCode) -> bool:
    return bool(c & 1)


def plain(c: UnitCode) -> UnitCode:
    """The unit without its upgrade (R13.4: a dead unit loses it)."""
    return c & ~1


def unit_value(c: UnitCode) -> tuple[int, int]:
    """Sort key of the default casualty order of R16.24 (lowest first, Crown last)."""
    t = type_of(c)
    if t == CROWN:
        return (1000, 0)
    base = 6 if t == GENERAL else PLACE_COST[t]
    if c & 1:
        base += UPGRADE_COST[t]
    return (base, _CASUALTY_TIE_ORDER[t])


_CASUALTY_TIE_ORDER: Final = {SWORD: 0, ARCHER: 1, SHIELD: 2, CATAPULT: 3, SPECIAL: 4, GENERAL: 5,
                              CROWN: 6}


@cache
def unit_token(c: UnitCode) -> str:
    """Canonical text of a unit: ``sword``, ``sword+``, ``special:kimbria+`` (remembered:
    views and the log write the same few hundred units over and over)."""
    t = type_of(c)
    label = UnitType(t).label
    if t == SPECIAL:
        label += ":" + REALMS[realm_of(c)]
    return label + ("+" if c & 1 else "")


def parse_unit_token(token: str, owner: Seat, owner_realm: int) -> UnitCode:
    """Parse a unit token for ``owner``; a bare ``special`` means the owner's own special."""
    text = token.strip().lower()
    upgraded = text.endswith("+")
    if upgraded:
        text = text[:-1]
    realm = owner_realm
    if text.startswith("special:"):
        text, realm_name = text.split(":", 1)
        if realm_name not in REALM_INDEX:
            raise InvalidActionError(f"unknown realm {realm_name!r} in unit {token!r}")
        realm = REALM_INDEX[realm_name]
    if text not in UNIT_TYPE_BY_LABEL:
        raise InvalidActionError(
            f"unknown unit {token!r}: expected one of {', '.join(UNIT_TYPE_BY_LABEL)}"
            " (a trailing + marks an upgraded unit)"
        )
    if realm < 0:
        raise InvalidActionError(f"unit {token!r} needs a realm, and this seat has none yet")
    return code(owner, realm, UNIT_TYPE_BY_LABEL[text], upgraded)


@cache
def unit_ref(c: UnitCode) -> str:
    """``"<seat>/<unit token>"``: a unit with its owner, as used in JSON."""
    return f"{owner_of(c)}/{unit_token(c)}"


def parse_unit_ref(text: str) -> UnitCode:
    """The unit ``unit_ref`` wrote; FormatError if ``text`` is not one."""
    seat_text, sep, token = str(text).partition("/")
    if not sep or not seat_text.isdigit():
        raise FormatError(f"bad unit {text!r}: expected '<seat>/<unit>' such as '0/sword+'")
    try:
        return parse_unit_token(token, int(seat_text), 0)
    except KaladanError as exc:
        raise FormatError(f"bad unit {text!r}: {exc}") from exc
