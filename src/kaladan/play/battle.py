"""How a battle ended, followed across decisions for the terminal game's battle panel.

The dice of a battle come from the shared probe in ``kaladan.battle_report`` (also used by the
server).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..rules.actions import ATTACK, VOLLEY, Action
from ..rules.state import GameState
from ..rules.units import UnitCode


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
