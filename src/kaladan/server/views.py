"""What the server sends: every view is built from one seat's observation (R5.13; spectators:
``observe(state, None)``) and the engine's log entries that seat may read
(``gamelog.visible``). Seeds, tokens, chance logs and the deck order never appear here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..odds import CardOdds, Odds, attack_card_odds, odds_for_attack
from ..rules.actions import ATTACK, KILL, Action
from ..rules.combat import attack_pool, defence_pool, drops_lowest
from ..rules.errors import KaladanError
from ..rules.kinds import SPECS, format_action
from ..rules.legal import gift_allies, legal_actions
from ..rules.observe import observe
from ..rules.offer import label, offer, price
from ..rules.scoring import parts, team_parts
from ..rules.state import GameState
from .choices import action_tiles, args, compact, refs, split
from .history import History
from .jsontext import dumps
from .live import CachedView, LiveGame, ShownEntry, Snapshot

# The odds of an attack depend only on both dice pools, the mountain and scales rules and the
# number of units on each side (``odds.odds_for_attack``); games keep meeting the same ones.
OddsKey = tuple[tuple[int, ...], tuple[int, ...], bool, bool, int, int]
ODDS_MEMO_LIMIT = 50_000
_odds_memo: dict[OddsKey, dict[str, Any]] = {}
# An action's text depends on the world's tile names and the deciding seat only (but a
# ``kill``'s, which names units by the tile's owner): the same texts keep being offered.
TEXT_MEMO_LIMIT = 50_000
_text_memo: dict[tuple[Action, int, tuple[str, ...]], str] = {}
_listed_memo: dict[tuple[Action, int, tuple[str, ...]], dict[str, Any]] = {}
_V = TypeVar("_V")


def _remembered(memo: dict[Any, _V], key: Any, make: Callable[[], _V]) -> _V:
    """``memo[key]``, made by ``make`` when missing; the memo starts over at its limit."""
    known = memo.get(key)
    if known is None:
        if len(memo) >= TEXT_MEMO_LIMIT:
            memo.clear()
        known = memo[key] = make()
    return known


def action_text(action: Action, state: GameState) -> str:
    """``format_action``, memoised by what the text depends on."""
    if action.kind == KILL:
        return format_action(action, state)
    return _remembered(_text_memo, (action, state.pending.seat, state.world.names),
                       lambda: format_action(action, state))


def action_json(index: int, action: Action, state: GameState) -> dict[str, Any]:
    """A listed legal action: its index in the whole list, text, kind, the tiles it concerns,
    the units it names (``seat/unit``, as on the board), the values of its fields
    (``choices.args``), its price and the catalogue key of its words (``rules/offer.py``)."""
    names = state.world.names
    decision = state.pending.kind
    return {"index": index, "text": action_text(action, state), "kind": action.kind.value,
            "tiles": [names[t] for t in action_tiles(action, state)],
            "units": refs(action.units + action.units2), "args": args(action, state),
            "price": price(action, decision),
            "label": label(SPECS[action.kind], action, decision)}


def listed_json(index: int, action: Action, state: GameState) -> dict[str, Any]:
    """A listed action as a view carries it (``choices.compact``), memoised like its text:
    but for its index it depends on the action, the pending decision and the tile names
    only, unless it is a ``kill`` or its tile is a battle's (a casualty, a unit staying
    behind)."""
    if action.kind is KILL or (action.units and action.tile < 0 and action.tile2 < 0):
        return compact(action_json(index, action, state))
    known = _remembered(_listed_memo, (action, state.pending, state.world.names),
                        lambda: compact(action_json(index, action, state)))
    return {**known, "index": index}  # the memo's parts are shared: never changed


def all_odds(live: LiveGame, seat: int) -> dict[str, Any]:
    """The exact odds of every attack ``seat`` may declare now, by the attack's text and by
    its index in the legal list (none when another seat decides); asked for when a player
    considers an attack, not sent with every view (most are never looked at, and new ones
    take a sweep to compute)."""
    snapshot = live.snapshot
    assert snapshot is not None
    state = snapshot.state
    odds: dict[str, Any] = {}
    by_index: dict[str, Any] = {}
    if not state.is_over and state.pending.seat == seat:
        for group in offer(state).of_kind(ATTACK):
            action = group.action
            if action is not None:
                chances = odds_with_cards(state, action)
                if chances is not None:
                    odds[action_text(action, state)] = by_index[str(group.start)] = chances
    return {"version": snapshot.version, "odds": odds, "by_index": by_index}


def odds_with_cards(state: GameState, action: Action) -> dict[str, Any] | None:
    """An attack's odds as the deciding seat is shown them, in the odds list and in a hint
    alike: without cards, and with each card of its own hand it may play (None where the
    odds do not model the position)."""
    chances = attack_odds(state, action)
    if chances is None:
        return None
    return {**chances, "cards": card_odds(state, action)}


def card_odds(state: GameState, action: Action) -> list[dict[str, Any]]:
    """The odds of an attack with each card of the attacker's own hand it may select
    (``odds.attack_card_odds``; the defender's hand is never read: it plays no card). Called
    for the deciding seat only, so only that seat's hand is ever shown."""
    try:
        with_cards = attack_card_odds(state, action.tile, action.tile2)
    except KaladanError:  # a position the odds do not model: no card odds rather than an error
        return []
    return [card_json(state, card) for card in with_cards]


def card_json(state: GameState, card: CardOdds) -> dict[str, Any]:
    """One card's odds as the odds list gives them, its choice by its text."""
    choice = None
    if card.choice is not None:
        choice = {"text": format_action(card.choice, state), "kind": card.choice.kind.value,
                  "args": args(card.choice, state)}
    return {"card": card.card, **odds_json(card.odds), "choice": choice}


def odds_json(odds: Odds) -> dict[str, Any]:
    """Odds as the API gives them: floats, the chance to win also as 'p/q'."""
    wins = odds.attacker_wins
    return {"attacker_wins": float(wins),
            "attacker_wins_exact": f"{wins.numerator}/{wins.denominator}",
            "expected_attacker_losses": float(odds.expected_attacker_losses),
            "expected_defender_losses": float(odds.expected_defender_losses)}


def hint_view(state: GameState, version: int, action: Action, adviser: str) -> dict[str, Any]:
    """The advice ``action`` for the seat deciding in ``state`` (the published state of
    ``version``; ``hints.Advisor``) as a listed action with its index, for an attack with its
    exact odds as the odds list gives them (``odds_with_cards``), and the kind of bot that
    gave it."""
    index = list(legal_actions(state)).index(action)
    odds = odds_with_cards(state, action) if action.kind == ATTACK else None
    return {"version": version, "action": action_json(index, action, state), "odds": odds,
            "adviser": adviser}


def full_legal(live: LiveGame, seat: int) -> dict[str, Any]:
    """Every legal action of ``seat`` now, each listed with its text (none when another seat
    decides): the list a view gives partly as groups."""
    snapshot = live.snapshot
    assert snapshot is not None
    state = snapshot.state
    legal: list[dict[str, Any]] = []
    if not state.is_over and state.pending.seat == seat:
        legal = [action_json(i, a, state) for i, a in enumerate(legal_actions(state))]
    return {"version": snapshot.version, "legal": legal}


def odds_key(state: GameState, action: Action) -> OddsKey:
    """What the exact odds of an attack without cards are a function of (R16.14-R16.21)."""
    a_tile, d_tile = action.tile, action.tile2
    attack = attack_pool(state, a_tile, d_tile)
    defence = defence_pool(state, d_tile)
    drop = drops_lowest(state, d_tile)
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
    chances = odds_json(odds)
    if len(_odds_memo) >= ODDS_MEMO_LIMIT:
        _odds_memo.clear()
    _odds_memo[key] = chances
    return chances


def result_json(state: GameState) -> dict[str, Any] | None:
    result = state.result
    if result is None:
        return None
    return {"end": result.end, "winner": result.winner, "scores": list(result.scores),
            "team": result.team, "tie_break": [list(r) for r in result.tie_break]}


def score_view(state: GameState) -> dict[str, Any]:
    """Every player's score now by the parts of R22.1, in points (``scoring.parts``; null once
    eliminated, R22.2), and in team mode each team's (R23.34, ``scoring.team_parts``): all
    from public information (the board, graveyards, trophies, gold and the Six Gates card
    are in every observation, R5.13), so every reader gets the same figures."""
    players = [None if state.eliminated[p] else parts(state, p).to_json()
               for p in range(state.n)]
    teams = None
    if state.teams:
        teams = [{"team": team, "seats": [p for p in range(state.n) if state.team[p] == team],
                  **team_parts(state, team).to_json()} for team in sorted(set(state.team))]
    return {"players": players, "teams": teams, "six_gates": state.six_gates}


def gift_offer(state: GameState, seat: int | None) -> dict[str, Any] | None:
    """What ``seat`` may give now (R23.11, at any moment, whoever holds the decision): its
    allies and the most gold it may give (its own gold); None when it may give nothing (free-
    for-all, no gold, the game over, a spectator)."""
    if seat is None:
        return None
    allies = gift_allies(state, seat)
    return {"allies": allies, "max": state.gold[seat]} if allies else None


def build_view(live: LiveGame, seat: int | None, since: int = -1) -> dict[str, Any]:
    """The view of ``seat`` (None: a spectator) at the game's current version with the log
    entries after version ``since`` (-1: the whole log), as a new dict
    (its parts are shared and must not be changed)."""
    cached = cached_view(live, seat)
    entries, _ = log_part(live, cached, seat, since)
    view = cached.view if since < 0 else without_world(cached.view)
    return {**view, "clock": clock_view(live), "log_since": max(since, -1),
            "log": [e.data for e in entries]}


def clock_view(live: LiveGame) -> dict[str, Any] | None:
    """Every seat's clock now (clocks.py; None: an untimed game): made at each sending, not
    cached with the view (time passes between two versions)."""
    clock = live.clock
    if clock is None:
        return None
    return clock.view(live.clock_now(), len(live.seats))


def without_world(view: dict[str, Any]) -> dict[str, Any]:
    """A view that follows on from one the client holds: the world (R4) never changes
    during a game, so only views with the whole log (``log_since`` -1) carry it."""
    observation = {k: v for k, v in view["observation"].items() if k != "world"}
    return {**view, "observation": observation}


def view_text(live: LiveGame, seat: int | None, since: int = -1) -> str:
    """The JSON text of ``build_view(live, seat, since)``, from parts made once."""
    return cached_text(live, cached_view(live, seat), seat, since)


def cached_text(live: LiveGame, cached: CachedView, seat: int | None, since: int) -> str:
    """The JSON text of the view ``cached`` with the log entries after version ``since``."""
    whole = since < 0
    head = cached.heads.get(whole)
    if head is None:
        head = cached.heads[whole] = dumps(cached.view if whole
                                           else without_world(cached.view))[:-1]
    _, log = log_part(live, cached, seat, since)
    clock = "null" if live.clock is None else dumps(clock_view(live))
    return f'{head},"clock":{clock},"log_since":{max(since, -1)},"log":[{log}]}}'


def log_part(live: LiveGame, cached: CachedView, seat: int | None,
             since: int) -> tuple[list[ShownEntry], str]:
    """The entries ``seat`` may read (``gamelog.visible``) made after version ``since``, at
    the cached view's version; and their JSON texts joined."""
    since = max(since, -1)
    known = cached.logs.get(since)
    if known is not None:
        return known
    shown = shown_entries(live, cached.snapshot, seat, since)
    part = (shown, ",".join(e.text for e in shown))
    if len(cached.logs) >= 8:  # a view is asked for with a few ``since`` only
        cached.logs.clear()
    cached.logs[since] = part
    return part


def shown_entries(live: LiveGame, snapshot: Snapshot, seat: int | None,
                  since: int) -> list[ShownEntry]:
    """The entries of ``snapshot`` that ``seat`` may read (``gamelog.visible``) made after
    version ``since``, oldest first."""
    # All of them, never cut (docs/api.md "The whole log, never cut"): a long six-player game
    # of random decisions makes about 500 entries, ~60 kB of JSON (~9 kB deflated), joined in
    # a few ms once per version and reader, then taken from the view's cache.
    shown: list[ShownEntry] = []
    for i in range(snapshot.first_after(since), snapshot.count):
        form = live.log_json.entry(snapshot, i).for_reader(seat)
        if form is not None:
            shown.append(form)
    return shown


def replay_view(live: LiveGame, history: History, version: int, since: int) -> dict[str, Any]:
    """A finished game after ``version`` decisions as a spectator saw it then: the public
    observation, the score then and the public log entries made after version ``since`` up
    to ``version``."""
    game = live.game
    count = game.entry_starts[version] if version < history.last else len(game.entries)
    snapshot = Snapshot(version, history.states[version], game.entries, game.entry_starts,
                        count)
    since = max(since, -1)
    entries = shown_entries(live, snapshot, None, since) if since < version else []
    return {"game_id": live.game_id, "version": version, "last": history.last,
            "observation": observe(history.states[version], None),
            "score": score_view(history.states[version]),
            "log_since": since, "log": [e.data for e in entries]}


def cached_view(live: LiveGame, seat: int | None) -> CachedView:
    """The parts of ``seat``'s view at the current version but its log, made once."""
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
    moves: list[dict[str, Any]] = []
    swaps: list[dict[str, Any]] = []
    count = 0
    if your_turn:
        pending = offer(state)
        count = len(pending.legal)
        listed, moves, swaps = split(pending, state.world.names)
        legal = [listed_json(g.start, g.action, state) for g in listed if g.action is not None]
    observation = observe(state, seat)
    board = observation["board"]
    for entry in moves:  # most often a tile's units are the board's: not sent twice
        if entry["units"] == board.get(entry["from"]):
            del entry["units"]
    view = {
        "game_id": live.game_id, "seat": seat, "version": snapshot.version,
        "status": live.status,
        "observation": observation,
        "to_move": to_move, "your_turn": your_turn, "legal_count": count, "legal": legal,
        "moves": moves, "swaps": swaps,
        "gift": gift_offer(state, seat), "result": result_json(state),
        "score": score_view(state),
        # A seed the creator chose is known to the creator, so to everyone (R3.1); a seed
        # the server drew is never sent (it fixes every hand and the deck).
        "seed": live.game.seed if live.seed_public else None,
    }
    cached = CachedView(snapshot, view)
    live.view_cache[seat] = cached
    return cached
