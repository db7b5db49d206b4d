"""What the server sends: every view is built from one seat's observation (R5.13), or for
spectators from the public part of it. Seeds, tokens, chance logs and the deck order never
appear here; private decisions show as "committed" to everyone who may not see them."""

from __future__ import annotations

from typing import Any

from ..odds import odds_for_attack
from ..public_log import hidden_text, may_read
from ..rules.actions import ATTACK, GIFT, KILL, Action, format_action
from ..rules.combat import attack_pool, defence_pool
from ..rules.errors import KaladanError
from ..rules.legal import legal_actions
from ..rules.observe import Observation, observe
from ..rules.state import GameState
from ..rules.world import Terrain
from .live import CachedView, LiveGame, LogEntry, dumps

LOG_LIMIT = 100  # the most recent decisions sent with every view
PRIVATE_PLAYER_FIELDS = ("hand", "pool", "buyable")
# The odds of an attack depend only on both dice pools, the mountain and scales rules and the
# number of units on each side (``odds.odds_for_attack``); games keep meeting the same ones.
OddsKey = tuple[tuple[int, ...], tuple[int, ...], bool, bool, int, int]
ODDS_MEMO_LIMIT = 50_000
_odds_memo: dict[OddsKey, dict[str, Any]] = {}
# An action's text depends on the world's tile names and the deciding seat only (but a
# ``kill``'s, which names units by the tile's owner): the same texts keep being offered.
TEXT_MEMO_LIMIT = 50_000
_text_memo: dict[tuple[Action, int, tuple[str, ...]], str] = {}


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


def action_text(action: Action, state: GameState) -> str:
    """``format_action``, memoised by what the text depends on."""
    if action.kind == KILL:
        return format_action(action, state)
    key = (action, state.pending.seat, state.world.names)
    text = _text_memo.get(key)
    if text is None:
        if len(_text_memo) >= TEXT_MEMO_LIMIT:
            _text_memo.clear()
        text = _text_memo[key] = format_action(action, state)
    return text


def action_json(index: int, action: Action, state: GameState) -> dict[str, Any]:
    names = state.world.names
    tiles = [] if action.kind == GIFT else [  # a gift's tile field holds the amount
        names[t] for t in (action.tile, action.tile2) if t >= 0]
    return {"index": index, "text": action_text(action, state), "kind": action.kind,
            "tiles": tiles}


def odds_key(state: GameState, action: Action) -> OddsKey:
    """What the exact odds of an attack without cards are a function of (R16.14-R16.21)."""
    a_tile, d_tile = action.tile, action.tile2
    attack = attack_pool(state, a_tile, d_tile)
    defence = defence_pool(state, d_tile)
    drop = (state.config.mountain_defence == "drop_lowest"
            and state.world.terrain[d_tile] == Terrain.MOUNTAIN)
    return (tuple(sorted(attack, reverse=True)), tuple(sorted(defence, reverse=True)), drop,
            state.scales, len(state.board[a_tile]), len(state.board[d_tile]))


def attack_odds(state: GameState, action: Action) -> dict[str, Any] | None:
    """The odds shown for a legal attack, memoised by ``odds_key`` (shared; not to be
    changed)."""
    try:
        key = odds_key(state, action)
        known = _odds_memo.get(key)
        if known is not None:
            return known
        odds = odds_for_attack(state, action.tile, action.tile2)
    except KaladanError:  # a position the odds do not model: no odds rather than an error
        return None
    wins = odds.attacker_wins
    chances = {"attacker_wins": float(wins),
               "attacker_wins_exact": f"{wins.numerator}/{wins.denominator}",
               "expected_attacker_losses": float(odds.expected_attacker_losses),
               "expected_defender_losses": float(odds.expected_defender_losses)}
    if len(_odds_memo) >= ODDS_MEMO_LIMIT:
        _odds_memo.clear()
    _odds_memo[key] = chances
    return chances


def log_item(entry: LogEntry, visible: bool) -> tuple[dict[str, Any], str]:
    """An entry's JSON and its text for readers who may (``visible``) or may not see its
    cards; made once per entry (shared, not to be changed)."""
    item = entry.json_cache.get(visible)
    if item is None:
        data = {"version": entry.version, "seat": entry.seat,
                "text": entry.text if visible else hidden_text(entry.text),
                "public": not entry.private}
        item = entry.json_cache[visible] = (data, dumps(data))
    return item


def log_items(entries: list[LogEntry], state: GameState,
              seat: int | None) -> list[tuple[dict[str, Any], str]]:
    return [log_item(entry, not entry.private or may_read(state, entry.seat, seat))
            for entry in entries[-LOG_LIMIT:]]


def log_json(entries: list[LogEntry], state: GameState, seat: int | None) -> list[dict[str, Any]]:
    """The log as ``seat`` (None: a spectator) may read it: the last ``LOG_LIMIT`` entries."""
    return [data for data, _ in log_items(entries, state, seat)]


def result_json(state: GameState) -> dict[str, Any] | None:
    result = state.result
    if result is None:
        return None
    return {"end": result.end, "winner": result.winner, "scores": list(result.scores),
            "team": result.team, "tie_break": [list(r) for r in result.tie_break]}


def build_view(live: LiveGame, seat: int | None) -> dict[str, Any]:
    """The view of ``seat`` (None: a spectator) at the game's current version, cached per
    version: views are shared and must not be changed."""
    return cached_view(live, seat).view


def view_text(live: LiveGame, seat: int | None) -> str:
    """The JSON text of ``build_view(live, seat)``, serialised once per version and seat."""
    return cached_view(live, seat).json_text()


def cached_view(live: LiveGame, seat: int | None) -> CachedView:
    snapshot = live.snapshot
    assert snapshot is not None
    cached = live.view_cache.get(seat)
    if cached is not None and cached.version == snapshot.version:
        return cached
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
    version = snapshot.version
    log = log_items(live.log[max(0, version - LOG_LIMIT):version], state, seat)
    view = {
        "game_id": live.game_id, "seat": seat, "version": version,
        "status": live.status,
        "observation": public_observation(state) if seat is None else observe(state, seat),
        "to_move": to_move, "your_turn": your_turn, "legal": legal, "odds": odds,
        "log": [data for data, _ in log],
        "battle": snapshot.battle,
        "result": result_json(state),
    }
    cached = CachedView(version, view, [text for _, text in log])
    live.view_cache[seat] = cached
    return cached
