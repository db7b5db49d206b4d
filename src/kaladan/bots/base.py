"""The Bot protocol and the seat view a bot decides from."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from ..rules import magic
from ..rules.actions import Action
from ..rules.chance import Chance
from ..rules.config import Config
from ..rules.kinds import format_action
from ..rules.observe import Observation, observe
from ..rules.state import Battle, GameState
from ..rules.units import CROWN, REALM_INDEX, Seat, owner_of, type_of
from ..rules.world import World


class SeatView:
    """What one seat may see: its observation (R5.13) and helpers to name actions.

    The true state stays private; bots must decide from ``observation`` only.
    """

    __slots__ = ("seat", "_state", "_observation")

    def __init__(self, state: GameState, seat: int) -> None:
        self.seat = seat
        self._state = state
        self._observation: Observation | None = None

    @property
    def observation(self) -> Observation:
        """The seat's observation, built when first asked for (most bots never ask)."""
        if self._observation is None:
            self._observation = observe(self._state, self.seat)
        return self._observation

    def determinize(self, rng: random.Random) -> GameState:
        """A complete state consistent with this seat's observation, for search (MCTS).

        Everything the observation does not show is drawn at random, from the observation
        alone (R5.13): the cards in the opponents' hands and realm pools and the cards other
        players may buy (counts kept, R18.6), an opponent's card selected face down (R16.5),
        the order of the event deck (the end-game card stays among the bottom nine, R5.10,
        and under ``end_game_card=random`` which of the four it is) and every future die.
        The seat's own and its allies' cards are known (R23.5), and so is a revealed battle
        card still in its holder's hand. ``observe(result, seat)`` equals this observation.
        """
        state = self._state.copy()
        state.chance = Chance(rng.getrandbits(63))
        _redraw_cards(state, self.observation, rng)
        _redraw_deck(state, rng)
        state.invalidate()
        return state

    @property
    def board(self) -> Sequence[Sequence[int]]:
        """The units on each tile as unit codes (public, R5.13): the same facts as the
        observation's ``board``, without building text, for bots that decide often."""
        return self._state.board

    @property
    def fortified(self) -> Sequence[bool]:
        """Whether each tile is fortified (public)."""
        return self._state.fortified

    @property
    def team(self) -> Sequence[int]:
        """The team of each seat (public: the seat itself in free-for-all, R23.1)."""
        return self._state.team

    @property
    def scales(self) -> bool:
        """Whether Scales of Equality is in force (public)."""
        return self._state.scales

    @property
    def world(self) -> World:
        """The map (public: R5.13)."""
        return self._state.world

    @property
    def config(self) -> Config:
        """The game's configuration and ruleset options (public)."""
        return self._state.config

    def format(self, action: Action) -> str:
        return format_action(action, self._state)


class Bot(Protocol):
    name: str

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        """Pick one of ``legal`` (never empty)."""
        ...


_STEP_B = ("W1", "W2")  # the windows of a card selected at step B (R16.6)


def _redraw_cards(state: GameState, seen: Observation, rng: random.Random) -> None:
    """Deal every card in a place ``seen`` does not show anew, in place (see ``_Deal``)."""
    deal = _Deal(state, seen)
    battle = state.battle
    for leader in deal.secret:  # R16.5, R23.23: which card, and which player holds it
        assert battle is not None
        holder, card = deal.draw_selected(state, battle, leader, rng)
        battle.cards[leader] = card
        battle.holders[leader] = holder
    deal.deal_rest(rng)
    for p in range(state.n):
        if deal.hand_hidden[p]:
            state.hand[p] = sorted(deal.hands[p])
        if deal.pool_hidden[p]:
            state.pool[p] = sorted(deal.pools[p])
        if deal.buy_hidden[p]:
            state.buyable[p] = sorted(deal.buys[p])


class _Deal:
    """The cards in places a seat does not see, and where each of them may be.

    Where a card may be follows from public facts: a card of a player still in the game is
    in that player's hand or realm pool (a realm pool holds only its own realm's cards,
    R11.12); a card of an eliminated player went to the player who eliminated it (R18.6) and
    may have been bought or passed on by a later elimination, so it is in the hand or among
    the cards to buy of one of that chain of killers (the Crowns among the trophies, R18.5).
    The cards are sorted before they are shuffled, so a deal depends on what the seat sees
    only, not on where the hidden cards really are.
    """

    def __init__(self, state: GameState, seen: Observation) -> None:
        n = state.n
        players = seen["players"]
        self.hand_hidden = ["hand" not in players[p] for p in range(n)]
        self.pool_hidden = ["pool" not in players[p] for p in range(n)]
        self.buy_hidden = ["buyable" not in players[p] for p in range(n)]
        # The new contents of the hidden places; a hand starts with its cards the seat knows.
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.pools: list[list[str]] = [[] for _ in range(n)]
        self.buys: list[list[str]] = [[] for _ in range(n)]
        self.secret: list[Seat] = []  # side leaders whose selected card the seat has not seen
        battle = state.battle
        seen_battle = seen["battle"]
        if battle is not None and seen_battle is not None:
            shown = seen_battle["cards"]
            for leader, card in battle.cards.items():
                holder = battle.holders.get(leader, leader)
                if not self.hand_hidden[holder] or card not in state.hand[holder]:
                    continue  # the own team's (R23.5), or spent
                if shown[str(leader)] == "committed":  # R16.5
                    self.secret.append(leader)
                else:  # revealed, or a volley (R16.9): it stays in its holder's hand
                    self.hands[holder].append(card)
        cards: list[str] = []
        for p in range(n):
            if self.hand_hidden[p]:
                rest = state.hand[p][:]
                for card in self.hands[p]:
                    rest.remove(card)
                cards += rest
            if self.pool_hidden[p]:
                cards += state.pool[p]
            if self.buy_hidden[p]:
                cards += state.buyable[p]
        cards.sort()
        # How many cards each hidden place still takes.
        self.hand_room = [len(state.hand[p]) - len(self.hands[p]) if self.hand_hidden[p] else 0
                          for p in range(n)]
        self.pool_room = [len(state.pool[p]) if self.pool_hidden[p] else 0 for p in range(n)]
        self.buy_room = [len(state.buyable[p]) if self.buy_hidden[p] else 0 for p in range(n)]
        self.owner = {c: state.seat_of_realm[REALM_INDEX[magic.card_realm(c)]] for c in cards}
        self.alive = [not e for e in state.eliminated]
        killer = [-1] * n
        for p in range(n):
            for c in state.trophies[p]:
                victim = owner_of(c)
                if type_of(c) == CROWN and not self.alive[victim] and victim != p:
                    killer[victim] = p
        self.takers = [_chain(killer, p) for p in range(n)]
        self.own: list[list[str]] = [[] for _ in range(n)]  # cards of players in the game
        self.foreign: list[str] = []  # cards of eliminated players
        for card in cards:
            o = self.owner[card]
            if o >= 0 and self.alive[o]:
                self.own[o].append(card)
            else:
                self.foreign.append(card)

    def may_hold(self, p: Seat, card: str) -> bool:
        """May ``card`` be in ``p``'s hand or among its cards to buy?"""
        o = self.owner[card]
        if o >= 0 and self.alive[o]:
            return o == p
        return o >= 0 and p in self.takers[o]

    def draw_selected(self, state: GameState, battle: Battle, leader: Seat,
                      rng: random.Random) -> tuple[Seat, str]:
        """A card the side of ``leader`` could have selected face down, and its holder:
        uniform among the hidden cards of the side's players that may be in their hands.
        The card goes into the holder's hand."""
        options: list[tuple[Seat, str]] = []
        for holder in magic.side_players(state, battle, leader):
            if not self.hand_hidden[holder] or not self.hand_room[holder]:
                continue
            own_in_hand = len(self.own[holder]) - self.pool_room[holder]
            foreign_in_hand = self.hand_room[holder] - max(0, own_in_hand)
            fits = [c for c in self.own[holder] if own_in_hand > 0]
            fits += [c for c in self.foreign if foreign_in_hand > 0 and self.may_hold(holder, c)]
            options += [(holder, c) for c in _selectable(state, battle, leader, holder, fits)]
        if options:
            holder, card = options[rng.randrange(len(options))]
        else:  # only in a state the rules cannot reach: the card stays where it is
            holder, card = battle.holders.get(leader, leader), battle.cards[leader]
        next(cards for cards in (*self.own, self.foreign) if card in cards).remove(card)
        self.hands[holder].append(card)
        self.hand_room[holder] -= 1
        return holder, card

    def deal_rest(self, rng: random.Random) -> None:
        """Fill every hidden place: each player's own cards into its realm pool, the rest
        into its hand; then the eliminated players' cards."""
        n = len(self.hands)
        left: list[str] = []  # cards with no place the facts allow: a hand-made state only
        for p in range(n):
            mine = self.own[p]
            rng.shuffle(mine)
            into_pool = min(self.pool_room[p], len(mine))
            into_hand = min(self.hand_room[p], len(mine) - into_pool)
            self.pools[p] += mine[:into_pool]
            self.hands[p] += mine[into_pool:into_pool + into_hand]
            left += mine[into_pool + into_hand:]
            self.pool_room[p] -= into_pool
            self.hand_room[p] -= into_hand
        # The players furthest down a chain of killers first: their places accept fewer
        # cards, and whatever they leave fits every killer further up.
        for p in sorted(range(n), key=lambda p: (-len(self.takers[p]), p)):
            room = self.hand_room[p] + self.buy_room[p]
            if not room:
                continue
            fits = [c for c in self.foreign if self.may_hold(p, c)]
            rng.shuffle(fits)
            got = fits[:room]
            for card in got:
                self.foreign.remove(card)
            into_hand = min(self.hand_room[p], len(got))
            self.hands[p] += got[:into_hand]
            self.buys[p] += got[into_hand:]
            self.hand_room[p] -= into_hand
            self.buy_room[p] -= len(got) - into_hand
        left = sorted(left + self.foreign)
        rng.shuffle(left)
        for p in range(n):
            for place, room in ((self.pools[p], self.pool_room[p]),
                                (self.hands[p], self.hand_room[p]),
                                (self.buys[p], self.buy_room[p])):
                place += left[:room]
                del left[:room]


def _chain(killer: list[Seat], seat: Seat) -> list[Seat]:
    """Who eliminated ``seat``, who eliminated that player, and so on (R18.6)."""
    out: list[Seat] = []
    p = killer[seat]
    while p >= 0 and p not in out:
        out.append(p)
        p = killer[p]
    return out


def _selectable(state: GameState, battle: Battle, leader: Seat, holder: Seat,
                cards: list[str]) -> list[str]:
    """Those of ``cards`` that ``holder`` could have selected for ``leader``'s side at step B
    (R16.6-R16.8, R20.7; conditions depend on the board, not on the hands): what
    ``magic.playable`` offered before the side declared, were these all the side's cards."""
    before = battle.copy()
    del before.cards[leader]
    before.used_card.pop(leader, None)
    hands = state.hand
    state.hand = [cards if p == holder else [] for p in range(state.n)]
    try:
        return magic.playable(state, before, leader, _STEP_B)
    finally:
        state.hand = hands


def _redraw_deck(state: GameState, rng: random.Random) -> None:
    """The event deck in a new order; the end-game card among the bottom nine (R5.10)."""
    deck = state.deck  # the last element is the top
    end = state.end_card if state.end_card in deck else None
    others = sorted(c for c in deck if c != end)
    rng.shuffle(others)
    if end is not None:
        if state.config.end_game_card == "random":
            end = ("EG1", "EG2", "EG3", "EG4")[rng.randrange(4)]
            state.end_card = end
        others.insert(rng.randrange(min(9, len(deck))), end)
    state.deck = others
