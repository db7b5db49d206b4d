"""The seat kind ``ppo``: the trained policy the operator gave ``kaladan serve --ppo-policy``.

A client asks for ``ppo`` and never names a file; a server without a policy refuses the kind,
a policy trained for another player count is refused when the game is created, a stored
game's ppo seat plays the server's policy of the day, and a policy that does not load stops
``kaladan serve`` at start-up with one line.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")

from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from live_support import GENEROUS, free_port, sqlite_url  # noqa: E402
from security_support import watch_log  # noqa: E402
from server_support import create, join_all, play_http  # noqa: E402

from kaladan.server import create_app  # noqa: E402
from kaladan.server.errors import ApiError  # noqa: E402
from kaladan.server.service import check_bot_spec  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A 2-player policy trained for a few hundred steps (it only has to load and fit)."""
    out = tmp_path_factory.mktemp("ppo")
    run = subprocess.run(
        [sys.executable, "bench/train_ppo.py", "--steps", "512", "--eval-every", "256",
         "--eval-games", "2", "--n-envs", "1", "--n-steps", "256", "--net", "32,32",
         "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert (out / "policy.zip").is_file()
    return str(out / "policy.zip")


def ppo_app(folder: Path, policy: str | None) -> FastAPI:
    return create_app(sqlite_url(folder), replace(GENEROUS, ppo_policy=policy), bot_delay=0,
                      rate_limit=1e6)


@pytest.fixture
def with_policy(tmp_path: Path, policy: str) -> Iterator[TestClient]:
    with TestClient(ppo_app(tmp_path, policy)) as client:
        yield client


def refused(client: TestClient, seats: list[str]) -> dict[str, Any]:
    r = client.post("/api/games", json={"seats": seats, "quick": True})
    assert r.status_code == 400, r.text
    error: dict[str, Any] = r.json()["error"]
    return error


def bot_steps(app: FastAPI, game_id: str, seat: int) -> int:
    return sum(step.seat == seat for step in app.state.service.games[game_id].game.steps)


def test_a_ppo_seat_plays_the_servers_policy_also_after_a_restart(
        tmp_path: Path, policy: str) -> None:
    rng = random.Random(5)
    app = ppo_app(tmp_path, policy)
    with watch_log() as log, TestClient(app) as client:
        created = create(client, ["human", "ppo"], quick=True, seed=11)
        game_id = created["game_id"]
        seats = client.get(f"/api/games/{game_id}").json()["seats"]
        assert [(s["kind"], s["bot"]) for s in seats] == [("human", None), ("bot", "ppo")]
        tokens = join_all(client, created)
        for _ in range(40):
            view = play_http(client, game_id, tokens, rng, decisions=1)
            if bot_steps(app, game_id, 1) or view["result"] is not None:
                break
        assert bot_steps(app, game_id, 1) >= 1
        service = app.state.service
        assert service.games[game_id].bots[1] is service.bots.ppo  # loaded once, shared
        stored = service.store.load(game_id)
        # The seat kind as the client gave it, never the server's file.
        assert stored.seats[1]["kind"] == "bot" and stored.seats[1]["bot"] == "ppo"
        assert policy not in str(stored.seats)
        decided = bot_steps(app, game_id, 1)
    assert log.failures() == []  # the policy chose every move (a failing bot is logged)

    # Without the policy the stored game waits (503), it is not set aside as damaged ...
    with TestClient(ppo_app(tmp_path, None)) as client:
        r = client.get(f"/api/games/{game_id}/view")
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "bot_unavailable"
        assert "ppo policy" in r.json()["error"]["message"]

    # ... and plays on when the server has a policy again: the server's current one.
    again = ppo_app(tmp_path, policy)
    with TestClient(again) as client:
        assert client.get(f"/api/games/{game_id}/view").status_code == 200
        live = again.state.service.games[game_id]
        assert live.bots[1] is again.state.service.bots.ppo
        for _ in range(40):
            view = play_http(client, game_id, tokens, rng, decisions=1)
            if bot_steps(again, game_id, 1) > decided or view["result"] is not None:
                break
        assert bot_steps(again, game_id, 1) > decided or view["result"] is not None


def test_a_server_without_a_policy_refuses_the_ppo_seat(client: TestClient) -> None:
    error = refused(client, ["human", "ppo"])
    assert error["code"] == "unknown_bot"
    assert "no ppo policy" in error["message"] and "--ppo-policy" in error["message"]
    assert client.get("/api/games").json()["games"] == []
    seats = client.get("/openapi.json").json()["components"]["schemas"]["CreateGame"][
        "properties"]["seats"]["items"]["pattern"]
    assert "ppo" not in seats


def test_the_schema_offers_ppo_when_the_server_has_a_policy(with_policy: TestClient) -> None:
    seats = with_policy.get("/openapi.json").json()["components"]["schemas"]["CreateGame"][
        "properties"]["seats"]["items"]["pattern"]
    assert "|ppo|" in seats


@pytest.mark.parametrize("spec", ["ppo:path=/etc/passwd", "ppo:path=policy.zip",
                                  "ppo:deterministic=0", "ppo:", "PPO"])
def test_a_client_never_names_nor_tunes_the_policy(with_policy: TestClient, spec: str,
                                                    policy: str) -> None:
    refused(with_policy, ["human", spec])
    with pytest.raises(ApiError) as raised:  # and the service refuses it past the model too
        check_bot_spec(spec, policy)
    assert raised.value.code == "unknown_bot"
    assert with_policy.get("/api/games").json()["games"] == []


def test_a_policy_for_another_player_count_is_refused_at_creation(
        with_policy: TestClient) -> None:
    error = refused(with_policy, ["human", "ppo", "greedy"])
    assert error["code"] == "unknown_bot"
    assert "trained for" in error["message"] and "player count" in error["message"]
    assert with_policy.get("/api/games").json()["games"] == []


def test_serve_stops_at_start_up_when_the_policy_does_not_load(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kaladan.cli.main import main

    broken = tmp_path / "broken.zip"
    broken.write_text("not a policy")
    for path, says in (("/nonexistent", "not found"), (str(broken), "failed to load")):
        code = main(["serve", "--ppo-policy", path, "--port", str(free_port()),
                     "--database-url", sqlite_url(tmp_path)])
        err = capsys.readouterr().err
        assert code != 0
        assert err.startswith("kaladan: error: --ppo-policy") and says in err, err
        assert err.count("\n") == 1 and "Traceback" not in err, err
