"""The DVONN board: 49 cells, their names, neighbours, rays and physical layout.

Cells are ints 0..48 in the canonical order of RULES.md (A1 B1 ... I1, A2 ... J2, A3 ... K3,
B4 ... K4, C5 ... K5). Sets of cells are 49-bit ints (bit ``c`` set means cell ``c``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

NUM_CELLS = 49
ROWS = 5
COLUMNS = "ABCDEFGHIJK"
ROW_LENGTHS = (9, 10, 11, 10, 9)
#: First column index (0 = A) of each row.
ROW_FIRST_COLUMN = (0, 0, 0, 1, 2)
ALL_CELLS = (1 << NUM_CELLS) - 1

#: The six directions as (row step, column step).
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1))
DIRECTION_NAMES = ("east", "west", "north", "south", "northeast", "southwest")


def _build() -> tuple[list[tuple[int, int]], dict[tuple[int, int], int]]:
    coords: list[tuple[int, int]] = []
    for r in range(ROWS):
        first = ROW_FIRST_COLUMN[r]
        for c in range(first, first + ROW_LENGTHS[r]):
            coords.append((r + 1, c))
    return coords, {rc: i for i, rc in enumerate(coords)}


_COORDS, _INDEX = _build()

#: (row 1..5, column index 0..10) of every cell.
CELL_COORDS: tuple[tuple[int, int], ...] = tuple(_COORDS)
CELL_NAMES: tuple[str, ...] = tuple(f"{COLUMNS[c]}{r}" for r, c in _COORDS)
_NAME_INDEX = {name: i for i, name in enumerate(CELL_NAMES)}


def cell_at(row: int, column: int) -> int | None:
    """The cell at (row 1..5, column index 0..10), or None off the board."""
    return _INDEX.get((row, column))


def cell_name(cell: int) -> str:
    """``cell_name(0) == 'A1'``."""
    return CELL_NAMES[cell]


def parse_cell(text: str) -> int:
    """``parse_cell('c3') == 21``. Raises ValueError naming the text when it is no cell."""
    cell = _NAME_INDEX.get(text.strip().upper())
    if cell is None:
        raise ValueError(f"{text!r} is not a cell of the DVONN board (A1..I1, A2..J2, A3..K3, "
                         "B4..K4, C5..K5)")
    return cell


def _step(cell: int, direction: int, distance: int) -> int | None:
    r, c = CELL_COORDS[cell]
    dr, dc = DIRECTIONS[direction]
    return cell_at(r + dr * distance, c + dc * distance)


#: RAYS[cell][direction] = cells reached at distance 1, 2, ... until the board ends.
RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(
            t
            for t in (_step(cell, d, k) for k in range(1, 12))
            if t is not None
        )
        for d in range(6)
    )
    for cell in range(NUM_CELLS)
)
# A ray stops at the first off-board step: rows are convex, so no later cell comes back.
assert all(
    _step(c, d, k + 1) == RAYS[c][d][k] for c in range(NUM_CELLS) for d in range(6)
    for k in range(len(RAYS[c][d]))
)

#: NEIGHBOURS[cell] = the on-board adjacent cells.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(ray[0] for ray in RAYS[cell] if ray) for cell in range(NUM_CELLS)
)
#: NEIGHBOUR_MASKS[cell] = NEIGHBOURS[cell] as a mask.
NEIGHBOUR_MASKS: tuple[int, ...] = tuple(
    sum(1 << n for n in NEIGHBOURS[cell]) for cell in range(NUM_CELLS)
)
#: Cells with fewer than six neighbours: off-board counts as open, so these are never blocked.
EDGE_MASK = sum(1 << c for c in range(NUM_CELLS) if len(NEIGHBOURS[c]) < 6)
INTERIOR_MASK = ALL_CELLS & ~EDGE_MASK


def distance(a: int, b: int) -> int:
    """Hex distance: max(|dr|, |dc|, |dr - dc|)."""
    ra, ca = CELL_COORDS[a]
    rb, cb = CELL_COORDS[b]
    dr, dc = rb - ra, cb - ca
    return max(abs(dr), abs(dc), abs(dr - dc))


def direction_between(a: int, b: int) -> int | None:
    """The direction index from a to b if they lie on one straight line, else None."""
    for d in range(6):
        if b in RAYS[a][d]:
            return d
    return None


def _spread_table() -> tuple[tuple[int, int], ...]:
    """Group (source cell, neighbour) pairs by index offset, for flood fill by shifts."""
    groups: dict[int, int] = {}
    for cell in range(NUM_CELLS):
        for n in NEIGHBOURS[cell]:
            groups[n - cell] = groups.get(n - cell, 0) | (1 << cell)
    return tuple(sorted(groups.items()))


#: (index offset, mask of cells whose neighbour lies at that offset).
SPREAD: tuple[tuple[int, int], ...] = _spread_table()


def spread(mask: int) -> int:
    """All cells adjacent to a cell of ``mask`` (not including ``mask`` itself unless adjacent)."""
    out = 0
    for offset, sources in SPREAD:
        if offset > 0:
            out |= (mask & sources) << offset
        else:
            out |= (mask & sources) >> -offset
    return out


def flood(seed: int, within: int) -> int:
    """The cells of ``within`` connected to ``seed & within`` through adjacent cells of it."""
    reached = seed & within
    while True:
        grown = (reached | spread(reached)) & within
        if grown == reached:
            return reached
        reached = grown


def iter_cells(mask: int) -> Iterator[int]:
    """The cells of a mask in ascending order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(cells: object) -> int:
    """A mask from an iterable of cells or cell names."""
    out = 0
    for c in cells:  # type: ignore[attr-defined]
        out |= 1 << (parse_cell(c) if isinstance(c, str) else int(c))
    return out


def cell_xy(cell: int, pitch: float = 1.0) -> tuple[float, float]:
    """Physical centre of a cell as in RULES.md: row 1 at y = 0, A1 at x = 0."""
    r, c = CELL_COORDS[cell]
    return ((c - (r - 1) / 2) * pitch, (r - 1) * (math.sqrt(3) / 2) * pitch)


def board_xy(cell: int, pitch: float = 1.0) -> tuple[float, float]:
    """Centre of a cell relative to the centre of F3 (the camera's board origin)."""
    x, y = cell_xy(cell, pitch)
    x0, y0 = cell_xy(CENTRE_CELL, pitch)
    return (x - x0, y - y0)


CENTRE_CELL = 24  # F3
assert CELL_NAMES[CENTRE_CELL] == "F3"
