"""The server's shortcuts change nothing: memoised odds and action texts equal the engine's,
a view's JSON text is its view, and steps stored from threads (``Store.add_steps``) or from an
event loop (``StepWriter``) end stored in order, keeping one game's refused steps its own."""

from __future__ import annotations

import asyncio
import gc
import json
import random
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from live_support import live_game, sqlite_url
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from kaladan.odds import odds_for_attack
from kaladan.rules.actions import ATTACK
from kaladan.rules.kinds import format_action
from kaladan.server import create_app
from kaladan.server.jsontext import dumps
from kaladan.server.settings import ServerSettings
from kaladan.server.storage import (
    QueuedSteps,
    StepWriter,
    StorageError,
    Store,
    commit_batch,
    steps,
)
from kaladan.server.views import action_text, attack_odds, build_view, view_text


def test_memoised_odds_and_texts_equal_the_engines() -> None:
    """Every legal action's text, and every attack's odds (R16.14-R16.21), over whole games:
    the memo is hit many times and never answers differently from a fresh computation."""
    attacks = 0
    for seed in range(8):
        live = live_game(3, seed, quick=True)
        game, rng = live.game, random.Random(seed)
        while not game.is_over:
            state = game.state
            legal = game.legal_actions()
            for action in legal:
                assert action_text(action, state) == format_action(action, state)
                if action.kind != ATTACK:
                    continue
                attacks += 1
                odds = odds_for_attack(state, action.tile, action.tile2)
                shown = attack_odds(state, action)
                assert shown is not None
                assert shown["attacker_wins_exact"] == (f"{odds.attacker_wins.numerator}/"
                                                        f"{odds.attacker_wins.denominator}")
                assert shown["expected_attacker_losses"] == float(
                    odds.expected_attacker_losses)
                assert shown["expected_defender_losses"] == float(
                    odds.expected_defender_losses)
            game.play(legal[rng.randrange(len(legal))], state.pending.seat)
    assert attacks > 100


def test_view_text_is_the_view() -> None:
    """The text sent (made from the log entries' own JSON) parses back to the view, for
    every seat and a spectator, at every version, with the whole log or the newest part."""
    live = live_game(3, 5, quick=True)
    game, rng = live.game, random.Random(5)
    while not game.is_over and len(game.steps) < 150:
        legal = game.legal_actions()
        game.play(legal[rng.randrange(len(legal))], game.state.pending.seat)
        live.publish()
        for seat in (0, 1, 2, None):
            for since in (-1, live.version - 1):
                assert json.loads(view_text(live, seat, since)) == build_view(live, seat, since)
    assert len(build_view(live, None)["log"]) > 150


def _steps(n: int) -> list[tuple[int, str, list[int]]]:
    return [(i % 2, f"action {i}", [i]) for i in range(n)]


def _store_with_games(tmp_path: Path, n: int) -> Store:
    store = Store(sqlite_url(tmp_path))
    store.upgrade()
    for g in range(n):
        store.create_game(f"g{g}", "test", datetime.now(UTC), {}, 1, "running", [])
    return store


def test_steps_stored_from_threads_end_in_order(tmp_path: Path) -> None:
    store = _store_with_games(tmp_path, 12)

    def play(g: int) -> None:
        for first in range(0, 30, 3):  # one game's steps come in order, three at a time
            store.add_steps(f"g{g}", first, _steps(30)[first:first + 3],
                            "over" if first == 27 else None)

    try:
        with ThreadPoolExecutor(6) as pool:
            list(pool.map(play, range(12)))
        for g in range(12):
            loaded = store.load(f"g{g}")
            assert loaded is not None and loaded.status == "over"
            assert loaded.steps == _steps(30)
    finally:
        store.dispose()


def test_refused_steps_fail_only_their_own_game(tmp_path: Path) -> None:
    """A batch with a step stored twice is retried game by game: the other games' steps are
    stored, the duplicate is refused, and nothing of it is half-stored."""
    store = _store_with_games(tmp_path, 3)
    try:
        store.add_steps("g1", 0, _steps(2))
        batch = [QueuedSteps("g0", _rows("g0", 0, 2), None),
                 QueuedSteps("g1", _rows("g1", 1, 2), "over"),  # index 1 is stored already
                 QueuedSteps("g2", _rows("g2", 0, 1), None)]
        commit_batch(store, batch)
        assert all(item.done for item in batch)
        assert batch[0].error is None and batch[2].error is None
        assert batch[1].error is not None and "UNIQUE" in str(batch[1].error).upper()
        with store.engine.connect() as c:
            rows = c.execute(select(steps.c.game_id, steps.c.index)
                             .order_by(steps.c.game_id, steps.c.index)).all()
        assert [tuple(r) for r in rows] == [("g0", 0), ("g0", 1), ("g1", 0), ("g1", 1),
                                            ("g2", 0)]
        loaded = store.load("g1")
        assert loaded is not None and loaded.status == "running"  # its status rolled back
        with pytest.raises(IntegrityError):  # alone, the refusal reaches the caller
            store.add_steps("g1", 1, _steps(1))
    finally:
        store.dispose()


def test_the_step_writer_stores_every_games_steps_from_the_loop(tmp_path: Path) -> None:
    """Games on an event loop hand their steps to the writer's thread and await them: every
    game's steps end stored in order, several games' in one transaction, and the loop is
    never blocked (it keeps handing over while the thread writes)."""
    store = _store_with_games(tmp_path, 8)
    batches: list[int] = []
    write = store.write_steps

    def counted(batch: Any) -> None:
        batches.append(len(batch))
        write(batch)

    store.write_steps = counted  # type: ignore[method-assign]
    writer = StepWriter(store)

    async def play(g: int) -> None:
        for first in range(0, 30, 3):
            await writer.add_steps(f"g{g}", first, _steps(30)[first:first + 3],
                                   "over" if first == 27 else None)

    async def main() -> None:
        await asyncio.gather(*(play(g) for g in range(8)))
        assert (await asyncio.gather(writer.add_steps("g0", 30, []))) == [None]  # nothing new

    try:
        asyncio.run(main())
        writer.close()
        for g in range(8):
            loaded = store.load(f"g{g}")
            assert loaded is not None and loaded.status == "over"
            assert loaded.steps == _steps(30)
        assert sum(batches) == 80 and len(batches) < 80  # grouped: fewer commits than steps
    finally:
        store.dispose()


def test_the_step_writer_refuses_one_games_steps_only_and_stops_cleanly(tmp_path: Path) -> None:
    """A refused batch is retried game by game: only the game whose steps the database
    refuses gets the error; after ``close`` nothing more is taken (StorageError)."""
    store = _store_with_games(tmp_path, 2)
    store.add_steps("g1", 0, _steps(1))
    writer = StepWriter(store)

    async def main() -> list[BaseException | None]:
        results = await asyncio.gather(writer.add_steps("g0", 0, _steps(2)),
                                       writer.add_steps("g1", 0, _steps(1)),  # stored already
                                       return_exceptions=True)
        return list(results)

    try:
        first, second = asyncio.run(main())
        assert first is None
        assert isinstance(second, IntegrityError) and "UNIQUE" in str(second).upper()
        writer.close()

        async def late() -> None:
            await writer.add_steps("g0", 2, _steps(1))

        with pytest.raises(StorageError, match="stopping"):
            asyncio.run(late())
        loaded = store.load("g0")
        assert loaded is not None and loaded.steps == _steps(2)
    finally:
        store.dispose()


def _rows(game_id: str, first: int, n: int) -> list[dict[str, Any]]:
    return [{"game_id": game_id, "index": first + i, "seat": seat, "action": action,
             "chance": chance} for i, (seat, action, chance) in enumerate(_steps(n))]


def test_steps_are_stored_as_sqlalchemy_would_store_them(tmp_path: Path) -> None:
    """The group writer's own SQL on SQLite writes the rows and JSON text SQLAlchemy's
    insert wrote, and they load back."""
    store = _store_with_games(tmp_path, 1)
    try:
        store.add_steps("g0", 0, [(1, "move T1 T2 0/sword", [6, 0, 12]), (0, "pass", [])],
                        "over")
        with store.engine.connect() as c:
            raw = c.exec_driver_sql('SELECT "index", seat, action, chance FROM steps '
                                    'ORDER BY "index"').all()
        assert [tuple(r) for r in raw] == [(0, 1, "move T1 T2 0/sword", json.dumps([6, 0, 12])),
                                           (1, 0, "pass", json.dumps([]))]
        loaded = store.load("g0")
        assert loaded is not None and loaded.status == "over"
        assert loaded.steps == [(1, "move T1 T2 0/sword", [6, 0, 12]), (0, "pass", [])]
    finally:
        store.dispose()


def test_the_app_sets_the_collectors_threshold_while_it_runs(tmp_path: Path) -> None:
    """``gc_threshold`` holds while the app runs; the process's own comes back after."""
    before = gc.get_threshold()
    settings = ServerSettings(gc_threshold=12_345)
    with TestClient(create_app(sqlite_url(tmp_path), settings)):
        assert gc.get_threshold() == (12_345, *before[1:])
    assert gc.get_threshold() == before
    with TestClient(create_app(sqlite_url(tmp_path), ServerSettings(gc_threshold=0))):
        assert gc.get_threshold() == before  # 0: the interpreter's


def test_view_json_is_the_standard_encoders_text() -> None:
    """``jsontext.dumps`` (orjson) writes what the standard library's compact encoder writes,
    non-ASCII as it is, integer keys as text; an integer beyond 64 bits, which orjson
    cannot write, goes to the standard encoder."""
    value = {"name": "Zhojira é \"x\" \\ \u2028 \n", "n": [1, -2, 2**63 - 1], "none": None,
             "flag": True, 3: {"deep": [[], {}]}}
    standard = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert dumps(value) == standard
    huge = {"seed": 2**70}
    assert dumps(huge) == json.dumps(huge, separators=(",", ":"))
