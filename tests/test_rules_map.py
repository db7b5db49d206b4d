"""docs/rules-map.md (which code and which tests cite each rule id) is kept current."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_script() -> object:
    spec = importlib.util.spec_from_file_location("rules_map", ROOT / "scripts" / "rules_map.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rules_map_is_current() -> None:
    script = load_script()
    expected = script.render()  # type: ignore[attr-defined]
    actual = (ROOT / "docs" / "rules-map.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/rules-map.md is out of date: run python scripts/rules_map.py"


def test_rules_map_lists_every_rule_once() -> None:
    text = (ROOT / "docs" / "rules-map.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| R")]
    assert len(rows) == len(set(rows)) > 200
    assert "R16.23" in rows and "R4.14" in rows
