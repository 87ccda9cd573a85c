"""Each cell's own look when last seen empty: in play every cell is seen empty before a piece
is put there, so a cell the heights call empty whose board round it changed all round since
holds a new piece (white on paper too), and one unchanged since holds none."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.geometry import NEIGHBOURS, NUM_CELLS, board_xy
from vision.measure import CellSamples, Thresholds, ring_change


def _toward(directions: int) -> np.ndarray:
    """(49, 49, A): for each cell and each cell within two steps of it (stacks that may lean
    over it or cast their shadows on it), the directions round the first (A evenly from 0)
    within 50 degrees of the second."""
    one = np.zeros((NUM_CELLS, NUM_CELLS), bool)
    for c in range(NUM_CELLS):
        one[c, list(NEIGHBOURS[c])] = True
    near = one | ((one.astype(int) @ one.astype(int)) > 0)
    np.fill_diagonal(near, False)
    xy = np.array([board_xy(c) for c in range(NUM_CELLS)])
    d = xy[None, :, :] - xy[:, None, :]
    angle = np.arctan2(d[..., 1], d[..., 0])  # (49, 49)
    rays = 2.0 * np.pi * np.arange(directions) / directions
    apart = np.abs(np.angle(np.exp(1j * (rays[None, None, :] - angle[..., None]))))
    return np.asarray(near[..., None] & (apart < np.radians(50.0)))


_TOWARD: dict[int, np.ndarray] = {}


@dataclass
class CellLooks:
    """Per cell, the board round its centre (log brightness, ``CellSamples.ring``) when last
    seen empty in a still frame, the directions then in view, where the cell was in the frame
    (a moved camera makes the look useless) and the heights of all cells then."""

    look: np.ndarray | None = None
    valid: np.ndarray | None = None
    anchor: np.ndarray | None = None
    heights: np.ndarray | None = None

    def change(self, s: CellSamples, th: Thresholds) -> np.ndarray:
        """Per cell, how much the board round its centre changed since the cell was last
        seen empty, in units of the change that makes it a new piece (nan: no look kept, the
        camera moved since, too few directions to compare): 1 or more where most directions
        changed clearly."""
        out = np.full(NUM_CELLS, np.nan)
        look, valid, anchor = self.look, self.valid, self.anchor
        if (look is None or valid is None or anchor is None or s.ring is None
                or s.ring_valid is None or s.anchor is None or s.heights is None
                or self.heights is None):
            return out
        # Directions towards a stack that is new or of another height since the look was kept
        # are left out (its side wall, its shadow, what it hides there).
        a = s.ring.shape[1]
        if a not in _TOWARD:
            _TOWARD[a] = _toward(a)
        changed = self.heights != np.asarray(s.heights)[None, :]  # (49, 49)
        away = ~(changed[..., None] & _TOWARD[a]).any(axis=1)  # (49, A)
        med, share = ring_change(s.ring, s.ring_valid & away, look, valid)
        same = np.linalg.norm(s.anchor - anchor, axis=1) <= th.look_moved
        ok = same & np.isfinite(med) & np.isfinite(share)
        score = np.minimum(np.nan_to_num(med) / th.look_change,
                           np.nan_to_num(share) / th.look_share)
        return np.where(ok, score, np.nan)

    def remember(self, s: CellSamples, empty: np.ndarray, moved: np.ndarray,
                 shown: np.ndarray, th: Thresholds) -> None:
        """Keep the look of the cells read empty (refreshed while it changes little: light
        drifts; never replaced by a changed look: a new piece the frame missed stays new)."""
        if s.ring is None or s.ring_valid is None or s.anchor is None:
            return
        if self.look is None or self.valid is None or self.anchor is None:
            self.look = np.zeros_like(s.ring)
            self.valid = np.zeros(s.ring_valid.shape, bool)
            self.anchor = np.full((NUM_CELLS, 2), np.inf)
        if self.heights is None:
            self.heights = np.zeros((NUM_CELLS, NUM_CELLS), int)
        # Comparable with the kept look: the camera where it was.
        known = np.linalg.norm(s.anchor - self.anchor, axis=1) <= th.look_moved
        keep = empty & (s.ring_valid.sum(axis=1) >= 8) & (~known | (moved < 0.5))
        self.look[keep] = s.ring[keep]
        self.valid[keep] = s.ring_valid[keep]
        self.anchor[keep] = s.anchor[keep]
        self.heights[keep] = shown.astype(int)[None, :]
