"""Synthetic camera frames of a known position, with the ground truth, for tests and benchmarks.

The board plane (table, board material and print, markers on the sheet or on white cards; see
vision.synthetic.materials) is drawn once as a texture in millimetres and warped into the frame
through the camera; stacks are 3-D discs (ivory to paper white, matte to glossy black, a rim, a
shaded side wall, a cast shadow, slightly off-centre: at random in each frame, or where
``Scene.offsets`` says, so that a whole game's untouched stacks stay put) drawn far to near, so
tall stacks lean and hide what is behind them; hands are arms from the frame edge with sleeves
of any colour. Lamps of 2700-6500 K under an imperfect white balance, gradients, vignette,
shadows, glare, clipped highlights, lens distortion, blur, noise and JPEG are applied last. An
id buffer drawn alongside gives the truth: how much of each cell's top really shows, and what a
reader must say there (``Truth.expected``, scored like ../shared/photos).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.geometry import NEIGHBOURS, NUM_CELLS
from vision.geometry import BoardGeometry
from vision.synthetic.leds import draw_holes, led_light
from vision.synthetic.materials import (
    BOARD_STYLES,
    PAPER_ALBEDO,
    TABLE_ALBEDO,
    TEX_SCALE,
    Material,
    random_material,
    texture,
)

__all__ = ["BOARD_STYLES", "PAPER_ALBEDO", "TABLE_ALBEDO", "Hand", "Scene", "Truth", "render",
           "random_scene", "random_position", "heights_of", "snapshot_of", "camera_pose",
           "project_points"]

PIECE_ALBEDO = {"w": (224, 226, 228), "b": (36, 34, 33), "r": (40, 38, 176)}
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
    sleeve: tuple[int, int, int] | None = None  # colour of the sleeve (None: bare arm)
    sleeve_share: float = 0.7  # share of the arm, from ``start``, inside the sleeve


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
    #: The board (None: the project's printed sheet in ``board_style``).
    material: Material | None = None
    #: Piece colours (BGR albedo) by 'w', 'b', 'r' (None: PIECE_ALBEDO).
    pieces: dict[str, tuple[int, int, int]] | None = None
    gloss: float = 0.0  # specular highlight on the tops (0..1): glossy black, clipped whites
    side_shade: float = 0.72  # side walls' light relative to the tops
    decor: bool = False  # a moulded ring on each top
    cast_shadow: tuple[float, float, float] = (0.0, 0.0, 0.0)  # dx, dy per mm height, strength
    jitter: float = 0.0  # stacks and pieces off-centre by up to this many mm
    #: Where each cell's stack stands, mm off its cell's centre (None: ``jitter`` at random,
    #: drawn anew with each ``seed``). Given, the pieces within a stack sit off by amounts
    #: (up to 0.4 ``jitter`` a level) and in shades fixed by the cell and its offset: a stack
    #: looks the same in every frame until it is set down again (a new offset).
    offsets: list[tuple[float, float]] | None = None
    distortion: float = 0.0  # radial lens distortion k1 (the reader is not told)
    lamp_k: float = 0.0  # lamp colour temperature (information; ``cast`` is what is applied)
    led_holes: bool = False  # the table's LED holes (vision.synthetic.leds), grey when dark
    #: The lit LEDs: cell -> RGB after brightness (None or {}: all dark).
    leds: dict[int, tuple[int, int, int]] | None = None


@dataclass
class Truth:
    """What a perfect reader reports and how sure it may be."""

    snapshot: str
    visible: list[float]
    glare: list[bool]
    camera_matrix: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    #: What a reader must say, scored like ../shared/photos: the top's colour or '.', '?'
    #: where the top is entirely under a hand, '*' (not scored) where it is partly under a
    #: hand or glare, or less than half visible behind a taller stack.
    expected: str = ""

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


def kelvin_bgr(kelvin: float) -> np.ndarray:
    """A black body's colour at ``kelvin`` as BGR gains (max 1), 1000..40000 K."""
    t = min(max(kelvin, 1000.0), 40000.0) / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = (99.47 * math.log(t) - 161.12) if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    bgr = np.clip(np.array([b, g, r]), 1.0, 255.0)
    return np.asarray(bgr / bgr.max())


def random_scene(rng: np.random.Generator, stacks: list[str], *, hands: int = 0,
                 size: tuple[int, int] = (1280, 960), glare: bool = True,
                 shadow: bool = True, wide: bool = False) -> Scene:
    """A varied scene: tilt <= 35 deg, any yaw, gradients, noise, JPEG; ``wide`` (default)
    also varies what a real table varies: board material and print, marker cards, ivory to
    paper whites, glossy blacks, lamps of 2700-6500 K under a wrong white balance, clipped
    highlights, cast shadows, off-centre stacks, lens distortion, sleeves of any colour."""
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
    if wide:
        _widen(scene, rng)
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
        sleeve = None
        if wide and rng.random() < 0.15:  # a glove
            skin = tuple(int(v) for v in rng.integers(0, 256, 3))  # type: ignore[assignment]
        if wide and rng.random() < 0.7:
            sleeve = tuple(int(v) for v in rng.integers(0, 256, 3))
            if rng.random() < 0.3:  # the hard ones: like a piece
                sleeve = [(20, 20, 22), (235, 235, 232), (40, 40, 180)][int(rng.integers(3))]
        hand = Hand((float(edge[0]), float(edge[1])), end, float(rng.uniform(0.05, 0.09) * w),
                    skin, sleeve)  # type: ignore[arg-type]
        if sleeve is not None:
            hand.sleeve_share = float(rng.uniform(0.4, 0.85))
        scene.hands.append(hand)
    return scene


def _widen(scene: Scene, rng: np.random.Generator) -> None:
    """What a real table varies beyond the project's own sheet and pieces."""
    scene.material = random_material(rng) if rng.random() < 0.85 else None
    ivory = rng.uniform(0, 1)
    white = np.array([228, 230, 232], float) - ivory * np.array([45, 18, 2]) - rng.uniform(0, 25)
    black = np.full(3, rng.uniform(14, 60)) + rng.normal(0, 3, 3)
    red = np.array([rng.uniform(25, 70), rng.uniform(25, 60), rng.uniform(140, 215)])
    scene.pieces = {k: tuple(int(v) for v in np.clip(c, 0, 255))  # type: ignore[misc]
                    for k, c in (("w", white), ("b", black), ("r", red))}
    scene.gloss = float(rng.uniform(0, 1))
    scene.side_shade = float(rng.uniform(0.45, 0.85))
    scene.decor = bool(rng.random() < 0.4)
    ang = rng.uniform(0, 2 * math.pi)
    length = rng.uniform(0, 0.8)
    scene.cast_shadow = (float(length * math.cos(ang)), float(length * math.sin(ang)),
                         float(rng.uniform(0.1, 0.45)))
    scene.jitter = float(rng.uniform(0, 2.5))
    scene.distortion = float(rng.uniform(-0.12, 0.05))
    lamp = float(rng.uniform(2700, 6500))
    balance = float(np.clip(lamp + rng.normal(0, 900), 2500, 7500))
    gain = kelvin_bgr(lamp) / kelvin_bgr(balance)
    scene.cast = tuple(float(v) for v in gain / gain.max())  # type: ignore[assignment]
    scene.lamp_k = lamp
    scene.exposure = float(rng.uniform(0.75, 1.35))  # above 1: the brightest surfaces clip


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


def project_points(k: np.ndarray, rot: np.ndarray, t: np.ndarray, pts: np.ndarray
                   ) -> np.ndarray:
    """(N, 3) board mm -> (N, 2) pixels of the scene's camera (``camera_pose``)."""
    cam = pts @ rot.T + t
    uvw = cam @ k.T
    return np.asarray(uvw[:, :2] / uvw[:, 2:3])


def render(scene: Scene, geometry: BoardGeometry | None = None) -> tuple[np.ndarray, Truth]:
    """The BGR frame of ``scene`` and its ground truth."""
    geometry = geometry or BoardGeometry()
    w, h = scene.size
    rng = np.random.default_rng(scene.seed)
    k, rot, t = camera_pose(scene, geometry)
    material = scene.material or Material(albedo=BOARD_STYLES[scene.board_style])
    tex, X, Y = texture(geometry, material)
    s = TEX_SCALE
    tex_to_board = np.array([[1 / s, 0, 0.5 / s - X], [0, -1 / s, Y - 0.5 / s], [0, 0, 1.0]])
    hom = k @ np.stack([rot[:, 0], rot[:, 1], t], axis=1) @ tex_to_board
    img = cv2.warpPerspective(tex, hom, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=material.table)
    ids = np.zeros((h, w), np.uint8)
    for mid in scene.hidden_markers:
        corners = geometry.marker_corners_mm(mid)
        centre = corners.mean(axis=0)
        big = centre + (corners - centre) * 1.5
        cv2.fillConvexPoly(img, np.round(project_points(k, rot, t, big)).astype(np.int32),
                           (90, 120, 160))
    if scene.led_holes:
        draw_holes(img, geometry, k, rot, t)
    radius = geometry.disc_radius_mm
    thick = geometry.thickness_mm
    heights = heights_of(scene.stacks)
    # Off-centre stacks (and pieces within them): where each level really sits.
    if scene.offsets is None:
        offsets = rng.uniform(-1, 1, (NUM_CELLS, 2)) * scene.jitter
    else:
        offsets = np.asarray(scene.offsets, float).reshape(NUM_CELLS, 2)
    centres = geometry.cell_centres_mm() + offsets
    albedo = scene.pieces or PIECE_ALBEDO

    def circle(xy: np.ndarray, z: float, r: float) -> np.ndarray:
        pts = np.column_stack([xy + r * _CIRCLE, np.full(len(_CIRCLE), z)])
        return project_points(k, rot, t, pts)

    if scene.cast_shadow[2] > 0:
        _cast_shadows(img, scene, centres, heights, radius, thick, circle)
    for c in range(NUM_CELLS):
        if heights[c] == 0:
            cv2.fillConvexPoly(ids, np.round(circle(centres[c], 0.0, radius)).astype(np.int32),
                               c + 1)
    depth = [(np.append(centres[c], 0.0) @ rot.T + t)[2] for c in range(NUM_CELLS)]
    for c in sorted(range(NUM_CELLS), key=lambda c: -depth[c]):
        stack = scene.stacks[c]
        xy = centres[c].copy()
        pieces = rng if scene.offsets is None else _stack_rng(c, offsets[c])
        for level, colour in enumerate(stack):
            xy = xy + pieces.uniform(-0.4, 0.4, 2) * scene.jitter
            base = np.array(albedo[colour], np.float64) * (1.0 + pieces.normal(0, 0.02, 3))
            base += pieces.normal(0, 1.0, 3)
            lo, hi = circle(xy, level * thick, radius), circle(xy, (level + 1) * thick, radius)
            hull = cv2.convexHull(np.round(np.vstack([lo, hi]) * 16).astype(np.int32))
            side = tuple(float(v) for v in np.clip(base * scene.side_shade, 0, 255))
            cv2.fillConvexPoly(img, hull, side, cv2.LINE_AA, 4)
            cv2.fillConvexPoly(ids, hull // 16, _SIDE_ID)
            edge = tuple(float(v) for v in np.clip(base * 0.45, 0, 255))
            cv2.polylines(img, [np.round(lo * 16).astype(np.int32)], True, edge, 1, cv2.LINE_AA,
                          4)
            if level == len(stack) - 1:
                top = np.round(hi * 16).astype(np.int32)
                cv2.fillConvexPoly(img, top, tuple(float(v) for v in np.clip(base, 0, 255)),
                                   cv2.LINE_AA, 4)
                _top_details(img, scene, base, xy, (level + 1) * thick, radius, circle)
                cv2.polylines(img, [top], True, edge, 1, cv2.LINE_AA, 4)
                cv2.fillConvexPoly(ids, top // 16, c + 1)
    shade = np.ones((h, w), np.float32)
    arms = np.zeros((h, w), np.uint8)
    for hand in scene.hands:
        arm = np.zeros((h, w), np.uint8)
        _draw_hand(arm, hand, 1)
        _draw_hand(img, hand, None)
        _draw_hand(ids, hand, _HAND_ID)
        arms |= arm
        off = int(0.03 * w)
        # The shadow falls beside the arm (a shift, not np.roll: a shadow never wraps round
        # to the opposite edge of the frame).
        moved = np.zeros((h, w), np.float32)
        moved[off:, off:] = arm[:h - off, :w - off]
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
    if scene.leds:
        out += led_light(scene.leds, geometry, ids, img, heights, k, rot, t, _SIDE_ID,
                         _HAND_ID) * gain
    truth = _truth(scene, ids, glare, k, rot, t, centres, heights, radius, thick)
    if scene.distortion:
        out = _distort(out, k, scene.distortion)
    if scene.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), scene.blur)
    out += rng.normal(0, scene.noise, out.shape).astype(np.float32)
    frame = np.clip(out, 0, 255).astype(np.uint8)
    if scene.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
        frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return frame, truth


def _stack_rng(cell: int, offset: np.ndarray) -> np.random.Generator:
    """The draws of the pieces of the stack standing on ``cell`` at ``offset`` (mm): the same
    in every frame until the stack is set down again."""
    ox, oy = (int(round((float(v) + 1000.0) * 1e6)) for v in offset)
    return np.random.default_rng([cell, ox, oy])


def _cast_shadows(img: np.ndarray, scene: Scene, centres: np.ndarray, heights: list[int],
                  radius: float, thick: float, circle: Callable[..., np.ndarray]) -> None:
    """Soft shadows the stacks cast on the board (before the stacks are drawn over them)."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    dx, dy, strength = scene.cast_shadow
    for c in range(len(centres)):
        if heights[c] == 0:
            continue
        far = centres[c] + np.array([dx, dy]) * heights[c] * thick
        pts = np.vstack([circle(centres[c], 0.0, radius), circle(far, 0.0, radius)])
        cv2.fillConvexPoly(mask, cv2.convexHull(np.round(pts).astype(np.int32)), 255)
    soft = cv2.GaussianBlur(mask, (0, 0), 0.004 * w + 1.0).astype(np.float32) / 255.0
    img[:] = np.clip(img * (1.0 - strength * soft)[..., None], 0, 255).astype(np.uint8)


def _top_details(img: np.ndarray, scene: Scene, base: np.ndarray, xy: np.ndarray, z: float,
                 radius: float, circle: Callable[..., np.ndarray]) -> None:
    """A moulded ring and a specular highlight on a top face."""
    if scene.decor:
        ring = np.round(circle(xy, z, 0.62 * radius) * 16).astype(np.int32)
        cv2.polylines(img, [ring], True, tuple(float(v) for v in np.clip(base * 0.82, 0, 255)),
                      1, cv2.LINE_AA, 4)
    if scene.gloss > 0.05:
        dx, dy, _ = scene.cast_shadow
        spot = xy - 0.35 * radius * np.array([dx, dy]) / max(math.hypot(dx, dy), 1e-6)
        pts = np.round(circle(spot, z, 0.22 * radius) * 16).astype(np.int32)
        shine = tuple(float(v) for v in np.clip(base + scene.gloss * 120.0, 0, 255))
        cv2.fillConvexPoly(img, pts, shine, cv2.LINE_AA, 4)


def _distort(img: np.ndarray, k: np.ndarray, k1: float) -> np.ndarray:
    """Radial lens distortion x_d = x_u (1 + k1 r^2) (barrel for k1 < 0), by remapping."""
    h, w = img.shape[:2]
    f, cx, cy = k[0, 0], k[0, 2], k[1, 2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xd, yd = (xx - cx) / f, (yy - cy) / f
    r2 = xd * xd + yd * yd
    # Inverse of the distortion, two fixed-point steps: where each output pixel comes from.
    xu, yu = xd.copy(), yd.copy()
    for _ in range(2):
        scale = 1.0 + k1 * (xu * xu + yu * yu)
        xu, yu = xd / scale, yd / scale
    del r2
    return cv2.remap(img, (xu * f + cx).astype(np.float32), (yu * f + cy).astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _draw_hand(img: np.ndarray, hand: Hand, colour: object) -> None:
    """The arm (``colour`` for masks; None: skin, the sleeve and a rounded shading)."""
    p0 = np.array(hand.start)
    p1 = np.array(hand.end)
    ang = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
    axes = (int(hand.width * 0.95), int(hand.width * 0.75))
    cuff = p0 + (p1 - p0) * hand.sleeve_share
    layers: list[tuple[object, float]]
    if colour is not None:
        layers = [(colour, 1.0)]
    else:
        layers = [(tuple(float(v) * 0.7 for v in hand.skin), 1.0), (hand.skin, 0.6)]
    for col, share in layers:
        width = max(1, int(hand.width * share))
        cv2.line(img, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), col,  # type: ignore[call-overload]
                 width)
        cv2.ellipse(img, (int(p1[0]), int(p1[1])), (int(axes[0] * share), int(axes[1] * share)),  # type: ignore[call-overload]
                    ang, 0, 360, col, -1)
    if hand.sleeve is not None:
        sleeve_layers: list[tuple[object, float]] = (
            [(colour, 1.25)] if colour is not None else
            [(tuple(float(v) * 0.75 for v in hand.sleeve), 1.25),
             (tuple(float(v) for v in hand.sleeve), 0.8)])
        for col, share in sleeve_layers:
            cv2.line(img, (int(p0[0]), int(p0[1])), (int(cuff[0]), int(cuff[1])), col,  # type: ignore[call-overload]
                     max(1, int(hand.width * share)))


def _truth(scene: Scene, ids: np.ndarray, glare: np.ndarray, k: np.ndarray, rot: np.ndarray,
           t: np.ndarray, centres: np.ndarray, heights: list[int], radius: float,
           thick: float) -> Truth:
    h, w = ids.shape
    visible: list[float] = []
    glared: list[bool] = []
    snapshot = []
    expected = []
    for c in range(NUM_CELLS):
        pts = np.column_stack([centres[c] + TRUTH_RADIUS * radius * _CIRCLE,
                               np.full(len(_CIRCLE), heights[c] * thick)])
        poly = np.round(project_points(k, rot, t, pts)).astype(np.int32)
        x0, y0 = np.maximum(poly.min(axis=0), 0)
        x1, y1 = np.minimum(poly.max(axis=0) + 1, (w, h))
        if x1 <= x0 or y1 <= y0:
            visible.append(0.0)
            glared.append(False)
            snapshot.append("?")
            expected.append("*")
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, poly - (x0, y0), 1)
        inside = mask > 0
        region = ids[y0:y1, x0:x1][inside]
        frac = float(np.mean(region == c + 1)) if region.size else 0.0
        hand = float(np.mean(region == _HAND_ID)) if region.size else 0.0
        peak = float(glare[y0:y1, x0:x1][inside].max(initial=0.0))
        visible.append(frac)
        glared.append(peak > 20.0)
        top = scene.stacks[c][-1] if scene.stacks[c] else "."
        snapshot.append(top if frac >= 0.05 else "?")
        if hand >= 0.95:
            expected.append("?")
        elif hand > 0.0 or frac < 0.5 or peak > 60.0:
            expected.append("*")
        else:
            expected.append(top)
    return Truth("".join(snapshot), visible, glared, k, cv2.Rodrigues(rot)[0].reshape(3),
                 t.copy(), "".join(expected))
