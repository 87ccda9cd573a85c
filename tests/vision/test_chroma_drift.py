"""The chroma at a cell's centre while empty, less what every empty cell moved by (automatic
white balance, the room's light): a white top on pale paper is told by its tint where the
range of the cell's chroma over a whole game is too wide to (room game 113: the empty cells'
median moved by 0.08 in one channel, G5's range spanned it, and its committed white top,
0.13 off the drifted mean, read bare and the game stalled)."""

from __future__ import annotations

import numpy as np

from engine.geometry import NUM_CELLS
from vision.cues.own_look import DRIFT_CELLS, REF_CHROMA, CellLooks

CELL = 30
rng = np.random.default_rng(7)
#: Each cell's own chroma while empty (print, paper, the lamp's fall-off).
OWN = rng.normal(0.0, 0.02, (NUM_CELLS, 2))


def _frame(shift: float) -> np.ndarray:
    """Every cell's chroma in one frame: its own, the frame's drift, a little noise."""
    return OWN + np.array([0.0, shift]) + rng.normal(0.0, 0.005, (NUM_CELLS, 2))


def _learn(looks: CellLooks, shifts: np.ndarray, heights: np.ndarray) -> None:
    keep = heights == 0
    for shift in shifts:
        looks._keep_ref(_frame(float(shift)), heights, keep, np.zeros(NUM_CELLS, bool))


def test_a_drift_of_every_empty_cell_is_not_a_piece() -> None:
    looks = CellLooks()
    heights = np.zeros(NUM_CELLS, int)
    _learn(looks, np.linspace(-0.045, 0.035, 60), heights)  # 0.08 over the game, slowly
    off = looks.off_ref(_frame(0.04), heights)
    assert np.nanmax(off) < REF_CHROMA
    drift = looks.drift(_frame(0.04), heights)  # from the first frame the means were taken in
    assert drift is not None and abs(drift[1] - 0.085) < 0.01 and abs(drift[0]) < 0.01


def test_a_white_top_is_off_its_cells_mean_where_the_range_is_not() -> None:
    looks = CellLooks()
    heights = np.zeros(NUM_CELLS, int)
    _learn(looks, np.linspace(-0.045, 0.035, 60), heights)
    heights[CELL] = 1  # committed: its own chroma no longer teaches its mean
    now = _frame(0.03)
    now[CELL, 1] = OWN[CELL, 1] + 0.03 - 0.11  # the top's tint, against the frame's drift
    before = looks.chroma_ref.copy() if looks.chroma_ref is not None else None
    _learn(looks, np.array([0.03]), heights)
    assert looks.chroma_ref is not None and before is not None
    assert np.allclose(looks.chroma_ref[CELL], before[CELL])
    # (the whole game's range, -0.045 .. 0.035 round its own, holds the top within 0.06)
    assert looks.off_ref(now, heights)[CELL] > REF_CHROMA
    assert looks.off_ref(_frame(0.03), heights)[CELL] < REF_CHROMA  # the same cell bare


def test_too_few_known_empty_cells_keep_the_last_drift() -> None:
    looks = CellLooks()
    heights = np.zeros(NUM_CELLS, int)
    assert looks.drift(_frame(0.0), heights) is None  # no means yet
    assert np.isnan(looks.off_ref(_frame(0.0), heights)).all()
    _learn(looks, np.zeros(5), heights)
    assert looks.drift(_frame(0.02), heights) is not None
    heights[DRIFT_CELLS - 1:] = 1  # late in the placing phase
    drift = looks.drift(_frame(0.1), heights)
    assert drift is not None and abs(drift[1] - 0.02) < 0.01
