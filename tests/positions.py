"""Named test positions and the builder they are made with.

``build`` makes a complete, consistent state: realms fixed, the given units on the board,
every other unit of each kit in its reserve (or where ``graveyards``/``removed`` put it),
then enters the requested phase of the active player's turn exactly as the engine would
(so entering "event" draws the top card of ``deck``). Tests start from these positions and
force dice with ``Game.play(..., dice=[...])`` or ``state.chance.force([...])``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from kaladan.game import Game
from kaladan.rules import flow
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.config import Config
from kaladan.rules.legal import legal_actions
from kaladan.rules.notation import parse_unit_ref
from kaladan.rules.observe import unit_ref
from kaladan.rules.setup import new_game
from kaladan.rules.state import Decision, GameState, Phase
from kaladan.rules.units import (
    KIT_COUNT,
    REALM_INDEX,
    SPECIAL,
    code,
    owner_of,
    realm_of,
    type_of,
)

# A named position of the 2-player standard world: seat 0 (Khalisia) at home on C1 with
# units on T7 and T5, seat 1 (Kimbria) on C2 with units on T4 and T1. T7 touches T4, T5, T6
# and C1; T1 touches T2, T3, T4 and C2. Build it with ``build(ACTION_BOARD, homes=["C1",
# "C2"])`` (tests of refusals: test_illegal.py, rules/test_kinds.py).
ACTION_BOARD = {
    "C1": "0/crown 0/general 0/sword",
    "T7": "0/archer 0/shield 0/sword",
    "T5": "0/sword",
    "C2": "1/crown 1/general 1/sword",
    "T4": "1/shield",
    "T1": "1/archer",
}

PHASES = {"event": Phase.EVENT, "spawn": Phase.SPAWN, "income": Phase.INCOME,
          "action": Phase.ACTION, "purchase": Phase.PURCHASE, "reinforce": Phase.REINFORCE}


def build(
    board: Mapping[str, str],
    *,
    players: int = 2,
    realms: Sequence[str] = ("khalisia", "kimbria", "nanchia", "ardinor", "zhojira",
                             "laurielle"),
    gold: Sequence[int] | None = None,
    active: int = 0,
    phase: str = "action",
    deck: Sequence[str] | None = None,
    hands: Sequence[Sequence[str]] | None = None,
    graveyards: Sequence[Sequence[str]] | None = None,
    fortified: Sequence[str] = (),
    homes: Sequence[str] | None = None,
    seed: int = 0,
    **options: object,
) -> GameState:
    """A position with ``board`` like ``{"C1": "0/crown 0/general 0/sword+", "T4": "1/archer"}``.

    Seat 0 is the first player; turn order is seat order. ``deck`` lists cards top first
    (default: no cards left, so no event is drawn). Hands default to empty, so no magic card
    is declared in a battle unless a test gives one; the rest of each realm's cards are in
    its pool.
    """
    config = Config(players=players, quick_setup=True, **options)  # type: ignore[arg-type]
    s = new_game(config, seed)
    s.chance.take_log()
    world = s.world
    s.first = 0
    s.active = active
    s.slot = active
    s.turn = 1
    s.seat_of_realm = [-1] * 6
    for seat in range(players):
        r = REALM_INDEX[realms[seat]]
        s.realm[seat] = r
        s.seat_of_realm[r] = seat
    s.board = [() for _ in world.coords]
    for name, text in board.items():
        s.board[world.index(name)] = tuple(sorted(parse_unit_ref(u) for u in text.split()))
    s.graveyard = [[parse_unit_ref(u) & ~1 for u in g] for g in (graveyards or [[]] * players)]
    s.graveyard += [[] for _ in range(players - len(s.graveyard))]
    s.fortified = [world.names[t] in fortified for t in range(len(world.coords))]
    # Reserves: the kit minus what is on the board or in graveyards.
    placed = [[0] * 7 for _ in range(players)]
    specials_out: set[int] = set()
    for units in [*s.board, *s.graveyard]:
        for c in units:
            if type_of(c) == SPECIAL:
                specials_out.add(realm_of(c))
            else:
                placed[owner_of(c)][type_of(c)] += 1
    s.reserve = []
    s.reserve_specials = []
    for seat in range(players):
        counts = [KIT_COUNT[t] - placed[seat][t] for t in range(7)]
        counts[SPECIAL] = 0
        if min(counts) < 0:
            raise ValueError(f"seat {seat} has more units than its kit")
        s.reserve.append(counts)
        own = s.realm[seat]
        s.reserve_specials.append([] if own in specials_out else [own])
    s.removed = []
    s.trophies = [[] for _ in range(players)]
    s.gold = list(gold) if gold is not None else [0] * players
    from kaladan.rules.magic import realm_cards

    s.hand = [list(h) for h in hands] if hands is not None else [[] for _ in range(players)]
    s.pool = [[c for c in realm_cards(s.realm[p]) if c not in s.hand[p]] for p in range(players)]
    s.buyable = [[] for _ in range(players)]
    s.eliminated = [False] * players
    if homes is not None:
        s.home = [world.index(h) for h in homes]
    else:
        s.home = list(world.castle_spots[:players])
    s.deck = list(reversed(deck)) if deck is not None else []
    s.discard = []
    s.end_card = None
    s.final_slot = -1
    s.event = None
    s.battle = None
    s.result = None
    s.decisions = 0
    s.last_event = None
    s.invalidate()  # the state was edited by hand above
    flow.enter_phase(s, PHASES[phase])
    s.chance.take_log()
    return s


def game_at(state: GameState) -> Game:
    """Wrap a built position in the checked Game facade."""
    return Game(state.config, 0, state)


def unit(ref: str) -> int:
    """A unit code from ``"<seat>/<token>"`` (realm of a plain token: seat's default realm)."""
    return parse_unit_ref(ref)


def own(seat: int, realm: str, utype: int, upgraded: bool = False) -> int:
    return code(seat, REALM_INDEX[realm], utype, upgraded)


def on(g: Game, name: str) -> list[str]:
    """The units on a tile as sorted ``"<seat>/<unit>"`` texts."""
    return sorted(unit_ref(c) for c in g.state.board[g.state.world.index(name)])


def refs(codes: Sequence[int]) -> list[str]:
    """Units as sorted ``"<seat>/<unit>"`` texts."""
    return sorted(unit_ref(c) for c in codes)


def pending(g: Game) -> tuple[Decision, int]:
    """Who must decide what next."""
    return g.state.pending.kind, g.state.pending.seat


def options_of(g: Game, kind: str) -> list[str]:
    """The legal action texts of one kind."""
    return [t for t in g.legal_texts() if t.split()[0] == kind]


def decline(g: Game) -> None:
    """Make the do-nothing choice of the pending decision."""
    legal = g.legal_texts()
    for choice in ("end", "pass", "gold", "nomagic"):
        if choice in legal:
            g.play(choice)
            return
    raise AssertionError(f"nothing to decline among {legal}")


def finish_turn(g: Game) -> None:
    """Decline every decision until the next turn begins (or the game ends)."""
    turn = g.state.turn
    while not g.is_over and g.state.turn == turn:
        decline(g)


def pass_turn(g: Game) -> None:
    """Let the active player do nothing for the rest of the turn."""
    seat = g.state.active
    for _ in range(20):
        if g.state.active != seat or g.is_over:
            return
        g.play("pass" if "pass" in g.legal_texts() else "end")
    raise AssertionError("the turn did not end")


def advance_to(g: Game, pending: object) -> None:
    """Decline decisions until ``pending`` (a ``Pending``) is the one to make."""
    for _ in range(1000):
        if g.state.pending == pending:
            return
        assert not g.is_over
        decline(g)
    raise AssertionError(f"{pending} never came")


def play_out(g: Game) -> list[int]:
    """Finish this turn, then decline everything to the end; the seats of the later turns."""
    finish_turn(g)
    seats = []
    while not g.is_over:
        seats.append(g.state.active)
        finish_turn(g)
        assert len(seats) < 50
    return seats


def played(config: Config, seed: int, decisions: int) -> GameState:
    """A position ``decisions`` uniformly random decisions into the game of ``seed`` (the
    same seed drives the choices); stops early if the game ends."""
    state = new_game(config, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if state.result is not None:
            break
        legal = legal_actions(state)
        apply_unchecked(state, legal[rng.randrange(len(legal))])
    return state
