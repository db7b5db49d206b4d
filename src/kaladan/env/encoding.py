"""A fixed action space for one configuration: every legal action as a short token sequence.

A flat index per action would need one slot for every sub-multiset of units that a move,
a swap, a relocation or a deployment can name, and for every amount of gold a gift can
give: hundreds of thousands of slots, most of them never legal. Instead an action is
*composed* in ``Discrete(size)`` steps, as a player would say it:

* one **head** token names the action without its unit lists and numbers
  (``pass``, ``attack T4 T5``, ``buy sword T3``, ``move T1 T2``, ``gift 2``);
* compound actions then name their **units** one at a time in the action's canonical
  order, each list closed by ``DONE`` (``move T1 T2`` + ``archer`` + ``sword`` + ``DONE``);
  a swap and a harmony name two lists, a kill names exactly one unit (no ``DONE``);
* a **number** (a gift's gold, a seat's share of a split's hits) is ``+10`` tokens and
  one final digit (23 = ``+10 +10 3``); a split names each ``SEAT`` before its share.

Every legal action has exactly one sequence, no sequence is a prefix of another's, and
the sequences' tokens depend on the state only through the observer's seat (owners are
relative to it), so ``decode(tokens(a)) == a``. Token sizes per configuration are in
``layout``; docs/env.md lists them for every player count and mode.

``Choice`` holds one pending decision's legal actions grouped by head: it reads the legal
list part by part as ``rules/offer.grouped`` does, and a block of moves or swaps is one head
known from its ``shape()`` (the pair of tiles), never built for the mask, so a mask costs
about what ``legal_actions`` costs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, SupportsIndex

import numpy as np
from numpy.typing import NDArray

from ..rules import actions as A
from ..rules.actionlist import ActionList
from ..rules.actions import Action, Kind
from ..rules.catalog import MAGIC_CARD_BY_ID
from ..rules.config import Config
from ..rules.errors import InvalidActionError
from ..rules.native import mypyc_attr
from ..rules.state import GameState
from ..rules.units import (
    OWNER_SHIFT,
    REALMS,
    SPECIAL,
    Seat,
    UnitCode,
    code,
    owner_of,
    realm_of,
    type_of,
)
from ..rules.world import World

CARDS: tuple[str, ...] = tuple(sorted(MAGIC_CARD_BY_ID))
_CARD_INDEX = {c: i for i, c in enumerate(CARDS)}
KINDS_PER_OWNER = 24  # 6 unit types x plain/upgraded, then a special unit per realm x 2


def unit_kind(c: UnitCode) -> int:
    """0..23: type and upgrade of a unit; a special unit by its realm (owner left out)."""
    t = type_of(c)
    if t == SPECIAL:
        return 12 + realm_of(c) * 2 + (c & 1)
    return t * 2 + (c & 1)


def kind_unit(kind: int, owner: Seat) -> UnitCode:
    """The unit of ``owner`` of kind ``kind`` (inverse of ``unit_kind``)."""
    if kind >= 12:
        return code(owner, (kind - 12) // 2, SPECIAL, bool(kind & 1))
    return code(owner, 0, kind // 2, bool(kind & 1))


# How a head is computed from an action (``ActionEncoder.head``).
_BARE, _TILE, _UNIT_TILE, _NEIGHBOUR, _CARD, _PAIR = range(6)
_HEAD_SHAPE = {
    A.PASS: _BARE, A.GOLD: _BARE, A.NOMAGIC: _BARE, A.END: _BARE, A.SAVE: _BARE,
    A.SPLIT: _BARE, A.CASTLE: _TILE, A.FORTIFY: _TILE, A.EVADE: _TILE, A.DEPLOY: _TILE,
    A.KILL: _TILE, A.PLACE: _UNIT_TILE, A.UPGRADE: _UNIT_TILE, A.LOSE: _UNIT_TILE,
    A.SPAWN: _UNIT_TILE, A.BUY: _UNIT_TILE, A.ATTACK: _NEIGHBOUR, A.MOVE: _NEIGHBOUR,
    A.SWAP: _NEIGHBOUR, A.HARMONY: _NEIGHBOUR, A.CARD: _CARD, A.MAGIC: _CARD,
    A.BUYCARD: _CARD, A.VOLLEY: _PAIR, A.RELOCATE: _PAIR,
}

# Kinds whose head is followed by more tokens, and what follows: "us" a unit list closed by
# DONE, "u" exactly one unit, "num" a number, "split" SEAT + number per share.
COMPOUND: dict[Kind, tuple[str, ...]] = {
    A.MOVE: ("us",), A.RELOCATE: ("us",), A.DEPLOY: ("us",), A.SAVE: ("us",),
    A.SWAP: ("us", "us2"), A.HARMONY: ("us", "us2"), A.KILL: ("u",), A.GIFT: ("num",),
    A.SPLIT: ("split",),
}


@dataclass(frozen=True, slots=True)
class Segment:
    """One range of the action space: ``count`` indices from ``start`` for ``name``."""

    name: str
    start: int
    count: int
    meaning: str


class ActionEncoder:
    """The action space of one configuration (player count, mode, world)."""

    def __init__(self, config: Config, world: World) -> None:
        self.config = config
        self.world = world
        self.n = n = config.players
        self.tiles = tiles = len(world.names)
        self.neighbours = world.neighbours
        self._slot = [{d: i for i, d in enumerate(ns)} for ns in world.neighbours]
        cards = len(CARDS)
        k = KINDS_PER_OWNER
        u = n * k
        self.layout: list[Segment] = []
        spec = [
            (A.REALM, len(REALMS), "realm r (R5.5)"),
            (A.CARD, cards, "starting card c (R5.7)"),
            (A.CASTLE, tiles, "castle spot t (R5.8)"),
            (A.START, k, "starting unit of kind k (R5.9)"),
            (A.GOLD, 1, "take the gold instead (section 7)"),
            (A.PLACE, k * tiles, "place own unit kind k on t: k*T + t"),
            (A.UPGRADE, k * tiles, "upgrade own unit kind k on t"),
            (A.LOSE, k * tiles, "lose own unit kind k on t"),
            (A.RETURN, k * n, "return own unit kind k from relative seat s's graveyard: k*n+s"),
            (A.SPAWN, k * tiles, "spawn own unit kind k on castle t"),
            (A.ATTACK, tiles * 6, "attack from t to its i-th neighbour: t*6 + i"),
            (A.PASS, 1, "pass"),
            (A.MAGIC, cards, "play magic card c"),
            (A.NOMAGIC, 1, "no magic card"),
            (A.CASUALTY, u, "casualty: unit kind k of relative owner o: o*24 + k"),
            (A.LEAVE, u, "leave behind: unit kind k of relative owner o"),
            (A.BUY, k * tiles, "buy own unit kind k onto t"),
            (A.FORTIFY, tiles, "fortify castle t"),
            (A.SWAPCARD, cards * (cards + 1), "give c, take c2 (c2 = 30: a random one)"),
            (A.EXTRACARD, cards + 1, "take c (30: a random one)"),
            (A.BUYCARD, cards, "buy an eliminated player's card c"),
            (A.END, 1, "end the phase"),
            (A.VOLLEY, tiles * tiles, "volley from t to t2: t*T + t2"),
            (A.EVADE, tiles, "evade to t"),
            (A.MOVE, tiles * 6, "head: move from t to its i-th neighbour, then units"),
            (A.SWAP, tiles * 6, "head: swap t with its i-th neighbour, then two unit lists"),
            (A.RELOCATE, tiles * tiles, "head: relocate from t to t2, then units"),
            (A.DEPLOY, tiles, "head: deploy on t, then units"),
            (A.SAVE, 1, "head: save, then units"),
            (A.HARMONY, tiles * 6, "head: harmony between t and its i-th neighbour, then two "
                                   "unit lists (either may be empty)"),
            (A.KILL, tiles, "head: kill on t, then one unit"),
            (A.GIFT, n, "head: gift to relative seat s, then a number"),
            (A.SPLIT, 1, "head: split, then per share a seat and a number"),
            ("unit", u, "a unit of kind k of relative owner o: o*24 + k"),
            ("done", 1, "closes a unit list"),
            ("seat", n, "relative seat s (a split's share)"),
            ("plus10", 1, "adds 10 to the number"),
            ("digit", 10, "adds d and closes the number"),
        ]
        start = 0
        self.base: dict[str, int] = {}
        for name, count, meaning in spec:
            self.layout.append(Segment(name, start, count, meaning))
            self.base[name] = start
            start += count
        self.size = start
        self.unit_base = self.base["unit"]
        self.done = self.base["done"]
        self.seat_base = self.base["seat"]
        self.plus10 = self.base["plus10"]
        self.digit_base = self.base["digit"]
        head_segments = self.layout[: self.layout.index(self._segment("unit"))]
        self._kind_code = {Kind(seg.name): seg.start << 4 | _HEAD_SHAPE.get(Kind(seg.name), 15)
                           for seg in head_segments}
        # The compound kinds' heads come last among the heads: a head token at or past this
        # one starts a compound action.
        self.compound_base = min(self.base[k] for k in COMPOUND)
        if any((seg.start >= self.compound_base) != (Kind(seg.name) in COMPOUND)
               for seg in head_segments):
            raise AssertionError("the compound heads must come last among the heads")
        self._heads: list[tuple[Kind, int]] = []  # index -> (kind, offset) for heads
        for seg in head_segments:
            self._heads += [(Kind(seg.name), i) for i in range(seg.count)]
        self.head_count = len(self._heads)

    def _segment(self, name: str) -> Segment:
        return next(s for s in self.layout if s.name == name)

    # --- relative seats ------------------------------------------------------------------

    def _rel(self, seat: Seat, observer: Seat) -> int:
        return (seat - observer) % self.n

    def _abs(self, rel: int, observer: Seat) -> Seat:
        return (rel + observer) % self.n

    def unit_token(self, c: UnitCode, observer: Seat) -> int:
        return self.unit_base + self._rel(owner_of(c), observer) * KINDS_PER_OWNER + unit_kind(c)

    def token_unit(self, token: int, observer: Seat) -> UnitCode:
        rel, kind = divmod(token - self.unit_base, KINDS_PER_OWNER)
        return kind_unit(kind, self._abs(rel, observer))

    # --- heads ---------------------------------------------------------------------------

    def _own_kind(self, action: Action, observer: Seat) -> int:
        c = action.units[0]
        if owner_of(c) != observer:
            raise InvalidActionError(f"{action.kind}: unit of seat {owner_of(c)}, expected "
                                     f"the deciding seat {observer}")
        return unit_kind(c)

    def head(self, action: Action, observer: Seat) -> int:
        """The head token of ``action`` for the deciding seat ``observer``."""
        kind = action.kind
        code = self._kind_code[kind]  # one lookup: base << 4 | shape
        base = code >> 4
        shape = code & 15
        if shape == _UNIT_TILE:  # the most frequent: buys and upgrades
            c = action.units[0]
            if c >> OWNER_SHIFT != observer:
                self._own_kind(action, observer)
            return base + unit_kind(c) * self.tiles + action.tile
        if shape == _BARE:
            return base
        if shape == _TILE:
            return base + action.tile
        if shape == _NEIGHBOUR:
            return base + action.tile * 6 + self._slot[action.tile][action.tile2]
        if shape == _CARD:
            return base + _CARD_INDEX[action.name]
        if shape == _PAIR:
            return base + action.tile * self.tiles + action.tile2
        if kind == A.SWAPCARD:
            take = _CARD_INDEX[action.name2] if action.name2 else len(CARDS)
            return base + _CARD_INDEX[action.name] * (len(CARDS) + 1) + take
        if kind == A.EXTRACARD:
            return base + (_CARD_INDEX[action.name] if action.name else len(CARDS))
        if kind in (A.CASUALTY, A.LEAVE):
            return base + self.unit_token(action.units[0], observer) - self.unit_base
        if kind == A.GIFT:
            return base + self._rel(action.number, observer)
        if kind == A.REALM:
            return base + REALMS.index(action.name)
        if kind == A.START:
            return base + self._own_kind(action, observer)
        if kind == A.RETURN:
            return base + self._own_kind(action, observer) * self.n + self._rel(
                action.number, observer)
        raise InvalidActionError(f"no encoding for action kind {kind!r}")

    def head_action(self, index: int, observer: Seat) -> Action:
        """The action a head token names, unit lists and numbers left empty."""
        if not 0 <= index < self.head_count:
            raise InvalidActionError(f"token {index} is not a head (0..{self.head_count - 1})")
        kind, i = self._heads[index]
        tiles = self.tiles
        if kind in (A.PASS, A.GOLD, A.NOMAGIC, A.END, A.SAVE, A.SPLIT):
            return Action(kind)
        if kind == A.REALM:
            return Action(kind, name=REALMS[i])
        if kind in (A.CARD, A.MAGIC, A.BUYCARD):
            return Action(kind, name=CARDS[i])
        if kind in (A.CASTLE, A.FORTIFY, A.EVADE, A.DEPLOY, A.KILL):
            return Action(kind, tile=i)
        if kind == A.START:
            return Action(kind, units=(kind_unit(i, observer),))
        if kind in (A.PLACE, A.UPGRADE, A.LOSE, A.SPAWN, A.BUY):
            k, t = divmod(i, tiles)
            return Action(kind, tile=t, units=(kind_unit(k, observer),))
        if kind == A.RETURN:
            k, s = divmod(i, self.n)
            return Action(kind, units=(kind_unit(k, observer),), number=self._abs(s, observer))
        if kind in (A.ATTACK, A.MOVE, A.SWAP, A.HARMONY):
            t, slot = divmod(i, 6)
            if slot >= len(self.neighbours[t]):
                raise InvalidActionError(f"token {index}: tile {t} has no neighbour {slot}")
            return Action(kind, tile=t, tile2=self.neighbours[t][slot])
        if kind in (A.VOLLEY, A.RELOCATE):
            t, t2 = divmod(i, tiles)
            return Action(kind, tile=t, tile2=t2)
        if kind in (A.CASUALTY, A.LEAVE):
            return Action(kind, units=(self.token_unit(self.unit_base + i, observer),))
        if kind == A.SWAPCARD:
            give, take = divmod(i, len(CARDS) + 1)
            return Action(kind, name=CARDS[give], name2=CARDS[take] if take < len(CARDS) else "")
        if kind == A.EXTRACARD:
            return Action(kind, name=CARDS[i] if i < len(CARDS) else "")
        assert kind == A.GIFT
        return Action(kind, number=self._abs(i, observer))

    # --- whole sequences -----------------------------------------------------------------

    def _number(self, value: int) -> list[int]:
        tens, ones = divmod(value, 10)
        return [self.plus10] * tens + [self.digit_base + ones]

    def tokens(self, action: Action, observer: Seat,
               spell: dict[UnitCode, int] | None = None) -> list[int]:
        """The token sequence of ``action`` for the deciding seat ``observer``. ``spell``,
        when given, remembers unit tokens across calls (the actions of one head share a few
        distinct units)."""
        return self.tail(action, observer, [self.head(action, observer)], spell)

    def tail(self, action: Action, observer: Seat, out: list[int],
             spell: dict[UnitCode, int] | None = None) -> list[int]:
        """``out`` extended by the tokens of ``action`` after its head."""
        kind = action.kind
        if kind not in COMPOUND:
            return out
        if kind == A.KILL:
            out.append(self.unit_token(action.units[0], observer))
        elif kind == A.GIFT:
            out += self._number(action.amount)
        elif kind == A.SPLIT:
            for seat, hits in action.shares:
                out.append(self.seat_base + self._rel(seat, observer))
                out += self._number(hits)
        else:
            if spell is None:
                spell = {}
            for units in ((action.units, action.units2) if kind in (A.SWAP, A.HARMONY)
                          else (action.units,)):
                for c in units:
                    token = spell.get(c)
                    if token is None:
                        token = spell[c] = self.unit_token(c, observer)
                    out.append(token)
                out.append(self.done)
        return out

    def decode(self, tokens: Sequence[SupportsIndex], observer: Seat) -> Action:
        """The action of a complete token sequence (``tokens`` inverted; NumPy integers
        too); raises InvalidActionError for a sequence that names no action."""
        if not tokens:
            raise InvalidActionError("empty token sequence")
        head = self.head_action(int(tokens[0]), observer)
        rest = [int(t) for t in tokens[1:]]
        kind = head.kind
        if kind not in COMPOUND:
            if rest:
                raise InvalidActionError(f"{kind} takes no tokens after its head")
            return head
        if kind == A.KILL:
            if len(rest) != 1 or not self._is_unit(rest[0]):
                raise InvalidActionError("kill: expected exactly one unit after the head")
            return head.replace(units=(self.token_unit(rest[0], observer),))
        if kind == A.GIFT:
            amount = self._take_number(rest)
            if rest or amount < 1:
                raise InvalidActionError("gift: expected one positive number")
            return head.replace(amount=amount)
        if kind == A.SPLIT:
            shares = []
            while rest:
                seat_token = rest.pop(0)
                if not self.seat_base <= seat_token < self.seat_base + self.n:
                    raise InvalidActionError("split: expected a seat")
                shares.append((self._abs(seat_token - self.seat_base, observer),
                               self._take_number(rest)))
            return head.replace(shares=tuple(shares))
        units = self._take_units(rest, observer)
        if kind in (A.SWAP, A.HARMONY):
            units2 = self._take_units(rest, observer)
            if rest:
                raise InvalidActionError(f"{kind}: tokens after the second list")
            return A.canonical(head.replace(units=units, units2=units2))
        if rest:
            raise InvalidActionError(f"{kind}: tokens after the unit list")
        return head.replace(units=units)

    def _is_unit(self, token: int) -> bool:
        return self.unit_base <= token < self.done

    def _take_units(self, rest: list[int], observer: Seat) -> tuple[UnitCode, ...]:
        units = []
        while rest and self._is_unit(rest[0]):
            units.append(self.token_unit(rest.pop(0), observer))
        if not rest or rest.pop(0) != self.done:
            raise InvalidActionError("a unit list must end with DONE")
        return tuple(units)

    def _take_number(self, rest: list[int]) -> int:
        value = 0
        while rest and rest[0] == self.plus10:
            rest.pop(0)
            value += 10
        if not rest or not self.digit_base <= rest[0] < self.digit_base + 10:
            raise InvalidActionError("a number must end with a digit")
        return value + rest.pop(0) - self.digit_base

    def describe(self, index: int) -> str:
        """What token ``index`` means (for error messages and docs)."""
        for seg in self.layout:
            if seg.start <= index < seg.start + seg.count:
                return f"{seg.name} +{index - seg.start}"
        return f"out of range 0..{self.size - 1}"


@mypyc_attr(acyclic=True)  # made at every decision; holds nothing that holds it
class Choice:
    """One pending decision seen through the encoder: its heads, then, once a compound head
    is chosen, the candidates that remain after each further token."""

    __slots__ = ("encoder", "state", "seat", "legal", "heads", "_listed", "_blocks", "prefix",
                 "candidates", "_head")

    def __init__(self, encoder: ActionEncoder, state: GameState,
                 legal: Sequence[Action]) -> None:
        self.encoder = encoder
        self.state = state
        self.seat = state.pending.seat
        self.legal = legal
        # head token -> the action (atomic heads), or None for a compound head, whose
        # actions are the listed ones under ``_listed`` and the blocks (start, stop) of the
        # legal list under ``_blocks``. The legal list is walked part by part, as
        # ``offer.grouped`` reads it, without making a Group per action: this runs at every
        # decision of every research environment.
        self.heads: dict[int, Action | None] = {}
        self._listed: dict[int, list[Action]] | None = None  # made when first needed
        self._blocks: dict[int, list[tuple[int, int]]] | None = None
        if isinstance(legal, ActionList):
            starts, parts, size = legal.starts, legal.parts, legal.size
            last = len(parts) - 1
            for i in range(len(parts)):
                part = parts[i]
                if isinstance(part, list):
                    self._add_all(part)
                    continue
                shape = part.shape()
                if shape is None:
                    self._add_all(legal.part(i))
                    continue
                # a block of moves or swaps: one head for the pair of tiles
                src, dst = shape[1], shape[2]
                h = (encoder.base[shape[0]] + src * 6 + encoder._slot[src][dst])
                self.heads[h] = None
                span = (starts[i], starts[i + 1] if i < last else size)
                if self._blocks is None:
                    self._blocks = {}
                spans = self._blocks.get(h)
                if spans is None:
                    self._blocks[h] = [span]
                else:
                    spans.append(span)
        else:
            self._add_all(legal)
        self.prefix: list[int] = []
        self.candidates: list[tuple[list[int], Action]] = []
        self._head: Action | None = None  # the compound head chosen, once chosen

    def _add_all(self, actions: Iterable[Action]) -> None:
        encoder, seat, heads = self.encoder, self.seat, self.heads
        compound = encoder.compound_base
        for action in actions:
            h = encoder.head(action, seat)
            if h >= compound:
                heads[h] = None
                listed = self._listed
                if listed is None:
                    listed = self._listed = {}
                same = listed.get(h)
                if same is None:
                    listed[h] = [action]
                else:
                    same.append(action)
            else:
                heads[h] = action

    def mask(self, dtype: type[np.generic] = np.int8) -> NDArray[Any]:
        """The legal tokens as a fresh 0/1 vector of the action space's size."""
        ones = bytearray(self.encoder.size)  # a byte per token: no index array to convert
        # Typed as a protocol, not int: the compiled form hands each key on as it is
        # instead of unboxing it and boxing it again for the store.
        token: SupportsIndex
        tokens: Iterable[SupportsIndex] = self.legal_tokens() if self.prefix else self.heads
        for token in tokens:
            ones[token] = 1
        if dtype is np.int8 or dtype is np.bool_:
            return np.frombuffer(ones, dtype=dtype)
        return np.frombuffer(ones, dtype=np.int8).astype(dtype)

    def legal_tokens(self) -> list[int]:
        """The tokens the deciding seat may give next."""
        if not self.prefix:
            return list(self.heads)
        depth = len(self.prefix)
        return sorted({seq[depth] for seq, _ in self.candidates})

    def push(self, token: int) -> Action | None:
        """Take one token; the chosen action once it is complete, else None.

        Raises InvalidActionError (nothing changes) for a token that is not legal now."""
        if not self.prefix:
            if token not in self.heads:
                raise InvalidActionError(
                    f"token {token} ({self.encoder.describe(token)}) is not a legal head now")
            action = self.heads[token]
            if action is not None:  # atomic
                return action
            self.prefix = [token]
            self._head = self.encoder.head_action(token, self.seat)
            spell: dict[UnitCode, int] = {}
            encoder, seat = self.encoder, self.seat
            self.candidates = [(encoder.tail(a, seat, [token], spell), a)
                               for a in self._group_actions(token)]
            return None
        depth = len(self.prefix)
        remaining = [(seq, a) for seq, a in self.candidates if seq[depth] == token]
        if not remaining:
            raise InvalidActionError(
                f"token {token} ({self.encoder.describe(token)}) cannot follow "
                f"{self.prefix} now")
        self.prefix.append(token)
        self.candidates = remaining
        for seq, a in remaining:
            if len(seq) == depth + 1:
                return a
        return None

    def _group_actions(self, head: int) -> list[Action]:
        out = list(self._listed.get(head, ())) if self._listed is not None else []
        legal = self.legal
        for start, stop in self._blocks.get(head, ()) if self._blocks is not None else ():
            if isinstance(legal, ActionList):
                out += legal.between(start, stop)
            else:
                out += legal[start:stop]
        return out

    def partial(self) -> tuple[Action | None, int]:
        """The compound action composed so far and its stage (0: first unit list, 1: second,
        2: a number), for the observation."""
        if not self.prefix:
            return None, 0
        enc = self.encoder
        head = self._head
        assert head is not None
        rest = self.prefix[1:]
        kind = head.kind
        if kind in (A.GIFT, A.SPLIT):
            value = sum(10 if t == enc.plus10 else 0 for t in rest)
            return head.replace(amount=value), 2
        first: list[UnitCode] = []
        second: list[UnitCode] = []
        stage = 0
        for t in rest:
            if t == enc.done:
                stage = 1
            elif stage == 0:
                first.append(enc.token_unit(t, self.seat))
            else:
                second.append(enc.token_unit(t, self.seat))
        return head.replace(units=tuple(first), units2=tuple(second)), stage
