"""observe(state, seat): what one seat may know (R5.13).

Public: the board, reserves, graveyards, trophies, gold, the number of cards in every hand
and realm pool, the event discard pile and the number of cards left in the deck. Private to
the seat: its own hand and realm pool, and the eliminated players' cards it may buy (R18.6).
Never included: other seats' hands and pools, the deck order, the end-game card's position.
A card selected face down in a battle shows only as "committed" until both sides reveal.
A spectator (``seat=None``) sees the public part only: no hand, realm pool or buyable card.
"""

from __future__ import annotations

from typing import Any, Final, NotRequired, TypedDict

from .ops import gold_frozen
from .state import BattleStep, Decision, GameState, Phase
from .units import REALMS, SPECIAL, UnitType, unit_ref


class ReserveView(TypedDict):
    units: dict[str, int]  # basic units, General and Catapult by type label, when any
    specials: list[str]  # the realms of the special units held
    specials_waiting: list[str]  # R18.4: received this turn, placeable from the next


class PlayerView(TypedDict):
    """One player as a seat sees them; ``hand``, ``pool`` and ``buyable`` only for the seat
    itself and its allies (R5.13, R23.5)."""

    seat: int
    realm: str | None
    turn_position: int  # R5.11: 0 for the first player
    gold: int
    reserve: ReserveView
    graveyard: list[str]  # units as "seat/unit"
    trophies: list[str]
    hand_count: int
    pool_count: int
    buyable_count: int
    eliminated: bool
    home: str | None  # the home castle's tile name
    named: str | None  # R5.5 roll_off: the realm named this round
    hand: NotRequired[list[str]]
    pool: NotRequired[list[str]]
    buyable: NotRequired[list[str]]


class PendingView(TypedDict):
    kind: str  # a Decision's label: "action", "purchase", ...
    seat: int


class WorldView(TypedDict):
    """``World.to_json()`` and the capacity of every tile by name (R4.5)."""

    kind: str
    terrain: list[dict[str, Any]]
    castle_spots: list[dict[str, Any]]
    capacity: dict[str, int]


class EventView(TypedDict):
    card: str
    queue: list[int]
    marked: list[int]
    must_lose: bool


class BattleView(TypedDict):
    attacker: int
    defender: int
    attacking_tile: str
    defended_tile: str
    step: str
    cards: dict[str, str]  # per seat: a card id, or "committed" while face down
    attack_dice: list[int]
    defence_dice: list[int]
    attack_rolls: list[int]
    defence_rolls: list[int]
    hits_left: dict[str, int]


class ResultView(TypedDict):
    end: str
    winner: int | None
    scores: list[int | None]
    team: int | None


class Observation(TypedDict):
    """What one seat may know (the module doc says what is left out)."""

    seat: int | None
    mode: str
    teams: list[int]
    players: list[PlayerView]
    phase: str
    active: int
    first: int
    turn: int
    pending: PendingView
    world: WorldView
    board: dict[str, list[str]]  # tile name -> units as "seat/unit"
    fortified: list[str]
    deck_count: int
    discard: list[str]
    last_event: str | None
    spent: list[str]
    removed: list[str]
    turn_rolls: list[list[int]]
    oracles: bool
    final_round: bool
    scales: bool
    gilded: bool
    gold_frozen: bool
    six_gates: bool
    event: EventView | None
    battle: BattleView | None
    result: ResultView | None

# Labels looked up, not made: an enum member built from its value and its ``label`` property
# took a third of ``observe``'s time (a view per decision on the server).
_UNIT_LABELS: Final = tuple(t.label for t in UnitType)
_PHASE_LABELS: Final = {p: p.label for p in Phase}
_DECISION_LABELS: Final = {d: d.label for d in Decision}


def reserve_json(state: GameState, seat: int) -> ReserveView:
    counts = {_UNIT_LABELS[t]: n for t, n in enumerate(state.reserve[seat])
              if t != SPECIAL and n}
    return {"units": counts, "specials": [REALMS[r] for r in state.reserve_specials[seat]],
            # R18.4: received this turn, placeable from the seat's next turn on
            "specials_waiting": [REALMS[r] for r in state.specials_waiting[seat]]}


def public_player(state: GameState, seat: int) -> PlayerView:
    realm = state.realm[seat]
    return {
        "seat": seat,
        "realm": REALMS[realm] if realm >= 0 else None,
        "turn_position": state.turn_position(seat),
        "gold": state.gold[seat],
        "reserve": reserve_json(state, seat),
        "graveyard": [unit_ref(c) for c in state.graveyard[seat]],
        "trophies": [unit_ref(c) for c in state.trophies[seat]],
        "hand_count": len(state.hand[seat]),
        "pool_count": len(state.pool[seat]),
        "buyable_count": len(state.buyable[seat]),
        "eliminated": state.eliminated[seat],
        "home": state.world.names[state.home[seat]] if state.home[seat] >= 0 else None,
        # R5.5 roll_off: the realm named this round, before the roll-offs
        "named": REALMS[state.setup_named[seat]] if state.setup_named[seat] >= 0 else None,
    }


def world_json(state: GameState) -> WorldView:
    """The world as positions write it, with every tile's capacity (R4.5) for the screens."""
    world = state.world
    out: Any = world.to_json()
    out["capacity"] = dict(zip(world.names, world.capacity, strict=True))
    view: WorldView = out
    return view


def observe(state: GameState, seat: int | None) -> Observation:
    """The observation of ``seat`` (None: a spectator) as a JSON-ready dict."""
    names = state.world.names
    players = [public_player(state, p) for p in range(state.n)]
    if seat is not None:
        me = players[seat]
        me["hand"] = list(state.hand[seat])
        me["pool"] = list(state.pool[seat])
        me["buyable"] = list(state.buyable[seat])
        for ally in state.allies(seat):  # R23.5: allies show each other hands and pools
            players[ally]["hand"] = list(state.hand[ally])
            players[ally]["pool"] = list(state.pool[ally])
    team = None if seat is None else state.team[seat]
    obs: Observation = {
        "seat": seat,
        "mode": state.config.mode,
        "teams": list(state.team),
        "players": players,
        "phase": _PHASE_LABELS[state.phase],
        "active": state.active,
        "first": state.first,
        "turn": state.turn,
        "pending": {"kind": _DECISION_LABELS[state.pending.kind], "seat": state.pending.seat},
        "world": world_json(state),
        "board": {names[t]: [unit_ref(c) for c in units]
                  for t, units in enumerate(state.board) if units},
        "fortified": [names[t] for t, f in enumerate(state.fortified) if f],
        "deck_count": len(state.deck),
        "discard": list(state.discard),
        "last_event": state.last_event,
        "spent": list(state.spent),
        "removed": [unit_ref(c) for c in state.removed],
        "turn_rolls": [list(r) for r in state.turn_rolls],
        "oracles": state.oracles,
        "final_round": state.final_slot >= 0,
        "scales": state.scales,
        "gilded": state.gilded_slot >= 0,
        "gold_frozen": gold_frozen(state),
        "six_gates": state.six_gates,
        "event": None,
        "battle": None,
        "result": None,
    }
    if state.event is not None:
        obs["event"] = {"card": state.event.card, "queue": list(state.event.queue),
                        "marked": list(state.event.marked), "must_lose": state.event.must_lose}
    battle = state.battle
    if battle is not None:
        revealed = battle.step != BattleStep.DECLARE or not battle.magic_queue
        cards: dict[str, str] = {}
        for p, card in battle.cards.items():
            volley = battle.ranged and p == battle.attacker  # revealed with the attack, R16.9
            cards[str(p)] = (card if revealed or volley or state.team[p] == team
                            else "committed")
        obs["battle"] = {
            "attacker": battle.attacker, "defender": battle.defender,
            "attacking_tile": names[battle.a_tile], "defended_tile": names[battle.d_tile],
            "step": battle.step, "cards": cards,
            "attack_dice": battle.attack_dice, "defence_dice": battle.defence_dice,
            "attack_rolls": battle.attack_rolls, "defence_rolls": battle.defence_rolls,
            "hits_left": {str(p): h for p, h in battle.hits.items()},
        }
    if state.result is not None:
        obs["result"] = {"end": state.result.end, "winner": state.result.winner,
                         "scores": state.result.scores, "team": state.result.team}
    return obs
