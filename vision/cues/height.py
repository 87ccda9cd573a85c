"""How tall a stack stands, from its outline: a stack a move landed on is taller.

Seen at a tilt, a stack is the hull of its base circle on the board and its top circle up in
the air: one more piece lengthens the outline along the view by the piece's side wall (6 mm
at 28 degrees shows 2.8 mm; a camera straight above sees the side walls of the stacks off
the middle of the picture only). Where a stack stands is not known to better than a few
millimetres (a stack set down is set down off), and its top's outline alone moves as much
with that offset as with a piece more; the outline's length does not. So the outline of a
height is slid over the frame within that offset, and where the colour differs most across
it is that height's fit (:func:`fits`).

A fit alone says little (the board's print, the neighbours, the light), but a stack's fits
against its own earlier views say much: :class:`HeightWatch` keeps each stack's first views at
the height the controller gives, and when a prompt asks which of a few stacks a move landed
on (their tops all of the mover's colour), the one that now fits a taller outline better than
it did then, while the others fit as they did, is the answer. The outlines are not looked at
round the stacks that moved or may have (the other candidates, the stacks gone): what stands
behind or in front of a stack changes its outline's colours, not its height.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from engine.geometry import RAYS, iter_cells, spread

#: How far off its place a stack set down may stand, in mm.
SLACK_MM = 4.0
#: How much the outline's ends along the view count over its sides.
POWER = 1.0
#: Points on each circle of the hull.
_ROUND = 48
#: Pixels either side of the outline where the colour is compared.
_ACROSS = 2.0
#: Spacing of the points along the outline, in pixels.
_STEP = 1.5

_CIRCLE = np.column_stack([np.cos(np.linspace(0, 2 * np.pi, _ROUND, endpoint=False)),
                           np.sin(np.linspace(0, 2 * np.pi, _ROUND, endpoint=False))])

Project = Callable[[np.ndarray], np.ndarray]


def hull(project: Project, centre: np.ndarray, radius: float, top: float) -> np.ndarray:
    """(N, 2) the image outline of a cylinder standing at ``centre`` (board mm) up to
    ``top`` mm, in order round it."""
    ring = centre + radius * _CIRCLE
    pts = np.vstack([np.column_stack([ring, np.zeros(_ROUND)]),
                     np.column_stack([ring, np.full(_ROUND, top)])])
    uv = project(pts).astype(np.float32)
    return np.asarray(cv2.convexHull(uv).reshape(-1, 2), np.float64)


def _outline(poly: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points every ``_STEP`` px along a closed convex polygon and their outward normals."""
    a, b = poly, np.roll(poly, -1, axis=0)
    edge = b - a
    length = np.hypot(edge[:, 0], edge[:, 1])
    keep = length > 1e-6
    a, edge, length = a[keep], edge[keep], length[keep]
    normal = np.column_stack([edge[:, 1], -edge[:, 0]]) / length[:, None]
    if np.sum((a + 0.5 * edge - poly.mean(axis=0)) * normal) < 0:
        normal = -normal  # outward
    pts, normals = [], []
    for p, e, n, ln in zip(a, edge, normal, length, strict=True):
        k = max(1, int(ln / _STEP))
        s = (np.arange(k) + 0.5) / k
        pts.append(p + s[:, None] * e)
        normals.append(np.repeat(n[None], k, axis=0))
    return np.vstack(pts), np.vstack(normals)


def fits(frame: np.ndarray, project: Project, centre: np.ndarray, radius: float,
         thickness: float, heights: Sequence[int], hide: Sequence[np.ndarray] = ()
         ) -> list[float]:
    """For each of ``heights`` (pieces), how well the stack's outline at that height fits
    the frame, slid within ``SLACK_MM`` of ``centre``: the mean colour difference across it
    where it fits best. ``hide``: image polygons (stacks that moved, or may have, round it)
    where the outline's points are not counted."""
    o = project(np.array([[*centre, 0.0], [centre[0] + 1.0, centre[1], 0.0],
                          [centre[0], centre[1] + 1.0, 0.0], [*centre, thickness]]))
    jac = np.column_stack([o[1] - o[0], o[2] - o[0]])  # px per mm on the board
    grid = np.arange(-SLACK_MM, SLACK_MM + 1e-9, 1.0)
    gx, gy = np.meshgrid(grid, grid)
    inside = gx ** 2 + gy ** 2 <= SLACK_MM ** 2 + 1e-9
    shifts = (np.column_stack([gx[inside], gy[inside]]) @ jac.T)  # (S, 2) px
    view = (o[3] - o[0]) / max(float(np.hypot(*(o[3] - o[0]))), 1e-9)
    out: list[float] = []
    for h in heights:
        pts, normals = _outline(hull(project, centre, radius, h * thickness))
        inner = pts[None] - _ACROSS * normals[None] + shifts[:, None]
        outer = pts[None] + _ACROSS * normals[None] + shifts[:, None]
        both = np.concatenate([inner, outer], axis=1).reshape(-1, 2).astype(np.float32)
        vals = cv2.remap(frame, both[None, :, 0], both[None, :, 1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).reshape(len(shifts), 2, len(pts), -1)
        diff = np.linalg.norm(vals[:, 0].astype(np.float32) - vals[:, 1], axis=2)  # (S, P)
        along = np.abs(normals @ view) ** POWER  # the ends of the outline along the view
        weight = np.repeat(along[None].astype(np.float32), len(shifts), axis=0)
        if len(hide):
            weight *= ~_inside(hide, (pts[None] + shifts[:, None]).reshape(-1, 2)).reshape(
                diff.shape)
        score = (diff * weight).sum(axis=1) / np.maximum(weight.sum(axis=1), 1e-3)
        out.append(float(score.max()))
    return out


def _inside(polys: Sequence[np.ndarray], pts: np.ndarray) -> np.ndarray:
    """Which of ``pts`` (N, 2) px lie inside any of the polygons."""
    lo = np.floor(pts.min(axis=0)).astype(int) - 1
    hi = np.ceil(pts.max(axis=0)).astype(int) + 2
    mask = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.uint8)
    for poly in polys:
        cv2.fillConvexPoly(mask, np.round((poly - lo) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    ij = np.round(pts - lo).astype(int)
    return np.asarray(mask[ij[:, 1], ij[:, 0]] > 0)


#: Pieces more a move may have put on a stack that the watch can be asked about.
MAX_EXTRA = 4
#: Clean views of a stack at one height kept for what it looked like then.
VIEWS = 3
#: Pixels the moved stack's side wall must show at the least (the top's centre raised by it):
#: a camera nearly straight above sees stacks' tops alike at any height (room game 106, a
#: camera 4 degrees off: H1 read grown by 0.08 and the true landing J3 by 0.01). Two pieces
#: at tilt 13 in a 960x720 frame show 2.5 px and tell (room game 122: F4F2, refused at 3 px).
WALL_PX = 2.0
#: How far round a stack that moved (or may have) the outlines beside it are not counted:
#: a stack gone from behind a candidate, or one grown in front of it, changes what its
#: outline shows without changing its height (room game 102: 0.25 and 0.43 on two candidates
#: beside the vacated source).
AROUND_MM = 5.0
#: The growth asked about must show this much more (log of the fits' ratio) on the one
#: candidate than it did before ...
GROWN = 0.06
#: ... and every other candidate at least this much less.
APART = 0.05
#: ... and at most this share of its growth ...
SECOND = 0.5
#: ... or, where the others read empty (taken away), this much on its own.
ALONE = 0.15
#: Readings with every candidate in view that must each say the same (a candidate's own LED
#: changes its outline's colours: room game 102 read E2 and D3 grown by turns).
READINGS = 3


class _View:
    """A patch of one frame round a stack, and how board mm project into it."""

    def __init__(self, frame: np.ndarray, project: Project, centre: np.ndarray,
                 radius: float, top: float) -> None:
        box = np.vstack([hull(project, centre, radius + SLACK_MM + 4.0, top),
                         hull(project, centre, radius + SLACK_MM + 4.0, 0.0)])
        h, w = frame.shape[:2]
        x0, y0 = np.clip(np.floor(box.min(axis=0)).astype(int), 0, [w - 1, h - 1])
        x1, y1 = np.clip(np.ceil(box.max(axis=0)).astype(int) + 1, 1, [w, h])
        self.patch = frame[y0:y1, x0:x1].copy()
        self.origin = np.array([x0, y0], float)
        self.full = project  # board mm -> the whole frame's px

    def project(self, pts: np.ndarray) -> np.ndarray:
        return np.asarray(self.full(pts) - self.origin)


@dataclass
class _Kept:
    """A stack's views at one height, and whether more may still be added."""

    height: int
    views: list[_View]
    open: bool = True
    doubted: bool = False  # taken while a stack read gone may have landed on the cell
    #: the views at a lower height, where these were taken while a stack read gone may have
    #: landed on the cell (these may show it landed)
    earlier: _Kept | None = None


class HeightWatch:
    """Which of a few stacks a move landed on, by their heights (:meth:`grown`).

    Each occupied cell's first clean views at the height the controller gives (no hand over
    or beside it) are kept until a hand comes over it: a stack grown since fits a taller
    outline better than it did then, one that did not grow fits as it did. Views taken while a
    stack read gone may have landed on the cell (:func:`reach`: the players did not wait) are
    doubted: where they already show the growth asked about, its views at the height before
    are the measure."""

    def __init__(self, centres: np.ndarray, disc_radius: float, thickness: float) -> None:
        self._centres = np.asarray(centres, float)
        self._radius = disc_radius
        self._thickness = thickness
        self._refs: dict[int, _Kept] = {}  # per cell, its views at the height given
        self._asked: tuple[int, ...] = (0, 0, 0, 0)
        self._before: dict[int, float] = {}  # per candidate, its views' fit for the question
        self._deltas: list[dict[int, float]] = []
        self._frame: np.ndarray | None = None
        self._project: Project | None = None
        self._heights: tuple[int, ...] = ()
        self._clear = 0
        self._empty = 0  # the cells read empty in the last frame
        self._hidden = 0  # the stacks seen gone beside the candidates asked about

    def update(self, frame: np.ndarray, project: Project, heights: Sequence[int],
               snapshot: str, clear: int) -> None:
        """Take one frame (``clear``: the cells in view with no hand over or beside them)."""
        self._frame, self._project = frame, project
        self._heights, self._clear = tuple(int(h) for h in heights), clear
        self._empty = sum(1 << c for c, ch in enumerate(snapshot) if ch == ".")
        pending = reach(self._heights, snapshot)
        for c, h in enumerate(self._heights):
            kept = self._refs.get(c)
            if h == 0 or snapshot[c] == ".":
                self._refs.pop(c, None)
                continue
            doubt = (pending >> c) & 1  # a stack read gone may have landed here
            if kept is not None and kept.height == h:
                if (doubt and not kept.doubted) or not (clear >> c) & 1:
                    kept.open = False  # kept as it is from now on
                    continue
                if kept.open and len(kept.views) < VIEWS:
                    kept.views.append(self._view(frame, project, c, h))
                continue
            if (clear >> c) & 1:
                # the views at the height before stay beside views taken in doubt: the
                # stack may stand taller than given already (room game 135: G5, given 2 as
                # the next player's G4G5 made it 3, first seen clear at 3)
                earlier = kept if doubt and kept is not None and kept.height < h else None
                self._refs[c] = _Kept(h, [self._view(frame, project, c, h)], True, bool(doubt),
                                      earlier)

    def _view(self, frame: np.ndarray, project: Project, c: int, h: int) -> _View:
        return _View(frame, project, self._centres[c], self._radius,
                     (h + MAX_EXTRA) * self._thickness)

    def _baseline(self, c: int, cells: int, by: int) -> float:
        """Cell ``c``'s fit for the question in its views; where they were taken in doubt and
        already show the growth asked about against the views at the height before (by
        ``ALONE``), in those."""
        kept = self._refs[c]

        def mean(k: _Kept) -> float:
            return float(np.mean([self._fit(v, c, by, self._round(v.full, c, cells, by))
                                  for v in k.views]))

        now = mean(kept)
        earlier = kept.earlier
        if earlier is None or self._heights[c] + by > earlier.height + MAX_EXTRA:
            return now
        before = mean(earlier)
        return before if now - before >= ALONE else now

    def _fit(self, view: _View, c: int, by: int, hide: Sequence[np.ndarray]) -> float:
        """log(fit ``by`` pieces taller / fit at the height given) of cell ``c`` in ``view``."""
        h = self._heights[c]
        s = fits(view.patch, view.project, self._centres[c], self._radius, self._thickness,
                 [h, h + by], [p - view.origin for p in hide])
        return float(np.log(max(s[1], 1e-6)) - np.log(max(s[0], 1e-6)))

    def _gone(self, cells: int) -> int:
        """The stacks read gone beside ``cells`` (the source among them)."""
        occupied = sum(1 << d for d, h in enumerate(self._heights) if h)
        return self._empty & occupied & ~cells & spread(cells)

    def _round(self, project: Project, c: int, cells: int, by: int) -> list[np.ndarray]:
        """The image polygons round the stacks that moved or may have, but ``c``: each of
        ``cells`` as tall as it would be, each stack seen gone beside them as it stood."""
        out = [hull(project, self._centres[d], self._radius + AROUND_MM,
                    (self._heights[d] + by) * self._thickness)
               for d in iter_cells(cells & ~(1 << c)) if self._heights[d]]
        out += [hull(project, self._centres[d], self._radius + AROUND_MM,
                     self._heights[d] * self._thickness) for d in iter_cells(self._hidden)]
        return out

    def grown(self, cells: int, by: int) -> int:
        """Of ``cells``, the one the last frame shows ``by`` pieces taller than the height
        given while the others are not (a cell read empty is none of them: a stack taken
        away), in each of the last ``READINGS`` frames with all of them in view; 0 while it
        cannot tell. One alone must show it by ``ALONE`` at least. The outlines are not looked at
        round the other candidates and round the stacks gone (the source among them)."""
        standing = cells & ~self._empty
        members = list(iter_cells(standing))
        # stacks seen gone stay gone for the question (a vacated cell may flicker)
        gone = self._gone(cells) | (self._hidden if self._asked[:3] == (cells, by, standing)
                                    else 0)
        key = (cells, by, standing, gone)
        if key != self._asked:
            self._asked, self._before, self._deltas, self._hidden = key, {}, [], gone
        if (not members or not 1 <= by <= MAX_EXTRA or self._project is None
                or any(not (self._clear >> c) & 1 or c not in self._refs
                       or self._refs[c].height != self._heights[c] for c in members)):
            return 0
        frame, project = self._frame, self._project
        assert frame is not None
        for c in members:  # the growth must show: a camera (nearly) straight above a stack
            x, y = self._centres[c]
            z = self._heights[c] * self._thickness
            ends = project(np.array([[x, y, z], [x, y, z + by * self._thickness]]))
            if float(np.hypot(*(ends[1] - ends[0]))) < WALL_PX:
                return 0
        now: dict[int, float] = {}
        for c in members:
            if c not in self._before:
                self._before[c] = self._baseline(c, cells, by)
            here = self._view(frame, project, c, self._heights[c])
            now[c] = self._fit(here, c, by, self._round(project, c, cells, by)) - self._before[c]
        self._deltas = (self._deltas + [now])[-READINGS:]
        if len(self._deltas) < READINGS:
            return 0
        said = {_said(d) for d in self._deltas}
        cell = said.pop() if len(said) == 1 else None
        return 0 if cell is None else 1 << cell


def reach(heights: Sequence[int], snapshot: str) -> int:
    """The cells a stack read gone (standing by ``heights``) may have landed on: a stack of
    h pieces moves h cells in a line."""
    out = 0
    for g, h in enumerate(heights):
        if h and snapshot[g] == ".":
            for ray in RAYS[g]:
                if len(ray) >= h:
                    out |= 1 << ray[h - 1]
    return out


def _said(deltas: dict[int, float]) -> int | None:
    """The one cell of one reading that grew while the others did not, or None."""
    best = max(deltas, key=lambda c: deltas[c])
    top = deltas[best]
    if top < (GROWN if len(deltas) > 1 else ALONE):
        return None
    if any(v > min(top - APART, top * SECOND) for c, v in deltas.items() if c != best):
        return None
    return best
