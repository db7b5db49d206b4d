"""The Ray backend (issue 6): a real local Ray instance started here gives exactly the games of
one local process for the same seed; a missing Ray or an unusable address is a clear error.

Without Ray installed the cluster tests skip, except under CI (``CI=true``), where a missing
Ray fails them: CI installs ``kaladan[ray]`` and must run them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kaladan.cli.main import main
from kaladan.rules.config import Config
from kaladan.rules.errors import KaladanError
from kaladan.sim.ray_backend import RayBackendError, batch_size, host_and_port
from kaladan.sim.runner import simulate
from kaladan.sim.tournament import play

HAVE_RAY = importlib.util.find_spec("ray") is not None
START_TIMEOUT = 90.0


def require_ray() -> None:
    if HAVE_RAY:
        return
    if os.environ.get("CI") == "true":
        pytest.fail("Ray is not installed but CI=true: CI must install kaladan[ray] "
                    "(pip install -e '.[test,ray]') so the Ray backend is tested")
    pytest.skip("Ray is not installed (pip install 'kaladan[ray]')")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaladan.cli.main", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """A head node of 2 CPUs started with the venv's ``ray`` script, in its own process group
    and temporary directory; stopped (and its group killed) at teardown."""
    require_ray()
    port = free_port()
    # Short path: Ray's unix sockets live under it and must stay below 108 bytes.
    temp_dir = tempfile.mkdtemp(prefix="kray-", dir="/tmp" if os.path.isdir("/tmp") else None)
    log_path = Path(temp_dir) / "start.log"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    # Token authentication off (clients joining by address then need no token) and no
    # 30-second drain on shutdown.
    env.update(RAY_AUTH_MODE="disabled", RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S="0")
    command = [str(Path(sys.executable).with_name("ray")), "start", "--head",
               f"--port={port}", "--num-cpus=2", "--include-dashboard=false",
               f"--dashboard-port={free_port()}", f"--dashboard-agent-listen-port={free_port()}",
               "--object-store-memory=100000000", "--disable-usage-stats",
               f"--temp-dir={temp_dir}", "--block"]
    with open(log_path, "w") as log:
        head = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while "block forever" not in log_path.read_text():
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start failed:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        head.terminate()  # the `ray start --block` process stops what it started
        with contextlib.suppress(subprocess.TimeoutExpired):
            head.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)  # anything left in its process group
        head.wait()
        shutil.rmtree(temp_dir, ignore_errors=True)


def test_the_cli_gives_the_same_games_on_ray_as_in_one_local_process(ray_address: str) -> None:
    args = ["simulate", "--players", "random,greedy", "--games", "6", "--quick", "--seed", "5",
            "--records", "--json"]
    local = run(*args, "--backend", "local", "--jobs", "1")
    on_ray = run(*args, "--backend", "ray", "--ray-address", ray_address)
    assert local.returncode == 0, local.stderr
    assert on_ray.returncode == 0, on_ray.stderr
    local_games = json.loads(local.stdout)["games"]
    assert len(local_games) == 6 and len({g["seed"] for g in local_games}) == 6
    assert all(g["record"]["format"] == "kaladan-record" for g in local_games)
    assert json.loads(on_ray.stdout)["games"] == local_games  # full records included


def test_progress_tournaments_and_summaries_match_on_ray(ray_address: str) -> None:
    config = Config(players=2, quick_setup=True)
    seen: list[tuple[int, int]] = []
    on_ray = simulate(config, ["greedy", "random"], 8, seed=9, backend="ray",
                      ray_address=ray_address, progress=lambda done, total: seen.append(
                          (done, total)))
    assert on_ray.to_json() == simulate(config, ["greedy", "random"], 8, seed=9).to_json()
    # Progress is reported per finished batch (2 CPUs, 8 games: batches of one game).
    assert [done for done, _ in seen] == list(range(1, 9)) and {t for _, t in seen} == {8}
    local = play(["random", "greedy"], 3, seed=3, bootstrap=20)
    remote = play(["random", "greedy"], 3, seed=3, bootstrap=20, backend="ray",
                  ray_address=ray_address)
    assert remote.matches == local.matches and remote.standings == local.standings


def test_a_balance_study_gives_the_same_tables_on_ray_as_in_local_processes(
        ray_address: str) -> None:
    """Issue 18: the design, seeds, batches and early stop do not depend on the backend."""
    args = ["balance", "--players", "2", "--bot", "random", "--games", "120", "--seed", "6",
            "--compare", "mountain_defence=drop_lowest", "--until-ci", "0.45", "--json"]
    local = run(*args, "--jobs", "1")
    on_ray = run(*args, "--backend", "ray", "--ray-address", ray_address)
    assert local.returncode == 0, local.stderr
    assert on_ray.returncode == 0, on_ray.stderr
    tables = [json.loads(r.stdout) for r in (local, on_ray)]
    for table in tables:
        del table["seconds"]
    assert tables[0] == tables[1]
    assert tables[0]["games"] == 60 and "narrower than 0.45" in tables[0]["stopped"]


def test_a_failing_bot_on_ray_is_the_same_clear_error_as_locally(
        ray_address: str, tmp_path: Path) -> None:
    bot = tmp_path / "crash.py"
    bot.write_text("class Crash:\n    name = 'crash'\n\n"
                   "    def choose(self, view, legal, rng):\n"
                   "        raise RuntimeError('boom')\n")
    config, bots = Config(players=2, quick_setup=True), [f"{bot}:Crash", "random"]
    with pytest.raises(KaladanError) as local:
        simulate(config, bots, 2, seed=1)
    with pytest.raises(KaladanError) as on_ray:
        simulate(config, bots, 2, seed=1, backend="ray", ray_address=ray_address)
    # The worker's error itself, not Ray's wrapper with its remote traceback.
    assert type(on_ray.value) is type(local.value)
    assert str(on_ray.value) == str(local.value) and "boom" in str(local.value)


@pytest.mark.parametrize("address, words", [
    ("127.0.0.1:{free}", "cannot reach a Ray cluster"),
    ("no-such-host.invalid:6379", "cannot reach a Ray cluster"),
    ("nonsense", "expected HOST:PORT"),
])
def test_an_unusable_ray_address_is_a_clear_error(
        address: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    require_ray()
    address = address.format(free=free_port())  # nobody listens there
    code = main(["simulate", "--players", "random,random", "--games", "2", "--quick",
                 "--backend", "ray", "--ray-address", address])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_without_ray_the_backend_names_the_extra_to_install(
        command: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails, as if not installed
    players = ["--players", "random,random"] if command == "simulate" else ["--bots",
                                                                          "random,greedy"]
    code = main([command, *players, "--games", "2", "--backend", "ray"])
    err = capsys.readouterr().err
    assert code == 2 and "pip install 'kaladan[ray]'" in err and "Traceback" not in err


@pytest.mark.parametrize("extra, words", [
    (["--ray-address", "127.0.0.1:6379"], "--ray-address needs --backend ray"),
    (["--backend", "ray", "--jobs", "2"], "--jobs is for the local backend"),
])
def test_backend_flags_that_do_not_fit_together(
        extra: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    for command, players in (("simulate", "--players"), ("tournament", "--bots")):
        code = main([command, players, "random,greedy", "--games", "2", *extra])
        assert code == 2 and words in capsys.readouterr().err


@pytest.mark.parametrize("address, expected", [
    ("10.0.0.5:6379", ("10.0.0.5", 6379)),
    ("ray://head.example:10001", ("head.example", 10001)),
    ("[::1]:6379", ("::1", 6379)),
])
def test_ray_addresses_split_into_host_and_port(address: str, expected: tuple[str, int]) -> None:
    assert host_and_port(address) == expected


@pytest.mark.parametrize("address", ["head", "head:", ":6379", "head:port", "head:70000"])
def test_malformed_ray_addresses_are_refused(address: str) -> None:
    with pytest.raises(RayBackendError, match="expected HOST:PORT"):
        host_and_port(address)


def test_batches_keep_every_cpu_busy_and_stay_small() -> None:
    assert batch_size(6, 2) == 1
    assert batch_size(1000, 8) == 31
    assert batch_size(100_000, 2) == 32
    assert batch_size(3, 0) == 1
