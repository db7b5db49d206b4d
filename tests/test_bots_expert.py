"""The expert bot and its value network: budgets, determinism, the shipped weights and their
manifest (issue 44). Hidden information: tests/test_bots_hidden.py."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from kaladan.bots.base import SeatView
from kaladan.bots.mcts import candidates
from kaladan.bots.registry import make_bot
from kaladan.expert.bot import ExpertBot, ExpertParams
from kaladan.expert.figures import FIGURES, FIGURES_V2, PER_PLAYER, final_round_chance
from kaladan.expert.value import (
    LAYOUTS,
    SHIPPED,
    Features,
    Manifest,
    ValueNet,
    ValueNetError,
    load_for,
    serving_key,
)
from kaladan.odds import odds_for_attack
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError
from kaladan.rules.kinds import format_action
from kaladan.rules.legal import legal_actions
from kaladan.rules.notation import parse_unit_ref
from kaladan.rules.scoring import score
from kaladan.rules.setup import new_game
from kaladan.rules.state import GameState
from kaladan.rules.units import unit_value
from kaladan.sim.runner import play_game
from positions import build, game_at


def two_targets() -> GameState:
    """Seat 0's army on T4 can attack seat 1's lone Crown on T5 (the game ends, R21.1) or
    its lone Archer on T1, at the same odds."""
    return build({"C2": "0/crown", "T4": "0/general 0/sword 0/sword", "T5": "1/crown",
                  "T1": "1/archer"})


def choose(bot: ExpertBot, state: GameState, seat: int = 0, seed: int = 1) -> str:
    legal = legal_actions(state)
    action = bot.choose(SeatView(state, seat), legal, random.Random(seed))
    assert action in legal
    return format_action(action, state)


def test_shipped_networks_serve_the_standard_games_and_say_what_they_were_trained_on() -> None:
    for config in (Config(players=2), Config(players=4), Config(players=4, mode="team_2v2")):
        net = load_for(config)
        assert serving_key(config) in net.manifest.serves
        assert net.manifest.features in LAYOUTS
        training = net.manifest.training
        assert training["script"].startswith("train_value")
        assert len(training["data_sha256"]) == 64
        world = new_game(config, 0).world
        assert net.layers[0][0].shape[0] == Features(config, world, net.manifest.features).size


def test_r21_1_the_search_takes_the_attack_that_ends_the_game() -> None:
    """Taking the last enemy Crown wins at once (R21.1); the network's leaf values know an
    over game exactly, so the search prefers it to the Archer at the same odds."""
    state = two_targets()
    bot = ExpertBot(ExpertParams(iterations=120))
    assert choose(bot, state) == "attack T4 T5"
    assert bot.iterations_done == 120
    assert sum(bot.last_visits.values()) == 120
    assert set(bot.last_values) == set(bot.last_visits)
    assert all(0.0 <= v <= 1.0 for v in bot.last_values.values())
    assert set(bot.last_visits) <= set(candidates(SeatView(state, 0), legal_actions(state), 10))


@pytest.mark.parametrize("spec", ["expert:iterations=8", "expert:iterations=8,chance=2",
                                  "expert:iterations=40,per=turn"])
def test_an_iteration_budget_is_deterministic_and_plays_whole_games(spec: str) -> None:
    """With sampled dice, with battle rolls as chance nodes (tests/test_bots_chance.py) and
    with a budget per turn (tests/test_bots_turn.py)."""
    config = Config(players=2, quick_setup=True)
    one = play_game(config, 5, [spec, "greedy"])
    two = play_game(config, 5, [spec, "greedy"])
    assert one.to_json() == two.to_json()
    assert one.end in ("last_crown", "final_round", "draw")
    assert one.decisions > 20


def test_the_expert_plays_four_player_and_team_games_to_the_end() -> None:
    for mode in ("free_for_all", "team_2v2"):
        config = Config(players=4, mode=mode, quick_setup=True)
        game = play_game(config, 3, ["expert:iterations=3", "random", "greedy", "random"])
        assert game.end in ("last_crown", "final_round", "draw")


def test_a_cap_on_seconds_ends_a_search_its_iterations_would_not() -> None:
    """The server's per-decision budget (``max_seconds``) bounds any search: with a budget
    of a million iterations the search stops at the cap, after at least one iteration."""
    bot = ExpertBot(ExpertParams(iterations=1_000_000))
    bot.max_seconds = 0.05
    choose(bot, two_targets())
    assert 1 <= bot.iterations_done < 1_000_000


def test_a_time_budget_searches_at_least_once() -> None:
    bot = make_bot("expert:time=0.02")
    assert isinstance(bot, ExpertBot) and bot.params.time == 0.02
    choose(bot, two_targets())
    assert bot.iterations_done >= 1


def test_the_tree_is_kept_for_the_seats_next_decision_only() -> None:
    """After an attack is chosen, the seat's next decision (its battle card, R16.5) starts
    from the subtree of that attack; another decision starts afresh."""
    state = two_targets()
    bot = ExpertBot(ExpertParams(iterations=60))
    game = game_at(state)
    chosen = choose(bot, state)
    kept = bot._kept
    assert kept is not None
    subtree = kept[1]
    before = subtree.visits
    game.play(chosen)
    if game.state.pending.seat == 0 and not game.state.is_over:
        choose(bot, game.state)
        assert sum(bot.last_visits.values()) >= 60  # the kept visits and the new ones
        assert subtree.visits == before  # the root's own edge is not visited again
    fresh = ExpertBot(ExpertParams(iterations=60, reuse=0))
    choose(fresh, state)
    assert fresh._kept is None


def test_win_probabilities_are_per_seat_and_exact_once_the_game_is_over() -> None:
    state = two_targets()
    net = load_for(state.config)
    values = net.win_probabilities(state)
    assert len(values) == 2 and all(0.0 < v < 1.0 for v in values)
    # From either seat's view the same position: the values are per absolute seat.
    assert net.win_probabilities(state, seat=1) == pytest.approx(values, abs=0.35)
    game = game_at(state)
    game.play("attack T4 T5", dice=[6, 6, 6, 1])
    assert game.state.result is not None and game.state.result.winner == 0
    assert net.win_probabilities(game.state) == [1.0, 0.0]


def test_the_features_name_every_figure_after_the_observation() -> None:
    config = Config(players=4)
    features = Features(config, new_game(config, 0).world)
    assert len(features.names()) == features.size - features.observation.size
    state = new_game(config, 2)
    row = np.zeros(features.size, dtype=np.float32)
    features.write(state, 1, row)
    assert np.isfinite(row).all()


def test_r16_the_figures_are_the_score_and_exact_odds_of_the_position() -> None:
    """Seat 0's army on T4 beats seat 1's lone Crown on T5 and its Archer on T1 at the same
    exact odds (R16.14, R16.27): its best attack, two above 1/2, the threat to seat 1's
    Crown; scores by R22.1; each seat holds two tiles."""
    state = two_targets()
    features = Features(state.config, state.world, 1)
    figures = dict(zip(FIGURES, features.extras(state, 0)[:PER_PLAYER], strict=True))
    theirs = dict(zip(FIGURES, features.extras(state, 0)[PER_PLAYER:], strict=True))
    names = state.world.names
    on_crown = odds_for_attack(state, names.index("T4"), names.index("T5")).attacker_wins
    assert figures["best attack chance"] == pytest.approx(float(on_crown))
    assert theirs["worst attack on own Crown"] == pytest.approx(float(on_crown))
    assert figures["attacks above 1/2 /5"] == pytest.approx((2 if on_crown > 0.5 else 0) / 5)
    assert figures["score/40"] == pytest.approx(score(state, 0) / 40)
    assert theirs["score/40"] == pytest.approx(score(state, 1) / 40)
    assert figures["tiles/20"] == pytest.approx(2 / 20) and theirs["tiles/20"] == 2 / 20
    # Seen from seat 1 the same figures, seat 1's first.
    assert features.extras(state, 1) == features.extras(state, 0)[PER_PLAYER:] + \
        features.extras(state, 0)[:PER_PLAYER]


def test_layout_2_adds_worth_under_attack_and_the_cards_each_seat_may_see() -> None:
    """Layout 2 keeps layout 1's figures and adds, per player, the worth of its units times
    the best enemy attack's exact chance on their tile (the Crown left out), and the held
    cards its side could declare (R16.5-R16.8: window W1/W2, side, condition) in its best
    attack and against the attack on its Crown: only for hands the seat sees (R5.13)."""
    state = two_targets()
    # KHA-3 needs a Sword in the battle (T4 has two); KHA-1 is a W3 card, never declared
    # at step B. KIM-3 needs Kimbria's special in reserve and room on the battle tile.
    state.hand = [["KHA-1", "KHA-3"], ["KIM-3"]]
    old, new = Features(state.config, state.world, 1), Features(state.config, state.world, 2)
    per = len(FIGURES_V2)
    mine, theirs = ({name: value for name, value in zip(FIGURES_V2, new.extras(state, seat)[:per],
                                                        strict=True)} for seat in (0, 1))
    seen_by_0 = new.extras(state, 0)
    for i in range(2):  # layout 1's figures first in each player's block
        assert seen_by_0[i * per:i * per + PER_PLAYER] == \
            old.extras(state, 0)[i * PER_PLAYER:(i + 1) * PER_PLAYER]
    names = state.world.names
    chance = float(odds_for_attack(state, names.index("T4"), names.index("T1")).attacker_wins)
    archer = unit_value(parse_unit_ref("1/archer"))[0]
    assert theirs["worth under attack/40"] == pytest.approx(chance * archer / 40)
    assert mine["cards for its best attack/3"] == pytest.approx(1 / 3)
    assert theirs["cards against the attack on its Crown/3"] == pytest.approx(1 / 3)
    # Seat 0 does not see seat 1's hand: seat 1's card figures read 0 from seat 0's view.
    assert seen_by_0[per + PER_PLAYER + 1:2 * per] == [0.0, 0.0]
    assert len(new.names()) == new.size - new.observation.size


def test_r5_10_r21_2_the_chance_that_the_final_round_begins_soon() -> None:
    """The end-game card lies equally likely at any of the deck's last 9 places (R5.10);
    drawing it, or with no end-game card the last card, starts the final round (R21.2)."""
    def deck_of(left: int, **options: object) -> GameState:
        return build({"C2": "0/crown", "C1": "1/crown"}, deck=["EV01"] * left, **options)

    assert final_round_chance(deck_of(30), 2) == 0.0  # the card is among the last 9
    assert final_round_chance(deck_of(10), 2) == pytest.approx(1 / 9)
    assert final_round_chance(deck_of(5), 2) == pytest.approx(2 / 5)
    assert final_round_chance(deck_of(2, end_game_card="none"), 2) == 1.0
    assert final_round_chance(deck_of(3, end_game_card="none"), 2) == 0.0
    # deck_end: only the empty deck, or The Oracles (1 card in 4), starts it (R21.2 (b)).
    assert final_round_chance(deck_of(5, end_game_trigger="deck_end"), 2) == \
        pytest.approx(2 / 5 / 4)
    scales_drawn = deck_of(3, end_game_trigger="deck_end")
    scales_drawn.scales = True
    assert final_round_chance(scales_drawn, 2) == 0.0
    assert final_round_chance(scales_drawn, 4) == 1.0
    final = deck_of(20)
    final.final_slot = final.slot + 2
    assert final_round_chance(final, 2) == 1.0


def test_a_network_on_layout_1_is_judged_with_layout_1() -> None:
    """Networks trained before layout 2 keep working: each is fed the layout its manifest
    names; a layout this kaladan does not write is refused."""
    config = Config(players=2)
    world = new_game(config, 0).world
    size = Features(config, world, 1).size
    assert size + 2 * (len(FIGURES_V2) - PER_PLAYER) + 2 == Features(config, world, 2).size
    rng = np.random.default_rng(3)
    weights = [(rng.normal(size=(size, 8)).astype(np.float32), np.zeros(8, np.float32)),
               (rng.normal(size=(8, 2)).astype(np.float32), np.zeros(2, np.float32))]
    manifest = Manifest((serving_key(config),), 1, size, "", {})
    values = ValueNet(weights, manifest).win_probabilities(new_game(config, 5))
    assert len(values) == 2 and all(0.0 < v < 1.0 for v in values)
    with pytest.raises(ValueNetError, match="feature layout 9 is unknown"):
        Features(config, world, 9)


def test_the_search_multiplies_on_one_blas_thread_and_gives_the_threads_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A leaf is one row: OpenBLAS's threads would only fight the other games' processes."""
    def blas_threads() -> set[int]:
        return {pool["num_threads"] for pool in threadpool_info()
                if pool["user_api"] == "blas"}

    seen: list[set[int]] = []
    judge = ValueNet.win_probabilities

    def spying(self: ValueNet, state: GameState, seat: int | None = None) -> list[float]:
        seen.append(blas_threads())
        return judge(self, state, seat)

    before = blas_threads()
    monkeypatch.setattr(ValueNet, "win_probabilities", spying)
    choose(ExpertBot(ExpertParams(iterations=12)), new_game(Config(players=4), 3))
    assert seen and all(threads == {1} for threads in seen)
    assert blas_threads() == before


def test_the_manifest_refuses_a_configuration_the_network_was_not_trained_for() -> None:
    with pytest.raises(ValueNetError, match="no value network for 3 players"):
        load_for(Config(players=3))
    bot = make_bot("expert:iterations=5")
    assert isinstance(bot, ExpertBot)
    with pytest.raises(ValueNetError, match="no value network for 6 players"):
        bot.check_config(Config(players=6, mode="team_3v3"))
    assert isinstance(ValueNetError("x"), ConfigError)  # callers report it like bad options


def test_a_network_for_other_games_or_features_is_refused_with_the_reason(tmp_path: Path) -> None:
    for suffix in (".npz", ".json"):
        shutil.copyfile((SHIPPED / "value-2p").with_suffix(suffix),
                        (tmp_path / "net").with_suffix(suffix))
    path = tmp_path / "net.npz"
    with pytest.raises(ValueNetError, match="serves 2 players free_for_all on the standard "
                                            "world.*not 4 players"):
        load_for(Config(players=4), path)
    manifest = json.loads(path.with_suffix(".json").read_text())
    manifest["features"] = max(LAYOUTS) + 1
    path.with_suffix(".json").write_text(json.dumps(manifest))
    with pytest.raises(ValueNetError, match="feature layout"):
        ValueNet.load(path).manifest.check(Config(players=2))
    path.write_bytes(path.read_bytes()[:-8] + b"damaged!")
    with pytest.raises(ValueNetError, match="does not match its manifest"):
        ValueNet.load(path)


def test_the_shipped_weights_load_and_judge_without_torch() -> None:
    """Playing needs NumPy only: with torch made unimportable, the network loads and a
    game is judged."""
    code = ("import sys; sys.modules['torch'] = None\n"
            "from kaladan.expert.value import load_for\n"
            "from kaladan.rules.config import Config\n"
            "from kaladan.rules.setup import new_game\n"
            "c = Config(players=2); s = new_game(c, 1)\n"
            "v = load_for(c).win_probabilities(s)\n"
            "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
            "print(len(v), all(0 <= x <= 1 for x in v))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["2", "True"]


@pytest.mark.parametrize(("spec", "message"), [
    ("expert:depth=3", "unknown expert parameter 'depth'"),
    ("expert:iterations=many", "is not a number"),
    ("expert:iterations=0", "must be positive"),
    ("expert:time=-1", "must be positive"),
    ("expert:time=inf", "must be positive"),
    ("expert:iterations=10,time=1", "not both"),
    ("expert:chance=3", "use 0 .sampled dice., 1 .chance nodes. or 2"),
    ("expert:chance=-1", "must be positive"),
])
def test_bad_expert_parameters_are_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_bot(spec)


def test_the_expert_is_an_opponent_in_the_gymnasium_environment() -> None:
    """The environments take any bot spec as an opponent (docs/env.md): an episode against
    the expert runs to its end with masked random actions."""
    pytest.importorskip("gymnasium")
    from kaladan.env.gym_env import KaladanEnv

    env = KaladanEnv(players=2, opponents=["expert:iterations=2"], quick_setup=True, seat=0)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    steps = 0
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        done = terminated or truncated
        steps += 1
    assert steps > 5
