"""Choices in words: every action of the notation (docs/formats.md) as a sentence in English,
Dutch or German, with its price in the Purchase phase (RULES.md R11.2).

The sentences are the catalogue's (``kaladan.i18n``, ``play.act.*``, its verbs those of the
browser's ``act.*``); units, cards, realms and phases are the glossary names of RULES.md
section 1 and the card catalog. Players are named as in the game log, ``P1 (Kimbria)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..rules import logtext, offer
from ..rules.actions import Action
from ..rules.logtext import seat_name
from ..rules.state import GameState
from ..rules.units import (
    ARCHER,
    CASTLE_UPGRADE_COST,
    CATAPULT,
    CROWN,
    ELIMINATED_CARD_COST,
    EXTRA_CARD_COST,
    GENERAL,
    PLACE_COST,
    REALMS,
    SHIELD,
    SPECIAL,
    SWAP_CARD_COST,
    SWORD,
    UPGRADE_COST,
    UnitCode,
    owner_of,
)
from . import i18n

# The sentences are the catalogue's ``play.act.<kind>`` (kaladan.i18n): {u} a unit,
# {the_u}/{a_u} with an English article, {us}/{us2} unit lists, {t}/{t2} tiles, {n}/{n2}
# cards or a realm, {k} a player, {phase} the current phase.
# Phases whose "end" (Free Spawn, Purchase) or "pass" (Action, Reinforcement) closes them.
_PHASE_KEYS: Final = {"spawn": "spawn", "purchase": "purchase", "action": "action",
                      "reinforce": "reinforce"}


def price(action: Action, state: GameState) -> int:
    """The gold ``action`` costs now, as the engine's offer says (R11.1)."""
    return offer.price(action, state.pending.kind)


def gold_text(n: int, lang: str) -> str:
    """``2 gold`` / ``2 goud`` / ``2 Gold``."""
    return i18n.text(lang, "cost", n=n)


def unit_words(c: UnitCode, lang: str, seat: int = -1) -> str:
    """A unit as the log and the browser name it: the glossary name, a special unit by its
    own (``The Bronze Bear of Nanchia``), ``+`` when upgraded; another player's unit with
    its owner (``Sword (P3)``)."""
    name = logtext.unit_name(c, lang)
    owner = owner_of(c)
    if seat >= 0 and owner != seat:
        name += f" (P{owner + 1})"
    return name


def unit_list(units: Sequence[UnitCode], lang: str, seat: int = -1) -> str:
    """``Sword ×2, Archer+``: equal units counted, in the order they come; ``-`` for none."""
    counts: dict[str, int] = {}
    for c in units:
        name = unit_words(c, lang, seat)
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in counts.items()) or "-"


def _article(name: str, definite: bool, capital: bool = False) -> str:
    """English only: ``the Sword``, ``a Sword``, ``an Archer``, ``the Bow of Laurielle``
    (a special unit's name brings its own article)."""
    if name.startswith("The "):
        word, name = "the", name[4:]
    elif definite:
        word = "the"
    else:
        word = "an" if name[:1].lower() in "aeiou" else "a"
    return (word.capitalize() if capital else word) + " " + name


def card_words(card: str, lang: str) -> str:
    """``KHA-1 Keep of Khalisia``: a card by its id and name."""
    return f"{card} {i18n.card_name(lang, card)}"


def describe(action: Action, state: GameState, lang: str, chance: str = "") -> str:
    """``action`` (legal in ``state``) as a sentence with its price: ``Upgrade the Nanchia
    special unit on C2 — 2 gold``; ``chance``, an attack's odds to win, is added to it."""
    kind = action.kind
    seat = state.pending.seat
    names = state.world.names
    values: dict[str, object] = {}
    if action.units:
        unit = unit_words(action.units[0], lang, seat)  # kill: an enemy's, so "(P2)"
        values.update(u=unit, the_u=_article(unit, True), a_u=_article(unit, False),
                      The_u=_article(unit, True, capital=True))
    values["us"] = unit_list(action.units, lang, seat)
    values["us2"] = unit_list(action.units2, lang, seat)
    if action.tile >= 0:
        values["t"] = names[action.tile]
    if action.tile2 >= 0:
        values["t2"] = names[action.tile2]
    key: str = kind
    if kind == "realm":
        values["n"] = i18n.realm_name(lang, REALMS.index(action.name))
    elif action.name:
        values["n"] = card_words(action.name, lang)
    if action.name2:
        values["n2"] = card_words(action.name2, lang)
    elif kind == "swapcard":
        key = "swapcard_plain"
    if kind == "extracard" and not action.name:
        key = "extracard_plain"
    if kind in ("return", "gift"):
        values["k"] = seat_name(action.number, lang, state.realm)
        values["amount"] = action.amount
    if kind == "split":
        values["split"] = ", ".join(f"P{s + 1}: {hits}" for s, hits in action.shares) \
            or i18n.text(lang, "nobody")
    phase = _PHASE_KEYS.get(state.phase.label)
    if kind in ("pass", "end"):
        if phase is None:
            key = "end_plain" if kind == "end" else kind
            values["phase"] = i18n.phase_name(lang, state.phase.label)
        else:
            values["phase"] = i18n.phase_name(lang, phase)
    text = i18n.text(lang, f"act.{key}", **values)
    cost = price(action, state)
    if cost:
        text += " — " + gold_text(cost, lang)
    elif kind == "upgrade":  # an event's upgrade (R7.9)
        text += " — " + i18n.text(lang, "free_of_charge")
    if chance:
        text += " — " + i18n.text(lang, "you_win_p", p=chance)
    return text


def costs_lines(state: GameState, seat: int, lang: str) -> list[str]:
    """What everything costs in the Purchase phase (R11.2) and ``seat``'s reserve: the
    ``costs`` command."""
    from_reserve = state.reserve[seat]
    specials = state.reserve_specials[seat]
    cols = i18n.text(lang, "costs_cols").split("|")
    never = i18n.text(lang, "costs_never")
    rows: list[tuple[str, str, str, str]] = []
    for utype in (SWORD, ARCHER, SHIELD, CATAPULT, GENERAL, SPECIAL, CROWN):
        name = f"{i18n.unit_name(lang, utype)} ({i18n.unit_abbrev(lang, utype)})"
        buy, up = PLACE_COST[utype], UPGRADE_COST[utype]
        count = len(specials) if utype == SPECIAL else from_reserve[utype]
        if utype == SPECIAL and specials:
            name += ": " + ", ".join(i18n.realm_name(lang, r) for r in specials)
        rows.append((name, gold_text(buy, lang) if buy > 0 else never,
                     gold_text(up, lang) if up > 0 else never,
                     "-" if utype == CROWN else str(count)))
    widths = [max(len(r[k]) for r in [tuple(cols), *rows]) for k in range(4)]
    out = [i18n.text(lang, "costs_head", who=seat_name(seat, lang, state.realm),
                     gold=state.gold[seat])]
    for row in [tuple(cols), *rows]:
        out.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                   .rstrip())
    out.append(f"  {i18n.unit_name(lang, GENERAL)}: {i18n.text(lang, 'costs_general')}")
    out.append(i18n.text(lang, "costs_other", castle=gold_text(CASTLE_UPGRADE_COST, lang),
                         swap=gold_text(SWAP_CARD_COST, lang),
                         extra=gold_text(EXTRA_CARD_COST, lang),
                         eliminated=gold_text(ELIMINATED_CARD_COST, lang)))
    out.append(i18n.text(lang, "costs_when"))
    return out
