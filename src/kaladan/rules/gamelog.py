"""The game log: what happened, as typed entries the reducer appends while it applies a decision.

``apply(state, action, sink)`` (and ``new_game(config, seed, sink)``) append one frozen entry
for every thing a player at the table would notice: a card drawn, gold gained, a unit moved,
every die of a battle, a unit killed and where it went, a player eliminated, the final scores.
With no sink (the search fast path) nothing is built. The log is never stored: a game record
keeps decisions and chance, and replaying it rebuilds the log (docs/formats.md).

Who may see an entry (R5.13, R16.5, R23.5): most entries are public. A few name a card only
one team may know (a starting card, a card selected face down, a card taken from a pool or
from an eliminated player); they carry that ``team`` and a ``redacted`` public form (the card
left out) or none. ``visible(entries, teams, seat)`` gives what a seat, or a spectator (``None``),
may read. Texts in en/nl/de come from ``data/log_texts.json`` (``Entry.text``).

Tiles are written by name (``"T3"``), units are unit codes (``units.py``) and appear in JSON as
``"<seat>/<token>"``; seats are indices (``P1`` is seat 0 in texts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, Final, TypeAlias

from .logtext import describe
from .units import Seat, UnitCode, parse_unit_ref, unit_ref

Tile: TypeAlias = str  # a tile's name, as in the notation
Card: TypeAlias = str  # a magic, event or end-game card id

__all__ = [
    "Entry", "Sink", "visible", "entry_from_json", "entry_fields", "json_fields", "ENTRY_KINDS",
]

Sink: TypeAlias = list["Entry"]


class Entry:
    """One thing that happened. Subclasses are frozen dataclasses with a ``KIND``."""

    __slots__ = ()
    KIND: ClassVar[str] = ""

    @property
    def private_to(self) -> int | None:
        """The team that alone may see this entry, or None when everyone may."""
        return None

    def redacted(self) -> Entry | None:
        """What the other teams see of a private entry (None: nothing)."""
        return None

    def to_json(self) -> dict[str, Any]:
        """The entry as JSON: ``{"kind": ..., field: value, ...}`` (docs/formats.md)."""
        out: dict[str, Any] = {"kind": self.KIND}
        for name, convert in json_fields(type(self)):
            item = getattr(self, name)
            out[name] = item if convert is None else convert(item)
        return out

    def text(self, lang: str = "en", realms: Sequence[int] = ()) -> str:
        """A short sentence in ``lang`` (en, nl, de); ``realms`` (per seat) names the seats'
        realms after P1, P2, ..."""
        return describe(self, lang, realms)


Convert = Callable[[Any], Any]
_FIELDS: dict[str, tuple[tuple[str, Convert | None], ...]] = {}


def entry_fields(cls: type) -> tuple[tuple[str, str], ...]:
    """A log class's fields, in order, with their annotation (text, under ``from __future__
    import annotations``)."""
    return tuple((f.name, str(f.type)) for f in fields(cls))


def json_fields(cls: type[Entry]) -> tuple[tuple[str, Convert | None], ...]:
    """An entry class's fields and how each becomes JSON (None: as it is), chosen once from
    the field's annotation (text, under ``from __future__ import annotations``)."""
    known = _FIELDS.get(cls.KIND)
    if known is None:
        known = _FIELDS[cls.KIND] = tuple(
            (name, _converter(kind)) for name, kind in entry_fields(cls))
    return known


def _unit_or_none(c: UnitCode) -> str | None:
    return unit_ref(c) if c >= 0 else None


def _units_json(units: tuple[UnitCode, ...]) -> list[str]:
    return [unit_ref(c) for c in units]


def _parts_json(parts: tuple[Any, ...]) -> list[Any]:
    return [None if p is None else p.to_json() for p in parts]


def _nested_json(value: Any) -> Any:
    return [_nested_json(v) for v in value] if isinstance(value, tuple) else value


def _converter(type_text: str) -> Convert | None:
    if type_text.startswith(("tuple[Die", "tuple[Pair", "tuple[ScoreParts")):
        return _parts_json
    if type_text.startswith("tuple[UnitCode"):
        return _units_json
    if "UnitCode" in type_text:
        return _unit_or_none
    if type_text.startswith("tuple"):
        return _nested_json
    return None


# --- parts of entries -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Die:
    """One die of a battle (R16.14-R16.15): its size, its face, and whose unit rolled it
    (``unit``) or which bonus it is (``bonus``: forest, mountain, castle)."""

    size: int
    face: int
    unit: UnitCode = -1
    bonus: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"size": self.size, "face": self.face,
                "unit": unit_ref(self.unit) if self.unit >= 0 else None, "bonus": self.bonus}


@dataclass(frozen=True, slots=True)
class Pair:
    """Two dice compared by rank (R16.18-R16.19); ``loser`` is the side that takes the hit:
    ``attacker``, ``defender`` or ``""`` for a tie without hit."""

    attack: int
    defence: int
    loser: str

    def to_json(self) -> dict[str, Any]:
        return {"attack": self.attack, "defence": self.defence, "loser": self.loser}


@dataclass(frozen=True, slots=True)
class ScoreParts:
    """A score split into the rows of R22.1 (team mode: the team's, R23.34), in points."""

    trophies: int
    castles: int
    scalps: int
    tiles: int
    gold: int
    six_gates: int

    @property
    def total(self) -> int:
        return self.trophies + self.castles + self.scalps + self.tiles + self.gold + self.six_gates

    def to_json(self) -> dict[str, Any]:
        return {"trophies": self.trophies, "castles": self.castles, "scalps": self.scalps,
                "tiles": self.tiles, "gold": self.gold, "six_gates": self.six_gates,
                "total": self.total}


# --- setup (section 5) ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnOrderRolled(Entry):
    """R5.3: each round of rolls as (seat, face) pairs; the first player."""

    KIND: ClassVar[str] = "turn_order_rolled"
    rounds: tuple[tuple[tuple[Seat, int], ...], ...]
    sides: int
    first: Seat


@dataclass(frozen=True, slots=True)
class RealmNamed(Entry):
    """R5.5 roll_off: a player names the realm they want."""

    KIND: ClassVar[str] = "realm_named"
    seat: Seat
    realm: str


@dataclass(frozen=True, slots=True)
class RealmRollOff(Entry):
    """R5.5 roll_off: players who named the same realm roll a D12 for it (rounds of rolls)."""

    KIND: ClassVar[str] = "realm_roll_off"
    realm: str
    rounds: tuple[tuple[tuple[Seat, int], ...], ...]
    winner: Seat


@dataclass(frozen=True, slots=True)
class RealmTaken(Entry):
    """R5.5-R5.6: a player takes a realm and its kit."""

    KIND: ClassVar[str] = "realm_taken"
    seat: Seat
    realm: str


@dataclass(frozen=True, slots=True)
class StartingCardTaken(Entry):
    """R5.7: a starting magic card, chosen or drawn at random; only the team sees which."""

    KIND: ClassVar[str] = "starting_card_taken"
    seat: Seat
    team: int
    card: Card | None
    drawn: bool = False  # starting_magic=random

    @property
    def private_to(self) -> int | None:
        return self.team if self.card is not None else None

    def redacted(self) -> Entry | None:
        return replace(self, card=None)


@dataclass(frozen=True, slots=True)
class CastlePlaced(Entry):
    """R5.8-R5.9: a castle on a spot, with the Crown, the special unit and the General."""

    KIND: ClassVar[str] = "castle_placed"
    seat: Seat
    tile: Tile
    units: tuple[UnitCode, ...]


@dataclass(frozen=True, slots=True)
class StartingUnitPlaced(Entry):
    """R5.9: the basic unit of the player's choice on the home castle."""

    KIND: ClassVar[str] = "starting_unit_placed"
    seat: Seat
    unit: UnitCode
    tile: Tile


# --- turns, phases, gold ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnStarted(Entry):
    """R6.1: a player's turn begins (``turn`` counts every turn of the game from 1)."""

    KIND: ClassVar[str] = "turn_started"
    seat: Seat
    turn: int
    round: int
    final_round: bool


@dataclass(frozen=True, slots=True)
class GoldChanged(Entry):
    """Gold from or to the bank: ``delta`` (never below 0 gold, R2.5), the new ``gold`` and its
    ``cause``: an event card id, ``start`` (R5.11)."""

    KIND: ClassVar[str] = "gold_changed"
    seat: Seat
    delta: int
    gold: int
    cause: str


@dataclass(frozen=True, slots=True)
class Income(Entry):
    """R9.1: castles + other tiles // 2; nothing under The Gilded Silence (EG4, R9.4)."""

    KIND: ClassVar[str] = "income"
    seat: Seat
    castles: int
    tiles: int
    amount: int
    gold: int
    frozen: bool


@dataclass(frozen=True, slots=True)
class EventCardDrawn(Entry):
    """R7.1: the top card of the event deck, shown to all (an end-game card too, R25.1)."""

    KIND: ClassVar[str] = "event_card_drawn"
    seat: Seat
    card: Card
    deck_left: int


@dataclass(frozen=True, slots=True)
class EventRoll(Entry):
    """A D6 an event card has a player roll (EV13-EV15)."""

    KIND: ClassVar[str] = "event_roll"
    seat: Seat
    card: Card
    face: int


@dataclass(frozen=True, slots=True)
class FinalRound(Entry):
    """R21.2-R21.3: the final round is triggered; ``turns`` more turns are played after this one
    (players eliminated before their turn skip it)."""

    KIND: ClassVar[str] = "final_round"
    seat: Seat
    card: Card | None  # the end-game card drawn, None when the deck ran out (R21.2 b)
    turns: int


@dataclass(frozen=True, slots=True)
class UnitPlaced(Entry):
    """A unit from the reserve onto the board for free: an event card (R7.8) or a magic card
    (R20.12); ``cause`` is the card id."""

    KIND: ClassVar[str] = "unit_placed"
    seat: Seat
    unit: UnitCode
    tile: Tile
    cause: Card


@dataclass(frozen=True, slots=True)
class Spawned(Entry):
    """R8.1-R8.2: a free basic unit on a castle."""

    KIND: ClassVar[str] = "spawned"
    seat: Seat
    unit: UnitCode
    tile: Tile


@dataclass(frozen=True, slots=True)
class Upgraded(Entry):
    """A unit upgraded: bought (R11.8, ``cause`` ``purchase``) or free by an event card (R7.9)."""

    KIND: ClassVar[str] = "upgraded"
    seat: Seat
    unit: UnitCode
    tile: Tile
    cost: int
    cause: str


@dataclass(frozen=True, slots=True)
class UnitRemoved(Entry):
    """R7.12: a unit leaves the game by an event card (nobody's scalp)."""

    KIND: ClassVar[str] = "unit_removed"
    seat: Seat
    unit: UnitCode
    tile: Tile
    cause: Card


@dataclass(frozen=True, slots=True)
class UnitReturned(Entry):
    """R7.14: a fallen unit comes back from a graveyard into its owner's reserve."""

    KIND: ClassVar[str] = "unit_returned"
    seat: Seat
    unit: UnitCode
    graveyard_of: Seat
    cause: Card


@dataclass(frozen=True, slots=True)
class Moved(Entry):
    """Units from one tile to another: ``cause`` is ``action`` (R10.2), ``reinforce`` (R12.1),
    ``invasion`` (R17.6) or a card (EV08, KHA-2, ZHO-2, ZHO-5)."""

    KIND: ClassVar[str] = "moved"
    seat: Seat
    src: Tile
    dst: Tile
    units: tuple[UnitCode, ...]
    cause: str


@dataclass(frozen=True, slots=True)
class Swapped(Entry):
    """R10.6 / R12.1 (c) / KHA-2: two sets of units change tiles."""

    KIND: ClassVar[str] = "swapped"
    seat: Seat
    a: Tile
    b: Tile
    from_a: tuple[UnitCode, ...]
    from_b: tuple[UnitCode, ...]
    cause: str


@dataclass(frozen=True, slots=True)
class Passed(Entry):
    """A player ends a phase without (further) action (R6.3): ``phase`` by its label."""

    KIND: ClassVar[str] = "passed"
    seat: Seat
    phase: str


@dataclass(frozen=True, slots=True)
class Bought(Entry):
    """R11.2-R11.6: a unit from the reserve placed for gold."""

    KIND: ClassVar[str] = "bought"
    seat: Seat
    unit: UnitCode
    tile: Tile
    cost: int


@dataclass(frozen=True, slots=True)
class Fortified(Entry):
    """R11.11: a castle upgraded."""

    KIND: ClassVar[str] = "fortified"
    seat: Seat
    tile: Tile
    cost: int


@dataclass(frozen=True, slots=True)
class CardTraded(Entry):
    """A magic card bought: ``swap`` (R11.12), ``extra`` (R11.14) or ``eliminated`` (R18.6).
    Which cards only the team may see (R5.13, R23.5)."""

    KIND: ClassVar[str] = "card_traded"
    seat: Seat
    team: int
    trade: str
    given: Card | None
    taken: Card | None
    cost: int

    @property
    def private_to(self) -> int | None:
        return self.team if self.taken is not None else None

    def redacted(self) -> Entry | None:
        return replace(self, given=None, taken=None)


@dataclass(frozen=True, slots=True)
class GoldGiven(Entry):
    """R23.11: gold to an ally."""

    KIND: ClassVar[str] = "gold_given"
    seat: Seat
    to: Seat
    amount: int


# --- battles (sections 16-18, 20) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BattleStarted(Entry):
    """R16.1-R16.4: the tiles, the side leaders and every unit on both tiles; ``volley`` for
    Volley from Afar (LAU-1), which is revealed with the attack (R16.9); each side's bonus
    dice by what gives them (``forest``; ``mountain``, ``castle``: section 15)."""

    KIND: ClassVar[str] = "battle_started"
    attacker: Seat
    defender: Seat
    a_tile: Tile
    d_tile: Tile
    attackers: tuple[UnitCode, ...]
    defenders: tuple[UnitCode, ...]
    volley: bool
    attack_bonus: tuple[str, ...] = ()
    defence_bonus: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CardCommitted(Entry):
    """R16.5: a side selects a card face down; the other team sees only that one was."""

    KIND: ClassVar[str] = "card_committed"
    seat: Seat  # the side's leader
    team: int
    card: Card | None

    @property
    def private_to(self) -> int | None:
        return self.team if self.card is not None else None

    def redacted(self) -> Entry | None:
        return replace(self, card=None)


@dataclass(frozen=True, slots=True)
class NoCard(Entry):
    """R16.5 / R16.26: a side declares no card (``window``: ``declare`` or ``after``)."""

    KIND: ClassVar[str] = "no_card"
    seat: Seat
    window: str


@dataclass(frozen=True, slots=True)
class CardRevealed(Entry):
    """R16.5, R16.9, R16.26: a side's card shown to all; ``holder`` is who held it (R23.23)."""

    KIND: ClassVar[str] = "card_revealed"
    seat: Seat
    holder: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class CardSpent(Entry):
    """R20.6: the card's effect takes place and the card leaves the game."""

    KIND: ClassVar[str] = "card_spent"
    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class CardReturned(Entry):
    """R16.10, R16.12, R20.6: a revealed card whose effect never took place goes back to its
    holder's hand; ``rule`` says why."""

    KIND: ClassVar[str] = "card_returned"
    seat: Seat
    card: Card
    rule: str


@dataclass(frozen=True, slots=True)
class DiceRolled(Entry):
    """R16.14-R16.15: both pools, every die with its face and its unit or bonus."""

    KIND: ClassVar[str] = "dice_rolled"
    attacker: Seat
    defender: Seat
    attack: tuple[Die, ...]
    defence: tuple[Die, ...]


@dataclass(frozen=True, slots=True)
class PairsCompared(Entry):
    """R16.16-R16.21: the dice sorted and paired, the defender's dropped die (mountain option,
    or -1), the hits each side takes and how many of them count (capped by its units)."""

    KIND: ClassVar[str] = "pairs_compared"
    pairs: tuple[Pair, ...]
    dropped: int
    attacker_hits: int
    defender_hits: int
    attacker_losses: int
    defender_losses: int


@dataclass(frozen=True, slots=True)
class HitsShared(Entry):
    """R23.22: a side leader shares the side's hits among its players as (seat, hits)."""

    KIND: ClassVar[str] = "hits_shared"
    seat: Seat
    shares: tuple[tuple[Seat, int], ...]


@dataclass(frozen=True, slots=True)
class UnitKilled(Entry):
    """R16.22-R16.25, R20.10: a unit dies and is set aside; ``killer`` is the leader of the
    side credited with it, ``card`` the card that killed it (or ""), ``chosen`` whether its
    owner chose it among others."""

    KIND: ClassVar[str] = "unit_killed"
    seat: Seat
    unit: UnitCode
    tile: Tile
    killer: Seat
    card: Card
    chosen: bool


@dataclass(frozen=True, slots=True)
class UnitSaved(Entry):
    """R20.11: a unit killed in this battle returns to a tile exactly as it was."""

    KIND: ClassVar[str] = "unit_saved"
    seat: Seat
    unit: UnitCode
    tile: Tile
    card: Card


@dataclass(frozen=True, slots=True)
class FallenUnit(Entry):
    """R16.28: where a killed unit goes at step G: ``graveyard`` (a scalp of ``seat``, R17.2),
    ``reserve`` (a special unit back to ``seat``, R14.7), ``trophies`` (a Crown, R18.5) or
    ``removed`` (R18.9)."""

    KIND: ClassVar[str] = "fallen_unit"
    unit: UnitCode
    place: str
    seat: Seat


@dataclass(frozen=True, slots=True)
class Eliminated(Entry):
    """R18.1-R18.6, R18.9: a player is out. ``by`` receives the special units (``specials``,
    now in its reserve) and the right to buy ``cards`` cards; ``removed`` are the units taken
    off the board; ``by`` is -1 when both Crowns fell (R18.9)."""

    KIND: ClassVar[str] = "eliminated"
    seat: Seat
    by: Seat
    specials: tuple[UnitCode, ...]
    cards: int
    removed: tuple[UnitCode, ...]
    gold: int


@dataclass(frozen=True, slots=True)
class CardsOffered(Entry):
    """R18.6: the eliminated player's cards the winner may now buy and look at."""

    KIND: ClassVar[str] = "cards_offered"
    seat: Seat
    team: int
    cards: tuple[Card, ...]
    eliminated: Seat

    @property
    def private_to(self) -> int | None:
        return self.team


@dataclass(frozen=True, slots=True)
class LeftBehind(Entry):
    """R17.6-R17.7: units that do not fit on D stay on A."""

    KIND: ClassVar[str] = "left_behind"
    seat: Seat
    tile: Tile
    units: tuple[UnitCode, ...]


@dataclass(frozen=True, slots=True)
class UpgradesLost(Entry):
    """R13.4, R17.4 with ``upgrade_loss = losing_side``: the surviving upgraded ``units`` of
    the side that lost (led by ``seat``) on ``tile`` are flipped back to unupgraded."""

    KIND: ClassVar[str] = "upgrades_lost"
    seat: Seat
    tile: Tile
    units: tuple[UnitCode, ...]


@dataclass(frozen=True, slots=True)
class TileCaptured(Entry):
    """R17.8: the defended tile changes hands by the invasion (``lost_by`` held it)."""

    KIND: ClassVar[str] = "tile_captured"
    seat: Seat
    tile: Tile
    lost_by: Seat
    castle: bool


@dataclass(frozen=True, slots=True)
class BattleEnded(Entry):
    """R16.27-R16.31: ``result`` is ``attacker_won``, ``defender_held`` or ``stopped`` (R20.8);
    ``losses`` are the units that died in it, saved units not counted."""

    KIND: ClassVar[str] = "battle_ended"
    attacker: Seat
    defender: Seat
    a_tile: Tile
    d_tile: Tile
    result: str
    losses: tuple[UnitCode, ...]


@dataclass(frozen=True, slots=True)
class GameOver(Entry):
    """Sections 21-22: how the game ended, the winner (or the winning ``team``), every score
    by its parts (None for eliminated players) and the tie-break rolls (R22.4)."""

    KIND: ClassVar[str] = "game_over"
    end: str
    winner: Seat | None
    team: int | None
    scores: tuple[ScoreParts | None, ...]
    tie_break: tuple[tuple[int, ...], ...]


ENTRY_KINDS: Final[dict[str, type[Entry]]] = {
    cls.KIND: cls for cls in (
        TurnOrderRolled, RealmNamed, RealmRollOff, RealmTaken, StartingCardTaken, CastlePlaced,
        StartingUnitPlaced, TurnStarted, GoldChanged, Income, EventCardDrawn, EventRoll,
        FinalRound, UnitPlaced, Spawned, Upgraded, UnitRemoved, UnitReturned, Moved, Swapped,
        Passed, Bought, Fortified, CardTraded, GoldGiven, BattleStarted, CardCommitted, NoCard,
        CardRevealed, CardSpent, CardReturned, DiceRolled, PairsCompared, HitsShared,
        UnitKilled, UnitSaved, FallenUnit, Eliminated, CardsOffered, UpgradesLost, LeftBehind,
        TileCaptured,
        BattleEnded, GameOver,
    )
}


def visible(entries: Iterable[Entry], teams: Sequence[int], seat: int | None) -> list[Entry]:
    """The entries ``seat`` may read (``None``: a spectator, who sees public entries only):
    private entries of its own team as they are, other teams' in their redacted form, if any
    (R5.13, R16.5; allies see each other's cards, R23.5)."""
    team = None if seat is None else teams[seat]
    out: list[Entry] = []
    for entry in entries:
        owner = entry.private_to
        if owner is None or owner == team:
            out.append(entry)
        else:
            shown = entry.redacted()
            if shown is not None:
                out.append(shown)
    return out


# --- reading entries back (for clients and tests) ------------------------------------------------


def _unit_from_json(text: Any) -> UnitCode:
    return parse_unit_ref(str(text))


def entry_from_json(data: dict[str, Any]) -> Entry:
    """The entry ``to_json`` wrote (round trip; FormatError-free input assumed)."""
    cls = ENTRY_KINDS[data["kind"]]
    values: dict[str, Any] = {}
    for name, kind in entry_fields(cls):
        values[name] = _from_json(data[name], kind)
    return cls(**values)


def _from_json(value: Any, type_text: str) -> Any:
    if value is None:
        return None if "None" in type_text else -1
    if type_text.startswith("tuple[Die"):
        return tuple(Die(d["size"], d["face"], -1 if d["unit"] is None
                         else _unit_from_json(d["unit"]), d["bonus"]) for d in value)
    if type_text.startswith("tuple[Pair"):
        return tuple(Pair(p["attack"], p["defence"], p["loser"]) for p in value)
    if type_text.startswith("tuple[ScoreParts"):
        return tuple(None if p is None else ScoreParts(
            p["trophies"], p["castles"], p["scalps"], p["tiles"], p["gold"], p["six_gates"])
            for p in value)
    if "UnitCode" in type_text:
        if isinstance(value, list):
            return tuple(_unit_from_json(v) for v in value)
        return _unit_from_json(value)
    if isinstance(value, list):
        return _tuples(value)
    return value


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value
