"""JSON positions: a complete state, hidden parts included, from which a game continues.

Every fact of ``GameState.FACTS`` is written and read as ``_FACTS`` says (a fact without an
entry there fails at import). Units are written ``"<seat>/<token>"`` (``"1/sword+"``,
``"0/special:kimbria"``), tiles by name (``"T3"``, ``"C1"``); per-seat facts in each player's
object. ``position_from_json(position_to_json(s))`` equals ``s`` fact by fact; see
docs/formats.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from .chance import Chance
from .config import Config
from .errors import FormatError, KaladanError
from .state import (
    FACTS,
    Battle,
    BattleStep,
    Decision,
    EventContext,
    GameState,
    Pending,
    Phase,
    Result,
    Scratch,
)
from .units import REALM_INDEX, REALMS, SPECIAL, UnitCode, UnitType, parse_unit_ref, unit_ref
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


@dataclass(frozen=True, slots=True)
class _Fact:
    """How one of the game's facts (``GameState.FACTS``) is written in a position and read
    back: ``key`` in the position (in each player's object when ``per_player``), ``write``
    from the value, ``read`` to it (given the JSON found under ``key``, or the whole
    position when the fact is derived and ``write`` is None)."""

    key: str
    write: Callable[[Any, _Ctx], Any] | None
    read: Callable[[Any, _Ctx], Any]
    per_player: bool = False
    # What an older position without the key holds (None: the key is required).
    absent: tuple[Any] | None = None


@dataclass(slots=True)
class _Ctx:
    """What writing or reading a fact needs besides its value: the state (read: the facts
    read so far, in ``FACTS`` order) and its tile names."""

    state: GameState
    names: tuple[str, ...] = ()

    def index(self, name: str) -> int:
        return self.state.world.index(name)

    def tile(self, name: Any) -> int:
        return self.index(name) if name else -1


def _ints(value: Any, ctx: _Ctx) -> list[int]:
    return [int(x) for x in value]


def _same(value: Any, ctx: _Ctx) -> Any:
    return value


def _refs(value: Any, ctx: _Ctx) -> list[str]:
    return [unit_ref(c) for c in value]


def _units(value: Any, ctx: _Ctx) -> list[UnitCode]:
    return [parse_unit_ref(u) for u in value]


def _realm_name(value: Any, ctx: _Ctx) -> str | None:
    return REALMS[value] if value >= 0 else None


def _realm_index(value: Any, ctx: _Ctx) -> int:
    return REALM_INDEX[value] if value else -1


def _tile_name(value: Any, ctx: _Ctx) -> str | None:
    return ctx.names[value] if value >= 0 else None


def _reserve_json(value: Any, ctx: _Ctx) -> dict[str, int]:
    return {UnitType(t).label: n for t, n in enumerate(value) if t != SPECIAL}


def _reserve(value: Any, ctx: _Ctx) -> list[int]:
    counts = [0] * 7
    for label, count in value.items():
        counts[UnitType[label.upper()]] = int(count)
    return counts


def _seat_of_realm(data: Any, ctx: _Ctx) -> list[int]:
    out = [-1] * len(REALMS)
    for seat, r in enumerate(ctx.state.realm):
        if r >= 0:
            out[r] = seat
    return out


def _board_json(value: Any, ctx: _Ctx) -> dict[str, list[str]]:
    return {ctx.names[t]: [unit_ref(c) for c in units] for t, units in enumerate(value) if units}


def _board(value: Any, ctx: _Ctx) -> list[tuple[UnitCode, ...]]:
    board: list[tuple[UnitCode, ...]] = [() for _ in ctx.state.world.coords]
    for name, units in value.items():
        board[ctx.index(name)] = tuple(sorted(parse_unit_ref(u) for u in units))
    return board


def _fortified(value: Any, ctx: _Ctx) -> list[bool]:
    fortified = [False] * len(ctx.state.world.coords)
    for name in value:
        fortified[ctx.index(name)] = True
    return fortified


def _event_json(value: EventContext | None, ctx: _Ctx) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"card": value.card, "queue": value.queue, "marked": value.marked,
            "must_lose": value.must_lose}


def _event(value: Any, ctx: _Ctx) -> EventContext | None:
    if value is None:
        return None
    return EventContext(str(value["card"]), _ints(value["queue"], ctx),
                        _ints(value["marked"], ctx), bool(value["must_lose"]))


def _result_json(value: Result | None, ctx: _Ctx) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"end": value.end, "winner": value.winner, "scores": value.scores,
            "tie_break": value.tie_break, **({} if value.team is None else {"team": value.team})}


def _result(value: Any, ctx: _Ctx) -> Result | None:
    if value is None:
        return None
    return Result(str(value["end"]), value["winner"], list(value["scores"]),
                  [list(r) for r in value["tie_break"]], value.get("team"))


def _player(key: str, write: Callable[[Any, _Ctx], Any], read: Callable[[Any, _Ctx], Any],
            absent: tuple[Any] | None = None) -> _Fact:
    """A fact held per seat: a list with one value per player, each in its player object."""
    return _Fact(key, write, read, per_player=True, absent=absent)


# Every fact of GameState and how a position carries it; a fact missing here fails at import.
_FACTS: Final[dict[str, _Fact]] = {
    "config": _Fact("config", lambda c, ctx: c.to_json(), lambda d, ctx: Config.from_json(d)),
    "world": _Fact("world", lambda w, ctx: w.to_json(),
                   lambda d, ctx: world_from_json(d, ctx.state.config.players)),
    "n": _Fact("config", None, lambda d, ctx: ctx.state.config.players),
    "chance": _Fact("rng", lambda c, ctx: c.state, lambda d, ctx: Chance(int(d))),
    "first": _Fact("first", _same, lambda d, ctx: int(d)),
    "turn_rolls": _Fact("turn_rolls", _same, lambda d, ctx: [_ints(r, ctx) for r in d]),
    "realm": _player("realm", _realm_name, _realm_index),
    "seat_of_realm": _Fact("players", None, _seat_of_realm),
    "gold": _player("gold", _same, lambda d, ctx: int(d)),
    "reserve": _player("reserve", _reserve_json, _reserve),
    "reserve_specials": _player("reserve_specials", lambda v, ctx: [REALMS[r] for r in v],
                                lambda d, ctx: sorted(REALM_INDEX[r] for r in d)),
    "board": _Fact("board", _board_json, _board),
    "fortified": _Fact("fortified", lambda v, ctx: [ctx.names[t] for t, f in enumerate(v) if f],
                       _fortified),
    "graveyard": _player("graveyard", _refs, _units),
    "trophies": _player("trophies", _refs, _units),
    "removed": _Fact("removed", _refs, _units),
    "hand": _player("hand", lambda v, ctx: list(v), lambda d, ctx: list(d)),
    "pool": _player("pool", lambda v, ctx: list(v), lambda d, ctx: list(d)),
    "spent": _Fact("spent", lambda v, ctx: list(v), lambda d, ctx: list(d)),
    "buyable": _player("buyable", lambda v, ctx: list(v), lambda d, ctx: list(d)),
    "eliminated": _player("eliminated", _same, lambda d, ctx: bool(d)),
    "home": _player("home", _tile_name, lambda d, ctx: ctx.tile(d)),
    "deck": _Fact("deck", lambda v, ctx: list(reversed(v)),  # top first
                  lambda d, ctx: list(reversed(d))),
    "discard": _Fact("discard", lambda v, ctx: list(v), lambda d, ctx: list(d)),
    "end_card": _Fact("end_card", _same, _same),
    "phase": _Fact("phase", lambda v, ctx: v.label, lambda d, ctx: Phase[str(d).upper()]),
    "pending": _Fact("pending", lambda v, ctx: {"kind": v.kind.label, "seat": v.seat},
                     lambda d, ctx: Pending(Decision[str(d["kind"]).upper()], int(d["seat"]))),
    "active": _Fact("active", _same, lambda d, ctx: int(d)),
    "slot": _Fact("slot", _same, lambda d, ctx: int(d)),
    "turn": _Fact("turn", _same, lambda d, ctx: int(d)),
    "final_slot": _Fact("final_slot", _same, lambda d, ctx: int(d)),
    "oracles": _Fact("oracles", _same, lambda d, ctx: bool(d)),
    "scales": _Fact("scales", _same, lambda d, ctx: bool(d)),
    # Positions written before ``end_game_trigger`` carry ``gilded`` instead (_gilded_slot).
    "gilded_slot": _Fact("gilded_slot", _same, lambda d, ctx: int(d)),
    "six_gates": _Fact("six_gates", _same, lambda d, ctx: bool(d)),
    "specials_waiting": _player("specials_waiting", lambda v, ctx: [REALMS[r] for r in v],
                                lambda d, ctx: tuple(sorted(REALM_INDEX[r] for r in d)), ([],)),
    "event": _Fact("event", _event_json, _event),
    "spawn_left": _Fact("spawn_left", lambda v, ctx: [ctx.names[t] for t in v],
                        lambda d, ctx: [ctx.index(t) for t in d]),
    "purchase_empty": _Fact("purchase_empty", _tile_name, lambda d, ctx: ctx.tile(d)),
    "battle": _Fact("battle", lambda b, ctx: None if b is None else _battle_json(b, ctx.names),
                    lambda d, ctx: None if d is None else _battle_from(d, ctx.index)),
    "setup_queue": _Fact("setup_queue", _same, _ints),
    "setup_named": _player("named", _realm_name, _realm_index, (None,)),
    "result": _Fact("result", _result_json, _result),
    "decisions": _Fact("decisions", _same, lambda d, ctx: int(d)),
    "last_event": _Fact("last_event", _same, _same),
}
assert tuple(_FACTS) == FACTS, set(FACTS) ^ set(_FACTS)


def position_to_json(state: GameState) -> dict[str, Any]:
    """The complete state as JSON (hidden information included): every fact of
    ``GameState.FACTS`` as ``_FACTS`` writes it."""
    ctx = _Ctx(state, state.world.names)
    out: dict[str, Any] = {"format": POSITION_FORMAT, "version": POSITION_VERSION}
    players: list[dict[str, Any]] = [{} for _ in range(state.n)]
    for name, fact in _FACTS.items():
        if fact.write is None:
            continue
        value = getattr(state, name)
        if fact.per_player:
            for p in range(state.n):
                players[p][fact.key] = fact.write(value[p], ctx)
            out["players"] = players
        else:
            out[fact.key] = fact.write(value, ctx)
    return out


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


def _value(data: Mapping[str, Any], fact: _Fact) -> Any:
    if fact.absent is not None and fact.key not in data:
        return fact.absent[0]
    return data[fact.key]


def _from_json(data: Mapping[str, Any]) -> GameState:
    s = GameState()
    ctx = _Ctx(s)
    players = data["players"]
    for name, fact in _FACTS.items():
        if fact.per_player:
            if len(players) != s.n:
                raise FormatError(f"position has {len(players)} players, its configuration "
                                  f"{s.n}")
            value: Any = [fact.read(_value(p, fact), ctx) for p in players]
        elif name == "gilded_slot":
            value = _gilded_slot(data)
        else:
            value = fact.read(_value(data, fact), ctx)
        setattr(s, name, value)
        if name == "world":
            ctx.names = s.world.names
    s.take_config(s.config, s.n)
    s.scratch = Scratch(s.n, [None] * len(s.board))
    if s.battle is not None:
        s.battle.team = s.team
    return s
