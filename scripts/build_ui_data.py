"""Write the browser UI's static game data from the engine's catalog, so the UI needs no build
step and no server round trip for card texts, names and costs:

    src/kaladan/server/static/data/cards.json     magic, event and end-game cards, realms
    src/kaladan/server/static/data/glossary.json  localized unit, terrain and phase names (R1)
    src/kaladan/server/static/data/units.json     unit dice and costs (R13.1, R11.2)
    src/kaladan/server/static/data/log_texts.json the game log's sentence templates (en/nl/de)

Run after changing ``src/kaladan/rules/data``; tests/e2e/test_ui_data.py checks that the committed
files equal this script's output.

    python scripts/build_ui_data.py [--check]
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

from kaladan.rules.catalog import END_GAME_CARDS, EVENT_CARDS, GLOSSARY, MAGIC_CARDS, REALMS, Text

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "kaladan" / "server" / "static" / "data"


def _text(text: Text) -> dict[str, str]:
    return {"en": text.en, "nl": text.nl, "de": text.de}


def cards() -> dict[str, object]:
    """Every card the UI may have to show, keyed by id."""
    return {
        "magic": {c.id: {"realm": c.realm, "usable_by": c.usable_by, "window": c.window,
                         "name": _text(c.name), "condition": _text(c.condition),
                         "text": _text(c.text)} for c in MAGIC_CARDS},
        "events": {c.id: {"scope": c.scope, "name": _text(c.name), "text": _text(c.text)}
                   for c in EVENT_CARDS},
        "end_game": {c.id: {"name": _text(c.name), "text": _text(c.text)} for c in END_GAME_CARDS},
        "realms": {r.id: {"name": _text(r.name), "special_unit": _text(r.special_unit_name),
                          "d12_when": _text(r.special_unit_d12_when)} for r in REALMS},
    }


def glossary() -> dict[str, object]:
    return {key: _text(text) for key, text in GLOSSARY.items()}


def units() -> object:
    raw = resources.files("kaladan.rules.data").joinpath("units.json").read_text("utf-8")
    data = json.loads(raw)
    return {"units": data["units"], "costs": data["costs"]}


def log_texts() -> object:
    """The log's sentence templates and words, as the engine writes them (rules/logtext.py)."""
    raw = resources.files("kaladan.rules.data").joinpath("log_texts.json").read_text("utf-8")
    data = json.loads(raw)
    return {"texts": data["texts"], "words": data["words"]}


def render() -> dict[str, str]:
    """File name -> exact text to ship."""
    def dump(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True) + "\n"

    return {"cards.json": dump(cards()), "glossary.json": dump(glossary()),
            "units.json": dump(units()), "log_texts.json": dump(log_texts())}


def main(argv: list[str]) -> int:
    stale = [name for name, text in render().items()
             if not (OUT / name).is_file() or (OUT / name).read_text("utf-8") != text]
    if "--check" in argv:
        for name in stale:
            print(f"{OUT / name} is out of date: run python scripts/build_ui_data.py")
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in render().items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {', '.join(render())} to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
