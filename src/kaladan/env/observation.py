"""Observation tensors: one seat's view of a game state as a fixed-shape float32 vector.

The vector holds exactly what ``rules.observe.observe(state, seat)`` shows (R5.13): the board,
public counts of every player, the seat's own hand, realm pool and cards to buy, its allies'
hands and pools (R23.5), the pending decision, the battle in progress and the global flags.
It never reads the deck order, the dice to come, the end-game card's identity or position,
other seats' cards (only their counts) or a battle card selected face down by the other side
(R16.5, shown only as "committed"). Everything is relative to the observer: player ``i`` of
the vector is seat ``(seat + i) % n``, and units are grouped by their owner's relative index.

``ObservationEncoder.describe()`` gives the layout as a Markdown table.

Speed: this runs at every environment step, so each encoder keeps a buffer per observer and
rewrites only the board rows whose tile changed (board tuples are replaced, never mutated,
so an identity check finds them); the rest is written sparsely into a zeroed region.
"""

from __future__ import annotations

from array import array
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from ..rules.actions import Action, Kind
from ..rules.catalog import END_GAME_CARDS, EVENT_CARDS, MAGIC_CARD_BY_ID
from ..rules.config import MODES, Config
from ..rules.native import i64
from ..rules.state import BattleStep, Decision, GameState, Phase
from ..rules.units import OWNER_SHIFT, REALMS, SPECIAL, UnitCode, UnitType
from ..rules.world import World

__all__ = ["ObservationEncoder"]

_TYPES: Final = len(UnitType)  # 7
_SLOTS: Final = 2 * _TYPES  # per owner: type x (plain, upgraded)
_RESERVE_TYPES: Final = tuple(t for t in range(_TYPES) if t != SPECIAL)  # specials apart
_MAGIC_IDS: Final = tuple(sorted(MAGIC_CARD_BY_ID))
_MAGIC_INDEX: Final = {c: i for i, c in enumerate(_MAGIC_IDS)}
_EVENT_IDS: Final = tuple(c.id for c in EVENT_CARDS)
_END_IDS: Final = tuple(c.id for c in END_GAME_CARDS)
_DRAWN_IDS: Final = _EVENT_IDS + _END_IDS  # what ``last_event`` may be
_EVENT_INDEX: Final = {c: i for i, c in enumerate(_EVENT_IDS)}
_DRAWN_INDEX: Final = {c: i for i, c in enumerate(_DRAWN_IDS)}
_KIND_INDEX: Final = {k: i for i, k in enumerate(Kind)}
_REALM_INDEX: Final = {r: i for i, r in enumerate(REALMS)}
_STEPS: Final = tuple(BattleStep)
_STEP_INDEX: Final = {s: i for i, s in enumerate(_STEPS)}
_DIE_SIZES: Final = (6, 8, 10, 12)  # the ladder of R20.13; unit dice and bonus dice (R15)
_DIE_INDEX: Final = {s: i for i, s in enumerate(_DIE_SIZES)}
_ROLLS_SHOWN: Final = 8  # highest rolls per side, sorted, as paired in R16.17
_CODE_LIMIT: Final = 6 << OWNER_SHIFT  # every unit code is below this
_CARDS: Final = len(_MAGIC_IDS)

# Scales: chosen so that typical values lie in 0..1; nothing is clipped.
# A float32 buffer written through a memoryview: an item or slice write costs a third of
# numpy's. typeshed types memoryview items as int, hence Any.
FloatView = Any


def _view(values: NDArray[np.float32]) -> FloatView:
    return memoryview(values)  # type: ignore[arg-type]


_UNIT_SCALE: Final = 1 / 5
_GOLD_SCALE: Final = 1 / 20
_COUNT_SCALE: Final = 1 / 10
_DECK_SCALE: Final = 1 / 36
_TURN_SCALE: Final = 1 / 30
_ROLL_SCALE: Final = 1 / 12
_ROW_CACHE_LIMIT: Final = 200_000  # rows remembered per cache before starting over


def _row(values: NDArray[np.float32]) -> FloatView:
    """A cached row: an ``array('f')``, which the garbage collector does not track (a cache
    of memoryviews, 200,000 rows, made every full collection walk them all)."""
    return array("f", values.astype(np.float32).tobytes())


def _remember(cache: dict[Any, FloatView], key: Any, row: FloatView) -> FloatView:
    """Store ``row`` under ``key`` in one of the encoder's row caches, emptied when full."""
    if len(cache) >= _ROW_CACHE_LIMIT:
        cache.clear()
    cache[key] = row
    return row


class _Layout:
    """Sections appended in order; each knows its start."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, int, int, str]] = []
        self.size = 0

    def add(self, name: str, length: int, meaning: str) -> int:
        start = self.size
        self.rows.append((name, start, length, meaning))
        self.size += length
        return start


class ObservationEncoder:
    """Turns a state into the observation vector of one seat (see the module docstring).

    ``size`` and ``layout`` depend on the configuration's player count and the world only.
    The encoder remembers the last vector per observer; it is not thread-safe.
    """

    size: int
    layout: list[tuple[str, int, int]]

    def __init__(self, config: Config, world: World,
                 buffers: NDArray[np.float32] | None = None,
                 caches_of: ObservationEncoder | None = None) -> None:
        """``buffers`` (one row of ``size`` per seat) holds each observer's vector instead
        of arrays of the encoder's own, and ``caches_of`` shares that encoder's row caches
        (same configuration and world): what a batch of games (``vector.VectorGames``)
        gives its encoders."""
        n = config.players
        self.n = n
        self.world = world
        t_count = len(world.names)
        self.tiles = t_count
        lay = _Layout()
        # --- 1. board: one row per tile; the part that changes is at the end -------------------
        self._row_spot = 4
        self._row_home = 5
        self._row_fort = 5 + n
        self._row_units = self._row_fort + 1
        self._row_room = self._row_units + n * _SLOTS
        self.row_len = self._row_room + 1
        self._board = lay.add(
            "board", t_count * self.row_len,
            f"{t_count} tiles in world order x {self.row_len}: terrain one-hot (field, forest,"
            " mountain, castle), castle spot, home castle of relative player (one-hot"
            f" {n}), fortified, units per relative owner ({n}) x type (crown, general,"
            " catapult, archer, shield, sword, special) x (plain, upgraded) /5, free room /5")
        # --- 2. players ---------------------------------------------------------------------
        p_scalars = ["gold/20", *(f"reserve {UnitType(t).label}/10" for t in _RESERVE_TYPES),
                     "reserve specials/10", "specials waiting (R18.4)/10", "graveyard/10",
                     "trophies/10", "hand count/10", "pool count/10", "buyable count/10",
                     "eliminated", "same team as observer", "home chosen"]
        self._pl_realm = len(p_scalars)
        self._pl_named = self._pl_realm + 6
        self._pl_turnpos = self._pl_named + 6
        self.player_len = self._pl_turnpos + n
        self._players = lay.add(
            "players", n * self.player_len,
            f"{n} players, the observer first (seat + i) % n, x {self.player_len}: "
            + ", ".join(p_scalars)
            + f", realm one-hot (6), realm named in a roll-off (6), turn position one-hot ({n})")
        # --- 3. cards -----------------------------------------------------------------------
        ids = _MAGIC_IDS[0] + " .. " + _MAGIC_IDS[-1]
        self._hand = lay.add("hand", _CARDS, f"own hand, multi-hot over the sorted magic card"
                             f" ids ({ids})")
        self._pool = lay.add("pool", _CARDS, "own realm pool, multi-hot")
        self._buyable = lay.add("buyable", _CARDS, "eliminated players' cards the observer"
                                " may buy (R18.6), multi-hot")
        self._spent = lay.add("spent", _CARDS, "cards spent so far (public), multi-hot")
        self._ally_hand = lay.add("ally_hand", _CARDS, "allies' hands, union (R23.5; zero in"
                                  " free-for-all)")
        self._ally_pool = lay.add("ally_pool", _CARDS, "allies' realm pools, union (R23.5)")
        # --- 4. pending decision and the partial action ----------------------------------------
        self._turn = lay.add("turn", 2 * n, "active player, then pending seat, relative"
                             " one-hots")
        self._decision = lay.add("decision", len(Decision), "pending decision kind one-hot"
                                 " (" + ", ".join(d.label for d in Decision) + ")")
        self._phase = lay.add("phase", len(Phase), "phase one-hot ("
                              + ", ".join(p.label for p in Phase) + ")")
        self._partial = lay.add("partial", 1, "1 when a compound action is being composed")
        self._p_kind = lay.add("partial_kind", len(Kind), "its kind, one-hot over"
                               " actions.Kind")
        self._p_tile = lay.add("partial_tile", t_count, "its tile, one-hot")
        self._p_tile2 = lay.add("partial_tile2", t_count, "its second tile, one-hot")
        self._p_card = lay.add("partial_card", _CARDS, "its name as a magic card, one-hot")
        self._p_realm = lay.add("partial_realm", 6, "its name as a realm, one-hot")
        self._p_number = lay.add("partial_number", n, "its number as a relative seat,"
                                 " one-hot")
        unit_len = n * _SLOTS + 6
        unit_meaning = (f"counts per relative owner x type x upgraded ({n * _SLOTS}) /5, then"
                        " specials by realm (6) /5")
        self._p_units = lay.add("partial_units", unit_len, "units chosen so far: "
                                + unit_meaning)
        self._p_units2 = lay.add("partial_units2", unit_len, "second units chosen so far: "
                                 + unit_meaning)
        self._p_amount = lay.add("partial_amount", 1, "amount so far /20")
        self._p_stage = lay.add("partial_stage", 3, "stage one-hot: units, units2, number")
        # --- 5. battle ---------------------------------------------------------------------
        self._b_flags = lay.add("battle_flags", 5, "battle present, observer's team attacks,"
                                " observer's team defends, volley (ranged), ambush (sneak)")
        self._b_attacker = lay.add("battle_attacker", n, "attacker, relative one-hot")
        self._b_defender = lay.add("battle_defender", n, "defender, relative one-hot")
        self._b_a_tile = lay.add("battle_a_tile", t_count, "attacking tile, one-hot")
        self._b_d_tile = lay.add("battle_d_tile", t_count, "defended tile, one-hot")
        self._b_step = lay.add("battle_step", len(_STEPS), "battle step one-hot ("
                               + ", ".join(s.value for s in _STEPS) + ")")
        self._b_cards = lay.add("battle_cards", 2 * (_CARDS + 1),
                                "attacker's then defender's card: magic card one-hot when"
                                " observe() shows it, else 1 in a last slot if committed face"
                                " down (R16.5)")
        self._dice_len = len(_DIE_SIZES) + _ROLLS_SHOWN
        self._b_dice = lay.add("battle_dice", 2 * self._dice_len,
                               "attack then defence dice: count per size (D6, D8, D10, D12) /5,"
                               f" then the {_ROLLS_SHOWN} highest rolls, descending, /12")
        self._b_hits = lay.add("battle_hits", n, "casualties still to choose per relative"
                               " player /5 (a side leader's before it shares them, R23.22)")
        self._b_invade = lay.add("battle_invade", 1, "units still to leave behind (R17.6) /5")
        self._b_staying = lay.add("battle_staying", n * _SLOTS, "units chosen to stay behind"
                                  " on the attacking tile (R17.6), per relative owner x type x"
                                  " upgraded /5")
        self._b_aside = lay.add("battle_set_aside", n * _SLOTS, "units killed in this battle and"
                                " set aside until step G (R16.25), per relative owner x type x"
                                " upgraded /5")
        self._b_choosing = lay.add("battle_choosing", _CARDS, "the revealed card whose holder"
                                   " is choosing its effect (section 26), one-hot")
        # --- 6. global ---------------------------------------------------------------------
        self._g_event = lay.add("event", len(_EVENT_IDS), "event card being resolved,"
                                " one-hot over EV ids")
        self._g_marked = lay.add("event_marked", n, "relative players it marked (R7.13)")
        self._g_last = lay.add("last_event", len(_DRAWN_IDS), "last card drawn, one-hot over"
                               " EV then EG ids")
        self._g_spawn = lay.add("spawn_left", t_count, "castles still to spawn on this turn"
                                " (R8.1), multi-hot over tiles")
        g_scalars = ["deck count/36", "discard count/36", "final round", "oracles", "scales",
                     "gilded", "gold frozen (R9.4)", "six gates", "turn/30", "game over",
                     "must lose (EV15)", "empty tile bought this phase (R11.4)"]
        self._g_scalars = lay.add("global", len(g_scalars), ", ".join(g_scalars))
        self._g_count = len(g_scalars)
        self._g_mode = lay.add("mode", len(MODES), "mode one-hot (" + ", ".join(MODES) + ")")
        self.size = lay.size
        self._rows = lay.rows
        self.layout = [(name, start, length) for name, start, length, _ in lay.rows]
        self._mode_index = MODES.index(str(config.mode))
        self._dense_start = self._turn  # from here on, everything is rewritten at every call

        # Per observer: the slot of each unit code in a units block (relative owner x type x
        # upgraded), and the scatter from the player signature to the players section.
        self._unit_slot: list[list[int]] = []
        for seat in range(n):
            slots = [0] * _CODE_LIMIT
            for c in range(_CODE_LIMIT):
                rel = ((c >> OWNER_SHIFT) - seat) % n
                slots[c] = rel * _SLOTS + ((c >> 1) & 7) * 2 + (c & 1)
            self._unit_slot.append(slots)
        self._p_linear = len(p_scalars) - 2  # the numbers; then two flags, one-hots
        self._player_scale = np.array([_GOLD_SCALE] + [_COUNT_SCALE] * (self._p_linear - 2)
                                      + [1.0], dtype=np.float32)
        # The row caches are keyed by ints (signatures, packed units) where the values fit,
        # so that, holding only ints and arrays, they are never tracked by the garbage
        # collector (a dict of tuples, 200,000 rows, made every full collection walk it);
        # the rare rows that do not fit go to a second dict keyed by tuples.
        self._player_cache: dict[int, FloatView] = (
            {} if caches_of is None else caches_of._player_cache)
        self._player_cache_wide: dict[tuple[int, ...], FloatView] = (
            {} if caches_of is None else caches_of._player_cache_wide)
        # The global scalars as counts and flags (``_encode_global``'s key, in the order of
        # g_scalars), scaled in double and rounded once to float32, as a single write would.
        self._global_scale = np.array([_DECK_SCALE, _DECK_SCALE, *[1.0] * 6, _TURN_SCALE,
                                       *[1.0] * 3], dtype=np.float64)
        assert len(self._global_scale) == self._g_count
        self._global_cache: dict[int, FloatView] = (
            {} if caches_of is None else caches_of._global_cache)
        self._global_cache_wide: dict[tuple[object, ...], FloatView] = (
            {} if caches_of is None else caches_of._global_cache_wide)
        self._seen: list[_Seen | None] = [None] * n
        self._buffers = buffers
        if buffers is not None and buffers.shape != (n, self.size):
            raise ValueError(f"buffers of shape {buffers.shape}, expected {(n, self.size)}")
        # Board rows from the fortified column on, by (units, fortified, capacity, observer).
        self._row_cache: dict[int, FloatView] = (
            {} if caches_of is None else caches_of._row_cache)
        self._row_cache_wide: dict[tuple[tuple[UnitCode, ...], bool, int, int], FloatView] = (
            {} if caches_of is None else caches_of._row_cache_wide)
        self._zeros = _view(np.zeros(self.size, dtype=np.float32))
        # From the turn section on everything is rewritten at every call but the global
        # scalars, kept per seat (``_encode_global``).
        self._dense_zeros = self._zeros[: self._g_scalars - self._dense_start]
        self._tail_zeros = self._zeros[: self.size - self._g_scalars - self._g_count]
        self._partial_zeros = self._zeros[: self._p_stage + 3 - self._partial]
        self._blank_row = np.zeros(self.row_len - self._row_fort, dtype=np.float32)
        self._static_rows = np.zeros((t_count, self.row_len), dtype=np.float32)
        for t in range(t_count):
            # a castle spot holds a castle tile (R4.4): its terrain is castle
            self._static_rows[t, int(world.terrain[t])] = 1.0
        for t in world.castle_spots:
            self._static_rows[t, self._row_spot] = 1.0

    # --- public -----------------------------------------------------------------------------

    def describe(self) -> str:
        """The layout as a Markdown table: section, start, length, meaning."""
        lines = ["| section | start | length | meaning |", "|---|---:|---:|---|"]
        lines += [f"| {name} | {start} | {length} | {meaning} |"
                  for name, start, length, meaning in self._rows]
        lines.append(f"| (total) | 0 | {self.size} | |")
        return "\n".join(lines)

    def encode(self, state: GameState, seat: int, partial: Action | None = None,
               stage: int = 0) -> NDArray[np.float32]:
        """The observation of ``seat`` (R5.13) as a fresh float32 array of ``size``.

        ``partial`` is the compound action being composed (its head and the units and
        amount chosen so far), ``stage`` what is being chosen: 0 units, 1 units2, 2 a number.
        """
        return self.write(state, seat, partial, stage).copy()

    def write(self, state: GameState, seat: int, partial: Action | None = None,
              stage: int = 0) -> NDArray[np.float32]:
        """``encode`` without the copy: the encoder's own vector of ``seat``, valid until the
        next call for that seat (a row of ``buffers`` when given)."""
        seen = self._seen[seat]
        if seen is None:
            seen = self._seen[seat] = self._new_seen(seat)
        buf = seen.mv
        self._encode_board(state, seat, seen)
        self._encode_players(state, seat, seen)
        self._encode_cards(state, seat, seen)
        buf[self._dense_start:self._g_scalars] = self._dense_zeros
        buf[self._g_scalars + self._g_count:] = self._tail_zeros
        n = self.n
        ones = [self._turn + (state.active - seat) % n,
                self._turn + n + (state.pending.seat - seat) % n,
                self._decision + int(state.pending.kind), self._phase + int(state.phase),
                self._g_mode + self._mode_index]
        if partial is not None:
            self._encode_partial(seat, partial, stage, buf, ones)
        if state.battle is not None:
            self._encode_battle(state, seat, buf, ones)
        self._encode_global(state, seat, seen, buf, ones)
        for i in ones:
            buf[i] = 1.0
        seen.state, seen.decisions = state, state.decisions
        return seen.buf

    def same_state_partial(self, state: GameState, seat: int, partial: Action | None,
                           stage: int = 0) -> NDArray[np.float32] | None:
        """The observation of ``seat`` with only the partial-action section rewritten, when
        this encoder's last vector for ``seat`` was of ``state`` at its current decision
        count (while an action is composed the state does not change, so the rest stands);
        None otherwise. For owners of a state that changes only through ``apply``, which
        counts decisions (``EnvCore``)."""
        written = self.write_partial(state, seat, partial, stage)
        return None if written is None else written.copy()

    def write_partial(self, state: GameState, seat: int, partial: Action | None,
                      stage: int = 0) -> NDArray[np.float32] | None:
        """``same_state_partial`` without the copy (see ``write``)."""
        seen = self._seen[seat]
        if seen is None or seen.state is not state or seen.decisions != state.decisions:
            return None
        buf = seen.mv
        buf[self._partial:self._p_stage + 3] = self._partial_zeros
        if partial is not None:
            ones: list[int] = []
            self._encode_partial(seat, partial, stage, buf, ones)
            for i in ones:
                buf[i] = 1.0
        return seen.buf

    # --- sections ---------------------------------------------------------------------------

    def _new_seen(self, seat: int) -> _Seen:
        if self._buffers is None:
            buf = np.zeros(self.size, dtype=np.float32)
        else:
            buf = self._buffers[seat]
            buf[:] = 0.0
        buf[: self.tiles * self.row_len] = self._static_rows.reshape(-1)
        return _Seen(buf, self.tiles, self.n)

    def _rows_of(self, seen: _Seen) -> NDArray[np.float32]:
        """The board section of ``seen``'s vector as (tiles, row length), a view."""
        return seen.buf[: self.tiles * self.row_len].reshape(self.tiles, self.row_len)

    def move(self, seat: int, buf: NDArray[np.float32]) -> None:
        """Keep ``seat``'s vector in ``buf`` from now on, copying it there: a batch of games
        keeps the vector of the seat to move in its output row (``vector.VectorGames``)."""
        seen = self._seen[seat]
        if seen is None:
            seen = self._seen[seat] = self._new_seen(seat)
        view = _view(buf)
        view[:] = seen.mv
        seen.buf = buf
        seen.mv = view

    def _encode_board(self, state: GameState, seat: int, seen: _Seen) -> None:
        board, fortified, home = state.board, state.fortified, state.home
        if home != seen.home:  # only during setup (R5.8)
            seen.home = home[:]
            n = self.n
            rows = self._rows_of(seen)
            rows[:, self._row_home:self._row_fort] = 0.0
            for i in range(n):
                tile = home[(seat + i) % n]
                if tile >= 0:
                    rows[tile, self._row_home + i] = 1.0
        # Board tuples are replaced, never changed in place: equal lists mean equal rows
        # (and comparing lists checks identity first).
        if board == seen.board and fortified == seen.fort:
            return
        flat, row_len = seen.mv, self.row_len
        seen_units, seen_fort = seen.board, seen.fort
        cache = self._row_cache
        capacity = self.world.capacity
        lo = self._row_fort
        for t, units in enumerate(board):
            fort = fortified[t]
            if units is seen_units[t] and fort == seen_fort[t]:
                continue
            seen_units[t] = units
            seen_fort[t] = fort
            room: i64 = capacity[t]
            count: i64 = len(units)
            if count <= 5 and room < 16:
                # seat, capacity, fortified, count, then up to five unit codes of 10 bits
                key: i64 = seat | room << 3 | (128 if fort else 0) | count << 8
                shift: i64 = 11
                for c in units:
                    key |= c << shift
                    shift += 10
                row = cache.get(key)
                if row is None:
                    row = _remember(cache, key,
                                    _row(self._board_row(units, fort, capacity[t], seat)))
            else:
                wide = (units, fort, capacity[t], seat)
                row = self._row_cache_wide.get(wide)
                if row is None:
                    row = _remember(self._row_cache_wide, wide,
                                    _row(self._board_row(units, fort, capacity[t], seat)))
            flat[t * row_len + lo:(t + 1) * row_len] = row

    def _board_row(self, units: tuple[UnitCode, ...], fortified: bool, capacity: int,
                   seat: int) -> NDArray[np.float32]:
        """A tile's fortified flag, units by relative owner x type x upgraded, free room."""
        row = self._blank_row.copy()
        view = _view(row)
        view[0] = 1.0 if fortified else 0.0
        slots = self._unit_slot[seat]
        for c in units:
            view[1 + slots[c]] += _UNIT_SCALE
        view[len(row) - 1] = (capacity - len(units)) * _UNIT_SCALE
        return row

    def _encode_players(self, state: GameState, seat: int, seen: _Seen) -> None:
        # Public facts only (R5.13): of the cards in hands, pools and on offer, the counts.
        # A player's numbers do not depend on the observer: one cache of rows for all.
        n = self.n
        plen = self.player_len
        cache = self._player_cache
        region = seen.mv
        base = self._players
        sigs = seen.p_sigs
        gold, eliminated = state.gold, state.eliminated
        reserve, specials = state.reserve, state.reserve_specials
        waiting, graveyard, trophies = state.specials_waiting, state.graveyard, state.trophies
        hand, pool, buyable = state.hand, state.pool, state.buyable
        for i in range(n):
            p = (seat + i) % n
            r = reserve[p]
            # Two machine words that change whenever the player's row does (exact while
            # every count fits its bits, -1 otherwise: then the row is always rewritten).
            # Compiled, no object is made unless the player changed.
            g: i64 = gold[p]
            r0: i64 = r[0]
            r1: i64 = r[1]
            r2: i64 = r[2]
            r3: i64 = r[3]
            r4: i64 = r[4]
            r5: i64 = r[5]
            e: i64 = 1 if eliminated[p] else 0
            c0: i64 = len(specials[p])
            c1: i64 = len(waiting[p])
            c2: i64 = len(graveyard[p])
            c3: i64 = len(trophies[p])
            c4: i64 = len(hand[p])
            c5: i64 = len(pool[p])
            c6: i64 = len(buyable[p])
            sig_a: i64 = -1
            sig_b: i64 = -1
            rs: i64 = r0 | r1 | r2 | r3 | r4 | r5  # negative if one is, < 64 if all are
            cs: i64 = c0 | c1 | c2 | c3 | c4 | c5 | c6
            if 0 <= g < 65536 and 0 <= rs < 64 and cs < 256:
                sig_a = (g | r0 << 16 | r1 << 22 | r2 << 28 | r3 << 34 | r4 << 40 | r5 << 46
                         | e << 52)
                sig_b = c0 | c1 << 8 | c2 << 16 | c3 << 24 | c4 << 32 | c5 << 40 | c6 << 48
                old_a: i64 = sigs[2 * i]
                old_b: i64 = sigs[2 * i + 1]
                if sig_a == old_a and sig_b == old_b:
                    continue
            sigs[2 * i] = sig_a
            sigs[2 * i + 1] = sig_b
            row = cache.get(int(sig_a) << 56 | int(sig_b)) if sig_a != -1 else None
            if row is None:
                values = (int(g), int(r0), int(r1), int(r2), int(r3), int(r4), int(r5),
                          int(c0), int(c1), int(c2), int(c3), int(c4), int(c5), int(c6),
                          bool(e))
                if sig_a != -1:
                    row = _remember(cache, int(sig_a) << 56 | int(sig_b),
                                    _row(np.array(values, dtype=np.float32)
                                         * self._player_scale))
                else:
                    row = self._player_cache_wide.get(values)
                    if row is None:
                        row = _remember(self._player_cache_wide, values,
                                        _row(np.array(values, dtype=np.float32)
                                             * self._player_scale))
            at = base + i * plen
            region[at:at + self._p_linear] = row
        home = state.home
        if (state.realm == seen.p_realm and state.setup_named == seen.p_named
                and home == seen.p_home and state.first == seen.p_first):
            return  # these change during setup only
        seen.p_realm, seen.p_named = state.realm[:], state.setup_named[:]
        seen.p_home, seen.p_first = home[:], state.first
        rows = seen.buf[base:base + n * plen].reshape(n, plen)
        same = self._pl_realm - 2
        rows[:, same:] = 0.0
        team = state.team
        for i in range(n):
            p = (seat + i) % n
            row = rows[i]
            if team[p] == team[seat]:
                row[same] = 1.0
            if home[p] >= 0:
                row[same + 1] = 1.0
            realm = state.realm[p]
            if realm >= 0:
                row[self._pl_realm + realm] = 1.0
            named = state.setup_named[p]
            if named >= 0:
                row[self._pl_named + named] = 1.0
            row[self._pl_turnpos + (p - state.first) % n] = 1.0

    def _encode_cards(self, state: GameState, seat: int, seen: _Seen) -> None:
        # The observer's own places, and its allies' hands and pools (R23.5).
        allies = state.allies(seat) if state.teams else []
        places = [state.hand[seat], state.pool[seat], state.buyable[seat], state.spent]
        for ally in allies:
            places += (state.hand[ally], state.pool[ally])
        if places == seen.cards:
            return
        seen.cards = [cards[:] for cards in places]
        buf = seen.mv
        buf[self._hand:self._ally_pool + _CARDS] = self._zeros[: self._ally_pool + _CARDS
                                                              - self._hand]
        index = _MAGIC_INDEX
        starts = [self._hand, self._pool, self._buyable, self._spent]
        starts += [self._ally_hand, self._ally_pool] * len(allies)
        for start, cards in zip(starts, places, strict=True):
            for c in cards:
                buf[start + index[c]] = 1.0

    def _encode_partial(self, seat: int, partial: Action, stage: int,
                        buf: FloatView, ones: list[int]) -> None:
        ones.append(self._partial)
        ones.append(self._p_kind + _KIND_INDEX[partial.kind])
        if partial.tile >= 0:
            ones.append(self._p_tile + partial.tile)
        if partial.tile2 >= 0:
            ones.append(self._p_tile2 + partial.tile2)
        name = partial.name
        if name in _MAGIC_INDEX:
            ones.append(self._p_card + _MAGIC_INDEX[name])
        elif name in _REALM_INDEX:
            ones.append(self._p_realm + _REALM_INDEX[name])
        if 0 <= partial.number < self.n:
            ones.append(self._p_number + (partial.number - seat) % self.n)
        slots = self._unit_slot[seat]
        specials = self.n * _SLOTS
        for start, units in ((self._p_units, partial.units), (self._p_units2, partial.units2)):
            for c in units:
                buf[start + slots[c]] += _UNIT_SCALE
                if (c >> 1) & 7 == SPECIAL:
                    buf[start + specials + ((c >> 4) & 7)] += _UNIT_SCALE
        buf[self._p_amount] = partial.amount * _GOLD_SCALE
        if 0 <= stage < 3:
            ones.append(self._p_stage + stage)

    def _encode_battle(self, state: GameState, seat: int, buf: FloatView,
                       ones: list[int]) -> None:
        battle = state.battle
        assert battle is not None
        n = self.n
        team = state.team
        my_team = team[seat]
        attacker, defender = battle.attacker, battle.defender
        flags = self._b_flags
        ones.append(flags)
        if team[attacker] == my_team:
            ones.append(flags + 1)
        if team[defender] == my_team:
            ones.append(flags + 2)
        if battle.ranged:
            ones.append(flags + 3)
        if battle.sneak:
            ones.append(flags + 4)
        ones.append(self._b_attacker + (attacker - seat) % n)
        ones.append(self._b_defender + (defender - seat) % n)
        ones.append(self._b_a_tile + battle.a_tile)
        ones.append(self._b_d_tile + battle.d_tile)
        ones.append(self._b_step + _STEP_INDEX[battle.step])
        # Exactly as observe(): a card shows once both sides declared, when it is the
        # observer's team's, or when it is a volley (revealed with the attack, R16.9);
        # otherwise it is only "committed" (R16.5). Its holder is never read.
        revealed = battle.step != BattleStep.DECLARE or not battle.magic_queue
        for k, side in enumerate((attacker, defender)):
            card = battle.cards.get(side)
            if card is None:
                continue
            start = self._b_cards + k * (_CARDS + 1)
            volley = battle.ranged and side == attacker
            if revealed or volley or team[side] == my_team:
                ones.append(start + _MAGIC_INDEX[card])
            else:
                ones.append(start + _CARDS)
        sizes = len(_DIE_SIZES)
        for k, (dice, rolls) in enumerate(((battle.attack_dice, battle.attack_rolls),
                                           (battle.defence_dice, battle.defence_rolls))):
            if not dice:
                continue
            start = self._b_dice + k * self._dice_len
            counts = [0.0] * sizes
            for size in dice:
                counts[_DIE_INDEX.get(size, sizes - 1)] += _UNIT_SCALE
            for i, value in enumerate(counts):
                buf[start + i] = value
            if rolls:
                top = sorted(rolls, reverse=True)[:_ROLLS_SHOWN]
                at = start + sizes
                for i, r in enumerate(top):
                    buf[at + i] = r * _ROLL_SCALE
        for p, hits in battle.hits.items():
            buf[self._b_hits + (p - seat) % n] = hits * _UNIT_SCALE
        if battle.invade_left:
            buf[self._b_invade] = battle.invade_left * _UNIT_SCALE
        slots = self._unit_slot[seat]
        for c in battle.staying:
            buf[self._b_staying + slots[c]] += _UNIT_SCALE
        for c, _, _ in battle.set_aside:
            buf[self._b_aside + slots[c]] += _UNIT_SCALE
        if battle.choosing:
            ones.append(self._b_choosing + _MAGIC_INDEX[battle.choosing])

    def _global_row(self, values: tuple[object, ...]) -> FloatView:
        # scaled in double and rounded once to float32, as a single write would
        return _row((np.array(values, dtype=np.float64) * self._global_scale)
                    .astype(np.float32))

    def _encode_global(self, state: GameState, seat: int, seen: _Seen, buf: FloatView,
                       ones: list[int]) -> None:
        event = state.event
        must_lose = False
        if event is not None:
            ones.append(self._g_event + _EVENT_INDEX[event.card])
            ones += [self._g_marked + (p - seat) % self.n for p in event.marked]
            must_lose = event.must_lose
        if state.last_event is not None:
            ones.append(self._g_last + _DRAWN_INDEX[state.last_event])
        # The scalars stay in the seat's buffer (the dense zeroing skips them) and are
        # rewritten when their signature changes; the key is made only then.
        gilded = state.gilded_slot
        deck: i64 = len(state.deck)
        discard: i64 = len(state.discard)
        turn: i64 = state.turn
        flags: i64 = ((1 if state.final_slot >= 0 else 0) | (2 if state.oracles else 0)
                      | (4 if state.scales else 0) | (8 if gilded >= 0 else 0)
                      | (16 if 0 <= gilded < state.slot else 0)  # ops.gold_frozen, R9.4
                      | (32 if state.six_gates else 0) | (64 if state.result is not None else 0)
                      | (128 if must_lose else 0) | (256 if state.purchase_empty >= 0 else 0))
        sig: i64 = -1
        if 0 <= deck < 4096 and 0 <= discard < 4096 and 0 <= turn < 1 << 20:
            sig = flags | deck << 9 | discard << 21 | turn << 33
        if sig == -1 or sig != seen.g_sig:
            seen.g_sig = sig
            row = self._global_cache.get(sig) if sig != -1 else None
            if row is None:
                values = (int(deck), int(discard), bool(flags & 1), bool(flags & 2),
                          bool(flags & 4), bool(flags & 8), bool(flags & 16), bool(flags & 32),
                          int(turn), bool(flags & 64), bool(flags & 128), bool(flags & 256))
                if sig != -1:
                    row = _remember(self._global_cache, sig, self._global_row(values))
                else:
                    row = self._global_cache_wide.get(values)
                    if row is None:
                        row = _remember(self._global_cache_wide, values,
                                        self._global_row(values))
            buf[self._g_scalars:self._g_scalars + self._g_count] = row
        ones += [self._g_spawn + t for t in state.spawn_left]


class _Seen:
    """One observer's buffer and what its persistent sections were computed from."""

    __slots__ = ("buf", "mv", "board", "fort", "home", "p_sigs", "g_sig",
                 "p_realm", "p_named", "p_home", "p_first", "cards", "state", "decisions")

    def __init__(self, buf: NDArray[np.float32], tiles: int, n: int) -> None:
        self.buf = buf  # the vector (a row of the encoder's ``buffers`` or a moved-to row)
        self.mv = _view(buf)  # item and slice writes through it cost a third of numpy's
        self.board: list[tuple[UnitCode, ...] | None] = [None] * tiles
        self.fort: list[bool] = [False] * tiles
        self.home: list[int] | None = None
        self.p_sigs: list[i64] = [-2] * (2 * n)  # per player, _encode_players' signature
        self.g_sig: i64 = -2  # the global scalars' signature (_encode_global)
        self.p_realm: list[int] | None = None
        self.p_named: list[int] | None = None
        self.p_home: list[int] | None = None
        self.p_first = -1
        self.cards: list[list[str]] | None = None
        # The state of the last vector and its decision count (``same_state_partial``).
        self.state: GameState | None = None
        self.decisions = -1
