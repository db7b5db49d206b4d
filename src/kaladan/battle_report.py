"""What one battle's dice did, for every front end: both pools, the rolls, the pairs with the
defender's dropped die, the hits, and the units each seat lost (R16.13-R16.25).

The engine keeps a battle only while it is in progress (``state.battle``), and one decision may
declare, roll and finish a battle at once. So the dice are read from a probe: the same decision
applied to a copy of the position whose random source (a copy of the position's own) notes the
battle when its dice start rolling. The probe draws exactly the outcomes the real step drew and
never touches the game.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

from .rules.actions import ATTACK, VOLLEY, Action
from .rules.apply import apply_unchecked
from .rules.chance import Chance
from .rules.combat import compare
from .rules.state import Battle, GameState
from .rules.world import Terrain

__all__ = ["BattleReport", "battle_report", "units_by_seat"]


def units_by_seat(state: GameState, tiles: tuple[int, ...]) -> dict[int, int]:
    """How many units each seat has on ``tiles``."""
    counts: dict[int, int] = {}
    for t in tiles:
        for c in state.board[t]:
            counts[c >> 7] = counts.get(c >> 7, 0) + 1
    return counts


@dataclass(frozen=True, slots=True)
class BattleReport:
    """The dice of one battle (R16.13-R16.21) and who stood on its two tiles when they rolled."""

    attacker: int
    defender: int
    a_tile: int
    d_tile: int
    attack_dice: list[int]
    defence_dice: list[int]
    attack_rolls: list[int]
    defence_rolls: list[int]
    drop_lowest: bool  # R16.16: a mountain's defender drops its lowest die (an option)
    scales: bool
    cards: Mapping[int, str] = field(default_factory=dict)  # the battle's magic card per seat
    units_before: Mapping[int, int] = field(default_factory=dict)  # per seat on both tiles

    @property
    def hits(self) -> tuple[int, int]:
        """Hits on (attacker, defender) by the dice alone, before R16.21 caps them."""
        return compare(self.attack_rolls, self.defence_rolls, self.drop_lowest, self.scales)

    def pairs(self) -> tuple[list[int], list[int], int | None]:
        """Both sides' rolls sorted high to low (R16.17), without the defender's dropped die,
        and that die (None when none is dropped)."""
        defence = sorted(self.defence_rolls, reverse=True)
        dropped = defence.pop() if self.drop_lowest and defence else None
        return sorted(self.attack_rolls, reverse=True), defence, dropped

    def paired(self) -> list[tuple[int, int]]:
        """The dice compared, highest against highest (R16.17); unpaired dice are left out."""
        attack, defence, _ = self.pairs()
        return list(zip(attack, defence, strict=False))

    def losses(self, state: GameState) -> dict[int, int]:
        """Units each seat has lost on the battle's two tiles since the dice rolled (R16.25),
        read in ``state``, a position after the roll."""
        now = units_by_seat(state, (self.a_tile, self.d_tile))
        return {seat: n - now.get(seat, 0) for seat, n in self.units_before.items()}


class _DiceWatch(Chance):
    """A copy of a random source that notes the battle whose dice start rolling."""

    __slots__ = ("target", "seen", "units")

    target: GameState
    seen: Battle | None
    units: dict[int, int]

    @classmethod
    def of(cls, source: Chance, target: GameState) -> _DiceWatch:
        watch = cls.__new__(cls)
        watch.state = source.state
        watch.forced = deque(source.forced)
        watch.log = []
        watch.target = target
        watch.seen = None
        watch.units = {}
        return watch

    def roll(self, sides: int) -> int:
        battle = self.target.battle
        if (self.seen is None and battle is not None and battle.attack_dice
                and not battle.attack_rolls):
            self.seen = battle  # the engine fills in its rolls as they are made
            self.units = units_by_seat(self.target, (battle.a_tile, battle.d_tile))
        return Chance.roll(self, sides)


def battle_report(before: GameState, action: Action) -> BattleReport | None:
    """The battle whose dice rolled when ``action`` (legal) was applied to ``before``, or
    None if no dice rolled. ``before`` is left as it was."""
    if before.battle is None and action.kind not in (ATTACK, VOLLEY):
        return None
    if before.battle is not None and before.battle.attack_rolls:
        return None  # this battle rolled in an earlier step
    probe = before.copy()
    watch = _DiceWatch.of(before.chance, probe)
    probe.chance = watch
    apply_unchecked(probe, action)
    battle = watch.seen
    if battle is None or not battle.attack_rolls:
        return None
    drop = (before.config.mountain_defence == "drop_lowest"
            and before.world.terrain[battle.d_tile] == Terrain.MOUNTAIN)
    return BattleReport(battle.attacker, battle.defender, battle.a_tile, battle.d_tile,
                        list(battle.attack_dice), list(battle.defence_dice),
                        list(battle.attack_rolls), list(battle.defence_rolls), drop,
                        probe.scales, dict(battle.cards), watch.units)
