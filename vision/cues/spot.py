"""A lamp's spot on the empty board: a piece put under it hides part of it.

A lamp's reflection clips the board white on a cell or two, from the first frame of a game
(room game 138: D5 and E5 on grey card). A black piece put there shows a grey top washed by
the spot's halo, which fits the empty board; but its top hides the part of the spot under
it, and the cell's clipped share falls far below the least it showed while empty (D5: 0.84
to 0.95 empty, 0.32 to 0.42 with the piece). The light's own drift and the camera's exposure
move it far less (E5: 0.47 to 0.84 over the game). Beside the spot, in its halo, a white top
catches the lamp where the empty board never clipped (D4: none empty, 0.16 with White's
piece, which read as the board)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.geometry import NEIGHBOUR_MASKS, NUM_CELLS

_NEIGHBOURS = np.array([[(NEIGHBOUR_MASKS[a] >> b) & 1 for b in range(NUM_CELLS)]
                        for a in range(NUM_CELLS)])

#: How far below the least clipped share a cell showed while empty under the spot its share
#: must fall for something to lie there.
SPOT_DROP = 0.3
#: ... and how far above the most a cell beside a spot showed while empty it must rise.
HALO_RISE = 0.1


@dataclass
class Spots:
    """Per cell, the least share of clipped samples seen while it was empty under a spot."""

    floor: np.ndarray = field(default_factory=lambda: np.full(NUM_CELLS, np.nan))
    #: ... and the most, any spot or none
    ceiling: np.ndarray = field(default_factory=lambda: np.full(NUM_CELLS, np.nan))

    def remember(self, saturated: np.ndarray, empty: np.ndarray, unreadable: float) -> None:
        """A still frame: the cells ``empty`` that clip more than ``unreadable`` (a spot)."""
        sel = empty & (saturated > unreadable)
        self.floor[sel] = np.fmin(self.floor[sel], saturated[sel])
        # (drifting up, not jumping: a new piece not committed yet is "empty" here too)
        up = empty & ~(saturated - self.ceiling >= HALO_RISE)
        self.ceiling[up] = np.fmax(self.ceiling[up], saturated[up])

    def hidden(self, saturated: np.ndarray) -> np.ndarray:
        """(49,) bool: cells whose spot shrank since they were seen empty under it, and cells
        beside a spot that clip where they did not while empty."""
        spot = np.isfinite(self.floor)
        near = spot | (_NEIGHBOURS @ spot.astype(int) > 0)
        rise = np.nan_to_num(saturated - self.ceiling, nan=0.0) >= HALO_RISE
        return np.asarray((np.nan_to_num(self.floor - saturated, nan=0.0) >= SPOT_DROP)
                          | near & ~spot & rise)
