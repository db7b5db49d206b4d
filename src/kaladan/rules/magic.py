"""Magic-card mechanics shared by every card (section 20): hands, realm pools, the starting
choice, the declaration windows of a battle and spent cards.

Card *effects* are registered here by card id (``register``); a card without a registered
effect is never offered, so a declaration step with nothing to declare is skipped. The
thirty effects of section 26 are added by the issue "All thirty magic cards".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .catalog import MAGIC_CARD_BY_ID, magic_cards_of
from .units import REALMS, Seat

if TYPE_CHECKING:
    from .state import Battle, GameState


@dataclass(frozen=True, slots=True)
class CardEffect:
    """What a card does; ``condition`` is checked when it is selected or played (R20.7)."""

    condition: Callable[[GameState, Battle, Seat], bool]
    resolve: Callable[[GameState, Battle, Seat], None]


EFFECTS: dict[str, CardEffect] = {}


def register(card_id: str, effect: CardEffect) -> None:
    if card_id not in MAGIC_CARD_BY_ID:
        raise KeyError(f"unknown magic card {card_id!r}")
    EFFECTS[card_id] = effect


def realm_cards(realm: int) -> list[str]:
    """The five card ids of a realm, in id order (R20.1)."""
    return [info.id for info in magic_cards_of(REALMS[realm])]


def card_realm(card_id: str) -> str:
    return MAGIC_CARD_BY_ID[card_id].realm


def side_of(battle: Battle, seat: Seat) -> str:
    return "attacker" if seat == battle.attacker else "defender"


def playable(state: GameState, battle: Battle, seat: Seat, windows: tuple[str, ...]) -> list[str]:
    """Cards ``seat`` may select now (R16.6-R16.8): right window, right side, condition holds."""
    if not EFFECTS or battle.used_card.get(seat):
        return []
    side = side_of(battle, seat)
    out = []
    for card_id in state.hand[seat]:
        effect = EFFECTS.get(card_id)
        if effect is None:
            continue
        info = MAGIC_CARD_BY_ID[card_id]
        if info.window not in windows or info.usable_by not in (side, "either"):
            continue
        if effect.condition(state, battle, seat):
            out.append(card_id)
    return sorted(set(out))


def must_declare(state: GameState, battle: Battle, seat: Seat) -> bool:
    """Is ``seat`` asked to declare (R16.5, R16.26)?

    A side that holds cards is always asked, even when none of them is usable, so that being
    asked reveals nothing beyond the public hand size (R5.13). While no card effect is
    registered no card is ever usable and the step is silent.
    """
    return bool(EFFECTS) and bool(state.hand[seat]) and not battle.used_card.get(seat)
