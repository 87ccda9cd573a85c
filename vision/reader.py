"""BoardReader: one camera frame -> the 49-cell Snapshot with per-cell confidence.

Per frame: markers on a downscaled grey image -> pose (homography + 3-D) -> a few hundred
pixel look-ups (each cell's top face at its stack height, the sheet's white margins, the board
surface between the cells) -> the colour model. No full-frame float work, so it stays fast.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from engine.errors import DvonnError
from engine.geometry import CELL_NAMES, NUM_CELLS
from vision.calibration import Calibration, CalibrationError
from vision.classify import ColourModel
from vision.cues.hands import Cover, HandDetector, hide_covered, mark_covered
from vision.cues.own_look import read_bare
from vision.cues.taller import read_taller
from vision.geometry import BoardGeometry
from vision.pose import BoardNotFoundError, FocalEstimator, MarkerDetector, Pose, pose_from_markers
from vision.sampling import CellSamples, odd_whites, rim_contrast, rim_profile
from vision.stats import median, percentile

#: Sample pattern on a top face, in disc radii: centre, 6 at 0.28 and 12 at 0.52, off the
#: directions toward the neighbours (where printed lattice lines run through empty cells).
_PATTERN = np.array([(0.0, 0.0)]
                    + [(0.28 * math.cos(a), 0.28 * math.sin(a))
                       for a in np.radians(np.arange(30, 360, 60))]
                    + [(0.52 * math.cos(a), 0.52 * math.sin(a))
                       for a in np.radians(np.arange(15, 360, 30))])
#: Radial profiles across a top face's outline: 12 directions, radii in disc radii.
_RIM_ANGLES = np.radians(np.arange(0, 360, 30))
_RIM_RADII = np.array([0.6, 0.8, 0.92, 1.04, 1.16, 1.35])
#: Profiles across each cell's own print on the board (z = 0): 12 directions, radii in disc
#: radii from just inside a disc's footprint to short of the neighbours' (1.8 r < pitch - r).
_PRINT_ANGLES = np.radians(np.arange(0, 360, 30))
_PRINT_RADII = np.arange(0.55, 1.81, 0.07)
#: How far an LED's halo tints the board round its hole (mm): the profiles it may change.
LED_HALO_MM = 8.0
#: Board points derived from a geometry (marker whites, points between the cells), by repr.
_POINTS: dict[str, tuple[tuple[np.ndarray, dict[int, list[int]]],
                         tuple[np.ndarray, list[list[int]]]]] = {}
#: Distances (mm) of the samples round each point between the cells (``_between_offsets``).
_BETWEEN_RADII = (1.4, 2.0)
_LABEL_BGR = {".": (150, 150, 150), "w": (255, 255, 255), "b": (0, 0, 0), "r": (0, 0, 230),
              "?": (0, 200, 255)}


@dataclass
class Reading:
    """What one frame showed. ``annotated(frame)`` draws it (see ``annotate``)."""

    snapshot: str
    confidence: list[float]
    pose_ok: bool
    reasons: list[str] = field(default_factory=list)
    markers: tuple[int, ...] = ()
    top_px: np.ndarray | None = None
    pose: Pose | None = None

    def annotated(self, frame: np.ndarray) -> np.ndarray:
        return annotate(frame, self)

    def confidence_by_name(self) -> dict[str, float]:
        return {CELL_NAMES[c]: self.confidence[c] for c in range(NUM_CELLS)}


def parse_heights(heights: Sequence[int] | None) -> list[int] | None:
    """Validate 49 stack heights (0 = empty); DvonnError naming the offset when wrong."""
    if heights is None:
        return None
    values = list(heights)
    if len(values) != NUM_CELLS:
        raise DvonnError(f"heights must have {NUM_CELLS} values, got {len(values)}")
    for i, h in enumerate(values):
        if isinstance(h, bool) or not isinstance(h, int | np.integer) or not 0 <= h <= 49:
            raise DvonnError(f"height {h!r} at offset {i} ({CELL_NAMES[i]}) is not 0..49")
    return [int(h) for h in values]


class BoardReader:
    """Reads frames of the table. Keeps the last good pose and a running focal estimate."""

    def __init__(self, geometry: BoardGeometry | None = None,
                 calibration: Calibration | None = None, detect_scale: float = 0.5) -> None:
        if geometry is None:
            geometry = calibration.geometry if calibration is not None else BoardGeometry()
        self.geometry = geometry
        self.calibration = calibration
        self.model = calibration.model if calibration is not None else ColourModel()
        self.detector = MarkerDetector(geometry, detect_scale)
        self.hands = HandDetector(geometry)
        self.last_pose: Pose | None = None
        self._last_corners: dict[int, np.ndarray] = {}
        self._focal: FocalEstimator | None = None
        self._marker_white: dict[int, np.ndarray] = {}  # last good white of each marker card
        self._seen: tuple[int, ...] = ()  # markers detected in the last frame
        #: What the table's LEDs showed as the frame being read was taken (cell -> (r, g, b),
        #: after brightness, lit cells only; {} all dark), None when not known: see read().
        self.leds: Mapping[int, tuple[int, int, int]] | None = None
        r = geometry.disc_radius_mm
        centres = geometry.cell_centres_mm()
        self._centres = centres
        self._cell_offsets = _PATTERN * r
        key = repr(geometry)
        if key not in _POINTS:
            _POINTS[key] = (_marker_white_points(geometry), _interstices(geometry))
        (self._white_pts, self._white_of), (self._inter, self._inter_of) = _POINTS[key]
        self._cache: dict[str, np.ndarray] = {}
        self._grey: tuple[np.ndarray, np.ndarray] | None = None  # (frame, its grey image)
        self._inter_offsets = _between_offsets(self._inter, centres)

    # -- pose ---------------------------------------------------------------------------
    def locate(self, frame: np.ndarray) -> tuple[Pose, bool]:
        """The board pose and whether it is fresh (False: the last good pose, markers hidden)."""
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        self._grey = (frame, grey)
        h, w = grey.shape[:2]
        corners = self.detector.detect(grey, thorough=self.last_pose is None)
        self._seen = tuple(sorted(corners))
        cal = self.calibration
        matrix = cal.camera_matrix if cal is not None else None
        if matrix is not None and cal is not None and cal.dist_coeffs is not None:
            corners = {k: cv2.undistortPoints(v.reshape(-1, 1, 2), matrix, cal.dist_coeffs,
                                              P=matrix).reshape(4, 2)
                       for k, v in corners.items()}
        if matrix is None:
            self._update_focal(corners, w, h)
        try:
            # two markers across the board only without a pose of this camera yet
            pose = pose_from_markers(corners, self.geometry, (w, h), matrix, self._focal,
                                     min_markers=2 if self.last_pose is None else 3)
        except BoardNotFoundError as exc:
            if self.last_pose is not None and len(corners) < 3:
                return self.last_pose, False
            raise BoardNotFoundError(f"{exc} in a {w}x{h} frame", exc.seen) from None
        self.last_pose = pose
        self._last_corners = corners
        return pose, True

    def _update_focal(self, corners: dict[int, np.ndarray], w: int, h: int) -> None:
        """Keep accumulating focal evidence while the camera stays put; restart if it moved."""
        if self._focal is None or (self._focal.width, self._focal.height) != (w, h):
            self._focal = FocalEstimator(w, h)
            return
        common = [k for k in corners if k in self._last_corners]
        if not common or max(float(np.abs(corners[k] - self._last_corners[k]).max())
                             for k in common) > 0.02 * w:
            self._focal = FocalEstimator(w, h)

    # -- sampling -----------------------------------------------------------------------
    def project(self, pose: Pose, pts: np.ndarray) -> np.ndarray:
        """(N, 3) board mm -> (N, 2) pixels in this camera's frames (its lens included)."""
        return self._project(pose, pts)

    def _project(self, pose: Pose, pts: np.ndarray) -> np.ndarray:
        cal = self.calibration
        if cal is not None and cal.dist_coeffs is not None and cal.camera_matrix is not None:
            uv, _ = cv2.projectPoints(pts, pose.rvec, pose.tvec, pose.camera_matrix,
                                      cal.dist_coeffs)
            return uv.reshape(-1, 2)
        return pose.project(pts)

    def top_centres(self, pose: Pose, heights: Sequence[int] | None) -> np.ndarray:
        """(49, 3) board-mm centres of the top faces (height 1 assumed when unknown)."""
        z = (np.ones(NUM_CELLS) if heights is None else np.asarray(heights, float))
        return np.column_stack([self._centres, z * self.geometry.thickness_mm])

    def sample(self, frame: np.ndarray, pose: Pose, heights: Sequence[int] | None = None
               ) -> tuple[CellSamples, np.ndarray]:
        """The raw samples the colour model needs, and the (49, 2) pixel top centres."""
        tops = self.top_centres(pose, heights)
        k = len(self._cell_offsets)
        cell_pts = np.repeat(tops, k, axis=0)
        cell_pts[:, :2] += np.tile(self._cell_offsets, (NUM_CELLS, 1))
        m = self._inter_offsets.shape[1]
        inter_pts = np.repeat(np.column_stack([self._inter, np.zeros(len(self._inter))]), m,
                              axis=0)
        inter_pts[:, :2] += self._inter_offsets.reshape(-1, 2)
        white_pts = np.column_stack([self._white_pts, np.zeros(len(self._white_pts))])
        # Each cell's base on the board: an expected stack covers it, a lifted one shows it.
        kb = 7  # the centre and the inner ring
        base_pts = np.repeat(np.column_stack([self._centres, np.zeros(NUM_CELLS)]), kb, axis=0)
        base_pts[:, :2] += np.tile(0.6 * self._cell_offsets[:kb], (NUM_CELLS, 1))
        # Where the position says empty, also where a new piece's top would be (one piece
        # up): seen at a tilt, its top is off the cell's centre by the parallax of its height.
        fresh = (np.zeros(0, np.int64) if heights is None
                 else np.flatnonzero(np.asarray(heights) == 0))
        new_pts = cell_pts.reshape(NUM_CELLS, k, 3)[fresh].reshape(-1, 3).copy()
        new_pts[:, 2] = self.geometry.thickness_mm
        rim_pts = self._rim_points(heights)
        print_pts = self._print_points()
        allpts = np.vstack([tops, cell_pts, inter_pts, white_pts, base_pts, new_pts, rim_pts,
                            print_pts])
        uv = self._project(pose, allpts)
        h, w = frame.shape[:2]
        u = np.rint(uv[:, 0]).astype(np.int64)
        v = np.rint(uv[:, 1]).astype(np.int64)
        inside = (u >= 0) & (u < w) & (v >= 0) & (v < h)
        n0, n1 = NUM_CELLS, NUM_CELLS + len(cell_pts)
        n2 = n1 + len(inter_pts)
        n3 = n2 + len(white_pts)
        n5 = len(allpts) - len(print_pts)
        nb = n3 + len(base_pts)  # the new tops' samples: nb .. n4
        uc, vc = np.clip(u, 0, w - 1), np.clip(v, 0, h - 1)
        vals = frame[vc[:n5], uc[:n5]].astype(np.float32)
        # The print profiles need brightness only: the grey image the markers were found in.
        src, grey = self._grey if self._grey is not None else (None, None)
        self._grey = None  # used once, right after locate() saw this very frame
        if src is not frame or grey is None:
            grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        ring = grey[vc[n5:], uc[n5:]].astype(np.float32)
        n4 = n5 - len(rim_pts)
        hidden = np.zeros(len(allpts), bool)
        na, nr = len(_PRINT_ANGLES), len(_PRINT_RADII)
        ring_valid = ok_ring = inside[n5:].reshape(NUM_CELLS, na, nr).all(axis=2)
        if heights is not None:
            # Lines of sight through other stacks: the tops' and bases' samples, and the
            # centre of each point between the cells (standing for its five samples; there
            # stacks count a little wider, as they may stand off-centre).
            check = np.r_[n0:n1, n3:n4]
            owner = np.concatenate([np.repeat(np.arange(NUM_CELLS), k),
                                    np.repeat(np.arange(NUM_CELLS), kb), np.repeat(fresh, k)])
            camera = pose.camera_centre()
            tops_mm = np.asarray(heights) * self.geometry.thickness_mm
            r = self.geometry.disc_radius_mm
            hidden[check] = _hidden(allpts[check], owner, camera, self._centres, tops_mm,
                                    r * 1.06)
            between = _hidden(np.column_stack([self._inter, np.zeros(len(self._inter))]),
                              np.full(len(self._inter), -1), camera,
                              self._centres, tops_mm, r + 0.1 * self.geometry.pitch_mm)
            hidden[n1:n2] = np.repeat(between, m)
            # A print profile is hidden when its outer part is (tall neighbours lean over it).
            # Only around the cells the position says are empty (where the print is judged).
            empty = np.asarray(heights) == 0
            outer = print_pts.reshape(NUM_CELLS, na, nr, 3)[empty, :, (2 * nr) // 3]
            ring_valid = ok_ring.copy()
            ring_valid[empty] &= ~_hidden(outer.reshape(-1, 3),
                                          np.repeat(np.flatnonzero(empty), na), camera,
                                          self._centres, tops_mm, r * 1.06).reshape(-1, na)
        ok = inside & ~hidden
        cells = vals[n0:n1].reshape(NUM_CELLS, k, 3)
        valid = ok[n0:n1].reshape(NUM_CELLS, k)
        coef = self._white(vals[n2:n3], ok[n2:n3], pose)
        white = _plane(self._centres, coef)
        inter = vals[n1:n2].reshape(-1, m, 3)
        inter_ok = ok[n1:n2].reshape(-1, m).all(axis=1)
        inter_col = np.where(inter_ok[:, None], median(inter, axis=1), np.nan)
        inter_white = _plane(self._inter, coef)
        base = vals[n3:nb].reshape(NUM_CELLS, kb, 3)
        base_valid = ok[n3:nb].reshape(NUM_CELLS, kb)
        new_top = np.full((NUM_CELLS, k, 3), np.nan, np.float32)
        new_valid = np.zeros((NUM_CELLS, k), bool)
        new_top[fresh] = vals[nb:n4].reshape(-1, k, 3)
        new_valid[fresh] = ok[nb:n4].reshape(-1, k)
        known = None if heights is None else np.asarray(heights)
        rim, soft = rim_contrast(vals[n4:n5], white, len(_RIM_ANGLES), len(_RIM_RADII))
        ring = ring.reshape(NUM_CELLS, na, nr)
        profile = rim_profile(vals[n4:n5], white, len(_RIM_ANGLES), len(_RIM_RADII))
        return (CellSamples(cells, valid, white, inter_col, inter_white, self._inter_of, known,
                            base, base_valid, rim, ring, ring_valid, profile,
                            anchor=uv[n3:nb:kb], new_top=new_top if len(fresh) else None,
                            new_top_valid=new_valid, rim_soft=soft,
                            led_side=self._led_side()), uv[:NUM_CELLS])

    def _ring_open(self, pose: Pose, heights: Sequence[int], cells: np.ndarray) -> np.ndarray:
        """(len(cells), A): the directions of the print profiles round each of ``cells``
        (``_print_points``) that would be in view were its own stack gone: no other stack
        (its top, side wall, or what it hides) in the line of sight of any point (a little
        wider: stacks stand off-centre, edges blur)."""
        na, nr = len(_PRINT_ANGLES), len(_PRINT_RADII)
        pts = self._print_points().reshape(NUM_CELLS, na, nr, 3)[cells].reshape(-1, 3)
        g = self.geometry
        hid = _hidden(pts, np.repeat(cells, na * nr), pose.camera_centre(), self._centres,
                      np.asarray(heights) * g.thickness_mm, g.disc_radius_mm * 1.06 + 2.0)
        return np.asarray(~hid.reshape(len(cells), na, nr).any(axis=2))

    def _print_points(self) -> np.ndarray:
        """Radial profiles on the board around each cell (z = 0): an empty cell shows the
        board's own print there (circles, hexagons, fills, lattice), a hand over it does not."""
        key = "print"
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        out = self._radial(_PRINT_ANGLES, _PRINT_RADII, np.zeros(NUM_CELLS))
        self._cache[key] = out
        return out

    def _led_side(self) -> np.ndarray:
        """(49, A) the print profiles' directions an LED hole near the cell glows into: its
        own (toward row 1) and its upper neighbours' (a hole within the profiles' reach and
        its halo, and within the angle it spans there, plus half a direction)."""
        key = "led_side"
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        r = self.geometry.disc_radius_mm
        reach = _PRINT_RADII[-1] * r + LED_HALO_MM
        d = self.geometry.led_holes_mm()[None, :, :] - self._centres[:, None, :]  # (49, 49, 2)
        dist = np.linalg.norm(d, axis=2)
        bearing = np.arctan2(d[..., 1], d[..., 0])
        step = _PRINT_ANGLES[1] - _PRINT_ANGLES[0]
        span = np.arcsin(np.minimum(1.0, LED_HALO_MM / np.maximum(dist, 1e-6))) + 0.5 * step
        apart = np.abs(np.angle(np.exp(1j * (_PRINT_ANGLES[None, None, :] - bearing[..., None]))))
        out = np.asarray(((dist <= reach)[..., None] & (apart < span[..., None])).any(axis=1))
        self._cache[key] = out
        return out

    def _radial(self, angles: np.ndarray, radii: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Board points (mm) on rays from each cell's centre at ``radii`` disc radii, at
        height ``z`` per cell: shape (49 * angles * radii, 3), cell by cell."""
        r = self.geometry.disc_radius_mm
        dx = np.cos(angles)[:, None] * radii[None, :] * r
        dy = np.sin(angles)[:, None] * radii[None, :] * r
        pts = np.empty((NUM_CELLS, len(angles), len(radii), 3))
        pts[..., 0] = self._centres[:, 0, None, None] + dx[None]
        pts[..., 1] = self._centres[:, 1, None, None] + dy[None]
        pts[..., 2] = z[:, None, None]
        return pts.reshape(-1, 3)

    def _rim_points(self, heights: Sequence[int] | None) -> np.ndarray:
        """Radial profiles across each top face's outline (at the expected top height; a
        piece's height where the position says empty): a disc shows an edge there (its rim,
        side wall, shadow), a hand or a sleeve lying over the cell shows none."""
        z = (np.ones(NUM_CELLS) if heights is None
             else np.maximum(np.asarray(heights, float), 1.0)) * self.geometry.thickness_mm
        return self._radial(_RIM_ANGLES, _RIM_RADII, z)

    def _white(self, vals: np.ndarray, ok: np.ndarray, pose: Pose) -> np.ndarray:
        """The markers' white (their white modules and quiet zones) as a plane over the board,
        per channel: (3, 3). A marker not seen in this frame keeps its last good white,
        scaled as the seen markers' whites changed since."""
        per_marker: dict[int, np.ndarray] = {}
        before = dict(self._marker_white)
        for mid, idx in self._white_of.items():
            good = ok[idx] & (vals[idx].max(axis=1) < 253)
            x = vals[idx][good] if good.sum() >= 4 else vals[idx][ok[idx]]
            if mid in self._seen and mid in pose.markers and len(x) >= 4:
                lum = x.mean(axis=1)
                x = x[lum >= median(lum) * 0.85]  # a shadow or a finger on the card
                per_marker[mid] = median(x, axis=0)
                self._marker_white[mid] = per_marker[mid]
        # A card not seen now keeps its last white, changed as the seen cards' whites changed
        # since then (a lamp, the exposure, the camera's white balance change every card
        # alike; the light's gradient over the board stays).
        change = [per_marker[m] / np.maximum(before[m], 1.0) for m in per_marker if m in before]
        scale = median(np.array(change), axis=0) if change else np.ones(3)
        for mid in self._white_of:
            if mid not in per_marker and mid in before:
                per_marker[mid] = self._marker_white[mid] = before[mid] * scale
        for mid in odd_whites(per_marker):  # not a white card: a sleeve or hand over it
            del per_marker[mid]
            self._marker_white.pop(mid, None)
        if not per_marker:
            lum = vals[ok].mean(axis=1) if ok.any() else np.zeros(0)
            if len(lum) < 4:
                raise BoardNotFoundError("the markers' white cards are not visible")
            top = vals[ok][lum >= percentile(lum, 50)]
            return np.vstack([median(top, axis=0), np.zeros((2, 3))])
        pts = np.array([self.geometry.marker_centre_mm(i) for i in per_marker]) / 100.0
        cols = np.stack(list(per_marker.values()))
        if len(per_marker) >= 3:
            a = np.column_stack([np.ones(len(pts)), pts])
            coef, *_ = np.linalg.lstsq(a, cols, rcond=None)
            return np.asarray(coef)
        return np.vstack([cols.mean(axis=0), np.zeros((2, 3))])

    # -- reading ------------------------------------------------------------------------
    def read(self, frame: np.ndarray, heights: Sequence[int] | None = None,
             leds: Mapping[int, tuple[int, int, int]] | None = None) -> Reading:
        """Read one BGR frame. Raises BoardNotFoundError when no pose is known at all.
        ``leds``: what the table's LEDs showed as it was taken (kept as ``self.leds``), None
        when not known."""
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            raise DvonnError("expected a BGR colour image (H x W x 3)")
        self.leds = leds
        heights = parse_heights(heights)
        pose, fresh = self.locate(frame)
        grey = self._grey[1] if self._grey is not None else None  # sample() consumes it
        samples, top_px = self.sample(frame, pose, heights)
        if heights is not None:  # cells under a hand are no examples of the empty board
            cover = self._cover(frame, grey, pose, heights, "")
            snapshot, conf, reasons = self.model.classify(
                replace(hide_covered(samples, cover), covered=cover.covered,
                        print_missing=cover.missing))
        else:
            snapshot, conf, reasons = self.model.classify(samples)
            cover = self._cover(frame, grey, pose, heights, snapshot)
        snapshot, conf, reasons = mark_covered(snapshot, conf, reasons, cover,
                                               samples=samples, rim_radii=_RIM_RADII)
        if heights is not None:
            snapshot, conf, reasons = read_taller(
                lambda h: self.sample(frame, pose, h)[0], self.model, heights, snapshot,
                conf, reasons, cover.covered)
            snapshot, conf, reasons = read_bare(
                self.model.looks, samples, lambda c, h: self._ring_open(pose, h, c),
                self.model.thresholds, snapshot, conf, reasons, cover.covered)
        return Reading(snapshot, conf, fresh, reasons, pose.markers if fresh else (), top_px,
                       pose)

    def _cover(self, frame: np.ndarray, grey: np.ndarray | None, pose: Pose,
               heights: Sequence[int] | None, labels: str) -> Cover:
        """The cells a hand or sleeve covers, by the board's print (vision.cues.hands)."""
        if grey is None:
            grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        cal = self.calibration
        uv = (self.hands.project(pose) if cal is None or cal.dist_coeffs is None
              else self._project(pose, self.hands.points))
        return self.hands.cover(grey, uv, heights, labels)

    def learn(self, frame: np.ndarray, cell: int, colour: str,
              heights: Sequence[int] | None = None) -> None:
        """Teach the colour model that ``cell`` shows ``colour`` in ``frame``."""
        pose, _ = self.locate(frame)
        samples, _ = self.sample(frame, pose, parse_heights(heights))
        self.model.learn(samples, cell, colour)


def annotate(frame: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of ``frame`` with the markers' ids, each cell's reading and its confidence."""
    out = frame.copy()
    if reading.top_px is None:
        cv2.putText(out, "board not found", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0,
                    (0, 0, 255), 2, cv2.LINE_AA)
        return out
    scale = max(frame.shape[1] / 1280.0, 0.4)
    for c in range(NUM_CELLS):
        x, y = (int(round(t)) for t in reading.top_px[c])
        label = reading.snapshot[c]
        colour = _LABEL_BGR[label]
        cv2.circle(out, (x, y), int(9 * scale), colour, -1, cv2.LINE_AA)
        cv2.circle(out, (x, y), int(9 * scale), (0, 255, 0) if label != "?" else (0, 0, 255),
                   max(1, int(2 * scale)), cv2.LINE_AA)
        cv2.putText(out, f"{CELL_NAMES[c]} {reading.confidence[c]:.2f}",
                    (x - int(20 * scale), y + int(24 * scale)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.35 * scale, (0, 255, 255), 1, cv2.LINE_AA)
    status = "pose ok" if reading.pose_ok else "pose: last good (markers hidden)"
    cv2.putText(out, f"{status}  markers {list(reading.markers)}", (10, int(24 * scale)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (0, 255, 0), max(1, int(scale)),
                cv2.LINE_AA)
    return out


def _marker_white_points(g: BoardGeometry) -> tuple[np.ndarray, dict[int, list[int]]]:
    """Board points on the markers' white modules and in their quiet zones (half a module
    outside the black border), and the indices of each marker's points."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, g.dictionary))
    modules = int(dictionary.markerSize) + 2  # the bit grid and its black border
    pts: list[tuple[float, float]] = []
    of: dict[int, list[int]] = {}
    for mid in sorted(g.markers):
        bits = cv2.aruco.generateImageMarker(dictionary, mid, modules, borderBits=1)
        cell = g.marker_side_mm / modules
        cx, cy = g.marker_centre_mm(mid)
        x0, y0 = cx - 0.5 * g.marker_side_mm, cy + 0.5 * g.marker_side_mm
        start = len(pts)
        for i in range(modules):
            for j in range(modules):
                if bits[i, j] > 127:
                    pts.append((x0 + (j + 0.5) * cell, y0 - (i + 0.5) * cell))
        half = 0.5 * g.marker_side_mm + 0.5 * cell
        for t in np.linspace(-half, half, 7):
            pts += [(cx + t, cy + half), (cx + t, cy - half), (cx + half, cy + t),
                    (cx - half, cy + t)]
        of[mid] = list(range(start, len(pts)))
    return np.array(pts, dtype=np.float64), of


def _interstices(g: BoardGeometry) -> tuple[np.ndarray, list[list[int]]]:
    """Board surface points between cells (6 around each cell) and each cell's indices."""
    centres = g.cell_centres_mm()
    dist = g.pitch_mm / math.sqrt(3.0)
    index: dict[tuple[int, int], int] = {}
    pts: list[tuple[float, float]] = []
    of: list[list[int]] = []
    for cx, cy in centres:
        mine = []
        for k in range(6):
            a = math.radians(30 + 60 * k)
            p = (cx + dist * math.cos(a), cy + dist * math.sin(a))
            key = (round(p[0] * 4), round(p[1] * 4))
            if key not in index:
                index[key] = len(pts)
                pts.append(p)
            mine.append(index[key])
        of.append(mine)
    # Around each cell only the points shared with another cell count (-1 for the others):
    # the board's rim is where prints and outlines run.
    shared: dict[int, int] = {}
    for mine in of:
        for i in mine:
            shared[i] = shared.get(i, 0) + 1
    return np.array(pts), [[i if shared[i] >= 2 else -1 for i in mine] for mine in of]


def _between_offsets(inter: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(N, 6, 2) mm offsets of the samples round each point between the cells: toward the
    three cells that meet there (1.4 and 2 mm), never on the point itself nor along the
    lines from it. A hexagon print puts its corners on these points and its sides along
    the lines between them: the point itself and the old cross of samples round it were
    mostly ink, and the board's colour, light and shade were the ink's (renderer seed 1
    frames 68, 211, 230: empty cells read '?')."""
    d = inter[:, None, :] - centres[None, :, :]
    u = -d[np.arange(len(inter)), np.argmin((d ** 2).sum(axis=2), axis=1)]
    u = u / np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-9)
    dirs = []
    for a in (0.0, 2.0 * math.pi / 3.0, -2.0 * math.pi / 3.0):
        c, s = math.cos(a), math.sin(a)
        dirs.append(np.column_stack([c * u[:, 0] - s * u[:, 1], s * u[:, 0] + c * u[:, 1]]))
    out = [dv * r for r in _BETWEEN_RADII for dv in dirs]
    return np.stack(out, axis=1)


def _plane(pts: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """The white plane evaluated at board points (N, 2) -> (N, 3)."""
    a = np.column_stack([np.ones(len(pts)), pts[:, :2] / 100.0])
    return np.asarray(np.maximum(a @ coef, 8.0))


def _hidden(pts: np.ndarray, owner: np.ndarray, camera: np.ndarray, centres: np.ndarray,
            tops: np.ndarray, radius: float) -> np.ndarray:
    """True for points whose line of sight to the camera passes through another stack."""
    stacks = np.flatnonzero(tops > 0)
    if len(stacks) == 0:
        return np.zeros(len(pts), bool)
    pts = pts.astype(np.float32)
    camera = camera.astype(np.float32)
    centres = centres.astype(np.float32)
    tops = tops.astype(np.float32)
    d = camera[None, :] - pts  # (N, 3)
    # Only stacks near enough can hide a point: the sight line climbs as it goes, so it
    # must enter a stack's cylinder within (top - z) / slope of the point (1 mm to spare).
    flat = np.sqrt(np.maximum((d[:, :2] ** 2).sum(axis=1), 1e-9))
    reach = radius + 1.0 + np.maximum(tops.max() - pts[:, 2], 0.0) * flat / np.maximum(
        d[:, 2], 1e-3)
    dx = pts[:, None, 0] - centres[None, stacks, 0]
    dy = pts[:, None, 1] - centres[None, stacks, 1]
    i, j = np.nonzero((dx * dx + dy * dy < (reach * reach)[:, None])
                      & (owner[:, None] != stacks[None, :]))
    # The exact test for those pairs (a ray through a cylinder below its top).
    dd = d[i]
    q = np.stack([dx[i, j], dy[i, j]], axis=1)  # (K, 2)
    a = np.maximum((dd[:, :2] ** 2).sum(axis=1), 1e-9)
    b = 2.0 * (q * dd[:, :2]).sum(axis=1)
    cc = (q ** 2).sum(axis=1) - radius * radius
    disc = b * b - 4 * a * cc
    root = np.sqrt(np.maximum(disc, 0.0))
    s1 = (-b - root) / (2 * a)
    s2 = (-b + root) / (2 * a)
    s_lo = np.maximum(s1, 1e-6)
    z = pts[i, 2] + s_lo * dd[:, 2]
    hit = (disc > 0) & (s2 > s_lo) & (s_lo < 1.0) & (z < tops[stacks[j]])
    out = np.zeros(len(pts), bool)
    out[i[hit]] = True
    return out


def calibrate_empty(frames: Sequence[np.ndarray], base: Calibration | None = None
                    ) -> Calibration:
    """A calibration from views of the EMPTY board: per-cell empty-board colour offsets.

    Frames where the board is not found are skipped; none usable raises CalibrationError.
    """
    cal = base or Calibration()
    reader = BoardReader(cal.geometry, cal)
    views = []
    problems = []
    for i, frame in enumerate(frames):
        try:
            pose, fresh = reader.locate(frame)
            if not fresh:
                raise BoardNotFoundError("markers hidden")
            samples, _ = reader.sample(frame, pose, [0] * NUM_CELLS)
        except BoardNotFoundError as exc:
            problems.append(f"frame {i}: {exc}")
            continue
        views.append(samples)
    if not views:
        raise CalibrationError("no usable view of the empty board: " + "; ".join(problems))
    cal.model.calibrate_empty(views)
    return cal
