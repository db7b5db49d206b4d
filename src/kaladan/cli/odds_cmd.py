"""``kaladan odds``: exact odds of one battle, as a table or one JSON object.

Units are given as words: Crown, General, Catapult, Archer, Shield, Sword, Special, in English,
Dutch or German (the glossary's names, accents optional), a trailing ``+`` for an upgraded unit.
Every mistake raises ``OddsError`` (a ``KaladanError``), which ``main`` prints with exit code 2.
"""

from __future__ import annotations

import argparse
import json
import unicodedata
from collections.abc import Sequence
from typing import Any

from ..odds import DICE_OPTIONS, DiceOptions, Odds, OddsError, odds
from ..rules.catalog import GLOSSARY, REALM_BY_ID
from ..rules.config import parse_option
from ..rules.units import (
    ARCHER,
    CATAPULT,
    CROWN,
    GENERAL,
    REALM_INDEX,
    SHIELD,
    SPECIAL,
    SWORD,
    UnitCode,
    UnitType,
    code,
    realm_of,
    type_of,
)
from ..rules.world import Terrain

_UNIT_KEYS = {"crown": CROWN, "general": GENERAL, "catapult": CATAPULT, "archer": ARCHER,
              "shield": SHIELD, "sword": SWORD, "special_unit": SPECIAL}
_TILE_KEYS = {"field": Terrain.FIELD, "forest": Terrain.FOREST, "mountain": Terrain.MOUNTAIN,
              "castle": Terrain.CASTLE}


def _norm(text: str) -> str:
    """Case, accents, spaces, hyphens and underscores do not matter: "Schildträger" is
    "schildtrager"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed
                   if not unicodedata.combining(ch) and ch not in " _-")


def _names(keys: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in keys.items():
        out[_norm(key)] = value
        text = GLOSSARY[key]
        for lang in ("en", "nl", "de"):
            out[_norm(text.get(lang))] = value
    return out


UNIT_NAMES = _names(_UNIT_KEYS) | {_norm(w): SPECIAL for w in
                                   ("special", "speciaal", "speciale", "spezial")}
TILE_NAMES = _names(dict(_TILE_KEYS))
REALM_NAMES = {_norm(name): REALM_INDEX[realm_id]
               for realm_id, info in REALM_BY_ID.items()
               for name in (realm_id, info.name.en, info.name.nl, info.name.de)}


def parse_realm(text: str | None, flag: str) -> int | None:
    if text is None:
        return None
    realm = REALM_NAMES.get(_norm(text))
    if realm is None:
        raise OddsError(f"unknown realm {text!r} for {flag}: choose one of "
                        f"{', '.join(REALM_BY_ID)}")
    return realm


def parse_units(text: str, owner: int, realm: int | None, flag: str) -> list[UnitCode]:
    """``"General+ Catapult Sword"`` -> unit codes; ``Special`` needs ``realm`` (or
    ``Special:kimbria``)."""
    units: list[UnitCode] = []
    for token in text.replace(",", " ").split():
        word = token.strip()
        upgraded = word.endswith("+")
        if upgraded:
            word = word[:-1]
        word, _, realm_text = word.partition(":")
        utype = UNIT_NAMES.get(_norm(word))
        if utype is None:
            raise OddsError(f"unknown unit {token!r} in {flag}: expected Crown, General, "
                            "Catapult, Archer, Shield, Sword or Special (English, Dutch or "
                            "German), with a trailing + for an upgraded unit")
        unit_realm = 0
        if utype == SPECIAL:
            own = parse_realm(realm_text, flag) if realm_text else realm
            if own is None:
                side = flag.removeprefix("--")
                raise OddsError(f"unit {token!r} in {flag} is a special unit: name its realm "
                                f"with --{side}-realm (one of {', '.join(REALM_BY_ID)})")
            unit_realm = own
        elif realm_text:
            raise OddsError(f"only a special unit has a realm, not {token!r} in {flag}")
        if utype == CROWN and upgraded:
            raise OddsError(f"a Crown cannot be upgraded ({token!r} in {flag}, R13.1)")
        units.append(code(owner, unit_realm, utype, upgraded))
    if not units:
        raise OddsError(f"{flag} names no unit")
    return units


def parse_tile(text: str, flag: str) -> Terrain:
    terrain = TILE_NAMES.get(_norm(text))
    if terrain is None:
        raise OddsError(f"unknown tile type {text!r} for {flag}: choose field, forest, "
                        "mountain or castle")
    return Terrain(terrain)


def parse_options(texts: Sequence[str]) -> DiceOptions:
    values: dict[str, str] = {}
    for text in texts:
        name, value = parse_option(text)  # ConfigError for an unknown option
        if name not in DICE_OPTIONS:
            raise OddsError(f"option {name} does not touch battle dice: choose from "
                            f"{', '.join(DICE_OPTIONS)} (R3.3)")
        values[name] = value
    return DiceOptions(**values)


def unit_label(c: UnitCode) -> str:
    label = UnitType(type_of(c)).name.capitalize()
    if type_of(c) == SPECIAL:
        label += f"({REALM_BY_ID[list(REALM_BY_ID)[realm_of(c)]].name.en})"
    return label + ("+" if c & 1 else "")


def _dice(pool: Sequence[int]) -> str:
    return " ".join(f"D{s}" for s in pool)


def render(result: Odds, attackers: Sequence[UnitCode], defenders: Sequence[UnitCode],
           a_terrain: Terrain, d_terrain: Terrain, fortified: bool) -> str:
    """The readable table: pools, win chance, expected losses, the loss distribution."""
    castle = " (upgraded)" if fortified else ""
    lines = [
        f"Attacker on {a_terrain.label}: {' '.join(unit_label(c) for c in attackers)}",
        f"  dice: {_dice(result.attack_dice)}",
        f"Defender on {d_terrain.label}{castle}: {' '.join(unit_label(c) for c in defenders)}",
        f"  dice: {_dice(result.defence_dice)}"
        + ("  (lowest die dropped)" if result.drop_lowest else ""),
    ]
    if result.scales:
        lines.append("Scales of Equality: a tie is a hit on the defender")
    lines += [
        "",
        f"Attacker wins     {float(result.attacker_wins):8.2%}",
        f"Defender holds    {float(result.defender_holds):8.2%}",
        f"Expected losses   attacker {float(result.expected_attacker_losses):.3f} of "
        f"{result.attacker_units}, defender {float(result.expected_defender_losses):.3f} of "
        f"{result.defender_units}",
        "",
        "Losses (attacker/defender)  probability  exact",
    ]
    for la, ld, p in result.outcomes:
        lines.append(f"  {la} / {ld}{'':20}{float(p):8.2%}     {p.numerator}/{p.denominator}")
    return "\n".join(lines)


def cmd_odds(args: argparse.Namespace) -> int:
    a_realm = parse_realm(args.attacker_realm, "--attacker-realm")
    d_realm = parse_realm(args.defender_realm, "--defender-realm")
    attackers = parse_units(args.attacker, 0, a_realm, "--attacker")
    defenders = parse_units(args.defender, 1, d_realm, "--defender")
    a_terrain = parse_tile(args.from_tile, "--from")
    d_terrain = parse_tile(args.on_tile, "--on")
    if args.castle_upgraded and d_terrain != Terrain.CASTLE:
        raise OddsError("--castle-upgraded needs --on castle: only a castle tile is upgraded "
                        "(R19.4)")
    result = odds(attackers, defenders, a_terrain, d_terrain, fortified=args.castle_upgraded,
                  options=parse_options(args.option), attacker_card=args.attacker_card,
                  defender_card=args.defender_card, scales=args.scales)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(render(result, attackers, defenders, a_terrain, d_terrain, args.castle_upgraded))
    return 0


def add_parser(sub: Any) -> None:
    """Register ``kaladan odds`` on the subcommand parsers of ``main.build_parser``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "odds", help="exact odds of one battle (win chance, expected losses, loss distribution)")
    p.add_argument("--attacker", required=True, metavar="UNITS",
                   help='attacking units, e.g. "General+ Catapult Sword" (+ = upgraded)')
    p.add_argument("--defender", required=True, metavar="UNITS", help='defending units')
    p.add_argument("--from", dest="from_tile", default="field", metavar="TILE",
                   help="attacking tile: field, forest, mountain or castle (default field)")
    p.add_argument("--on", dest="on_tile", default="field", metavar="TILE",
                   help="defended tile: field, forest, mountain or castle (default field)")
    p.add_argument("--attacker-realm", metavar="REALM", help="realm of the attacker's Special")
    p.add_argument("--defender-realm", metavar="REALM", help="realm of the defender's Special")
    p.add_argument("--castle-upgraded", action="store_true",
                   help="the defended castle is upgraded (+D8, R19.4)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help=f"a dice option of R3.3 ({', '.join(DICE_OPTIONS)}); repeatable")
    p.add_argument("--attacker-card", metavar="ID", help="the attacker's W2 dice card, e.g. KIM-2")
    p.add_argument("--defender-card", metavar="ID", help="the defender's W2 dice card, e.g. ARD-3")
    p.add_argument("--scales", action="store_true",
                   help="Scales of Equality in force: ties are defender hits (EG2)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_odds)
