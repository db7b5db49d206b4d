"""What the server sends: every view is built from one seat's observation (R5.13), or for
spectators from the public part of it. Seeds, tokens, chance logs and the deck order never
appear here; private decisions show as "committed" to everyone who may not see them."""

from __future__ import annotations

from typing import Any

from ..odds import odds_for_attack
from ..rules.actions import ATTACK, GIFT, Action, format_action
from ..rules.errors import KaladanError
from ..rules.legal import legal_actions
from ..rules.observe import Observation, observe
from ..rules.state import GameState
from .live import LiveGame, LogEntry, hidden_text

LOG_LIMIT = 100  # the most recent decisions sent with every view
PRIVATE_PLAYER_FIELDS = ("hand", "pool", "buyable")


def public_observation(state: GameState) -> Observation:
    """What every seat may see: an observation without any hand, realm pool or buyable card,
    and a battle card only once it is revealed to all seats (R5.13, R16.5)."""
    obs = observe(state, 0)
    obs["seat"] = None
    for player in obs["players"]:
        for key in PRIVATE_PLAYER_FIELDS:
            player.pop(key, None)
    battle = obs["battle"]
    if battle is not None and battle["cards"]:
        seen = [observe(state, s)["battle"]["cards"] for s in range(state.n)]
        battle["cards"] = {p: card if all(v.get(p) == card for v in seen) else "committed"
                           for p, card in battle["cards"].items()}
    return obs


def action_json(index: int, action: Action, state: GameState) -> dict[str, Any]:
    names = state.world.names
    tiles = [] if action.kind == GIFT else [  # a gift's tile field holds the amount
        names[t] for t in (action.tile, action.tile2) if t >= 0]
    return {"index": index, "text": format_action(action, state), "kind": action.kind,
            "tiles": tiles}


def attack_odds(state: GameState, action: Action) -> dict[str, Any] | None:
    try:
        odds = odds_for_attack(state, action.tile, action.tile2)
    except KaladanError:  # a position the odds do not model: no odds rather than an error
        return None
    wins = odds.attacker_wins
    return {"attacker_wins": float(wins),
            "attacker_wins_exact": f"{wins.numerator}/{wins.denominator}",
            "expected_attacker_losses": float(odds.expected_attacker_losses),
            "expected_defender_losses": float(odds.expected_defender_losses)}


def log_json(entries: list[LogEntry], state: GameState, seat: int | None) -> list[dict[str, Any]]:
    out = []
    for entry in entries[-LOG_LIMIT:]:
        visible = not entry.private or (
            seat is not None and state.team[entry.seat] == state.team[seat])
        out.append({"version": entry.version, "seat": entry.seat,
                    "text": entry.text if visible else hidden_text(entry.kind),
                    "public": not entry.private})
    return out


def result_json(state: GameState) -> dict[str, Any] | None:
    result = state.result
    if result is None:
        return None
    return {"end": result.end, "winner": result.winner, "scores": list(result.scores),
            "team": result.team, "tie_break": [list(r) for r in result.tie_break]}


def build_view(live: LiveGame, seat: int | None) -> dict[str, Any]:
    """The view of ``seat`` (None: a spectator) at the game's current version, cached per
    version: views are shared and must not be changed."""
    snapshot = live.snapshot
    assert snapshot is not None
    cached = live.view_cache.get(seat)
    if cached is not None and cached[0] == snapshot.version:
        return cached[1]
    state = snapshot.state
    over = state.is_over
    to_move = None if over else state.pending.seat
    your_turn = seat is not None and seat == to_move
    legal: list[dict[str, Any]] = []
    odds: dict[str, Any] = {}
    if your_turn:
        for i, action in enumerate(legal_actions(state)):
            item = action_json(i, action, state)
            legal.append(item)
            if action.kind == ATTACK:
                chances = attack_odds(state, action)
                if chances is not None:
                    odds[item["text"]] = chances
    view = {
        "game_id": live.game_id, "seat": seat, "version": snapshot.version,
        "status": live.status,
        "observation": public_observation(state) if seat is None else observe(state, seat),
        "to_move": to_move, "your_turn": your_turn, "legal": legal, "odds": odds,
        "log": log_json(live.log[:snapshot.version], state, seat),
        "battle": snapshot.battle,
        "result": result_json(state),
    }
    live.view_cache[seat] = (snapshot.version, view)
    return view
