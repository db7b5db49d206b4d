"""The battle panel of the terminal game, read from the game log (``rules.gamelog``).

A battle is the run of entries from its ``BattleStarted`` to its ``BattleEnded``, with the
invasion that follows it (R17.6-R17.8). Everything the panel says is in those entries: the
sides, the cards as the viewer may know them (a face-down card stays one until its
``CardRevealed``, R16.5), every die with its unit or bonus, the pairs and who lost each, the
units killed, saved and where they went, the upgrades the losing side lost (R17.4 with
``upgrade_loss = losing_side``), the result. Gold given while the battle goes on (R23.11: at any
moment) is in the log, not in the battle. Callers pick the entries and filter them for the
viewer (``gamelog.visible``) first; nothing here looks at a position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from ..rules.gamelog import (
    BattleEnded,
    BattleStarted,
    CardCommitted,
    CardReturned,
    CardRevealed,
    CardSpent,
    DiceRolled,
    Die,
    Entry,
    FallenUnit,
    GoldGiven,
    LeftBehind,
    Moved,
    NoCard,
    PairsCompared,
    TileCaptured,
    TurnStarted,
    UnitKilled,
    UnitSaved,
    UpgradesLost,
)
from ..rules.logtext import unit_name
from ..rules.state import GameState
from ..rules.units import UnitCode, owner_of
from . import i18n
from .render import seat_name
from .savefile import SeatPlan
from .style import realm_style

BATTLES_SHOWN = 2  # at most this many recent battles on a terminal screen


def _after_battle(entry: Entry) -> bool:
    """An entry of the invasion that closes a won battle (R17.6-R17.8)."""
    return isinstance(entry, LeftBehind | TileCaptured) or (
        isinstance(entry, Moved) and entry.cause == "invasion")


def closes_battle(entry: Entry) -> bool:
    """The end of a battle or of its invasion: after it the battle may be complete."""
    return isinstance(entry, BattleEnded) or _after_battle(entry)


def battle_end(entries: Sequence[Entry], start: int) -> int:
    """The index after the last entry of the battle that starts at ``entries[start]``: its
    ``BattleEnded`` and the invasion after it, or the end of ``entries`` while it goes on.
    Gold given before the invasion is chosen (R23.11, at any moment) does not end it."""
    k = start + 1
    while k < len(entries) and not isinstance(entries[k], BattleStarted | BattleEnded):
        k += 1
    if k < len(entries) and isinstance(entries[k], BattleEnded):
        k += 1
        j = k
        while j < len(entries) and isinstance(entries[j], GoldGiven):
            j += 1
        if j == len(entries):  # the invasion may be still to come
            return j
        while j < len(entries) and _after_battle(entries[j]):
            j += 1
            k = j
    return k


def last_battle(entries: Sequence[Entry], stop: int | None = None) -> tuple[int, int] | None:
    """``(start, end)`` of the last battle begun before index ``stop`` (default: the end)."""
    stop = len(entries) if stop is None else stop
    for k in range(stop - 1, -1, -1):
        if isinstance(entries[k], BattleStarted):
            return k, min(battle_end(entries, k), stop)
    return None


def recent_battles(entries: Sequence[Entry], turns: int,
                   limit: int = BATTLES_SHOWN) -> list[tuple[int, int]]:
    """``(start, end)`` of the battles begun in the last ``turns`` turns (the current one
    included), oldest first, at most ``limit`` of them."""
    starts: list[int] = []
    seen = 0
    for k in range(len(entries) - 1, -1, -1):
        entry = entries[k]
        if isinstance(entry, BattleStarted):
            starts.append(k)
            if len(starts) == limit:
                break
        elif isinstance(entry, TurnStarted):
            seen += 1
            if seen >= turns:
                break
    return [(k, battle_end(entries, k)) for k in reversed(starts)]


# --- rendering -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Card:
    """A card of one side as the viewer knows it: ``card`` None is face down and unknown."""

    card: str | None
    revealed: bool
    fate: str = ""  # "spent", or the rule that sent it back to the hand


class _Battle:
    """One battle's entries, read in order."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.start: BattleStarted | None = None
        self.cards: dict[int, list[_Card]] = {}
        self.stream: list[Entry] = []  # dice, pairs and other happenings, in order
        self.tail: list[Entry] = []  # other happenings after step G (an elimination, R18)
        self.killed: list[UnitKilled] = []
        self.saved: list[UnitSaved] = []
        self.fallen: list[FallenUnit] = []
        self.upgrades_lost: list[UpgradesLost] = []
        self.end: BattleEnded | None = None
        self.invasion: Moved | None = None
        self.left: LeftBehind | None = None
        self.captured: TileCaptured | None = None
        for entry in entries:
            self._read(entry)

    def _slots(self, seat: int) -> list[_Card]:
        return self.cards.setdefault(seat, [])

    def _find(self, card: str) -> _Card | None:
        for slots in self.cards.values():
            for slot in slots:
                if slot.card == card:
                    return slot
        return None

    def _read(self, entry: Entry) -> None:
        match entry:
            case BattleStarted():
                self.start = entry
            case CardCommitted():
                self._slots(entry.seat).append(_Card(entry.card, False))
            case NoCard():
                self._slots(entry.seat)
            case CardRevealed():
                self._revealed(entry)
            case CardSpent():
                self._fate(entry.seat, entry.card, "spent")
            case CardReturned():
                self._fate(entry.seat, entry.card, entry.rule)
            case UnitKilled():
                self.killed.append(entry)
            case UnitSaved():
                self.saved.append(entry)
            case FallenUnit():
                self.fallen.append(entry)
            case UpgradesLost():
                self.upgrades_lost.append(entry)
            case GoldGiven():  # R23.11: given while the battle goes on, not part of it
                pass
            case BattleEnded():
                self.end = entry
            case Moved(cause="invasion"):
                self.invasion = entry
            case LeftBehind():
                self.left = entry
            case TileCaptured():
                self.captured = entry
            case _ if self.fallen:
                self.tail.append(entry)
            case _:
                self.stream.append(entry)

    def _revealed(self, entry: CardRevealed) -> None:
        """R16.5: the face-down card of that side (or the one the viewer knew) is shown."""
        slots = self._slots(entry.seat)
        slot = next((s for s in slots if not s.revealed and s.card in (entry.card, None)), None)
        if slot is None:  # revealed at once: a volley (R16.9) or after the battle (R16.26)
            slots.append(_Card(entry.card, True))
        else:
            slot.card, slot.revealed = entry.card, True

    def _fate(self, holder: int, card: str, fate: str) -> None:
        slot = self._find(card)
        if slot is None:
            slot = _Card(card, True)
            self._slots(holder).append(slot)
        slot.fate = fate


def counted(names: Sequence[str]) -> str:
    """``Sword ×2, Archer`` (first appearance order)."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in counts.items()) or "-"


def card_label(card: str, lang: str) -> str:
    return f"{card} {i18n.card_name(lang, card)}"


class _Writer:
    def __init__(self, state: GameState, plan: SeatPlan, lang: str) -> None:
        self.state, self.plan, self.lang = state, plan, lang
        self.out = Text()

    def t(self, key: str, **values: object) -> str:
        return i18n.text(self.lang, key, **values)

    def who(self, seat: int) -> str:
        return seat_name(self.state, self.plan, self.lang, seat) if seat >= 0 else ""

    def style(self, seat: int) -> str:
        return realm_style(self.state.realm[seat]) if 0 <= seat < self.state.n else ""

    def line(self, text: str, style: str = "") -> None:
        if self.out.plain:
            self.out.append("\n")
        self.out.append(text, style=style)

    def labelled(self, label: str, text: str, style: str = "", same_line: bool = False) -> None:
        """``label: text`` on a line of its own, or after the last one (``same_line``)."""
        if same_line:
            self.out.append(" · ")
        elif self.out.plain:
            self.out.append("\n")
        self.out.append(f"{label}: ", style=style)
        self.out.append(text)

    def units(self, units: Sequence[UnitCode], leader: int) -> str:
        """Units by owner; the side leader's without a name (R23.20: allies share a side)."""
        by_owner: dict[int, list[str]] = {}
        for c in units:
            by_owner.setdefault(owner_of(c), []).append(unit_name(c, self.lang))
        parts = [counted(names) if seat == leader else f"{self.who(seat)}: {counted(names)}"
                 for seat, names in sorted(by_owner.items(), key=lambda kv: kv[0] != leader)]
        return "; ".join(parts) or "-"

    def die(self, d: Die, leader: int) -> str:
        if d.unit >= 0:
            what = unit_name(d.unit, self.lang)
            if owner_of(d.unit) != leader:
                what += f" ({self.who(owner_of(d.unit))})"
        else:
            what = i18n.glossary(self.lang, d.bonus) if d.bonus else ""
        return f"D{d.size}→{d.face}" + (f" {what}" if what else "")

    def card(self, slot: _Card) -> str:
        if slot.card is None:
            return self.t("face_down")
        name = card_label(slot.card, self.lang)
        if slot.fate == "spent":
            return self.t("card_spent", card=name)
        if slot.fate:
            return self.t("card_back", card=name, rule=slot.fate)
        return self.t("card_shown" if slot.revealed else "card_down", card=name)


def battle_text(entries: Sequence[Entry], state: GameState, plan: SeatPlan, lang: str,
                open_: bool = False) -> Text:
    """One battle, compact, from its entries (already filtered for the viewer). ``open_``:
    the battle still goes on (an invasion to choose, R17.7)."""
    b = _Battle(entries)
    w = _Writer(state, plan, lang)
    start = b.start
    if start is None:
        return w.out
    attacker, defender = start.attacker, start.defender
    w.line(w.t("battle_head", attacker=w.who(attacker), defender=w.who(defender),
               a=start.a_tile, d=start.d_tile), "bold")
    w.labelled(w.t("attackers"), w.units(start.attackers, attacker), w.style(attacker))
    w.labelled(w.t("defenders"), w.units(start.defenders, defender), w.style(defender),
               same_line=True)
    if any(b.cards.values()):
        order = sorted(b.cards.items(), key=lambda kv: (kv[0] != attacker, kv[0] != defender))
        parts = [f"{w.who(seat)}: " + (", ".join(w.card(s) for s in slots) or w.t("no_card"))
                 for seat, slots in order]
        w.labelled(w.t("cards"), "; ".join(parts))
    for entry in b.stream:
        if isinstance(entry, DiceRolled):
            w.labelled(w.t("attack_pool"),
                       ", ".join(w.die(d, attacker) for d in entry.attack) or "-",
                       w.style(attacker))
            w.labelled(w.t("defence_pool"),
                       ", ".join(w.die(d, defender) for d in entry.defence) or "-",
                       w.style(defender))
        elif isinstance(entry, PairsCompared):
            pairs = []
            for p in entry.pairs:
                key = {"defender": "pair_attacker", "attacker": "pair_defender"}.get(
                    p.loser, "pair_tie")
                if p.loser == "defender" and p.attack == p.defence:
                    key = "pair_tie_scales"  # Scales of Equality (EG2)
                pairs.append(f"{p.attack}:{p.defence} {w.t(key)}")
            text = "; ".join(pairs) or "-"
            if entry.dropped >= 0:
                text += f" ({w.t('dropped')}: {entry.dropped})"
            w.labelled(w.t("pairs"), text)
            w.out.append(" · ")
            w.out.append(w.t("hits", a=entry.attacker_losses, d=entry.defender_losses), "bold")
        else:
            w.line(entry.text(lang, state.realm))
    _casualties(w, b)
    for entry in b.tail:
        w.line(entry.text(lang, state.realm))
    _result(w, b, open_)
    return w.out


def _casualties(w: _Writer, b: _Battle) -> None:
    if b.killed:
        by_owner: dict[int, list[str]] = {}
        for k in b.killed:
            name = unit_name(k.unit, w.lang)
            if k.card:
                name = w.t("killed_by_card", unit=name, card=card_label(k.card, w.lang))
            by_owner.setdefault(k.seat, []).append(name)
        w.labelled(w.t("killed"), "; ".join(f"{w.who(seat)}: {counted(names)}"
                                            for seat, names in by_owner.items()))
    if b.fallen:  # R16.28: step G
        places: dict[tuple[str, int], list[str]] = {}
        for f in b.fallen:
            places.setdefault((f.place, f.seat), []).append(unit_name(f.unit, w.lang))
        w.labelled(w.t("fallen"), "; ".join(
            f"{counted(names)} → {w.t('to_' + place, who=w.who(seat))}"
            for (place, seat), names in places.items()), same_line=bool(b.killed))
    by_card: dict[str, list[str]] = {}
    for s in b.saved:  # R20.11
        by_card.setdefault(s.card, []).append(f"{unit_name(s.unit, w.lang)} ({s.tile})")
    for card, names in by_card.items():
        w.line(w.t("saved_by", card=card_label(card, w.lang), units=counted(names)))
    for lost in b.upgrades_lost:  # R17.4, upgrade_loss = losing_side: the survivors flip back
        w.labelled(w.t("upgrades_lost", tile=lost.tile), w.units(lost.units, -1),
                   w.style(lost.seat))


def _result(w: _Writer, b: _Battle, open_: bool) -> None:
    end = b.end
    if end is None:
        return
    if end.result == "stopped":
        w.line(w.t("battle_stopped", tile=end.d_tile), "bold")
    elif end.result == "defender_held":
        w.line(w.t("battle_held", who=w.who(end.defender), tile=end.d_tile), "bold")
    elif b.captured is not None:
        w.line(w.t("battle_won", who=w.who(b.captured.seat), tile=b.captured.tile), "bold")
    elif open_:
        w.line(w.t("battle_attacker_won", who=w.who(end.attacker), tile=end.d_tile), "bold")
    else:
        w.line(w.t("battle_emptied", tile=end.d_tile), "bold")
    if b.invasion is not None:
        text = w.t("invasion", tile=b.invasion.dst, units=w.units(b.invasion.units, end.attacker))
        if b.left is not None:
            text += "; " + w.t("left_behind", tile=b.left.tile,
                               units=w.units(b.left.units, end.attacker))
        w.out.append(" " + text)
