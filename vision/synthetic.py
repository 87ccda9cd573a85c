"""Synthetic camera frames of a known position, with the ground truth, for tests and benchmarks.

The board plane (table, printed sheet, markers, board, cell rings) is drawn once as a texture
in millimetres and warped into the frame through the camera; stacks are 3-D discs drawn far to
near (so tall stacks lean and hide what is behind them); hands are skin-coloured arms from the
frame edge. Light (colour cast, gradient, vignette, shadows), glare, blur, noise and JPEG are
applied last. An id buffer drawn alongside gives the truth: how much of each cell's sample
region really shows its own top.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.geometry import NEIGHBOURS, NUM_CELLS
from vision.geometry import BoardGeometry

PIECE_ALBEDO = {"w": (224, 226, 228), "b": (36, 34, 33), "r": (40, 38, 176)}
BOARD_STYLES = {"grey": (152, 156, 158), "beige": (146, 164, 172), "slate": (160, 148, 134)}
TABLE_ALBEDO = (60, 82, 112)
PAPER_ALBEDO = (236, 238, 238)
SKIN_TONES = ((150, 176, 226), (120, 150, 205), (92, 124, 178), (60, 86, 128))
WARM = np.array([0.72, 0.88, 1.0])
COLD = np.array([1.0, 0.95, 0.80])
#: Sample region radius as a share of the disc radius (the reader uses a little less).
TRUTH_RADIUS = 0.6
_CIRCLE = np.stack([np.cos(np.linspace(0, 2 * np.pi, 32, endpoint=False)),
                    np.sin(np.linspace(0, 2 * np.pi, 32, endpoint=False))], axis=1)
_HAND_ID, _SIDE_ID, _NONE_ID = 254, 255, 0


@dataclass
class Hand:
    """An arm from ``start`` (px, usually off-frame) to a hand centred at ``end`` (px)."""

    start: tuple[float, float]
    end: tuple[float, float]
    width: float
    skin: tuple[int, int, int]


@dataclass
class Scene:
    """Everything that decides one frame; ``random_scene`` makes varied ones from a seed."""

    stacks: list[str]
    size: tuple[int, int] = (1280, 960)
    focal_per_width: float = 0.83
    tilt_deg: float = 20.0
    azimuth_deg: float = -90.0
    yaw_deg: float = 0.0
    fill: float = 0.85
    board_style: str = "grey"
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    exposure: float = 1.0
    gradient: tuple[float, float] = (0.0, 0.0)
    vignette: float = 0.0
    shadows: list[tuple[float, float, float, float]] = field(default_factory=list)
    glare: list[tuple[float, float, float, float]] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    hidden_markers: tuple[int, ...] = ()
    blur: float = 0.6
    noise: float = 2.0
    jpeg_quality: int = 0
    seed: int = 0


@dataclass
class Truth:
    """What a perfect reader reports and how sure it may be."""

    snapshot: str
    visible: list[float]
    glare: list[bool]
    camera_matrix: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray

    @property
    def fully_covered(self) -> list[int]:
        return [c for c, v in enumerate(self.visible) if v < 0.05]

    @property
    def partly_covered(self) -> list[int]:
        return [c for c, v in enumerate(self.visible) if 0.05 <= v < 0.97]

    def uncertain(self, cell: int) -> bool:
        """True when '?' is an acceptable answer for ``cell`` (besides the true colour)."""
        return self.visible[cell] < 0.97 or self.glare[cell]


def heights_of(stacks: Sequence[str]) -> list[int]:
    return [len(s) for s in stacks]


def snapshot_of(stacks: Sequence[str]) -> str:
    return "".join(s[-1] if s else "." for s in stacks)


def random_position(rng: np.random.Generator, moves: int | None = None) -> list[str]:
    """All 49 pieces placed at random, then random stacking onto neighbours (heights 1-8)
    and a few removals, like a game in phase 2."""
    pieces = list("w" * 23 + "b" * 23 + "r" * 3)
    rng.shuffle(pieces)
    stacks = list(pieces)
    n = int(rng.integers(0, 36)) if moves is None else moves
    for _ in range(n):
        src = int(rng.integers(NUM_CELLS))
        if not stacks[src]:
            continue
        dests = [d for d in NEIGHBOURS[src] if stacks[d] and len(stacks[d]) + len(stacks[src]) <= 8]
        if not dests:
            continue
        dst = dests[int(rng.integers(len(dests)))]
        stacks[dst] += stacks[src]
        stacks[src] = ""
        if rng.random() < 0.15:
            victim = int(rng.integers(NUM_CELLS))
            if "r" not in stacks[victim]:
                stacks[victim] = ""
    return stacks


def random_scene(rng: np.random.Generator, stacks: list[str], *, hands: int = 0,
                 size: tuple[int, int] = (1280, 960), glare: bool = True,
                 shadow: bool = True) -> Scene:
    """A varied scene: tilt <= 35 deg, any yaw, warm..cold light, gradients, noise, JPEG."""
    w, h = size
    mix = float(rng.random())
    cast = tuple(float(v) for v in (1 - mix) * WARM + mix * COLD)
    scene = Scene(
        stacks=stacks, size=size,
        focal_per_width=float(rng.uniform(0.7, 1.2)),
        tilt_deg=float(rng.uniform(0, 35)), azimuth_deg=float(rng.uniform(-180, 180)),
        yaw_deg=float(rng.uniform(-180, 180)), fill=float(rng.uniform(0.78, 0.95)),
        board_style=str(rng.choice(list(BOARD_STYLES))), cast=cast,  # type: ignore[arg-type]
        exposure=float(rng.uniform(0.7, 1.0)),
        gradient=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3))),
        vignette=float(rng.uniform(0, 0.25)),
        blur=float(rng.uniform(0.3, 1.2)), noise=float(rng.uniform(1.0, 4.0)),
        jpeg_quality=int(rng.integers(70, 95)), seed=int(rng.integers(1 << 30)),
    )
    if shadow and rng.random() < 0.3:
        scene.shadows.append((float(rng.uniform(0, w)), float(rng.uniform(0, h)),
                              float(rng.uniform(0.1, 0.3) * w), float(rng.uniform(0.15, 0.35))))
    if glare and rng.random() < 0.3:
        scene.glare.append((float(rng.uniform(0, w)), float(rng.uniform(0, h)),
                            float(rng.uniform(0.008, 0.03) * w), float(rng.uniform(150, 320))))
    for _ in range(hands):
        side = int(rng.integers(4))
        edge = [(rng.uniform(0, w), -0.1 * h), (rng.uniform(0, w), 1.1 * h),
                (-0.1 * w, rng.uniform(0, h)), (1.1 * w, rng.uniform(0, h))][side]
        end = (float(rng.uniform(0.3, 0.7) * w), float(rng.uniform(0.3, 0.7) * h))
        skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
        scene.hands.append(Hand((float(edge[0]), float(edge[1])), end,
                                float(rng.uniform(0.05, 0.09) * w), skin))
    return scene


def camera_pose(scene: Scene, geometry: BoardGeometry) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """Camera matrix, rotation matrix and translation that frame the sheet as the scene says."""
    w, h = scene.size
    f = scene.focal_per_width * w
    k = np.array([[f, 0, w / 2.0], [0, f, h / 2.0], [0, 0, 1.0]])
    th, az, yaw = (math.radians(v) for v in (scene.tilt_deg, scene.azimuth_deg, scene.yaw_deg))
    view = np.array([math.sin(th) * math.cos(az), math.sin(th) * math.sin(az), math.cos(th)])
    z = -view
    up = np.array([math.cos(yaw + math.pi / 2), math.sin(yaw + math.pi / 2), 0.0])
    y = -(up - (up @ z) * z)
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    rot = np.stack([x, y, z])
    hx, hy = geometry.sheet_extent_mm()
    corners = np.array([[sx * hx, sy * hy, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
    dist = 1000.0
    for _ in range(6):
        t = -rot @ (view * dist)
        cam = corners @ rot.T + t
        uv = cam[:, :2] / cam[:, 2:3] * f
        span = max((uv[:, 0].max() - uv[:, 0].min()) / w, (uv[:, 1].max() - uv[:, 1].min()) / h)
        dist *= span / scene.fill
    # Centre the sheet in the frame.
    t = -rot @ (view * dist)
    cam = corners @ rot.T + t
    uv = cam[:, :2] / cam[:, 2:3] * f
    mid = (uv.max(axis=0) + uv.min(axis=0)) / 2.0
    t = t - np.array([mid[0], mid[1], 0.0]) * (cam[:, 2].mean() / f)
    return k, rot, t


def _project(k: np.ndarray, rot: np.ndarray, t: np.ndarray, pts: np.ndarray) -> np.ndarray:
    cam = pts @ rot.T + t
    uvw = cam @ k.T
    return np.asarray(uvw[:, :2] / uvw[:, 2:3])


_TEXTURES: dict[tuple[object, ...], np.ndarray] = {}
_TEX_SCALE = 2.0  # texture pixels per mm


def _texture(geometry: BoardGeometry, style: str) -> tuple[np.ndarray, float, float]:
    hx, hy = geometry.sheet_extent_mm()
    X, Y = hx + 80.0, hy + 80.0
    key = (style, geometry.pitch_mm, geometry.marker_side, tuple(sorted(geometry.markers.items())),
           geometry.dictionary)
    if key not in _TEXTURES:
        s = _TEX_SCALE
        W, H = int(2 * X * s), int(2 * Y * s)
        rng = np.random.default_rng(7)
        tex = np.empty((H, W, 3), np.uint8)
        tex[:] = TABLE_ALBEDO
        grain = (12 * np.sin(np.linspace(0, 90, H))[:, None] + rng.normal(0, 4, (H, W)))
        tex[:] = np.clip(tex.astype(np.float32) + grain[..., None], 0, 255).astype(np.uint8)

        def px(pts: np.ndarray) -> np.ndarray:
            return np.stack([(pts[:, 0] + X) * s, (Y - pts[:, 1]) * s], axis=1)

        sheet = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
        cv2.fillConvexPoly(tex, np.round(px(sheet) * 16).astype(np.int32), PAPER_ALBEDO,
                           cv2.LINE_AA, 4)
        outline = geometry.board_outline_mm()
        cv2.fillConvexPoly(tex, np.round(px(outline) * 16).astype(np.int32),
                           BOARD_STYLES[style], cv2.LINE_AA, 4)
        board_noise = rng.normal(0, 3, (H, W, 1)).astype(np.float32)
        mask = np.zeros((H, W), np.uint8)
        cv2.fillConvexPoly(mask, np.round(px(outline)).astype(np.int32), 1)
        tex = np.where(mask[..., None] > 0,
                       np.clip(tex + board_noise, 0, 255).astype(np.uint8), tex)
        ring = 0.45 * geometry.pitch_mm
        for cx, cy in geometry.cell_centres_mm():
            c = px(np.array([[cx, cy]]))[0]
            cv2.circle(tex, (int(c[0] * 16), int(c[1] * 16)), int(ring * s * 16), (70, 72, 74),
                       max(1, int(1.0 * s)), cv2.LINE_AA, 4)
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.dictionary))
        side = int(round(geometry.marker_side_mm * s))
        for mid in geometry.markers:
            img = cv2.aruco.generateImageMarker(dictionary, mid, side)
            cx, cy = geometry.marker_centre_mm(mid)
            u0 = int(round((cx + X) * s - side / 2))
            v0 = int(round((Y - cy) * s - side / 2))
            tex[v0:v0 + side, u0:u0 + side] = np.where(img[..., None] > 127, PAPER_ALBEDO,
                                                       (22, 22, 22)).astype(np.uint8)
        _TEXTURES[key] = tex
    return _TEXTURES[key], X, Y


def render(scene: Scene, geometry: BoardGeometry | None = None) -> tuple[np.ndarray, Truth]:
    """The BGR frame of ``scene`` and its ground truth."""
    geometry = geometry or BoardGeometry()
    w, h = scene.size
    rng = np.random.default_rng(scene.seed)
    k, rot, t = camera_pose(scene, geometry)
    tex, X, Y = _texture(geometry, scene.board_style)
    s = _TEX_SCALE
    tex_to_board = np.array([[1 / s, 0, 0.5 / s - X], [0, -1 / s, Y - 0.5 / s], [0, 0, 1.0]])
    hom = k @ np.stack([rot[:, 0], rot[:, 1], t], axis=1) @ tex_to_board
    img = cv2.warpPerspective(tex, hom, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=TABLE_ALBEDO)
    ids = np.zeros((h, w), np.uint8)
    for mid in scene.hidden_markers:
        corners = geometry.marker_corners_mm(mid)
        centre = corners.mean(axis=0)
        big = centre + (corners - centre) * 1.5
        cv2.fillConvexPoly(img, np.round(_project(k, rot, t, big)).astype(np.int32),
                           (90, 120, 160))
    radius = geometry.disc_radius_mm
    thick = geometry.thickness_mm
    centres = geometry.cell_centres_mm()
    heights = heights_of(scene.stacks)

    def circle(c: int, z: float, r: float) -> np.ndarray:
        pts = np.column_stack([centres[c] + r * _CIRCLE, np.full(len(_CIRCLE), z)])
        return _project(k, rot, t, pts)

    for c in range(NUM_CELLS):
        if heights[c] == 0:
            cv2.fillConvexPoly(ids, np.round(circle(c, 0.0, radius)).astype(np.int32), c + 1)
    depth = [(np.append(centres[c], 0.0) @ rot.T + t)[2] for c in range(NUM_CELLS)]
    for c in sorted(range(NUM_CELLS), key=lambda c: -depth[c]):
        stack = scene.stacks[c]
        for level, colour in enumerate(stack):
            albedo = np.array(PIECE_ALBEDO[colour], np.float64)
            base = albedo * (1.0 + rng.normal(0, 0.02, 3)) + rng.normal(0, 1.0, 3)
            lo, hi = circle(c, level * thick, radius), circle(c, (level + 1) * thick, radius)
            hull = cv2.convexHull(np.round(np.vstack([lo, hi]) * 16).astype(np.int32))
            side = tuple(float(v) for v in np.clip(base * 0.72, 0, 255))
            cv2.fillConvexPoly(img, hull, side, cv2.LINE_AA, 4)
            cv2.fillConvexPoly(ids, hull // 16, _SIDE_ID)
            edge = tuple(float(v) for v in np.clip(base * 0.45, 0, 255))
            cv2.polylines(img, [np.round(lo * 16).astype(np.int32)], True, edge, 1, cv2.LINE_AA,
                          4)
            if level == len(stack) - 1:
                top = np.round(hi * 16).astype(np.int32)
                cv2.fillConvexPoly(img, top, tuple(float(v) for v in np.clip(base, 0, 255)),
                                   cv2.LINE_AA, 4)
                cv2.polylines(img, [top], True, edge, 1, cv2.LINE_AA, 4)
                cv2.fillConvexPoly(ids, top // 16, c + 1)
    shade = np.ones((h, w), np.float32)
    arms = np.zeros((h, w), np.uint8)
    for hand in scene.hands:
        arm = np.zeros((h, w), np.uint8)
        _draw_hand(arm, hand, 1)
        _draw_hand(img, hand, hand.skin)
        _draw_hand(ids, hand, _HAND_ID)
        arms |= arm
        off = int(0.03 * w)
        moved = np.roll(arm, (off, off), axis=(0, 1)).astype(np.float32)
        shade *= 1.0 - 0.4 * cv2.GaussianBlur(moved, (0, 0), 0.02 * w)
    for sx, sy, sr, strength in scene.shadows:
        blob = np.zeros((h, w), np.float32)
        cv2.circle(blob, (int(sx), int(sy)), int(sr), 1.0, -1)
        shade *= 1.0 - strength * cv2.GaussianBlur(blob, (0, 0), sr * 0.4)
    shade[arms > 0] = 1.0  # arms are above their own shadows
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xn, yn = xx / w - 0.5, yy / h - 0.5
    field_ = (1.0 + scene.gradient[0] * xn + scene.gradient[1] * yn
              - scene.vignette * (xn * xn + yn * yn) * 2.0)
    # Auto-exposure: the brightest light just keeps the white sheet below saturation.
    light = field_ * (scene.exposure / float(field_.max())) * shade
    gain = np.array(scene.cast, np.float32) / max(scene.cast)
    out = img.astype(np.float32) * light[..., None] * gain
    glare = np.zeros((h, w), np.float32)
    for gx, gy, gr, amp in scene.glare:
        glare += amp * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * gr * gr))
    out += glare[..., None]
    if scene.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), scene.blur)
    out += rng.normal(0, scene.noise, out.shape).astype(np.float32)
    frame = np.clip(out, 0, 255).astype(np.uint8)
    if scene.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
        frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    truth = _truth(scene, ids, glare, k, rot, t, centres, heights, radius, thick)
    return frame, truth


def _draw_hand(img: np.ndarray, hand: Hand, colour: object) -> None:
    p0 = (int(hand.start[0]), int(hand.start[1]))
    p1 = (int(hand.end[0]), int(hand.end[1]))
    cv2.line(img, p0, p1, colour, int(hand.width))  # type: ignore[call-overload]
    ang = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
    axes = (int(hand.width * 0.95), int(hand.width * 0.75))
    cv2.ellipse(img, p1, axes, ang, 0, 360, colour, -1)  # type: ignore[call-overload]


def _truth(scene: Scene, ids: np.ndarray, glare: np.ndarray, k: np.ndarray, rot: np.ndarray,
           t: np.ndarray, centres: np.ndarray, heights: list[int], radius: float,
           thick: float) -> Truth:
    h, w = ids.shape
    visible: list[float] = []
    glared: list[bool] = []
    expected = []
    for c in range(NUM_CELLS):
        pts = np.column_stack([centres[c] + TRUTH_RADIUS * radius * _CIRCLE,
                               np.full(len(_CIRCLE), heights[c] * thick)])
        poly = np.round(_project(k, rot, t, pts)).astype(np.int32)
        x0, y0 = np.maximum(poly.min(axis=0), 0)
        x1, y1 = np.minimum(poly.max(axis=0) + 1, (w, h))
        if x1 <= x0 or y1 <= y0:
            visible.append(0.0)
            glared.append(False)
            expected.append("?")
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, poly - (x0, y0), 1)
        inside = mask > 0
        region = ids[y0:y1, x0:x1][inside]
        frac = float(np.mean(region == c + 1)) if region.size else 0.0
        visible.append(frac)
        glared.append(bool(glare[y0:y1, x0:x1][inside].max(initial=0.0) > 20.0))
        top = scene.stacks[c][-1] if scene.stacks[c] else "."
        expected.append(top if frac >= 0.05 else "?")
    return Truth("".join(expected), visible, glared, k, cv2.Rodrigues(rot)[0].reshape(3),
                 t.copy())
