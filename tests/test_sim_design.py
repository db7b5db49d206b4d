"""Experimental designs of simulations (issue 18): seat rotation and realm assignment are
exact, a pure function of the arguments, and really played by the engine."""

from __future__ import annotations

import json
from collections import Counter
from itertools import permutations
from math import perm

import pytest

from kaladan.cli.main import main
from kaladan.record import replay
from kaladan.rules.config import Config
from kaladan.rules.units import REALMS
from kaladan.sim.design import Design, DesignError, parse_realms
from kaladan.sim.runner import GameSpec, plan, play_spec, simulate


@pytest.mark.parametrize("bots", [("greedy", "random", "mcts", "x.py:X"),
                                  ("greedy", "random", "random"), ("a", "b")])
def test_seat_rotation_puts_each_bot_in_each_seat_equally_often(bots: tuple[str, ...]) -> None:
    n, rounds = len(bots), 5
    specs = plan(Config(players=n), bots, n * rounds, seed=3, design=Design(seats="rotate"))
    seats = Counter((bot, seat) for s in specs for seat, bot in enumerate(s.bots))
    multiplicity = Counter(bots)
    assert seats == {(bot, seat): rounds * multiplicity[bot]
                     for bot in multiplicity for seat in range(n)}
    assert all(sorted(s.bots) == sorted(bots) for s in specs)  # a rotation, never a new mix
    fixed = plan(Config(players=n), bots, 6, seed=3)
    assert all(s.bots == bots and s.realms is None for s in fixed)  # the default is unchanged


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_realm_rotation_plays_every_arrangement_once_per_block(players: int) -> None:
    size = perm(len(REALMS), players)
    design = Design(realms="rotate")
    assert design.block(players) == size
    arrangements = [design.realms_of(players, i, seed=9) for i in range(2 * size)]
    for block in (arrangements[:size], arrangements[size:]):
        assert Counter(block) == {p: 1 for p in permutations(REALMS, players)}
    # Every class of `players` games: the same realms, each in each seat once.
    for start in range(0, 2 * size, players):
        cls = arrangements[start:start + players]
        assert len({frozenset(a or ()) for a in cls}) == 1
        for seat in range(players):
            assert len({a[seat] for a in cls if a}) == players
    per_seat = Counter((a[seat], seat) for a in arrangements[:size] if a
                       for seat in range(players))
    assert set(per_seat.values()) == {size // len(REALMS)}
    assert arrangements[:size] != [design.realms_of(players, i, seed=10) for i in range(size)]


def test_both_rotations_cross_bots_with_realms_and_seats() -> None:
    bots = ("greedy", "random", "mcts")
    design = Design(seats="rotate", realms="rotate")
    games = design.block(3)
    assert games == 3 * perm(6, 3)
    specs = plan(Config(players=3), bots, games, seed=1, design=design)
    assert len({(s.bots, s.realms) for s in specs}) == games  # every combination once
    bot_realm = Counter((bot, realm) for s in specs for bot, realm in zip(
        s.bots, s.realms or (), strict=True))
    assert set(bot_realm.values()) == {games // 6}
    realm_seat = Counter((realm, seat) for s in specs for seat, realm in enumerate(s.realms or ()))
    assert set(realm_seat.values()) == {games // 6}


def test_fixed_listed_and_random_realms() -> None:
    assert Design(realms="fixed").realms_of(4, 7, seed=1) == REALMS[:4]
    listed = parse_realms("zhojira, Kimbria")
    assert listed == Design(realms="list", realm_list=("zhojira", "kimbria"))
    assert listed.realms_of(2, 5, seed=1) == ("zhojira", "kimbria")
    drawn = [Design(realms="random").realms_of(5, i, seed=4) for i in range(200)]
    assert all(d is not None and len(set(d)) == 5 and set(d) <= set(REALMS) for d in drawn)
    assert drawn == [Design(realms="random").realms_of(5, i, seed=4) for i in range(200)]
    assert len(set(drawn)) > 150  # really drawn per game
    seat_zero = Counter(d[0] for d in drawn if d)
    assert set(seat_zero) == set(REALMS)


@pytest.mark.parametrize("design, words", [
    (Design(realms="list", realm_list=("kimbria",)), "1 realms named for 2 seats"),
    (Design(realms="list", realm_list=("kimbria", "kimbria")), "a realm is named twice"),
    (Design(realms="list", realm_list=("kimbria", "atlantis")), "unknown realm 'atlantis'"),
    (Design(seats="shuffle"), "unknown seat design"),
])
def test_designs_that_cannot_be_played(design: Design, words: str) -> None:
    with pytest.raises(DesignError, match=words):
        design.check(2)


def test_plan_is_a_pure_function_of_its_arguments() -> None:
    config, bots = Config(players=4), ("greedy", "random", "random", "random")
    design = Design(seats="rotate", realms="rotate")
    whole = plan(config, bots, 40, seed=5, design=design)
    assert whole == plan(config, bots, 40, seed=5, design=design)
    assert plan(config, bots, 15, seed=5, design=design, start=25) == whole[25:]


@pytest.mark.parametrize("quick", [False, True])
def test_the_engine_plays_the_realms_of_the_design(quick: bool) -> None:
    """Realm decisions (R5.5) are taken for the design; with quick setup the rest of setup is
    dealt, otherwise the bots decide it. The record replays from its seed."""
    config = Config(players=3, quick_setup=quick, realm_conflict="roll_off")
    summary = simulate(config, ["random", "greedy", "random"], 6, seed=2,
                       design=Design(seats="rotate", realms="rotate"))
    specs = plan(config, ["random", "greedy", "random"], 6, seed=2,
                 design=Design(seats="rotate", realms="rotate"))
    for game, spec in zip(summary.games, specs, strict=True):
        assert tuple(game.realms) == spec.realms and tuple(game.bots) == spec.bots
    game = play_spec(GameSpec(config, 11, ("random", "random", "random"),
                              ("laurielle", "khalisia", "ardinor"), keep_record=True))
    assert game.realms == ["laurielle", "khalisia", "ardinor"]
    assert game.record is not None
    replayed = replay(game.record, use_seed=True)
    assert replayed.state.result is not None and replayed.state.result.winner == game.winner


def test_extra_gold_is_really_played() -> None:
    """A test ruleset's gold goes to the seat when play begins, and the engine spends it."""
    spec = GameSpec(Config(players=2), 5, ("greedy", "greedy"), ("kimbria", "nanchia"))
    plain = play_spec(spec)
    rich = play_spec(GameSpec(spec.config, spec.seed, spec.bots, spec.realms,
                              extra_gold=(40, 0)))
    assert (rich.decisions, rich.scores) != (plain.decisions, plain.scores)
    with pytest.raises(ValueError, match="no record"):
        play_spec(GameSpec(spec.config, 5, spec.bots, spec.realms, keep_record=True,
                           extra_gold=(1, 0)))


def test_simulate_cli_rotates_seats_and_realms_and_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--players", "greedy,random,random", "--games", "6", "--seed", "4",
            "--quick", "--seats", "rotate", "--realms", "rotate"]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "seats rotated" in data["design"] and "realms rotated" in data["design"]
    assert Counter(g["bots"].index("greedy") for g in data["games"]) == {0: 2, 1: 2, 2: 2}
    assert all(len(set(g["realms"])) == 3 for g in data["games"])
    assert all(sum(p) == s for g in data["games"] for p, s in zip(g["parts"], g["scores"],
                                                                   strict=True) if s is not None)
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "design: seats rotated" in text and "win rate by turn position" in text


@pytest.mark.parametrize("extra, words", [
    (["--realms", "kimbria"], "bad --realms"),
    (["--realms", "kimbria,kimbria"], "a realm is named twice"),
    (["--realms", "kimbria,atlantis"], "unknown realm 'atlantis'"),
    (["--realms", "kimbria,nanchia,ardinor"], "3 realms named for 2 seats"),
    (["--out", "games.parquet", "--records"], "--records needs a JSON lines --out"),
    (["--report", "/no/such/folder/r.html"], "its folder does not exist"),
])
def test_bad_design_arguments_are_a_message_and_exit_2(
        extra: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--players", "random,random", "--games", "2", *extra])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err


def test_an_unknown_seat_design_is_refused_by_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--players", "random,random", "--seats", "shuffle"])
    assert exit_info.value.code == 2 and "invalid choice" in capsys.readouterr().err
