"""Views carry the engine's log (rules.gamelog): every entry a seat may read as its JSON with
its index, version and texts, made once per entry and form; the entries after a version; the
private ones in full for their team only (R5.7, R16.5, R23.5)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from live_support import live_game

from kaladan.rules.catalog import MAGIC_CARD_BY_ID
from kaladan.rules.gamelog import (
    ENTRY_KINDS,
    CardCommitted,
    StartingCardTaken,
    entry_fields,
    entry_from_json,
    visible,
)
from kaladan.rules.logtext import templates, words
from kaladan.server.live import LiveGame, SeatInfo
from kaladan.server.views import build_view, cached_view, view_text

STATIC = Path(__file__).resolve().parents[2] / "src" / "kaladan" / "server" / "static"


def play(live: LiveGame, rng: random.Random, steps: int) -> None:
    """Random legal decisions, each published as the server does once it is stored."""
    game = live.game
    for _ in range(steps):
        if game.is_over:
            return
        legal = game.legal_actions()
        game.play(legal[rng.randrange(len(legal))], game.state.pending.seat)
        live.publish()


def versions(live: LiveGame) -> list[int]:
    """The version of every entry of the game: 0 for the set-up's, k + 1 for step k's."""
    game = live.game
    bounds = [*game.entry_starts, len(game.entries)]
    out = [0] * bounds[0]
    for k in range(len(game.entry_starts)):
        out += [k + 1] * (bounds[k + 1] - bounds[k])
    return out


def expected_log(live: LiveGame, seat: int | None) -> list[dict[str, Any]]:
    """What the views must send of the whole log to ``seat``: each entry ``visible`` lets it
    read, in that form, with its index and version (the words are the client's)."""
    game = live.game
    out = []
    for i, (entry, version) in enumerate(zip(game.entries, versions(live), strict=True)):
        shown = visible([entry], game.state.team, seat)
        if shown:
            out.append({**shown[0].to_json(), "index": i, "version": version})
    return out


def test_the_log_is_the_engines_entries_with_index_and_version() -> None:
    live = live_game(3, 2, quick=True)
    play(live, random.Random(2), 60)
    game = live.game
    assert len(game.entries) > 100 and game.entry_starts[0] > 0  # set-up entries: version 0
    for seat in (0, 1, 2, None):
        view = build_view(live, seat)
        assert view["version"] == len(game.steps) and view["log_since"] == -1
        assert view["log"] == expected_log(live, seat)
        assert "battle" not in view
    kinds = {e["kind"] for e in build_view(live, None)["log"]}
    assert {"turn_started", "event_card_drawn", "income"} <= kinds
    public = visible(game.entries, game.state.team, None)
    assert [entry_from_json(e) for e in build_view(live, None)["log"]] == public
    # "index" and "version" are the server's: no entry kind has such a field
    assert not {"index", "version"} & {
        name for cls in ENTRY_KINDS.values() for name, _ in entry_fields(cls)}


def test_a_view_carries_the_entries_after_a_version() -> None:
    live = live_game(2, 3, quick=True)
    play(live, random.Random(3), 80)
    version = live.version
    whole = expected_log(live, 1)
    for since in (-1, 0, 1, 5, 40, version - 1, version, version + 3):
        view = build_view(live, 1, since)
        assert view["log_since"] == max(since, -1)
        assert view["log"] == [e for e in whole if e["version"] > since], since
        assert json.loads(view_text(live, 1, since)) == view
    assert build_view(live, 1, version)["log"] == []
    assert build_view(live, 1, version - 1)["log"]  # a decision always says what it did
    # step by step, each view's new entries put together are the whole log
    live = live_game(2, 4, quick=True)
    rng = random.Random(4)
    got = build_view(live, 0)["log"]
    for _ in range(60):
        before = live.version
        play(live, rng, 1)
        got += build_view(live, 0, before)["log"]
    assert got == expected_log(live, 0)


def test_the_whole_log_is_never_cut() -> None:
    """Issue 40: a view with the whole log carries every entry the reader may read, however
    long the game (no "older entries are not shown")."""
    for seed in range(20):  # a game long enough
        live = live_game(6, seed, quick=True)
        play(live, random.Random(seed), 1500)
        whole = expected_log(live, None)
        if len(whole) > 510:
            break
    assert len(whole) > 510
    assert build_view(live, None)["log"] == whole
    for seat in range(6):
        assert build_view(live, seat)["log"] == expected_log(live, seat)
    since = whole[-100]["version"]
    assert build_view(live, None, since)["log"] == [e for e in whole if e["version"] > since]


def test_a_secret_card_is_named_to_its_team_only() -> None:
    """R5.7 chosen starting cards; in teams, allies read each other's cards (R23.5)."""
    live = live_game(4, 6, mode="team_2v2")
    game = live.game
    rng = random.Random(6)
    while not any(isinstance(e, StartingCardTaken) and e.card for e in game.entries):
        play(live, rng, 1)
    index, entry = next((i, e) for i, e in enumerate(game.entries)
                        if isinstance(e, StartingCardTaken) and e.card)
    assert entry.card is not None
    name = MAGIC_CARD_BY_ID[entry.card].name.en
    team = game.state.team[entry.seat]
    for seat in (0, 1, 2, 3, None):
        shown = [e for e in build_view(live, seat)["log"] if e["index"] == index]
        assert len(shown) == 1
        if seat is not None and game.state.team[seat] == team:
            assert shown[0]["card"] == entry.card
            assert entry_from_json(shown[0]) == entry
        else:
            assert shown[0]["card"] is None and shown[0]["kind"] == "starting_card_taken"
            text = json.dumps(shown[0])
            assert entry.card not in text and name not in text


def test_a_face_down_battle_card_shows_as_committed_until_revealed() -> None:
    """R16.5: the other side and spectators read 'committed' with no card; the reveal names
    it to everyone."""
    for seed in range(60):
        live = live_game(2, seed, quick=True)
        play(live, random.Random(seed), 400)
        game = live.game
        commits = [(i, e) for i, e in enumerate(game.entries) if isinstance(e, CardCommitted)]
        if commits:
            break
    assert commits, "no card was committed face down"
    index, entry = commits[0]
    other = 1 - entry.seat
    mine = {e["index"]: e for e in build_view(live, entry.seat)["log"]}
    theirs = {e["index"]: e for e in build_view(live, other)["log"]}
    public = {e["index"]: e for e in build_view(live, None)["log"]}
    assert mine[index]["card"] == entry.card
    assert theirs[index]["card"] is None and public[index]["card"] is None
    assert theirs[index] == public[index]
    revealed = [e for e in public.values() if e["kind"] == "card_revealed"
                and e["index"] > index and e["card"] == entry.card]
    assert revealed and revealed[0]["index"] in theirs


def test_each_entry_is_made_once_per_form() -> None:
    live = live_game(2, 7)
    play(live, random.Random(7), 12)
    first = build_view(live, 0)["log"]
    again = build_view(live, 0)["log"]
    assert all(a is b for a, b in zip(first, again, strict=True))
    logs = {seat: {e["index"]: e for e in build_view(live, seat)["log"]} for seat in (0, 1, None)}
    private = 0
    for index, entry in enumerate(live.game.entries):
        owner = entry.private_to
        if owner is None:  # everyone reads the same object
            assert logs[0][index] is logs[1][index] is logs[None][index]
            continue
        private += 1  # the team reads it in full, the others share the redacted form
        other = 1 - owner
        assert logs[owner][index] is not logs[other][index]
        assert logs[other][index] is logs[None][index]
        assert logs[owner][index]["card"] and logs[other][index]["card"] is None
    assert private >= 2  # both starting cards (R5.7)


def test_log_entries_carry_data_and_the_ui_ships_the_engines_sentences() -> None:
    """Entries carry no words: the browser makes them from the engine's own templates, which
    the static data holds as they are (a client in any language reads the same log)."""
    live = live_game(2, 8)
    play(live, random.Random(8), 4)
    assert all("text" not in e for e in build_view(live, None)["log"])
    shipped = json.loads((STATIC / "data" / "log_texts.json").read_text("utf-8"))
    assert shipped == {"texts": templates(), "words": words()}


def test_views_are_cached_per_version_and_seat() -> None:
    live = live_game(2, 1)
    first = cached_view(live, 0)
    assert cached_view(live, 0) is first
    live.game.play(live.game.legal_actions()[0], live.game.state.pending.seat)
    assert cached_view(live, 0) is first  # not published yet: views stay where they were
    assert build_view(live, 0)["version"] == 0
    assert all(e["version"] == 0 for e in build_view(live, 0)["log"])
    live.publish()
    assert cached_view(live, 0) is not first
    assert build_view(live, 0)["version"] == first.version + 1


def test_a_game_is_over_for_clients_once_its_last_steps_are_published() -> None:
    """Bots may play a game to its end before the last steps are stored: until they are
    published, the status, the view and the record's gate say what clients may see (the
    lobby once said "over" while the view still showed the game going on)."""
    live = live_game(2, seed=4, quick=True)
    live.seats = [SeatInfo("bot", "random") for _ in live.seats]
    live.forget_views()
    play(live, random.Random(4), 30)
    assert live.status == "running"
    rng = random.Random(5)
    game = live.game
    while not game.is_over:  # applied, not yet stored: nothing published
        legal = game.legal_actions()
        game.play(legal[rng.randrange(len(legal))], game.state.pending.seat)
    assert not live.over and live.status == "running"
    view = json.loads(view_text(live, None))
    assert view["status"] == "running" and view["to_move"] is not None
    live.publish()
    assert live.over and live.status == "over"
    view = json.loads(view_text(live, None))
    assert view["status"] == "over" and view["to_move"] is None
    assert view["log"][-1]["kind"] == "game_over"
