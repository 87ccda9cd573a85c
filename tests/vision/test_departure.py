"""A colour that left its own empty range (vision.cues.departure): a white top on a pale
board of its brightness fits the empty board by the frame's wide spread, but its centre
leaves the cell's own narrow range, all the way to the white tops' colour (outside camera
game 5's G4: 0.09 in R-G where its noise was 0.007). A neighbour's tint, a shadow over the
cells round it, a single frame, or a moved camera is no departure."""

from __future__ import annotations

import numpy as np

from engine.geometry import CELL_NAMES, NUM_CELLS
from vision.cues.departure import RUN, Departures

#: The frame's empty spread (``classify.EMPTY_STD``) and the white class relative to the
#: empty board at every cell: as bright, less red (game 5: cream paper, R-G 0.12 -> 0.03).
SCALE = np.array([0.10, 0.035, 0.04])
GAP = np.tile([0.0, -0.09, 0.005], (NUM_CELLS, 1))
CELL = CELL_NAMES.index("G4")
ALL = np.ones(NUM_CELLS, bool)


def _empty_board(frames: int = 6, seed: int = 5) -> tuple[Departures, np.random.Generator]:
    """Departures after ``frames`` still frames of the empty board (noise 0.005)."""
    rng = np.random.default_rng(seed)
    deps = Departures()
    for _ in range(frames):
        rel = rng.normal(0.0, 0.005, (NUM_CELLS, 3))
        deps.judge(rel, GAP, SCALE, ALL, True, None, 2.0)
        deps.remember(rel, ALL, None)
    return deps, rng


def _frames(deps: Departures, rng: np.random.Generator, shift: np.ndarray, n: int
            ) -> list[np.ndarray]:
    """What ``n`` still frames with ``shift`` added to the empty board's colours judge."""
    out = []
    for _ in range(n):
        rel = rng.normal(0.0, 0.005, (NUM_CELLS, 3)) + shift
        out.append(deps.judge(rel, GAP, SCALE, ALL, True, None, 2.0))
        deps.remember(rel, ALL, None)
    return out


def test_a_top_of_the_white_tops_colour_departs_in_its_second_still_frame() -> None:
    deps, rng = _empty_board()
    shift = np.zeros((NUM_CELLS, 3))
    shift[CELL] = GAP[CELL]
    got = _frames(deps, rng, shift, RUN + 2)
    assert [bool(g[CELL]) for g in got] == [False] * (RUN - 1) + [True] * 3
    assert all(int(g.sum()) == int(g[CELL]) for g in got)  # no other cell


def test_a_missed_top_does_not_become_the_cells_empty_range() -> None:
    deps, rng = _empty_board()
    shift = np.zeros((NUM_CELLS, 3))
    shift[CELL] = GAP[CELL]
    got = _frames(deps, rng, shift, 12)  # longer than the range keeps
    assert got[-1][CELL]


def test_a_neighbours_tint_part_of_the_way_is_no_departure() -> None:
    deps, rng = _empty_board()
    shift = np.zeros((NUM_CELLS, 3))
    shift[CELL] = 0.4 * GAP[CELL]  # far beyond its noise, but not a white top's colour
    assert not any(g[CELL] for g in _frames(deps, rng, shift, 4))


def test_a_colour_away_from_the_piece_is_no_departure() -> None:
    deps, rng = _empty_board()
    shift = np.zeros((NUM_CELLS, 3))
    shift[CELL] = -GAP[CELL]  # redder: an orange LED's halo
    assert not any(g[CELL] for g in _frames(deps, rng, shift, 4))


def test_a_shadow_over_the_cells_round_it_is_no_departure() -> None:
    deps, rng = _empty_board()
    shift = np.tile(GAP[CELL], (NUM_CELLS, 1))  # every cell as far, the same way
    assert not any(g.any() for g in _frames(deps, rng, shift, 4))


def test_one_frame_is_no_departure() -> None:
    deps, rng = _empty_board()
    shift = np.zeros((NUM_CELLS, 3))
    shift[CELL] = GAP[CELL]
    assert not _frames(deps, rng, shift, 1)[0][CELL]
    assert not _frames(deps, rng, np.zeros((NUM_CELLS, 3)), 1)[0][CELL]
    assert not _frames(deps, rng, shift, 1)[0][CELL]  # the run starts again


def test_a_cell_seen_elsewhere_in_the_frame_has_no_range() -> None:
    rng = np.random.default_rng(3)
    deps = Departures()
    anchor = np.zeros((NUM_CELLS, 2))
    for _ in range(6):
        rel = rng.normal(0.0, 0.005, (NUM_CELLS, 3))
        deps.judge(rel, GAP, SCALE, ALL, True, anchor, 2.0)
        deps.remember(rel, ALL, anchor)
    rel = rng.normal(0.0, 0.005, (NUM_CELLS, 3))
    rel[CELL] += GAP[CELL]
    moved = anchor + 5.0  # the camera moved: the ranges are of other pixels
    got = [deps.judge(rel, GAP, SCALE, ALL, True, moved, 2.0) for _ in range(RUN + 1)]
    assert not any(g[CELL] for g in got)
