"""Board-plane textures for the synthetic renderer: real tables, not only the project's sheet.

A texture is drawn in millimetres (``TEX_SCALE`` pixels per mm) and warped into the frame by
the renderer. Boards are paper, cream card, wood with grain, laminate or felt, printed with
circles, lattice lines, hexagonal outlines and tinted fills in many colours; the markers sit
either on the project's printed sheet or on small white cards laid on the board material.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from engine.geometry import NEIGHBOURS
from vision.geometry import BoardGeometry

TEX_SCALE = 2.0  # texture pixels per mm
TABLE_ALBEDO = (60, 82, 112)
PAPER_ALBEDO = (236, 238, 238)
#: The project's own sheet styles (the board colour inside the printed outline).
BOARD_STYLES = {"grey": (152, 156, 158), "beige": (146, 164, 172), "slate": (160, 148, 134)}
KINDS = ("paper", "card", "wood", "laminate", "felt")
PRINTS = ("circles", "lattice", "hexes", "fills", "circles+fills", "lattice+circles")


@dataclass(frozen=True)
class Material:
    """A board: its surface and print, the table under it, the marker cards on it."""

    kind: str = "sheet"  # "sheet": the project's printed sheet (board_style inside the outline)
    albedo: tuple[int, int, int] = BOARD_STYLES["grey"]
    grain: float = 0.0  # strength of wood grain / felt fibre / paper tooth (0..1)
    prints: str = "circles"
    ink: tuple[int, int, int] = (70, 72, 74)
    fill: tuple[int, int, int] | None = None  # tinted cell fill
    table: tuple[int, int, int] = TABLE_ALBEDO
    table_grain: float = 0.3
    card: tuple[int, int, int] = PAPER_ALBEDO  # marker card white
    quiet: float = 1.0  # quiet zone around a marker, in marker modules (>= 1)
    seed: int = 7


def random_material(rng: np.random.Generator) -> Material:
    """Any of the boards a real table may have."""
    kind = str(rng.choice(KINDS))
    if kind == "paper":
        v = rng.uniform(222, 250)
        albedo = (v - rng.uniform(0, 18), v - rng.uniform(0, 8), v)
        grain = rng.uniform(0.0, 0.15)
    elif kind == "card":
        v = rng.uniform(190, 235)
        albedo = (v - rng.uniform(20, 50), v - rng.uniform(5, 20), v)
        grain = rng.uniform(0.05, 0.25)
    elif kind == "wood":
        v = rng.uniform(110, 215)
        albedo = (v * rng.uniform(0.35, 0.6), v * rng.uniform(0.6, 0.8), v)
        grain = rng.uniform(0.3, 1.0)
    elif kind == "laminate":
        albedo = tuple(rng.uniform(60, 235, 3))
        grain = rng.uniform(0.0, 0.2)
    else:  # felt: green, blue, red, grey, black
        base = [(60, 110, 40), (120, 70, 35), (45, 45, 120), (90, 90, 90), (40, 40, 40)]
        b = np.array(base[int(rng.integers(len(base)))], float) * rng.uniform(0.7, 1.4)
        albedo = tuple(np.clip(b, 15, 220))
        grain = rng.uniform(0.2, 0.6)
    albedo_i = tuple(int(round(float(x))) for x in albedo)
    lum = float(np.mean(albedo_i))
    ink_v = rng.uniform(20, 80) if lum > 110 else rng.uniform(170, 235)
    ink = tuple(int(np.clip(ink_v + rng.normal(0, 15), 0, 255)) for _ in range(3))
    prints = str(rng.choice(PRINTS))
    fill = None
    if "fills" in prints:
        tint = rng.uniform(0.75, 1.15, 3) if rng.random() < 0.7 else rng.uniform(0.5, 1.3, 3)
        fill = tuple(int(np.clip(a * t, 0, 255)) for a, t in zip(albedo_i, tint, strict=True))
    table = tuple(int(x) for x in rng.uniform(20, 200, 3))
    card_v = rng.uniform(228, 252)
    card = (int(card_v - rng.uniform(0, 10)), int(card_v - rng.uniform(0, 4)), int(card_v))
    return Material(kind, albedo_i, float(grain), prints, ink, fill,  # type: ignore[arg-type]
                    table, float(rng.uniform(0, 1)), card,  # type: ignore[arg-type]
                    float(rng.uniform(1.0, 2.5)), int(rng.integers(1 << 30)))


_CACHE: dict[tuple[object, ...], tuple[np.ndarray, float, float]] = {}


def texture(geometry: BoardGeometry, material: Material) -> tuple[np.ndarray, float, float]:
    """(texture BGR uint8, half-width X, half-height Y in mm) of the board plane; cached."""
    hx, hy = geometry.sheet_extent_mm()
    X, Y = hx + 80.0, hy + 80.0
    key = (material, geometry.pitch_mm, geometry.marker_side,
           tuple(sorted(geometry.markers.items())), geometry.dictionary)
    if key in _CACHE:
        return _CACHE[key]
    if len(_CACHE) > 24:
        _CACHE.clear()
    s = TEX_SCALE
    W, H = int(2 * X * s), int(2 * Y * s)
    rng = np.random.default_rng(material.seed)

    def px(pts: np.ndarray) -> np.ndarray:
        return _px(pts, X, Y)

    tex = np.empty((H, W, 3), np.float32)
    tex[:] = material.table
    tex += (12 * material.table_grain * np.sin(np.linspace(0, 90, H))[:, None, None]
            + rng.normal(0, 4, (H, W, 1)))
    outline = geometry.board_outline_mm()
    if material.kind == "sheet":
        sheet = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
        _poly(tex, px(sheet), PAPER_ALBEDO)
        mask = np.zeros((H, W), np.uint8)
        cv2.fillConvexPoly(mask, np.round(px(outline)).astype(np.int32), 1)
        board = np.empty_like(tex)
        board[:] = material.albedo
        board += rng.normal(0, 3, (H, W, 1))
        tex = np.where(mask[..., None] > 0, board, tex)
    else:
        margin = rng.uniform(4, 30)
        rect = np.array([[-hx - margin, -hy - margin], [hx + margin, -hy - margin],
                         [hx + margin, hy + margin], [-hx - margin, hy + margin]])
        mask = np.zeros((H, W), np.uint8)
        cv2.fillConvexPoly(mask, np.round(px(rect)).astype(np.int32), 1)
        board = _surface(material, H, W, rng)
        tex = np.where(mask[..., None] > 0, board, tex)
    _print(tex, geometry, material, X, Y, rng)
    _markers(tex, geometry, material, X, Y)
    out = np.clip(tex, 0, 255).astype(np.uint8)
    _CACHE[key] = (out, X, Y)
    return out, X, Y


def _surface(m: Material, H: int, W: int, rng: np.random.Generator) -> np.ndarray:
    """The board material's colour field: grain, fibres, tooth, a faint sheen."""
    base = np.empty((H, W, 3), np.float32)
    base[:] = m.albedo
    if m.kind == "wood":
        ang = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        warp = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 25) * 60
        rings = np.sin((u + warp) * rng.uniform(0.08, 0.25))
        fine = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 1.2)
        g = m.grain * (0.12 * rings + 0.05 * fine)
        base *= (1.0 + g)[..., None] * np.array([1.0, 1.02, 1.04], np.float32)
    elif m.kind == "felt":
        fibre = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 1.0)
        base *= (1.0 + 0.12 * m.grain * fibre)[..., None]
    else:
        tooth = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 0.8)
        base *= (1.0 + 0.05 * m.grain * tooth)[..., None]
    base += rng.normal(0, 2, (H, W, 1)).astype(np.float32)
    return base


def _px(pts: np.ndarray, X: float, Y: float) -> np.ndarray:
    """Board mm (N, 2) -> texture pixels (N, 2)."""
    return np.stack([(pts[:, 0] + X) * TEX_SCALE, (Y - pts[:, 1]) * TEX_SCALE], axis=1)


def _poly(img: np.ndarray, pts_px: np.ndarray, colour: tuple[float, ...]) -> None:
    cv2.fillConvexPoly(img, np.round(pts_px * 16).astype(np.int32), colour, cv2.LINE_AA, 4)


def _print(tex: np.ndarray, g: BoardGeometry, m: Material, X: float, Y: float,
           rng: np.random.Generator) -> None:
    """Cell circles, lattice lines, hexagons, tinted fills and the board outline."""
    s = TEX_SCALE

    def to_px(pts: np.ndarray) -> np.ndarray:
        return _px(pts, X, Y)

    centres = g.cell_centres_mm()
    thick = max(1, int(round(rng.uniform(0.6, 1.4) * s)))
    ink = tuple(float(v) for v in m.ink)
    ring = rng.uniform(0.4, 0.48) * g.pitch_mm
    if m.fill is not None:
        for c in centres:
            p = to_px(np.array([c]))[0]
            cv2.circle(tex, (int(p[0] * 16), int(p[1] * 16)), int(ring * s * 16),
                       tuple(float(v) for v in m.fill), -1, cv2.LINE_AA, 4)
    if "lattice" in m.prints:
        for a, c in enumerate(centres):
            for b in NEIGHBOURS[a]:
                if b > a:
                    p, q = to_px(np.array([c, centres[b]]))
                    cv2.line(tex, (int(p[0] * 16), int(p[1] * 16)),
                             (int(q[0] * 16), int(q[1] * 16)), ink, thick, cv2.LINE_AA, 4)
    if "circles" in m.prints or m.kind == "sheet" or m.prints == "fills":
        for c in centres:
            p = to_px(np.array([c]))[0]
            cv2.circle(tex, (int(p[0] * 16), int(p[1] * 16)), int(ring * s * 16), ink,
                       thick, cv2.LINE_AA, 4)
    if "hexes" in m.prints:
        r = g.pitch_mm / math.sqrt(3.0)
        for c in centres:
            hexagon = np.array([(c[0] + r * math.cos(math.radians(30 + 60 * k)),
                                 c[1] + r * math.sin(math.radians(30 + 60 * k)))
                                for k in range(6)])
            pts = np.round(to_px(hexagon) * 16).astype(np.int32)
            cv2.polylines(tex, [pts], True, ink, thick, cv2.LINE_AA, 4)
    if m.kind != "sheet":
        outline = np.round(to_px(g.board_outline_mm(0.75)) * 16).astype(np.int32)
        cv2.polylines(tex, [outline], True, ink, thick, cv2.LINE_AA, 4)


def _markers(tex: np.ndarray, g: BoardGeometry, m: Material, X: float, Y: float) -> None:
    """The four markers: on the sheet's paper, or each on its own white card."""
    s = TEX_SCALE
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, g.dictionary))
    side = int(round(g.marker_side_mm * s))
    card = m.card if m.kind != "sheet" else PAPER_ALBEDO
    modules = int(dictionary.markerSize) + 2
    for mid in g.markers:
        cx, cy = g.marker_centre_mm(mid)
        if m.kind != "sheet":
            h = 0.5 * g.marker_side_mm * (1 + 2 * m.quiet / modules)
            _poly(tex, _px(np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h],
                                     [cx - h, cy + h]]), X, Y), card)
        img = cv2.aruco.generateImageMarker(dictionary, mid, side)
        u0 = int(round((cx + X) * s - side / 2))
        v0 = int(round((Y - cy) * s - side / 2))
        tex[v0:v0 + side, u0:u0 + side] = np.where(img[..., None] > 127, card, (22, 22, 22))
