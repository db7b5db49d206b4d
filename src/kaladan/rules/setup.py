"""Setup as decisions (section 5) and ``new_game``."""

from __future__ import annotations

from typing import Final

from . import flow, magic
from .catalog import EVENT_CARDS
from .chance import Chance
from .config import Config
from .errors import ConfigError
from .events import END_GAME_CARD_OF_OPTION
from .gamelog import (
    CastlePlaced,
    GoldChanged,
    RealmNamed,
    RealmRollOff,
    RealmTaken,
    Sink,
    StartingCardTaken,
    StartingUnitPlaced,
    TurnOrderRolled,
)
from .ops import place_from_reserve
from .state import Decision, GameState, Pending
from .units import (
    BASIC_TYPES,
    CROWN,
    GENERAL,
    KIT_COUNT,
    REALM_INDEX,
    REALMS,
    SPECIAL,
    Seat,
    code,
)
from .world import World, custom_world, random_terrain_world, standard_world

# R5.10: the event deck before it is shuffled, every copy of each card.
_EVENT_DECK: Final = tuple(info.id for info in EVENT_CARDS for _ in range(info.count))


def build_world(config: Config, chance: Chance) -> World:
    """R5.4 with the world option (R4.9, R4.13, R4.14)."""
    if config.world == "standard":
        return standard_world(config.players)
    if config.world == "random_terrain":
        return random_terrain_world(config.players, chance.below)
    if config.layout is None:
        raise ConfigError("world=custom needs a layout", "R4.14")
    return custom_world(config.layout, config.players)


def new_game(config: Config, seed: int, sink: Sink | None = None) -> GameState:
    """A new game at its first setup decision. Chance used here is in ``state.chance.log``;
    ``sink`` receives the log entries of what happened (``gamelog``)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ConfigError(f"seed must be a non-negative whole number, not {seed!r}")
    chance = Chance(seed)
    world = build_world(config, chance)
    n = config.players
    s = GameState.start(config, world, chance)
    s.scratch.sink = sink
    # R5.3: everyone rolls; only those tied for highest roll again.
    sides = 12 if config.turn_order_die == "d12" else 10
    contenders = list(range(n))
    rounds: list[tuple[tuple[Seat, int], ...]] = []
    while len(contenders) > 1:
        rolls = [chance.roll(sides) for _ in contenders]
        s.turn_rolls.append(rolls)
        rounds.append(tuple(zip(contenders, rolls, strict=True)))
        best = max(rolls)
        contenders = [p for p, r in zip(contenders, rolls, strict=True) if r == best]
    s.first = contenders[0]
    if sink is not None:
        sink.append(TurnOrderRolled(tuple(rounds), sides, s.first))
    s.active = s.first
    s.deck, s.end_card = _build_deck(config, chance)
    if config.quick_setup:
        _quick_setup(s)
    else:
        _ask(s, Decision.REALM, _turn_order(s))
    s.scratch.sink = None
    return s


def _build_deck(config: Config, chance: Chance) -> tuple[list[str], str | None]:
    """R5.10: 36 cards shuffled; the end-game card shuffled into the bottom 8.

    The list's last element is the top of the deck.
    """
    deck = list(_EVENT_DECK)
    chance.shuffle(deck)
    option = config.end_game_card
    if option == "none":
        return deck, None
    if option == "random":
        card = ("EG1", "EG2", "EG3", "EG4")[chance.below(4)]
    else:
        card = END_GAME_CARD_OF_OPTION[option]
    bottom = deck[:8] + [card]
    chance.shuffle(bottom)
    return bottom + deck[8:], card


def _turn_order(state: GameState) -> list[Seat]:
    return [(state.first + k) % state.n for k in range(state.n)]


def _quick_setup(state: GameState) -> None:
    """Config.quick_setup: realms, cards, spots and start units assigned at random."""
    realms = list(REALMS)
    state.chance.shuffle(realms)
    for seat in range(state.n):
        _take_realm(state, seat, REALM_INDEX[realms[seat]])
    for seat in _turn_order(state):
        cards = magic.realm_cards(state.realm[seat])
        _take_start_card(state, seat, cards[state.chance.below(5)], drawn=True)
    spots = list(state.world.castle_spots)
    for seat in reversed(_turn_order(state)):
        _place_castle(state, seat, spots.pop(state.chance.below(len(spots))))
    for seat in _turn_order(state):
        _place_start_unit(state, seat, code(seat, state.realm[seat], BASIC_TYPES[0]))
    _begin_play(state)


def _take_realm(state: GameState, seat: Seat, realm: int) -> None:
    """R5.5-R5.6: the realm and its kit; the kit starts in the reserve."""
    state.realm[seat] = realm
    state.seat_of_realm[realm] = seat
    state.reserve[seat] = list(KIT_COUNT)
    state.reserve[seat][SPECIAL] = 0
    state.reserve_specials[seat] = [realm]
    state.pool[seat] = magic.realm_cards(realm)
    if state.sink is not None:
        state.sink.append(RealmTaken(seat, REALMS[realm]))


def _take_start_card(state: GameState, seat: Seat, card: str, drawn: bool = False) -> None:
    state.pool[seat].remove(card)  # R5.7
    state.hand[seat].append(card)
    if state.sink is not None:  # secret: only the team sees which (R5.7, R23.5)
        state.sink.append(StartingCardTaken(seat, state.team[seat], card, drawn))


def _place_castle(state: GameState, seat: Seat, tile: int) -> None:
    """R5.8-R5.9 (first part): the Crown, the special unit and the General go on it."""
    state.home[seat] = tile
    realm = state.realm[seat]
    for utype in (CROWN, GENERAL):
        state.reserve[seat][utype] -= 1
    state.reserve_specials[seat].remove(realm)
    units = (code(seat, realm, CROWN), code(seat, realm, GENERAL), code(seat, realm, SPECIAL))
    state.board[tile] = tuple(sorted(state.board[tile] + units))
    state.scratch.mine_cache[seat] = None
    if state.sink is not None:
        state.sink.append(CastlePlaced(seat, state.world.names[tile], units))


def _place_start_unit(state: GameState, seat: Seat, c: int) -> None:
    place_from_reserve(state, seat, c, state.home[seat])
    if state.sink is not None:
        state.sink.append(StartingUnitPlaced(seat, c, state.world.names[state.home[seat]]))


def _begin_play(state: GameState) -> None:
    """R5.11 starting gold by turn position; R5.14 the first player begins."""
    for seat in range(state.n):
        state.gold[seat] = state.turn_position(seat)
        if state.sink is not None and state.gold[seat]:
            state.sink.append(GoldChanged(seat, state.gold[seat], state.gold[seat], "start"))
    state.setup_queue = []
    flow.start_turn(state, state.first)


def apply_setup(state: GameState, kind: Decision, seat: Seat, value: int | str) -> None:
    """Apply one setup decision and move on to the next one."""
    if kind == Decision.REALM:
        assert isinstance(value, str)
        if state.config.realm_conflict == "roll_off":
            state.setup_named[seat] = REALM_INDEX[value]
            if state.sink is not None:
                state.sink.append(RealmNamed(seat, value))
            state.setup_queue.pop(0)
            if not state.setup_queue:
                _resolve_roll_off(state)
            return _ask_next(state, Decision.REALM)
        _take_realm(state, seat, REALM_INDEX[value])
    elif kind == Decision.START_CARD:
        assert isinstance(value, str)
        _take_start_card(state, seat, value)
    elif kind == Decision.CASTLE:
        assert isinstance(value, int)
        _place_castle(state, seat, value)
    elif kind == Decision.START_UNIT:
        assert isinstance(value, int)
        _place_start_unit(state, seat, value)
    state.setup_queue.pop(0)
    _ask_next(state, kind)


def _resolve_roll_off(state: GameState) -> None:
    """R5.5 roll_off: realms named by several players go to the highest D12 roll."""
    named: dict[int, list[Seat]] = {}
    for seat in _turn_order(state):
        realm = state.setup_named[seat]
        if realm >= 0 and state.realm[seat] < 0:
            named.setdefault(realm, []).append(seat)
    for realm in sorted(named):
        contenders = named[realm]
        rounds: list[tuple[tuple[Seat, int], ...]] = []
        while len(contenders) > 1:
            rolls = [state.chance.roll(12) for _ in contenders]
            rounds.append(tuple(zip(contenders, rolls, strict=True)))
            best = max(rolls)
            contenders = [p for p, r in zip(contenders, rolls, strict=True) if r == best]
        if rounds and state.sink is not None:
            state.sink.append(RealmRollOff(REALMS[realm], tuple(rounds), contenders[0]))
        _take_realm(state, contenders[0], realm)
    state.setup_named = [-1] * state.n
    state.setup_queue = [p for p in _turn_order(state) if state.realm[p] < 0]


def _ask(state: GameState, kind: Decision, queue: list[Seat] | None = None) -> None:
    """Every setup decision is handed out here: ``kind`` to the first seat of the queue (a new
    queue when given)."""
    if queue is not None:
        state.setup_queue = queue
    state.pending = Pending(kind, state.setup_queue[0])


def _ask_next(state: GameState, kind: Decision) -> None:
    if state.setup_queue:
        return _ask(state, kind)
    order = _turn_order(state)
    if kind == Decision.REALM:
        if state.config.starting_magic == "random":
            for seat in order:
                cards = state.pool[seat]
                _take_start_card(state, seat, cards[state.chance.below(len(cards))], drawn=True)
            return _ask(state, Decision.CASTLE, list(reversed(order)))  # R5.8
        _ask(state, Decision.START_CARD, order)
    elif kind == Decision.START_CARD:
        _ask(state, Decision.CASTLE, list(reversed(order)))  # R5.8
    elif kind == Decision.CASTLE:
        _ask(state, Decision.START_UNIT, order)
    else:
        _begin_play(state)
