"""Bad input never escapes as anything but a typed KaladanError, and never changes the game.

Seeded fuzzing of the text interface: random words, real verbs with random arguments, and
legal actions with one word changed, played through the checked ``Game`` facade in positions
of random games.
"""

from __future__ import annotations

import random

from kaladan.game import Game
from kaladan.rules.actions import Kind
from kaladan.rules.config import Config
from kaladan.rules.errors import KaladanError
from kaladan.rules.notation import position_to_json

WORDS = ["T1", "T4", "T99", "C1", "C9", "sword", "sword+", "crown", "special", "special:kimbria",
         "special:atlantis", "archer,shield", "-", "KHA-1", "LAU-1", "NAN-9", "0", "1", "7",
         "kimbria", "atlantis", ",", "++", "", "general+", "T0", "t3", "c2"]


def garbage(rng: random.Random, legal: list[str]) -> str:
    roll = rng.random()
    if roll < 0.3 and legal:  # a legal action with one word replaced
        words = rng.choice(legal).split()
        words[rng.randrange(len(words))] = rng.choice(WORDS)
        return " ".join(words)
    if roll < 0.7:  # a real verb with random arguments
        return " ".join([rng.choice(list(Kind)).value] + [rng.choice(WORDS)
                                               for _ in range(rng.randrange(5))])
    return "".join(rng.choice("abcdefT1C2 ,+-:") for _ in range(rng.randrange(12)))


def test_garbage_text_gives_typed_errors_and_changes_nothing() -> None:
    rng = random.Random(2026)
    tried = refused = 0
    for seed in range(12):
        game = Game.new(Config(players=2 + seed % 5), seed)
        steps = 0
        while not game.is_over and steps < 400:
            legal = game.legal_texts()
            for _ in range(3):
                text = garbage(rng, legal)
                before = position_to_json(game.state)
                tried += 1
                try:
                    game.play(text)
                except KaladanError:
                    refused += 1
                    assert position_to_json(game.state) == before, text
                else:
                    # A well-formed legal action: fine, it was one of the legal ones.
                    assert len(game.steps) > 0
                    legal = game.legal_texts()
                if game.is_over:
                    break
            if game.is_over:
                break
            game.play(rng.choice(game.legal_texts()))
            steps += 1
    assert tried > 1000 and refused > tried // 2
