"""The board: cell names, canonical order, neighbours, distances, rays, layout, flood fill."""

from __future__ import annotations

import math
import random

import pytest
from dvonn_reference import REF_NAMES, names, ref_name, ref_neighbours, ref_rc

from engine.geometry import (
    ALL_CELLS,
    CELL_COORDS,
    CELL_NAMES,
    CENTRE_CELL,
    EDGE_MASK,
    INTERIOR_MASK,
    NEIGHBOUR_MASKS,
    NEIGHBOURS,
    NUM_CELLS,
    RAYS,
    board_xy,
    cell_at,
    cell_name,
    cell_xy,
    direction_between,
    distance,
    flood,
    iter_cells,
    mask_of,
    parse_cell,
    spread,
)


def test_canonical_order_is_row_by_row_column_by_column() -> None:
    expected = (
        "A1 B1 C1 D1 E1 F1 G1 H1 I1 "
        "A2 B2 C2 D2 E2 F2 G2 H2 I2 J2 "
        "A3 B3 C3 D3 E3 F3 G3 H3 I3 J3 K3 "
        "B4 C4 D4 E4 F4 G4 H4 I4 J4 K4 "
        "C5 D5 E5 F5 G5 H5 I5 J5 K5"
    ).split()
    assert list(CELL_NAMES) == expected == REF_NAMES
    assert NUM_CELLS == 49
    assert [sum(1 for n in CELL_NAMES if n[1] == str(r)) for r in range(1, 6)] == [9, 10, 11, 10, 9]


def test_names_and_parsing() -> None:
    assert cell_name(0) == "A1"
    assert cell_name(48) == "K5"
    assert cell_name(CENTRE_CELL) == "F3"
    assert parse_cell("c3") == 21 == parse_cell(" C3 ")  # A3 is 19
    for i, name in enumerate(CELL_NAMES):
        assert parse_cell(name) == i
        assert parse_cell(name.lower()) == i
        assert cell_at(*CELL_COORDS[i]) == i
        assert CELL_COORDS[i] == ref_rc(name)


@pytest.mark.parametrize("text", ["A4", "A5", "B5", "J1", "K1", "K2", "L3", "A0", "A6", "", "C33"])
def test_parse_cell_rejects_cells_off_the_board(text: str) -> None:
    with pytest.raises(ValueError, match="is not a cell"):
        parse_cell(text)


def test_cell_at_off_board_is_none() -> None:
    assert cell_at(1, 9) is None  # J1
    assert cell_at(4, 0) is None  # A4
    assert cell_at(5, 1) is None  # B5
    assert cell_at(0, 0) is None
    assert cell_at(6, 5) is None
    assert cell_at(3, 11) is None


def test_c1_touches_b1_d1_c2_d2() -> None:
    c1 = parse_cell("C1")
    assert {cell_name(n) for n in NEIGHBOURS[c1]} == {"B1", "D1", "C2", "D2"}


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("A1", {"B1", "A2", "B2"}),
        ("F3", {"E3", "G3", "F4", "E2", "G4", "F2"}),
        ("K3", {"J3", "K4", "J2"}),
        ("A3", {"B3", "A2", "B4"}),
        ("K5", {"J5", "K4", "J4"}),
        ("C5", {"D5", "C4", "B4"}),
        ("I1", {"H1", "I2", "J2"}),
    ],
)
def test_neighbours(cell: str, expected: set[str]) -> None:
    got = {cell_name(n) for n in NEIGHBOURS[parse_cell(cell)]}
    assert got == expected
    assert names(NEIGHBOUR_MASKS[parse_cell(cell)]) == expected


def test_neighbours_match_the_six_row_column_steps_everywhere() -> None:
    for i, name in enumerate(CELL_NAMES):
        assert {cell_name(n) for n in NEIGHBOURS[i]} == set(ref_neighbours(name))
        for n in NEIGHBOURS[i]:
            assert i in NEIGHBOURS[n]  # symmetric
            assert distance(i, n) == 1


def test_distance_formula() -> None:
    a1, k5, a3, k3 = (parse_cell(n) for n in ("A1", "K5", "A3", "K3"))
    assert distance(a1, a1) == 0
    assert distance(a3, k3) == 10
    assert distance(a1, k5) == 10  # 4 rows up and 10 columns right: along the diagonal + row
    assert distance(parse_cell("I1"), parse_cell("C5")) == 10  # (dr, dc) = (4, -6)
    for a in range(NUM_CELLS):
        for b in range(NUM_CELLS):
            (ra, ca), (rb, cb) = CELL_COORDS[a], CELL_COORDS[b]
            dr, dc = rb - ra, cb - ca
            assert distance(a, b) == max(abs(dr), abs(dc), abs(dr - dc)) == distance(b, a)


def test_rays_walk_straight_lines_to_the_edge() -> None:
    dirs = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1))
    for cell, name in enumerate(CELL_NAMES):
        r, c = ref_rc(name)
        for d, (dr, dc) in enumerate(dirs):
            expected = []
            k = 1
            while (n := ref_name(r + dr * k, c + dc * k)) is not None:
                expected.append(n)
                k += 1
            assert [cell_name(t) for t in RAYS[cell][d]] == expected
            for k, t in enumerate(RAYS[cell][d], start=1):
                assert distance(cell, t) == k
                assert direction_between(cell, t) == d


def test_longest_ray_is_a3_to_k3() -> None:
    a3 = parse_cell("A3")
    assert cell_name(RAYS[a3][0][-1]) == "K3"
    assert len(RAYS[a3][0]) == 10
    assert max(len(ray) for rays in RAYS for ray in rays) == 10


def test_direction_between_none_off_line() -> None:
    assert direction_between(parse_cell("A1"), parse_cell("C2")) is None
    # (dr, dc) = (1, -1) is no direction of this board
    assert direction_between(parse_cell("B1"), parse_cell("A2")) is None
    assert direction_between(parse_cell("A1"), parse_cell("A1")) is None


def test_physical_xy() -> None:
    assert cell_xy(parse_cell("A1")) == (0.0, 0.0)
    x, y = cell_xy(parse_cell("A2"), pitch=40.0)
    assert x == pytest.approx(-20.0)
    assert y == pytest.approx(40 * math.sqrt(3) / 2)
    x, y = cell_xy(parse_cell("K3"), pitch=2.0)
    assert (x, y) == pytest.approx((18.0, 2 * math.sqrt(3)))
    assert cell_xy(parse_cell("C5")) == pytest.approx((0.0, 4 * math.sqrt(3) / 2))
    # neighbours are exactly one pitch apart, other cells farther
    for a in range(NUM_CELLS):
        ax, ay = cell_xy(a, 3.0)
        for b in range(NUM_CELLS):
            if a == b:
                continue
            bx, by = cell_xy(b, 3.0)
            d = math.hypot(ax - bx, ay - by)
            if b in NEIGHBOURS[a]:
                assert d == pytest.approx(3.0)
            else:
                assert d > 3.0 * 1.5


def test_board_xy_is_relative_to_f3() -> None:
    assert board_xy(CENTRE_CELL) == (0.0, 0.0)
    x, y = board_xy(parse_cell("K3"), 40.0)
    assert (x, y) == pytest.approx((200.0, 0.0))
    x, y = board_xy(parse_cell("G5"), 40.0)  # straight above F3
    assert y == pytest.approx(2 * 40 * math.sqrt(3) / 2)
    assert x == pytest.approx(0.0)


def test_edge_cells() -> None:
    edge = names(EDGE_MASK)
    expected = {n for n in CELL_NAMES if len(ref_neighbours(n)) < 6}
    assert edge == expected
    assert len(edge) == 24  # 9 + 9 on rows 1 and 5, both ends of rows 2, 3, 4
    assert {"A1", "I1", "C5", "K5", "A2", "J2", "A3", "K3", "B4", "K4"} <= edge
    assert "F3" not in edge and "B2" not in edge
    assert EDGE_MASK | INTERIOR_MASK == ALL_CELLS
    assert EDGE_MASK & INTERIOR_MASK == 0


def test_spread_and_flood_against_neighbour_lists() -> None:
    rng = random.Random(5)
    for _ in range(200):
        mask = rng.getrandbits(NUM_CELLS)
        expected = 0
        for c in iter_cells(mask):
            for n in NEIGHBOURS[c]:
                expected |= 1 << n
        assert spread(mask) == expected
        within = rng.getrandbits(NUM_CELLS) | rng.getrandbits(NUM_CELLS)
        seed = 1 << rng.randrange(NUM_CELLS)
        # breadth-first search by hand
        reached = set()
        todo = [c for c in iter_cells(seed & within)]
        while todo:
            c = todo.pop()
            if c in reached:
                continue
            reached.add(c)
            todo.extend(n for n in NEIGHBOURS[c] if within >> n & 1)
        assert flood(seed, within) == sum(1 << c for c in reached)


def test_flood_examples() -> None:
    row1 = mask_of(["A1", "B1", "C1", "E1"])
    assert names(flood(mask_of(["A1"]), row1)) == {"A1", "B1", "C1"}
    assert flood(mask_of(["D1"]), row1) == 0  # the seed is outside `within`
    assert names(spread(mask_of(["A1"]))) == {"B1", "A2", "B2"}


def test_iter_cells_and_mask_of() -> None:
    m = mask_of(["C3", 0, "k5"])
    assert list(iter_cells(m)) == [0, 21, 48]
    assert list(iter_cells(0)) == []
    assert list(iter_cells(ALL_CELLS)) == list(range(NUM_CELLS))
