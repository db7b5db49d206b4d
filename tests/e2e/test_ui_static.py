"""The browser UI's static files: the shipped game data equals the generator's output, and
the catalogue has every string the UI asks for. No browser needed."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from kaladan import i18n
from kaladan.rules.actions import Kind
from kaladan.rules.catalog import MAGIC_CARDS
from kaladan.rules.config import OPTIONS, Config
from kaladan.rules.gamelog import ENTRY_KINDS, ScoreParts, entry_fields
from kaladan.rules.state import Decision

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "kaladan" / "server" / "static"


def load_script() -> ModuleType:
    path = ROOT / "scripts" / "build_ui_data.py"
    spec = importlib.util.spec_from_file_location("build_ui_data", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def strings(lang: str) -> dict[str, Any]:
    """The catalogue the browser is served (one with the terminal's: tests/test_catalogue.py)."""
    return i18n.strings(lang)


def flat_keys(node: dict[str, Any], prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for key, value in node.items():
        if isinstance(value, dict):
            keys |= flat_keys(value, f"{prefix}{key}.")
        else:
            assert isinstance(value, str), f"{prefix}{key} is not text"
            keys.add(prefix + key)
    return keys


def test_shipped_data_equals_the_script_output() -> None:
    for name, text in load_script().render().items():
        shipped = (STATIC / "data" / name).read_text("utf-8")
        assert shipped == text, f"static/data/{name} is stale: run python scripts/build_ui_data.py"


def test_the_rules_data_reads_the_engines_rules() -> None:
    """What "How to play" shows: R22.1's rows as the engine's scoring counts them, R6.2's two
    phase orders, R4.5 capacities and section 15's bonus dice."""
    rules = load_script().rules()
    assert rules["scoring"] == {"trophy": 5, "castle": 3, "scalp": 2, "tile": 1,
                                "gold_per_point": 2, "six_gates_per_type": 2}  # R22.1, EG1
    assert rules["phase_orders"] == {
        "seeds": ["event", "spawn", "income", "action", "purchase", "reinforce"],
        "official": ["event", "income", "spawn", "action", "purchase", "reinforce"]}
    terrain = rules["terrain"]
    assert [terrain[k]["capacity"] for k in ("field", "forest", "mountain", "castle")] == [
        4, 3, 3, 5]
    assert terrain["forest"]["attack_from"] == [10] and terrain["mountain"]["defence_on"] == [10]
    assert terrain["upgraded_castle"]["defence_on"] == [8]  # R15.5


def test_shipped_cards_hold_every_magic_card_in_three_languages() -> None:
    cards = json.loads((STATIC / "data" / "cards.json").read_text("utf-8"))
    assert set(cards["magic"]) == {card.id for card in MAGIC_CARDS}
    for card in MAGIC_CARDS:
        assert cards["magic"][card.id]["text"] == {"en": card.text.en, "nl": card.text.nl,
                                                   "de": card.text.de}


def test_strings_exist_for_every_key_the_code_uses() -> None:
    english = flat_keys(strings("en"))
    code = "\n".join(p.read_text("utf-8") for p in sorted((STATIC / "js").glob("*.js")))
    used = set(re.findall(r"""\bt\("([a-z_]+(?:\.[A-Za-z0-9_]+)+)"[,)]""", code))
    assert len(used) > 50
    assert used - english == set()
    # Keys built at run time: one per action kind and per kind of pending decision.
    assert {f"kind.{k}" for k in Kind} <= english
    assert {f"act.{k}" for k in Kind} <= english
    assert {f"decision.{d.label}" for d in Decision} <= english
    assert {f"card.usable_{c.usable_by}" for c in MAGIC_CARDS} <= english
    assert {f"card.window_{c.window}" for c in MAGIC_CARDS} <= english
    # The battle view's and end screen's keys built from log entry values (rules.gamelog).
    assert {"battle.loser_attacker", "battle.loser_defender", "battle.loser_none"} <= english
    assert {"battle.none_declare", "battle.none_after"} <= english
    assert {f"battle.card_{state}" for state in ("revealed", "spent", "returned")} <= english
    parts = [name for name, _ in entry_fields(ScoreParts)]
    assert {f"end.{part}" for part in parts} <= english
    assert {f"glance.{part}" for part in parts} <= english  # the panel's and end's points


def test_the_lobby_offers_every_ruleset_option_with_its_texts() -> None:
    """R3.3: the lobby offers the options the engine's data lists (rules.json, built from
    ``config.OPTIONS``): every option but the world (which has its own field) with all its
    values, the default first (the lobby sends only what differs from it), each with a
    label in every language (the key test above holds nl and de to English)."""
    rules = json.loads((STATIC / "data" / "rules.json").read_text("utf-8"))
    assert rules["options"] == {name: list(values) for name, values in OPTIONS.items()}
    default = Config()
    english = flat_keys(strings("en"))
    for name, values in rules["options"].items():
        assert values[0] == getattr(default, name), name
        if name == "world":  # a field of its own, with its own labels
            continue
        assert f"option.{name}" in english
        assert {f"value.{v}" for v in values} <= english, name
    lobby = (STATIC / "js" / "lobby.js").read_text("utf-8")
    assert "rulesData().options" in lobby and "rulesData().modes" in lobby


# Tables of rules a page must not hold (STYLE principle 18): terrain, unit types, phases,
# option values, modes and action kinds written out as data in the JavaScript.
_TERRAIN = ("field", "forest", "mountain", "castle")
_PHASES = ("event", "spawn", "income", "action", "purchase", "reinforce")


def _tables(code: str) -> list[str]:
    """Object literals and arrays of the code that map or list rule words: a key that is a
    terrain or phase followed by a number, an array of several phases, option values or
    action kinds, ``"team_2v2": 4``-like mode tables."""
    terrain, phases = "|".join(_TERRAIN), "|".join(_PHASES)
    found = []
    for pattern in (rf"\b(?:{terrain})\s*:\s*\d",
                    rf"\b(?:{phases}|team_2v2|team_3v3)\s*:\s*\d",
                    rf'\[\s*"(?:{phases})"(?:\s*,\s*"(?:{phases})"){{2,}}',
                    r'\[\s*"(?:seeds|official|keep_all|d12|d6|choose|turn_order|free_for_all)"\s*,',
                    r'=\s*"(?:seeds|official)"',
                    r"\b(?:CAPACITY|PHASES|OPTIONS|TEAM_PLAYERS|PURCHASE_KINDS)\s*=",
                    r"\bSHAPES\s*=\s*\{",
                    r"\.text\.split\(|text\.split\(/"):
        found += re.findall(pattern, code)
    return found


def test_no_rule_constant_in_the_pages_code() -> None:
    """Capacities, costs, phase orders, options, modes and the action grammar come from the
    engine's data (rules.json, units.json, the observation, each action's args and price);
    the page holds no copy of them and parses no action text. The check finds the tables the
    page once held (a planted one is found)."""
    js = {p.name: p.read_text("utf-8") for p in (STATIC / "js").glob("*.js")}
    assert {name: _tables(code) for name, code in js.items() if _tables(code)} == {}
    planted = ('const CAPACITY = {field: 4, forest: 3};\nconst PHASES = {seeds: ["event", '
               '"spawn", "income"]};\nconst [kind] = entry.text.split(" ");\n'
               'const SHAPES = {move: ["t", "t2", "us"]};')
    assert len(_tables(planted)) >= 5
    assert "SHAPES" not in js["i18n.js"] and "grammar" in js["i18n.js"]


def test_the_ui_reads_log_entries_and_parses_no_log_text() -> None:
    """Principle 16: the log panel, battle view and end screen render entries; they never
    read what happened out of an action's text. Every entry kind they name exists."""
    js = {p.name: p.read_text("utf-8") for p in (STATIC / "js").glob("*.js")}
    for name in ("panels.js", "logpanel.js", "battle.js", "end.js", "game.js"):
        assert "describeAction" not in js[name] and ".text.split" not in js[name], name
    named: set[str] = set()
    for name in ("panels.js", "logpanel.js", "battle.js", "end.js"):  # game.js: legal kinds
        named |= set(re.findall(r'kind === "(\w+)"', js[name]))
        named |= set(re.findall(r"""byKind\(entries, "(\w+)"\)""", js[name]))
    css = (STATIC / "css" / "app.css").read_text("utf-8")
    named |= set(re.findall(r"\.log-(\w+)", css)) - {"more", "battle"}
    assert {"battle_started", "battle_ended", "game_over", "card_revealed"} <= named
    assert named <= set(ENTRY_KINDS), named - set(ENTRY_KINDS)


def test_index_page_loads_only_local_files() -> None:
    page = (STATIC / "index.html").read_text("utf-8")
    assert 'src="/static/js/main.js"' in page
    assert "http://" not in page and "https://" not in page  # works offline, no CDN
    for script in (STATIC / "js").glob("*.js"):
        for target in re.findall(r'from "([^"]+)"', script.read_text("utf-8")):
            assert (script.parent / target).is_file(), f"{script.name} imports {target}"
