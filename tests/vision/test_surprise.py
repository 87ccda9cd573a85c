"""Pieces the heights do not know yet (a placement the controller has not committed): the
reader gets the heights before the placement, so the new piece stands where they say empty.
It must read its colour, also where that colour is the empty board's (white on paper), while
an empty cell with a printed circle round it still reads '.'."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reader import BoardReader
from vision.synthetic.render import heights_of, random_position, random_scene, render

SIZE = (800, 600)


def _frame(seed: int) -> tuple[np.ndarray, str, list[int], str]:
    rng = np.random.default_rng(9000 + seed)
    stacks = random_position(rng)
    scene = random_scene(rng, stacks, hands=0, size=SIZE, wide=True)
    frame, truth = render(scene)
    prints = scene.material.prints if scene.material is not None else "sheet"
    return frame, truth.expected, heights_of(stacks), prints


@pytest.mark.parametrize(("seed", "cell"), [(3, 16), (2, 4), (6, 42)])
def test_a_new_white_piece_on_a_white_board_reads_white(seed: int, cell: int) -> None:
    """The colour fits the empty board: the outline (edge, side wall, shadow) like the
    frame's known white pieces tells it (before: '.', a placement never seen)."""
    frame, want, heights, _ = _frame(seed)
    assert heights[cell] == 1 and want[cell] == "w"
    before = list(heights)
    before[cell] = 0
    got = BoardReader().read(frame, before).snapshot
    assert got[cell] == "w", (seed, cell, got[cell])
    assert all(g == w for g, w in zip(got, want, strict=True) if w != "*"), (got, want)


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_empty_cells_with_printed_circles_still_read_empty(seed: int) -> None:
    """A printed circle is an edge round every empty cell: no piece there, with the true
    heights or with a new piece somewhere else the heights do not know."""
    frame, want, heights, prints = _frame(seed)
    assert "circles" in prints
    empty = [i for i, w in enumerate(want) if w == "."]
    assert len(empty) >= 10
    got = BoardReader().read(frame, heights).snapshot
    assert all(got[i] == "." for i in empty), got
    new = next(i for i, w in enumerate(want) if w in "wbr" and heights[i] == 1)
    before = list(heights)
    before[new] = 0
    got = BoardReader().read(frame, before).snapshot
    assert all(got[i] == "." for i in empty), got
