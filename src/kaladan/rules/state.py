"""GameState and its parts.

The state is a mutable value with ``copy()``: ``apply`` works on it in place (the fast path
for search) and the checked ``apply`` validates before it touches anything, so a rejected
action changes nothing. The world (map, adjacency, distances) is immutable and shared by all
copies. Who must decide next is the single ``pending`` field (STYLE principle 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING, Final, final

from .chance import Chance
from .config import Config, seat_teams
from .native import mypyc_attr
from .units import BASIC_TYPES, OWNER_SHIFT, REALMS, Seat, UnitCode, type_of
from .world import World

if TYPE_CHECKING:
    from .actions import Action
    from .gamelog import Entry
    from .tiles import TileInfo


class Phase(IntEnum):
    SETUP = 0
    EVENT = 1
    SPAWN = 2
    INCOME = 3
    ACTION = 4
    PURCHASE = 5
    REINFORCE = 6
    OVER = 7

    @property
    def label(self) -> str:
        return self.name.lower()


# The phases of a turn in each phase order of R6.2.
PHASE_ORDERS: Final = {
    "seeds": (Phase.EVENT, Phase.SPAWN, Phase.INCOME, Phase.ACTION, Phase.PURCHASE,
              Phase.REINFORCE),
    "official": (Phase.EVENT, Phase.INCOME, Phase.SPAWN, Phase.ACTION, Phase.PURCHASE,
                 Phase.REINFORCE),
}  # R6.2
assert all(order[0] is Phase.EVENT and order[3:] == (Phase.ACTION, Phase.PURCHASE,
                                                      Phase.REINFORCE)
           for order in PHASE_ORDERS.values())  # what GameState.early_phases and flow rely on


class Decision(IntEnum):
    """Kinds of pending decision. Each is owned by exactly one seat."""

    REALM = 0  # R5.5 choose a realm (or name one, roll_off variant)
    START_CARD = 1  # R5.7
    CASTLE = 2  # R5.8
    START_UNIT = 3  # R5.9
    EVENT = 4  # section 7: a player's part of an event card
    SPAWN = 5  # R8.1
    ACTION = 6  # R10.1
    MAGIC = 7  # R16.5 / R16.26 a side's magic declaration
    CASUALTY = 8  # R16.22 choose one unit that dies
    INVASION = 9  # R17.6 choose one unit that stays behind
    PURCHASE = 10  # R11.1
    REINFORCE = 11  # R12.1
    NONE = 12  # the game is over
    CARD = 13  # a choice a magic card's effect asks of its holder (section 26)
    SPLIT = 14  # R23.22: a side leader shares the side's hits among allies

    @property
    def label(self) -> str:
        return self.name.lower()


@final
@mypyc_attr(acyclic=True, free_list_len=1)
class Pending:
    """Who must decide what next. A new value is made for every decision handed out (the
    legal-action cache is keyed by the very object); equal when kind and seat are."""

    __slots__ = ("kind", "seat")

    kind: Decision
    seat: Seat

    def __init__(self, kind: Decision, seat: Seat) -> None:
        self.kind = kind
        self.seat = seat

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pending):
            return NotImplemented
        return self.kind == other.kind and self.seat == other.seat

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Pending):
            return NotImplemented
        return not self == other

    def __hash__(self) -> int:
        return hash((self.kind, self.seat))

    def __reduce__(self) -> tuple[object, ...]:
        return Pending, (self.kind, self.seat)

    def __repr__(self) -> str:
        return f"Pending({self.kind!r}, {self.seat})"


NO_DECISION: Final = Pending(Decision.NONE, -1)


@mypyc_attr(acyclic=True, free_list_len=1)
@dataclass(slots=True, init=False)
class EventContext:
    """The event card being resolved (R7.4): who still has to resolve it."""

    card: str
    queue: list[Seat]
    # Richest / Strongest players fixed when the card is revealed (R7.13).
    marked: list[Seat]
    # EV15: the player currently resolving rolled a 1 and must lose a basic unit.
    must_lose: bool

    def __init__(self, card: str, queue: list[Seat], marked: list[Seat] | None = None,
                 must_lose: bool = False) -> None:
        self.card = card
        self.queue = queue
        self.marked = [] if marked is None else marked
        self.must_lose = must_lose

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt through __init__: a compiled class written out has no default way to be
        # unpickled (the server's bot workers receive pickled states).
        return type(self), tuple([getattr(self, f.name) for f in fields(self)])

    def copy(self) -> EventContext:
        return EventContext(self.card, self.queue[:], self.marked[:], self.must_lose)


class BattleStep(StrEnum):
    """Where a battle in progress is (section 16); the value is its name in positions."""

    DECLARE = "declare"  # step B: the sides declare magic cards face down (R16.5)
    W1 = "w1"  # step C: revealed W1 effects resolve (R16.11)
    EVADE = "evade"  # step C: a defender's evasion card resolves first (R16.10, R20.9)
    CASUALTIES = "casualties"  # steps E-F: dice rolled, hits split and casualties chosen
    W3 = "w3"  # step F: the after-battle window (R16.26)
    INVADE = "invade"  # step G: who stays behind on A (R17.6)


@mypyc_attr(acyclic=True, free_list_len=1)
@dataclass(slots=True, init=False)
class Battle:
    """A battle in progress (section 16). Its ``__init__`` is written out: the one a
    dataclass generates is interpreted even in the compiled engine (20 times the
    instructions, made at every attack and at every copy of a state in a battle)."""

    attacker: Seat
    defender: Seat
    a_tile: int
    d_tile: int
    step: BattleStep
    magic_queue: list[Seat]  # sides still to declare
    cards: dict[Seat, str]  # selected / played card per side
    used_card: dict[Seat, bool]
    ranged: bool  # LAU-1 Volley from Afar: only the attacker's Archers attack
    sneak: bool  # ZHO-4 Ambush from the Shadows
    shift: dict[Seat, int]  # net die-size shift (R20.13)
    # Unit types that roll one D12 instead, and types whose every die is a D12.
    d12_one: dict[Seat, tuple[int, ...]]
    d12_all: dict[Seat, tuple[int, ...]]
    effect_queue: list[Seat]  # revealed W1 cards to resolve
    choosing: str  # the card whose holder is making a choice (Decision.CARD)
    attack_units: tuple[UnitCode, ...]  # the attacking side at step D (R16.13)
    team: tuple[int, ...]  # team of each seat (the state's), for side membership
    holders: dict[Seat, Seat]  # side leader -> card's holder
    split_queue: list[Seat]  # side leaders still to split
    participants: tuple[Seat, ...]  # players with units on A or D at declaration (R20.2)
    attack_dice: list[int]  # die sizes, then rolled values
    defence_dice: list[int]
    attack_rolls: list[int]
    defence_rolls: list[int]
    hits: dict[Seat, int]  # casualties still to choose per seat
    casualty_queue: list[Seat]
    # Killed units set aside until step G (R16.25): (unit, tile, seat credited with the kill).
    set_aside: list[tuple[UnitCode, int, Seat]]
    invade_left: int  # units still to leave behind on A (R17.6)
    staying: list[UnitCode]  # chosen to stay on A

    def __init__(
        self, attacker: Seat, defender: Seat, a_tile: int, d_tile: int,
        step: BattleStep = BattleStep.DECLARE, magic_queue: list[Seat] | None = None,
        cards: dict[Seat, str] | None = None, used_card: dict[Seat, bool] | None = None,
        ranged: bool = False, sneak: bool = False, shift: dict[Seat, int] | None = None,
        d12_one: dict[Seat, tuple[int, ...]] | None = None,
        d12_all: dict[Seat, tuple[int, ...]] | None = None,
        effect_queue: list[Seat] | None = None, choosing: str = "",
        attack_units: tuple[UnitCode, ...] = (), team: tuple[int, ...] = (),
        holders: dict[Seat, Seat] | None = None, split_queue: list[Seat] | None = None,
        participants: tuple[Seat, ...] = (), attack_dice: list[int] | None = None,
        defence_dice: list[int] | None = None, attack_rolls: list[int] | None = None,
        defence_rolls: list[int] | None = None, hits: dict[Seat, int] | None = None,
        casualty_queue: list[Seat] | None = None,
        set_aside: list[tuple[UnitCode, int, Seat]] | None = None, invade_left: int = 0,
        staying: list[UnitCode] | None = None,
    ) -> None:
        self.attacker = attacker
        self.defender = defender
        self.a_tile = a_tile
        self.d_tile = d_tile
        self.step = step
        self.magic_queue = [] if magic_queue is None else magic_queue
        self.cards = {} if cards is None else cards
        self.used_card = {} if used_card is None else used_card
        self.ranged = ranged
        self.sneak = sneak
        self.shift = {} if shift is None else shift
        self.d12_one = {} if d12_one is None else d12_one
        self.d12_all = {} if d12_all is None else d12_all
        self.effect_queue = [] if effect_queue is None else effect_queue
        self.choosing = choosing
        self.attack_units = attack_units
        self.team = team
        self.holders = {} if holders is None else holders
        self.split_queue = [] if split_queue is None else split_queue
        self.participants = participants
        self.attack_dice = [] if attack_dice is None else attack_dice
        self.defence_dice = [] if defence_dice is None else defence_dice
        self.attack_rolls = [] if attack_rolls is None else attack_rolls
        self.defence_rolls = [] if defence_rolls is None else defence_rolls
        self.hits = {} if hits is None else hits
        self.casualty_queue = [] if casualty_queue is None else casualty_queue
        self.set_aside = [] if set_aside is None else set_aside
        self.invade_left = invade_left
        self.staying = [] if staying is None else staying

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt through __init__: a compiled class written out has no default way to be
        # unpickled (the server's bot workers receive pickled states).
        return type(self), tuple([getattr(self, f.name) for f in fields(self)])

    def copy(self) -> Battle:
        return Battle(
            self.attacker, self.defender, self.a_tile, self.d_tile, self.step,
            self.magic_queue[:], dict(self.cards), dict(self.used_card), self.ranged, self.sneak,
            dict(self.shift), dict(self.d12_one), dict(self.d12_all), self.effect_queue[:],
            self.choosing, self.attack_units, self.team, dict(self.holders),
            self.split_queue[:], self.participants, self.attack_dice[:],
            self.defence_dice[:],
            self.attack_rolls[:], self.defence_rolls[:], dict(self.hits),
            self.casualty_queue[:], self.set_aside[:], self.invade_left, self.staying[:],
        )


@dataclass(slots=True)
class Result:
    """How the game ended (section 21) and the final scores (section 22)."""

    end: str  # last_crown | final_round | draw
    winner: Seat | None
    scores: list[int | None]
    tie_break: list[list[int]] = field(default_factory=list)  # dice sums per re-roll (R22.4)
    team: int | None = None  # team mode: the winning team (0 or 1); winner is then None

    def copy(self) -> Result:
        return Result(self.end, self.winner, self.scores[:], [r[:] for r in self.tie_break],
                      self.team)


@final
class Scratch:
    """What a state remembers to go faster, and where the decision being applied reports what
    happened: none of it is a fact of the game (``GameState.FACTS``), so none of it is
    compared, pickled or written in a position."""

    __slots__ = ("legal_for", "legal_list", "mine_cache", "tile_infos", "sink")

    def __init__(self, n: int, tile_infos: list[TileInfo | None]) -> None:
        # The legal actions of the pending decision when the engine already computed them
        # while deciding whether to ask at all: ``legal_list`` holds them while
        # ``legal_for`` is the very Pending object (two fields, not a pair: no tuple made at
        # every decision). Cleared by every apply and by ``invalidate``; never copied.
        self.legal_for: Pending | None = None
        self.legal_list: Sequence[Action] = ()
        # Per seat, the tiles it controls; None when not known. Every change of a tile's
        # units goes through ``ops``, which forgets the entry of the seat concerned.
        self.mine_cache: list[list[int] | None] = [None] * n
        # Per tile, the ``tiles.TileInfo`` of the units last looked up there (``info.units``):
        # valid while the board still holds that very tuple (tiles are replaced, never
        # changed in place), so it needs no invalidation and is shared by every copy of the
        # state (``legal.tile_info_at``).
        self.tile_infos = tile_infos
        # Where the decision being applied reports what happened (``gamelog``): the caller's
        # list during ``apply``/``new_game`` with a sink, None otherwise (and in every copy).
        self.sink: list[Entry] | None = None

    def copy(self) -> Scratch:
        out = Scratch(0, self.tile_infos)
        out.mine_cache = self.mine_cache[:]
        return out


class GameState:
    """Complete state of one game, hidden parts included.

    Its fields are declared once, below, in three parts: the game's facts (``FACTS``, in
    declaration order: what ``copy``, pickling and positions carry, ``notation.py`` says how
    each is written), what ``take_config`` derives from the config (``DERIVED``), and the
    ``scratch`` (caches and the log sink). ``GameState.start`` makes a game's facts at their
    starting values; ``GameState()`` is an empty shell that they are then written into.
    """

    # --- the game's facts --------------------------------------------------------------
    config: Config
    world: World
    n: int
    chance: Chance
    first: Seat
    turn_rolls: list[list[int]]
    realm: list[int]
    seat_of_realm: list[int]
    gold: list[int]
    reserve: list[list[int]]
    reserve_specials: list[list[int]]
    board: list[tuple[UnitCode, ...]]  # per tile, sorted; replaced, never changed in place
    fortified: list[bool]
    graveyard: list[list[UnitCode]]
    trophies: list[list[UnitCode]]
    removed: list[UnitCode]
    hand: list[list[str]]
    pool: list[list[str]]
    spent: list[str]
    buyable: list[list[str]]
    eliminated: list[bool]
    home: list[int]
    deck: list[str]
    discard: list[str]
    end_card: str | None
    phase: Phase
    pending: Pending
    active: Seat
    slot: int
    turn: int
    final_slot: int
    oracles: bool
    scales: bool
    # EG4: the slot of the turn in which The Gilded Silence was drawn (-1: not drawn); no
    # gold is gained during the final round (R9.4, section 25).
    gilded_slot: int
    six_gates: bool
    # R18.4: per seat, the realms of special units received this turn from an eliminated
    # player; they can be placed from the seat's next turn on.
    specials_waiting: list[tuple[int, ...]]  # replaced, never changed in place
    event: EventContext | None
    spawn_left: list[int]
    purchase_empty: int
    battle: Battle | None
    setup_queue: list[Seat]
    setup_named: list[int]
    result: Result | None
    decisions: int
    last_event: str | None
    # --- derived from the config (``take_config``): read at every turn -----------------
    # Facts of the config kept as native fields (the config is a Python object to the
    # compiled engine: reading it, and hashing its enums, was 1.7% of the compiled engine's
    # instructions, callgrind). Team of each seat: the seat itself in free-for-all, seat % 2
    # in team mode (seating alternates, R23.2); tiles are friendly or enemy by team (R23.9).
    team: tuple[int, ...]
    teams: bool
    # The second and third phases of the turn in the phase order (R6.2), and whether magic
    # cards are chosen rather than drawn (R11.13).
    early_phases: tuple[Phase, Phase]
    choose_magic: bool
    # --- no fact: caches and the log sink ----------------------------------------------
    scratch: Scratch
    # The slots are the declaration's: assigning anything else is an AttributeError, in
    # pure Python as when compiled.
    __slots__ = tuple(__annotations__)  # noqa: PLE0237

    @staticmethod
    def start(config: Config, world: World, chance: Chance) -> GameState:
        """A game's facts at their starting values, before setup (section 5): nothing
        chosen, rolled, placed or dealt yet."""
        n = config.players
        s = GameState()
        s.config = config
        s.world = world
        s.n = n
        s.chance = chance
        s.first = 0
        s.turn_rolls = []
        s.realm = [-1] * n
        s.seat_of_realm = [-1] * len(REALMS)
        s.gold = [0] * n
        s.reserve = [[0] * 7 for _ in range(n)]
        s.reserve_specials = [[] for _ in range(n)]
        s.board = [() for _ in world.coords]
        s.fortified = [False] * len(world.coords)
        s.graveyard = [[] for _ in range(n)]
        s.trophies = [[] for _ in range(n)]
        s.removed = []
        s.hand = [[] for _ in range(n)]
        s.pool = [[] for _ in range(n)]
        s.spent = []
        s.buyable = [[] for _ in range(n)]
        s.eliminated = [False] * n
        s.home = [-1] * n
        s.deck = []
        s.discard = []
        s.end_card = None
        s.phase = Phase.SETUP
        s.pending = NO_DECISION
        s.active = 0
        s.slot = 0
        s.turn = 0
        s.final_slot = -1
        s.oracles = False
        s.scales = False
        s.gilded_slot = -1
        s.six_gates = False
        s.specials_waiting = [() for _ in range(n)]
        s.event = None
        s.spawn_left = []
        s.purchase_empty = -1
        s.battle = None
        s.setup_queue = []
        s.setup_named = [-1] * n
        s.result = None
        s.decisions = 0
        s.last_event = None
        s.take_config(config, n)
        s.scratch = Scratch(n, [None] * len(world.coords))
        return s

    def copy(self) -> GameState:
        """A deep copy sharing only immutable parts (config, world). Written out field by
        field, in ``FACTS`` order (a state is copied at every step of a search; a loop over
        the declaration by name costs three times as much); tests/rules/test_state_fields.py
        checks that every fact is copied and none is shared."""
        s = GameState()
        s.config = self.config
        s.world = self.world
        s.n = self.n
        s.chance = self.chance.copy()
        s.first = self.first
        s.turn_rolls = [r[:] for r in self.turn_rolls]
        s.realm = self.realm[:]
        s.seat_of_realm = self.seat_of_realm[:]
        s.gold = self.gold[:]
        s.reserve = [r[:] for r in self.reserve]
        s.reserve_specials = [r[:] for r in self.reserve_specials]
        s.board = self.board[:]
        s.fortified = self.fortified[:]
        s.graveyard = [g[:] for g in self.graveyard]
        s.trophies = [t[:] for t in self.trophies]
        s.removed = self.removed[:]
        s.hand = [h[:] for h in self.hand]
        s.pool = [p[:] for p in self.pool]
        s.spent = self.spent[:]
        s.buyable = [b[:] for b in self.buyable]
        s.eliminated = self.eliminated[:]
        s.home = self.home[:]
        s.deck = self.deck[:]
        s.discard = self.discard[:]
        s.end_card = self.end_card
        s.phase = self.phase
        s.pending = self.pending
        s.active = self.active
        s.slot = self.slot
        s.turn = self.turn
        s.final_slot = self.final_slot
        s.oracles = self.oracles
        s.scales = self.scales
        s.gilded_slot = self.gilded_slot
        s.six_gates = self.six_gates
        s.specials_waiting = self.specials_waiting[:]
        s.event = self.event.copy() if self.event is not None else None
        s.spawn_left = self.spawn_left[:]
        s.purchase_empty = self.purchase_empty
        s.battle = self.battle.copy() if self.battle is not None else None
        s.setup_queue = self.setup_queue[:]
        s.setup_named = self.setup_named[:]
        s.result = self.result.copy() if self.result is not None else None
        s.decisions = self.decisions
        s.last_event = self.last_event
        s.team = self.team
        s.teams = self.teams
        s.early_phases = self.early_phases
        s.choose_magic = self.choose_magic
        s.scratch = self.scratch.copy()
        return s

    @property
    def sink(self) -> list[Entry] | None:
        """Where the decision being applied reports what happened (``scratch.sink``)."""
        return self.scratch.sink

    @sink.setter
    def sink(self, sink: list[Entry] | None) -> None:
        self.scratch.sink = sink

    def take_config(self, config: Config, n: int) -> None:
        """Set ``config`` and ``n`` (its players) and the fields derived from them
        (``DERIVED``)."""
        self.config = config
        self.n = n
        teams = seat_teams(config.mode, n)  # R23.2
        self.teams = teams is not None
        self.team = tuple(range(n)) if teams is None else teams
        order = PHASE_ORDERS[config.phase_order]
        self.early_phases = (order[1], order[2])
        self.choose_magic = config.starting_magic == "choose"

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled by its facts (the server's bot workers receive states; a compiled class
        cannot pickle the lazily built legal actions of the scratch)."""
        return _unpickle_state, ({name: getattr(self, name) for name in FACTS},)

    def invalidate(self) -> None:
        """Forget cached legal actions and tiles: call after editing a state by hand."""
        self.scratch.legal_for = None
        self.scratch.legal_list = ()
        self.scratch.mine_cache = [None] * self.n

    # --- queries used everywhere -------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    def tile_owner(self, tile: int) -> Seat:
        """A player on ``tile`` (free-for-all: the only one, R4.7), or -1 if empty."""
        units = self.board[tile]
        return units[0] >> OWNER_SHIFT if units else -1

    def tile_team(self, tile: int) -> int:
        """The team on ``tile`` (never two, R4.7, R23.8), or -1 if empty."""
        units = self.board[tile]
        return self.team[units[0] >> OWNER_SHIFT] if units else -1

    def occupies(self, seat: Seat, tile: int) -> bool:
        """R1.9: at least one unit of ``seat`` stands on ``tile``."""
        return any(c >> OWNER_SHIFT == seat for c in self.board[tile])

    def own_units(self, seat: Seat, tile: int) -> tuple[UnitCode, ...]:
        """The units of ``seat`` on ``tile``, in canonical order (allies may share it)."""
        units = self.board[tile]
        if not self.teams:
            return units if units and units[0] >> OWNER_SHIFT == seat else ()
        if units and units[0] >> OWNER_SHIFT == seat and units[-1] >> OWNER_SHIFT == seat:
            return units  # codes sort by owner first: all of them are the seat's
        return tuple(c for c in units if c >> OWNER_SHIFT == seat)

    def allies(self, seat: Seat) -> list[Seat]:
        """The other players of ``seat``'s team (none in free-for-all)."""
        return [p for p in range(self.n) if p != seat and self.team[p] == self.team[seat]]

    def placeable_specials(self, seat: Seat) -> list[int]:
        """The realms of the special units in ``seat``'s reserve it may place now: not those
        received this turn from an eliminated player (R18.4)."""
        waiting = self.specials_waiting[seat]
        if not waiting:
            return self.reserve_specials[seat]
        return [r for r in self.reserve_specials[seat] if r not in waiting]

    def room(self, tile: int) -> int:
        return self.world.capacity[tile] - len(self.board[tile])

    def controlled(self, seat: Seat) -> list[int]:
        """Tiles ``seat`` occupies (R1.9, R1.10), in tile order. Do not modify the list."""
        cache = self.scratch.mine_cache
        mine = cache[seat]
        if mine is None:
            if self.teams:  # R23.9: a tile you occupy, maybe with allies
                mine = [t for t, units in enumerate(self.board)
                        if any(c >> OWNER_SHIFT == seat for c in units)]
            else:
                mine = [t for t, units in enumerate(self.board)
                        if units and units[0] >> OWNER_SHIFT == seat]
            cache[seat] = mine
        return mine

    def friendly(self, seat: Seat) -> list[int]:
        """Tiles with a unit of ``seat``'s team (R23.9); in free-for-all the tiles it controls."""
        if not self.teams:
            return self.controlled(seat)
        team = self.team
        mine = team[seat]
        return [t for t, units in enumerate(self.board)
                if units and team[units[0] >> OWNER_SHIFT] == mine]

    def units_on_board(self, seat: Seat) -> int:
        """Units of ``seat`` on the board (R7.13: only the player's own, R23.13)."""
        if not self.teams:
            return sum(len(units) for units in self.board
                       if units and units[0] >> OWNER_SHIFT == seat)
        return sum(1 for units in self.board for c in units if c >> OWNER_SHIFT == seat)

    def basic_units_on_board(self, seat: Seat) -> list[tuple[int, UnitCode]]:
        """(tile, unit) for every basic unit of ``seat`` on the board, canonical order."""
        out = []
        for t, units in enumerate(self.board):
            for c in units:
                if c >> OWNER_SHIFT == seat and type_of(c) in BASIC_TYPES:
                    out.append((t, c))
        return out

    def alive(self) -> list[Seat]:
        return [p for p in range(self.n) if not self.eliminated[p]]

    def turn_position(self, seat: Seat) -> int:
        """0 for the first player, 1 for the second, ... (R5.11)."""
        return (seat - self.first) % self.n


def declared_fields(cls: type) -> tuple[str, ...]:
    """The attributes a class declares, in order: a compiled class lists them in
    ``__mypyc_attrs__``, a Python one in its annotations."""
    compiled = getattr(cls, "__mypyc_attrs__", None)
    if compiled is not None:
        return tuple(name for name in compiled if not name.startswith("__"))
    return tuple(cls.__annotations__)


# What ``take_config`` derives from the config, and the one field that is no fact.
DERIVED: Final = ("team", "teams", "early_phases", "choose_magic")
_SCRATCH: Final = "scratch"
# The game's facts, in declaration order: every declared field but those.
FACTS: Final = tuple(name for name in declared_fields(GameState)
                     if name not in DERIVED and name != _SCRATCH)


def _unpickle_state(values: dict[str, object]) -> GameState:
    state = GameState()
    for name, value in values.items():
        setattr(state, name, value)
    state.take_config(state.config, state.n)
    state.scratch = Scratch(state.n, [None] * len(state.board))
    return state
