"""One catalogue of the interface's words (issue 15, ``kaladan.i18n``): every key in English,
Dutch and German with the same placeholders, every key the terminal game uses resolved (the
browser's: tests/e2e/test_ui_static.py), the browser served the same files, and the seeds'
terms (W12 in Dutch and German, Dutch "scalpen")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kaladan import i18n
from kaladan.play import i18n as play_i18n
from kaladan.rules.actions import Kind
from kaladan.rules.config import OPTIONS, Config
from kaladan.rules.state import Decision
from kaladan.rules.units import UnitType

PLAY = Path(__file__).resolve().parents[1] / "src" / "kaladan" / "play"
PLACEHOLDER = re.compile(r"\{(\w+)(?:![rsa])?\}")
ARTICLE = re.compile(r"^(?:a|the|The)_")  # English {a_u}, {the_u}: the unit {u} elsewhere


def placeholders(text: str) -> set[str]:
    return {ARTICLE.sub("", name) for name in PLACEHOLDER.findall(text)}


def flat(node: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in node.items():
        if isinstance(value, dict):
            out |= flat(value, f"{prefix}{key}.")
        else:
            assert isinstance(value, str), f"{prefix}{key} is not text"
            out[prefix + key] = value
    return out


@pytest.mark.parametrize("lang", ["nl", "de"])
def test_every_key_is_in_every_language_with_its_placeholders(lang: str) -> None:
    english, other = flat(i18n.strings("en")), flat(i18n.strings(lang))
    assert set(english) - set(other) == set(), f"{lang} lacks keys"
    assert set(other) - set(english) == set(), f"{lang} has keys English lacks"
    for key, text in english.items():  # a lost placeholder is a value missing on screen
        assert placeholders(text) == placeholders(other[key]), key
        assert other[key].strip() or not text.strip(), key


def play_keys_in_source() -> set[str]:
    """The literal keys the terminal game asks ``i18n.text`` (or a ``t`` helper) for."""
    code = "\n".join(p.read_text("utf-8") for p in PLAY.glob("*.py"))
    keys = {m[1] for m in re.findall(r"""(?:\btext|\.t)\(\s*(?:[\w.]+,\s*)?(["'])([a-z_]+)\1""",
                                     code)}
    keys |= set(re.findall(r'"(col_\w+)"', code))  # the players table's column heads
    return {key for key in keys if not key.endswith("_")}  # "to_" + place: below


def test_the_terminal_resolves_every_key_it_uses() -> None:
    used = play_keys_in_source()
    assert len(used) > 80
    # Keys put together at run time (battle_view, render, words, play.i18n).
    used |= {"pair_attacker", "pair_defender", "pair_tie", "pair_tie_scales"}
    used |= {f"to_{place}" for place in ("graveyard", "reserve", "trophies", "removed")}
    used |= {f"end_{end}" for end in ("last_crown", "final_round", "draw")}
    used |= {f"act.{kind}" for kind in Kind} | {"act.swapcard_plain", "act.extracard_plain",
                                                  "act.end_plain"}
    used |= {f"decision.{d.label}" for d in Decision}
    default = Config()
    used |= {f"option.{name}.{value}" for name, values in OPTIONS.items() for value in values
             if value != getattr(default, name) and name != "end_game_card"}
    for lang in i18n.LANGS:
        missing = {key for key in used if i18n.lookup(lang, f"play.{key}") is None}
        assert missing == set(), (lang, missing)
        assert all(i18n.lookup(lang, f"abbr.{t.name.lower()}") for t in UnitType)
    with pytest.raises(KeyError, match="no_such_key"):
        play_i18n.text("en", "no_such_key")


def test_both_front_ends_write_the_seeds_terms() -> None:
    """Dice are W12 in Dutch and German (the seeds' cards), D12 in English; Dutch scalps are
    "scalpen" in the browser and in the terminal."""
    for lang, die in (("en", "D12"), ("nl", "W12"), ("de", "W12")):
        assert i18n.text(lang, "battle.die", n=12) == die
    assert i18n.text("nl", "game.scalps") == "Scalpen" == i18n.text("nl", "end.scalps")
    assert "scalpen" in play_i18n.text("nl", "to_graveyard", who="P1")
    assert "W10" in play_i18n.option_value("nl", "turn_order_die", "d10")
    assert play_i18n.unit_abbrev("de", UnitType.SHIELD) != play_i18n.unit_abbrev(
        "de", UnitType.SWORD)


def test_the_browser_is_served_the_catalogue() -> None:
    from fastapi.testclient import TestClient

    from kaladan.server import create_app

    with TestClient(create_app("sqlite://"), base_url="http://127.0.0.1") as client:
        for lang in i18n.LANGS:
            got = client.get(f"/static/i18n/{lang}.json")
            browser = {k: v for k, v in i18n.strings(lang).items() if k != "play"}
            assert got.status_code == 200 and got.json() == browser
        assert client.get("/static/i18n/__init__.py").status_code == 404


def test_the_terminal_imports_no_server_code() -> None:
    """The catalogue sits below both front ends: the terminal game loads it without the
    server (or the web stack)."""
    import subprocess
    import sys

    probe = ("import sys, kaladan.play.session, kaladan.play.i18n; "
             "print(sorted(m for m in sys.modules if m.startswith(('kaladan.server', 'fastapi'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


DATA = Path(__file__).resolve().parents[1] / "src" / "kaladan" / "rules" / "data"
D_DIE = re.compile(r"\bD(?:4|6|8|10|12|20)\b")
RULE_ID = re.compile(r"\(R\d+(?:\.\d+)?|\bR\d+\.\d+\b|RULES\.md")


def data_texts(lang: str) -> dict[str, str]:
    """Every ``lang`` text of the rules data files (cards, realms, glossary, log sentences),
    keyed by file and path."""
    out: dict[str, str] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == lang and isinstance(value, str):
                    out[where] = value
                else:
                    walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    for path in sorted(DATA.glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")), path.name)
    return out


@pytest.mark.parametrize("lang", ["nl", "de"])
def test_dutch_and_german_texts_write_w_dice(lang: str) -> None:
    """The battle view writes W6..W12 in Dutch and German: so do the card texts and words."""
    texts = flat(i18n.strings(lang)) | data_texts(lang)
    assert data_texts(lang), "no texts found in the rules data"
    wrong = {key: text for key, text in texts.items() if D_DIE.search(text)}
    assert not wrong, wrong


@pytest.mark.parametrize("lang", ["en", "nl", "de"])
def test_player_texts_show_no_rule_ids(lang: str) -> None:
    """Rule ids such as "(R22.1)" or "RULES.md section 23" belong in docs and tooltips, not on
    a player's page: the browser's words, the card texts and the log sentences name none (the
    terminal's help, ``play``, cites rules for those who ask)."""
    texts = flat({k: v for k, v in i18n.strings(lang).items() if k != "play"}) | data_texts(lang)
    shown = {key: text for key, text in texts.items() if RULE_ID.search(text)}
    assert not shown, shown
