"""Write the browser UI's static game data from the engine's catalog, so the UI needs no build
step and no server round trip for card texts, names and costs:

    src/kaladan/server/static/data/cards.json     magic, event and end-game cards, realms
    src/kaladan/server/static/data/glossary.json  localized unit, terrain and phase names (R1)
    src/kaladan/server/static/data/units.json     unit dice and costs (R13.1, R11.2)
    src/kaladan/server/static/data/log_texts.json the game log's sentence templates (en/nl/de)
    src/kaladan/server/static/data/rules.json     the rules the pages read from the engine: terrain
                                                  (capacity, bonus dice), phase orders, scoring,
                                                  the ruleset options (R3.3) with their values
                                                  (the default first), the grammar of action
                                                  texts (rules/kinds.py), and the levels the
                                                  lobby offers (bots/data/levels.json)

Run after changing ``src/kaladan/rules/data`` or the levels; tests/e2e/test_ui_data.py checks
that the committed files equal this script's output.

    python scripts/build_ui_data.py [--check]
"""

from __future__ import annotations

import json
import sys
from dataclasses import fields
from importlib import resources
from pathlib import Path

from kaladan.bots.levels import default_level, level_names
from kaladan.rules.catalog import END_GAME_CARDS, EVENT_CARDS, GLOSSARY, MAGIC_CARDS, REALMS, Text
from kaladan.rules.combat import bonus_dice
from kaladan.rules.config import OPTIONS, PLAYERS_OF_MODE, Config
from kaladan.rules.kinds import grammar
from kaladan.rules.scoring import parts
from kaladan.rules.setup import new_game
from kaladan.rules.state import PHASE_ORDERS, GameState  # PHASE_ORDERS: R6.2
from kaladan.rules.units import CROWN, SWORD, code
from kaladan.rules.world import CAPACITY, Terrain

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


def terrain() -> dict[str, object]:
    """R4.5 capacity and section 15 bonus dice of every terrain, as the engine has them."""
    out: dict[str, object] = {}
    for kind in (Terrain.FIELD, Terrain.FOREST, Terrain.MOUNTAIN, Terrain.CASTLE):
        out[kind.label] = {"capacity": CAPACITY[kind],
                           "attack_from": bonus_dice(kind, Terrain.FIELD, False)[0],
                           "defence_on": bonus_dice(Terrain.FIELD, kind, False)[1]}
    out["upgraded_castle"] = {"capacity": CAPACITY[Terrain.CASTLE], "attack_from": [],
                              "defence_on": bonus_dice(Terrain.FIELD, Terrain.CASTLE, True)[1]}
    return out


def scoring() -> dict[str, int]:
    """R22.1 row by row, as ``kaladan.rules.scoring`` counts it: the points one more of each
    thing is worth to seat 0 of a fresh game, and how much gold makes one point."""
    start = new_game(Config(players=2, quick_setup=True), 1)
    others = [t for t in range(len(start.board)) if t not in start.controlled(0)]

    def gain(change: object) -> dict[str, int]:
        state = start.copy()
        change(state)  # type: ignore[operator]
        state.invalidate()
        before, after = parts(start, 0), parts(state, 0)
        return {k: getattr(after, k) - getattr(before, k) for k in (f.name for f in fields(before))}

    def tile(state: GameState, kind: Terrain) -> None:
        spot = next(t for t in others if state.world.terrain[t] == kind)
        state.board[spot] = (code(0, 0, SWORD),)

    def gates(state: GameState) -> None:
        state.six_gates = True

    gold_per_point = next(g for g in range(1, 100) if parts(_with_gold(start, g), 0).gold
                          > parts(_with_gold(start, 0), 0).gold)
    six_gates = gain(gates)["six_gates"] // len({start.world.terrain[t]
                                                 for t in start.controlled(0)})
    return {"trophy": gain(lambda s: s.trophies[0].append(code(1, 0, CROWN)))["trophies"],
            "castle": gain(lambda s: tile(s, Terrain.CASTLE))["castles"],
            "scalp": gain(lambda s: s.graveyard[0].append(code(1, 0, SWORD)))["scalps"],
            "tile": gain(lambda s: tile(s, Terrain.FIELD))["tiles"],
            "gold_per_point": gold_per_point, "six_gates_per_type": six_gates}


def _with_gold(state: GameState, gold: int) -> GameState:
    out = state.copy()
    out.gold[0] = gold
    return out


def rules() -> dict[str, object]:
    """What the pages show of the rules, read from the engine: "How to play" (terrain,
    scoring, phase orders), the lobby (the modes with their player counts, R5.1 and R23.1,
    and the options of R3.3, the default first), the phase
    tracker (the phase orders of R6.2), the grammar the browser composes actions with, and
    the levels the lobby offers as seats (weakest first, the default opponent)."""
    return {"terrain": terrain(), "scoring": scoring(),
            "bots": {"levels": level_names(), "default": default_level().name},
            "phase_orders": {name: [p.label for p in order]
                             for name, order in PHASE_ORDERS.items()},
            "options": {name: list(values) for name, values in OPTIONS.items()},
            "modes": {str(mode): list(counts) for mode, counts in PLAYERS_OF_MODE.items()},
            "grammar": grammar()}


def render() -> dict[str, str]:
    """File name -> exact text to ship."""
    def dump(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True) + "\n"

    return {"cards.json": dump(cards()), "glossary.json": dump(glossary()),
            "units.json": dump(units()), "log_texts.json": dump(log_texts()),
            "rules.json": dump(rules())}


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
