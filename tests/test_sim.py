"""Simulation runs: the same seed gives the same games whatever the number of processes, and
the summary's win rates carry correct Wilson intervals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kaladan.rules.config import Config
from kaladan.sim.runner import simulate
from kaladan.sim.stats import wilson


def test_wilson_interval_known_values() -> None:
    low, high = wilson(8, 10)  # a textbook example: 0.8 with n = 10
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(500, 1000)
    assert low < 0.5 < high and high - low == pytest.approx(0.0619, abs=1e-3)


def test_same_results_whatever_the_number_of_jobs() -> None:
    config = Config(players=3)
    one = simulate(config, ["random"] * 3, 12, seed=4, jobs=1)
    two = simulate(config, ["random"] * 3, 12, seed=4, jobs=2)
    assert one.to_json() == two.to_json()
    assert len({g.seed for g in one.games}) == 12


def test_rates_count_every_seat_and_team_wins() -> None:
    summary = simulate(Config(players=4, mode="team_2v2"), ["random"] * 4, 6, seed=2)
    rates = summary.rates()
    assert sum(row["games"] for row in rates["seat"].values()) == 24
    team_wins = sum(1 for g in summary.games if g.team is not None)
    assert rates["bot"]["random"]["wins"] == 2 * team_wins  # both players of the team win
    for row in rates["realm"].values():
        assert row["low"] <= row["rate"] <= row["high"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaladan.cli.main", *args],
                          capture_output=True, text=True, timeout=300)


def test_cli_out_csv_jobs_and_no_progress_bar_off_a_terminal(tmp_path: Path) -> None:
    out, csv = tmp_path / "games.jsonl", tmp_path / "summary.csv"
    args = ["simulate", "--players", "random,random", "--games", "8", "--seed", "3"]
    result = run(*args, "--jobs", "2", "--out", str(out), "--csv", str(csv), "--records",
                 "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 8
    for game in lines:
        assert {"seed", "seats", "bots", "realms", "winner", "scores", "rounds",
                "decisions", "record"} <= set(game)
        assert game["record"]["format"] == "kaladan-record"
    header, *rows = csv.read_text().splitlines()
    assert header == "group,key,games,wins,rate,low,high"
    assert any(row.startswith("seat,0,8,") for row in rows)
    single = run(*args, "--json")  # one process, no records: the same games
    with_records = json.loads(result.stdout)["games"]
    assert json.loads(single.stdout)["games"] == [
        {k: v for k, v in g.items() if k != "record"} for g in with_records]
    assert run(*args, "--jobs", "0").returncode == 2


def test_a_custom_bot_from_a_python_file(tmp_path: Path) -> None:
    """docs/bots.md: `path/to/file.py:ClassName` plugs a bot in; it gets the seat's view."""
    bot = tmp_path / "first.py"
    bot.write_text("class First:\n    name = 'first'\n\n"
                   "    def choose(self, view, legal, rng):\n"
                   "        assert 'hand' in view.observation['players'][view.seat]\n"
                   "        return legal[0]\n")
    result = run("simulate", "--players", f"{bot}:First,random", "--games", "3", "--json")
    assert result.returncode == 0, result.stderr
    games = json.loads(result.stdout)["games"]
    assert len(games) == 3 and games[0]["bots"] == [f"{bot}:First", "random"]
    missing = run("simulate", "--players", f"{bot}:Nobody,random", "--games", "1")
    assert missing.returncode == 2 and "has no class 'Nobody'" in missing.stderr
    absent = run("simulate", "--players", f"{tmp_path}/none.py:X,random", "--games", "1")
    assert absent.returncode == 2 and "not found" in absent.stderr


def test_a_custom_bot_that_breaks_gets_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("class Wrong:\n    name = 'wrong'\n\n"
                   "    def choose(self, view, legal, rng):\n"
                   "        return 'attack everything'\n\n"
                   "class Crash:\n    name = 'crash'\n\n"
                   "    def choose(self, view, legal, rng):\n"
                   "        raise RuntimeError('boom')\n")
    for cls, words in (("Wrong", "not legal now"), ("Crash", "boom")):
        result = run("simulate", "--players", f"{bad}:{cls},random", "--games", "1")
        assert result.returncode == 2, result.stderr
        assert words in result.stderr and "Traceback" not in result.stderr


def test_greedy_bot_beats_random_with_seats_rotated() -> None:
    """Issue 6 bots: greedy (exact odds for attacks, claims empty tiles, buys at the front)
    against random; a short seeded run (the 400-game ladder is in docs/bots.md)."""
    first = simulate(Config(players=2), ["greedy", "random"], 15, seed=31)
    second = simulate(Config(players=2), ["random", "greedy"], 15, seed=32)
    wins = first.rates()["bot"]["greedy"]["wins"] + second.rates()["bot"]["greedy"]["wins"]
    assert wins >= 27  # of 30


def test_greedy_bot_decides_from_its_view_only_and_deterministically() -> None:
    """Bots see only their seat's view: the greedy bot's games replay from seed alone, and it
    never needs more than the SeatView (it holds no state of its own)."""
    from kaladan.bots.greedy import GreedyBot

    bot = GreedyBot()
    # No hidden state between decisions: no instance attributes, whether the class is
    # compiled (its slots are listed in __mypyc_attrs__) or not (its __dict__).
    attributes = getattr(bot, "__dict__", {}) or [
        name for name in getattr(type(bot), "__mypyc_attrs__", ()) if hasattr(bot, name)
        and name != "name"]
    assert not attributes
    a = simulate(Config(players=3), ["greedy", "random", "greedy"], 4, seed=8)
    b = simulate(Config(players=3), ["greedy", "random", "greedy"], 4, seed=8)
    assert a.to_json() == b.to_json()


def test_greedy_bot_plays_team_games() -> None:
    summary = simulate(Config(players=4, mode="team_2v2"), ["greedy", "random"] * 2, 6, seed=4)
    assert len(summary.games) == 6
    assert all(g.end in ("last_crown", "final_round", "draw") for g in summary.games)


def test_bradley_terry_ratings_match_the_score_share() -> None:
    """Two bots, A scores 75%: the Elo-scale gap is 400 log10(3) and the mean is 1500."""
    from math import log10

    from kaladan.sim.tournament import ratings

    matches = [("a", "b", 1.0)] * 75 + [("a", "b", 0.0)] * 25
    r = ratings(["a", "b"], matches)
    assert r["a"] - r["b"] == pytest.approx(400 * log10(3), abs=0.5)
    assert (r["a"] + r["b"]) / 2 == pytest.approx(1500, abs=0.5)


def _standings_from_resampled_lists(bots: list[str], matches: list[tuple[str, str, float]],
                                    seed: int, bootstrap: int) -> list[tuple[float, ...]]:
    """The bootstrap as it was first written: each resample a list of matches, rated."""
    import random

    from kaladan.sim.tournament import ratings

    point, rng = ratings(bots, matches), random.Random(seed)
    samples: dict[str, list[float]] = {bot: [] for bot in bots}
    for _ in range(bootstrap):
        resample = [matches[rng.randrange(len(matches))] for _ in matches]
        for bot, value in ratings(bots, resample, iterations=60).items():
            samples[bot].append(value)
    return sorted(((point[bot], sorted(samples[bot])[int(0.025 * (bootstrap - 1))],
                    sorted(samples[bot])[int(0.975 * (bootstrap - 1))]) for bot in bots),
                  reverse=True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_counted_bootstrap_gives_the_figures_of_resampled_lists(seed: int) -> None:
    """standings() rates each resample from how often it drew each kind of match; its
    ratings and intervals are those of rating the resampled lists, to the last bit."""
    import random

    from kaladan.sim.tournament import standings

    rng = random.Random(seed)
    bots = ["a", "b", "c"]
    matches = [(x, y, rng.choice((1.0, 1.0, 0.5, 0.0))) for x, y in
               (rng.sample(bots, 2) for _ in range(120))]
    mine = standings(bots, matches, seed, bootstrap=40)
    assert [(s.rating, s.low, s.high) for s in mine] == \
        _standings_from_resampled_lists(bots, matches, seed, 40)


def test_tournament_is_reproducible_and_ranks_greedy_first() -> None:
    from kaladan.sim.tournament import play

    one = play(["random", "greedy"], 10, seed=5, bootstrap=30)
    two = play(["random", "greedy"], 10, seed=5, bootstrap=30)
    assert one.standings == two.standings
    assert [s.bot for s in one.standings] == ["greedy", "random"]
    for s in one.standings:
        assert s.low <= s.rating <= s.high and s.games == 10
    assert len(one.matches) == 10


def test_tournament_cli() -> None:
    result = run("tournament", "--bots", "random,greedy", "--games", "4", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert {r["bot"] for r in rows} == {"random", "greedy"}
    assert run("tournament", "--bots", "random", "--games", "2").returncode == 2


def _states_with_hidden_cards() -> list:
    import random as rnd

    from kaladan.rules.apply import apply_unchecked
    from kaladan.rules.legal import legal_actions
    from kaladan.rules.setup import new_game

    out = []
    for seed, config in ((1, Config(players=3)), (2, Config(players=4, mode="team_2v2")),
                         (3, Config(players=2, end_game_card="random"))):
        state = new_game(config, seed)
        rng = rnd.Random(seed)
        step = 0
        while not state.is_over and step < 400:
            if step % 37 == 0 or state.battle is not None:
                out.append(state.copy())
            legal = legal_actions(state)
            apply_unchecked(state, legal[rng.randrange(len(legal))])
            step += 1
    return out


def test_determinize_keeps_the_observation_and_redraws_what_is_hidden() -> None:
    """For search: a determinized state looks the same to the seat (R5.13) but redraws the
    opponents' cards (R16.5: also one selected face down; R18.6: also those to buy) and the
    deck order; play goes on from it."""
    import random as rnd

    from kaladan.bots.base import SeatView
    from kaladan.rules.legal import legal_actions
    from kaladan.rules.magic import card_realm
    from kaladan.rules.observe import observe
    from kaladan.rules.units import REALMS

    changed_cards = changed_deck = 0
    for state in _states_with_hidden_cards():
        seat = state.pending.seat if state.pending.seat >= 0 else 0
        view = SeatView(state, seat)
        for k in range(3):
            det = view.determinize(rnd.Random(k))
            assert observe(det, seat) == observe(state, seat)
            if not state.is_over:
                assert list(legal_actions(det)) == list(legal_actions(state))
            for other in range(state.n):
                if state.realm[other] >= 0:  # R11.12: a realm pool holds its own cards only
                    realm = REALMS[state.realm[other]]
                    assert all(card_realm(c) == realm for c in det.pool[other])
                if state.team[other] == state.team[seat]:  # R23.5: known to the seat
                    assert (det.hand[other], det.pool[other]) == (
                        state.hand[other], state.pool[other])
                elif det.hand[other] != state.hand[other]:
                    changed_cards += 1
            assert det.buyable[seat] == state.buyable[seat]  # R18.6: the seat's own to buy
            assert sorted(c for p in range(state.n)
                          for c in det.hand[p] + det.pool[p] + det.buyable[p]) == sorted(
                c for p in range(state.n)
                for c in state.hand[p] + state.pool[p] + state.buyable[p])
            events = sorted(c for c in det.deck if not c.startswith("EG"))
            assert events == sorted(c for c in state.deck if not c.startswith("EG"))
            assert sum(c.startswith("EG") for c in det.deck) == sum(
                c.startswith("EG") for c in state.deck)  # which end-game card may differ
            if det.deck != state.deck:
                changed_deck += 1
            if det.end_card in det.deck:
                assert det.deck.index(det.end_card) < 9  # still among the bottom nine
    assert changed_cards > 0 and changed_deck > 0


def test_thinking_time_is_reported_per_bot_but_kept_out_of_the_games_list() -> None:
    summary = simulate(Config(players=2, quick_setup=True), ["greedy", "mcts:iterations=3"], 2,
                       seed=8)
    thinking = summary.thinking()
    assert set(thinking) == {"greedy", "mcts:iterations=3"}
    for row in thinking.values():
        assert 0.0 <= row["mean"] <= row["max"]
    assert thinking["mcts:iterations=3"]["max"] > 0.0
    assert all(len(g.think) == 2 for g in summary.games)
    assert "think" not in summary.to_json()["games"][0]  # measured, so not in the record
