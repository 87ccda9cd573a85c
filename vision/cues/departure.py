"""A colour that left its own empty range: in the placing phase every cell is seen empty in
many still frames before a piece is put there, so each cell's colour (white-normalised) has
a range of its own (a few hundredths: the sensor's noise, the JPEG). A white
top on a pale board of its brightness fits the empty board by the frame's wide spread, its
outline looks like the print's, and the board round it changes little; but its centre's
colour leaves the cell's own range by ten times its noise or more, toward the piece's colour
(outside camera game 5: G4 moved 0.09 in R-G where its noise was 0.007, all the way to the
white tops'). A shadow or a halo shifts the cells round it too, and a neighbour's new top
tints a cell only part of the way: neither is a departure here."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.geometry import NUM_CELLS
from vision.cues.colour_dist import PIECES, WITHIN_TWO
from vision.sampling import Measured, Thresholds
from vision.stats import median

#: Still frames a cell must have been read empty in (the camera where it is now) before its
#: own range counts, and how many of the latest are kept (the light drifts).
LEAST = 3
KEEP = 8
#: Floor of a cell's own noise (log brightness, (R-G)/L, (B-G)/L): a quarter of the floor
#: of the frame's empty spread (``classify.EMPTY_STD``).
NOISE_FLOOR = np.array([0.025, 0.009, 0.01])
#: A departure (squared, in units of the cell's own noise, summed over the three features)
#: of this much says something new stands there; below QUIET the frame refreshes the range.
DEPART = 30.0
QUIET = 10.0
#: The share of the way from the cell's own empty colour to the piece class's colour the
#: departure must cover (a neighbour's top, a halo: part of it), and how far aside of that
#: line it may end (a share of the way's length).
TOWARD = (0.6, 1.5)
ASIDE = 0.5
#: Still frames in a row that must show the departure (a passing shadow shows in one).
RUN = 2
#: Cells round a cell (within two steps) whose own departures give the shift a shadow or the
#: light put on all of them (their median): at least this many.
AROUND = 3


@dataclass
class Departures:
    """Per cell, its recent colours (white-normalised) in still frames that read it empty,
    where the camera saw it then, and the still frames in a row that showed it departed."""

    history: np.ndarray | None = None
    anchor: np.ndarray | None = None
    run: np.ndarray | None = None
    #: The last judged departure (squared noise units; nan: no range), for ``remember``.
    score: np.ndarray | None = None

    def judge(self, colour: np.ndarray, target: np.ndarray, scale: np.ndarray,
              clean: np.ndarray, still: bool, anchor: np.ndarray | None, moved_px: float
              ) -> np.ndarray:
        """(49,) True where ``colour`` (each cell's features, white-normalised) left the
        cell's own range toward ``target`` (its likeliest piece class's colour there) in this
        still frame and the ``RUN`` - 1 still frames before, where ``clean`` (nothing over or
        round the cell). ``scale`` weighs the features (the frame's empty spread);
        ``moved_px``: how far a cell may move in the frame and keep its range."""
        if self.history is None or self.run is None:
            self.history = np.full((NUM_CELLS, KEEP, 3), np.nan)
            self.run = np.zeros(NUM_CELLS, int)
        if anchor is not None and self.anchor is not None:
            away = ~(np.linalg.norm(anchor - self.anchor, axis=1) <= moved_px)
            self.history[away] = np.nan
        n = np.isfinite(self.history[..., 0]).sum(axis=1)
        known = n >= LEAST
        safe = np.where(np.isfinite(self.history), self.history, 0.0)
        mu = safe.sum(axis=1) / np.maximum(n, 1)[:, None]
        var = (np.where(np.isfinite(self.history), (safe - mu[:, None]) ** 2, 0.0).sum(axis=1)
               / np.maximum(n - 1, 1)[:, None])
        noise = np.maximum(np.sqrt(var), NOISE_FLOOR)
        d = colour - mu
        # What moved the cells round it moved it too (a shadow, a halo, the light); where
        # too few round it are known (a corner late in the placing), what moved them all.
        ok = known & clean & np.all(np.isfinite(d), axis=1)
        shift = np.zeros((NUM_CELLS, 3))
        if ok.sum() >= AROUND:
            shift[:] = median(d[ok], axis=0)
        for c in range(NUM_CELLS):
            near = WITHIN_TWO[c] & ok
            if near.sum() >= AROUND:
                shift[c] = median(d[near], axis=0)
        d = d - shift
        score = ((d / noise) ** 2).sum(axis=1)
        u = (target - mu) / scale
        x = d / scale
        length2 = np.maximum((u * u).sum(axis=1), 1e-9)
        frac = (x * u).sum(axis=1) / length2
        aside = np.sqrt(((x - frac[:, None] * u) ** 2).sum(axis=1) / length2)
        self.score = np.where(ok, score, np.nan)
        departs = (ok & (score >= DEPART) & (frac >= TOWARD[0]) & (frac <= TOWARD[1])
                   & (aside <= ASIDE))
        if still:
            self.run = np.where(ok, np.where(departs, self.run + 1, 0), self.run)
        return np.asarray(departs & (self.run >= RUN))

    def remember(self, colour: np.ndarray, empty: np.ndarray, anchor: np.ndarray | None
                  ) -> None:
        """Keep the colours of the cells this still frame read empty (``empty``: nothing
        over or round them), unless they departed from their range (a piece the frame
        missed does not become the cell's empty look)."""
        if self.history is None:
            return
        if anchor is not None and self.anchor is None:
            self.anchor = np.full((NUM_CELLS, 2), np.inf)
        # (a cell with a range that was not judged, a mixed one, does not refresh it)
        fresh = np.isfinite(self.history[..., 0]).sum(axis=1) < LEAST
        quiet = fresh | (np.nan_to_num(self.score, nan=np.inf) < QUIET
                         if self.score is not None else False)
        take = empty & quiet & np.all(np.isfinite(colour), axis=1)
        self.history[take] = np.roll(self.history[take], -1, axis=1)
        self.history[take, -1] = colour[take]
        if anchor is not None and self.anchor is not None:
            self.anchor[take] = anchor[take]


def departed(deps: Departures, m: Measured, empty_s: np.ndarray,
             means: dict[str, np.ndarray], kinds: np.ndarray, shade: np.ndarray,
             clean: np.ndarray, still: bool, anchor: np.ndarray | None, th: Thresholds
             ) -> np.ndarray:
    """``Departures.judge`` for a frame the colour model measured: ``m``'s colours toward
    each cell's likeliest piece class (``kinds``: indices into PIECES; ``means`` with the
    light divided out, ``shade`` the light at each cell), weighed by the frame's empty spread
    ``empty_s``. The colours are the cells' own, not relative to the frame's empty model:
    late in the placing that is the median of a few cells, and the light measured between
    them changes as tops come round them (room game 107: A1 unchanged, its model 0.19
    brighter). Only a cell whose samples are even (``th.flat``, a new top's face) is
    judged: fingers over part of it that the hands cue missed mix skin and board there
    (outside camera game 9: B1 beside the hand placing A1, 0.06-0.08)."""
    target = np.stack([np.asarray(means[k], float) for k in PIECES])[kinds]
    target[:, 0] += shade
    return deps.judge(m.raw, target, empty_s, clean & (m.spread <= th.flat), still, anchor,
                      th.look_moved)
