"""What a battle looked like: both dice pools, the rolls sorted and paired, hits and losses.

The engine keeps a battle only while it is in progress (``state.battle``), and one decision may
declare, roll and finish a battle at once. So the dice are read from a probe: the same decision
applied to a copy of the position whose random source notes the battle at each roll. The probe
draws exactly the outcomes the real step drew (same generator state), and never touches the game.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

from ..rules.actions import ATTACK, VOLLEY, Action
from ..rules.apply import apply_unchecked
from ..rules.chance import Chance
from ..rules.combat import compare
from ..rules.state import Battle, GameState
from ..rules.units import UnitCode
from ..rules.world import Terrain


class _RollWatch(Chance):
    """A copy of a random source that remembers the battle in progress when dice are rolled."""

    __slots__ = ("target", "seen")

    target: GameState
    seen: Battle | None

    @classmethod
    def of(cls, source: Chance, target: GameState) -> _RollWatch:
        watch = cls.__new__(cls)
        watch.state = source.state
        watch.forced = deque(source.forced)
        watch.log = []
        watch.target = target
        watch.seen = None
        return watch

    def roll(self, sides: int) -> int:
        value = Chance.roll(self, sides)
        if self.target.battle is not None:
            self.seen = self.target.battle
        return value


@dataclass(slots=True)
class Roll:
    """The dice of one battle (R16.13-R16.21)."""

    attacker: int
    defender: int
    a_tile: int
    d_tile: int
    attack_dice: list[int]
    defence_dice: list[int]
    attack_rolls: list[int]
    defence_rolls: list[int]
    drop_lowest: bool
    scales: bool
    cards: dict[int, str] = field(default_factory=dict)

    @property
    def hits(self) -> tuple[int, int]:
        """Hits on (attacker, defender), before they are capped by the units there (R16.21)."""
        return compare(self.attack_rolls, self.defence_rolls, self.drop_lowest, self.scales)

    def pairs(self) -> tuple[list[int], list[int], int | None]:
        """Both sides' rolls sorted high to low (R16.17), and the defender's dropped die."""
        defence = list(self.defence_rolls)
        dropped = None
        if self.drop_lowest and defence:
            dropped = min(defence)
            defence.remove(dropped)
        return (sorted(self.attack_rolls, reverse=True), sorted(defence, reverse=True), dropped)


def rolled_dice(before: GameState, action: Action) -> Roll | None:
    """The dice rolled by applying ``action`` to ``before``, or None if no battle rolled."""
    if before.battle is None and action.kind not in (ATTACK, VOLLEY):
        return None
    if before.battle is not None and before.battle.attack_rolls:
        return None  # this battle rolled in an earlier step
    probe = before.copy()
    watch = _RollWatch.of(before.chance, probe)
    probe.chance = watch
    apply_unchecked(probe, action)
    battle = watch.seen
    if battle is None or not battle.attack_rolls:
        return None
    drop = (before.config.mountain_defence == "drop_lowest"
            and before.world.terrain[battle.d_tile] == Terrain.MOUNTAIN)
    return Roll(battle.attacker, battle.defender, battle.a_tile, battle.d_tile,
                list(battle.attack_dice), list(battle.defence_dice), list(battle.attack_rolls),
                list(battle.defence_rolls), drop, probe.scales, dict(battle.cards))


@dataclass(slots=True)
class Outcome:
    """How a battle ended: who holds the defended tile and which units died (R16.25-R16.29)."""

    attacker: int
    defender: int
    d_tile: int
    taken: bool
    emptied: bool  # nobody is left on the defended tile (no invasion, or a volley, R17.6)
    losses: list[UnitCode]


def _on_board(state: GameState) -> Counter[UnitCode]:
    """Every unit on the board. What a battle takes off it died (R16.25), whether it went to a
    graveyard (R17.2) or, a special unit, back to its owner's reserve (R17.5); units that only
    moved (invasion R17.6, evasion R20.9) stay counted."""
    return Counter(c for units in state.board for c in units)


@dataclass(slots=True)
class BattleWatch:
    """Follows battles across decisions: remembers who fought at declaration, reports the end."""

    board_before: Counter[UnitCode] | None = None
    attacker: int = -1
    defender: int = -1
    d_tile: int = -1

    def step(self, before: GameState, action: Action, after: GameState) -> Outcome | None:
        """Call after every decision; returns the outcome when a battle has just ended."""
        if self.board_before is None:
            if before.battle is not None:  # a battle already running (a loaded game)
                battle = before.battle
                self.attacker, self.defender, self.d_tile = (battle.attacker, battle.defender,
                                                             battle.d_tile)
            elif action.kind in (ATTACK, VOLLEY):  # declared by this decision (R16.1)
                self.attacker, self.d_tile = before.active, action.tile2
                self.defender = before.tile_owner(action.tile2)
            else:
                return None
            self.board_before = _on_board(before)
        if after.battle is not None:
            return None
        lost = self.board_before - _on_board(after)
        holder = after.tile_owner(self.d_tile)
        taken = holder >= 0 and after.team[holder] == after.team[self.attacker]
        self.board_before = None
        return Outcome(self.attacker, self.defender, self.d_tile, taken, holder < 0,
                       sorted(lost.elements()))
