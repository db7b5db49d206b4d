"""Every rule of RULES.md sections 4-25 (team mode included) is cited by at least one test.

A rule counts as cited when a test file under ``tests/`` names it as ``R16.23`` (in a
docstring or comment) or as ``r16_23`` (in a test name). ``R1.1`` never matches ``R1.10``.
Rules that cannot be tested yet are listed in ``EXCLUDED`` with the reason; the list is kept
honest: every excluded id exists in RULES.md and is not cited anywhere.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
def _find_rules() -> Path:
    """RULES.md lives in ``shared/`` beside the checkout (as on CI: ``../shared``)."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "rules" / "RULES.md"
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("RULES.md not found: expected shared/rules/RULES.md beside the "
                            "checkout (../shared), as the developers' guide lays it out")


RULES_MD = _find_rules()
SECTIONS = frozenset([*range(4, 26)])  # sections 4-25, team mode (23) included
CARD_IDS = tuple(f"{realm}-{n}" for realm in ("KHA", "KIM", "NAN", "ARD", "ZHO", "LAU")
                 for n in range(1, 6))

EXCLUDED: dict[str, str] = {
    "R4.12": "non-normative: fairness notes for table talk, 'not rules'",
}

_RULE_ID = re.compile(r"\*\*R(\d+)\.(\d+)\*\*")


@cache
def rule_ids() -> tuple[str, ...]:
    """Ids ``Rs.n`` defined in bold in RULES.md, for the sections checked here."""
    text = RULES_MD.read_text(encoding="utf-8")
    seen: dict[str, None] = {}
    for section, number in _RULE_ID.findall(text):
        if int(section) in SECTIONS:
            seen[f"R{section}.{number}"] = None
    return tuple(seen)


@cache
def source_text() -> str:
    """The text of every test file except this one."""
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(TESTS.rglob("*.py"))
                     if p.resolve() != Path(__file__).resolve())


def citation(rule: str) -> re.Pattern[str]:
    """``R16.2`` or ``r16_2``, not followed by a digit (so R16.2 is not found in R16.23)."""
    section, number = rule[1:].split(".")
    return re.compile(rf"(?<![A-Za-z0-9.])(?:R{section}\.{number}|r{section}_{number})(?!\d)")


def is_cited(rule: str) -> bool:
    return citation(rule).search(source_text()) is not None


def test_citation_pattern_does_not_confuse_neighbouring_ids() -> None:
    assert citation("R1.1").search("see R1.10 and R11.1") is None
    assert citation("R1.1").search("def test_r1_10_x") is None
    assert citation("R1.1").search("def test_r1_1_x") is not None
    assert citation("R16.2").search("R16.23, R16.2") is not None
    assert citation("R6.3").search("# R16.3") is None


def test_rules_file_is_found_and_parsed() -> None:
    ids = rule_ids()
    assert RULES_MD.is_file()
    assert "R4.1" in ids and "R16.23" in ids and "R25.1" in ids and "R23.36" in ids
    assert not [r for r in ids if r.startswith(("R1.", "R2.", "R3.", "R26."))]


@pytest.mark.parametrize("rule", rule_ids())
def test_every_rule_is_cited_or_excluded(rule: str) -> None:
    if rule in EXCLUDED:
        pytest.skip(f"{rule} excluded: {EXCLUDED[rule]}")
    assert is_cited(rule), f"{rule} of RULES.md is cited by no test under tests/"


def test_excluded_rules_exist_and_are_not_cited() -> None:
    ids = set(rule_ids())
    assert sorted(set(EXCLUDED) - ids) == []
    assert sorted(r for r in EXCLUDED if is_cited(r)) == []


@pytest.mark.parametrize("card", CARD_IDS)
def test_every_magic_card_has_tests_of_its_own(card: str) -> None:
    """Section 26: each card is exercised by name in the card test files."""
    card_tests = "\n".join(p.read_text(encoding="utf-8")
                           for p in sorted((TESTS / "rules").glob("test_cards_*.py")))
    assert re.search(rf"{card}(?!\d)", card_tests), f"{card} is not tested"
