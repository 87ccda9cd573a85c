"""Framing: is every marker well inside the picture, and which height and picture size keep
it there.

``vision calibrate`` warns (:func:`check_framing`) when a marker of a view of the empty board
lies closer than ``EDGE_MARGIN`` of the picture to its edge, or was not seen at all. The rest
is the arithmetic behind the table of docs/build/camera.md (``python -m vision.framing``
prints it):

* A camera straight above the centre of F3 at height h, with a horizontal x vertical field of
  view H x V, sees 2 h tan(H/2) x 2 h tan(V/2) of the table. The marker squares reach X mm from
  the centre toward K3 and Y mm toward row 5 (264 x 128 mm by default: centres at 248 x 112,
  32 mm squares). A marker stays a share m of the picture inside each edge when
  X <= (1 - 2m) h tan(H/2) and Y <= (1 - 2m) h tan(V/2), so the lowest mounting height is

      h_min = max(X / ((1 - 2m) tan(H/2)), Y / ((1 - 2m) tan(V/2)))

* The field of view at a picture size: a Raspberry Pi camera (picamera2, rpicam-still) reads
  the sensor in the mode nearest the picture size (libcamera's score, copied in
  :func:`sensor_mode`); some modes read only the middle of the sensor (Camera Module 3's
  1536x864 reads 3072x1728 of 4608x2592), and the ISP then crops the mode's area to the
  picture's aspect ratio. A centred crop of a share s of the sensor's width sees
  tan(H'/2) = s tan(H/2) (and the same for the height).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from vision.geometry import BoardGeometry

#: A marker closer than this share of the picture's width (left/right) or height (top/bottom)
#: to the edge draws a warning: the camera moved a little, or a hand at the table's edge,
#: and the board is lost.
EDGE_MARGIN = 0.05
EDGES = ("left", "right", "top", "bottom")


# -- cameras, sensor modes and fields of view --------------------------------------------

@dataclass(frozen=True)
class SensorMode:
    """A sensor readout: its size (px), bit depth and the centred sensor area it reads."""

    size: tuple[int, int]
    bits: int
    area: tuple[int, int]


@dataclass(frozen=True)
class Camera:
    """A camera: datasheet field of view of its whole sensor (degrees) and its sensor modes."""

    name: str
    hfov: float
    vfov: float
    pixels: tuple[int, int]
    modes: tuple[SensorMode, ...]
    modes_known: bool = True  # False: a guess (a webcam: the whole sensor at 16:9)

    @property
    def bits(self) -> int:
        """The bit depth picamera2 asks for: the deepest mode (rpicam-still asks 12)."""
        return max(m.bits for m in self.modes)


_IMX708 = (SensorMode((1536, 864), 10, (3072, 1728)),  # 2x2 binned middle 2/3: a crop
           SensorMode((2304, 1296), 10, (4608, 2592)),  # 2x2 binned, whole sensor
           SensorMode((4608, 2592), 10, (4608, 2592)))
_IMX219 = (SensorMode((640, 480), 10, (1280, 960)),
           SensorMode((1640, 1232), 10, (3280, 2464)),
           SensorMode((1920, 1080), 10, (1920, 1080)),  # unbinned middle: a crop
           SensorMode((3280, 2464), 10, (3280, 2464)))
_IMX477 = (SensorMode((1332, 990), 10, (2664, 1980)),
           SensorMode((2028, 1080), 12, (4056, 2160)),
           SensorMode((2028, 1520), 12, (4056, 3040)),
           SensorMode((4056, 3040), 12, (4056, 3040)))


def _from_diagonal(diag_deg: float, width: float, height: float) -> tuple[float, float]:
    """Horizontal and vertical field of view of a lens given by its diagonal one."""
    t = math.tan(math.radians(diag_deg) / 2) / math.hypot(width, height)
    return (2 * math.degrees(math.atan(t * width)), 2 * math.degrees(math.atan(t * height)))


_HQ_6MM = _from_diagonal(63.0, 6.287, 4.712)  # the 6 mm CS lens: 63 deg on a 1/2" sensor
_WEBCAM = _from_diagonal(78.0, 16.0, 9.0)

#: Datasheet fields of view (Raspberry Pi camera documentation; the webcam: Logitech C920).
CAMERAS: dict[str, Camera] = {
    "module3": Camera("Camera Module 3", 66.0, 41.0, (4608, 2592), _IMX708),
    "module3-wide": Camera("Camera Module 3 Wide", 102.0, 67.0, (4608, 2592), _IMX708),
    "module2": Camera("Camera Module 2", 62.2, 48.8, (3280, 2464), _IMX219),
    "hq-6mm": Camera("HQ Camera + 6 mm lens", _HQ_6MM[0], _HQ_6MM[1], (4056, 3040), _IMX477),
    "webcam": Camera("USB webcam, 78° diagonal (e.g. C920)", _WEBCAM[0], _WEBCAM[1],
                     (1920, 1080), (SensorMode((1920, 1080), 8, (1920, 1080)),), False),
}


def sensor_mode(camera: Camera, width: int, height: int) -> SensorMode:
    """The mode picamera2 and rpicam-still choose for a width x height picture (libcamera's
    score: size and aspect ratio, a bigger mode preferred to a smaller one, bit depth)."""

    def score(desired: float, actual: float) -> float:
        d = desired - actual
        return -d / 4 if d < 0 else d * 2

    def total(m: SensorMode) -> float:
        return (score(width, m.size[0]) + score(height, m.size[1])
                + 1500 * score(width / height, m.size[0] / m.size[1])
                + 500 * abs(camera.bits - m.bits))

    best = camera.modes[0]
    for m in camera.modes[1:]:
        if total(m) <= total(best):  # libcamera keeps the last of equal scores
            best = m
    return best


def picture_fov(camera: Camera, width: int, height: int) -> tuple[float, float]:
    """Horizontal and vertical field of view (degrees) of a width x height picture."""
    aw, ah = (float(v) for v in sensor_mode(camera, width, height).area)
    if aw / ah > width / height:  # the ISP crops the sides to the picture's aspect ratio
        aw = ah * width / height
    else:
        ah = aw * height / width
    sw, sh = aw / camera.pixels[0], ah / camera.pixels[1]
    return (2 * math.degrees(math.atan(sw * math.tan(math.radians(camera.hfov) / 2))),
            2 * math.degrees(math.atan(sh * math.tan(math.radians(camera.vfov) / 2))))


def marker_reach_mm(geometry: BoardGeometry | None = None) -> tuple[float, float]:
    """How far the marker squares reach from the centre of F3: along x (toward K3), y."""
    if geometry is None:
        from vision.geometry import BoardGeometry

        geometry = BoardGeometry()
    h = geometry.marker_side_mm / 2
    xs = [abs(geometry.marker_centre_mm(i)[0]) + h for i in geometry.markers]
    ys = [abs(geometry.marker_centre_mm(i)[1]) + h for i in geometry.markers]
    return (max(xs), max(ys))


def min_height_mm(hfov: float, vfov: float, geometry: BoardGeometry | None = None,
                  margin: float = EDGE_MARGIN) -> float:
    """The lowest height above the board (mm) at which a camera looking straight down on the
    centre of F3 keeps every marker ``margin`` of the picture inside its edges."""
    x, y = marker_reach_mm(geometry)
    keep = 1 - 2 * margin
    return max(x / (keep * math.tan(math.radians(hfov) / 2)),
               y / (keep * math.tan(math.radians(vfov) / 2)))


#: The rows of docs/build/camera.md's table: camera key, picture size.
TABLE_ROWS = (("module3", 1920, 1080), ("module3", 2304, 1296), ("module3", 1280, 960),
              ("module3", 1536, 864), ("module3", 1600, 1200), ("module3-wide", 1920, 1080),
              ("module2", 1280, 960), ("module2", 1920, 1080), ("hq-6mm", 1280, 960),
              ("webcam", 1280, 720))


def table_row(key: str, width: int, height: int, geometry: BoardGeometry | None = None
              ) -> dict[str, Any]:
    """One row of the table: the field of view, the lowest height and px per mm there."""
    camera = CAMERAS[key]
    hfov, vfov = picture_fov(camera, width, height)
    h = min_height_mm(hfov, vfov, geometry)
    view = 2 * h * math.tan(math.radians(hfov) / 2)
    return {"camera": camera.name, "size": f"{width}x{height}", "hfov": hfov, "vfov": vfov,
            "min_height_cm": h / 10, "px_per_mm": width / view,
            "mode": ("x".join(map(str, sensor_mode(camera, width, height).size))
                     if camera.modes_known else "—")}


def format_table(geometry: BoardGeometry | None = None) -> str:
    lines = ["| camera | picture | sensor mode | field of view | lowest height (5 %) "
             "| px per mm there |", "|---|---|---|---|---|---|"]
    for key, w, h in TABLE_ROWS:
        r = table_row(key, w, h, geometry)
        lines.append(f"| {r['camera']} | {r['size']} | {r['mode']} | {r['hfov']:.0f}° × "
                     f"{r['vfov']:.0f}° | {math.ceil(r['min_height_cm'])} cm | "
                     f"{r['px_per_mm']:.1f} |")
    x, y = marker_reach_mm(geometry)
    lines.append(f"\nmarkers reach {x:g} x {y:g} mm; h_min = max(X / (0.9 tan(H/2)), "
                 f"Y / (0.9 tan(V/2)))")
    return "\n".join(lines)


# -- the check of ``vision calibrate`` ----------------------------------------------------

@dataclass
class FramingCheck:
    """How close each marker comes to each edge of the pictures, as a share of the picture's
    width (left, right) or height (top, bottom); negative: beyond the edge (a marker not seen,
    placed where the seen ones put it). The nearest over all views."""

    gaps: dict[int, dict[str, float]]
    unseen: dict[int, bool]  # marker id -> True when no view showed it
    size: tuple[int, int]
    frames: int
    margin: float = EDGE_MARGIN
    #: how much higher (x) the camera must be to keep the margin (1.0: no higher)
    raise_by: float = 1.0
    #: True when centring the camera over F3 alone would keep the margin
    centring_helps: bool = False
    near: list[tuple[int, str, float]] = field(init=False)

    def __post_init__(self) -> None:
        self.near = sorted(((mid, edge, gap) for mid, edges in self.gaps.items()
                            for edge, gap in edges.items() if gap < self.margin),
                           key=lambda t: (t[0], t[2]))

    @property
    def ok(self) -> bool:
        return not self.near and not any(self.unseen.values())

    def nearest(self) -> float:
        return min(g for edges in self.gaps.values() for g in edges.values())

    def describe(self) -> str:
        w, h = self.size
        if self.ok:
            return (f"framing: every marker at least {self.nearest():.0%} of the picture from "
                    f"its edges ({self.frames} view(s), {w}x{h}): OK")
        parts = []
        done: set[int] = set()
        for mid, edge, gap in self.near:
            if mid in done:
                continue  # the nearest edge of each marker
            done.add(mid)
            if self.unseen.get(mid):
                where = "beyond" if gap < 0 else "at"
                parts.append(f"ID {mid} not seen ({where} the {edge} edge)")
            elif gap < 0:
                parts.append(f"ID {mid} cut by the {edge} edge")
            else:
                side = w if edge in ("left", "right") else h
                parts.append(f"ID {mid} {gap:.1%} ({gap * side:.0f} px) from the {edge} edge")
        hidden = [mid for mid, unseen in sorted(self.unseen.items()) if unseen and mid not in done]
        if not parts:
            return (f"framing: marker {', '.join(f'ID {m}' for m in hidden)} not seen although "
                    f"inside the picture: uncover it, check its print, calibrate again")
        parts += [f"ID {mid} not seen (covered?)" for mid in hidden]
        fix = (f"raise the camera about {self.raise_by - 1:.0%}" if self.raise_by > 1.005
               else "raise the camera a little")
        if self.centring_helps:
            fix = "centre the camera over F3, or " + fix
        return (f"framing: markers near the edge of the picture: {'; '.join(parts)} (keep "
                f"{self.margin:.0%}: {self.margin * w:.0f} px left and right, "
                f"{self.margin * h:.0f} px top and bottom of {w}x{h}): {fix}, or use a "
                f"picture size with the camera's whole field of view (Camera Module 3: "
                f"1920x1080; docs/build/camera.md)")


def marker_gaps(corners: Any, size: tuple[int, int]) -> dict[str, float]:
    """Share of the picture between a marker's corners (px) and each edge."""
    import numpy as np

    pts = np.asarray(corners, np.float64).reshape(-1, 2)
    w, h = size
    return {"left": float(pts[:, 0].min()) / w, "right": (w - float(pts[:, 0].max())) / w,
            "top": float(pts[:, 1].min()) / h, "bottom": (h - float(pts[:, 1].max())) / h}


def _placed_unseen(found: Mapping[int, np.ndarray], geometry: BoardGeometry
                   ) -> dict[int, np.ndarray]:
    """Where the markers not found lie in the picture (px corners, maybe outside it), from
    the board-to-picture homography of the found ones' corners (two markers at least)."""
    import cv2
    import numpy as np

    missing = [i for i in geometry.markers if i not in found]
    if not missing or len(found) < 2:
        return {}
    mm = np.concatenate([geometry.marker_corners_mm(i)[:, :2] for i in found])
    px = np.concatenate([np.asarray(c, np.float64).reshape(4, 2) for c in found.values()])
    hom, _ = cv2.findHomography(mm, px, 0)
    if hom is None:
        return {}
    out = {}
    for i in missing:
        pts = geometry.marker_corners_mm(i)[:, :2].reshape(-1, 1, 2)
        out[i] = cv2.perspectiveTransform(pts, hom).reshape(4, 2)
    return out


def check_framing(frames: Sequence[Any], geometry: BoardGeometry | None = None,
                  margin: float = EDGE_MARGIN) -> FramingCheck | None:
    """The markers' distances to the picture's edges in camera frames (BGR or grey) of the
    table; None when no frame shows two markers."""
    import cv2
    import numpy as np

    from vision.geometry import BoardGeometry
    from vision.pose import MarkerDetector

    g = geometry or BoardGeometry()
    detector = MarkerDetector(g, 1.0)
    gaps: dict[int, dict[str, float]] = {}
    seen: set[int] = set()
    size = (0, 0)
    used = 0
    raise_by = 1.0
    centring = True
    for frame in frames:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        h, w = grey.shape[:2]
        found = detector.detect(grey)
        if len(found) < 2:
            continue
        used += 1
        size = (w, h)
        every = dict(found) | _placed_unseen(found, g)
        seen.update(found)
        for mid, corners in every.items():
            mine = gaps.setdefault(mid, {})
            for edge, gap in marker_gaps(corners, (w, h)).items():
                mine[edge] = min(mine.get(edge, math.inf), gap)
        pts = np.concatenate([np.asarray(c, np.float64).reshape(-1, 2) for c in every.values()])
        # raising the camera shrinks the view about the picture's centre
        reach = np.abs(pts - (w / 2, h / 2)) / ((0.5 - margin) * np.array([w, h]))
        raise_by = max(raise_by, float(reach.max()))
        # centring: the markers' span fits inside the margins on both axes
        span = (pts.max(axis=0) - pts.min(axis=0)) / np.array([w, h])
        centring = centring and bool(np.all(span <= 1 - 2 * margin))
    if not used:
        return None
    unseen = {i: i not in seen for i in g.markers}
    return FramingCheck(gaps, unseen, size, used, margin, raise_by, centring and raise_by > 1)


if __name__ == "__main__":
    print(format_table())
