"""Covered cells: a hand, a sleeve or an arm lying over the board, whatever its colour.

A hand the colour of the board cannot be told from the empty board by colour. What it cannot
imitate is the board's print: circles, hexagons and lattice lines are thin lines that repeat
around every cell, and a hand or sleeve lying above the board hides them continuously (its
surface is smooth: shading and its own outline are broad steps, not thin lines). So around
each cell, on rays at z = 0, we look for thin lines (dark or bright ridges narrower than a
few pixels) and compare with what the same board shows around this frame's other empty cells
(49 samples of the same print): a cell whose surroundings lack the print in most of the
directions where the board shows it lies under something. Directions where the board has no
neighbour (the rim of the board) are left out, as there the print may end.

Cheap on purpose (the reader's budget is ~30 ms per frame): one half-resolution grey image of
the board's box, two 3x3 morphological filters, a few thousand look-ups.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from engine.geometry import NEIGHBOURS, NUM_CELLS
from vision.geometry import BoardGeometry
from vision.pose import Pose
from vision.sampling import CellSamples, measure
from vision.stats import median, percentile

#: Rays around each cell (board coordinates) and the radii sampled on them, in disc radii:
#: from just inside a disc's footprint to short of the neighbours' (1.8 r < pitch - r).
ANGLES = np.radians(np.arange(0, 360, 10))
RADII = np.arange(0.55, 1.81, 0.1)
PIECES = "wbr"
_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))


@dataclass(frozen=True)
class CoverLimits:
    """Decision limits of the print cue."""

    line_share: float = 0.35  # a line is at least this share of the board's typical print line
    line_min: float = 0.04  # ... and at least this contrast (relative to the local brightness)
    line_max: float = 0.08  # ... and never needs more than this
    print_min: float = 0.1  # the board's print must stand out this much for any verdict
    print_grey: float = 16.0  # ... and this many grey levels (well above the noise)
    missing: float = 0.6  # share of the print's directions missing: the cell is covered
    missing_top: float = 0.7  # ... a cell read as a colour (a piece's own outline shows)
    core: float = 0.95  # ... and beside a cell whose print is gone all round
    missing_alike: float = 0.45  # ... or this share where the top is the colour of that hand
    alike_grey: float = 0.5  # log brightness apart within one hand or sleeve (its shading)
    alike_hue: float = 0.12  # chroma ((R-G)/L, (B-G)/L) apart within one hand or sleeve
    outline_step: float = 0.1  # a top's outline: a step of this much (log brightness) ...
    outline_share: float = 0.65  # ... strongest at the rim in this share of directions
    line_grey: float = 8.0  # ... and this many grey levels (above the sensor's noise peaks)
    min_examples: int = 4  # cells needed to learn where this board's print runs
    some_print: float = 0.25  # share of a cell's rays with a line: it shows the print
    clipped: float = 245.0  # local grey level where the light clips the print away ...
    clip_step: float = 8.0  # ... when it rises no faster than this from board that shows it
    half_gone: float = 0.4  # a cell read '.' with this share of its print gone ...
    edge_share: float = 0.22  # ... and less of a printed edge than this share of the others'
    print_edge: float = 0.05  # ... where the empty cells in view show at least this edge
    edge_examples: int = 3  # ... (as many cells at least)


@dataclass
class Cover:
    """What the print cue saw: per cell the share of the print's directions missing (nan:
    no verdict) and the cells it finds covered."""

    missing: np.ndarray
    covered: np.ndarray
    print_level: float


_INSIDE: dict[str, np.ndarray] = {}


def inside_directions(geometry: BoardGeometry) -> np.ndarray:
    """(49, A) True where the ray from a cell runs toward neighbouring cells on both sides
    (within 31 degrees of every neighbour direction it passes near): there the board's print
    continues; toward the board's rim it may end."""
    key = repr(geometry)
    if key in _INSIDE:
        return _INSIDE[key]
    centres = geometry.cell_centres_mm()
    pitch = geometry.pitch_mm
    deg = np.degrees(ANGLES)
    out = np.ones((NUM_CELLS, len(ANGLES)), bool)
    for c in range(NUM_CELLS):
        for k in range(6):
            a = 60.0 * k
            step = np.array([math.cos(math.radians(a)), math.sin(math.radians(a))])
            p = centres[c] + pitch * step
            if np.hypot(*(centres - p).T).min() < 0.1 * pitch:
                continue  # a neighbour there
            near = np.abs((deg - a + 180.0) % 360.0 - 180.0) <= 31.0
            out[c, near] = False
    _INSIDE[key] = out
    return out


def ray_points(geometry: BoardGeometry) -> np.ndarray:
    """(49 * A * R, 3) board points (mm, z = 0) on the rays around every cell."""
    r = geometry.disc_radius_mm
    centres = geometry.cell_centres_mm()
    dx = np.cos(ANGLES)[:, None] * RADII[None, :] * r
    dy = np.sin(ANGLES)[:, None] * RADII[None, :] * r
    pts = np.zeros((NUM_CELLS, len(ANGLES), len(RADII), 3))
    pts[..., 0] = centres[:, 0, None, None] + dx[None]
    pts[..., 1] = centres[:, 1, None, None] + dy[None]
    return pts.reshape(-1, 3)


def line_contrast(grey: np.ndarray, uv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(49, A, R) thin-line contrast at the pixels ``uv`` (full resolution), in grey levels,
    and (49,) each cell's local brightness: the larger of a dark and a bright ridge narrower
    than ~4 px, found on a half-resolution copy of the box the points span (dilated by one
    pixel so a line between two samples still counts)."""
    shape = (NUM_CELLS, len(ANGLES), len(RADII))
    h, w = grey.shape[:2]
    half = uv.astype(np.float32) * 0.5 - 0.25
    cols = np.ascontiguousarray(half.T)  # (2, N): reductions along rows are fast
    lo = np.maximum(np.floor(cols.min(axis=1)).astype(np.int64) - 2, 0)
    hi = np.minimum(np.ceil(cols.max(axis=1)).astype(np.int64) + 3, (w // 2, h // 2))
    if np.any(hi - lo < 4):
        return np.zeros(shape, np.float32), np.full(NUM_CELLS, 255.0, np.float32)
    box = grey[2 * lo[1]:2 * hi[1], 2 * lo[0]:2 * hi[0]]
    small = cv2.resize(box, (box.shape[1] // 2, box.shape[0] // 2), interpolation=cv2.INTER_AREA)
    dark = cv2.morphologyEx(small, cv2.MORPH_BLACKHAT, _KERNEL)
    bright = cv2.morphologyEx(small, cv2.MORPH_TOPHAT, _KERNEL)
    lines = cv2.dilate(cv2.max(dark, bright), _KERNEL)
    sh, sw = small.shape
    u = np.clip((half[:, 0] + 0.5).astype(np.int32) - int(lo[0]), 0, sw - 1)
    v = np.clip((half[:, 1] + 0.5).astype(np.int32) - int(lo[1]), 0, sh - 1)
    flat = v * sw + u
    ln = lines.ravel()[flat].reshape(shape).astype(np.float32)
    level = small.ravel()[flat].reshape(NUM_CELLS, -1).mean(axis=1, dtype=np.float32)
    return ln, np.maximum(level, 16.0)


def print_cover(lines: np.ndarray, brightness: np.ndarray, empty: np.ndarray, inside: np.ndarray,
                limits: CoverLimits | None = None) -> Cover:
    """Which cells lie under something that hides the board's print (see the module doc).

    ``lines``, ``brightness`` from ``line_contrast``; ``empty`` (49,) the cells the position
    says are empty (the examples of the board's print); ``inside`` from
    ``inside_directions``."""
    lim = limits or CoverLimits()
    none = Cover(np.full(NUM_CELLS, np.nan), np.zeros(NUM_CELLS, bool), 0.0)
    strongest = lines.max(axis=2)  # (49, A): the strongest line on each ray (grey levels)
    peak = strongest / brightness[:, None]  # ... relative to the local brightness
    # How strong this board's print is: from the empty cells, unless something covers most
    # of them (then their rays show the hand); then from all cells (stacks stand on the print).
    # Each cell's typical line (the upper quartile of its rays: a lattice crosses a third of
    # them, circles and hexagons all), and the board's: the upper quartile over the cells.
    cell_rel = _upper_quartile(peak, inside)
    cell_grey = _upper_quartile(strongest, inside)
    level, grey_level = 0.0, 0.0
    # All cells when some empty cells show the print clearly (a hand over the others). When
    # none does, either a hand lies over all of them (a nearly full board) or the print is
    # too faint to see and the stacks' own outlines pass for it: checked below.
    shown = empty & (cell_rel >= lim.print_min) & (cell_grey >= lim.print_grey)
    from_all = False
    for cells in (empty, np.ones(NUM_CELLS, bool)):
        from_all = cells is not empty
        if int(cells.sum()) >= lim.min_examples:
            level = float(percentile(cell_rel[cells], 75))
            grey_level = float(percentile(cell_grey[cells], 75))
            if level >= lim.print_min and grey_level >= lim.print_grey:
                break
    if level < lim.print_min or grey_level < lim.print_grey:
        return Cover(none.missing, none.covered, level)
    bar = min(max(lim.line_share * level, lim.line_min), lim.line_max)
    seen = (peak > bar) & (strongest > lim.line_grey) & inside
    share = seen.sum(axis=1) / np.maximum(inside.sum(axis=1), 1)
    # Where this board's print runs (all round for circles and hexagons, along the lattice
    # lines for a lattice): the share of the cells that show some print, on each ray;
    # empty cells if enough show it (stacks add outlines of their own).
    ref = empty & (share >= lim.some_print)
    if int(ref.sum()) < lim.min_examples:
        ref = share >= lim.some_print
        if int(ref.sum()) < lim.min_examples:
            return Cover(none.missing, none.covered, level)
    counted = inside & ref[:, None]
    rate = (seen & counted).sum(axis=0) / np.maximum(counted.sum(axis=0), 1)
    weight = np.where(inside, rate[None, :], 0.0)
    total = weight.sum(axis=1)
    missing = np.where(total >= 3.0, (weight * ~seen).sum(axis=1) / np.maximum(total, 1e-9),
                       np.nan)
    missing[_clipped_board(missing, brightness, empty, lim)] = np.nan
    covered = np.isfinite(missing) & (missing >= lim.missing)
    if from_all and int(shown.sum()) < 2 and int((covered & ~empty).sum()) < max(
            int((covered & empty).sum()), 1):
        # No empty cell shows the print, and the print judged from the stacks' surroundings
        # is gone round the empty cells rather than round the stacks: a hand lies over
        # stacks and empty cells alike, so this is a print too faint to see, no hand.
        return Cover(none.missing, none.covered, level)
    return Cover(missing, covered, level)


def _clipped_board(missing: np.ndarray, brightness: np.ndarray, empty: np.ndarray,
                   lim: CoverLimits) -> np.ndarray:
    """Cells where the light clips the print away (an overexposed paper board: a dark table
    makes the camera brighten), reached from empty cells that show the print through cells
    whose brightness rises no faster than ``clip_step`` a cell: there the print fades whatever
    lies on the board, so no verdict. A white sleeve that clips stands out at once from the
    board beside it."""
    bright = brightness >= lim.clipped
    if not bright.any():
        return bright
    reached = empty & np.isfinite(missing) & (missing < lim.missing / 2) & ~bright
    out = np.zeros(NUM_CELLS, bool)
    frontier = [c for c in range(NUM_CELLS) if reached[c]]
    while frontier:
        c = frontier.pop()
        for n in NEIGHBOURS[c]:
            if bright[n] and not out[n] and brightness[n] - brightness[c] <= lim.clip_step:
                out[n] = True
                frontier.append(n)
    return out


def _upper_quartile(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row of ``x`` (N, K), the upper quartile of the entries where ``mask`` holds (0
    where none does); a sort, far cheaper than nanpercentile."""
    srt = np.sort(np.where(mask, x, -np.inf), axis=1)
    n = mask.sum(axis=1)
    k = x.shape[1] - n + np.floor(0.75 * np.maximum(n - 1, 0)).astype(np.int64)
    out = srt[np.arange(len(x)), np.minimum(k, x.shape[1] - 1)]
    return np.asarray(np.where(n > 0, out, 0.0))


class HandDetector:
    """Per reader: the ray points of its geometry, and the cue applied to one frame."""

    def __init__(self, geometry: BoardGeometry, limits: CoverLimits | None = None) -> None:
        self.geometry = geometry
        self.limits = limits or CoverLimits()
        self._points = ray_points(geometry)
        self._inside = inside_directions(geometry)
        self._xy1 = np.column_stack([self._points[:, :2], np.ones(len(self._points))]
                                    ).astype(np.float32)

    def project(self, pose: Pose) -> np.ndarray:
        """Pixels of ``points`` through the pose's homography of the board plane (float32:
        a few thousand points each frame)."""
        hom = pose.camera_matrix @ np.column_stack([pose.rotation[:, :2], pose.tvec.reshape(3)])
        uvw = self._xy1 @ hom.T.astype(np.float32)
        return np.asarray(uvw[:, :2] / uvw[:, 2:3])

    @property
    def points(self) -> np.ndarray:
        """The board points (mm) the cue looks at; the reader projects them (``uv``)."""
        return self._points

    def cover(self, grey: np.ndarray, uv: np.ndarray, heights: Sequence[int] | None,
              labels: str) -> Cover:
        """The print cue on one frame (``grey``: its full-resolution grey image, ``uv``: the
        pixels of ``points``). The examples of the board's print are the cells the position
        says are empty, or without a position the cells read '.'."""
        lines, level = line_contrast(grey, uv)
        empty = (np.asarray(heights) == 0 if heights is not None
                 else np.array([x == "." for x in labels]))
        return print_cover(lines, level, empty, self._inside, self.limits)


def hide_covered(samples: CellSamples, cover: Cover) -> CellSamples:
    """``samples`` with the covered cells the position says are empty out of view (as if a
    stack hid them): they read '?', and the colour model does not take a hand for an example
    of the empty board (a hand over most of the empty cells would teach it the hand)."""
    if samples.heights is None or not cover.covered.any():
        return samples
    hide = cover.covered & (samples.heights == 0)
    if not hide.any():
        return samples

    def out_of_view(mask: np.ndarray) -> np.ndarray:
        mask = mask.copy()
        mask[hide] = False
        return mask

    def maybe(mask: np.ndarray | None) -> np.ndarray | None:
        return None if mask is None else out_of_view(mask)

    return replace(samples, valid=out_of_view(samples.valid),
                   base_valid=maybe(samples.base_valid), ring_valid=maybe(samples.ring_valid),
                   new_top_valid=maybe(samples.new_top_valid))


def mark_covered(labels: str, conf: list[float], reasons: list[str], cover: Cover,
                 limits: CoverLimits | None = None, samples: CellSamples | None = None,
                 rim_radii: np.ndarray | None = None) -> tuple[str, list[float], list[str]]:
    """Cells read '.' where the board's print does not show read '?' (a hand or sleeve the
    colour of the board lies there). A colour needs more: a neighbour whose print is gone all
    round (the core of a hand: an arm is one region from the frame's edge, and a top beside
    it keeps its colour) and its own print mostly gone, or about half gone where the top is
    the colour of the hand over that neighbour (``samples``: the frame's samples, before any
    cell was hidden) and does not show its outline all round (``rim_radii``: the radii of
    ``samples.rim_profile``): a sleeve the colour of a piece over the top cannot be told
    from the piece by colour, but a hand over a top's face leaves at most half its outline
    in view, while a top beside the hand shows all of it. A stack the colour model reads
    as lifted ('.': the board's colour shows) must show the board's print round its cell:
    about half of it gone beside a hand, it reads '?'. So does an empty cell read '.' with
    about half its print gone and none of the printed edge the frame's other empty cells
    show (a smooth sleeve the colour of the board)."""
    lim = limits or CoverLimits()
    out = list(labels)
    conf = list(conf)
    reasons = list(reasons)
    missing = np.nan_to_num(cover.missing, nan=0.0)
    colours: np.ndarray | None = None
    edge = 0.0 if samples is None else _print_edge(labels, cover, samples, lim)
    for c in range(NUM_CELLS):
        why = "the board's print does not show around it: something lies over it"
        if out[c] in PIECES:
            if missing[c] < lim.missing_alike:
                continue
            core = max(missing[n] for n in NEIGHBOURS[c])
            if missing[c] < lim.missing_top or core < lim.core:
                # Half gone: beside the core of a hand, an empty cell it covers, or a cell
                # with something over it (read '?') whose print is half gone too, of the same
                # colour (one hand or sleeve; a stack's own outline hides its print).
                if samples is None or samples.heights is None:
                    continue
                hand = _hand_beside(c, labels, cover, samples.heights, lim)
                if not hand:
                    continue
                if colours is None:
                    colours = measure(samples.cells, samples.valid, samples.white,
                                      np.zeros(NUM_CELLS)).raw
                if not any(_alike(colours[c], colours[n], lim) for n in hand):
                    continue
                if (samples.rim_profile is not None and rim_radii is not None
                        and outline_shown(samples.rim_profile[c], rim_radii, lim)
                        >= lim.outline_share):
                    continue
                why = ("the colour of the hand lying beside it, the board's print half gone: "
                       "the hand may lie over it")
        elif (out[c] == "." and not cover.covered[c] and samples is not None
              and samples.heights is not None and samples.heights[c] > 0
              and missing[c] >= lim.missing_alike
              and _hand_beside(c, labels, cover, samples.heights, lim)):
            # A stack read as lifted must show the board round its cell: half its print
            # gone beside a hand, the hand may lie over the stack.
            why = ("read as lifted, but the board's print is half gone round it beside a "
                   "hand: the hand may lie over it")
        elif (out[c] == "." and not cover.covered[c] and samples is not None
              and samples.heights is not None and samples.heights[c] == 0
              and missing[c] >= lim.half_gone and samples.rim is not None
              and samples.rim[c] < lim.edge_share * edge):
            # Half its print gone, and none of the printed edge every empty cell in view
            # shows: a smooth sleeve lies over the cell (the colour of the empty board).
            why = "the board's print does not show: something lies over it"
        elif not cover.covered[c]:
            continue
        out[c] = "?"
        conf[c] = 0.0
        reasons[c] = why
    return "".join(out), conf, reasons


def _print_edge(labels: str, cover: Cover, samples: CellSamples, lim: CoverLimits) -> float:
    """The printed edge (``CellSamples.rim``) of the frame's empty cells read '.' whose
    print shows (0 with fewer than ``edge_examples`` of them, or on a board printed without
    circles: no edge to miss)."""
    if samples.rim is None or samples.heights is None:
        return 0.0
    missing = np.nan_to_num(cover.missing, nan=1.0)
    ex = (np.array([x == "." for x in labels]) & (samples.heights == 0)
          & (missing < lim.missing / 3) & np.isfinite(samples.rim))
    if int(ex.sum()) < lim.edge_examples:
        return 0.0
    edge = float(median(samples.rim[ex]))
    return edge if edge >= lim.print_edge else 0.0


def _hand_beside(c: int, labels: str, cover: Cover, heights: np.ndarray, lim: CoverLimits
                 ) -> list[int]:
    """The neighbours of ``c`` that a hand lies over: the core of a hand (print gone all
    round), an empty cell whose print is gone, or a cell read '?' (something over it) whose
    print is half gone (a stack's own outline hides its print, so it needs more)."""
    missing = np.nan_to_num(cover.missing, nan=0.0)
    return [n for n in NEIGHBOURS[c] if missing[n] >= lim.core
            or (cover.covered[n] and heights[n] == 0)
            or (labels[n] == "?" and missing[n] >= lim.missing_alike)]


def _alike(a: np.ndarray, b: np.ndarray, lim: CoverLimits) -> bool:
    """Whether two cells' colours (``Measured.raw`` features) may be one hand or sleeve."""
    return bool(abs(a[0] - b[0]) <= lim.alike_grey
                and math.hypot(a[1] - b[1], a[2] - b[2]) <= lim.alike_hue)


def outline_shown(profile: np.ndarray, radii: np.ndarray, limits: CoverLimits | None = None
                  ) -> float:
    """Share of the directions of one top's radial profiles (``profile``: (A, R) log
    brightness at ``radii`` disc radii) whose strongest step lies at the disc's outline
    (between 0.75 and 1.25 radii: an off-centre stack moves it a little) and is a clear step:
    a top shows its outline all round, a hand or sleeve over it only its own edges."""
    lim = limits or CoverLimits()
    step = np.abs(np.diff(profile, axis=1))
    mid = 0.5 * (radii[1:] + radii[:-1])
    at_rim = (mid >= 0.75) & (mid <= 1.25)
    strongest = np.argmax(step, axis=1)
    clear = step.max(axis=1) >= lim.outline_step
    return float(np.mean(at_rim[strongest] & clear))
