"""JSON positions: a complete state, hidden parts included, from which a game continues.

Units are written ``"<seat>/<token>"`` (``"1/sword+"``, ``"0/special:kimbria"``), tiles by
name (``"T3"``, ``"C1"``). ``position_from_json(position_to_json(s))`` equals ``s`` field by
field; see docs/formats.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .chance import Chance
from .config import Config
from .errors import FormatError, KaladanError
from .state import Battle, BattleStep, Decision, EventContext, GameState, Pending, Phase, Result
from .units import REALM_INDEX, REALMS, SPECIAL, UnitType, parse_unit_ref, unit_ref
from .world import world_from_json

POSITION_FORMAT = "kaladan-position"
POSITION_VERSION = 1


def _battle_json(b: Battle, names: tuple[str, ...]) -> dict[str, Any]:
    return {
        "attacker": b.attacker, "defender": b.defender, "attacking_tile": names[b.a_tile],
        "defended_tile": names[b.d_tile], "step": b.step, "magic_queue": b.magic_queue,
        "cards": {str(k): v for k, v in b.cards.items()},
        "used_card": {str(k): v for k, v in b.used_card.items()},
        "ranged": b.ranged, "sneak": b.sneak,
        "shift": {str(k): v for k, v in b.shift.items()},
        "d12_one": {str(k): list(v) for k, v in b.d12_one.items()},
        "d12_all": {str(k): list(v) for k, v in b.d12_all.items()},
        "effect_queue": b.effect_queue, "choosing": b.choosing,
        "attack_units": [unit_ref(c) for c in b.attack_units],
        "holders": {str(k): v for k, v in b.holders.items()},
        "split_queue": b.split_queue, "participants": list(b.participants),
        "attack_dice": b.attack_dice, "defence_dice": b.defence_dice,
        "attack_rolls": b.attack_rolls, "defence_rolls": b.defence_rolls,
        "hits": {str(k): v for k, v in b.hits.items()}, "casualty_queue": b.casualty_queue,
        "set_aside": [[unit_ref(c), names[t], killer] for c, t, killer in b.set_aside],
        "invade_left": b.invade_left, "staying": [unit_ref(c) for c in b.staying],
    }


def _battle_from(d: Mapping[str, Any], index: Any) -> Battle:
    b = Battle(int(d["attacker"]), int(d["defender"]), index(d["attacking_tile"]),
               index(d["defended_tile"]), BattleStep(str(d["step"])))
    b.magic_queue = [int(x) for x in d["magic_queue"]]
    b.cards = {int(k): str(v) for k, v in d["cards"].items()}
    b.used_card = {int(k): bool(v) for k, v in d["used_card"].items()}
    b.ranged = bool(d["ranged"])
    b.sneak = bool(d["sneak"])
    b.shift = {int(k): int(v) for k, v in d["shift"].items()}
    b.d12_one = {int(k): tuple(int(x) for x in v) for k, v in d["d12_one"].items()}
    b.d12_all = {int(k): tuple(int(x) for x in v) for k, v in d["d12_all"].items()}
    b.effect_queue = [int(x) for x in d["effect_queue"]]
    b.choosing = str(d["choosing"])
    b.attack_units = tuple(parse_unit_ref(x) for x in d["attack_units"])
    b.holders = {int(k): int(v) for k, v in d["holders"].items()}
    b.split_queue = [int(x) for x in d["split_queue"]]
    b.participants = tuple(int(x) for x in d["participants"])
    b.attack_dice = [int(x) for x in d["attack_dice"]]
    b.defence_dice = [int(x) for x in d["defence_dice"]]
    b.attack_rolls = [int(x) for x in d["attack_rolls"]]
    b.defence_rolls = [int(x) for x in d["defence_rolls"]]
    b.hits = {int(k): int(v) for k, v in d["hits"].items()}
    b.casualty_queue = [int(x) for x in d["casualty_queue"]]
    for ref, tile, killer in d["set_aside"]:
        b.set_aside.append((parse_unit_ref(ref), index(tile), int(killer)))
    b.invade_left = int(d["invade_left"])
    b.staying = [parse_unit_ref(x) for x in d["staying"]]
    return b


def position_to_json(state: GameState) -> dict[str, Any]:
    """The complete state as JSON (hidden information included)."""
    names = state.world.names
    players = []
    for p in range(state.n):
        players.append({
            "realm": REALMS[state.realm[p]] if state.realm[p] >= 0 else None,
            "gold": state.gold[p],
            "reserve": {UnitType(t).label: n for t, n in enumerate(state.reserve[p])
                        if t != SPECIAL},
            "reserve_specials": [REALMS[r] for r in state.reserve_specials[p]],
            "specials_waiting": [REALMS[r] for r in state.specials_waiting[p]],
            "graveyard": [unit_ref(c) for c in state.graveyard[p]],
            "trophies": [unit_ref(c) for c in state.trophies[p]],
            "hand": list(state.hand[p]), "pool": list(state.pool[p]),
            "buyable": list(state.buyable[p]), "eliminated": state.eliminated[p],
            "home": names[state.home[p]] if state.home[p] >= 0 else None,
            "named": REALMS[state.setup_named[p]] if state.setup_named[p] >= 0 else None,
        })
    event = state.event
    result = state.result
    return {
        "format": POSITION_FORMAT,
        "version": POSITION_VERSION,
        "config": state.config.to_json(),
        "world": state.world.to_json(),
        "rng": state.chance.state,
        "first": state.first,
        "turn_rolls": state.turn_rolls,
        "players": players,
        "board": {names[t]: [unit_ref(c) for c in units]
                  for t, units in enumerate(state.board) if units},
        "fortified": [names[t] for t, f in enumerate(state.fortified) if f],
        "removed": [unit_ref(c) for c in state.removed],
        "spent": list(state.spent),
        "deck": list(reversed(state.deck)),  # top first
        "discard": list(state.discard),
        "end_card": state.end_card,
        "phase": state.phase.label,
        "pending": {"kind": state.pending.kind.label, "seat": state.pending.seat},
        "active": state.active,
        "slot": state.slot,
        "turn": state.turn,
        "final_slot": state.final_slot,
        "oracles": state.oracles, "scales": state.scales, "gilded_slot": state.gilded_slot,
        "six_gates": state.six_gates,
        "event": None if event is None else {
            "card": event.card, "queue": event.queue, "marked": event.marked,
            "must_lose": event.must_lose},
        "spawn_left": [names[t] for t in state.spawn_left],
        "purchase_empty": names[state.purchase_empty] if state.purchase_empty >= 0 else None,
        "battle": None if state.battle is None else _battle_json(state.battle, names),
        "setup_queue": state.setup_queue,
        "result": None if result is None else {
            "end": result.end, "winner": result.winner, "scores": result.scores,
            "tie_break": result.tie_break,
            **({} if result.team is None else {"team": result.team})},
        "decisions": state.decisions,
        "last_event": state.last_event,
    }


def position_from_json(data: Mapping[str, Any]) -> GameState:
    """Rebuild a state from ``position_to_json`` output; FormatError if it is not one."""
    if not isinstance(data, Mapping):
        raise FormatError("a position must be a JSON object")
    if data.get("format") != POSITION_FORMAT:
        raise FormatError(f"not a kaladan position: format is {data.get('format')!r}")
    if data.get("version") != POSITION_VERSION:
        raise FormatError(f"unsupported position version {data.get('version')!r}; "
                          f"this engine reads version {POSITION_VERSION}")
    try:
        return _from_json(data)
    except KaladanError as exc:
        if isinstance(exc, FormatError):
            raise
        raise FormatError(f"bad position: {exc}") from exc
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise FormatError(f"bad position: missing or malformed field ({err!r})") from err


def _gilded_slot(data: Mapping[str, Any]) -> int:
    """EG4's slot; positions written before ``end_game_trigger`` carry ``gilded`` (a flag
    that meant: drawn in the turn before the final round)."""
    if "gilded_slot" in data:
        return int(data["gilded_slot"])
    if data.get("gilded"):
        return int(data["final_slot"]) - int(data["config"].get("players", 2))
    return -1


def _from_json(data: Mapping[str, Any]) -> GameState:
    config = Config.from_json(data["config"])
    world = world_from_json(data["world"], config.players)
    index = world.index
    n = config.players
    s = GameState()
    s.take_config(config, n)
    s.world = world
    s.chance = Chance(int(data["rng"]))
    s.first = int(data["first"])
    s.turn_rolls = [[int(x) for x in r] for r in data["turn_rolls"]]
    players = data["players"]
    if len(players) != n:
        raise FormatError(f"position has {len(players)} players, its configuration {n}")
    s.realm = [REALM_INDEX[p["realm"]] if p["realm"] else -1 for p in players]
    s.seat_of_realm = [-1] * len(REALMS)
    for seat, r in enumerate(s.realm):
        if r >= 0:
            s.seat_of_realm[r] = seat
    s.gold = [int(p["gold"]) for p in players]
    s.reserve = []
    for p in players:
        counts = [0] * 7
        for label, count in p["reserve"].items():
            counts[UnitType[label.upper()]] = int(count)
        s.reserve.append(counts)
    s.reserve_specials = [sorted(REALM_INDEX[r] for r in p["reserve_specials"]) for p in players]
    s.specials_waiting = [tuple(sorted(REALM_INDEX[r] for r in p.get("specials_waiting", ())))
                          for p in players]
    s.graveyard = [[parse_unit_ref(u) for u in p["graveyard"]] for p in players]
    s.trophies = [[parse_unit_ref(u) for u in p["trophies"]] for p in players]
    s.hand = [list(p["hand"]) for p in players]
    s.pool = [list(p["pool"]) for p in players]
    s.buyable = [list(p["buyable"]) for p in players]
    s.eliminated = [bool(p["eliminated"]) for p in players]
    s.home = [index(p["home"]) if p["home"] else -1 for p in players]
    s.setup_named = [REALM_INDEX[p["named"]] if p.get("named") else -1 for p in players]
    s.board = [() for _ in world.coords]
    for name, units in data["board"].items():
        s.board[index(name)] = tuple(sorted(parse_unit_ref(u) for u in units))
    s.fortified = [False] * len(world.coords)
    for name in data["fortified"]:
        s.fortified[index(name)] = True
    s.removed = [parse_unit_ref(u) for u in data["removed"]]
    s.spent = list(data["spent"])
    s.deck = list(reversed(data["deck"]))
    s.discard = list(data["discard"])
    s.end_card = data["end_card"]
    s.phase = Phase[str(data["phase"]).upper()]
    s.pending = Pending(Decision[str(data["pending"]["kind"]).upper()],
                        int(data["pending"]["seat"]))
    s.active = int(data["active"])
    s.slot = int(data["slot"])
    s.turn = int(data["turn"])
    s.final_slot = int(data["final_slot"])
    s.oracles = bool(data["oracles"])
    s.scales = bool(data["scales"])
    s.gilded_slot = _gilded_slot(data)
    s.six_gates = bool(data["six_gates"])
    ev = data["event"]
    s.event = None if ev is None else EventContext(
        str(ev["card"]), [int(x) for x in ev["queue"]], [int(x) for x in ev["marked"]],
        bool(ev["must_lose"]))
    s.spawn_left = [index(t) for t in data["spawn_left"]]
    s.purchase_empty = index(data["purchase_empty"]) if data["purchase_empty"] else -1
    s.battle = None if data["battle"] is None else _battle_from(data["battle"], index)
    s.setup_queue = [int(x) for x in data["setup_queue"]]
    res = data["result"]
    s.result = None if res is None else Result(
        str(res["end"]), res["winner"], list(res["scores"]), [list(r) for r in res["tie_break"]],
        res.get("team"))
    s.decisions = int(data["decisions"])
    s.last_event = data["last_event"]
    s.legal_for = None
    s.legal_list = ()
    s.mine_cache = [None] * n
    s.tile_infos = [None] * len(s.board)
    s.sink = None
    if s.battle is not None:
        s.battle.team = s.team
    return s

