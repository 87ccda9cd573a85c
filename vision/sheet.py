"""A printable sheet at true scale: the four markers (with quiet zones), the board outline,
the cell circles and their names. PNG at a given DPI, or SVG in millimetres."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from engine.errors import DvonnError
from engine.geometry import CELL_NAMES
from vision.geometry import BoardGeometry

MM_PER_INCH = 25.4
RING = 0.45  # cell circle radius in pitches


def sheet_size_mm(geometry: BoardGeometry) -> tuple[float, float]:
    hx, hy = geometry.sheet_extent_mm()
    return (2 * hx, 2 * hy)


def _marker_bits(geometry: BoardGeometry, marker_id: int) -> np.ndarray:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.dictionary))
    n = dictionary.markerSize + 2
    return cv2.aruco.generateImageMarker(dictionary, marker_id, n)  # one pixel per cell


def render_png(geometry: BoardGeometry | None = None, dpi: int = 300) -> np.ndarray:
    """The sheet as a grey image at ``dpi``; one pixel is 25.4/dpi mm."""
    g = geometry or BoardGeometry()
    if not 50 <= dpi <= 1200:
        raise DvonnError(f"dpi {dpi} out of range 50..1200")
    s = dpi / MM_PER_INCH
    hx, hy = g.sheet_extent_mm()
    w, h = int(round(2 * hx * s)), int(round(2 * hy * s))
    img = np.full((h, w), 255, np.uint8)

    def px(x: float, y: float) -> tuple[float, float]:
        return ((x + hx) * s, (hy - y) * s)

    outline = np.array([px(x, y) for x, y in g.board_outline_mm()])
    cv2.polylines(img, [np.round(outline * 16).astype(np.int32)], True, 0, max(1, int(s * 0.5)),
                  cv2.LINE_AA, 4)
    for c, (x, y) in enumerate(g.cell_centres_mm()):
        u, v = px(x, y)
        cv2.circle(img, (int(u * 16), int(v * 16)), int(RING * g.pitch_mm * s * 16), 0,
                   max(1, int(s * 0.4)), cv2.LINE_AA, 4)
        scale = 0.012 * s * g.pitch_mm / 40.0 * 4
        (tw, th), _ = cv2.getTextSize(CELL_NAMES[c], cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        cv2.putText(img, CELL_NAMES[c], (int(u - tw / 2), int(v + th / 2)),
                    cv2.FONT_HERSHEY_SIMPLEX, scale, 150, max(1, int(s * 0.2)), cv2.LINE_AA)
    for mid in sorted(g.markers):
        bits = _marker_bits(g, mid)
        corners = g.marker_corners_mm(mid)
        u0, v0 = px(corners[0, 0], corners[0, 1])
        u1, v1 = px(corners[2, 0], corners[2, 1])
        side = int(round(u1 - u0))
        patch = cv2.resize(bits, (side, side), interpolation=cv2.INTER_NEAREST)
        r0, c0 = int(round(v0)), int(round(u0))
        img[r0:r0 + side, c0:c0 + side] = patch
    return img


def render_svg(geometry: BoardGeometry | None = None) -> str:
    """The sheet as SVG in millimetres; marker cells are <rect> elements."""
    g = geometry or BoardGeometry()
    hx, hy = g.sheet_extent_mm()
    W, H = 2 * hx, 2 * hy

    def px(x: float, y: float) -> tuple[float, float]:
        return (x + hx, hy - y)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W:.3f}mm" height="{H:.3f}mm" '
           f'viewBox="0 0 {W:.3f} {H:.3f}">',
           f'<rect x="0" y="0" width="{W:.3f}" height="{H:.3f}" fill="white"/>']
    pts = " ".join(f"{u:.3f},{v:.3f}" for u, v in (px(x, y) for x, y in g.board_outline_mm()))
    out.append(f'<polygon points="{pts}" fill="none" stroke="black" stroke-width="0.5"/>')
    for c, (x, y) in enumerate(g.cell_centres_mm()):
        u, v = px(x, y)
        out.append(f'<circle cx="{u:.3f}" cy="{v:.3f}" r="{RING * g.pitch_mm:.3f}" fill="none" '
                   'stroke="black" stroke-width="0.4"/>')
        out.append(f'<text x="{u:.3f}" y="{v + 1.5:.3f}" font-size="{0.1 * g.pitch_mm:.2f}" '
                   f'text-anchor="middle" fill="#999">{CELL_NAMES[c]}</text>')
    for mid in sorted(g.markers):
        bits = _marker_bits(g, mid)
        n = bits.shape[0]
        cell = g.marker_side_mm / n
        x0, y0 = px(*g.marker_corners_mm(mid)[0, :2])
        out.append(f'<g id="marker{mid}">')
        for r in range(n):
            for c in range(n):
                if bits[r, c] < 128:
                    out.append(f'<rect x="{x0 + c * cell:.3f}" y="{y0 + r * cell:.3f}" '
                               f'width="{cell:.3f}" height="{cell:.3f}" fill="black"/>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_sheet(path: str | Path, geometry: BoardGeometry | None = None, dpi: int = 300) -> None:
    """Write ``path`` (.png at ``dpi`` with its DPI recorded, or .svg)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".svg":
        data = render_svg(geometry).encode()
    elif suffix == ".png":
        ok, buf = cv2.imencode(".png", render_png(geometry, dpi))
        if not ok:
            raise DvonnError("PNG encoding failed")
        data = _with_dpi(buf.tobytes(), dpi)
    else:
        raise DvonnError(f"sheet file {str(p)!r}: use a .png or .svg name")
    try:
        p.write_bytes(data)
    except OSError as exc:
        raise DvonnError(f"cannot write {str(p)!r}: {exc.strerror or exc}") from None


def _with_dpi(png: bytes, dpi: int) -> bytes:
    """Insert a pHYs chunk so printers use true scale."""
    import struct
    import zlib

    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    at = 8 + 25  # signature + IHDR chunk
    return png[:at] + chunk + png[at:]
