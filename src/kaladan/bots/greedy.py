"""The greedy bot: a hand-written policy that decides from its seat's observation only.

It attacks when the exact odds (``kaladan.odds``) favour it, always takes free units, spends
its gold on units next to the enemy and on upgrades, plays the magic cards it is offered,
gives up its cheapest units and otherwise keeps its army together.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final, cast

from .. import odds as odds_module
from ..rules import actions as A
from ..rules.actionlist import ActionList
from ..rules.actions import Action
from ..rules.errors import KaladanError
from ..rules.units import CATAPULT, CROWN, GENERAL, SPECIAL, SWORD, owner_of, type_of, unit_value
from ..rules.world import Terrain
from .base import SeatView

# Preference of units to buy or place (higher first) and of upgrades.
_BUY_ORDER: Final = {CATAPULT: 5, SPECIAL: 4, GENERAL: 6, SWORD: 3, 3: 2, 4: 1}
_MIN_WIN = 0.55  # attack only when the exact chance of winning is at least this


class GreedyBot:
    name = "greedy"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        # An ActionList is asked for kinds, so that the Action phase's hundreds of moves and
        # swaps are built only when a rule below looks at them (the choice is the same).
        # (cast: a native ActionList for the compiled bot, not a Sequence narrowed to one)
        lazy = (cast("ActionList", legal) if isinstance(legal, ActionList)
                else ActionList(list(legal)))
        kinds = lazy.kinds()
        if A.ATTACK in kinds:
            best = self._best_attack(view, list(lazy.of_kind(A.ATTACK)))
            if best is not None:
                return best
        if A.MOVE in kinds and A.PASS in kinds:  # action or reinforcement: claim a tile
            spread = self._spread(view, lazy.of_kind(A.MOVE))
            if spread is not None:
                return spread
        if A.MAGIC in kinds and A.NOMAGIC in kinds and not self._card_pays_off(view):
            return next(lazy.of_kind(A.NOMAGIC))
        for kind in (A.MAGIC, A.SPAWN, A.PLACE, A.UPGRADE, A.DEPLOY, A.SAVE, A.KILL):
            if kind in kinds:
                return self._pick(view, list(lazy.of_kind(kind)), rng)
        if A.BUY in kinds:
            return self._best_buy(view, list(lazy.of_kind(A.BUY)))
        if A.CASUALTY in kinds or A.LEAVE in kinds:
            options = [a for a in legal if a.kind in (A.CASUALTY, A.LEAVE)]
            return min(options, key=lambda a: unit_value(a.units[0]))
        for kind in (A.FORTIFY, A.RETURN, A.LOSE):
            if kind in kinds:
                options = list(lazy.of_kind(kind))
                return (min(options, key=lambda a: unit_value(a.units[0]))
                        if kind == A.LOSE else options[0])
        for quiet in (A.PASS, A.END, A.NOMAGIC, A.GOLD):
            if quiet in kinds:
                return next(lazy.of_kind(quiet))
        return legal[rng.randrange(len(legal))]

    def _pick(self, view: SeatView, options: list[Action], rng: random.Random) -> Action:
        if options[0].kind in (A.UPGRADE, A.PLACE, A.SPAWN, A.DEPLOY):
            return max(options, key=lambda a: _BUY_ORDER.get(type_of(a.units[0]), 0)
                       if a.units else 0)
        return options[0]

    def _best_buy(self, view: SeatView, buys: list[Action]) -> Action:
        frontline = self._frontline(view)
        empty = self._empty(view)
        return max(buys, key=lambda a: (a.tile in empty, a.tile in frontline,
                                        _BUY_ORDER.get(type_of(a.units[0]), 0), -a.tile))

    def _empty(self, view: SeatView) -> set[int]:
        return {t for t, units in enumerate(view.board) if not units}

    def _spread(self, view: SeatView, moves: Iterable[Action]) -> Action | None:
        """One unit (never the Crown) onto an empty tile, from a tile that keeps a unit."""
        board = view.board
        for action in moves:
            if (len(action.units) == 1 and not board[action.tile2]
                    and type_of(action.units[0]) != CROWN
                    and len(board[action.tile]) >= 2):
                return action
        return None

    def _frontline(self, view: SeatView) -> set[int]:
        """Own tiles next to an enemy tile (an ally's tile is no front, R23)."""
        board = view.board
        seat = view.seat
        team = view.team
        mine = {t for t, units in enumerate(board) if any(owner_of(c) == seat for c in units)}
        enemy = {t for t, units in enumerate(board)
                 if units and team[owner_of(units[0])] != team[seat]}
        return {t for t in mine if any(n in enemy for n in view.world.neighbours[t])}

    def _card_pays_off(self, view: SeatView) -> bool:
        """Spend a card only on a battle that is in doubt or puts a Crown at stake: an
        attack the exact odds give less than 85%, or a defence they give the attacker more
        than 25% of winning (a card is out of the game once spent, R20.6)."""
        battle = view.observation["battle"]
        if battle is None:
            return True
        world = view.world
        board = view.board
        a_tile = world.index(battle["attacking_tile"])
        d_tile = world.index(battle["defended_tile"])
        if any(type_of(c) == CROWN for c in board[d_tile]):
            return True
        win = _win_chance(tuple(board[a_tile]), tuple(board[d_tile]), world.terrain[a_tile],
                          world.terrain[d_tile], view.fortified[d_tile],
                          tuple(getattr(view.config, n) for n in odds_module.DICE_OPTIONS),
                          view.scales)
        if win is None:
            return True
        attacking = view.team[battle["attacker"]] == view.team[view.seat]
        return win < 0.85 if attacking else win > 0.25

    def _best_attack(self, view: SeatView, attacks: list[Action]) -> Action | None:
        world = view.world
        board = view.board
        config = view.config
        options = tuple(getattr(config, name) for name in odds_module.DICE_OPTIONS)
        best: tuple[float, Action] | None = None
        for action in attacks:
            a_units = tuple(board[action.tile])
            win = _win_chance(a_units, tuple(board[action.tile2]), world.terrain[action.tile],
                              world.terrain[action.tile2], view.fortified[action.tile2],
                              options, view.scales)
            if win is None:
                continue
            # Never risk the Crown on a doubtful battle.
            if any(type_of(c) == CROWN for c in a_units) and win < 0.8:
                continue
            if win >= _MIN_WIN and (best is None or win > best[0]):
                best = (win, action)
        return None if best is None else best[1]


@lru_cache(maxsize=65536)
def _win_chance(attackers: tuple[int, ...], defenders: tuple[int, ...], a_terrain: Terrain,
                d_terrain: Terrain, fortified: bool, options: tuple[str, ...],
                scales: bool) -> float | None:
    """The exact chance that the attack wins (``kaladan.odds``), memoised: bots and search
    playouts ask about the same few battles over and over."""
    try:
        dice = odds_module.DiceOptions(**dict(zip(odds_module.DICE_OPTIONS, options,
                                                  strict=True)))
        return odds_module.win_chance(odds_module.BattleSpec(
            attackers, defenders, a_terrain, d_terrain, fortified, dice, scales=scales))
    except KaladanError:
        return None
