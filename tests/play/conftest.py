"""Every terminal-game test keeps its saves in its own user data directory (platformdirs
reads ``XDG_DATA_HOME`` on Linux), never in the real one; child processes inherit it."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path.parent / f"{tmp_path.name}-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    return data
