"""Play simulation games on a Ray cluster (the optional extra: ``pip install 'kaladan[ray]'``).

Ray is imported only when this backend runs, so the rest of kaladan never needs it. Games are
sent in batches; every game keeps the seed the local backend gives it and results are put
back in game order, so a run gives the same summary on Ray as with ``--jobs 1``.

The driver's copy of the ``kaladan`` package is shipped to the workers (Ray's ``py_modules``),
so every node plays with exactly the code that started the run; the nodes need only Ray and
the driver's Python version. See docs/simulation.md.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .runner import GameSpec, GameSummary, Player, Progress, play_spec

INSTALL_HINT = "pip install 'kaladan[ray]'"

Task = GameSpec

# Addresses that ray.init resolves itself instead of naming a host and port.
_SPECIAL_ADDRESSES = ("auto", "local")


class RayBackendError(Exception):
    """Ray is missing or its cluster cannot be used: a message for the user, no traceback."""


def load_ray() -> Any:
    """The ``ray`` module, or a clear error naming the extra to install."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise RayBackendError(
            f"the Ray backend needs Ray, which is not installed: {INSTALL_HINT}") from exc


def host_and_port(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (optionally ``ray://HOST:PORT``, IPv6 host in brackets) split in two."""
    rest = address.split("://", 1)[-1]
    host, sep, port_text = rest.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise RayBackendError(
            f"bad Ray address {address!r}: expected HOST:PORT (e.g. 10.0.0.5:6379), "
            f"ray://HOST:PORT or auto")
    return host, int(port_text)


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast on an address nobody listens at: ``ray.init`` itself retries for minutes."""
    if address in _SPECIAL_ADDRESSES:
        return
    host, port = host_and_port(address)
    import socket  # loaded only when Ray is used: simulate starts faster

    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        raise RayBackendError(f"cannot reach a Ray cluster at {address!r}: {exc}") from exc


def _package_dir() -> str:
    from pathlib import Path  # not at the top: simulate loads this module on every run

    return str(Path(__file__).resolve().parent.parent)


@contextlib.contextmanager
def session(address: str | None = None) -> Iterator[Any]:
    """Connect to Ray for the duration of the block and yield the ``ray`` module.

    Without ``address`` an existing local instance is used or a new one started (``ray.init()``);
    with one, that cluster is joined. A connection made by the caller beforehand is reused and
    left open; one made here is closed at the end (stopping the instance it started).
    """
    ray = load_ray()
    if ray.is_initialized():
        yield ray
        return
    named = address if address is not None else os.environ.get("RAY_ADDRESS")
    if named:
        check_reachable(named)  # ray.init reads RAY_ADDRESS itself when no address is given
    import logging

    try:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False,
                 runtime_env={"py_modules": [_package_dir()]})
    except Exception as exc:  # ray.init raises several types; all mean "no cluster to use"
        where = f"the Ray cluster at {address!r}" if address else "a local Ray instance"
        raise RayBackendError(
            f"cannot connect to {where}: {exc} (a cluster with token authentication needs "
            f"RAY_AUTH_MODE=token and its token in RAY_AUTH_TOKEN or ~/.ray/auth_token; "
            f"see docs/simulation.md)") from exc
    try:
        yield ray
    finally:
        ray.shutdown()


@contextlib.contextmanager
def player(address: str | None = None) -> Iterator[Player]:
    """The runner's ``Player`` on Ray (``runner.BACKEND_MODULES``): one connection for the
    whole block of games it plays."""
    with session(address):
        def play(specs: Sequence[GameSpec], progress: Progress | None) -> list[GameSummary]:
            return run_on_ray(list(specs), address, progress)

        yield play


def _play_batch(tasks: list[Task]) -> list[GameSummary]:
    """Runs on a worker: play a batch of games one after another."""
    return [play_spec(task) for task in tasks]


def batch_size(games: int, cpus: int) -> int:
    """About four batches per CPU so the cluster stays busy to the end, at most 32 games each."""
    return max(1, min(32, games // (4 * max(cpus, 1))))


def run_on_ray(tasks: list[Task], address: str | None = None,
               progress: Callable[[int, int], None] | None = None) -> list[GameSummary]:
    """Play ``tasks`` on Ray; results come back in task order whatever order batches finish in."""
    with session(address) as ray:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        size = batch_size(len(tasks), cpus)
        batches = [tasks[i:i + size] for i in range(0, len(tasks), size)]
        play_remote = ray.remote(num_cpus=1)(_play_batch)
        pending = {play_remote.remote(batch): i for i, batch in enumerate(batches)}
        results: list[list[GameSummary]] = [[] for _ in batches]
        done = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                index = pending.pop(ref)
                results[index] = fetch(ray, ref)
                done += len(results[index])
                if progress is not None:
                    progress(done, len(tasks))
        return [game for batch in results for game in batch]


def fetch(ray: Any, ref: Any) -> Any:
    """A task's result (a batch of games, or of self-play rows). A game that fails on a worker
    raises its own error here, as it would in a local process (a custom bot's KaladanError
    stays a clear message); losing the cluster is a RayBackendError."""
    try:
        result = ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        if isinstance(exc.cause, Exception):
            raise exc.cause from None
        raise
    except ray.exceptions.RayError as exc:
        raise RayBackendError(f"the Ray cluster failed during the run: {exc}") from exc
    return result
