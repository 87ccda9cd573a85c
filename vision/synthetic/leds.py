"""The table's own LEDs in a synthetic frame: each glows through a diffuser hole 19 mm from its
space's centre toward row 1 (a grey disc when dark): a saturated spot in the hole, a tinted
halo on the board round it, a tinted near side on the pieces next to it.

``Scene.led_holes`` draws the holes; ``Scene.leds`` (cell -> RGB after brightness, only the lit
cells) lights them. All of it is a few whole-frame operations (no per-pixel Python loops).
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from engine.geometry import NUM_CELLS
from vision.geometry import BoardGeometry

HOLE_RADIUS_MM = 2.5
HALO_MM = 7.0  # the halo's spread on the board (Gaussian sigma)
SPOT_GAIN = 4.0  # the hole's glow against the LED's colour after brightness
HALO_GAIN = 2.2  # the halo's light at the hole against the LED's colour after brightness
#: How much of the halo each kind of surface takes: the board, pieces' side walls, tops, hands.
BOARD_W, SIDE_W, TOP_W, HAND_W = 1.0, 1.1, 0.2, 0.1


def hole_centres_mm(geometry: BoardGeometry) -> np.ndarray:
    """(49, 2) board mm of the LED holes."""
    return geometry.led_holes_mm()


def _project(k: np.ndarray, rot: np.ndarray, t: np.ndarray, pts: np.ndarray) -> np.ndarray:
    cam = pts @ rot.T + t
    uvw = cam @ k.T
    return np.asarray(uvw[:, :2] / uvw[:, 2:3])


def _px_per_mm(k: np.ndarray, rot: np.ndarray, t: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Pixels per mm on the board plane at each point (from a 1 mm step in x and in y)."""
    z = np.zeros((len(xy), 1))
    p0 = _project(k, rot, t, np.c_[xy, z])
    px = _project(k, rot, t, np.c_[xy + [1.0, 0.0], z])
    py = _project(k, rot, t, np.c_[xy + [0.0, 1.0], z])
    return np.asarray(np.sqrt(np.linalg.norm(px - p0, axis=1) * np.linalg.norm(py - p0, axis=1)))


def draw_holes(img: np.ndarray, geometry: BoardGeometry, k: np.ndarray, rot: np.ndarray,
               t: np.ndarray) -> None:
    """The 49 dark holes on the board plane (grey discs), before the stacks are drawn."""
    holes = hole_centres_mm(geometry)
    ring = HOLE_RADIUS_MM * np.c_[np.cos(np.linspace(0, 2 * np.pi, 16, endpoint=False)),
                                  np.sin(np.linspace(0, 2 * np.pi, 16, endpoint=False))]
    for c in range(NUM_CELLS):
        pts = np.c_[holes[c] + ring, np.zeros(len(ring))]
        poly = np.round(_project(k, rot, t, pts) * 16).astype(np.int32)
        cv2.fillConvexPoly(img, poly, (118, 120, 122), cv2.LINE_AA, 4)


def led_light(leds: Mapping[int, tuple[int, int, int]], geometry: BoardGeometry,
              ids: np.ndarray, base: np.ndarray, heights: list[int], k: np.ndarray,
              rot: np.ndarray, t: np.ndarray, side_id: int, hand_id: int) -> np.ndarray:
    """What the lit LEDs add to the lit frame (float32 BGR): the spots where the board shows
    (the hole may be hidden by a stack or a hand), the halo on what the surfaces reflect
    (``base``: the unlit albedo image)."""
    h, w = ids.shape
    add = np.zeros((h, w, 3), np.float32)
    if not leds:
        return add
    holes = hole_centres_mm(geometry)
    cells = sorted(leds)
    uv = _project(k, rot, t, np.c_[holes[cells], np.zeros(len(cells))])
    scale = _px_per_mm(k, rot, t, holes[cells])
    sigma = float(np.median(scale)) * HALO_MM
    spots = np.zeros((h, w, 3), np.float32)
    impulses = np.zeros((h, w, 3), np.float32)
    for (x, y), s, c in zip(uv, scale, cells, strict=True):
        r, g, b = leds[c]
        bgr = np.array([b, g, r], np.float32)
        xi, yi = int(round(x)), int(round(y))
        if not (0 <= xi < w and 0 <= yi < h):
            continue
        cv2.circle(spots, (xi, yi), max(1, int(round(HOLE_RADIUS_MM * s))),
                   tuple(float(v) for v in bgr * SPOT_GAIN), -1, cv2.LINE_AA)
        impulses[yi, xi] += bgr * HALO_GAIN * 2.0 * np.pi * sigma * sigma
    # What each pixel shows: the board (empty cells' discs included), a side wall, a top, a hand.
    lut = np.full(256, BOARD_W, np.float32)
    for c in range(NUM_CELLS):
        if heights[c]:
            lut[c + 1] = TOP_W
    lut[side_id], lut[hand_id] = SIDE_W, HAND_W
    weight = lut[ids]
    board = (weight == BOARD_W).astype(np.float32)
    halo = cv2.GaussianBlur(impulses, (0, 0), sigma)
    glow = cv2.GaussianBlur(spots, (0, 0), max(0.6, 0.25 * float(np.median(scale))))
    add += base.astype(np.float32) / 255.0 * halo * weight[..., None]
    add += glow * board[..., None]
    return add
