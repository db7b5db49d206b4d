"""The seeds' own readings (RULES.md R3.3 `upgrade_loss`, `end_game_trigger`), R18.4 "ab dem
nächsten Zug", R23.11 gifts at any moment through the checked Game
(the team draw of R23.32: tests/rules/test_team_mode.py).

Dice are forced in pool order: the attacking side first, then the defending side, each in
canonical unit order (Crown, General, Catapult, Archer, Shield, Sword, special; plain before
upgraded), then the side's bonus dice. Every battle test also checks how many dice were rolled.

2-player standard world: T1 Field, T2 Mountain, T3 Forest, T4 Field, T5 Forest, T6 Mountain,
T7 Field; C1 (seat 0's home) next to T5 and T7, C2 (seat 1's home) next to T1 and T3; T4 is
next to T6 and T7. 3-player world: C1, C2, C3 are the homes of seats 0, 1, 2 and C2 is next to
the Field T5. 4-player world (team_2v2: seats 0 and 2 against 1 and 3): C1 next to T2 and T5,
C2 next to T11 and T13, C3 next to T9 and T12, C4 next to T1 and T3; T7 (Field) next to T8
(Mountain). Hands are empty unless a test gives one, so nobody declares magic.
"""

from __future__ import annotations

import random

import pytest

from kaladan.game import Game
from kaladan.record import position_digest, replay, to_record
from kaladan.rules.config import Config
from kaladan.rules.errors import IllegalActionError
from kaladan.rules.gamelog import FinalRound, GoldGiven, UpgradesLost
from kaladan.rules.ops import gold_frozen
from kaladan.rules.state import Decision
from kaladan.rules.units import KIMBRIA
from positions import build, decline, finish_turn, game_at, on, pending, play_out, refs

# --- named positions ---------------------------------------------------------------------------

# R17.4: Archer+ and two Swords+ on the Field T4 attack two Shields+ on the Mountain T6; seat 1
# keeps an upgraded Sword at home, outside the battle.
ATTACK_FAILS = {"C1": "0/crown", "T4": "0/archer+ 0/sword+ 0/sword+",
                "T6": "1/shield+ 1/shield+", "C2": "1/crown 1/sword+"}
# Archer+ D12 5, Sword+ D10 5, Sword+ D10 5; Shields+ D12 6, 5, Mountain D10 5: one pair
# (5 against 6) hits the attacker, the two ties hit nobody. The defender holds.
ATTACK_FAILS_DICE = [5, 5, 5, 6, 5, 5]
# R17.4: Archer+ and Sword+ on T4 take the Mountain T6 from a lone Shield+.
ATTACK_WINS = {"C1": "0/crown", "T4": "0/archer+ 0/sword+", "T6": "1/shield+",
               "C2": "1/crown 1/sword+"}
ATTACK_WINS_DICE = [12, 9, 11, 5]  # Archer+ 12, Sword+ 9; Shield+ 11, Mountain 5
# R20.8: the same attackers against a Shield on the Field T7; Kimbria (seat 1) holds KIM-1,
# Pride of the Open Field, which stops an attack on a Field.
ATTACK_STOPPED = {"C1": "0/crown", "T4": "0/archer+ 0/sword+", "T7": "1/shield",
                  "C2": "1/crown"}
# R20.9: Zhojira (seat 1) on the Field T7 holds ZHO-2, Fade into the Forest.
ATTACK_EVADED = ATTACK_STOPPED
# R23.18, R17.4: seat 0's General+ and Sword and its ally seat 2's Archer+ and Shield on the
# Field T7 attack two Shields+ of seat 1 on the Mountain T8.
TEAM_ATTACK_FAILS = {"C1": "0/crown", "C2": "1/crown", "C3": "2/crown", "C4": "3/crown",
                     "T7": "0/general+ 0/sword 2/archer+ 2/shield",
                     "T8": "1/shield+ 1/shield+"}
# General+ D12 1 and D10 1, Sword D8 1, Archer+ D12 1, Shield D6 1; Shields+ D12 12, 12,
# Mountain D10 1: two pairs hit the attackers (seat 0 leads its side and splits them one
# each), the third is a tie.
TEAM_ATTACK_FAILS_DICE = [1, 1, 1, 1, 1, 12, 12, 1]
# Section 18, 3 players: seat 1's Crown and Sword attack out of C2 into the Field T5, held by
# two Shields of seat 0; seat 1's Lion waits in its reserve.
CROWN_FALLS_ATTACKING_3P = {"C1": "0/crown", "T5": "0/shield 0/shield",
                            "C2": "1/crown 1/sword", "C3": "2/crown"}
TEAM_CROWNS = {"C1": "0/crown", "C2": "1/crown 1/shield", "C3": "2/crown", "C4": "3/crown 3/sword"}


def at(board: dict[str, str], players: int = 2, **options: object) -> Game:
    """The checked game at ``board``, seat 0 in its Action phase unless told, hands empty."""
    options.setdefault("hands", [[] for _ in range(players)])
    return game_at(build(board, players=players, **options))  # type: ignore[arg-type]


def entries_of(g: Game, kind: type) -> list[object]:
    return [e for e in g.entries if isinstance(e, kind)]


# --- R13.4, R17.4: upgrade_loss ----------------------------------------------------------------


@pytest.mark.parametrize(("loss", "survivors"), [
    ("dead_only", ["0/archer+", "0/sword+"]), ("losing_side", ["0/archer", "0/sword"])])
def test_r17_4_attacker_loses_survivors_flip_back_only_with_losing_side(
        loss: str, survivors: list[str]) -> None:
    """R13.4, R17.4: the defender holds; with `losing_side` the attacker's surviving Archer+
    and Sword+ lose their upgrades, the winner's Shields+ and units outside keep theirs."""
    g = at(ATTACK_FAILS, upgrade_loss=loss)
    g.play("attack T4 T6", dice=ATTACK_FAILS_DICE)
    assert len(g.steps[-1].chance) == 6
    assert pending(g) == (Decision.CASUALTY, 0)
    g.play("casualty sword+")
    assert on(g, "T4") == survivors
    assert on(g, "T6") == ["1/shield+", "1/shield+"]
    assert on(g, "C2") == ["1/crown", "1/sword+"]
    assert refs(g.state.graveyard[1]) == ["0/sword"]
    lost = entries_of(g, UpgradesLost)
    if loss == "losing_side":
        assert lost == [UpgradesLost(0, "T4", tuple(sorted(
            g.state.board[g.state.world.index("T4")][i] | 1 for i in range(2))))]
    else:
        assert lost == []


@pytest.mark.parametrize("loss", ["dead_only", "losing_side"])
def test_r17_4_defender_loses_the_winners_keep_their_upgrades(loss: str) -> None:
    """R17.4: the attacker wins, so the defender lost: no defending unit is left on T6 (the
    dead Shield+ goes to the graveyard plain), the invaders stay upgraded, and seat 1's
    Sword+ at home, not in the battle, keeps its upgrade under both readings."""
    g = at(ATTACK_WINS, upgrade_loss=loss)
    g.play("attack T4 T6", dice=ATTACK_WINS_DICE)
    assert len(g.steps[-1].chance) == 4
    assert on(g, "T6") == ["0/archer+", "0/sword+"]
    assert on(g, "C2") == ["1/crown", "1/sword+"]
    assert refs(g.state.graveyard[0]) == ["1/shield"]
    assert entries_of(g, UpgradesLost) == []


@pytest.mark.parametrize("loss", ["dead_only", "losing_side"])
def test_r17_4_r20_8_an_attack_stopped_by_a_card_loses_nobody_an_upgrade(loss: str) -> None:
    """R17.4, R20.8: KIM-1 stops the attack: no dice, and the attacker, who did not take the
    tile, keeps its upgrades under both readings."""
    g = at(ATTACK_STOPPED, hands=[[], ["KIM-1"]], upgrade_loss=loss)
    g.play("attack T4 T7")
    assert pending(g) == (Decision.MAGIC, 1)
    g.play("magic KIM-1")
    assert g.steps[-1].chance == ()
    assert g.state.battle is None
    assert on(g, "T4") == ["0/archer+", "0/sword+"]
    assert on(g, "T7") == ["1/shield"]
    assert entries_of(g, UpgradesLost) == []


def test_r17_4_r20_9_an_evaded_attack_loses_nobody_an_upgrade() -> None:
    """R17.4, R20.9: ZHO-2 moves the defender away; the attacker takes T7 without dice and
    nobody lost the battle, so the invaders keep their upgrades even with `losing_side`."""
    g = at(ATTACK_EVADED, hands=[[], ["ZHO-2"]], realms=("khalisia", "zhojira"),
           upgrade_loss="losing_side")
    g.play("attack T4 T7")
    g.play("magic ZHO-2")
    while g.state.pending.kind == Decision.CARD:  # where the defender goes
        g.play(g.legal_texts()[0])
    assert on(g, "T7") == ["0/archer+", "0/sword+"]
    assert "1/shield" in [u for name in ("T4", "C1", "T5", "T1", "T3", "T2", "T6")
                          for u in on(g, name)]
    assert entries_of(g, UpgradesLost) == []


def test_r17_4_r23_18_losing_side_flips_the_allies_on_the_attacking_tile_too() -> None:
    """R17.4, R23.18: every upgraded unit of the side that lost, the ally's included."""
    board = TEAM_ATTACK_FAILS
    g = game_at(build(board, players=4, mode="team_2v2", upgrade_loss="losing_side",
                      hands=[[]] * 4))
    g.play("attack T7 T8", dice=TEAM_ATTACK_FAILS_DICE)
    assert len(g.steps[-1].chance) == 8
    assert pending(g) == (Decision.SPLIT, 0)
    g.play("split 0:1,2:1")
    g.play("casualty sword")  # seat 0
    g.play("casualty shield")  # seat 2
    assert on(g, "T7") == ["0/general", "2/archer"]
    assert on(g, "T8") == ["1/shield+", "1/shield+"]
    (lost,) = entries_of(g, UpgradesLost)
    assert isinstance(lost, UpgradesLost) and lost.seat == 0 and lost.tile == "T7"
    assert refs(lost.units) == ["0/general+", "2/archer+"]


# --- R21.2, R25.1: end_game_trigger = deck_end ------------------------------------------------


def three_castles(deck: list[str], board: dict[str, str] | None = None) -> Game:
    """3 players, every Crown on its home castle; seat 1 has just drawn the top of ``deck``."""
    return at(board or {"C1": "0/crown", "C2": "1/crown", "C3": "2/crown"}, players=3,
              active=1, phase="event", deck=deck, end_game_trigger="deck_end")


def test_r21_2_deck_end_eg1_changes_the_scoring_and_play_goes_on() -> None:
    """R21.2, R25.1, EG1: The Six Gates Open is drawn; no final round yet; the last card
    (EV10, drawn by seat 0) starts it; the bonus counts at the end."""
    g = three_castles(["EG1", "EV27", "EV10"])
    s = g.state
    assert s.discard == ["EG1"] and s.six_gates and s.final_slot == -1
    assert play_out(g) == [2, 0, 1, 2, 0]  # seat 2 draws EV27, seat 0 EV10; the final round
    s = g.state
    assert s.discard == ["EG1", "EV27", "EV10"] and s.deck == []
    assert s.result is not None and s.result.end == "final_round"
    (final,) = entries_of(g, FinalRound)
    assert final == FinalRound(0, None, 3)  # the deck ran out in seat 0's turn
    # Each: castle 3 + Six Gates for the castle type 2 + gold // 2 (two turns of income 1,
    # EV27 +1 for all, EV10 -1 for seat 0).
    assert s.gold == [2, 3, 3]
    assert s.result.scores == [3 + 2 + 1] * 3


def test_r21_2_deck_end_eg2_applies_at_once_and_play_goes_on() -> None:
    """EG2 with deck_end: every unit is upgraded at the draw, ties go to the defender from
    then on, and the game goes on to the empty deck."""
    g = three_castles(["EG2", "EV27"], {"C1": "0/crown 0/sword", "C2": "1/crown 1/shield",
                                        "C3": "2/crown"})
    s = g.state
    assert s.scales and s.final_slot == -1
    assert on(g, "C1") == ["0/crown", "0/sword+"] and on(g, "C2") == ["1/crown", "1/shield+"]
    assert play_out(g) == [2, 0, 1, 2]  # seat 2 draws the last card: final round 0, 1, 2
    assert g.state.result is not None and g.state.result.end == "final_round"


def test_r21_2_deck_end_eg3_empties_the_deck_so_the_final_round_starts() -> None:
    """R21.2 (b), EG3 with deck_end: no card is drawn any more, so the final round starts
    after the drawer's turn, exactly as with `final_round`."""
    g = three_castles(["EG3", "EV27", "EV10"])
    assert g.state.oracles and g.state.final_slot >= 0
    assert play_out(g) == [2, 0, 1]
    assert len(g.state.deck) == 2 and g.state.discard == ["EG3"]


def test_r21_2_deck_end_eg4_silences_gold_in_the_final_round_only() -> None:
    """EG4 with deck_end (R21.2, R25.1, EG4 "during the final round nobody gains gold",
    R9.4): drawing the card applies its effect, which names the final round; the final round
    is the one after the deck runs out. So income and event gold go on until the last card
    is drawn, and the final round is played without gold, as it is by default."""
    g = three_castles(["EG4", "EV27", "EV27"])
    assert g.state.gilded_slot >= 0 and g.state.final_slot == -1 and not gold_frozen(g.state)
    seen = []  # after each turn: the next active seat, everyone's gold, gold frozen
    while not g.is_over:
        finish_turn(g)
        seen.append((g.state.active, list(g.state.gold), gold_frozen(g.state)))
    assert seen == [
        (2, [1, 2, 1], False),  # seat 1 took its income; seat 2 drew EV27: +1 each
        (0, [2, 3, 3], False),  # seat 2's income; seat 0 drew the last card, EV27: +1 each
        (1, [3, 3, 3], True),  # seat 0's income, then the final round: 1, 2, 0
        (2, [3, 3, 3], True),
        (0, [3, 3, 3], True),
        (0, [3, 3, 3], True),  # the game is over
    ]
    (final,) = entries_of(g, FinalRound)
    assert final == FinalRound(0, None, 3)  # the deck ran out in seat 0's turn
    assert g.state.result is not None and g.state.result.end == "final_round"


def test_r21_2_final_round_default_eg4_still_ends_the_game_after_one_round() -> None:
    """The default reading for comparison: EG4 starts the final round at once."""
    g = at({"C1": "0/crown", "C2": "1/crown", "C3": "2/crown"}, players=3, active=1,
           phase="event", deck=["EG4", "EV27", "EV27"])
    assert g.state.final_slot >= 0
    assert play_out(g) == [2, 0, 1]
    assert g.state.gold == [0, 1, 0] and len(g.state.deck) == 2


# --- R18.4: a received special unit from its new owner's next turn on ------------------------


def test_r18_4_special_received_by_the_defender_waits_for_its_own_turn() -> None:
    """R18.4: seat 1's Crown falls attacking; seat 0, the defender, receives the Lion in
    seat 1's turn and may place it only from its own next turn on."""
    g = at(CROWN_FALLS_ATTACKING_3P, players=3, active=1, gold=[5, 0, 0])
    g.play("attack C2 T5", dice=[1, 1, 6, 6])  # Crown D6 1, Sword D8 1; Shields 6, 6
    s = g.state
    assert s.eliminated[1] and s.active == 2  # R6.4: seat 1's turn ended at once
    assert KIMBRIA in s.reserve_specials[0] and s.specials_waiting[0] == (KIMBRIA,)
    finish_turn(g)  # seat 2's turn
    assert g.state.active == 0 and g.state.specials_waiting[0] == ()
    while pending(g) != (Decision.PURCHASE, 0):
        decline(g)
    assert any(t.startswith("buy special:kimbria") for t in g.legal_texts())


# --- R23.11: gifts at any moment ----------------------------------------------------------------


def test_r23_11_gift_during_an_opponents_battle_decision() -> None:
    """R23.11: while seat 1 (team 1) chooses its casualty in seat 0's battle, seat 2 gives
    its ally seat 0 gold and seat 3 gives its ally seat 1 gold; seat 1 still decides."""
    board = {"C1": "0/crown", "C2": "1/crown", "C3": "2/crown", "C4": "3/crown",
             "T7": "0/sword 0/sword", "T8": "1/archer 1/shield"}
    g = game_at(build(board, players=4, mode="team_2v2", gold=[0, 0, 3, 2], hands=[[]] * 4))
    # Swords D8 8, 1; Archer 5, Shield 5, Mountain 1: one hit each way; seat 0's lost Sword
    # needs no choice, seat 1 chooses between its Archer and its Shield.
    g.play("attack T7 T8", dice=[8, 1, 5, 5, 1])
    assert len(g.steps[-1].chance) == 5
    assert pending(g) == (Decision.CASUALTY, 1)
    before = g.legal_texts()
    g.play("gift 0 2", seat=2)
    g.play("gift 1 1", seat=3)
    assert pending(g) == (Decision.CASUALTY, 1)
    assert g.state.gold == [2, 1, 1, 1]
    assert [s.seat for s in g.steps[-2:]] == [2, 3]
    assert entries_of(g, GoldGiven) == [GoldGiven(2, 0, 2), GoldGiven(3, 1, 1)]
    assert [t for t in g.legal_texts() if not t.startswith("gift")] == [
        t for t in before if not t.startswith("gift")]


def test_r23_11_refused_gifts_change_nothing() -> None:
    """R23.11: not to an opponent, not more than your own gold, not another action out of
    turn (R6.5), never in free-for-all."""
    g = game_at(build(TEAM_CROWNS, players=4, mode="team_2v2", gold=[0, 0, 3, 2]))
    before = g.position()
    for text, seat, rule in (("gift 1 1", 2, "R23.11"), ("gift 0 4", 2, "R23.11"),
                             ("gift 2 1", 1, "R23.11"), ("pass", 2, "R6.5")):
        with pytest.raises(IllegalActionError) as refused:
            g.play(text, seat=seat)
        assert refused.value.rule == rule
    assert g.position() == before and g.steps == []
    ffa = at({"C1": "0/crown", "C2": "1/crown"}, gold=[3, 3])
    with pytest.raises(IllegalActionError):
        ffa.play("gift 0 1", seat=1)


def test_r23_11_gift_while_others_answer_a_global_event() -> None:
    """R23.11, R7.4: EV04 asks every player in turn where its Sword goes; while seat 1
    answers, seat 2 gives its ally seat 0 gold."""
    g = game_at(build(TEAM_CROWNS | {"T11": "1/shield"}, players=4, mode="team_2v2",
                      phase="event", deck=["EV04"], gold=[0, 0, 2, 0]))
    assert pending(g) == (Decision.EVENT, 0)
    g.play("place sword C1")
    assert pending(g) == (Decision.EVENT, 1)
    g.play("gift 0 2", seat=2)
    assert pending(g) == (Decision.EVENT, 1) and g.state.gold[:3] == [2, 0, 0]
    assert g.state.event is not None and g.state.event.card == "EV04"


@pytest.mark.parametrize(("gift", "gold_after"), [(True, [3, 3, 0, 0]), (False, [1, 1, 2, 0])])
def test_r23_11_r7_13_a_gift_decides_who_is_the_richest_player(
        gift: bool, gold_after: list[int]) -> None:
    """R23.11, R7.13, EV16: in seat 3's Reinforcement seat 2 gives seat 0 two gold; seat 0
    then draws Royal Tithe as the only Richest Player (5 gold) and pays 2. Without the gift
    seats 0 and 1 tie with 3 and both pay."""
    g = game_at(build(TEAM_CROWNS, players=4, mode="team_2v2", active=3, phase="reinforce",
                      deck=["EV16"], gold=[3, 3, 2, 0]))
    assert pending(g) == (Decision.REINFORCE, 3)
    if gift:
        g.play("gift 0 2", seat=2)
        assert pending(g) == (Decision.REINFORCE, 3)
    g.play("pass")
    s = g.state
    assert s.active == 0 and s.discard == ["EV16"]
    assert s.gold == gold_after


def test_r23_11_out_of_turn_gifts_are_recorded_and_replay() -> None:
    """R23.11, R3.1: a team game with gifts by players who do not hold the decision; the
    record carries them in order with the giver's seat and replays to the same position."""
    config = Config(players=4, mode="team_2v2", quick_setup=True)
    g = Game.new(config, 11)
    rng = random.Random(5)
    out_of_turn = 0
    while not g.is_over and len(g.steps) < 600:
        givers = [p for p in range(4) if p != g.state.pending.seat and g.gifts(p)]
        if givers and rng.random() < 0.2:
            seat = rng.choice(givers)
            pending_before = g.state.pending
            g.play(rng.choice(g.gifts(seat)), seat=seat)
            assert g.state.pending == pending_before
            out_of_turn += 1
            continue
        legal = g.legal_actions()
        g.play(legal[rng.randrange(len(legal))])
    assert out_of_turn > 10
    record = to_record(g)
    assert sum(1 for step in record["steps"] if step["action"].startswith("gift")) >= out_of_turn
    again = replay(record)
    assert position_digest(again) == position_digest(g)
    assert [(s.seat, s.action) for s in again.steps] == [(s.seat, s.action) for s in g.steps]
