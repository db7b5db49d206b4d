"""Actions: small immutable values, one ``Kind`` each.

An action's kind says what it does; its other fields say with what: tiles are world
indices, units are unit codes (``units.py``), names are realm or card ids. Each kind uses
only some of the fields (``kinds.py`` says which, with the kind's text form, the decisions
that accept it and what performing it does); the others keep their defaults, so equal
actions compare equal.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from enum import StrEnum
from typing import Final, final

from .native import mypyc_attr
from .units import Seat, UnitCode


class Kind(StrEnum):
    """What an action does; the value is the first word of its text form (``kinds.py``)."""

    REALM = "realm"  # R5.5 choose a realm
    CARD = "card"  # R5.7 choose a starting magic card
    CASTLE = "castle"  # R5.8 choose a castle spot
    START = "start"  # R5.9 choose a starting basic unit
    GOLD = "gold"  # section 7: take the event card's gold
    PLACE = "place"  # R7.8 an event places a unit
    UPGRADE = "upgrade"  # R11.8 buy an upgrade; R7.9 a free one
    LOSE = "lose"  # R7.12 an event takes a unit
    RETURN = "return"  # R7.14 a fallen unit comes back
    SPAWN = "spawn"  # R8.1 a free basic unit on a castle
    MOVE = "move"  # R10.2 / R12.1
    SWAP = "swap"  # R10.6 / R12.1
    ATTACK = "attack"  # R10.9
    PASS = "pass"  # R6.3 the phase is over
    MAGIC = "magic"  # R16.5 declare a magic card
    NOMAGIC = "nomagic"  # R16.5 declare none
    CASUALTY = "casualty"  # R16.22 a unit that dies
    LEAVE = "leave"  # R17.6 a unit that stays behind
    BUY = "buy"  # R11.2 a unit from the reserve
    FORTIFY = "fortify"  # R11.11 upgrade a castle
    SWAPCARD = "swapcard"  # R11.12 trade a card
    EXTRACARD = "extracard"  # R11.14 an extra card
    BUYCARD = "buycard"  # R18.6 an eliminated player's card
    END = "end"  # R6.3 the Free Spawn or Purchase phase is over
    VOLLEY = "volley"  # LAU-1: attack a tile at distance 2
    KILL = "kill"  # R20.10 a card kills an enemy unit
    SAVE = "save"  # R20.11 a card saves units killed in this battle
    DEPLOY = "deploy"  # R20.12 a card places units from the reserve
    RELOCATE = "relocate"  # ZHO-5: move between tiles that are not adjacent
    EVADE = "evade"  # ZHO-2 / R20.9: the defender's units leave the defended tile
    HARMONY = "harmony"  # KHA-2: redistribute units between two adjacent tiles
    GIFT = "gift"  # R23.11 give gold to an ally
    SPLIT = "split"  # R23.22 share a side's hits among allies


# The kinds as module constants: the engine's hot paths read these (a ``Final`` global is a
# static to the compiler, where ``Kind.MOVE`` looks the member up in the class's dictionary).
REALM: Final = Kind.REALM
CARD: Final = Kind.CARD
CASTLE: Final = Kind.CASTLE
START: Final = Kind.START
GOLD: Final = Kind.GOLD
PLACE: Final = Kind.PLACE
UPGRADE: Final = Kind.UPGRADE
LOSE: Final = Kind.LOSE
RETURN: Final = Kind.RETURN
SPAWN: Final = Kind.SPAWN
MOVE: Final = Kind.MOVE
SWAP: Final = Kind.SWAP
ATTACK: Final = Kind.ATTACK
PASS: Final = Kind.PASS
MAGIC: Final = Kind.MAGIC
NOMAGIC: Final = Kind.NOMAGIC
CASUALTY: Final = Kind.CASUALTY
LEAVE: Final = Kind.LEAVE
BUY: Final = Kind.BUY
FORTIFY: Final = Kind.FORTIFY
SWAPCARD: Final = Kind.SWAPCARD
EXTRACARD: Final = Kind.EXTRACARD
BUYCARD: Final = Kind.BUYCARD
END: Final = Kind.END
VOLLEY: Final = Kind.VOLLEY
KILL: Final = Kind.KILL
SAVE: Final = Kind.SAVE
DEPLOY: Final = Kind.DEPLOY
RELOCATE: Final = Kind.RELOCATE
EVADE: Final = Kind.EVADE
HARMONY: Final = Kind.HARMONY
GIFT: Final = Kind.GIFT
SPLIT: Final = Kind.SPLIT

# The choices a magic card's effect asks of its holder (Decision.CARD, section 26).
CARD_CHOICE_KINDS: Final = frozenset({KILL, SAVE, DEPLOY, RELOCATE, EVADE, HARMONY})

FIELD_NAMES: Final = ("kind", "tile", "tile2", "units", "units2", "name", "name2", "number",
                      "amount", "shares")
_DEFAULTS: Final[tuple[object, ...]] = (-1, -1, (), (), "", "", -1, 0, ())


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class Action:
    """One decision. Each field has one meaning; fields a kind does not use keep their
    defaults. A value: it compares, hashes and sorts by its fields and cannot be changed
    (the engine shares instances between games, ``legal._attack``).

    A native class when compiled (docs/compiled.md): one is made at almost every decision,
    which a dataclass's interpreted ``__init__`` would make forty times dearer. Compiled,
    the ``Final`` fields are read-only; ``__setattr__`` refuses every assignment after
    ``__init__`` in pure Python as well."""

    __slots__ = FIELD_NAMES

    def __init__(self, kind: Kind, tile: int = -1, tile2: int = -1,
                 units: tuple[UnitCode, ...] = (), units2: tuple[UnitCode, ...] = (),
                 name: str = "", name2: str = "", number: int = -1, amount: int = 0,
                 shares: tuple[tuple[Seat, int], ...] = ()) -> None:
        self.kind: Final = kind
        self.tile: Final = tile  # a tile (world index): the first one an action names
        self.tile2: Final = tile2  # the second tile
        self.units: Final = units  # the units the action names (from ``tile``)
        self.units2: Final = units2  # the second set of units (from ``tile2``)
        self.name: Final = name  # a realm or a card id
        self.name2: Final = name2  # the card taken in a swap (R11.12)
        # A seat: a graveyard's owner (``return``), the ally given gold (``gift``).
        self.number: Final = number
        self.amount: Final = amount  # gold (``gift``)
        self.shares: Final = shares  # (seat, hits) per ally (``split``, R23.22)

    def __setattr__(self, name: str, value: object) -> None:
        # Compiled, __init__'s stores are native (they do not come here) and the fields are
        # read-only anyway; in pure Python __init__ is ``_pure_init``, which goes around this.
        raise FrozenInstanceError(f"cannot assign to field {name!r} of an Action")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r} of an Action")

    def fields(self) -> tuple[Kind, int, int, tuple[UnitCode, ...], tuple[UnitCode, ...], str,
                              str, int, int, tuple[tuple[Seat, int], ...]]:
        """Every field, in declaration order (what equality, hashing and ordering use)."""
        return (self.kind, self.tile, self.tile2, self.units, self.units2, self.name,
                self.name2, self.number, self.amount, self.shares)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Action):
            return NotImplemented
        return (self.kind is other.kind and self.tile == other.tile
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
        """``Action(Kind.MOVE, tile=3, tile2=4, units=(10,))``: pastes back into a test."""
        args = [f"Kind.{self.kind.name}"]
        for name, value, default in zip(FIELD_NAMES[1:], self.fields()[1:], _DEFAULTS,
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


def _pure_init(self: Action, kind: Kind, tile: int = -1, tile2: int = -1,
               units: tuple[UnitCode, ...] = (), units2: tuple[UnitCode, ...] = (),
               name: str = "", name2: str = "", number: int = -1, amount: int = 0,
               shares: tuple[tuple[Seat, int], ...] = ()) -> None:
    """``Action.__init__`` in pure Python: the same stores, around ``__setattr__`` (which
    refuses every assignment), as a frozen dataclass makes them. A guard in ``__setattr__``
    that let ``__init__``'s stores through cost the pure engine a third of its speed."""
    store = object.__setattr__
    store(self, "kind", kind)
    store(self, "tile", tile)
    store(self, "tile2", tile2)
    store(self, "units", units)
    store(self, "units2", units2)
    store(self, "name", name)
    store(self, "name2", name2)
    store(self, "number", number)
    store(self, "amount", amount)
    store(self, "shares", shares)


if not hasattr(Action, "__mypyc_attrs__"):  # the interpreter's class (compiled: native stores)
    setattr(Action, "__init__", _pure_init)  # noqa: B010


def canonical(action: Action) -> Action:
    """The canonical form of an action: a swap names its lower-numbered tile first (either
    tile may be named first, R10.6)."""
    if action.kind is SWAP and action.tile > action.tile2:
        return action.replace(tile=action.tile2, tile2=action.tile, units=action.units2,
                              units2=action.units)
    return action
