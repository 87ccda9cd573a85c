"""A stack lifted away where the board is the colour of its piece (white on the cream sheet at
a steep tilt): the colour fits both, the printed circle gives the cell an edge, and the
outline rule does not reach. In play the reader saw every cell empty when the game began:
a cell the heights call occupied whose board round it is again as it was then, in every
direction no other stack can hide, holds no stack. Whole camera game 4
(benchmarks/camera_games.py, ply 51: the stack lifted from A2 read 'w' and the game waited
for a move it never saw)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from test_new_tops import TILTED_SHEET

from vision.cues.own_look import CellLooks
from vision.reader import BoardReader
from vision.sampling import CellSamples, Thresholds
from vision.synthetic.render import render

#: Camera game 4's table: the project's sheet in cream ('beige'), a 6300 K lamp, 34 deg tilt.
CREAM_STEEP = TILTED_SHEET
#: The tops at ply 50 (all single pieces but one), and the lifted cell (A2, white).
TOPS = "wwwbbrwwwwwwwwbwbwwbbbwbbbbwbbwbbrbwwbwbbbbw.wbrw"
HEIGHTS = [0 if t == "." else 1 for t in TOPS]
HEIGHTS[35] = 2
LIFTED = 9


def _stacks(tops: str) -> list[str]:
    return ["" if t == "." else "b" * (HEIGHTS[c] - 1) + t for c, t in enumerate(tops)]


def test_a_lifted_white_stack_on_the_cream_sheet_at_a_steep_tilt_reads_empty() -> None:
    reader = BoardReader()
    reader.read(render(CREAM_STEEP)[0], [0] * 49)  # the game began on the empty board
    standing, truth = render(replace(CREAM_STEEP, stacks=_stacks(TOPS), seed=11))
    got = reader.read(standing, HEIGHTS).snapshot
    assert got[LIFTED] == "w", got  # while it stands, the stack reads its colour
    assert all(g == w for g, w in zip(got, truth.expected, strict=True) if w != "*"), got
    lifted = TOPS[:LIFTED] + "." + TOPS[LIFTED + 1:]
    for seed in (12, 13):
        image, truth = render(replace(CREAM_STEEP, stacks=_stacks(lifted), seed=seed))
        got = reader.read(image, HEIGHTS).snapshot  # the controller's heights: still there
        assert got[LIFTED] == ".", got
        # ... and no standing stack reads '.'
        assert all(g == w for g, w in zip(got, truth.expected, strict=True) if w != "*"), got


def _samples(ring: np.ndarray, heights: list[int]) -> CellSamples:
    n = ring.shape[0]
    return CellSamples(np.zeros((n, 1, 3)), np.ones((n, 1), bool), np.full((n, 3), 200.0),
                       heights=np.asarray(heights), base=np.full((n, 7, 3), 120.0),
                       base_valid=np.ones((n, 7), bool), ring=ring,
                       ring_valid=np.ones(ring.shape[:2], bool), anchor=np.zeros((n, 2)))


def test_a_look_that_could_not_be_compared_is_not_replaced() -> None:
    """Camera game 5: a white piece put down on the cream sheet read '.' for six frames while
    its neighbours' changed heights left too few directions to compare its own look; the
    look was replaced by the piece's, and the stack later read as bare ('.')."""
    th = Thresholds()
    rng = np.random.default_rng(0)
    empty = 100.0 + rng.normal(0.0, 1.0, (49, 12, 19))
    looks = CellLooks()
    looks.remember(_samples(empty, [0] * 49), np.ones(49, bool), np.zeros(49),
                   np.zeros(49), th)
    piece = empty.copy()
    piece[:, :, :8] += 60.0  # a top over the inner part of every direction
    looks.last = np.full(49, np.nan)  # the change could not be compared
    looks.remember(_samples(piece, [0] * 49), np.ones(49, bool), np.zeros(49),
                   np.zeros(49), th)
    assert looks.look is not None and np.array_equal(looks.look, empty)
    heights = [1] * 49
    def open_(cells: np.ndarray) -> np.ndarray:
        return np.ones((len(cells), 12), bool)

    assert not looks.bare(_samples(piece, heights), open_, th).any()  # the piece stands
    assert looks.bare(_samples(empty + 0.5, heights), open_, th).all()  # gone


def test_a_top_of_the_boards_brightness_but_not_its_colour_is_no_bare_cell() -> None:
    """The print profiles are brightness only: a white top on a light blue board of its
    brightness leaves them as they were (renderer seed 2 frame 33 read a standing white
    piece '.'); the chroma at the cell's centre tells them apart."""
    th = Thresholds()
    rng = np.random.default_rng(1)
    empty = 100.0 + rng.normal(0.0, 1.0, (49, 12, 19))
    looks = CellLooks()
    board = _samples(empty, [0] * 49)
    assert board.base is not None
    board.base[..., 0] += 40.0  # a blue board (BGR)
    looks.remember(board, np.ones(49, bool), np.zeros(49), np.zeros(49), th)

    def open_(cells: np.ndarray) -> np.ndarray:
        return np.ones((len(cells), 12), bool)

    top = _samples(empty + 0.5, [1] * 49)  # the same brightness all round, a grey top
    assert not looks.bare(top, open_, th).any()
    gone = _samples(empty + 0.5, [1] * 49)
    assert gone.base is not None
    gone.base[..., 0] += 40.0
    assert looks.bare(gone, open_, th).all()
