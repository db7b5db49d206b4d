"""The expert's budget per turn (``expert:...,per=turn``): a turn's budget is shared over the
decisions of the seat's turn (R6.2 phases), and a search stops once the rest of its share
could not change its choice (``mcts.settled``)."""

from __future__ import annotations

import random

import pytest

from kaladan.bots.base import SeatView
from kaladan.bots.greedy import GreedyBot
from kaladan.bots.mcts import Node, candidates, run_budget
from kaladan.bots.registry import make_bot
from kaladan.expert.bot import ExpertBot, ExpertParams
from kaladan.rules.actions import Action
from kaladan.rules.apply import apply
from kaladan.rules.config import Config
from kaladan.rules.errors import ConfigError
from kaladan.rules.legal import legal_actions
from kaladan.rules.state import PHASE_ORDERS, GameState, Phase
from positions import build, played

FLOOR = 1 / 20  # docs/value.md: the least part of a turn's budget a decision gets


def asking(state: GameState) -> list[Phase]:
    """The phases of a turn that can ask the seat something (R6.2; income asks nothing)."""
    return [p for p in PHASE_ORDERS[state.config.phase_order] if p is not Phase.INCOME]


def searched(view: SeatView, legal: list[Action], width: int = 10) -> bool:
    """The expert searches (more than one candidate); otherwise it answers at once."""
    return len(legal) > 1 and len(candidates(view, legal, width)) > 1


def lead(bot: ExpertBot) -> int:
    """The most visited root action's lead in visits over the next one."""
    visits = sorted(bot.last_visits.values(), reverse=True) + [0, 0]
    return visits[0] - visits[1]


def test_per_names_a_decision_or_a_turn() -> None:
    assert ExpertParams.parse({"per": "turn", "time": "0.5"}).per == "turn"
    assert ExpertParams().per == "decision"
    assert isinstance(make_bot("expert:iterations=50,per=turn"), ExpertBot)
    with pytest.raises(ConfigError, match=r"per='round'.*per=decision.*per=turn"):
        make_bot("expert:per=round")


def test_run_budget_stops_once_no_action_can_overtake_the_most_visited() -> None:
    """Checked every 4 iterations from the 16th: an action that takes every visit leads by
    ``done`` with ``100 - done`` left, so the search stops at the first check past 50."""
    legal = legal_actions(build({"C2": "0/crown", "T4": "0/general 0/sword", "T5": "1/crown",
                                 "T1": "1/archer"}))
    a, b, c = legal[:3]

    def loop(to: Action | None, among: list[Action], settle: bool = True) -> int:
        tree = Node()
        tree.children = {x: Node() for x in (a, b, c)}

        def iterate(k: int) -> None:
            tree.children[to if to is not None else (a, b)[k % 2]].visits += 1

        return run_budget(100, None, None, iterate, tree if settle else None, among)

    assert loop(a, [a, b]) == 52
    assert loop(a, [a, b], settle=False) == 100
    assert loop(None, [a, b]) == 100  # an even split never settles
    assert loop(c, [a, b]) == 100  # visits of an action not among the candidates


def test_a_settled_search_chooses_what_the_whole_share_would_choose() -> None:
    """A decision's share of a turn's budget, from a fresh bot: what is left over the phases
    still to come (one each, before the seat has played a turn) in its own turn, else the
    budget over a whole turn's phases. Its choice equals that of a search of the whole share
    with the same random stream, and some searches stop before their share."""
    budget = 200
    early = checked = 0
    for decisions in range(0, 300, 5):
        state = played(Config(players=2, quick_setup=True), 9, decisions)
        if state.result is not None:
            break
        seat = state.pending.seat
        view, legal = SeatView(state, seat), legal_actions(state)
        if not searched(view, legal):
            continue
        phases = asking(state)
        if state.active == seat and state.phase in phases:
            share = int(budget / len(phases[phases.index(state.phase):]))
        else:
            share = int(budget / len(phases))
        by_turn = ExpertBot(ExpertParams(iterations=budget, per="turn"))
        whole = ExpertBot(ExpertParams(iterations=share))
        assert by_turn.choose(view, legal, random.Random(decisions)) == whole.choose(
            SeatView(state, seat), legal, random.Random(decisions))
        assert whole.iterations_done == share
        assert by_turn.iterations_done <= share
        if by_turn.iterations_done < share:
            early += 1
            assert lead(by_turn) > share - by_turn.iterations_done
        checked += 1
    assert checked >= 10
    assert early >= 1


def test_r6_2_a_turn_spends_its_budget_over_its_phases() -> None:
    """Seat 0's first turn from its action phase (R6.2: action, purchase, reinforce). Each
    searched decision gets what the turn has left over the phases from its own on (one
    decision each expected, at least ``FLOOR`` of the budget), and uses all of it unless the
    search settled; the turn never spends more than its budget plus the floors."""
    state = build({"C2": "0/crown", "T4": "0/general 0/sword 0/sword", "C1": "1/crown",
                   "T1": "1/archer 1/shield"}, gold=[9, 9])
    budget = 240
    bot = ExpertBot(ExpertParams(iterations=budget, per="turn"))
    greedy, rng = GreedyBot(), random.Random(3)
    spent, floors, shares = 0, 0, []
    while state.active == 0 and state.result is None:
        seat = state.pending.seat
        view, legal = SeatView(state, seat), legal_actions(state)
        if seat != 0:
            apply(state, greedy.choose(view, legal, rng))
            continue
        action = bot.choose(view, legal, rng)
        if searched(view, legal):
            phases = asking(state)
            later = len(phases) - phases.index(state.phase) - 1
            share = max((budget - spent) / (1 + later), budget * FLOOR)
            floors += share == budget * FLOOR
            allotted = max(1, int(share))
            done = bot.iterations_done
            assert done == allotted or (done < allotted and lead(bot) > allotted - done)
            spent += done
            shares.append((state.phase, allotted))
        apply(state, action)
    assert [phase for phase, _ in shares][:1] == [Phase.ACTION]
    assert shares[0][1] == budget // 3
    assert {phase for phase, _ in shares} == {Phase.ACTION, Phase.PURCHASE, Phase.REINFORCE}
    assert spent <= budget + floors * budget * FLOOR

