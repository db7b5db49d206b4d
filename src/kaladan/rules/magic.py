"""Magic-card mechanics shared by every card (section 20): hands, realm pools, the starting
choice, the declaration windows of a battle and spent cards.

Card *effects* are registered here by card id (``register``, called by ``rules.cards``); a
card without a registered effect is never offered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .catalog import MAGIC_CARD_BY_ID, magic_cards_of
from .units import REALMS, Seat

if TYPE_CHECKING:
    from .actions import Action
    from .state import Battle, GameState

Condition = Callable[["GameState", "Battle", Seat], bool]
Options = Callable[["GameState", "Battle", Seat], Sequence["Action"]]
Effect = Callable[["GameState", "Battle", Seat, "Action | None"], None]

STOP = "stop"  # R20.8: the attack is stopped
EVADE = "evade"  # R20.9: the defender's units leave D
VOLLEY = "volley"  # LAU-1: declared with the attack itself (R16.9)
EFFECT = "effect"  # everything else, applied in the card's window


@dataclass(frozen=True, slots=True)
class CardEffect:
    """What a card does.

    ``condition`` is checked when the card is selected or played (R20.7). ``options``, when
    given, lists the choices the holder makes as the effect takes place (a unit to kill, where
    to place units, which units to save); ``apply`` carries the effect out with the chosen
    action (None when there is nothing to choose).
    """

    condition: Condition
    kind: str = EFFECT
    options: Options | None = None
    apply: Effect | None = None


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


def window(card_id: str) -> str:
    return MAGIC_CARD_BY_ID[card_id].window


def side_of(battle: Battle, seat: Seat) -> str:
    return "attacker" if seat == battle.attacker else "defender"


def playable(state: GameState, battle: Battle, seat: Seat, windows: tuple[str, ...]) -> list[str]:
    """Cards ``seat`` may select now (R16.6-R16.8): right window, right side, condition holds."""
    if battle.used_card.get(seat):
        return []
    side = side_of(battle, seat)
    out = []
    for card_id in sorted(set(state.hand[seat])):
        effect = EFFECTS.get(card_id)
        if effect is None or effect.kind == VOLLEY:
            continue
        info = MAGIC_CARD_BY_ID[card_id]
        if info.window not in windows or info.usable_by not in (side, "either"):
            continue
        if effect.condition(state, battle, seat):
            out.append(card_id)
    return out


def must_declare(state: GameState, battle: Battle, seat: Seat) -> bool:
    """Is ``seat`` asked to declare (R16.5, R16.26)?

    A side that holds cards is always asked, even when none of them is usable, so that being
    asked reveals nothing beyond the public hand size (R5.13). While no card effect is
    registered no card is ever usable and the step is silent.
    """
    return bool(EFFECTS) and bool(state.hand[seat]) and not battle.used_card.get(seat)


def spend(state: GameState, seat: Seat, card_id: str) -> None:
    """R20.6: the card's effect takes place; it leaves the hand for good (R11.16)."""
    state.hand[seat].remove(card_id)
    state.spent.append(card_id)
