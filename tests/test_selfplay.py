"""Self-play data (issue 43): the same seed gives the same file whatever the number of
processes; ``positions`` is exact; the compact positions replay the very games ``simulate``
plays (checked against their game records, replayed by the ``Game`` facade) and expand to the
observation vectors and masks the env encoders make of those games' real states; outcomes are
``EnvCore.returns`` (team members share theirs, R23.1); both file formats read back; bad
command lines are clear errors with exit code 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kaladan.cli.main import main
from kaladan.env.core import EnvCore
from kaladan.env.encoding import ActionEncoder, Choice
from kaladan.env.observation import ObservationEncoder
from kaladan.game import Game
from kaladan.rules.config import Config
from kaladan.rules.kinds import format_action
from kaladan.rules.legal import legal_actions
from kaladan.sim.runner import GameSpec, game_seed, play_spec
from kaladan.sim.selfplay import SelfPlayData, SelfPlayError, generate, load

BOTS = ["greedy"] * 4
CONFIG = Config(players=4)
POSITIONS = 700  # greedy 4-player games take about 230 decisions: the fourth game is cut


@pytest.fixture(scope="module")
def data() -> SelfPlayData:
    return generate(CONFIG, BOTS, 5, positions=POSITIONS, masks=True)


@pytest.fixture(scope="module")
def records(data: SelfPlayData) -> list[dict[str, Any]]:
    """The games as ``kaladan simulate`` plays them, with their records."""
    out = []
    for g in range(data.games):
        game = play_spec(GameSpec(CONFIG, game_seed(5, g), tuple(BOTS), keep_record=True))
        assert game.record is not None
        out.append(game.record)
    return out


def test_positions_is_exact_and_the_last_game_is_cut(data: SelfPlayData) -> None:
    assert len(data) == POSITIONS and data.meta["positions"] == POSITIONS
    assert data.games == data.meta["games"] == len(data.game_seed)
    played = int(data.game_decisions.sum())
    assert played - int(data.game_decisions[-1]) < POSITIONS <= played  # stopped at the first
    assert list(data.game_seed) == [game_seed(5, g) for g in range(data.games)]
    starts = data.starts()
    for g in range(data.games):
        rows = slice(int(starts[g]), int(starts[g + 1]))
        assert list(data.game[rows]) == [g] * (rows.stop - rows.start)
        assert list(data.decision[rows]) == list(range(rows.stop - rows.start))
    assert int(starts[-1] - starts[-2]) < int(data.game_decisions[-1])
    assert data.mask_offsets is not None
    assert len(data.token_offsets) == POSITIONS + 1 == len(data.mask_offsets)
    assert all(data.head[i] == data.tokens_of(i)[0] for i in range(POSITIONS))


def test_games_are_those_simulate_plays_and_replay_to_their_results(
        data: SelfPlayData, records: list[dict[str, Any]]) -> None:
    starts = data.starts()
    for g, record in enumerate(records):
        steps = record["steps"]
        assert int(data.game_decisions[g]) == len(steps)
        result = record["result"]
        scores = [-1 if s is None else s for s in result["scores"]]
        assert list(data.score[g]) == scores
        winners = [p for p in range(4) if data.outcome[g][p] == 1]
        assert winners == ([] if result["winner"] is None else [result["winner"]])
        # The action indices replay the game step for step: seat, action text, the tokens.
        game = Game.new(CONFIG, int(data.game_seed[g]))
        encoder = ActionEncoder(CONFIG, game.state.world)
        for i in range(int(starts[g]), int(starts[g + 1])):
            step = steps[int(data.decision[i])]
            seat = int(data.seat[i])
            assert seat == step["seat"] == game.state.pending.seat
            action = legal_actions(game.state)[int(data.action[i])]
            assert format_action(action, game.state) == step["action"]
            assert encoder.decode(list(data.tokens_of(i)), seat) == action
            game.play(action, seat)
        if g < data.games - 1:  # whole games end as recorded, with EnvCore's returns
            assert game.state.result is not None and game.is_over
            assert {"end": game.state.result.end, "winner": game.state.result.winner,
                    "scores": game.state.result.scores} == result
            core = EnvCore(CONFIG)
            core.state = game.state
            assert [int(v) for v in data.outcome[g]] == core.returns()


def test_observations_and_masks_expand_to_the_encoders_vectors_of_the_real_states(
        data: SelfPlayData, records: list[dict[str, Any]]) -> None:
    starts = data.starts()
    wanted = sorted({0, 1, 57, int(starts[1]) + 3, int(starts[2]) - 1, int(starts[-2]) + 5,
                     POSITIONS - 1, *range(200, 600, 37)})
    expanded = data.observations([*reversed(wanted), wanted[0]])[::-1][1:]  # any order, twice
    masks = data.masks(wanted)
    replayed_masks = SelfPlayData(**{**_fields(data), "mask_heads": None,
                                     "mask_offsets": None}).masks(wanted)
    assert np.array_equal(masks, replayed_masks)
    seen = 0
    for g, record in enumerate(records):
        game = Game.new(CONFIG, int(data.game_seed[g]))
        observer = ObservationEncoder(CONFIG, game.state.world)
        actions = ActionEncoder(CONFIG, game.state.world)
        for d, step in enumerate(record["steps"]):
            i = int(starts[g]) + d
            if i in wanted:
                k = wanted.index(i)
                seat = step["seat"]
                assert np.array_equal(expanded[k], observer.encode(game.state, seat))
                mask = Choice(actions, game.state, legal_actions(game.state)).mask(np.bool_)
                assert np.array_equal(masks[k], mask)
                assert masks[k][data.head[i]]
                seen += 1
            if i >= POSITIONS - 1:
                break
            game.play(step["action"], step["seat"])
    assert seen == len(wanted)
    heads = data.masks()
    assert heads[np.arange(len(data)), data.head].all()  # every taken head was legal
    second = data.seat == 1  # a boolean selection picks the same positions as their indices
    assert np.array_equal(data.masks(second), heads[np.flatnonzero(second)])


def _fields(data: SelfPlayData) -> dict[str, Any]:
    return {name: getattr(data, name) for name in SelfPlayData.__dataclass_fields__}


def test_same_seed_same_bytes_whatever_the_jobs(tmp_path: Path) -> None:
    config = Config(players=2)
    one = generate(config, ["greedy", "random"], 9, positions=450, masks=True, jobs=1)
    two = generate(config, ["greedy", "random"], 9, positions=450, masks=True, jobs=2)
    again = generate(config, ["greedy", "random"], 9, positions=450, masks=True, jobs=1)
    for other in (two, again):
        assert other.meta == one.meta
        assert other.arrays().keys() == one.arrays().keys()
        for name, values in one.arrays().items():
            assert np.array_equal(values, other.arrays()[name]), name
    for suffix in (".npz", ".parquet"):
        one.save(tmp_path / f"one{suffix}")
        two.save(tmp_path / f"two{suffix}")
        assert (tmp_path / f"one{suffix}").read_bytes() == (tmp_path / f"two{suffix}").read_bytes()
    other_seed = generate(config, ["greedy", "random"], 10, positions=450)
    assert not np.array_equal(other_seed.game_seed, one.game_seed[:len(other_seed.game_seed)])


def test_npz_and_parquet_round_trip_with_masks_and_observations(tmp_path: Path) -> None:
    config = Config(players=3, quick_setup=True)
    made = generate(config, ["greedy", "random", "greedy"], 2, games=2, masks=True,
                    observations=True)
    assert made.stored_observations is not None
    assert made.stored_observations.shape == (len(made), made.observation_size)
    rebuilt = SelfPlayData(**{**_fields(made), "stored_observations": None}).observations()
    assert np.array_equal(rebuilt, made.stored_observations)
    assert len(made) == int(made.game_decisions.sum())  # --games keeps every decision
    for suffix in (".npz", ".parquet"):
        path = tmp_path / f"data{suffix}"
        made.save(path)
        back = load(path)
        assert back.meta == made.meta
        assert back.arrays().keys() == made.arrays().keys()
        for name, values in made.arrays().items():
            assert back.arrays()[name].dtype == values.dtype, name
            assert np.array_equal(back.arrays()[name], values), name
        assert np.array_equal(back.masks([0, 5]), made.masks([0, 5]))


def test_team_members_share_their_teams_outcome() -> None:
    config = Config(players=4, mode="team_2v2")
    made = generate(config, ["greedy"] * 4, 4, games=3)
    for g in range(made.games):
        outcome = [int(v) for v in made.outcome[g]]
        assert outcome[0] == outcome[2] and outcome[1] == outcome[3]  # R23.2: teams 0/2, 1/3
        assert outcome[0] == -outcome[1]
        assert made.score[g][0] == made.score[g][2]  # team mode: the team's score (R22.1)
    values = made.value()
    assert np.array_equal(values, made.outcome[made.game, made.seat])


def test_cli_writes_and_summarises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "data.npz"
    code = main(["selfplay", "--players", "greedy,random", "--positions", "300", "--seed", "3",
                 "--out", str(out), "--masks"])
    assert code == 0
    line = capsys.readouterr().out
    assert "300 positions from" in line and "positions/s" in line and str(out) in line
    back = load(out)
    assert len(back) == 300 and back.meta["bots"] == ["greedy", "random"]
    assert back.mask_heads is not None


@pytest.mark.parametrize("args, message", [
    (["--players", "4", "--positions", "0"], "--positions must be at least 1"),
    (["--players", "4", "--games", "0"], "--games must be at least 1"),
    (["--players", "4", "--bot", "nosuchbot", "--positions", "10"], "unknown bot"),
    (["--players", "greedy,nosuchbot", "--positions", "10"], "unknown bot"),
    (["--players", "greedy,greedy", "--bot", "random", "--positions", "10"], "--bot goes"),
    (["--players", "9", "--positions", "10"], "player"),
    (["--players", "4", "--positions", "10", "--jobs", "0"], "--jobs"),
])
def test_cli_bad_input_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        args: list[str], message: str) -> None:
    code = main(["selfplay", *args, "--out", str(tmp_path / "x.npz")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kaladan: error:") and message in err
    assert "Traceback" not in err and not (tmp_path / "x.npz").exists()


@pytest.mark.parametrize("out, message", [
    ("data.csv", "must end in .npz"), ("missing/data.npz", "folder does not exist")])
def test_cli_bad_output_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         out: str, message: str) -> None:
    code = main(["selfplay", "--players", "2", "--positions", "10", "--out",
                 str(tmp_path / out)])
    assert code == 2 and message in capsys.readouterr().err


def test_cli_needs_positions_or_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["selfplay", "--players", "2", "--out", str(tmp_path / "x.npz")])
    assert exit_info.value.code == 2
    assert "one of the arguments --positions --games is required" in capsys.readouterr().err


def test_reading_a_file_of_another_kind_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    np.savez(bad, x=np.zeros(3))
    with pytest.raises(SelfPlayError, match="cannot read|not a kaladan-selfplay"):
        load(bad)
    with pytest.raises(SelfPlayError, match="must end in"):
        load(tmp_path / "data.json")


def test_observations_flag_warns_of_the_size(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "data.parquet"
    assert main(["selfplay", "--players", "2", "--games", "1", "--quick", "--observations",
                 "--out", str(out)]) == 0
    assert "warning: --observations stores 4,224 bytes per position" in capsys.readouterr().err
    back = load(out)
    assert back.stored_observations is not None
    assert back.stored_observations.shape == (len(back), 1056)


def test_ray_gives_the_games_of_one_local_process() -> None:
    pytest.importorskip("ray")
    config = Config(players=2)
    local = generate(config, ["greedy", "random"], 6, positions=500, jobs=1)
    on_ray = generate(config, ["greedy", "random"], 6, positions=500, backend="ray")
    for name, values in local.arrays().items():
        assert np.array_equal(values, on_ray.arrays()[name]), name
