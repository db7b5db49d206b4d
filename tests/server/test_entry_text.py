"""Log entries written straight as JSON text (``server.entry_text``) are exactly what the
encoder makes of ``entry.to_json()``, for every kind of entry, public and redacted forms,
over whole games of every mode (docs/api.md "The log")."""

from __future__ import annotations

import json
import random
from collections import Counter

from kaladan.game import Game
from kaladan.rules import gamelog as G
from kaladan.rules.config import Config
from kaladan.rules.units import code
from kaladan.server.jsontext import dumps
from kaladan.server.live import entry_json, logged_entry

MODES = [("free_for_all", 2), ("free_for_all", 3), ("free_for_all", 4), ("free_for_all", 6),
         ("team_2v2", 4), ("team_3v3", 6)]


def games(seeds: int) -> list[Game]:
    """Random games of every mode (magic cards played whenever possible)."""
    out = []
    for mode, players in MODES:
        for seed in range(seeds):
            game = Game.new(Config(players=players, mode=mode, quick_setup=seed % 2 == 0), seed)
            rng = random.Random(seed)
            while not game.is_over:
                legal = game.legal_actions()
                cards = [a for a in legal if a.kind in ("magic", "volley")]
                game.play(rng.choice(cards) if cards and rng.random() < 0.8
                          else rng.choice(legal))
            out.append(game)
    return out


def every_form(seeds: int) -> list[G.Entry]:
    """Every entry of ``games(seeds)`` with the form each seat and a spectator may read
    (``gamelog.visible``: redacted copies too)."""
    out: list[G.Entry] = []
    for game in games(seeds):
        out.extend(game.entries)
        for reader in (*range(game.state.n), None):
            out.extend(G.visible(game.entries, game.state.team, reader))
    return out


def encoded(entry: G.Entry, index: int, version: int) -> str:
    data = entry.to_json()
    data["index"] = index
    data["version"] = version
    return dumps(data)


def test_every_entry_is_written_as_the_encoder_writes_it() -> None:
    entries = every_form(seeds=3)
    kinds = Counter(e.KIND for e in entries)
    assert len(kinds) >= 35, sorted(set(G.ENTRY_KINDS) - set(kinds))  # most kinds occur
    for i, entry in enumerate(entries):
        shown = entry_json(entry, i, i // 3)
        assert shown.text == encoded(entry, i, i // 3), entry
        assert shown.data == json.loads(shown.text)


def test_kinds_that_random_games_miss_are_written_alike_too() -> None:
    """Every entry class, filled with values of its fields' types, including the edge cases
    of each: no unit (-1), an absent card (None), empty tuples, names needing escapes."""
    sample = {"int": 7, "Seat": 1, "bool": False, "str": 'a "quoted"\\ name é', "Tile": "T3",
              "Card": "FIR-1", "Card | None": None, "Seat | None": None, "int | None": 0,
              "UnitCode": code(1, 0, 1, True), "tuple[UnitCode, ...]": (),
              "tuple[str, ...]": ("x", "ü"), "tuple[Card, ...]": ("EV07",),
              "tuple[tuple[tuple[Seat, int], ...], ...]": (((0, 5), (1, 2)),),
              "tuple[tuple[Seat, int], ...]": ((0, 3),),
              "tuple[Die, ...]": (G.Die(12, 7, -1, "forest"),),
              "tuple[Pair, ...]": (G.Pair(9, 3, "defender"),),
              "tuple[ScoreParts | None, ...]": (None, G.ScoreParts(1, 2, 3, 4, 5, 6)),
              "tuple[tuple[int, ...], ...]": ((1, 2), ())}
    for cls in G.ENTRY_KINDS.values():
        entry = cls(**{name: sample[kind] for name, kind in G.entry_fields(cls)})
        assert entry_json(entry, 3, 1).text == encoded(entry, 3, 1), cls
        none = {name: -1 if kind == "UnitCode" else sample[kind]
                for name, kind in G.entry_fields(cls)}
        entry = cls(**none)
        assert entry_json(entry, 0, 0).text == encoded(entry, 0, 0), cls


def test_each_reader_gets_the_form_visible_gives_it() -> None:
    """R5.13, R16.5, R23.5: the server's per-reader forms of an entry are ``visible``'s: a
    private entry as it is for its own team, redacted or left out for the others and for
    spectators."""
    private = 0
    for game in games(seeds=2):
        teams = game.state.team
        for i, entry in enumerate(game.entries):
            logged = logged_entry(entry, i, 5, teams)
            private += entry.private_to is not None
            for reader in (*range(game.state.n), None):
                seen = G.visible([entry], teams, reader)
                form = logged.for_reader(reader)
                if not seen:
                    assert form is None, (entry, reader)
                else:
                    assert form is not None and form.text == entry_json(seen[0], i, 5).text
    assert private > 20  # starting cards, cards offered and taken, cards committed
