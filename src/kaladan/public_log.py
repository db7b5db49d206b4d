"""Which applied decisions other seats may read, for every front end's game log.

A decision that names a secret card reads as hidden to everyone outside the decider's team:
the starting card (R5.7), a magic card selected face down (R16.5), cards taken from a pool
(R11.12-R11.14) or from an eliminated player (R18.6). Allies see each other's cards (R23.5).
"""

from __future__ import annotations

from .rules.actions import BUYCARD, CARD, EXTRACARD, MAGIC, SWAPCARD
from .rules.state import GameState

__all__ = ["PRIVATE_KINDS", "action_kind", "hidden_text", "is_private", "may_read"]

PRIVATE_KINDS = frozenset({CARD, MAGIC, SWAPCARD, EXTRACARD, BUYCARD})


def action_kind(text: str) -> str:
    """The kind of an action's canonical text: its first word."""
    return text.split(" ", 1)[0]


def is_private(text: str) -> bool:
    """Whether the action's text names a card other teams may not see (an ``extracard``
    without a card name hides nothing)."""
    return action_kind(text) in PRIVATE_KINDS and " " in text.strip()


def may_read(state: GameState, author: int, reader: int | None) -> bool:
    """Whether seat ``reader`` (None: a spectator) may see the cards named in a private
    decision of seat ``author``: only the author's team may (R23.5)."""
    return reader is not None and state.team[author] == state.team[reader]


def hidden_text(text: str) -> str:
    """A private decision as other seats read it in the API's log: ``magic committed`` or
    ``<kind> (hidden)``. Public decisions are returned unchanged."""
    if not is_private(text):
        return text
    kind = action_kind(text)
    return "magic committed" if kind == MAGIC else f"{kind} (hidden)"
