"""The terminal game shows the game log: log lines and the battle panel come from the entries
``Game.play`` reports (``rules.gamelog``), filtered for the seat at the keyboard."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from play_helpers import pane, plain

from kaladan.bots.base import SeatView
from kaladan.bots.registry import make_bot
from kaladan.game import Game
from kaladan.play import i18n
from kaladan.play.battle_view import battle_end, battle_text, last_battle, recent_battles
from kaladan.play.replay_view import battle_at, frames, log_at, screen_at
from kaladan.play.savefile import bot_rng, parse_seats
from kaladan.play.screen import Screen
from kaladan.play.session import Session
from kaladan.record import to_record
from kaladan.rules.config import Config
from kaladan.rules.gamelog import (
    BattleStarted,
    DiceRolled,
    EventCardDrawn,
    UnitKilled,
    visible,
)
from kaladan.rules.state import Phase
from positions import build, game_at

# Kimbria's General, Catapult and Sword on Field T4 attack Ardinor's two Shields on Field T7;
# Kimbria holds Golden Charge (KIM-2), Ardinor Steadfast Line (ARD-3).
CHARGE = {"C1": "0/crown", "T4": "0/general 0/catapult 0/sword", "T7": "1/shield 1/shield",
          "C2": "1/crown"}
CHARGE_HANDS = [["KIM-2"], ["ARD-3"]]
# Two Swords on Field T7 attack Khalisia's Shield and Sword on Field T4.
FIELD = {"C1": "0/crown", "T7": "0/sword 0/sword", "T4": "1/shield 1/sword", "C2": "1/crown"}
# EX6: Khalisia's Crown, Shield and Archer on its castle C2, attacked from Field T1; 3 hits.
EX6 = {"C1": "0/crown", "T1": "0/general 0/sword 0/sword", "C2": "1/crown 1/shield 1/archer"}
EX6_THREE_HITS = [12, 8, 8, 1, 1, 9]


def named(card: str) -> str:
    return f"{card} {i18n.card_name('en', card)}"


def scripted(game: Game, seats: str, tmp_path: Path) -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    screen = Screen(False, stdin=io.StringIO(""), stdout=out)
    return Session(game, parse_seats(seats), screen, tmp_path / "auto.json"), out


def panel(session: Session, seat: int | None) -> str:
    span = last_battle(session.game.entries)
    assert span is not None
    return plain(session.battle(span, seat))


def charge() -> Game:
    g = game_at(build(CHARGE, realms=("kimbria", "ardinor"), hands=CHARGE_HANDS))
    g.play("attack T4 T7")
    return g


def test_a_face_down_card_stays_hidden_from_the_other_seat_until_it_is_revealed(
        tmp_path: Path) -> None:
    """R16.5: the defender's panel and log show that a card was committed, not which; the
    attacker's own show it; once both are revealed everyone reads both names (R16.9)."""
    session, out = scripted(charge(), "human,human", tmp_path)
    session.apply(session.game.parse("magic KIM-2"), 0)
    printed = out.getvalue()
    # Two rival humans at one keyboard: a script is told only what a spectator may know.
    assert "commits a magic card face down" in printed
    assert "KIM-2" not in printed and i18n.card_name("en", "KIM-2") not in printed
    defender = panel(session, 1)
    assert "Magic cards: P1 (Kimbria): a magic card (face down)" in defender
    assert "KIM-2" not in defender and "Golden Charge" not in defender
    assert not any("KIM-2" in line.text for line in session.log_lines(1))
    attacker = panel(session, 0)
    assert f"{named('KIM-2')} (face down)" in attacker
    assert any(f"commits {named('KIM-2')} face down" in line.text
               for line in session.log_lines(0))

    session.apply(session.game.parse("magic ARD-3"), 1)
    revealed = out.getvalue()[len(printed):]
    assert f"reveals {named('KIM-2')}" in revealed and f"reveals {named('ARD-3')}" in revealed
    for seat in (0, 1, None):
        text = panel(session, seat)
        assert f"P1 (Kimbria): {named('KIM-2')} (played)" in text
        assert f"P2 (Ardinor): {named('ARD-3')} (played)" in text
        assert "Attack dice: D12→" in text  # KIM-2: the Sword rolls a D10, the General a D12


def test_hot_seat_screens_are_filtered_for_the_seat_they_are_drawn_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two humans, one keyboard: the defender's screen (log and battle panel) never names the
    attacker's face-down card; the attacker's own screen does."""
    monkeypatch.setenv("NO_COLOR", "1")
    g = charge()
    g.play("magic KIM-2")
    screens = {}
    for seat in (0, 1):
        out = io.StringIO()
        session = Session(g, parse_seats("human,human"),
                          Screen(True, stdout=out, size=(120, 40)), tmp_path / "h.json")
        session.draw(seat)
        screens[seat] = out.getvalue()
    assert "\x1b" not in screens[0] + screens[1]
    assert "Golden Charge" not in screens[1] and "KIM-2" not in screens[1]
    battles = {seat: " ".join(pane(screen.splitlines(), "Last battle"))
               for seat, screen in screens.items()}
    assert "a magic card (face down)" in battles[1] and "Attackers:" in battles[1]
    assert "Golden Charge (face down)" in battles[0]


def test_a_script_is_told_the_event_card_the_dice_and_the_casualties(tmp_path: Path) -> None:
    """Scripted mode prints each entry the human may see as a line when it happens, then the
    whole battle once it is over."""
    state = build(FIELD, realms=("kimbria", "khalisia"), phase="reinforce", active=1,
                  deck=["EV10", "EV11"], gold=[2, 2])
    session, out = scripted(game_at(state), "human,greedy", tmp_path)
    game = session.game
    session.apply(game.parse("pass"), 1)
    while game.state.phase != Phase.ACTION:
        session.apply(game.legal_actions()[0], game.state.pending.seat)
    game.state.chance.force([8, 8, 1, 1])  # Swords 8, 8; Shield 1, Sword 1: both die
    session.apply(game.parse("attack T7 T4"), 0)
    while game.state.battle is not None:
        session.apply(game.legal_actions()[0], game.state.pending.seat)
    lines = out.getvalue().splitlines()
    assert any("draws the event card EV10 " + i18n.card_name("en", "EV10") in line
               for line in lines)
    realms = game.state.realm
    wanted = [e for e in game.entries if isinstance(e, EventCardDrawn | DiceRolled | UnitKilled)]
    assert len([e for e in wanted if isinstance(e, UnitKilled)]) == 2
    for entry in wanted:
        assert entry.text("en", realms) in lines
    assert "Attack dice: D8→8 Sword, D8→8 Sword" in lines
    assert any(line.startswith("Killed: P2 (Khalisia): Shield, Sword · Where they go: "
                               "Shield, Sword → graveyard of P1 (Kimbria)") for line in lines)
    assert "P1 (Kimbria) takes T4. Invasion of T4: Sword ×2" in lines
    assert out.getvalue().count("Attack dice:") == 1  # the panel once, when the battle ended


def test_a_card_that_saves_units_is_named_with_the_units_it_saved() -> None:
    """KHA-1, R20.11: killed, then saved by the card; the rest are the attacker's scalps."""
    g = game_at(build(EX6, realms=("kimbria", "khalisia"), hands=[[], ["KHA-1"]], gold=[1, 0]))
    g.play("attack T1 C2")
    g.play("nomagic", dice=EX6_THREE_HITS)
    g.play("magic KHA-1")
    g.play("save crown,shield")
    span = last_battle(g.entries)
    assert span is not None
    text = plain(battle_text(visible(g.entries[span[0]:span[1]], g.state.team, 0), g.state,
                             parse_seats("human,human"), "en"))
    assert "Killed: P2 (Khalisia): Crown, Archer, Shield" in text
    assert f"Saved by {named('KHA-1')}: Crown (C2), Shield (C2)" in text
    assert "Archer → graveyard of P1 (Kimbria) (scalps)" in text
    assert "Pairs (highest against highest): 12:9 defender loses one; 8:1 defender loses one" \
        in text
    assert "P2 (Khalisia) holds C2." in text


def test_a_unit_killed_by_a_card_before_the_dice_and_the_dice_after_it() -> None:
    """ZHO-3, R20.10: the card kills the Archer+ at W1, then the dice are rolled."""
    board = {"C1": "0/crown", "T1": "0/sword 0/sword", "C2": "1/crown 1/archer+ 1/shield"}
    g = game_at(build(board, realms=("zhojira", "khalisia"), hands=[["ZHO-3"], []]))
    g.play("attack T1 C2")
    g.play("magic ZHO-3")
    g.play("kill archer+ C2", dice=[8, 8, 1, 1])  # Swords 8, 8; Crown 1, Shield 1
    span = last_battle(g.entries)
    assert span is not None
    text = plain(battle_text(visible(g.entries[span[0]:span[1]], g.state.team, 1), g.state,
                             parse_seats("human,human"), "en"))
    lines = text.splitlines()
    assert "Attack dice: D8→8 Sword, D8→8 Sword" in lines
    assert "Defence dice: D6→1 Crown, D10→1 Shield" in lines
    killed = next(line for line in lines if line.startswith("Killed: "))
    assert killed.startswith(f"Killed: P2 (Khalisia): Archer+ (by {named('ZHO-3')}), ")
    assert lines.index(killed) > lines.index("Attack dice: D8→8 Sword, D8→8 Sword")


# R17.4: Archer+ and two Swords+ on the Field T4 attack two Shields+ on the Mountain T6;
# Archer+ 5, Sword+ 5, Sword+ 5 against Shield+ 6, Shield+ 5, Mountain 5: the attacker loses one
# unit and the battle; seat 1's Sword+ at home stays out of it.
ATTACK_FAILS = {"C1": "0/crown", "T4": "0/archer+ 0/sword+ 0/sword+",
                "T6": "1/shield+ 1/shield+", "C2": "1/crown 1/sword+"}


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "Upgrades lost by the losing side on T4: P1 (Khalisia): Archer+, Sword+"),
    ("nl", "Opwaardering kwijt voor de verliezende zijde op T4: P1 (Khalisia): "),
    ("de", "Aufwertung verloren für die unterlegene Seite auf T4: P1 (Khalisia): "),
])
def test_r17_4_the_battle_panel_names_the_upgrades_the_losing_side_lost(
        lang: str, words: str) -> None:
    """``upgrade_loss = losing_side``: after the casualties and before the result, the panel
    says which survivors flipped back (the log's ``upgrades_lost``); by default it does not."""
    texts = {}
    for loss in ("dead_only", "losing_side"):
        g = game_at(build(ATTACK_FAILS, hands=[[], []], upgrade_loss=loss))
        g.play("attack T4 T6", dice=[5, 5, 5, 6, 5, 5])
        g.play("casualty sword+")
        span = last_battle(g.entries)
        assert span is not None
        texts[loss] = plain(battle_text(visible(g.entries[span[0]:span[1]], g.state.team, 0),
                                        g.state, parse_seats("human,human", lang), lang))
    lines = texts["losing_side"].splitlines()
    lost = next(k for k, line in enumerate(lines) if line.startswith(words))
    killed = next(k for k, line in enumerate(lines)
                  if line.startswith(i18n.text(lang, "killed") + ": "))
    assert killed < lost == len(lines) - 2  # the result line closes the panel
    assert words.split(":")[0] not in texts["dead_only"]
    assert "side lost the battle" not in texts["losing_side"]  # its own words, not the log's


def _greedy_game(seed: int) -> Game:
    game = Game.new(Config(players=2, quick_setup=True), seed)
    bots = [make_bot("greedy") for _ in range(2)]
    while not game.is_over:
        seat = game.state.pending.seat
        action = bots[seat].choose(SeatView(game.state, seat), game.legal_actions(),
                                   bot_rng(seed, seat, len(game.steps)))
        game.play(action, seat)
    return game


def _dice_line(label: str, text: str) -> list[tuple[int, int]]:
    """``[(size, face), ...]`` of the dice line ``label`` (inside a panel's frame or not)."""
    lines = [line.strip("│ ") for line in text.splitlines()]
    line = next(line for line in lines if line.startswith(label + ": "))
    return [(int(d.split("→")[0][1:]), int(d.split("→")[1].split()[0]))
            for d in line.split(": ", 1)[1].split(", ")]


def test_every_battle_panel_shows_the_dice_the_step_really_rolled() -> None:
    """R16.14-R16.15: each die of the panel is a chance outcome of the step that rolled it,
    in order, with the die's size; each panel names the units its battle lost."""
    game = _greedy_game(3)
    plan = parse_seats("greedy,greedy")
    battles = 0
    for k, entry in enumerate(game.entries):
        if not isinstance(entry, BattleStarted):
            continue
        end = battle_end(game.entries, k)
        rolled = next((e for e in game.entries[k:end] if isinstance(e, DiceRolled)), None)
        text = plain(battle_text(visible(game.entries[k:end], game.state.team, None),
                                 game.state, plan, "en"))
        if rolled is None:
            continue
        battles += 1
        at = game.entries.index(rolled)
        step = max(j for j, start in enumerate(game.entry_starts) if start <= at)
        attack, defence = _dice_line("Attack dice", text), _dice_line("Defence dice", text)
        assert attack == [(d.size, d.face) for d in rolled.attack]
        assert defence == [(d.size, d.face) for d in rolled.defence]
        faces = [f for _, f in attack + defence]
        chance = list(game.steps[step].chance)
        assert any(chance[i:i + len(faces)] == faces for i in range(len(chance)))
        assert all(1 <= face <= size for size, face in attack + defence)
        killed = [e for e in game.entries[k:end] if isinstance(e, UnitKilled)]
        assert ("Killed:" in text) == bool(killed)
    assert battles > 3


def test_recent_battles_are_those_of_the_last_round() -> None:
    game = _greedy_game(3)
    entries = game.entries
    starts = [k for k, e in enumerate(entries) if isinstance(e, BattleStarted)]
    assert recent_battles(entries, 10_000, limit=2) == [
        (k, battle_end(entries, k)) for k in starts[-2:]]
    # Looking back one turn: only the battles of the last turn.
    last_turn = max(k for k, e in enumerate(entries) if e.KIND == "turn_started")
    assert recent_battles(entries, 1) == [(k, battle_end(entries, k)) for k in starts
                                         if k > last_turn][-2:]


def test_the_watcher_of_shared_output() -> None:
    """Lines a script reads are for the humans' team, or for a spectator when rival humans
    share the keyboard (or nobody plays)."""
    game = Game.new(Config(players=2, quick_setup=True), 1)
    team = Game.new(Config(players=4, mode="team_2v2", quick_setup=True), 1)
    screen = Screen(False, stdin=io.StringIO(""), stdout=io.StringIO())
    cases = [(game, "human,greedy", 0), (game, "greedy,human", 1), (game, "human,human", None),
             (game, "greedy,greedy", None), (team, "human,greedy,human,greedy", 0),
             (team, "human,human,greedy,greedy", None)]
    for g, seats, expected in cases:
        assert Session(g, parse_seats(seats), screen, Path("x.json")).watcher() == expected


def test_log_lines_are_filtered_per_seat_and_keep_session_notes(tmp_path: Path) -> None:
    game = Game.new(Config(players=2, quick_setup=True), 4)
    session, _ = scripted(game, "human,human", tmp_path)
    rng = random.Random(2)
    for _ in range(6):
        session.apply(rng.choice(game.legal_actions()), game.state.pending.seat)
    session.add_log("a note of the session")
    for _ in range(6):
        session.apply(rng.choice(game.legal_actions()), game.state.pending.seat)
    for seat in (0, 1, None):
        lines = [line.text for line in session.log_lines(seat)]
        shown = [e.text("en", game.state.realm) for e in game.log(seat)]
        note = lines.index("a note of the session")
        assert lines[:note] + lines[note + 1:] == shown
        assert session.log_lines(seat, 4) == session.log_lines(seat)[-4:]
    secret = [e for e in game.entries if e.private_to is not None]
    assert secret  # the starting cards: each seat sees only its own
    for entry in secret:
        other = 1 - entry.private_to  # type: ignore[operator]
        assert entry.text("en", game.state.realm) not in [
            line.text for line in session.log_lines(other)]


def test_replay_stepping_shows_each_battle_from_the_log() -> None:
    """The step that rolled the dice shows them; a step far from any battle shows none."""
    game = _greedy_game(3)
    f = frames(to_record(game), None, "en")
    assert f.entries == game.entries and f.starts == game.entry_starts
    rolling = [k + 1 for k, start in enumerate(f.starts)
               if any(isinstance(e, DiceRolled) for e in f.entries[start:f.end(k + 1)])]
    assert rolling
    for k in rolling[:5]:
        rolled = next(e for e in f.entries[f.starts[k - 1]:f.end(k)] if isinstance(e, DiceRolled))
        text = plain(screen_at(f, k))
        assert _dice_line("Attack dice", text) == [(d.size, d.face) for d in rolled.attack]
        assert _dice_line("Defence dice", text) == [(d.size, d.face) for d in rolled.defence]
    quiet = next(k for k in range(1, len(f.states))
                 if f.states[k].battle is None and f.states[k - 1].battle is None
                 and last_battle(f.entries, f.end(k)) is None)
    assert battle_at(f, quiet) == [] and "Attack dice" not in plain(screen_at(f, quiet))
    assert [line.text for line in log_at(f, rolling[0])][-1] == \
        f.entries[f.end(rolling[0]) - 1].text("en", f.states[rolling[0]].realm)
