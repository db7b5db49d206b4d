"""Actions: small immutable values with one canonical text form.

Tiles are world indices, units are unit codes (``units.py``), so an action's text needs the
world for tile names and the acting seat for unit tokens: ``format_action`` and
``parse_action`` take the state. ``parse_action(format_action(a)) == a`` for every action.

Text forms (tiles as T1.., C1..; units as ``sword``, ``archer+``, ``special:kimbria``)::

    realm kimbria          card KHA-1           castle C2            start sword
    gold                   place sword T3       upgrade sword T3     lose sword T3
    return general 2       spawn archer C1      move T1 T2 sword,archer+
    swap T1 T2 sword archer,shield              attack T4 T5         pass
    magic KHA-5            nomagic              casualty shield      leave sword
    buy catapult T2        fortify C1           swapcard KHA-1 KHA-3 swapcard KHA-1
    extracard KHA-2        extracard            buycard NAN-4        end
    volley T1 T3           kill sword T4        save crown,sword+    deploy T3 sword,archer
    relocate T1 T6 sword   evade T5             harmony T1 T2 sword,archer -
    gift 2 3               split 0:2,2:1

In ``kill`` the unit belongs to the player on the named tile; in ``harmony`` the first list
moves from the first tile to the second and the second list back, ``-`` for none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol, final

from .errors import InvalidActionError
from .native import mypyc_attr
from .units import REALM_INDEX, Seat, UnitCode, owner_of, parse_unit_token, unit_token
from .world import World

# Action kinds (the first word of the text form).
REALM: Final = "realm"
CARD: Final = "card"
CASTLE: Final = "castle"
START: Final = "start"
GOLD: Final = "gold"
PLACE: Final = "place"
UPGRADE: Final = "upgrade"
LOSE: Final = "lose"
RETURN: Final = "return"
SPAWN: Final = "spawn"
MOVE: Final = "move"
SWAP: Final = "swap"
ATTACK: Final = "attack"
PASS: Final = "pass"
MAGIC: Final = "magic"
NOMAGIC: Final = "nomagic"
CASUALTY: Final = "casualty"
LEAVE: Final = "leave"
BUY: Final = "buy"
FORTIFY: Final = "fortify"
SWAPCARD: Final = "swapcard"
EXTRACARD: Final = "extracard"
BUYCARD: Final = "buycard"
END: Final = "end"
VOLLEY: Final = "volley"  # LAU-1: attack a tile at distance 2
KILL: Final = "kill"  # a card kills an enemy unit (R20.10)
SAVE: Final = "save"  # a card saves units killed in this battle (R20.11)
DEPLOY: Final = "deploy"  # a card places units from the reserve (R20.12)
RELOCATE: Final = "relocate"  # ZHO-5: move between tiles that are not adjacent
EVADE: Final = "evade"  # ZHO-2: the defender's units leave the defended tile (R20.9)
HARMONY: Final = "harmony"  # KHA-2: redistribute units between two adjacent tiles
GIFT: Final = "gift"  # R23.11: give gold to an ally (number = the ally, amount = the gold)
SPLIT: Final = "split"  # R23.22: how a side's hits are shared among allies (shares)

KINDS: Final = (
    REALM, CARD, CASTLE, START, GOLD, PLACE, UPGRADE, LOSE, RETURN, SPAWN, MOVE, SWAP, ATTACK,
    PASS, MAGIC, NOMAGIC, CASUALTY, LEAVE, BUY, FORTIFY, SWAPCARD, EXTRACARD, BUYCARD, END,
    VOLLEY, KILL, SAVE, DEPLOY, RELOCATE, EVADE, HARMONY, GIFT, SPLIT,
)
CARD_CHOICE_KINDS: Final = (KILL, SAVE, DEPLOY, RELOCATE, EVADE, HARMONY)


class Decider(Protocol):
    """Who decides now (``state.Pending``): all an action's text needs of the decision."""

    @property
    def seat(self) -> Seat: ...


class Position(Protocol):
    """What the text of an action depends on (a ``GameState`` is one): the world's tile names,
    the deciding seat (units are written as its own, others' with their seat), the units on
    the board (``kill`` names the unit of the tile's player) and every seat's realm."""

    @property
    def world(self) -> World: ...

    @property
    def pending(self) -> Decider: ...

    @property
    def board(self) -> Sequence[tuple[UnitCode, ...]]: ...

    @property
    def realm(self) -> Sequence[int]: ...

    @property
    def n(self) -> int: ...


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class Action:
    """One decision. Each field has one meaning; fields a kind does not use keep their
    defaults, so equal actions compare equal. Immutable by convention: a value compares,
    hashes and sorts by its fields (a native class when compiled, docs/compiled.md)."""

    __slots__ = ("kind", "tile", "tile2", "units", "units2", "name", "name2", "number",
                 "amount", "shares")

    kind: str
    tile: int  # a tile (world index): the first one an action names
    tile2: int  # the second tile
    units: tuple[UnitCode, ...]  # the units the action names (from ``tile``)
    units2: tuple[UnitCode, ...]  # the second set of units (from ``tile2``)
    name: str  # a realm or a card id
    name2: str  # the card taken in a swap (R11.12)
    number: int  # a seat: a graveyard's owner (``return``), the ally given gold (``gift``)
    amount: int  # gold (``gift``)
    shares: tuple[tuple[Seat, int], ...]  # (seat, hits) per ally (``split``, R23.22)

    def __init__(self, kind: str, tile: int = -1, tile2: int = -1,
                 units: tuple[UnitCode, ...] = (), units2: tuple[UnitCode, ...] = (),
                 name: str = "", name2: str = "", number: int = -1, amount: int = 0,
                 shares: tuple[tuple[Seat, int], ...] = ()) -> None:
        self.kind = kind
        self.tile = tile
        self.tile2 = tile2
        self.units = units
        self.units2 = units2
        self.name = name
        self.name2 = name2
        self.number = number
        self.amount = amount
        self.shares = shares

    def fields(self) -> tuple[str, int, int, tuple[UnitCode, ...], tuple[UnitCode, ...], str,
                              str, int, int, tuple[tuple[Seat, int], ...]]:
        """Every field, in declaration order (what equality, hashing and ordering use)."""
        return (self.kind, self.tile, self.tile2, self.units, self.units2, self.name,
                self.name2, self.number, self.amount, self.shares)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Action):
            return NotImplemented
        return (self.kind == other.kind and self.tile == other.tile
                and self.tile2 == other.tile2 and self.units == other.units
                and self.units2 == other.units2 and self.name == other.name
                and self.name2 == other.name2 and self.number == other.number
                and self.amount == other.amount and self.shares == other.shares)

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Action):
            return NotImplemented
        return not self == other

    def __hash__(self) -> int:
        return hash(self.fields())

    def __lt__(self, other: Action) -> bool:
        return self.fields() < other.fields()

    def __reduce__(self) -> tuple[object, ...]:
        return Action, self.fields()

    def __repr__(self) -> str:
        """``Action('move', tile=3, tile2=4, units=(10,))``: pastes back into a test."""
        args = [repr(self.kind)]
        for name, value, default in zip(_FIELD_NAMES[1:], self.fields()[1:], _DEFAULTS,
                                        strict=True):
            if value != default:
                args.append(f"{name}={value!r}")
        return f"Action({', '.join(args)})"

    def replace(self, *, tile: int | None = None, tile2: int | None = None,
                units: tuple[UnitCode, ...] | None = None,
                units2: tuple[UnitCode, ...] | None = None, amount: int | None = None,
                shares: tuple[tuple[Seat, int], ...] | None = None) -> Action:
        """A copy with the given fields changed."""
        return Action(self.kind, self.tile if tile is None else tile,
                      self.tile2 if tile2 is None else tile2,
                      self.units if units is None else units,
                      self.units2 if units2 is None else units2, self.name, self.name2,
                      self.number, self.amount if amount is None else amount,
                      self.shares if shares is None else shares)


_FIELD_NAMES: Final = ("kind", "tile", "tile2", "units", "units2", "name", "name2", "number",
                       "amount", "shares")
_DEFAULTS: Final[tuple[object, ...]] = (-1, -1, (), (), "", "", -1, 0, ())


# Shape of each kind's text: the argument slots in order.
#   n = name, n2 = name2 (optional), t = tile, t2 = tile2, u = one unit, us = unit list,
#   us2 = second unit list, k = number (a seat)
_SHAPES: dict[str, tuple[str, ...]] = {
    REALM: ("n",), CARD: ("n",), CASTLE: ("t",), START: ("u",), GOLD: (), PLACE: ("u", "t"),
    UPGRADE: ("u", "t"), LOSE: ("u", "t"), RETURN: ("u", "k"), SPAWN: ("u", "t"),
    MOVE: ("t", "t2", "us"), SWAP: ("t", "t2", "us", "us2"), ATTACK: ("t", "t2"), PASS: (),
    MAGIC: ("n",), NOMAGIC: (), CASUALTY: ("u",), LEAVE: ("u",), BUY: ("u", "t"),
    FORTIFY: ("t",), SWAPCARD: ("n", "n2?"), EXTRACARD: ("n?",), BUYCARD: ("n",), END: (),
    VOLLEY: ("t", "t2"), KILL: ("u", "t"), SAVE: ("us",), DEPLOY: ("t", "us"),
    RELOCATE: ("t", "t2", "us"), EVADE: ("t",), HARMONY: ("t", "t2", "us-", "us2-"),
    GIFT: ("k", "amt"), SPLIT: ("split",),
}


def _token(c: UnitCode, seat: int) -> str:
    """A unit's token; another player's unit (an ally's, R23.26) carries its seat: ``1/sword``.
    In ``kill`` ``seat`` is the first player on the named tile, so a free-for-all target needs
    no seat."""
    if owner_of(c) == seat:
        return unit_token(c)
    return f"{owner_of(c)}/{unit_token(c)}"


def format_action(action: Action, state: Position) -> str:
    """The canonical text of ``action``."""
    names = state.world.names
    seat = state.pending.seat
    if action.kind == KILL and state.board[action.tile]:
        seat = owner_of(state.board[action.tile][0])
    words = [action.kind]
    for slot in _SHAPES[action.kind]:
        if slot == "n":
            words.append(action.name)
        elif slot == "n?":
            if action.name:
                words.append(action.name)
        elif slot == "n2?":
            if action.name2:
                words.append(action.name2)
        elif slot == "t":
            words.append(names[action.tile])
        elif slot == "t2":
            words.append(names[action.tile2])
        elif slot == "u":
            words.append(_token(action.units[0], seat))
        elif slot in ("us", "us-"):
            words.append(",".join(_token(c, seat) for c in action.units) or "-")
        elif slot in ("us2", "us2-"):
            words.append(",".join(_token(c, seat) for c in action.units2) or "-")
        elif slot == "k":
            words.append(str(action.number))
        elif slot == "amt":
            words.append(str(action.amount))
        elif slot == "split":
            words.append(",".join(f"{seat}:{hits}" for seat, hits in action.shares))
    return " ".join(words)


def parse_action(text: str, state: Position) -> Action:
    """Parse an action's text for the seat whose decision is pending.

    Raises InvalidActionError for malformed text; legality is checked by ``apply``.
    """
    if not isinstance(text, str):
        raise InvalidActionError(f"an action must be text, not {type(text).__name__}")
    words = text.split()
    if not words:
        raise InvalidActionError("empty action text")
    kind = words[0].lower()
    if kind not in _SHAPES:
        raise InvalidActionError(f"unknown action {words[0]!r} in {text!r}: expected one of "
                                 f"{', '.join(KINDS)}")
    shape = _SHAPES[kind]
    required = [s for s in shape if not s.endswith("?")]
    args = words[1:]
    if not len(required) <= len(args) <= len(shape):
        expected = " ".join(f"<{s}>" for s in shape)
        raise InvalidActionError(f"malformed action {text!r}: expected '{kind} {expected}'")
    seat = state.pending.seat
    realm = state.realm[seat] if seat >= 0 else -1
    fields: dict[str, object] = {}
    if kind == KILL:  # the unit is an enemy's: the one on the named tile
        tile = state.world.index(args[1])
        units = state.board[tile]
        if not units:
            raise InvalidActionError(f"malformed action {text!r}: {args[1]} is empty")
        seat = owner_of(units[0])
        realm = state.realm[seat]
    for slot, word in zip(shape, args, strict=False):
        if slot in ("n", "n?"):
            fields["name"] = word.lower() if kind == REALM else word.upper()
        elif slot == "n2?":
            fields["name2"] = word.upper()
        elif slot == "t":
            fields["tile"] = state.world.index(word)
        elif slot == "t2":
            fields["tile2"] = state.world.index(word)
        elif slot == "u":
            fields["units"] = (_parse_token(word, seat, realm, state),)
        elif slot in ("us", "us2", "us-", "us2-"):
            optional = slot.endswith("-")
            if optional and word == "-":
                units = ()
            else:
                units = tuple(sorted(_parse_token(w, seat, realm, state)
                                     for w in word.split(",") if w))
            if not units and not optional:
                raise InvalidActionError(f"malformed action {text!r}: empty unit list")
            fields["units" if slot.startswith("us") and not slot.startswith("us2")
                   else "units2"] = units
        elif slot == "k":
            if not _is_number(word):
                raise InvalidActionError(f"malformed action {text!r}: {word!r} is not a seat")
            fields["number"] = int(word)
        elif slot == "amt":
            if not _is_number(word) or int(word) < 1:
                raise InvalidActionError(f"malformed action {text!r}: {word!r} is not an "
                                         "amount of gold")
            fields["amount"] = int(word)
        elif slot == "split":
            parts = [p.split(":") for p in word.split(",")]
            if not all(len(p) == 2 and _is_number(p[0]) and _is_number(p[1]) for p in parts):
                raise InvalidActionError(f"malformed action {text!r}: expected "
                                         "'split <seat>:<hits>,...'")
            fields["shares"] = tuple((int(a), int(b)) for a, b in parts)
    if kind == REALM and fields["name"] not in REALM_INDEX:
        raise InvalidActionError(f"unknown realm {fields['name']!r}: choose one of "
                                 f"{', '.join(REALM_INDEX)}")
    return canonical(Action(kind, **fields))  # type: ignore[arg-type]


def _is_number(word: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes ``"²"``, which ``int`` refuses, and
    ``"١"``, which would give a second spelling of the same action."""
    return word.isascii() and word.isdigit()


def _parse_token(word: str, seat: int, realm: int, state: Position) -> UnitCode:
    """A unit token, optionally ``<seat>/<token>`` for another player's unit."""
    owner, sep, token = word.partition("/")
    if not sep:
        return parse_unit_token(word, seat, realm)
    if not _is_number(owner) or int(owner) >= state.n:
        raise InvalidActionError(f"bad unit {word!r}: {owner!r} is not a seat")
    return parse_unit_token(token, int(owner), state.realm[int(owner)])


def canonical(action: Action) -> Action:
    """The canonical form of an action: a swap names its lower-numbered tile first (either
    tile may be named first, R10.6)."""
    if action.kind == SWAP and action.tile > action.tile2:
        return action.replace(tile=action.tile2, tile2=action.tile, units=action.units2,
                              units2=action.units)
    return action
