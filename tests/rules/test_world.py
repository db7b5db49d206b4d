"""Tests of the world (RULES.md section 4): grid, layouts, random terrain, custom worlds."""

from __future__ import annotations

import functools
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from kaladan.rules.errors import ConfigError, InvalidActionError, LayoutError
from kaladan.rules.world import (
    CAPACITY,
    Coord,
    Terrain,
    World,
    custom_world,
    hex_distance,
    hex_neighbours,
    random_terrain_world,
    standard_world,
    world_from_json,
)

PLAYERS = (2, 3, 4, 5, 6)
F, W, M = Terrain.FIELD, Terrain.FOREST, Terrain.MOUNTAIN
BOX = Counter({F: 7, W: 6, M: 6})  # R2.3

# --- helpers ------------------------------------------------------------------------------------


def spot(world: World, name: str) -> Coord:
    return world.coords[world.index(name)]


def spot_coords(world: World) -> list[Coord]:
    return [world.coords[i] for i in world.castle_spots]


def terrain_at(world: World) -> dict[Coord, Terrain]:
    n = world.terrain_count
    return dict(zip(world.coords[:n], world.terrain[:n], strict=True))


def rot60(c: Coord) -> Coord:
    """Rotate a position 60 degrees about (0, 0) (cube (x, y, z) -> (-z, -x, -y))."""
    q, r = c
    return (-r, q + r)


def rotate(c: Coord, times: int) -> Coord:
    for _ in range(times):
        c = rot60(c)
    return c


def mirror_top_bottom(c: Coord) -> Coord:
    """Reflect in the row r = 0: pixel x = q + r/2 stays, r changes sign."""
    q, r = c
    return (q + r, -r)


def mirror_left_right(c: Coord) -> Coord:
    """Reflect in the vertical line x = -0.5 (in units of sqrt(3)), the axis of the 5p world."""
    q, r = c
    return (-1 - q - r, r)


def maps_world_onto_itself(world: World, f: Callable[[Coord], Coord], *, types: bool) -> bool:
    """True when f maps terrain positions onto terrain positions (with equal types if asked)
    and castle spots onto castle spots."""
    terrain = terrain_at(world)
    spots = set(spot_coords(world))
    if {f(c) for c in spots} != spots:
        return False
    if {f(c) for c in terrain} != set(terrain):
        return False
    return not types or all(terrain[f(c)] == t for c, t in terrain.items())


def valid_json(world: World) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(world.to_json()))
    return data


def layout(terrain: Iterable[tuple[int, int, str]], spots: Iterable[Coord]) -> dict[str, object]:
    return {
        "terrain": [{"q": q, "r": r, "terrain": t} for q, r, t in terrain],
        "castle_spots": [{"q": q, "r": r} for q, r in spots],
    }


# A small valid two-player custom world: a line of 5 terrain with spots at both ends.
LINE = [(0, 0, "field"), (1, 0, "forest"), (2, 0, "mountain"), (3, 0, "field"), (4, 0, "forest")]
LINE_SPOTS = [(-1, 0), (5, 0)]


# --- grid (R4.1-R4.5) ---------------------------------------------------------------------------


def test_r4_2_neighbour_order() -> None:
    assert hex_neighbours((0, 0)) == ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
    assert hex_neighbours((2, -3)) == ((3, -3), (3, -4), (2, -4), (1, -3), (1, -2), (2, -2))


def test_r4_3_distance() -> None:
    assert hex_distance((0, 0), (0, 0)) == 0
    assert all(hex_distance((0, 0), n) == 1 for n in hex_neighbours((0, 0)))
    assert hex_distance((1, -3), (-3, 2)) == 5
    assert hex_distance((3, -2), (-3, 2)) == 6
    assert hex_distance((-1, -1), (1, 1)) == 4


def test_r4_5_capacity_and_labels() -> None:
    assert CAPACITY == {F: 4, W: 3, M: 3, Terrain.CASTLE: 5}
    assert [t.label for t in Terrain] == ["field", "forest", "mountain", "castle"]
    assert [int(t) for t in Terrain] == [0, 1, 2, 3]


def test_r4_2_world_tables_consistent() -> None:
    for p in PLAYERS:
        w = standard_world(p)
        size = len(w.coords)
        assert len(w.terrain) == len(w.names) == len(w.capacity) == len(w.neighbours) == size
        assert w.capacity == tuple(CAPACITY[t] for t in w.terrain)
        for i in range(size):
            expected = sorted(j for j in range(size) if hex_distance(w.coords[i], w.coords[j]) == 1)
            assert list(w.neighbours[i]) == expected
            assert w.distance[i] == tuple(hex_distance(w.coords[i], c) for c in w.coords)


# --- standard layouts (R4.9, R4.10) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "terrain", "spots"), [(2, 7, 2), (3, 7, 3), (4, 13, 4), (5, 14, 5), (6, 19, 6)]
)
def test_r4_9_standard_counts(players: int, terrain: int, spots: int) -> None:
    w = standard_world(players)
    assert w.kind == "standard"
    assert w.terrain_count == terrain
    assert len(w.castle_spots) == spots
    assert w.castle_spots == tuple(range(terrain, terrain + spots))
    assert w.names == tuple(f"T{i}" for i in range(1, terrain + 1)) + tuple(
        f"C{i}" for i in range(1, spots + 1)
    )
    assert w.terrain[:terrain].count(Terrain.CASTLE) == 0
    assert w.terrain[terrain:] == (Terrain.CASTLE,) * spots


# Spot checks against the tables of R4.9: (name, q, r, terrain or None for a castle spot).
TABLE_SAMPLES: dict[int, list[tuple[str, int, int, Terrain | None]]] = {
    2: [("T1", 0, -1, F), ("T2", 1, -1, M), ("T6", -1, 1, M), ("T7", 0, 1, F),
        ("C1", 1, 1, None), ("C2", -1, -1, None)],
    3: [("T2", 1, -1, W), ("T4", 0, 0, M), ("T6", -1, 1, F),
        ("C1", 1, -2, None), ("C2", 1, 1, None), ("C3", -2, 1, None)],
    4: [("T1", 0, -2, W), ("T8", 1, 0, M), ("T9", -2, 1, F), ("T13", -1, 2, F),
        ("C1", 2, -2, None), ("C2", 0, 2, None), ("C3", -3, 2, None), ("C4", -1, -2, None)],
    5: [("T1", 0, -2, F), ("T7", -1, 0, M), ("T11", -1, 1, M), ("T14", -1, 2, W),
        ("C1", 1, -3, None), ("C2", 2, -1, None), ("C3", 0, 2, None), ("C4", -3, 2, None),
        ("C5", -2, -1, None)],
    6: [("T1", 0, -2, W), ("T10", 0, 0, F), ("T12", 2, 0, W), ("T15", 0, 1, M), ("T19", 0, 2, W),
        ("C1", 3, -2, None), ("C2", 2, 1, None), ("C3", -1, 3, None), ("C4", -3, 2, None),
        ("C5", -2, -1, None), ("C6", 1, -3, None)],
}  # fmt: skip


@pytest.mark.parametrize("players", PLAYERS)
def test_r4_9_standard_matches_rules_tables(players: int) -> None:
    w = standard_world(players)
    for name, q, r, terrain in TABLE_SAMPLES[players]:
        i = w.index(name)
        assert w.coords[i] == (q, r), name
        assert w.terrain[i] == (Terrain.CASTLE if terrain is None else terrain), name


def test_r4_9_full_tables_2p_and_3p() -> None:
    two = standard_world(2)
    assert two.coords == ((0, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (0, 1), (1, 1),
                          (-1, -1))  # fmt: skip
    assert two.terrain[:7] == (F, M, W, F, W, M, F)
    three = standard_world(3)
    assert three.terrain[:7] == (F, W, W, M, F, F, W)


@pytest.mark.parametrize("players", PLAYERS)
def test_r4_10_terrain_in_reading_order(players: int) -> None:
    w = standard_world(players)
    coords = list(w.coords[: w.terrain_count])
    assert coords == sorted(coords, key=lambda c: (c[1], c[0]))


@pytest.mark.parametrize("players", PLAYERS)
def test_r4_10_custom_numbering_reproduces_standard(players: int) -> None:
    """R4.10: feeding a standard layout in shuffled order to custom_world gives the same T and
    C numbering as the RULES.md tables (clockwise from straight up)."""
    w = standard_world(players)
    rng = random.Random(players)
    for _ in range(20):
        data = valid_json(w)
        rng.shuffle(data["terrain"])
        rng.shuffle(data["castle_spots"])
        c = custom_world(data, players)
        assert c.kind == "custom"
        assert c.coords == w.coords
        assert c.terrain == w.terrain
        assert c.names == w.names


def test_r4_10_spot_straight_up_is_c1() -> None:
    """R4.10: a spot exactly straight up of the centre is C1, then clockwise."""
    # Centre of the three spots is (0, 0); (1, -2) is straight up since x = 1 + (-2)/2 = 0.
    terrain = [(q, r, "field") for q, r in [(0, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1),
                                             (0, 1)]]  # fmt: skip
    c = custom_world(layout(terrain, [(-2, 1), (1, 1), (1, -2)]), 3)
    assert [spot(c, n) for n in ("C1", "C2", "C3")] == [(1, -2), (1, 1), (-2, 1)]


def test_r4_9_standard_worlds_are_shared() -> None:
    assert standard_world(4) is standard_world(4)


@pytest.mark.parametrize("players", [0, 1, 7, True])
def test_r1_1_player_count_outside_2_to_6_rejected(players: int) -> None:
    with pytest.raises(ConfigError, match="player count"):
        standard_world(players)
    with pytest.raises(ConfigError, match="player count"):
        custom_world(layout(LINE, LINE_SPOTS), players)


# --- R4.11: properties of the standard layouts --------------------------------------------------


@pytest.mark.parametrize(
    ("players", "field", "forest", "mountain"),
    [(2, 3, 2, 2), (3, 3, 3, 1), (4, 5, 5, 3), (5, 5, 5, 4), (6, 7, 6, 6)],
)
def test_r4_11_item1_terrain_counts(players: int, field: int, forest: int, mountain: int) -> None:
    counts = Counter(standard_world(players).terrain)
    assert counts == Counter({F: field, W: forest, M: mountain, Terrain.CASTLE: players})
    for t in (F, W, M):
        assert counts[t] <= BOX[t]


@pytest.mark.parametrize("players", PLAYERS)
def test_r4_11_item2_castle_spot_neighbours(players: int) -> None:
    w = standard_world(players)
    for s in w.castle_spots:
        adjacent_terrain = [w.terrain[j] for j in w.neighbours[s] if j < w.terrain_count]
        assert sorted(adjacent_terrain) == [F, W], w.names[s]
        assert not any(j in w.castle_spots for j in w.neighbours[s]), w.names[s]


@pytest.mark.parametrize(("players", "smallest"), [(2, 4), (3, 3), (4, 3), (5, 3), (6, 3)])
def test_r4_11_item3_castle_spots_far_apart(players: int, smallest: int) -> None:
    w = standard_world(players)
    pairs = [w.distance[a][b] for a in w.castle_spots for b in w.castle_spots if a < b]
    assert min(pairs) == smallest
    assert all(d >= 3 for d in pairs)


def flood(start: Coord, allowed: Callable[[Coord], bool]) -> set[Coord]:
    seen = {start}
    stack = [start]
    while stack:
        for n in hex_neighbours(stack.pop()):
            if n not in seen and allowed(n):
                seen.add(n)
                stack.append(n)
    return seen


@pytest.mark.parametrize("players", PLAYERS)
def test_r4_11_item4_connected_without_gaps(players: int) -> None:
    w = standard_world(players)
    terrain = set(w.coords[: w.terrain_count])
    world = set(w.coords)
    assert flood(next(iter(terrain)), lambda c: c in terrain) == terrain
    assert flood(next(iter(world)), lambda c: c in world) == world
    # No enclosed gap: every empty hex inside the bounding box (grown by one) must be reachable
    # from outside through empty hexes only.
    qs = [q for q, _ in world]
    rs = [r for _, r in world]
    q0, q1, r0, r1 = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1

    def empty_in_box(c: Coord) -> bool:
        return c not in world and q0 <= c[0] <= q1 and r0 <= c[1] <= r1

    outside = flood((q0, r0), empty_in_box)
    box = {(q, r) for q in range(q0, q1 + 1) for r in range(r0, r1 + 1)}
    assert box - world - outside == set()


def test_r4_11_item4_gap_detector_finds_a_gap() -> None:
    """The flood fill of the item-4 test does see an enclosed hole when there is one."""
    ring = set(hex_neighbours((0, 0)))
    outside = flood((-3, -3), lambda c: c not in ring and -3 <= c[0] <= 3 and -3 <= c[1] <= 3)
    assert (0, 0) not in outside


def test_r4_11_item5_two_players_180_degrees() -> None:
    w = standard_world(2)
    assert maps_world_onto_itself(w, lambda c: rotate(c, 3), types=True)
    assert rotate(spot(w, "C1"), 3) == spot(w, "C2")


def test_r4_11_item5_three_players_120_degrees() -> None:
    w = standard_world(3)
    assert maps_world_onto_itself(w, lambda c: rotate(c, 2), types=True)
    assert [rotate(spot(w, n), 2) for n in ("C1", "C2", "C3")] == [
        spot(w, "C2"),
        spot(w, "C3"),
        spot(w, "C1"),
    ]


def test_r4_11_item5_six_players_60_degrees() -> None:
    w = standard_world(6)
    assert maps_world_onto_itself(w, rot60, types=True)
    names = [f"C{i}" for i in range(1, 7)]
    assert [rot60(spot(w, n)) for n in names] == [spot(w, n) for n in names[1:] + names[:1]]


def test_r4_11_item5_four_players_mirror_top_bottom() -> None:
    w = standard_world(4)
    assert maps_world_onto_itself(w, mirror_top_bottom, types=True)
    assert mirror_top_bottom(spot(w, "C1")) == spot(w, "C2")
    assert mirror_top_bottom(spot(w, "C4")) == spot(w, "C3")


def test_r4_11_item5_five_players_mirror_positions_not_types() -> None:
    w = standard_world(5)
    assert maps_world_onto_itself(w, mirror_left_right, types=False)
    assert not maps_world_onto_itself(w, mirror_left_right, types=True)
    assert mirror_left_right(spot(w, "C1")) == spot(w, "C1")
    assert mirror_left_right(spot(w, "C2")) == spot(w, "C5")
    assert mirror_left_right(spot(w, "C3")) == spot(w, "C4")
    # No rotation maps the 5p world onto itself either (no five-way symmetry on a hex grid).
    for k in range(1, 6):
        assert not maps_world_onto_itself(w, functools.partial(rotate, times=k), types=False), k


# R4.11 item 6: (positions, Field, Forest, Mountain) within distance 2 of each castle spot.
NEAR_SPOTS: dict[int, list[tuple[int, int, int, int]]] = {
    2: [(5, 2, 1, 2)] * 2,
    3: [(5, 2, 2, 1)] * 3,
    4: [(6, 2, 2, 2), (6, 2, 2, 2), (5, 2, 2, 1), (5, 2, 2, 1)],
    5: [(5, 2, 2, 1)] + [(6, 2, 2, 2)] * 4,
    6: [(6, 2, 2, 2)] * 6,
}


@pytest.mark.parametrize("players", PLAYERS)
def test_r4_11_item6_terrain_near_each_castle_spot(players: int) -> None:
    w = standard_world(players)
    seen = []
    for s in w.castle_spots:
        near = [w.terrain[i] for i in range(w.terrain_count) if w.distance[s][i] <= 2]
        c = Counter(near)
        seen.append((len(near), c[F], c[W], c[M]))
    assert seen == NEAR_SPOTS[players]


@pytest.mark.parametrize(
    ("players", "others"),
    [(2, [4]), (3, [3, 3]), (4, [3, 4, 5]), (6, [3, 3, 5, 5, 6])],
)
def test_r4_11_item7_same_distances_from_every_spot(players: int, others: list[int]) -> None:
    w = standard_world(players)
    for s in w.castle_spots:
        assert sorted(w.distance[s][t] for t in w.castle_spots if t != s) == others, w.names[s]


def test_r4_11_item7_five_players_ring() -> None:
    w = standard_world(5)
    at3 = {
        w.names[s]: {w.names[t] for t in w.castle_spots if w.distance[s][t] == 3}
        for s in w.castle_spots
    }
    assert all(len(v) == 2 for v in at3.values())
    # The distance-3 pairs form one cycle through all five spots: walk it from C1.
    order = ["C1", min(at3["C1"])]
    while len(order) < 6:
        (step,) = at3[order[-1]] - {order[-2]}
        order.append(step)
    assert order[-1] == "C1"
    order.pop()
    assert sorted(order) == ["C1", "C2", "C3", "C4", "C5"]
    at4 = {w.names[s] for s in w.castle_spots for t in w.castle_spots if w.distance[s][t] == 4}
    assert at4 == {"C2", "C5"}
    assert w.distance[w.index("C2")][w.index("C5")] == 4


def test_r4_11_item8_team_sets() -> None:
    """R4.11 item 8 / R23.6: the alternating team sets are mirror or rotation images."""
    four = standard_world(4)
    odd4 = {spot(four, "C1"), spot(four, "C3")}
    even4 = {spot(four, "C2"), spot(four, "C4")}
    assert {mirror_top_bottom(c) for c in odd4} == even4
    six = standard_world(6)
    odd6 = {spot(six, n) for n in ("C1", "C3", "C5")}
    even6 = {spot(six, n) for n in ("C2", "C4", "C6")}
    assert {rot60(c) for c in odd6} == even6


# --- random terrain (R4.13) ---------------------------------------------------------------------


def seeded(seed: int) -> Callable[[int], int]:
    return random.Random(seed).randrange


@pytest.mark.parametrize("players", PLAYERS)
def test_r4_13_random_terrain_keeps_positions(players: int) -> None:
    std = standard_world(players)
    w = random_terrain_world(players, seeded(players))
    assert w.kind == "random_terrain"
    assert w.coords == std.coords
    assert w.names == std.names
    assert w.castle_spots == std.castle_spots
    assert w.neighbours == std.neighbours
    assert w.terrain[std.terrain_count :] == (Terrain.CASTLE,) * players
    assert w.capacity == tuple(CAPACITY[t] for t in w.terrain)
    dealt = Counter(w.terrain[: w.terrain_count])
    assert all(dealt[t] <= BOX[t] for t in dealt) and Terrain.CASTLE not in dealt


def test_r4_13_random_terrain_is_deterministic() -> None:
    for players in PLAYERS:
        assert random_terrain_world(players, seeded(7)) == random_terrain_world(players, seeded(7))
    deals = {random_terrain_world(6, seeded(seed)).terrain for seed in range(10)}
    assert len(deals) > 1
    assert random_terrain_world(2, seeded(1)).terrain != random_terrain_world(2, seeded(2)).terrain


def test_r4_13_fisher_yates_exact_order() -> None:
    """R4.13: box order is 7 Field, 6 Forest, 6 Mountain; i runs 18..1 with j = below(i + 1)."""
    calls: list[int] = []

    def identity(n: int) -> int:
        calls.append(n)
        return n - 1  # j = i: every swap is a no-op

    w = random_terrain_world(6, identity)
    assert calls == list(range(19, 1, -1))
    assert w.terrain[:19] == (F,) * 7 + (W,) * 6 + (M,) * 6
    # j = 0 always: tile 0 goes to the end, then each later swap rotates through slot 0.
    w0 = random_terrain_world(6, lambda n: 0)
    tiles = [F] * 7 + [W] * 6 + [M] * 6
    for i in range(18, 0, -1):
        tiles[i], tiles[0] = tiles[0], tiles[i]
    assert list(w0.terrain[:19]) == tiles
    assert random_terrain_world(2, identity).terrain[:7] == (F,) * 7


def test_r4_13_below_out_of_range() -> None:
    with pytest.raises(ValueError, match="outside"):
        random_terrain_world(3, lambda n: n)


# --- custom worlds (R4.14, R4.15) ---------------------------------------------------------------


def test_r4_14_valid_custom_world() -> None:
    w = custom_world(layout(reversed(LINE), reversed(LINE_SPOTS)), 2)
    assert w.kind == "custom"
    assert w.coords[:5] == ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))
    # Centre (2, 0): the spot at (5, 0) is to the right, met first turning clockwise from up.
    assert spot(w, "C1") == (5, 0) and spot(w, "C2") == (-1, 0)
    assert w.terrain[:5] == (F, W, M, F, W)


def test_r4_15_custom_world_may_break_box_counts() -> None:
    terrain = [(q, 0, "mountain") for q in range(9)]
    w = custom_world(layout(terrain, [(-1, 0), (9, 0)]), 2)
    assert Counter(w.terrain)[M] == 9 > BOX[M]


def reject(data: object, players: int = 2) -> str:
    with pytest.raises(LayoutError) as info:
        custom_world(data, players)  # type: ignore[arg-type]
    assert info.value.rule == "R4.14"
    return str(info.value)


def test_r4_14_positions_unique() -> None:
    msg = reject(layout([*LINE, (2, 0, "forest")], LINE_SPOTS))
    assert "position (2, 0) is given twice (T3 and T6)" in msg
    assert "unique" in msg
    msg = reject(layout(LINE, [(-1, 0), (-1, 0)]))
    assert "position (-1, 0) is given twice (C1 and C2)" in msg


@pytest.mark.parametrize("bad", ["castle", "lava", "", 3, None])
def test_r4_14_terrain_type(bad: object) -> None:
    data = layout(LINE, LINE_SPOTS)
    data["terrain"][1]["terrain"] = bad  # type: ignore[index]
    msg = reject(data)
    assert f"terrain position 2 (1, 0) has terrain {bad!r}" in msg
    assert "field, forest or mountain" in msg


def test_r4_14_castle_spots_equal_players() -> None:
    msg = reject(layout(LINE, LINE_SPOTS), players=3)
    assert "2 castle spots for 3 players" in msg
    assert "must equal the number of players" in msg


def test_r4_14_castle_spot_not_on_terrain() -> None:
    msg = reject(layout(LINE, [(-1, 0), (4, 0)]))
    assert "castle spot C2 (4, 0) is also terrain position T5" in msg


def test_r4_14_castle_spot_touches_terrain() -> None:
    msg = reject(layout(LINE, [(-1, 0), (6, 0)]))
    assert "castle spot C2 (6, 0) is not adjacent to any terrain position" in msg


def test_r4_14_castle_spots_at_distance_3() -> None:
    msg = reject(layout(LINE, [(0, -1), (0, 1)]))
    assert "castle spots C1 (0, -1) and C2 (0, 1) are at distance 2" in msg
    assert "R4.14 requires at least 3" in msg


def test_r4_14_world_connected() -> None:
    islands = [(0, 0, "field"), (1, 0, "forest"), (5, 0, "field"), (6, 0, "forest")]
    msg = reject(layout(islands, [(-1, 0), (7, 0)]))
    assert msg.startswith("the world is not connected: T3 (5, 0), T4 (6, 0), C2 (7, 0)")
    assert "cannot be reached from T1 (0, 0)" in msg


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([], "layout must be a JSON object, got list"),
        ({"castle_spots": []}, "layout has no 'terrain' list"),
        ({"terrain": []}, "layout has no 'castle_spots' list"),
        ({"terrain": "T1", "castle_spots": []}, "layout 'terrain' must be a list, got str"),
        ({"terrain": [], "castle_spots": {}}, "layout 'castle_spots' must be a list, got dict"),
        ({"terrain": [[0, 0, "field"]], "castle_spots": []},
         "terrain position 1 must be an object with q, r, terrain"),
        ({"terrain": [{"q": 0, "terrain": "field"}], "castle_spots": []},
         "terrain position 1 has no 'r' coordinate"),
        ({"terrain": [{"q": 0, "r": 0}], "castle_spots": []},
         "terrain position 1 (0, 0) has no 'terrain'"),
        ({"terrain": [{"q": "0", "r": 0, "terrain": "field"}], "castle_spots": []},
         "terrain position 1 coordinate 'q' must be an integer, got '0'"),
        ({"terrain": [{"q": 0, "r": 1.0, "terrain": "field"}], "castle_spots": []},
         "terrain position 1 coordinate 'r' must be an integer, got 1.0"),
        ({"terrain": [{"q": True, "r": 0, "terrain": "field"}], "castle_spots": []},
         "terrain position 1 coordinate 'q' must be an integer, got True"),
        ({"terrain": [], "castle_spots": [(0, 0)]}, "castle spot 1 must be an object with q, r"),
        ({"terrain": [], "castle_spots": [{"q": 0}]}, "castle spot 1 has no 'r' coordinate"),
    ],
)  # fmt: skip
def test_r4_14_malformed_shape(data: object, expected: str) -> None:
    assert expected in reject(data)


def test_r4_14_world_from_json_validates() -> None:
    data = valid_json(standard_world(3))
    with pytest.raises(LayoutError, match="kind must be one of"):
        world_from_json({**data, "kind": "galaxy"}, 3)
    with pytest.raises(LayoutError, match="kind must be one of"):
        world_from_json({k: v for k, v in data.items() if k != "kind"}, 3)
    with pytest.raises(LayoutError, match="3 castle spots for 4 players"):
        world_from_json(data, 4)
    with pytest.raises(LayoutError, match="must be an integer"):
        world_from_json({**data, "castle_spots": [{"q": "x", "r": 0}]}, 3)


# --- names and JSON -----------------------------------------------------------------------------


def test_r4_10_index_names() -> None:
    w = standard_world(2)
    assert w.index("T1") == 0
    assert w.index("T3") == 2
    assert w.index("t7") == 6
    assert w.index("C1") == 7
    assert w.index("c2") == 8
    assert all(w.index(name) == i for i, name in enumerate(w.names))


@pytest.mark.parametrize("name", ["T0", "T8", "C0", "C3", "X1", "", "T", "C", "T01", "T-1", "7"])
def test_r4_10_index_unknown(name: str) -> None:
    with pytest.raises(InvalidActionError) as info:
        standard_world(2).index(name)
    assert str(info.value) == f"unknown tile {name!r}: this world has T1..T7 and C1..C2"


def test_to_json_shape() -> None:
    data = standard_world(2).to_json()
    assert data["kind"] == "standard"
    assert data["terrain"] == [
        {"q": 0, "r": -1, "terrain": "field"},
        {"q": 1, "r": -1, "terrain": "mountain"},
        {"q": -1, "r": 0, "terrain": "forest"},
        {"q": 0, "r": 0, "terrain": "field"},
        {"q": 1, "r": 0, "terrain": "forest"},
        {"q": -1, "r": 1, "terrain": "mountain"},
        {"q": 0, "r": 1, "terrain": "field"},
    ]
    assert data["castle_spots"] == [{"q": 1, "r": 1}, {"q": -1, "r": -1}]


def all_kinds() -> list[tuple[World, int]]:
    worlds = [(standard_world(p), p) for p in PLAYERS]
    worlds += [(random_terrain_world(p, seeded(p * 11)), p) for p in PLAYERS]
    worlds.append((custom_world(layout(LINE, LINE_SPOTS), 2), 2))
    return worlds


@pytest.mark.parametrize(("world", "players"), all_kinds())
def test_json_round_trip(world: World, players: int) -> None:
    again = world_from_json(valid_json(world), players)
    assert again == world
    assert again.kind == world.kind


def test_world_from_json_keeps_given_order() -> None:
    """Positions keep their numbering from the file, unlike custom_world which renumbers."""
    data = valid_json(standard_world(4))
    data["terrain"].reverse()
    data["castle_spots"].reverse()
    w = world_from_json(data, 4)
    assert w.kind == "standard"
    assert spot(w, "T1") == (-1, 2)
    assert spot(w, "C1") == (-1, -2)
    assert w.to_json() == data
