"""The registry of action kinds: one spec per ``Kind``, and what is derived from it.

A spec says everything the engine knows of a kind besides when it is legal (``legal.py``
generates that): its text form, the decisions that accept it, the handler that performs it,
the action fields it uses, what it costs when bought, the catalogue key of its words, and the
rule and reasons a refusal gives. Parsing and formatting (``parse_action``,
``format_action``), the dispatch of ``apply``, the kinds each decision accepts and the
refusal reasons (``offer.refusal``) are derived from the specs; the server publishes the
grammar (``grammar()``) that the browser composes actions with.

Text forms (tiles as T1.., C1..; units as ``sword``, ``archer+``, ``special:kimbria``; another
player's unit with its seat, ``1/sword``)::

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
``parse_action(format_action(a)) == a`` for every action.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Protocol

from . import handlers as H
from .actions import FIELD_NAMES, Action, Kind, canonical
from .errors import InvalidActionError
from .state import Decision, GameState
from .units import REALM_INDEX, Seat, UnitCode, owner_of, parse_unit_token, unit_token
from .world import World

Handler = Callable[[GameState, Action], None]


class Form(StrEnum):
    """What one word of an action's text is (the grammar the browser composes with)."""

    REALM = "realm"  # a realm id, lower case: kimbria
    CARD = "card"  # a card id, upper case: KHA-1
    TILE = "tile"  # a tile name: T3, C1
    UNIT = "unit"  # one unit token: sword, archer+, 1/shield
    UNITS = "units"  # unit tokens joined by ",": sword,archer+ ("-" for none, when optional)
    SEAT = "seat"  # a seat number, 0-based
    GOLD = "gold"  # an amount of gold, 1 or more
    SHARES = "shares"  # seat:hits pairs joined by ",": 0:2,2:1


@dataclass(frozen=True, slots=True)
class Slot:
    """One word of a kind's text after the kind: the ``Action`` field it fills and its form.
    An optional name may be left out (the last words only); an optional unit list may be
    ``-`` (none)."""

    field: str
    form: Form
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Refusal:
    """A rule id and a reason, ``{...}`` filled in by ``offer.refusal`` (``{tile}``,
    ``{tile2}``, ``{choices}``, ``{low}``, ``{high}``, ``{low2}``, ``{high2}``)."""

    rule: str
    reason: str


@dataclass(frozen=True, slots=True)
class KindSpec:
    """Everything the engine knows of one kind but when it is legal (``legal.py``)."""

    kind: Kind
    slots: tuple[Slot, ...]
    decisions: frozenset[Decision]  # the pending decisions that accept it
    handler: Handler
    rule: str  # the rule that allows the kind
    when: str  # when it can be chosen: the reason a refusal "not now" gives
    # Refusals of an action of this kind when its decision accepts the kind but the
    # generator offers no such action and has said nothing of it (``offer.refusal`` says
    # which): "none" of the kind offered, none "where" it names, not from that "source" tile
    # or to that "target" tile, none with "what" units or names it gives; "units" that are
    # not the player's there, a swap whose sets are both several units ("single") or equal.
    refusals: Mapping[str, Refusal]
    label: str  # the catalogue key of its words (i18n: "act.<kind>")
    event_label: str = ""  # its key when an event card offers it (the card's own terms)
    price: Callable[[Action], int] | None = None  # gold it costs in a Purchase (R11.1)
    unit_of_tile: bool = False  # its unit is the one of the player on the tile (``kill``)
    # Its one unit stands on the board (a casualty, an upgrade ...), not in a reserve: a page
    # offers it when that unit is picked.
    on_board: bool = False

    @property
    def fields(self) -> frozenset[str]:
        """The ``Action`` fields this kind uses (the others keep their defaults)."""
        return frozenset({"kind", *(slot.field for slot in self.slots)})


@dataclass(frozen=True, slots=True)
class DecisionSpec:
    """What a pending decision asks: its rule and, in words, what its seat must do."""

    decision: Decision
    rule: str
    expects: str


_ALL_DECISIONS: Final = frozenset(d for d in Decision if d is not Decision.NONE)
_SETUP: Final = "during setup (section 5)"

# Refusals several kinds share: a card's choice of another kind is asked (R20.7); a gift's
# one rule, whatever is wrong with it (R23.11).
_OTHER_CHOICE: Final = ("R20.7", "the card being resolved asks for another choice")
_GIFT_RULE: Final = ("R23.11", "a gift goes to an ally, in team mode, and cannot exceed your "
                               "own gold")

_NAME = Slot("name", Form.CARD)
_TILE = Slot("tile", Form.TILE)
_TILE2 = Slot("tile2", Form.TILE)
_UNIT = Slot("units", Form.UNIT)
_UNITS = Slot("units", Form.UNITS)


_REFUSAL_KEYS: Final = ("none", "where", "what", "source", "target", "units", "single",
                        "equal")


def _spec(kind: Kind, slots: tuple[Slot, ...], decisions: AbstractSet[Decision],
          handler: Handler, rule: str, when: str, none: tuple[str, str],
          where: tuple[str, str] | None = None, what: tuple[str, str] | None = None,
          refusals: Mapping[str, tuple[str, str]] | None = None, **extra: Any) -> KindSpec:
    """A spec; ``where`` and ``what`` default to listing the choices the generator offers."""
    reasons = {"none": none, "where": where or (rule, "the {kind} choices now are {choices}"),
               "what": what or (rule, "at those tiles the choices are {choices}"),
               **(refusals or {})}
    assert set(reasons) <= set(_REFUSAL_KEYS), set(reasons) - set(_REFUSAL_KEYS)
    return KindSpec(kind, slots, frozenset(decisions), handler, rule, when,
                    {key: Refusal(*value) for key, value in reasons.items()},
                    f"act.{kind.value}", **extra)


_D = Decision
SPECS: Final[Mapping[Kind, KindSpec]] = {spec.kind: spec for spec in (
    _spec(Kind.REALM, (Slot("name", Form.REALM),), {_D.REALM}, H.setup_choice, "R5.5",
          f"realms are chosen {_SETUP}", ("R5.5", "no realm is left to choose"),
          what=("R5.5", "that realm is taken: the free ones are {choices}")),
    _spec(Kind.CARD, (_NAME,), {_D.START_CARD}, H.setup_choice, "R5.7",
          f"starting magic cards are chosen {_SETUP}", ("R5.7", "no starting card to choose"),
          what=("R5.7", "a starting card comes from your own realm: {choices}")),
    _spec(Kind.CASTLE, (_TILE,), {_D.CASTLE}, H.setup_choice, "R5.8",
          f"castle spots are chosen {_SETUP}", ("R5.8", "no castle spot is free"),
          where=("R5.8", "that is not a free castle spot for you: choose {choices}")),
    _spec(Kind.START, (_UNIT,), {_D.START_UNIT}, H.setup_choice, "R5.9",
          f"starting units are chosen {_SETUP}", ("R5.9", "no starting unit to choose"),
          what=("R5.9", "a starting unit is one of your basic units: {choices}")),
    _spec(Kind.GOLD, (), {_D.EVENT}, H.event_choice, "R7.7",
          "an event card's gold is taken while the card is resolved (section 7)",
          ("R7.7", "this event card offers no gold"), event_label="act.gold_event"),
    _spec(Kind.PLACE, (_UNIT, _TILE), {_D.EVENT}, H.event_choice, "R7.8",
          "an event card places a unit while the card is resolved (R7.8)",
          ("R7.8", "this event card places no unit of yours now"),
          where=("R7.8", "the unit goes onto a tile you control with room: {choices}"),
          event_label="act.place_event"),
    _spec(Kind.UPGRADE, (_UNIT, _TILE), {_D.EVENT, _D.PURCHASE}, H.upgrade, "R11.8",
          "units are upgraded in your Purchase phase (R11.8) or by an event card (R7.9)",
          ("R11.8", "no unit of yours can be upgraded now (upgraded already, a Crown, or "
                    "not enough gold)"),
          where=("R11.8", "you can upgrade units on {choices}"),
          what=("R11.8", "on that tile you can upgrade {choices}"),
          event_label="act.upgrade_event", price=H.upgrade_price, on_board=True),
    _spec(Kind.LOSE, (_UNIT, _TILE), {_D.EVENT}, H.event_choice, "R7.12",
          "an event card takes a unit while the card is resolved (R7.12)",
          ("R7.12", "this event card takes no unit of yours"),
          where=("R7.12", "the unit lost is a basic unit of yours: {choices}"), on_board=True),
    _spec(Kind.RETURN, (_UNIT, Slot("number", Form.SEAT)), {_D.EVENT}, H.event_choice,
          "R7.14", "fallen units return while an event card is resolved (R7.14)",
          ("R7.14", "none of your units is in a graveyard")),
    _spec(Kind.SPAWN, (_UNIT, _TILE), {_D.SPAWN}, H.spawn, "R8.1",
          "units spawn in your Free Spawn phase (R8.1)",
          ("R8.2", "no castle you held at the start of the turn has room"),
          where=("R8.2", "units spawn on the castles you held at the start of the turn with "
                         "room: {choices}"),
          what=("R8.2", "one basic unit from your reserve: {choices}")),
    _spec(Kind.MOVE, (_TILE, _TILE2, _UNITS), {_D.ACTION, _D.REINFORCE, _D.EVENT}, H.move,
          "R10.2", "units move in your Action and Reinforcement phases (R10.2, R12.1) or by "
                   "an event card (R7.10)",
          ("R10.2", "none of your units can move now"),
          where=("R10.2", "units can move from one of your tiles to an adjacent empty or "
                          "friendly tile with room (R4.2, R10.3, R4.6): {choices}"),
          what=("R10.2", "from {tile} to {tile2} {low} to {high} of your units there can "
                         "go: {choices}"),
          refusals={"source": ("R10.2", "you do not control {tile}"),
                    "target": ("R4.2", "{tile} and {tile2} are not adjacent"),
                    "units": ("R10.2", "those units are not yours on {tile}: yours there are "
                                       "{choices}")}),
    _spec(Kind.SWAP, (_TILE, _TILE2, _UNITS, Slot("units2", Form.UNITS)),
          {_D.ACTION, _D.REINFORCE}, H.swap, "R10.6",
          "units swap in your Action and Reinforcement phases (R10.6, R12.1)",
          ("R10.6", "you hold no two adjacent tiles whose units can swap"),
          where=("R10.6", "a swap is between two adjacent tiles you control: {choices}"),
          what=("R10.7", "between {tile} and {tile2} one side gives a single unit and the "
                         "other a set, within capacity after the swap (R10.8): {choices}"),
          refusals={"source": ("R10.6", "you do not control {tile}"),
                    "target": ("R4.2", "{tile} and {tile2} are not adjacent"),
                    "units": ("R10.6", "those units are not yours on {tile} and {tile2}: "
                                       "yours there are {choices}"),
                    "single": ("R10.7", "one of the two sets must be a single unit"),
                    "equal": ("R10.7", "a swap of two equal sets changes nothing: it is no "
                                       "swap")}),
    _spec(Kind.ATTACK, (_TILE, _TILE2), {_D.ACTION}, H.attack, "R10.9",
          "attacks are declared in your Action phase (R10.9)",
          ("R16.1", "none of your tiles is next to an enemy tile"),
          where=("R16.1", "an attack goes from a tile of yours to an adjacent enemy tile: "
                          "{choices}"),
          refusals={"source": ("R16.1", "you have no unit on {tile}"),
                    "target": ("R16.1", "the defended tile must be adjacent to the attacking "
                                        "tile")}),
    _spec(Kind.PASS, (), {_D.ACTION, _D.REINFORCE}, H.end_phase, "R6.3",
          "'pass' ends your Action or Reinforcement phase (R6.3)",
          ("R6.3", "you cannot pass now")),
    _spec(Kind.MAGIC, (_NAME,), {_D.MAGIC}, H.magic, "R16.5",
          "magic cards are declared when a battle asks the sides for them (R16.5, R16.26)",
          ("R16.8", "none of your cards can be played in this battle now"),
          what=("R16.8", "that card is not in your hand, not usable in this window or its "
                         "condition fails; playable now: {choices}")),
    _spec(Kind.NOMAGIC, (), {_D.MAGIC}, H.nomagic, "R16.5",
          "'nomagic' answers a battle's call for magic cards (R16.5)",
          ("R16.5", "no magic declaration is asked of you")),
    _spec(Kind.CASUALTY, (_UNIT,), {_D.CASUALTY}, H.casualty, "R16.22",
          "casualties are chosen after a battle's dice (R16.22)",
          ("R16.22", "no casualty is asked of you"),
          what=("R16.23", "a casualty is a unit of yours in the battle, the Crown only when it "
                          "is the last: {choices}"), on_board=True),
    _spec(Kind.LEAVE, (_UNIT,), {_D.INVASION}, H.leave, "R17.6",
          "units stay behind when the attackers of a won battle invade (R17.6)",
          ("R17.6", "no unit has to stay behind"),
          what=("R17.6", "the unit that stays is one of the attackers still on the attacking "
                         "tile: {choices}"), on_board=True),
    _spec(Kind.BUY, (_UNIT, _TILE), {_D.PURCHASE}, H.buy, "R11.2",
          "units are bought in your Purchase phase (R11.2)",
          ("R11.1", "no unit can be bought now: not enough gold, an empty reserve or no tile "
                    "to place it on"),
          where=("R11.3", "{tile} is not next to a tile you control; units are placed on "
                          "your tiles with room and on one empty tile next to one of yours "
                          "(R11.3-R11.6): {choices}"),
          what=("R11.2", "on that tile you can buy {choices}"), price=H.buy_price),
    _spec(Kind.FORTIFY, (_TILE,), {_D.PURCHASE}, H.fortify, "R11.11",
          "castles are upgraded in your Purchase phase (R11.11)",
          ("R11.11", "no castle of yours can be upgraded now (none, upgraded already, or not "
                     "enough gold)"),
          where=("R11.11", "you can upgrade a castle tile you control, once: {choices}"),
          price=H.fortify_price),
    _spec(Kind.SWAPCARD, (_NAME, Slot("name2", Form.CARD, optional=True)), {_D.PURCHASE},
          H.swapcard, "R11.12", "cards are traded in your Purchase phase (R11.12)",
          ("R11.12", "no card can be traded now (none of your realm's in your hand, an "
                     "empty pool, or not enough gold)"),
          what=("R11.12", "you can trade {choices}"), price=H.swapcard_price),
    _spec(Kind.EXTRACARD, (Slot("name", Form.CARD, optional=True),), {_D.PURCHASE},
          H.extracard, "R11.14", "extra cards are bought in your Purchase phase (R11.14)",
          ("R11.14", "no extra card can be bought now (an empty pool or not enough gold)"),
          what=("R11.14", "you can take {choices}"), price=H.extracard_price),
    _spec(Kind.BUYCARD, (_NAME,), {_D.PURCHASE}, H.buycard, "R18.6",
          "an eliminated player's cards are bought in your Purchase phase (R18.6)",
          ("R18.6", "no eliminated player's card is on offer to you (or not enough gold)"),
          what=("R18.6", "on offer to you: {choices}"), price=H.buycard_price),
    _spec(Kind.END, (), {_D.SPAWN, _D.PURCHASE}, H.end_phase, "R6.3",
          "'end' ends your Free Spawn or Purchase phase (R6.3)",
          ("R6.3", "you cannot end the phase now")),
    _spec(Kind.VOLLEY, (_TILE, _TILE2), {_D.ACTION}, H.volley, "LAU-1",
          "a volley is declared in your Action phase with Volley from Afar in hand (LAU-1)",
          ("LAU-1", "a volley needs Volley from Afar in your hand, an Archer of yours and an "
                    "enemy tile at distance exactly 2"),
          where=("LAU-1", "a volley goes from a tile with your Archer to an enemy tile at "
                          "distance exactly 2: {choices}"),
          refusals={"source": ("LAU-1", "you have no Archer on {tile}")}),
    _spec(Kind.KILL, (_UNIT, _TILE), {_D.CARD}, H.card_choice, "R20.10",
          "a card kills a unit when the card being resolved asks for it (R20.7, R20.10)",
          _OTHER_CHOICE, unit_of_tile=True,
          on_board=True),
    _spec(Kind.SAVE, (_UNITS,), {_D.CARD}, H.card_choice, "R20.11",
          "a card saves units when the card being resolved asks for it (R20.7, R20.11)",
          _OTHER_CHOICE),
    _spec(Kind.DEPLOY, (_TILE, _UNITS), {_D.CARD}, H.card_choice, "R20.12",
          "a card deploys units when the card being resolved asks for it (R20.7, R20.12)",
          _OTHER_CHOICE),
    _spec(Kind.RELOCATE, (_TILE, _TILE2, _UNITS), {_D.CARD}, H.card_choice, "ZHO-5",
          "a card relocates units when the card being resolved asks for it (R20.7, ZHO-5)",
          _OTHER_CHOICE),
    _spec(Kind.EVADE, (_TILE,), {_D.CARD}, H.card_choice, "R20.9",
          "defenders evade when the card being resolved asks for it (R20.7, R20.9)",
          _OTHER_CHOICE),
    _spec(Kind.HARMONY, (_TILE, _TILE2, Slot("units", Form.UNITS, optional=True),
                         Slot("units2", Form.UNITS, optional=True)), {_D.CARD},
          H.card_choice, "KHA-2",
          "units are redistributed when the card being resolved asks for it (R20.7, KHA-2)",
          _OTHER_CHOICE),
    _spec(Kind.GIFT, (Slot("number", Form.SEAT), Slot("amount", Form.GOLD)), _ALL_DECISIONS,
          H.gift, "R23.11", "a gift goes to an ally, in team mode, at any decision (R23.11)",
          _GIFT_RULE, where=_GIFT_RULE, what=_GIFT_RULE),
    _spec(Kind.SPLIT, (Slot("shares", Form.SHARES),), {_D.SPLIT}, H.split, "R23.22",
          "a side's hits are shared among its players after the dice (R23.22)",
          ("R23.22", "no hits are to be shared"),
          what=("R23.22", "the shares must add up to the side's hits, none over a player's "
                          "units: {choices}")),
)}

DECISIONS: Final[Mapping[Decision, DecisionSpec]] = {spec.decision: spec for spec in (
    DecisionSpec(Decision.REALM, "R5.5", "choose a realm"),
    DecisionSpec(Decision.START_CARD, "R5.7", "choose a starting magic card"),
    DecisionSpec(Decision.CASTLE, "R5.8", "choose a free castle spot"),
    DecisionSpec(Decision.START_UNIT, "R5.9", "choose a starting basic unit"),
    DecisionSpec(Decision.EVENT, "R7.1", "resolve the event card"),
    DecisionSpec(Decision.SPAWN, "R8.1", "spawn a basic unit on a castle you control, or end"),
    DecisionSpec(Decision.ACTION, "R10.1", "move, swap, attack or pass"),
    DecisionSpec(Decision.MAGIC, "R16.5", "declare a magic card or none"),
    DecisionSpec(Decision.CASUALTY, "R16.22", "choose a unit that dies"),
    DecisionSpec(Decision.INVASION, "R17.6", "choose a unit that stays behind"),
    DecisionSpec(Decision.PURCHASE, "R11.1", "buy, upgrade, fortify, trade cards, or end"),
    DecisionSpec(Decision.REINFORCE, "R12.1", "move or swap one unit, or pass"),
    DecisionSpec(Decision.NONE, "R21.5", "nothing: the game is over"),
    DecisionSpec(Decision.CARD, "R20.7", "make the choice the magic card being resolved asks for"),
    DecisionSpec(Decision.SPLIT, "R23.22", "share the side's hits among its players"),
)}

# Derived tables.
HANDLERS: Final[Mapping[Kind, Handler]] = {kind: spec.handler for kind, spec in SPECS.items()}
ACCEPTS: Final[Mapping[Decision, frozenset[Kind]]] = {
    decision: frozenset(k for k, spec in SPECS.items() if decision in spec.decisions)
    for decision in Decision}
_KIND_BY_WORD: Final = {kind.value: kind for kind in SPECS}
assert set(SPECS) == set(Kind) and set(DECISIONS) == set(Decision)
assert all(slot.field in FIELD_NAMES for spec in SPECS.values() for slot in spec.slots)


def grammar() -> dict[str, Any]:
    """The text forms as data, for the browser: per kind its slots (the field each word fills,
    its form and whether it may be left out or be ``-``), how lists are written, and the
    kinds whose one unit stands on the board (``on_board``)."""
    return {
        "kinds": {kind.value: [{"field": s.field, "form": s.form.value, "optional": s.optional}
                               for s in spec.slots] for kind, spec in SPECS.items()},
        "list_separator": ",", "empty_list": "-", "share_separator": ":",
        "seat_separator": "/",
        "on_board": [kind.value for kind, spec in SPECS.items() if spec.on_board],
    }


# --- text ------------------------------------------------------------------------------


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


def _token(c: UnitCode, seat: int) -> str:
    """A unit's token; another player's unit (an ally's, R23.26) carries its seat: ``1/sword``.
    In ``kill`` ``seat`` is the first player on the named tile, so a free-for-all target needs
    no seat."""
    if owner_of(c) == seat:
        return unit_token(c)
    return f"{owner_of(c)}/{unit_token(c)}"


def unit_words(units: Sequence[UnitCode], seat: Seat) -> str:
    """Units as an action's text writes them for ``seat`` (``sword,1/archer+``)."""
    return ",".join(_token(c, seat) for c in units)


def format_action(action: Action, state: Position) -> str:
    """The canonical text of ``action``."""
    spec = SPECS[action.kind]
    names = state.world.names
    seat = state.pending.seat
    if spec.unit_of_tile and state.board[action.tile]:
        seat = owner_of(state.board[action.tile][0])
    words = [action.kind.value]
    for slot in spec.slots:
        value = getattr(action, slot.field)
        form = slot.form
        if form is Form.TILE:
            words.append(names[value])
        elif form is Form.UNIT:
            words.append(_token(value[0], seat))
        elif form is Form.UNITS:
            words.append(",".join(_token(c, seat) for c in value) or "-")
        elif form is Form.SHARES:
            words.append(",".join(f"{s}:{hits}" for s, hits in value))
        elif form is Form.SEAT or form is Form.GOLD:
            words.append(str(value))
        elif value or not slot.optional:  # a realm or a card; an optional one left out
            words.append(value)
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
    kind = _KIND_BY_WORD.get(words[0].lower())
    if kind is None:
        raise InvalidActionError(f"unknown action {words[0]!r} in {text!r}: expected one of "
                                 f"{', '.join(_KIND_BY_WORD)}")
    spec = SPECS[kind]
    slots = spec.slots
    required = [s for s in slots if not (s.optional and s.form in (Form.CARD, Form.REALM))]
    args = words[1:]
    if not len(required) <= len(args) <= len(slots):
        expected = " ".join(f"<{s.field}>" for s in slots)
        raise InvalidActionError(f"malformed action {text!r}: expected '{kind} {expected}'")
    seat = state.pending.seat
    realm = state.realm[seat] if seat >= 0 else -1
    if spec.unit_of_tile:  # the unit is an enemy's: the one on the named tile
        tile_word = args[[s.form for s in slots].index(Form.TILE)]
        units_there = state.board[state.world.index(tile_word)]
        if not units_there:
            raise InvalidActionError(f"malformed action {text!r}: {tile_word} is empty")
        seat = owner_of(units_there[0])
        realm = state.realm[seat]
    fields: dict[str, Any] = {}
    for slot, word in zip(slots, args, strict=False):
        fields[slot.field] = _parse_word(slot, word, text, seat, realm, state)
    return canonical(Action(kind, **fields))


def _parse_word(slot: Slot, word: str, text: str, seat: int, realm: int,
                state: Position) -> object:
    form = slot.form
    if form is Form.REALM:
        name = word.lower()
        if name not in REALM_INDEX:
            raise InvalidActionError(f"unknown realm {name!r}: choose one of "
                                     f"{', '.join(REALM_INDEX)}")
        return name
    if form is Form.CARD:
        return word.upper()
    if form is Form.TILE:
        return state.world.index(word)
    if form is Form.UNIT:
        return (_parse_token(word, seat, realm, state),)
    if form is Form.UNITS:
        if slot.optional and word == "-":
            return ()
        units = tuple(sorted(_parse_token(w, seat, realm, state) for w in word.split(",") if w))
        if not units:
            raise InvalidActionError(f"malformed action {text!r}: empty unit list")
        return units
    if form is Form.SEAT:
        if not _is_number(word):
            raise InvalidActionError(f"malformed action {text!r}: {word!r} is not a seat")
        return int(word)
    if form is Form.GOLD:
        if not _is_number(word) or int(word) < 1:
            raise InvalidActionError(f"malformed action {text!r}: {word!r} is not an amount "
                                     "of gold")
        return int(word)
    parts = [p.split(":") for p in word.split(",")]  # Form.SHARES
    if not all(len(p) == 2 and _is_number(p[0]) and _is_number(p[1]) for p in parts):
        raise InvalidActionError(f"malformed action {text!r}: expected "
                                 "'split <seat>:<hits>,...'")
    return tuple((int(a), int(b)) for a, b in parts)


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
