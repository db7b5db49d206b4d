"""Experimental designs: which bot sits in which seat and which realm each seat plays, game by
game, as a pure function of the run's arguments (so every backend plays the same games).

Seats: ``fixed`` keeps the bots in the order given; ``rotate`` shifts them one seat per game,
so over every ``n`` games each bot sits in each seat exactly once.

Realms: ``None`` leaves them to the ruleset (chosen by the bots, or dealt by quick setup);
``fixed`` gives seat k the k-th realm of R2.1; a list gives seat k the k-th realm named;
``random`` draws distinct realms per game from a source seeded by the run's seed and the game;
``rotate`` plays every ordered choice of ``n`` of the six realms once per block
(``math.perm(6, n)`` games). A block is cut into classes of ``n`` games that are the ``n``
cyclic shifts of one arrangement, so every ``n`` games each realm of the class sits in each
seat once; the order of the classes is shuffled per block (seeded) so that a run stopped
inside a block still mixes the realms. With both rotations, the bots rotate through the
seats within each arrangement (``n`` games per arrangement), so bots meet every realm too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from math import perm

from ..rules.units import REALMS

SEAT_DESIGNS = ("fixed", "rotate")
REALM_DESIGNS = ("fixed", "rotate", "random")


class DesignError(ValueError):
    """A design that cannot be played: a message for the user."""


@dataclass(frozen=True, slots=True)
class Design:
    """How bots and realms are put in the seats (see the module docstring)."""

    seats: str = "fixed"
    realms: str | None = None  # None, "fixed", "rotate", "random" or "list"
    realm_list: tuple[str, ...] = ()  # the realms of the seats when realms == "list"

    def check(self, players: int) -> None:
        if self.seats not in SEAT_DESIGNS:
            raise DesignError(f"unknown seat design {self.seats!r}: choose "
                              f"{' or '.join(SEAT_DESIGNS)}")
        if self.realms == "list":
            if len(self.realm_list) != players:
                raise DesignError(f"{len(self.realm_list)} realms named for {players} seats")
            unknown = [r for r in self.realm_list if r not in REALMS]
            if unknown:
                raise DesignError(f"unknown realm {unknown[0]!r}: choose from {', '.join(REALMS)}")
            if len(set(self.realm_list)) != players:
                raise DesignError("every seat needs its own realm (R5.5): a realm is named twice")
        elif self.realms is not None and self.realms not in REALM_DESIGNS:
            raise DesignError(f"unknown realm design {self.realms!r}")

    def block(self, players: int) -> int:
        """Games after which the design has gone through every combination once."""
        seats = players if self.seats == "rotate" else 1
        return seats * (perm(len(REALMS), players) if self.realms == "rotate" else 1)

    def describe(self, players: int) -> str:
        seats = ("seats rotated (each bot in each seat equally often)" if self.seats == "rotate"
                 else "seats fixed (bots in the order given)")
        return f"{seats}; {self.describe_realms(players)}"

    def describe_realms(self, players: int) -> str:
        return {
            None: "realms as the ruleset gives them",
            "fixed": "realms fixed (seat k plays the k-th realm of R2.1)",
            "rotate": (f"realms rotated (every ordered choice of {players} of the "
                       f"{len(REALMS)} realms once per {perm(len(REALMS), players)} "
                       f"arrangements)"),
            "random": "realms drawn at random per game (seeded)",
            "list": "realms fixed: " + ",".join(self.realm_list),
        }[self.realms]

    def bots(self, bots: tuple[str, ...], index: int) -> tuple[str, ...]:
        """The bot of each seat in game ``index``."""
        if self.seats == "fixed":
            return bots
        shift = index % len(bots)
        return bots[shift:] + bots[:shift]

    def realms_of(self, players: int, index: int, seed: int) -> tuple[str, ...] | None:
        """The realm of each seat in game ``index``, or None when the ruleset decides."""
        if self.realms is None:
            return None
        if self.realms == "fixed":
            return REALMS[:players]
        if self.realms == "list":
            return self.realm_list
        if self.realms == "random":
            return tuple(random.Random(f"kaladan-realms-{seed}-{index}").sample(REALMS, players))
        arrangement = index // players if self.seats == "rotate" else index
        return rotation(players, seed, arrangement)


def parse_realms(text: str) -> Design:
    """``fixed``, ``rotate``, ``random`` or a comma-separated realm per seat."""
    value = text.strip().lower()
    if value in REALM_DESIGNS:
        return Design(realms=value)
    names = tuple(part.strip() for part in value.split(","))
    if len(names) < 2 or not all(names):
        raise DesignError(f"bad --realms {text!r}: expected fixed, rotate, random or one realm "
                          f"per seat, e.g. kimbria,nanchia")
    return Design(realms="list", realm_list=names)


@lru_cache(maxsize=16)
def _classes(players: int) -> tuple[tuple[int, ...], ...]:
    """Every arrangement of ``players`` distinct realms, one per class of cyclic shifts (the
    one whose first realm is the lowest of R2.1)."""
    return tuple(p for p in permutations(range(len(REALMS)), players) if p[0] == min(p))


@lru_cache(maxsize=64)
def _block_order(players: int, seed: int, block: int) -> tuple[tuple[int, ...], ...]:
    classes = list(_classes(players))
    random.Random(f"kaladan-rotation-{seed}-{block}").shuffle(classes)
    return tuple(classes)


def rotation(players: int, seed: int, arrangement: int) -> tuple[str, ...]:
    """Arrangement number ``arrangement`` of the rotation design: class ``c`` of the block,
    shifted by ``j`` seats."""
    size = perm(len(REALMS), players)
    block, position = divmod(arrangement, size)
    cls, shift = divmod(position, players)
    realms = _block_order(players, seed, block)[cls]
    return tuple(REALMS[realms[(seat + shift) % players]] for seat in range(players))
