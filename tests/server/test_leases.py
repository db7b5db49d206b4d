"""Leases and fencing in the database (leases.py, docs/server.md "Scaling out"): one writer
per game whatever the timing; a writer whose lease was taken stores nothing."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from kaladan.server.leases import LeaseLost
from kaladan.server.storage import Store


@pytest.fixture
def stores(postgres_db: str) -> tuple[Store, Store]:
    a, b = Store(postgres_db, lease_seconds=0.5), Store(postgres_db, lease_seconds=0.5)
    a.upgrade()
    a.create_game("g_lease", "lease", datetime.now(UTC), {"players": 2}, 1, "running",
                  [{"kind": "human"}] * 2)
    yield a, b
    a.dispose()
    b.dispose()


def test_a_taken_lease_fences_its_old_holder_off(stores: tuple[Store, Store]) -> None:
    a, b = stores
    token_a = a.acquire_lease("g_lease", "A")
    assert token_a == 1
    assert b.acquire_lease("g_lease", "B") is None  # held and alive
    a.add_steps("g_lease", 0, [(0, "x", [])], fence=("A", token_a))
    time.sleep(0.7)  # A stops renewing: its lease expires (A paused, say)
    token_b = b.acquire_lease("g_lease", "B")
    assert token_b == 2
    with pytest.raises(LeaseLost):  # A resumes and tries to store its next decision
        a.add_steps("g_lease", 1, [(1, "y", [])], fence=("A", token_a))
    assert a.renew_leases("A") == set()
    b.add_steps("g_lease", 1, [(1, "z", [])], fence=("B", token_b))
    row = b.load("g_lease")
    assert row is not None and [s[1] for s in row.steps] == ["x", "z"]
    assert b.renew_leases("B") == {"g_lease"}


def test_an_expired_lease_fences_even_when_nobody_took_it(stores: tuple[Store, Store]) -> None:
    a, _ = stores
    token = a.acquire_lease("g_lease", "A")
    assert token is not None
    time.sleep(0.7)
    with pytest.raises(LeaseLost):
        a.add_steps("g_lease", 0, [(0, "x", [])], fence=("A", token))
    assert a.expired_leases() == ["g_lease"]


def test_hand_over_and_release(stores: tuple[Store, Store]) -> None:
    a, b = stores
    assert a.acquire_lease("g_lease", "A") == 1
    a.hand_over_leases("A")  # a stopping process: its games are free at once
    assert b.expired_leases() == ["g_lease"]
    assert b.acquire_lease("g_lease", "B") == 2
    b.release_leases(["g_lease"], "B")
    holder = a.lease_holder("g_lease")
    assert holder is None
    assert a.acquire_lease("g_lease", "A") == 1  # a fresh row: fenced by owner and token
    with pytest.raises(LeaseLost):
        a.add_steps("g_lease", 0, [(0, "x", [])], fence=("B", 1))


def test_seats_are_replaced_only_when_unchanged(stores: tuple[Store, Store]) -> None:
    a, b = stores
    old = a.seats_text("g_lease")
    assert old is not None
    assert b.replace_seats("g_lease", old, [{"kind": "human", "token_hash": "t"}] * 2,
                           "running")
    assert not a.replace_seats("g_lease", old, [{"kind": "human"}] * 2, "open")
    assert "token_hash" in (a.seats_text("g_lease") or "")
