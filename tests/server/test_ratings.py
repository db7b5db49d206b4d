"""Ratings (issue 39): placements from named finished positions (section 22), the OpenSkill
update checked against openskill's own results, recording a game exactly once, bots' fixed
ratings, and the profile and leaderboard answers, on SQLite and PostgreSQL."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from live_support import GENEROUS, sqlite_url
from openskill.models import PlackettLuce
from sqlalchemy import insert, select, update

from kaladan.bots.registry import make_bot
from kaladan.game import Game
from kaladan.rules import flow
from kaladan.rules.config import Config
from kaladan.rules.state import GameState, Result
from kaladan.server import create_app
from kaladan.server.live import LiveGame, SeatInfo
from kaladan.server.rating_store import (
    FinishedGame,
    SeatSubject,
    bot_ratings,
    finished_game,
    rating_history,
    ratings,
    record,
)
from kaladan.server.ratings import (
    Skill,
    bot_kind,
    categories,
    category,
    display,
    placements,
    rate,
    rate_game,
)
from kaladan.server.storage import Store, accounts
from kaladan.sim.seats import Seats
from positions import build

# --- placements from named finished positions (section 22) -------------------------------

# Four players at home, three points each (a castle); the rest is set per test.
FOUR = {"C1": "0/crown", "C2": "1/crown", "C3": "2/crown", "C4": "3/crown"}


def finished(board: dict[str, str], **kw: Any) -> GameState:
    """The position scored at the end of the final round, as the engine does (R21.5)."""
    state = build(board, **kw)
    flow.finish_final_round(state)
    assert state.result is not None
    return state


def test_r22_3_r22_4_free_for_all_places_by_score_then_units_on_board() -> None:
    """R22.3: seat 2 has the most points; seats 0 and 1 tie on 3 + 1 and R22.4 (1) puts
    seat 1 (two units on the board) above seat 0; seat 3 has only its castle."""
    state = finished(FOUR | {"C3": "2/crown 2/sword", "T1": "2/sword", "T2": "2/sword",
                             "T3": "0/sword", "T4": "1/sword", "C2": "1/crown 1/sword"},
                     players=4)
    assert state.result is not None and state.result.winner == 2
    assert placements(state) == (3, 2, 1, 4)


def test_r22_4_dice_the_engine_rolled_decide_the_winner_lower_ties_share() -> None:
    """R22.4 (3): seats 0 and 1 tie on everything; the engine's dice make seat 1 the winner
    (4 against 36 for it). Seats 2 and 3 also tie on everything below them: no dice are
    rolled for second place, so they share third."""
    state = build(FOUR | {"T1": "0/sword", "T2": "1/sword"}, players=4)
    state.chance.force([1, 1, 1, 1, 6, 8, 10, 12])
    flow.finish_final_round(state)
    assert state.result is not None and state.result.winner == 1
    assert state.result.tie_break == [[4, 36]]
    assert placements(state) == (2, 1, 3, 3)


def test_r22_2_eliminated_players_come_after_every_scored_player() -> None:
    """R22.2: seat 3 is eliminated (no Crown): behind seat 2's lone castle, whatever it had."""
    board = {k: v for k, v in FOUR.items() if k != "C4"} | {"T1": "0/sword"}
    state = build(board, players=4)
    state.eliminated[3] = True
    flow.finish_final_round(state)
    assert state.result is not None and state.result.scores[3] is None
    assert placements(state) == (1, 2, 2, 4)


def test_r21_1_last_crown_standing_first_and_the_rest_share_second() -> None:
    """R21.1, R22.2: one Crown left; every eliminated player shares the next place."""
    state = build({"C1": "0/crown"}, players=3)
    state.eliminated[1] = state.eliminated[2] = True
    flow.game_over(state, Result("last_crown", 0, [3, None, None]))
    assert placements(state) == (1, 2, 2)


def test_r21_6_a_draw_shares_the_first_place() -> None:
    """R21.6: the last two Crowns fall together: nobody is scored, everybody shares."""
    state = build({"C1": "0/crown"}, players=2)
    state.eliminated[:] = [True, True]
    flow.game_over(state, Result("draw", None, [None, None]))
    assert placements(state) == (1, 1)
    rated = rate_game(state, [Skill(), Skill()], [False, False])
    assert not any(r.won for r in rated)  # a draw is nobody's win


@pytest.mark.parametrize(("mode", "players"), [("team_2v2", 4), ("team_3v3", 6)])
def test_r22_5_r23_36_teams_are_placed_per_team(mode: str, players: int) -> None:
    """R22.5, R23.34: teams score together; R23.36 (1): the team with more units on the
    board (team 1: seat 1's extra Sword) wins the tie of equal team totals."""
    board = {f"C{s + 1}": f"{s}/crown" for s in range(players)} | {"T1": "1/sword",
                                                                  "T2": "0/sword"}
    board["C2"] = "1/crown 1/sword"
    state = finished(board, players=players, mode=mode)
    assert state.result is not None and state.result.team == 1
    assert placements(state) == tuple(2 - s % 2 for s in range(players))


def test_r23_32_a_team_draw_shares_the_first_place() -> None:
    """R23.32: both teams' Crowns fall at once: a draw."""
    state = build({"C1": "0/crown"}, players=4, mode="team_2v2")
    flow.game_over(state, Result("draw", None, [0, 0, 0, 0]))
    assert placements(state) == (1, 1, 1, 1)


def test_lost_on_time_is_placed_last_whatever_the_score() -> None:
    """docs/rules-decisions.md: seat 2 scored most but lost on time: last. Seats 2 and 3
    both lost on time: they share the last place."""
    board = FOUR | {"C3": "2/crown 2/sword", "T1": "2/sword", "T3": "0/sword"}
    state = finished(board, players=4)
    assert state.result is not None and state.result.winner == 2
    assert placements(state, {2}) == (1, 2, 4, 2)
    assert placements(state, {2, 3}) == (1, 2, 3, 3)


def test_lost_on_time_leaves_its_team_for_the_rating() -> None:
    """In team mode a seat lost on time is rated on its own, last; its partner stays with
    the team's place (the winning team's, here)."""
    board = {f"C{s + 1}": f"{s}/crown" for s in range(4)} | {"T2": "0/sword", "T3": "0/sword"}
    state = finished(board, players=4, mode="team_2v2")
    assert state.result is not None and state.result.team == 0
    assert placements(state, {2}) == (1, 2, 3, 2)


# --- the OpenSkill update -----------------------------------------------------------------


def test_a_draw_through_the_rating_api_is_openskills_tie() -> None:
    """Equal places are a tie for OpenSkill: the same numbers as its own rate(ranks=...)."""
    model = PlackettLuce()
    a, b, c = Skill(30, 5), Skill(25, 8), Skill(20, 3)
    ours = rate([[a], [b], [c]], [1, 1, 3])
    theirs = model.rate([[model.rating(mu=s.mu, sigma=s.sigma)] for s in (a, b, c)],
                        ranks=[1, 1, 3])
    for side, other in zip(ours, theirs, strict=True):
        assert side[0].mu == pytest.approx(other[0].mu)
        assert side[0].sigma == pytest.approx(other[0].sigma)


def test_a_fixed_rating_takes_part_but_never_changes() -> None:
    """A bot's rating is used for the others' update and comes back unchanged."""
    bot, person = Skill(35, 2), Skill()
    new = rate([[person], [bot]], [1, 2], [[False], [True]])
    assert new[1][0] == bot
    assert new[0][0].mu > person.mu + 3  # beating a strong, sure opponent is worth much


def test_display_is_three_sigmas_below_mu_times_100() -> None:
    assert Skill().display == 0 == display(25.0, 25 / 3)
    assert display(30.0, 2.0) == 2400
    assert category("free_for_all", 4) == "free_for_all-4"
    assert category("team_3v3", 6) == "team_3v3"
    assert categories("free_for_all", 3) == ("all", "free_for_all", "free_for_all-3")
    assert categories("team_2v2", 4) == ("all", "team_2v2")
    assert bot_kind(" MCTS:time=1 ") == "mcts"


# --- storage: SQLite and PostgreSQL --------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url(tmp_path)
    url: str = request.getfixturevalue("postgres_db")
    return url


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = Store(db_url)
    s.upgrade()
    yield s
    s.dispose()


T0 = datetime(2026, 12, 1, tzinfo=UTC)


def add_account(store: Store, name: str, deleted: bool = False) -> str:
    """An account row as server/accounts.py makes it (until its sign-up is used here)."""
    account = uuid.uuid4().hex
    with store.engine.begin() as c:
        c.execute(insert(accounts).values(
            id=account, name=name, name_key=None if deleted else name.casefold(),
            password="x", created=T0, deleted=T0 if deleted else None))
    return account


def played(config: Config, seed: int, bots: list[str]) -> Game:
    """A game played to its end by bots through the engine."""
    game = Game.new(config, seed)
    seats = Seats([make_bot(b) for b in bots], seed, None, False)
    while not game.is_over:
        seat = game.state.pending.seat
        game.play(seats.choose(game.state, game.legal_actions()), seat)
    return game


def stored_finished(store: Store, game: Game, subjects: list[SeatSubject], at: datetime,
                    lost: frozenset[int] = frozenset(), name: str = "a game") -> FinishedGame:
    """The finished game, stored as a rated game, as ``finished_game`` would describe it."""
    game_id = uuid.uuid4().hex[:20]
    seats = [{"kind": "bot" if s.bot else "human", "bot": s.bot, "code_hash": None,
              "token_hash": None, "account": s.account} for s in subjects]
    store.create_game(game_id, name, at, game.config.to_json(), game.seed, "over", seats,
                      rated=True)
    return FinishedGame(game_id, at, str(game.config.mode.value), game.config.players,
                        game.state, tuple(subjects), lost)


def stored_skills(store: Store, cat: str) -> dict[str, tuple[float, float, int, int]]:
    with store.engine.connect() as c:
        return {r.account_id: (r.mu, r.sigma, r.games, r.wins)
                for r in c.execute(select(ratings).where(ratings.c.category == cat))}


GAMES = [  # (config, seed, seat subjects: an account's name or a bot spec)
    (Config(players=2, quick_setup=True), 1, ["anna", "greedy"]),
    (Config(players=4, quick_setup=True), 2, ["anna", "bram", "random", "greedy"]),
    (Config(players=3, quick_setup=True), 3, ["bram", "anna", "cato"]),
    (Config(players=4, mode="team_2v2", quick_setup=True), 4,  # type: ignore[arg-type]
     ["anna", "greedy", "bram", "cato"]),
    (Config(players=6, mode="team_3v3", quick_setup=True), 5,  # type: ignore[arg-type]
     ["anna", "random", "bram", "greedy", "cato", "random"]),
    (Config(players=2, quick_setup=True), 6, ["cato", "bram"]),
]
BOTS = ("random", "greedy", "mcts")


def test_recorded_games_match_openskills_own_results(store: Store) -> None:
    """Games played to their end by bots, some seats an account's: the stored ratings are
    those of openskill's PlackettLuce applied game after game, per category, with the bots'
    fixed ratings as opponents and the places of section 22 as ranks."""
    names = {n: add_account(store, n) for n in ("anna", "bram", "cato")}
    model = PlackettLuce()
    expected: dict[tuple[str, str], Any] = {}
    table = bot_ratings()
    for i, (config, seed, who) in enumerate(GAMES):
        game = played(config, seed, [w if w in BOTS else "greedy" for w in who])
        subjects = [SeatSubject(bot=w) if w in BOTS else SeatSubject(account=names[w])
                    for w in who]
        done = stored_finished(store, game, subjects, T0 + timedelta(hours=i))
        assert record(store, done)
        places = placements(game.state)
        groups: dict[Any, list[int]] = {}
        for seat in range(config.players):  # a team is its seats; free-for-all: one each
            key = game.state.team[seat] if game.state.teams else seat
            groups.setdefault(key, []).append(seat)
        sides = list(groups.values())
        for cat in categories(config.mode, config.players):
            now = [model.rating(mu=table[w].mu, sigma=table[w].sigma) if w in BOTS
                   else expected.get((w, cat)) or model.rating() for w in who]
            new = model.rate([[now[s] for s in side] for side in sides],
                             ranks=[places[side[0]] for side in sides])
            for side, result in zip(sides, new, strict=True):
                for seat, r in zip(side, result, strict=True):
                    if who[seat] not in BOTS:
                        expected[(who[seat], cat)] = r
    for (name, cat), r in expected.items():
        mu, sigma, _games, _wins = stored_skills(store, cat)[names[name]]
        assert (mu, sigma) == (pytest.approx(r.mu), pytest.approx(r.sigma)), (name, cat)
    games = stored_skills(store, "all")
    assert {n: games[names[n]][2] for n in names} == {"anna": 5, "bram": 5, "cato": 4}
    assert bot_ratings() == table  # the bots' ratings never change


def test_a_game_is_rated_exactly_once(store: Store) -> None:
    """Recording the same game again, or from two threads at once, changes nothing more."""
    a, b = add_account(store, "anna"), add_account(store, "bram")
    game = played(Config(players=2, quick_setup=True), 7, ["greedy", "random"])
    done = stored_finished(store, game, [SeatSubject(account=a), SeatSubject(account=b)], T0)
    outcomes: list[bool] = []
    barrier = threading.Barrier(2)

    def go() -> None:
        barrier.wait()
        outcomes.append(record(store, done))

    threads = [threading.Thread(target=go) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == [False, True]
    assert record(store, done) is False
    after = stored_skills(store, "all")
    assert after[a][2] == after[b][2] == 1
    with store.engine.connect() as c:
        assert len(c.execute(select(rating_history)).all()) == 6  # 2 accounts x 3 categories


def live_of(game: Game, seats: list[SeatInfo], rated: bool) -> LiveGame:
    return LiveGame("g1", "a game", T0, game, seats, [None] * len(seats), rated=rated)


def test_unrated_and_guest_games_change_nothing() -> None:
    """Only a rated game whose every human seat has an account is rated."""
    game = played(Config(players=2, quick_setup=True), 8, ["greedy", "random"])
    signed = [SeatInfo("human", account="a"), SeatInfo("bot", bot="random")]
    assert finished_game(live_of(game, signed, rated=True)) is not None
    assert finished_game(live_of(game, signed, rated=False)) is None
    guest = [SeatInfo("human", account="a"), SeatInfo("human")]
    assert finished_game(live_of(game, guest, rated=True)) is None
    bots = [SeatInfo("bot", bot="greedy"), SeatInfo("bot", bot="random")]
    assert finished_game(live_of(game, bots, rated=True)) is None  # nobody to rate
    twice = [SeatInfo("human", account="a"), SeatInfo("human", account="a")]
    assert finished_game(live_of(game, twice, rated=True)) is None


def test_profile_and_leaderboard(db_url: str) -> None:
    """The profile of a player, 404 for nobody and for a deleted account; the leaderboard
    keeps players with enough games, best display rating first."""
    app = create_app(db_url, GENEROUS, bot_delay=0, rate_limit=1_000_000)
    with TestClient(app) as client:
        store: Store = app.state.service.store
        a, b, c = (add_account(store, n) for n in ("Anna", "Bram", "Cato"))
        add_account(store, "Gone", deleted=True)
        rng = random.Random(3)
        for i in range(6):
            seed = rng.randrange(1 << 30)
            game = played(Config(players=2, quick_setup=True), seed, ["greedy", "random"])
            winner = placements(game.state).index(1)
            first, second = (a, b) if i < 5 else (c, a)
            seats = [first, second] if winner == 0 else [second, first]
            record(store, stored_finished(store, game, [SeatSubject(account=x, realm="kimbria")
                                                          for x in seats],
                                          T0 + timedelta(hours=i), name=f"game {i}"))
        assert client.get("/api/players/nobody").json()["error"]["code"] == "unknown_player"
        assert client.get("/api/players/nobody").status_code == 404
        assert client.get("/api/players/Gone").status_code == 404
        r = client.get("/api/players/anna")  # names are found folded
        assert r.status_code == 200, r.text
        anna = r.json()
        assert anna["name"] == "Anna" and anna["games"] == 6 and anna["wins"] == 5
        assert anna["by_players"] == {"2": {"games": 6, "wins": 5}}
        assert anna["by_realm"] == {"kimbria": {"games": 6, "wins": 5}}
        assert anna["ratings"]["free_for_all-2"]["games"] == 6
        assert [h["game_id"] for h in anna["history"]] == [
            g["game_id"] for g in reversed(anna["recent"])]
        assert anna["recent"][0]["name"] == "game 5" and anna["recent"][0]["won"] is False
        assert anna["recent"][0]["replay"] == f"/replay/{anna['recent'][0]['game_id']}"
        assert anna["rating"]["display"] == display(anna["rating"]["mu"],
                                                    anna["rating"]["sigma"])
        board = client.get("/api/leaderboard").json()  # the server's least: 5 games
        assert board["min_games"] == 5 and board["category"] == "all"
        assert [p["name"] for p in board["players"]] == ["Anna", "Bram"]
        assert board["players"][0]["display"] > board["players"][1]["display"]
        assert [p["rank"] for p in board["players"]] == [1, 2]
        assert {bot["kind"] for bot in board["bots"]} >= {"random", "greedy", "mcts"}
        every = client.get("/api/leaderboard?mode=free_for_all&players=2&min_games=0").json()
        assert every["category"] == "free_for_all-2"
        assert [p["name"] for p in every["players"]][:1] == ["Anna"]
        assert {p["name"] for p in every["players"]} == {"Anna", "Bram", "Cato"}
        assert client.get("/api/leaderboard?mode=team_2v2").json()["players"] == []
        assert client.get("/api/leaderboard?mode=free_for_all").json()["category"] == \
            "free_for_all"  # every player count
        assert client.get("/api/leaderboard?players=3").json()["category"] == "free_for_all-3"
        assert client.get("/api/leaderboard?mode=team_3v3&players=2").json()["category"] == \
            "team_3v3"  # a team mode has its one count
        assert client.get("/api/leaderboard?mode=duel").status_code == 400
        with store.engine.begin() as conn:  # a deleted account leaves the board
            conn.execute(update(accounts).where(accounts.c.id == b)
                         .values(deleted=T0, name_key=None))
        assert [p["name"] for p in client.get("/api/leaderboard").json()["players"]] == [
            "Anna"]


def test_the_server_rates_a_game_when_its_last_step_is_stored(tmp_path: Path) -> None:
    """The hook: a rated game played to its end through the API (a person against a bot)
    is rated by the server once its last step is stored."""
    from server_support import create, join_all, play_http

    app = create_app(sqlite_url(tmp_path), GENEROUS, bot_delay=0, rate_limit=1_000_000)
    with TestClient(app) as client:
        service = app.state.service
        anna = add_account(service.store, "anna")
        created = create(client, ["human", "greedy"], quick=True, seed=11)
        live = service.games[created["game_id"]]
        tokens = join_all(client, created)
        live.rated = True  # as server/accounts.py sets them: a signed-in player's seat
        live.seats[0].account = anna
        view = play_http(client, created["game_id"], tokens, random.Random(1), 5000)
        assert view["result"] is not None
        for _ in range(200):
            if anna in stored_skills(service.store, "all"):
                break
            threading.Event().wait(0.05)
        _mu, _sigma, games, _wins = stored_skills(service.store, "all")[anna]
        assert games == 1
        assert anna in stored_skills(service.store, "free_for_all-2")
