"""Regenerate the golden game records in ``tests/golden/``.

Plays four fixed games between random bots with
``kaladan.sim.runner.play_game(config, seed, ["random"] * n, keep_record=True)`` and writes
each record with ``kaladan.record.dumps`` to ``tests/golden/<name>.json``:

    2p           2 players, default options
    3p           3 players, default options
    4p_official  4 players, phase_order=official and mountain_defence=drop_lowest
    6p           6 players, default options

``tests/test_formats.py`` replays every golden file and re-records the same configuration
and seed, requiring text that is byte-identical to the committed file. Any change of
observable behaviour (a rule, the use of chance, an action's text, the record format) therefore
fails those tests on purpose. When the change is intended, bump the ruleset or record version
if it calls for it, run this script deliberately and commit the new files with the change:

    .venv/bin/python scripts/regenerate_golden.py           # rewrite the files
    .venv/bin/python scripts/regenerate_golden.py --check   # exit 1 if any file is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

from kaladan.record import dumps
from kaladan.rules.config import Config
from kaladan.sim.runner import play_game

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "golden"

# name -> (players, options, seed)
GOLDEN: dict[str, tuple[int, dict[str, str], int]] = {
    "2p": (2, {}, 20240101),
    "3p": (3, {}, 31337),
    "4p_official": (4, {"phase_order": "official", "mountain_defence": "drop_lowest"}, 4242),
    "6p": (6, {}, 606),
}


def render(name: str) -> str:
    """The record text of golden game ``name`` as the engine plays it today."""
    players, options, seed = GOLDEN[name]
    summary = play_game(Config(players=players, **options), seed, ["random"] * players,
                        keep_record=True)
    assert summary.record is not None
    return dumps(summary.record)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for name in GOLDEN:
        path = GOLDEN_DIR / f"{name}.json"
        data = render(name).encode("utf-8")
        if check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
            print(f"wrote {path}")
    if stale:
        print("stale golden records: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
