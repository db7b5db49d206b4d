"""Odds benchmark: exact battle odds over every battle that can occur, single process.

Every battle = a unit composition on the attacking tile (1 to its capacity: Field 4, Forest 3,
Mountain 3, Castle 5; plain or upgraded units; at most one Crown, kit limits of R2.2, special
units of any realm, at most one per realm) x a composition on the defended tile x every
(attacking tile type, defended tile type) pair, the castle upgraded or not. With the default
ruleset and no cards that is about 7.3 billion battles: far too many for a minute, so this
prints, without asserting anything on time:

1. the number of battles;
2. per-query time over a uniformly sampled subset (uniform over all battles), each query from
   a cold cache (``odds.clear_cache()`` before it), garbage collector running as in use;
3. the same for the largest pools that occur (8 attack dice against 7 defence dice);
4. the pool-level table: every distinct (attack pool, defence pool, drop lowest) that these
   battles produce, computed once each from an empty cache, and the total time to build it.
   Every composition's odds are then a table lookup plus the R16.21 loss caps.

``--all-options`` adds the pools of the other dice options (drop_lowest, Crown D8 in a castle,
the Wolf variant) and Scales of Equality to the table.

    python bench/bench_odds.py [--samples N] [--seed S] [--all-options]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Iterator

from kaladan.odds import BattleSpec, DiceOptions, battle_odds, clear_cache, hit_distribution
from kaladan.rules.combat import bonus_dice, side_dice
from kaladan.rules.units import (
    ARCHER,
    CATAPULT,
    CROWN,
    GENERAL,
    KIT_COUNT,
    SHIELD,
    SPECIAL,
    SWORD,
    code,
)
from kaladan.rules.world import CAPACITY, Terrain

Kind = tuple[int, bool, int]  # unit type, upgraded, realm (special units only)
KINDS: list[Kind] = ([(CROWN, False, 0), (GENERAL, False, 0), (GENERAL, True, 0)]
                     + [(t, up, 0) for t in (CATAPULT, ARCHER, SHIELD, SWORD)
                        for up in (False, True)]
                     + [(SPECIAL, up, r) for r in range(6) for up in (False, True)])
TARGET_QUERY_MS = 5.0
TARGET_TABLE_S = 60.0


def compositions(capacity: int) -> list[tuple[Kind, ...]]:
    """Every multiset of 1..capacity units one player can have on a tile."""
    out: list[tuple[Kind, ...]] = []

    def extend(start: int, units: list[Kind], counts: dict[int, int], realms: set[int]) -> None:
        if units:
            out.append(tuple(units))
        if len(units) == capacity:
            return
        for i in range(start, len(KINDS)):
            utype, _, realm = KINDS[i]
            if utype == SPECIAL:
                if realm in realms:
                    continue
                extend(i + 1, units + [KINDS[i]], counts, realms | {realm})
            elif counts.get(utype, 0) < KIT_COUNT[utype]:
                extend(i, units + [KINDS[i]], {**counts, utype: counts.get(utype, 0) + 1},
                       realms)

    extend(0, [], {}, set())
    return out


def units_of(kinds: tuple[Kind, ...], owner: int) -> tuple[int, ...]:
    return tuple(code(owner, realm, utype, up) for utype, up, realm in kinds)


Tile = tuple[Terrain, bool]  # tile type, upgraded castle


def attack_sides() -> list[tuple[Terrain, tuple[Kind, ...]]]:
    return [(t, c) for t in Terrain for c in compositions(CAPACITY[t])]


def defence_sides() -> list[tuple[Tile, tuple[Kind, ...]]]:
    tiles = [(t, False) for t in Terrain] + [(Terrain.CASTLE, True)]
    return [(tile, c) for tile in tiles for c in compositions(CAPACITY[tile[0]])]


def timed(spec: BattleSpec) -> float:
    clear_cache()
    start = time.perf_counter()
    battle_odds(spec)
    return (time.perf_counter() - start) * 1000


def report(label: str, times: list[float]) -> None:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(f"{label}: {len(times)} queries, median {statistics.median(times):.3f} ms, "
          f"p99 {p99:.3f} ms, max {times[-1]:.3f} ms (target max {TARGET_QUERY_MS} ms: "
          f"{'met' if times[-1] < TARGET_QUERY_MS else 'NOT met'})")


def variants(all_options: bool) -> list[tuple[DiceOptions, bool]]:
    if not all_options:
        return [(DiceOptions(), False)]
    return [(DiceOptions(m, c, w), scales) for m in ("keep_all", "drop_lowest")
            for c in ("d6", "d8") for w in ("forest_either", "attack_from_forest")
            for scales in (False, True)]


def pool_pairs(all_options: bool) -> Iterator[tuple[tuple[int, ...], tuple[int, ...], bool,
                                                   bool]]:
    """Every distinct (attack pool, defence pool, drop, scales) of every battle.

    Pools depend on a side's own units and tile, and on whether a Crown stands on D (the
    Sword of Khalis, R14.3), so pools are collected per (tile, Crown on D) and paired up.
    """
    seen: set[tuple[tuple[int, ...], tuple[int, ...], bool, bool]] = set()
    crown, sword = code(1, 0, CROWN), code(1, 0, SWORD)
    for options, scales in variants(all_options):
        attack: dict[tuple[Terrain, bool], set[tuple[int, ...]]] = {}
        for t in Terrain:
            for crown_on_d in (False, True):
                d_units = [crown if crown_on_d else sword]
                attack[t, crown_on_d] = {
                    tuple(side_dice(units_of(c, 0), True, t, d_units, False, options.wolf_d12))
                    for c in compositions(CAPACITY[t])}
        defence: dict[tuple[Terrain, bool], set[tuple[int, ...]]] = {}
        for t in Terrain:
            for c in compositions(CAPACITY[t]):
                units = units_of(c, 1)
                has_crown = any(k[0] == CROWN for k in c)
                pool = tuple(side_dice(units, False, t, units,
                                       options.crown_defence_in_castle == "d8",
                                       options.wolf_d12))
                defence.setdefault((t, has_crown), set()).add(pool)
        for ta in Terrain:
            for td in Terrain:
                drop = options.mountain_defence == "drop_lowest" and td == Terrain.MOUNTAIN
                for fortified in ((False, True) if td == Terrain.CASTLE else (False,)):
                    bonus_a, bonus_d = bonus_dice(ta, td, fortified)
                    for crown_on_d in (False, True):
                        for a in attack[ta, crown_on_d]:
                            pa = tuple(sorted(a + tuple(bonus_a), reverse=True))
                            for d in defence.get((td, crown_on_d), ()):
                                key = (pa, tuple(sorted(d + tuple(bonus_d), reverse=True)),
                                       drop, scales)
                                if key not in seen:
                                    seen.add(key)
                                    yield key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--all-options", action="store_true")
    args = parser.parse_args()

    attackers = attack_sides()
    defenders = defence_sides()
    total = len(attackers) * len(defenders)
    print(f"battles (default ruleset, no cards): {len(attackers)} attacking compositions x "
          f"{len(defenders)} defended compositions = {total:,}")
    print("the full enumeration is too big to run in a minute: measuring a uniform random "
          f"sample of {args.samples} battles (seed {args.seed}) and the full pool-level table")

    rng = random.Random(args.seed)
    times = []
    for _ in range(args.samples):
        ta, ca = attackers[rng.randrange(len(attackers))]
        (td, fortified), cd = defenders[rng.randrange(len(defenders))]
        times.append(timed(BattleSpec(units_of(ca, 0), units_of(cd, 1), ta, td, fortified)))
    report("sampled battles, cold cache", times)

    big_a = (code(0, 0, GENERAL, True), code(0, 0, CATAPULT, True), code(0, 0, CATAPULT, True),
             code(0, 0, ARCHER, True), code(0, 5, SPECIAL, True))
    big_d = (code(1, 0, GENERAL, True), code(1, 0, SHIELD, True), code(1, 0, SHIELD, True),
             code(1, 0, SWORD, True), code(1, 2, SPECIAL, True))
    worst = []
    for options, scales in [(DiceOptions(), False), (DiceOptions(), True),
                            (DiceOptions(mountain_defence="drop_lowest"), False)]:
        for _ in range(20):
            worst.append(timed(BattleSpec(big_a, big_d, Terrain.CASTLE, Terrain.CASTLE, True,
                                          options, scales=scales)))
    report("largest pools (8 vs 7 dice), cold cache", worst)

    clear_cache()
    gc.collect()
    start = time.perf_counter()
    count = 0
    slowest = 0.0
    for attack, defence, drop, scales in pool_pairs(args.all_options):
        before = time.perf_counter()
        hit_distribution(attack, defence, drop, scales)
        slowest = max(slowest, time.perf_counter() - before)
        count += 1
    seconds = time.perf_counter() - start
    scope = "every dice option and Scales" if args.all_options else "default ruleset"
    print(f"pool-level table ({scope}): {count:,} distinct pool pairs built in {seconds:.1f} s "
          f"(target {TARGET_TABLE_S:.0f} s: {'met' if seconds < TARGET_TABLE_S else 'NOT met'}), "
          f"{1000 * seconds / max(count, 1):.3f} ms per pair on average, slowest "
          f"{1000 * slowest:.3f} ms")


if __name__ == "__main__":
    main()
