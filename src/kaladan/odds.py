"""Exact battle odds: the probability of every (attacker losses, defender losses) of one battle.

The dice pools come from the engine's own functions (``combat.side_dice``, ``combat.bonus_dice``,
``combat.attack_pool``/``defence_pool`` for a game position) and the magic cards' dice effects
from the engine's card registry, so the odds shown and the battles played share one set of dice
rules (sections 13-16, 20).

How the distribution is computed (no roll is ever enumerated): the die faces are swept from 12
down to 1. Before value ``v`` is looked at, every die not yet placed whose size is at least ``v``
is uniform on 1..v, so how many of them show exactly ``v`` is binomial. The dice placed at ``v``
take the next ranks of their side (R16.17); a rank held by both sides is a pair (R16.18): the side
that placed it at a higher value wins it, the same value is a tie (R16.19). The state is only
(ranks placed by the attacker, ranks placed by the defender, hits so far), with placed ranks
capped at the number of pairs. The arithmetic is exact: each path is weighted by a whole number
of rolls (binomial coefficients, powers of ``v - 1`` and die sizes), and the hit distributions
of one (pa, pd) state are packed into one big integer, one slot (as wide as the number of
rolls) per (hits on the attacker, hits on the defender), so a transition is one multiply, one
shift and one add. The result is a count of rolls per outcome over the product of all die
sizes, turned into ``Fraction``s.

>>> from kaladan.rules.units import SWORD, code
>>> o = odds([code(0, 0, SWORD)], [code(1, 0, SWORD)])
>>> o.attacker_wins, o.defender_holds
(Fraction(7, 16), Fraction(9, 16))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from math import comb, prod
from typing import Final

from .rules import magic
from .rules.actions import ATTACK, MAGIC, NOMAGIC, Action
from .rules.apply import apply_unchecked
from .rules.catalog import MAGIC_CARD_BY_ID
from .rules.combat import (
    NO_MODIFIERS,
    Modifiers,
    attack_pool,
    bonus_dice,
    defence_pool,
    drops_lowest,
    side_dice,
)
from .rules.config import OPTIONS, Config
from .rules.errors import InvalidActionError, KaladanError
from .rules.gamelog import BattleEnded, Entry
from .rules.legal import hit_candidates, legal_actions
from .rules.state import Battle, Decision, GameState
from .rules.units import (
    CROWN,
    KIT_COUNT,
    REALMS,
    SPECIAL,
    Seat,
    UnitCode,
    code,
    realm_of,
    type_of,
    unit_token,
)
from .rules.world import CAPACITY, Terrain

__all__ = [
    "DICE_OPTIONS",
    "BattleSpec",
    "CardOdds",
    "DiceOptions",
    "HitDistribution",
    "Odds",
    "OddsError",
    "attack_card_odds",
    "battle_odds",
    "card_modifiers",
    "clear_cache",
    "dice_pools",
    "hit_distribution",
    "odds",
    "odds_for_attack",
    "win_chance",
]

ATTACKER: Final = 0  # the owner seat of attacking units in a standalone query
DEFENDER: Final = 1
DICE_OPTIONS: Final = ("mountain_defence", "crown_defence_in_castle", "wolf_d12")  # R3.3
_FACES: Final = 12  # the largest die (R20.13 ladder)


class OddsError(KaladanError):
    """A battle that cannot be asked about: bad units, capacity, option or card."""


@dataclass(frozen=True, slots=True)
class DiceOptions:
    """The ruleset options of R3.3 that touch battle dice (R15.4, R13.3, R14.6)."""

    mountain_defence: str = "keep_all"
    crown_defence_in_castle: str = "d6"
    wolf_d12: str = "forest_either"

    def __post_init__(self) -> None:
        for name in DICE_OPTIONS:
            value = getattr(self, name)
            if value not in OPTIONS[name]:
                raise OddsError(f"option {name}={value!r} is not allowed: choose "
                                f"{', '.join(OPTIONS[name])} (R3.3)")

    @classmethod
    def of(cls, config: Config) -> DiceOptions:
        """The dice options of a game configuration."""
        return cls(config.mountain_defence, config.crown_defence_in_castle, config.wolf_d12)


@dataclass(frozen=True, slots=True)
class BattleSpec:
    """One battle without a game around it.

    ``attackers`` and ``defenders`` are unit codes (``units.code``); their owner is set to 0 for
    the attacking and 1 for the defending side. ``fortified`` is an upgraded castle on D (R19.4).
    ``attacker_mods``/``defender_mods`` are magic-card dice effects (see ``card_modifiers``) and
    ``scales`` is Scales of Equality in force (EG2).
    """

    attackers: tuple[UnitCode, ...]
    defenders: tuple[UnitCode, ...]
    a_terrain: Terrain = Terrain.FIELD
    d_terrain: Terrain = Terrain.FIELD
    fortified: bool = False
    options: DiceOptions = field(default_factory=DiceOptions)
    attacker_mods: Modifiers = NO_MODIFIERS
    defender_mods: Modifiers = NO_MODIFIERS
    scales: bool = False


@dataclass(frozen=True, slots=True)
class HitDistribution:
    """How many rolls give each (hits on the attacker, hits on the defender), out of ``total``
    (the product of all die sizes)."""

    attack_dice: tuple[int, ...]
    defence_dice: tuple[int, ...]
    drop_lowest: bool
    scales: bool
    counts: tuple[tuple[int, int, int], ...]  # (hits on attacker, hits on defender, rolls)
    total: int

    def probabilities(self) -> dict[tuple[int, int], Fraction]:
        return {(ha, hd): Fraction(n, self.total) for ha, hd, n in self.counts}


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact outcome of one battle: probability of every (attacker, defender) losses."""

    attacker_units: int
    defender_units: int
    attack_dice: tuple[int, ...]
    defence_dice: tuple[int, ...]
    drop_lowest: bool
    scales: bool
    outcomes: tuple[tuple[int, int, Fraction], ...]  # (attacker losses, defender losses, p)

    @property
    def attacker_wins(self) -> Fraction:
        """R16.27: no defending unit is left on D."""
        return sum((p for _, ld, p in self.outcomes if ld == self.defender_units), Fraction(0))

    @property
    def defender_holds(self) -> Fraction:
        return 1 - self.attacker_wins

    @property
    def expected_attacker_losses(self) -> Fraction:
        return sum((la * p for la, _, p in self.outcomes), Fraction(0))

    @property
    def expected_defender_losses(self) -> Fraction:
        return sum((ld * p for _, ld, p in self.outcomes), Fraction(0))

    def probability(self, attacker_losses: int, defender_losses: int) -> Fraction:
        for la, ld, p in self.outcomes:
            if (la, ld) == (attacker_losses, defender_losses):
                return p
        return Fraction(0)

    def to_json(self) -> dict[str, object]:
        """The ``kaladan odds --json`` object: floats, and each outcome's exact ``"p/q"``."""
        return {
            "attacker_wins": float(self.attacker_wins),
            "defender_holds": float(self.defender_holds),
            "expected_attacker_losses": float(self.expected_attacker_losses),
            "expected_defender_losses": float(self.expected_defender_losses),
            "outcomes": [{"attacker_losses": la, "defender_losses": ld,
                          "probability": float(p), "exact": f"{p.numerator}/{p.denominator}"}
                         for la, ld, p in self.outcomes],
        }


# --- the exact hit distribution ----------------------------------------------------------


Moves = tuple[tuple[tuple[tuple[int, int], ...], ...], ...]


@cache
def _side_steps(dice: tuple[int, ...], k: int) -> Moves:
    """Per face value v (index v) and ranks placed p: the (new p, rolls) moves at v.

    Not finishing (fewer than ``k`` ranks placed after v): choose which of the R active dice
    show v; they keep running. Finishing: the binomial tail of "at least k - p show v" times
    the free faces of every die left over (1..v-1 for the active ones, all faces for the
    dice smaller than v), since no further die of this side can matter (R16.18).
    """
    steps: list[tuple[tuple[tuple[int, int], ...], ...]] = [() for _ in range(_FACES + 1)]
    for v in range(_FACES, 0, -1):
        active = sum(1 for s in dice if s >= v)
        smaller = prod(s for s in dice if s < v)
        rows: list[tuple[tuple[int, int], ...]] = []
        for p in range(k):
            r, need = active - p, k - p
            row: list[tuple[int, int]] = []
            if v > 1:
                row = [(p + c, comb(r, c)) for c in range(min(r, need - 1) + 1)]
            if r >= need:
                tail = sum(comb(r, c) * (v - 1) ** (r - c) for c in range(need, r + 1))
                row.append((k, tail * smaller))
            rows.append(tuple(row))
        rows.append(((k, 1),))
        steps[v] = tuple(rows)
    return tuple(steps)


@cache
def _shifts(k: int, scales: bool, bits: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Bit shift of the hits added when (pa, pd) with top = max(pa, pd) becomes (pa2, pd2).

    Ranks up to ``top`` were credited when the first side placed them: the lagging side can
    only fill them later, with a lower value (R16.19). Of the new ranks above ``top``, those
    both sides placed at this value are ties (EG2: defender hits under Scales); the rest go to
    the side that placed them. Slot of (hits on attacker ha, hits on defender hd): ha*(k+1)+hd.
    """
    b = k + 1
    table = []
    for top in range(b):
        rows = []
        for pa2 in range(b):
            row = []
            for pd2 in range(b):
                low, high = min(pa2, pd2), max(pa2, pd2)
                ties = max(0, low - top)
                won = high - max(top, low) if high > top else 0
                slot = won if pa2 > pd2 else won * b
                if scales:
                    slot += ties
                row.append(slot * bits)
            rows.append(tuple(row))
        table.append(tuple(rows))
    return tuple(table)


def _sweep(attack: tuple[int, ...], defence: tuple[int, ...], k: int, scales: bool,
           total: int) -> dict[tuple[int, int], int]:
    """Rolls per (hits on attacker, hits on defender); see the module doc.

    A step from (pa, pd) to (pa2, pd2) multiplies the attacker's and the defender's move
    weights and shifts by a hit count that depends on (max(pa, pd), pa2, pd2) only, so each
    value is done in two factorised halves, O(k^3) big-integer operations instead of O(k^4):
    states with pa <= pd first sum over pa for each pa2, states with pa > pd over pd.
    """
    if k <= 0:
        return {(0, 0): total}
    b = k + 1
    bits = total.bit_length() + 1
    mask = (1 << bits) - 1
    steps_a = _side_steps(attack, k)
    steps_d = _side_steps(defence, k)
    shifts = _shifts(k, scales, bits)
    span = range(b)
    st: list[list[int]] = [[0] * b for _ in span]  # st[pa][pd]: packed hit counts
    st[0][0] = 1
    for v in range(_FACES, 0, -1):
        ma, md = steps_a[v], steps_d[v]
        new: list[list[int]] = [[0] * b for _ in span]
        for pd in span:  # states with pa <= pd: top = pd
            part = [0] * b
            for pa in range(pd + 1):
                poly = st[pa][pd]
                if poly:
                    for pa2, wa in ma[pa]:
                        part[pa2] += poly * wa
            top_rows = shifts[pd]
            moves = md[pd]
            for pa2 in span:
                poly = part[pa2]
                if poly:
                    row = new[pa2]
                    sh = top_rows[pa2]
                    for pd2, wd in moves:
                        row[pd2] += (poly * wd) << sh[pd2]
        for pa in range(1, b):  # states with pa > pd: top = pa
            part = [0] * b
            row_st = st[pa]
            for pd in range(pa):
                poly = row_st[pd]
                if poly:
                    for pd2, wd in md[pd]:
                        part[pd2] += poly * wd
            top_rows = shifts[pa]
            moves = ma[pa]
            for pd2 in span:
                poly = part[pd2]
                if poly:
                    for pa2, wa in moves:
                        new[pa2][pd2] += (poly * wa) << top_rows[pa2][pd2]
        st = new
    poly = st[k][k]
    out: dict[tuple[int, int], int] = {}
    slot = 0
    while poly:
        n = poly & mask
        if n:
            out[divmod(slot, b)] = n
        poly >>= bits
        slot += 1
    return out


@cache
def _hits_cached(attack: tuple[int, ...], defence: tuple[int, ...], drop_lowest: bool,
                 scales: bool) -> HitDistribution:
    total = prod(attack) * prod(defence)
    pairs = min(len(attack), len(defence) - (1 if drop_lowest and defence else 0))
    counts = _sweep(attack, defence, pairs, scales, total)
    return HitDistribution(attack, defence, drop_lowest, scales,
                           tuple((ha, hd, n) for (ha, hd), n in sorted(counts.items())), total)


def hit_distribution(attack: Iterable[int], defence: Iterable[int], drop_lowest: bool = False,
                     scales: bool = False) -> HitDistribution:
    """Exact distribution of ``combat.compare`` over every roll of the given die sizes.

    Memoised by the sorted pools: many unit compositions share a pair of pools.

    >>> hit_distribution([6], [6]).probabilities()[(0, 0)]
    Fraction(1, 6)
    """
    a = tuple(sorted(attack, reverse=True))
    d = tuple(sorted(defence, reverse=True))
    for s in a + d:
        if s not in (6, 8, 10, 12):
            raise OddsError(f"no D{s} in this game: dice are D6, D8, D10 and D12 (R20.13)")
    return _hits_cached(a, d, bool(drop_lowest and d), bool(scales))


def clear_cache() -> None:
    """Forget every memoised hit distribution (benchmarks measure from a cold cache)."""
    _hits_cached.cache_clear()
    _side_steps.cache_clear()
    _shifts.cache_clear()


def _losses(hits: HitDistribution, attacker_units: int, defender_units: int) -> Odds:
    """R16.21: a side loses min(hits, its units); hits beyond that are ignored."""
    acc: dict[tuple[int, int], int] = {}
    for ha, hd, n in hits.counts:
        key = (min(ha, attacker_units), min(hd, defender_units))
        acc[key] = acc.get(key, 0) + n
    outcomes = tuple((la, ld, Fraction(n, hits.total)) for (la, ld), n in sorted(acc.items()))
    return Odds(attacker_units, defender_units, hits.attack_dice, hits.defence_dice,
                hits.drop_lowest, hits.scales, outcomes)


# --- magic cards ---------------------------------------------------------------------------


# Stands in for the game state when the odds are asked without one: a state with no field
# set, so an effect that reads the game raises AttributeError (the compiled engine checks
# that a GameState is passed, so None would not do).
_NO_STATE: Final = GameState()


def _apply_card(card: str, battle: Battle, seat: Seat, state: GameState | None) -> None:
    card_id = card.strip().upper()
    info = MAGIC_CARD_BY_ID.get(card_id)
    if info is None:
        raise OddsError(f"unknown magic card {card!r}: ids look like KIM-2 (section 26)")
    side = "attacker" if seat == battle.attacker else "defender"
    if info.usable_by not in (side, "either"):
        raise OddsError(f"{card_id} ({info.name.get('en')}) cannot be played by the {side}: "
                        f"it is usable by the {info.usable_by} only (R16.8)")
    effect = magic.EFFECTS.get(card_id)
    if effect is not None and effect.apply is not None and effect.options is None \
            and effect.kind == magic.EFFECT and info.window == "W2":
        if state is not None and not effect.condition(state, battle, seat):
            raise OddsError(f"{card_id} ({info.name.get('en')}) cannot be played here: its "
                            f"condition does not hold ({info.condition.get('en')}; R20.7)")
        scratch = Battle(battle.attacker, battle.defender, battle.a_tile, battle.d_tile,
                         team=battle.team, participants=battle.participants)
        try:  # the W2 dice effects only write the battle's dice fields
            effect.apply(state if state is not None else _NO_STATE, scratch, seat, None)
        except AttributeError:  # it needed the game state: not a dice effect
            pass
        else:
            others = scratch.sneak or scratch.ranged or scratch.set_aside
            if (scratch.shift or scratch.d12_one or scratch.d12_all) and not others:
                for s, n in scratch.shift.items():
                    battle.shift[s] = battle.shift.get(s, 0) + n
                for s, types in scratch.d12_one.items():
                    battle.d12_one[s] = battle.d12_one.get(s, ()) + types
                for s, types in scratch.d12_all.items():
                    battle.d12_all[s] = battle.d12_all.get(s, ()) + types
                return
    raise OddsError(f"{card_id} ({info.name.get('en')}) has no dice effect: only the W2 dice "
                    "cards change a battle's odds (R16.14, R20.13)")


def _mods(battle: Battle, seat: Seat) -> Modifiers:
    if seat not in battle.shift and seat not in battle.d12_one and seat not in battle.d12_all:
        return NO_MODIFIERS
    return Modifiers(battle.d12_one.get(seat, ()), battle.d12_all.get(seat, ()),
                     battle.shift.get(seat, 0))


def card_modifiers(attacker_card: str | None = None,
                   defender_card: str | None = None) -> tuple[Modifiers, Modifiers]:
    """(attacker's, defender's) dice modifiers from the cards each side plays.

    The effects are the engine's own (``magic.EFFECTS``), applied to a scratch battle; a card
    without a dice effect, or one the side may not play, raises ``OddsError``. Conditions that
    need a game position are not checked here (``odds_for_attack`` checks them).

    >>> card_modifiers("KIM-2", "ARD-3")
    (Modifiers(d12_one=(), d12_all=(), shift=0), Modifiers(d12_one=(), d12_all=(), shift=0))
    """
    battle = Battle(attacker=ATTACKER, defender=DEFENDER, a_tile=0, d_tile=1,
                    team=(ATTACKER, DEFENDER), participants=(ATTACKER, DEFENDER))
    if attacker_card is not None:
        _apply_card(attacker_card, battle, ATTACKER, None)
    if defender_card is not None:
        _apply_card(defender_card, battle, DEFENDER, None)
    return _mods(battle, ATTACKER), _mods(battle, DEFENDER)


# --- queries ----------------------------------------------------------------------------------


def _check_side(units: Sequence[UnitCode], terrain: Terrain, side: str) -> None:
    if not units:
        raise OddsError(f"the {side} needs at least one unit (R16.1)")
    capacity = CAPACITY[terrain]
    if len(units) > capacity:
        raise OddsError(f"{len(units)} {side} units do not fit on a {terrain.label}: it holds "
                        f"{capacity} (R4.5)")
    kinds: dict[int, int] = {}
    for c in units:
        kinds[type_of(c)] = kinds.get(type_of(c), 0) + 1
    if kinds.get(CROWN, 0) > 1:
        raise OddsError(f"the {side} has {kinds[CROWN]} Crowns: a player has one (R2.2)")
    if CROWN in kinds and any(c & 1 for c in units if type_of(c) == CROWN):
        raise OddsError("a Crown cannot be upgraded (R13.1)")
    for t, n in kinds.items():
        if t != SPECIAL and n > KIT_COUNT[t]:
            label = unit_token(t << 1)
            raise OddsError(f"the {side} has {n} units of type {label}: a kit has "
                            f"{KIT_COUNT[t]} (R2.2)")
    realms = [realm_of(c) for c in units if type_of(c) == SPECIAL]
    for r in set(realms):
        if realms.count(r) > 1:
            raise OddsError(f"the {side} has {realms.count(r)} special units of {REALMS[r]}: "
                            "each realm has one (R14.1)")


def _as_owner(c: UnitCode, owner: Seat) -> UnitCode:
    return code(owner, realm_of(c), type_of(c), bool(c & 1))


def dice_pools(spec: BattleSpec) -> tuple[list[int], list[int], bool]:
    """(attack dice, defence dice, drop the defender's lowest die) by the engine's rules."""
    attackers = [_as_owner(c, ATTACKER) for c in spec.attackers]
    defenders = [_as_owner(c, DEFENDER) for c in spec.defenders]
    opts = spec.options
    bonus_a, bonus_d = bonus_dice(spec.a_terrain, spec.d_terrain, spec.fortified)
    attack = side_dice(attackers, True, spec.a_terrain, defenders, False, opts.wolf_d12,
                       spec.attacker_mods) + bonus_a  # R16.14
    defence = side_dice(defenders, False, spec.d_terrain, defenders,
                        opts.crown_defence_in_castle == "d8", opts.wolf_d12,
                        spec.defender_mods) + bonus_d
    drop = opts.mountain_defence == "drop_lowest" and spec.d_terrain == Terrain.MOUNTAIN
    return attack, defence, drop


def _spec_hits(spec: BattleSpec) -> HitDistribution:
    """The exact hits of a battle that can be asked about (``OddsError`` otherwise)."""
    _check_side(spec.attackers, spec.a_terrain, "attacker")
    _check_side(spec.defenders, spec.d_terrain, "defender")
    if spec.fortified and spec.d_terrain != Terrain.CASTLE:
        raise OddsError("only a castle tile can be upgraded (R19.4)")
    attack, defence, drop = dice_pools(spec)
    return hit_distribution(attack, defence, drop, spec.scales)


def battle_odds(spec: BattleSpec) -> Odds:
    """Exact odds of one battle without Crown protection (R16.21): see the module doc."""
    return _losses(_spec_hits(spec), len(spec.attackers), len(spec.defenders))


def win_chance(spec: BattleSpec) -> float:
    """``float(battle_odds(spec).attacker_wins)`` without the fractions of every outcome, for
    bots that weigh many attacks: the same float, since both are the correctly rounded
    quotient of the same two integers (the attacker wins when the hits on the defender reach
    its units, R16.27)."""
    hits = _spec_hits(spec)
    need = len(spec.defenders)
    won = 0
    for _, on_defender, rolls in hits.counts:
        if on_defender >= need:
            won += rolls
    return won / hits.total


def odds(attackers: Sequence[UnitCode], defenders: Sequence[UnitCode],
         a_terrain: Terrain = Terrain.FIELD, d_terrain: Terrain = Terrain.FIELD, *,
         fortified: bool = False, options: DiceOptions | Mapping[str, str] | None = None,
         attacker_card: str | None = None, defender_card: str | None = None,
         scales: bool = False) -> Odds:
    """Exact odds of one battle; ``options`` may name only the options in ``DICE_OPTIONS``."""
    if options is None:
        opts = DiceOptions()
    elif isinstance(options, DiceOptions):
        opts = options
    else:
        unknown = sorted(set(options) - set(DICE_OPTIONS))
        if unknown:
            raise OddsError(f"option(s) {', '.join(unknown)} do not touch battle dice: "
                            f"choose from {', '.join(DICE_OPTIONS)} (R3.3)")
        opts = DiceOptions(**options)
    mods_a, mods_d = card_modifiers(attacker_card, defender_card)
    spec = BattleSpec(tuple(attackers), tuple(defenders), Terrain(a_terrain), Terrain(d_terrain),
                      fortified, opts, mods_a, mods_d, scales)
    return battle_odds(spec)


def odds_for_attack(state: GameState, a_tile: int, d_tile: int,
                    attacker_card: str | None = None,
                    defender_card: str | None = None) -> Odds:
    """Exact odds of the active player attacking ``d_tile`` from ``a_tile`` in ``state``.

    Pools are built by ``combat.attack_pool``/``defence_pool`` on the position itself; the
    cards' conditions are checked against it (R20.7), though nobody needs to hold them.
    """
    if not 0 <= a_tile < len(state.board) or not 0 <= d_tile < len(state.board):
        raise OddsError(f"no tile {a_tile if not 0 <= a_tile < len(state.board) else d_tile}")
    names = state.world.names
    attacker = state.active
    if not state.occupies(attacker, a_tile):
        raise OddsError(f"seat {attacker} has no unit on {names[a_tile]} to attack with (R16.1)")
    defender = state.tile_owner(d_tile)
    if defender < 0 or state.team[defender] == state.team[attacker]:
        raise OddsError(f"{names[d_tile]} is not an enemy tile (R16.1)")
    if state.teams and (attacker_card or defender_card):
        raise OddsError("card effects in team battles touch only their holder's units; the "
                        "odds do not model them yet (R23.24)")
    units_a = list(state.board[a_tile])  # every unit on both tiles fights (R16.3, R23.18)
    if d_tile not in state.world.neighbours[a_tile]:
        raise OddsError(f"{names[d_tile]} is not adjacent to {names[a_tile]} (R16.1)")
    battle = Battle(attacker, defender, a_tile, d_tile, team=state.team,
                    participants=(attacker, defender))
    if attacker_card is not None:
        _apply_card(attacker_card, battle, attacker, state)
    if defender_card is not None:
        _apply_card(defender_card, battle, defender, state)
    attack = attack_pool(state, a_tile, d_tile, None, _mods(battle, attacker))
    defence = defence_pool(state, d_tile, _mods(battle, defender))
    hits = hit_distribution(attack, defence, drops_lowest(state, d_tile), state.scales)
    return _losses(hits, len(units_a), len(state.board[d_tile]))


# --- an attack with one of the attacker's cards ------------------------------------------------


MOST_CHOICES: Final = 64  # a card asking more choices than this (KHA-2, ZHO-5 on a big
# world) is left out of ``attack_card_odds``: each choice is a simulated battle
_AT_THE_DICE: Final = -1  # a forced outcome no die or draw gives: the simulated battle stops
# at its roll (``Chance`` refuses it with InvalidActionError)


@dataclass(frozen=True, slots=True)
class CardOdds:
    """The exact odds of an attack when the attacker plays ``card`` at the magic declaration
    and the defender plays none (R16.5): ``choice`` is the card's choice (a unit to kill,
    units to place ...) that gives the best chance to win, None when it asks none."""

    card: str
    odds: Odds
    choice: Action | None


def _certain(attacker_units: int, defender_units: int, killed: int) -> Odds:
    """A battle the cards settled without dice (R16.12): one outcome."""
    return Odds(attacker_units, defender_units, (), (), False, False,
                ((0, killed, Fraction(1)),))


def _at_roll(sim: GameState, d_units: int) -> Odds:
    """The odds of a simulated battle stopped at its roll: the pools the engine built with
    every card effect (``combat._fight``), hits capped by the units they may be assigned to
    (R16.21, R20.14, ZHO-4), the units a card killed on D already lost."""
    battle = sim.battle
    assert battle is not None
    d = battle.d_tile
    hits = hit_distribution(battle.attack_dice, battle.defence_dice, drops_lowest(sim, d),
                            sim.scales)
    cap_a = sum(len(hit_candidates(sim, battle, p))
                for p in magic.side_players(sim, battle, battle.attacker))
    cap_d = sum(len(hit_candidates(sim, battle, p))
                for p in magic.side_players(sim, battle, battle.defender))
    killed = d_units - len(sim.board[d])
    acc: dict[tuple[int, int], int] = {}
    for ha, hd, n in hits.counts:
        key = (min(ha, cap_a), killed + min(hd, cap_d))
        acc[key] = acc.get(key, 0) + n
    outcomes = tuple((la, ld, Fraction(n, hits.total)) for (la, ld), n in sorted(acc.items()))
    return Odds(len(sim.board[battle.a_tile]), d_units, hits.attack_dice, hits.defence_dice,
                hits.drop_lowest, hits.scales, outcomes)


def _play_on(sim: GameState, action: Action, attacker: Seat, a_units: int,
             d_units: int) -> list[tuple[Action | None, Odds]]:
    """Apply ``action`` to the scratch state ``sim`` and go on to the dice: the defender
    declares no card, each of the attacker's card choices is tried. The odds of every way."""
    entries: list[Entry] = []
    sim.chance.forced.clear()
    sim.chance.force([_AT_THE_DICE])
    try:
        apply_unchecked(sim, action, entries)
    except InvalidActionError:
        battle = sim.battle
        if not sim.chance.forced and battle is not None and battle.attack_dice:
            return [(None, _at_roll(sim, d_units))]  # stopped at the roll
        if not any(isinstance(e, BattleEnded) for e in entries):
            raise  # not the roll, nor after the battle: a real refusal
        return [(None, _ended(entries, a_units, d_units))]  # chance asked after the battle
    pending = sim.pending
    if pending.kind is Decision.MAGIC and pending.seat != attacker:
        return _play_on(sim, Action(NOMAGIC), attacker, a_units, d_units)
    if pending.kind is Decision.CARD and pending.seat == attacker:
        choices = legal_actions(sim)
        if len(choices) > MOST_CHOICES:
            return []
        out: list[tuple[Action | None, Odds]] = []
        for choice in choices:
            for _, chances in _play_on(sim.copy(), choice, attacker, a_units, d_units):
                out.append((choice, chances))
        return out
    if not any(isinstance(e, BattleEnded) for e in entries):
        if pending.kind is Decision.MAGIC:  # e.g. the defender's W3 declaration: none
            return _play_on(sim, Action(NOMAGIC), attacker, a_units, d_units)
        return []
    return [(None, _ended(entries, a_units, d_units))]


def _ended(entries: list[Entry], a_units: int, d_units: int) -> Odds:
    """The certain outcome of a battle that ended without dice (R16.12), from its log."""
    ended = next(e for e in entries if isinstance(e, BattleEnded))
    won = ended.result == "attacker_won"
    return _certain(a_units, d_units, d_units if won else 0)


def _best(ways: list[tuple[Action | None, Odds]]) -> tuple[Action | None, Odds]:
    """The way with the best chance to win, then the fewest own and most enemy losses."""
    return max(ways, key=lambda way: (way[1].attacker_wins, -way[1].expected_attacker_losses,
                                      way[1].expected_defender_losses))


def attack_card_odds(state: GameState, a_tile: int, d_tile: int) -> tuple[CardOdds, ...]:
    """Exact odds of the active player's attack from ``a_tile`` on ``d_tile`` with each magic
    card of the player's own hand that it may select at the magic declaration (W1, W2;
    R16.5-R16.8), the defender playing none.

    The battle is played on a copy of the state by the engine itself (``apply_unchecked``)
    up to the roll, so every card effect is the engine's: dice effects change the pools
    (R20.13), a kill (R20.10) or a placement (R20.12) changes the units, a sneak attack
    (ZHO-4) the units hits may go to. A card that asks a choice is tried with each, and the
    best is given. The roll itself is never made: the odds are the exact sweep of the pools
    (``hit_distribution``). Cards that ask more than ``MOST_CHOICES`` choices are left out.
    """
    attack = Action(ATTACK, a_tile, d_tile)
    if state.is_over or attack not in legal_actions(state):
        raise OddsError(f"no attack from tile {a_tile} on tile {d_tile} may be declared now "
                        "(R16.1)")
    attacker = state.active
    start = state.copy()
    a_units, d_units = len(state.board[a_tile]), len(state.board[d_tile])
    apply_unchecked(start, attack)  # step A: no die is rolled before the declarations
    pending = start.pending
    if pending.kind is not Decision.MAGIC or pending.seat != attacker:
        return ()
    own = set(state.hand[attacker])
    out = []
    for card in sorted({a.name for a in legal_actions(start) if a.kind is MAGIC} & own):
        ways = _play_on(start.copy(), Action(MAGIC, name=card), attacker, a_units, d_units)
        if ways:
            choice, chances = _best(ways)
            out.append(CardOdds(card, chances, choice))
    return tuple(out)
