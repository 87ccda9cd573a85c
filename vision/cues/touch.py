"""Which stacks a hand moved: a stack set down again never lands exactly where it stood.

A camera cannot see a cell under a hand, but it sees the cell before the hand comes and
after it leaves. A stack the hand did not touch looks the same again (up to sensor noise and
the light); a stack lifted and set back, or one that received a moved stack, lands a few
millimetres off where it was, so its top's outline and the board round it have moved.
:class:`TouchWatch` keeps each occupied cell's look (grey levels on rings across its top's
outline) from the last frame it was in view, and when a cell comes out from under a hand
compares the two: changed clearly more than the other stacks changed between the same two
frames means *touched*; beside a stack gone meanwhile, only where it changed on two opposite
sides of its outline (a stack set down off its place moves its outline both ways; a
neighbour's going changes the side toward it). The controller uses it to tell which prompted
stack the players lifted and set back under the hand (controller.table.camera). A stack seen
gone with no hand seen at all (a hand quicker than the frames) is compared the same way: the
stacks it could reach that changed meanwhile received it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

from engine.geometry import NUM_CELLS, RAYS
from vision.cues.colour_dist import NEIGHBOURING

#: Sample rings across a top's outline, in disc radii, and the directions round it.
_RADII = np.array([0.3, 0.6, 0.85, 1.0, 1.15, 1.3])
_ANGLES = np.radians(np.arange(0, 360, 15))
#: The rings next to the outline (0.85, 1.0 and 1.15 disc radii).
_OUTLINE = slice(2, 5)
#: A cell is touched when its look changed this many times the other stacks' median change.
RATIO = 2.0
#: Beside a stack gone since it was last seen, a cell is touched only where its outline
#: changed this many times the others' change on two opposite sides too: a stack set down off
#: its place moves its outline both where it went and where it came from, a neighbour's going
#: changes the side toward it (room game 129: J4, beside the vacated J3, marked with I3 where
#: J3's stack landed, and committed as the landing once a second hand cleared I3's mark).
OPPOSITE = 1.5
#: Stacks compared to judge the light's and the noise's own change between two frames.
LEAST_OTHERS = 3
#: A stack set down a few millimetres off its place hides a little more or less of its
#: neighbours and moves its shadow over them: a neighbour that came out from under the same
#: hand changed too, but this many times less (outside camera game 11: E1 lifted and set back
#: changed 89, its neighbour E2 14, against the other stacks' 5.6). It was only shaken.
SHAKEN = 3.0
#: A stack seen gone this many frames at most after it was last read (its own look changed
#: with it) with no hand seen: the stacks that changed between the same frames received it.
QUICK = 3


_NEIGHBOURS = NEIGHBOURING.astype(np.int8)


def _opposite(a: np.ndarray, b: np.ndarray) -> float:
    """How much a look changed on both of two opposite sides of the top's outline: per
    direction the mean change on the rings next to the outline, the larger of the two
    sides' lesser (a one-sided change scores the other side's noise)."""
    n = len(_ANGLES)
    ring = np.abs(a - b).reshape(len(_RADII), n)[_OUTLINE].mean(axis=0)
    return float(np.minimum(ring[:n // 2], ring[n // 2:]).max())


def _change(a: np.ndarray, b: np.ndarray) -> float:
    """How much a look changed: the mean of the largest quarter of the differences (a stack
    that moved a few millimetres changes along its outline, not everywhere)."""
    d = np.sort(np.abs(a - b))
    return float(d[(3 * len(d)) // 4:].mean())


class TouchWatch:
    """Per frame: the cells that came out from under a hand changed (:meth:`update`)."""

    def __init__(self, centres: np.ndarray, disc_radius: float, thickness: float) -> None:
        self._offsets = np.array([(r * disc_radius * np.cos(a), r * disc_radius * np.sin(a))
                                  for r in _RADII for a in _ANGLES])
        self._centres = np.asarray(centres, float)
        self._thickness = thickness
        self._frame = 0
        #: frame number -> (the looks of that frame, heights, cells in view)
        self._frames: dict[int, tuple[np.ndarray, tuple[int, ...], np.ndarray, str]] = {}
        self._last_seen = np.full(NUM_CELLS, -1)  # the frame each cell was last in view
        self._hidden = np.zeros(NUM_CELLS, bool)
        self._tops = ["."] * NUM_CELLS  # each cell's reading the last frame it was in view
        self._top_at = np.full(NUM_CELLS, -1)  # the last frame it read a top in view
        self.touched = 0  # cells judged touched, until a hand covers them again

    def reset(self) -> None:
        self._frames.clear()
        self._last_seen[:] = -1
        self._hidden[:] = False
        self._tops = ["."] * NUM_CELLS
        self._top_at[:] = -1
        self.touched = 0

    def looks(self, frame: np.ndarray, project: Callable[[np.ndarray], np.ndarray],
              heights: Sequence[int]) -> np.ndarray:
        """(49, K) grey levels on each cell's rings at its top's height."""
        z = np.maximum(np.asarray(heights, float), 1.0) * self._thickness
        k = len(self._offsets)
        pts = np.empty((NUM_CELLS * k, 3))
        pts[:, :2] = np.repeat(self._centres, k, axis=0) + np.tile(self._offsets, (NUM_CELLS, 1))
        pts[:, 2] = np.repeat(z, k)
        uv = project(pts).astype(np.float32)
        # bilinear: the pose moves by a fraction of a pixel from frame to frame, and a
        # nearest-pixel sample on an outline would jump with it
        vals = cv2.remap(frame, uv[None, :, 0], uv[None, :, 1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).reshape(len(uv), -1)
        return np.asarray(vals.astype(np.float32).mean(axis=1).reshape(NUM_CELLS, k))

    def update(self, frame: np.ndarray, project: Callable[[np.ndarray], np.ndarray],
               heights: Sequence[int], snapshot: str) -> int:
        """Take one frame (its reading ``snapshot``, '?' under a hand) and return the
        touched mask: cells that came out from under or beside a hand changed, kept until a
        hand comes over or beside them again."""
        self._frame += 1
        now = self._frame
        key = tuple(int(h) for h in heights)
        looks = self.looks(frame, project, key)
        under = np.array([ch == "?" for ch in snapshot])
        # beside a hand counts as under it: a sleeve or the hand's edge may read as a piece
        hidden = under | (_NEIGHBOURS @ under > 0)
        occupied = np.asarray(key) > 0
        seen = occupied & ~hidden
        for c in np.flatnonzero(hidden):
            self.touched &= ~(1 << int(c))
        moved: dict[int, float] = {}
        for out in np.flatnonzero(seen & self._hidden).tolist():
            ref = int(self._last_seen[out])
            if ref in self._frames:
                change = self._touched(out, ref, looks, key, seen, snapshot)
                if change is not None:
                    moved[out] = change
        moved.update(self._unseen_hand(now, looks, key, seen, snapshot))
        for cell, change in moved.items():
            # a neighbour that reads otherwise than before the hand is a stack gone (or one
            # come), not one shaken: its stack may have landed here (room game 105: J2K3,
            # J2's change hid K3's; 108: E3D3, E3 read 'w' a frame as it emptied)
            if not any(NEIGHBOURING[cell, d] and other >= SHAKEN * change
                       and snapshot[d] == self._tops[d] for d, other in moved.items()):
                self.touched |= 1 << cell
        self._frames[now] = (looks, key, seen, snapshot)
        self._last_seen[seen] = now
        for i in np.flatnonzero(seen).tolist():
            self._tops[i] = snapshot[i]
            if snapshot[i] in "wbr":
                self._top_at[i] = now
        self._hidden = hidden
        keep = set(self._last_seen[self._last_seen >= 0].tolist()) | set(
            self._top_at[self._top_at >= now - QUICK].tolist())
        for f in [f for f in self._frames if f not in keep]:
            del self._frames[f]
        return self.touched

    def _unseen_hand(self, now: int, looks: np.ndarray, heights: tuple[int, ...],
                     seen: np.ndarray, snapshot: str) -> dict[int, float]:
        """The stacks that changed clearly while a stack in view went, with no hand seen
        (a hand quicker than the frames, or out of the picture), between the last frame
        that stack was read and this one: one of them received it (room game 102: D2's
        stack onto E2, 135: H5's onto G5, both tops of the mover's colour; the table's
        prompt was never answered and nothing later told), among the cells it could reach.
        Gone means read empty now and its own look changed with it (not a top misread empty
        for a frame)."""
        gone = {d: int(self._top_at[d]) for d in np.flatnonzero(seen & ~self._hidden).tolist()
                if snapshot[d] == "." and self._tops[d] in "wbr"
                and self._top_at[d] >= now - QUICK and int(self._top_at[d]) in self._frames}
        gone = {d: ref for d, ref in gone.items()
                if self._touched(d, ref, looks, heights, seen, snapshot) is not None}
        out: dict[int, float] = {}
        for d, ref in gone.items():
            # where it may have gone: as many cells on as it is tall, in a straight line; not
            # beside another stack gone, whose going changed its look too (cut-off stacks
            # taken away, room game 102: A1 and B1 beside C1, B2 and A2)
            h = heights[d]
            for c in {ray[h - 1] for ray in RAYS[d] if 0 < h <= len(ray)}:
                if (seen[c] and not self._hidden[c] and snapshot[c] in "wbr"
                        and self._top_at[c] >= ref
                        and not any(NEIGHBOURING[c, e] for e in gone if e != d)):
                    change = self._touched(c, ref, looks, heights, seen, snapshot)
                    if change is not None:
                        out[c] = max(change, out.get(c, 0.0))
        return out

    def _touched(self, c: int, ref: int, looks: np.ndarray, heights: tuple[int, ...],
                 seen: np.ndarray, snapshot: str) -> float | None:
        """How much cell ``c`` changed since frame ``ref`` when that is clearly more than the
        other stacks changed (touched; beside a stack gone since, on two opposite sides
        too), else None."""
        old, old_heights, old_seen, old_snapshot = self._frames[ref]
        if old_heights[c] != heights[c]:
            return None  # sampled at another height: not comparable
        same = np.array([a == b for a, b in zip(old_heights, heights, strict=True)])
        others = np.flatnonzero(seen & old_seen & same)
        others = others[others != c]
        if len(others) < LEAST_OTHERS:
            return None
        base = float(np.median([_change(looks[d], old[d]) for d in others]))
        change = _change(looks[c], old[c])
        if change < RATIO * max(base, 0.5):
            return None
        if any(old_snapshot[d] in "wbr" and snapshot[d] == "."
               for d in np.flatnonzero(NEIGHBOURING[c]).tolist()):
            return change if _opposite(looks[c], old[c]) >= OPPOSITE * max(base, 0.5) else None
        return change
