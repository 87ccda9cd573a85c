"""A lamp's spot on the empty board: a piece put under it hides part of it.

A lamp's reflection clips the board white on a cell or two, from the first frame of a game
(room game 138: D5 and E5 on grey card). A black piece put there shows a grey top washed by
the spot's halo, which fits the empty board; but its top hides the part of the spot under
it, and the cell's clipped share falls far below the least it showed while empty (D5: 0.79
to 1.00 empty, 0.26 to 0.42 with the piece), while the board round it, between the cells,
clips as it did (D5's: 0.40 before and after). A camera's exposure or the room's light moves
both together; a bright paper that clips now and then clips on the cells, not between them
(room game 122: up to 1.00 on a cell, 0.00 round every one), and is no spot."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.geometry import NUM_CELLS
from vision.sampling import Thresholds, clipped_white

#: How far below the least clipped share a cell showed while empty under the spot its share
#: must fall for something to lie there.
SPOT_DROP = 0.3
#: The least share of the board round a cell that clipped with it, for a spot to tell.
RING_SPOT = 0.2
#: ... and how far from the shares it clipped while empty it may clip now (the light as it
#: was).
RING_SLIP = 0.1
#: How far above the most a cell in a spot's halo clipped while empty its share must rise
#: (a white top catching the lamp: room game 138's D4, 0.00 empty, 0.16 with White's piece)
HALO_RISE = 0.1
#: ... where at least this share of the board round it clipped while it was empty.
RING_HALO = 0.1


def clipped_share(px: np.ndarray, valid: np.ndarray | None = None) -> np.ndarray:
    """Per row of ``px`` (..., n, 3), the share of its ``valid`` samples clipped white."""
    clipped = clipped_white(px)
    ok = np.ones(clipped.shape, bool) if valid is None else valid
    return np.asarray((clipped & ok).sum(axis=-1) / np.maximum(ok.sum(axis=-1), 1))


def ring_clipped(inter: np.ndarray, inter_of: list[list[int]]) -> np.ndarray:
    """(49,): per cell, the share of the board samples round it (between the cells) that
    clip."""
    if len(inter) == 0 or not inter_of:
        return np.zeros(NUM_CELLS)
    idx = np.asarray(inter_of)
    ok = idx >= 0
    return clipped_share(np.nan_to_num(inter)[np.maximum(idx, 0)], ok)


@dataclass
class Spots:
    """Per cell, while it was empty in still frames: the least share of clipped samples
    under a spot, the most share (any spot or none), and the least and most share of the
    board round it that clipped."""

    floor: np.ndarray = field(default_factory=lambda: np.full(NUM_CELLS, np.nan))
    ceiling: np.ndarray = field(default_factory=lambda: np.full(NUM_CELLS, np.nan))
    ring_lo: np.ndarray = field(default_factory=lambda: np.full(NUM_CELLS, np.nan))
    ring_hi: np.ndarray = field(default_factory=lambda: np.full(NUM_CELLS, np.nan))

    def remember(self, saturated: np.ndarray, ring: np.ndarray, empty: np.ndarray,
                 th: Thresholds) -> None:
        """A still frame: the cells ``empty`` (those that clip more than the share that
        makes a cell unreadable: a spot)."""
        sel = empty & (saturated > th.saturated)
        self.floor[sel] = np.fmin(self.floor[sel], saturated[sel])
        # (drifting up, not jumping: a new piece not committed yet is "empty" here too)
        up = empty & ~(saturated - self.ceiling >= HALO_RISE)
        self.ceiling[up] = np.fmax(self.ceiling[up], saturated[up])
        self.ring_lo[up] = np.fmin(self.ring_lo[up], ring[up])
        self.ring_hi[up] = np.fmax(self.ring_hi[up], ring[up])

    def hidden(self, saturated: np.ndarray, ring: np.ndarray) -> np.ndarray:
        """(49,) bool: cells whose spot shrank since they were seen empty under it, and cells
        in a spot's halo that clip where they did not while empty; the board round each
        clipping as it did then."""
        lo = np.nan_to_num(self.ring_lo, nan=0.0)
        hi = np.nan_to_num(self.ring_hi, nan=1.0)
        drop = np.nan_to_num(self.floor - saturated, nan=0.0) >= SPOT_DROP
        rise = np.nan_to_num(saturated - self.ceiling, nan=0.0) >= HALO_RISE
        return np.asarray(drop & (lo >= RING_SPOT) & (ring >= lo - RING_SLIP)
                          | rise & (lo >= RING_HALO) & (ring <= hi + RING_SLIP))
