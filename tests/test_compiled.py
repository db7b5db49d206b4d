"""The compiled engine (mypyc) and its pure-Python fallback (docs/compiled.md).

Both run the same sources, so they must give the same games byte for byte (STYLE principle
5); ``KALADAN_PURE=1`` selects the sources at run time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kaladan
from kaladan.record import dumps
from kaladan.rules import legal, state
from kaladan.rules.config import Config
from kaladan.sim.runner import play_game

GAME = """
import sys
from kaladan.record import dumps
from kaladan.rules.config import Config
from kaladan.sim.runner import play_game
config = Config(players=int(sys.argv[1]), mode=sys.argv[2])
game = play_game(config, int(sys.argv[3]), sys.argv[4].split(","), keep_record=True)
sys.stdout.write(dumps(game.record))
"""


def _pure(*args: str) -> str:
    env = dict(os.environ, KALADAN_PURE="1")
    return subprocess.run([sys.executable, "-c", *args], env=env, check=True,
                          capture_output=True, text=True).stdout


def test_ci_runs_the_compiled_engine() -> None:
    # A build that fell back to pure Python would pass every other test unnoticed.
    if kaladan.engine_mode() != "compiled":
        if os.environ.get("CI"):
            pytest.fail("CI must run the compiled engine: the build fell back to pure Python")
        pytest.skip("the compiled engine is not built here")
    assert legal.__file__ is not None and not legal.__file__.endswith(".py")


def test_kaladan_pure_runs_the_sources() -> None:
    out = _pure("import kaladan; from kaladan.rules import legal, state; "
                "print(kaladan.engine_mode(), legal.__file__, state.__file__)")
    mode, *files = out.split()
    assert mode == "pure"
    assert all(f.endswith(".py") for f in files)


@pytest.mark.parametrize(("players", "mode", "seed", "bots"), [
    (2, "free_for_all", 11, "greedy,random"),
    (4, "team_2v2", 12, "random,greedy,random,greedy"),
    (6, "free_for_all", 13, "random,random,random,random,random,random"),
])
def test_compiled_and_pure_give_the_same_record(players: int, mode: str, seed: int,
                                                bots: str) -> None:
    if kaladan.engine_mode() != "compiled":
        pytest.skip("the compiled engine is not built here")
    game = play_game(Config(players=players, mode=mode), seed, bots.split(","),
                     keep_record=True)
    assert game.record is not None
    here = dumps(game.record)
    assert _pure(GAME, str(players), mode, str(seed), bots) == here
    assert state.__file__ is not None and not state.__file__.endswith(".py")


def test_states_pickle_in_every_part() -> None:
    # The server's bot workers receive pickled states (bots/worker.py); a compiled class is
    # rebuilt through its __init__, so every part must pickle by value: mid-battle, mid-event,
    # finished, with forced outcomes queued.
    import pickle
    import random

    from kaladan.rules.apply import apply_unchecked
    from kaladan.rules.legal import legal_actions
    from kaladan.rules.notation import position_to_json
    from kaladan.rules.setup import new_game

    seen = {"battle": 0, "event": 0, "over": 0}
    for seed in range(6):
        s = new_game(Config(players=3), seed)
        rng = random.Random(seed)
        while True:
            parts = {"battle": s.battle is not None, "event": s.event is not None,
                     "over": s.result is not None}
            if any(parts.values()):
                s.chance.force([1])
                back = pickle.loads(pickle.dumps(s))
                assert position_to_json(back) == position_to_json(s)
                assert list(back.chance.forced) == [1] and back.chance.log == s.chance.log
                s.chance.forced.clear()
                for name, present in parts.items():
                    seen[name] += present
            if s.result is not None:
                break
            legal = legal_actions(s)
            apply_unchecked(s, legal[int(rng.random() * len(legal))])
    assert all(seen.values()), seen


EPISODE = """
import hashlib, random, sys
import numpy as np
from kaladan.env import encoding, kaladan_v0, observation
env = kaladan_v0.env(players=int(sys.argv[1]), mode=sys.argv[2])
env.reset(seed=int(sys.argv[3]))
rng = random.Random(int(sys.argv[3]))
digest = hashlib.sha256()
for agent in env.agent_iter():
    obs, reward, terminated, truncated, _ = env.last()
    for part in (obs["observation"], obs["action_mask"]):
        digest.update(part.tobytes())
    digest.update(repr((agent, reward, terminated, truncated)).encode())
    if terminated or truncated:
        env.step(None)
        continue
    legal = np.flatnonzero(obs["action_mask"])
    env.step(int(legal[rng.randrange(len(legal))]))
print(digest.hexdigest(), encoding.__file__, observation.__file__)
"""


@pytest.mark.parametrize(("players", "mode", "seed"), [(2, "free_for_all", 21),
                                                       (4, "team_2v2", 22)])
def test_compiled_and_pure_envs_give_the_same_episode(players: int, mode: str,
                                                      seed: int) -> None:
    # The research environments' encoders are compiled with the engine (setup.py): every
    # observation, mask and reward of a seeded episode is the same in both forms.
    pytest.importorskip("pettingzoo")
    if kaladan.engine_mode() != "compiled":
        pytest.skip("the compiled engine is not built here")
    args = (EPISODE, str(players), mode, str(seed))
    compiled = subprocess.run([sys.executable, "-c", *args], check=True, capture_output=True,
                              text=True).stdout.split()
    pure = _pure(*args).split()
    assert compiled[0] == pure[0]
    assert not any(f.endswith(".py") for f in compiled[1:])
    assert all(f.endswith(".py") for f in pure[1:])


SIMULATION = """
import json, sys
from dataclasses import replace
from kaladan.rules.config import Config
from kaladan.sim import seats
from kaladan.sim.design import Design
from kaladan.sim.runner import plan, play_spec
specs = plan(Config(players=4), ["random", "greedy", "random", "random"], 6, 31,
             Design("rotate", "rotate"))
specs[1] = replace(specs[1], extra_gold=(3, 0, 0, 5))  # a balance study's test ruleset
games = [play_spec(spec).to_json() for spec in specs]
print(json.dumps(games, sort_keys=True))
print(seats.__file__)
"""


RANDOM_GAMES = """
import hashlib, json, random, sys
sys.path.insert(0, sys.argv[1])
from test_invariants import random_config
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.legal import legal_actions
from kaladan.rules.notation import position_to_json
from kaladan.rules.setup import new_game
digest = hashlib.sha256()
for index in range(int(sys.argv[2])):
    config = random_config(index)
    if config.players in (4, 6) and index % 2:
        config = config.with_options(mode="team_2v2" if config.players == 4 else "team_3v3")
    state = new_game(config, 10_000 + index)
    rng = random.Random(index)
    steps = 0
    while not state.is_over:
        legal = legal_actions(state)
        apply_unchecked(state, legal[rng.randrange(len(legal))])
        steps += 1
        if steps % 40 == 0:
            digest.update(json.dumps(position_to_json(state), sort_keys=True).encode())
    digest.update(json.dumps(position_to_json(state), sort_keys=True).encode())
print(digest.hexdigest())
print(sys.modules["kaladan.rules.legal"].__file__)
"""


def test_compiled_and_pure_play_the_invariant_suites_games_alike() -> None:
    # The pure-engine pass of scripts/test.sh leaves out the slow invariant suites. In their
    # stead, 200 random games drawn as they draw theirs (every option, custom worlds, team
    # modes) reach the same positions on both engines, compared every 40 decisions and at
    # the end.
    if kaladan.engine_mode() != "compiled":
        pytest.skip("the compiled engine is not built here")
    args = (RANDOM_GAMES, str(Path(__file__).parent / "rules"), "200")
    compiled = subprocess.run([sys.executable, "-c", *args], check=True, capture_output=True,
                              text=True).stdout.splitlines()
    pure = _pure(*args).splitlines()
    assert compiled[0] == pure[0]
    assert not compiled[1].endswith(".py") and pure[1].endswith(".py")


def test_compiled_and_pure_simulations_give_the_same_games() -> None:
    # kaladan simulate's loop (sim/seats.py), the seat view and the random bot are compiled
    # with the engine: the games of a run, with the design's realms, quick setup's deal and a
    # test ruleset's extra gold, are the same in both forms.
    if kaladan.engine_mode() != "compiled":
        pytest.skip("the compiled engine is not built here")
    compiled = subprocess.run([sys.executable, "-c", SIMULATION], check=True,
                              capture_output=True, text=True).stdout.splitlines()
    pure = _pure(SIMULATION).splitlines()
    assert compiled[0] == pure[0]
    assert len(json.loads(compiled[0])) == 6
    assert not compiled[1].endswith(".py") and pure[1].endswith(".py")
