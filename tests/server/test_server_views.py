"""Views built from the decision log: the last battle's dice and losses, the private log."""

from __future__ import annotations

import random

from live_support import live_game

from kaladan.rules.combat import compare
from kaladan.server.views import build_view, log_json


def test_battles_are_captured_with_sorted_paired_dice_and_losses() -> None:
    battles = one_step_battles = 0
    for seed in range(40):  # a battle rarely starts and ends within one decision
        live = live_game(2, seed, quick=True)
        game, rng = live.game, random.Random(seed)
        while not game.is_over:
            before = game.state
            legal = game.legal_actions()
            action = legal[rng.randrange(len(legal))]
            step = game.play(action, before.pending.seat)
            previous = live.battle
            live.record(before, step)
            live.publish()
            if live.battle is None or live.battle is previous:
                continue
            record = live.battle.report
            battles += 1
            one_step_battles += game.state.battle is None
            assert len(record.attack_rolls) == len(record.attack_dice) > 0
            assert all(1 <= r <= d for r, d in zip(record.attack_rolls, record.attack_dice,
                                                   strict=True))
            assert all(1 <= r <= d for r, d in zip(record.defence_rolls,
                                                   record.defence_dice, strict=True))
            view = live.snapshot.battle if live.snapshot else None
            assert view is not None
            assert view["attack_rolls"] == sorted(record.attack_rolls, reverse=True)
            assert [p[0] for p in view["pairs"]] == view["attack_rolls"][:len(view["pairs"])]
            hits = compare(record.attack_rolls, record.defence_rolls, record.drop_lowest,
                           record.scales)
            assert (view["hits"]["attacker"], view["hits"]["defender"]) == hits
            assert all(0 <= n <= record.units_before[int(s)] for s, n in view["losses"].items())
        assert live.battle is None or live.battle.over or game.state.battle is not None
    assert battles >= 50 and one_step_battles > 0  # also battles fought within one decision


def test_private_decisions_are_hidden_from_other_seats_only() -> None:
    live = live_game(2, 4)
    game = live.game
    while not any(e.kind == "card" for e in live.log):  # play the setup up to a card choice
        before = game.state
        step = game.play(game.legal_actions()[0], before.pending.seat)
        live.record(before, step)
    live.publish()
    entry = next(e for e in live.log if e.kind == "card")
    other = 1 - entry.seat
    mine = log_json(live.log, game.state, entry.seat)[entry.version - 1]
    theirs = log_json(live.log, game.state, other)[entry.version - 1]
    public = log_json(live.log, game.state, None)[entry.version - 1]
    assert mine["text"] == entry.text and entry.text.split()[1] in entry.text
    assert theirs["text"] == public["text"] == "card (hidden)"
    assert not mine["public"] and not theirs["public"]
    assert build_view(live, other)["log"][-1]["text"] == "card (hidden)"


def test_views_are_cached_per_version_and_seat() -> None:
    live = live_game(2, 1)
    first = build_view(live, 0)
    assert build_view(live, 0) is first
    before = live.game.state
    step = live.game.play(live.game.legal_actions()[0], before.pending.seat)
    live.record(before, step)
    assert build_view(live, 0) is first  # not published yet: views stay where they were
    live.publish()
    assert build_view(live, 0)["version"] == first["version"] + 1
