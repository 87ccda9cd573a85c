"""Board pose from the four ArUco markers: plane homography, focal estimate and 3-D pose.

Markers are detected on a downscaled grey image (fast), their corners refined to sub-pixel on
the full-resolution grey image. Without a calibration the focal length comes from the
homography's orthogonality constraints (principal point at the image centre, square pixels),
pulled toward a typical Pi-camera prior when the view is too square-on to tell.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.errors import DvonnError
from vision.geometry import BoardGeometry

#: Typical Raspberry Pi camera: horizontal field of view ~62 degrees -> f ~ 0.83 * width.
PRIOR_FOCAL_PER_WIDTH = 0.83
MAX_RMS_PX = 4.0


class BoardNotFoundError(DvonnError):
    """Too few markers (or inconsistent ones) to locate the board; says what was seen."""

    def __init__(self, message: str, seen: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.seen = seen


@dataclass
class Pose:
    """Where the board is: homography (board mm -> px), camera matrix, rotation, translation."""

    homography: np.ndarray
    camera_matrix: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    markers: tuple[int, ...]
    rms_px: float
    focal_estimated: bool = True
    rotation: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.rotation = cv2.Rodrigues(self.rvec)[0]

    @property
    def focal(self) -> float:
        return float(self.camera_matrix[0, 0])

    def camera_centre(self) -> np.ndarray:
        """Camera position in board millimetres."""
        return np.asarray(-self.rotation.T @ self.tvec.reshape(3), dtype=np.float64)

    def tilt_deg(self) -> float:
        """Angle between the optical axis and the board normal."""
        return float(np.degrees(np.arccos(min(1.0, abs(self.rotation[2, 2])))))

    def project(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) board mm -> (N, 2) pixels (pinhole; distortion handled by undistorting)."""
        cam = points @ self.rotation.T + self.tvec.reshape(1, 3)
        uvw = cam @ self.camera_matrix.T
        return np.asarray(uvw[:, :2] / uvw[:, 2:3])


class MarkerDetector:
    """ArUco detection on a downscaled image with sub-pixel refinement at full resolution."""

    def __init__(self, geometry: BoardGeometry, scale: float = 0.5) -> None:
        self.geometry = geometry
        self.scale = scale
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.dictionary))
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
        # Bits read from the middle of each cell, at 8 px a cell: blur, JPEG and low
        # resolutions smear the cells' edges (the outside photos as other cameras would take
        # them: 32 of 35 frames that showed too few markers show enough). Where several
        # outlines of one marker decode, the one kept may move its corners by 1-2 px (the
        # photos read the same; cell centres on 40 renderer frames did not move).
        params.perspectiveRemovePixelPerCell = 8
        params.perspectiveRemoveIgnoredMarginPerCell = 0.25
        self._detector = cv2.aruco.ArucoDetector(dictionary, params)
        self._last: dict[int, np.ndarray] = {}  # the markers' raw corners in the last frame
        self._params = params
        self._near = cv2.aruco.ArucoDetector(dictionary, params)  # for crops (see _near_last)

    def detect(self, grey: np.ndarray, thorough: bool = False) -> dict[int, np.ndarray]:
        """Marker id -> (4, 2) corners at full resolution (only ids the geometry knows).
        ``thorough``: when too few show for a pose, also look at twice the resolution and
        with the contrast equalised (costly: for a first frame or a photo, not every frame
        a hand covers markers in)."""
        found = self._near_last(grey)
        if found is None:
            found = self._detect_at(grey, self.scale)
        self._last = dict(found)
        few = min(3, len(self.geometry.markers))
        # Full resolution only when the downscaled image gives too few for a pose (it costs
        # four times as much; a hand over one marker leaves three, which is enough).
        if len(found) < few and self.scale != 1.0:
            more = self._detect_at(grey, 1.0)
            if len(more) > len(found):
                found = more
        elif len(found) < len(self.geometry.markers) and self.scale != 1.0:
            found.update(self._look_closer(grey, found))
        if thorough and len(found) < few:
            # small or soft markers (a low resolution, blur) and uneven contrast: perturbed
            # outside photos, 11 of 13 frames with too few markers show enough this way
            if max(grey.shape[:2]) <= 1400:
                found = _union(found, self._detect_at(grey, 2.0))
            if len(found) < few:
                equal = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(grey)
                found = _union(found, self._detect_at(equal, 1.0))
            if 2 <= len(found) < few:
                # the far markers of a low, soft view: three times closer where the two
                # found put them (perturbed outside photos: one of three frames found)
                found.update(self._look_closer(grey, found, 3.0))
        if not found:
            return {}
        pts = np.concatenate([c for c in found.values()]).astype(np.float32).reshape(-1, 1, 2)
        side = min(float(np.linalg.norm(c[0] - c[1])) for c in found.values())
        win = int(max(2, min(6, side / 12)))
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.02)
        refined = cv2.cornerSubPix(grey, pts, (win, win), (-1, -1), crit).reshape(-1, 4, 2)
        out = {}
        for k, (mid, raw) in enumerate(found.items()):
            # Sub-pixel refinement may wander off an L-corner in blur; keep it if close.
            shift = np.linalg.norm(refined[k] - raw, axis=1)
            out[mid] = np.where(shift[:, None] < win * 0.8, refined[k], raw).astype(np.float64)
        return out

    def _near_last(self, grey: np.ndarray) -> dict[int, np.ndarray] | None:
        """The camera stays put during a game: look for the markers only around where they
        were in the last frame (and a missing one where those put it), in the same downscaled
        image: the same pixels, so the same corners as a whole-image search, at a fraction
        of its cost. None unless two markers at least are found where they were (then the
        whole image is searched): a marker missing there lies under a hand while the camera
        stays put (``detect`` looks for it as after a whole-image search)."""
        g = self.geometry
        if len(self._last) < min(3, len(g.markers)) or self.scale == 1.0:
            return None
        s = self.scale
        small = cv2.resize(grey, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        found: dict[int, np.ndarray] = {}
        for mid, box in self._last.items():
            best = self._in_box(small, mid, box)
            if best is not None:
                found[mid] = best
        if len(found) < min(2, len(g.markers)):
            return None
        missing = [m for m in g.markers if m not in found and m not in self._last]
        if missing:
            obj = np.concatenate([g.marker_corners_mm(i)[:, :2] for i in found])
            hom, _ = cv2.findHomography(obj, np.concatenate(list(found.values())), 0)
            if hom is None:
                return None
            for mid in missing:
                box = cv2.perspectiveTransform(
                    g.marker_corners_mm(mid)[:, :2].reshape(-1, 1, 2), hom).reshape(4, 2)
                best = self._in_box(small, mid, box)
                if best is not None:
                    found[mid] = best
        return found

    def _in_box(self, small: np.ndarray, mid: int, box: np.ndarray) -> np.ndarray | None:
        """Marker ``mid`` searched in the downscaled image around ``box`` (full-resolution
        corners): its corners at full resolution, or None."""
        s = self.scale
        sh, sw = small.shape[:2]
        pts = (box - (0.5 / s - 0.5)) * s  # back to the downscaled image
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        pad = 0.75 * float((hi - lo).max()) + 16.0  # beyond the thresholds' windows
        x0, y0 = int(max(0, lo[0] - pad)), int(max(0, lo[1] - pad))
        x1, y1 = int(min(sw, hi[0] + pad)), int(min(sh, hi[1] + pad))
        if x1 - x0 < 16 or y1 - y0 < 16:
            return None
        # The smallest marker outline is a share of the image's size: the same in pixels as
        # for the whole image (else a crop decodes every speck as a candidate).
        rate = self._detector.getDetectorParameters().minMarkerPerimeterRate
        self._params.minMarkerPerimeterRate = rate * max(sw, sh) / max(x1 - x0, y1 - y0)
        self._near.setDetectorParameters(self._params)
        corners, ids, _ = self._near.detectMarkers(small[y0:y1, x0:x1])
        if ids is None:
            return None
        best: np.ndarray | None = None
        for c, m in zip(corners, ids.reshape(-1), strict=True):
            if int(m) != mid:
                continue
            full = (c.reshape(4, 2).astype(np.float64) + (x0, y0)) / s + (0.5 / s - 0.5)
            if best is None or _area(full) > _area(best):
                best = full
        return best

    def _look_closer(self, grey: np.ndarray, found: dict[int, np.ndarray], scale: float = 1.0
                     ) -> dict[int, np.ndarray]:
        """Missing markers searched at full resolution (or ``scale`` times it), only where the
        found ones put them."""
        g = self.geometry
        obj = np.concatenate([g.marker_corners_mm(i)[:, :2] for i in found])
        img = np.concatenate(list(found.values()))
        hom, _ = cv2.findHomography(obj, img, 0)
        out: dict[int, np.ndarray] = {}
        if hom is None:
            return out
        h, w = grey.shape[:2]
        for mid in g.markers:
            if mid in found:
                continue
            box = cv2.perspectiveTransform(
                g.marker_corners_mm(mid)[:, :2].reshape(-1, 1, 2), hom).reshape(4, 2)
            lo, hi = box.min(axis=0), box.max(axis=0)
            pad = 0.6 * (hi - lo).max()
            x0, y0 = (int(max(0, v)) for v in lo - pad)
            x1, y1 = int(min(w, hi[0] + pad)), int(min(h, hi[1] + pad))
            if x1 - x0 < 16 or y1 - y0 < 16:
                continue
            near = self._detect_at(grey[y0:y1, x0:x1], scale)
            if mid in near:
                out[mid] = near[mid] + (x0, y0)
        return out

    def _detect_at(self, grey: np.ndarray, scale: float) -> dict[int, np.ndarray]:
        if min(grey.shape[:2]) * scale < 8:
            return {}  # far too small to hold a marker (and cv2.resize would assert)
        img = grey if scale == 1.0 else cv2.resize(
            grey, None, fx=scale, fy=scale,
            interpolation=cv2.INTER_AREA if scale < 1.0 else cv2.INTER_CUBIC)
        corners, ids, _ = self._detector.detectMarkers(img)
        found: dict[int, np.ndarray] = {}
        if ids is None:
            return found
        for c, mid in zip(corners, ids.reshape(-1), strict=True):
            m = int(mid)
            if m not in self.geometry.markers:
                continue
            pts = c.reshape(4, 2).astype(np.float64) / scale + (0.5 / scale - 0.5)
            if m in found and _area(found[m]) >= _area(pts):
                continue
            found[m] = pts
        return found


def _union(a: dict[int, np.ndarray], b: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """The markers of both searches (the larger outline where both found one)."""
    out = dict(a)
    for m, c in b.items():
        if m not in out or _area(c) > _area(out[m]):
            out[m] = c
    return out


def _area(c: np.ndarray) -> float:
    return float(abs(cv2.contourArea(c.astype(np.float32))))


class FocalEstimator:
    """Least-squares focal length from board homographies, accumulated over frames.

    With K = diag(f, f, 1) after moving the principal point to the origin, the columns h1, h2 of
    H satisfy h1' W h2 = 0 and h1' W h1 = h2' W h2 with W = diag(1/f^2, 1/f^2, 1): linear in
    v = (f0 / f)^2. A weak prior v = 1 keeps a square-on view (where f is unobservable) sane.
    """

    def __init__(self, width: int, height: int, prior_weight: float = 1e-5,
                 decay: float = 1.0) -> None:
        self.width, self.height = width, height
        self.f0 = PRIOR_FOCAL_PER_WIDTH * width
        self.prior_weight = prior_weight
        self.decay = decay
        self._saa = 0.0
        self._sab = 0.0
        self._ref = 0.0

    def add(self, homography: np.ndarray) -> None:
        t = np.array([[1, 0, -self.width / 2.0], [0, 1, -self.height / 2.0], [0, 0, 1]])
        h = t @ homography
        h = h / np.linalg.norm(h[:2, :2])
        h1, h2 = h[:, 0], h[:, 1]
        f2 = self.f0 * self.f0
        a = np.array([(h1[0] * h2[0] + h1[1] * h2[1]) / f2,
                      (h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2) / f2])
        b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
        self._saa = self.decay * self._saa + float(a @ a)
        self._sab = self.decay * self._sab + float(a @ b)
        self._ref = self.decay * self._ref + float(np.linalg.norm(h[:2, :2]) ** 4 / f2 ** 2)

    @property
    def focal(self) -> float:
        lam = self.prior_weight * self._ref
        if self._saa + lam <= 0:
            return self.f0
        v = (-self._sab + lam) / (self._saa + lam)
        v = float(np.clip(v, 0.16, 6.25))  # focal within 0.4x .. 2.5x the prior
        return float(self.f0 / np.sqrt(v))


def estimate_focal(homography: np.ndarray, width: int, height: int) -> float:
    """One-frame focal length (pixels) from a board homography."""
    est = FocalEstimator(width, height)
    est.add(homography)
    return est.focal


def camera_matrix_for(focal: float, width: int, height: int) -> np.ndarray:
    return np.array([[focal, 0, width / 2.0], [0, focal, height / 2.0], [0, 0, 1.0]])


def pose_from_markers(
    corners: dict[int, np.ndarray],
    geometry: BoardGeometry,
    size: tuple[int, int],
    camera_matrix: np.ndarray | None = None,
    focal: FocalEstimator | None = None,
    min_markers: int = 3,
) -> Pose:
    """Pose from detected corners (id -> (4, 2) px). Needs 3 markers (drops one outlier), or
    2 that span the board's length (``min_markers=2``: their 8 corners put every cell within
    a sixth of a pitch on the renderer; two at one end of the board do not)."""
    ids = tuple(sorted(corners))
    if len(ids) < 3 and not (len(ids) == 2 and min_markers <= 2 and _span(geometry, ids)):
        raise BoardNotFoundError(
            f"board not found: saw {len(ids)} marker(s) {list(ids)}, need at least 3 of "
            f"{sorted(geometry.markers)} ({geometry.dictionary}), or 2 across the board",
            ids)
    pose = _solve(corners, ids, geometry, size, camera_matrix, focal)
    if pose.rms_px > MAX_RMS_PX and len(ids) >= 4:
        options = [_solve(corners, tuple(i for i in ids if i != drop), geometry, size,
                          camera_matrix, None) for drop in ids]
        best = min(options, key=lambda p: p.rms_px)
        if best.rms_px <= MAX_RMS_PX:
            return _solve(corners, best.markers, geometry, size, camera_matrix, focal)
    if pose.rms_px > MAX_RMS_PX:
        raise BoardNotFoundError(
            f"board not found: markers {list(ids)} are inconsistent with the board geometry "
            f"(reprojection error {pose.rms_px:.1f} px)", ids)
    return pose


def _span(geometry: BoardGeometry, ids: tuple[int, ...]) -> bool:
    """Whether two markers lie across the board (its length or a diagonal), not at one end."""
    centres = {m: np.array(geometry.marker_centre_mm(m)) for m in geometry.markers}
    widest = max(float(np.linalg.norm(a - b)) for a in centres.values() for b in centres.values())
    return float(np.linalg.norm(centres[ids[0]] - centres[ids[1]])) >= 0.8 * widest


def _solve(corners: dict[int, np.ndarray], ids: tuple[int, ...], geometry: BoardGeometry,
           size: tuple[int, int], camera_matrix: np.ndarray | None,
           focal: FocalEstimator | None) -> Pose:
    obj = np.concatenate([geometry.marker_corners_mm(i) for i in ids])
    img = np.concatenate([corners[i] for i in ids])
    hom, _ = cv2.findHomography(obj[:, :2], img, 0)
    if hom is None:
        raise BoardNotFoundError(f"board not found: degenerate marker corners {list(ids)}", ids)
    width, height = size
    estimated = camera_matrix is None
    if camera_matrix is None:
        est = focal if focal is not None else FocalEstimator(width, height)
        est.add(hom)
        camera_matrix = camera_matrix_for(est.focal, width, height)
    ok, rvec, tvec = cv2.solvePnP(obj, img, camera_matrix, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise BoardNotFoundError(f"board not found: no pose for markers {list(ids)}", ids)
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, camera_matrix, None, rvec, tvec)
    pose = Pose(hom, camera_matrix, rvec.reshape(3), tvec.reshape(3), ids, 0.0, estimated)
    err = pose.project(obj) - img
    pose.rms_px = float(np.sqrt(np.mean(np.sum(err * err, axis=1))))
    return pose
