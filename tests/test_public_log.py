"""What other seats read of a decision (``kaladan.public_log``, R5.13, R16.5, R23.5)."""

from __future__ import annotations

import pytest

from kaladan.game import Game
from kaladan.public_log import hidden_text, is_private, may_read
from kaladan.rules.config import Config


@pytest.mark.parametrize(("text", "shown"), [
    ("card KHA-1", "card (hidden)"),
    ("magic KHA-5", "magic committed"),
    ("swapcard KHA-1 KHA-3", "swapcard (hidden)"),
    ("buycard KIM-2", "buycard (hidden)"),
    ("extracard KHA-4", "extracard (hidden)"),
])
def test_card_names_of_private_decisions_are_hidden(text: str, shown: str) -> None:
    assert is_private(text)
    assert hidden_text(text) == shown
    assert text.split()[1] not in hidden_text(text)


@pytest.mark.parametrize("text", ["move T1 T2 sword", "nomagic", "attack T3 T6", "extracard",
                                  "pass"])
def test_public_decisions_read_the_same_for_everyone(text: str) -> None:
    assert not is_private(text)
    assert hidden_text(text) == text


def test_only_the_authors_team_may_read_its_cards() -> None:
    """R23.5: allies see each other's cards; opponents and spectators do not."""
    state = Game.new(Config(players=4, mode="team_2v2", quick_setup=True), 1).state
    allies = [s for s in range(4) if state.team[s] == state.team[0]]
    assert len(allies) == 2
    for reader in range(4):
        assert may_read(state, 0, reader) == (reader in allies)
    assert not may_read(state, 0, None)
