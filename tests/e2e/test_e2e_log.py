"""The log panel and the battle view read the engine's log entries: a magic card a bot played
in a battle is named in the log and shown with its text in the battle view; the event card
drawn this turn is in the log; a past battle opens from its log line; the end screen's score
parts are the game_over entry's."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from e2e_support import (
    click_and_wait,
    create_game,
    entry_text,
    first_or_pass,
    public_view,
    realms_of,
    wait_for_decision,
)
from playwright.sync_api import expect

CARDS = json.loads((Path(__file__).resolve().parents[2] / "src" / "kaladan" / "server"
                    / "static" / "data" / "cards.json").read_text("utf-8"))
# Three players, the human passes: the greedy bots fight each other, and with this seed one
# of them plays a magic card in a battle within the human's first few decisions.
BOT_CARD_SEED = 6


def spectator_log(server: str, game_id: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/view", timeout=10) as response:
        log: list[dict[str, Any]] = json.load(response)["log"]
    return log


def battle_of(log: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """The entries from the battle_started entry before entry ``index`` to its battle_ended."""
    at = next(i for i, e in enumerate(log) if e["index"] == index)
    start = max(i for i in range(at + 1) if log[i]["kind"] == "battle_started")
    end = next(i for i in range(start, len(log)) if log[i]["kind"] == "battle_ended")
    return log[start:end + 1]


def test_the_battle_view_and_the_log_name_the_card_a_bot_played(page: Any,
                                                                 server: str) -> None:
    created = create_game(server, ["human", "greedy", "greedy"], seed=BOT_CARD_SEED,
                          name="bot card")
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#board .tile")
    for _ in range(60):
        assert wait_for_decision(page), "the game ended before a bot played a card"
        if page.locator("#log .log-card_revealed").count():
            break
        click_and_wait(page, first_or_pass(page))
    revealed = page.locator("#log .log-card_revealed").first
    index = int(revealed.get_attribute("data-index") or "")
    log = spectator_log(server, created["game_id"])
    realms = realms_of(public_view(server, created["game_id"]))
    entry = next(e for e in log if e["index"] == index)
    card = CARDS["magic"][entry["card"]]
    assert entry["seat"] != 0  # a bot's card
    expect(revealed.locator(".entry-text")).to_have_text(entry_text(entry, "en", realms))
    assert card["name"]["en"] in revealed.inner_text()
    expect(revealed.locator(".entry-card-text")).to_have_text(card["text"]["en"])
    for line in page.locator("#log .log-card_committed").all():  # face down: no card named
        assert entry["card"] not in line.inner_text()

    battle = battle_of(log, index)
    start = battle[0]["index"]
    page.click(f"#log li[data-index='{start}'] button.log-battle")
    view = page.locator("#battle")
    expect(view.locator(f"[data-battle='{start}']")).to_be_visible()
    shown = view.locator(f".battle-card[data-card='{entry['card']}']")
    expect(shown).to_contain_text(card["name"]["en"])
    expect(shown).to_contain_text(card["text"]["en"])
    dice = [d for e in battle if e["kind"] == "dice_rolled" for d in e["attack"] + e["defence"]]
    assert view.locator(".die-with-source").count() == len(dice)
    faces = view.locator(".die-with-source .die-value").all_inner_texts()
    assert faces == [str(d["face"]) for d in dice]
    pairs = [p for e in battle if e["kind"] == "pairs_compared" for p in e["pairs"]]
    losers = view.locator(".pairs .pair:not(.unpaired)").evaluate_all(
        "els => els.map(e => e.dataset.loser)")
    assert losers == [p["loser"] or "none" for p in pairs]
    killed = [e for e in battle if e["kind"] == "unit_killed"]
    assert view.locator(".killed li").count() == len(killed)
    expect(view.locator(".battle-result")).to_have_text(entry_text(battle[-1], "en", realms))
    latest = [e["index"] for e in log if e["kind"] == "battle_started"][-1]
    if latest != start:  # a past battle: back to the latest one
        view.locator(".battle-close").click()
        expect(view.locator(f"[data-battle='{latest}']")).to_be_visible()


def test_the_log_shows_the_event_card_drawn_this_turn(page: Any, server: str) -> None:
    created = create_game(server, ["human", "random"], seed=12, name="event cards")
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#board .tile")
    turns: set[str] = set()
    for _ in range(40):
        if not wait_for_decision(page):
            break
        card = page.get_attribute("#event .card.event", "data-event")
        assert card is not None
        lines = page.locator("#log li")
        kinds = lines.evaluate_all("els => els.map(e => e.dataset.kind)")
        turn = max(i for i, k in enumerate(kinds) if k == "turn_started")
        drawn = [i for i, k in enumerate(kinds) if k == "event_card_drawn" and i > turn]
        assert drawn, "no event card drawn in this turn's log"
        text = lines.nth(drawn[0]).inner_text()
        info = CARDS["events"].get(card) or CARDS["end_game"][card]
        assert f"{card} {info['name']['en']}" in text
        assert info["text"]["en"] in text  # the card's text under its line
        turns.add(lines.nth(turn).inner_text())
        if len(turns) >= 3:
            break
        click_and_wait(page, first_or_pass(page))
    assert len(turns) >= 3


def test_a_past_battle_opens_from_the_log_and_the_scores_are_the_entrys(
        page: Any, server: str) -> None:
    created = create_game(server, ["greedy", "greedy"], seed=3, name="bots fight")
    page.goto(server + created["spectate"])
    page.wait_for_selector("#board .tile")
    page.wait_for_function("() => document.getElementById('game')?.dataset.over === 'true'")
    log = spectator_log(server, created["game_id"])
    over = log[-1]
    assert over["kind"] == "game_over"
    end = page.locator("#end")
    end.wait_for(state="visible")
    for seat, parts in enumerate(over["scores"]):  # the parts of R22.1, as the entry says
        if parts is None:
            continue
        row = end.locator(".scores tbody tr").filter(has_text=f"P{seat + 1} ")
        cells = row.locator("td.num").all_inner_texts()
        assert cells[:5] == [str(parts[k]) for k in ("trophies", "castles", "scalps", "tiles",
                                                      "gold")]
        assert cells[-1] == str(parts["total"])
    page.click("#end-close")
    battles = [e for e in log if e["kind"] == "battle_started"]
    listed = [int(i) for i in page.locator("#log li.log-battle_started").evaluate_all(
        "els => els.map(e => e.dataset.index)")]
    assert len(listed) >= 2 and listed[-1] == battles[-1]["index"]
    first = listed[0]  # the oldest battle the panel lists
    page.click(f"#log li[data-index='{first}'] button.log-battle")
    view = page.locator("#battle")
    expect(view.locator(f"[data-battle='{first}']")).to_be_visible()
    expect(view.locator("h2")).to_contain_text("turn")
    started = next(e for e in battles if e["index"] == first)
    expect(view.locator(".side-attacker")).to_contain_text(f"({started['a_tile']})")
    expect(view.locator(".side-defender")).to_contain_text(f"({started['d_tile']})")
    view.locator(".battle-close").click()
    expect(view.locator(f"[data-battle='{battles[-1]['index']}']")).to_be_visible()


def parity_entries() -> tuple[list[dict[str, Any]], list[str | None], list[list[str]]]:
    """Every entry of a few whole games (free-for-all and team, setup played as decisions,
    cards played whenever allowed) as JSON, and the engine's sentences for each in en, nl, de."""
    import random

    from kaladan.game import Game
    from kaladan.rules.config import Config
    from kaladan.rules.units import REALMS

    entries: list[dict[str, Any]] = []
    texts: list[list[str]] = []
    # The seats named by these realms in every game's sentences, the last one still unknown.
    realms: list[str | None] = ["kimbria", "nanchia", "khalisia", "ardinor", "zhojira", None]
    index = [REALMS.index(r) if r else -1 for r in realms]
    for mode, players, seed, options in (
            ("free_for_all", 3, 4, {"realm_conflict": "roll_off"}),
            ("team_2v2", 4, 5, {"starting_magic": "random"}),
            ("free_for_all", 2, 6, {"end_game_card": "gilded_silence"})):
        game = Game.new(Config(players=players, mode=mode, **options), seed)
        rng = random.Random(seed)
        while not game.is_over:
            legal = game.legal_actions()
            cards = [a for a in legal if a.kind in ("magic", "volley")]
            game.play(rng.choice(cards) if cards and rng.random() < 0.8 else rng.choice(legal))
        for seat in (0, None):
            for entry in game.log(seat):
                entries.append(entry.to_json())
                texts.append([entry.text(lang, index) for lang in ("en", "nl", "de")])
    return entries, realms, texts


def test_the_browser_writes_every_entry_as_the_engine_does(page: Any, server: str) -> None:
    """static/js/logtext.js and kaladan.rules.logtext give the same sentence for every entry
    of whole games, in every language, hidden forms included."""
    entries, realms, expected = parity_entries()
    assert len({e["kind"] for e in entries}) > 35
    page.goto(server + "/")
    got = page.evaluate("""async ({entries, realms}) => {
        const {LogText} = await import("/static/js/logtext.js");
        const get = (path) => fetch(path).then((r) => r.json());
        const [texts, cards, glossary] = await Promise.all([get("/static/data/log_texts.json"),
            get("/static/data/cards.json"), get("/static/data/glossary.json")]);
        const log = new LogText({...texts, cards, glossary});
        return entries.map((e) => ["en", "nl", "de"].map((lang) => log.describe(e, lang, realms)));
    }""", {"entries": entries, "realms": realms})
    mismatches = [(e, want, have) for e, want, have in zip(entries, expected, got, strict=True)
                  if want != have]
    assert mismatches == []
