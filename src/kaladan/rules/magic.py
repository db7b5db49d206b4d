"""Magic-card mechanics shared by every card (section 20): hands, realm pools, the starting
choice, the declaration windows of a battle and spent cards.

Card *effects* are registered here by card id (``register``, called by ``rules.cards``); a
card without a registered effect is never offered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, final

from .catalog import MAGIC_CARD_BY_ID, magic_cards_of
from .gamelog import CardSpent
from .units import REALMS, Seat

if TYPE_CHECKING:
    from .actions import Action
    from .state import Battle, GameState

Condition = Callable[["GameState", "Battle", Seat], bool]
Options = Callable[["GameState", "Battle", Seat], Sequence["Action"]]
Effect = Callable[["GameState", "Battle", Seat, "Action | None"], None]

STOP: Final = "stop"  # R20.8: the attack is stopped
EVADE: Final = "evade"  # R20.9: the defender's units leave D
VOLLEY: Final = "volley"  # LAU-1: declared with the attack itself (R16.9)
EFFECT: Final = "effect"  # everything else, applied in the card's window


@final
@dataclass(frozen=True)
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


EFFECTS: Final[dict[str, CardEffect]] = {}


def register(card_id: str, effect: CardEffect) -> None:
    if card_id not in MAGIC_CARD_BY_ID:
        raise KeyError(f"unknown magic card {card_id!r}")
    EFFECTS[card_id] = effect


# The catalog's facts read during play, as tables by card id and realm.
_REALM_CARDS: Final = tuple(tuple(info.id for info in magic_cards_of(realm)) for realm in REALMS)
_REALM_OF: Final = {card.id: card.realm for card in MAGIC_CARD_BY_ID.values()}
_WINDOW_OF: Final = {card.id: card.window for card in MAGIC_CARD_BY_ID.values()}
_USABLE_BY: Final = {card.id: card.usable_by for card in MAGIC_CARD_BY_ID.values()}


def realm_cards(realm: int) -> list[str]:
    """The five card ids of a realm, in id order (R20.1)."""
    return list(_REALM_CARDS[realm])


def card_realm(card_id: str) -> str:
    return _REALM_OF[card_id]


def window(card_id: str) -> str:
    return _WINDOW_OF[card_id]


def same_side(battle: Battle, seat: Seat, leader: Seat) -> bool:
    """Is ``seat`` on ``leader``'s side of the battle (same team)?"""
    return battle.team[seat] == battle.team[leader]


def side_of(battle: Battle, seat: Seat) -> str:
    return "attacker" if same_side(battle, seat, battle.attacker) else "defender"


def side_players(state: GameState, battle: Battle, leader: Seat) -> list[Seat]:
    """Players of ``leader``'s side in the battle (units on its tile when it was declared,
    R20.2): the leader first, then in turn order after the active player (R23.21, R23.23)."""
    if not state.teams:
        return [leader]  # free-for-all: one player a side
    order = [(state.active + k) % state.n for k in range(state.n)]
    return [leader] + [p for p in order if p != leader and p in battle.participants
                       and same_side(battle, p, leader)]


def playable(state: GameState, battle: Battle, leader: Seat,
             windows: tuple[str, ...]) -> list[str]:
    """Cards the side of ``leader`` may select now (R16.6-R16.8, R23.23): held by a player of
    the side in the battle, right window, usable by the side, condition true for its holder."""
    if battle.used_card.get(leader):
        return []
    side = side_of(battle, leader)
    out = set()
    for holder in side_players(state, battle, leader):
        for card_id in state.hand[holder]:
            effect = EFFECTS.get(card_id)
            if effect is None or effect.kind == VOLLEY:
                continue
            if _WINDOW_OF[card_id] not in windows or _USABLE_BY[card_id] not in (side, "either"):
                continue
            if effect.condition(state, battle, holder):
                out.add(card_id)
    return sorted(out)


def holder_of(state: GameState, battle: Battle, leader: Seat, card_id: str) -> Seat:
    """The player of ``leader``'s side who holds the card (R23.23)."""
    return next(p for p in side_players(state, battle, leader) if card_id in state.hand[p])


def must_declare(state: GameState, battle: Battle, leader: Seat) -> bool:
    """Is the side of ``leader`` asked to declare (R16.5, R16.26)?

    A side whose players hold cards is always asked, even when none of them is usable, so
    that being asked reveals nothing beyond the public hand sizes (R5.13).
    """
    if not EFFECTS or battle.used_card.get(leader):
        return False
    if not state.teams:
        return bool(state.hand[leader])
    return any(state.hand[p] for p in side_players(state, battle, leader))


def spend(state: GameState, seat: Seat, card_id: str) -> None:
    """R20.6: the card's effect takes place; it leaves the hand for good (R11.16)."""
    state.hand[seat].remove(card_id)
    state.spent.append(card_id)
    if state.sink is not None:
        state.sink.append(CardSpent(seat, card_id))


def card_of(battle: Battle, holder: Seat) -> str:
    """The card ``holder`` holds in this battle (one card per side, R16.7)."""
    return next(card for leader, card in battle.cards.items()
                if battle.holders.get(leader, leader) == holder)
