"""The engine's game log (``rules.gamelog``): what the reducer reports, checked against what it
did, over whole seeded games of every mode (R5.13, R16.5, R16.14-R16.28, R22.1, R23.5)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import FrozenInstanceError, replace
from functools import cache
from typing import TypeVar

import pytest

from kaladan.game import Game
from kaladan.rules import gamelog as G
from kaladan.rules.apply import apply_unchecked
from kaladan.rules.combat import compare
from kaladan.rules.config import Config
from kaladan.rules.kinds import parse_action
from kaladan.rules.logtext import LANGS, describe, templates
from kaladan.rules.notation import position_to_json
from kaladan.rules.setup import new_game
from kaladan.rules.state import GameState
from kaladan.rules.units import code, unit_token
from kaladan.rules.world import Terrain
from positions import build, game_at

MODES = [("free_for_all", 2), ("free_for_all", 3), ("free_for_all", 4), ("free_for_all", 6),
         ("team_2v2", 4), ("team_3v3", 6)]
GAMES_PER_MODE = 4
_MAGIC_CARD = re.compile(r"\b[A-Z]{3}-\d\b")
_EVENT_CARD = re.compile(r"\b(?:EV\d\d|EG\d)\b")

E = TypeVar("E", bound=G.Entry)
Visible = Callable[[Sequence[G.Entry], Sequence[int], "int | None"], list[G.Entry]]


def play_game(mode: str, players: int, seed: int) -> tuple[Game, list[GameState]]:
    """A whole game by a random policy that plays a magic card whenever it may (so that the
    cards' entries occur), with every state kept: ``states[k]`` is the state before step k."""
    game = Game.new(Config(players=players, mode=mode, quick_setup=seed % 2 == 0), seed)
    rng = random.Random(seed)
    states = [game.state]
    while not game.is_over:
        legal = game.legal_actions()
        cards = [a for a in legal if a.kind in ("magic", "volley")]
        action = rng.choice(cards) if cards and rng.random() < 0.8 else rng.choice(legal)
        game.play(action)
        states.append(game.state)
    return game, states


@cache
def games() -> tuple[tuple[Game, list[GameState]], ...]:
    return tuple(play_game(mode, players, 100 * k + players)
                 for mode, players in MODES for k in range(GAMES_PER_MODE))


def step_entries(game: Game, k: int) -> list[G.Entry]:
    starts = game.entry_starts + [len(game.entries)]
    return game.entries[starts[k]:starts[k + 1]]


def battles(entries: Sequence[G.Entry]) -> Iterator[tuple[list[G.Entry], bool]]:
    """The entries of each battle, from its start to its end, and whether Scales of Equality
    (EG2) was in force: the log says when that card was drawn."""
    current: list[G.Entry] | None = None
    scales = False
    for entry in entries:
        if isinstance(entry, G.EventCardDrawn) and entry.card == "EG2":
            scales = True
        if isinstance(entry, G.BattleStarted):
            current = []
        if current is not None:
            current.append(entry)
        if isinstance(entry, G.BattleEnded) and current is not None:
            yield current, scales
            current = None


def test_the_games_cover_every_kind_of_battle_entry() -> None:
    """The sample plays cards, rolls, kills, saves and eliminations (else it checks little)."""
    kinds = {e.KIND for game, _ in games() for e in game.entries}
    needed = {"battle_started", "card_committed", "card_revealed", "card_spent", "dice_rolled",
              "pairs_compared", "unit_killed", "fallen_unit", "battle_ended", "game_over",
              "event_card_drawn", "income", "moved", "bought", "hits_shared", "eliminated"}
    assert needed <= kinds, needed - kinds


def test_r16_15_the_logged_dice_are_the_recorded_chance() -> None:
    """Every die the log shows is the chance outcome stored with the decision, in order:
    battle dice (attack then defence, R16.15) and event D6 rolls; a tie-break's sums (R22.4)
    are the sums of the remaining outcomes, four dice a player."""
    checked = 0
    for game, _ in games():
        for k, step in enumerate(game.steps):
            faces: list[int] = []
            tie: list[int] = []
            for entry in step_entries(game, k):
                if isinstance(entry, G.DiceRolled):
                    faces += [d.face for d in entry.attack + entry.defence]
                elif isinstance(entry, G.EventRoll):
                    faces.append(entry.face)
                elif isinstance(entry, G.GameOver):
                    tie = [s for sums in entry.tie_break for s in sums]
            chance = list(step.chance)
            assert chance[:len(faces)] == faces, (k, step.action)
            rest = chance[len(faces):]
            assert len(rest) == 4 * len(tie), (k, step.action, rest, tie)
            assert [sum(rest[4 * i:4 * i + 4]) for i in range(len(tie))] == tie
            checked += len(faces)
    assert checked > 500


def test_r16_17_the_log_alone_rebuilds_every_battles_pairs_and_losses() -> None:
    """From the dice alone the pairs and hits follow (R16.16-R16.20); the casualties chosen
    after the dice are the losses the pairs caused (R16.21); the battle's losses are the
    units killed less those saved (R20.11); each fallen unit went where the log says."""
    fought = 0
    for game, states in games():
        config = game.config
        world = game.state.world
        for battle, scales in battles(game.entries):
            start = next(e for e in battle if isinstance(e, G.BattleStarted))
            end = battle[-1]
            assert isinstance(end, G.BattleEnded)
            killed = [e for e in battle if isinstance(e, G.UnitKilled)]
            saved = [e for e in battle if isinstance(e, G.UnitSaved)]
            lost = sorted(e.unit for e in killed)
            for e in saved:
                lost.remove(e.unit)
            assert sorted(end.losses) == lost
            rolled = [e for e in battle if isinstance(e, G.DiceRolled)]
            if not rolled:
                continue
            fought += 1
            dice, pairs = rolled[0], next(e for e in battle if isinstance(e, G.PairsCompared))
            attack = [d.face for d in dice.attack]
            defence = [d.face for d in dice.defence]
            # Section 15: the bonus dice announced at the start are the ones rolled.
            sizes = {"forest": 10, "mountain": 10, "castle": 8}
            assert [(d.bonus, d.size) for d in dice.attack if d.bonus] == [
                (b, sizes[b]) for b in start.attack_bonus]
            assert [(d.bonus, d.size) for d in dice.defence if d.bonus] == [
                (b, sizes[b]) for b in start.defence_bonus]
            assert all(d.unit >= 0 for d in dice.attack + dice.defence if not d.bonus)
            drop = (config.mountain_defence == "drop_lowest"
                    and world.terrain[world.index(start.d_tile)] == Terrain.MOUNTAIN)
            assert compare(attack, defence, drop, scales) == (pairs.attacker_hits,
                                                               pairs.defender_hits)
            kept = sorted(defence, reverse=True)[:-1] if drop else sorted(defence, reverse=True)
            assert [(p.attack, p.defence) for p in pairs.pairs] == list(zip(
                sorted(attack, reverse=True), kept, strict=False))
            assert pairs.dropped == (min(defence) if drop else -1)
            after = battle[battle.index(pairs):]
            by_dice = [e for e in after if isinstance(e, G.UnitKilled) and not e.card]
            teams = states[0].team
            on_attack = [e for e in by_dice if teams[e.seat] == teams[start.attacker]]
            assert len(on_attack) == pairs.attacker_losses
            assert len(by_dice) - len(on_attack) == pairs.defender_losses
    assert fought > 50


def test_r16_28_fallen_units_are_where_the_log_puts_them() -> None:
    """Graveyards and trophies grow by exactly the fallen units the log sends there."""
    for game, states in games():
        for k in range(len(game.steps)):
            before, after = states[k], states[k + 1]
            grown = [0] * before.n
            trophies = [0] * before.n
            for entry in step_entries(game, k):
                if isinstance(entry, G.FallenUnit) and entry.place == "graveyard":
                    grown[entry.seat] += 1
                if isinstance(entry, G.FallenUnit) and entry.place == "trophies":
                    trophies[entry.seat] += 1
                if isinstance(entry, G.UnitReturned):  # R7.14 takes one back out
                    grown[entry.graveyard_of] -= 1
            assert [len(after.graveyard[p]) - len(before.graveyard[p])
                    for p in range(before.n)] == grown
            assert [len(after.trophies[p]) - len(before.trophies[p])
                    for p in range(before.n)] == trophies


def test_r22_1_the_final_entry_adds_up_to_every_score() -> None:
    """The score parts of the game-over entry sum to each player's (team's) score."""
    for game, _ in games():
        final = game.entries[-1]
        assert isinstance(final, G.GameOver)
        result = game.state.result
        assert result is not None
        assert [None if p is None else p.total for p in final.scores] == result.scores
        assert (final.end, final.winner, final.team) == (result.end, result.winner, result.team)


def test_r23_1_the_game_over_sentence_numbers_teams_from_one() -> None:
    """Teams are stored from 0 and told from 1, as the end screen and lobby tell them."""
    entry = G.GameOver(end="final_round", winner=None, team=1, scores=(), tie_break=())
    for lang, words in (("en", "team 2 wins"), ("nl", "team 2 wint"), ("de", "Team 2 gewinnt")):
        assert words in describe(entry, lang)


def hidden_cards(state: GameState, viewer: int | None) -> set[str]:
    """Magic cards in places ``viewer`` may not see: other teams' hands, pools and cards to
    buy (R5.13, R18.6, R23.5); a spectator sees none of them."""
    out: set[str] = set()
    for p in range(state.n):
        if viewer is None or state.team[p] != state.team[viewer]:
            out.update(state.hand[p], state.pool[p], state.buyable[p])
    return out


def leaks(visible: Visible) -> list[str]:
    """Everything a seat's log shows that it may not know: another team's card before its
    reveal (R16.5), an event card not yet drawn, the deck order (R5.13)."""
    found: list[str] = []
    for game, states in games():
        n = game.config.players
        shown: dict[int | None, set[str]] = {viewer: set() for viewer in [*range(n), None]}
        for k in range(len(game.steps)):
            before, after = states[k], states[k + 1]
            entries = step_entries(game, k)
            for viewer in [*range(n), None]:
                # Hidden before and after: a card that changes hands into the viewer's sight
                # (R18.6: the eliminated player's cards to the winner) may be named.
                secret = hidden_cards(before, viewer) & hidden_cards(after, viewer)
                for entry in visible(entries, after.team, viewer):
                    text = json.dumps(entry.to_json())
                    if isinstance(entry, G.CardRevealed):  # public from now on (R16.5)
                        shown[viewer].add(entry.card)
                    for card in _MAGIC_CARD.findall(text):
                        if card in secret and card not in shown[viewer]:
                            found.append(f"step {k}, seat {viewer}: {card} in {text}")
                    drawn = set(after.discard) | {after.last_event or ""}
                    for card in _EVENT_CARD.findall(text):
                        if card not in drawn:
                            found.append(f"step {k}, seat {viewer}: undrawn {card}")
                    if "deck" in entry.to_json() or "order" in entry.to_json():
                        found.append(f"step {k}: deck order in {text}")
    return found


def test_r5_13_no_seat_reads_another_teams_hidden_card_or_the_deck() -> None:
    """Over whole games (free-for-all, 2v2, 3v3) no entry a seat or a spectator may see names
    another team's hidden card before its reveal, an undrawn event card or the deck order."""
    assert leaks(G.visible) == []


def test_the_leak_check_fails_when_a_leak_is_injected() -> None:
    """The same check over unfiltered logs (what a broken ``visible`` would hand out) finds
    the committed, starting and bought cards."""
    found = leaks(lambda entries, teams, seat: list(entries))
    assert found
    assert any("card_committed" in f for f in found)
    assert any("starting_card_taken" in f for f in found)


def test_r16_5_a_committed_card_shows_as_committed_until_revealed_then_to_all() -> None:
    """The other team reads only that a card was committed; its own team reads which (R23.5);
    once revealed the card is in every seat's and every spectator's log."""
    revealed = committed = 0
    for game, _ in games():
        n = game.config.players
        teams = game.state.team
        logs = {viewer: game.log(viewer) for viewer in [*range(n), None]}
        for entry in game.entries:
            if isinstance(entry, G.CardCommitted):
                committed += 1
                for viewer, log in logs.items():
                    mine = viewer is not None and teams[viewer] == entry.team
                    assert (entry if mine else G.CardCommitted(entry.seat, entry.team, None)) in log
            if isinstance(entry, G.CardRevealed):
                revealed += 1
                assert all(entry in log for log in logs.values())
    assert committed > 20 and revealed > 20


def test_every_entry_round_trips_through_json() -> None:
    for game, _ in games():
        for entry in game.entries:
            data = json.loads(json.dumps(entry.to_json()))
            assert G.entry_from_json(data) == entry, data


def test_entries_are_frozen_values_like_dataclasses() -> None:
    """@value (cheaper to define than @dataclass) keeps what the log's users rely on: fields
    by name and position with defaults, immutability, equality and hashing by value, a repr
    that names the fields, pickling and replace()."""
    import pickle

    taken = G.StartingCardTaken(seat=1, team=1, card="KHA-2")
    assert taken == G.StartingCardTaken(1, 1, "KHA-2") and not taken.drawn  # the default
    assert hash(taken) == hash(G.StartingCardTaken(1, 1, "KHA-2"))
    assert taken != G.StartingCardTaken(1, 1, "KHA-3") and taken != ("KHA-2",)
    assert [name for name, _ in G.entry_fields(G.StartingCardTaken)] == [
        "seat", "team", "card", "drawn"]
    assert repr(taken) == "StartingCardTaken(seat=1, team=1, card='KHA-2', drawn=False)"
    with pytest.raises(FrozenInstanceError):
        taken.card = "KHA-3"  # type: ignore[misc]
    # A frozen dataclass with slots refuses a new attribute; Python 3.11 says so with a
    # TypeError (its __setattr__ names the class before slots replaced it), 3.12 with an
    # AttributeError.
    with pytest.raises((AttributeError, TypeError)):
        setattr(taken, "other", 1)  # noqa: B010 (no such field)
    with pytest.raises(TypeError):
        G.StartingCardTaken(1, 1)  # type: ignore[call-arg]
    assert pickle.loads(pickle.dumps(taken)) == taken
    hidden = taken.redacted()
    assert isinstance(hidden, G.StartingCardTaken) and hidden.card is None
    assert hidden == replace(taken, card=None)
    assert taken.card == "KHA-2"  # replace() made a copy
    assert not hasattr(taken, "__dict__")  # slots, as before


def test_every_entry_has_a_sentence_in_every_language() -> None:
    """Each kind (and variant) reads in en, nl and de with the same fields filled in."""
    for key, texts in templates().items():
        assert set(texts) == set(LANGS), key
        fields = {lang: sorted(re.findall(r"{(\w+)}", text)) for lang, text in texts.items()}
        assert fields["nl"] == fields["en"] == fields["de"], key
    seen: set[str] = set()
    for game, _ in games():
        realms = game.state.realm
        for entry in game.entries:
            seen.add(entry.KIND)
            for lang in LANGS:
                text = entry.text(lang, realms)
                assert text and "{" not in text
    assert {key.split(".")[0] for key in templates()} <= set(G.ENTRY_KINDS)
    assert len(seen) > 30


def test_apply_without_a_sink_builds_nothing_and_plays_the_same_game() -> None:
    """The search fast path (no sink) reaches exactly the position the logged game reaches."""
    for game, _ in games()[:6]:
        state = new_game(game.config, game.seed)
        for step in game.steps:
            apply_unchecked(state, parse_action(step.action, state))
            assert state.sink is None
        assert position_to_json(state) == position_to_json(game.state)


@pytest.mark.parametrize("lang,phase", [("en", "Action phase"), ("nl", "actiefase"),
                                        ("de", "Aktionsphase")])
def test_seats_are_named_p1_with_their_realm(lang: str, phase: str) -> None:
    entry = G.Passed(0, "action")
    assert entry.text(lang, [1, 0]).startswith("P1 (Kimbria) ")
    assert entry.text(lang).startswith("P1 ")
    assert phase in entry.text(lang)


# --- EX1 from a named position (tests/rules/test_battle.py) ---------------------------------------
# General, Catapult, Sword on Forest T3 attack an upgraded Shield and a Shield on Mountain T6.
# Dice in pool order: General D12, Catapult D10 D10, Sword D8, Forest D10; Shield D10,
# Shield+ D12, Mountain D10.
EX1 = {"C1": "0/crown", "T3": "0/general 0/catapult 0/sword",
       "T6": "1/shield+ 1/shield", "C2": "1/crown"}
EX1_DICE = [7, 9, 9, 2, 1, 9, 12, 2]


def ex1(**options: object) -> tuple[Game, list[G.Entry]]:
    game = game_at(build(EX1, hands=[[], []], gold=[3, 0], **options))
    return game, game.play("attack T3 T6", dice=EX1_DICE)


def one(entries: Sequence[G.Entry], kind: type[E]) -> E:
    found = [e for e in entries if isinstance(e, kind)]
    assert len(found) == 1, (kind, entries)
    return found[0]


def test_ex1_r16_14_every_die_with_its_unit_or_bonus() -> None:
    """R16.14-R16.15: each unit's dice in pool order, then the terrain dice, each with its face."""
    _, entries = ex1()
    start = one(entries, G.BattleStarted)
    assert (start.a_tile, start.d_tile, start.attack_bonus, start.defence_bonus) == (
        "T3", "T6", ("forest",), ("mountain",))
    dice = one(entries, G.DiceRolled)
    attack = [(d.size, d.face, d.unit >= 0 and unit_token(d.unit), d.bonus) for d in dice.attack]
    assert attack == [(12, 7, "general", ""), (10, 9, "catapult", ""), (10, 9, "catapult", ""),
                      (8, 2, "sword", ""), (10, 1, False, "forest")]
    defence = [(d.size, d.face, d.unit >= 0 and unit_token(d.unit), d.bonus)
               for d in dice.defence]
    assert defence == [(10, 9, "shield", ""), (12, 12, "shield+", ""), (10, 2, False, "mountain")]


def test_ex1_r16_16_the_defender_drops_its_lowest_die_on_a_mountain() -> None:
    """R16.16-R16.19: sorted high to low, the 2 dropped, 9 v 12 hits the attacker, 9 v 9 is a
    tie and the unpaired attack dice do nothing."""
    _, entries = ex1(mountain_defence="drop_lowest")
    pairs = one(entries, G.PairsCompared)
    assert pairs.dropped == 2
    assert pairs.pairs == (G.Pair(9, 12, "attacker"), G.Pair(9, 9, ""))
    assert (pairs.attacker_hits, pairs.defender_hits) == (1, 0)


def test_ex1_r16_22_casualties_and_the_result_from_the_log() -> None:
    """Without the option every defence die pairs: one hit each; the attacker chooses its
    casualty in the next decision, the defender's falls at once; the defender holds (EX1)."""
    game, entries = ex1()
    pairs = one(entries, G.PairsCompared)
    assert pairs.pairs == (G.Pair(9, 12, "attacker"), G.Pair(9, 9, ""), G.Pair(7, 2, "defender"))
    assert (pairs.attacker_losses, pairs.defender_losses) == (1, 1)
    assert not [e for e in entries if isinstance(e, G.UnitKilled)]  # the attacker chooses first
    later = game.play("casualty catapult") + game.play("casualty shield")  # R16.22: then D
    killed = [(e.seat, unit_token(e.unit), e.chosen) for e in later if isinstance(e, G.UnitKilled)]
    assert killed == [(0, "catapult", True), (1, "shield", True)]
    end = one(later, G.BattleEnded)
    assert end.result == "defender_held"
    fallen = [(unit_token(e.unit), e.place, e.seat) for e in later if isinstance(e, G.FallenUnit)]
    assert fallen == [("catapult", "graveyard", 1), ("shield", "graveyard", 0)]  # R17.2
    assert game.log(1)[-len(later):] == later  # nothing secret in a battle without cards


def test_a_battles_losses_say_whose() -> None:
    """R16.27: "Lost:" names each side's dead by their owner (issue 40: a list of units
    without whose)."""
    dead = (code(1, 0, 2), code(0, 1, 3, True), code(1, 0, 4))
    entry = G.BattleEnded(0, 1, "T1", "T2", "attacker_won", dead)
    assert entry.text("en", [1, 0]) == ("P1 (Kimbria) wins the battle for T2. Lost: "
                                        "P1 (Kimbria) Archer+; P2 (Khalisia) Catapult, Shield.")
